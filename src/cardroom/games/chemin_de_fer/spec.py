"""Chemin de fer as the other floors see it: a game between seats."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from cardroom.games.base import Bets, Round
from cardroom.games.chemin_de_fer import disclosure, words
from cardroom.games.chemin_de_fer.bots import MoneyPolicy, table_bot
from cardroom.games.chemin_de_fer.engine import ChemmyGame
from cardroom.games.chemin_de_fer.rules import GAME_ID, ChemmyRules, chemmy_rules
from cardroom.games.spec import GameSpec, SeatedTable, StrategyAsk, UnknownGame

# The solved game is imported by the functions that use it ("lazy: the analysis"): a
# game's description is read by every command, a simulation among them.
if TYPE_CHECKING:  # (the kernel's type only: Numba is imported when one is built)
    from cardroom.games.chemin_de_fer.analysis import ChemmySolution, EquilibriumBot
    from cardroom.simulation.kernel import Kernel

__all__ = ["CHEMIN_DE_FER", "SEATS"]


def _seats_only(rules: ChemmyRules, wagers: Bets) -> Round:
    raise UnknownGame(
        f"{GAME_ID} is played between seats, not against the house: use `cardroom play {GAME_ID}`"
    )


def _kernel(rules: ChemmyRules, strategy: str) -> Kernel:
    from cardroom.games.chemin_de_fer.kernel import ChemmyKernel  # lazy: Numba

    return ChemmyKernel(rules)


def _exact_means(rules: ChemmyRules, strategy: str, finite: bool) -> dict[str, Fraction]:
    from cardroom.games.chemin_de_fer.analysis import bot_values  # lazy: the analysis

    banker, player = bot_values(rules)
    return {"player": player, "banker": banker}


def _check(rules: ChemmyRules) -> None:
    from cardroom.games.chemin_de_fer.analysis import check_solvable  # lazy: the analysis

    check_solvable(rules)  # its tables' bots play the solved coup


def _strategy(rules: ChemmyRules, ask: StrategyAsk) -> Any:
    """The coup solved as a game between the banker and the player (an equilibrium)."""
    from cardroom.games.chemin_de_fer.analysis import (  # lazy: the analysis
        solve_infinite,
        solve_shoe,
    )

    if ask.infinite and ask.decks is not None:
        raise ValueError("give --infinite or --decks, not both")
    if ask.infinite:
        return solve_infinite(rules)
    return solve_shoe(rules, ask.decks, banker_sees_cards=not ask.total_only)


def _solved_bot(rules: ChemmyRules, money: MoneyPolicy | None) -> EquilibriumBot:
    from cardroom.games.chemin_de_fer.analysis import equilibrium_bot  # lazy: the analysis

    return equilibrium_bot(rules, money)


def _solve(rules: ChemmyRules) -> ChemmySolution:
    from cardroom.games.chemin_de_fer.analysis import solve_table  # lazy: the analysis

    return solve_table(rules)


def _exact_note(rules: ChemmyRules) -> str:
    banker = (
        "the banker draws by the casino tableau"
        if rules.banker_forced_by_tableau
        else "both sides play the solved equilibrium"
    )
    return (
        f"{banker} (cardroom strategy {GAME_ID}); exact: the value of that play off the top "
        "of a full shoe"
    )


#: the table of seats: the engine, the bots, the solved coup of a rules page
SEATS: SeatedTable[ChemmyRules] = SeatedTable(
    new_game=lambda rules, seats, empty, coups_before: ChemmyGame(
        rules, seats, empty=empty, coups_before=coups_before
    ),
    resume=ChemmyGame.resume,
    solved_bot=_solved_bot,
    table_bot=table_bot,
    solve=_solve,
    bots_play=disclosure.bots_play,
)

CHEMIN_DE_FER: GameSpec[ChemmyRules] = GameSpec(
    id=GAME_ID,
    name="Chemin de fer",
    description='Baccarat between players: a rotating bank, "Banco", a choice at 5 '
    "and a free banker",
    default_rules=chemmy_rules,
    new_round=_seats_only,
    wager_ids=("stake",),
    outcomes=("player", "banker", "tie"),
    hands=("player", "banker"),
    decisions=True,
    paytable=disclosure.paytable,
    rules_text=disclosure.rules_text,
    kernel=_kernel,
    exact_means=_exact_means,
    kind="seats",
    resume=ChemmyGame.resume,
    rules_type=ChemmyRules,
    check=_check,
    rule_words=words.RULE_WORDS,
    strategy=_strategy,
    exact_note=_exact_note,
    analysis_options=frozenset({"total_only"}),
    seats=SEATS,
)
