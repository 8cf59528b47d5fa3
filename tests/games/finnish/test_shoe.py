"""Exact analysis of the Finnish games dealt from the real shoe (no replacement).

The finite-shoe count of :mod:`cardroom.games.finnish.shoe` is checked against
the generic walk of the engines themselves (:mod:`cardroom.games.walk`, which
deals without replacement) on reduced shoes small enough for the walk, every line
of every wager (each bonus with its suits enumerated card by card through the
engine's own ``find_bonus``), under the default rules and under variants; and its
full-shoe figures are pinned beside the source's.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Hashable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit

from cardroom.analysis.modular import Modulus, mont_mul
from cardroom.analysis.report import GameReport, decimal_text
from cardroom.core.cards import JOKER, Card, Rank, Suit
from cardroom.games import GAMES
from cardroom.games.base import Action, Round
from cardroom.games.finnish import shoe_finnish27
from cardroom.games.finnish.finnish27 import (
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    find_bonus,
    pays_joanca,
)
from cardroom.games.finnish.hands import Total
from cardroom.games.finnish.poker import PokerCategory, best_category, best_held
from cardroom.games.finnish.poker_shoe import no_flush_count, poker_batch
from cardroom.games.finnish.shoe import (
    analyze_21_24_27_shoe,
    analyze_finnish27_shoe,
    finnish27_effects_of_removal,
    solve_21_24_27_shoe,
    twentyone_effects_of_removal,
)
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    ForcedPlay,
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.spec import AnalysisAsk
from cardroom.games.walk import RANK_ORDER, exact
from tests.games.finnish.test_fresh_shoe import PINNED
from tests.shared import default_analysis

#: the finite-shoe kernels compile once, on one worker (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("finnish-shoe")

SUITS = tuple(Suit)


def compile_once() -> None:
    """Compile the kernels (or load them from Numba's cache) in one test worker at a
    time: the others wait and then load what it wrote, instead of compiling too."""
    lock_path = Path(tempfile.gettempdir()) / "cardroom-finnish-shoe-kernels.lock"
    with open(lock_path, "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX: every worker compiles
            pass
        analyze_finnish27_shoe(shoe=NINES_SHOE)


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    compile_once()


# -- exact arithmetic -----------------------------------------------------------------------
def test_residues_give_back_big_integers_and_fractions() -> None:
    modulus = Modulus.for_bits(400)
    assert modulus.product.bit_length() > 402
    for value in (0, 1, -1, 3**250, -(7**140), (1 << 399) - 5):
        assert modulus.integer(modulus.residues(value)) == value
    chance = Fraction(123456789 * 3**100, 5**150)
    assert modulus.reconstruct(modulus.residues(chance), 5**150) == chance


@njit(cache=True)
def _product(a: np.ndarray, b: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.zeros(p.shape[0], np.uint64)
    for lane in range(p.shape[0]):
        out[lane] = mont_mul(a[lane], b[lane], p[lane], q[lane])
    return out


def test_montgomery_products_are_exact() -> None:
    modulus = Modulus.for_bits(300)
    a, b = 3**90 - 11, -(2**140) + 977
    product = _product(modulus.residues(a), modulus.residues(b), modulus.p, modulus.q)
    assert modulus.integer(product) == a * b


# -- poker categories with suits from a finite shoe ---------------------------------------------
def _every_suit_assignment(
    counts: list[int], jokers: int, suits: list[list[int]]
) -> dict[PokerCategory, int]:
    """Sets of physical cards of these ranks, each through the game's evaluator."""
    per_rank = []
    for r, x in enumerate(counts):
        cards = [s for s in range(4) for _ in range(suits[r][s])]
        splits: dict[tuple[int, ...], int] = {}
        for chosen in itertools.combinations(range(len(cards)), x):
            key = tuple(cards[i] for i in chosen)
            splits[key] = splits.get(key, 0) + 1
        per_rank.append([(r, key, n) for key, n in splits.items()])
    found: dict[PokerCategory, int] = {}
    for choice in itertools.product(*per_rank):
        weight = 1
        hand = [JOKER] * jokers
        for r, key, n in choice:
            weight *= n
            hand += [Card(RANK_ORDER[r], SUITS[s]) for s in key]
        category = best_category(hand)
        found[category] = found.get(category, 0) + weight
    return found


@pytest.mark.parametrize(
    ("hand", "jokers", "suits"),
    [
        ("A 2 3 4 5 5", 0, 2),  # a wheel, two cards of each rank and suit
        ("4 5 6 7 8 8 K", 0, 1),  # one deck: every card differs
        ("9 T J Q", 1, 2),
        ("2 2 7 9 K", 2, 1),
        ("A K Q", 2, (2, 1, 0, 1)),  # uneven suits: no symmetry to lean on
        ("3 3 3 6 6", 0, (1, 1, 2, 0)),
        ("5 6 8", 3, 2),
        # two and three Jokers count the sets without a straight flush directly: with
        # the suits alike (as multisets of suits) and not
        ("A 2 2 5 9 T", 2, 2),
        ("3 4 6 8 Q K", 3, 2),
        ("A 3 6 7 7", 2, (1, 2, 1, 0)),
        ("2 5 9 T K", 3, (2, 0, 1, 1)),
    ],
)
def test_poker_counts_match_every_suit_assignment(
    hand: str, jokers: int, suits: int | tuple[int, ...]
) -> None:
    counts = [0] * 13
    for code in hand.split():
        counts[RANK_ORDER.index(Rank(code))] += 1
    split = [list(suits) if isinstance(suits, tuple) else [suits] * 4 for _ in range(13)]
    expected = _every_suit_assignment(counts, jokers, split)
    modulus = Modulus.for_bits(120)
    cv = np.array(split, np.int64)
    plain = np.full((1, 4), -1, np.int64)
    sf = np.zeros((1, 4, modulus.lanes), np.uint64)
    sf_f, total_f = np.zeros((1, 4)), np.zeros(1)
    total = np.zeros((1, modulus.lanes), np.uint64)
    symmetric = not isinstance(suits, tuple)
    hands = np.array([counts], np.int8)
    poker_batch(
        hands, cv, symmetric, modulus.p, modulus.q, modulus.r2, 0, 1, plain, sf, sf_f,
        total, total_f,
    )  # fmt: skip
    everything = modulus.integer(total[0], montgomery=False)
    assert everything == sum(expected.values())
    got: dict[PokerCategory, int] = {}
    if max(counts) + jokers >= 5:
        got[PokerCategory.FIVE_OF_A_KIND] = everything
    else:
        held = [(x, tuple(split[r])) for r, x in enumerate(counts) if x]
        no_flush, _ = no_flush_count(
            np.array([x for x, _ in held], np.int64),
            np.array([c for _, c in held], np.int64), 5 - jokers, modulus.p, modulus.q,
            modulus.r2,
        )  # fmt: skip
        rest = modulus.integer(no_flush, montgomery=False)
        straight_flush = modulus.integer(sf[0, jokers], montgomery=False)
        for category, n in (
            (PokerCategory.STRAIGHT_FLUSH, straight_flush),
            (PokerCategory.FLUSH, everything - rest - straight_flush),
            (best_held(int(plain[0, jokers])), rest),  # what the ranks hold
        ):
            if n:
                got[category] = got.get(category, 0) + n
    assert got == expected


# -- finnish27 against the engine's walk ----------------------------------------------------------
class RanksRound(Finnish27Round):
    """finnish27 keyed on the player's ranks, which the bonus needs."""

    PLAYER_RANKS_MATTER = True


def bonus_leaf(rnd: Round) -> Hashable:
    if rnd.outcome != "player":
        return (rnd.outcome,)
    assert isinstance(rnd, Finnish27Round)
    player = tuple(sorted((c.rank for c in rnd.hands["player"]), key=RANK_ORDER.index))
    dealer = tuple(c.rank for c in rnd.hands["dealer"][:2])
    return ("player", player, dealer, rnd.total("player").value)


@cache
def _bonus_split(
    player: tuple[Rank, ...],
    dealer: tuple[Rank, ...],
    shoe: ShoeMakeup,
    joanca: bool = False,
    nines_by_suit: bool = False,
    poker: BonusTable | None = None,
    total: int | None = None,
) -> dict[str | None, Fraction]:
    """The bonus of a winning hand of these ranks (and ``total``, where a wild Joker
    made it) over every set of physical cards of the shoe it could be (the cards of
    one rank are any of that rank's cards), through the engine's own find_bonus."""
    ordinary = [r for r in player if r is not Rank.JOKER]
    per_rank = []
    for rank in sorted(set(ordinary), key=RANK_ORDER.index):
        r = RANK_ORDER.index(rank)
        cards = [s for s in range(4) for _ in range(shoe.suits[r][s])]
        per_rank.append(
            [
                (rank, tuple(cards[i] for i in chosen))
                for chosen in itertools.combinations(range(len(cards)), ordinary.count(rank))
            ]
        )
    dealt = [JOKER if r is Rank.JOKER else Card(r, Suit.SPADES) for r in dealer]
    found: dict[str | None, int] = {}
    sets = 0
    for choice in itertools.product(*per_rank):
        hand = [JOKER] * (len(player) - len(ordinary))
        for rank, suits in choice:
            hand += [Card(rank, SUITS[s]) for s in suits]
        key = find_bonus(hand, dealt, joanca, nines_by_suit, poker=poker, total=total)
        found[key] = found.get(key, 0) + 1
        sets += 1
    return {key: Fraction(n, sets) for key, n in found.items()}


def walked_lines(rules: Finnish27Rules, shoe: ShoeMakeup) -> dict[str, Fraction]:
    """Every line of the player wager by the engine's walk over the shoe."""
    walked = exact(lambda: RanksRound(rules), shoe.counts, leaf=bonus_leaf)
    lines: dict[str, Fraction] = {}
    for leaf, p in walked.items():
        if leaf[0] != "player":
            name = "push" if leaf[0] == "push" else "loss"
            lines[name] = lines.get(name, Fraction(0)) + p
            continue
        assert isinstance(leaf[1], tuple) and isinstance(leaf[2], tuple)
        assert isinstance(leaf[3], int)
        split = _bonus_split(
            leaf[1],
            leaf[2],
            shoe,
            pays_joanca(rules),
            rules.bonus.nines_vs_dealer_by_suit,
            rules.bonus,
            leaf[3],
        )
        for key, q in split.items():
            name = "win (no bonus)" if key is None else f"win + {rules.bonus.describe(key)}"
            lines[name] = lines.get(name, Fraction(0)) + p * q
    return lines


def counted_lines(report: GameReport) -> dict[str, Fraction]:
    return {
        line.name: line.probability for line in report.wagers["player"].lines if line.probability
    }


#: reduced shoes for the walk: the first makes hands of five cards and more (the
#: poker categories, with Jokers and with suits that flush; the straight is checked
#: against the evaluator above: it is read like pairs and trips), the second the 3-card
#: bonuses (8-9-10 in hearts, 9-9-9 of one suit and against the dealer's 9-9)
POKER_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 1, Rank.FOUR: 3, Rank.FIVE: 1, Rank.EIGHT: 1, Rank.NINE: 2, Rank.KING: 2,
     Rank.JOKER: 2},
    {Rank.ACE: (1, 0, 0, 0), Rank.FOUR: (3, 0, 0, 0), Rank.FIVE: (1, 0, 0, 0),
     Rank.EIGHT: (1, 0, 0, 0), Rank.NINE: (1, 1, 0, 0), Rank.KING: (1, 1, 0, 0)},
)  # fmt: skip
NINES_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 1, Rank.EIGHT: 1, Rank.NINE: 5, Rank.TEN: 1, Rank.QUEEN: 2, Rank.KING: 2},
    {Rank.ACE: (1, 0, 0, 0), Rank.EIGHT: (0, 0, 1, 0), Rank.NINE: (3, 0, 2, 0),
     Rank.TEN: (0, 0, 1, 0), Rank.QUEEN: (1, 0, 0, 1), Rank.KING: (1, 1, 0, 0)},
)  # fmt: skip


