"""finnish27 and 21-24-27 as the other floors see them."""

from __future__ import annotations

from fractions import Fraction

from cardroom.games.finnish import disclosure
from cardroom.games.finnish.finnish27 import Finnish27Round, Finnish27Rules
from cardroom.games.finnish.twentyone_24_27 import (
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.spec import GameSpec, Kernel

__all__ = ["FINNISH27", "TWENTYONE_24_27"]


def _finnish27_kernel(rules: Finnish27Rules, strategy: str) -> Kernel:
    from cardroom.games.finnish.kernel import Finnish27Kernel  # Numba: loaded when asked for

    return Finnish27Kernel(rules)


def _twentyone_kernel(rules: TwentyOne2427Rules, strategy: str) -> Kernel:
    from cardroom.games.finnish.kernel import TwentyOne2427Kernel

    return TwentyOne2427Kernel.build(rules, strategy)


def _finnish27_means(rules: Finnish27Rules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.finnish.analysis import analyze_finnish27
    from cardroom.games.finnish.shoe import analyze_finnish27_shoe

    report = analyze_finnish27_shoe(rules) if finite else analyze_finnish27(rules)
    return {wager: -w.house_edge for wager, w in report.wagers.items()}


def _twentyone_means(rules: TwentyOne2427Rules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.finnish.analysis import analyze_21_24_27, solve_21_24_27
    from cardroom.games.finnish.shoe import analyze_21_24_27_shoe

    hits = solve_21_24_27(rules).hits if strategy == "optimal" else None
    report = analyze_21_24_27_shoe(rules, hits=hits) if finite else analyze_21_24_27(rules, hits)
    return {wager: -w.house_edge for wager, w in report.wagers.items()}


FINNISH27: GameSpec[Finnish27Rules] = GameSpec(
    id="finnish27",
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
)

TWENTYONE_24_27: GameSpec[TwentyOne2427Rules] = GameSpec(
    id="21-24-27",
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
)
