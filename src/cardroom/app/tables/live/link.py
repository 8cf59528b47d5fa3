"""The chemin de fer tables between server processes, through the database.

Any number of ``cardroom serve`` processes may serve one database.  Each chemin de fer
table is driven by exactly one of them at a time, its *owner*, which holds the table's
*lease*: its row of ``chemmy_tables`` names the owner and an *epoch*, and the lease runs
to ``lease_until``.  This module is that traffic, as blocking calls (the tables run them
in worker threads):

Heartbeats and leases (:meth:`Link.beat`, every :data:`HEARTBEAT` seconds)
    A process renews its own row of ``chemmy_processes`` and the leases it holds (each
    for :data:`LEASE` seconds), and takes every table whose lease nobody holds or has
    let run out, raising its epoch.  Times are the database server's clock
    (:func:`clock`), so processes on machines whose clocks differ agree on them.

Fencing (:meth:`Link.fence`)
    Every transaction of the owner that changes the table's money or coups begins by
    locking the table's row and checking that owner and epoch are still its own, else
    :class:`LeaseLost` and nothing of it is written.  A process that lost the lease
    (paused, cut off) can therefore never write; one that takes a table over waits for
    the owner's transaction in flight, and the owner's next one sees the new epoch.

What the owner publishes (:meth:`Link.publish`, :meth:`Link.post`)
    The table as everybody may see it (for the other processes' lobbies), and each
    step's messages to the WebSockets other processes hold (``chemmy_outbox``, one row
    per step and process), in the step's own transaction.

What the others send the owner (:meth:`Link.send`, :meth:`Link.table_inbox`)
    The WebSockets open at a table (``chemmy_presence``), and commands: a seat, leaving,
    a decision (``chemmy_commands``).  The owner carries a command out and writes its
    answer in the same transaction (:meth:`Link.answer`), unless the asker gave up on
    it first (:meth:`Link.cancel`), so a command is done once or not at all.

Waking the other side
    On PostgreSQL each write that the other side waits for also sends a ``NOTIFY``
    (delivered when the transaction commits), on the channel of the process it is for
    or of the table; a listener thread per process
    (:mod:`~cardroom.app.tables.live.listener`) ``LISTEN`` s to its own and the tables'
    channels.  SQLite has no ``NOTIFY``: there the waiting side polls every
    :data:`POLL_SQLITE` seconds, only while it waits for something (and PostgreSQL's side
    polls every :data:`POLL_PG` seconds as a safety net).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, insert, literal_column, or_, select, update
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import Double

from cardroom.storage.db import Database
from cardroom.storage.schema import (
    chemmy_commands,
    chemmy_outbox,
    chemmy_presence,
    chemmy_processes,
    chemmy_tables,
)

log = logging.getLogger("cardroom.tables")

#: Seconds between a process's heartbeats (its own row, its leases, taking free tables).
HEARTBEAT = 1.0
#: Seconds a lease or a heartbeat holds: an owner silent for longer loses its tables.
LEASE = 5.0
#: Seconds between polls where the database cannot wake the other side (SQLite).
POLL_SQLITE = 0.2
#: Seconds between polls behind PostgreSQL's NOTIFY (a safety net).
POLL_PG = 2.0
#: Seconds after which a dead process's rows, and answered commands, are deleted.
PURGE_AFTER = 60.0
#: How long PostgreSQL lets a session of the lease's transactions sit idle inside one.
IDLE_LIMIT = "10s"
#: The prefix of the NOTIFY channels.
CHANNEL = "cardroom_chemmy"


class LeaseLost(Exception):
    """This process no longer holds the table's lease: nothing was written."""


class CommandGone(Exception):
    """The command's asker gave up on it (or it was answered already): not done."""


def clock(db: Database) -> ColumnElement[float]:
    """The database server's clock now, in seconds since the Unix epoch."""
    if db.is_sqlite:
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)", Double())
    return literal_column("(EXTRACT(EPOCH FROM clock_timestamp())::float8)", Double())


def wall_clock() -> datetime:
    """This process's clock now (UTC), for the rows' times people read."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Beat:
    """What a heartbeat found: the leases still held and those just taken (table id to
    epoch), how many other processes are alive, and whether this process's own row had
    to be written again (it had been taken for dead: its presence rows are gone)."""

    held: dict[int, int]
    taken: dict[int, int]
    others: int
    registered: bool


@dataclass(frozen=True)
class Command:
    """A command waiting for the table's owner; ``left``: seconds until its asker gives up."""

    id: int
    process: str
    account_id: int
    kind: str
    body: dict[str, Any]
    left: float


