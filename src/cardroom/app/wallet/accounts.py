"""Accounts: opened under a name no other looks like, found by name or id, their
sign-in secrets (a password's hash), and the money that comes in and goes out of them
outside the tables (deposits, withdrawals, a balance set, play money topped up)."""

from __future__ import annotations

from datetime import datetime, timedelta
from fractions import Fraction

from sqlalchemy import Connection, func, select, update

from cardroom.app.names import name_skeleton
from cardroom.app.wallet.limits import REALITY_DEFAULT
from cardroom.app.wallet.money import Movement, lock_account, move
from cardroom.app.wallet.values import (
    START_BALANCE,
    TOP_UP_EVERY,
    Account,
    LockedAccount,
    NameTaken,
    TopUpRefused,
    WalletError,
    account_name,
    from_cents,
    money_text,
    name_key,
    not_negative,
    positive,
    to_cents,
)
from cardroom.app.wallet.values import now as _now
from cardroom.storage.db import Database
from cardroom.storage.errors import StorageConflict
from cardroom.storage.schema import accounts, seats

__all__ = ["Accounts"]


class Accounts:
    """The accounts of one :class:`~cardroom.storage.Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- opening and finding -------------------------------------------------------------------
    def open_account(
        self, name: str, deposit: Fraction = START_BALANCE, password_hash: str | None = None
    ) -> Account:
        """A new account with an opening ``deposit`` (a ledger row; none for 0).

        Refuses (:class:`NameTaken`) a name that is taken, compared without case, or one
        that looks like another account's.
        """
        clean = account_name(name)
        cents = not_negative(deposit, "the opening deposit")
        skeleton = name_skeleton(clean)
        db = self.db

        def work(conn: Connection) -> Account:
            _check_name_free(conn, clean, skeleton)
            opened = _now()
            account_id = int(
                conn.execute(
                    accounts.insert()
                    .values(
                        name=clean,
                        name_key=name_key(clean),
                        name_skeleton=skeleton,
                        password_hash=password_hash,
                        balance=0,
                        created_at=opened,
                        # a new account's play session begins now, with a reality
                        # check every hour until its person chooses otherwise
                        session_started=opened,
                        session_ledger_id=0,
                        reality_every=REALITY_DEFAULT,
                        reality_due=opened + timedelta(minutes=REALITY_DEFAULT),
                    )
                    .returning(accounts.c.id)
                ).scalar_one()
            )
            balance = 0
            if cents:
                lock_account(conn, account_id)
                balance = move(
                    db, conn, account_id, 0, [Movement("deposit", cents, "opening deposit")]
                )
            return Account(account_id, clean, from_cents(balance))

        try:
            return db.run(work)
        except StorageConflict:
            # another process registered it (or one alike) a moment ago: say which
            with db.read() as conn:
                _check_name_free(conn, clean, skeleton)
            raise NameTaken(f"there is an account called {clean!r} already") from None

    def check_name_free(self, name: str) -> None:
        """:class:`NameTaken` if an account has this name, or one that looks like it (a
        look before spending a password's hash on it; opening the account checks again)."""
        clean = account_name(name)
        with self.db.read() as conn:
            _check_name_free(conn, clean, name_skeleton(clean))

    def account(self, name: str) -> Account | None:
        """The account of that name (compared without case), or None."""
        with self.db.read() as conn:
            row = conn.execute(
                select(accounts.c.id, accounts.c.name, accounts.c.balance).where(
                    accounts.c.name_key == name_key(account_name(name))
                )
            ).first()
        return None if row is None else Account(int(row.id), row.name, from_cents(row.balance))

    def get(self, account_id: int) -> Account:
        """The account of that id (a :class:`WalletError` if there is none)."""
        with self.db.read() as conn:
            row = conn.execute(
                select(accounts.c.id, accounts.c.name, accounts.c.balance).where(
                    accounts.c.id == account_id
                )
            ).first()
        if row is None:
            raise WalletError(f"there is no account {account_id}")
        return Account(int(row.id), row.name, from_cents(row.balance))

    def account_or_open(self, name: str) -> Account:
        """The account of that name, opened with :data:`START_BALANCE` if there is none
        (:class:`NameTaken` for a name that looks like another account's)."""
        found = self.account(name)
        if found is not None:
            return found
        try:
            return self.open_account(name)
        except NameTaken:  # another process opened it a moment ago, or one alike
            found = self.account(name)
            if found is None:
                raise
            return found

    def all(self) -> list[Account]:
        """Every account, in the order of the names."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(accounts.c.id, accounts.c.name, accounts.c.balance).order_by(
                    accounts.c.name_key
                )
            ).all()
        return [Account(int(r.id), r.name, from_cents(r.balance)) for r in rows]

    def balance(self, account_id: int) -> Fraction:
        return self.get(account_id).balance

    def lock(self, account_id: int, idempotency_key: str | None = None) -> LockedAccount:
        """Inside a caller's transaction (``db.run``): lock the account's row for the rest
        of it, as the first thing the transaction does (the wallet's one lock order), and
        read its balance and the round ``idempotency_key`` opened, if any."""
        return self.db.run(lambda conn: lock_account(conn, account_id, idempotency_key))

    # -- sign-in secrets -----------------------------------------------------------------------
    def set_password_hash(self, account_id: int, password_hash: str | None) -> None:
        """Store (or with None remove) the hash of the account's password."""

        def work(conn: Connection) -> int:
            return int(
                conn.execute(
                    update(accounts)
                    .where(accounts.c.id == account_id)
                    .values(password_hash=password_hash)
                ).rowcount
            )

        if not self.db.run(work):
            raise WalletError(f"there is no account {account_id}")

    def password_hash(self, name: str) -> tuple[int, str] | None:
        """The account's id and password hash, or None (no such account, or no password)."""
        with self.db.read() as conn:
            row = conn.execute(
                select(accounts.c.id, accounts.c.password_hash).where(
                    accounts.c.name_key == name_key(account_name(name))
                )
            ).first()
        if row is None or row.password_hash is None:
            return None
        return int(row.id), str(row.password_hash)

    # -- money in and out, away from the tables ---------------------------------------------------
    def deposit(self, account_id: int, amount: Fraction, memo: str = "deposit") -> Fraction:
        """Put money into the account; its new balance."""
        cents = positive(amount, "a deposit")
        return self._one(account_id, Movement("deposit", cents, memo))

    def withdraw(self, account_id: int, amount: Fraction, memo: str = "withdrawal") -> Fraction:
        """Take money out (:class:`InsufficientFunds` beyond the balance); the new balance."""
        cents = positive(amount, "a withdrawal")
        return self._one(account_id, Movement("withdrawal", -cents, memo))

    def set_balance(self, account_id: int, amount: Fraction, memo: str = "set") -> Fraction:
        """Put the balance at ``amount`` by a deposit or withdrawal of the difference
        (``cardroom bankroll --set`` and ``--reset``); the new balance."""
        target = not_negative(amount, "a balance")
        db = self.db

        def work(conn: Connection) -> Fraction:
            current = int(lock_account(conn, account_id).balance)
            if target != current:
                kind = "deposit" if target > current else "withdrawal"
                move(db, conn, account_id, current, [Movement(kind, target - current, memo)])
            return from_cents(target)

        return db.run(work)

    def top_up_due(
        self, account_id: int, below: Fraction, now: datetime | None = None
    ) -> tuple[bool, datetime | None]:
        """May the account be topped up now (:meth:`top_up`), and if not for want of a
        day, when it may be: its balance and stacks at the tables together are below
        ``below``, and its last top-up was a day ago or more."""
        at = now or _now()
        with self.db.read() as conn:
            row = conn.execute(
                select(accounts.c.balance, accounts.c.topped_up_at).where(
                    accounts.c.id == account_id
                )
            ).first()
            if row is None:
                raise WalletError(f"there is no account {account_id}")
            held = int(row.balance) + _stacks_held(conn, account_id)
        if held >= to_cents(below, "the top-up's threshold"):
            return False, None
        last = row.topped_up_at
        if last is not None and at - last < TOP_UP_EVERY:
            return False, last + TOP_UP_EVERY
        return True, None

    def top_up(
        self,
        account_id: int,
        below: Fraction,
        to: Fraction = START_BALANCE,
        now: datetime | None = None,
    ) -> Fraction:
        """Play money: bring the balance back to ``to`` (a ``top_up`` row) when the
        balance and the stacks the account has at the tables together are below
        ``below`` (every table's minimum), at most once a day; the new balance.

        One transaction, which locks the account's row before it reads anything: two
        requests at once, on any server processes, make one top-up, and the other is
        refused (:class:`TopUpRefused`, which says why and when the next may be).
        """
        target = positive(to, "the top-up's balance")
        threshold = to_cents(below, "the top-up's threshold")
        at = now or _now()
        db = self.db

        def work(conn: Connection) -> Fraction:
            balance = int(lock_account(conn, account_id).balance)
            last = conn.execute(
                select(accounts.c.topped_up_at).where(accounts.c.id == account_id)
            ).scalar_one()
            held = balance + _stacks_held(conn, account_id)
            if held >= threshold:
                at_tables = " with what you have at the tables" if held > balance else ""
                raise TopUpRefused(
                    f"a top-up is for a balance below every table's minimum "
                    f"({money_text(threshold)}): yours is {money_text(held)}{at_tables}"
                )
            if last is not None and at - last < TOP_UP_EVERY:
                again = (last + TOP_UP_EVERY).strftime("%Y-%m-%d %H:%M")
                raise TopUpRefused(f"one top-up a day: the next one may be made from {again} UTC")
            conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(topped_up_at=at)
            )
            memo = f"top-up of play money to {money_text(target)}"
            moves = [Movement("top_up", target - balance, memo)] if target > balance else []
            return from_cents(move(db, conn, account_id, balance, moves) if moves else balance)

        return db.run(work)

    def _one(self, account_id: int, movement: Movement) -> Fraction:
        db = self.db

        def work(conn: Connection) -> Fraction:
            balance = int(lock_account(conn, account_id).balance)
            return from_cents(move(db, conn, account_id, balance, [movement]))

        return db.run(work)


def _check_name_free(conn: Connection, clean: str, skeleton: str) -> None:
    """:class:`NameTaken` if an account has this name's key or skeleton."""
    found = conn.execute(
        select(accounts.c.name, accounts.c.name_key)
        .where((accounts.c.name_key == name_key(clean)) | (accounts.c.name_skeleton == skeleton))
        .limit(1)
    ).first()
    if found is None:
        return
    if found.name_key == name_key(clean):
        raise NameTaken(f"there is an account called {clean!r} already")
    raise NameTaken(
        f"the name {clean!r} looks too much like {found.name!r}, who plays here already: "
        "choose another"
    )


def _stacks_held(conn: Connection, account_id: int) -> int:
    """The cents the account has at chemin de fer tables (its open seats)."""
    held = conn.execute(
        select(func.coalesce(func.sum(seats.c.stack), 0)).where(
            seats.c.account_id == account_id, seats.c.status == "open"
        )
    ).scalar_one()
    return int(held)
