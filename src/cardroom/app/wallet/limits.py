"""The limits a person sets on their own play, as the wallet keeps them: in the
transaction of every stake and buy-in, under the account's lock.

Money limits (a loss limit and a stake limit a day, a week and a month, UTC; weeks begin
on Monday) are kept only for an account that has (or had) one (``accounts.limited``):
its ``play_totals`` row holds what it staked and got back in the current periods, and a
stake that would pass a limit is refused (:class:`LimitReached`) before anything is
written.  The loss of a period is what was staked less what came back (wins and stakes
returned, chemin de fer cash-outs), so a person who is ahead may stake that much more;
a stake is counted whole, as the most it can lose.  Chemin de fer counts its buy-ins:
a seat's bancos are played from a stack already counted, and cannot lose more.

The session time limit and the reality check are timestamps on the account row
(``session_ends``, ``reality_due``) that the balance's own update compares with the
clock (:mod:`cardroom.app.wallet.money`), so they cost the stake nothing; this module
explains a refusal and starts a session.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from cardroom.app.wallet.values import LimitReached, RealityCheckDue, money_text, now
from cardroom.storage.schema import accounts, ledger, play_limits, play_totals

__all__ = [
    "MONEY_LIMITS",
    "PERIODS",
    "REALITY_DEFAULT",
    "RETURNED",
    "STAKED",
    "Limit",
    "SessionNotice",
    "count_play",
    "in_force",
    "period_end",
    "period_start",
    "refuse_session",
    "rolled_totals",
    "session_notice",
    "start_session",
    "totals_from_ledger",
    "used_of",
]

#: The money limits: their kind, what they count (``loss`` or ``stake``) and the period.
MONEY_LIMITS = {
    f"{what}_{period}": (what, period)
    for what in ("loss", "stake")
    for period in ("day", "week", "month")
}
PERIODS = ("day", "week", "month")
#: The reality check's interval (minutes) of a new account.
REALITY_DEFAULT = 60
_PERIOD_WORDS = {"day": "daily", "week": "weekly", "month": "monthly"}
#: the ledger kinds a limit counts as staked, and as given back
STAKED = ("stake", "buy_in")
RETURNED = ("win", "return", "cash_out")


def period_start(period: str, when: datetime) -> datetime:
    """The start (UTC midnight) of the day, week (Monday) or month that holds ``when``."""
    day = when.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return day
    if period == "week":
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


def period_end(period: str, start: datetime) -> datetime:
    """When the period that began at ``start`` ends (and its limits reset)."""
    if period == "day":
        return start + timedelta(days=1)
    if period == "week":
        return start + timedelta(days=7)
    return start + timedelta(days=calendar.monthrange(start.year, start.month)[1])


@dataclass(frozen=True)
class Limit:
    """One limit as it stands: the amount in force (None: none) and a change that waits
    (``next_at`` None: none waits; ``next_amount`` None with a time: a removal)."""

    kind: str
    amount: int | None
    next_amount: int | None = None
    next_at: datetime | None = None

    def at(self, when: datetime) -> int | None:
        """The amount in force at ``when``."""
        if self.next_at is not None and self.next_at <= when:
            return self.next_amount
        return self.amount

    def pending(self, when: datetime) -> bool:
        return self.next_at is not None and self.next_at > when


def in_force(conn: Connection, account_id: int) -> dict[str, Limit]:
    """The account's limits, by kind (the kinds it never set are missing)."""
    rows = conn.execute(select(play_limits).where(play_limits.c.account_id == account_id)).all()
    return {r.kind: Limit(r.kind, r.amount, r.next_amount, r.next_at) for r in rows}


def totals_from_ledger(conn: Connection, account_id: int, when: datetime) -> dict[str, Any]:
    """The ``play_totals`` row of the account at ``when``, summed from its ledger rows
    since the earliest start of the current periods (once, when it first sets a limit)."""
    starts = {p: period_start(p, when) for p in PERIODS}
    row: dict[str, Any] = {"account_id": account_id}
    for period, start in starts.items():
        staked = func.coalesce(func.sum(-ledger.c.amount).filter(ledger.c.kind.in_(STAKED)), 0)
        returned = func.coalesce(func.sum(ledger.c.amount).filter(ledger.c.kind.in_(RETURNED)), 0)
        sums = conn.execute(
            select(staked, returned).where(
                ledger.c.account_id == account_id, ledger.c.created_at >= start
            )
        ).one()
        row |= {
            f"{period}_start": start,
            f"{period}_staked": int(sums[0]),
            f"{period}_returned": int(sums[1]),
        }
    return row


def _rolled(row: Mapping[str, Any], when: datetime) -> dict[str, Any]:
    """``row`` with each period that has ended since begun again from nothing."""
    out = dict(row)
    for period in PERIODS:
        start = period_start(period, when)
        if out[f"{period}_start"] != start:
            out |= {f"{period}_start": start, f"{period}_staked": 0, f"{period}_returned": 0}
    return out


def rolled_totals(conn: Connection, account_id: int, when: datetime) -> dict[str, Any] | None:
    """The account's ``play_totals`` row as it stands at ``when`` (a period that has
    ended begun again from nothing), or None when it keeps none."""
    found = conn.execute(select(play_totals).where(play_totals.c.account_id == account_id)).first()
    return None if found is None else _rolled(found._asdict(), when)


