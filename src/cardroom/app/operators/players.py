"""What an operator does with a player's account: find it, look at it, suspend it and
lift the suspension, sign it out everywhere, write a note, adjust its play money.

Every action takes the operator (an :class:`~cardroom.app.operators.log.Actor`) and the
reason they typed, and writes its row of the operator log in the same transaction as
the change.  An operator cannot act on a player account of their own name.  A suspended
account can sign in and look at its history and wallet, but the wallet refuses its
stakes, buy-ins and top-ups (:mod:`cardroom.app.wallet.money`); a seat it holds at a
chemin de fer table is left at the end of the coup in play (a ``leave`` command to the
table's owner), its stack going back to the wallet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from cardroom.app.names import name_skeleton
from cardroom.app.operators.log import Actor, LogEntry, OperatorLog, check_reason, write
from cardroom.app.tables.live.link import clock
from cardroom.app.wallet import Wallet, WalletError, from_cents, name_key
from cardroom.app.wallet.money import Movement, lock_account, move
from cardroom.app.wallet.values import money_text, to_cents
from cardroom.storage.db import Database
from cardroom.storage.schema import (
    accounts,
    chemmy_commands,
    chemmy_tables,
    seats,
    web_sessions,
)

__all__ = [
    "NotAllowed",
    "PlayerCard",
    "PlayerSession",
    "Players",
    "account_target",
    "leave_seats",
]

#: How long a seat's leave command waits for its table's owner (a day: the owner may be
#: between processes).
LEAVE_WAIT = 86_400.0
#: The most accounts a search gives.
SEARCH_MAX = 50


class NotAllowed(WalletError):
    """An action an operator may not take (on their own account, or one that changes
    nothing)."""


def account_target(account_id: int) -> str:
    """How the log names an account."""
    return f"account:{account_id}"


@dataclass(frozen=True)
class PlayerSession:
    """A sign-in session of a player's: when it began and ends, and where it signed in
    from (None for a session of before revision 0007)."""

    created_at: datetime
    expires_at: datetime
    address: str | None


@dataclass(frozen=True)
class PlayerCard:
    """What the operator sees of an account at a glance."""

    id: int
    name: str
    balance: Fraction
    created_at: datetime
    suspended_at: datetime | None
    #: the end of the break or self-exclusion its person took, if one is in force
    blocked_until: datetime | None
    seats: tuple[tuple[str, Fraction], ...]
    sessions: tuple[PlayerSession, ...]
    rounds: int

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "balance": money_text(int(self.balance * 100)),
            "created_at": self.created_at.isoformat(),
            "suspended": self.suspended_at is not None,
            "suspended_at": None if self.suspended_at is None else self.suspended_at.isoformat(),
            "blocked_until": None if self.blocked_until is None else self.blocked_until.isoformat(),
            "seats": [{"table": t, "stack": money_text(int(s * 100))} for t, s in self.seats],
            "sessions": [
                {
                    "began": s.created_at.isoformat(),
                    "ends": s.expires_at.isoformat(),
                    "from": s.address,
                }
                for s in self.sessions
            ],
            "rounds": self.rounds,
        }


def _now() -> datetime:
    return datetime.now(UTC)


class Players:
    """The operator's side of the players' accounts in ``db``."""

    def __init__(self, db: Database, wallet: Wallet | None = None) -> None:
        self.db = db
        self.wallet = wallet or Wallet(db)
        self.log = OperatorLog(db)

    # -- looking ----------------------------------------------------------------------------
    def search(self, text: str, limit: int = SEARCH_MAX) -> list[tuple[int, str, bool]]:
        """Accounts whose name starts as ``text`` does (without case, in Unicode's
        compatibility form) or looks like it (its confusable skeleton): (id, name,
        suspended), by name."""
        text = " ".join(str(text).split())[:40]
        if not text:
            return []
        key = name_key(text)
        like = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = (
            select(accounts.c.id, accounts.c.name, accounts.c.suspended_at)
            .where(
                accounts.c.name_key.like(like, escape="\\")
                | (accounts.c.name_skeleton == name_skeleton(text))
            )
            .order_by(accounts.c.name_key)
            .limit(max(1, min(limit, SEARCH_MAX)))
        )
        with self.db.read() as conn:
            return [
                (int(r.id), str(r.name), r.suspended_at is not None) for r in conn.execute(query)
            ]

    def card(self, account_id: int) -> PlayerCard:
        """The account at a glance (a :class:`WalletError` if there is none)."""
        with self.db.read() as conn:
            row = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
            if row is None:
                raise WalletError(f"there is no account {account_id}")
            held = conn.execute(
                select(seats.c.table_ref, seats.c.stack).where(
                    seats.c.account_id == account_id, seats.c.status == "open"
                )
            ).all()
            sessions = conn.execute(
                select(web_sessions.c.created_at, web_sessions.c.expires_at, web_sessions.c.address)
                .where(web_sessions.c.account_id == account_id, web_sessions.c.expires_at > _now())
                .order_by(web_sessions.c.id.desc())
                .limit(20)
            ).all()
        rounds = self.wallet.rounds.count_rounds(account_id)
        return PlayerCard(
            id=int(row.id),
            name=str(row.name),
            balance=from_cents(row.balance),
            created_at=row.created_at,
            suspended_at=row.suspended_at,
            blocked_until=row.blocked_until
            if row.blocked_until is not None and row.blocked_until > _now()
            else None,
            seats=tuple((str(r.table_ref), from_cents(r.stack)) for r in held),
            sessions=tuple(PlayerSession(s.created_at, s.expires_at, s.address) for s in sessions),
            rounds=rounds,
        )

    def notes(self, account_id: int, limit: int = 50) -> list[LogEntry]:
        """What operators did and wrote about the account, newest first."""
        return self.log.entries(target=account_target(account_id), limit=limit)

    # -- acting ------------------------------------------------------------------------------
    def _account(self, conn: Connection, actor: Actor, account_id: int) -> Any:
        row = conn.execute(
            select(
                accounts.c.id, accounts.c.name, accounts.c.name_key, accounts.c.suspended_at
            ).where(accounts.c.id == account_id)
        ).first()
        if row is None:
            raise WalletError(f"there is no account {account_id}")
        if name_key(actor.name) == row.name_key:
            raise NotAllowed("an operator cannot act on their own player account")
        return row

    def suspend(self, actor: Actor, account_id: int, reason: str) -> None:
        """Suspend the account (no stakes, seats or top-ups; a seat it holds is left after
        the coup in play).  :class:`NotAllowed` if it is suspended already."""
        why = check_reason(reason)

        def work(conn: Connection) -> None:
            row = self._account(conn, actor, account_id)
            lock_account(conn, account_id)
            if row.suspended_at is not None:
                raise NotAllowed(f"{row.name} is suspended already")
            when = _now()
            conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(suspended_at=when)
            )
            left = leave_seats(self.db, conn, account_id)
            write(
                conn,
                actor,
                "suspend",
                account_target(account_id),
                why,
                {"name": row.name, "suspended": False},
                {"name": row.name, "suspended": True, "seats_left": left},
                when,
            )

        self.db.run(work)

    def lift(self, actor: Actor, account_id: int, reason: str) -> None:
        """Lift a suspension (:class:`NotAllowed` if the account is not suspended)."""
        why = check_reason(reason)

        def work(conn: Connection) -> None:
            row = self._account(conn, actor, account_id)
            lock_account(conn, account_id)
            if row.suspended_at is None:
                raise NotAllowed(f"{row.name} is not suspended")
            conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(suspended_at=None)
            )
            write(
                conn,
                actor,
                "lift suspension",
                account_target(account_id),
                why,
                {"name": row.name, "suspended": True},
                {"name": row.name, "suspended": False},
            )

        self.db.run(work)

    def sign_out(self, actor: Actor, account_id: int, reason: str) -> int:
        """End every session of the account; how many there were."""
        why = check_reason(reason)

        def work(conn: Connection) -> int:
            row = self._account(conn, actor, account_id)
            ended = conn.execute(
                delete(web_sessions).where(web_sessions.c.account_id == account_id)
            ).rowcount
            write(
                conn,
                actor,
                "sign out everywhere",
                account_target(account_id),
                why,
                {"name": row.name, "sessions": int(ended)},
                {"name": row.name, "sessions": 0},
            )
            return int(ended)

        return self.db.run(work)

    def note(self, actor: Actor, account_id: int, text: str) -> None:
        """A note on the account (the note is the log row's reason)."""
        why = check_reason(text)

        def work(conn: Connection) -> None:
            row = self._account(conn, actor, account_id)
            write(conn, actor, "note", account_target(account_id), why, None, {"name": row.name})

        self.db.run(work)

    def adjust(self, actor: Actor, account_id: int, amount: Fraction, reason: str) -> Fraction:
        """Add ``amount`` (negative: take it) to the play money, a ledger row of its own
        kind; never below 0 (:class:`~cardroom.app.wallet.InsufficientFunds`).  The new
        balance."""
        why = check_reason(reason)
        cents = to_cents(amount, "an adjustment")
        if cents == 0:
            raise NotAllowed("an adjustment of 0 changes nothing")
        db = self.db

        def work(conn: Connection) -> Fraction:
            row = self._account(conn, actor, account_id)
            balance = lock_account(conn, account_id).balance
            if balance + cents < 0:
                raise NotAllowed(
                    f"{row.name} has {money_text(balance)}: an adjustment of "
                    f"{money_text(cents)} would take the balance below 0"
                )
            memo = f"adjusted by {actor.name}: {why}"[:200]
            after = move(db, conn, account_id, balance, [Movement("adjustment", cents, memo)])
            write(
                conn,
                actor,
                "adjust balance",
                account_target(account_id),
                why,
                {"name": row.name, "balance": money_text(balance)},
                {"name": row.name, "balance": money_text(after), "by": money_text(cents)},
            )
            return from_cents(after)

        return db.run(work)

    def count(self) -> int:
        """How many accounts there are."""
        with self.db.read() as conn:
            return int(conn.execute(select(func.count()).select_from(accounts)).scalar_one())


def leave_seats(db: Database, conn: Connection, account_id: int) -> int:
    """In the caller's transaction: ask the owner of each table where the account holds
    a seat to stand it up after the coup in play (a command, done by whichever process
    drives the table); how many seats."""
    held = conn.execute(
        select(chemmy_tables.c.id)
        .join_from(seats, chemmy_tables, chemmy_tables.c.table_ref == seats.c.table_ref)
        .where(seats.c.account_id == account_id, seats.c.status == "open")
    ).all()
    if not held:
        return 0
    now = clock(db)
    for (table_id,) in held:
        conn.execute(
            insert(chemmy_commands).values(
                table_id=int(table_id),
                process="operator",
                account_id=account_id,
                kind="leave",
                body="{}",
                status="pending",
                give_up=now + LEAVE_WAIT,
                created_at=_now(),
            )
        )
    return len(held)
