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

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from cardroom.core.cards import Card
from cardroom.core.money import AmountError, format_decimal, parse_exact

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


@dataclass(frozen=True)
class Why:
    """Why a rule did what it did: the rule's id and its particulars.

    ``facts`` are small values (totals, limits, cards, seats, odds); the presentation
    turns the rule and its facts into words.
    """

    rule: str
    facts: Mapping[str, Fact] = field(default_factory=dict)

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
    card: Card
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

    ``cause``: ``new_shoe``, ``reshuffle_point`` or ``ran_out`` (in mid-round: the
    cards on the table stayed out); ``burnt`` cards were discarded, the first of them
    ``first_card`` when it was turned to say how many.
    """

    shoe: int
    cause: str
    burnt: int = 0
    first_card: Card | None = None
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
    stake: Fraction
    net: Fraction
    why: Why = NO_REASON
    breakage: Fraction = Fraction(0)
    kind: ClassVar[str]


# -- chemin de fer ------------------------------------------------------------------------------
# Seats are numbered from 0 in table order.  A chemin de fer game keeps its events wrapped
# in :class:`CoupEvent` records, which say the coup each belongs to (0: the draw for the bank).
@_event("draw_for_bank")
@dataclass(frozen=True)
class DrawForBank:
    """A seat's face-up card in the draw for the first bank (``round`` counts redraws)."""

    seat: int
    card: Card
    round: int = 1
    kind: ClassVar[str]


@_event("draw_tie")
@dataclass(frozen=True)
class DrawTie:
    """Seats tied for the highest card in the draw for the bank: only they draw again."""

    seats: tuple[int, ...]
    card: Card | None = None
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
    amount: Fraction
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
    amount: Fraction
    kind: ClassVar[str]


@_event("stake")
@dataclass(frozen=True)
class Staked:
    """A seat put up ``amount`` against the bank (any excess comes back in ExcessReturned)."""

    seat: int
    amount: Fraction
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
    amount: Fraction
    kind: ClassVar[str]


@_event("part_covered")
@dataclass(frozen=True)
class PartCovered:
    """The stakes did not cover the bank: the banker plays for ``covered`` of ``bank`` only."""

    covered: Fraction
    bank: Fraction
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
    stake: Fraction
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
    card: Card | None
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
    cards: tuple[Card, ...]
    total: int
    kind: ClassVar[str]


@_event("seat_settled")
@dataclass(frozen=True)
class SeatSettled:
    """A seat's result for the coup: ``net`` won (positive) or lost, on ``stake`` at risk."""

    seat: int
    stake: Fraction
    net: Fraction
    why: Why = NO_REASON
    breakage: Fraction = Fraction(0)
    kind: ClassVar[str]


@_event("commission")
@dataclass(frozen=True)
class Commission:
    """The house took ``amount`` (``rate`` of the banker's winnings) from the banker."""

    seat: int
    amount: Fraction
    rate: Fraction
    kind: ClassVar[str]


@_event("seat_taken")
@dataclass(frozen=True)
class SeatTaken:
    """Between coups, ``name`` sat down at an empty seat with a stack of ``stack``."""

    seat: int
    name: str
    stack: Fraction
    kind: ClassVar[str]


@_event("seat_left")
@dataclass(frozen=True)
class SeatLeft:
    """Between coups, the seat stood up and took its stack of ``stack`` away."""

    seat: int
    stack: Fraction
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
    for name in _field_names(type(event)):
        data[name] = _encode(getattr(event, name))
    return data