def used_of(row: Mapping[str, Any], kind: str) -> int:
    """What a money limit of ``kind`` has used of the period ``row`` holds: the stakes,
    less what came back for a loss limit."""
    what, period = MONEY_LIMITS[kind]
    used = int(row[f"{period}_staked"])
    if what == "loss":
        used -= int(row[f"{period}_returned"])
    return used


def _words(kind: str) -> str:
    what, period = MONEY_LIMITS[kind]
    return f"{_PERIOD_WORDS[period]} {what} limit"


def count_play(
    conn: Connection, account_id: int, staked: int, returned: int, when: datetime | None = None
) -> None:
    """Count ``staked`` and ``returned`` cents in the account's period totals (the account
    locked by the caller's update of its balance); :class:`LimitReached` if the stake
    would pass a limit in force (the caller's transaction then writes nothing)."""
    when = when or now()
    kept = rolled_totals(conn, account_id, when)
    row = totals_from_ledger(conn, account_id, when) if kept is None else kept
    if staked:
        for kind, limit in sorted(in_force(conn, account_id).items()):
            amount = limit.at(when)
            if kind not in MONEY_LIMITS or amount is None:
                continue
            period = MONEY_LIMITS[kind][1]
            used = used_of(row, kind)
            if used + staked > amount:
                left = max(amount - used, 0)
                resets = period_end(period, row[f"{period}_start"])
                raise LimitReached(
                    f"your {_words(kind)} of {money_text(amount)} would be passed: "
                    f"{money_text(left)} of it is left until {resets:%Y-%m-%d %H:%M} UTC",
                    {"limit": kind, "left": money_text(left), "resets": resets.isoformat()},
                )
    for period in PERIODS:
        row[f"{period}_staked"] += staked
        row[f"{period}_returned"] += returned
    if kept is None:
        conn.execute(insert(play_totals).values(row))
    else:
        conn.execute(update(play_totals).where(play_totals.c.account_id == account_id).values(row))


# -- the session and the reality check ------------------------------------------------------------
@dataclass(frozen=True)
class SessionNotice:
    """What a reality check shows: since when the person has played, for how many
    minutes, and the session's net result in cents (won less staked)."""

    started: datetime
    minutes: int
    net: int
    due: bool
    every: int | None

    def as_json(self) -> dict[str, object]:
        return {
            "due": self.due,
            "session_started": self.started.isoformat(),
            "minutes": self.minutes,
            "net": money_text(self.net),
            "every": self.every,
        }

    @property
    def words(self) -> str:
        result = f"{money_text(self.net)} up" if self.net > 0 else f"{money_text(-self.net)} down"
        if self.net == 0:
            result = "even"
        return f"you have played for {self.minutes} minutes this session and are {result}"


def session_notice(
    conn: Connection, account_id: int, when: datetime | None = None
) -> SessionNotice:
    """The account's session as a reality check shows it (its net from the ledger rows
    since the session began: a session's rows, not the account's history)."""
    when = when or now()
    acc = conn.execute(
        select(
            accounts.c.session_started,
            accounts.c.session_ledger_id,
            accounts.c.reality_every,
            accounts.c.reality_due,
            accounts.c.created_at,
        ).where(accounts.c.id == account_id)
    ).one()
    started = acc.session_started or acc.created_at
    net = conn.execute(
        select(func.coalesce(func.sum(ledger.c.amount), 0)).where(
            ledger.c.account_id == account_id,
            ledger.c.id > (acc.session_ledger_id or 0),
            ledger.c.kind.in_(STAKED + RETURNED),
        )
    ).scalar_one()
    minutes = max(int((when - started).total_seconds() // 60), 0)
    due = acc.reality_due is not None and acc.reality_due <= when
    return SessionNotice(started, minutes, int(net), due, acc.reality_every)


def refuse_session(conn: Connection, account_id: int) -> None:
    """:class:`RealityCheckDue` or :class:`LimitReached` (the session time limit) if the
    account's play is paused by either now; nothing otherwise."""
    when = now()
    row = conn.execute(
        select(accounts.c.session_ends, accounts.c.reality_due).where(accounts.c.id == account_id)
    ).first()
    if row is None:
        return
    if row.session_ends is not None and row.session_ends <= when:
        raise LimitReached(
            f"your session time limit was reached at {row.session_ends:%H:%M} UTC: sign out "
            "and come back later to play again",
            {"limit": "session", "left": "0", "resets": None},
        )
    if row.reality_due is not None and row.reality_due <= when:
        notice = session_notice(conn, account_id, when)
        raise RealityCheckDue(
            f"reality check: {notice.words}; acknowledge it to play on",
            notice.as_json(),
        )


def start_session(conn: Connection, account_id: int, when: datetime | None = None) -> None:
    """Begin a new play session for the account: its time limit and reality check count
    from now (the account's row is written, so its lock is taken)."""
    when = when or now()
    row = conn.execute(select(accounts.c.reality_every).where(accounts.c.id == account_id)).one()
    session = in_force(conn, account_id).get("session")
    minutes = None if session is None else session.at(when)
    last = conn.execute(
        select(func.max(ledger.c.id)).where(ledger.c.account_id == account_id)
    ).scalar()
    conn.execute(
        update(accounts)
        .where(accounts.c.id == account_id)
        .values(
            session_started=when,
            session_ledger_id=last or 0,
            session_ends=None if minutes is None else when + timedelta(minutes=minutes),
            reality_due=(
                None if row.reality_every is None else when + timedelta(minutes=row.reality_every)
            ),
        )
    )