def check_lines_against_the_walk(rules: Finnish27Rules, shoe: ShoeMakeup) -> dict[str, Fraction]:
    """The real shoe's count of ``rules`` equals the engine's walk, line by line (every
    line of the player wager); its lines."""
    compile_once()
    report = analyze_finnish27_shoe(rules, shoe)
    lines = counted_lines(report)
    assert lines == walked_lines(rules, shoe)
    assert sum(report.outcomes.values()) == 1
    return lines


@pytest.mark.parametrize("shoe", [POKER_SHOE, NINES_SHOE], ids=["poker", "nines"])
def test_finnish27_matches_the_engine_walk_line_by_line(shoe: ShoeMakeup) -> None:
    lines = check_lines_against_the_walk(Finnish27Rules(), shoe)
    labels = set(BonusTable.LABELS.values())
    covered = {name for name in lines if any(label in name for label in labels)}
    if shoe is POKER_SHOE:
        assert len(covered) == 10  # the poker categories but the straight, Finnish 27, Jo Jo
    else:
        assert len(covered) == 6  # the 3-card bonuses and Finnish 27


def test_finnish27_variant_rules_match_the_engine_walk() -> None:
    """Jokers that do not make 27 (so deals with Jokers go on: the player's and the
    dealer's first cards may be Jokers), other push and tie rules, other limits and
    another bonus table."""
    shoe = POKER_SHOE
    rules = Finnish27Rules(
        jo_jo_27=False,
        joanca_27=False,
        equal_distance="push",
        player_over="wins_if_closer",
        dealer_hits_hard_below=22,
        player_loses_over=30,
        bonus=BonusTable(pair=Fraction(1, 2), flush=Fraction(10)),
    )
    report = analyze_finnish27_shoe(rules, shoe)
    assert counted_lines(report) == walked_lines(rules, shoe)
    flush = next(line for line in report.wagers["player"].lines if "Flush" in line.name)
    assert flush.payout == 11 and flush.probability > 0


