"""punto-banco and baccarat27 as the other floors see them."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

from cardroom.games.baccarat import disclosure, words
from cardroom.games.baccarat.engine import (
    Baccarat27Round,
    BaccaratRound,
    BaccaratRules,
    PuntoBancoRound,
    baccarat27_rules,
    punto_banco_rules,
)
from cardroom.games.baccarat.wagers import wager_names
from cardroom.games.spec import Analysis, AnalysisAsk, GameSpec

if TYPE_CHECKING:  # (the kernel's type only: Numba is imported when one is built)
    from cardroom.simulation.kernel import Kernel

__all__ = ["BACCARAT27", "PUNTO_BANCO"]


def _kernel(rules: BaccaratRules, strategy: str) -> Kernel:
    from cardroom.games.baccarat.kernel import BaccaratKernel  # lazy: Numba

    return BaccaratKernel(rules)


def _exact_means(rules: BaccaratRules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.baccarat.analysis import analyze_baccarat  # lazy: the analysis

    report = analyze_baccarat(rules, "punto banco")
    return {wager: -w.house_edge for wager, w in report.wagers.items()}


def _analyze(game_id: str) -> Callable[[BaccaratRules, AnalysisAsk], Analysis]:
    def analyze(rules: BaccaratRules, ask: AnalysisAsk) -> Analysis:
        from cardroom.games.baccarat.analysis import (  # lazy: the analysis
            analyze_baccarat,
            effects_of_removal,
        )

        report = analyze_baccarat(rules, game_id, ask.decks)
        effects = effects_of_removal(rules, game_id, ask.decks) if ask.effects else None
        return Analysis(report, effects)

    return analyze


def _spec(
    game_id: str,
    name: str,
    description: str,
    rules: Callable[[], BaccaratRules],
    round_class: type[BaccaratRound],
) -> GameSpec[BaccaratRules]:
    """A punto banco game: the two share everything but their rules and names."""
    return GameSpec(
        id=game_id,
        name=name,
        description=description,
        default_rules=rules,
        new_round=lambda rules, wagers: round_class(rules, wagers),
        wager_ids=rules().wager_ids,
        outcomes=("player", "banker", "tie"),
        hands=("player", "banker"),
        decisions=False,
        paytable=disclosure.paytable,
        rules_text=disclosure.rules_text,
        kernel=_kernel,
        exact_means=_exact_means,
        rules_type=BaccaratRules,
        analyze=_analyze(game_id),
        wager_names=wager_names,
        rule_words=words.RULE_WORDS,
    )


PUNTO_BANCO = _spec(
    "punto-banco",
    "Punto banco",
    "Casino baccarat: bet on player 1:1, banker 19:20 or tie 8:1; the tableau draws",
    punto_banco_rules,
    PuntoBancoRound,
)
BACCARAT27 = _spec(
    "baccarat27",
    "Baccarat 27",
    "Punto banco without commission: banker pays 2:1 on a 2 and 1:2 on a 7; pairs 11:1, B-27 8:1",
    baccarat27_rules,
    Baccarat27Round,
)
