"""The poker-category counts over random suits, against brute-force enumeration.

Every suit assignment of the hand's ordinary cards is dealt to the game's own
evaluator (:func:`cardroom.games.finnish.poker.best_category`); the counts must match
exactly.  The hands below are chosen so that two suits may both hold a straight
flush (eight cards with one Joker, six with two), and that the Ace plays low and high.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.core.cards import JOKER, Card, Rank, Suit
from cardroom.games.finnish.poker import STANDARD, PokerCategory, PokerRules, best_category
from cardroom.games.finnish.poker_odds import (
    category_counts,
    counts_by_value,
    counts_table,
    counts_tables,
    value_counts,
)

ORDINARY = [rank for rank in Rank if rank is not Rank.JOKER]


#: a designer's order of the categories (high card lowest): the straight above the flush,
#: the full house above five of a kind, five of a kind below the straight flush
ORDERED = (0, 1, 2, 3, 5, 8, 6, 4, 9, 7)


def brute_force(
    ranks: tuple[Rank, ...], jokers: int, bug: bool = False, ranking: tuple[int, ...] = STANDARD
) -> dict[PokerCategory, int]:
    found: Counter[PokerCategory] = Counter()
    for suits in product(tuple(Suit), repeat=len(ranks)):
        cards = [Card(r, s) for r, s in zip(ranks, suits, strict=True)] + [JOKER] * jokers
        found[best_category(cards, bug, ranking)] += 1
    return dict(found)


def ranks_of(text: str) -> tuple[Rank, ...]:
    return tuple(Rank(part) for part in text.split())


@pytest.mark.parametrize(
    ("hand", "jokers"),
    [
        ("2 3 4 5", 1),  # straight flush, flush, straight
        ("A 2 3 4 5", 0),  # the wheel
        ("T J Q K A 2", 0),  # Broadway plus a card
        ("A 2 3 4 5 A", 0),  # the Ace low and high at once
        ("2 6 T A", 3),  # two cards four apart make a straight flush with three Jokers
        ("A 3 5 7 9 J", 2),
        ("2 3 4 2 3 4", 2),  # two suits may both hold a straight flush
        ("2 3 4 5 2 3 4 5", 1),
        ("A 2 6 7 A 2 6", 2),
        ("9 9 9 9 2", 0),  # four of a kind without a flush
        ("7 7 7 7 7", 0),  # five of a kind, suits do not matter
        ("K K", 3),
        ("8", 4),
        ("A", 4),  # four bugs: five Aces with an Ace, a straight flush without
        ("A K K", 2),
        ("9 T J Q K A 9", 0),  # no Joker: five values in a row in one suit
    ],
)
def test_counts_match_brute_force(hand: str, jokers: int) -> None:
    ranks = ranks_of(hand)
    for bug in (False, True):  # Jokers wild, and Jokers as bugs (an Ace, or completing)
        for ranking in (STANDARD, ORDERED):
            counts = category_counts(ranks, jokers, bug, ranking)
            assert counts == brute_force(ranks, jokers, bug, ranking), (bug, ranking)
            assert sum(counts.values()) == 4 ** len(ranks)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(ORDINARY[:9]), min_size=2, max_size=6),
    st.integers(min_value=0, max_value=3),
    st.booleans(),
    st.sampled_from([STANDARD, ORDERED]),
)
def test_random_hands_match_brute_force(
    ranks: list[Rank], jokers: int, bug: bool, ranking: tuple[int, ...]
) -> None:
    if len(ranks) + jokers < 5:
        jokers = 5 - len(ranks)
    found = category_counts(ranks, jokers, bug, ranking)
    assert found == brute_force(tuple(ranks), jokers, bug, ranking)


def test_long_hands_are_counted_without_enumeration() -> None:
    """Fourteen cards (4**14 assignments): some suit always holds four or more,
    so with one Joker a flush (or better) is certain."""
    ranks = ranks_of("A A A 2 2 2 3 3 3 4 4 5 5 6")
    counts = category_counts(ranks, 1)
    assert sum(counts.values()) == 4**14
    assert set(counts) == {PokerCategory.FLUSH, PokerCategory.STRAIGHT_FLUSH}


def test_bad_hands_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 5"):
        category_counts(ranks_of("2 3 4"), 1)
    with pytest.raises(ValueError, match="Jokers as a count"):
        category_counts((Rank.TWO, Rank.JOKER, Rank.THREE, Rank.FOUR, Rank.FIVE), 0)
    with pytest.raises(ValueError, match="at most 31 besides"):
        category_counts((Rank.TWO,) * 32, 0)


def test_the_table_by_jokers_is_each_count_alone() -> None:
    """One compiled call gives a hand's counts with 0 to 9 Jokers: each row is the
    count of that many Jokers on its own, and -2 where the hand is short of five."""
    poker = PokerRules(True, ORDERED)
    for text in ("2 3 4 5", "A 2 6 7 A 2 6", "9 9 9 9 2", "K K", "T J Q K A 9 9"):
        counts = counts_by_value(ranks_of(text))
        for jokers, row in enumerate(counts_table(counts, poker)):
            if len(text.split()) + jokers < 5:
                assert row[0] == -2
                continue
            pairs = [(row[at], row[at + 1]) for at in (0, 2, 4) if row[at] >= 0]
            assert pairs == [(int(c), n) for c, n in value_counts(counts, jokers, poker)]


def test_a_batch_of_tables_is_each_table_alone() -> None:
    """A walk asks for a whole level's tables at once: a batch long enough to be shared
    between threads gives each hand the table it gets alone, and hands whose tables are
    equal share one."""
    poker = PokerRules(False, ORDERED)
    hands = [
        counts_by_value(tuple(ORDINARY[i % 13] for i in range(start, start + size)))
        for size in range(1, 9)
        for start in range(13)
    ]
    hands *= 30  # past the length a batch is split from
    found = counts_tables(hands, poker)
    assert len(found) == len(hands) > 2_000
    alone = {counts: counts_table(counts, poker) for counts in hands[:104]}
    assert all(table == alone[counts] for counts, table in zip(hands, found, strict=True))
    assert found[0] is found[104]  # the same hand again shares its table
    assert len({id(table) for table in found}) < 104