def test_a_shoe_a_round_can_empty_is_refused() -> None:
    shoe = ShoeMakeup.of_counts({Rank.TWO: 4, Rank.THREE: 4, Rank.FIVE: 2})
    with pytest.raises(ValueError, match="run out of cards"):
        analyze_finnish27_shoe(shoe=shoe)


# -- the full shoe ----------------------------------------------------------------------
def full_report(request: pytest.FixtureRequest, game_id: str) -> GameReport:
    """The 324-card shoe's analysis of ``game_id``'s default rules (seconds), once per
    run: the PAR sheet's tests and the command line's read the same report."""
    report: GameReport = default_analysis(request, GAMES[game_id]).report
    return report


def test_finnish27_full_shoe(request: pytest.FixtureRequest) -> None:
    """The 324-card shoe's analysis once, with each check below."""
    report = full_report(request, "finnish27")
    check_outcomes_beside_the_source(report)
    check_wager_edges(report)
    check_three_card_bonus_suits(report)
    check_the_pinned_simulation_reads_these_figures(report)


def check_the_pinned_simulation_reads_these_figures(report: GameReport) -> None:
    """The long fresh-shoe run in test_fresh_shoe.py is compared with these values."""
    pinned = PINNED[report.game]
    assert pinned.exact_outcomes == {k: decimal_text(v, 14) for k, v in report.outcomes.items()}
    means = {w: decimal_text(r.expected, 14) for w, r in report.wagers.items()}
    assert pinned.exact_means == means


