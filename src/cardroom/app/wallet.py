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

import dataclasses
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any, NoReturn

from sqlalchemy import Connection, bindparam, func, select, union_all, update
from sqlalchemy.sql.elements import ColumnElement

from cardroom.app.names import clean_name, name_skeleton
from cardroom.app.names import name_key as _name_key
from cardroom.core.money import MAX_AMOUNT, format_amount
from cardroom.storage.db import Database, Fast
from cardroom.storage.errors import StorageConflict, StorageError
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
    """An account of that name (compared without case) exists already, or one whose
    name looks like it (:func:`cardroom.app.names.name_skeleton`)."""


class TopUpRefused(WalletError):
    """A top-up of play money that may not be made now (the balance is enough to play,
    or the account had one less than a day ago)."""


#: How often an account may be topped up.
TOP_UP_EVERY = timedelta(days=1)


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
class LedgerPage:
    """One page of an account's ledger, newest first: ``older`` is the ``before`` of the
    page before it in time and ``newer`` the ``after`` of the page after it (None where
    there is none); ``balance_before`` is the balance before the page's oldest row, so
    that the page adds up from it to its newest row's balance."""

    rows: list[LedgerRow]
    older: int | None
    newer: int | None
    balance_before: Fraction


@dataclass(frozen=True)
class RoundsPage:
    """One page of an account's rounds, newest first, with the cursors of the pages
    around it (as :class:`LedgerPage`)."""

    rounds: list[StoredRound]
    older: int | None
    newer: int | None


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
    cardroom.app.wallet.WalletError: the stake on banker: 1/3 is not a whole number of cents
    >>> to_cents(0.5)
    Traceback (most recent call last):
    ...
    cardroom.app.wallet.WalletError: an amount must be exact (a Fraction), not 0.5
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
    """An account's name, checked: one line of 1 to 40 characters, no ``,``, in Unicode's
    compatibility form (:func:`cardroom.app.names.clean_name`: a full-width "ＡＮＮ" is
    "ANN").

    >>> account_name("  Ann "), account_name("ＡＮＮ")
    ('Ann', 'ANN')
    """
    if not isinstance(name, str):
        raise WalletError(f"{name!r} cannot name an account")
    clean = clean_name(name)
    if not clean:
        raise WalletError("an account needs a name")
    if len(clean) > NAME_LENGTH:
        raise WalletError(
            f"a name has at most {NAME_LENGTH} characters, and this one has {len(clean)}: "
            "choose a shorter one"
        )
    if "," in clean or not clean.isprintable():
        raise WalletError(f"{name[:NAME_LENGTH]!r} cannot name an account: no commas, one line")
    return clean


def name_key(name: str) -> str:
    """How names are matched, at registration and sign-in alike: NFKC, without regard
    to case (:func:`cardroom.app.names.name_key`)."""
    return _name_key(name)


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


# -- the statements of a round's path, built once (their compiled form is cached) ------------
_LOCK = Fast(
    select(accounts.c.id, accounts.c.name, accounts.c.balance)
    .where(accounts.c.id == bindparam("account"))
    .with_for_update(key_share=True)
)
_KEY_ROUND = Fast(
    select(rounds.c.id).where(
        rounds.c.account_id == bindparam("account"), rounds.c.idempotency_key == bindparam("key")
    )
)
_SET_BALANCE = Fast(
    update(accounts)
    .where(accounts.c.id == bindparam("account"), accounts.c.balance == bindparam("old"))
    .values(balance=bindparam("new"))
    .returning(accounts.c.balance)
)
_ADD_TO_BALANCE = Fast(
    update(accounts)
    .where(accounts.c.id == bindparam("account"), accounts.c.balance >= bindparam("need"))
    .values(balance=accounts.c.balance + bindparam("net"))
    .returning(accounts.c.balance)
)
_LEDGER_COLUMNS = (
    "account_id",
    "created_at",
    "kind",
    "amount",
    "balance_after",
    "round_id",
    "seat_id",
    "table_ref",
    "wager",
    "memo",
)


@functools.lru_cache(maxsize=16)
def _add_rows(count: int) -> Fast:
    """One INSERT of ``count`` ledger rows (a round's stakes and payouts in one
    statement: several statements cost the database twice as much)."""
    rows: list[dict[str, Any]] = [
        {c: bindparam(f"p_{c}_{n}") for c in _LEDGER_COLUMNS} for n in range(count)
    ]
    return Fast(ledger.insert().values(rows))


