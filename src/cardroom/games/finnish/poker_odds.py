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
  inside one five-rank window.  The assignments *without* one are counted,
  compiled, by a programme over the ranks from the low Ace to the high Ace whose
  state is the multiset of the four suits' last four ranks (the suits are alike);
* every other category depends on the ranks alone
  (:func:`cardroom.games.finnish.poker.held_mask` without suits); a hand is, of the
  categories it holds with a straight flush, a flush or neither, the highest in the
  table's order.

The counts are exact integers out of ``4**m`` (``m`` the cards that are not
Jokers, at most 31), each hand's worked out by one compiled call.  The
tests compare them with a brute-force enumeration of every suit assignment through
the evaluator.

>>> from cardroom.core.cards import Rank
>>> split = category_counts((Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE), jokers=1)
>>> sorted((c.label, n) for c, n in split.items())
[('Straight', 252), ('Straight flush', 4)]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from math import comb
from typing import cast

import numpy as np
from numba import njit

from cardroom.core.cards import Rank
from cardroom.games.finnish.poker import (
    PLAIN_POKER,
    STANDARD,
    PokerCategory,
    PokerRules,
    best_held,
    held_mask,
)

__all__ = [
    "TABLE_JOKERS",
    "category_counts",
    "counts_by_value",
    "counts_row",
    "counts_table",
    "counts_tables",
    "value_counts",
]

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
    return dict(value_counts(counts_by_value(ranks), jokers, PokerRules(bug, ranking)))


#: the length of :func:`counts_by_value`'s tuples
_VALUES = 15


def counts_by_value(ranks: Sequence[Rank]) -> tuple[int, ...]:
    """The cards of each poker value (index 2 to 14, the Ace 14; 0 and 1 unused)."""
    counts = [0] * _VALUES
    for rank in ranks:
        counts[_VALUE[rank]] += 1
    return tuple(counts)


def value_counts(
    counts: tuple[int, ...], jokers: int, poker: PokerRules = PLAIN_POKER
) -> tuple[tuple[PokerCategory, int], ...]:
    """:func:`category_counts` from :func:`counts_by_value` (not memoised: the analysis
    keeps what it needs)."""
    row = counts_row(counts, jokers, poker)
    if row[0] < -1:
        raise ValueError(
            f"a poker hand needs at least 5 cards, and at most {_MOST_CARDS} besides its Jokers"
        )
    # (each part's category, where it has one; the parts are never all empty)
    return tuple((_CATEGORIES[row[at]], row[at + 1]) for at in (0, 2, 4) if row[at] >= 0)


def counts_row(counts: tuple[int, ...], jokers: int, poker: PokerRules = PLAIN_POKER) -> list[int]:
    """:func:`value_counts` as up to three (category, count) pairs flat, the category -1
    where unused; every category -2 where the hand is shorter than five cards or longer
    than :data:`_MOST_CARDS` besides its Jokers."""
    return list(_counts_row(counts, jokers, poker.bug, _best_table(poker), _SPREAD, *_scratch()))


_CATEGORIES = tuple(PokerCategory)

#: the Jokers :func:`counts_table` goes up to
TABLE_JOKERS = 9
#: :func:`counts_tables` shares out batches of this many hands or more between threads
_SPLIT_FROM = 2_000


def counts_table(counts: tuple[int, ...], poker: PokerRules = PLAIN_POKER) -> list[list[int]]:
    """:func:`counts_row` of these cards with each number of Jokers from 0 to
    :data:`TABLE_JOKERS` (row ``j``), in one compiled call: an analysis that needs a
    hand's counts with several numbers of Jokers asks once."""
    return counts_tables([counts], poker)[0]