@dataclass(frozen=True)
class Presence:
    """A WebSocket another process holds at a table."""

    process: str
    connection: int
    account_id: int
    name: str


@dataclass(frozen=True)
class Posted:
    """An outbox row for this process: one step's messages to its WebSockets."""

    id: int
    table_id: int
    epoch: int
    messages: list[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class View:
    """A table as its owner last published it, and whether its lease is held now."""

    table: dict[str, Any] | None
    seated: list[int | None]
    driven: bool


class Link:
    """This process's side of the traffic between processes on ``db`` (see the module)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.host = socket.gethostname()
        #: the tables' rows exist (made by the first heartbeat)
        self._rows_made = False
        self._pid = -1
        self._process = ""

    @property
    def process(self) -> str:
        """This process's id: random, so that a restarted process is a new one, and made
        again in a process forked from this one (a server's workers) before its first use."""
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._process = secrets.token_hex(6)
        return self._process

    @property
    def pid(self) -> int:
        return os.getpid()

    # -- names ---------------------------------------------------------------------------
    @property
    def notifies(self) -> bool:
        """Can the database wake the other side (PostgreSQL's NOTIFY)?"""
        return not self.db.is_sqlite

    @property
    def poll(self) -> float:
        return POLL_SQLITE if self.db.is_sqlite else POLL_PG

    @staticmethod
    def process_channel(process: str) -> str:
        return f"{CHANNEL}_p_{process}"

    @staticmethod
    def table_channel(table_id: int) -> str:
        return f"{CHANNEL}_t_{table_id}"

    def _notify(self, conn: Connection, channel: str) -> None:
        if self.notifies:
            conn.execute(select(func.pg_notify(channel, "")))

    # -- heartbeats and leases ---------------------------------------------------------------
    def beat(self, tables: Mapping[int, str], owned: Mapping[int, int]) -> Beat:
        """Renew this process and the leases in ``owned`` (table id to epoch), make the
        rows of ``tables`` (id to ``table_ref``) that are missing, and take those of them
        whose lease nobody holds; one transaction."""
        db = self.db

        def work(conn: Connection) -> Beat:
            now = clock(db)
            self._limit(conn, lock_timeout="2s")
            registered = False
            renewed = conn.execute(
                update(chemmy_processes)
                .where(chemmy_processes.c.id == self.process)
                .values(alive_until=now + LEASE)
            ).rowcount
            if not renewed:
                conn.execute(
                    insert(chemmy_processes).values(
                        id=self.process,
                        host=self.host,
                        pid=self.pid,
                        started_at=wall_clock(),
                        alive_until=now + LEASE,
                    )
                )
                registered = True
            if not self._rows_made:
                self._make_rows(conn, tables)
            held: dict[int, int] = {}
            if owned:
                rows = conn.execute(
                    update(chemmy_tables)
                    .where(
                        chemmy_tables.c.id.in_(list(owned)),
                        chemmy_tables.c.owner == self.process,
                    )
                    .values(lease_until=now + LEASE)
                    .returning(chemmy_tables.c.id, chemmy_tables.c.epoch)
                ).all()
                held = {int(r.id): int(r.epoch) for r in rows if owned[int(r.id)] == r.epoch}
            taken: dict[int, int] = {}
            wanted = [t for t in tables if t not in owned]
            if wanted:
                free = list(
                    conn.execute(
                        select(chemmy_tables.c.id)
                        .where(
                            chemmy_tables.c.id.in_(wanted),
                            or_(chemmy_tables.c.owner.is_(None), chemmy_tables.c.lease_until < now),
                        )
                        .with_for_update(skip_locked=True)
                    ).scalars()
                )
                if free:
                    rows = conn.execute(
                        update(chemmy_tables)
                        .where(chemmy_tables.c.id.in_(free))
                        .values(
                            owner=self.process,
                            epoch=chemmy_tables.c.epoch + 1,
                            lease_until=now + LEASE,
                            updated_at=wall_clock(),
                        )
                        .returning(chemmy_tables.c.id, chemmy_tables.c.epoch)
                    ).all()
                    taken = {int(r.id): int(r.epoch) for r in rows}
            others = conn.execute(
                select(func.count())
                .select_from(chemmy_processes)
                .where(chemmy_processes.c.id != self.process, chemmy_processes.c.alive_until > now)
            ).scalar_one()
            return Beat(held, taken, int(others), registered)

        beat = db.run(work)
        self._rows_made = True
        return beat

    def _make_rows(self, conn: Connection, tables: Mapping[int, str]) -> None:
        existing = set(
            conn.execute(
                select(chemmy_tables.c.id).where(chemmy_tables.c.id.in_(list(tables)))
            ).scalars()
        )
        missing = [
            {
                "id": table_id,
                "table_ref": ref,
                "owner": None,
                "epoch": 0,
                "lease_until": 0.0,
                "updated_at": wall_clock(),
            }
            for table_id, ref in tables.items()
            if table_id not in existing
        ]
        if missing:
            maker = sqlite_dialect.insert if self.db.is_sqlite else pg_dialect.insert
            conn.execute(maker(chemmy_tables).on_conflict_do_nothing(), missing)

    def release(self, tables: Collection[int]) -> None:
        """Give up the leases of ``tables`` (shutting down): another process may take
        them at once, and finishes what this one left."""
        if not tables:
            return

        def work(conn: Connection) -> None:
            conn.execute(
                update(chemmy_tables)
                .where(
                    chemmy_tables.c.id.in_(list(tables)),
                    chemmy_tables.c.owner == self.process,
                )
                .values(owner=None, lease_until=0.0, updated_at=wall_clock())
            )

        self.db.run(work)

    def retire(self) -> None:
        """This process stops: its row, its WebSockets and its unread messages go."""

        def work(conn: Connection) -> None:
            mine = self.process
            conn.execute(delete(chemmy_presence).where(chemmy_presence.c.process == mine))
            conn.execute(delete(chemmy_outbox).where(chemmy_outbox.c.process == mine))
            conn.execute(delete(chemmy_processes).where(chemmy_processes.c.id == mine))

        self.db.run(work)

    def purge(self) -> None:
        """Delete what dead processes left (their presence, their unread messages, their
        rows) and commands long answered or given up."""
        db = self.db

        def work(conn: Connection) -> None:
            now = clock(db)
            dead = select(chemmy_processes.c.id).where(
                chemmy_processes.c.alive_until < now - PURGE_AFTER
            )
            conn.execute(delete(chemmy_presence).where(chemmy_presence.c.process.in_(dead)))
            conn.execute(delete(chemmy_outbox).where(chemmy_outbox.c.process.in_(dead)))
            conn.execute(
                delete(chemmy_outbox).where(
                    chemmy_outbox.c.created_at < wall_clock() - timedelta(seconds=PURGE_AFTER)
                )
            )
            conn.execute(delete(chemmy_processes).where(chemmy_processes.c.id.in_(dead)))
            old = chemmy_commands.c.give_up < now - PURGE_AFTER
            conn.execute(delete(chemmy_commands).where(old))

        db.run(work)

    def _limit(self, conn: Connection, **settings: str) -> None:
        """PostgreSQL settings for the rest of this transaction, and always: a session
        that sits idle inside it (its process paused, or hung) for :data:`IDLE_LIMIT` is
        ended by the server, so the locks it holds (a table's lease row) never keep
        another process from taking the table over."""
        if self.db.is_sqlite:
            return
        values = {"idle_in_transaction_session_timeout": IDLE_LIMIT, **settings}
        conn.execute(select(*(func.set_config(k, v, True) for k, v in values.items())))

    def fence(self, conn: Connection, table_id: int, epoch: int) -> None:
        """Inside the caller's transaction: lock the table's row and check that this
        process still holds its lease at ``epoch`` (:class:`LeaseLost` otherwise).  On
        PostgreSQL the same statement sets the transaction's idle limit (:meth:`_limit`)."""
        columns: list[Any] = [chemmy_tables.c.owner, chemmy_tables.c.epoch]
        if not self.db.is_sqlite:
            columns.append(func.set_config("idle_in_transaction_session_timeout", IDLE_LIMIT, True))
        row = conn.execute(
            select(*columns).where(chemmy_tables.c.id == table_id).with_for_update()
        ).first()
        if row is None or row.owner != self.process or int(row.epoch) != epoch:
            raise LeaseLost(f"chemin de fer table {table_id} is driven by another process now")

    def live_refs(self) -> set[str]:
        """The ``table_ref`` of every table whose lease is held now."""
        db = self.db
        with db.read() as conn:
            return set(
                conn.execute(
                    select(chemmy_tables.c.table_ref).where(
                        chemmy_tables.c.owner.is_not(None), chemmy_tables.c.lease_until > clock(db)
                    )
                ).scalars()
            )

    # -- what the owner publishes --------------------------------------------------------------
    def publish(self, conn: Connection, table_id: int, view: str, seated: str) -> None:
        """Inside the owner's transaction: the table as everybody may see it (``view``,
        JSON text) and the account at each seat (``seated``, a JSON list)."""
        conn.execute(
            update(chemmy_tables)
            .where(chemmy_tables.c.id == table_id)
            .values(view=view, seated=seated, updated_at=wall_clock())
        )

    def post(
        self,
        conn: Connection,
        process: str,
        table_id: int,
        epoch: int,
        messages: Sequence[tuple[int, dict[str, Any]]],
    ) -> None:
        """Inside the owner's transaction: messages to ``process``'s WebSockets
        (connection id and message), and a NOTIFY to wake it."""
        conn.execute(
            insert(chemmy_outbox).values(
                process=process,
                table_id=table_id,
                epoch=epoch,
                body=json.dumps([list(m) for m in messages], ensure_ascii=False),
                created_at=wall_clock(),
            )
        )
        self._notify(conn, self.process_channel(process))

    def views(self, table_ids: Iterable[int]) -> dict[int, View]:
        """The tables as their owners last published them."""
        db = self.db
        ids = list(table_ids)
        if not ids:
            return {}
        with db.read() as conn:
            rows = conn.execute(
                select(
                    chemmy_tables.c.id,
                    chemmy_tables.c.view,
                    chemmy_tables.c.seated,
                    (
                        chemmy_tables.c.owner.is_not(None)
                        & (chemmy_tables.c.lease_until > clock(db))
                    ).label("driven"),
                ).where(chemmy_tables.c.id.in_(ids))
            ).all()
        found = {}
        for row in rows:
            seated = json.loads(row.seated) if row.seated else []
            table = json.loads(row.view) if row.view else None
            found[int(row.id)] = View(table, list(seated), bool(row.driven))
        return found

    # -- this process's WebSockets ---------------------------------------------------------------
    def add_presence(self, connection: int, table_id: int, account_id: int, name: str) -> None:
        def work(conn: Connection) -> None:
            conn.execute(
                insert(chemmy_presence).values(
                    process=self.process,
                    connection=connection,
                    table_id=table_id,
                    account_id=account_id,
                    name=name,
                    created_at=wall_clock(),
                )
            )
            self._notify(conn, self.table_channel(table_id))

        self.db.run(work)

    def drop_presence(self, connection: int, table_id: int) -> None:
        def work(conn: Connection) -> None:
            conn.execute(
                delete(chemmy_presence).where(
                    chemmy_presence.c.process == self.process,
                    chemmy_presence.c.connection == connection,
                )
            )
            self._notify(conn, self.table_channel(table_id))

        self.db.run(work)

    def sync_presence(self, local: Iterable[tuple[int, int, int, str]]) -> None:
        """Write this process's presence again: exactly ``local`` (connection, table id,
        account id, name)."""
        local = list(local)
        rows = [
            {
                "process": self.process,
                "connection": connection,
                "table_id": table_id,
                "account_id": account_id,
                "name": name,
                "created_at": wall_clock(),
            }
            for connection, table_id, account_id, name in local
        ]

        def work(conn: Connection) -> None:
            conn.execute(delete(chemmy_presence).where(chemmy_presence.c.process == self.process))
            if rows:
                conn.execute(insert(chemmy_presence), rows)
            for table_id in {table_id for _, table_id, _, _ in local}:
                self._notify(conn, self.table_channel(table_id))

        self.db.run(work)

    # -- the owner's inbox -----------------------------------------------------------------------
    def table_inbox(self, table_id: int) -> tuple[list[Command], list[Presence]]:
        """The commands waiting for the table, and the WebSockets other live processes
        hold at it."""
        db = self.db
        with db.read() as conn:
            now = clock(db)
            commands = conn.execute(
                select(
                    chemmy_commands.c.id,
                    chemmy_commands.c.process,
                    chemmy_commands.c.account_id,
                    chemmy_commands.c.kind,
                    chemmy_commands.c.body,
                    (chemmy_commands.c.give_up - now).label("left"),
                )
                .where(
                    chemmy_commands.c.table_id == table_id,
                    chemmy_commands.c.status == "pending",
                    chemmy_commands.c.give_up > now,
                )
                .order_by(chemmy_commands.c.id)
            ).all()
            present = conn.execute(
                select(
                    chemmy_presence.c.process,
                    chemmy_presence.c.connection,
                    chemmy_presence.c.account_id,
                    chemmy_presence.c.name,
                )
                .join(chemmy_processes, chemmy_processes.c.id == chemmy_presence.c.process)
                .where(
                    chemmy_presence.c.table_id == table_id,
                    chemmy_presence.c.process != self.process,
                    chemmy_processes.c.alive_until > now,
                )
            ).all()
        return (
            [
                Command(
                    int(r.id), r.process, int(r.account_id), r.kind, _object(r.body), float(r.left)
                )
                for r in commands
            ],
            [Presence(r.process, int(r.connection), int(r.account_id), r.name) for r in present],
        )

    def answer(
        self, conn: Connection, command: int, process: str, answer: Mapping[str, Any]
    ) -> None:
        """Inside the owner's transaction: the command is done, with ``answer``;
        :class:`CommandGone` if its asker gave up first (roll the transaction back)."""
        done = conn.execute(
            update(chemmy_commands)
            .where(chemmy_commands.c.id == command, chemmy_commands.c.status == "pending")
            .values(status="done", answer=json.dumps(dict(answer), ensure_ascii=False))
        ).rowcount
        if not done:
            raise CommandGone(f"command {command} was given up")
        self._notify(conn, self.process_channel(process))

    def reply(self, command: int, process: str, answer: Mapping[str, Any]) -> None:
        """:meth:`answer` in a transaction of its own (a refusal: nothing else changes)."""
        self.db.run(lambda conn: self.answer(conn, command, process, answer))

    # -- asking another process's table ----------------------------------------------------
    def send(
        self, table_id: int, account_id: int, kind: str, body: Mapping[str, Any], wait: float
    ) -> int:
        """A command for the table's owner, given up after ``wait`` seconds; its id."""
        db = self.db

        def work(conn: Connection) -> int:
            command = int(
                conn.execute(
                    insert(chemmy_commands)
                    .values(
                        table_id=table_id,
                        process=self.process,
                        account_id=account_id,
                        kind=kind,
                        body=json.dumps(dict(body), ensure_ascii=False),
                        status="pending",
                        give_up=clock(db) + wait,
                        created_at=wall_clock(),
                    )
                    .returning(chemmy_commands.c.id)
                ).scalar_one()
            )
            self._notify(conn, self.table_channel(table_id))
            return command

        return db.run(work)

    def cancel(self, command: int) -> dict[str, Any] | None:
        """Give up on a command; its answer if the owner answered it first (None: it will
        never be done)."""

        def work(conn: Connection) -> dict[str, Any] | None:
            cancelled = conn.execute(
                update(chemmy_commands)
                .where(chemmy_commands.c.id == command, chemmy_commands.c.status == "pending")
                .values(status="cancelled")
            ).rowcount
            if cancelled:
                return None
            row = conn.execute(
                select(chemmy_commands.c.answer).where(chemmy_commands.c.id == command)
            ).first()
            return _object(row.answer) if row is not None and row.answer else None

        return self.db.run(work)

    def collect(self, asked: Collection[int]) -> tuple[list[Posted], dict[int, dict[str, Any]]]:
        """Take this process's messages (deleting them) and the answers to ``asked``."""
        db = self.db
        with db.read() as conn:
            waiting = conn.execute(
                select(chemmy_outbox.c.id).where(chemmy_outbox.c.process == self.process).limit(1)
            ).first()
            answers: dict[int, dict[str, Any]] = {}
            if asked:
                for row in conn.execute(
                    select(chemmy_commands.c.id, chemmy_commands.c.answer).where(
                        chemmy_commands.c.id.in_(list(asked)), chemmy_commands.c.status == "done"
                    )
                ):
                    answers[int(row.id)] = _object(row.answer)
        posted: list[Posted] = []
        if waiting is not None:
            taken: Sequence[Any] = db.run(
                lambda conn: conn.execute(
                    delete(chemmy_outbox)
                    .where(chemmy_outbox.c.process == self.process)
                    .returning(
                        chemmy_outbox.c.id,
                        chemmy_outbox.c.table_id,
                        chemmy_outbox.c.epoch,
                        chemmy_outbox.c.body,
                    )
                ).all()
            )
            for row in sorted(taken, key=lambda r: int(r.id)):
                messages = [(int(c), m) for c, m in json.loads(row.body)]
                posted.append(Posted(int(row.id), int(row.table_id), int(row.epoch), messages))
        return posted, answers


def _object(raw: str | None) -> dict[str, Any]:
    value = json.loads(raw) if raw else {}
    return value if isinstance(value, dict) else {}


__all__ = [
    "HEARTBEAT",
    "LEASE",
    "Beat",
    "Command",
    "CommandGone",
    "LeaseLost",
    "Link",
    "Posted",
    "Presence",
    "View",
    "clock",
]