_ROUND_COLUMNS = (
    "account_id",
    "game",
    "table_ref",
    "status",
    "created_at",
    "updated_at",
    "state",
    "record",
    "idempotency_key",
)
_NEW_ROUND = Fast(
    rounds.insert().values({c: bindparam(f"p_{c}") for c in _ROUND_COLUMNS}).returning(rounds.c.id)
)


@functools.lru_cache(maxsize=16)
def _new_round_with_rows(count: int) -> Fast:
    """PostgreSQL: a new round and its ``count`` ledger rows in one statement (the
    round's INSERT in a ``WITH``, whose id each row takes), the rows in order; returns
    the round's id (once for each row).  One round trip fewer than :data:`_NEW_ROUND`
    and :func:`_add_rows`, with the same rows."""
    new = (
        rounds.insert()
        .values({c: bindparam(f"p_{c}") for c in _ROUND_COLUMNS})
        .returning(rounds.c.id)
        .cte("new_round")
    )
    columns = [c for c in _LEDGER_COLUMNS if c != "round_id"]
    rows = [
        select(*[bindparam(f"p_{c}_{n}", type_=ledger.c[c].type) for c in columns], new.c.id)
        for n in range(count)
    ]
    source = rows[0] if count == 1 else union_all(*rows)
    return Fast(
        ledger.insert()
        .add_cte(new)
        .from_select([*columns, "round_id"], source)
        .returning(ledger.c.round_id)
    )


# -- the wallet ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Movement:
    """One ledger row to write: its kind, signed cents and links (round, seat, wager)."""

    kind: str
    cents: int
    memo: str
    round_id: int | None = None
    seat_id: int | None = None
    table_ref: str | None = None
    wager: str | None = None