def counts_tables(
    hands: Sequence[tuple[int, ...]], poker: PokerRules = PLAIN_POKER
) -> list[list[list[int]]]:
    """:func:`counts_table` of each of many hands, in one compiled call (a walk over
    hands asks for a whole level's at once).  Hands whose tables are the same share one
    list (a few thousand tables serve some 10**5 hands): treat them as read-only."""
    cards = np.array(hands, np.int64).reshape(len(hands), _VALUES)
    if len(hands) and cards.sum(axis=1).max() > _MOST_CARDS:
        raise ValueError(f"a poker hand of at most {_MOST_CARDS} cards besides its Jokers")
    out = np.empty((len(hands), TABLE_JOKERS + 1, 6), np.int64)
    best = _best_table(poker)

    def count(part: slice) -> None:
        _counts_tables(cards[part], poker.bug, best, _SPREAD, *_scratch(), out[part])

    # a long batch split between the processors (each thread has its own scratch)
    workers = min(os.cpu_count() or 1, len(hands) // _SPLIT_FROM + 1)
    if workers > 1:
        step = -(-len(hands) // workers)
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(count, (slice(i, i + step) for i in range(0, len(hands), step))))
    else:
        count(slice(None))
    # each table's bytes as one value, to make each distinct table's lists once
    whole = np.dtype((np.void, out[0].nbytes))
    tables: dict[bytes, list[list[int]]] = {}
    found = []
    raws = cast(list[bytes], out.reshape(len(hands), -1).view(whole).ravel().tolist())
    for raw in raws:
        table = tables.get(raw)
        if table is None:
            table = tables[raw] = np.frombuffer(raw, np.int64).reshape(out.shape[1:]).tolist()
        found.append(table)
    return found


#: :func:`~cardroom.games.finnish.poker.held_mask`, compiled for the counts below
_held_mask = njit(cache=True)(held_mask)

_FLUSH = 1 << PokerCategory.FLUSH
_STRAIGHT_FLUSH = 1 << PokerCategory.STRAIGHT_FLUSH


@cache
def _best_table(poker: PokerRules) -> np.ndarray:
    """:func:`best_held` of every set of categories, as a table the compiled count reads."""
    held = range(1 << len(PokerCategory))
    return np.array([best_held(h, poker.ranking) for h in held], np.int64)


def _spread(m: int, most: int) -> int:
    """Assignments of ``m`` distinct cards to 4 suits with at most ``most`` per suit."""
    ways = [1 if n <= most else 0 for n in range(m + 1)]  # one suit
    for _ in range(3):
        ways = [
            sum(comb(n, i) * ways[n - i] for i in range(min(most, n) + 1)) for n in range(m + 1)
        ]
    return ways[m]


def _exactly(k: int, present: int, c: int) -> int:
    """Ways ``c`` cards of one rank fall so that, of k given suits, exactly
    ``present`` named ones hold at least one (the other 4 - k suits are free)."""
    return sum(
        comb(present, i) * (-1) ** (present - i) * (4 - k + i) ** c for i in range(present + 1)
    )


# -- the assignments without a straight flush, compiled ------------------------------------------
#: the most cards the compiled count takes: 4**31 assignments still fit in 63 bits
_MOST_CARDS = 31
#: ways ``c`` cards fall on exactly the suits of each subset t of the four:
#: ``_ONTO[c, t]`` (the surjections onto t)
_ONTO = np.array(
    [[_exactly(4, t.bit_count(), c) for t in range(16)] for c in range(_MOST_CARDS + 1)],
    np.int64,
)
#: the states of four suits, as multisets of four 5-bit codes (fewer than 52,360)
_STATES = 52_360


_LOCAL = threading.local()


def _scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The compiled count's arrays, made once per thread (it leaves them as it found
    them)."""
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = getattr(
        _LOCAL, "arrays", None
    )
    if arrays is None:
        arrays = _LOCAL.arrays = (
            _ONTO,
            np.zeros(_STATES, np.int64),
            np.zeros(_STATES, np.int64),
            np.zeros((2, _STATES), np.int64),
            np.zeros(2, np.int64),
        )
    return arrays


@njit(inline="always")
def multiset_index(packed: np.int64) -> int:
    """The place of four sorted 5-bit codes (packed low first) among all multisets of
    four codes below 32 (fewer than 52,360: the combinatorial number system)."""
    a = packed & 31
    b = (packed >> 5) & 31
    c = (packed >> 10) & 31
    d = (packed >> 15) & 31
    return int(
        a + (b + 1) * b // 2 + (c + 2) * (c + 1) * c // 6 + (d + 3) * (d + 2) * (d + 1) * d // 24
    )


@njit(inline="always")
def sorted_codes(c0: int, c1: int, c2: int, c3: int) -> np.int64:
    """Four 5-bit codes sorted and packed, the lowest first."""
    if c0 > c1:
        c0, c1 = c1, c0
    if c2 > c3:
        c2, c3 = c3, c2
    if c0 > c2:
        c0, c2 = c2, c0
    if c1 > c3:
        c1, c3 = c3, c1
    if c1 > c2:
        c1, c2 = c2, c1
    return np.int64(c0 | c1 << 5 | c2 << 10 | c3 << 15)


@njit(inline="always")
def ace_start(t: int) -> np.int64:
    """The four suits' codes at the low Ace, the suits of ``t`` holding it."""
    b0, b1, b2, b3 = t & 1, (t >> 1) & 1, (t >> 2) & 1, (t >> 3) & 1
    return sorted_codes(b0 * 17, b1 * 17, b2 * 17, b3 * 17)


