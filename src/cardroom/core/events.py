"""Events: everything that happens at a table, in order, as data.

An event is a frozen dataclass of plain fields (seat, hand, card, amounts, totals)
and, where a rule decided something, a :class:`Why`: the rule's id and the facts it
went on.  Engines write no sentences: the words a person reads are made from these
fields by the presentation (``cardroom.app.words``), in one place per language.

One registry turns every event into JSON and back (:func:`event_to_json`,
:func:`event_from_json`): the history's records and the web table's messages are
made of it.  Money goes out as exact decimal strings (``"9.5"``).

>>> from cardroom.core.cards import Card
>>> event = Decision("player", "stand", True, Why.of("must_stand_hard", limit=25))
>>> data = event_to_json(event)
>>> data
{'event': 'decision', 'hand': 'player', 'action': 'stand', 'forced': True, \
'why': {'rule': 'must_stand_hard', 'facts': {'limit': 25}}}
>>> event_from_json(data) == event
True
>>> event_to_json(CardDealt("dealer", Card.parse("Kh"), Points(13, soft=False)))["total"]
{'value': 13, 'soft': False, 'named': None}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, Any, ClassVar, TypeVar

from cardroom.core.cards import Card
from cardroom.core.codec import Amount, CardCode, Codec, CodecError, Plain

__all__ = [
    "EVENT_KINDS",
    "NO_REASON",
    "BancoCalled",
    "BankPassed",
    "BankPut",
    "BankerChosen",
    "CardDealt",
    "Commission",
    "CoupEvent",
    "CoupVoid",
    "Decision",
    "DrawForBank",
    "DrawTie",
    "Event",
    "ExcessReturned",
    "Fact",
    "GameOver",
    "HandCard",
    "HandShown",
    "Outcome",
    "PartCovered",
    "Passed",
    "PlayerChosen",
    "Points",
    "Reshuffled",
    "SeatLeft",
    "SeatSettled",
    "SeatTaken",
    "Settled",
    "Staked",
    "Why",
    "event_from_json",
    "event_to_json",
]


# -- the facts events carry ---------------------------------------------------------------------
@dataclass(frozen=True)
class Points:
    """A hand's total as a person reads it: the number, soft or hard where the game has
    that notion (None where it does not, as in baccarat), and the name of a named hand
    (``finnish_27``, ``joanca``, ``jo_jo``, ``natural``)."""

    value: int
    soft: bool | None = None
    named: str | None = None


#: A value a :class:`Why` may hold.
Fact = int | str | bool | Card | Fraction | Points | tuple[Any, ...] | None


def _fact_out(value: Fact) -> Any:
    """A fact as JSON: cards, amounts and totals tagged (``{"card": "Kh"}``,
    ``{"amount": "1.5"}``, ``{"points": {...}}``) so that they read back as they were."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, tuple):
        return [_fact_out(item) for item in value]
    tag = _FACT_TAG.get(type(value))
    if tag is None:  # pragma: no cover - a programming error
        raise TypeError(f"a reason cannot hold {value!r}")
    return {tag: _fact_codec(tag).encode(value)}


def _fact_in(raw: Any) -> Fact:
    if raw is None or isinstance(raw, bool | int | str):
        fact: Fact = raw
        return fact
    if isinstance(raw, list):
        return tuple(_fact_in(item) for item in raw)
    if isinstance(raw, Mapping) and len(raw) == 1:
        [(tag, inner)] = raw.items()
        if tag in _FACT_TYPES:
            decoded: Fact = _fact_codec(tag).decode(inner)
            return decoded
    raise ValueError(f"{raw!r} is not a fact cardroom writes")


def _facts_in(raw: Any) -> dict[str, Fact]:
    if not isinstance(raw, Mapping):
        raise ValueError(f"a reason's facts are an object, not {raw!r}")
    return {str(k): _fact_in(v) for k, v in raw.items()}


