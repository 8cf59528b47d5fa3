"""What the audit export holds: each table a line of :data:`EXPORTED`.

A row of the period is every row whose time column falls in it.  Adding a table to the
export is one line here (the table, its time column, and the kind its lines are named
by); the format, the writer and the verifier read nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Table

from cardroom.storage.schema import (
    ledger,
    limit_changes,
    operator_log,
    protections,
    reality_checks,
    rounds,
)

__all__ = ["EXPORTED", "Exported", "by_kind"]


@dataclass(frozen=True)
class Exported:
    """One table of the export: its rows of the period are those whose ``time`` column
    is in it, each a line of kind ``kind``."""

    table: Table
    time: str
    kind: str

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def time_column(self) -> Column[object]:
        column: Column[object] = self.table.c[self.time]
        return column

    def describe(self) -> dict[str, str]:
        """How the header names it."""
        return {"kind": self.kind, "table": self.name, "time": self.time}


#: Every table the export holds (each table has an integer ``id``).
EXPORTED: tuple[Exported, ...] = (
    Exported(rounds, "created_at", "round"),
    Exported(ledger, "created_at", "ledger"),
    Exported(protections, "created_at", "protection"),
    Exported(operator_log, "created_at", "operator_action"),
    Exported(limit_changes, "created_at", "limit_change"),
    Exported(reality_checks, "created_at", "reality_check"),
)


def by_kind(tables: tuple[Exported, ...] = EXPORTED) -> dict[str, Exported]:
    """The tables by the kind of their lines."""
    return {t.kind: t for t in tables}
