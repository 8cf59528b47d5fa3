"""The books: an account's ledger read back a page at a time, and the audit that checks
they add up.

Each change of a balance writes a ``ledger`` row in the same transaction
(:mod:`cardroom.app.wallet.money`): its ``kind`` (``deposit``, ``withdrawal``,
``stake``, ``win``, ``return``, ``buy_in``, ``cash_out``, ``top_up``), its signed amount
(credits positive, debits negative: the database checks the sign of each kind) and the
balance it left.  So an account's balance is always the sum of its ledger, and each
row's ``balance_after`` is the one before it plus its amount: :meth:`Books.audit`
checks both, in the database, and raises :class:`AuditError` when they do not hold.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.sql.elements import ColumnElement

from cardroom.app.wallet.accounts import Accounts
from cardroom.app.wallet.rounds import exists
from cardroom.app.wallet.values import AuditError, LedgerPage, LedgerRow, from_cents, money_text
from cardroom.storage.db import Database
from cardroom.storage.schema import accounts, ledger

__all__ = ["Books"]


class Books:
    """The ledgers of one :class:`~cardroom.storage.Database`, read and audited."""

    def __init__(self, db: Database, accounts_: Accounts) -> None:
        self.db = db
        self.accounts = accounts_

    def ledger(
        self, account_id: int, limit: int = 50, before: int | None = None
    ) -> list[LedgerRow]:
        """The account's last ``limit`` movements, newest first, each with its running
        balance; with ``before``, those older than that row id (the next page)."""
        query = select(ledger).where(ledger.c.account_id == account_id)
        if before is not None:
            query = query.where(ledger.c.id < before)
        with self.db.read() as conn:
            rows = conn.execute(query.order_by(ledger.c.id.desc()).limit(max(0, limit))).all()
        return [_ledger_row(r) for r in rows]

    def ledger_page(
        self,
        account_id: int,
        limit: int = 50,
        before: int | None = None,
        after: int | None = None,
    ) -> LedgerPage:
        """A page of the ledger, newest first: the ``limit`` newest rows (older than
        ``before``), or the ``limit`` oldest newer than ``after`` (with both, the newest
        between them); with the balance before its oldest row.  Each query walks the index
        on (account, id) from the cursor, so a page costs the same however long the
        ledger."""
        limit = max(1, limit)
        mine = ledger.c.account_id == account_id
        with self.db.read() as conn:
            if after is not None and before is None:
                found = conn.execute(
                    select(ledger)
                    .where(mine, ledger.c.id > after)
                    .order_by(ledger.c.id)
                    .limit(limit + 1)
                ).all()
                more_newer = len(found) > limit
                page = [_ledger_row(r) for r in reversed(found[:limit])]
                more_older = bool(page) and exists(conn, ledger, [mine, ledger.c.id < page[-1].id])
            else:
                query = select(ledger).where(mine)
                if before is not None:
                    query = query.where(ledger.c.id < before)
                if after is not None:
                    query = query.where(ledger.c.id > after)
                found = conn.execute(query.order_by(ledger.c.id.desc()).limit(limit + 1)).all()
                more_older = len(found) > limit
                page = [_ledger_row(r) for r in found[:limit]]
                if after is not None and page and not more_older:  # older than the window
                    more_older = exists(conn, ledger, [mine, ledger.c.id < page[-1].id])
                more_newer = bool(page) and exists(conn, ledger, [mine, ledger.c.id > page[0].id])
        if page:
            balance_before = page[-1].balance_after - page[-1].amount
        else:
            balance_before = self.accounts.balance(account_id)
        return LedgerPage(
            page,
            page[-1].id if page and more_older else None,
            page[0].id if page and more_newer else None,
            balance_before,
        )

    def audit(self, account_id: int) -> None:
        """Check the account's books (:class:`AuditError` if they do not add up):

        balance = deposits - withdrawals + wins + returns - stakes - buy-ins + cash-outs
        (the sum of its ledger), and each row's balance is the one before plus its amount.
        This reads the account's whole ledger: it is for ``cardroom audit`` and the
        tests, never for a round's path (which keeps the books right by construction:
        every row's running balance is the one its own update of the balance returned,
        under the account's lock).
        """
        with self.db.read() as conn:
            _audit(conn, [accounts.c.id == account_id])

    def audit_all(self) -> int:
        """Audit every account, in a few queries over the whole ledger; how many accounts
        there are.  :class:`AuditError` names the first account (and row) that is wrong."""
        with self.db.read() as conn:
            return _audit(conn, [])


def _audit(conn: Connection, where: list[ColumnElement[bool]]) -> int:
    """The audit of :meth:`Books.audit` and :meth:`Books.audit_all`; how many accounts."""
    sums = (
        select(ledger.c.account_id, func.sum(ledger.c.amount).label("total"))
        .group_by(ledger.c.account_id)
        .subquery()
    )
    checked = conn.execute(
        select(
            accounts.c.id,
            accounts.c.name,
            accounts.c.balance,
            func.coalesce(sums.c.total, 0).label("total"),
        )
        .select_from(accounts.outerjoin(sums, sums.c.account_id == accounts.c.id))
        .where(*where)
        .order_by(accounts.c.id)
    ).all()
    for account in checked:
        if int(account.total) != account.balance:
            raise AuditError(
                f"the books of account {account.id} ({account.name}) do not add up: its "
                f"balance is {money_text(account.balance)} but its ledger adds up to "
                f"{money_text(int(account.total))}"
            )
    before = func.coalesce(
        func.lag(ledger.c.balance_after).over(
            partition_by=ledger.c.account_id, order_by=ledger.c.id
        ),
        0,
    ).label("before")
    owners = select(accounts.c.id).where(*where) if where else None
    steps = select(
        ledger.c.id, ledger.c.account_id, ledger.c.amount, ledger.c.balance_after, before
    )
    if owners is not None:
        steps = steps.where(ledger.c.account_id.in_(owners))
    stepped = steps.subquery()
    wrong = conn.execute(
        select(stepped, accounts.c.name)
        .join(accounts, accounts.c.id == stepped.c.account_id)
        .where(stepped.c.balance_after != stepped.c.before + stepped.c.amount)
        .order_by(stepped.c.account_id, stepped.c.id)
        .limit(1)
    ).first()
    if wrong is not None:
        raise AuditError(
            f"the books of account {wrong.account_id} ({wrong.name}) do not add up: "
            f"ledger row {wrong.id} has {money_text(wrong.balance_after)} after "
            f"{money_text(wrong.amount)}, but the row before it left {money_text(wrong.before)}"
        )
    return len(checked)


def _ledger_row(r: Any) -> LedgerRow:
    return LedgerRow(
        id=int(r.id),
        account_id=int(r.account_id),
        created_at=r.created_at,
        kind=r.kind,
        amount=from_cents(r.amount),
        balance_after=from_cents(r.balance_after),
        round_id=r.round_id,
        seat_id=r.seat_id,
        table_ref=r.table_ref,
        wager=r.wager,
        memo=r.memo,
    )