def _facts_out(facts: Mapping[str, Fact]) -> dict[str, Any]:
    return {k: _fact_out(v) for k, v in facts.items()}


#: A reason's facts, each written with its tag.
Facts = Annotated[Mapping[str, Fact], Plain(_facts_in, _facts_out, dict[str, Any])]
#: The type of each tagged fact, by its tag.
_FACT_TYPES: dict[str, Any] = {"card": CardCode, "amount": Amount, "points": Points}
_FACT_TAG: dict[type[Any], str] = {Card: "card", Fraction: "amount", Points: "points"}
#: The codec of each tagged fact, made the first time a fact of its tag is written or read
#: (a codec's first making loads pydantic's plugins, which an engine dealing never needs).
_FACT_CODECS: dict[str, Codec[Any]] = {}


def _fact_codec(tag: str) -> Codec[Any]:
    codec = _FACT_CODECS.get(tag)
    if codec is None:
        codec = _FACT_CODECS[tag] = Codec(_FACT_TYPES[tag], tag)
    return codec


@dataclass(frozen=True)
class Why:
    """Why a rule did what it did: the rule's id and its particulars.

    ``facts`` are small values (totals, limits, cards, seats, odds); the presentation
    turns the rule and its facts into words.
    """

    rule: str
    facts: Facts = field(default_factory=dict)

    @classmethod
    def of(cls, rule: str, **facts: Fact) -> Why:
        return cls(rule, facts)

    def __getitem__(self, key: str) -> Fact:
        return self.facts[key]

    def get(self, key: str, default: Fact = None) -> Fact:
        return self.facts.get(key, default)

    def __hash__(self) -> int:
        return hash((self.rule, tuple(sorted(self.facts.items(), key=lambda kv: kv[0]))))


NO_REASON = Why("")

# -- the registry --------------------------------------------------------------------------------
#: Every event class by its ``kind`` (the JSON ``"event"`` field).
EVENT_KINDS: dict[str, type[Any]] = {}

E = TypeVar("E")


def _event(kind: str) -> Callable[[type[E]], type[E]]:
    """Register an event class under ``kind``."""

    def register(cls: type[E]) -> type[E]:
        if kind in EVENT_KINDS:  # pragma: no cover - a programming error
            raise ValueError(f"two event classes are called {kind!r}")
        cls.kind = kind  # type: ignore[attr-defined]
        EVENT_KINDS[kind] = cls
        return cls

    return register


# -- the house games ------------------------------------------------------------------------------
@_event("card")
@dataclass(frozen=True)
class CardDealt:
    """A card went to a hand (``hand`` is ``"player"``, ``"dealer"``, ``"banker"`` ...)
    and the hand's total after it."""

    hand: str
    card: CardCode
    total: Points | None = None
    kind: ClassVar[str]


@_event("decision")
@dataclass(frozen=True)
class Decision:
    """A hit or stand (draw or stand).  ``forced``: the rules made it, ``why`` says which."""

    hand: str
    action: str
    forced: bool
    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("reshuffled")
@dataclass(frozen=True)
class Reshuffled:
    """The shoe was shuffled (``shoe`` counts shuffles from 1).

    ``cause``: ``new_shoe``, ``reshuffle_point``, ``cut_card``, ``round_limit`` (the
    rules' rounds from one shuffle were dealt) or ``ran_out`` (in mid-round: the
    cards on the table stayed out); ``burnt`` cards were discarded, the first of them
    ``first_card`` when it was turned to say how many.
    """

    shoe: int
    cause: str
    burnt: int = 0
    first_card: CardCode | None = None
    kind: ClassVar[str]


@_event("outcome")
@dataclass(frozen=True)
class Outcome:
    """Who won the round, and by which rule."""

    outcome: str
    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("settled")