def check_outcomes_beside_the_source(finnish27: GameReport) -> None:
    """Source 000: player 40.09%, dealer 48.88%, push 11.03% (from a full 6-deck shoe)."""
    p = finnish27.outcomes
    assert sum(p.values()) == 1
    assert decimal_text(p["player"] * 100, 4) == "40.0920"
    assert decimal_text(p["dealer"] * 100, 4) == "48.8876"
    assert decimal_text(p["push"] * 100, 4) == "11.0204"
    for name, published in (("player", 40.09), ("dealer", 48.88), ("push", 11.03)):
        assert abs(float(p[name]) * 100 - published) < 0.011
    assert finnish27.total_combinations is not None
    assert sum(finnish27.combinations.values()) == finnish27.total_combinations
    for name, n in finnish27.combinations.items():
        assert Fraction(n, finnish27.total_combinations) == p[name]
    assert "without replacement" in finnish27.assumptions[0]


def check_wager_edges(finnish27: GameReport) -> None:
    """Source 000: player wager 1.55% (bonuses worth 7.24%), dealer 0.99%, push 11.76%."""
    edges = {name: w.house_edge for name, w in finnish27.wagers.items()}
    assert decimal_text(edges["player"] * 100, 4) == "1.5700"
    assert decimal_text(edges["dealer"] * 100, 4) == "0.9819"
    assert decimal_text(edges["push"] * 100, 4) == "11.8365"
    p = finnish27.outcomes
    bonuses = p["dealer"] - p["player"] - edges["player"]
    assert decimal_text(bonuses * 100, 2) == "7.23"
    assert edges["player"] == Fraction(
        282022432237116503668688112914803442482176364581124717503134766564436481943163912709,
        17962924579264701912743722451793390497960136753986983594494955755339435942225910560000,
    )
    assert edges["dealer"] == Fraction(
        2802780947014355506879036413202251153861987541365396073900961,
        285452557405925772661765525056022704034194939798803373108112500,
    )
    assert edges["push"] == Fraction(
        1093130622127869870749241335151120018748839148753221797597621,
        9235229798427010291998296398871322777576895111137756188791875,
    )


