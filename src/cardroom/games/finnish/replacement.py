"""What the two Finnish games' analyses with replacement share: the chance of each card,
the dealer's final totals and the two-card starts of a hand.

Every card is drawn from the full shoe with replacement (the model
:mod:`cardroom.games.finnish.analysis` describes), so a card's chance is its rank's share
of the shoe whatever was dealt before (:class:`DrawOdds`).  The dealer's hand then
depends on its total alone: :class:`DealerDraw` follows it total by total to each final
total, a Joker drawn looping back to the same total (:func:`geometric`).  A hand starts
from two cards, an initial 27 or a total with its two ranks (:class:`Start`,
:func:`two_card_starts`); where only the total matters the starts are merged
(:func:`by_total`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.hands import TARGET, Initial27, Total, initial_27, total_from

__all__ = [
    "MODEL",
    "SUITS",
    "DealerDraw",
    "DrawOdds",
    "Hits",
    "Start",
    "by_total",
    "card_of",
    "geometric",
    "merged_start",
    "showdowns",
    "two_card_starts",
]


MODEL = (
    "cards drawn with replacement (an infinite shoe): each rank has its share of the "
    "full shoe whatever was dealt; not the finite shoe"
)

Hits = Callable[[Total, Total], bool]


# -- the odds of a card ---------------------------------------------------------
@dataclass(frozen=True)
class DrawOdds:
    """The chance of each rank, from a shoe's make-up (drawn with replacement)."""

    odds: tuple[Fraction, ...]  # in RANK_ORDER

    @classmethod
    def of_shoe(cls, shoe: ShoeRules) -> DrawOdds:
        return cls.of_counts(shoe.rank_counts())

    @classmethod
    def of_counts(cls, counts: Mapping[Rank, int]) -> DrawOdds:
        total = sum(counts.values())
        if total <= 0:
            raise ValueError("shoe: it holds no cards")
        return cls(tuple(Fraction(counts.get(rank, 0), total) for rank in RANK_ORDER))

    def ranks(self) -> Iterator[tuple[Rank, Fraction]]:
        for rank, p in zip(RANK_ORDER, self.odds, strict=True):
            if p:
                yield rank, p

    @property
    def joker(self) -> Fraction:
        return self.odds[RANK_ORDER.index(Rank.JOKER)]

    def points(self) -> Iterator[tuple[int, bool, Fraction]]:
        """(points, is an Ace, chance) of each rank that is not a Joker."""
        for rank, p in self.ranks():
            if rank is not Rank.JOKER:
                yield rank.number, rank is Rank.ACE, p


SUITS: tuple[Suit, ...] = tuple(Suit)


def card_of(rank: Rank, suit_index: int = 0) -> Card:
    return JOKER if rank is Rank.JOKER else Card(rank, SUITS[suit_index])


def geometric(stay: Fraction) -> Fraction:
    """1 / (1 - stay): the weight of a state that loops back to itself."""
    if stay >= 1:
        raise ValueError("shoe: a hand that only draws Jokers never ends")
    return 1 / (1 - stay)


# -- the dealer's hand ----------------------------------------------------------
class DealerDraw:
    """The dealer's final totals from each two-card start (memoised)."""

    def __init__(
        self, odds: DrawOdds, hard_below: int, soft_below: int, wild: bool = False
    ) -> None:
        self.odds = odds
        self.hard_below = hard_below
        self.soft_below = soft_below
        #: a Joker drawn makes the hand 27 and ends it (else it passes, counting 0)
        self.wild = wild
        self.memo: dict[tuple[int, bool], dict[Total, Fraction]] = {}

    def finals(self, low: int, ace: bool) -> dict[Total, Fraction]:
        key = (low, ace)
        known = self.memo.get(key)
        if known is not None:
            return known
        total = total_from(low, ace)
        limit = self.soft_below if total.soft else self.hard_below
        result: dict[Total, Fraction] = {}
        if total.value >= limit:
            result[total] = Fraction(1)
        else:
            loop = geometric(self.odds.joker)
            if self.wild and self.odds.joker:
                loop = Fraction(1)
                result[Total(TARGET, False)] = self.odds.joker
            for points, is_ace, p in self.odds.points():
                for final, q in self.finals(low + points, ace or is_ace).items():
                    result[final] = result.get(final, Fraction(0)) + p * q * loop
        self.memo[key] = result
        return result


def showdowns(
    dealer_draw: DealerDraw, label: Callable[[Total, Total], str]
) -> Callable[[Start, Total], dict[str, Fraction]]:
    """The chance of each ``label(player, dealer's final total)`` of a finished player
    total against a dealer's start, memoised on the dealer's total and the player's."""
    memo: dict[tuple[int, bool, Total], dict[str, Fraction]] = {}

    def showdown(dealer: Start, player: Total) -> dict[str, Fraction]:
        key = (dealer.low, dealer.ace, player)
        known = memo.get(key)
        if known is None:
            known = {}
            for final, r in dealer_draw.finals(dealer.low, dealer.ace).items():
                name = label(player, final)
                known[name] = known.get(name, Fraction(0)) + r
            memo[key] = known
        return known

    return showdown


# -- the starts of a hand -------------------------------------------------------
@dataclass(frozen=True)
class Start:
    """One two-card start of a hand: an initial 27 or a total, and its ranks."""

    kind: Initial27 | None
    low: int
    ace: bool
    ranks: tuple[Rank, Rank]

    @property
    def total(self) -> Total:
        return total_from(self.low, self.ace)


def two_card_starts(
    odds: DrawOdds, counted: frozenset[Initial27], joker_second: bool = False
) -> dict[Start, Fraction]:
    """Every two-card start (in dealing order) and its chance."""
    starts: dict[Start, Fraction] = {}
    for (a, pa), (b, pb) in product(list(odds.ranks()), repeat=2):
        cards = [card_of(a), card_of(b)]
        kind = initial_27(cards, counted, joker_second)
        low = a.number + b.number
        start = Start(kind, low, Rank.ACE in (a, b), (a, b) if a.number <= b.number else (b, a))
        starts[start] = starts.get(start, Fraction(0)) + pa * pb
    return starts


def by_total(starts: Mapping[Start, Fraction]) -> dict[Start, Fraction]:
    """The starts merged where only the total (or the initial 27) matters."""
    merged: dict[Start, Fraction] = {}
    for start, p in starts.items():
        key = merged_start(start)
        merged[key] = merged.get(key, Fraction(0)) + p
    return merged


def merged_start(start: Start) -> Start:
    return Start(start.kind, start.low, start.ace, (Rank.JOKER, Rank.JOKER))
