"""Exact analysis of the Finnish 27 games as they are dealt: off the top of the real
shoe, without replacement.

``finnish27`` and ``21-24-27`` are dealt from a shoe of 324 cards (6 decks of 54).
:mod:`cardroom.games.finnish.analysis` analyses them with cards drawn *with replacement*
(every rank always has its share of the full shoe), which is exact for that model
but not for the game: in the real shoe each card dealt changes the chances of the
next, and repeated ranks and suits are rarer.  This analysis counts every round of
the real shoe exactly (:mod:`cardroom.games.finnish.shoe_count` explains how): every
outcome's chance, every wager's lines (the bonus of finnish27 with its suits), all
as fractions, with the number of ordered card sequences behind each outcome.

**One source of rules.**  Totals come from :func:`~cardroom.games.finnish.hands.total_from`,
the initial 27s from :func:`~cardroom.games.finnish.hands.initial_27`, a deal with a 27 is
settled by the engine's own round, the player's play from the rules' table (or
forced plays and strategy), the comparison of final hands from each game's
``compare`` and the bonuses from :func:`~cardroom.games.finnish.finnish27.find_bonus` and the
poker evaluator.  What the count re-expresses is the order of a round (the deal,
the player's hand, the dealer's draw) and the dealer's drawing limits; the tests
check every line against the generic walk of the engine itself
(:mod:`cardroom.games.walk`, which deals without replacement) on reduced shoes.

**Where each part is.**  This module holds the two games' strategy comparisons in the real
shoe and the effects of removal of one card; the analyses themselves are importable from
here too.  finnish27's count and its bonus are in
:mod:`~cardroom.games.finnish.shoe_finnish27`, 21-24-27's and its solver in
:mod:`~cardroom.games.finnish.shoe_twentyone`, both on the count of
:mod:`~cardroom.games.finnish.shoe_count` (the shoe and the deal in
:mod:`~cardroom.games.finnish.shoe_deal`, the tables of the hands in
:mod:`~cardroom.games.finnish.shoe_hands`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction

from cardroom.analysis.report import GameReport
from cardroom.core.cards import RANK_ORDER, Rank
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.comparison import (
    StrategyComparison,
    StrategyRow,
    finnish27_comparison,
    summarise,
)
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.hands import total_of
from cardroom.games.finnish.replacement import Hits
from cardroom.games.finnish.shoe_deal import SUITS, ShoeMakeup, total_indices
from cardroom.games.finnish.shoe_finnish27 import (
    FullShoe,
    SuitMixture,
    analyze_finnish27_shoe,
    finnish27_shoe_report,
)
from cardroom.games.finnish.shoe_twentyone import (
    FullSweep,
    analyze_21_24_27_shoe,
    composition_21_24_27_shoe,
    forced_codes,
    solve_21_24_27_shoe,
    twentyone_counts,
    twentyone_from_counts,
)
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Rules,
)

__all__ = [
    "Effects",
    "ShoeMakeup",
    "ShoeStrategyComparison",
    "analyze_21_24_27_shoe",
    "analyze_finnish27_shoe",
    "composition_21_24_27_shoe",
    "finnish27_comparison_shoe",
    "finnish27_effects_of_removal",
    "solve_21_24_27_shoe",
    "strategy_comparison_shoe",
    "twentyone_effects_of_removal",
]


# -- strategy comparison ---------------------------------------------------------------------
@dataclass(frozen=True)
class ShoeStrategyComparison(StrategyComparison):
    """:class:`~cardroom.games.finnish.comparison.StrategyComparison` for the finite shoe."""

    reports: dict[str, GameReport] = field(default_factory=dict, compare=False)


def strategy_comparison_shoe(
    rules: TwentyOne2427Rules | None = None, shoe: ShoeMakeup | None = None
) -> ShoeStrategyComparison:
    """21-24-27 in the real shoe: the source's table beside the best table of its kind,
    and the house edge of each and of composition-dependent play."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    solution = solve_21_24_27_shoe(rules, shoe)
    basic = analyze_21_24_27_shoe(rules, shoe)
    same = all(
        BASIC_STRATEGY.row_for(dealer) == solution.best_table.row_for(dealer)
        for dealer in solution.grids
    )
    best = (
        basic
        if same
        else analyze_21_24_27_shoe(
            rules, shoe, solution.best_table.hits, "the best total-dependent table"
        )
    )
    size = int(total_indices().max()) + 1
    rows = []
    for dealer in sorted(solution.grids, key=lambda t: (t.soft, t.value)):
        codes = forced_codes(rules, dealer, size)
        free = [total_of(ti) for ti in range(size) if codes[ti] == kernel.FREE]
        given = {t: BASIC_STRATEGY.hits(t, dealer) for t in free}
        mine = {t: solution.best_table.hits(t, dealer) for t in free}
        rows.append(
            StrategyRow(
                dealer, summarise(dealer, given), summarise(dealer, mine),
                tuple(t for t in free if given[t] != mine[t]),
            )
        )  # fmt: skip
    edges = {
        "source's basic strategy": basic,
        "best total-dependent table": best,
        "composition-dependent play": solution.composition,
    }
    notes = (
        "only the free decisions are shown: the rules make the others",
        "best total-dependent table: per dealer two-card total, the targets (hit free hard "
        "totals below one, soft below another) worth most in this shoe",
        "composition-dependent play: each free decision made on the exact cards seen "
        "(the player's and the dealer's two)",
    )
    house_edges = {
        name: {w: r.house_edge for w, r in report.wagers.items()} for name, report in edges.items()
    }
    return ShoeStrategyComparison(
        "21-24-27", "the source's basic strategy", "best total-dependent table",
        tuple(rows), house_edges, notes, basic.model, edges,
    )  # fmt: skip


