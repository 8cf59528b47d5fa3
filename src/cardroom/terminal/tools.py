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
from typing import Any

import typer
from rich.console import Console

from cardroom.analysis.report import fraction_text
from cardroom.core.money import AmountError, parse_amount
from cardroom.terminal.common import (
    CliError,
    check_output_file,
    load_game,
    make_console,
    person_errors,
)

INFINITE_ONLY = (
    "with --infinite the Finnish 27 games are analysed with cards drawn with replacement "
    "(an infinite shoe), where {what}; without it they are counted from the real shoe"
)


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
    from cardroom.analysis.report import GameReport
    from cardroom.games.baccarat import BaccaratRules
    from cardroom.games.baccarat.analysis import analyze_baccarat, effects_of_removal
    from cardroom.games.finnish.analysis import (
        DrawOdds,
        analyze_21_24_27,
        analyze_finnish27,
        solve_21_24_27,
    )
    from cardroom.games.finnish.analysis import (
        effects_of_removal as effects_of_removal_with_replacement,
    )
    from cardroom.games.finnish.finnish27 import Finnish27Rules
    from cardroom.games.finnish.shoe import (
        ShoeMakeup,
        analyze_21_24_27_shoe,
        analyze_finnish27_shoe,
        finnish27_effects_of_removal,
        solve_21_24_27_shoe,
        twentyone_effects_of_removal,
    )
    from cardroom.terminal import analysis_view

    effects = None
    eor_note: str | None = None
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.kind == "seats":
            raise CliError(
                "chemin-de-fer is a game between two deciding sides: "
                "`cardroom strategy chemin-de-fer` solves it"
            )
        finnish_only = {"--table-min": table_min, "--stake": stake}
        if game.id != "finnish27":
            for option, given in finnish_only.items():
                if given is not None:
                    raise CliError(f"{option} is for finnish27 only")
        if game.id != "21-24-27" and strategy_name != "basic":
            raise CliError("--strategy is for 21-24-27 only")
        if isinstance(game_rules, BaccaratRules):
            if infinite:
                raise CliError("--infinite is for finnish27 and 21-24-27")
            report = analyze_baccarat(game_rules, game.id, decks)
            effects = effects_of_removal(game_rules, game.id, decks) if eor else None
        elif not infinite:
            shoe = ShoeMakeup.of_rules(game_rules.shoe, decks)
            eor_note = (
                "effects of removal in the real shoe: one card of each rank (of a suit "
                "unknown) taken out before the round, exactly"
            )
            if isinstance(game_rules, Finnish27Rules):
                minimum = _amount_option(table_min, "--table-min")
                stake_size = _amount_option(stake, "--stake")
                report = analyze_finnish27_shoe(game_rules, shoe, minimum, stake_size)
                if eor:
                    effects = finnish27_effects_of_removal(game_rules, shoe, minimum, stake_size)
            elif strategy_name == "basic":
                report = analyze_21_24_27_shoe(game_rules, shoe)
                if eor:
                    effects = twentyone_effects_of_removal(game_rules, shoe)
            elif strategy_name == "optimal":
                if eor:
                    raise CliError(
                        "--eor keeps one table whatever card is out: give --strategy basic "
                        "(the best play on the cards seen changes with each card)"
                    )
                report = solve_21_24_27_shoe(game_rules, shoe).composition
            else:
                raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
        else:
            if decks is not None:
                raise CliError(INFINITE_ONLY.format(what="the number of decks changes nothing"))
            if isinstance(game_rules, Finnish27Rules):
                minimum = _amount_option(table_min, "--table-min")
                stake_size = _amount_option(stake, "--stake")

                def finnish(odds: DrawOdds | None = None) -> GameReport:
                    return analyze_finnish27(game_rules, minimum, stake_size, odds=odds)

                run = finnish
            elif strategy_name in ("basic", "optimal"):
                hits = solve_21_24_27(game_rules).hits if strategy_name == "optimal" else None
                label = (
                    "the optimal strategy (cardroom strategy)"
                    if hits
                    else "the source's 18-row basic strategy"
                )

                def twentyone(odds: DrawOdds | None = None) -> GameReport:
                    return analyze_21_24_27(game_rules, hits, odds, label)

                run = twentyone
            else:
                raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
            report = run()
            if eor:
                effects = effects_of_removal_with_replacement(game_rules.shoe, run)
                eor_note = (
                    "effects of removal in the model with replacement: each rank's share of "
                    "the shoe before and after one card of it is taken out; the player's play "
                    "is unchanged (first-order effects, not the finite shoe's)"
                )
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
    from cardroom.games.chemin_de_fer.analysis import solution_text, solve_infinite, solve_shoe
    from cardroom.games.finnish.analysis import strategy_comparison
    from cardroom.games.finnish.shoe import ShoeMakeup, strategy_comparison_shoe
    from cardroom.terminal import analysis_view

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.kind != "seats":
            if game.id not in ("finnish27", "21-24-27"):
                raise CliError(
                    f"{game.id} has no decision to make: nobody chooses anything in it "
                    "(`cardroom analyze` gives its figures)"
                )
            if total_only:
                raise CliError("--total-only is for chemin-de-fer")
            if game.id == "21-24-27" and not infinite:
                shoe = ShoeMakeup.of_rules(game_rules.shoe, decks)
                finite = strategy_comparison_shoe(game_rules, shoe)
                if as_json:
                    sys.stdout.write(json.dumps(finite.to_json()) + "\n")
                else:
                    make_console().print(analysis_view.strategy_view(finite))
                return
            if decks is not None:
                raise CliError(
                    INFINITE_ONLY.format(what="--decks does not apply")
                    if game.id == "21-24-27"
                    else "finnish27's best table is worked out with cards drawn with "
                    "replacement, where --decks does not apply"
                )
            comparison = strategy_comparison(game.id, game_rules)
            if as_json:
                sys.stdout.write(json.dumps(comparison.to_json()) + "\n")
            else:
                make_console().print(analysis_view.strategy_view(comparison))
            return
        if infinite and decks is not None:
            raise CliError("give --infinite or --decks, not both")
        if infinite:
            solution = solve_infinite(game_rules)
        else:
            solution = solve_shoe(game_rules, decks, banker_sees_cards=not total_only)
    if as_json:
        sys.stdout.write(json.dumps(solution.to_json()) + "\n")
        return
    sys.stdout.write(solution_text(solution) + "\n")


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

    from cardroom.simulation.runner import batches
    from cardroom.simulation.runner import fresh_shoe as fresh_rules
    from cardroom.terminal import simulation_view

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if strategy_name not in ("basic", "optimal"):
            raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
        if strategy_name != "basic" and game.id != "21-24-27":
            raise CliError("--strategy is for 21-24-27 only")
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
            means = _exact_column(game.id, game_rules, strategy_name) if exact else {}
            result = _simulate(
                game.id, played, rounds_wanted, seed, count, session_rounds or 0,
                strategy_name, backend, address, show_bar,
            )  # fmt: skip
            if plot is not None:
                simulation_view.session_plot(result, means, plot)
        except ValueError as err:
            raise CliError(str(err)) from None
        except KeyboardInterrupt:
            print("error: interrupted: the run was cut short, so there are no figures",
                  file=sys.stderr, flush=True)  # fmt: skip
            raise typer.Exit(130) from None
        note = ""
        if means and game.id == "chemin-de-fer":
            banker = (
                "the banker draws by the casino tableau"
                if game_rules.banker_forced_by_tableau
                else "both sides play the solved equilibrium"
            )
            note = (
                f"{banker} (cardroom strategy chemin-de-fer); exact: the value of that play "
                "off the top of a full shoe"
            )
        elif means:
            note = "exact: off the top of a full shoe (cardroom analyze)"
        if fresh_shoe:
            note = "every round from a full, freshly shuffled shoe" + (f"; {note}" if note else "")
    if as_json:
        data = simulation_view.run_json(result, means)
        data["fresh_shoe"] = fresh_shoe
        if plot is not None:
            data["plot"] = str(plot)
        sys.stdout.write(json.dumps(data) + "\n")
        return
    console = make_console()
    console.print(simulation_view.run_view(result, means, note))
    if plot is not None:
        console.print(f"plot written to {plot}")


def _simulate(
    game_id: str,
    game_rules: Any,
    rounds_wanted: int,
    seed: int,
    count: int,
    session: int,
    strategy_name: str,
    backend: str,
    address: str | None,
    show_bar: bool,
) -> Any:
    """Run the simulation, with a progress bar if asked."""
    from cardroom.simulation.runner import run

    if show_bar:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(show_speed=True),  # rounds per second
            TimeRemainingColumn(),
            transient=True,
        )
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


def _exact_column(game_id: str, game_rules: Any, strategy_name: str) -> dict[str, Fraction]:
    """The exact values shown beside a run (cached on disk after the first time); on a
    terminal a status line says they are being worked out."""
    from cardroom.simulation.runner import exact_means

    errors = Console(stderr=True)
    if not errors.is_terminal:
        return exact_means(game_id, game_rules, strategy_name)
    with errors.status("working out the exact values (kept for the next run of these rules)"):
        return exact_means(game_id, game_rules, strategy_name)
