"""Where money moves: every change of a balance, and the ledger row of each, in the
caller's transaction.  Nothing else of the wallet changes a balance.

A debit is one conditional statement inside the write transaction::

    UPDATE accounts SET balance = balance - :x
    WHERE id = :id AND balance >= :x RETURNING balance

and no row back means the balance does not cover it.  The check and the change are one
atomic statement on both databases, so the balance can never go below zero (and
``CHECK (balance >= 0)`` stands behind it): on SQLite the write transaction holds the
database's write lock from its ``BEGIN IMMEDIATE``; on PostgreSQL the ``UPDATE`` locks
the account's row and re-checks its condition on the newest version of the row if
another transaction changed it first.  The ``RETURNING`` balance is the
``balance_after`` of the ledger row, so the running balance is right without reading
the balance first.  (Reading the row ``FOR UPDATE`` and checking in Python would need a
second round trip and a lock held across Python code.)  Every writer locks the
account's row (:func:`lock_account`) before it adds a ledger row, so the ledger's ids
follow each account's balance.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any, NoReturn

from sqlalchemy import Connection, bindparam, func, literal_column, select, union_all, update

from cardroom.app.wallet.limits import RETURNED, STAKED, count_play, refuse_session
from cardroom.app.wallet.values import (
    AccountSuspended,
    InsufficientFunds,
    LockedAccount,
    WalletError,
    from_cents,
    money_text,
    now,
)
from cardroom.storage.db import Database, Fast
from cardroom.storage.schema import accounts, ledger, protections, rounds

__all__ = [
    "NEW_ROUND",
    "Movement",
    "balance_of",
    "key_round",
    "lock_account",
    "move",
    "new_round_with_rows",
    "payouts",
    "row_values",
    "take",
    "take_and_record",
]


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
#: A suspended account (``suspended_at`` set), or one whose person has taken a break or
#: excluded themselves (``blocked_until`` to come), whose session time limit has passed
#: (``session_ends``) or whose reality check is due (``reality_due``), takes no stake,
#: buy-in or top-up (``play`` 1); what pays it back, cashes it out or adjusts it
#: (``play`` 0) still moves.
_CLOCK = func.current_timestamp()
_MAY_MOVE = (
    accounts.c.suspended_at.is_(None)
    & (accounts.c.blocked_until.is_(None) | (accounts.c.blocked_until <= _CLOCK))
    & (accounts.c.session_ends.is_(None) | (accounts.c.session_ends > _CLOCK))
    & (accounts.c.reality_due.is_(None) | (accounts.c.reality_due > _CLOCK))
) | (bindparam("play") == literal_column("0"))
#: The kinds of row a suspended account cannot have.
PLAY = ("stake", "buy_in", "top_up")
_SET_BALANCE = Fast(
    update(accounts)
    .where(accounts.c.id == bindparam("account"), accounts.c.balance == bindparam("old"), _MAY_MOVE)
    .values(balance=bindparam("new"))
    .returning(accounts.c.balance, accounts.c.limited)
)
_ADD_TO_BALANCE = Fast(
    update(accounts)
    .where(
        accounts.c.id == bindparam("account"), accounts.c.balance >= bindparam("need"), _MAY_MOVE
    )
    .values(balance=accounts.c.balance + bindparam("net"))
    .returning(accounts.c.balance, accounts.c.limited)
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
#: a new round (its columns as ``p_<column>``), returning its id
NEW_ROUND = Fast(
    rounds.insert().values({c: bindparam(f"p_{c}") for c in _ROUND_COLUMNS}).returning(rounds.c.id)
)


@functools.lru_cache(maxsize=16)
def new_round_with_rows(count: int) -> Fast:
    """PostgreSQL: a new round and its ``count`` ledger rows in one statement (the
    round's INSERT in a ``WITH``, whose id each row takes), the rows in order; returns
    the round's id (once for each row).  One round trip fewer than :data:`NEW_ROUND`
    and a separate insert of the rows, with the same rows."""
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


@functools.lru_cache(maxsize=16)
def take_with_round(count: int) -> Fast:
    """PostgreSQL: :data:`_ADD_TO_BALANCE`, the new round and its ``count`` ledger rows in
    one statement (the update and the round's INSERT in a ``WITH``): the balance moves by
    ``net`` only if it holds ``need`` and the account may play (as :func:`take`); the round
    and each row are written only from the update's row, so a balance that does not cover
    the stakes writes nothing at all.  Each row's ``balance_after`` is the new balance
    plus its ``p_shift_<n>`` (its running total less ``net``).  Returns, for each row, the
    round's id, the row's ``balance_after`` and whether the account has limits (once for
    each row); no row back: refused.  One round trip fewer than :func:`take` then
    :func:`new_round_with_rows`, with the same rows."""
    taken = (
        update(accounts)
        .where(
            accounts.c.id == bindparam("account"),
            accounts.c.balance >= bindparam("need"),
            _MAY_MOVE,
        )
        .values(balance=accounts.c.balance + bindparam("net"))
        .returning(accounts.c.balance, accounts.c.limited)
        .cte("taken")
    )
    new = (
        rounds.insert()
        .from_select(
            list(_ROUND_COLUMNS),
            select(
                *[bindparam(f"p_{c}", type_=rounds.c[c].type) for c in _ROUND_COLUMNS]
            ).select_from(taken),
        )
        .returning(rounds.c.id)
        .cte("new_round")
    )
    columns = [c for c in _LEDGER_COLUMNS if c not in ("round_id", "balance_after")]
    rows = [
        select(
            *[bindparam(f"p_{c}_{n}", type_=ledger.c[c].type) for c in columns],
            taken.c.balance + bindparam(f"p_shift_{n}", type_=ledger.c.balance_after.type),
            new.c.id,
        ).select_from(taken.join(new, literal_column("true")))
        for n in range(count)
    ]
    source = rows[0] if count == 1 else union_all(*rows)
    return Fast(
        ledger.insert()
        .add_cte(taken)
        .add_cte(new)
        .from_select([*columns, "balance_after", "round_id"], source)
        .returning(
            ledger.c.round_id,
            ledger.c.balance_after,
            select(taken.c.limited).scalar_subquery(),
        )
    )


def take_and_record(
    db: Database,
    conn: Connection,
    account_id: int,
    moves: Sequence[Movement],
    new_round: Mapping[str, Any],
    when: datetime,
) -> tuple[int, int]:
    """PostgreSQL, for a caller holding its own lock (a house table's row): take the
    balance's change of ``moves`` (not empty) as :func:`take` does, with a new round
    (``new_round``: its columns as ``p_<column>``) and the ledger rows of ``moves`` tied
    to it, in one statement (:func:`take_with_round`).  The round's id and the balance
    after the moves; :class:`InsufficientFunds` (or :class:`AccountSuspended`) and
    nothing written if the balance does not cover them or the account may not play."""
    net = lowest = play = 0
    for step in moves:
        net += step.cents
        lowest = min(lowest, net)
        play |= step.kind in PLAY
    values, _ = row_values(account_id, 0, moves, when)
    running = 0
    for n, step in enumerate(moves):
        running += step.cents
        del values[f"p_balance_after_{n}"], values[f"p_round_id_{n}"]
        values[f"p_shift_{n}"] = running - net
    found = db.fast(
        conn,
        take_with_round(len(moves)),
        {"account": account_id, "need": -lowest, "net": net, "play": play, **new_round, **values},
    )
    if not found:
        debit = next(m for m in moves if m.cents < 0)
        refuse(conn, account_id, -lowest, debit.kind)
    round_id, balance, limited = found[-1]
    if limited:
        _count(conn, account_id, moves)
    return int(round_id), int(balance)


# -- inside a transaction ------------------------------------------------------------------------
def lock_account(conn: Connection, account_id: int, key: str | None = None) -> LockedAccount:
    """The account's row, locked for the rest of the transaction; a WalletError if there
    is none.

    The wallet's lock order: a transaction that changes an account's money, rounds or
    seats locks the account's row before any round or seat of it (``FOR NO KEY UPDATE``
    on PostgreSQL, which the foreign keys' share locks of other transactions do not
    block; SQLite's write transaction holds the whole database already), so two
    transactions of one account wait for each other there and cannot deadlock.  (A
    transaction that deals at a house table locks that table's row before the account's:
    see :mod:`cardroom.app.tables.stored`.)  With ``key``, a second statement, read once
    the lock is held, finds the round that idempotency key opened (``key_round``): on
    PostgreSQL a statement that waited for a lock still sees the other rows as they were
    when it began.
    """
    rows = conn.execute(_LOCK.statement, {"account": account_id}).all()
    if not rows:
        raise WalletError(f"there is no account {account_id}")
    [(_, name, balance)] = rows
    found = None if key is None else key_round(conn, account_id, key)
    return LockedAccount(account_id, name, int(balance), found)


def key_round(conn: Connection, account_id: int, key: str) -> int | None:
    """The id of the round the account opened with idempotency ``key``, if any."""
    found = conn.execute(_KEY_ROUND.statement, {"account": account_id, "key": key}).scalar()
    return None if found is None else int(found)


def balance_of(conn: Connection, account_id: int) -> Fraction:
    """The account's balance as this transaction reads it (no lock)."""
    row = conn.execute(select(accounts.c.balance).where(accounts.c.id == account_id)).first()
    if row is None:
        raise WalletError(f"there is no account {account_id}")
    return from_cents(row.balance)


def move(
    db: Database,
    conn: Connection,
    account_id: int,
    balance: int | None,
    moves: Sequence[Movement],
) -> int:
    """Write ``moves`` (in order) to the account: one update of the balance and one insert
    of all the rows, each row with the running balance it leaves; the new balance.
    :class:`InsufficientFunds` if a debit would take the balance below 0 at any row
    (nothing is written).

    ``balance``: the balance of the account's row as this transaction locked it
    (:func:`lock_account`), or None when the row is not locked yet: then the update itself
    locks it and checks, in one statement, that the balance covers the debits, and the
    running balances follow from the balance it returns.  Either way each row's running
    balance is written under the lock of the update that made it, so the ledger
    continues the balance by construction.
    """
    if not moves:
        return 0 if balance is None else balance
    start = take(db, conn, account_id, balance, moves)
    values, running = row_values(account_id, start, moves, now())
    db.fast(conn, _add_rows(len(moves)), values)
    return running


def take(
    db: Database,
    conn: Connection,
    account_id: int,
    balance: int | None,
    moves: Sequence[Movement],
) -> int:
    """The update of the balance of :func:`move` (``moves`` not empty): the balance before
    the moves.  :class:`InsufficientFunds` if a debit would take the balance below 0 at
    any row."""
    net = 0
    lowest = 0
    play = 0
    for step in moves:
        net += step.cents
        lowest = min(lowest, net)
        play |= step.kind in PLAY
    if balance is None:
        done = db.fast(
            conn,
            _ADD_TO_BALANCE,
            {"account": account_id, "need": -lowest, "net": net, "play": play},
        )
        if not done:
            debit = next(m for m in moves if m.cents < 0)
            refuse(conn, account_id, -lowest, debit.kind)
        if done[0][1]:
            _count(conn, account_id, moves)
        return int(done[0][0]) - net
    if balance + lowest < 0:
        debit = next(m for m in moves if m.cents < 0)
        refuse(conn, account_id, -lowest, debit.kind)
    # the condition guards the balance against a caller that did not lock the row
    done = db.fast(
        conn,
        _SET_BALANCE,
        {"account": account_id, "old": balance, "new": balance + net, "play": play},
    )
    if not done:
        if play:
            suspended_or_not(conn, account_id)
        raise WalletError(f"the balance of account {account_id} moved under the wallet")
    if done[0][1]:
        _count(conn, account_id, moves)
    return balance


def _count(conn: Connection, account_id: int, moves: Sequence[Movement]) -> None:
    """An account with limits: count the stakes and what came back against them."""
    staked = -sum(m.cents for m in moves if m.kind in STAKED)
    returned = sum(m.cents for m in moves if m.kind in RETURNED)
    if staked or returned:
        count_play(conn, account_id, staked, returned)


def refuse(conn: Connection, account_id: int, cents: int, kind: str) -> NoReturn:
    """:class:`InsufficientFunds`, saying whose balance and for what
    (:class:`AccountSuspended` for a suspended account's stake, buy-in or top-up)."""
    if kind in PLAY:
        suspended_or_not(conn, account_id)
    row = conn.execute(
        select(accounts.c.name, accounts.c.balance).where(accounts.c.id == account_id)
    ).first()
    if row is None:
        raise WalletError(f"there is no account {account_id}")
    what = {"stake": "stakes", "buy_in": "a buy-in"}.get(kind, "a withdrawal")
    raise InsufficientFunds(
        f"{row.name} has {money_text(row.balance)}: not enough for {what} of {money_text(cents)}"
    )


def suspended_or_not(conn: Connection, account_id: int) -> None:
    """:class:`AccountSuspended` if the account may not play now: suspended by an
    operator, on a break or self-exclusion its person took, past its session time limit
    or due a reality check."""
    row = conn.execute(
        select(accounts.c.suspended_at, accounts.c.blocked_until).where(accounts.c.id == account_id)
    ).first()
    if row is None:
        return
    if row.suspended_at is not None:
        raise AccountSuspended(
            "your account is suspended: you may look at your history and wallet, not play"
        )
    if row.blocked_until is not None and row.blocked_until > now():
        kind = conn.execute(
            select(protections.c.kind)
            .where(protections.c.account_id == account_id)
            .order_by(protections.c.until.desc())
            .limit(1)
        ).scalar()
        what = "excluded yourself" if kind == "self_exclusion" else "taken a break"
        raise AccountSuspended(
            f"you have {what} until {row.blocked_until:%Y-%m-%d %H:%M} UTC: you may look at "
            "your history and wallet, not play"
        )
    refuse_session(conn, account_id)


def row_values(
    account_id: int, start: int, moves: Sequence[Movement], when: datetime
) -> tuple[dict[str, Any], int]:
    """The parameters of the ledger rows of ``moves`` (as the inserts name them), each
    with the running balance it leaves from ``start``; and the balance at the end."""
    running = start
    values: dict[str, Any] = {}
    for n, step in enumerate(moves):
        running += step.cents
        values.update(
            {
                f"p_account_id_{n}": account_id,
                f"p_created_at_{n}": when,
                f"p_kind_{n}": step.kind,
                f"p_amount_{n}": step.cents,
                f"p_balance_after_{n}": running,
                f"p_round_id_{n}": step.round_id,
                f"p_seat_id_{n}": step.seat_id,
                f"p_table_ref_{n}": step.table_ref,
                f"p_wager_{n}": step.wager,
                f"p_memo_{n}": step.memo,
            }
        )
    return values, running


def payouts(
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
