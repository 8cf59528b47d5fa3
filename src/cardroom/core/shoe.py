"""The shoe: the cards, how they are shuffled, and when they are shuffled again.

Randomness is always injected.  :class:`SecureShuffler` draws on the operating
system's entropy (``secrets``) for live play; :class:`SeededShuffler` wraps a
NumPy ``Generator`` so a run can be reproduced from its seed; a
:class:`StackedShoe` deals cards in a given order, for replays and test labs.

>>> shoe = Shoe(ShoeRules(decks=1, jokers_per_deck=2, reshuffle_after=40), SeededShuffler(7))
>>> event = shoe.shuffle("new_shoe")
>>> event.shoe, shoe.remaining, shoe.needs_reshuffle
(1, 54, False)
"""

from __future__ import annotations

import math
import secrets
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from cardroom.core.cards import Card, CardError, Deck
from cardroom.core.events import Reshuffled


class ShoeExhausted(RuntimeError):
    """The shoe has no card left to deal."""


class Shuffler(Protocol):
    """A source of uniformly random permutations."""

    def permutation(self, n: int) -> list[int]:
        """A uniformly random ordering of ``range(n)``."""
        ...


class SecureShuffler:
    """Fisher-Yates driven by the OS entropy pool (``secrets.SystemRandom``)."""

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def permutation(self, n: int) -> list[int]:
        order = list(range(n))
        self._random.shuffle(order)
        return order


class SeededShuffler:
    """Reproducible shuffles from a NumPy ``Generator`` (or a seed for one)."""

    def __init__(self, generator: np.random.Generator | int | None = None) -> None:
        if isinstance(generator, np.random.Generator):
            self._rng = generator
        else:
            self._rng = np.random.default_rng(generator)

    def permutation(self, n: int) -> list[int]:
        return [int(i) for i in self._rng.permutation(n)]


@dataclass(frozen=True)
class ShoeRules:
    """What goes in the shoe and when it is shuffled again.

    ``reshuffle_after`` is a count of dealt cards: once at least that many have
    been dealt, the round in progress is finished and the next one starts from a
    fresh shuffle.  A ``cut_card`` (cards left behind it) sets the reshuffle point
    from the end of the shoe instead, whatever its size.  ``burn`` cards are
    discarded face down after each shuffle; with ``burn_by_first_card`` the first
    card is turned over and as many more are burnt as it counts (Ace 1 ... Nine 9,
    tens and pictures 10), the casino baccarat procedure.
    """

    decks: int = 6
    jokers_per_deck: int = 2
    reshuffle_after: int = 243
    burn: int = 0
    cut_card: int | None = None
    burn_by_first_card: bool = False

    def __post_init__(self) -> None:
        if self.cut_card is not None:
            if not 0 <= self.cut_card < self.size:
                raise ValueError(f"cut_card: must leave 0 to {self.size - 1} cards behind it")
            object.__setattr__(self, "reshuffle_after", self.size - self.cut_card)
        if self.decks < 1:
            raise ValueError("decks: a shoe needs at least one deck")
        if not 0 <= self.jokers_per_deck <= 8:
            raise ValueError("jokers_per_deck: must be between 0 and 8")
        if not 1 <= self.reshuffle_after <= self.size:
            raise ValueError(f"reshuffle_after: must be between 1 and the shoe's {self.size} cards")
        if not 0 <= self.burn < self.reshuffle_after:
            raise ValueError("burn: must be at least 0 and below reshuffle_after")

    @property
    def size(self) -> int:
        return self.decks * (52 + self.jokers_per_deck)

    @staticmethod
    def prepare_toml(default: ShoeRules, data: dict[str, Any]) -> dict[str, Any]:
        """Let a rules file give the reshuffle point as a fraction of the shoe.

        ``reshuffle_fraction = "3/4"`` (or ``0.75``) becomes ``reshuffle_after``:
        that fraction of the shoe's cards, rounded down.  A file that changes the
        shoe's size but names no reshuffle point keeps the default's fraction.
        """
        if "reshuffle_after" in data and "cut_card" not in data:
            data["cut_card"] = None  # an explicit reshuffle point replaces the cut card
        if "reshuffle_fraction" not in data:
            if (
                "reshuffle_after" in data
                or data.get("cut_card", default.cut_card) is not None
                or not ({"decks", "jokers_per_deck"} & data.keys())
            ):
                return data
            data["reshuffle_fraction"] = str(Fraction(default.reshuffle_after, default.size))
        if "reshuffle_after" in data:
            raise ValueError("reshuffle_fraction: give reshuffle_after or reshuffle_fraction")
        raw = data.pop("reshuffle_fraction")
        data["cut_card"] = None
        try:
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ValueError
            fraction = Fraction(str(raw))
        except (ValueError, ZeroDivisionError):
            raise ValueError(
                f'reshuffle_fraction: must be a fraction such as "3/4" or 0.75, not {raw!r}'
            ) from None
        if not 0 < fraction <= 1:
            raise ValueError("reshuffle_fraction: must be above 0 and at most 1")
        decks = data.get("decks", default.decks)
        jokers = data.get("jokers_per_deck", default.jokers_per_deck)
        if not isinstance(decks, int) or not isinstance(jokers, int):
            return data  # the type checks on decks/jokers report the problem
        data["reshuffle_after"] = max(1, math.floor(fraction * decks * (52 + jokers)))
        return data

    def cards(self) -> tuple[Card, ...]:
        return Deck.shoe(self.decks, self.jokers_per_deck)


