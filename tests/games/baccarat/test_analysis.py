"""The exact punto banco fast path: published figures, and agreement with the engine.

The fast path (:mod:`cardroom.games.baccarat.analysis`) counts ordered card combinations
over point values; the reference is the generic walk over the real engine
(:func:`cardroom.games.walk.exact`), compared exactly on small shoes, where the
walk is quick, with the standard tableau, variant tableaus and variant payouts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.analysis.report import GameReport, decimal_text
from cardroom.core.cards import RANKS, Rank
from cardroom.core.shoe import ShoeRules
from cardroom.games.baccarat import (
    SIDE_WAGERS,
    STANDARD_TABLEAU,
    Baccarat27Round,
    BaccaratRound,
    BaccaratRules,
    BankerPay,
    BankerRow,
    PuntoBancoRound,
    Tableau,
    baccarat27_rules,
    punto_banco_rules,
)
from cardroom.games.baccarat.analysis import (
    analyze_baccarat,
    analyze_composition,
    coup_counts,
    effects_of_removal,
    effects_of_removal_from,
    expectations,
    shoe_composition,
)
from cardroom.games.base import Round
from cardroom.games.walk import RANK_ORDER, exact

R = Rank
PB = punto_banco_rules()
B27 = baccarat27_rules()

#: A variant tableau: naturals only on 9, the player draws on 0-4, the banker
#: draws on 0-6 when the player stands, and rows unlike the standard ones.
VARIANT = Tableau(
    natural_from=9,
    player_draws_below=5,
    banker_draws_below_when_player_stands=7,
    banker=(
        BankerRow(0, tuple(range(10))),
        BankerRow(1, tuple(range(10))),
        BankerRow(2, (0, 1, 2, 3, 4, 5, 6, 7, 9)),
        BankerRow(3, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
        BankerRow(4, (1, 2, 3, 4, 5, 6, 7)),
        BankerRow(5, (3, 4, 5, 6, 7)),
        BankerRow(6, (6, 7, 8)),
        BankerRow(7, (0,)),
        BankerRow(8, ()),
    ),
)

#: Shoes on which the engine's own walk is exact (see the xfail below): no two
#: ranks present share a point value, or those that do have equal counts.
DISTINCT = {R.TWO: 3, R.THREE: 2, R.FOUR: 3, R.SIX: 2, R.SEVEN: 2, R.EIGHT: 2, R.TEN: 4}
EVEN_ZEROS = {R.ACE: 3, R.FIVE: 2, R.NINE: 2, R.TEN: 3, R.JACK: 3, R.KING: 3}
#: Tens and pictures in uneven numbers: pairs need ranks (K-K pays, K-Q does not).
UNEVEN_ZEROS = {R.ACE: 4, R.FIVE: 4, R.NINE: 3, R.KING: 4, R.QUEEN: 3}
SMALL_UNEVEN = {R.ACE: 3, R.SIX: 2, R.EIGHT: 2, R.KING: 3, R.QUEEN: 2}

Figures = tuple[dict[str, Fraction], dict[str, dict[Fraction, Fraction]]]


def safe_key(round_class: type[BaccaratRound]) -> type[BaccaratRound]:
    """The engine with the walk's always-safe memo key (every hand's rank sequence)."""
    return type(f"Safe{round_class.__name__}", (round_class,), {"state_key": Round.state_key})


def engine_figures(
    round_class: type[BaccaratRound], rules: BaccaratRules, counts: Mapping[Rank, int]
) -> Figures:
    """Outcome probabilities and each wager's distribution of net results per unit,
    from the generic walk over the engine, with every wager staked."""
    stake = rules.table.minimum
    dist = exact(lambda: round_class(rules, {w: stake for w in rules.wager_ids}), counts)
    outcomes: dict[str, Fraction] = {}
    wagers: dict[str, dict[Fraction, Fraction]] = {w: {} for w in rules.wager_ids}
    for leaf, p in dist.items():
        outcome, _bonus, net = leaf  # type: ignore[misc]
        outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + p
        for wager, amount in net:
            per_unit = amount / stake
            wagers[wager][per_unit] = wagers[wager].get(per_unit, Fraction(0)) + p
    return outcomes, wagers


def fast_figures(rules: BaccaratRules, counts: Mapping[Rank, int]) -> Figures:
    """The same figures from the fast path's report (lines grouped by payout)."""
    report = analyze_composition(rules, counts)
    outcomes = {k: v for k, v in report.outcomes.items() if v}
    wagers: dict[str, dict[Fraction, Fraction]] = {}
    for wager, lines in report.wagers.items():
        grouped: dict[Fraction, Fraction] = {}
        for line in lines.lines:
            if line.probability:
                grouped[line.payout] = grouped.get(line.payout, Fraction(0)) + line.probability
        wagers[wager] = grouped
    return outcomes, wagers


