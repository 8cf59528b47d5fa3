"""The analysis tools at the terminal: ``analyze``, ``strategy`` and ``simulate``.

Each takes its command's options (checked here, with one-line errors), runs the analyser
or the simulator, and shows the result as Rich tables or one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from cardroom.analysis.report import fraction_text
from cardroom.core.money import AmountError, parse_amount
from cardroom.games import GAMES
from cardroom.games.base import GameRules
from cardroom.games.finnish.comparison import StrategyComparison
from cardroom.games.spec import AnalysisAsk, StrategyAsk
from cardroom.terminal import analysis_view
from cardroom.terminal.common import (
    CliError,
    Teardown,
    check_output_file,
    load_game,
    make_console,
    person_errors,
)

if TYPE_CHECKING:
    from rich.progress import Progress  # the bar is made by the simulation's view


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


def simulate(
    game_id: str,
    rounds_wanted: int,
    seed: int,
    workers: int | None,
    rules: Path | None,
    as_json: bool,
    strategy_name: str,
    session_rounds: int | None,
    plot: Path | None,
    backend: str,
    address: str | None,
    exact: bool,
    fresh_shoe: bool = False,
) -> None:
    """Play many rounds through real shoes, fast, with every wager staked (with
    ``fresh_shoe`` every round from a full, freshly shuffled shoe).

    chemin-de-fer: two seats, each calling "Banco" against the other's bank, both
    playing the solved equilibrium; the wagers are the punter's side and the bank's.
    """
    from cardroom.app.runner import batches  # lazy: Numba
    from cardroom.app.runner import fresh_shoe as fresh_rules  # lazy: Numba
    from cardroom.terminal import simulation_view  # lazy: Numba

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if strategy_name not in ("basic", "optimal"):
            raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
        if strategy_name not in game.strategies:
            raise CliError(f"--strategy is for {_strategists()} only")
        if plot is not None and not session_rounds:
            raise CliError("--plot draws the sessions: give --session-rounds too")
        if backend not in ("local", "ray"):
            raise CliError(f"--backend: local or ray, not {backend!r}")
        if address is not None and backend != "ray":
            raise CliError("--address is for --backend ray")
        if session_rounds and session_rounds > rounds_wanted:
            raise CliError("--session-rounds: a session cannot be longer than the run")
        if plot is not None:
            check_output_file(plot, "--plot", (".png",))
            simulation_view.check_plotting()
        count = workers or os.cpu_count() or 1
        # a fresh shoe changes where the shoe is reshuffled, not a round off the top:
        # the exact column is the rules' own (and its cache entry is shared)
        played = fresh_rules(game_rules) if fresh_shoe else game_rules
        try:
            plan = batches(rounds_wanted, session_rounds or 0)
            show_bar = not as_json and sys.stdout.isatty() and len(plan) > 1
            bar = simulation_view.progress_bar() if show_bar else None
            means: dict[str, Fraction] = {}
            missing = ""  # why there is no exact column, where the analyser cannot count it
            if exact:
                try:
                    means = _exact_column(game.id, game_rules, strategy_name)
                except ValueError as err:
                    missing = f"no exact column: {err}"
            result = _simulate(
                game.id, played, rounds_wanted, seed, count, session_rounds or 0,
                strategy_name, backend, address, bar,
            )  # fmt: skip
            if plot is not None:
                simulation_view.session_plot(result, means, plot)
        except ValueError as err:
            raise CliError(str(err)) from None
        except KeyboardInterrupt:
            print("error: interrupted: the run was cut short, so there are no figures",
                  file=sys.stderr, flush=True)  # fmt: skip
            raise typer.Exit(130) from None
        note = game.exact_note(game_rules) if means else missing
        if fresh_shoe:
            note = "every round from a full, freshly shuffled shoe" + (f"; {note}" if note else "")
    if as_json:
        data = simulation_view.run_json(result, means)
        data["fresh_shoe"] = fresh_shoe
        if plot is not None:
            data["plot"] = str(plot)
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        console = make_console()
        console.print(simulation_view.run_view(result, means, note))
        if plot is not None:
            console.print(f"plot written to {plot}")
    Teardown.skip()  # the figures are written: nothing is left for the teardown to do


def _simulate(
    game_id: str,
    game_rules: GameRules,
    rounds_wanted: int,
    seed: int,
    count: int,
    session: int,
    strategy_name: str,
    backend: str,
    address: str | None,
    bar: Progress | None,
) -> Any:
    """Run the simulation, with the progress bar if given one."""
    from cardroom.app.runner import run  # lazy: Numba

    if bar is not None:
        with bar:
            task = bar.add_task(game_id, total=rounds_wanted)
            result = run(
                game_id, game_rules, rounds_wanted, seed, count, session,
                strategy_name, backend, address,
                lambda n: bar.advance(task, n),
            )  # fmt: skip
    else:
        result = run(
            game_id, game_rules, rounds_wanted, seed, count, session,
            strategy_name, backend, address,
        )  # fmt: skip
    return result


def _exact_column(game_id: str, game_rules: GameRules, strategy_name: str) -> dict[str, Fraction]:
    """The exact values shown beside a run (cached on disk after the first time); on a
    terminal a status line says they are being worked out."""
    from cardroom.app.runner import exact_means  # lazy: Numba

    errors = Console(stderr=True)
    if not errors.is_terminal:
        return exact_means(game_id, game_rules, strategy_name)
    with errors.status("working out the exact values (kept for the next run of these rules)"):
        return exact_means(game_id, game_rules, strategy_name)
