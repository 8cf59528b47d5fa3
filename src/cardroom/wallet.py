"""The wallet: every account's money, and every movement of it a row of the ledger.

Amounts go in and out as :class:`~fractions.Fraction` of whole cents (an ``int`` is
whole units); the database holds integer cents.  Anything else (a float, a Decimal, a
third of a cent) is refused with :class:`WalletError` before anything is written.

The books
    Each change of a balance writes a ``ledger`` row in the same transaction: its
    ``kind`` (``deposit``, ``withdrawal``, ``stake``, ``win``, ``return``, ``buy_in``,
    ``cash_out``), its signed amount (credits positive, debits negative: the database
    checks the sign of each kind) and the balance it left.  So an account's balance is
    always the sum of its ledger, and each row's ``balance_after`` is the one before it
    plus its amount: :meth:`Wallet.audit` checks both, in the database, and raises
    :class:`AuditError` when they do not hold.  Settling, voiding and cashing out
    audit the account inside their own transaction, so a settlement is never written
    into books that do not add up.

The house games' rounds
    :meth:`Wallet.open_round` takes the stakes (one ``stake`` row per wager, tied to
    the round) and creates the round ``in_progress`` with the table's ``state`` (opaque
    JSON, enough to finish an interrupted round), in one transaction: a stake that the
    balance does not cover raises :class:`InsufficientFunds` and leaves nothing behind.
    :meth:`Wallet.settle_round` pays each wager back (a ``win`` row when it pays more
    than its stake, a ``return`` row when it pays the stake or part of it, nothing when
    it pays nothing) and finishes the round with its history ``record``;
    :meth:`Wallet.void_round` returns every stake.  A client's ``idempotency_key`` makes
    a repeated request to open a round return the round it already opened.

Chemin de fer's seats
    Money taken to a table is a ``buy_in`` row and an ``open`` seat holding that stack;
    the table moves the stack after each coup (:meth:`Wallet.update_stack`: money
    between players at the table is not the account's), and :meth:`Wallet.cash_out`
    brings the stack back (a ``cash_out`` row) and closes the seat.

Two processes at once
    A debit is one conditional statement inside the write transaction::

        UPDATE accounts SET balance = balance - :x
        WHERE id = :id AND balance >= :x RETURNING balance

    and no row back means the balance does not cover it.  The check and the change are
    one atomic statement on both databases, so the balance can never go below zero
    (and ``CHECK (balance >= 0)`` stands behind it): on SQLite the write transaction
    holds the database's write lock from its ``BEGIN IMMEDIATE``; on PostgreSQL the
    ``UPDATE`` locks the account's row and re-checks its condition on the newest
    version of the row if another transaction changed it first.  The ``RETURNING``
    balance is the ``balance_after`` of the ledger row, so the running balance is
    right without reading the balance first.  We chose this over reading the row
    ``FOR UPDATE`` and checking in Python because it needs no second round trip and
    no lock held across Python code; rows that are read before they are changed (a
    round to settle, a seat to cash out, the balance that :meth:`Wallet.set_balance`
    moves from) are read ``FOR UPDATE`` (a no-op on SQLite, whose transaction already
    holds the lock).  Every writer locks the account's row before it adds a ledger
    row, so the ledger's ids follow each account's balance.

>>> import tempfile
>>> from pathlib import Path
>>> from cardroom.storage import Database
>>> with tempfile.TemporaryDirectory() as tmp, Database.open(path=Path(tmp) / "w.db") as db:
...     wallet = Wallet(db)
...     ann = wallet.open_account("Ann", Fraction(100))
...     opened = wallet.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {})
...     balance = wallet.settle_round(opened.id, {"banker": Fraction(391, 20)}, {})
...     books = [(row.kind, format_amount(row.amount)) for row in wallet.ledger(ann.id)]
>>> format_amount(balance), books
('109.55', [('win', '19.55'), ('stake', '-10'), ('deposit', '100')])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, func, select, update
from sqlalchemy.sql.elements import ColumnElement

from cardroom.core.money import MAX_AMOUNT, format_amount
from cardroom.storage.db import Database, StorageConflict, StorageError
from cardroom.storage.schema import accounts, ledger, rounds, seats

#: What a new account starts with (and what ``cardroom bankroll --reset`` restores).
START_BALANCE = Fraction(1000)

#: The longest name of an account.
NAME_LENGTH = 40

_CENTS_PER_UNIT = 100
_MAX_CENTS = int(MAX_AMOUNT) * _CENTS_PER_UNIT


class WalletError(Exception):
    """A refused movement of money or a bad request; nothing was changed. One line."""


class InsufficientFunds(WalletError):
    """The balance does not cover a stake, a withdrawal or a buy-in."""


class NameTaken(WalletError):
    """An account of that name (compared without case) exists already."""


class AuditError(Exception):
    """An account's books do not add up: stop everything and look."""