@njit(inline="always")
def _advance(code: int, bit: int, need: int) -> int:
    """One suit's code moved on by a rank it holds (``bit``), or -1 where it then holds
    ``need`` ranks of a five-rank window."""
    window = (code & 15) << 1 | bit
    bits = 0
    h = window
    while h:
        h &= h - 1
        bits += 1
    return -1 if bits >= need else (window & 15) | (code & 16)


@njit(inline="always")
def suit_step(packed: np.int64, t: int, high: bool, need: int) -> np.int64:
    """Four suits' codes (each: which of the last four ranks the suit holds, and bit 4:
    whether it holds the Ace) moved on by one rank that the suits of ``t`` hold (the
    high Ace: the suits that hold the Ace); -1 where a suit then holds ``need`` ranks
    of a five-rank window."""
    c0 = int(packed & 31)
    c1 = int((packed >> 5) & 31)
    c2 = int((packed >> 10) & 31)
    c3 = int((packed >> 15) & 31)
    n0 = _advance(c0, c0 >> 4 if high else t & 1, need)
    n1 = _advance(c1, c1 >> 4 if high else (t >> 1) & 1, need)
    n2 = _advance(c2, c2 >> 4 if high else (t >> 2) & 1, need)
    n3 = _advance(c3, c3 >> 4 if high else (t >> 3) & 1, need)
    if n0 < 0 or n1 < 0 or n2 < 0 or n3 < 0:
        return np.int64(-1)
    return sorted_codes(n0, n1, n2, n3)


@njit(cache=True)
def _no_straight_flush(
    counts: tuple[int, ...], need: int, onto: np.ndarray, cur: np.ndarray, nxt: np.ndarray,
    active: np.ndarray, nactive: np.ndarray,
) -> int:  # fmt: skip
    """Assignments of the cards (``counts`` per poker value, the Ace 14) to the four
    suits in which no suit holds ``need`` ranks of a five-rank window: a programme
    over the values from the low Ace to the high Ace whose state is the multiset of
    the suits' codes (:func:`suit_step`).  ``cur``/``nxt`` are zeroed and stay so."""
    nactive[0] = 0
    for t in range(16):
        w = onto[counts[14], t]
        if w == 0:
            continue
        packed = ace_start(t)
        at = multiset_index(packed)
        if cur[at] == 0:
            active[0, nactive[0]] = packed
            nactive[0] += 1
        cur[at] += w
    side = 0
    for value in range(2, 15):
        high = value == 14
        c = 0 if high else counts[value]
        other = 1 - side
        nactive[other] = 0
        for t in range(16):
            w = onto[c, t]
            if w == 0:
                continue
            for a in range(nactive[side]):
                packed = active[side, a]
                new = suit_step(packed, t, high, need)
                if new < 0:
                    continue
                to = multiset_index(new)
                if nxt[to] == 0:
                    active[other, nactive[other]] = new
                    nactive[other] += 1
                nxt[to] += cur[multiset_index(packed)] * w
        for a in range(nactive[side]):
            cur[multiset_index(active[side, a])] = 0
        cur, nxt = nxt, cur
        side = other
    total = 0
    for a in range(nactive[side]):
        at = multiset_index(active[side, a])
        total += cur[at]
        cur[at] = 0
    return total


