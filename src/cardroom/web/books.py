"""The wallet and the history as a person reads them: a ledger row in words, the tables'
names, and the cursors of the pages (older, newer).

A ledger row keeps its kind, its wager and its table's internal reference
(``web:chemin-de-fer:1``); a person reads "Buy-in at Table 1", never the reference.
"""

from __future__ import annotations

from typing import Any

from cardroom.app.wallet import START_BALANCE, LedgerRow
from cardroom.app.words import wager_name
from cardroom.core.money import format_amount
from cardroom.web.coups import table_name

__all__ = ["row_words", "table_names"]


def table_names(svc: Any) -> dict[str, str]:
    """The chemin de fer tables' names by their ``table_ref`` (``Services``' tables)."""
    chemmy = getattr(svc, "chemmy", None)
    tables = getattr(chemmy, "tables", None) or {}
    return {table.table_ref: table.spec.name for table in tables.values()}


def _wager(wager: str | None) -> str:
    return "" if not wager else wager_name(wager)


def row_words(row: LedgerRow, tables: dict[str, str] | None = None) -> str:
    """What a ledger row is, in words.

    >>> from datetime import datetime, UTC
    >>> from fractions import Fraction
    >>> def row(kind, amount, wager=None, ref=None, memo=""):
    ...     now = datetime(2026, 1, 1, tzinfo=UTC)
    ...     return LedgerRow(1, 1, now, kind, Fraction(amount), Fraction(0), None, None, ref,
    ...                      wager, memo)
    >>> row_words(row("cash_out", 230, ref="web:chemin-de-fer:1", memo="cash-out from x"))
    'Cash-out from Table 1'
    >>> row_words(row("stake", -10, "pair_plus")), row_words(row("win", 20, "banker"))
    ('Stake on pair plus', 'Banker won')
    >>> row_words(row("top_up", 1000))
    'Top-up to 1000 (play money)'
    """
    wager = _wager(row.wager)
    kind = row.kind
    if kind == "buy_in":
        return f"Buy-in at {table_name(row.table_ref, tables)}"
    if kind == "cash_out":
        return f"Cash-out from {table_name(row.table_ref, tables)}"
    if kind == "top_up":
        return f"Top-up to {format_amount(START_BALANCE)} (play money)"
    if kind == "stake" and wager:
        return f"Stake on {wager}"
    if kind == "win" and wager:
        return f"{wager[:1].upper()}{wager[1:]} won"
    if kind == "return" and wager:
        void = " (round called off)" if "void" in row.memo else ""
        part = "Part of the stake" if row.memo.startswith("part of") else "Stake"
        return f"{part} on {wager} returned{void}"
    memo = row.memo.strip() or kind.replace("_", " ")
    return memo[:1].upper() + memo[1:]