def check_three_card_bonus_suits(finnish27: GameReport) -> None:
    """8-9-10 are three different ranks, so their suits are as good as independent
    (spades 1 in 64, one suit 4 in 64); three Nines are three of the shoe's 24, so one
    suit is 4 C(6, 3) / C(24, 3) = 10/253 of them, less than drawn with replacement."""
    lines = {line.name: line.probability for line in finnish27.wagers["player"].lines}
    mixed = lines["win + 8-9-10 mixed suits 1:2"]
    assert lines["win + 8-9-10 spades 2:1"] * 60 == mixed
    assert lines["win + 8-9-10 suited 1:1"] * 20 == mixed
    same = lines["win + 9-9-9 same suit (99 x table minimum)"]
    assert same * 243 == lines["win + 9-9-9 mixed suits (9 x table minimum)"] * 10


# -- 21-24-27 ----------------------------------------------------------------------------------
def nonzero(outcomes: dict[str, Fraction]) -> dict[str, Fraction]:
    return {name: p for name, p in outcomes.items() if p}


#: a reduced shoe for the walk: Jokers (which count 0 and may be dealt to either
#: hand's first two cards), Aces (soft hands), Ace-King 27s
TWENTYONE_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 2, Rank.FIVE: 2, Rank.EIGHT: 2, Rank.TEN: 3, Rank.KING: 3, Rank.JOKER: 1}
)
TWENTYONE_VARIANT = TwentyOne2427Rules(
    jokers_make_27=True,
    both_initial_27s="dealer",
    equal_distance="dealer",
    dealer_hits_hard_below=20,
    forced=ForcedPlay(must_hit_hard_below=14, must_stand_hard_from=24),
)


@pytest.mark.parametrize(
    "rules", [TwentyOne2427Rules(), TWENTYONE_VARIANT], ids=["rules", "variant"]
)
def test_21_24_27_matches_the_engine_walk(rules: TwentyOne2427Rules) -> None:
    """The source's table, and composition-dependent play (its every decision, made on
    the cards seen, handed to the engine), against the engine's walk."""
    shoe = TWENTYONE_SHOE
    walked = exact(lambda: TwentyOne2427Round(rules), shoe.counts, TableStrategy().play, outcome_of)
    basic = analyze_21_24_27_shoe(rules, shoe)
    assert nonzero(basic.outcomes) == walked
    solution = solve_21_24_27_shoe(rules, shoe)

    def decide(rnd: Round) -> Action:
        hits = solution.composition_hits(rnd.hands["dealer"][:2], rnd.hands["player"])
        return Action.HIT if hits else Action.STAND

    walked = exact(lambda: TwentyOne2427Round(rules), shoe.counts, decide, outcome_of)
    assert nonzero(solution.composition.outcomes) == walked
    # each play is worth at least what the one before it is
    best = analyze_21_24_27_shoe(rules, shoe, solution.best_table.hits)
    edges = [r.wagers["player"].house_edge for r in (basic, best, solution.composition)]
    assert edges[0] >= edges[1] >= edges[2]


def outcome_of(rnd: Round) -> Hashable:
    return rnd.outcome


