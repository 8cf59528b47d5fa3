"""Verifying an audit export: the chain, the signature, the order, and every round
replayed through its game's engine.

The file is read twice, a line at a time (with one line of look-ahead), so verifying
costs the same memory whatever its size: first the chain, the end line's count and its
signature (is this the file the key's owner signed?), then what each row says (its
period, its order, its round replayed).  The first problem ends the check as
:class:`VerifyFailed`, ``line N: what``.  A line changed in any way is named: its own
checks fail, or the next line's ``prev`` no longer matches it; when a ``prev`` does not
match, the line after tells which of the two was changed (if the next line's ``prev``
still matches this one, it is the line before that changed), and for the end line its
signature tells.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cardroom.app.audit_export.canonical import FormatError, digest, parse_line, parse_time
from cardroom.app.audit_export.format import FORMAT, VERSION, Period, signed_message
from cardroom.app.audit_export.keys import fingerprint, signature_holds
from cardroom.app.history import RecordError, RoundRecord, replay

__all__ = ["ROUND_KIND", "Verified", "VerifyFailed", "verify"]

#: The kind of line whose rows are replayed through the engine.
ROUND_KIND = "round"
_HEADER_KEYS = {"cardroom", "code", "commit", "created_at", "database", "format", "from"}
_HEADER_KEYS |= {"key", "kind", "tables", "to", "version"}
_ROW_KEYS = {"kind", "prev", "row", "table"}
_END_KEYS = {"count", "counts", "kind", "prev", "signature"}
#: An Ed25519 signature as the end line writes it: 64 bytes in lower-case hex.
_SIGNATURE = re.compile("[0-9a-f]{128}")


class VerifyFailed(Exception):
    """The export does not verify: the first bad line and what is wrong with it."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class Verified:
    """What a verified export holds."""

    period: Period
    database: str
    created_at: datetime
    key: str
    lines: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    #: rounds replayed through the engine to their recorded outcome and payouts
    replayed: int = 0
    #: rounds that have nothing to replay, by why: in progress, void, or recorded by a
    #: cardroom before replayable records (``legacy``)
    not_replayed: Counter[str] = field(default_factory=Counter)


def _lines(path: Path) -> Iterator[tuple[int, bytes, bytes | None]]:
    """Each line (its ``\\n`` taken off) with its number and the next line (None at the
    end); a last line without its ``\\n`` is refused."""
    with path.open("rb") as file:
        current = file.readline()
        number = 1
        while current:
            following = file.readline()
            if not current.endswith(b"\n"):
                raise VerifyFailed(number, "the line does not end with a new line")
            yield number, current[:-1], following[:-1] if following else None
            current = following
            number += 1


def _parse(number: int, line: bytes) -> dict[str, Any]:
    try:
        return parse_line(line)
    except FormatError as err:
        raise VerifyFailed(number, str(err)) from None


def _keys(number: int, data: dict[str, Any], expected: set[str], what: str) -> None:
    if set(data) != expected:
        missing, extra = sorted(expected - set(data)), sorted(set(data) - expected)
        said = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(extra)}" if extra else "",
            )
            if part
        )
        raise VerifyFailed(number, f"not {what} ({said})")