#: ``_SPREAD[m, most]``: :func:`_spread` for every hand the compiled count takes
_SPREAD = np.array(
    [[_spread(m, most) for most in range(5)] for m in range(_MOST_CARDS + 1)], np.int64
)


@njit(cache=True)
def _counts_row(
    counts: tuple[int, ...], jokers: int, bug: bool, best: np.ndarray, spread: np.ndarray,
    onto: np.ndarray, cur: np.ndarray, nxt: np.ndarray, active: np.ndarray,
    nactive: np.ndarray,
) -> tuple[int, int, int, int, int, int]:  # fmt: skip
    """A hand's best categories and their counts out of ``4**m``: ``counts`` per poker
    value and ``jokers`` Jokers; ``best`` is :func:`best_held` as a table.  Up to three
    (category, count) pairs, the straight flush's, the flush's and the rest's, the
    same category merged (-1 where unused); -2 first for a hand of fewer than 5 cards
    or more than :data:`_MOST_CARDS` besides its Jokers."""
    no_suits = (0, 0, 0, 0)
    m = 0
    for v in range(15):
        m += counts[v]
    if m + jokers < 5 or m > _MOST_CARDS:
        return -2, 0, -1, 0, -1, 0
    everything = 1 << (2 * m)
    held = _held_mask(counts, no_suits, no_suits, jokers, bug)
    plain = best[held]
    flush = best[held | _FLUSH]
    straight_flush = best[held | _FLUSH | _STRAIGHT_FLUSH]
    need = 5 - jokers
    if plain == flush and flush == straight_flush:  # the suits change nothing
        return plain, everything, -1, 0, -1, 0
    if need <= 1:  # four Jokers and another card: a straight flush round it
        return straight_flush, everything, -1, 0, -1, 0
    no_flush = spread[m, need - 1]
    sf_count = 0
    # a straight flush needs `need` distinct values in a five-value window
    bits = 0
    for v in range(2, 15):
        if counts[v]:
            bits |= 1 << v
    if bits >> 14 & 1:
        bits |= 2
    for high in range(5, 15):
        present = 0
        for v in range(high - 4, high + 1):
            present += bits >> v & 1
        if present >= need:
            sf_count = everything - _no_straight_flush(
                counts, need, onto, cur, nxt, active, nactive
            )
            break
    flush_count = everything - no_flush - sf_count
    # merge the parts whose categories are the same (the table's order may rank them so)
    if flush == straight_flush:
        flush_count += sf_count
        sf_count = 0
    if plain == flush:
        no_flush += flush_count
        flush_count = 0
    elif plain == straight_flush:
        no_flush += sf_count
        sf_count = 0
    return (
        straight_flush if sf_count else -1,
        sf_count,
        flush if flush_count else -1,
        flush_count,
        plain if no_flush else -1,
        no_flush,
    )


@njit(cache=True, nogil=True)
def _counts_tables(
    hands: np.ndarray, bug: bool, best: np.ndarray, spread: np.ndarray,
    onto: np.ndarray, cur: np.ndarray, nxt: np.ndarray, active: np.ndarray,
    nactive: np.ndarray, out: np.ndarray,
) -> None:  # fmt: skip
    """:func:`_counts_row` of each hand (a row of ``hands``) with each number of Jokers:
    ``out[hand, jokers]``."""
    for h in range(hands.shape[0]):
        counts = hands[h]
        for jokers in range(out.shape[1]):
            row = _counts_row(counts, jokers, bug, best, spread, onto, cur, nxt, active, nactive)
            for i in range(6):
                out[h, jokers, i] = row[i]
