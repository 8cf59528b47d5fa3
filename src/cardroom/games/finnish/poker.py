"""Best-five-card poker hands over any number of cards, Jokers wild.

The evaluator looks at five or more cards (up to a whole hand of fifteen or so)
and finds the best five-card poker hand among them.  Cards may come from a
multi-deck shoe, so the same card can occur more than once, and every Joker may
stand for any of the 52 cards, including one the hand already holds.

The categories rank in this game's own order, low to high: high card, pair, two
pair, three of a kind, straight, full house, four of a kind, **flush**,
straight flush, five of a kind.  (A flush beats four of a kind here.)  The Ace
plays high (A-K-Q-J-T) or low (5-4-3-2-A) in a straight; straights do not wrap
around the Ace (Q-K-A-2-3 is not one).

>>> from cardroom.core.cards import parse_cards
>>> best_category(parse_cards("As Ah Jo Kd 2c")).label
'Three of a kind'
>>> best_category(parse_cards("Qs Ks As 2s 3s")).label
'Flush'
>>> best_hand(parse_cards("Jo Jo 5h 6h 7h 7c Kd"))
PokerHand(category=<PokerCategory.STRAIGHT_FLUSH: 8>, ranks=(9, 8, 7, 6, 5))
>>> best_hand(parse_cards("As 2d 3c 4h 5s 9d"))
PokerHand(category=<PokerCategory.STRAIGHT: 4>, ranks=(5, 4, 3, 2, 1))

Duplicates are ordinary cards: five identical 7h are five of a kind (which
outranks the flush they also are), and As As Ks Qs 2s is an Ace-high flush.

The evaluation works directly from rank counts and per-suit rank sets, giving
the Jokers only the few uses that can matter (they join the largest group of a
rank, fill the gaps of a straight, or become Aces of a flush's suit), so it
never enumerates substitutions or five-card subsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Any, NamedTuple

from cardroom.core.cards import RANKS, Card, Rank, Suit

__all__ = [
    "PLAIN_POKER",
    "STANDARD",
    "PokerCategory",
    "PokerHand",
    "PokerRules",
    "best_category",
    "best_hand",
    "best_held",
    "held_mask",
]


class PokerCategory(IntEnum):
    """The ten hand categories, low to high, in this game's order."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FULL_HOUSE = 5
    FOUR_OF_A_KIND = 6
    FLUSH = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9

    @property
    def label(self) -> str:
        """A human name: ``'Two pair'``, ``'Five of a kind'``."""
        return _LABELS[self]


_LABELS: dict[PokerCategory, str] = {
    PokerCategory.HIGH_CARD: "High card",
    PokerCategory.PAIR: "Pair",
    PokerCategory.TWO_PAIR: "Two pair",
    PokerCategory.THREE_OF_A_KIND: "Three of a kind",
    PokerCategory.STRAIGHT: "Straight",
    PokerCategory.FULL_HOUSE: "Full house",
    PokerCategory.FOUR_OF_A_KIND: "Four of a kind",
    PokerCategory.FLUSH: "Flush",
    PokerCategory.STRAIGHT_FLUSH: "Straight flush",
    PokerCategory.FIVE_OF_A_KIND: "Five of a kind",
}


@dataclass(frozen=True, order=True, slots=True)
class PokerHand:
    """A best five-card hand: its category and its tie-break ranks.

    ``ranks`` are the values of the five chosen cards (Ace 14, Two 2), bigger
    groups first and higher ranks first within equal groups: a full house of
    Kings over Twos is ``(13, 13, 13, 2, 2)``, a pair of Fives with A-J-3 is
    ``(5, 5, 14, 11, 3)``, a straight lists its ranks high to low and in the
    wheel the Ace counts as 1: ``(5, 4, 3, 2, 1)``.  Hands order by category,
    then ranks, so ``max()`` picks the best.
    """

    category: PokerCategory
    ranks: tuple[int, ...]

    @property
    def label(self) -> str:
        """The category's human name."""
        return self.category.label


#: Card value for each ordinary rank: Two 2 ... King 13, Ace 14.
_VALUE: dict[Rank, int] = {rank: 14 if rank is Rank.ACE else rank.number for rank in RANKS}
_SUIT_INDEX: dict[Suit, int] = {suit: i for i, suit in enumerate(Suit)}

_ACE_BIT = 1 << 14
#: Straight highs tried, best first, with the bits their five ranks occupy in a
#: rank mask (bit v for value v, bit 1 standing for the Ace played low).
_WINDOWS: tuple[tuple[int, int], ...] = tuple(
    (high, 0b11111 << (high - 4)) for high in range(14, 4, -1)
)
_STRAIGHT_CACHE: dict[int, int] = {}

_FIVE = PokerCategory.FIVE_OF_A_KIND
_STRAIGHT_FLUSH = PokerCategory.STRAIGHT_FLUSH
_FLUSH = PokerCategory.FLUSH
_FOUR = PokerCategory.FOUR_OF_A_KIND
_FULL_HOUSE = PokerCategory.FULL_HOUSE
_STRAIGHT = PokerCategory.STRAIGHT
_THREE = PokerCategory.THREE_OF_A_KIND
_TWO_PAIR = PokerCategory.TWO_PAIR
_PAIR = PokerCategory.PAIR
_HIGH_CARD = PokerCategory.HIGH_CARD


def makes_five(most: int, aces: int, jokers: int, bug: bool = False) -> bool:
    """Do cards whose largest group of one rank is ``most``, with ``aces`` Aces, make
    five of a kind with ``jokers``?  Wild Jokers join any group; bugs only the Aces.
    (The compiled evaluators use this same function.)"""
    return (max(most, aces + jokers) if bug else most + jokers) >= 5


def _straight_high(mask: int, jokers: int) -> int:
    """Highest straight (its top value) that ``mask`` and ``jokers`` make, else 0.

    ``mask`` has bit ``v`` set for each value ``v`` (2-14) present; each Joker
    fills one missing rank of the five.
    """
    key = mask << 3 | min(jokers, 5)
    high = _STRAIGHT_CACHE.get(key)
    if high is None:
        if mask & _ACE_BIT:
            mask |= 0b10
        need = 5 - min(jokers, 5)
        high = 0
        for top, window in _WINDOWS:
            if (mask & window).bit_count() >= need:
                high = top
                break
        _STRAIGHT_CACHE[key] = high
    return high


def _straight_ranks(high: int) -> tuple[int, ...]:
    return (high, high - 1, high - 2, high - 3, high - 4)


def _evaluate(cards: Sequence[Card]) -> PokerHand:
    if len(cards) < 5:
        raise ValueError(f"a poker hand needs at least 5 cards, got {len(cards)}")
    counts = [0] * 15
    suit_values: tuple[list[int], ...] = ([], [], [], [])
    suit_masks = [0, 0, 0, 0]
    values: list[int] = []
    jokers = 0
    for card in cards:
        suit = card.suit
        if suit is None:
            jokers += 1
            continue
        value = _VALUE[card.rank]
        counts[value] += 1
        values.append(value)
        s = _SUIT_INDEX[suit]
        suit_values[s].append(value)
        suit_masks[s] |= 1 << value
    values.sort(reverse=True)
    top_count = max(counts)

    # Five of a kind: the highest rank the Jokers can bring to five.
    if makes_five(top_count, counts[14], jokers):
        for v in range(14, 1, -1):
            if counts[v] + jokers >= 5:
                return PokerHand(_FIVE, (v, v, v, v, v))

    # Straight flush, then flush: only suits with enough cards can make them.
    flush: tuple[int, ...] | None = None
    best_high = 0
    for s in range(4):
        in_suit = suit_values[s]
        if len(in_suit) + jokers >= 5:
            high = _straight_high(suit_masks[s], jokers)
            if high > best_high:
                best_high = high
            if not best_high:
                # Jokers in a flush are best as Aces of its suit.
                ranks = tuple(sorted(in_suit + [14] * jokers, reverse=True)[:5])
                if flush is None or ranks > flush:
                    flush = ranks
    if best_high:
        return PokerHand(_STRAIGHT_FLUSH, _straight_ranks(best_high))
    if flush is not None:
        return PokerHand(_FLUSH, flush)

    mask = suit_masks[0] | suit_masks[1] | suit_masks[2] | suit_masks[3]
    straight = _straight_high(mask, jokers)

    # From here on no rank plus the Jokers reaches five, so the Jokers all go
    # into the group they complete (the highest rank they can take there) and
    # the kickers are the best real cards of other ranks.
    if top_count + jokers >= 4:
        for v in values:
            if counts[v] + jokers >= 4:
                kicker = next(k for k in values if k != v)
                return PokerHand(_FOUR, (v, v, v, v, kicker))

    if top_count + jokers >= 3:
        for t in values:
            spare = jokers - max(0, 3 - counts[t])
            if spare < 0:
                continue
            for p in values:
                if p != t and counts[p] + spare >= 2:
                    return PokerHand(_FULL_HOUSE, (t, t, t, p, p))

    if straight:
        return PokerHand(_STRAIGHT, _straight_ranks(straight))

    if top_count + jokers >= 3:
        for t in values:
            if counts[t] + jokers >= 3:
                k1, k2 = [k for k in values if k != t][:2]
                return PokerHand(_THREE, (t, t, t, k1, k2))

    # Two pair needs no Joker: with one, a pair would already make trips.
    if top_count >= 2 and not jokers:
        paired = sorted({v for v in values if counts[v] >= 2}, reverse=True)
        if len(paired) >= 2:
            p1, p2 = paired[0], paired[1]
            kicker = next(k for k in values if k != p1 and k != p2)
            return PokerHand(_TWO_PAIR, (p1, p1, p2, p2, kicker))

    if top_count + jokers >= 2:
        p = next(v for v in values if counts[v] + jokers >= 2)
        k1, k2, k3 = [k for k in values if k != p][:3]
        return PokerHand(_PAIR, (p, p, k1, k2, k3))

    return PokerHand(_HIGH_CARD, tuple(values[:5]))


def best_hand(cards: Sequence[Card]) -> PokerHand:
    """The best five-card hand among ``cards`` (five or more), Jokers wild.

    Raises ``ValueError`` for fewer than five cards.
    """
    return _evaluate(cards)


#: the categories' places in this game's own order (:class:`PokerCategory`'s values):
#: ``ranking[category]`` is its place, high card lowest
STANDARD: tuple[int, ...] = tuple(range(len(PokerCategory)))


class PokerRules(NamedTuple):
    """How a table reads a poker hand: its Jokers (wild, or bugs with ``bug``) and the
    order of the categories (``ranking``, as :data:`STANDARD`).  (A named tuple: the
    memoised counts hash it on every call.)"""

    bug: bool = False
    ranking: tuple[int, ...] = STANDARD


#: the source's: wild Jokers, this game's order
PLAIN_POKER = PokerRules()


def held_mask(counts: Any, suit_len: Any, suit_mask: Any, jokers: int, bug: bool = False) -> int:
    """The categories that some five of the cards show, as bits (bit ``c`` for the
    :class:`PokerCategory` of value ``c``): ``counts[v]`` cards of each value ``v``
    (2-14, the Ace 14), ``suit_len[s]`` cards and ``suit_mask[s]`` values (bit ``v``) in
    each suit ``s``, and ``jokers`` wild (with ``bug``: each an Ace, or a card that
    completes a straight, a flush or a straight flush).  Each category is looked for on
    its own, the Jokers standing for whatever it needs: a hand with a flush and a pair
    in it holds both, so a designer's order of the categories decides which it is.

    Plain loops and integers: the compiled evaluators compile this same function.
    """
    held = 1  # a high card: any five cards
    wild = 0 if bug else jokers
    top = 0
    second = 0
    mask = 0
    for v in range(2, 15):
        have = counts[v]
        if have:
            mask |= 1 << v
        if v == 14 and bug:
            have += jokers  # a bug in a group is an Ace
        if have > top:
            second = top
            top = have
        elif have > second:
            second = have
    if top + wild >= 2:
        held |= 1 << 1  # a pair
    if max(0, 2 - top) + max(0, 2 - second) <= wild:
        held |= 1 << 2  # two pair
    if top + wild >= 3:
        held |= 1 << 3  # three of a kind
    if max(0, 3 - top) + max(0, 2 - second) <= wild:
        held |= 1 << 5  # a full house
    if top + wild >= 4:
        held |= 1 << 6  # four of a kind
    if top + wild >= 5:
        held |= 1 << 9  # five of a kind
    # a straight in all the cards (s = 4), a flush and a straight flush in a suit: every
    # Joker, wild or a bug, fills a place
    for s in range(5):
        if s < 4:
            if suit_len[s] + jokers < 5:
                continue
            held |= 1 << 7  # a flush
            bits = suit_mask[s]
        else:
            bits = mask
        if bits >> 14 & 1:
            bits |= 2  # the Ace plays low too
        for high in range(14, 4, -1):
            present = 0
            for v in range(high - 4, high + 1):
                present += bits >> v & 1
            if present + jokers >= 5:
                held |= 1 << (8 if s < 4 else 4)
                break
    return held


def best_held(held: int, ranking: Sequence[int] = STANDARD) -> PokerCategory:
    """The category of ``held`` (a :func:`held_mask`) that ``ranking`` places highest."""
    return _best_of(tuple(ranking))[held]


@cache
def _best_of(ranking: tuple[int, ...]) -> tuple[PokerCategory, ...]:
    """:func:`best_held` of every set of categories, for one order."""
    table = []
    for held in range(1 << len(PokerCategory)):
        best = 0
        for category in range(len(ranking)):
            if held >> category & 1 and ranking[category] > ranking[best]:
                best = category
        table.append(PokerCategory(best))
    return tuple(table)


def best_category(
    cards: Sequence[Card], bug: bool = False, ranking: Sequence[int] = STANDARD
) -> PokerCategory:
    """The category, highest in ``ranking`` (this game's order unless a designer's), that
    any five of ``cards`` show, Jokers chosen for it (with ``bug``, each Joker is a
    "bug": an Ace, or any card that completes a straight, a flush or a straight flush).

    Raises ``ValueError`` for fewer than five cards.
    """
    if len(cards) < 5:
        raise ValueError(f"a poker hand needs at least 5 cards, got {len(cards)}")
    counts = [0] * 15
    suit_len = [0, 0, 0, 0]
    suit_mask = [0, 0, 0, 0]
    jokers = 0
    for card in cards:
        if card.suit is None:
            jokers += 1
            continue
        value = _VALUE[card.rank]
        s = _SUIT_INDEX[card.suit]
        counts[value] += 1
        suit_len[s] += 1
        suit_mask[s] |= 1 << value
    return best_held(held_mask(counts, suit_len, suit_mask, jokers, bug), ranking)