def mean(figures: Figures) -> dict[str, Fraction]:
    """Each wager's expected net result per unit."""
    return {w: sum((x * p for x, p in d.items()), Fraction(0)) for w, d in figures[1].items()}


def engine_expectations(
    round_class: type[BaccaratRound], rules: BaccaratRules, counts: Mapping[Rank, int]
) -> dict[str, Fraction]:
    return mean(engine_figures(round_class, rules, counts))


def percent(value: Fraction, places: int) -> str:
    return decimal_text(100 * value, places)


# -- the combinations and the published house edges ----------------------------------


def test_eight_deck_combinations_are_the_published_counts() -> None:
    """The classic ordered-combination table for 8 decks (Wizard of Odds style)."""
    report = analyze_baccarat(PB, "punto-banco")
    assert report.combinations == {
        "player": 2_230_518_282_592_256,
        "banker": 2_292_252_566_437_888,
        "tie": 475_627_426_473_216,
    }
    assert report.total_combinations == 4_998_398_275_503_360 == 416 * 415 * 414 * 413 * 412 * 411
    assert sum(report.combinations.values()) == report.total_combinations
    for outcome, count in report.combinations.items():
        assert report.outcomes[outcome] == Fraction(count, 4_998_398_275_503_360)


def test_eight_deck_house_edges() -> None:
    """The issue's figures, from the standard published tables: 8 decks, banker
    1.0579%, player 1.2351%, tie 14.3596% at 8:1 and 4.8440% at 9:1."""
    wagers = analyze_baccarat(PB, "punto-banco", decks=8).wagers
    assert percent(wagers["banker"].house_edge, 4) == "1.0579"
    assert percent(wagers["player"].house_edge, 4) == "1.2351"
    assert percent(wagers["tie"].house_edge, 4) == "14.3596"
    nine = analyze_baccarat(dataclasses.replace(PB, tie_pays=Fraction(9)), "punto-banco")
    assert percent(nine.wagers["tie"].house_edge, 4) == "4.8440"


def test_six_deck_house_edges() -> None:
    """The issue's figures, from the standard published tables: 6 decks, banker
    1.0558%, player 1.2374%, tie 14.4382%."""
    report = analyze_baccarat(PB, "punto-banco", decks=6)
    assert percent(report.wagers["banker"].house_edge, 4) == "1.0558"
    assert percent(report.wagers["player"].house_edge, 4) == "1.2374"
    assert percent(report.wagers["tie"].house_edge, 4) == "14.4382"
    assert report.total_combinations == 312 * 311 * 310 * 309 * 308 * 307
    # the rules' own shoe size is used when no override is given
    six = dataclasses.replace(PB, shoe=ShoeRules(decks=6, jokers_per_deck=0, cut_card=16))
    assert analyze_baccarat(six, "punto-banco") == report


def test_pair_house_edges() -> None:
    """The issue's figures, from the standard published tables: a pair at 11:1 has a
    house edge of 10.36% from 8 decks and 11.25% from 6 decks."""
    assert percent(analyze_baccarat(B27, "baccarat27", 8).wagers["player_pair"].house_edge, 2) == (
        "10.36"
    )
    assert percent(analyze_baccarat(B27, "baccarat27", 6).wagers["banker_pair"].house_edge, 2) == (
        "11.25"
    )


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_pairs_are_counted_by_rank(decks: int) -> None:
    # two given cards share a rank: (4d - 1) / (52d - 1); sharing a value would be more
    report = analyze_baccarat(B27, "baccarat27", decks)
    chance = Fraction(4 * decks - 1, 52 * decks - 1)
    for wager in ("player_pair", "banker_pair"):
        assert report.wagers[wager].lines[0].probability == chance
        assert report.wagers[wager].expected == 12 * chance - 1


