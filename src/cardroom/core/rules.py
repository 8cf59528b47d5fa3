"""Rules as data: a game's frozen rules dataclass, each field said once, read from and
written to a TOML variant file.

Each field of a rules dataclass is declared with :func:`rule`, which keeps beside it
everything about it (an :class:`About`): what it means, its range (a :class:`Between`,
for a number) or its choices (for a text), the kind of a fraction (odds, an amount, a
share or a multiple), whether a written file leaves it out at its default (``quiet``),
and the older switches a file may still say it with (``aliases``).  :func:`rule_fields`
is the one walk over them: the TOML reader (:func:`apply_rules`) and writer
(:func:`rules_to_dict`), the checks (:func:`check_ranges`, :func:`check_choices`), the
lab's form and ``cardroom rules --all`` all read it.

Every key a file names must be a field of the rules (nested tables for nested
dataclasses); anything else is refused with a :class:`RulesError` naming the key.
Keys a file leaves out keep the game's defaults.  Odds are written ``"4:5"`` (or a
number: ``2``, ``"1/2"``); amounts, shares and multiples as ``10``, ``"12.50"`` or
``"1/20"``; counts are integers.  A rules type calls :func:`check_ranges` (and
:func:`check_choices`) from ``__post_init__``, so a value the engine cannot honour is
refused wherever the rules come from, with a message that names the field and its range.

A rules type may read some keys of a file its own way (a static ``prepare_toml(default,
data)``, before the keys are checked) and write them its own way (``toml_data(self,
data)``): the shoe's reshuffle point is written in the form that follows the shoe's size.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from cardroom.core.money import exact_text, odds, parse_exact
from cardroom.core.textfile import TextInputError, read_text_file

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
#: a rules dataclass
R = TypeVar("R", bound="DataclassInstance")


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

    def holds(self, obj: object, value: int | Fraction) -> bool:
        low, high = _bound(obj, self.low), _bound(obj, self.high)
        return (low < value if self.above else low <= value) and (
            value < high if self.below else value <= high
        )

    def text(self, obj: object, kind: str) -> str:
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


def _bound(obj: object, bound: Bound) -> int | Fraction:
    if isinstance(bound, Ref):
        value: int | Fraction = getattr(obj, bound.name)
        return value
    return bound


def _bound_text(obj: object, bound: Bound, kind: str) -> str:
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


# -- each field said once ------------------------------------------------------------------
@dataclass(frozen=True)
class About:
    """Everything about one field of a rules dataclass, declared beside it (:func:`rule`).

    ``words``: what it means; ``range``: a number's (each element's, for a tuple);
    ``choices``: a text's values, the default first; ``kind``: a fraction's, one of
    :data:`KIND_WORDS` (odds unless said); ``quiet``: a written file leaves it out at its
    default; ``aliases``: older switches a file may say it with, each its choice when
    true and when false (a written file says the choice so where it can)."""

    words: str = ""
    range: Between | None = None
    choices: tuple[str, ...] = ()
    kind: str | None = None
    quiet: bool = False
    aliases: Mapping[str, tuple[str, str]] = dataclasses.field(default_factory=dict)


_ABOUT = "about"
_NOTHING = About()


@overload
def rule(
    default: T,
    words: str = "",
    *,
    range: Between | None = None,
    choices: tuple[str, ...] = (),
    kind: str | None = None,
    quiet: bool = False,
    aliases: Mapping[str, tuple[str, str]] | None = None,
) -> T: ...


@overload
def rule(
    *,
    words: str = "",
    factory: Callable[[], T],
    range: Between | None = None,
    choices: tuple[str, ...] = (),
    kind: str | None = None,
    quiet: bool = False,
    aliases: Mapping[str, tuple[str, str]] | None = None,
) -> T: ...


@overload
def rule(
    *,
    words: str = "",
    range: Between | None = None,
    choices: tuple[str, ...] = (),
    kind: str | None = None,
    quiet: bool = False,
    aliases: Mapping[str, tuple[str, str]] | None = None,
) -> Any: ...  # a field with no default (as dataclasses.field's)


def rule(
    default: object = dataclasses.MISSING,
    words: str = "",
    *,
    factory: Callable[[], object] | None = None,
    range: Between | None = None,
    choices: tuple[str, ...] = (),
    kind: str | None = None,
    quiet: bool = False,
    aliases: Mapping[str, tuple[str, str]] | None = None,
) -> object:
    """A field of a rules dataclass with its :class:`About`: its ``default`` (or a
    ``factory`` of it), what it means and the rest, in one place."""
    about = About(words, range, tuple(choices), kind, quiet, dict(aliases or {}))
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={_ABOUT: about})
    return dataclasses.field(default=default, metadata={_ABOUT: about})


@dataclass(frozen=True)
class RuleField:
    """A field of a rules dataclass as the walk sees it: its name, its type (without
    ``| None``), what :func:`rule` said of it, its kind of value and its default.

    ``kind`` is one of :data:`KIND_WORDS` for a number, ``bool``, ``choice``, ``text``,
    ``rows`` (a tuple of dataclasses) or ``table`` (a nested dataclass); ``listed``: a
    tuple of such plain values (``kind`` is its elements')."""

    name: str
    type: object
    about: About
    kind: str
    default: object
    listed: bool = False

    @property
    def optional(self) -> bool:
        """May it be None (``int | None``)?"""
        return self.default is None


_FIELDS: dict[type[DataclassInstance], tuple[RuleField, ...]] = {}


def rule_fields(cls: type[DataclassInstance]) -> tuple[RuleField, ...]:
    """Every field of the rules dataclass ``cls`` a file may set, in its order: the one
    walk the reader, the writer, the checks, the lab and ``rules --all`` share."""
    known = _FIELDS.get(cls)
    if known is not None:
        return known
    hints = typing.get_type_hints(cls)
    found = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        about: About = f.metadata.get(_ABOUT, _NOTHING)
        tp = _unwrap(hints[f.name])
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        kind = _kind_of(hints[f.name], tp, about)
        listed = typing.get_origin(hints[f.name]) is tuple and kind != "rows"
        found.append(RuleField(f.name, tp, about, kind, default, listed))
    _FIELDS[cls] = tuple(found)
    return _FIELDS[cls]


def _kind_of(hint: object, tp: object, about: About) -> str:
    if tp is int:
        return "number"
    if tp is Fraction:
        return about.kind or "odds"
    if tp is bool:
        return "bool"
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return "rows" if typing.get_origin(hint) is tuple else "table"
    return "choice" if about.choices else "text"


def most_items(f: RuleField) -> int | None:
    """The most values the listed field ``f`` can hold, when its range implies it: whole
    numbers between fixed bounds, none given twice (``b27_totals``: 10); else None."""
    bound = f.about.range
    if not f.listed or f.kind != "number" or bound is None:
        return None
    low, high = bound.low, bound.high
    if not (isinstance(low, int) and isinstance(high, int)):
        return None
    return max(0, high - low + 1 - bound.above - bound.below)


def _check_length(f: RuleField | None, value: object, key: str) -> None:
    """Refuse a list longer than the field ``f`` can hold before its values are read
    one by one (a file of two million totals is refused at once)."""
    most = None if f is None else most_items(f)
    if most is None or not isinstance(value, list) or len(value) <= most:
        return
    assert f is not None and f.about.range is not None
    each = f.about.range.text(None, f.kind)
    raise RulesError(
        f"'{key}' may list at most {most} values, not {len(value)}: each must be {each}, "
        "and none given twice"
    )


def check_choices(rules: DataclassInstance) -> None:
    """Raise ValueError (``"field: must be ..."``) for a choice field of ``rules`` whose
    value is not one of its choices."""
    for f in rule_fields(type(rules)):
        choices = f.about.choices
        if not choices:
            continue
        value = getattr(rules, f.name)
        if value not in choices:
            words = ", ".join(f'"{c}"' for c in choices[:-1]) + f' or "{choices[-1]}"'
            raise ValueError(f"{f.name}: must be {words}, not {value!r}")


def check_ranges(obj: DataclassInstance, names: Iterable[str] | None = None) -> None:
    """Raise ValueError (``"field: must be ..."``) for the first field of ``obj`` out of
    the range :func:`rule` gives it (``names``: only those, in that order; else in the
    order of the fields)."""
    fields = {f.name: f for f in rule_fields(type(obj))}
    ranges = {f.name: f.about.range for f in fields.values() if f.about.range is not None}
    for name in _refs_first(ranges) if names is None else names:
        bound, kind, value = ranges[name], fields[name].kind, getattr(obj, name)
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
        twice = _first_repeat(items)
        if twice is not None:
            raise ValueError(f"{name}: {show_value(twice, kind)} is given twice")


def _first_repeat(items: tuple[T, ...]) -> T | None:
    """The first item of ``items`` equal to one before it, or None; in linear time (a
    list of two million numbers is checked at once, not in hours)."""
    seen: set[T] = set()
    try:
        for item in items:
            if item in seen:
                return item
            seen.add(item)
    except TypeError:  # (a value that cannot be a key: compared with each before it)
        return next((item for i, item in enumerate(items) if item in items[:i]), None)
    return None


def _refs_first(ranges: Mapping[str, Between]) -> list[str]:
    """The fields of ``ranges`` in their order, but each after the fields its bounds
    name (``burn`` below ``reshuffle_after``: that one is checked first, so that a
    message names the value that is wrong, not the one measured against it)."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in ranges:
            return
        bound = ranges[name]
        for ref in (bound.low, bound.high):
            if isinstance(ref, Ref) and ref.name != name:
                visit(ref.name)
        order.append(name)

    for name in ranges:
        visit(name)
    return order


def field_kinds(cls: type[DataclassInstance]) -> dict[str, str]:
    """Each numeric field's kind (a key of :data:`KIND_WORDS`; a tuple's is its
    elements')."""
    return {f.name: f.kind for f in rule_fields(cls) if f.kind in KIND_WORDS}


def _unwrap(tp: object) -> object:
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


def load_rules_file(default: R, path: str | Path) -> R:
    """Read ``path`` (TOML) as changes to the rules ``default``."""
    file = Path(path)
    try:
        text = read_text_file(file, "rules file")
    except TextInputError as err:
        raise RulesError(str(err)) from None
    data = parse_toml(text, f"rules file {str(file)!r}")
    return apply_rules(default, data, source=str(file))


def load_rules_text(default: R, text: str, source: str = "rules") -> R:
    """Read TOML ``text`` (a file's content, or a record's rules) as changes to ``default``."""
    return apply_rules(default, parse_toml(text, source), source=source)


def parse_toml(text: str, name: str) -> dict[str, Any]:
    """The TOML ``text`` of rules (``name`` says whose, in errors) read, or a one-line
    :class:`RulesError`: not TOML, nested too deeply for the parser, or a whole number
    too long to read."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"{name} is not valid TOML: {err}") from None
    except RecursionError:
        raise RulesError(
            f"{name} is nested too deeply (lists or tables inside one another)"
        ) from None
    except ValueError as err:  # a whole number over Python's limit of digits
        long = _too_long(text) if "digits" in str(err) else None
        reason = str(err).partition("\n")[0] or type(err).__name__
        raise RulesError(
            f"{name}: {long}" if long else f"{name} is not valid TOML: {reason}"
        ) from None


def _too_long(text: str) -> str | None:
    """Which whole number of the TOML ``text`` is too long for Python to read: its key,
    where a line says ``key = 999...`` (after ``[table]``, if any), else its line."""
    limit = sys.get_int_max_str_digits()
    if not limit:
        return None
    for found in re.finditer(rf"[0-9_]{{{limit + 1},}}", text):
        if len(found.group()) - found.group().count("_") <= limit:
            continue
        start = text.rfind("\n", 0, found.start()) + 1
        before = text[start : found.start()]
        if "#" in before or '"' in before or "'" in before:
            continue  # in a comment or a string, which TOML reads as it is
        key = _LINE_KEY.match(before)
        if key:
            tables = _TABLE_LINE.findall(text, 0, start)
            where = f"'{tables[-1]}.{key.group(1)}'" if tables else f"'{key.group(1)}'"
        else:
            where = f"line {text.count(chr(10), 0, start) + 1}"
        return f"{where}: the number is too long (more than {limit} digits)"
    return f"a number is too long (more than {limit} digits)"


#: the key a TOML line starts with: ``player_pays = `` or ``shoe.decks = [``
_LINE_KEY = re.compile(r"[ \t]*([A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*)[ \t]*=")
#: a TOML line that starts a table: ``[shoe]``, ``[[player_table]]``
_TABLE_LINE = re.compile(r"^[ \t]*\[\[?[ \t]*([A-Za-z0-9_.-]+)[ \t]*\]\]?[ \t]*(?:#.*)?$", re.M)


def apply_rules(default: R, data: Mapping[str, object], source: str = "rules") -> R:
    """Return ``default`` with the values of ``data`` put in, checked key by key."""
    try:
        return _override(default, data, "")
    except RulesError as err:
        raise RulesError(f"{source}: {err}") from None


def _override(default: R, data: object, path: str) -> R:
    cls = type(default)
    if not isinstance(data, Mapping):
        raise RulesError(f"'{path.rstrip('.')}' must be a table")
    hook = getattr(cls, "prepare_toml", None)
    try:
        given = _read_aliases(cls, {str(key): value for key, value in data.items()})
        if hook is not None:
            given = hook(default, given)
    except ValueError as err:
        raise RulesError(_keyed(path, str(err))) from None
    hints = typing.get_type_hints(cls)
    kinds = field_kinds(cls)
    known = [f.name for f in dataclasses.fields(cls) if f.init]
    fields = {f.name: f for f in rule_fields(cls)}
    changes: dict[str, object] = {}
    for key, value in given.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}{key}' (known here: {', '.join(known)})")
        _check_length(fields.get(key), value, f"{path}{key}")
        changes[key] = _convert(
            hints[key], value, getattr(default, key), f"{path}{key}", kinds.get(key, "")
        )
    try:
        return dataclasses.replace(default, **changes)
    except (ValueError, TypeError) as err:
        raise RulesError(_keyed(path, str(err))) from None


def _convert(tp: object, value: object, current: object, key: str, kind: str = "") -> object:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:  # only a rules hook can say None: TOML has no null
            return None
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(options[0], value, current, key, kind)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        base = current if dataclasses.is_dataclass(current) else tp()
        assert not isinstance(base, type)
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


def brief(value: object) -> str:
    """A value a file gave, as a message quotes it: its repr, cut short when long."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:32]}...{text[-4:]}"


def _fraction(value: object, kind: str) -> Fraction:
    return read_number(value, odds_allowed=kind != "amount")


def read_number(value: object, odds_allowed: bool = True) -> Fraction:
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


def _build_row(cls: type[DataclassInstance], data: object, path: str) -> DataclassInstance:
    if not isinstance(data, Mapping):
        raise RulesError(f"'{path}' must be a table")
    hints = typing.get_type_hints(cls)
    kinds = field_kinds(cls)
    known = [f.name for f in dataclasses.fields(cls) if f.init]
    fields = {f.name: f for f in rule_fields(cls)}
    kwargs: dict[str, object] = {}
    for key, value in data.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}.{key}' (known here: {', '.join(known)})")
        _check_length(fields.get(key), value, f"{path}.{key}")
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


