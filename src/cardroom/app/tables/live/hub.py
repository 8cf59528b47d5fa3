"""The chemin de fer tables as one process serves them: its heartbeat (the leases it
holds and takes), the messages other processes' tables wrote for its connections, the
commands it sent and waits for, the lobby, and how it stands (:meth:`ChemmyTables.health`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from cardroom.app.tables.chemmy import finish_interrupted_coups
from cardroom.app.tables.live.base import (
    DEFAULT_TABLES,
    NOT_ANSWERING,
    READY_WAIT,
    WEB_TABLE,
    Connection,
    Refused,
    TableSpec,
    TableViews,
)
from cardroom.app.tables.live.link import HEARTBEAT, Link
from cardroom.app.tables.live.listener import Listener
from cardroom.app.tables.live.table import LiveChemmy
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SecureShuffler, Shuffler
from cardroom.games.spec import SeatsRules
from cardroom.storage import StorageError

log = logging.getLogger("cardroom.tables")


class ChemmyTables:
    """The chemin de fer tables, as this process serves them (made when the app is):
    its heartbeat and the tables it drives, its connections to the others, the commands
    it sent and waits for."""

    def __init__(
        self,
        wallet: Wallet,
        rules: SeatsRules,
        views: TableViews,
        shuffler: Callable[[], Shuffler] = SecureShuffler,
        *,
        fair: bool | None = None,
        specs: Sequence[TableSpec] = DEFAULT_TABLES,
        time_limit: float = 30.0,
        pause: float = 1.5,
    ) -> None:
        self.wallet = wallet
        self.rules = rules
        self.time_limit = time_limit
        self.link = Link(wallet.db)
        #: this process's connections, by id (the other processes' messages find them)
        self.local: dict[int, tuple[LiveChemmy, Connection]] = {}
        self._ids = itertools.count(1)
        #: the commands this process waits for, by id
        self.asked: dict[int, asyncio.Future[dict[str, Any]]] = {}
        #: the highest epoch a message came from, by table (older owners' are dropped)
        self.latest: dict[int, int] = {}
        #: how many other processes live (from the last heartbeat)
        self.others = 0
        #: the heartbeat as it stands: its last success (the wall clock), its failures in
        #: a row since, and the last failure in one line
        self.beat_at: datetime | None = None
        self.beat_failures = 0
        self.beat_error: str | None = None
        #: this process's presence rows need writing again
        self.presence_dirty = False
        self.tables = {
            spec.id: LiveChemmy(
                spec,
                rules,
                wallet,
                shuffler,
                fair=shuffler is SecureShuffler if fair is None else fair,
                time_limit=time_limit,
                pause=pause,
                hub=self,
                views=views,
            )
            for spec in specs
        }
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ready = asyncio.Event()
        self.router_wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._listener: Listener | None = None
        self._recovered: set[int] = set()
        self._recovering = asyncio.Lock()

    def new_connection_id(self) -> int:
        return next(self._ids)

    def get(self, table_id: int) -> LiveChemmy:
        found = self.tables.get(table_id)
        if found is None:
            raise Refused(404, f"there is no chemin de fer table {table_id}")
        self.start()
        return found

    def start(self) -> None:
        """Start this process's heartbeat and its reading of the other processes' messages
        (once per event loop: a test client may run each request in a loop of its own)."""
        loop = asyncio.get_running_loop()
        if self.loop is loop:
            return
        self.loop = loop
        self.ready = asyncio.Event()
        self.router_wake = asyncio.Event()
        self._recovering = asyncio.Lock()
        for table in self.tables.values():
            table.bind()
        self._tasks = [loop.create_task(self._coordinate()), loop.create_task(self._route())]
        if self.link.notifies and self._listener is None:
            channels = [self.link.process_channel(self.link.process)]
            channels += [self.link.table_channel(t) for t in self.tables]
            self._listener = Listener(self.wallet.db, channels, self._notified)
            self._listener.start()

    async def ready_wait(self) -> None:
        """Wait (a little) for this process's first heartbeat and for the tables it took
        to be recovered (what their last owner left finished), so that a first request
        sees them as they are."""
        owned = [t for t in self.tables.values() if t.owner and not t.settled.is_set()]
        if self.ready.is_set() and not owned:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(READY_WAIT):
                await self.ready.wait()
                for table in self.tables.values():
                    if table.owner:
                        await table.settled.wait()

    def _notified(self, channel: str) -> None:
        """(The listener's thread.)  A NOTIFY came: wake who waits for it."""
        loop = self.loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed
            loop.call_soon_threadsafe(self._wake_for, channel)

    def _wake_for(self, channel: str) -> None:
        if channel in ("*", self.link.process_channel(self.link.process)):
            self.router_wake.set()
        for table_id, table in self.tables.items():
            if channel in ("*", self.link.table_channel(table_id)):
                table.inbox_wake.set()

    async def health(self) -> dict[str, Any]:
        """How this process's side of the tables stands: its heartbeat, its listener (on
        PostgreSQL), and each table's lease (driven here, by another process, or by none).
        A :class:`StorageError` where the database cannot be read.  Waits (a little)
        for this process's first heartbeat, as the lobby does."""
        self.start()
        await self.ready_wait()
        views = await asyncio.to_thread(self.link.views, list(self.tables))
        tables = []
        for table_id, table in self.tables.items():
            view = views.get(table_id)
            driven = view is not None and view.driven
            tables.append(
                {
                    "id": table_id,
                    "name": table.spec.name,
                    "lease": "here" if table.owner else "elsewhere" if driven else "none",
                }
            )
        return {
            "heartbeat": {
                "last": None if self.beat_at is None else self.beat_at.isoformat(),
                "failures": self.beat_failures,
                "error": self.beat_error,
            },
            "listener": None if self._listener is None else self._listener.health.to_json(),
            "tables": tables,
        }

    # -- the heartbeat ---------------------------------------------------------------------
    async def _coordinate(self) -> None:
        beats = 0
        refs = {table_id: table.table_ref for table_id, table in self.tables.items()}
        while True:
            try:
                await self._beat(refs, purge=beats % 30 == 0)
                self.beat_at, self.beat_failures, self.beat_error = datetime.now(UTC), 0, None
            except asyncio.CancelledError:
                raise
            except StorageError as err:
                self.beat_failures += 1
                self.beat_error = str(err)
                log.warning("chemin de fer: the heartbeat failed: %s", err)
            except Exception as err:
                self.beat_failures += 1
                self.beat_error = f"{type(err).__name__}: {err}"
                log.exception("chemin de fer: the heartbeat failed")
            self.ready.set()
            beats += 1
            await asyncio.sleep(HEARTBEAT)

    async def _beat(self, refs: dict[int, str], purge: bool) -> None:
        owned = {t_id: t.epoch for t_id, t in self.tables.items() if t.owner}
        beat = await asyncio.to_thread(self.link.beat, refs, owned)
        self.others = beat.others
        if beat.registered and self.local:  # taken for dead: our presence rows are gone
            self.presence_dirty = True
        for table_id in owned:
            if table_id not in beat.held:
                self.tables[table_id].drop_ownership()
        for table_id, epoch in beat.taken.items():
            self.tables[table_id].take(epoch)
        if self.presence_dirty:
            self.presence_dirty = False
            rows = [
                (conn.id, table.spec.id, conn.account_id, conn.name)
                for table, conn in self.local.values()
            ]
            try:
                await asyncio.to_thread(self.link.sync_presence, rows)
            except StorageError:
                self.presence_dirty = True
                raise
        if purge:
            await asyncio.to_thread(self.link.purge)

    # -- messages from the other processes -------------------------------------------------
    async def _route(self) -> None:
        """Send this process's connections the messages other processes' tables wrote
        for them, and hand the answers to the commands it waits for."""
        while True:
            wanted = self._wanted()
            timeout = self.link.poll if wanted else None
            woken = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self.router_wake.wait()
                woken = True
            self.router_wake.clear()
            if not woken and not self._wanted():
                continue
            try:
                posted, answers = await asyncio.to_thread(self.link.collect, list(self.asked))
            except asyncio.CancelledError:
                raise
            except StorageError as err:
                log.warning("chemin de fer: reading the other processes' messages: %s", err)
                await asyncio.sleep(1)
                continue
            for row in posted:
                if row.epoch < self.latest.get(row.table_id, 0):
                    continue  # from an owner the table has had since
                self.latest[row.table_id] = row.epoch
                for connection, message in row.messages:
                    found = self.local.get(connection)
                    if found is not None and not found[0].owner:
                        found[1].queue.put_nowait(message)
            for command, answer in answers.items():
                waiting = self.asked.get(command)
                if waiting is not None and not waiting.done():
                    waiting.set_result(answer)

    def _wanted(self) -> bool:
        """Does this process wait for messages or answers from another process?"""
        return bool(self.asked) or any(not table.owner for table, _ in self.local.values())

    async def ask(
        self, table_id: int, kind: str, account_id: int, body: dict[str, Any], wait: float
    ) -> dict[str, Any]:
        """Send the table's owner (whichever process it is) a command; its answer, or a
        :class:`Refused` when none comes within ``wait`` seconds (the command is then
        given up: it will not be done later)."""
        command = await asyncio.to_thread(self.link.send, table_id, account_id, kind, body, wait)
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.asked[command] = waiting
        self.router_wake.set()
        try:
            async with asyncio.timeout(wait):
                return await asyncio.shield(waiting)
        except TimeoutError:
            answer = await asyncio.to_thread(self.link.cancel, command)
            if answer is not None:
                return answer
            raise Refused(503, NOT_ANSWERING) from None
        finally:
            self.asked.pop(command, None)

    # -- what the routes ask ---------------------------------------------------------------
    async def lobby(
        self, account_id: int | None = None
    ) -> tuple[list[dict[str, Any]], list[dict[str, int]]]:
        """Every table as everybody may see it (each read between two steps of its game,
        or as its owner last published it), and the account's seats (``{"table",
        "seat"}`` each)."""
        self.start()
        await self.ready_wait()
        others = [t_id for t_id, table in self.tables.items() if not table.owner]
        views = await asyncio.to_thread(self.link.views, others) if others else {}
        tables: list[dict[str, Any]] = []
        mine: list[dict[str, int]] = []
        for table_id, table in self.tables.items():
            found = views.get(table_id)
            if table.owner or found is None or found.table is None:
                async with table.lock:
                    data = table.table_json()
                    seat = None if account_id is None else table.seat_of(account_id)
            else:
                data = found.table
                seated = found.seated
                seat = seated.index(account_id) if account_id in seated else None
            tables.append(data)
            if seat is not None:
                mine.append({"table": table_id, "seat": seat})
        return tables, mine

    async def recover(self, account_id: int) -> int:
        """Once per account and process: finish the coups a stopped process left at web
        tables that no process serves or will take over (tables this process serves are
        finished by whichever process takes their lease), and bring those stacks back to
        the wallet.  Returns how many coups were finished."""
        if account_id in self._recovered:
            return 0
        self.start()
        async with self._recovering:
            if account_id in self._recovered:
                return 0
            served = {table.table_ref for table in self.tables.values()}

            def work() -> int:
                live = self.link.live_refs()

                def skip(ref: str | None) -> bool:
                    web = ref is not None and ref.startswith(WEB_TABLE)
                    return not web or ref in served or ref in live

                return len(finish_interrupted_coups(self.wallet, account_id, skip))

            finished = await asyncio.to_thread(work)
            self._recovered.add(account_id)
            return finished

    async def close(self) -> None:
        """Stop: the drivers (each between two calls on its table), the heartbeat, the
        listening; give up the leases (a coup in progress is left saved in progress: the
        process that takes the table next finishes it) and this process's presence."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        self.loop = None  # (started again, it starts afresh)
        owned = [t_id for t_id, table in self.tables.items() if table.owner]
        for table in self.tables.values():
            await table.stop()
            table.owner = False
        if self._listener is not None:
            await asyncio.to_thread(self._listener.stop)
            self._listener = None
        try:
            await asyncio.to_thread(self.link.release, owned)
            await asyncio.to_thread(self.link.retire)
        except StorageError as err:
            log.warning("chemin de fer: giving the tables up: %s", err)


__all__ = ["ChemmyTables"]
