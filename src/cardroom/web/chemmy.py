"""The chemin de fer tables of the web: people and bots, on any number of server processes.

Each table (:class:`LiveChemmy`) is driven by exactly one process at a time, the one that
holds its lease in the database (:mod:`cardroom.web.chemmy_link`).  There the table is a
:class:`~cardroom.app.tables.chemmy.ChemmyTable` in memory, run by one asyncio task, its
*driver*: while at least one person sits there it plays coups one after the other, and
where a person must decide it waits for their answer up to the table's time limit, then
lets the absent policy play for them (:meth:`ChemmyTable.play_for`).  Every call on the
ChemmyTable is made under the table's asyncio lock, in a worker thread, inside one
database transaction (:meth:`LiveChemmy._transact`) that first checks the lease (the
fence), then makes the step with the wallet's writes, then writes what the step tells the
other processes; if the transaction fails, the table in memory is put back as it was
(:meth:`ChemmyTable.restore`) and nothing was done.

Each WebSocket connection is a :class:`Connection` with a queue of messages; after every
step the owner composes for each connection the events its seat may see
(:meth:`ChemmyTable.events_for`: another seat's face-down cards never leave the owner),
the table (seats, stacks, banker, bank), and for the seat whose turn it is, its legal
actions with their bounds.  Messages to its own connections go on their queues; those to
connections other processes hold go into the database (``chemmy_outbox``) in the step's
transaction, and those processes send them on.  A process that does not drive a table
forwards its connections' seats, leavings and decisions to the owner as commands and
waits for the answer; it reads the table for its lobby from what the owner published.

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
import copy
import itertools
import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
from sqlalchemy import Connection as Transaction

from cardroom.app.names import name_key, name_skeleton
from cardroom.app.tables.chemmy import (
    ChemmyTable,
    TableCheckpoint,
    finish_interrupted_coups,
    finish_table_coups,
)
from cardroom.app.wallet import Account, Wallet
from cardroom.app.words import capital, plain
from cardroom.core.events import (
    CoupEvent,
    DrawForBank,
    HandCard,
    HandShown,
    SeatLeft,
    SeatTaken,
    event_to_json,
)
from cardroom.core.money import AmountError, format_amount, parse_amount
from cardroom.core.shoe import SecureShuffler, Shoe, Shuffler
from cardroom.games import seats_game
from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer import ChemmyAction
from cardroom.games.chemin_de_fer.words import ChemmyNarrator, chemmy_turn_text
from cardroom.games.spec import SeatsRules
from cardroom.storage import StorageError
from cardroom.web.cards import card_label
from cardroom.web.chemmy_link import (
    HEARTBEAT,
    Command,
    CommandGone,
    LeaseLost,
    Link,
    Listener,
    Presence,
)
from cardroom.web.coups import WEB_TABLE
from cardroom.web.views import money

log = logging.getLogger("cardroom.web")

#: the table of seats of the game these tables deal (its bots)
SEATS = seats_game().seated()

T = TypeVar("T")

#: The bots' names, seat by seat from the last seat down.
BOT_NAMES = ("Aino", "Eero", "Helmi", "Onni", "Siiri", "Kalle", "Kerttu", "Veikko")
#: The largest buy-in, in table maxima.
BUY_IN_MAXIMA = 10
#: How long a person's request to sit down waits for the coup in progress to end.
JOIN_WAIT = 60.0
#: How long a process waits for another process's table to answer a decision or a leaving.
ANSWER_WAIT = 15.0
#: What a forwarded seat request waits beyond :data:`JOIN_WAIT` (the owner's answer).
ANSWER_SLACK = 10.0
#: How long the first request waits for this process's first heartbeat (its tables taken).
READY_WAIT = 15.0
#: Unexpected failures of a table's step in a row after which it is set up again from
#: the database (its coup finished as a stopped process's would be).
FAILURES_BEFORE_RESET = 3

#: Each owner of a table counts its turns' ids from its epoch times this, so that a
#: turn's id is never one a client saw from an earlier owner.
TURNS_PER_EPOCH = 1_000_000
#: What a person reads when the database fails their decision (nothing was done).
DATABASE_FAILED = "the database could not save that, so nothing was done: try again"
#: What a person reads when no process answers for the table.
NOT_ANSWERING = (
    "the table is not answering (the server that runs it may have stopped; another takes "
    "over within seconds): try again"
)
#: What a person reads when the table moved to another process in the middle of a request.
MOVED = "the table has just moved to another server: try again"


class Refused(Exception):
    """A request the table turns down: its HTTP status and one line for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class TableSpec:
    """A table of the lobby: ``seats`` seats, the last ``bots`` of them held by bots."""

    id: int
    name: str
    seats: int
    bots: int


DEFAULT_TABLES = (TableSpec(1, "Table 1", 4, 1), TableSpec(2, "Table 2", 5, 2))


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table: whose it is, and what it has been sent.

    ``process`` is None for this process's own WebSockets (their messages go on
    ``queue``); the owner of a table also keeps one for each WebSocket another process
    holds there (``process`` names it; their messages go through the database).
    """

    account_id: int
    name: str
    id: int = 0
    process: str | None = None
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    #: the game (of this table) and the index in its log it has been sent up to
    game: int = -1
    sent: int = 0
    #: tells the events to this connection's person (it remembers who holds the bank)
    narrator: ChemmyNarrator | None = None
    #: the person's seat as the last message told it (their own events are told "You"
    #: up to the moment they stand up)
    seat: int | None = None


@dataclass
class _Batch:
    """What one step tells the connections: messages for this process's, messages for
    other processes' (by process: connection id and message), and the published view."""

    local: list[tuple[Connection, dict[str, Any]]]
    remote: dict[str, list[tuple[int, dict[str, Any]]]]
    view: tuple[str, str]


