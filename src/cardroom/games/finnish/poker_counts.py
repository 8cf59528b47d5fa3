"""The compiled half of :mod:`cardroom.games.finnish.poker_odds`: the count of the suit
assignments without a straight flush, and the rows and tables of categories and counts
built on it (with :func:`~cardroom.games.finnish.poker.held_mask` compiled).

Kept apart so that the odds' module, which the exact analysis and so the games' registry
import, does not import Numba: this module is imported (and its functions loaded from
Numba's cache) the first time a count is asked for.  :mod:`cardroom.games.finnish.poker_shoe`
builds its own compiled count on :func:`multiset_index`, :func:`ace_start` and
:func:`suit_step`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardroom.games.finnish.poker import PokerCategory, held_mask
from cardroom.games.finnish.poker_odds import _MOST_CARDS

__all__ = ["ace_start", "multiset_index", "sorted_codes", "suit_step"]

_FLUSH = 1 << PokerCategory.FLUSH
_STRAIGHT_FLUSH = 1 << PokerCategory.STRAIGHT_FLUSH

#: :func:`~cardroom.games.finnish.poker.held_mask`, compiled for the counts below
_held_mask = njit(cache=True)(held_mask)


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
