"""A live chemin de fer table: people and bots, on any number of server processes.

Each table (:class:`LiveChemmy`) is driven by exactly one process at a time, the one that
holds its lease in the database (:mod:`~cardroom.app.tables.live.link`).  There the table
is a :class:`~cardroom.app.tables.chemmy.ChemmyTable` in memory, played by its driver
(:mod:`~cardroom.app.tables.live.driver`); every call on it is made under the table's
asyncio lock as one step (:mod:`~cardroom.app.tables.live.steps`), all or nothing, and
each step's messages go to the connections.  A process that does not drive a table
forwards its connections' requests to the owner as commands
(:mod:`~cardroom.app.tables.live.inbox`) and waits for the answer; it shows the table
as the owner last published it.

A person whose last connection (on any process) closes keeps the seat for the time limit
(their turns meanwhile are played for them); then they stand up, with their stack back
in the wallet (after the coup in progress, if any).  When the owner stops, another
process takes the lease within a few seconds, finishes the coup it left with the same
cards and decisions (:func:`~cardroom.app.tables.chemmy.finish_table_coups`), brings every
stack back to its wallet and starts the table again with its bots.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from cardroom.app.tables.chemmy import GAME, ChemmyTable
from cardroom.app.tables.live.acts import Acts
from cardroom.app.tables.live.base import (
    ANSWER_SLACK,
    ANSWER_WAIT,
    BUY_IN_MAXIMA,
    DATABASE_FAILED,
    JOIN_WAIT,
    SEATS,
    TURNS_PER_EPOCH,
    WEB_TABLE,
    Connection,
    Refused,
    TableSpec,
    TableViews,
    bot_name,
    seated_names,
)
from cardroom.app.tables.live.driver import Driver
from cardroom.app.tables.live.inbox import Inbox
from cardroom.app.tables.live.link import LeaseLost
from cardroom.app.tables.live.steps import Steps
from cardroom.app.tables.seeds import FairShoe, ShoeSeeds
from cardroom.app.wallet import Account, Wallet
from cardroom.core.money import format_amount
from cardroom.core.shoe import Shoe, Shuffler
from cardroom.games.base import Turn
from cardroom.games.spec import SeatsRules
from cardroom.storage import StorageError

if TYPE_CHECKING:
    from cardroom.app.tables.live.hub import ChemmyTables

log = logging.getLogger("cardroom.tables")


class LiveChemmy:
    """One chemin de fer table (see the module's words): its state, what people ask of
    it, and whether this process drives it.  Its parts: :attr:`steps` (a step, all or
    nothing, and its messages), :attr:`driver` (the coups), :attr:`acts` (a person's
    seat, leaving and decisions, done by the owner) and :attr:`inbox` (the other
    processes' connections and commands)."""

    def __init__(
        self,
        spec: TableSpec,
        rules: SeatsRules,
        wallet: Wallet,
        shuffler: Callable[[], Shuffler],
        *,
        fair: bool = False,
        time_limit: float,
        pause: float,
        hub: ChemmyTables,
        views: TableViews,
    ) -> None:
        self.spec = spec
        self.rules = rules
        self.wallet = wallet
        self.shuffler = shuffler
        #: live play: shoes anyone can verify (docs/fairness.md); an injected shuffler (a
        #: seeded run, a test) keeps its own shuffles
        self.fair = fair
        self.seeds = ShoeSeeds(wallet.db)
        self.time_limit = time_limit
        self.pause = pause
        self.hub = hub
        self.views = views
        self.link = hub.link
        self.table_ref = f"{WEB_TABLE}{spec.id}"
        bots = min(spec.bots, spec.seats - 1)
        self.bot_seats = tuple(range(spec.seats - 1, spec.seats - 1 - bots, -1))
        self.bot_stack = rules.table.maximum
        self.table = self.new_table()
        #: does this process drive the table (hold its lease), and at which epoch
        self.owner = False
        self.epoch = 0
        #: has the owner finished what the table's last owner left (its first step)
        self.recovered = False
        #: set once the owner has recovered (a first request waits for it: see
        #: :meth:`ChemmyTables.ready_wait`)
        self.settled = asyncio.Event()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.inbox_wake = asyncio.Event()
        #: the person's turn the driver waits for, and when the wait ends (monotonic)
        self.pending: Turn | None = None
        self.deadline = 0.0
        #: this process's connections at the table (a new set on every change: a step in
        #: a worker thread may be reading the old one)
        self.connections: frozenset[Connection] = frozenset()
        #: (the owner's) the connections other processes hold here, by (process, id)
        self.remote: dict[tuple[str, int], Connection] = {}
        #: account id -> since when the person has had no connection (monotonic)
        self.away: dict[int, float] = {}
        #: people asking to sit down: the driver starts no coup while they wait
        self.joining = 0
        #: counts the games of this table (a new game starts a new log)
        self.game_number = 0
        self.notices: list[str] = []
        #: counts the turns waited for (each turn's id)
        self.turns = 0
        #: the view last published (table JSON, seated JSON)
        self.published: tuple[str, str] | None = None
        self.steps = Steps(self)
        self.driver = Driver(self)
        self.acts = Acts(self)
        self.inbox = Inbox(self)
        self.task: asyncio.Task[None] | None = None
        self.inbox_task: asyncio.Task[None] | None = None

    def new_table(self) -> ChemmyTable:
        """The table as it starts: a new shoe, and the bots at their seats."""
        source = (
            FairShoe(self.rules.shoe, self.seeds, self.table_ref, GAME.id)
            if self.fair
            else Shoe(self.rules.shoe, self.shuffler())
        )
        table = ChemmyTable(
            self.rules,
            source,
            self.wallet,
            np.random.default_rng(),
            seat_count=self.spec.seats,
            table_ref=self.table_ref,
        )
        for n, seat in enumerate(self.bot_seats):
            name = bot_name(seated_names(table), n)
            table.sit_bot(seat, name, self.bot_stack, SEATS.table_bot(self.rules))
        return table

    def bind(self) -> None:
        """New asyncio objects, for the running event loop (and the driver again there,
        where this process owns the table)."""
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.inbox_wake = asyncio.Event()
        self.settled = asyncio.Event()
        if self.recovered:
            self.settled.set()
        self.task = self.inbox_task = None
        if self.owner:
            self._start_tasks()

    # -- the table as it stands ------------------------------------------------------------
    def seat_of(self, account_id: int) -> int | None:
        """The account's seat (as this process knows the table: the owner's)."""
        for seat, held in enumerate(self.table.seats):
            if held.is_person and held.account_id == account_id:
                return seat
        return None

    def buy_in_range(self) -> tuple[Fraction, Fraction]:
        table = self.rules.table
        return table.minimum, table.maximum * BUY_IN_MAXIMA

    def shoe_json(self) -> dict[str, object] | None:
        """The shoe as anyone at the table may see it: the commitment of the shoe dealing
        and of the next, and the last shoe whose seed is revealed (None: not a shoe
        anyone can verify)."""
        source = self.table.source
        return source.to_json() if isinstance(source, FairShoe) else None

    def table_json(self) -> dict[str, object]:
        """The table as everybody may see it (the presentation's view of it)."""
        return self.views.table(self)

    def quiet(self) -> bool:
        """Is the table between coups (or not playing)?"""
        game = self.table.game
        return game is None or game.between_coups or game.is_over

    def logged(self) -> int:
        """How long the game's log is (0 before a game): did a step's change get told?"""
        game = self.table.game
        return 0 if game is None else len(game.log)

    def new_game(self) -> None:
        self.table.new_game()
        self.game_number += 1

    def due(self) -> float:
        """When the turn waited for is played for its seat: at the turn's time limit, or
        sooner where the person is away and their time away runs out first (a seat
        whose page closed is stood up about the time limit after, and its turns in the
        meantime do not wait a time limit each)."""
        turn = self.pending
        if turn is None:
            return self.deadline
        held = self.table.seats[turn.seat]
        since = self.away.get(held.account_id) if held.account_id is not None else None
        if since is None:
            return self.deadline
        return min(self.deadline, since + self.time_limit)

    def connected(self) -> set[int]:
        """The accounts with a connection to the table, on any process."""
        return {c.account_id for c in self.connections} | {
            c.account_id for c in self.remote.values()
        }

    def mark_away(self) -> None:
        """Away marks as the connections are now: a seated person with none is away
        (since now, if they were not already), one with a connection is not."""
        connected = self.connected()
        seated = {held.account_id for held in self.table.seats if held.is_person}
        now = time.monotonic()
        for account_id in seated:
            if account_id is None:
                continue
            if account_id in connected:
                self.away.pop(account_id, None)
            else:
                self.away.setdefault(account_id, now)
        for account_id in list(self.away):
            if account_id not in seated:
                del self.away[account_id]

    # -- what people ask -------------------------------------------------------------------
    def start(self) -> None:
        """Start this process's part (once, in the running event loop)."""
        self.hub.start()

    async def sit(self, account: Account, seat: int | None, buy_in: Fraction) -> dict[str, object]:
        """``account`` sits down at ``seat`` (None: the first empty seat) with ``buy_in``
        from their wallet, between coups (waiting for the coup in progress to end)."""
        minimum, maximum = self.buy_in_range()
        if buy_in < minimum or buy_in > maximum:
            raise Refused(
                422,
                f"a buy-in is {format_amount(minimum)} to {format_amount(maximum)}, "
                f"not {format_amount(buy_in)}",
            )
        if seat is not None and not 0 <= seat < self.spec.seats:
            raise Refused(422, f"there is no seat {seat + 1} (the table has {self.spec.seats})")
        balance = await asyncio.to_thread(self.wallet.accounts.balance, account.id)
        if buy_in > balance:
            raise Refused(
                409,
                f"a buy-in of {format_amount(buy_in)} is more than your balance of "
                f"{format_amount(balance)}",
            )
        give_up = time.monotonic() + JOIN_WAIT
        if self.owner:
            seated = await self.acts.sit_waiting(account, seat, buy_in, give_up, None)
            if seated is not None:
                return seated
        left = max(1.0, give_up - time.monotonic())
        body = {"seat": seat, "buy_in": str(buy_in)}
        return await self._ask("sit", account.id, account.name, body, left + ANSWER_SLACK)

    async def leave(self, account: Account) -> dict[str, object]:
        """``account`` stands up: between coups at once (their stack goes back to the
        wallet), in a coup once it ends (the absent policy plays for them till then)."""
        if self.owner:
            async with self.lock:
                if self.owner:
                    try:
                        return await self.acts.leave_account(account.id, None)
                    except LeaseLost:  # nothing was done: the new owner is asked
                        self.drop_ownership()
        return await self._ask("leave", account.id, account.name, {}, ANSWER_WAIT)

    async def act(self, conn: Connection, action: object, amount: object) -> str | None:
        """A decision sent over the connection; the refusal in words (None: taken)."""
        if self.owner:
            async with self.lock:
                if self.owner:
                    return await self.acts.act(conn.account_id, action, amount, None)
        try:
            answer = await self._ask(
                "act", conn.account_id, conn.name, {"action": action, "amount": amount}, ANSWER_WAIT
            )
        except Refused as err:
            return err.message
        error = answer.get("error")
        return None if error is None else str(error)

    async def connect(self, account_id: int, name: str) -> Connection:
        """A connection of this process opens at the table: it is sent the table at once
        (and by the owner, from then on, every step)."""
        conn = Connection(account_id, name, id=self.hub.new_connection_id())
        self.connections = self.connections | {conn}
        self.hub.local[conn.id] = (self, conn)
        if self.owner:
            async with self.lock:
                if self.owner:
                    self.mark_away()
                    seated = self.seat_of(account_id) is not None
                    await self.steps.push_now(None if seated else [conn])
        if conn.game == -1:  # another process drives the table: what it last published
            conn.queue.put_nowait(await self._first_view(conn))
        try:
            await asyncio.to_thread(self.link.add_presence, conn.id, self.spec.id, account_id, name)
        except StorageError as err:
            log.warning("chemin de fer: a connection's presence: %s", err)
            self.hub.presence_dirty = True
        self.hub.router_wake.set()
        return conn

    async def _first_view(self, conn: Connection) -> dict[str, object]:
        """The first message to a connection at a table another process drives: the table
        as its owner last published it (no events: the owner's first message resets)."""
        try:
            found = (await asyncio.to_thread(self.link.views, [self.spec.id])).get(self.spec.id)
        except StorageError:
            found = None
        table_json = found.table if found is not None and found.table else self.table_json()
        seated = found.seated if found is not None else []
        seat = seated.index(conn.account_id) if conn.account_id in seated else None
        return self.views.first(conn, table_json, seat)

    async def disconnect(self, conn: Connection) -> None:
        """A connection of this process closes."""
        self.connections = self.connections - {conn}
        self.hub.local.pop(conn.id, None)
        try:
            await asyncio.to_thread(self.link.drop_presence, conn.id, self.spec.id)
        except StorageError as err:
            log.warning("chemin de fer: a connection's presence: %s", err)
            self.hub.presence_dirty = True
        if self.owner and self.seat_of(conn.account_id) is not None:
            async with self.lock:
                if self.owner:
                    self.mark_away()
                    await self.steps.push_now()
            self.wake.set()

    async def snapshot(self) -> dict[str, object]:
        """:meth:`table_json` between two steps of the game (under the lock), or as the
        process that drives the table last published it."""
        self.start()
        await self.hub.ready_wait()
        if self.owner:
            async with self.lock:
                return self.table_json()
        found = (await asyncio.to_thread(self.link.views, [self.spec.id])).get(self.spec.id)
        return found.table if found is not None and found.table else self.table_json()

    async def _ask(
        self, kind: str, account_id: int, name: str, body: Mapping[str, object], wait: float
    ) -> dict[str, object]:
        """Send the table's owner a command and wait for its answer (``{"ok": ...}`` or
        ``{"error": ...}``; a refusal is raised)."""
        try:
            answer = await self.hub.ask(
                self.spec.id, kind, account_id, {"name": name, **body}, wait
            )
        except StorageError as err:
            log.warning("chemin de fer: asking table %s: %s", self.spec.id, err)
            raise Refused(503, DATABASE_FAILED) from None
        refused = answer.get("refused")
        if isinstance(refused, list) and len(refused) == 2:
            raise Refused(int(refused[0]), str(refused[1]))
        if "ok" in answer:
            result: dict[str, object] = answer["ok"]
            return result
        return answer

    # -- owning the table --------------------------------------------------------------------
    def take(self, epoch: int) -> None:
        """This process holds the table's lease now (at ``epoch``): drive it, beginning
        with what the last owner left."""
        self.owner = True
        self.epoch = epoch
        self.turns = epoch * TURNS_PER_EPOCH  # turn ids go on growing from owner to owner
        self.recovered = False
        self.settled.clear()
        self.pending = None
        self.remote.clear()
        self.away.clear()
        self.inbox.handled.clear()
        self.published = None
        self.hub.latest[self.spec.id] = epoch
        log.info("chemin de fer table %s: this process drives it (epoch %s)", self.spec.id, epoch)
        self._start_tasks()

    def _start_tasks(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done():
            self.task = loop.create_task(self.driver.run())
        if self.inbox_task is None or self.inbox_task.done():
            self.inbox_task = loop.create_task(self.inbox.run())

    def drop_ownership(self) -> None:
        """The lease is gone (another process took the table): stop driving it."""
        if not self.owner:
            return
        self.owner = False
        log.warning("chemin de fer table %s: another process drives it now", self.spec.id)
        asyncio.get_running_loop().create_task(self._retire())

    async def _retire(self) -> None:
        async with self.lock:
            if self.owner:  # taken again meanwhile
                return
            current = asyncio.current_task()
            for task in (self.task, self.inbox_task):
                if task is not None and task is not current:
                    task.cancel()
            self.task = self.inbox_task = None
            self.table = self.new_table()
            self.pending = None
            self.remote.clear()
            self.away.clear()
            self.published = None
            for conn in self.connections:  # the next message (the new owner's) resets
                conn.game = -1
        self.wake.set()

    async def stop(self) -> None:
        """Stop driving (the process shuts down), between two calls on the table."""
        tasks = []
        async with self.lock:
            for task in (self.task, self.inbox_task):
                if task is not None:
                    task.cancel()
                    tasks.append(task)
            self.task = self.inbox_task = None
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


__all__ = ["LiveChemmy"]