class Wallet:
    """The accounts, rounds and seats of one :class:`~cardroom.storage.Database`.

    Each public method is one transaction (tried again when the database gives up on it
    for a reason that passes, see :meth:`Database.run`), or a part of the caller's when
    called inside one: a table that opens, deals and settles a round inside one
    ``db.run`` writes it all or nothing.
    """

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

        skeleton = name_skeleton(clean)

        def work(conn: Connection) -> Account:
            self._check_name_free(conn, clean, skeleton)
            account_id = int(
                conn.execute(
                    accounts.insert()
                    .values(
                        name=clean,
                        name_key=name_key(clean),
                        name_skeleton=skeleton,
                        password_hash=password_hash,
                        balance=0,
                        created_at=_now(),
                    )
                    .returning(accounts.c.id)
                ).scalar_one()
            )
            balance = 0
            if cents:
                self._lock_account(conn, account_id)
                balance = self._move(
                    conn, account_id, 0, [Movement("deposit", cents, "opening deposit")]
                )
            return Account(account_id, clean, from_cents(balance))

        try:
            return self.db.run(work)
        except StorageConflict:
            # another process registered it (or one alike) a moment ago: say which
            with self.db.read() as conn:
                self._check_name_free(conn, clean, skeleton)
            raise NameTaken(f"there is an account called {clean!r} already") from None

    @staticmethod
    def _check_name_free(conn: Connection, clean: str, skeleton: str) -> None:
        """:class:`NameTaken` if an account has this name's key or skeleton."""
        found = conn.execute(
            select(accounts.c.name, accounts.c.name_key)
            .where(
                (accounts.c.name_key == name_key(clean)) | (accounts.c.name_skeleton == skeleton)
            )
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

    def check_name_free(self, name: str) -> None:
        """:class:`NameTaken` if an account has this name, or one that looks like it (a
        look before spending a password's hash on it; opening the account checks again)."""
        clean = account_name(name)
        with self.db.read() as conn:
            self._check_name_free(conn, clean, name_skeleton(clean))

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

    def lock(self, account_id: int, idempotency_key: str | None = None) -> LockedAccount:
        """Inside a caller's transaction (``db.run``): lock the account's row for the rest
        of it, as the first thing the transaction does (the wallet's one lock order), and
        read its balance and the round ``idempotency_key`` opened, if any."""
        return self.db.run(lambda conn: self._lock_account(conn, account_id, idempotency_key))

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

    # -- deposits and withdrawals --------------------------------------------------------------
    def deposit(self, account_id: int, amount: Fraction, memo: str = "deposit") -> Fraction:
        """Put money into the account; its new balance."""
        cents = _positive(amount, "a deposit")
        return self._one(account_id, Movement("deposit", cents, memo))

    def withdraw(self, account_id: int, amount: Fraction, memo: str = "withdrawal") -> Fraction:
        """Take money out (:class:`InsufficientFunds` beyond the balance); the new balance."""
        cents = _positive(amount, "a withdrawal")
        return self._one(account_id, Movement("withdrawal", -cents, memo))

    def set_balance(self, account_id: int, amount: Fraction, memo: str = "set") -> Fraction:
        """Put the balance at ``amount`` by a deposit or withdrawal of the difference
        (``cardroom bankroll --set`` and ``--reset``); the new balance."""
        target = _not_negative(amount, "a balance")

        def work(conn: Connection) -> Fraction:
            current = int(self._lock_account(conn, account_id).balance)
            if target != current:
                kind = "deposit" if target > current else "withdrawal"
                self._move(conn, account_id, current, [Movement(kind, target - current, memo)])
            return from_cents(target)

        return self.db.run(work)

    def top_up_due(
        self, account_id: int, below: Fraction, now: datetime | None = None
    ) -> tuple[bool, datetime | None]:
        """May the account be topped up now (:meth:`top_up`), and if not for want of a
        day, when it may be: its balance and stacks at the tables together are below
        ``below``, and its last top-up was a day ago or more."""
        now = now or _now()
        with self.db.read() as conn:
            row = conn.execute(
                select(accounts.c.balance, accounts.c.topped_up_at).where(
                    accounts.c.id == account_id
                )
            ).first()
            if row is None:
                raise WalletError(f"there is no account {account_id}")
            held = int(row.balance) + self._stacks_held(conn, account_id)
        if held >= to_cents(below, "the top-up's threshold"):
            return False, None
        last = row.topped_up_at
        if last is not None and now - last < TOP_UP_EVERY:
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
        target = _positive(to, "the top-up's balance")
        threshold = to_cents(below, "the top-up's threshold")
        now = now or _now()

        def work(conn: Connection) -> Fraction:
            balance = int(self._lock_account(conn, account_id).balance)
            last = conn.execute(
                select(accounts.c.topped_up_at).where(accounts.c.id == account_id)
            ).scalar_one()
            held = balance + self._stacks_held(conn, account_id)
            if held >= threshold:
                at_tables = " with what you have at the tables" if held > balance else ""
                raise TopUpRefused(
                    f"a top-up is for a balance below every table's minimum "
                    f"({_money(threshold)}): yours is {_money(held)}{at_tables}"
                )
            if last is not None and now - last < TOP_UP_EVERY:
                again = (last + TOP_UP_EVERY).strftime("%Y-%m-%d %H:%M")
                raise TopUpRefused(f"one top-up a day: the next one may be made from {again} UTC")
            conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(topped_up_at=now)
            )
            memo = f"top-up of play money to {_money(target)}"
            moves = [Movement("top_up", target - balance, memo)] if target > balance else []
            return from_cents(self._move(conn, account_id, balance, moves) if moves else balance)

        return self.db.run(work)

    @staticmethod
    def _stacks_held(conn: Connection, account_id: int) -> int:
        """The cents the account has at chemin de fer tables (its open seats)."""
        held = conn.execute(
            select(func.coalesce(func.sum(seats.c.stack), 0)).where(
                seats.c.account_id == account_id, seats.c.status == "open"
            )
        ).scalar_one()
        return int(held)

    def _one(self, account_id: int, movement: Movement) -> Fraction:
        def work(conn: Connection) -> Fraction:
            balance = int(self._lock_account(conn, account_id).balance)
            return from_cents(self._move(conn, account_id, balance, [movement]))

        return self.db.run(work)

    # -- rounds of the house games -------------------------------------------------------------
    def open_round(
        self,
        account_id: int,
        game: str,
        stakes: Mapping[str, Fraction],
        state: Mapping[str, Any],
        table_ref: str | None = None,
        idempotency_key: str | None = None,
        *,
        checked: bool = False,
    ) -> OpenedRound:
        """Take the stakes and open the round ``in_progress``, in one transaction.

        :class:`InsufficientFunds` if the balance does not cover them all (nothing is
        written).  With an ``idempotency_key`` this account has used before: the round
        opened then, ``existing=True``, and no money taken (looked up before anything is
        checked).  ``checked``: the caller's transaction has looked the key up already
        and holds its own lock (a house table's row, :mod:`cardroom.app.tables.stored`); the
        account's row is then locked by the update of the balance, which checks it.
        """
        return self._begin_round(
            account_id, game, stakes, state, None, table_ref, idempotency_key, None, checked
        )

    def record_round(
        self,
        account_id: int,
        game: str,
        stakes: Mapping[str, Fraction],
        payouts: Mapping[str, Fraction],
        record: Mapping[str, Any],
        table_ref: str | None = None,
        idempotency_key: str | None = None,
        *,
        checked: bool = False,
    ) -> OpenedRound:
        """A round dealt to its end in the caller's hands: take the stakes, pay the
        ``payouts`` (as :meth:`settle_round`) and keep the round ``finished`` with its
        ``record``, all in one transaction and a few statements.  Refuses like
        :meth:`open_round` (and takes ``checked`` as it does); an idempotency key used
        before gives that round back."""
        return self._begin_round(
            account_id, game, stakes, None, record, table_ref, idempotency_key, payouts, checked
        )

    def _begin_round(
        self,
        account_id: int,
        game: str,
        stakes: Mapping[str, Fraction],
        state: Mapping[str, Any] | None,
        record: Mapping[str, Any] | None,
        table_ref: str | None,
        idempotency_key: str | None,
        payouts: Mapping[str, Fraction] | None,
        checked: bool = False,
    ) -> OpenedRound:
        amounts = {str(w): _positive(s, f"the stake on {w}") for w, s in dict(stakes).items()}
        paid = (
            None
            if payouts is None
            else {str(w): _not_negative(p, f"the payout of {w}") for w, p in dict(payouts).items()}
        )
        if paid is not None:
            unknown = sorted(set(paid) - set(amounts))
            if unknown:
                raise WalletError(f"the round has no stake on {', '.join(unknown)}")
        state_text = None if state is None else _dump(state, "round's state")
        record_text = None if record is None else _dump(record, "round's record")

        def work(conn: Connection) -> OpenedRound:
            balance: int | None = None
            if not checked:
                row = self._lock_account(conn, account_id, key=idempotency_key)
                if idempotency_key is not None and row.key_round is not None:
                    [found] = self._rounds(conn, rounds.c.id == row.key_round)
                    if found.game != game:
                        raise WalletError(
                            f"the key {idempotency_key!r} opened a round of {found.game}, "
                            f"not of {game}"
                        )
                    return OpenedRound(found, True, from_cents(row.balance))
                total = sum(amounts.values())
                if total > row.balance:
                    raise InsufficientFunds(
                        f"{row.name} has {_money(row.balance)}: not enough for stakes of "
                        f"{_money(total)}"
                    )
                balance = row.balance
            now = _now()
            status = "in_progress" if paid is None else "finished"
            new_round = {
                "p_account_id": account_id,
                "p_game": game,
                "p_table_ref": table_ref,
                "p_status": status,
                "p_created_at": now,
                "p_updated_at": now,
                "p_state": state_text,
                "p_record": record_text,
                "p_idempotency_key": idempotency_key,
            }
            links: dict[str, Any] = {"round_id": None, "table_ref": table_ref}
            moves = [
                Movement("stake", -cents, f"stake on {wager}", wager=wager, **links)
                for wager, cents in amounts.items()
            ]
            if paid is not None:
                moves += _payouts(amounts, paid, links)
            if self.db.is_sqlite:
                [(round_id,)] = self.db.fast(conn, _NEW_ROUND, new_round)
                round_id = int(round_id)
                moves = [dataclasses.replace(m, round_id=round_id) for m in moves]
                balance = self._move(conn, account_id, balance, moves)
            else:
                # the balance first (locking the account's row, and refusing stakes it
                # does not cover), then the round and its rows in one statement
                start = self._take(conn, account_id, balance, moves)
                values, balance = _row_values(account_id, start, moves, now)
                [(round_id,), *_] = self.db.fast(
                    conn, _new_round_with_rows(len(moves)), {**new_round, **values}
                )
                round_id = int(round_id)
            stored = StoredRound(
                id=round_id,
                account_id=account_id,
                game=game,
                table_ref=table_ref,
                status=status,
                created_at=now,
                updated_at=now,
                state=None if state is None else dict(state),
                record=None if record is None else dict(record),
                stakes={w: from_cents(c) for w, c in amounts.items()},
                paid={w: from_cents(c) for w, c in (paid or {}).items() if c},
                idempotency_key=idempotency_key,
            )
            return OpenedRound(stored, False, from_cents(balance))

        try:
            return self.db.run(work)
        except StorageConflict:
            if idempotency_key is None or self.db.in_transaction:
                raise
            # another transaction took this key at the same moment: that round is the one
            with self.db.read() as conn:
                found = self._round_by_key(conn, account_id, game, idempotency_key)
                if found is None:
                    raise
                return OpenedRound(found, True, self._balance(conn, account_id))

    def round_by_key(self, account_id: int, game: str, key: str) -> StoredRound | None:
        """The round the account opened with this idempotency key, if any."""
        with self.db.read() as conn:
            return self._round_by_key(conn, account_id, game, key)

    def save_state(self, round_id: int, state: Mapping[str, Any]) -> None:
        """Keep the round's state (its decisions so far); only while it is in progress."""
        text = _dump(state, "round's state")

        def work(conn: Connection) -> None:
            changed = conn.execute(
                update(rounds)
                .where(rounds.c.id == round_id, rounds.c.status == "in_progress")
                .values(state=text, updated_at=_now())
            ).rowcount
            if not changed:
                self._lock_round(conn, round_id, "take a new state")  # says why

        self.db.run(work)

    def settle_round(
        self, round_id: int, payouts: Mapping[str, Fraction], record: Mapping[str, Any]
    ) -> Fraction:
        """Pay the round's wagers back and finish it with its history ``record``.

        ``payouts``: what each wager pays back in total (stake and winnings; the stake
        on a push; 0, or left out, when it lost).  One transaction; refuses a round that
        is not in progress, and books whose last row does not continue to the balance
        (:class:`AuditError`).  Returns the account's new balance.
        """
        paid = {str(w): _not_negative(p, f"the payout of {w}") for w, p in dict(payouts).items()}
        record_text = _dump(record, "round's record")

        def work(conn: Connection) -> Fraction:
            account, row = self._lock_round_of(conn, round_id, "be settled")
            stakes = self._stakes(conn, round_id)
            unknown = sorted(set(paid) - set(stakes))
            if unknown:
                raise WalletError(f"round {round_id} has no stake on {', '.join(unknown)}")
            links = {"round_id": round_id, "table_ref": row.table_ref}
            balance = self._move(
                conn, row.account_id, int(account.balance), _payouts(stakes, paid, links)
            )
            self._close_round(conn, round_id, "finished", record_text)
            return from_cents(balance)

        return self.db.run(work)

    def void_round(self, round_id: int, record: Mapping[str, Any]) -> Fraction:
        """Call the round off: every stake returned (``return`` rows), status ``void``;
        returns the new balance."""
        record_text = _dump(record, "round's record")

        def work(conn: Connection) -> Fraction:
            account, row = self._lock_round_of(conn, round_id, "be voided")
            moves = [
                Movement(
                    "return",
                    stake,
                    f"stake on {wager} back (round void)",
                    round_id=round_id,
                    table_ref=row.table_ref,
                    wager=wager,
                )
                for wager, stake in self._stakes(conn, round_id).items()
            ]
            balance = self._move(conn, row.account_id, int(account.balance), moves)
            self._close_round(conn, round_id, "void", record_text)
            return from_cents(balance)

        return self.db.run(work)

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
        before: int | None = None,
        table_ref: str | None = None,
    ) -> list[StoredRound]:
        """The account's last ``limit`` rounds of those ``statuses`` (and ``game``, and
        at ``table_ref``), newest first; with ``before``, those older than that round id
        (the next page)."""
        where = [rounds.c.account_id == account_id, rounds.c.status.in_(list(statuses))]
        if game is not None:
            where.append(rounds.c.game == game)
        if table_ref is not None:
            where.append(rounds.c.table_ref == table_ref)
        if before is not None:
            where.append(rounds.c.id < before)
        with self.db.read() as conn:
            return self._rounds(conn, *where, limit=max(0, limit))

    def rounds_page(
        self,
        account_id: int,
        limit: int = 10,
        game: str | None = None,
        statuses: Iterable[str] = ("finished", "void"),
        before: int | None = None,
        after: int | None = None,
    ) -> RoundsPage:
        """A page of :meth:`rounds`: the ``limit`` newest (older than ``before``, or the
        ``limit`` oldest newer than ``after``; with both, the newest between them), newest
        first.  Each query walks the index on (account, game, id) or (account, id) from
        the cursor and stops at the page's end, so a page costs the same however long the
        history."""
        where = [rounds.c.account_id == account_id, rounds.c.status.in_(list(statuses))]
        if game is not None:
            where.append(rounds.c.game == game)
        limit = max(1, limit)
        with self.db.read() as conn:
            if after is not None and before is None:
                found = self._rounds(
                    conn, *where, rounds.c.id > after, limit=limit + 1, newest_first=False
                )
                more_newer = len(found) > limit
                page = list(reversed(found[:limit]))
                more_older = bool(page) and self._exists(
                    conn, rounds, [*where, rounds.c.id < page[-1].id]
                )
            else:
                upper = [] if before is None else [rounds.c.id < before]
                lower = [] if after is None else [rounds.c.id > after]
                found = self._rounds(conn, *where, *upper, *lower, limit=limit + 1)
                more_older = len(found) > limit
                page = found[:limit]
                if after is not None and page and not more_older:  # older than the window
                    more_older = self._exists(conn, rounds, [*where, rounds.c.id < page[-1].id])
                more_newer = bool(page) and self._exists(
                    conn, rounds, [*where, rounds.c.id > page[0].id]
                )
        return RoundsPage(
            page,
            page[-1].id if page and more_older else None,
            page[0].id if page and more_newer else None,
        )

    @staticmethod
    def _exists(conn: Connection, table: Any, where: list[ColumnElement[bool]]) -> bool:
        return conn.execute(select(table.c.id).where(*where).limit(1)).first() is not None

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

        def work(conn: Connection) -> int:
            balance = int(self._lock_account(conn, account_id).balance)
            if cents > balance:
                self._refuse(conn, account_id, cents, "buy_in")
            now = _now()
            seat_id = int(
                conn.execute(
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
            )
            movement = Movement(
                "buy_in", -cents, f"buy-in at {table_ref}", seat_id=seat_id, table_ref=table_ref
            )
            self._move(conn, account_id, balance, [movement])
            return seat_id

        return self.db.run(work)

    def update_stack(self, seat_id: int, stack: Fraction) -> None:
        """The seat's stack after a coup (only while the seat is open)."""
        cents = _not_negative(stack, "a stack")

        def work(conn: Connection) -> None:
            changed = conn.execute(
                update(seats)
                .where(seats.c.id == seat_id, seats.c.status == "open")
                .values(stack=cents, updated_at=_now())
            ).rowcount
            if not changed:
                self._lock_seat(conn, seat_id)  # raises: no such seat, or closed

        self.db.run(work)

    def cash_out(self, seat_id: int) -> Fraction:
        """Bring the seat's stack back to the account (a ``cash_out`` row) and close the
        seat; the account's new balance."""

        def work(conn: Connection) -> Fraction:
            account, seat = self._lock_seat_of(conn, seat_id)
            movement = Movement(
                "cash_out",
                int(seat.stack),
                f"cash-out from {seat.table_ref}",
                seat_id=seat_id,
                table_ref=seat.table_ref,
            )
            balance = self._move(conn, seat.account_id, int(account.balance), [movement])
            conn.execute(
                update(seats)
                .where(seats.c.id == seat_id)
                .values(status="closed", updated_at=_now())
            )
            return from_cents(balance)

        return self.db.run(work)

    def open_coup(
        self, account_id: int, game: str, state: Mapping[str, Any], table_ref: str
    ) -> int:
        """A coup a person's seat takes part in, opened ``in_progress`` with its ``state``
        (no money moves: the stakes are the seat's, at the table); its round id."""
        state_text = _dump(state, "coup's state")

        def work(conn: Connection) -> int:
            self._lock_account(conn, account_id)
            now = _now()
            return int(
                conn.execute(
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
            )

        return self.db.run(work)

    def finish_coup(
        self, round_id: int, record: Mapping[str, Any], seat_id: int, stack: Fraction
    ) -> None:
        """Finish a coup with its ``record`` and put the seat's stack at what the coup left
        it, in one transaction."""
        cents = _not_negative(stack, "a stack")
        record_text = _dump(record, "coup's record")

        def work(conn: Connection) -> None:
            _, row = self._lock_round_of(conn, round_id, "be finished")
            seat = self._lock_seat(conn, seat_id)
            if seat.account_id != row.account_id:
                raise WalletError(f"seat {seat_id} is not the coup's person's")
            conn.execute(
                update(seats).where(seats.c.id == seat_id).values(stack=cents, updated_at=_now())
            )
            self._close_round(conn, round_id, "finished", record_text)

        self.db.run(work)

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
                more_older = bool(page) and self._exists(
                    conn, ledger, [mine, ledger.c.id < page[-1].id]
                )
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
                    more_older = self._exists(conn, ledger, [mine, ledger.c.id < page[-1].id])
                more_newer = bool(page) and self._exists(
                    conn, ledger, [mine, ledger.c.id > page[0].id]
                )
        if page:
            balance_before = page[-1].balance_after - page[-1].amount
        else:
            balance_before = self.balance(account_id)
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
            self._audit(conn, [accounts.c.id == account_id])

    def audit_all(self) -> int:
        """Audit every account, in a few queries over the whole ledger; how many accounts
        there are.  :class:`AuditError` names the first account (and row) that is wrong."""
        with self.db.read() as conn:
            return self._audit(conn, [])

    # -- inside a transaction ------------------------------------------------------------------
    @staticmethod
    def _account_id(conn: Connection, name: str) -> int | None:
        found = conn.execute(
            select(accounts.c.id).where(accounts.c.name_key == name_key(name))
        ).scalar_one_or_none()
        return None if found is None else int(found)

    @staticmethod
    def _lock_account(conn: Connection, account_id: int, key: str | None = None) -> LockedAccount:
        """The account's row, locked for the rest of the transaction; a WalletError if
        there is none.

        The wallet's lock order: a transaction that changes an account's money, rounds
        or seats locks the account's row before any round or seat of it (``FOR NO KEY
        UPDATE`` on PostgreSQL, which the foreign keys' share locks of other
        transactions do not block; SQLite's write transaction holds the whole database
        already), so two transactions of one account wait for each other there and
        cannot deadlock.  (A transaction that deals at a house table locks that table's
        row before the account's: see :mod:`cardroom.app.tables.stored`.)  With ``key``, a
        second statement, read once the lock is held, finds the round that idempotency
        key opened (``key_round``): on PostgreSQL a statement that waited for a lock
        still sees the other rows as they were when it began.
        """
        rows = conn.execute(_LOCK.statement, {"account": account_id}).all()
        if not rows:
            raise WalletError(f"there is no account {account_id}")
        [(_, name, balance)] = rows
        found = None if key is None else Wallet.key_round(conn, account_id, key)
        return LockedAccount(account_id, name, int(balance), found)

    @staticmethod
    def key_round(conn: Connection, account_id: int, key: str) -> int | None:
        """The id of the round the account opened with idempotency ``key``, if any."""
        found = conn.execute(_KEY_ROUND.statement, {"account": account_id, "key": key}).scalar()
        return None if found is None else int(found)

    def _balance(self, conn: Connection, account_id: int) -> Fraction:
        row = conn.execute(select(accounts.c.balance).where(accounts.c.id == account_id)).first()
        if row is None:
            raise WalletError(f"there is no account {account_id}")
        return from_cents(row.balance)

    def _move(
        self, conn: Connection, account_id: int, balance: int | None, moves: Sequence[Movement]
    ) -> int:
        """Write ``moves`` (in order) to the account: one update of the balance and one
        insert of all the rows, each row with the running balance it leaves; the new
        balance.  :class:`InsufficientFunds` if a debit would take the balance below 0
        at any row (nothing is written).

        ``balance``: the balance of the account's row as this transaction locked it
        (:meth:`_lock_account`), or None when the row is not locked yet: then the update
        itself locks it and checks, in one statement, that the balance covers the
        debits, and the running balances follow from the balance it returns.  Either way
        each row's running balance is written under the lock of the update that made
        it, so the ledger continues the balance by construction.
        """
        if not moves:
            return 0 if balance is None else balance
        start = self._take(conn, account_id, balance, moves)
        values, running = _row_values(account_id, start, moves, _now())
        self.db.fast(conn, _add_rows(len(moves)), values)
        return running

    def _take(
        self, conn: Connection, account_id: int, balance: int | None, moves: Sequence[Movement]
    ) -> int:
        """The update of the balance of :meth:`_move` (``moves`` not empty): the balance
        before the moves.  :class:`InsufficientFunds` if a debit would take the balance
        below 0 at any row."""
        net = 0
        lowest = 0
        for move in moves:
            net += move.cents
            lowest = min(lowest, net)
        if balance is None:
            done = self.db.fast(
                conn, _ADD_TO_BALANCE, {"account": account_id, "need": -lowest, "net": net}
            )
            if not done:
                debit = next(m for m in moves if m.cents < 0)
                self._refuse(conn, account_id, -lowest, debit.kind)
            start = int(done[0][0]) - net
        else:
            if balance + lowest < 0:
                debit = next(m for m in moves if m.cents < 0)
                self._refuse(conn, account_id, -lowest, debit.kind)
            # the condition guards the balance against a caller that did not lock the row
            done = self.db.fast(
                conn, _SET_BALANCE, {"account": account_id, "old": balance, "new": balance + net}
            )
            if not done:
                raise WalletError(f"the balance of account {account_id} moved under the wallet")
            start = balance
        return start

    def _refuse(self, conn: Connection, account_id: int, cents: int, kind: str) -> NoReturn:
        row = conn.execute(
            select(accounts.c.name, accounts.c.balance).where(accounts.c.id == account_id)
        ).first()
        if row is None:
            raise WalletError(f"there is no account {account_id}")
        what = {"stake": "stakes", "buy_in": "a buy-in"}.get(kind, "a withdrawal")
        raise InsufficientFunds(
            f"{row.name} has {_money(row.balance)}: not enough for {what} of {_money(cents)}"
        )

    def _audit(self, conn: Connection, where: list[ColumnElement[bool]]) -> int:
        """The audit of :meth:`audit` and :meth:`audit_all`; how many accounts."""
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
                    f"balance is {_money(account.balance)} but its ledger adds up to "
                    f"{_money(int(account.total))}"
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
                f"ledger row {wrong.id} has {_money(wrong.balance_after)} after "
                f"{_money(wrong.amount)}, but the row before it left {_money(wrong.before)}"
            )
        return len(checked)

    def _lock_round_of(self, conn: Connection, round_id: int, refused: str) -> tuple[Any, Any]:
        """The round's account row and the round's row, locked in the wallet's order
        (the account first); a WalletError unless the round is in progress."""
        owner = conn.execute(
            select(rounds.c.account_id).where(rounds.c.id == round_id)
        ).scalar_one_or_none()
        if owner is None:
            raise WalletError(f"there is no round {round_id}")
        account = self._lock_account(conn, int(owner))
        return account, self._lock_round(conn, round_id, refused)

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

    def _lock_seat_of(self, conn: Connection, seat_id: int) -> tuple[Any, Any]:
        """The seat's account row and the seat's row, locked in the wallet's order."""
        owner = conn.execute(
            select(seats.c.account_id).where(seats.c.id == seat_id)
        ).scalar_one_or_none()
        if owner is None:
            raise WalletError(f"there is no seat {seat_id}")
        account = self._lock_account(conn, int(owner))
        return account, self._lock_seat(conn, seat_id)

    @staticmethod
    def _lock_seat(conn: Connection, seat_id: int) -> Any:
        """The seat's row, read ``FOR UPDATE``; a WalletError unless it is open."""
        row = conn.execute(select(seats).where(seats.c.id == seat_id).with_for_update()).first()
        if row is None:
            raise WalletError(f"there is no seat {seat_id}")
        if row.status != "open":
            raise WalletError(f"seat {seat_id} is closed: its stack was cashed out")
        return row


@dataclass(frozen=True)
class LockedAccount:
    """An account row as :meth:`Wallet.lock` locked it: its balance in cents, and the
    round an idempotency key opened (if one was asked about and found)."""

    id: int
    name: str
    balance: int
    key_round: int | None = None


def _row_values(
    account_id: int, start: int, moves: Sequence[Movement], now: datetime
) -> tuple[dict[str, Any], int]:
    """The parameters of the ledger rows of ``moves`` (as :func:`_add_rows` names them),
    each with the running balance it leaves from ``start``; and the balance at the end."""
    running = start
    values: dict[str, Any] = {}
    for n, move in enumerate(moves):
        running += move.cents
        values.update(
            {
                f"p_account_id_{n}": account_id,
                f"p_created_at_{n}": now,
                f"p_kind_{n}": move.kind,
                f"p_amount_{n}": move.cents,
                f"p_balance_after_{n}": running,
                f"p_round_id_{n}": move.round_id,
                f"p_seat_id_{n}": move.seat_id,
                f"p_table_ref_{n}": move.table_ref,
                f"p_wager_{n}": move.wager,
                f"p_memo_{n}": move.memo,
            }
        )
    return values, running


def _payouts(
    stakes: Mapping[str, int], paid: Mapping[str, int], links: Mapping[str, Any]
) -> list[Movement]:
    """The ledger rows that pay a round's wagers back (a ``win`` above the stake, a
    ``return`` of the stake or part of it, nothing for a wager that paid nothing)."""
    moves = []
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
        moves.append(Movement(kind, cents, memo, wager=wager, **links))
    return moves


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