# -- values ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Account:
    id: int
    name: str
    balance: Fraction


@dataclass(frozen=True)
class LedgerRow:
    """One movement of money; ``balance_after`` is the account's running balance."""

    id: int
    account_id: int
    created_at: datetime
    kind: str
    amount: Fraction
    balance_after: Fraction
    round_id: int | None
    seat_id: int | None
    table_ref: str | None
    wager: str | None
    memo: str


@dataclass(frozen=True)
class StoredRound:
    """A round of a house game as the database has it.

    ``stakes`` and ``paid`` are by wager, from the ledger: what each wager took and what
    it paid back (wagers that paid nothing are not in ``paid``).
    """

    id: int
    account_id: int
    game: str
    table_ref: str | None
    status: str
    created_at: datetime
    updated_at: datetime
    state: dict[str, Any] | None
    record: dict[str, Any] | None
    stakes: dict[str, Fraction] = field(default_factory=dict)
    paid: dict[str, Fraction] = field(default_factory=dict)
    idempotency_key: str | None = None

    @property
    def net(self) -> Fraction:
        """What the round won (or lost, negative) for the account."""
        return sum(self.paid.values(), Fraction(0)) - sum(self.stakes.values(), Fraction(0))


@dataclass(frozen=True)
class OpenedRound:
    """What :meth:`Wallet.open_round` did: the round, and whether it existed already
    (an idempotency key used before: no money was taken this time)."""

    round: StoredRound
    existing: bool
    balance: Fraction

    @property
    def id(self) -> int:
        return self.round.id


@dataclass(frozen=True)
class Seat:
    """An account's money at a chemin de fer table."""

    id: int
    account_id: int
    table_ref: str
    stack: Fraction
    status: str
    created_at: datetime
    updated_at: datetime


# -- checking what comes in -------------------------------------------------------------------
def to_cents(amount: object, what: str = "an amount") -> int:
    """An amount in whole cents; a :class:`WalletError` for anything else.

    >>> to_cents(Fraction(1001, 100)), to_cents(3)
    (1001, 300)
    >>> to_cents(Fraction(1, 3), "the stake on banker")
    Traceback (most recent call last):
    ...
    cardroom.wallet.WalletError: the stake on banker: 1/3 is not a whole number of cents
    >>> to_cents(0.5)
    Traceback (most recent call last):
    ...
    cardroom.wallet.WalletError: an amount must be exact (a Fraction), not 0.5
    """
    if isinstance(amount, bool) or not isinstance(amount, int | Fraction):
        raise WalletError(f"{what} must be exact (a Fraction), not {amount!r}")
    value = Fraction(amount) * _CENTS_PER_UNIT
    if value.denominator != 1:
        raise WalletError(
            f"{what}: {format_amount(Fraction(amount))} is not a whole number of cents"
        )
    if abs(value.numerator) > _MAX_CENTS:
        raise WalletError(f"{what}: {format_amount(Fraction(amount))} is too large")
    return value.numerator


def from_cents(cents: int) -> Fraction:
    """Cents from the database as an amount.

    >>> from_cents(1050)
    Fraction(21, 2)
    """
    return Fraction(int(cents), _CENTS_PER_UNIT)


def _positive(amount: object, what: str) -> int:
    cents = to_cents(amount, what)
    if cents <= 0:
        raise WalletError(f"{what} must be more than 0, not {format_amount(from_cents(cents))}")
    return cents


