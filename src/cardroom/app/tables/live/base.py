"""What the parts of a live chemin de fer table share: its settings, a connection to it,
what a message tells one connection, a refusal, the bots' names and the views the
presentation gives the table."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cardroom.app.names import name_key
from cardroom.core.events import CoupEvent
from cardroom.games import seats_game
from cardroom.games.chemin_de_fer.words import ChemmyNarrator

if TYPE_CHECKING:
    from cardroom.app.tables.chemmy import ChemmyTable
    from cardroom.app.tables.live.table import LiveChemmy

#: the table of seats of the game these tables deal (its bots)
SEATS = seats_game().seated()

#: How a live table's ``table_ref`` begins (the table's number follows).
WEB_TABLE = f"web:{seats_game().id}:"

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
    """One person's live connection to a table (a WebSocket): whose it is, and what it
    has been sent.

    ``process`` is None for this process's own connections (their messages go on
    ``queue``); the owner of a table also keeps one for each connection another process
    holds there (``process`` names it; their messages go through the database).
    """

    account_id: int
    name: str
    id: int = 0
    process: str | None = None
    queue: asyncio.Queue[dict[str, object]] = field(default_factory=asyncio.Queue)
    #: the game (of this table) and the index in its log it has been sent up to
    game: int = -1
    sent: int = 0
    #: tells the events to this connection's person (it remembers who holds the bank)
    narrator: ChemmyNarrator | None = None
    #: the person's seat as the last message told it (their own events are told "You"
    #: up to the moment they stand up)
    seat: int | None = None


@dataclass(frozen=True)
class Told:
    """What one message tells one connection: whether it starts afresh (``reset``: a new
    connection or a new game), the events new to it, each with its sentence as told to
    this person, their seat now, and the table's notices."""

    conn: Connection
    reset: bool
    events: Sequence[tuple[CoupEvent, str]]
    seat: int | None
    notices: Sequence[str]


class TableViews(Protocol):
    """How the presentation shows a live table (the web gives one): each is JSON, made
    inside a step's transaction, since the other processes' messages and the published
    table are written in it."""

    def table(self, live: LiveChemmy) -> dict[str, object]:
        """The table as everybody may see it (the lobby's, and every message's)."""
        ...

    def update(self, live: LiveChemmy, told: Told, table: dict[str, object]) -> dict[str, object]:
        """The message that tells one connection what is new (``table``: :meth:`table`).

        Its keys ``reset``, ``events``, ``notices``, ``table``, ``you``, ``turn`` and
        ``waiting_for`` are read back: a step's last message that tells a connection
        nothing new (no reset, event or notice; the rest as the message before) is not
        sent."""
        ...

    def first(
        self, conn: Connection, table: dict[str, object], seat: int | None
    ) -> dict[str, object]:
        """The first message to a connection at a table another process drives: the table
        as its owner last published it, the person's ``seat`` there."""
        ...


def bot_name(taken: Iterable[str], n: int = 0, alike: Callable[[str], str] = name_key) -> str:
    """A name for a bot that no name in ``taken`` is (``alike``: what two names that are
    one have in common, their case folded by default;
    :func:`~cardroom.app.names.name_skeleton` for two names that look alike, as
    registration has it): the ``n``-th of :data:`BOT_NAMES` if it is free, else the next
    free one, else the first with a number ("Aino 2")."""
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


def seated_names(table: ChemmyTable) -> list[str]:
    """The names at the table's seats (bots' and people's)."""
    return [held.name for held in table.seats if held.kind != "empty"]


__all__ = [
    "BOT_NAMES",
    "DATABASE_FAILED",
    "DEFAULT_TABLES",
    "MOVED",
    "NOT_ANSWERING",
    "SEATS",
    "WEB_TABLE",
    "Connection",
    "Refused",
    "TableSpec",
    "TableViews",
    "Told",
    "bot_name",
    "seated_names",
]
