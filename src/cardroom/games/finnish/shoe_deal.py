"""What a finite-shoe count of a Finnish game starts from: the shoe's cards, the deal of
the first four cards, and the game's rules as the count reads them.

A :class:`ShoeMakeup` is a shoe's cards, per rank and per suit within a rank.  The count
asks about a hand's total through tables over its points and whether it holds an Ace
(:func:`hit_table`, :func:`totals_of`).  :func:`deals` gives every way the first four
cards (player, dealer, player, dealer) can fall, with the number of card sequences that
deal it, and a :class:`GameShape` is what the count needs of a game's rules, taken from
the engine's own functions.  :mod:`cardroom.games.finnish.shoe_count` explains the
method.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.hands import (
    TARGET,
    Total,
    total_from,
    total_index,
    total_of,
)

__all__ = [
    "COUNTED_CARDS",
    "JOKERS_HELD",
    "JOKER_INDEX",
    "NO_AWARDS",
    "SUITS",
    "TOTAL_INDICES",
    "WILD_27",
    "Deal",
    "GameShape",
    "ShoeMakeup",
    "deals",
    "falling",
    "hit_table",
    "no_card_awards",
    "ordinary_counts",
    "pair_orders",
    "sample_card",
    "shoe_model",
    "total_indices",
    "totals_of",
    "totals_where",
    "two_card_pairs",
]


JOKER_INDEX = 13
#: the total of a hand a wild Joker ended
WILD_27 = Total(TARGET, False)
SUITS: tuple[Suit, ...] = tuple(Suit)
#: lows a hit/stand table is asked about (no hand draws anywhere near this)
_LOW_LIMIT = 120


def falling(n: int, k: int) -> int:
    """``n (n - 1) ... (n - k + 1)``: ordered ways to take k of n cards."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def sample_card(index: int) -> Card:
    """A card of rank ``RANK_ORDER[index]`` (spades: suits never change the play)."""
    return JOKER if index == JOKER_INDEX else Card(RANK_ORDER[index], Suit.SPADES)


@dataclass(frozen=True)
class ShoeMakeup:
    """The cards of a shoe: how many of each rank, and of each suit within a rank.

    ``counts`` follows :data:`~cardroom.games.walk.RANK_ORDER` (Ace ... King,
    Joker); ``suits[r]`` splits the cards of ordinary rank ``r`` over the suits in
    the order of :class:`~cardroom.cards.Suit` (only finnish27's bonus reads it).
    """

    counts: tuple[int, ...]
    suits: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if len(self.counts) != len(RANK_ORDER) or any(c < 0 for c in self.counts):
            raise ValueError("counts: one count of 0 or more per rank of RANK_ORDER")
        if len(self.suits) != 13 or any(
            len(s) != 4 or sum(s) != c or min(s) < 0
            for s, c in zip(self.suits, self.counts, strict=False)
        ):
            raise ValueError("suits: four counts per ordinary rank, adding up to its count")

    @classmethod
    def of_rules(cls, shoe: ShoeRules, decks: int | None = None) -> ShoeMakeup:
        """The rules' shoe (``decks`` overrides the number of decks), its cards per rank
        and suit as the shoe holds them."""
        if decks is None and not shoe.whole_decks:
            cards = Counter((card.rank, card.suit) for card in shoe.cards())
            counts = shoe.rank_counts()
            return cls(
                tuple(counts[rank] for rank in RANK_ORDER),
                tuple(tuple(cards[(rank, suit)] for suit in SUITS) for rank in RANK_ORDER[:13]),
            )
        decks = shoe.decks if decks is None else decks
        counts = shoe.rank_counts(decks)  # refuses decks for a shoe of cards_per_rank
        return cls(tuple(counts[rank] for rank in RANK_ORDER), ((decks,) * 4,) * 13)

    @classmethod
    def of_counts(
        cls,
        counts: Mapping[Rank, int] | Sequence[int],
        suits: Mapping[Rank, Sequence[int]] | None = None,
    ) -> ShoeMakeup:
        """A shoe of ``counts`` cards per rank; a rank's cards are spread over the suits
        as evenly as can be (spades first) unless ``suits`` says otherwise."""
        if isinstance(counts, Mapping):
            values = tuple(counts.get(rank, 0) for rank in RANK_ORDER)
        else:
            values = tuple(counts)
        split = []
        for rank, n in zip(RANK_ORDER[:13], values, strict=False):
            if suits is not None and rank in suits:
                split.append(tuple(suits[rank]))
            else:
                split.append(tuple(n // 4 + (1 if i < n % 4 else 0) for i in range(4)))
        return cls(values, tuple(split))

    @property
    def cards(self) -> int:
        return sum(self.counts)

    @property
    def jokers(self) -> int:
        return self.counts[JOKER_INDEX]

    @property
    def ordinary(self) -> int:
        return self.cards - self.jokers

    def without(self, rank: Rank, suit: Suit | None = None) -> ShoeMakeup:
        """The shoe with one card of ``rank`` (of ``suit``; by default of the suit it
        has most of) taken out."""
        index = RANK_ORDER.index(rank)
        if not self.counts[index]:
            raise ValueError(f"shoe: it holds no card of rank {rank.value}")
        counts = list(self.counts)
        counts[index] -= 1
        suits = [list(s) for s in self.suits]
        if rank is not Rank.JOKER:
            held = suits[index]
            s = SUITS.index(suit) if suit is not None else held.index(max(held))
            if not held[s]:
                raise ValueError("shoe: no card of that suit")
            held[s] -= 1
        return ShoeMakeup(tuple(counts), tuple(tuple(s) for s in suits))


def shoe_model(shoe: ShoeMakeup, longest: int | None = None) -> str:
    """The assumption line of a finite-shoe report."""
    text = f"dealt off the top of a full shoe of {shoe.cards} cards, without replacement"
    if longest is not None:
        text += (
            f" (combinations: ordered sequences of the first {longest} cards, enough for any round)"
        )
    return text


# -- totals ------------------------------------------------------------------------------
def hit_table(decide: Callable[[Total], bool]) -> np.ndarray:
    """``table[low, ace]``: does a hand whose cards add up to ``low`` (Aces low, Jokers 0)
    and that holds an Ace (``ace``) draw?  ``decide`` is asked about its total."""
    table = np.zeros((_LOW_LIMIT + 1, 2), np.bool_)
    for low in range(_LOW_LIMIT + 1):
        for ace in (0, 1):
            table[low, ace] = decide(total_from(low, bool(ace)))
    if table[-1].any():
        raise ValueError("rules: a hand would draw for ever")
    return table


def totals_where(keep: Callable[[Total], bool]) -> np.ndarray:
    """Per total index (every total a hand can reach), whether ``keep`` holds."""
    return np.array([keep(total_of(i)) for i in range(TOTAL_INDICES)], np.bool_)


#: how many total indices there are (every total a hand can reach, hard and soft)
TOTAL_INDICES = 2 * 4 * _LOW_LIMIT + 2
#: the Jokers a hand holds, as the bonus tables count them: 0 to 9, and 10 or more
JOKERS_HELD = 11
#: hands of up to this many cards may be paid by their number of cards
COUNTED_CARDS = 10


#: a poker award for no set of categories (a table without bonuses)
NO_AWARDS = np.full(1 << 10, -1, np.int64)
NO_AWARDS.flags.writeable = False


def no_card_awards() -> np.ndarray:
    """``[total index, cards]`` -> the award of a winning hand of that total and number
    of cards paid by its number of cards (-1: none), for a table without any."""
    return np.full((TOTAL_INDICES, COUNTED_CARDS), -1, np.int64)


@lru_cache(maxsize=1)
def total_indices() -> np.ndarray:
    """``[low, ace]`` -> :func:`total_index` of :func:`total_from` (for whole arrays)."""
    table = np.zeros((4 * _LOW_LIMIT, 2), np.int64)
    for low in range(4 * _LOW_LIMIT):
        for ace in (0, 1):
            table[low, ace] = total_index(total_from(low, bool(ace)))
    return table


def totals_of(lows: np.ndarray, aces: np.ndarray) -> np.ndarray:
    """The total indices of many hands (their lows and whether they hold an Ace)."""
    return total_indices()[lows.astype(np.int64), aces.astype(np.int64)]


# -- the deal ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Deal:
    """One way the first four cards can fall, as two pairs of rank indices (unordered,
    the lower first, but for :func:`pair_orders`), with the ordered sequences of four
    physical cards (player, dealer, player, dealer) that deal it."""

    player: tuple[int, int]
    dealer: tuple[int, int]
    weight: int


def pair_orders(pair: tuple[int, int], ordered: bool = False) -> int:
    """The orders of two cards that ``pair`` stands for: a pair of one rank is dealt
    one way, two ranks two ways, and a Joker with another card one way when
    ``ordered`` (where the Joker's place decides a 27, each order is its own pair)."""
    if pair[0] == pair[1] or (ordered and JOKER_INDEX in pair):
        return 1
    return 2


def two_card_pairs(ordered: bool = False) -> list[tuple[int, int]]:
    """The two-card hands as pairs of rank indices, the lower first; with ``ordered``
    a Joker and another card in both orders."""
    pairs = [(a, b) for a in range(14) for b in range(a, 14)]
    if ordered:
        pairs += [(JOKER_INDEX, a) for a in range(JOKER_INDEX)]
    return pairs


def deals(shoe: ShoeMakeup, ordered: bool = False) -> Iterator[Deal]:
    """Every deal of the first four cards with its weight (``ordered``: see
    :func:`pair_orders`)."""
    pairs = two_card_pairs(ordered)
    for pa in pairs:
        for da in pairs:
            used = [0] * 14
            for r in (*pa, *da):
                used[r] += 1
            weight = pair_orders(pa, ordered) * pair_orders(da, ordered)
            for r, k in enumerate(used):
                if k:
                    weight *= falling(shoe.counts[r], k)
            if weight:
                yield Deal(pa, da, weight)


def ordinary_counts(pair: tuple[int, int]) -> tuple[tuple[int, ...], int]:
    """A two-card hand's ordinary cards per rank, and its Jokers."""
    counts = [0] * 13
    jokers = 0
    for r in pair:
        if r == JOKER_INDEX:
            jokers += 1
        else:
            counts[r] += 1
    return tuple(counts), jokers


# -- the game ------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameShape:
    """What the count needs of a Finnish game's rules, each taken from the engine's
    own functions by the game's analysis
    (:func:`~cardroom.games.finnish.shoe_finnish27.finnish27_shape`,
    :func:`~cardroom.games.finnish.shoe_twentyone.twentyone_shape`).

    ``initial(pair)``: is this two-card hand (rank indices) an initial 27;
    ``settle_deal(player, dealer)``: the result (a label of ``labels``, and a bonus)
    of a deal with a 27; ``player_draws(total, dealer)``: does the player draw on
    ``total`` against the dealer's two-card total; ``dealer_draws(total)``;
    ``immediate(total)``: the label of a finished player hand the dealer does not
    play against, else None; ``settle(player, dealer)``: the label of two finished
    hands.  ``labels`` maps each label to its outcome (player, dealer or push); the
    last label is what the others leave (the kernels count it as the rest).
    """

    initial: Callable[[tuple[int, int]], bool]
    settle_deal: Callable[[tuple[int, int], tuple[int, int]], tuple[str, str | None]]
    player_draws: Callable[[Total, Total], bool]
    dealer_draws: Callable[[Total], bool]
    immediate: Callable[[Total], str | None]
    settle: Callable[[Total, Total], str]
    labels: tuple[tuple[str, str], ...]
    #: does the order of a Joker and another card matter to a 27 (then each order is
    #: its own pair: :func:`deals`)
    ordered: bool = False
    #: does a Joker drawn after the deal make its hand 27 and end it (then every deal
    #: with a Joker is a 27, and each hand that would draw again may end on a Joker)
    jokers_wild: bool = False
    #: a player's hand of this many cards (Jokers counted) at 27 or less wins before
    #: the dealer plays (0: none); then the Jokers a hand draws are followed
    charlie: int = 0

    @property
    def channels(self) -> tuple[str, ...]:
        """The labels the kernels follow one by one (all but the last)."""
        return tuple(label for label, _ in self.labels[:-1])

    @property
    def rest(self) -> str:
        return self.labels[-1][0]