def check_in_shoe(cards: Iterable[Card], rules: ShoeRules) -> None:
    """Refuse cards that one shoe of ``rules`` could not deal: a card it does not hold
    (a Joker in a shoe without them), or more copies of a card than it holds.

    >>> from cardroom.core.cards import parse_cards
    >>> check_in_shoe(parse_cards("Jo 5h"), ShoeRules(decks=8, jokers_per_deck=0, cut_card=16))
    Traceback (most recent call last):
    ...
    cardroom.core.cards.CardError: Jo is not in this game's shoe: it has no Jokers
    >>> check_in_shoe(parse_cards("Kd Kd Kd"), ShoeRules(decks=2, reshuffle_after=60))
    Traceback (most recent call last):
    ...
    cardroom.core.cards.CardError: Kd comes 3 times, but the shoe of 2 decks holds only 2
    """
    held = Counter(rules.cards())
    for card, count in Counter(cards).items():
        have = held[card]
        if not have:
            raise CardError(f"{card.code} is not in this game's shoe: it has no Jokers")
        if count > have:
            decks = f"{rules.decks} deck{'s' if rules.decks != 1 else ''}"
            raise CardError(
                f"{card.code} comes {count} times, but the shoe of {decks} holds only {have}"
            )


class _Cards:
    """Cards dealt from the top of a list: what a live and a stacked shoe share."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards = list(cards)
        self._next = 0

    @property
    def dealt(self) -> int:
        """Cards taken since the last shuffle (burnt ones included)."""
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._cards) - self._next

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise ShoeExhausted(f"the shoe ran out of cards after {self._next}")
        card = self._cards[self._next]
        self._next += 1
        return card

    def peek(self, count: int) -> Sequence[Card]:
        """The next ``count`` cards, without dealing them (for tests and replays)."""
        return tuple(self._cards[self._next : self._next + count])


class Shoe(_Cards):
    """A live shoe dealt from the top, shuffled by an injected :class:`Shuffler`."""

    def __init__(self, rules: ShoeRules, shuffler: Shuffler) -> None:
        super().__init__()
        self.rules = rules
        self._shuffler = shuffler
        self._all = rules.cards()
        self.shuffles = 0

    @property
    def needs_reshuffle(self) -> bool:
        """True before the first shuffle and once the reshuffle point is reached."""
        return self.shuffles == 0 or self._next >= self.rules.reshuffle_after

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled:
        """Shuffle every card except those still on the table (``in_play``).

        ``cause`` says why, for the event: ``new_shoe``, ``reshuffle_point`` or
        ``ran_out`` (in mid-round).
        """
        pool = list(self._all)
        for card in in_play:
            pool.remove(card)
        order = self._shuffler.permutation(len(pool))
        self._cards = [pool[i] for i in order]
        self.shuffles += 1
        burnt = self.rules.burn
        first: Card | None = None
        if self.rules.burn_by_first_card and self._cards:
            first = self._cards[0]
            burnt = 1 + min(first.rank.number, 10)
        self._next = min(burnt, len(self._cards))
        return Reshuffled(self.shuffles, cause, self._next, first)

    @property
    def next_cause(self) -> str:
        """Why the next shuffle happens: ``new_shoe``, or ``cut_card`` (the cut card came
        out) or ``reshuffle_point`` (so many cards were dealt)."""
        if self.shuffles == 0:
            return "new_shoe"
        return "cut_card" if self.rules.cut_card is not None else "reshuffle_point"


class StackedShoe(_Cards):
    """A shoe whose cards come in a given order; it is never reshuffled."""

    shuffles = 1

    @property
    def needs_reshuffle(self) -> bool:
        return False

    @property
    def next_cause(self) -> str:
        return "reshuffle_point"

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled:
        raise ShoeExhausted(
            f"the stacked shoe ran out of cards after {self._next} (it is never reshuffled)"
        )


class CardSource(Protocol):
    """What a table deals from: a live :class:`Shoe` or a :class:`StackedShoe`."""

    shuffles: int

    @property
    def dealt(self) -> int: ...

    @property
    def remaining(self) -> int: ...

    @property
    def needs_reshuffle(self) -> bool: ...

    @property
    def next_cause(self) -> str: ...

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled: ...

    def draw(self) -> Card: ...