def test_21_24_27_close_decisions_are_settled_exactly() -> None:
    """Decisions whose two values lie within ``eps`` in floating point are settled in
    exact arithmetic: with a huge ``eps`` every free decision is, and the play and its
    exact report are the same."""
    shoe = TWENTYONE_SHOE
    floats = solve_21_24_27_shoe(shoe=shoe)
    exactly = solve_21_24_27_shoe(shoe=shoe, eps=10.0)
    assert exactly.composition.wagers["player"].lines == floats.composition.wagers["player"].lines
    for pair, (_, chosen) in floats.decisions.items():
        assert np.array_equal(exactly.decisions[pair][1], chosen)


def test_21_24_27_full_shoe(request: pytest.FixtureRequest) -> None:
    """The 324-card shoe once: the source's table (about 1.0%, source 002), the best
    table of its kind and composition-dependent play."""
    basic = full_report(request, "21-24-27")
    edge = basic.wagers["player"].house_edge
    assert decimal_text(edge * 100, 4) == "1.0434"
    assert edge == Fraction(
        2216064637309161655829055617339642832646137346762815001,
        212384003118255598246455595814602319849255926234558818750,
    )
    check_the_pinned_simulation_reads_these_figures(basic)
    assert round(float(edge) * 100, 1) == 1.0
    assert sum(basic.outcomes.values()) == 1
    solution = solve_21_24_27_shoe()
    for dealer in solution.grids:  # the source's table is the best of its kind here
        best, given = solution.best_table.row_for(dealer), BASIC_STRATEGY.row_for(dealer)
        assert (best.hard, best.soft, best.relative) == (given.hard, given.soft, given.relative)
    cd = solution.composition.wagers["player"].house_edge
    assert decimal_text(cd * 100, 4) == "1.0414"
    assert cd < edge
    # the two cells where drawing with replacement prefers another play cost the
    # player in the real shoe: hard 7 hitting soft 23 (by 0.0000022 of a stake), hard 8
    # standing on hard 21 (0.0000196; docs/finnish-exact.md has the exact fractions)
    for dealer, hard, soft, cost in ((Total(7), 22, 24, 2.18e-6), (Total(8), 22, 23, 1.96e-5)):
        hvals, svals, grid = solution.grids[dealer]
        h, s = list(hvals).index(hard), list(svals).index(soft)
        assert abs(grid.max() - grid[h, s] - cost) < 0.01e-6


# -- effects of removal -----------------------------------------------------------------------
def test_finnish27_effects_of_removal_add_up_to_zero() -> None:
    """Weighed by the ranks' counts the effects add up to 0: with every rank's effect
    counted (``every``, the function checks the sum and raises otherwise; checked again
    here), and so the Ace's, which is worked out from the others' by that sum by
    default, is the one counted; a Joker's effect is the difference of two analyses,
    and a Nine's averages its suits (spades are paid more on 8-9-10)."""
    shoe = ShoeMakeup.of_counts(
        {Rank.ACE: 4, Rank.FOUR: 4, Rank.EIGHT: 4, Rank.NINE: 4, Rank.TEN: 4, Rank.KING: 4,
         Rank.JOKER: 2}
    )  # fmt: skip
    effects = finnish27_effects_of_removal(shoe=shoe, every=True)
    derived = finnish27_effects_of_removal(shoe=shoe)
    assert derived == effects
    ranks = [r for r, n in zip(RANK_ORDER, shoe.counts, strict=True) if n]
    assert list(derived["player"]) == list(effects["player"]) == ranks
    assert set(effects) == {"player", "dealer", "push"}
    for per_rank in effects.values():
        assert sum(shoe.counts[RANK_ORDER.index(r)] * e for r, e in per_rank.items()) == 0
        assert set(per_rank) == {r for r, n in zip(RANK_ORDER, shoe.counts, strict=True) if n}
    base = analyze_finnish27_shoe(shoe=shoe).wagers["player"].expected
    no_joker = analyze_finnish27_shoe(shoe=shoe.without(Rank.JOKER)).wagers["player"].expected
    assert effects["player"][Rank.JOKER] == no_joker - base
    spade = analyze_finnish27_shoe(shoe=shoe.without(Rank.NINE, Suit.SPADES))
    heart = analyze_finnish27_shoe(shoe=shoe.without(Rank.NINE, Suit.HEARTS))
    assert spade.wagers["player"].expected != heart.wagers["player"].expected
    assert spade.outcomes == heart.outcomes
    average = (spade.wagers["player"].expected + 3 * heart.wagers["player"].expected) / 4
    assert effects["player"][Rank.NINE] == average - base


