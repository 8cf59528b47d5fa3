"""finnish27 and 21-24-27 as the other floors see them."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from cardroom.games.finnish import disclosure, words
from cardroom.games.finnish.finnish27 import Finnish27Round, Finnish27Rules
from cardroom.games.finnish.twentyone_24_27 import (
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.spec import Analysis, AnalysisAsk, GameSpec, StrategyAsk

# The exact analyses are imported by the functions that run them ("lazy: the analysis"):
# a game's description is read by every command, a simulation or a round among them.
if TYPE_CHECKING:  # (the kernel's type only: Numba is imported when one is built)
    from cardroom.core.shoe import ShoeRules
    from cardroom.games.finnish.replacement import DrawOdds
    from cardroom.simulation.kernel import Kernel

__all__ = ["FINNISH27", "TWENTYONE_24_27"]

INFINITE_ONLY = (
    "with --infinite the Finnish 27 games are analysed with cards drawn with replacement "
    "(an infinite shoe), where {what}; without it they are counted from the real shoe"
)
SHOE_EFFECTS = (
    "effects of removal in the real shoe: one card of each rank (of a suit unknown) taken "
    "out before the round, exactly"
)
REPLACEMENT_EFFECTS = (
    "effects of removal in the model with replacement: each rank's share of the shoe "
    "before and after one card of it is taken out; the player's play is unchanged "
    "(first-order effects, not the finite shoe's)"
)


def _finnish27_kernel(rules: Finnish27Rules, strategy: str) -> Kernel:
    from cardroom.games.finnish.kernel import Finnish27Kernel  # lazy: Numba

    return Finnish27Kernel(rules)


def _twentyone_kernel(rules: TwentyOne2427Rules, strategy: str) -> Kernel:
    from cardroom.games.finnish.kernel import TwentyOne2427Kernel  # lazy: Numba

    return TwentyOne2427Kernel.build(rules, strategy)


def _finnish27_means(rules: Finnish27Rules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.finnish.analysis import analyze_finnish27  # lazy: the analysis
    from cardroom.games.finnish.shoe import analyze_finnish27_shoe  # lazy: Numba

    report = analyze_finnish27_shoe(rules) if finite else analyze_finnish27(rules)
    return {wager: -w.house_edge for wager, w in report.wagers.items()}


def _twentyone_means(rules: TwentyOne2427Rules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.finnish.shoe import analyze_21_24_27_shoe  # lazy: Numba
    from cardroom.games.finnish.twentyone_analysis import (  # lazy: the analysis
        analyze_21_24_27,
        solve_21_24_27,
    )

    hits = solve_21_24_27(rules).hits if strategy == "optimal" else None
    report = analyze_21_24_27_shoe(rules, hits=hits) if finite else analyze_21_24_27(rules, hits)
    return {wager: -w.house_edge for wager, w in report.wagers.items()}


#: an analysis with replacement, for the odds of each card (None: the shoe's own)
Run = Callable[["DrawOdds | None"], Any]


def _with_replacement(shoe: ShoeRules, ask: AnalysisAsk, make: Callable[[], Run]) -> Analysis:
    """A Finnish game with cards drawn with replacement: ``make()`` gives the analysis
    (made once the options are checked), run for the shoe and, with ``ask.effects``, for
    each rank taken out."""
    from cardroom.games.finnish.analysis import effects_of_removal  # lazy: the analysis

    if ask.decks is not None:
        raise ValueError(INFINITE_ONLY.format(what="the number of decks changes nothing"))
    run = make()
    report = run(None)
    if not ask.effects:
        return Analysis(report)
    return Analysis(report, effects_of_removal(shoe, run), REPLACEMENT_EFFECTS)


def _finnish27_analyze(rules: Finnish27Rules, ask: AnalysisAsk) -> Analysis:
    from cardroom.games.finnish.analysis import analyze_finnish27  # lazy: the analysis
    from cardroom.games.finnish.shoe import (  # lazy: Numba
        ShoeMakeup,
        analyze_finnish27_shoe,
        finnish27_effects_of_removal,
    )
    from cardroom.games.finnish.shoe_finnish27 import FullShoe  # lazy: Numba

    minimum, stake = ask.table_min, ask.stake
    if not ask.infinite:
        shoe = ShoeMakeup.of_rules(rules.shoe, ask.decks)
        if not ask.effects:
            return Analysis(analyze_finnish27_shoe(rules, shoe, minimum, stake))
        # the report's count makes the full shoe's tables once, for the effects' too
        full = FullShoe(rules, shoe)
        report = analyze_finnish27_shoe(rules, shoe, minimum, stake, like=full)
        effects = finnish27_effects_of_removal(rules, shoe, minimum, stake, full)
        return Analysis(report, effects, SHOE_EFFECTS)

    def finnish() -> Run:
        def run(odds: DrawOdds | None) -> Any:
            return analyze_finnish27(rules, minimum, stake, odds=odds)

        return run

    return _with_replacement(rules.shoe, ask, finnish)


def _twentyone_analyze(rules: TwentyOne2427Rules, ask: AnalysisAsk) -> Analysis:
    from cardroom.games.finnish.shoe import (  # lazy: Numba
        ShoeMakeup,
        analyze_21_24_27_shoe,
        composition_21_24_27_shoe,
        twentyone_effects_of_removal,
    )
    from cardroom.games.finnish.twentyone_analysis import (  # lazy: the analysis
        analyze_21_24_27,
        solve_21_24_27,
    )

    if ask.strategy not in ("basic", "optimal"):
        raise ValueError(f"--strategy: basic or optimal, not {ask.strategy!r}")
    if not ask.infinite:
        shoe = ShoeMakeup.of_rules(rules.shoe, ask.decks)
        if ask.strategy == "basic":
            report = analyze_21_24_27_shoe(rules, shoe)
            if not ask.effects:
                return Analysis(report)
            return Analysis(report, twentyone_effects_of_removal(rules, shoe), SHOE_EFFECTS)
        if ask.effects:
            raise ValueError(
                "--eor keeps one table whatever card is out: give --strategy basic "
                "(the best play on the cards seen changes with each card)"
            )
        return Analysis(composition_21_24_27_shoe(rules, shoe))

    def twentyone() -> Run:
        hits = solve_21_24_27(rules).hits if ask.strategy == "optimal" else None
        label = (
            "the optimal strategy (cardroom strategy)"
            if hits
            else "the source's 18-row basic strategy"
        )

        def run(odds: DrawOdds | None) -> Any:
            return analyze_21_24_27(rules, hits, odds, label)

        return run

    return _with_replacement(rules.shoe, ask, twentyone)


def _finnish27_strategy(rules: Finnish27Rules, ask: StrategyAsk) -> Any:
    from cardroom.games.finnish.comparison import strategy_comparison  # lazy: the analysis
    from cardroom.games.finnish.shoe import ShoeMakeup, finnish27_comparison_shoe  # lazy: Numba

    if not ask.infinite:
        return finnish27_comparison_shoe(rules, ShoeMakeup.of_rules(rules.shoe, ask.decks))
    if ask.decks is not None:
        raise ValueError(INFINITE_ONLY.format(what="--decks does not apply"))
    return strategy_comparison("finnish27", rules)


def _twentyone_strategy(rules: TwentyOne2427Rules, ask: StrategyAsk) -> Any:
    from cardroom.games.finnish.comparison import strategy_comparison  # lazy: the analysis
    from cardroom.games.finnish.shoe import ShoeMakeup, strategy_comparison_shoe  # lazy: Numba

    if not ask.infinite:
        return strategy_comparison_shoe(rules, ShoeMakeup.of_rules(rules.shoe, ask.decks))
    if ask.decks is not None:
        raise ValueError(INFINITE_ONLY.format(what="--decks does not apply"))
    return strategy_comparison("21-24-27", rules)


FINNISH27: GameSpec[Finnish27Rules] = GameSpec(
    id="finnish27",
    rule_words=words.RULE_WORDS,
    hand_names=words.NAMES,
    name="Finnish 27 (baccarat-like)",
    description="Bet on player, dealer or push; fixed play to 27, Jokers make 27, "
    "poker bonus with Jokers wild",
    default_rules=Finnish27Rules,
    new_round=lambda rules, wagers: Finnish27Round(rules, wagers),
    wager_ids=Finnish27Round.wager_ids,
    outcomes=("player", "dealer", "push"),
    hands=("player", "dealer"),
    decisions=False,
    paytable=disclosure.finnish27_paytable,
    rules_text=disclosure.finnish27_text,
    kernel=_finnish27_kernel,
    exact_means=_finnish27_means,
    rules_type=Finnish27Rules,
    analyze=_finnish27_analyze,
    strategy=_finnish27_strategy,
    analysis_options=frozenset({"table_min", "stake", "infinite"}),
)

TWENTYONE_24_27: GameSpec[TwentyOne2427Rules] = GameSpec(
    id="21-24-27",
    rule_words=words.RULE_WORDS,
    hand_names=words.NAMES,
    name="21-24-27",
    description="Finnish 27 against the dealer: you hit or stand where the rules let "
    "you choose; Jokers count 0",
    default_rules=TwentyOne2427Rules,
    new_round=lambda rules, wagers: TwentyOne2427Round(rules, wagers),
    wager_ids=TwentyOne2427Round.wager_ids,
    outcomes=("player", "dealer", "push"),
    hands=("player", "dealer"),
    decisions=True,
    paytable=disclosure.twentyone_paytable,
    rules_text=disclosure.twentyone_text,
    kernel=_twentyone_kernel,
    exact_means=_twentyone_means,
    player_strategy=lambda: TableStrategy().play,
    rules_type=TwentyOne2427Rules,
    strategies=("basic", "optimal"),
    analyze=_twentyone_analyze,
    strategy=_twentyone_strategy,
    analysis_options=frozenset({"infinite"}),
)
