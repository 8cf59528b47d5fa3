"""The effects of removal share the full shoe's tables (its hands and sub-multisets, its
dealer tables G, the poker chances of the hands holding no card of the rank taken out):
each count of a shoe with a card out equals the same count made from nothing."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from cardroom.core.cards import Rank
from cardroom.games.finnish.analysis import best_finnish27_table, table_hits
from cardroom.games.finnish.finnish27 import BonusTable, Finnish27Rules
from cardroom.games.finnish.hands import Total
from cardroom.games.finnish.replacement import Hits
from cardroom.games.finnish.shoe_cache import play_text
from cardroom.games.finnish.shoe_count import Sweep, count_rounds, same_rounds
from cardroom.games.finnish.shoe_deal import SUITS, ShoeMakeup
from cardroom.games.finnish.shoe_finnish27 import (
    FullShoe,
    _count_finnish27,
    _tables,
    count_finnish27,
    finnish27_shape,
)
from cardroom.games.finnish.shoe_hands import Prepared, prepare
from cardroom.games.finnish.shoe_twentyone import FullSweep, twentyone_counts
from cardroom.games.finnish.twentyone_24_27 import BASIC_STRATEGY, TwentyOne2427Rules
from cardroom.games.walk import RANK_ORDER

#: no hand holds all eight Kings: a shoe with one out has
#: the full shoe's hands, and its count the full shoe's tables to share
SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 4, Rank.FOUR: 4, Rank.NINE: 5, Rank.TEN: 8, Rank.KING: 8, Rank.JOKER: 2}
)


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDROOM_NO_CACHE", "1")


def _mixture(rank: Rank) -> list[tuple[Fraction, tuple[tuple[int, ...], ...]]] | None:
    index = RANK_ORDER.index(rank)
    if rank is Rank.JOKER:
        return None
    return [
        (Fraction(n, SHOE.counts[index]), SHOE.without(rank, suit).suits)
        for suit, n in zip(SUITS, SHOE.suits[index], strict=True)
        if n
    ]


def test_finnish27_counts_with_a_card_out_share_the_full_shoes_tables() -> None:
    rules = Finnish27Rules(bonus=BonusTable(flush=Fraction(5)))
    full = FullShoe(rules, SHOE)
    assert count_finnish27(rules, SHOE, like=full) == count_finnish27(rules, SHOE)
    base, poker = full.tables()
    for rank in (Rank.ACE, Rank.NINE, Rank.KING, Rank.JOKER):
        fewer, mixture = SHOE.without(rank), _mixture(rank)
        sweep, bonus = _tables(rules, fewer, None, mixture, (base, poker))
        if rank is Rank.KING:  # (Kings are never short in a hand: it shares everything)
            assert sweep.base is base and bonus._like is poker
        # a card of unknown suit out leaves every hand's suit chances as they were (even
        # the Nines', spread unevenly over the suits): the poker counts are all shared,
        # but for the hands the full shoe has not (holding every Ace)
        assert bonus._like is poker and bonus.mixture == poker.mixture
        assert np.array_equal(bonus._redo, bonus._in_like < 0)
        if rank is Rank.ACE:
            assert sweep.base is None and len(bonus.hands) < len(poker.hands)
        alone = count_finnish27(rules, fewer, mixture=mixture)
        assert count_rounds(sweep, bonus, bonus.keys).results == alone.results
    assert base._kept  # the full shoe's G were kept and taken


def test_21_24_27_counts_with_a_card_out_share_the_full_shoes_tables() -> None:
    rules = TwentyOne2427Rules()
    play = BASIC_STRATEGY.hits
    full = FullSweep(rules, SHOE, play)
    for rank in (Rank.ACE, Rank.TEN, Rank.KING, Rank.JOKER):
        fewer = SHOE.without(rank)
        alone = twentyone_counts(rules, fewer, play)
        assert twentyone_counts(rules, fewer, play, full).results == alone.results
    assert isinstance(full.sweep(), Sweep)


def test_a_play_that_differs_only_where_no_hand_goes_has_the_rules_count() -> None:
    rules = Finnish27Rules()
    own = rules.strategy.hits
    best = table_hits(best_finnish27_table(rules))  # (differs on totals no hand has)
    assert play_text(best) != play_text(own)
    assert same_rounds(_prepared(rules, best), _prepared(rules, own))
    counted = _count_finnish27(rules, SHOE, best, None, None)
    assert count_finnish27(rules, SHOE, best) == counted == count_finnish27(rules, SHOE)

    def stands_on_hard_12(total: Total, dealer: Total) -> bool:
        return own(total, dealer) and total != Total(12, False)

    other = _prepared(rules, stands_on_hard_12)
    assert not same_rounds(other, _prepared(rules, own))
    counted = _count_finnish27(rules, SHOE, stands_on_hard_12, None, None)
    assert count_finnish27(rules, SHOE, stands_on_hard_12) == counted
    assert counted != count_finnish27(rules, SHOE)


def _prepared(rules: Finnish27Rules, hits: Hits) -> Prepared:
    return prepare(finnish27_shape(rules, hits), SHOE)
