"""Parts of the count that are split, shortened or shared for speed give what the plain
way gives: the players' sub-multisets worked out on several threads, the few
sub-multisets of a dealer who stands on two cards read one by one, the tables of hands
a shoe with a card out takes from the full shoe's, and the terms of a difference of two
shoes' G left out for being 0 (the whole count is held against the engine in
test_shoe)."""

from __future__ import annotations

import numpy as np
import pytest

from cardroom.core.cards import RANK_ORDER, Rank
from cardroom.games.finnish import shoe_count
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.shoe_count import (
    DealerHands,
    _few_digits,
    _sub_multisets,
    _unique_hands,
    count_rounds,
    passes,
)
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.finnish.shoe_finnish27 import _tables, finnish27_shape
from cardroom.games.finnish.shoe_hands import Prepared, prepare


def test_sub_multisets_on_threads_are_the_kernels_in_order() -> None:
    rules = Finnish27Rules()
    prepared = prepare(
        finnish27_shape(rules, rules.strategy.hits), ShoeMakeup.of_rules(rules.shoe, 1)
    )
    dealer = DealerHands.build(prepared)
    counts, _ = _unique_hands(prepared, [prepared.finished(h) for h in prepared.hands])
    assert len(counts) >= 1000  # (else it is not split)
    args = (counts, prepared.tables.radix, dealer.index_keys, dealer.index_vals)
    for mine, plain in zip(_sub_multisets(*args), kernel.sub_multisets(*args), strict=True):
        assert np.array_equal(mine, plain)


def test_a_dealer_standing_on_two_cards_has_few_sub_multisets_read_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = Finnish27Rules()
    shoe = ShoeMakeup.of_rules(rules.shoe, 1)
    sweep, bonus = _tables(rules, shoe, None, None, None)
    chosen = passes(sweep.prepared, bonus.group)
    few = [c for c in chosen if len(_few_digits(sweep, sweep.dealer_table(c)[0]))]
    assert few  # (the dealer's hard 24-26)
    counted = count_rounds(sweep, bonus, bonus.keys)
    monkeypatch.setattr(shoe_count, "_FEW", -1)
    assert not any(len(_few_digits(sweep, sweep.dealer_table(c)[0])) for c in chosen)
    assert count_rounds(sweep, bonus, bonus.keys).results == counted.results


def _prepared_fields(prepared: Prepared) -> list[object]:
    tables = [
        (t.keys.tolist(), t.counts.tolist(), t.ways.tolist(), t.draws.tolist())
        for t in (*prepared.hands, *prepared.draws)
    ]
    return [
        prepared.settled, prepared.starts, [d.pair for d in prepared.dealers],
        prepared.class_of, prepared.draw_starts, prepared.finals, prepared.longest,
        prepared.joker_final, prepared.tables.caps.tolist(), tables,
    ]  # fmt: skip


#: no hand holds all eight Kings: a shoe with one out deals the full shoe's hands; one
#: may hold all four Aces
SMALL = ShoeMakeup.of_counts(
    {Rank.ACE: 4, Rank.FOUR: 4, Rank.NINE: 5, Rank.TEN: 8, Rank.KING: 8, Rank.JOKER: 2}
)


@pytest.mark.parametrize("rank", [Rank.KING, Rank.JOKER, Rank.ACE])
def test_a_shoe_with_a_card_out_prepared_like_the_full_one_is_prepared_as_alone(
    rank: Rank,
) -> None:
    rules = Finnish27Rules()
    shape = finnish27_shape(rules, rules.strategy.hits)
    full = prepare(shape, SMALL)
    fewer = SMALL.without(rank)
    alone, like = prepare(shape, fewer), prepare(shape, fewer, full)
    assert _prepared_fields(like) == _prepared_fields(alone)
    # the hands' tables are the full shoe's, but where a hand may hold every Ace the
    # shoe has, and so a shoe with one fewer has other tables
    shared = like.hands[0] is full.hands[0] and like.draws[0] is full.draws[0]
    assert shared == (rank is not Rank.ACE)


def _entries(terms: tuple[np.ndarray, ...]) -> dict[tuple[int, int, int], list[int]]:
    """G's nonzero entries: (sub-multiset, final, draws) -> lanes."""
    ids, ptr, final, m, vals, _ = terms
    out = {}
    for at, ident in enumerate(ids.tolist()):
        for e in range(ptr[at], ptr[at + 1]):
            if vals[e].any():
                out[(ident, int(final[e]), int(m[e]))] = vals[e].tolist()
    return out


def test_a_difference_of_two_shoes_skips_the_sub_multisets_whose_terms_are_0() -> None:
    rules = Finnish27Rules()
    shoe = ShoeMakeup.of_rules(rules.shoe, 2)
    rank = RANK_ORDER.index(Rank.FIVE)
    full, _ = _tables(rules, shoe, None, None, None)
    fewer, _ = _tables(rules, shoe.without(Rank.FIVE), None, None, (full, _))
    chosen = max(passes(full.prepared, lambda d: 0), key=lambda c: len(c.dealers))
    hands = full._dealer_hands(chosen)
    holding = hands[0][:, rank] > 0
    modulus = full.prepared.modulus
    tab, tab_f = full.tab.copy(), full.tab_f.copy()
    tab[rank] = shoe_count._sub_mod(fewer.tab[rank], full.tab[rank], modulus.p)
    tab_f[rank] = fewer.tab_f[rank] - full.tab_f[rank]
    mine = tuple(np.ascontiguousarray(a[holding]) for a in hands)
    whole = _entries(fewer._terms(chosen, mine, tab, tab_f))
    short = fewer._terms(chosen, mine, tab, tab_f, rank)
    assert _entries(short) == whole
    assert len(short[2]) < len(fewer._terms(chosen, mine, tab, tab_f)[2])