@dataclass(frozen=True)
class Settled:
    """One wager settled: ``net`` is what the bettor won (positive) or lost (negative).

    ``breakage`` is what the table kept of an exact payout that is not a whole number
    of its money unit (payouts are rounded down to the unit, as casinos pay).
    """

    wager: str
    stake: Amount
    net: Amount
    why: Why = NO_REASON
    breakage: Amount = Fraction(0)
    kind: ClassVar[str]


# -- chemin de fer ------------------------------------------------------------------------------
# Seats are numbered from 0 in table order.  A chemin de fer game keeps its events wrapped
# in :class:`CoupEvent` records, which say the coup each belongs to (0: the draw for the bank).
@_event("draw_for_bank")
@dataclass(frozen=True)
class DrawForBank:
    """A seat's face-up card in the draw for the first bank (``round`` counts redraws)."""

    seat: int
    card: CardCode
    round: int = 1
    kind: ClassVar[str]


@_event("draw_tie")
@dataclass(frozen=True)
class DrawTie:
    """Seats tied for the highest card in the draw for the bank: only they draw again."""

    seats: tuple[int, ...]
    card: CardCode | None = None
    kind: ClassVar[str]


@_event("banker")
@dataclass(frozen=True)
class BankerChosen:
    """Who holds the bank for the next coup, and why (first draw, kept, passed on)."""

    seat: int
    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("bank")
@dataclass(frozen=True)
class BankPut:
    """The banker put up a bank of ``amount``."""

    seat: int
    amount: Amount
    kind: ClassVar[str]


@_event("bank_passed")
@dataclass(frozen=True)
class BankPassed:
    """The banker gave up the bank of its own accord."""

    seat: int
    kind: ClassVar[str]


@_event("banco")
@dataclass(frozen=True)
class BancoCalled:
    """A seat called "Banco": it alone covers the whole bank (``amount``)."""

    seat: int
    amount: Amount
    kind: ClassVar[str]


@_event("stake")
@dataclass(frozen=True)
class Staked:
    """A seat put up ``amount`` against the bank (any excess comes back in ExcessReturned)."""

    seat: int
    amount: Amount
    kind: ClassVar[str]


@_event("pass")
@dataclass(frozen=True)
class Passed:
    """A seat did not stake this coup (``forced``: it could not, ``why`` says why)."""

    seat: int
    forced: bool = False
    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("excess_returned")
@dataclass(frozen=True)
class ExcessReturned:
    """The part of a stake beyond what the bank still needed went back to the seat."""

    seat: int
    amount: Amount
    kind: ClassVar[str]


@_event("part_covered")
@dataclass(frozen=True)
class PartCovered:
    """The stakes did not cover the bank: the banker plays for ``covered`` of ``bank`` only."""

    covered: Amount
    bank: Amount
    kind: ClassVar[str]


@_event("coup_void")
@dataclass(frozen=True)
class CoupVoid:
    """Nobody staked: no cards are dealt this coup."""

    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("player_hand")
@dataclass(frozen=True)
class PlayerChosen:
    """The seat that holds the player's hand for every punter, with its stake."""

    seat: int
    stake: Amount
    why: Why = NO_REASON
    kind: ClassVar[str]


@_event("hand_card")
@dataclass(frozen=True)
class HandCard:
    """A card to the ``player`` or ``banker`` hand, held by ``seat``.

    ``card`` is None where the event is shown to somebody who may not see a face-down
    card; ``total`` (the hand's total so far) is then None too.
    """

    hand: str
    seat: int
    card: CardCode | None
    face_up: bool
    total: Points | None = None
    kind: ClassVar[str]

    @property
    def hidden(self) -> bool:
        return self.card is None


@_event("announcement")
@dataclass(frozen=True)
class Announcement:
    """A hand's draw or stand as everybody but its holder hears it: no total, no reason."""

    hand: str
    seat: int
    action: str
    kind: ClassVar[str]


@_event("shown")
@dataclass(frozen=True)
class HandShown:
    """A hand turned face up for everybody: its cards and total."""

    hand: str
    seat: int
    cards: tuple[CardCode, ...]
    total: int
    kind: ClassVar[str]