def test_finnish27_eor_makes_the_full_shoes_tables_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`analyze finnish27 --eor`: the report's count makes the full shoe's tables and
    the effects' counts share them; no count makes them again (they took as long as
    a count of their own)."""
    monkeypatch.setenv("CARDROOM_CACHE_DIR", str(tmp_path))  # every count made here
    shoe = ShoeMakeup.of_counts(
        {Rank.ACE: 4, Rank.FOUR: 4, Rank.EIGHT: 4, Rank.NINE: 4, Rank.KING: 4, Rank.JOKER: 2}
    )
    real = shoe_finnish27._tables
    made: list[ShoeMakeup] = []

    def tables(rules: Finnish27Rules, made_for: ShoeMakeup, *args: Any) -> Any:
        made.append(made_for)
        return real(rules, made_for, *args)

    monkeypatch.setattr(shoe_finnish27, "_tables", tables)
    analyze = GAMES["finnish27"].analyze
    assert analyze is not None
    with monkeypatch.context() as patched:
        patched.setattr(ShoeMakeup, "of_rules", classmethod(lambda cls, *_: shoe))
        analysis = analyze(Finnish27Rules(), AnalysisAsk(effects=True))
    assert made.count(shoe) == 1
    # and one for each rank but the Ace, whose effect follows from the others'
    assert len(made) == sum(1 for n in shoe.counts if n)
    assert analysis.report == analyze_finnish27_shoe(shoe=shoe)
    assert analysis.effects == finnish27_effects_of_removal(shoe=shoe)


def test_finnish27_effects_of_removal_with_a_rank_spread_unevenly_over_the_suits() -> None:
    """Five Nines (two spades, one of each other suit): a Nine of unknown suit taken
    out leaves splits that differ beyond the suits' names (one Nine of each suit, or
    two spades and no heart).  Its effect is each split's own analysis weighed by the
    chance of its suit, and the effects still add up to 0."""
    shoe = ShoeMakeup.of_counts(
        {Rank.ACE: 4, Rank.FOUR: 4, Rank.EIGHT: 4, Rank.NINE: 5, Rank.TEN: 4, Rank.KING: 4,
         Rank.JOKER: 2}
    )  # fmt: skip
    assert shoe.suits[RANK_ORDER.index(Rank.NINE)] == (2, 1, 1, 1)
    effects = finnish27_effects_of_removal(shoe=shoe)
    for per_rank in effects.values():
        assert sum(shoe.counts[RANK_ORDER.index(r)] * e for r, e in per_rank.items()) == 0
    base = analyze_finnish27_shoe(shoe=shoe).wagers["player"].expected
    each = {
        suit: analyze_finnish27_shoe(shoe=shoe.without(Rank.NINE, suit)).wagers["player"]
        for suit in Suit
    }
    assert each[Suit.SPADES].expected != each[Suit.HEARTS].expected
    average = sum(
        (Fraction(n, 5) * each[suit].expected for suit, n in zip(Suit, (2, 1, 1, 1), strict=True)),
        Fraction(0),
    )
    assert effects["player"][Rank.NINE] == average - base


def test_21_24_27_effects_of_removal_match_the_engine_walk() -> None:
    shoe = TWENTYONE_SHOE
    effects = twentyone_effects_of_removal(shoe=shoe)["player"]
    rules = TwentyOne2427Rules()
    assert sum(shoe.counts[RANK_ORDER.index(r)] * e for r, e in effects.items()) == 0

    def expected(counts: tuple[int, ...]) -> Fraction:
        walked = exact(
            lambda: TwentyOne2427Round(rules, {"player": 10}), counts, TableStrategy().play, net
        )
        return sum((Fraction(str(n)) * p for n, p in walked.items()), Fraction(0))

    base = expected(shoe.counts)
    for rank in (Rank.ACE, Rank.KING, Rank.JOKER):
        assert effects[rank] == expected(shoe.without(rank).counts) - base


def net(rnd: Round) -> Hashable:
    """The player wager's net per unit staked (a stake of 10)."""
    return rnd.net["player"] / 10
