"""Rules as data: build a game's frozen rules dataclass from a TOML variant file.

Every key a file names must be a field of the rules (nested tables for nested
dataclasses); anything else is refused with a :class:`RulesError` naming the key.
Keys a file leaves out keep the game's defaults.

Odds are written ``"4:5"`` (or a number: ``2``, ``"1/2"``); amounts (fields marked
``metadata={"amount": True}``), shares (``{"kind": "share"}``) and multiples
(``{"kind": "multiple"}``) as ``10``, ``"12.50"`` or ``"1/20"``; counts are integers.

Each rules dataclass lists the range of every numeric field in one ``RANGES`` table
of :class:`Between` and calls :func:`check_ranges` from ``__post_init__``, so a value
the engine cannot honour is refused wherever the rules come from, with a message
that names the field and its range.

A rules type may read some keys of a file its own way (a static ``prepare_toml(default,
data)``, before the keys are checked) and write them its own way (``toml_data(self,
data)``): the shoe's reshuffle point is written in the form that follows the shoe's size.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import tomlkit

from cardroom.core.money import exact_text, odds, parse_exact
from cardroom.core.textfile import TextInputError, read_text_file

T = TypeVar("T")


class RulesError(ValueError):
    """A rules file or value that cannot be used; the message names the key."""


# -- ranges ------------------------------------------------------------------------------
#: how a value of each kind of numeric field is written, for messages; a field's kind is
#: "number" for an int, else its metadata's "kind" ({"amount": True} means "amount"),
#: else "odds"
KIND_WORDS = {
    "number": "a whole number",
    "odds": 'odds such as "4:5" or 2',
    "amount": "an amount such as 10 or 12.50",
    "share": 'a share such as 0.05 or "1/20"',
    "multiple": "a number such as 9 or 99",
}
#: the highest odds a payout may have
MAX_ODDS = 1000
#: the finest fraction each kind of field may be given in (its largest denominator):
#: payouts stay countable in whole parts of a stake
MAX_DENOMINATOR = {"odds": 1000, "multiple": 1000, "share": 10_000, "amount": 1_000_000}
#: the most digits a number in a rules file may have before or after its point
MAX_DIGITS = 18


@dataclass(frozen=True)
class Ref:
    """A bound that is another field's (or property's) value, e.g. the shoe's size.

    ``label`` says how the bound reads, ``{}`` standing for its value; by default
    the field's name with the value in brackets: ``minimum (10)``.
    """

    name: str
    label: str = ""


Bound = int | Fraction | Ref


@dataclass(frozen=True)
class Between:
    """The range of a numeric rules field: ``low`` to ``high``, both included unless
    ``above`` (``low`` excluded) or ``below`` (``high`` excluded).  For a tuple field the
    range is each element's, and no element may be given twice."""

    low: Bound
    high: Bound
    above: bool = False
    below: bool = False
    #: a few words after the range, e.g. what the number counts
    note: str = ""

    def holds(self, obj: Any, value: int | Fraction) -> bool:
        low, high = _bound(obj, self.low), _bound(obj, self.high)
        return (low < value if self.above else low <= value) and (
            value < high if self.below else value <= high
        )

    def text(self, obj: Any, kind: str) -> str:
        """The range in words: ``a whole number between 1 and 64``."""
        low, high = _bound_text(obj, self.low, kind), _bound_text(obj, self.high, kind)
        if self.above and self.below:
            span = f"above {low} and below {high}"
        elif self.above:
            span = f"above {low} and at most {high}"
        elif self.below:
            span = f"at least {low} and below {high}"
        else:
            span = f"between {low} and {high}"
        note = f" ({self.note})" if self.note else ""
        comma = "" if kind == "number" else ","
        return f"{KIND_WORDS[kind]}{comma} {span}{note}"


def _bound(obj: Any, bound: Bound) -> int | Fraction:
    if isinstance(bound, Ref):
        value: int | Fraction = getattr(obj, bound.name)
        return value
    return bound


def _bound_text(obj: Any, bound: Bound, kind: str) -> str:
    shown = show_value(_bound(obj, bound), kind)
    if isinstance(bound, Ref):
        return bound.label.format(shown) if bound.label else f"{bound.name} ({shown})"
    return shown


def show_value(value: int | Fraction, kind: str) -> str:
    """A number as a rules file writes it for a field of ``kind``."""
    if kind == "odds":
        value = Fraction(value)
        return f"{value.numerator}:{value.denominator}"
    if kind == "number":
        return str(value)
    return exact_text(Fraction(value))


