"""Writing the audit export: every row of the period's tables, in order, as a hash chain
signed at its end.

The rows are read in one read transaction (one snapshot of the database), each table
through a streamed query ordered by its time and id (a server-side cursor on
PostgreSQL, SQLite's own stepping), and merged by (time, table, id): what is held at
once is a batch of each table, whatever the size of the period.  The file is written
beside ``out`` under a temporary name and renamed to it at the end, so a failed export
leaves no file, and an export never overwrites one.
"""

from __future__ import annotations

import heapq
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Connection, select

from cardroom.app.audit_export.canonical import digest, json_value
from cardroom.app.audit_export.format import (
    ExportInputError,
    Period,
    end_fields,
    end_line,
    header_line,
    row_line,
    signed_message,
)
from cardroom.app.audit_export.keys import fingerprint
from cardroom.app.audit_export.tables import EXPORTED, Exported
from cardroom.storage import Database

__all__ = ["ExportSummary", "check_out_path", "export"]

#: Rows fetched from the database at a time, for each table.
BATCH = 500

#: (time, table, id): the order of the lines.
OrderKey = tuple[datetime, str, int]


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote: the file, its lines, its rows by kind, the chain's head."""

    path: Path
    lines: int
    counts: dict[str, int]
    head: str
    key: str


def check_out_path(out: Path) -> None:
    """Refuse, before any work, a file the export cannot write (or would overwrite)."""
    if out.exists():
        raise ExportInputError(f"{str(out)!r} exists already: an export never overwrites a file")
    folder = out.parent
    if not folder.is_dir():
        raise ExportInputError(f"there is no folder {str(folder)!r} to write {out.name} in")
    if not os.access(folder, os.W_OK):
        raise ExportInputError(f"cannot write in {str(folder)!r} (permission denied)")


def _rows(conn: Connection, exported: Exported, period: Period) -> Iterator[tuple[OrderKey, Any]]:
    table, time = exported.table, exported.time_column
    statement = (
        select(table)
        .where(time >= period.start, time < period.end)
        .order_by(time, table.c.id)
        .execution_options(stream_results=True, yield_per=BATCH)
    )
    for row in conn.execute(statement):
        values = row._mapping
        yield (values[exported.time], exported.name, values["id"]), (exported, values)


def export(
    db: Database,
    period: Period,
    key: Ed25519PrivateKey,
    out: Path,
    tables: tuple[Exported, ...] = EXPORTED,
    now: datetime | None = None,
) -> ExportSummary:
    """Write the period's rows of ``tables`` to ``out`` (see the module's docstring)."""
    check_out_path(out)
    partial = out.with_name(f".{out.name}.{os.getpid()}.partial")
    try:
        with open(partial, "xb") as file:
            summary = _write(file, db, period, key, tables, now or datetime.now(UTC))
            file.flush()
            os.fsync(file.fileno())
        if out.exists():  # (made meanwhile by someone else: theirs stays)
            raise ExportInputError(f"{str(out)!r} appeared while the export was written")
        os.replace(partial, out)
    except OSError as err:
        raise ExportInputError(f"cannot write {str(out)!r}: {err.strerror or err}") from None
    finally:
        partial.unlink(missing_ok=True)
    return ExportSummary(out, summary[0], summary[1], summary[2], fingerprint(key.public_key()))


def _write(
    file: BinaryIO,
    db: Database,
    period: Period,
    key: Ed25519PrivateKey,
    tables: tuple[Exported, ...],
    now: datetime,
) -> tuple[int, dict[str, int], str]:
    line = header_line(period, db.dialect, fingerprint(key.public_key()), tables, now)
    file.write(line + b"\n")
    lines = 1
    counts: Counter[str] = Counter({t.kind: 0 for t in tables})
    with db.read() as conn:
        streams = [_rows(conn, t, period) for t in tables]
        for _, (exported, values) in heapq.merge(*streams, key=lambda item: item[0]):
            row = {name: json_value(value) for name, value in values.items()}
            line = row_line(exported, row, digest(line))
            file.write(line + b"\n")
            lines += 1
            counts[exported.kind] += 1
    head = digest(line)
    fields = end_fields(lines - 1, dict(counts), head)
    file.write(end_line(fields, key.sign(signed_message(fields))) + b"\n")
    return lines + 1, dict(counts), head
