"""The limits a person sets on their own play, and their reality checks: what the
protection page shows and changes.

- A **money limit** (a loss limit or a stake limit for a day, a week or a month) or the
  **session time limit**: setting one, or lowering it, applies at once; raising one or
  removing it applies only 24 hours later, and until then the change is shown as
  pending (a lower limit set meanwhile replaces it).  The wallet enforces them
  (:mod:`cardroom.app.wallet.limits`).
- The **reality check**: every 15, 30 or 60 minutes of a session (or never), the next
  stake is refused until the person acknowledges a notice of the time played and the
  session's net result.  A new interval applies at once; every acknowledgement is kept.

Every change is a row of ``limit_changes`` and every acknowledgement one of
``reality_checks``; both tables only grow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from sqlalchemy import Connection, select, update

from cardroom.app.wallet import WalletError
from cardroom.app.wallet.limits import (
    MONEY_LIMITS,
    REALITY_DEFAULT,
    Limit,
    SessionNotice,
    in_force,
    period_end,
    period_start,
    rolled_totals,
    session_notice,
    start_session,
    totals_from_ledger,
    used_of,
)
from cardroom.app.wallet.money import lock_account
from cardroom.app.wallet.values import money_text, not_negative, now
from cardroom.storage.db import Database
from cardroom.storage.schema import (
    accounts,
    limit_changes,
    play_limits,
    play_totals,
    reality_checks,
)

__all__ = [
    "LIMIT_KINDS",
    "RAISE_WAIT",
    "REALITY_CHOICES",
    "REALITY_DEFAULT",
    "SESSION_MINUTES",
    "LimitChange",
    "LimitError",
    "LimitView",
    "Limits",
    "LimitsState",
]

#: How long a raised or removed limit waits before it applies.
RAISE_WAIT = timedelta(hours=24)
#: The reality check's intervals a person may choose (None: off).
REALITY_CHOICES: tuple[int | None, ...] = (None, 15, 30, 60)
#: The shortest and longest session time limit, in minutes.
SESSION_MINUTES = (5, 24 * 60)
#: The limits a person may set, in the order the page shows them, with their words.
LIMIT_KINDS = {
    "loss_day": "Loss limit a day",
    "loss_week": "Loss limit a week",
    "loss_month": "Loss limit a month",
    "stake_day": "Stake limit a day",
    "stake_week": "Stake limit a week",
    "stake_month": "Stake limit a month",
    "session": "Session time limit",
}


class LimitError(WalletError):
    """A limit that cannot be set (below 0, not whole cents, an interval not offered)."""


@dataclass(frozen=True)
class LimitView:
    """One limit as the page shows it: the amount in force, what is used and left of it
    this period and when it resets (money limits), and a pending change."""

    kind: str
    amount: int | None
    pending: bool
    next_amount: int | None
    next_at: datetime | None
    used: int | None
    resets: datetime | None

    @property
    def words(self) -> str:
        return LIMIT_KINDS[self.kind]

    def text(self, cents: int | None) -> str | None:
        if cents is None:
            return None
        return f"{cents} minutes" if self.kind == "session" else money_text(cents)

    def as_json(self) -> dict[str, object]:
        money = self.kind != "session"
        left = (
            None
            if self.amount is None or self.used is None
            else money_text(max(self.amount - self.used, 0))
        )
        return {
            "kind": self.kind,
            "amount": (money_text(self.amount) if money else self.amount)
            if self.amount is not None
            else None,
            "pending": self.pending,
            "next_amount": (money_text(self.next_amount) if money else self.next_amount)
            if self.pending and self.next_amount is not None
            else None,
            "next_at": self.next_at.isoformat() if self.pending and self.next_at else None,
            "left": left,
            "resets": None if self.resets is None else self.resets.isoformat(),
        }


@dataclass(frozen=True)
class LimitChange:
    """One change a person made: which limit, to what (None: removed), when it was made
    and when it applies."""

    kind: str
    amount: int | None
    created_at: datetime
    takes_effect: datetime
    address: str

    def as_json(self) -> dict[str, object]:
        money = self.kind in MONEY_LIMITS
        amount = (
            None if self.amount is None else (money_text(self.amount) if money else self.amount)
        )
        return {
            "kind": self.kind,
            "amount": amount,
            "made": self.created_at.isoformat(),
            "applies": self.takes_effect.isoformat(),
            "from": self.address,
        }

    @property
    def words(self) -> str:
        if self.kind == "reality":
            return (
                "reality checks off"
                if self.amount is None
                else f"a reality check every {self.amount} minutes"
            )
        what = LIMIT_KINDS[self.kind].lower()
        if self.amount is None:
            return f"{what} removed"
        shown = f"{self.amount} minutes" if self.kind == "session" else money_text(self.amount)
        return f"{what} set to {shown}"


@dataclass(frozen=True)
class LimitsState:
    """Every limit (set or not), the reality check's interval, the session as a reality
    check would show it, and the changes, newest first."""

    limits: tuple[LimitView, ...]
    reality_every: int | None
    session: SessionNotice
    history: tuple[LimitChange, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "limits": [v.as_json() for v in self.limits],
            "reality_every": self.reality_every,
            "reality_choices": [c for c in REALITY_CHOICES if c is not None],
            "session": self.session.as_json(),
            "history": [c.as_json() for c in self.history],
        }


def _amount(kind: str, value: Fraction | int | None) -> int | None:
    """A new limit's amount in cents (minutes for the session), checked."""
    if value is None:
        return None
    if kind == "session":
        if isinstance(value, bool) or not isinstance(value, int):
            raise LimitError("the session time limit is a whole number of minutes")
        low, high = SESSION_MINUTES
        if not low <= value <= high:
            raise LimitError(f"the session time limit is from {low} to {high} minutes")
        return value
    try:
        return not_negative(value, LIMIT_KINDS[kind].lower())
    except LimitError:
        raise
    except WalletError as err:
        raise LimitError(str(err)) from None