def test_baccarat27_lines_and_payouts_come_from_the_rules() -> None:
    report = analyze_baccarat(B27, "baccarat27")
    pb = analyze_baccarat(PB, "punto-banco")
    assert report.outcomes == pb.outcomes
    assert report.combinations == pb.combinations
    assert report.wagers["player"] == pb.wagers["player"]
    assert report.wagers["tie"] == pb.wagers["tie"]
    banker = report.wagers["banker"]
    assert [(line.name, line.payout) for line in banker.lines] == [
        ("win with 2", Fraction(2)),
        ("win with 7", Fraction(1, 2)),
        ("win otherwise", Fraction(1)),
        ("push on a tie", Fraction(0)),
        ("loss", Fraction(-1)),
    ]
    assert sum(line.probability for line in banker.lines[:3]) == report.outcomes["banker"]
    b27 = report.wagers["b27"]
    assert [(line.name, line.payout) for line in b27.lines] == [
        ("banker wins with 2", Fraction(8)),
        ("banker wins with 7", Fraction(8)),
        ("loss", Fraction(-1)),
    ]
    assert [line.probability for line in b27.lines[:2]] == [
        line.probability for line in banker.lines[:2]
    ]
    assert [line.name for line in pb.wagers["banker"].lines] == ["win", "push on a tie", "loss"]
    assert pb.wagers["banker"].lines[0].payout == Fraction(19, 20)
    assert list(report.wagers) == list(B27.wager_ids)
    assert list(pb.wagers) == ["player", "banker", "tie"]

    # other payouts are read from the rules, not assumed
    goa = dataclasses.replace(
        B27,
        banker_pays_by_total=(BankerPay(6, Fraction(1, 2)),),
        pair_pays=Fraction(25),
        b27_pays=Fraction(3),
        b27_totals=(7,),
    )
    varied = analyze_baccarat(goa, "baccarat27")
    assert [(line.name, line.payout) for line in varied.wagers["banker"].lines[:2]] == [
        ("win with 6", Fraction(1, 2)),
        ("win otherwise", Fraction(1)),
    ]
    pair = varied.wagers["player_pair"]
    assert pair.expected == 26 * pair.lines[0].probability - 1
    assert varied.wagers["b27"].lines[0].payout == 3
    assert varied.wagers["b27"].lines[0].probability == banker.lines[1].probability


def test_report_json_and_assumptions() -> None:
    report = analyze_baccarat(B27, "baccarat27", decks=1)
    assert isinstance(report, GameReport)
    data = report.to_json()
    assert data["game"] == "baccarat27"
    assert data["total_combinations"] == 52 * 51 * 50 * 49 * 48 * 47
    assert set(data["wagers"]) == set(B27.wager_ids)
    assert any("1 deck of 52 cards" in text for text in report.assumptions)


def test_small_shoes_are_refused() -> None:
    with pytest.raises(ValueError, match="6 cards"):
        coup_counts(PB, {R.ACE: 3, R.KING: 2})
    with pytest.raises(ValueError, match="one count per rank"):
        coup_counts(PB, (4, 4, 4))
    with pytest.raises(ValueError, match="decks"):
        shoe_composition(PB, 0)


# -- agreement with the generic walk over the engine ---------------------------------


