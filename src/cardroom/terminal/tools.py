"""The analysis tools at the terminal: ``analyze`` and ``strategy`` (``simulate`` is
:mod:`.simulate_tool`, which imports no exact analysis before its workers start).

Each takes its command's options (checked here, with one-line errors), runs the analyser,
and shows the result as Rich tables or one JSON object.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from cardroom.analysis.report import fraction_text
from cardroom.core.money import AmountError, parse_amount
from cardroom.games import GAMES
from cardroom.games.finnish.comparison import StrategyComparison
from cardroom.games.spec import AnalysisAsk, StrategyAsk
from cardroom.terminal import analysis_view
from cardroom.terminal.common import (
    CliError,
    load_game,
    make_console,
    person_errors,
)

if TYPE_CHECKING:
    pass  # the bar is made by the simulation's view


def _amount_option(text: str | None, name: str) -> Fraction | None:
    if text is None:
        return None
    try:
        value = parse_amount(text)
    except AmountError as err:
        raise CliError(f"{name}: {err}") from None
    if value <= 0:
        raise CliError(f"{name}: must be above 0, not {text}")
    return value


def _takers(option: str) -> str:
    """The games that take an analysis option, in words: ``finnish27 and 21-24-27``."""
    ids = [game.id for game in GAMES.values() if option in game.analysis_options]
    return ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + f" and {ids[-1]}"


def _strategists() -> str:
    ids = [game.id for game in GAMES.values() if len(game.strategies) > 1]
    return ", ".join(ids)


def analyze(
    game_id: str,
    rules: Path | None,
    decks: int | None,
    as_json: bool,
    eor: bool,
    table_min: str | None,
    stake: str | None,
    strategy_name: str,
    infinite: bool = False,
) -> None:
    """Exact probabilities and returns of every wager, from a full shoe (the Finnish
    games: counted from the rules' real shoe, or with ``infinite`` with replacement)."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.analyze is None:
            raise CliError(
                f"{game.id} is a game between two deciding sides: "
                f"`cardroom strategy {game.id}` solves it"
            )
        for option, name, given in (
            ("table_min", "--table-min", table_min is not None),
            ("stake", "--stake", stake is not None),
            ("infinite", "--infinite", infinite),
        ):
            if given and option not in game.analysis_options:
                raise CliError(f"{name} is for {_takers(option)} only")
        if len(game.strategies) > 1 and strategy_name not in game.strategies:
            known = " or ".join(game.strategies)
            raise CliError(f"--strategy: {known}, not {strategy_name!r}")
        if strategy_name not in game.strategies:
            raise CliError(f"--strategy is for {_strategists()} only")
        ask = AnalysisAsk(
            decks=decks,
            infinite=infinite,
            strategy=strategy_name,
            table_min=_amount_option(table_min, "--table-min"),
            stake=_amount_option(stake, "--stake"),
            effects=eor,
        )
        try:
            analysis = game.analyze(game_rules, ask)
        except ValueError as err:
            raise CliError(str(err)) from None
    report, effects, eor_note = analysis.report, analysis.effects, analysis.effects_note
    if as_json:
        data = report.to_json()
        if effects is not None:
            data["effects_of_removal"] = {
                wager: {rank.value: fraction_text(v) for rank, v in per.items()}
                for wager, per in effects.items()
            }
            if eor_note:
                data["effects_of_removal_model"] = eor_note
        sys.stdout.write(json.dumps(data) + "\n")
        return
    console = make_console()
    console.print(analysis_view.report_view(report))
    if effects is not None:
        console.print(analysis_view.eor_table(effects))
        if eor_note:
            console.print(eor_note)


def strategy(
    game_id: str,
    rules: Path | None,
    decks: int | None,
    infinite: bool,
    total_only: bool,
    as_json: bool,
) -> None:
    """The best play: 21-24-27's optimal strategy (in the real shoe unless ``infinite``),
    finnish27's best table (with replacement), chemin de fer solved."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.strategy is None:
            raise CliError(
                f"{game.id} has no decision to make: nobody chooses anything in it "
                "(`cardroom analyze` gives its figures)"
            )
        if total_only and "total_only" not in game.analysis_options:
            raise CliError(f"--total-only is for {_takers('total_only')}")
        try:
            solved = game.strategy(
                game_rules, StrategyAsk(decks=decks, infinite=infinite, total_only=total_only)
            )
        except ValueError as err:
            raise CliError(str(err)) from None
    text = getattr(solved, "text", None)  # a solved game says itself; a comparison is drawn
    if as_json:
        sys.stdout.write(json.dumps(solved.to_json()) + "\n")
    elif callable(text):
        sys.stdout.write(text() + "\n")
    elif isinstance(solved, StrategyComparison):
        make_console().print(analysis_view.strategy_view(solved))
    else:  # neither says itself nor sets tables side by side: its figures as they are
        sys.stdout.write(json.dumps(solved.to_json(), indent=2) + "\n")