def _not_negative(amount: object, what: str) -> int:
    cents = to_cents(amount, what)
    if cents < 0:
        raise WalletError(f"{what} cannot be negative ({format_amount(from_cents(cents))})")
    return cents


def account_name(name: str) -> str:
    """An account's name, checked: one line of 1 to 40 characters, no ``,``.

    >>> account_name("  Ann ")
    'Ann'
    """
    if not isinstance(name, str):
        raise WalletError(f"{name!r} cannot name an account")
    clean = name.strip()
    if not clean:
        raise WalletError("an account needs a name")
    if len(clean) > NAME_LENGTH or "," in clean or not clean.isprintable():
        raise WalletError(f"{name!r} cannot name an account: use up to 40 letters, no commas")
    return clean


def name_key(name: str) -> str:
    """How names are matched: without regard to case."""
    return name.casefold()


def _dump(value: Mapping[str, Any], what: str) -> str:
    if not isinstance(value, Mapping):
        raise WalletError(f"the {what} must be a mapping, not {type(value).__name__}")
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise WalletError(f"the {what} cannot be stored as JSON: {err}") from None


def _load(text: str | None, what: str) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        raise StorageError(f"the {what} in the database is damaged") from None
    if not isinstance(value, dict):
        raise StorageError(f"the {what} in the database is not a JSON object")
    return value


def _now() -> datetime:
    return datetime.now(UTC)


def _money(cents: int) -> str:
    return format_amount(from_cents(cents))


