"""The chemin de fer tables of the web: a few tables held in this process, people and bots.

Each table (:class:`LiveChemmy`) is a :class:`~cardroom.tables.chemmy.ChemmyTable` run
by one asyncio task, its *driver*: while at least one person sits there it plays coups
one after the other, and where a person must decide it waits for their answer (sent
over the table's WebSocket) up to the table's time limit, then lets the absent policy
play for them (:meth:`ChemmyTable.play_for`).  Every call on the ChemmyTable is made
under the table's asyncio lock, in a worker thread (they are blocking database calls):
the driver, the seats taken and left through the API, and the answers over the
WebSocket are served one at a time.

Each WebSocket connection is a :class:`Connection` with a queue of messages; after every
step the table puts on each queue the events that connection's seat may see
(:meth:`ChemmyTable.events_for`: another seat's face-down cards never leave the
server), the table (seats, stacks, banker, bank), and for the seat whose turn it is,
its legal actions with their bounds.

A person whose last connection closes keeps the seat for the time limit (their turns
meanwhile are played for them); then they stand up, with their stack back in the
wallet (after the coup in progress, if any).  One process holds the tables: run one
server process per database.  A coup a stopped process left is finished on the
person's first request to the next one (:func:`finish_interrupted_coups`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from cardroom.core.events import (
    CoupEvent,
    DrawForBank,
    HandCard,
    HandShown,
    event_to_json,
)
from cardroom.core.money import AmountError, format_amount, parse_amount
from cardroom.core.shoe import SecureShuffler, Shoe, Shuffler
from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer import (
    CasinoTableauBanker,
    ChemmyAction,
    ChemmyRules,
    SimpleMoney,
    TableauBot,
)
from cardroom.tables.chemmy import ChemmyTable, finish_interrupted_coups
from cardroom.wallet import Account, Wallet
from cardroom.web.cards import card_label
from cardroom.web.views import money
from cardroom.words import ChemmyNarrator, capital, chemmy_turn_text, plain

log = logging.getLogger("cardroom.web")

T = TypeVar("T")

#: The bots' names, seat by seat from the last seat down.
BOT_NAMES = ("Aino", "Eero", "Helmi", "Onni", "Siiri", "Kalle", "Kerttu", "Veikko")
#: The largest buy-in, in table maxima.
BUY_IN_MAXIMA = 10
#: How long a person's request to sit down waits for the coup in progress to end.
JOIN_WAIT = 60.0


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
    """One WebSocket at a table: whose it is, and what it has been sent."""

    account_id: int
    name: str
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    #: the game (of this table) and the index in its log it has been sent up to
    game: int = -1
    sent: int = 0
    #: tells the events to this connection's person (it remembers who holds the bank)
    narrator: ChemmyNarrator | None = None


class LiveChemmy:
    """One chemin de fer table in play (see the module's words)."""

    def __init__(
        self,
        spec: TableSpec,
        rules: ChemmyRules,
        wallet: Wallet,
        shuffler: Callable[[], Shuffler],
        *,
        time_limit: float,
        pause: float,
    ) -> None:
        self.spec = spec
        self.rules = rules
        self.wallet = wallet
        self.time_limit = time_limit
        self.pause = pause
        self.table = ChemmyTable(
            rules,
            Shoe(rules.shoe, shuffler()),
            wallet,
            np.random.default_rng(),
            seat_count=spec.seats,
            table_ref=f"web:chemin-de-fer:{spec.id}",
        )
        bots = min(spec.bots, spec.seats - 1)
        self.bot_seats = tuple(range(spec.seats - 1, spec.seats - 1 - bots, -1))
        self.bot_stack = rules.table.maximum
        for n, seat in enumerate(self.bot_seats):
            self.table.sit_bot(seat, _bot_name(n), self.bot_stack, table_bot(rules))
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.answered = asyncio.Event()
        #: the person's turn the driver waits for, and when the wait ends (monotonic)
        self.pending: Turn | None = None
        self.deadline = 0.0
        self.connections: set[Connection] = set()
        #: account id -> since when the person has had no connection (monotonic)
        self.away: dict[int, float] = {}
        #: people asking to sit down: the driver starts no coup while they wait
        self.joining = 0
        #: counts the games of this table (a new game starts a new log)
        self.game_number = 0
        self.notices: list[str] = []
        #: counts the turns waited for (each turn's id)
        self.turns = 0
        self.task: asyncio.Task[None] | None = None

    # -- what the routes ask -------------------------------------------------------------
    def seat_of(self, account_id: int) -> int | None:
        for seat, held in enumerate(self.table.seats):
            if held.is_person and held.account_id == account_id:
                return seat
        return None

    def start(self) -> None:
        """Start the driver (once, in the running event loop)."""
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._drive())

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
        balance = await self._run(lambda: self.wallet.balance(account.id))
        if buy_in > balance:
            raise Refused(
                409,
                f"a buy-in of {format_amount(buy_in)} is more than your balance of "
                f"{format_amount(balance)}",
            )
        self.joining += 1
        self.wake.set()
        try:
            give_up = time.monotonic() + JOIN_WAIT
            while True:
                async with self.lock:
                    self._check_seat(account, seat)
                    if self._quiet():
                        return await self._sit(account, seat, buy_in)
                if time.monotonic() > give_up:
                    raise Refused(409, "a coup is still under way at this table: try again")
                await asyncio.sleep(0.05)
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

    async def _sit(self, account: Account, wanted: int | None, buy_in: Fraction) -> dict[str, Any]:
        table = self.table
        seat = self._check_seat(account, wanted)
        game = table.game
        if game is not None and game.is_over:
            await self._run(self._new_game)
        chosen = seat
        try:
            await self._run(lambda: table.sit_person(chosen, account.id, account.name, buy_in))
        except WagerError as err:
            status = 409 if "balance" in str(err) or "already" in str(err) else 422
            raise Refused(status, str(err)) from None
        if not any(c.account_id == account.id for c in self.connections):
            self.away[account.id] = time.monotonic()
        self.notices.append(f"{account.name} sits down at seat {seat + 1}")
        self._push()
        self.wake.set()
        return {"table": self.spec.id, "seat": seat, "stack": money(buy_in)}

    async def leave(self, account: Account) -> dict[str, Any]:
        """``account`` stands up: between coups at once (their stack goes back to the
        wallet), in a coup once it ends (the absent policy plays for them till then)."""
        async with self.lock:
            seat = self.seat_of(account.id)
            if seat is None:
                raise Refused(409, "you have no seat at this table")
            return await self._leave(seat, f"{account.name} stands up")

    async def _leave(self, seat: int, why: str) -> dict[str, Any]:
        held = self.table.seats[seat]
        account_id = held.account_id
        stack = await self._run(lambda: self.table.leave(seat))
        if self.pending is not None and self.pending.seat == seat:
            self.answered.set()  # the absent policy plays that turn now
        if stack is None:
            self.notices.append(f"{why} after this coup")
            self._push()
            return {"table": self.spec.id, "seat": seat, "left": False, "stack": None}
        if account_id is not None:
            self.away.pop(account_id, None)
        self.notices.append(f"{why} with {format_amount(stack)}")
        self._push()
        self.wake.set()
        return {"table": self.spec.id, "seat": seat, "left": True, "stack": money(stack)}

    async def act(self, conn: Connection, action: object, amount: object) -> str | None:
        """A decision sent over the WebSocket; the refusal in words (None: taken)."""
        async with self.lock:
            seat = self.seat_of(conn.account_id)
            if seat is None:
                return "you have no seat at this table"
            turn = self.pending
            if turn is None or turn.seat != seat or self.answered.is_set():
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
            try:
                await self._run(lambda: self.table.act(seat, action, value))
            except (IllegalAction, WagerError) as err:
                return str(err)
            self.pending = None
            self.answered.set()
            self._push()
            return None

    async def connect(self, account_id: int, name: str) -> Connection:
        async with self.lock:
            conn = Connection(account_id, name)
            self.connections.add(conn)
            self.away.pop(account_id, None)
            self._push([conn])
            if self.seat_of(account_id) is not None:
                self._push([c for c in self.connections if c is not conn])
            return conn

    def disconnect(self, conn: Connection) -> None:
        self.connections.discard(conn)
        if self.seat_of(conn.account_id) is not None and not any(
            c.account_id == conn.account_id for c in self.connections
        ):
            self.away[conn.account_id] = time.monotonic()
            self.wake.set()

    async def snapshot(self) -> dict[str, Any]:
        """:meth:`table_json` between two steps of the game (under the lock)."""
        self.start()
        async with self.lock:
            return self.table_json()

    def buy_in_range(self) -> tuple[Fraction, Fraction]:
        table = self.rules.table
        return table.minimum, table.maximum * BUY_IN_MAXIMA

    # -- the driver ----------------------------------------------------------------------
    async def _drive(self) -> None:
        while True:
            try:
                await self._cycle()
            except asyncio.CancelledError:
                raise
            except Exception:  # the table must go on: log it, wait a moment, go on
                log.exception("chemin de fer table %s", self.spec.id)
                self.pending = None
                await asyncio.sleep(1)

    async def _cycle(self) -> None:
        async with self.lock:
            now = time.monotonic()
            gone = [a for a, since in self.away.items() if now - since >= self.time_limit]
            for account_id in gone:
                seat = self.seat_of(account_id)
                if seat is None:
                    self.away.pop(account_id, None)
                elif not self.table.seats[seat].leaving:
                    name = self.table.seats[seat].name
                    await self._leave(seat, f"{name} has been away too long and stands up")
            step, turn = await self._run(self._step)
            if turn is not None:
                self.pending = turn
                self.turns += 1
                self.deadline = time.monotonic() + self.time_limit
                self.answered.clear()
            self._push()
        if step == "idle":
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=0.25)
            return
        if turn is None:  # a coup (or the draw for the bank) has ended
            if self.pause > 0:
                await asyncio.sleep(self.pause)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.answered.wait(), timeout=self.time_limit)
        async with self.lock:
            if self.pending is turn and not self.answered.is_set():
                waiting = self.table.waiting_for()
                if waiting is not None and waiting.seat == turn.seat:
                    name = self.table.seats[turn.seat].name
                    await self._run(lambda: self.table.play_for(turn.seat))
                    self.notices.append(f"time is up: {name}'s turn is played for them")
            self.pending = None
            self._push()

    def _quiet(self) -> bool:
        """Is the table between coups (or not playing)?"""
        game = self.table.game
        return game is None or game.between_coups or game.is_over

    def _step(self) -> tuple[str, Turn | None]:
        """(In a worker thread, under the lock.)  Between coups: stand up the people who
        cannot play on, replace the bots that cannot, start a new game where needed;
        then play on until a person must decide or the coup ends."""
        table = self.table
        minimum = self.rules.table.minimum
        if self._quiet():
            stacks = table.stacks
            for seat in table.people:
                if stacks[seat] < minimum:
                    name = table.seats[seat].name
                    left = table.leave(seat)
                    self.notices.append(
                        f"{name}'s stack is below the table minimum: {name} stands up"
                        + (f" with {format_amount(left)}" if left else "")
                    )
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
                    table.sit_bot(seat, _bot_name(n), self.bot_stack, table_bot(self.rules))
                    self.notices.append(f"{_bot_name(n)} (a bot) sits down at seat {seat + 1}")
            if not table.people or self.joining:
                return "idle", None
            if table.game is None:
                if sum(1 for s in table.stacks if s >= minimum) < 2:
                    return "idle", None
                table.start()
                self.game_number += 1
                return "draw", None
        turn = table.advance()
        return ("turn", turn) if turn is not None else ("ended", None)

    def _new_game(self) -> None:
        self.table.new_game()
        self.game_number += 1

    async def _run(self, call: Callable[[], T]) -> T:
        """A call on the table (blocking database work) in a worker thread."""
        return await asyncio.to_thread(call)

    # -- what is sent ---------------------------------------------------------------------
    def _push(self, only: Iterable[Connection] | None = None) -> None:
        """Put on each connection's queue what is new for it."""
        notices, self.notices = self.notices, []
        targets = list(self.connections if only is None else only)
        table_json = self.table_json()
        for conn in targets:
            conn.queue.put_nowait(self._update(conn, table_json, notices))

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
        names = game.names if game is not None else tuple(s.name for s in table.seats)
        if reset or conn.narrator is None or conn.narrator.names != tuple(names):
            conn.narrator = ChemmyNarrator(names)
        conn.narrator.you = seat
        stack = table.stacks[seat] if seat is not None else None
        return {
            "type": "update",
            "reset": reset,
            "events": [event_json(e, conn.narrator) for e in events],
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

    def _waiting_json(self) -> dict[str, Any] | None:
        turn = self.pending
        if turn is None or self.answered.is_set():
            return None
        return {
            "seat": turn.seat,
            "name": self.table.seats[turn.seat].name,
            "seconds_left": round(max(0.0, self.deadline - time.monotonic()), 1),
        }

    def _turn_json(self, seat: int | None) -> dict[str, Any] | None:
        """The legal choices of ``seat``, if the table waits for it."""
        turn = self.pending
        game = self.table.game
        if seat is None or turn is None or turn.seat != seat or game is None:
            return None
        if self.answered.is_set():
            return None
        data: dict[str, Any] = {
            "id": self.turns,
            "seat": seat,
            "actions": sorted(turn.actions),
            "seconds": self.time_limit,
            "seconds_left": round(max(0.0, self.deadline - time.monotonic()), 1),
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
        connected = {c.account_id for c in self.connections}
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


class ChemmyTables:
    """The chemin de fer tables of this process, made when the app is."""

    def __init__(
        self,
        wallet: Wallet,
        rules: ChemmyRules,
        shuffler: Callable[[], Shuffler] = SecureShuffler,
        *,
        specs: Sequence[TableSpec] = DEFAULT_TABLES,
        time_limit: float = 30.0,
        pause: float = 1.5,
    ) -> None:
        self.wallet = wallet
        self.rules = rules
        self.time_limit = time_limit
        self.tables = {
            spec.id: LiveChemmy(spec, rules, wallet, shuffler, time_limit=time_limit, pause=pause)
            for spec in specs
        }
        self._recovered: set[int] = set()
        self._recovering: asyncio.Lock | None = None

    def get(self, table_id: int) -> LiveChemmy:
        found = self.tables.get(table_id)
        if found is None:
            raise Refused(404, f"there is no chemin de fer table {table_id}")
        found.start()
        return found

    async def lobby(self) -> list[dict[str, Any]]:
        """Every table as everybody may see it (each read between two steps of its game)."""
        return [await table.snapshot() for table in self.tables.values()]

    def seated_here(self, account_id: int) -> bool:
        return any(t.seat_of(account_id) is not None for t in self.tables.values())

    async def recover(self, account_id: int) -> int:
        """Once per account and process: finish the coups a stopped process left and
        bring its stacks back to the wallet (before the person sits anywhere here).
        Returns how many coups were finished."""
        if account_id in self._recovered:
            return 0
        if self._recovering is None:
            self._recovering = asyncio.Lock()
        async with self._recovering:
            if account_id in self._recovered or self.seated_here(account_id):
                self._recovered.add(account_id)
                return 0
            records = await asyncio.to_thread(finish_interrupted_coups, self.wallet, account_id)
            self._recovered.add(account_id)
            return len(records)

    async def close(self) -> None:
        """Stop the drivers, each between two calls on its table (a coup in progress is
        left saved in progress: the next process finishes it)."""
        for table in self.tables.values():
            task, table.task = table.task, None
            if task is not None:
                async with table.lock:  # (no call on the table is under way)
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


# -- events for people ---------------------------------------------------------------------
def _bot_name(n: int) -> str:
    return BOT_NAMES[n % len(BOT_NAMES)]


def table_bot(rules: ChemmyRules) -> TableauBot:
    """The bot that holds a seat at the web's tables under ``rules``: it draws whenever the
    player may choose and, as the banker, by the rules' tableau (the rules page tells so)."""
    return TableauBot(money=SimpleMoney(), banker=CasinoTableauBanker(rules.tableau))


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
    "DEFAULT_TABLES",
    "ChemmyTables",
    "Connection",
    "LiveChemmy",
    "Refused",
    "TableSpec",
    "event_json",
    "table_bot",
]