@_event("seat_settled")
@dataclass(frozen=True)
class SeatSettled:
    """A seat's result for the coup: ``net`` won (positive) or lost, on ``stake`` at risk."""

    seat: int
    stake: Amount
    net: Amount
    why: Why = NO_REASON
    breakage: Amount = Fraction(0)
    kind: ClassVar[str]


@_event("commission")
@dataclass(frozen=True)
class Commission:
    """The house took ``amount`` (``rate`` of the banker's winnings) from the banker."""

    seat: int
    amount: Amount
    rate: Amount
    kind: ClassVar[str]


@_event("seat_taken")
@dataclass(frozen=True)
class SeatTaken:
    """Between coups, ``name`` sat down at an empty seat with a stack of ``stack``."""

    seat: int
    name: str
    stack: Amount
    kind: ClassVar[str]


@_event("seat_left")
@dataclass(frozen=True)
class SeatLeft:
    """Between coups, the seat stood up and took its stack of ``stack`` away."""

    seat: int
    stack: Amount
    kind: ClassVar[str]


@_event("game_over")
@dataclass(frozen=True)
class GameOver:
    """Fewer than two seats can still play: the game ends."""

    why: Why = NO_REASON
    kind: ClassVar[str]


Event = (
    CardDealt
    | Decision
    | Reshuffled
    | Outcome
    | Settled
    | DrawForBank
    | DrawTie
    | BankerChosen
    | BankPut
    | BankPassed
    | BancoCalled
    | Staked
    | Passed
    | ExcessReturned
    | PartCovered
    | CoupVoid
    | PlayerChosen
    | HandCard
    | Announcement
    | HandShown
    | SeatSettled
    | Commission
    | SeatTaken
    | SeatLeft
    | GameOver
)
#: Every event a chemin de fer game writes (today, every event there is).
ChemmyEvent = Event


@dataclass(frozen=True)
class CoupEvent:
    """One event of a chemin de fer game and the coup it belongs to (0: the draw for the bank)."""

    coup: int
    event: Event


# -- to JSON and back -----------------------------------------------------------------------------
class EventDataError(ValueError):
    """JSON that is not an event cardroom writes."""


def event_to_json(event: Event | CoupEvent) -> dict[str, Any]:
    """An event as JSON-able data: ``{"event": kind, field: value, ...}`` (a
    :class:`CoupEvent` adds ``"coup"``)."""
    if isinstance(event, CoupEvent):
        return {"coup": event.coup, **event_to_json(event.event)}
    data: dict[str, Any] = {"event": type(event).kind}
    data.update(_codec(type(event)).encode(event))
    return data


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read back what :func:`event_to_json` wrote; :class:`EventDataError` otherwise."""
    if not isinstance(data, Mapping):
        raise EventDataError(f"an event is a JSON object, not {data!r}")
    kind = data.get("event")
    cls = EVENT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventDataError(f"unknown event {kind!r}")
    fields = {k: v for k, v in data.items() if k not in ("event", "coup")}
    try:
        event: Event = _codec(cls).decode(fields)
    except CodecError as err:
        raise EventDataError(f"event {kind!r}: {err}") from None
    return event


def coup_event_from_json(data: Mapping[str, Any]) -> CoupEvent:
    """Read back a :class:`CoupEvent` (an event with its ``"coup"``)."""
    coup = data.get("coup") if isinstance(data, Mapping) else None
    if not isinstance(coup, int) or isinstance(coup, bool):
        raise EventDataError(f"a coup's event needs its coup number, not {coup!r}")
    return CoupEvent(coup, event_from_json(data))


_CODECS: dict[type[Any], Codec[Any]] = {}


def _codec(cls: type[Any]) -> Codec[Any]:
    codec = _CODECS.get(cls)
    if codec is None:
        codec = _CODECS[cls] = Codec(cls, cls.kind)
    return codec
