"""Rules as data: build a game's frozen rules dataclass from a TOML variant file.

Every key a file names must be a field of the rules (nested tables for nested
dataclasses); anything else is refused with a :class:`RulesError` naming the key.
Keys a file leaves out keep the game's defaults.

Odds are written ``"4:5"`` (or a number: ``2``, ``"1/2"``); counts are integers.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from cardroom.core.money import AmountError, format_amount, odds
from cardroom.core.textfile import TextInputError, read_text_file

T = TypeVar("T")


class RulesError(ValueError):
    """A rules file or value that cannot be used; the message names the key."""


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
    known = [f.name for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}{key}' (known here: {', '.join(known)})")
        changes[key] = _convert(hints[key], value, getattr(default, key), f"{path}{key}")
    try:
        return dataclasses.replace(default, **changes)  # type: ignore[type-var]
    except (ValueError, TypeError) as err:
        raise RulesError(_keyed(path, str(err))) from None


def _convert(tp: Any, value: Any, current: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:  # only a rules hook can say None: TOML has no null
            return None
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(options[0], value, current, key)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        base = current if current is not None else tp()
        return _override(base, value, f"{key}.")
    if origin is tuple:
        (item_type, *_rest) = typing.get_args(tp)
        if not isinstance(value, list):
            raise RulesError(f"'{key}' must be a list")
        if dataclasses.is_dataclass(item_type) and isinstance(item_type, type):
            return tuple(_build_row(item_type, row, f"{key}[{i}]") for i, row in enumerate(value))
        return tuple(_convert(item_type, v, None, f"{key}[{i}]") for i, v in enumerate(value))
    if tp is bool:
        if not isinstance(value, bool):
            raise RulesError(f"'{key}' must be true or false, not {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"'{key}' must be a whole number, not {value!r}")
        return value
    if tp is Fraction:
        try:
            if isinstance(value, float):
                return odds(Fraction(Decimal(str(value))))
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise AmountError(f"{value!r}")
            return odds(value)
        except AmountError:
            raise RulesError(
                f"'{key}' must be odds like \"4:5\" or a number, not {value!r}"
            ) from None
    if tp is str:
        if not isinstance(value, str):
            raise RulesError(f"'{key}' must be a string, not {value!r}")
        return value
    raise RulesError(f"'{key}' cannot be set from a rules file")  # pragma: no cover


def _build_row(cls: type[Any], data: Any, path: str) -> Any:
    if not isinstance(data, Mapping):
        raise RulesError(f"'{path}' must be a table")
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls) if f.init]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise RulesError(f"unknown key '{path}.{key}' (known here: {', '.join(known)})")
        kwargs[key] = _convert(hints[key], value, None, f"{path}.{key}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as err:
        raise RulesError(_keyed(f"{path}.", str(err))) from None


def _keyed(path: str, message: str) -> str:
    """Validation messages read ``"field: why"``; put the full key path in front."""
    field, sep, why = message.partition(": ")
    if sep and field.isidentifier():
        return f"'{path}{field}': {why}"
    return f"'{path.rstrip('.') or 'rules'}': {message}"


def rules_to_dict(rules: Any) -> dict[str, Any]:
    """The rules as plain TOML-able data.

    Whole numbers stay numbers; other odds are written ``"a:b"`` and other amounts
    (fields marked ``metadata={"amount": True}``) as exact decimals or ``"n/d"``.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rules):
        out[f.name] = _plain(getattr(rules, f.name), bool(f.metadata.get("amount")))
    return out


def _plain(value: Any, amount: bool = False) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in rules_to_dict(value).items() if v is not None}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        if amount:
            return format_amount(value)
        return f"{value.numerator}:{value.denominator}"
    return value


def rules_to_toml(rules: Any) -> str:
    """The rules as a TOML file a user can edit and load back with ``--rules``."""
    lines: list[str] = []
    _emit(lines, "", rules_to_dict(rules))
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_rows(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict)


def _emit(lines: list[str], prefix: str, data: dict[str, Any]) -> None:
    for key, value in data.items():
        if not isinstance(value, dict) and not _is_rows(value):
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in data.items():
        if isinstance(value, dict):
            lines += ["", f"[{prefix}{key}]"]
            _emit(lines, f"{prefix}{key}.", value)
    for key, value in data.items():
        if _is_rows(value):
            for row in value:
                lines += ["", f"[[{prefix}{key}]]"]
                _emit(lines, f"{prefix}{key}.", row)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")  # pragma: no cover