def finnish27_comparison_shoe(
    rules: Finnish27Rules | None = None, shoe: ShoeMakeup | None = None
) -> ShoeStrategyComparison:
    """finnish27 in the real shoe: the rules' table beside the best table for the player
    wager (found with cards drawn with replacement, from totals alone), both tables'
    edges counted off the top of the real shoe (the rules' table's are the analysis's)."""
    rules = rules or Finnish27Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    reports: dict[str, GameReport] = {}

    def count(hits: Hits | None, label: str | None) -> GameReport:
        report = analyze_finnish27_shoe(rules, shoe, hits=hits, label=label)
        reports[label or rules.table_name] = report
        return report

    base = finnish27_comparison(rules, count)
    model = next(iter(reports.values())).model  # (the rules' table's: the analysis's words)
    return ShoeStrategyComparison(
        base.game, base.given_name, base.best_name, base.rows, base.house_edges,
        base.notes, model, reports,
    )  # fmt: skip


# -- effects of removal ---------------------------------------------------------------------
Effects = dict[str, dict[Rank, Fraction]]


def _effects(
    shoe: ShoeMakeup,
    analyze: Callable[[ShoeMakeup, SuitMixture | None], GameReport],
    every: bool = False,
) -> Effects:
    """Wager -> rank -> the change in its expected net result per unit staked when one
    card of that rank, of a suit unknown (each as likely as the shoe holds), leaves the
    shoe before the round.

    An unseen card taken out changes nothing on average, so the effects weighed by the
    ranks' counts add up to 0, exactly.  The first rank's effect (the Ace's, whose count
    is the longest: a shoe with one Ace fewer can deal fewer hands, so it shares none of
    the full shoe's tables) is worked out from the others' by that sum rather than
    counted.  ``every``: count every rank's, and check that they add up to 0 (the
    tests hold the two ways against each other)."""
    asks: list[tuple[Rank, ShoeMakeup, SuitMixture | None]] = []
    for index, rank in enumerate(RANK_ORDER):
        count = shoe.counts[index]
        if not count:
            continue
        mixture: SuitMixture | None = None
        if rank is not Rank.JOKER:
            mixture = [
                (Fraction(n, count), shoe.without(rank, suit).suits)
                for suit, n in zip(SUITS, shoe.suits[index], strict=True)
                if n
            ]
        asks.append((rank, shoe.without(rank), mixture))
    derived = None if every or len(asks) < 2 else asks[0][0]
    counted = asks[1:] if derived is not None else asks
    # two analyses at a time: each leaves a core idle for part of its time (its
    # Python, its longest pass), which the other fills
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(analyze, fewer, mixture) for _, fewer, mixture in counted]
        base = analyze(shoe, None)
        afters = [job.result() for job in jobs]

    def weighed(per_rank: dict[Rank, Fraction]) -> Fraction:
        return sum(
            (shoe.counts[RANK_ORDER.index(rank)] * e for rank, e in per_rank.items()),
            Fraction(0),
        )

    effects: Effects = {wager: {} for wager in base.wagers}
    for wager, report in base.wagers.items():
        per_rank = effects[wager]
        for (rank, _, _), after in zip(counted, afters, strict=True):
            per_rank[rank] = after.wagers[wager].expected - report.expected
        if derived is not None:
            rest = weighed(per_rank)
            effects[wager] = {derived: -rest / shoe.counts[RANK_ORDER.index(derived)]} | per_rank
        elif weighed(per_rank):
            raise ArithmeticError(f"effects of removal on {wager} do not add up to 0")
    return effects


def finnish27_effects_of_removal(
    rules: Finnish27Rules | None = None,
    shoe: ShoeMakeup | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
    full: FullShoe | None = None,
    every: bool = False,
) -> Effects:
    """finnish27's exact effects of removal in the real shoe (see :func:`_effects`;
    ``every``: count every rank's): an analysis per rank but the first, sharing the
    full shoe's tables (:class:`~cardroom.games.finnish.shoe_finnish27.FullShoe`;
    ``full``: those the shoe's report has made)."""
    rules = rules or Finnish27Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    if full is None or full.rules != rules or full.shoe != shoe:
        full = FullShoe(rules, shoe)  # the counts share the full shoe's tables

    def analyze(fewer: ShoeMakeup, mixture: SuitMixture | None) -> GameReport:
        return finnish27_shoe_report(rules, fewer, table_minimum, stake, None, "", mixture, full)

    return _effects(shoe, analyze, every)


def twentyone_effects_of_removal(
    rules: TwentyOne2427Rules | None = None,
    shoe: ShoeMakeup | None = None,
    hits: Hits | None = None,
    every: bool = False,
) -> Effects:
    """21-24-27's exact effects of removal in the real shoe, the player keeping one
    total-dependent table (by default the source's) whatever card is out (see
    :func:`_effects`; ``every``: count every rank's)."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    play = hits or BASIC_STRATEGY.hits
    full = FullSweep(rules, shoe, play)  # the counts share the full shoe's hands

    def analyze(fewer: ShoeMakeup, mixture: SuitMixture | None) -> GameReport:
        counted = twentyone_counts(rules, fewer, play, full)
        return twentyone_from_counts(rules, fewer, counted, "")

    return _effects(shoe, analyze, every)
