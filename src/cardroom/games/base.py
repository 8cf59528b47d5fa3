"""What every game engine shares: actions, wagers, errors and the round protocol.

A round is a pure state machine.  It never draws its own cards: whoever runs it
asks :attr:`Round.next_hand` which hand the next card goes to and hands it over
with :meth:`Round.deal`; where a person decides, :meth:`Round.legal_actions`
says what is allowed and :meth:`Round.act` takes the choice.  Every step is
recorded in :attr:`Round.events`.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, ClassVar, Protocol, Self

from cardroom.core.cards import Card
from cardroom.core.events import NO_REASON, CoupEvent, Event, Outcome, Points, Settled, Why
from cardroom.core.money import (
    CENT,
    AmountError,
    exact_json,
    exact_text,
    format_amount,
    parse_amount,
    to_unit,
)
from cardroom.core.rules import Between, Ref, check_ranges, rule
from cardroom.core.shoe import ShoeRules


class Action(StrEnum):
    HIT = "hit"
    STAND = "stand"


#: The seat of the one bettor's hand at a house game (the player).
PLAYER_SEAT = 0


@dataclass(frozen=True)
class CardWanted:
    """The state waits for a card: to ``hand`` (``"player"``, ``"dealer"``, ``"banker"``;
    chemin de fer's ``"draw"`` for the bank), held by ``seat`` where seats hold hands,
    and dealt face up or down."""

    hand: str
    seat: int | None = None
    face_up: bool = True


@dataclass(frozen=True)
class Turn:
    """The state waits for ``seat`` to decide: the legal ``actions``, why (the rule that
    asks), and the bounds of an amount (a bank or a stake) where an action takes one."""

    seat: int
    actions: frozenset[str]
    why: Why = NO_REASON
    low: Fraction | None = None
    high: Fraction | None = None


class GameState(Protocol):
    """One turn protocol for every game, in the manner of OpenSpiel's states.

    :meth:`to_move` says what the state waits for: a card (chance), a seat's decision
    (with the legal actions and the bounds of an amount), or None when it is over.
    Whoever drives it (a table, a bot, the exact walker, a test) hands a card to
    :meth:`deal` or a decision to :meth:`act`; :meth:`visible_events` is what a seat may
    see (None: an onlooker).
    """

    def to_move(self) -> CardWanted | Turn | None: ...

    def deal(self, card: Card) -> Sequence[Event | CoupEvent]: ...

    def act(
        self, seat: int, action: str, amount: Fraction | None = None
    ) -> Sequence[Event | CoupEvent]: ...

    def visible_events(self, seat: int | None = None) -> Sequence[Event | CoupEvent]: ...


class Replayable(GameState, Protocol):
    """A state set up to replay a record: after the cards and decisions, what it gave."""

    def replay_result(
        self,
    ) -> tuple[Sequence[Event], str | None, dict[tuple[int, str], Fraction]]:
        """The events, the outcome, and each (seat, wager)'s exact net result."""
        ...


def play_through(
    state: GameState,
    draw: Callable[[CardWanted], Card],
    decide: Callable[[Turn], tuple[str, Fraction | None]],
) -> None:
    """Drive ``state`` to its end: ``draw`` gives each card it wants, ``decide`` makes
    each decision.  The loop every driver shares, stripped to its bones."""
    while (step := state.to_move()) is not None:
        if isinstance(step, CardWanted):
            state.deal(draw(step))
        else:
            action, amount = decide(step)
            state.act(step.seat, action, amount)


class IllegalAction(Exception):
    """An action the rules do not allow now; the round is left unchanged."""


class WagerError(ValueError):
    """A wager the table cannot accept; nothing is changed."""


#: the largest table limit: a huge number in a rules file is a clear error, not a table
MAX_LIMIT = Fraction(10**9)


@dataclass(frozen=True)
class TableLimits:
    """Minimum and maximum stake of each wager, in currency units, and the money unit:
    the smallest amount the table handles (0.01: cents), of which both limits are whole
    multiples."""

    #: what the rules pages and the lab call this part of the rules
    TITLE: ClassVar[str] = "Table limits"

    minimum: Fraction = rule(
        Fraction(10),
        "the least stake of each wager, in currency units (also the measure of flat awards)",
        kind="amount",
        range=Between(0, MAX_LIMIT, above=True),
    )
    maximum: Fraction = rule(
        Fraction(1000),
        "the largest stake of each wager",
        kind="amount",
        range=Between(Ref("minimum", "the minimum {}"), MAX_LIMIT),
    )
    unit: Fraction = rule(
        Fraction(1, 100),
        "the smallest amount the table handles (0.01: cents); payouts are rounded down to it",
        kind="amount",
        range=Between(0, Ref("minimum", "the minimum {}"), above=True),
    )

    def __post_init__(self) -> None:
        check_ranges(self)
        if (self.unit / CENT).denominator != 1:
            raise ValueError(
                f"unit: must be a whole number of cents (the wallet holds cents), "
                f"not {exact_text(self.unit)}"
            )
        for name in ("minimum", "maximum"):
            limit: Fraction = getattr(self, name)
            if (limit / self.unit).denominator != 1:
                raise ValueError(
                    f"{name}: must be a whole multiple of the unit {exact_text(self.unit)}, "
                    f"not {exact_text(limit)}"
                )


class GameRules(Protocol):
    """What every game's rules have, whatever the game: its shoe and its table limits
    (a game's own rules type is a frozen dataclass with these two fields and its own)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def shoe(self) -> ShoeRules: ...

    def __hash__(self) -> int: ...

    @property
    def table(self) -> TableLimits: ...


#: bets as a person or a client gives them, wager by wager: an exact amount, a whole
#: number or its text (the engine checks and reads them: :func:`check_wagers`)
Bets = Mapping[str, Fraction | int | str]


def check_wagers(wagers: Bets, allowed: Sequence[str], limits: TableLimits) -> dict[str, Fraction]:
    """Validate stakes: known wager ids, numbers, within the table limits."""
    checked: dict[str, Fraction] = {}
    for wager, raw in wagers.items():
        if wager not in allowed:
            raise WagerError(f"this game has no wager {wager!r} (it has: {', '.join(allowed)})")
        try:
            stake = parse_amount(raw)
        except AmountError as err:
            raise WagerError(f"stake on {wager}: {err}") from None
        if stake <= 0:
            raise WagerError(f"stake on {wager} must be positive, not {format_amount(stake)}")
        if stake < limits.minimum:
            raise WagerError(
                f"stake on {wager} is below the table minimum of {format_amount(limits.minimum)}"
            )
        if stake > limits.maximum:
            raise WagerError(
                f"stake on {wager} is above the table maximum of {format_amount(limits.maximum)}"
            )
        unit = limits.unit
        if (stake / unit).denominator != 1:
            whole = "whole cents" if unit == CENT else f"whole multiples of {format_amount(unit)}"
            raise WagerError(f"stake on {wager}: stakes are in {whole}, not {format_amount(stake)}")
        checked[wager] = stake
    return checked


class Round(ABC):
    """One round of a game: its cards, decisions, outcome and settlement."""

    #: the game id (``finnish27``, ...), the wager ids and the hands, in order
    game: ClassVar[str]
    wager_ids: ClassVar[tuple[str, ...]]
    hand_names: ClassVar[tuple[str, ...]]

    def __init__(self, wagers: Mapping[str, Fraction]) -> None:
        self.wagers: dict[str, Fraction] = dict(wagers)
        self.events: list[Event] = []
        self.hands: dict[str, list[Card]] = {name: [] for name in self.hand_names}
        self.outcome: str | None = None
        self.net: dict[str, Fraction] = {}
        #: what the table kept of each exact payout (rounded down to its unit)
        self.breakage: dict[str, Fraction] = {}
        self.bonus: str | None = None

    # -- what the round needs next -------------------------------------------------
    @property
    @abstractmethod
    def next_hand(self) -> str | None:
        """The hand the next card goes to, or None when no card is wanted."""

    @property
    def is_complete(self) -> bool:
        return self.outcome is not None

    def legal_actions(self) -> frozenset[Action]:
        """The decisions the player may make now (empty when none is asked)."""
        return frozenset()

    @property
    def decision_reason(self) -> Why:
        """Why the player is asked what :meth:`legal_actions` offers (no rule when nothing)."""
        return NO_REASON

    @abstractmethod
    def deal(self, card: Card) -> list[Event]:
        """Give the next card to :attr:`next_hand`; returns the events it caused."""

    # -- the turn protocol (see :class:`GameState`) ------------------------------------
    def to_move(self) -> CardWanted | Turn | None:
        """What the round waits for: a card, the player's decision, or nothing (over)."""
        if self.is_complete:
            return None
        hand = self.next_hand
        if hand is not None:
            return CardWanted(hand)
        legal = self.legal_actions()
        if not legal:  # pragma: no cover - an engine that wants neither
            raise RuntimeError(f"the {self.game} round wants no card and no decision")
        return Turn(PLAYER_SEAT, frozenset(legal), self.decision_reason)

    def act(self, seat: int, action: str, amount: Fraction | None = None) -> list[Event]:
        """The decision of ``seat`` (the player, seat 0: a house game has one bettor's
        hand); returns the events it caused.  Anything not legal now is refused with
        :class:`IllegalAction` and changes nothing."""
        if seat != PLAYER_SEAT:
            raise IllegalAction(f"seat {seat} has no hand to play at a {self.game} table")
        if amount is not None:
            raise IllegalAction(f"{action} takes no amount")
        try:
            chosen = Action(action)
        except ValueError:
            known = ", ".join(a.value for a in Action)
            raise IllegalAction(f"there is no action {action!r} (there are: {known})") from None
        return self._decide(chosen)

    def _decide(self, action: Action) -> list[Event]:
        """Make the player's decision (a game that asks for some overrides this)."""
        raise IllegalAction(f"{self.game} asks the player for no decisions")

    def visible_events(self, seat: int | None = None) -> list[Event]:
        """What ``seat`` may see: everything, at a house game (every card is face up)."""
        return list(self.events)

    def replay_result(self) -> tuple[list[Event], str | None, dict[tuple[int, str], Fraction]]:
        """The events, the outcome and the player's net result on each wager."""
        return list(self.events), self.outcome, {(PLAYER_SEAT, w): n for w, n in self.net.items()}

    def can_hit(self) -> bool:
        return Action.HIT in self.legal_actions()

    def hit(self) -> list[Event]:
        return self.act(PLAYER_SEAT, Action.HIT)

    def can_stand(self) -> bool:
        return Action.STAND in self.legal_actions()

    def stand(self) -> list[Event]:
        return self.act(PLAYER_SEAT, Action.STAND)

    # -- walking ---------------------------------------------------------------------
    def clone(self) -> Self:
        """An independent copy, so an analysis can try every next card from here."""
        other = copy.copy(self)
        other.hands = {name: list(cards) for name, cards in self.hands.items()}
        other.events = list(self.events)
        other.net = dict(self.net)
        other.breakage = dict(self.breakage)
        return other

    def state_key(self) -> Hashable:
        """Everything the rest of the round depends on, apart from the cards left.

        The default (the rank sequence of every hand) is always safe; an engine may
        return something coarser so that an exact walk can merge equivalent states.
        """
        return tuple(tuple(card.rank for card in cards) for cards in self.hands.values())

    # -- results -------------------------------------------------------------------
    @abstractmethod
    def totals(self) -> dict[str, int]:
        """Each hand's total as a number (an initial 27 counts 27)."""

    def points(self) -> dict[str, Points]:
        """Each hand's total as events carry it (soft or hard, a named 27...)."""
        return {name: Points(value) for name, value in self.totals().items()}

    def cards_in_play(self) -> list[Card]:
        return [card for hand in self.hands.values() for card in hand]

    @property
    def unit(self) -> Fraction:
        """The table's money unit: payouts are rounded down to a whole number of it."""
        rules = getattr(self, "rules", None)
        return Fraction(getattr(getattr(rules, "table", None), "unit", CENT))

    def _finish(self, outcome: str, why: Why) -> list[Event]:
        """Record the outcome and settle every wager.

        A payout that is not a whole number of the table's unit is rounded down to it,
        as casinos pay; what the table keeps (the breakage) is in each wager's event.
        """
        self.outcome = outcome
        new: list[Event] = [Outcome(outcome, why)]
        for wager, stake in self.wagers.items():
            exact, reason = self.settle(wager, stake)
            net = to_unit(stake + exact, self.unit) - stake
            self.net[wager] = net
            self.breakage[wager] = exact - net
            new.append(Settled(wager, stake, net, reason, exact - net))
        self.events.extend(new)
        return new

    @property
    def exact_net(self) -> dict[str, Fraction]:
        """Each wager's exact net result, before rounding to the table's unit (what the
        analysis and the simulator count)."""
        return {wager: net + self.breakage.get(wager, 0) for wager, net in self.net.items()}

    @abstractmethod
    def settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        """Exact net result of ``wager`` once the outcome is known, and the rule that
        decided it (before any rounding to the table's unit)."""

    def summary(self) -> dict[str, Any]:
        """The round as JSON-able data (the rounds tool's record)."""
        return {
            "outcome": self.outcome,
            **{name: [c.code for c in cards] for name, cards in self.hands.items()},
            "totals": self.totals(),
            "bonus": self.bonus,
            "net": {w: exact_json(v) for w, v in self.net.items()},
        }
