"""The record of a round or a coup, and its replay through the engine.

A :class:`RoundRecord` holds what a regulator needs to check a round: the rules it
was played under (as the TOML a rules file would hold), the seats, every card in
dealing order, every decision a seat made (and who made it: the person, a bot, or
the default play when the person had gone), every wager with its stake, net result
and breakage, the outcome, and the events as the engine wrote them.  One shape
serves the house games' rounds and chemin de fer's coups (a coup also records the
state it started from: the banker, the bank it may put up and the stacks).

:func:`replay` runs the record through the engine again (the same rules, the same
cards, the same decisions) and says whether it gives the same events, outcome and
payouts: a recall that does not depend on trusting the stored result.

Records are versioned JSON (:meth:`RoundRecord.to_json`, :meth:`RoundRecord.from_json`),
made of the event registry's JSON (:mod:`cardroom.core.events`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator

from cardroom.core.cards import Card
from cardroom.core.codec import Amount, CardCode, Codec, CodecError
from cardroom.core.events import (
    Event,
    EventDataError,
    Reshuffled,
    event_from_json,
    event_to_json,
)
from cardroom.core.money import format_decimal, parse_exact
from cardroom.core.rules import RulesError, load_rules_text, rules_to_toml
from cardroom.games import UnknownGame, get_game
from cardroom.games.base import CardWanted, GameRules, IllegalAction, WagerError

__all__ = [
    "RECORD_VERSION",
    "Decided",
    "RecordError",
    "ReplayResult",
    "RoundRecord",
    "WagerResult",
    "replay",
]

#: The version of :meth:`RoundRecord.to_json`'s shape (read back by :meth:`from_json`).
RECORD_VERSION = 1


class RecordError(ValueError):
    """Data that is not a round record cardroom can read."""


@dataclass(frozen=True)
class Decided:
    """A decision a seat made (the rules' forced plays are not here: the engine makes
    them again).  ``by``: ``person``, ``bot``, or ``default`` (the play made for a
    person who had gone: left, timed out, or the process stopped)."""

    seat: int
    action: str
    amount: Amount | None = None
    by: str = "person"


@dataclass(frozen=True)
class WagerResult:
    """One wager of one seat: the stake, what it won or lost, and the breakage kept."""

    seat: int
    wager: str
    stake: Amount
    net: Amount
    breakage: Amount = Fraction(0)


def _event_in(raw: Any) -> Event:
    try:
        return event_from_json(raw)
    except EventDataError as err:
        raise ValueError(str(err)) from None


#: An event as the event registry writes it (``{"event": kind, ...}``).
RecordedEvent = Annotated[Event, PlainValidator(_event_in), PlainSerializer(event_to_json)]

#: The keys of a coup's start that hold amounts.
_START_AMOUNTS = ("default_bank",)


def _start_out(start: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in start.items():
        if key == "stacks":
            out[key] = [format_decimal(Fraction(v)) for v in value]
        elif key in _START_AMOUNTS and value is not None:
            out[key] = format_decimal(Fraction(value))
        else:
            out[key] = value
    return out


def _start_in(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ValueError("a coup's start is a JSON object")
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "stacks":
            out[key] = tuple(parse_exact(v) for v in value)
        elif key in _START_AMOUNTS and value is not None:
            out[key] = parse_exact(value)
        else:
            out[key] = value
    return out


#: A coup's start: the banker, the bank and the stacks (amounts as exact decimals).
Start = Annotated[Mapping[str, Any], PlainValidator(_start_in), PlainSerializer(_start_out)]


@dataclass(frozen=True)
class RoundRecord:
    """A finished round (a house game) or coup (chemin de fer), replayable."""

    game: str
    rules: str
    seats: tuple[str, ...]
    cards: tuple[CardCode, ...]
    decisions: tuple[Decided, ...]
    wagers: tuple[WagerResult, ...]
    outcome: str | None
    events: tuple[RecordedEvent, ...]
    #: chemin de fer: the coup number and the state it started from (banker, stacks...)
    start: Start = field(default_factory=dict)
    #: anything a person should know about how the round ended (a restart, a timeout)
    notes: tuple[str, ...] = ()
    version: int = RECORD_VERSION

    def net(self, seat: int = 0) -> Fraction:
        """What ``seat`` won or lost in the round, all its wagers together."""
        return sum((w.net for w in self.wagers if w.seat == seat), Fraction(0))

    def staked(self, seat: int = 0) -> dict[str, Fraction]:
        return {w.wager: w.stake for w in self.wagers if w.seat == seat}

    @property
    def engine_events(self) -> tuple[Event, ...]:
        """The events the engine wrote (the table's reshuffles left out): what a replay
        must give again."""
        return tuple(e for e in self.events if not isinstance(e, Reshuffled))

    # -- JSON ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The record as JSON-able data, its ``version`` first."""
        data: dict[str, Any] = _RECORDS.encode(self)
        return {"version": data.pop("version"), **data}

    @classmethod
    def from_json(cls, data: Any) -> RoundRecord:
        """Read back :meth:`to_json`; :class:`RecordError` names what is wrong."""
        if not isinstance(data, Mapping):
            raise RecordError("a round record is a JSON object")
        version = data.get("version")
        if version != RECORD_VERSION:
            raise RecordError(f"a round record of version {version!r} (this cardroom reads 1)")
        try:
            return _RECORDS.decode(data)
        except CodecError as err:
            raise RecordError(f"the round record is damaged: {err}") from None


_RECORDS: Codec[RoundRecord] = Codec(RoundRecord, "round record")


# -- replay ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayResult:
    """What a replay gave: the same round or not, and where it differs."""

    same: bool
    differences: tuple[str, ...]
    events: tuple[Event, ...]
    outcome: str | None
    nets: dict[tuple[int, str], Fraction]


def replay(record: RoundRecord) -> ReplayResult:
    """Run ``record`` through the engine again and compare.

    The rules come from the record's TOML, the cards from its list in order, and each
    decision the engine asks for from its list of decisions in order.  Anything the
    record cannot give (too few cards, a decision for another seat, rules that no
    longer load) is a difference, never an exception.
    """
    try:
        game = get_game(record.game)
        rules = load_rules_text(game.default_rules(), record.rules, f"the {record.game} record")
        stakes: dict[int, dict[str, Fraction]] = {}
        for w in record.wagers:
            stakes.setdefault(w.seat, {})[w.wager] = w.stake
        state = game.replay_state(rules, stakes, record.start)
    except (UnknownGame, RulesError, WagerError, ValueError) as err:
        return ReplayResult(False, (f"the round cannot be set up again: {err}",), (), None, {})
    problems: list[str] = []
    cards: Iterator[Card] = iter(record.cards)
    decisions: Iterator[Decided] = iter(record.decisions)
    try:
        while (step := state.to_move()) is not None:
            if isinstance(step, CardWanted):
                card = next(cards, None)
                if card is None:
                    problems.append("the record has too few cards for the round")
                    break
                state.deal(card)
                continue
            decided = next(decisions, None)
            if decided is None:
                problems.append(f"the record has no decision for seat {step.seat}")
                break
            if decided.seat != step.seat:
                problems.append(
                    f"the record's decision is seat {decided.seat}'s, not {step.seat}'s"
                )
                break
            state.act(step.seat, decided.action, decided.amount)
    except (IllegalAction, WagerError) as err:
        problems.append(f"the engine refuses the record's decision: {err}")
    leftover = sum(1 for _ in cards)
    if leftover:
        problems.append(f"{leftover} of the record's cards were not dealt")
    if next(decisions, None) is not None:
        problems.append("some of the record's decisions were not asked for")
    played, outcome, nets = state.replay_result()
    events = tuple(e for e in played if not isinstance(e, Reshuffled))
    problems += _compare(record, events, outcome, nets)
    return ReplayResult(not problems, tuple(problems), events, outcome, nets)


def _compare(
    record: RoundRecord,
    events: Sequence[Event],
    outcome: str | None,
    nets: Mapping[tuple[int, str], Fraction],
) -> list[str]:
    problems: list[str] = []
    if outcome != record.outcome:
        problems.append(f"the outcome is {outcome!r}, the record says {record.outcome!r}")
    recorded = {(w.seat, w.wager): w.net for w in record.wagers}
    if record.start:
        # a coup: one wager a seat, named by the part it played ("bank" or "stake"),
        # which the records of older cardrooms named wrong where the bank was passed
        # on: what each seat won or lost is what must agree
        nets = {(seat, ""): net for (seat, _), net in nets.items()}
        recorded = {(seat, ""): net for (seat, _), net in recorded.items()}
    if dict(nets) != recorded:
        problems.append(
            f"the payouts are {_nets_text(nets)}, the record says {_nets_text(recorded)}"
        )
    expected = record.engine_events
    if tuple(events) != expected:
        for i, (mine, theirs) in enumerate(zip(events, expected, strict=False)):
            if mine != theirs:
                problems.append(f"event {i + 1} is {mine!r}, the record says {theirs!r}")
                break
        else:
            problems.append(f"the replay has {len(events)} events, the record {len(expected)}")
    return problems


def _nets_text(nets: Mapping[tuple[int, str], Fraction]) -> str:
    named = [f"{w or f'seat {s + 1}'} {format_decimal(n)}" for (s, w), n in sorted(nets.items())]
    return ", ".join(named) or "none"


def rules_text(rules: GameRules) -> str:
    """The rules as a record keeps them (the TOML ``cardroom rules`` prints)."""
    return rules_to_toml(rules)
