"""The rounds of the house games, and every round's (and chemin de fer coup's) reads.

:meth:`Rounds.open_round` takes the stakes (one ``stake`` row per wager, tied to the
round) and creates the round ``in_progress`` with the table's ``state`` (opaque JSON,
enough to finish an interrupted round), in one transaction: a stake that the balance
does not cover raises :class:`InsufficientFunds` and leaves nothing behind.
:meth:`Rounds.settle_round` pays each wager back (a ``win`` row when it pays more than
its stake, a ``return`` row when it pays the stake or part of it, nothing when it pays
nothing) and finishes the round with its history ``record``; :meth:`Rounds.void_round`
returns every stake.  A client's ``idempotency_key`` makes a repeated request to open a
round return the round it already opened.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, func, select, update
from sqlalchemy.sql.elements import ColumnElement

from cardroom.app.wallet.money import (
    NEW_ROUND,
    Movement,
    balance_of,
    key_round,
    lock_account,
    move,
    new_round_with_rows,
    payouts,
    row_values,
    take,
    take_and_record,
)
from cardroom.app.wallet.values import (
    InsufficientFunds,
    OpenedRound,
    RoundsPage,
    StoredRound,
    WalletError,
    dump,
    from_cents,
    load,
    money_text,
    not_negative,
    now,
    positive,
)
from cardroom.storage.db import Database
from cardroom.storage.errors import StorageConflict
from cardroom.storage.schema import ledger, rounds

__all__ = ["Rounds", "close_round", "exists", "lock_round", "lock_round_of", "read_rounds"]


class Rounds:
    """The rounds of one :class:`~cardroom.storage.Database`: a house game's opened, played
    on, settled or voided, and every round read back (a coup's too)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- a house game's round ---------------------------------------------------------------
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
        return self._begin(
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
        return self._begin(
            account_id, game, stakes, None, record, table_ref, idempotency_key, payouts, checked
        )

    def _begin(
        self,
        account_id: int,
        game: str,
        stakes: Mapping[str, Fraction],
        state: Mapping[str, Any] | None,
        record: Mapping[str, Any] | None,
        table_ref: str | None,
        idempotency_key: str | None,
        paid_back: Mapping[str, Fraction] | None,
        checked: bool = False,
    ) -> OpenedRound:
        amounts = {str(w): positive(s, f"the stake on {w}") for w, s in dict(stakes).items()}
        paid = (
            None
            if paid_back is None
            else {str(w): not_negative(p, f"the payout of {w}") for w, p in dict(paid_back).items()}
        )
        if paid is not None:
            unknown = sorted(set(paid) - set(amounts))
            if unknown:
                raise WalletError(f"the round has no stake on {', '.join(unknown)}")
        state_text = None if state is None else dump(state, "round's state")
        record_text = None if record is None else dump(record, "round's record")
        db = self.db

        def work(conn: Connection) -> OpenedRound:
            balance: int | None = None
            if not checked:
                row = lock_account(conn, account_id, key=idempotency_key)
                if idempotency_key is not None and row.key_round is not None:
                    [found] = read_rounds(conn, rounds.c.id == row.key_round)
                    if found.game != game:
                        raise WalletError(
                            f"the key {idempotency_key!r} opened a round of {found.game}, "
                            f"not of {game}"
                        )
                    return OpenedRound(found, True, from_cents(row.balance))
                total = sum(amounts.values())
                if total > row.balance:
                    raise InsufficientFunds(
                        f"{row.name} has {money_text(row.balance)}: not enough for stakes of "
                        f"{money_text(total)}"
                    )
                balance = row.balance
            when = now()
            status = "in_progress" if paid is None else "finished"
            new_round = {
                "p_account_id": account_id,
                "p_game": game,
                "p_table_ref": table_ref,
                "p_status": status,
                "p_created_at": when,
                "p_updated_at": when,
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
                moves += payouts(amounts, paid, links)
            if db.is_sqlite:
                [(round_id,)] = db.fast(conn, NEW_ROUND, new_round)
                round_id = int(round_id)
                moves = [dataclasses.replace(m, round_id=round_id) for m in moves]
                balance = move(db, conn, account_id, balance, moves)
            elif balance is None:
                # the balance, the round and its rows in one statement (the balance's
                # update locks the account's row and refuses stakes it does not cover)
                round_id, balance = take_and_record(db, conn, account_id, moves, new_round, when)
            else:
                # the balance first (locking the account's row, and refusing stakes it
                # does not cover), then the round and its rows in one statement
                start = take(db, conn, account_id, balance, moves)
                values, balance = row_values(account_id, start, moves, when)
                [(round_id,), *_] = db.fast(
                    conn, new_round_with_rows(len(moves)), {**new_round, **values}
                )
                round_id = int(round_id)
            stored = StoredRound(
                id=round_id,
                account_id=account_id,
                game=game,
                table_ref=table_ref,
                status=status,
                created_at=when,
                updated_at=when,
                state=None if state is None else dict(state),
                record=None if record is None else dict(record),
                stakes={w: from_cents(c) for w, c in amounts.items()},
                paid={w: from_cents(c) for w, c in (paid or {}).items() if c},
                idempotency_key=idempotency_key,
            )
            return OpenedRound(stored, False, from_cents(balance))

        try:
            return db.run(work)
        except StorageConflict:
            if idempotency_key is None or db.in_transaction:
                raise
            # another transaction took this key at the same moment: that round is the one
            with db.read() as conn:
                found = _round_by_key(conn, account_id, game, idempotency_key)
                if found is None:
                    raise
                return OpenedRound(found, True, balance_of(conn, account_id))

    def round_by_key(self, account_id: int, game: str, key: str) -> StoredRound | None:
        """The round the account opened with this idempotency key, if any."""
        with self.db.read() as conn:
            return _round_by_key(conn, account_id, game, key)

    @staticmethod
    def key_round(conn: Connection, account_id: int, key: str) -> int | None:
        """(In the caller's transaction.)  The id of the round the account opened with
        idempotency ``key``, if any."""
        return key_round(conn, account_id, key)

    def save_state(self, round_id: int, state: Mapping[str, Any]) -> None:
        """Keep the round's state (its decisions so far); only while it is in progress."""
        text = dump(state, "round's state")

        def work(conn: Connection) -> None:
            changed = conn.execute(
                update(rounds)
                .where(rounds.c.id == round_id, rounds.c.status == "in_progress")
                .values(state=text, updated_at=now())
            ).rowcount
            if not changed:
                lock_round(conn, round_id, "take a new state")  # says why

        self.db.run(work)

    def settle_round(
        self, round_id: int, payouts_: Mapping[str, Fraction], record: Mapping[str, Any]
    ) -> Fraction:
        """Pay the round's wagers back and finish it with its history ``record``.

        ``payouts_``: what each wager pays back in total (stake and winnings; the stake
        on a push; 0, or left out, when it lost).  One transaction; refuses a round that
        is not in progress.  Returns the account's new balance.
        """
        paid = {str(w): not_negative(p, f"the payout of {w}") for w, p in dict(payouts_).items()}
        record_text = dump(record, "round's record")
        db = self.db

        def work(conn: Connection) -> Fraction:
            account, row = lock_round_of(conn, round_id, "be settled")
            stakes = _stakes(conn, round_id)
            unknown = sorted(set(paid) - set(stakes))
            if unknown:
                raise WalletError(f"round {round_id} has no stake on {', '.join(unknown)}")
            links = {"round_id": round_id, "table_ref": row.table_ref}
            balance = move(
                db, conn, row.account_id, int(account.balance), payouts(stakes, paid, links)
            )
            close_round(conn, round_id, "finished", record_text)
            return from_cents(balance)

        return db.run(work)

    def void_round(self, round_id: int, record: Mapping[str, Any]) -> Fraction:
        """Call the round off: every stake returned (``return`` rows), status ``void``;
        returns the new balance."""
        record_text = dump(record, "round's record")
        db = self.db

        def work(conn: Connection) -> Fraction:
            account, row = lock_round_of(conn, round_id, "be voided")
            moves = [
                Movement(
                    "return",
                    stake,
                    f"stake on {wager} back (round void)",
                    round_id=round_id,
                    table_ref=row.table_ref,
                    wager=wager,
                )
                for wager, stake in _stakes(conn, round_id).items()
            ]
            balance = move(db, conn, row.account_id, int(account.balance), moves)
            close_round(conn, round_id, "void", record_text)
            return from_cents(balance)

        return db.run(work)

    # -- reading rounds back ---------------------------------------------------------------
    def round(self, round_id: int) -> StoredRound:
        with self.db.read() as conn:
            found = read_rounds(conn, rounds.c.id == round_id)
        if not found:
            raise WalletError(f"there is no round {round_id}")
        return found[0]

    def unfinished_rounds(self, account_id: int, game: str | None = None) -> list[StoredRound]:
        """The account's rounds in progress (of ``game``, if given), oldest first."""
        where = [rounds.c.account_id == account_id, rounds.c.status == "in_progress"]
        if game is not None:
            where.append(rounds.c.game == game)
        with self.db.read() as conn:
            return read_rounds(conn, *where, newest_first=False)

    def latest(
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
            return read_rounds(conn, *where, limit=max(0, limit))

    def rounds_page(
        self,
        account_id: int,
        limit: int = 10,
        game: str | None = None,
        statuses: Iterable[str] = ("finished", "void"),
        before: int | None = None,
        after: int | None = None,
    ) -> RoundsPage:
        """A page of :meth:`latest`: the ``limit`` newest (older than ``before``, or the
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
                found = read_rounds(
                    conn, *where, rounds.c.id > after, limit=limit + 1, newest_first=False
                )
                more_newer = len(found) > limit
                page = list(reversed(found[:limit]))
                more_older = bool(page) and exists(
                    conn, rounds, [*where, rounds.c.id < page[-1].id]
                )
            else:
                upper = [] if before is None else [rounds.c.id < before]
                lower = [] if after is None else [rounds.c.id > after]
                found = read_rounds(conn, *where, *upper, *lower, limit=limit + 1)
                more_older = len(found) > limit
                page = found[:limit]
                if after is not None and page and not more_older:  # older than the window
                    more_older = exists(conn, rounds, [*where, rounds.c.id < page[-1].id])
                more_newer = bool(page) and exists(conn, rounds, [*where, rounds.c.id > page[0].id])
        return RoundsPage(
            page,
            page[-1].id if page and more_older else None,
            page[0].id if page and more_newer else None,
        )

    def count_rounds(
        self,
        account_id: int,
        game: str | None = None,
        statuses: Iterable[str] = ("finished", "void"),
    ) -> int:
        """How many rounds :meth:`latest` could list without a limit."""
        query = select(func.count()).where(
            rounds.c.account_id == account_id, rounds.c.status.in_(list(statuses))
        )
        if game is not None:
            query = query.where(rounds.c.game == game)
        with self.db.read() as conn:
            return int(conn.execute(query).scalar_one())


# -- inside a transaction ------------------------------------------------------------------------
def exists(conn: Connection, table: Any, where: list[ColumnElement[bool]]) -> bool:
    """Is there a row of ``table`` where ``where`` holds?"""
    return conn.execute(select(table.c.id).where(*where).limit(1)).first() is not None


def lock_round_of(conn: Connection, round_id: int, refused: str) -> tuple[Any, Any]:
    """The round's account row and the round's row, locked in the wallet's order (the
    account first); a WalletError unless the round is in progress."""
    owner = conn.execute(
        select(rounds.c.account_id).where(rounds.c.id == round_id)
    ).scalar_one_or_none()
    if owner is None:
        raise WalletError(f"there is no round {round_id}")
    account = lock_account(conn, int(owner))
    return account, lock_round(conn, round_id, refused)


def lock_round(conn: Connection, round_id: int, refused: str) -> Any:
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


def close_round(conn: Connection, round_id: int, status: str, record: str) -> None:
    conn.execute(
        update(rounds)
        .where(rounds.c.id == round_id)
        .values(status=status, record=record, updated_at=now())
    )


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


def _round_by_key(conn: Connection, account_id: int, game: str, key: str) -> StoredRound | None:
    found = read_rounds(conn, rounds.c.account_id == account_id, rounds.c.idempotency_key == key)
    if not found:
        return None
    if found[0].game != game:
        raise WalletError(f"the key {key!r} opened a round of {found[0].game}, not of {game}")
    return found[0]


def read_rounds(
    conn: Connection,
    *where: ColumnElement[bool],
    limit: int | None = None,
    newest_first: bool = True,
) -> list[StoredRound]:
    """The rounds where ``where`` holds, with their stakes and payouts from the ledger."""
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
            state=load(r.state, f"state of round {r.id}"),
            record=load(r.record, f"record of round {r.id}"),
            stakes=stakes[int(r.id)],
            paid=paid[int(r.id)],
            idempotency_key=r.idempotency_key,
        )
        for r in rows
    ]