@pytest.mark.parametrize(
    ("round_class", "rules", "counts"),
    [
        (Baccarat27Round, B27, DISTINCT),
        (Baccarat27Round, B27, EVEN_ZEROS),
        (PuntoBancoRound, PB, EVEN_ZEROS),
        (Baccarat27Round, dataclasses.replace(B27, tableau=VARIANT), EVEN_ZEROS),
        (PuntoBancoRound, dataclasses.replace(PB, tableau=VARIANT), DISTINCT),
    ],
    ids=["b27-distinct", "b27-even-zeros", "pb-even-zeros", "b27-variant", "pb-variant"],
)
def test_fast_path_equals_the_engine_walk(
    round_class: type[BaccaratRound], rules: BaccaratRules, counts: Mapping[Rank, int]
) -> None:
    engine = engine_figures(round_class, rules, counts)
    fast = fast_figures(rules, counts)
    assert fast == engine
    assert expectations(rules, counts) == mean(engine)


@pytest.mark.parametrize("tableau", [Tableau(), VARIANT], ids=["standard", "variant"])
def test_fast_path_counts_pairs_by_rank_like_the_engine(tableau: Tableau) -> None:
    rules = dataclasses.replace(B27, tableau=tableau)
    engine = engine_figures(safe_key(Baccarat27Round), rules, UNEVEN_ZEROS)
    assert fast_figures(rules, UNEVEN_ZEROS) == engine
    # K-K and Q-Q pay, K-Q does not: 4*3 + 3*2 + ... ordered same-rank pairs of 18*17
    pair = Fraction(4 * 3 + 4 * 3 + 3 * 2 + 4 * 3 + 3 * 2, 18 * 17)
    assert engine[1]["player_pair"][Fraction(11)] == pair
    assert engine[1]["banker_pair"][Fraction(11)] == pair


def test_engine_walk_with_its_own_key_on_uneven_zero_ranks() -> None:
    """The engine's coarse memo key keeps a lone first card's rank (K-then-Q is no pair)."""
    engine = engine_figures(Baccarat27Round, B27, UNEVEN_ZEROS)
    assert fast_figures(B27, UNEVEN_ZEROS) == engine


@st.composite
def tableaus(draw: st.DrawFn) -> Tableau:
    natural_from = draw(st.sampled_from([7, 8, 9, 10]))
    rows = tuple(
        BankerRow(b, tuple(sorted(draw(st.frozensets(st.integers(0, 9))))))
        for b in range(natural_from)
    )
    return Tableau(natural_from, draw(st.integers(0, 10)), draw(st.integers(0, 10)), rows)


def first(pair: tuple[int, Fraction]) -> int:
    return pair[0]


@st.composite
def variant_rules(draw: st.DrawFn) -> BaccaratRules:
    odds = st.fractions(min_value=Fraction(1, 4), max_value=30, max_denominator=20)
    specials = draw(st.lists(st.tuples(st.integers(0, 9), odds), max_size=3, unique_by=first))
    return BaccaratRules(
        tableau=draw(tableaus()),
        side_wagers=SIDE_WAGERS,
        player_pays=draw(odds),
        banker_pays=draw(odds),
        banker_pays_by_total=tuple(BankerPay(t, pays) for t, pays in specials),
        tie_pays=draw(odds),
        pair_pays=draw(odds),
        b27_pays=draw(odds),
        b27_totals=tuple(draw(st.lists(st.integers(0, 9), max_size=3, unique=True))),
    )


@st.composite
def small_shoes(draw: st.DrawFn) -> dict[Rank, int]:
    ranks = draw(st.lists(st.sampled_from(RANKS), min_size=2, max_size=4, unique=True))
    counts = {rank: draw(st.integers(1, 4)) for rank in ranks}
    extra = RANKS[draw(st.integers(0, 12))]
    counts[extra] = counts.get(extra, 0) + max(0, 6 - sum(counts.values()))
    return counts


@settings(max_examples=25, deadline=None)
@given(rules=variant_rules(), counts=small_shoes())
def test_random_variants_and_shoes_equal_the_engine_walk(
    rules: BaccaratRules, counts: dict[Rank, int]
) -> None:
    assert fast_figures(rules, counts) == engine_figures(safe_key(Baccarat27Round), rules, counts)