def _read_aliases(cls: type[DataclassInstance], data: dict[str, object]) -> dict[str, object]:
    """A file's keys with each older switch put as its choice field (the two given must
    say the same)."""
    out = dict(data)
    for f in rule_fields(cls):
        for old, (if_true, if_false) in f.about.aliases.items():
            if old not in out:
                continue
            value = out.pop(old)
            if not isinstance(value, bool):
                raise ValueError(f"{old}: must be true or false, not {value!r}")
            choice = if_true if value else if_false
            if f.name in out and out[f.name] != choice:
                raise ValueError(
                    f"{old}: {str(value).lower()} means {f.name} = {choice!r}, but {f.name} "
                    f"is {out[f.name]!r}: give one of the two"
                )
            out[f.name] = choice
    return out


def rules_to_dict(rules: DataclassInstance) -> dict[str, object]:
    """The rules as plain TOML-able data, as a file writes them.

    Whole numbers stay numbers; other odds are written ``"a:b"`` and other amounts,
    shares and multiples as exact decimals or ``"n/d"``.  A quiet field at its default
    is left out, and a choice an older switch can say is written as that switch.
    """
    out: dict[str, object] = {}
    for f in rule_fields(type(rules)):
        value = getattr(rules, f.name)
        if f.about.quiet and value == f.default:
            continue
        switch = next((old for old, said in f.about.aliases.items() if value in said), None)
        if switch is not None:
            out[switch] = value == f.about.aliases[switch][0]
            continue
        out[f.name] = _plain(value, f.kind not in ("number", "odds"))
    hook = getattr(rules, "toml_data", None)  # a rules type may write some keys its own way
    return out if hook is None else dict(hook(out))


def _plain(value: object, amount: bool = False) -> object:
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


def rules_to_toml(rules: DataclassInstance) -> str:
    """The rules as a TOML file a user can edit and load back with ``--rules``."""
    import tomlkit  # lazy: only to write rules (a simulation's start-up does not)

    return tomlkit.dumps(rules_to_dict(rules))
