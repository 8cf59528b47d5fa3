"""The one way a line of the audit export is written, and read back strictly.

A line is a JSON object in canonical form: keys sorted, no white space, UTF-8 (no
``\\u`` escapes but those JSON requires), no floats (money is whole cents; an exact
figure is a decimal string), then ``\\n``.  The same object always gives the same bytes,
so the SHA-256 of a line is the SHA-256 of what it says.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

__all__ = [
    "FormatError",
    "canonical",
    "digest",
    "json_value",
    "parse_line",
    "parse_time",
    "time_text",
]


class FormatError(ValueError):
    """A line that is not canonical JSON of the export (the message says why)."""


def canonical(data: dict[str, Any]) -> bytes:
    """``data`` as its canonical line, without the ``\\n``; :class:`FormatError` for a
    float (never written: money is whole cents or a decimal string)."""
    _no_floats(data)
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _no_floats(value: Any) -> None:
    if isinstance(value, float):
        raise FormatError(f"a float ({value!r}) has no place in the export")
    if isinstance(value, dict):
        for item in value.values():
            _no_floats(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _no_floats(item)


def digest(line: bytes) -> str:
    """The hex SHA-256 of a line's bytes (without its ``\\n``)."""
    return hashlib.sha256(line).hexdigest()


def time_text(when: datetime) -> str:
    """A time as the export writes it: UTC, to the microsecond, ``Z`` at the end."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: Any) -> datetime:
    """Read back :func:`time_text` (exactly that shape); :class:`FormatError` else."""
    if not isinstance(text, str):
        raise FormatError(f"a time is a string, not {text!r}")
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        raise FormatError(f"{text[:40]!r} is not a time as the export writes it") from None


def json_value(value: Any) -> Any:
    """A column's value as the export writes it: a time as :func:`time_text`, a
    decimal as its string, text, whole numbers and null as they are."""
    if isinstance(value, datetime):
        return time_text(value)
    if isinstance(value, Decimal):
        return str(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    raise FormatError(f"a column's value of type {type(value).__name__} cannot be exported")


def _refuse_float(text: str) -> Any:
    raise FormatError(f"the number {text[:40]} is not whole (the export has no floats)")


def _refuse_constant(text: str) -> Any:
    raise FormatError(f"{text} is not JSON")


def parse_line(line: bytes) -> dict[str, Any]:
    """A line (without its ``\\n``) read back: UTF-8, a JSON object with no floats, in
    canonical form; :class:`FormatError` says what it is not."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError(f"not UTF-8 (byte {err.start + 1} of the line)") from None
    try:
        data = json.loads(text, parse_float=_refuse_float, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise FormatError(f"not JSON ({err.msg} at column {err.colno})") from None
    except FormatError:  # (a float or a constant: refused by name)
        raise
    except RecursionError:
        raise FormatError("not JSON as an export writes it (nested too deeply)") from None
    except ValueError:  # a whole number over Python's limit of digits
        raise FormatError("not JSON as an export writes it (a number too long)") from None
    if not isinstance(data, dict):
        raise FormatError("not a JSON object")
    if canonical(data) != line:
        raise FormatError("not in canonical form (sorted keys, no white space, no escapes)")
    return data
