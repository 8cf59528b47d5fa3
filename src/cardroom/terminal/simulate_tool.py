"""The ``simulate`` tool at the terminal: its options checked (one-line errors), the run on
every core, and its figures as Rich tables or one JSON object.

It imports only what a run needs before its workers start (the game's description, its
kernel): the exact column beside the figures and the output's own imports are worked out
while the workers play their first batches, so that on a machine whose every core plays
they take no time of their own.  Apart from :mod:`.tools` (the exact analyses' screens),
which imports every game's exact analysis.
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

    from cardroom.games.base import GameRules

__all__ = ["simulate"]

#: The variables by which Rich takes standard error for a terminal when it is not one.
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "FORCE_TERMINAL")


def _strategists() -> str:
    from cardroom.games import GAMES  # lazy: the games (NumPy)

    ids = [game.id for game in GAMES.values() if len(game.strategies) > 1]
    return ", ".join(ids)


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
    from cardroom.app.runner import batches  # lazy: NumPy
    from cardroom.app.runner import fresh_shoe as fresh_rules  # lazy: NumPy

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
            from cardroom.terminal import simulation_view  # lazy: Rich

            check_output_file(plot, "--plot", (".png",))
            simulation_view.check_plotting()
        count = workers or os.cpu_count() or 1
        # a fresh shoe changes where the shoe is reshuffled, not a round off the top:
        # the exact column is the rules' own (and its cache entry is shared)
        played = fresh_rules(game_rules) if fresh_shoe else game_rules
        means: dict[str, Fraction] = {}
        missing = [""]  # why there is no exact column, where the analyser cannot count it

        def exact_column() -> None:
            if not exact:
                return
            try:
                means.update(_exact_column(game.id, game_rules, strategy_name))
            except ValueError as err:
                missing[0] = f"no exact column: {err}"

        try:
            plan = batches(rounds_wanted, session_rounds or 0)
            show_bar = not as_json and sys.stdout.isatty() and len(plan) > 1
            bar = None
            if show_bar:  # (the exact column's status line first: one live display at once)
                from cardroom.terminal import simulation_view  # lazy: Rich

                bar = simulation_view.progress_bar()
                exact_column()
            result = _simulate(
                game.id, played, rounds_wanted, seed, count, session_rounds or 0,
                strategy_name, backend, address, bar, None if show_bar else exact_column,
                as_json,
            )  # fmt: skip
            if plot is not None:
                simulation_view.session_plot(result, means, plot)
        except ValueError as err:
            raise CliError(str(err)) from None
        except KeyboardInterrupt:
            import typer  # lazy: Typer (a quick run reads its options without it)

            print("error: interrupted: the run was cut short, so there are no figures",
                  file=sys.stderr, flush=True)  # fmt: skip
            raise typer.Exit(130) from None
        note = game.exact_note(game_rules) if means else missing[0]
        if fresh_shoe:
            note = "every round from a full, freshly shuffled shoe" + (f"; {note}" if note else "")
    if as_json:
        from cardroom.terminal.simulation_json import run_json  # lazy: imported by now, mostly

        data = run_json(result, means)
        data["fresh_shoe"] = fresh_shoe
        if plot is not None:
            data["plot"] = str(plot)
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        from cardroom.terminal import simulation_view  # lazy: Rich (imported by now, mostly)

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
    meanwhile: Any,
    as_json: bool = False,
) -> Any:
    """Run the simulation, with the progress bar if given one; ``meanwhile`` (without the
    bar) runs while the workers play, and imports the output's view (``as_json``: the
    JSON form's, which needs no Rich)."""
    from cardroom.app.runner import run  # lazy: NumPy

    if bar is not None:
        with bar:
            task = bar.add_task(game_id, total=rounds_wanted)
            return run(
                game_id, game_rules, rounds_wanted, seed, count, session,
                strategy_name, backend, address,
                lambda n: bar.advance(task, n),
            )  # fmt: skip

    def while_playing() -> None:
        if as_json:
            from cardroom.terminal import simulation_json  # noqa: F401  # lazy: NumPy
        else:
            from cardroom.terminal import simulation_view  # noqa: F401  # lazy: Rich

        if meanwhile is not None:
            meanwhile()

    return run(
        game_id, game_rules, rounds_wanted, seed, count, session,
        strategy_name, backend, address, meanwhile=while_playing,
    )  # fmt: skip


def _exact_column(game_id: str, game_rules: GameRules, strategy_name: str) -> dict[str, Fraction]:
    """The exact values shown beside a run (cached on disk after the first time); on a
    terminal a status line says they are being worked out."""
    from cardroom.app.runner import exact_means  # lazy: NumPy

    if not sys.stderr.isatty() and not any(os.environ.get(v) for v in _TERMINAL_VARIABLES):
        return exact_means(game_id, game_rules, strategy_name)  # (no terminal: no status)
    from rich.console import Console  # lazy: Rich

    errors = Console(stderr=True)
    if not errors.is_terminal:
        return exact_means(game_id, game_rules, strategy_name)
    with errors.status("working out the exact values (kept for the next run of these rules)"):
        return exact_means(game_id, game_rules, strategy_name)