@dataclass(frozen=True)
class _Saved:
    """A table's state in memory before a step (see :meth:`LiveChemmy._transact`)."""

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
class _Reply:
    """A command a step answers, in the step's transaction: ``make`` turns the step's
    result into the answer."""

    command: Command
    make: Callable[[Any], dict[str, Any]]


class LiveChemmy:
    """One chemin de fer table (see the module's words)."""

    def __init__(
        self,
        spec: TableSpec,
        rules: SeatsRules,
        wallet: Wallet,
        shuffler: Callable[[], Shuffler],
        *,
        time_limit: float,
        pause: float,
        hub: ChemmyTables,
    ) -> None:
        self.spec = spec
        self.rules = rules
        self.wallet = wallet
        self.shuffler = shuffler
        self.time_limit = time_limit
        self.pause = pause
        self.hub = hub
        self.link = hub.link
        self.table_ref = f"{WEB_TABLE}{spec.id}"
        bots = min(spec.bots, spec.seats - 1)
        self.bot_seats = tuple(range(spec.seats - 1, spec.seats - 1 - bots, -1))
        self.bot_stack = rules.table.maximum
        self.table = self._new_table()
        #: does this process drive the table (hold its lease), and at which epoch
        self.owner = False
        self.epoch = 0
        #: has the owner finished what the table's last owner left (its first step)
        self.recovered = False
        #: set once the owner has recovered (a first request waits for it: see
        #: :meth:`ChemmyHub.ready_wait`)
        self.settled = asyncio.Event()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.inbox_wake = asyncio.Event()
        #: the person's turn the driver waits for, and when the wait ends (monotonic)
        self.pending: Turn | None = None
        self.deadline = 0.0
        #: this process's WebSockets at the table (a new set on every change: a step in a
        #: worker thread may be reading the old one)
        self.connections: frozenset[Connection] = frozenset()
        #: (the owner's) the WebSockets other processes hold here, by (process, id)
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
        #: commands being carried out, or carried out, while this process owns the table
        self.handled: set[int] = set()
        #: (in a step) the messages of the step so far, one batch each time the table as
        #: people see it changed, and that table (see :meth:`_moved`)
        self._chunks: list[_Batch] | None = None
        self._chunk_view: dict[str, Any] | None = None
        self.task: asyncio.Task[None] | None = None
        self.inbox_task: asyncio.Task[None] | None = None

    def _new_table(self) -> ChemmyTable:
        """The table as it starts: a new shoe, and the bots at their seats."""
        table = ChemmyTable(
            self.rules,
            Shoe(self.rules.shoe, self.shuffler()),
            self.wallet,
            np.random.default_rng(),
            seat_count=self.spec.seats,
            table_ref=self.table_ref,
        )
        for n, seat in enumerate(self.bot_seats):
            name = bot_name(_seated_names(table), n)
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

    # -- what the routes ask -------------------------------------------------------------
    def seat_of(self, account_id: int) -> int | None:
        """The account's seat (as this process knows the table: the owner's)."""
        for seat, held in enumerate(self.table.seats):
            if held.is_person and held.account_id == account_id:
                return seat
        return None

    def start(self) -> None:
        """Start this process's part (once, in the running event loop)."""
        self.hub.start()

    async def sit(self, account: Account, seat: int | None, buy_in: Fraction) -> dict[str, Any]:
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
            seated = await self._sit_waiting(account, seat, buy_in, give_up, None)
            if seated is not None:
                return seated
        left = max(1.0, give_up - time.monotonic())
        body = {"seat": seat, "buy_in": str(buy_in)}
        return await self._ask("sit", account.id, account.name, body, left + ANSWER_SLACK)

    async def _sit_waiting(
        self,
        account: Account,
        seat: int | None,
        buy_in: Fraction,
        give_up: float,
        command: Command | None,
    ) -> dict[str, Any] | None:
        """(The owner.) Sit ``account`` down once the table is between coups; None if the
        table moved to another process meanwhile."""
        self.joining += 1
        self.wake.set()
        try:
            while self.owner:
                async with self.lock:
                    if not self.owner:
                        break
                    self._check_seat(account, seat)
                    if self._quiet():
                        try:
                            return await self._sit(account, seat, buy_in, command)
                        except LeaseLost:  # nothing was done: the new owner is asked
                            self._drop_ownership()
                            break
                if time.monotonic() > give_up:
                    raise Refused(409, "a coup is still under way at this table: try again")
                await asyncio.sleep(0.05)
            return None
        finally:
            self.joining -= 1
            self.wake.set()

    def _check_seat(self, account: Account, seat: int | None) -> int:
        """The seat ``account`` may take now (409 if none)."""
        table = self.table
        if self.seat_of(account.id) is not None:
            raise Refused(409, "you already have a seat at this table")
        if seat is None:
            empty = [n for n, held in enumerate(table.seats) if held.kind == "empty"]
            if not empty:
                raise Refused(409, "every seat of this table is taken")
            return empty[0]
        if table.seats[seat].kind != "empty":
            raise Refused(409, f"seat {seat + 1} is taken by {table.seats[seat].name}")
        return seat

    async def _sit(
        self, account: Account, wanted: int | None, buy_in: Fraction, command: Command | None
    ) -> dict[str, Any]:
        seat = self._check_seat(account, wanted)

        def step() -> dict[str, Any]:
            table = self.table
            game = table.game
            if game is not None and game.is_over:
                self._new_game()
            self._make_way(account.name)
            logged = self._logged()
            table.sit_person(seat, account.id, account.name, buy_in)
            self._mark_away()
            if self._logged() == logged:  # no game yet: its log does not tell it
                self.notices.append(
                    f"{account.name} sits down at seat {seat + 1} with {format_amount(buy_in)}"
                )
            return {"table": self.spec.id, "seat": seat, "stack": money(buy_in)}

        try:
            seated = await self._transact(step, reply=_reply(command, lambda r: {"ok": r}))
        except WagerError as err:
            status = 409 if "balance" in str(err) or "already" in str(err) else 422
            raise Refused(status, str(err)) from None
        self.wake.set()
        return seated

    def _make_way(self, name: str) -> None:
        """(In a step, between coups.)  A bot that goes by ``name`` (whatever its case)
        takes another name, so that the person of that name can sit down: two seats
        never share a name, and a bot's name never keeps a person out."""
        table = self.table
        for seat, held in enumerate(table.seats):
            if held.kind == "bot" and name_skeleton(held.name) == name_skeleton(name):
                old = held.name
                new = bot_name([*_seated_names(table), name], alike=name_skeleton)
                table.rename_bot(seat, new)
                self.notices.append(f"{old} (a bot) is now called {new}, to make way for {name}")

    def _logged(self) -> int:
        """How long the game's log is (0 before a game): did a step's change get told?"""
        game = self.table.game
        return 0 if game is None else len(game.log)

    async def leave(self, account: Account) -> dict[str, Any]:
        """``account`` stands up: between coups at once (their stack goes back to the
        wallet), in a coup once it ends (the absent policy plays for them till then)."""
        if self.owner:
            async with self.lock:
                if self.owner:
                    try:
                        return await self._leave_account(account.id, account.name, None)
                    except LeaseLost:  # nothing was done: the new owner is asked
                        self._drop_ownership()
        return await self._ask("leave", account.id, account.name, {}, ANSWER_WAIT)

    async def _leave_account(
        self, account_id: int, name: str, command: Command | None
    ) -> dict[str, Any]:
        seat = self.seat_of(account_id)
        if seat is None:
            raise Refused(409, "you have no seat at this table")
        return await self._leave(seat, None, command)

    async def _leave(
        self, seat: int, why: str | None, command: Command | None = None
    ) -> dict[str, Any]:
        """(Under the lock.) The person at ``seat`` goes (``why``: a line for the log that
        says why, when it is not their own choice)."""

        def step() -> dict[str, Any]:
            held = self.table.seats[seat]
            account_id, name = held.account_id, held.name
            logged = self._logged()
            stack = self.table.leave(seat)
            if self.pending is not None and self.pending.seat == seat:
                self.pending = None  # the absent policy plays that turn now
            if stack is None:
                later = f"{name} stands up after this coup"
                self.notices.append(f"{why}: {later}" if why else later)
                return {"table": self.spec.id, "seat": seat, "left": False, "stack": None}
            if account_id is not None:
                self.away.pop(account_id, None)
            if why:
                self.notices.append(why)
            if self._logged() == logged:  # (the game's log tells it where there is a game)
                self.notices.append(f"{name} stands up with {format_amount(stack)}")
            return {"table": self.spec.id, "seat": seat, "left": True, "stack": money(stack)}

        result = await self._transact(step, reply=_reply(command, lambda r: {"ok": r}))
        self.wake.set()
        return result

    async def act(self, conn: Connection, action: object, amount: object) -> str | None:
        """A decision sent over the WebSocket; the refusal in words (None: taken)."""
        if self.owner:
            async with self.lock:
                if self.owner:
                    return await self._act(conn.account_id, action, amount, None)
        try:
            answer = await self._ask(
                "act", conn.account_id, conn.name, {"action": action, "amount": amount}, ANSWER_WAIT
            )
        except Refused as err:
            return err.message
        error = answer.get("error")
        return None if error is None else str(error)

    async def _act(
        self, account_id: int, action: object, amount: object, command: Command | None
    ) -> str | None:
        """(The owner, under the lock.)  The decision, or why it is refused."""
        seat = self.seat_of(account_id)
        if seat is None:
            return "you have no seat at this table"
        turn = self.pending
        if turn is None or turn.seat != seat:
            return "it is not your turn"
        if not isinstance(action, str) or action not in turn.actions:
            allowed = ", ".join(sorted(turn.actions))
            return f"{str(action)[:40]!r} is not a choice now (choose {allowed})"
        value: Fraction | None = None
        if action in (ChemmyAction.PUT_BANK, ChemmyAction.STAKE):
            if not isinstance(amount, str):
                return f'{action} needs an amount, as a decimal string such as "20"'
            try:
                value = parse_amount(amount)
            except AmountError as err:
                return str(err)
        chosen = value

        def step() -> None:
            self.table.act(seat, action, chosen)
            self.pending = None

        try:
            await self._transact(step, reply=_reply(command, lambda _: {"error": None}))
        except (IllegalAction, WagerError) as err:
            return str(err)
        except LeaseLost:
            self._drop_ownership()
            return MOVED
        except StorageError as err:
            log.warning("chemin de fer table %s: a decision failed: %s", self.spec.id, err)
            return DATABASE_FAILED
        self.wake.set()
        return None

    async def connect(self, account_id: int, name: str) -> Connection:
        """A WebSocket of this process opens at the table: it is sent the table at once
        (and by the owner, from then on, every step)."""
        conn = Connection(account_id, name, id=self.hub.new_connection_id())
        self.connections = self.connections | {conn}
        self.hub.local[conn.id] = (self, conn)
        if self.owner:
            async with self.lock:
                if self.owner:
                    self._mark_away()
                    seated = self.seat_of(account_id) is not None
                    await self._push_now(None if seated else [conn])
        if conn.game == -1:  # another process drives the table: what it last published
            conn.queue.put_nowait(await self._first_view(conn))
        try:
            await asyncio.to_thread(self.link.add_presence, conn.id, self.spec.id, account_id, name)
        except StorageError as err:
            log.warning("chemin de fer: a connection's presence: %s", err)
            self.hub.presence_dirty = True
        self.hub.router_wake.set()
        return conn

    async def _first_view(self, conn: Connection) -> dict[str, Any]:
        """The first message to a connection at a table another process drives: the table
        as its owner last published it (no events: the owner's first message resets)."""
        try:
            found = (await asyncio.to_thread(self.link.views, [self.spec.id])).get(self.spec.id)
        except StorageError:
            found = None
        table_json = found.table if found is not None and found.table else self.table_json()
        seated = found.seated if found is not None else []
        seat = seated.index(conn.account_id) if conn.account_id in seated else None
        held = table_json["seats"][seat] if seat is not None else None
        return {
            "type": "update",
            "reset": True,
            "events": [],
            "table": table_json,
            "you": {
                "name": conn.name,
                "seat": seat,
                "stack": None if held is None else held["stack"],
                "leaving": bool(held and held["leaving"]),
            },
            "turn": None,
            "waiting_for": None,
            "notices": [],
        }

    async def disconnect(self, conn: Connection) -> None:
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
                    self._mark_away()
                    await self._push_now()
            self.wake.set()

    async def snapshot(self) -> dict[str, Any]:
        """:meth:`table_json` between two steps of the game (under the lock), or as the
        process that drives the table last published it."""
        self.start()
        await self.hub.ready_wait()
        if self.owner:
            async with self.lock:
                return self.table_json()
        found = (await asyncio.to_thread(self.link.views, [self.spec.id])).get(self.spec.id)
        return found.table if found is not None and found.table else self.table_json()

    def buy_in_range(self) -> tuple[Fraction, Fraction]:
        table = self.rules.table
        return table.minimum, table.maximum * BUY_IN_MAXIMA

    async def _ask(
        self, kind: str, account_id: int, name: str, body: dict[str, Any], wait: float
    ) -> dict[str, Any]:
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
            result: dict[str, Any] = answer["ok"]
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
        self.handled.clear()
        self.published = None
        self.hub.latest[self.spec.id] = epoch
        log.info("chemin de fer table %s: this process drives it (epoch %s)", self.spec.id, epoch)
        self._start_tasks()

    def _start_tasks(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done():
            self.task = loop.create_task(self._drive())
        if self.inbox_task is None or self.inbox_task.done():
            self.inbox_task = loop.create_task(self._inbox())

    def _drop_ownership(self) -> None:
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
            self.table = self._new_table()
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

    # -- the driver ----------------------------------------------------------------------
    async def _drive(self) -> None:
        failures = 0
        while self.owner:
            try:
                if not self.recovered:
                    await self._recover()
                await self._cycle()
                failures = 0
            except asyncio.CancelledError:
                raise
            except LeaseLost:
                self._drop_ownership()
                return
            except StorageError as err:  # the table is as before the step: try it again
                failures += 1
                log.warning(
                    "chemin de fer table %s: %s (the step is tried again)", self.spec.id, err
                )
                await asyncio.sleep(min(5.0, 0.5 * failures))
            except Exception:  # the table must go on: log it, wait a moment, go on
                failures += 1
                log.exception("chemin de fer table %s", self.spec.id)
                if failures >= FAILURES_BEFORE_RESET:
                    self.recovered = False  # set it up again from the database
                await asyncio.sleep(1)

    async def _recover(self) -> None:
        """Finish what the table's last owner left (its coup in progress, its people's
        stacks back to their wallets) and start the table again with its bots."""
        # the other processes' connections first, so that the people there are told too
        _, present = await asyncio.to_thread(self.link.table_inbox, self.spec.id)
        async with self.lock:
            fresh = self._new_table()
            self.remote = {
                (p.process, p.connection): Connection(
                    p.account_id, p.name, id=p.connection, process=p.process
                )
                for p in present
            }

            def step() -> tuple[int, int]:
                records, cashed = finish_table_coups(self.wallet, self.table_ref)
                self.table = fresh
                self.game_number += 1
                self.pending = None
                self.away.clear()
                if records or cashed:
                    self.notices.append(
                        "The table starts again: the server that ran it stopped, the coup in "
                        "progress was finished with the same cards (the absent policy made "
                        "the rest of its choices) and every stack went back to its wallet"
                    )
                return len(records), cashed

            finished, cashed = await self._transact(step)
            self.recovered = True
            self.settled.set()
            if finished or cashed:
                log.warning(
                    "chemin de fer table %s: taken over from a stopped process: finished %d "
                    "coup records (one per person in the coup), cashed out %d seats",
                    self.spec.id,
                    finished,
                    cashed,
                )
        self.inbox_wake.set()

    async def _cycle(self) -> None:
        turn = self.pending
        if turn is not None:  # a person's turn: wait for the answer up to the time limit
            left = self._due() - time.monotonic()
            if left > 0:
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):
                        await self.wake.wait()
                return
            async with self.lock:
                if self.pending is turn:
                    waiting = self.table.waiting_for()
                    if waiting is not None and waiting.seat == turn.seat:
                        name = self.table.seats[turn.seat].name
                        late = turn.seat

                        def play_for() -> None:
                            self.table.play_for(late)
                            self.pending = None
                            self.notices.append(f"time is up: {name}'s turn is played for them")

                        await self._transact(play_for)
                    else:
                        self.pending = None
                        await self._push_now()
            return
        async with self.lock:
            now = time.monotonic()
            gone = [a for a, since in self.away.items() if now - since >= self.time_limit]
            for away_id in gone:
                seat = self.seat_of(away_id)
                if seat is None:
                    self.away.pop(away_id, None)
                elif not self.table.seats[seat].leaving:
                    name = self.table.seats[seat].name
                    await self._leave(seat, f"{name} has been away too long")
            if self.table.people:
                step, turn = await self._transact(self._step)
            else:  # nobody's money is at the table: in memory only
                step, turn = self._step()
                if self.notices:
                    await self._push_now()
        if step == "idle":
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.25):
                    await self.wake.wait()
            return
        if turn is None and self.pause > 0:  # a coup (or the draw for the bank) has ended
            await asyncio.sleep(self.pause)

    def _quiet(self) -> bool:
        """Is the table between coups (or not playing)?"""
        game = self.table.game
        return game is None or game.between_coups or game.is_over

    def _step(self) -> tuple[str, Turn | None]:
        """(In a worker thread, under the lock.)  Between coups: stand up the people who
        cannot play on, replace the bots that cannot, start a new game where needed;
        then play on until a person must decide (the turn waited for) or the coup ends."""
        table = self.table
        minimum = self.rules.table.minimum
        if self._quiet():
            stacks = table.stacks
            broke = [seat for seat in table.people if stacks[seat] < minimum]
            for seat in sorted(broke, key=lambda s: table.seats[s].account_id or 0):
                name = table.seats[seat].name
                logged = self._logged()
                left = table.leave(seat) or Fraction(0)
                self.notices.append(
                    f"{name}'s stack is below the table minimum of {format_amount(minimum)}"
                )
                if self._logged() == logged:
                    self.notices.append(f"{name} stands up with {format_amount(left)}")
            game = table.game
            if game is not None and game.is_over:
                self._new_game()
            for n, seat in enumerate(self.bot_seats):
                held = table.seats[seat]
                if held.kind == "bot" and table.stacks[seat] >= minimum:
                    continue
                if held.kind == "bot":
                    table.stand_bot(seat)
                    if table.game is not None and table.game.is_over:
                        self._new_game()
                if table.seats[seat].kind == "empty":
                    name = bot_name(_seated_names(table), n, alike=name_skeleton)
                    logged = self._logged()
                    table.sit_bot(seat, name, self.bot_stack, SEATS.table_bot(self.rules))
                    if self._logged() == logged:
                        self.notices.append(f"{name} (a bot) sits down at seat {seat + 1}")
            if not table.people or self.joining:
                return "idle", None
            if table.game is None:
                if sum(1 for s in table.stacks if s >= minimum) < 2:
                    return "idle", None
                table.start()
                self.game_number += 1
                return "draw", None
        turn = table.advance(self._moved)
        if turn is None:
            return "ended", None
        self.pending = turn
        self.turns += 1
        self.deadline = time.monotonic() + self.time_limit
        return "turn", turn

    def _new_game(self) -> None:
        self.table.new_game()
        self.game_number += 1

    # -- one step, all or nothing ------------------------------------------------------------
    async def _transact(self, step: Callable[[], T], *, reply: _Reply | None = None) -> T:
        """(Under the lock.)  ``step`` on the table in one database transaction (in a
        worker thread): the lease checked first, then the step and the wallet's writes it
        makes, then what it tells the other processes (their connections' messages, the
        published view) and the command it answers.  Messages to this process's
        connections are sent once it has committed.  If it fails, the table in memory is
        put back as it was, and the error raised: nothing was done."""
        saved = self._save()
        tries = 0

        def work(conn: Transaction) -> tuple[T, _Batch]:
            nonlocal tries
            if tries:  # the database gave up on the last try: from the start again
                self._restore(saved)
            tries += 1
            self.link.fence(conn, self.spec.id, self.epoch)
            self._chunks, self._chunk_view = [], self.table_json()
            try:
                result = step()
                batch = _merge([*self._chunks, self._compose()])
            finally:
                self._chunks = self._chunk_view = None
            self._store(conn, batch)
            if reply is not None:
                command = reply.command
                self.link.answer(conn, command.id, command.process, reply.make(result))
            return result, batch

        future = asyncio.ensure_future(asyncio.to_thread(self.wallet.db.run, work))
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

    def _settle(self, done: asyncio.Future[tuple[Any, _Batch]], saved: _Saved) -> None:
        if done.cancelled() or done.exception() is not None:
            self._restore(saved)
        else:
            self._deliver(done.result()[1])

    def _deliver(self, batch: _Batch) -> None:
        self.published = batch.view
        for conn, message in batch.local:
            conn.queue.put_nowait(message)

    def _moved(self) -> None:
        """(In a step, after each card and decision the table plays.)  Where the table as
        people see it has changed (a bank put up, a stake, a coup settled), what is new
        so far goes out as a message of its own, with the table as it stands at that
        point.  A page shows a message's table once it has shown the message's events:
        so no stack, banker or coup number moves before the cards that decide it."""
        if self._chunks is None:
            return
        view = self.table_json()
        if view != self._chunk_view:
            self._chunks.append(self._compose(table_json=view))
            self._chunk_view = view

    def _save(self) -> _Saved:
        conns = [*self.connections, *self.remote.values()]
        return _Saved(
            table=self.table,
            checkpoint=self.table.checkpoint(),
            game_number=self.game_number,
            notices=list(self.notices),
            pending=self.pending,
            turns=self.turns,
            deadline=self.deadline,
            away=dict(self.away),
            cursors=[(c, c.game, c.sent, c.seat, copy.deepcopy(c.narrator)) for c in conns],
        )

    def _restore(self, saved: _Saved) -> None:
        self.table = saved.table
        self.table.restore(saved.checkpoint)
        self.game_number = saved.game_number
        self.notices = list(saved.notices)
        self.pending = saved.pending
        self.turns = saved.turns
        self.deadline = saved.deadline
        self.away = dict(saved.away)
        for conn, game, sent, seat, narrator in saved.cursors:
            conn.game, conn.sent, conn.seat = game, sent, seat
            conn.narrator = copy.deepcopy(narrator)

    def _store(self, conn: Transaction, batch: _Batch) -> None:
        """Inside the step's transaction: the other processes' messages, and the view
        where it changed."""
        for process, messages in batch.remote.items():
            self.link.post(conn, process, self.spec.id, self.epoch, messages)
        if batch.view != self.published:
            self.link.publish(conn, self.spec.id, *batch.view)

    async def _push_now(self, only: Iterable[Connection] | None = None) -> None:
        """(The owner, under the lock.)  Send what is new to the connections (all, or
        ``only``) when nothing on the table changed (somebody came or went): this
        process's at once, the others' through the database (if that fails, their next
        message starts again from the coup so far)."""
        batch = self._compose(only)
        for conn, message in batch.local:
            conn.queue.put_nowait(message)
        if not batch.remote and batch.view == self.published:
            return

        def work(conn: Transaction) -> None:
            self.link.fence(conn, self.spec.id, self.epoch)
            self._store(conn, batch)

        try:
            await asyncio.to_thread(self.wallet.db.run, work)
        except LeaseLost:
            self._drop_ownership()
            return
        except StorageError as err:
            log.warning("chemin de fer table %s: sending to other processes: %s", self.spec.id, err)
            for key in batch.remote:
                for connection_id, _ in batch.remote[key]:
                    gone = self.remote.get((key, connection_id))
                    if gone is not None:
                        gone.game = -1
            return
        self.published = batch.view

    # -- the owner's inbox: other processes' connections and commands ------------------------
    async def _inbox(self) -> None:
        """(The owner.)  Read the other processes' connections to the table and their
        commands, when woken (NOTIFY) or every poll while other processes live."""
        while self.owner:
            woken = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._inbox_poll()):
                    await self.inbox_wake.wait()
                woken = True
            self.inbox_wake.clear()
            if not self.owner:
                return
            if not self.recovered or (not woken and not self.hub.others and not self.remote):
                continue
            try:
                commands, present = await asyncio.to_thread(self.link.table_inbox, self.spec.id)
            except StorageError as err:
                log.warning("chemin de fer table %s: reading its inbox: %s", self.spec.id, err)
                await asyncio.sleep(1)
                continue
            async with self.lock:
                if not self.owner:
                    return
                await self._presence(present)
            for command in commands:
                if command.id not in self.handled:
                    self.handled.add(command.id)
                    asyncio.get_running_loop().create_task(self._handle(command))

    def _inbox_poll(self) -> float:
        if self.hub.others or self.remote:
            return self.link.poll
        return HEARTBEAT

    async def _presence(self, present: Sequence[Presence]) -> None:
        """(Under the lock.)  The other processes' connections are these now."""
        seen = {(p.process, p.connection): p for p in present}
        gone = [key for key in self.remote if key not in seen]
        new = [
            Connection(p.account_id, p.name, id=p.connection, process=p.process)
            for key, p in seen.items()
            if key not in self.remote
        ]
        if not gone and not new:
            return
        before = self._connected()
        for key in gone:
            del self.remote[key]
        for conn in new:
            self.remote[(str(conn.process), conn.id)] = conn
        self._mark_away()
        seated = {held.account_id for held in self.table.seats if held.is_person}
        changed = (before ^ self._connected()) & seated
        await self._push_now(None if changed else new)
        if changed:
            self.wake.set()

    async def _handle(self, command: Command) -> None:
        """(The owner.)  Carry out a command of another process and answer it."""
        body = command.body
        name = str(body.get("name", ""))
        try:
            if command.kind == "sit":
                seat = body.get("seat")
                account = Account(command.account_id, name, Fraction(0))
                buy_in = parse_amount(str(body.get("buy_in")))
                give_up = time.monotonic() + max(0.0, command.left - ANSWER_SLACK)
                wanted = seat if isinstance(seat, int) else None
                await self._sit_waiting(account, wanted, buy_in, give_up, command)
            elif command.kind == "leave":
                async with self.lock:
                    if self.owner:
                        await self._leave_account(command.account_id, name, command)
            elif command.kind == "act":
                async with self.lock:
                    if not self.owner:
                        return
                    error = await self._act(
                        command.account_id, body.get("action"), body.get("amount"), command
                    )
                if error is not None:
                    await self._reply(command, {"error": error})
        except Refused as err:
            await self._reply(command, {"refused": [err.status, err.message]})
        except (CommandGone, asyncio.CancelledError):
            pass
        except LeaseLost:
            self._drop_ownership()
        except StorageError as err:
            log.warning("chemin de fer table %s: a command failed: %s", self.spec.id, err)
            await self._reply(command, {"refused": [503, DATABASE_FAILED]})
        except Exception:
            log.exception("chemin de fer table %s: command %s", self.spec.id, command.id)
            await self._reply(command, {"refused": [500, "something went wrong at the table"]})

    async def _reply(self, command: Command, answer: dict[str, Any]) -> None:
        with contextlib.suppress(CommandGone, StorageError):  # the asker gave up, or will
            await asyncio.to_thread(self.link.reply, command.id, command.process, answer)

    # -- who is here -----------------------------------------------------------------------
    def _connected(self) -> set[int]:
        """The accounts with a connection to the table, on any process."""
        return {c.account_id for c in self.connections} | {
            c.account_id for c in self.remote.values()
        }

    def _mark_away(self) -> None:
        """Away marks as the connections are now: a seated person with none is away
        (since now, if they were not already), one with a connection is not."""
        connected = self._connected()
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

    # -- what is sent ---------------------------------------------------------------------
    def _compose(
        self, only: Iterable[Connection] | None = None, table_json: dict[str, Any] | None = None
    ) -> _Batch:
        """What is new for each connection (all, or ``only``), and the view to publish
        (``table_json``: the table as it is now, if already made)."""
        notices, self.notices = self.notices, []
        targets = list([*self.connections, *self.remote.values()] if only is None else only)
        if table_json is None:
            table_json = self.table_json()
        local: list[tuple[Connection, dict[str, Any]]] = []
        remote: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for conn in targets:
            message = self._update(conn, table_json, notices)
            if conn.process is None:
                local.append((conn, message))
            else:
                remote.setdefault(conn.process, []).append((conn.id, message))
        seated = [held.account_id if held.is_person else None for held in self.table.seats]
        view = (json.dumps(table_json, ensure_ascii=False), json.dumps(seated))
        return _Batch(local, remote, view)

    def _update(
        self, conn: Connection, table_json: dict[str, Any], notices: Sequence[str]
    ) -> dict[str, Any]:
        table = self.table
        game = table.game
        seat = self.seat_of(conn.account_id)
        reset = conn.game != self.game_number
        if game is None:
            events: list[CoupEvent] = []
            conn.sent = 0
        else:
            if reset:  # a new connection (or a new game): the coup so far and the last one
                first = max(0, game.coup - 1)
                conn.sent = next((n for n, e in enumerate(game.log) if e.coup >= first), 0)
            events = table.events_for(seat, conn.sent)
            conn.sent = len(game.log)
        conn.game = self.game_number
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
            told.append(event_json(entry, narrator))
            if isinstance(event, SeatLeft) and event.seat == you:
                you = None
        narrator.you = conn.seat = seat
        stack = table.stacks[seat] if seat is not None else None
        return {
            "type": "update",
            "reset": reset,
            "events": told,
            "table": table_json,
            "you": {
                "name": conn.name,
                "seat": seat,
                "stack": None if stack is None else money(stack),
                "leaving": seat is not None and table.seats[seat].leaving,
            },
            "turn": self._turn_json(seat),
            "waiting_for": self._waiting_json(),
            "notices": list(notices),
        }

    def _due(self) -> float:
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

    def _waiting_json(self) -> dict[str, Any] | None:
        turn = self.pending
        if turn is None:
            return None
        return {
            "seat": turn.seat,
            "name": self.table.seats[turn.seat].name,
            "seconds_left": round(max(0.0, self._due() - time.monotonic()), 1),
        }

    def _turn_json(self, seat: int | None) -> dict[str, Any] | None:
        """The legal choices of ``seat``, if the table waits for it."""
        turn = self.pending
        game = self.table.game
        if seat is None or turn is None or turn.seat != seat or game is None:
            return None
        data: dict[str, Any] = {
            "id": self.turns,
            "seat": seat,
            "actions": sorted(turn.actions),
            "seconds": self.time_limit,
            "seconds_left": round(max(0.0, self._due() - time.monotonic()), 1),
        }
        if ChemmyAction.PUT_BANK in turn.actions:
            assert turn.low is not None and turn.high is not None
            suggested = game.default_bank
            data["prompt"] = "Put up a bank" + (
                " or pass it on" if ChemmyAction.PASS_BANK in turn.actions else ""
            )
            data["amount"] = {
                "action": ChemmyAction.PUT_BANK.value,
                "low": money(turn.low),
                "high": money(turn.high),
                "suggested": money(suggested if suggested is not None else turn.low),
            }
        elif ChemmyAction.STAKE in turn.actions:
            assert turn.low is not None and turn.high is not None and game.bank is not None
            needed = game.bank - game.covered
            data["prompt"] = f"The bank is {format_amount(game.bank)}: stake, pass" + (
                " or call banco" if ChemmyAction.BANCO in turn.actions else ""
            )
            data["needed"] = money(needed)
            data["amount"] = {
                "action": ChemmyAction.STAKE.value,
                "low": money(turn.low),
                "high": money(turn.high),
                "suggested": money(min(max(turn.low, needed), turn.high)),
            }
            if ChemmyAction.BANCO in turn.actions:
                data["banco"] = money(game.bank)
        else:
            hand = "player" if seat == game.player else "banker"
            data["hand"] = hand
            data["prompt"] = capital(chemmy_turn_text(turn.why))
        return data

    def table_json(self) -> dict[str, Any]:
        """The table as everybody may see it."""
        table = self.table
        game = table.game
        stacks = table.stacks
        banker = game.banker if game is not None else None
        connected = self._connected()
        seats = []
        for n, held in enumerate(table.seats):
            seats.append(
                {
                    "seat": n,
                    "kind": held.kind,
                    "name": held.name if held.kind != "empty" else None,
                    "stack": money(stacks[n]) if held.kind != "empty" else None,
                    "banker": banker == n and held.kind != "empty",
                    "player": game is not None and game.player == n,
                    "leaving": held.leaving,
                    "away": held.is_person and held.account_id not in connected,
                }
            )
        minimum, maximum = self.buy_in_range()
        playing = game is not None and not game.is_over
        return {
            "id": self.spec.id,
            "name": self.spec.name,
            "seats": seats,
            "people": len(table.people),
            "bots": sum(1 for s in table.seats if s.kind == "bot"),
            "empty": sum(1 for s in table.seats if s.kind == "empty"),
            "time_limit": self.time_limit,
            "playing": playing,
            "coup": game.coup if playing and game is not None else None,
            "banker": banker if playing else None,
            "bank": money(game.bank) if playing and game is not None and game.bank else None,
            "covered": money(game.covered) if playing and game is not None else None,
            "limits": {
                "minimum": money(self.rules.table.minimum),
                "maximum": money(self.rules.table.maximum),
            },
            "buy_in": {"minimum": money(minimum), "maximum": money(maximum)},
        }