class _Check:
    """The state of a verification as it walks the lines: the first walk checks the
    chain and the signature, the second what the rows say."""

    def __init__(self, key: Ed25519PublicKey) -> None:
        self.key = key
        self.result: Verified | None = None
        self.tables: dict[str, tuple[str, str]] = {}
        self.last: tuple[datetime, str, int] | None = None
        self.prev = ""
        self.rows: Counter[str] = Counter()

    # -- the first walk: the chain -----------------------------------------------------
    def chain(self, path: Path) -> Verified:
        ended = False
        for number, line, following in _lines(path):
            if ended:
                raise VerifyFailed(number, "a line after the end line")
            data = _parse(number, line)
            if number == 1:
                self.header(number, data)
            else:
                if data.get("prev") != self.prev:
                    raise _which_changed(self, number, line, data, following)
                if data.get("kind") == "end" or "signature" in data:
                    self.end(number, data)
                    ended = True
                else:
                    self.rows[str(data.get("kind"))] += 1
            self.prev = digest(line)
            if self.result is not None:
                self.result.lines = number
        if self.result is None:
            raise VerifyFailed(1, "the file is empty")
        if not ended:
            raise VerifyFailed(self.result.lines + 1, "the end line is missing")
        return self.result

    def header(self, number: int, data: dict[str, Any]) -> None:
        if data.get("format") != FORMAT or data.get("kind") != "header":
            raise VerifyFailed(number, "not the header of a cardroom audit export")
        if data.get("version") != VERSION:
            raise VerifyFailed(
                number, f"an export of version {data.get('version')!r} (this cardroom reads 1)"
            )
        _keys(number, data, _HEADER_KEYS, "a header")
        try:
            period = Period(parse_time(data["from"]), parse_time(data["to"]))
            created = parse_time(data["created_at"])
        except (FormatError, ValueError) as err:
            raise VerifyFailed(number, f"the header's period: {err}") from None
        tables = data["tables"]
        if not isinstance(tables, list) or not all(
            isinstance(t, dict) and set(t) == {"kind", "table", "time"} for t in tables
        ):
            raise VerifyFailed(number, "the header's tables are not a list of kind, table, time")
        self.tables = {t["kind"]: (t["table"], t["time"]) for t in tables}
        self.result = Verified(period, str(data["database"]), created, str(data["key"]))

    def end(self, number: int, data: dict[str, Any]) -> None:
        assert self.result is not None
        _keys(number, data, _END_KEYS, "the end line")
        if data["kind"] != "end":
            raise VerifyFailed(number, f"the end line's kind is {str(data['kind'])[:40]!r}")
        if not self.signed(data):
            raise VerifyFailed(
                number,
                "the signature does not verify with the key given "
                f"({fingerprint(self.key)}; the header names {self.result.key})",
            )
        if self.result.key != fingerprint(self.key):
            raise VerifyFailed(1, f"the header names the key {self.result.key}, not the signer's")
        rows = sum(self.rows.values())
        if data["count"] != rows:
            counted = f"{data['count']!r}"[:40]
            raise VerifyFailed(number, f"the end line counts {counted} rows, not {rows}")
        if data["counts"] != {kind: self.rows[kind] for kind in self.tables}:
            raise VerifyFailed(number, "the end line's counts by kind are not the lines'")

    def signed(self, data: dict[str, Any]) -> bool:
        """Does the end line's signature hold under the key given?"""
        text = data.get("signature")
        # exactly as written (lower-case hex): fromhex alone would take "AB" for "ab"
        if not isinstance(text, str) or not _SIGNATURE.fullmatch(text):
            return False
        return signature_holds(self.key, bytes.fromhex(text), signed_message(data))

    # -- the second walk: the rows -----------------------------------------------------
    def content(self, path: Path) -> None:
        for number, line, _ in _lines(path):
            data = parse_line(line)
            if number > 1 and data["kind"] != "end":
                self.row(number, data)

    def row(self, number: int, data: dict[str, Any]) -> None:
        assert self.result is not None
        _keys(number, data, _ROW_KEYS, "a row's line")
        kind, row = data["kind"], data["row"]
        if kind not in self.tables:
            raise VerifyFailed(number, f"a line of kind {str(kind)[:40]!r}, which the header lacks")
        table, time_column = self.tables[kind]
        if data["table"] != table:
            raise VerifyFailed(number, f"a {kind} line of table {data['table']!r}, not {table!r}")
        if not isinstance(row, dict) or not isinstance(row.get("id"), int):
            raise VerifyFailed(number, "the row is not an object with a whole id")
        try:
            when = parse_time(row.get(time_column))
        except FormatError as err:
            raise VerifyFailed(number, f"the row's {time_column}: {err}") from None
        if not self.result.period.holds(when):
            raise VerifyFailed(number, f"the row's {time_column} is outside the period")
        order = (when, table, row["id"])
        if self.last is not None and order <= self.last:
            raise VerifyFailed(number, "out of order (lines go by time, then table, then id)")
        self.last = order
        if kind == ROUND_KIND:
            self.round(number, row)
        self.result.counts[kind] += 1

    def round(self, number: int, row: dict[str, Any]) -> None:
        assert self.result is not None
        status, text = row.get("status"), row.get("record")
        if status != "finished" or text is None:
            self.result.not_replayed[str(status)] += 1
            return
        try:
            data = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict) and data.get("version") == 0:
            self.result.not_replayed["legacy"] += 1
            return
        try:
            record = RoundRecord.from_json(data)
        except RecordError as err:
            raise VerifyFailed(number, f"round {row['id']}: {err}") from None
        result = replay(record)
        if not result.same:
            raise VerifyFailed(
                number, f"round {row['id']} does not replay: {'; '.join(result.differences)}"
            )
        self.result.replayed += 1


def verify(path: Path, key: Ed25519PublicKey) -> Verified:
    """Check the export at ``path`` against ``key``: first the chain, the signature and
    the count (is this the file the key's owner signed?), then each row (its period, its
    order) with every round replayed.  :class:`VerifyFailed` at the first bad line (an
    unreadable file is an :class:`OSError`)."""
    check = _Check(key)
    verified = check.chain(path)
    check.content(path)
    return verified


def _which_changed(
    check: _Check, number: int, line: bytes, data: dict[str, Any], following: bytes | None
) -> VerifyFailed:
    """Line ``number``'s ``prev`` is not the SHA-256 of the line before: which of the two
    was changed?  This one is intact if what comes after still vouches for it."""
    if data.get("kind") == "end":
        intact = check.signed(data)
    elif following is not None:
        try:
            intact = parse_line(following).get("prev") == digest(line)
        except FormatError:
            intact = False
    else:
        intact = False
    if intact:
        return VerifyFailed(
            number - 1,
            f"the line was changed, or the one after it taken out (its SHA-256 is not the "
            f"prev of line {number})",
        )
    return VerifyFailed(number, f"the prev is not the SHA-256 of line {number - 1}")
