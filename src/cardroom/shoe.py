"""The shoe: the cards, how they are shuffled, and when they are shuffled again.

Randomness is always injected.  :class:`SecureShuffler` draws on the operating
system's entropy (``secrets``) for live play; :class:`SeededShuffler` wraps a
NumPy ``Generator`` so a run can be reproduced from its seed; a
:class:`StackedShoe` deals cards in a given order, for replays and test labs.

>>> shoe = Shoe(ShoeRules(decks=1, jokers_per_deck=2, reshuffle_after=40), SeededShuffler(7))
>>> event = shoe.shuffle("new shoe")
>>> event.shoe, shoe.remaining, shoe.needs_reshuffle
(1, 54, False)
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol

import numpy as np

from cardroom.cards import Card, Deck
from cardroom.events import Reshuffled
from cardroom.rules import Between, Ref, check_ranges

#: the most decks a shoe holds (64 decks of 60 cards are far below the 32,767 cards
#: the simulation kernels can shuffle)
MAX_DECKS = 64
#: the most Jokers a deck holds
MAX_JOKERS = 8
_SIZE = Ref("size", "the shoe's {} cards")


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

    RANGES: ClassVar[Mapping[str, Between]] = {
        "decks": Between(1, MAX_DECKS),
        "jokers_per_deck": Between(0, MAX_JOKERS),
        "cut_card": Between(0, _SIZE, below=True, note="cards left behind it"),
        "reshuffle_after": Between(1, _SIZE, note="cards dealt before a reshuffle"),
        "burn": Between(0, Ref("reshuffle_after"), below=True),
    }

    def __post_init__(self) -> None:
        if self.cut_card is not None:  # the cut card sets the reshuffle point
            object.__setattr__(self, "reshuffle_after", self.size - self.cut_card)
        check_ranges(self)  # in the order of RANGES: decks and Jokers, then the cut card

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

    def shuffle(self, reason: str, in_play: Collection[Card] = ()) -> Reshuffled:
        """Shuffle every card except those still on the table (``in_play``)."""
        pool = list(self._all)
        for card in in_play:
            pool.remove(card)
        order = self._shuffler.permutation(len(pool))
        self._cards = [pool[i] for i in order]
        self.shuffles += 1
        burnt = self.rules.burn
        if self.rules.burn_by_first_card and self._cards:
            first = self._cards[0]
            burnt = 1 + min(first.rank.number, 10)
            reason += f"; first card {first.code} turned, {burnt} cards burnt"
        elif burnt:
            reason += f"; {burnt} cards burnt"
        self._next = min(burnt, len(self._cards))
        return Reshuffled(self.shuffles, reason)


class StackedShoe(_Cards):
    """A shoe whose cards come in a given order; it is never reshuffled."""

    shuffles = 1

    @property
    def needs_reshuffle(self) -> bool:
        return False

    def shuffle(self, reason: str, in_play: Collection[Card] = ()) -> Reshuffled:
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

    def shuffle(self, reason: str, in_play: Collection[Card] = ()) -> Reshuffled: ...

    def draw(self) -> Card: ...