# -- the wallet ----------------------------------------------------------------------------------
class Wallet:
    """The accounts, rounds and seats of one :class:`~cardroom.storage.Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- accounts ---------------------------------------------------------------------------
    def open_account(
        self, name: str, deposit: Fraction = START_BALANCE, password_hash: str | None = None
    ) -> Account:
        """A new account with an opening ``deposit`` (a ledger row; none for 0).

        Refuses (:class:`NameTaken`) a name that is taken, compared without case.
        """
        clean = account_name(name)
        cents = _not_negative(deposit, "the opening deposit")
        try:
            with self.db.write() as conn:
                if self._account_id(conn, clean) is not None:
                    raise NameTaken(f"there is an account called {clean!r} already")
                account_id = conn.execute(
                    accounts.insert()
                    .values(
                        name=clean,
                        name_key=name_key(clean),
                        password_hash=password_hash,
                        balance=0,
                        created_at=_now(),
                    )
                    .returning(accounts.c.id)
                ).scalar_one()
                balance = 0
                if cents:
                    balance = self._credit(conn, account_id, cents, "deposit", "opening deposit")
        except StorageConflict:
            raise NameTaken(f"there is an account called {clean!r} already") from None
        return Account(int(account_id), clean, from_cents(balance))

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
        """The account of that name, opened with :data:`START_BALANCE` if there is none."""
        found = self.account(name)
        if found is not None:
            return found
        try:
            return self.open_account(name)
        except NameTaken:  # another process opened it a moment ago
            found = self.account(name)
            assert found is not None
            return found

    def accounts(self) -> list[Account]:
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

    def set_password_hash(self, account_id: int, password_hash: str | None) -> None:
        """Store (or with None remove) the hash of the account's password."""
        with self.db.write() as conn:
            changed = conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(password_hash=password_hash)
            ).rowcount
        if not changed:
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

    # -- deposits and withdrawals --------------------------------------------------------------
    def deposit(self, account_id: int, amount: Fraction, memo: str = "deposit") -> Fraction:
        """Put money into the account; its new balance."""
        cents = _positive(amount, "a deposit")
        with self.db.write() as conn:
            return from_cents(self._credit(conn, account_id, cents, "deposit", memo))

    def withdraw(self, account_id: int, amount: Fraction, memo: str = "withdrawal") -> Fraction:
        """Take money out (:class:`InsufficientFunds` beyond the balance); the new balance."""
        cents = _positive(amount, "a withdrawal")
        with self.db.write() as conn:
            return from_cents(self._debit(conn, account_id, cents, "withdrawal", memo))

    def set_balance(self, account_id: int, amount: Fraction, memo: str = "set") -> Fraction:
        """Put the balance at ``amount`` by a deposit or withdrawal of the difference
        (``cardroom bankroll --set`` and ``--reset``); the new balance."""
        target = _not_negative(amount, "a balance")
        with self.db.write() as conn:
            current = self._lock_account(conn, account_id).balance
            if target > current:
                self._credit(conn, account_id, target - current, "deposit", memo)
            elif target < current:
                self._debit(conn, account_id, current - target, "withdrawal", memo)
        return from_cents(target)

    # -- rounds of the house games -------------------------------------------------------------
    def open_round(
        self,
        account_id: int,
        game: str,
        stakes: Mapping[str, Fraction],
        state: Mapping[str, Any],
        table_ref: str | None = None,
        idempotency_key: str | None = None,
    ) -> OpenedRound:
        """Take the stakes and open the round ``in_progress``, in one transaction.

        :class:`InsufficientFunds` if the balance does not cover them all (nothing is
        written).  With an ``idempotency_key`` this account has used before: the round
        opened then, ``existing=True``, and no money taken.
        """
        amounts = {str(w): _positive(s, f"the stake on {w}") for w, s in dict(stakes).items()}
        state_text = _dump(state, "round's state")
        try:
            with self.db.write() as conn:
                self._lock_account(conn, account_id, lock=False)
                if idempotency_key is not None:
                    found = self._round_by_key(conn, account_id, game, idempotency_key)
                    if found is not None:
                        return OpenedRound(found, True, self._balance(conn, account_id))
                now = _now()
                round_id = conn.execute(
                    rounds.insert()
                    .values(
                        account_id=account_id,
                        game=game,
                        table_ref=table_ref,
                        status="in_progress",
                        created_at=now,
                        updated_at=now,
                        state=state_text,
                        idempotency_key=idempotency_key,
                    )
                    .returning(rounds.c.id)
                ).scalar_one()
                balance = None
                for wager, cents in amounts.items():
                    balance = self._debit(
                        conn,
                        account_id,
                        cents,
                        "stake",
                        f"stake on {wager}",
                        round_id=round_id,
                        wager=wager,
                        table_ref=table_ref,
                    )
                if balance is None:
                    balance = self._balance_cents(conn, account_id)
                [opened] = self._rounds(conn, rounds.c.id == round_id)
                return OpenedRound(opened, False, from_cents(balance))
        except StorageConflict:
            if idempotency_key is None:
                raise
            # another process opened the round with this key at the same moment
            with self.db.read() as conn:
                found = self._round_by_key(conn, account_id, game, idempotency_key)
                if found is None:
                    raise
                return OpenedRound(found, True, self._balance(conn, account_id))

    def save_state(self, round_id: int, state: Mapping[str, Any]) -> None:
        """Keep the round's state (its decisions so far); only while it is in progress."""
        text = _dump(state, "round's state")
        with self.db.write() as conn:
            changed = conn.execute(
                update(rounds)
                .where(rounds.c.id == round_id, rounds.c.status == "in_progress")
                .values(state=text, updated_at=_now())
            ).rowcount
            if not changed:
                self._lock_round(conn, round_id, "take a new state")  # says why

    def settle_round(
        self, round_id: int, payouts: Mapping[str, Fraction], record: Mapping[str, Any]
    ) -> Fraction:
        """Pay the round's wagers back and finish it with its history ``record``.

        ``payouts``: what each wager pays back in total (stake and winnings; the stake
        on a push; 0, or left out, when it lost).  One transaction, which also audits
        the account (:class:`AuditError`); refuses a round that is not in progress.
        Returns the account's new balance.
        """
        paid = {str(w): _not_negative(p, f"the payout of {w}") for w, p in dict(payouts).items()}
        record_text = _dump(record, "round's record")
        with self.db.write() as conn:
            row = self._lock_round(conn, round_id, "be settled")
            stakes = self._stakes(conn, round_id)
            unknown = sorted(set(paid) - set(stakes))
            if unknown:
                raise WalletError(f"round {round_id} has no stake on {', '.join(unknown)}")
            for wager, stake in stakes.items():
                cents = paid.get(wager, 0)
                if cents == 0:
                    continue
                if cents > stake:
                    kind, memo = "win", f"{wager} won"
                elif cents == stake:
                    kind, memo = "return", f"stake on {wager} back"
                else:
                    kind, memo = "return", f"part of the stake on {wager} back"
                self._credit(
                    conn,
                    row.account_id,
                    cents,
                    kind,
                    memo,
                    round_id=round_id,
                    wager=wager,
                    table_ref=row.table_ref,
                )
            self._close_round(conn, round_id, "finished", record_text)
            return from_cents(self._audit(conn, row.account_id, lock=True))

    def void_round(self, round_id: int, record: Mapping[str, Any]) -> Fraction:
        """Call the round off: every stake returned (``return`` rows), status ``void``.
        Audits the account like :meth:`settle_round`; returns the new balance."""
        record_text = _dump(record, "round's record")
        with self.db.write() as conn:
            row = self._lock_round(conn, round_id, "be voided")
            for wager, stake in self._stakes(conn, round_id).items():
                self._credit(
                    conn,
                    row.account_id,
                    stake,
                    "return",
                    f"stake on {wager} back (round void)",
                    round_id=round_id,
                    wager=wager,
                    table_ref=row.table_ref,
                )
            self._close_round(conn, round_id, "void", record_text)
            return from_cents(self._audit(conn, row.account_id, lock=True))

    def round(self, round_id: int) -> StoredRound:
        with self.db.read() as conn:
            found = self._rounds(conn, rounds.c.id == round_id)
        if not found:
            raise WalletError(f"there is no round {round_id}")
        return found[0]

    def unfinished_rounds(self, account_id: int, game: str | None = None) -> list[StoredRound]:
        """The account's rounds in progress (of ``game``, if given), oldest first."""
        where = [rounds.c.account_id == account_id, rounds.c.status == "in_progress"]
        if game is not None:
            where.append(rounds.c.game == game)
        with self.db.read() as conn:
            return self._rounds(conn, *where, newest_first=False)

    def rounds(
        self,
        account_id: int,
        limit: int = 10,
        game: str | None = None,
        statuses: Iterable[str] = ("finished", "void"),
    ) -> list[StoredRound]:
        """The account's last ``limit`` rounds of those ``statuses`` (and ``game``), newest
        first."""
        where = [rounds.c.account_id == account_id, rounds.c.status.in_(list(statuses))]
        if game is not None:
            where.append(rounds.c.game == game)
        with self.db.read() as conn:
            return self._rounds(conn, *where, limit=max(0, limit))

    def count_rounds(
        self,
        account_id: int,
        game: str | None = None,
        statuses: Iterable[str] = ("finished", "void"),
    ) -> int:
        """How many rounds :meth:`rounds` could list without a limit."""
        query = select(func.count()).where(
            rounds.c.account_id == account_id, rounds.c.status.in_(list(statuses))
        )
        if game is not None:
            query = query.where(rounds.c.game == game)
        with self.db.read() as conn:
            return int(conn.execute(query).scalar_one())

    # -- chemin de fer: money at a table ------------------------------------------------------
    def buy_in(self, account_id: int, amount: Fraction, table_ref: str) -> int:
        """Take ``amount`` to the table ``table_ref``: a ``buy_in`` row and an open seat
        with that stack; its id.  :class:`InsufficientFunds` beyond the balance."""
        cents = _positive(amount, "a buy-in")
        if not isinstance(table_ref, str) or not table_ref.strip():
            raise WalletError("a buy-in needs the table it is for")
        with self.db.write() as conn:
            self._lock_account(conn, account_id, lock=False)
            now = _now()
            seat_id = conn.execute(
                seats.insert()
                .values(
                    account_id=account_id,
                    table_ref=table_ref,
                    stack=cents,
                    status="open",
                    created_at=now,
                    updated_at=now,
                )
                .returning(seats.c.id)
            ).scalar_one()
            self._debit(
                conn,
                account_id,
                cents,
                "buy_in",
                f"buy-in at {table_ref}",
                seat_id=seat_id,
                table_ref=table_ref,
            )
        return int(seat_id)

    def update_stack(self, seat_id: int, stack: Fraction) -> None:
        """The seat's stack after a coup (only while the seat is open)."""
        cents = _not_negative(stack, "a stack")
        with self.db.write() as conn:
            changed = conn.execute(
                update(seats)
                .where(seats.c.id == seat_id, seats.c.status == "open")
                .values(stack=cents, updated_at=_now())
            ).rowcount
            if not changed:
                self._lock_seat(conn, seat_id)  # raises: no such seat, or closed

    def cash_out(self, seat_id: int) -> Fraction:
        """Bring the seat's stack back to the account (a ``cash_out`` row) and close the
        seat; audits the account; the account's new balance."""
        with self.db.write() as conn:
            seat = self._lock_seat(conn, seat_id)
            self._credit(
                conn,
                seat.account_id,
                int(seat.stack),
                "cash_out",
                f"cash-out from {seat.table_ref}",
                seat_id=seat_id,
                table_ref=seat.table_ref,
            )
            conn.execute(
                update(seats)
                .where(seats.c.id == seat_id)
                .values(status="closed", updated_at=_now())
            )
            return from_cents(self._audit(conn, seat.account_id, lock=True))

    def open_coup(
        self, account_id: int, game: str, state: Mapping[str, Any], table_ref: str
    ) -> int:
        """A coup a person's seat takes part in, opened ``in_progress`` with its ``state``
        (no money moves: the stakes are the seat's, at the table); its round id."""
        state_text = _dump(state, "coup's state")
        with self.db.write() as conn:
            self._lock_account(conn, account_id, lock=False)
            now = _now()
            round_id = conn.execute(
                rounds.insert()
                .values(
                    account_id=account_id,
                    game=game,
                    table_ref=table_ref,
                    status="in_progress",
                    created_at=now,
                    updated_at=now,
                    state=state_text,
                )
                .returning(rounds.c.id)
            ).scalar_one()
        return int(round_id)

    def finish_coup(
        self, round_id: int, record: Mapping[str, Any], seat_id: int, stack: Fraction
    ) -> None:
        """Finish a coup with its ``record`` and put the seat's stack at what the coup left
        it, in one transaction."""
        cents = _not_negative(stack, "a stack")
        record_text = _dump(record, "coup's record")
        with self.db.write() as conn:
            row = self._lock_round(conn, round_id, "be finished")
            seat = self._lock_seat(conn, seat_id)
            if seat.account_id != row.account_id:
                raise WalletError(f"seat {seat_id} is not the coup's person's")
            conn.execute(
                update(seats).where(seats.c.id == seat_id).values(stack=cents, updated_at=_now())
            )
            self._close_round(conn, round_id, "finished", record_text)

    def seat(self, seat_id: int) -> Seat:
        with self.db.read() as conn:
            row = conn.execute(select(seats).where(seats.c.id == seat_id)).first()
        if row is None:
            raise WalletError(f"there is no seat {seat_id}")
        return _seat(row)

    def open_seats(self, account_id: int) -> list[Seat]:
        """The account's open seats, oldest first (what a crash left at a table)."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(seats)
                .where(seats.c.account_id == account_id, seats.c.status == "open")
                .order_by(seats.c.id)
            ).all()
        return [_seat(row) for row in rows]

    # -- the books --------------------------------------------------------------------------
    def ledger(self, account_id: int, limit: int = 50) -> list[LedgerRow]:
        """The account's last ``limit`` movements, newest first, each with its running
        balance."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(ledger)
                .where(ledger.c.account_id == account_id)
                .order_by(ledger.c.id.desc())
                .limit(max(0, limit))
            ).all()
        return [
            LedgerRow(
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
            for r in rows
        ]

    def audit(self, account_id: int) -> None:
        """Check the account's books (:class:`AuditError` if they do not add up):

        balance = deposits - withdrawals + wins + returns - stakes - buy-ins + cash-outs
        (the sum of its ledger), and each row's balance is the one before plus its amount.
        """
        with self.db.read() as conn:
            self._audit(conn, account_id, lock=False)

    def audit_all(self) -> int:
        """Audit every account; how many there are."""
        with self.db.read() as conn:
            ids = conn.execute(select(accounts.c.id).order_by(accounts.c.id)).scalars().all()
            for account_id in ids:
                self._audit(conn, account_id, lock=False)
        return len(ids)

    # -- inside a transaction ------------------------------------------------------------------
    @staticmethod
    def _account_id(conn: Connection, name: str) -> int | None:
        found = conn.execute(
            select(accounts.c.id).where(accounts.c.name_key == name_key(name))
        ).scalar_one_or_none()
        return None if found is None else int(found)

    @staticmethod
    def _lock_account(conn: Connection, account_id: int, lock: bool = True) -> Any:
        """The account's row (``FOR UPDATE`` on PostgreSQL when ``lock``), or a WalletError."""
        query = select(accounts.c.id, accounts.c.name, accounts.c.balance).where(
            accounts.c.id == account_id
        )
        row = conn.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise WalletError(f"there is no account {account_id}")
        return row

    def _balance_cents(self, conn: Connection, account_id: int) -> int:
        return int(self._lock_account(conn, account_id, lock=False).balance)

    def _balance(self, conn: Connection, account_id: int) -> Fraction:
        return from_cents(self._balance_cents(conn, account_id))

    @staticmethod
    def _add_row(
        conn: Connection, account_id: int, kind: str, amount: int, balance_after: int, **links: Any
    ) -> None:
        conn.execute(
            ledger.insert().values(
                account_id=account_id,
                created_at=_now(),
                kind=kind,
                amount=amount,
                balance_after=balance_after,
                **links,
            )
        )

    def _debit(
        self, conn: Connection, account_id: int, cents: int, kind: str, memo: str, **links: Any
    ) -> int:
        """Take ``cents`` if the balance covers them (see the module's docstring), with its
        ledger row; the new balance, or :class:`InsufficientFunds`."""
        balance = conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id, accounts.c.balance >= cents)
            .values(balance=accounts.c.balance - cents)
            .returning(accounts.c.balance)
        ).scalar_one_or_none()
        if balance is None:
            row = self._lock_account(conn, account_id, lock=False)
            what = {"stake": "a stake", "buy_in": "a buy-in"}.get(kind, "a withdrawal")
            raise InsufficientFunds(
                f"{row.name} has {_money(row.balance)}: not enough for {what} of {_money(cents)}"
            )
        self._add_row(conn, account_id, kind, -cents, int(balance), memo=memo, **links)
        return int(balance)

    def _credit(
        self, conn: Connection, account_id: int, cents: int, kind: str, memo: str, **links: Any
    ) -> int:
        """Add ``cents`` with its ledger row; the new balance."""
        balance = conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id)
            .values(balance=accounts.c.balance + cents)
            .returning(accounts.c.balance)
        ).scalar_one_or_none()
        if balance is None:
            raise WalletError(f"there is no account {account_id}")
        self._add_row(conn, account_id, kind, cents, int(balance), memo=memo, **links)
        return int(balance)

    def _audit(self, conn: Connection, account_id: int, lock: bool) -> int:
        """The audit of :meth:`audit`; the balance in cents."""
        account = self._lock_account(conn, account_id, lock=lock)
        who = f"account {account_id} ({account.name})"
        total = conn.execute(
            select(func.coalesce(func.sum(ledger.c.amount), 0)).where(
                ledger.c.account_id == account_id
            )
        ).scalar_one()
        if int(total) != account.balance:
            raise AuditError(
                f"the books of {who} do not add up: its balance is {_money(account.balance)} "
                f"but its ledger adds up to {_money(int(total))}"
            )
        before = func.coalesce(
            func.lag(ledger.c.balance_after).over(order_by=ledger.c.id), 0
        ).label("before")
        steps = (
            select(ledger.c.id, ledger.c.amount, ledger.c.balance_after, before)
            .where(ledger.c.account_id == account_id)
            .subquery()
        )
        wrong = conn.execute(
            select(steps)
            .where(steps.c.balance_after != steps.c.before + steps.c.amount)
            .order_by(steps.c.id)
            .limit(1)
        ).first()
        if wrong is not None:
            raise AuditError(
                f"the books of {who} do not add up: ledger row {wrong.id} has "
                f"{_money(wrong.balance_after)} after {_money(wrong.amount)}, but the row "
                f"before it left {_money(wrong.before)}"
            )
        return int(account.balance)

    @staticmethod
    def _lock_round(conn: Connection, round_id: int, refused: str) -> Any:
        """The round's row, read ``FOR UPDATE``; a WalletError unless it is in progress."""
        row = conn.execute(
            select(rounds.c.id, rounds.c.account_id, rounds.c.status, rounds.c.table_ref)
            .where(rounds.c.id == round_id)
            .with_for_update()
        ).first()
        if row is None:
            raise WalletError(f"there is no round {round_id}")
        if row.status != "in_progress":
            status = row.status.replace("_", " ")
            raise WalletError(f"round {round_id} is {status}: it cannot {refused}")
        return row

    @staticmethod
    def _close_round(conn: Connection, round_id: int, status: str, record: str) -> None:
        conn.execute(
            update(rounds)
            .where(rounds.c.id == round_id)
            .values(status=status, record=record, updated_at=_now())
        )

    @staticmethod
    def _stakes(conn: Connection, round_id: int) -> dict[str, int]:
        """The round's stakes by wager, in cents."""
        rows = conn.execute(
            select(ledger.c.wager, ledger.c.amount)
            .where(ledger.c.round_id == round_id, ledger.c.kind == "stake")
            .order_by(ledger.c.id)
        ).all()
        stakes: dict[str, int] = {}
        for wager, amount in rows:
            stakes[str(wager)] = stakes.get(str(wager), 0) - int(amount)
        return stakes

    def _round_by_key(
        self, conn: Connection, account_id: int, game: str, key: str
    ) -> StoredRound | None:
        found = self._rounds(
            conn, rounds.c.account_id == account_id, rounds.c.idempotency_key == key
        )
        if not found:
            return None
        if found[0].game != game:
            raise WalletError(f"the key {key!r} opened a round of {found[0].game}, not of {game}")
        return found[0]

    @staticmethod
    def _rounds(
        conn: Connection,
        *where: ColumnElement[bool],
        limit: int | None = None,
        newest_first: bool = True,
    ) -> list[StoredRound]:
        query = select(rounds).where(*where)
        query = query.order_by(rounds.c.id.desc() if newest_first else rounds.c.id)
        if limit is not None:
            query = query.limit(limit)
        rows = conn.execute(query).all()
        stakes: dict[int, dict[str, Fraction]] = {int(r.id): {} for r in rows}
        paid: dict[int, dict[str, Fraction]] = {int(r.id): {} for r in rows}
        if rows:
            money = conn.execute(
                select(ledger.c.round_id, ledger.c.kind, ledger.c.wager, ledger.c.amount)
                .where(ledger.c.round_id.in_(list(stakes)))
                .order_by(ledger.c.id)
            ).all()
            for round_id, kind, wager, amount in money:
                book = stakes if kind == "stake" else paid
                entry = book[int(round_id)]
                entry[str(wager)] = entry.get(str(wager), Fraction(0)) + abs(from_cents(amount))
        return [
            StoredRound(
                id=int(r.id),
                account_id=int(r.account_id),
                game=r.game,
                table_ref=r.table_ref,
                status=r.status,
                created_at=r.created_at,
                updated_at=r.updated_at,
                state=_load(r.state, f"state of round {r.id}"),
                record=_load(r.record, f"record of round {r.id}"),
                stakes=stakes[int(r.id)],
                paid=paid[int(r.id)],
                idempotency_key=r.idempotency_key,
            )
            for r in rows
        ]

    @staticmethod
    def _lock_seat(conn: Connection, seat_id: int) -> Any:
        """The seat's row, read ``FOR UPDATE``; a WalletError unless it is open."""
        row = conn.execute(select(seats).where(seats.c.id == seat_id).with_for_update()).first()
        if row is None:
            raise WalletError(f"there is no seat {seat_id}")
        if row.status != "open":
            raise WalletError(f"seat {seat_id} is closed: its stack was cashed out")
        return row


def _seat(row: Any) -> Seat:
    return Seat(
        id=int(row.id),
        account_id=int(row.account_id),
        table_ref=row.table_ref,
        stack=from_cents(row.stack),
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )
