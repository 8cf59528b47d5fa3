"""Chances of each poker category for known ranks whose suits are random.

finnish27 pays a poker bonus on winning hands of five or more cards, Jokers
wild.  Its exact value needs, for a hand whose *ranks* are known, the chance of
each category when every card's suit is drawn uniformly and independently (the
model of :mod:`cardroom.games.finnish.analysis`, where cards are drawn with
replacement).  A hand of fifteen cards has 4**15 suit assignments, so they are
counted, not enumerated:

* **five of a kind** depends on the ranks alone (the largest group plus the
  Jokers reaches five);
* **flush** happens when some suit holds at least ``5 - jokers`` cards: a count
  of the assignments where every suit holds fewer (a product of binomials);
* **straight flush** happens when some suit holds ``5 - jokers`` distinct ranks
  inside one five-rank window.  Within one suit the ranks are independent (a
  rank with ``c`` cards is present in a given suit unless all ``c`` avoid it),
  so the count runs inclusion-exclusion over sets of suits, each term a small
  dynamic programme over the ranks from the low Ace to the high Ace;
* every other category depends on the ranks alone
  (:func:`cardroom.games.finnish.poker.held_mask` without suits); a hand is, of the
  categories it holds with a straight flush, a flush or neither, the highest in the
  table's order.

The counts are exact integers out of ``4**m`` (``m`` the cards that are not
Jokers).  The tests compare them with a brute-force enumeration of every suit
assignment through the evaluator.

>>> from cardroom.core.cards import Rank
>>> split = category_counts((Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE), jokers=1)
>>> sorted((c.label, n) for c, n in split.items())
[('Straight', 252), ('Straight flush', 4)]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import comb

from cardroom.core.cards import Rank
from cardroom.games.finnish.poker import (
    PLAIN_POKER,
    STANDARD,
    PokerCategory,
    PokerRules,
    best_held,
    held_mask,
)

__all__ = ["category_counts", "counts_by_value", "value_counts"]

#: the thirteen ordinary ranks, Ace first; their poker values 14, 2, ..., 13
_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if r is not Rank.JOKER)
_VALUE: dict[Rank, int] = {r: 14 if r is Rank.ACE else r.number for r in _RANKS}
_DONE = 16  # a suit's state once it holds a straight flush


def category_counts(
    ranks: Sequence[Rank], jokers: int, bug: bool = False, ranking: tuple[int, ...] = STANDARD
) -> dict[PokerCategory, int]:
    """How many of the ``4**len(ranks)`` suit assignments give each best category (in
    ``ranking``'s order).

    ``ranks`` are the hand's cards that are not Jokers (in any order); the hand
    must hold five cards or more with its ``jokers`` (wild, or with ``bug`` bugs).
    """
    if Rank.JOKER in ranks:
        raise ValueError("ranks: give the Jokers as a count, not as ranks")
    if len(ranks) + jokers < 5:
        raise ValueError("a poker hand needs at least 5 cards")
    return dict(_category_counts(counts_by_value(ranks), jokers, PokerRules(bug, ranking)))


def counts_by_value(ranks: Sequence[Rank]) -> tuple[int, ...]:
    """The cards of each poker value (index 2 to 14, the Ace 14; 0 and 1 unused)."""
    counts = [0] * 15
    for rank in ranks:
        counts[_VALUE[rank]] += 1
    return tuple(counts)


def value_counts(
    counts: tuple[int, ...], jokers: int, poker: PokerRules = PLAIN_POKER
) -> tuple[tuple[PokerCategory, int], ...]:
    """:func:`category_counts` from :func:`counts_by_value` (memoised)."""
    if sum(counts) + jokers < 5:
        raise ValueError("a poker hand needs at least 5 cards")
    return _category_counts(counts, jokers, poker)


_FLUSH = 1 << PokerCategory.FLUSH
_STRAIGHT_FLUSH = 1 << PokerCategory.STRAIGHT_FLUSH
_NO_SUITS = (0, 0, 0, 0)


@cache
def _category_counts(
    counts: tuple[int, ...], jokers: int, poker: PokerRules = PLAIN_POKER
) -> tuple[tuple[PokerCategory, int], ...]:
    m = sum(counts)
    everything = 4**m
    held = held_mask(counts, _NO_SUITS, _NO_SUITS, jokers, poker.bug)  # by the ranks
    plain = best_held(held, poker.ranking)
    flush = best_held(held | _FLUSH, poker.ranking)
    straight_flush = best_held(held | _FLUSH | _STRAIGHT_FLUSH, poker.ranking)
    need = 5 - jokers  # cards of one suit a flush needs
    if plain == flush == straight_flush:  # the suits change nothing
        return ((plain, everything),)
    if need <= 1:  # four Jokers and another card: a straight flush round it
        return ((straight_flush, everything),)
    no_flush = _spread(m, need - 1)
    sf_count = _straight_flush_count(counts, need)
    result: dict[PokerCategory, int] = {}
    for category, n in (
        (straight_flush, sf_count),
        (flush, everything - no_flush - sf_count),
        (plain, no_flush),
    ):
        if n:
            result[category] = result.get(category, 0) + n
    return tuple(result.items())


@cache
def _spread(m: int, most: int) -> int:
    """Assignments of ``m`` distinct cards to 4 suits with at most ``most`` per suit."""
    ways = [1 if n <= most else 0 for n in range(m + 1)]  # one suit
    for _ in range(3):
        ways = [
            sum(comb(n, i) * ways[n - i] for i in range(min(most, n) + 1)) for n in range(m + 1)
        ]
    return ways[m]


def _straight_flush_count(counts: tuple[int, ...], need: int) -> int:
    """Assignments where some suit holds ``need`` distinct ranks inside one window."""
    present = {v for v in range(2, 15) if counts[v]}
    if 14 in present:
        present.add(1)
    if not any(len(present & set(range(top - 4, top + 1))) >= need for top in range(5, 15)):
        return 0
    total = 0
    for k in range(1, 5):
        # every one of k suits needs `need` distinct ranks of its own
        if sum(min(c, k) for c in counts) < k * need:
            break
        total += (-1) ** (k + 1) * comb(4, k) * _all_suits_count(counts, need, k)
    return total


@cache
def _exactly(k: int, present: int, c: int) -> int:
    """Ways ``c`` cards of one rank fall so that, of k given suits, exactly
    ``present`` named ones hold at least one (the other 4 - k suits are free)."""
    return sum(
        comb(present, i) * (-1) ** (present - i) * (4 - k + i) ** c for i in range(present + 1)
    )


#: per (k, need): state * 16 + subset -> the next state (memoised; an int key hashes fast)
_STEPS: dict[tuple[int, int], dict[int, int]] = {}


def _step(state: int, subset: int, k: int, need: int) -> int:
    """Advance each of k suits' last-four-ranks history by one rank."""
    new = 0
    for i in range(k):
        field = state >> (5 * i) & 31
        if field != _DONE:
            history = (field << 1 | (subset >> i & 1)) & 31
            field = _DONE if history.bit_count() >= need else history & 15
        new |= field << (5 * i)
    return new


def _all_suits_count(counts: tuple[int, ...], need: int, k: int) -> int:
    """Assignments where each of k given suits holds a straight flush."""
    done_all = sum(_DONE << (5 * i) for i in range(k))
    ace = counts[14]
    total = 0
    for aces_in in range(k + 1):
        if ace == 0 and aces_in:
            break
        # the Ace is present in the first `aces_in` of the k suits (by symmetry)
        weight = comb(k, aces_in) * _exactly(k, aces_in, ace)
        if not weight:
            continue
        ace_subset = (1 << aces_in) - 1
        steps = _STEPS.setdefault((k, need), {})
        states = {_step(0, ace_subset, k, need): weight}  # value 1: the low Ace
        for value in range(2, 15):
            c = counts[value]
            options = (
                [(ace_subset, 1)]
                if value == 14
                else [(s, _exactly(k, s.bit_count(), c)) for s in range(1 << k)]
                if c
                else [(0, 1)]
            )
            options = [(subset, ways) for subset, ways in options if ways]
            nxt: dict[int, int] = {}
            for state, w in states.items():
                base = state << 4
                for subset, ways in options:
                    key = steps.get(base | subset)
                    if key is None:
                        key = steps[base | subset] = _step(state, subset, k, need)
                    nxt[key] = nxt.get(key, 0) + w * ways
            states = nxt
        total += states.get(done_all, 0)
    return total