class Limits:
    """The limits and reality checks of the accounts in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reading ----------------------------------------------------------------------------
    def state(self, account_id: int) -> LimitsState:
        with self.db.read() as conn:
            return _state(conn, account_id, now())

    def notice(self, account_id: int) -> SessionNotice:
        """The session as a reality check shows it (``due``: one is due now)."""
        with self.db.read() as conn:
            return session_notice(conn, account_id)

    # -- changing ---------------------------------------------------------------------------
    def begin_session(self, account_id: int) -> None:
        """A new play session for the account (the terminal's sitting): its time limit and
        reality check count from now."""

        def work(conn: Connection) -> None:
            lock_account(conn, account_id)
            start_session(conn, account_id)

        self.db.run(work)

    def change(
        self,
        account_id: int,
        changes: Mapping[str, Fraction | int | None],
        address: str,
    ) -> LimitsState:
        """Set, lower, raise or remove the limits named in ``changes`` (None: remove), all
        in one transaction; a lower one applies at once, a higher one (or a removal) in
        24 hours."""
        unknown = [k for k in changes if k not in LIMIT_KINDS]
        if unknown:
            raise LimitError(f"there is no limit {unknown[0][:40]!r}")
        amounts = {kind: _amount(kind, value) for kind, value in changes.items()}

        def work(conn: Connection) -> LimitsState:
            when = now()
            lock_account(conn, account_id)
            limits = in_force(conn, account_id)
            money = False
            for kind, amount in amounts.items():
                current = limits.get(kind, Limit(kind, None)).at(when)
                _change(conn, account_id, kind, current, amount, when, address)
                money |= kind in MONEY_LIMITS and amount is not None
            if money:
                conn.execute(
                    update(accounts).where(accounts.c.id == account_id).values(limited=True)
                )
                kept = conn.execute(
                    select(play_totals.c.account_id).where(play_totals.c.account_id == account_id)
                ).first()
                if kept is None:
                    conn.execute(
                        play_totals.insert().values(totals_from_ledger(conn, account_id, when))
                    )
            return _state(conn, account_id, when)

        return self.db.run(work)

    def reality_every(self, account_id: int, minutes: int | None, address: str) -> LimitsState:
        """The reality check's interval (None: off), at once."""
        if minutes not in REALITY_CHOICES:
            choices = ", ".join(str(c) for c in REALITY_CHOICES if c is not None)
            raise LimitError(f"a reality check comes every {choices} minutes, or never")

        def work(conn: Connection) -> LimitsState:
            when = now()
            lock_account(conn, account_id)
            started = conn.execute(
                select(accounts.c.session_started).where(accounts.c.id == account_id)
            ).scalar()
            due = None
            if minutes is not None:
                due = (started or when) + timedelta(minutes=minutes)
            conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(reality_every=minutes, reality_due=due)
            )
            _record(conn, account_id, "reality", minutes, when, when, address)
            return _state(conn, account_id, when)

        return self.db.run(work)

    def acknowledge(self, account_id: int, address: str) -> SessionNotice:
        """The person has read the reality check: recorded, and the next is due an
        interval on.  A :class:`LimitError` if none is due."""

        def work(conn: Connection) -> SessionNotice:
            when = now()
            lock_account(conn, account_id)
            notice = session_notice(conn, account_id, when)
            if not notice.due or notice.every is None:
                raise LimitError("no reality check is due")
            conn.execute(
                reality_checks.insert().values(
                    account_id=account_id,
                    created_at=when,
                    session_started=notice.started,
                    minutes=notice.minutes,
                    net=notice.net,
                    address=address,
                )
            )
            conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(reality_due=when + timedelta(minutes=notice.every))
            )
            return notice

        return self.db.run(work)