def _reply(command: Command | None, make: Callable[[Any], dict[str, Any]]) -> _Reply | None:
    return None if command is None else _Reply(command, make)


def _merge(batches: Sequence[_Batch]) -> _Batch:
    """One step's batches as one, each connection's messages in order; a last message
    that tells a connection nothing new (no event, no notice, no turn, the table as the
    one before it) is left out."""
    if len(batches) == 1:
        return batches[0]
    local: list[tuple[Connection, dict[str, Any]]] = []
    remote: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    last: dict[tuple[str | None, int], dict[str, Any]] = {}
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
    return _Batch(local, remote, batches[-1].view)


def _nothing_new(message: dict[str, Any], before: dict[str, Any] | None) -> bool:
    if before is None or message["reset"] or message["events"] or message["notices"]:
        return False
    return all(message[key] == before[key] for key in ("table", "you", "turn", "waiting_for"))


class ChemmyTables:
    """The chemin de fer tables, as this process serves them (made when the app is):
    its heartbeat and the tables it drives, its connections to the others, the commands
    it sent and waits for."""

    def __init__(
        self,
        wallet: Wallet,
        rules: SeatsRules,
        shuffler: Callable[[], Shuffler] = SecureShuffler,
        *,
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
                spec, rules, wallet, shuffler, time_limit=time_limit, pause=pause, hub=self
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
        A :class:`StorageError` where the database cannot be read."""
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
                self.tables[table_id]._drop_ownership()
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


# -- names ----------------------------------------------------------------------------------
def bot_name(taken: Iterable[str], n: int = 0, alike: Callable[[str], str] = name_key) -> str:
    """A name for a bot that no name in ``taken`` is (``alike``: what two names that are
    one have in common, their case folded by default; :func:`name_skeleton` for two names
    that look alike, as registration has it): the ``n``-th of :data:`BOT_NAMES` if it is
    free, else the next free one, else the first with a number ("Aino 2")."""
    used = {alike(name) for name in taken}
    names = [BOT_NAMES[(n + k) % len(BOT_NAMES)] for k in range(len(BOT_NAMES))]
    for name in names:
        if alike(name) not in used:
            return name
    for number in itertools.count(2):
        for name in names:
            numbered = f"{name} {number}"
            if alike(numbered) not in used:
                return numbered
    raise AssertionError("unreachable")  # pragma: no cover


def _seated_names(table: ChemmyTable) -> list[str]:
    return [held.name for held in table.seats if held.kind != "empty"]


# -- events for people ---------------------------------------------------------------------
def event_json(entry: CoupEvent, narrator: ChemmyNarrator) -> dict[str, Any]:
    """An event as the page gets it: the registry's JSON, its sentence as ``narrator``
    tells it to the seat, and its cards in words (only what the event itself carries: a
    face-down card comes without it)."""
    data = event_to_json(entry)
    event = entry.event
    data["text"] = plain(narrator.line(event))
    if isinstance(event, HandCard | DrawForBank) and event.card is not None:
        data["card_alt"] = card_label(event.card)
    elif isinstance(event, HandShown):
        data["cards_alt"] = [card_label(card) for card in event.cards]
    return data


__all__ = [
    "BOT_NAMES",
    "DEFAULT_TABLES",
    "ChemmyTables",
    "Connection",
    "LiveChemmy",
    "Refused",
    "TableSpec",
    "bot_name",
    "event_json",
]