_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _field_names(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read back what :func:`event_to_json` wrote; :class:`EventDataError` otherwise."""
    if not isinstance(data, Mapping):
        raise EventDataError(f"an event is a JSON object, not {data!r}")
    kind = data.get("event")
    cls = EVENT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventDataError(f"unknown event {kind!r}")
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = _decode(hints[f.name], data[f.name], f"{kind}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise EventDataError(f"event {kind!r} has no {f.name!r}")
    try:
        event: Event = cls(**values)
    except (TypeError, ValueError) as err:
        raise EventDataError(f"event {kind!r}: {err}") from None
    return event


def coup_event_from_json(data: Mapping[str, Any]) -> CoupEvent:
    """Read back a :class:`CoupEvent` (an event with its ``"coup"``)."""
    coup = data.get("coup") if isinstance(data, Mapping) else None
    if not isinstance(coup, int) or isinstance(coup, bool):
        raise EventDataError(f"a coup's event needs its coup number, not {coup!r}")
    return CoupEvent(coup, event_from_json(data))


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _encode(value: Any) -> Any:
    """A field's value as JSON (cards by code, money as exact decimals); inside a
    :class:`Why`'s facts, cards, amounts and totals are tagged so they read back."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Fraction):
        return format_decimal(value)
    if isinstance(value, Points):
        return {"value": value.value, "soft": value.soft, "named": value.named}
    if isinstance(value, Why):
        return {"rule": value.rule, "facts": {k: _encode_fact(v) for k, v in value.facts.items()}}
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    raise TypeError(f"an event cannot hold {value!r}")  # pragma: no cover


def _encode_fact(value: Fact) -> Any:
    if isinstance(value, Card):
        return {"card": value.code}
    if isinstance(value, Fraction):
        return {"amount": format_decimal(value)}
    if isinstance(value, Points):
        return {"points": _encode(value)}
    if isinstance(value, tuple):
        return [_encode_fact(item) for item in value]
    return _encode(value)


def _decode_fact(raw: Any, where: str) -> Fact:
    if raw is None or isinstance(raw, bool | int | str):
        fact: Fact = raw
        return fact
    if isinstance(raw, list):
        return tuple(_decode_fact(item, where) for item in raw)
    if isinstance(raw, Mapping) and len(raw) == 1:
        [(tag, inner)] = raw.items()
        if tag in _FACT_TAGS:
            decoded: Fact = _decode(_FACT_TAGS[tag], inner, where)
            return decoded
    raise EventDataError(f"{where}: {raw!r} is not a fact cardroom writes")


_FACT_TAGS: dict[str, type[Any]] = {"card": Card, "amount": Fraction, "points": Points}


def _decode(tp: Any, raw: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if raw is None and type(None) in options:
            return None
        [inner] = [a for a in options if a is not type(None)]
        return _decode(inner, raw, where)
    if origin is tuple:
        if not isinstance(raw, list):
            raise EventDataError(f"{where}: a list is wanted, not {raw!r}")
        (item, *_rest) = typing.get_args(tp)
        return tuple(_decode(item, v, where) for v in raw)
    if tp is Card:
        if not isinstance(raw, str):
            raise EventDataError(f"{where}: a card code is wanted, not {raw!r}")
        try:
            return Card.parse(raw)
        except ValueError as err:
            raise EventDataError(f"{where}: {err}") from None
    if tp is Fraction:
        try:
            return parse_exact(raw)
        except AmountError as err:
            raise EventDataError(f"{where}: {err}") from None
    if tp is Points:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("value"), int):
            raise EventDataError(f"{where}: a total is wanted, not {raw!r}")
        soft, named = raw.get("soft"), raw.get("named")
        if soft is not None and not isinstance(soft, bool):
            raise EventDataError(f"{where}: 'soft' is true, false or null, not {soft!r}")
        if named is not None and not isinstance(named, str):
            raise EventDataError(f"{where}: 'named' is a string or null, not {named!r}")
        return Points(raw["value"], soft, named)
    if tp is Why:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("rule"), str):
            raise EventDataError(f"{where}: a reason is wanted, not {raw!r}")
        facts = raw.get("facts", {})
        if not isinstance(facts, Mapping):
            raise EventDataError(f"{where}: a reason's facts are an object, not {facts!r}")
        return Why(raw["rule"], {str(k): _decode_fact(v, where) for k, v in facts.items()})
    if tp is bool:
        if not isinstance(raw, bool):
            raise EventDataError(f"{where}: true or false is wanted, not {raw!r}")
        return raw
    if tp is int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise EventDataError(f"{where}: a whole number is wanted, not {raw!r}")
        return raw
    if tp is str:
        if not isinstance(raw, str):
            raise EventDataError(f"{where}: a string is wanted, not {raw!r}")
        return raw
    raise EventDataError(f"{where}: cannot read {raw!r}")  # pragma: no cover