def check_ranges(obj: Any, names: Iterable[str] | None = None) -> None:
    """Raise ValueError (``"field: must be ..."``) for the first field of ``obj`` out of
    the range its class's ``RANGES`` gives it (``names``: only those, in that order)."""
    ranges: Mapping[str, Between] = type(obj).RANGES
    kinds = field_kinds(type(obj))
    for name in ranges if names is None else names:
        bound, kind, value = ranges[name], kinds[name], getattr(obj, name)
        if value is None:
            continue
        items = value if isinstance(value, tuple) else (value,)
        for i, item in enumerate(items):
            where = f"{name}[{i}]" if isinstance(value, tuple) else name
            if not bound.holds(obj, item):
                raise ValueError(
                    f"{where}: must be {bound.text(obj, kind)}, not {show_value(item, kind)}"
                )
            finest = MAX_DENOMINATOR.get(kind)
            if finest is not None and Fraction(item).denominator > finest:
                how = (
                    f"with at most {finest} on the right"
                    if kind == "odds"
                    else f"with a denominator of at most {finest}"
                )
                raise ValueError(
                    f"{where}: must be {KIND_WORDS[kind]}, {how}, not {show_value(item, kind)}"
                )
        twice = [item for i, item in enumerate(items) if item in items[:i]]
        if twice:
            raise ValueError(f"{name}: {show_value(twice[0], kind)} is given twice")


_KINDS: dict[type[Any], dict[str, str]] = {}


def field_kinds(cls: type[Any]) -> dict[str, str]:
    """Each numeric field's kind (a key of :data:`KIND_WORDS`; a tuple's is its
    elements'), from its type and metadata."""
    known = _KINDS.get(cls)
    if known is not None:
        return known
    hints = typing.get_type_hints(cls)
    kinds: dict[str, str] = {}
    for f in dataclasses.fields(cls):
        tp = _unwrap(hints[f.name])
        if tp is int:
            kinds[f.name] = "number"
        elif tp is Fraction:
            kinds[f.name] = "amount" if f.metadata.get("amount") else f.metadata.get("kind", "odds")
    _KINDS[cls] = kinds
    return kinds


def _unwrap(tp: Any) -> Any:
    """``int | None`` -> ``int``; ``tuple[int, ...]`` -> ``int``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        (tp,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return tp
    if origin is tuple:
        return typing.get_args(tp)[0]
    return tp


#: the range of a payout's odds
ODDS = Between(0, MAX_ODDS)


# -- loading -----------------------------------------------------------------------------


def load_rules_file(default: T, path: str | Path) -> T:
    """Read ``path`` (TOML) as changes to the rules ``default``."""
    file = Path(path)
    try:
        text = read_text_file(file, "rules file")
    except TextInputError as err:
        raise RulesError(str(err)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"rules file {str(file)!r} is not valid TOML: {err}") from None
    return apply_rules(default, data, source=str(file))


def load_rules_text(default: T, text: str, source: str = "rules") -> T:
    """Read TOML ``text`` (a file's content, or a record's rules) as changes to ``default``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"{source} is not valid TOML: {err}") from None
    return apply_rules(default, data, source=source)


def apply_rules(default: T, data: Mapping[str, Any], source: str = "rules") -> T:
    """Return ``default`` with the values of ``data`` put in, checked key by key."""
    try:
        return _override(default, data, "")
    except RulesError as err:
        raise RulesError(f"{source}: {err}") from None


def _override(default: T, data: Mapping[str, Any], path: str) -> T:
    cls = type(default)
    if not isinstance(data, Mapping):
        raise RulesError(f"'{path.rstrip('.')}' must be a table")
    hook = getattr(cls, "prepare_toml", None)
    if hook is not None:
        try:
            data = hook(default, dict(data))
        except ValueError as err:
            raise RulesError(_keyed(path, str(err))) from None
    hints = typing.get_type_hints(cls)
    kinds = field_kinds(cls)
    known = [f.name for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}{key}' (known here: {', '.join(known)})")
        changes[key] = _convert(
            hints[key], value, getattr(default, key), f"{path}{key}", kinds.get(key, "")
        )
    try:
        return dataclasses.replace(default, **changes)  # type: ignore[type-var]
    except (ValueError, TypeError) as err:
        raise RulesError(_keyed(path, str(err))) from None


