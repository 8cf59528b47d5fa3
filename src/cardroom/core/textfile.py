"""Reading text that people hand to cardroom: files and standard input, safely.

Every file option (a rules file, a stacked shoe) and the rounds tool's input go
through here, so that bytes that are not UTF-8, a byte-order mark, a file that is
far too big or cannot be opened all give one clear :class:`TextInputError`.

>>> decode_text(b"\\xef\\xbb\\xbfAs Kd", "input")
'As Kd'
>>> decode_text(b"As \\xff", "input")
Traceback (most recent call last):
...
cardroom.core.textfile.TextInputError: input is not UTF-8 text (byte 4 cannot be read)
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: The largest file cardroom reads (a rules file or a stacked shoe is a few KB).
MAX_FILE_BYTES = 16 * 1024 * 1024
#: The longest line of standard input the rounds tool takes (a round is under 200 bytes).
MAX_LINE_BYTES = 64 * 1024

BOM = "\ufeff"


class TextInputError(ValueError):
    """Text that cannot be read: the message says which file or line, and why."""


#: What a path's OSError means, where the system's own words ("File name too long",
#: "Too many levels of symbolic links") say it less plainly.
PATH_REASONS = {
    errno.ENAMETOOLONG: "the file name is too long",
    errno.ELOOP: "its symbolic links go round in a loop",
}


#: The longest path an error message quotes whole: a longer one keeps its two ends.
SHOWN_PATH = 80


def shown_path(path: Path | str) -> str:
    """A path as an error message quotes it: its repr (one line, whatever it holds),
    shortened in the middle when very long."""
    text = str(path)
    if len(text) > SHOWN_PATH:
        keep = (SHOWN_PATH - 3) // 2
        text = f"{text[:keep]}...{text[-keep:]}"
    return repr(text)


def path_reason(err: OSError) -> str:
    """Why a path cannot be used, in a few words.

    >>> path_reason(OSError(errno.ENAMETOOLONG, "File name too long"))
    'the file name is too long'
    >>> path_reason(PermissionError(errno.EACCES, "Permission denied"))
    'permission denied'
    """
    if err.errno in PATH_REASONS:
        return PATH_REASONS[err.errno]
    reason = err.strerror or type(err).__name__
    return reason[:1].lower() + reason[1:]


def decode_text(data: bytes, where: str, *, at_start: bool = True) -> str:
    """``data`` as UTF-8 text, without a leading byte-order mark when ``at_start``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TextInputError(
            f"{where} is not UTF-8 text (byte {err.start + 1} cannot be read)"
        ) from None
    return text.removeprefix(BOM) if at_start else text


def read_text_file(path: str | Path, what: str) -> str:
    """The text of the file ``path`` (``what`` names it in errors: "the rules file")."""
    file = Path(path)
    name = f"{what} {str(file)!r}"
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise TextInputError(f"cannot read {name}: {reason}") from None
    if len(data) > MAX_FILE_BYTES:
        raise TextInputError(f"{name} is too big (over {MAX_FILE_BYTES // 1024 // 1024} MB)")
    return decode_text(data, name)


@dataclass(frozen=True)
class InputLine:
    """One line of standard input: its number and text, or why it cannot be read."""

    number: int
    text: str
    error: str | None = None


def text_lines(stream: BinaryIO, what: str = "input") -> Iterator[InputLine]:
    """Each line of a byte stream (the rounds tool's standard input), read safely.

    A line that is not UTF-8 or is too long comes with an ``error`` and empty text,
    and the lines after it are still read; a byte-order mark at the start of the
    stream is dropped.
    """
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        where = f"line {number} of the {what}"
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                raw = stream.readline(MAX_LINE_BYTES)
            yield InputLine(number, "", f"{where} is longer than {MAX_LINE_BYTES} bytes")
            continue
        try:
            text = decode_text(raw, where, at_start=number == 1)
        except TextInputError as err:
            yield InputLine(number, "", str(err))
            continue
        yield InputLine(number, text.rstrip("\r\n"))
