"""What a person does to protect themselves: a break (24 hours, 7 days or 30 days) or a
self-exclusion (6 months, 1 year or 5 years).

Either takes effect at once, in one transaction: the row in ``protections`` (which only
ever grows: triggers refuse to change or delete a row), the account's ``blocked_until``
moved to the end (never earlier than one already in force), every session of the
account ended, and each chemin de fer seat it holds asked to stand up after the coup in
play.  Until the end the person may sign in and look at their history and wallet; the
wallet refuses their stakes, buy-ins and top-ups (:mod:`cardroom.app.wallet.money`).
Nothing lifts it early: there is no call for it, for the person or an operator.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, delete, select, update

from cardroom.app.operators.players import leave_seats
from cardroom.app.wallet import WalletError
from cardroom.app.wallet.money import lock_account
from cardroom.storage.db import Database
from cardroom.storage.schema import accounts, protections, web_sessions

__all__ = [
    "BREAKS",
    "EXCLUSIONS",
    "Protection",
    "ProtectionError",
    "ProtectionState",
    "Protections",
    "add_months",
]

#: The breaks a person may take, by name: their length.
BREAKS = {
    "24 hours": timedelta(hours=24),
    "7 days": timedelta(days=7),
    "30 days": timedelta(days=30),
}
#: The self-exclusions, by name: their length in months.
EXCLUSIONS = {"6 months": 6, "1 year": 12, "5 years": 60}


class ProtectionError(WalletError):
    """A break or exclusion that is not offered."""


def add_months(when: datetime, months: int) -> datetime:
    """``when`` so many calendar months later (the last day of a shorter month)."""
    month = when.month - 1 + months
    year = when.year + month // 12
    month = month % 12 + 1
    day = min(when.day, calendar.monthrange(year, month)[1])
    return when.replace(year=year, month=month, day=day)


@dataclass(frozen=True)
class Protection:
    """One break or self-exclusion taken."""

    kind: str
    created_at: datetime
    until: datetime
    address: str

    @property
    def words(self) -> str:
        return "a self-exclusion" if self.kind == "self_exclusion" else "a break"

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "taken": self.created_at.isoformat(),
            "until": self.until.isoformat(),
            "from": self.address,
        }


@dataclass(frozen=True)
class ProtectionState:
    """The one in force (None: none), and every one taken, newest first."""

    until: datetime | None
    kind: str | None
    history: tuple[Protection, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "in_force": self.until is not None,
            "kind": self.kind,
            "until": None if self.until is None else self.until.isoformat(),
            "history": [p.as_json() for p in self.history],
        }


def _now() -> datetime:
    return datetime.now(UTC)


class Protections:
    """The breaks and exclusions in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def take_break(self, account_id: int, length: str, address: str) -> Protection:
        """A break of ``length`` (a name of :data:`BREAKS`), at once."""
        if length not in BREAKS:
            raise ProtectionError(f"a break is one of {', '.join(BREAKS)}, not {length[:40]!r}")
        now = _now()
        return self._take(account_id, "time_out", now, now + BREAKS[length], address)

    def exclude(self, account_id: int, length: str, address: str) -> Protection:
        """A self-exclusion of ``length`` (a name of :data:`EXCLUSIONS`), at once."""
        if length not in EXCLUSIONS:
            raise ProtectionError(
                f"a self-exclusion is one of {', '.join(EXCLUSIONS)}, not {length[:40]!r}"
            )
        now = _now()
        return self._take(
            account_id, "self_exclusion", now, add_months(now, EXCLUSIONS[length]), address
        )

    def _take(
        self, account_id: int, kind: str, now: datetime, until: datetime, address: str
    ) -> Protection:
        db = self.db

        def work(conn: Connection) -> Protection:
            lock_account(conn, account_id)
            current = conn.execute(
                select(accounts.c.blocked_until).where(accounts.c.id == account_id)
            ).scalar()
            conn.execute(
                protections.insert().values(
                    account_id=account_id,
                    created_at=now,
                    kind=kind,
                    until=until,
                    address=address,
                )
            )
            if current is None or current < until:
                conn.execute(
                    update(accounts).where(accounts.c.id == account_id).values(blocked_until=until)
                )
            conn.execute(delete(web_sessions).where(web_sessions.c.account_id == account_id))
            leave_seats(db, conn, account_id)
            return Protection(kind, now, until, address)

        return db.run(work)

    def state(self, account_id: int) -> ProtectionState:
        with self.db.read() as conn:
            until = conn.execute(
                select(accounts.c.blocked_until).where(accounts.c.id == account_id)
            ).scalar()
            rows = conn.execute(
                select(protections)
                .where(protections.c.account_id == account_id)
                .order_by(protections.c.id.desc())
                .limit(100)
            ).all()
        history = tuple(Protection(r.kind, r.created_at, r.until, r.address) for r in rows)
        if until is None or until <= _now():
            return ProtectionState(None, None, history)
        kind = next((p.kind for p in history if p.until == until), None)
        return ProtectionState(until, kind, history)