def _convert(tp: Any, value: Any, current: Any, key: str, kind: str = "") -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:  # only a rules hook can say None: TOML has no null
            return None
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(options[0], value, current, key, kind)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        base = current if current is not None else tp()
        return _override(base, value, f"{key}.")
    if origin is tuple:
        (item_type, *_rest) = typing.get_args(tp)
        if not isinstance(value, list):
            raise RulesError(f"'{key}' must be a list, not {brief(value)}")
        if dataclasses.is_dataclass(item_type) and isinstance(item_type, type):
            return tuple(_build_row(item_type, row, f"{key}[{i}]") for i, row in enumerate(value))
        return tuple(_convert(item_type, v, None, f"{key}[{i}]", kind) for i, v in enumerate(value))
    if tp is bool:
        if not isinstance(value, bool):
            raise RulesError(f"'{key}' must be true or false, not {brief(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"'{key}' must be a whole number, not {brief(value)}")
        return value
    if tp is Fraction:
        try:
            return _fraction(value, kind)
        except (ValueError, ArithmeticError):
            words = KIND_WORDS.get(kind, KIND_WORDS["odds"])
            raise RulesError(f"'{key}' must be {words}, not {brief(value)}") from None
    if tp is str:
        if not isinstance(value, str):
            raise RulesError(f"'{key}' must be a string, not {brief(value)}")
        return value
    raise RulesError(f"'{key}' cannot be set from a rules file")  # pragma: no cover


def brief(value: Any) -> str:
    """A value a file gave, as a message quotes it: its repr, cut short when long."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:32]}...{text[-4:]}"


def _fraction(value: Any, kind: str) -> Fraction:
    return read_number(value, odds_allowed=kind != "amount")


def read_number(value: Any, odds_allowed: bool = True) -> Fraction:
    """A TOML value as an exact fraction, or ValueError; its sign and size are left to
    the range check, but a number of more than :data:`MAX_DIGITS` digits is refused.

    ``"a:b"`` is odds (unless ``odds_allowed`` is false); ``"12.50"``, ``"1/2"`` and numbers
    are read exactly (a TOML float by its decimal text: ``0.1`` is 1/10).
    """
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 2 * MAX_DIGITS + 2:
            raise ValueError(value)
        if ":" in text and odds_allowed:
            number = odds(text)
        else:
            try:  # "1e999999999" would take minutes to turn into a fraction
                huge = abs(Decimal(text).adjusted()) > MAX_DIGITS
            except ArithmeticError:
                huge = False  # "1/2", or not a number: parse_exact says which
            if huge:
                raise ValueError(value)
            number = parse_exact(text)
    elif isinstance(value, Fraction):  # put in by a rules type's prepare_toml
        number = value
    elif isinstance(value, float):
        number = Fraction(Decimal(str(value)))
    elif isinstance(value, int):
        number = Fraction(value)
    else:
        raise ValueError(value)
    if max(abs(number.numerator), number.denominator) >= 10 ** (2 * MAX_DIGITS):
        raise ValueError(value)
    return number


def _build_row(cls: type[Any], data: Any, path: str) -> Any:
    if not isinstance(data, Mapping):
        raise RulesError(f"'{path}' must be a table")
    hints = typing.get_type_hints(cls)
    kinds = field_kinds(cls)
    known = [f.name for f in dataclasses.fields(cls) if f.init]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}.{key}' (known here: {', '.join(known)})")
        kwargs[key] = _convert(hints[key], value, None, f"{path}.{key}", kinds.get(key, ""))
    missing = [
        f.name
        for f in dataclasses.fields(cls)
        if f.init
        and f.name not in kwargs
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise RulesError(f"'{path}': needs {' and '.join(missing)}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as err:
        raise RulesError(_keyed(f"{path}.", str(err))) from None


#: a key a validation message may start with: ``decks``, ``b27_totals[1]``, ``shoe.decks``
_KEY = re.compile(r"[A-Za-z_]\w*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*")


def _keyed(path: str, message: str) -> str:
    """Validation messages read ``"field: why"``; put the full key path in front."""
    field, sep, why = message.partition(": ")
    if sep and _KEY.fullmatch(field):
        return f"'{path}{field}': {why}"
    return f"'{path.rstrip('.') or 'rules'}': {message}"


def rules_to_dict(rules: Any) -> dict[str, Any]:
    """The rules as plain TOML-able data.

    Whole numbers stay numbers; other odds are written ``"a:b"`` and other amounts,
    shares and multiples as exact decimals or ``"n/d"``.
    """
    out: dict[str, Any] = {}
    kinds = field_kinds(type(rules))
    for f in dataclasses.fields(rules):
        decimal = kinds.get(f.name, "number") not in ("number", "odds")
        out[f.name] = _plain(getattr(rules, f.name), decimal)
    hook = getattr(rules, "toml_data", None)  # a rules type may write some keys its own way
    return out if hook is None else dict(hook(out))


def _plain(value: Any, amount: bool = False) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in rules_to_dict(value).items() if v is not None}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        if amount:
            return exact_text(value)
        return f"{value.numerator}:{value.denominator}"
    return value


def rules_to_toml(rules: Any) -> str:
    """The rules as a TOML file a user can edit and load back with ``--rules``."""
    return tomlkit.dumps(rules_to_dict(rules))
