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

from cardroom.core.cards import Rank
from cardroom.games.finnish.poker import (
    PLAIN_POKER,
    STANDARD,
    PokerCategory,
    PokerRules,
    best_held,
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
    from cardroom.games.finnish.poker_counts import _counts_row  # lazy: Numba

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
    from cardroom.games.finnish.poker_counts import _counts_tables  # lazy: Numba

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


#: ``_SPREAD[m, most]``: :func:`_spread` for every hand the compiled count takes
_SPREAD = np.array(
    [[_spread(m, most) for most in range(5)] for m in range(_MOST_CARDS + 1)], np.int64
)
