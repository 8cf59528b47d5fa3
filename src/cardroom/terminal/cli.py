"""The ``cardroom`` console script: the command line read by Typer (the commands and their
options are :mod:`.commands`'), or a plain ``cardroom simulate`` read without it.

A simulation's start-up is time its workers wait: Typer checks a command's options
through pydantic, and Typer, its pydantic and the commands' definitions were a third of
that start-up. :func:`quick_simulate` reads the common runs' command lines, each option
as the command declares it, and leaves every other line to Typer. ``app`` and the
commands' other names are :mod:`.commands`' (``from cardroom.terminal.cli import app``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from cardroom.terminal.common import (
    MAX_ROUNDS,
    MAX_SEED,
    MAX_WORKERS,
    end,
    end_output_failed,
    output_failed,
)

__all__ = ["main", "quick_simulate"]


#: ``simulate``'s options a plain command line gives, read without Typer
#: (:func:`quick_simulate`): each numeric option's bounds, as the command declares them.
QUICK_NUMBERS = {
    "--rounds": ("rounds_wanted", 1, MAX_ROUNDS),
    "--seed": ("seed", 0, MAX_SEED),
    "--workers": ("workers", 1, MAX_WORKERS),
    "--session-rounds": ("session_rounds", 1, MAX_ROUNDS),
}
QUICK_TEXTS = {
    "--rules": "rules",
    "--strategy": "strategy_name",
    "--backend": "backend",
    "--address": "address",
}
#: what :func:`.commands.simulate` is given for the options a command line leaves out
QUICK_DEFAULTS: dict[str, Any] = {
    "seed": 0, "workers": None, "rules": None, "as_json": False, "strategy_name": "basic",
    "session_rounds": None, "plot": None, "backend": "local", "address": None,
    "exact": True, "fresh_shoe": False,
}  # fmt: skip
QUICK_FLAGS = {
    "--json": ("as_json", True),
    "--exact": ("exact", True),
    "--no-exact": ("exact", False),
    "--fresh-shoe": ("fresh_shoe", True),
}


def quick_simulate(args: list[str]) -> dict[str, Any] | None:
    """Every argument of :func:`.commands.simulate` from ``cardroom simulate``'s command
    line, where it is a plain one: the game, and each option once, as ``--name VALUE`` or a
    flag, every number plain digits within its bounds.  None for anything else
    (``--help``, ``--plot``, ``--name=VALUE``, a value out of range...): Typer reads that
    line, and says what is wrong with it.

    Typer checks a command's options through pydantic, whose import and checks are a
    quarter of a simulation's start-up: this reading leaves them out of the common runs.
    """
    if args[:1] != ["simulate"]:
        return None
    found: dict[str, Any] = {}
    game: str | None = None
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            if game is not None:
                return None
            game = arg
            continue
        if arg in QUICK_FLAGS:
            name, flag = QUICK_FLAGS[arg]
            if name in found:
                return None
            found[name] = flag
            continue
        if arg not in QUICK_NUMBERS and arg not in QUICK_TEXTS:
            return None
        value = next(rest, None)
        if value is None or value.startswith("-"):
            return None
        if arg in QUICK_TEXTS:
            name = QUICK_TEXTS[arg]
            if name in found:
                return None
            found[name] = Path(value) if name == "rules" else value
            continue
        name, low, high = QUICK_NUMBERS[arg]
        if name in found or not (value.isascii() and value.isdigit()):
            return None
        if not low <= int(value) <= high:
            return None
        found[name] = int(value)
    if game is None or "rounds_wanted" not in found:
        return None
    return {"game_id": game, **QUICK_DEFAULTS, **found}


def _run_quick(options: dict[str, Any]) -> NoReturn:
    """Run ``simulate`` with ``options`` (:func:`quick_simulate`), its errors and its exit
    status as Typer gives them to a command (Typer is imported only to tell its
    exceptions, where one was raised)."""
    from cardroom.terminal import simulate_tool  # lazy: the games (NumPy)

    try:
        try:
            simulate_tool.simulate(**options)
        except EOFError as err:
            import typer  # lazy: Typer

            print(file=sys.stderr)
            raise typer.Abort() from err
        except KeyboardInterrupt as err:
            import typer  # lazy: Typer

            raise typer.Exit(130) from err
    except RuntimeError as err:  # (Typer's Exit and Abort are RuntimeErrors)
        import typer  # lazy: Typer

        if isinstance(err, typer.Exit):
            sys.exit(err.exit_code)
        if not isinstance(err, typer.Abort):
            raise
        print("error: interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    sys.exit(0)


#: the commands that count exactly, whose process is set for it (see :func:`main`)
_ANALYSING = frozenset({"analyze", "report", "strategy"})


def main() -> None:
    """The ``cardroom`` console script.  A command that counts exactly runs in a process
    set for it (:func:`cardroom.analysis.memory.for_analysis`: freed memory kept, cycles
    collected rarely).  Output that cannot be written (a full disk, a closed pipe) ends
    the command with one line at most, exit status 1 (:func:`.common.end_output_failed`)."""
    try:
        if sys.argv[1:2] and sys.argv[1] in _ANALYSING:
            from cardroom.analysis.memory import for_analysis  # lazy: ctypes

            for_analysis()
        options = quick_simulate(sys.argv[1:])
        if options is not None and not any(
            name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ
        ):
            _run_quick(options)
        from cardroom.terminal.commands import app  # lazy: Typer and the commands

        app()
    except SystemExit as done:
        end(done.code)
        raise
    except OSError as err:
        if not output_failed(err):
            raise
        end_output_failed(err)


def __getattr__(name: str) -> Any:
    """The commands' names (``app``...), from :mod:`.commands` (not the import system's
    questions, ``__path__``...: those would import the commands for every import)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from cardroom.terminal import commands  # lazy: Typer and the commands

    try:
        return getattr(commands, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


if __name__ == "__main__":
    main()