def _change(
    conn: Connection,
    account_id: int,
    kind: str,
    current: int | None,
    amount: int | None,
    when: datetime,
    address: str,
) -> None:
    """One limit's change: at once if it is tighter (or the same), else pending."""
    tighter = amount is not None and (current is None or amount <= current)
    values: dict[str, object]
    if tighter:
        values = {"amount": amount, "next_amount": None, "next_at": None}
        applies = when
    else:
        applies = when + RAISE_WAIT
        values = {"amount": current, "next_amount": amount, "next_at": applies}
    exists = conn.execute(
        select(play_limits.c.kind).where(
            play_limits.c.account_id == account_id, play_limits.c.kind == kind
        )
    ).first()
    if exists is None:
        conn.execute(play_limits.insert().values(account_id=account_id, kind=kind, **values))
    else:
        conn.execute(
            update(play_limits)
            .where(play_limits.c.account_id == account_id, play_limits.c.kind == kind)
            .values(**values)
        )
    if kind == "session" and tighter and amount is not None:
        started = conn.execute(
            select(accounts.c.session_started).where(accounts.c.id == account_id)
        ).scalar()
        conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id)
            .values(session_ends=(started or when) + timedelta(minutes=amount))
        )
    _record(conn, account_id, kind, amount, when, applies, address)


def _record(
    conn: Connection,
    account_id: int,
    kind: str,
    amount: int | None,
    when: datetime,
    applies: datetime,
    address: str,
) -> None:
    conn.execute(
        limit_changes.insert().values(
            account_id=account_id,
            created_at=when,
            kind=kind,
            amount=amount,
            takes_effect=applies,
            address=address,
        )
    )


def _state(conn: Connection, account_id: int, when: datetime) -> LimitsState:
    limits = in_force(conn, account_id)
    totals = rolled_totals(conn, account_id, when)
    views = []
    for kind in LIMIT_KINDS:
        limit = limits.get(kind, Limit(kind, None))
        used = resets = None
        if kind in MONEY_LIMITS:
            period = MONEY_LIMITS[kind][1]
            resets = period_end(period, period_start(period, when))
            used = 0 if totals is None else used_of(totals, kind)
        pending = limit.pending(when)
        views.append(
            LimitView(
                kind,
                limit.at(when),
                pending,
                limit.next_amount if pending else None,
                limit.next_at if pending else None,
                used,
                resets,
            )
        )
    every = conn.execute(
        select(accounts.c.reality_every).where(accounts.c.id == account_id)
    ).scalar()
    rows = conn.execute(
        select(limit_changes)
        .where(limit_changes.c.account_id == account_id)
        .order_by(limit_changes.c.id.desc())
        .limit(100)
    ).all()
    history = tuple(
        LimitChange(r.kind, r.amount, r.created_at, r.takes_effect, r.address) for r in rows
    )
    return LimitsState(tuple(views), every, session_notice(conn, account_id, when), history)
