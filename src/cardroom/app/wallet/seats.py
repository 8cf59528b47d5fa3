"""Chemin de fer's money at a table: a seat bought into, its stack after each coup, the
coup a seat takes part in, and the stack brought back.

Money taken to a table is a ``buy_in`` row and an ``open`` seat holding that stack; the
table moves the stack after each coup (:meth:`Seats.update_stack`: money between players
at the table is not the account's), and :meth:`Seats.cash_out` brings the stack back (a
``cash_out`` row) and closes the seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, select, update

from cardroom.app.wallet.money import Movement, lock_account, move, refuse
from cardroom.app.wallet.rounds import close_round, lock_round_of
from cardroom.app.wallet.values import (
    Seat,
    WalletError,
    dump,
    from_cents,
    not_negative,
    now,
    positive,
)
from cardroom.storage.db import Database
from cardroom.storage.schema import rounds, seats

__all__ = ["Seats", "seat_of_row"]


class Seats:
    """The chemin de fer seats of one :class:`~cardroom.storage.Database`, and the coups
    they take part in."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def buy_in(self, account_id: int, amount: Fraction, table_ref: str) -> int:
        """Take ``amount`` to the table ``table_ref``: a ``buy_in`` row and an open seat
        with that stack; its id.  :class:`InsufficientFunds` beyond the balance."""
        cents = positive(amount, "a buy-in")
        if not isinstance(table_ref, str) or not table_ref.strip():
            raise WalletError("a buy-in needs the table it is for")
        db = self.db

        def work(conn: Connection) -> int:
            balance = int(lock_account(conn, account_id).balance)
            if cents > balance:
                refuse(conn, account_id, cents, "buy_in")
            when = now()
            seat_id = int(
                conn.execute(
                    seats.insert()
                    .values(
                        account_id=account_id,
                        table_ref=table_ref,
                        stack=cents,
                        status="open",
                        created_at=when,
                        updated_at=when,
                    )
                    .returning(seats.c.id)
                ).scalar_one()
            )
            movement = Movement(
                "buy_in", -cents, f"buy-in at {table_ref}", seat_id=seat_id, table_ref=table_ref
            )
            move(db, conn, account_id, balance, [movement])
            return seat_id

        return db.run(work)

    def update_stack(self, seat_id: int, stack: Fraction) -> None:
        """The seat's stack after a coup (only while the seat is open)."""
        cents = not_negative(stack, "a stack")

        def work(conn: Connection) -> None:
            changed = conn.execute(
                update(seats)
                .where(seats.c.id == seat_id, seats.c.status == "open")
                .values(stack=cents, updated_at=now())
            ).rowcount
            if not changed:
                _lock_seat(conn, seat_id)  # raises: no such seat, or closed

        self.db.run(work)

    def cash_out(self, seat_id: int) -> Fraction:
        """Bring the seat's stack back to the account (a ``cash_out`` row) and close the
        seat; the account's new balance."""
        db = self.db

        def work(conn: Connection) -> Fraction:
            account, seat = _lock_seat_of(conn, seat_id)
            movement = Movement(
                "cash_out",
                int(seat.stack),
                f"cash-out from {seat.table_ref}",
                seat_id=seat_id,
                table_ref=seat.table_ref,
            )
            balance = move(db, conn, seat.account_id, int(account.balance), [movement])
            conn.execute(
                update(seats).where(seats.c.id == seat_id).values(status="closed", updated_at=now())
            )
            return from_cents(balance)

        return db.run(work)

    def open_coup(
        self, account_id: int, game: str, state: Mapping[str, Any], table_ref: str
    ) -> int:
        """A coup a person's seat takes part in, opened ``in_progress`` with its ``state``
        (no money moves: the stakes are the seat's, at the table); its round id."""
        state_text = dump(state, "coup's state")

        def work(conn: Connection) -> int:
            lock_account(conn, account_id)
            when = now()
            return int(
                conn.execute(
                    rounds.insert()
                    .values(
                        account_id=account_id,
                        game=game,
                        table_ref=table_ref,
                        status="in_progress",
                        created_at=when,
                        updated_at=when,
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
        cents = not_negative(stack, "a stack")
        record_text = dump(record, "coup's record")

        def work(conn: Connection) -> None:
            _, row = lock_round_of(conn, round_id, "be finished")
            seat = _lock_seat(conn, seat_id)
            if seat.account_id != row.account_id:
                raise WalletError(f"seat {seat_id} is not the coup's person's")
            conn.execute(
                update(seats).where(seats.c.id == seat_id).values(stack=cents, updated_at=now())
            )
            close_round(conn, round_id, "finished", record_text)

        self.db.run(work)

    def seat(self, seat_id: int) -> Seat:
        with self.db.read() as conn:
            row = conn.execute(select(seats).where(seats.c.id == seat_id)).first()
        if row is None:
            raise WalletError(f"there is no seat {seat_id}")
        return seat_of_row(row)

    def open_seats(self, account_id: int) -> list[Seat]:
        """The account's open seats, oldest first (what a crash left at a table)."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(seats)
                .where(seats.c.account_id == account_id, seats.c.status == "open")
                .order_by(seats.c.id)
            ).all()
        return [seat_of_row(row) for row in rows]


def _lock_seat_of(conn: Connection, seat_id: int) -> tuple[Any, Any]:
    """The seat's account row and the seat's row, locked in the wallet's order."""
    owner = conn.execute(
        select(seats.c.account_id).where(seats.c.id == seat_id)
    ).scalar_one_or_none()
    if owner is None:
        raise WalletError(f"there is no seat {seat_id}")
    account = lock_account(conn, int(owner))
    return account, _lock_seat(conn, seat_id)


def _lock_seat(conn: Connection, seat_id: int) -> Any:
    """The seat's row, read ``FOR UPDATE``; a WalletError unless it is open."""
    row = conn.execute(select(seats).where(seats.c.id == seat_id).with_for_update()).first()
    if row is None:
        raise WalletError(f"there is no seat {seat_id}")
    if row.status != "open":
        raise WalletError(f"seat {seat_id} is closed: its stack was cashed out")
    return row


def seat_of_row(row: Any) -> Seat:
    return Seat(
        id=int(row.id),
        account_id=int(row.account_id),
        table_ref=row.table_ref,
        stack=from_cents(row.stack),
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )
