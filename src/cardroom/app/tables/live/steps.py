"""One step of a live table, all or nothing, and what it tells the connections.

A step is a call on the table's :class:`~cardroom.app.tables.chemmy.ChemmyTable` (a seat,
a decision, the play up to the next person's turn).  :meth:`Steps.transact` makes it in
one database transaction, in a worker thread: the lease checked first (the fence), then
the step with the wallet's writes, then what it tells the other processes (their
connections' messages, the published table) and the command it answers.  If the
transaction fails, the table in memory is put back as it was and nothing was done.

After the step the owner composes, for each connection, what is new to it: the events
its seat may see (another seat's face-down cards never leave the owner), told in its
person's words, the table, the notices, and the turn where it is theirs.  The messages
to this process's connections go on their queues once the step has committed.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection as Transaction

from cardroom.app.tables.chemmy import ChemmyTable, TableCheckpoint
from cardroom.app.tables.live.base import Connection, Told
from cardroom.app.tables.live.link import Command, LeaseLost
from cardroom.app.words import plain
from cardroom.core.events import CoupEvent, SeatLeft, SeatTaken
from cardroom.games.base import Turn
from cardroom.games.chemin_de_fer.words import ChemmyNarrator
from cardroom.storage import StorageError

if TYPE_CHECKING:
    from cardroom.app.tables.live.table import LiveChemmy

log = logging.getLogger("cardroom.tables")

T = TypeVar("T")


@dataclass
class Batch:
    """What one step tells the connections: messages for this process's, messages for
    other processes' (by process: connection id and message), and the published view."""

    local: list[tuple[Connection, dict[str, object]]]
    remote: dict[str, list[tuple[int, dict[str, object]]]]
    view: tuple[str, str]


@dataclass(frozen=True)
class Saved:
    """A table's state in memory before a step (see :meth:`Steps.transact`)."""

    table: ChemmyTable
    checkpoint: TableCheckpoint
    game_number: int
    notices: list[str]
    pending: Turn | None
    turns: int
    deadline: float
    away: dict[int, float]
    cursors: list[tuple[Connection, int, int, int | None, ChemmyNarrator | None]]


@dataclass(frozen=True)
class Reply:
    """A command a step answers, in the step's transaction: ``make`` turns the step's
    result into the answer."""

    command: Command
    make: Callable[[Any], dict[str, object]]


def reply_to(command: Command | None, make: Callable[[Any], dict[str, object]]) -> Reply | None:
    """The :class:`Reply` to ``command`` (None: the step answers no command)."""
    return None if command is None else Reply(command, make)


class Steps:
    """The steps of one live table (see the module's words)."""

    def __init__(self, live: LiveChemmy) -> None:
        self.live = live
        #: (in a step) the messages of the step so far, one batch each time the table as
        #: people see it changed, and that table (see :meth:`moved`)
        self._chunks: list[Batch] | None = None
        self._chunk_view: dict[str, object] | None = None

    async def transact(self, step: Callable[[], T], *, reply: Reply | None = None) -> T:
        """(Under the lock.)  ``step`` on the table in one database transaction (in a
        worker thread): the lease checked first, then the step and the wallet's writes it
        makes, then what it tells the other processes (their connections' messages, the
        published view) and the command it answers.  Messages to this process's
        connections are sent once it has committed.  If it fails, the table in memory is
        put back as it was, and the error raised: nothing was done."""
        live = self.live
        saved = self._save()
        tries = 0

        def work(conn: Transaction) -> tuple[T, Batch]:
            nonlocal tries
            if tries:  # the database gave up on the last try: from the start again
                self._restore(saved)
            tries += 1
            live.link.fence(conn, live.spec.id, live.epoch)
            self._chunks, self._chunk_view = [], live.table_json()
            try:
                result = step()
                batch = merge([*self._chunks, self.compose()])
            finally:
                self._chunks = self._chunk_view = None
            self._store(conn, batch)
            if reply is not None:
                command = reply.command
                live.link.answer(conn, command.id, command.process, reply.make(result))
            return result, batch

        future = asyncio.ensure_future(asyncio.to_thread(live.wallet.db.run, work))
        try:
            result, batch = await asyncio.shield(future)
        except asyncio.CancelledError:
            # the transaction goes on in its thread: memory follows whatever it does
            future.add_done_callback(lambda done: self._settle(done, saved))
            raise
        except BaseException:
            self._restore(saved)
            raise
        self._deliver(batch)
        return result

    def _settle(self, done: asyncio.Future[tuple[Any, Batch]], saved: Saved) -> None:
        if done.cancelled() or done.exception() is not None:
            self._restore(saved)
        else:
            self._deliver(done.result()[1])

    def _deliver(self, batch: Batch) -> None:
        self.live.published = batch.view
        for conn, message in batch.local:
            conn.queue.put_nowait(message)

    def moved(self) -> None:
        """(In a step, after each card and decision the table plays.)  Where the table as
        people see it has changed (a bank put up, a stake, a coup settled), what is new
        so far goes out as a message of its own, with the table as it stands at that
        point.  A page shows a message's table once it has shown the message's events:
        so no stack, banker or coup number moves before the cards that decide it."""
        if self._chunks is None:
            return
        view = self.live.table_json()
        if view != self._chunk_view:
            self._chunks.append(self.compose(table_json=view))
            self._chunk_view = view

    def _save(self) -> Saved:
        live = self.live
        conns = [*live.connections, *live.remote.values()]
        return Saved(
            table=live.table,
            checkpoint=live.table.checkpoint(),
            game_number=live.game_number,
            notices=list(live.notices),
            pending=live.pending,
            turns=live.turns,
            deadline=live.deadline,
            away=dict(live.away),
            cursors=[(c, c.game, c.sent, c.seat, copy.deepcopy(c.narrator)) for c in conns],
        )

    def _restore(self, saved: Saved) -> None:
        live = self.live
        live.table = saved.table
        live.table.restore(saved.checkpoint)
        live.game_number = saved.game_number
        live.notices = list(saved.notices)
        live.pending = saved.pending
        live.turns = saved.turns
        live.deadline = saved.deadline
        live.away = dict(saved.away)
        for conn, game, sent, seat, narrator in saved.cursors:
            conn.game, conn.sent, conn.seat = game, sent, seat
            conn.narrator = copy.deepcopy(narrator)

    def _store(self, conn: Transaction, batch: Batch) -> None:
        """Inside the step's transaction: the other processes' messages, and the view
        where it changed."""
        live = self.live
        for process, messages in batch.remote.items():
            live.link.post(conn, process, live.spec.id, live.epoch, messages)
        if batch.view != live.published:
            live.link.publish(conn, live.spec.id, *batch.view)

    async def push_now(self, only: Iterable[Connection] | None = None) -> None:
        """(The owner, under the lock.)  Send what is new to the connections (all, or
        ``only``) when nothing on the table changed (somebody came or went): this
        process's at once, the others' through the database (if that fails, their next
        message starts again from the coup so far)."""
        live = self.live
        batch = self.compose(only)
        for conn, message in batch.local:
            conn.queue.put_nowait(message)
        if not batch.remote and batch.view == live.published:
            return

        def work(conn: Transaction) -> None:
            live.link.fence(conn, live.spec.id, live.epoch)
            self._store(conn, batch)

        try:
            await asyncio.to_thread(live.wallet.db.run, work)
        except LeaseLost:
            live.drop_ownership()
            return
        except StorageError as err:
            log.warning("chemin de fer table %s: sending to other processes: %s", live.spec.id, err)
            for key in batch.remote:
                for connection_id, _ in batch.remote[key]:
                    gone = live.remote.get((key, connection_id))
                    if gone is not None:
                        gone.game = -1
            return
        live.published = batch.view

    def compose(
        self, only: Iterable[Connection] | None = None, table_json: dict[str, object] | None = None
    ) -> Batch:
        """What is new for each connection (all, or ``only``), and the view to publish
        (``table_json``: the table as it is now, if already made)."""
        live = self.live
        notices, live.notices = live.notices, []
        targets = list([*live.connections, *live.remote.values()] if only is None else only)
        if table_json is None:
            table_json = live.table_json()
        local: list[tuple[Connection, dict[str, object]]] = []
        remote: dict[str, list[tuple[int, dict[str, object]]]] = {}
        for conn in targets:
            message = live.views.update(live, self._told(conn, notices), table_json)
            if conn.process is None:
                local.append((conn, message))
            else:
                remote.setdefault(conn.process, []).append((conn.id, message))
        seated = [held.account_id if held.is_person else None for held in live.table.seats]
        view = (json.dumps(table_json, ensure_ascii=False), json.dumps(seated))
        return Batch(local, remote, view)

    def _told(self, conn: Connection, notices: Sequence[str]) -> Told:
        """What is new to ``conn``, its cursor moved past it."""
        live = self.live
        table = live.table
        game = table.game
        seat = live.seat_of(conn.account_id)
        reset = conn.game != live.game_number
        if game is None:
            events: list[CoupEvent] = []
            conn.sent = 0
        else:
            if reset:  # a new connection (or a new game): the coup so far and the last one
                first = max(0, game.coup - 1)
                conn.sent = next((n for n, e in enumerate(game.log) if e.coup >= first), 0)
            events = table.events_for(seat, conn.sent)
            conn.sent = len(game.log)
        conn.game = live.game_number
        names = tuple(game.names if game is not None else (s.name for s in table.seats))
        if reset or conn.narrator is None:
            conn.narrator = ChemmyNarrator(names)
        else:  # (a seat taken, a bot renamed: who holds the bank is still known)
            conn.narrator.names = names
        narrator = conn.narrator
        # the person's own events are told "You" while they sit: up to their standing up
        # (which may come in the same message as the coup they played), from their sitting
        you = seat if reset else conn.seat
        told = []
        for entry in events:
            event = entry.event
            if isinstance(event, SeatTaken) and event.seat == seat and event.name == conn.name:
                you = seat
            narrator.you = you
            told.append((entry, plain(narrator.line(event))))
            if isinstance(event, SeatLeft) and event.seat == you:
                you = None
        narrator.you = conn.seat = seat
        return Told(conn, reset, told, seat, notices)


def merge(batches: Sequence[Batch]) -> Batch:
    """One step's batches as one, each connection's messages in order; a last message
    that tells a connection nothing new (no event, no notice, no turn, the table as the
    one before it) is left out."""
    if len(batches) == 1:
        return batches[0]
    local: list[tuple[Connection, dict[str, object]]] = []
    remote: dict[str, list[tuple[int, dict[str, object]]]] = {}
    last: dict[tuple[str | None, int], dict[str, object]] = {}
    final = len(batches) - 1
    for n, batch in enumerate(batches):
        for conn, message in batch.local:
            if n < final or not _nothing_new(message, last.get((None, conn.id))):
                local.append((conn, message))
                last[(None, conn.id)] = message
        for process, messages in batch.remote.items():
            for connection, message in messages:
                if n < final or not _nothing_new(message, last.get((process, connection))):
                    remote.setdefault(process, []).append((connection, message))
                    last[(process, connection)] = message
    return Batch(local, remote, batches[-1].view)


def _nothing_new(message: dict[str, object], before: dict[str, object] | None) -> bool:
    if before is None or message["reset"] or message["events"] or message["notices"]:
        return False
    return all(message[key] == before[key] for key in ("table", "you", "turn", "waiting_for"))


__all__ = ["Batch", "Reply", "Saved", "Steps", "merge", "reply_to"]
