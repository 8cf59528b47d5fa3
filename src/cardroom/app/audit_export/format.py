"""The audit export's format, named once: the period, the header, a row's line and the
end line with what its signature signs (see ``docs/export.md``).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cardroom import __version__
from cardroom.analysis.cache import code_digest
from cardroom.app.audit_export.canonical import canonical, time_text
from cardroom.app.audit_export.tables import Exported

__all__ = [
    "FORMAT",
    "VERSION",
    "ExportInputError",
    "Period",
    "end_fields",
    "end_line",
    "header_line",
    "row_line",
    "signed_message",
]

#: The ``format`` of every header, and the version of the format this cardroom writes.
FORMAT = "cardroom audit export"
VERSION = 1


class ExportInputError(ValueError):
    """What was asked of the export cannot be done (bad dates, a period the wrong way
    round, a file that cannot be written): one line, and nothing written."""


def _when(text: str, option: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ExportInputError(
            f"{option} is a date or time such as 2026-11-29 or 2026-11-29T12:00, not {text[:40]!r}"
        ) from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


@dataclass(frozen=True)
class Period:
    """From ``start`` (included) to ``end`` (left out), UTC."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise ExportInputError(
                f"the period runs the wrong way: --to ({time_text(self.end)}) must come "
                f"after --from ({time_text(self.start)})"
            )

    @classmethod
    def parse(cls, since: str, until: str) -> Period:
        """The period of ``--from`` and ``--to`` (a date or time; UTC when it names no
        zone)."""
        return cls(_when(since, "--from"), _when(until, "--to"))

    def holds(self, when: datetime) -> bool:
        return self.start <= when < self.end


def _commit() -> str | None:
    """The git commit of the code, when it runs from a checkout (else None)."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


def header_line(
    period: Period, database: str, key: str, tables: tuple[Exported, ...], now: datetime
) -> bytes:
    """The first line: what the export is, of what, by which key and which code."""
    return canonical(
        {
            "cardroom": __version__,
            "code": code_digest(),
            "commit": _commit(),
            "created_at": time_text(now),
            "database": database,
            "format": FORMAT,
            "from": time_text(period.start),
            "key": key,
            "kind": "header",
            "tables": [t.describe() for t in tables],
            "to": time_text(period.end),
            "version": VERSION,
        }
    )


def row_line(exported: Exported, row: dict[str, Any], prev: str) -> bytes:
    """A row's line: its kind and table, its columns, and the SHA-256 of the line before."""
    return canonical({"kind": exported.kind, "prev": prev, "row": row, "table": exported.name})


def end_fields(count: int, counts: dict[str, int], prev: str) -> dict[str, Any]:
    """The end line without its signature."""
    return {"count": count, "counts": counts, "kind": "end", "prev": prev}


def signed_message(fields: dict[str, Any]) -> bytes:
    """What the signature signs: the end line's canonical JSON without ``signature``
    (so the count, the counts by kind and the chain's head, ``prev``)."""
    return canonical({k: v for k, v in fields.items() if k != "signature"})


def end_line(fields: dict[str, Any], signature: bytes) -> bytes:
    """The last line: :func:`end_fields` and the signature (hex)."""
    return canonical({**fields, "signature": signature.hex()})
