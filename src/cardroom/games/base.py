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
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any, ClassVar, Self

from cardroom.cards import Card
from cardroom.events import Event, Outcome, Settled
from cardroom.money import AmountError, format_amount, parse_amount
from cardroom.rules import Between, Ref, check_ranges, decimal_text


class Action(StrEnum):
    HIT = "hit"
    STAND = "stand"


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

    minimum: Fraction = field(default=Fraction(10), metadata={"amount": True})
    maximum: Fraction = field(default=Fraction(1000), metadata={"amount": True})
    unit: Fraction = field(default=Fraction(1, 100), metadata={"amount": True})

    RANGES: ClassVar[Mapping[str, Between]] = {
        "minimum": Between(0, MAX_LIMIT, above=True),
        "maximum": Between(Ref("minimum", "the minimum {}"), MAX_LIMIT),
        "unit": Between(0, Ref("minimum", "the minimum {}"), above=True),
    }

    def __post_init__(self) -> None:
        check_ranges(self)
        for name in ("minimum", "maximum"):
            limit: Fraction = getattr(self, name)
            if (limit / self.unit).denominator != 1:
                raise ValueError(
                    f"{name}: must be a whole multiple of the unit {decimal_text(self.unit)}, "
                    f"not {decimal_text(limit)}"
                )


def check_wagers(
    wagers: Mapping[str, Fraction | int | str], allowed: Sequence[str], limits: TableLimits
) -> dict[str, Fraction]:
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
    def decision_reason(self) -> str:
        """Why the player is asked what :meth:`legal_actions` offers ('' when nothing)."""
        return ""

    @abstractmethod
    def deal(self, card: Card) -> list[Event]:
        """Give the next card to :attr:`next_hand`; returns the events it caused."""

    def act(self, action: Action) -> list[Event]:
        """Make a player decision; returns the events it caused."""
        raise IllegalAction(f"{self.game} asks the player for no decisions")

    def can_hit(self) -> bool:
        return Action.HIT in self.legal_actions()

    def hit(self) -> list[Event]:
        return self.act(Action.HIT)

    def can_stand(self) -> bool:
        return Action.STAND in self.legal_actions()

    def stand(self) -> list[Event]:
        return self.act(Action.STAND)

    # -- walking ---------------------------------------------------------------------
    def clone(self) -> Self:
        """An independent copy, so an analysis can try every next card from here."""
        other = copy.copy(self)
        other.hands = {name: list(cards) for name, cards in self.hands.items()}
        other.events = list(self.events)
        other.net = dict(self.net)
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

    def total_labels(self) -> dict[str, str]:
        """Each hand's total as a person reads it ("soft 25")."""
        return {name: str(value) for name, value in self.totals().items()}

    def cards_in_play(self) -> list[Card]:
        return [card for hand in self.hands.values() for card in hand]

    def _finish(self, outcome: str, reason: str) -> list[Event]:
        """Record the outcome and settle every wager."""
        self.outcome = outcome
        new: list[Event] = [Outcome(outcome, reason)]
        for wager, stake in self.wagers.items():
            net, note = self.settle(wager, stake)
            self.net[wager] = net
            new.append(Settled(wager, stake, net, note))
        self.events.extend(new)
        return new

    @abstractmethod
    def settle(self, wager: str, stake: Fraction) -> tuple[Fraction, str]:
        """Net result of ``wager`` once the outcome is known, and a note saying why."""

    def summary(self) -> dict[str, Any]:
        """The round as JSON-able data (the rounds tool's record)."""
        from cardroom.money import exact_json

        return {
            "outcome": self.outcome,
            **{name: [c.code for c in cards] for name, cards in self.hands.items()},
            "totals": self.totals(),
            "bonus": self.bonus,
            "net": {w: exact_json(v) for w, v in self.net.items()},
        }