def test_the_tableau_changes_the_full_shoe_result() -> None:
    standard = analyze_baccarat(PB, "punto-banco")
    variant = analyze_baccarat(dataclasses.replace(PB, tableau=VARIANT), "punto-banco")
    assert variant.outcomes != standard.outcomes
    assert variant.total_combinations == standard.total_combinations
    # one changed cell is enough: the banker's 3 also draws on a player's third 8
    rows = tuple(
        BankerRow(3, (*row.draws_on, 8)) if row.banker == 3 else row for row in STANDARD_TABLEAU
    )
    one_cell = analyze_baccarat(dataclasses.replace(PB, tableau=Tableau(banker=rows)), "pb")
    assert one_cell.outcomes != standard.outcomes


# -- effects of removal --------------------------------------------------------------


@pytest.mark.parametrize("decks", [8, 6])
@pytest.mark.parametrize("rules", [PB, B27], ids=["punto-banco", "baccarat27"])
def test_effects_of_removal_weighted_by_counts_add_to_zero(
    rules: BaccaratRules, decks: int
) -> None:
    # burning one unseen card changes nothing, so sum_r count_r * EOR_r = 0 exactly
    effects = effects_of_removal(rules, "game", decks)
    counts = shoe_composition(rules, decks)
    assert set(effects) == set(rules.wager_ids)
    for per_rank in effects.values():
        assert list(per_rank) == list(RANKS)
        assert sum(counts[RANK_ORDER.index(r)] * e for r, e in per_rank.items()) == 0


def test_effects_of_removal_signs_8_decks() -> None:
    effects = effects_of_removal(B27, "baccarat27", 8)
    player = effects["player"]
    pb_banker = effects_of_removal(PB, "punto-banco", 8)["banker"]
    small = (R.ACE, R.TWO, R.THREE, R.FOUR)
    large = (R.FIVE, R.SIX, R.SEVEN, R.EIGHT, R.NINE)
    zeros = (R.TEN, R.JACK, R.QUEEN, R.KING)
    # taking out a 5-9 helps the player wager; taking out an A-4 or a ten helps the banker
    assert all(player[r] > 0 for r in large)
    assert all(player[r] < 0 for r in small + zeros)
    assert all((pb_banker[r] > 0) == (player[r] < 0) for r in RANKS)
    assert max(pb_banker, key=lambda r: pb_banker[r]) == R.FOUR
    assert max(player, key=lambda r: player[r]) == R.SIX
    # ranks of one value have one effect; the pairs do not care which rank is removed
    for wager in ("player", "tie", "b27"):
        assert len({effects[wager][r] for r in zeros}) == 1
    assert set(effects["player_pair"].values()) == {0}
    assert set(effects["banker_pair"].values()) == {0}
    # tens, 8s and 9s make ties; 6s and 7s removed hurt it most
    assert all(effects["tie"][r] > 0 for r in (R.EIGHT, R.NINE, R.TEN))
    assert min(effects["tie"], key=lambda r: effects["tie"][r]) == R.SIX
    # B-27 wants 7s: taking one out is the worst removal for it
    assert min(effects["b27"], key=lambda r: effects["b27"][r]) == R.SEVEN


def test_effects_of_removal_equal_the_engine_walk() -> None:
    rules = dataclasses.replace(B27, tableau=VARIANT)
    # small enough for seven walks: Kings and Queens in uneven numbers
    engine_class = safe_key(Baccarat27Round)
    effects = effects_of_removal_from(rules, SMALL_UNEVEN)
    base = engine_expectations(engine_class, rules, SMALL_UNEVEN)
    assert set(effects["player"]) == set(SMALL_UNEVEN)
    for rank, count in SMALL_UNEVEN.items():
        fewer = {**SMALL_UNEVEN, rank: count - 1}
        after = engine_expectations(engine_class, rules, fewer)
        for wager in rules.wager_ids:
            assert effects[wager][rank] == after[wager] - base[wager], (wager, rank)
    for per_rank in effects.values():
        assert sum(SMALL_UNEVEN[r] * e for r, e in per_rank.items()) == 0
    # with uneven counts the pairs do care which rank goes: a King out hurts them more
    assert effects["player_pair"][R.KING] < effects["player_pair"][R.QUEEN]
