"""Typer's side of the command line: the group of commands, whose usage errors are one
line as cardroom's own are, ``--version``, and the options several commands share.

Apart from :mod:`.common` so that what a run needs of the command line (its errors, its
bounds) imports no Typer: :mod:`.cli` reads a plain ``cardroom simulate`` without it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from cardroom import version_line
from cardroom.terminal.common import EXIT_ERROR

__all__ = [
    "BankrollOpt",
    "CardroomGroup",
    "GameArg",
    "JsonOpt",
    "PersonOpt",
    "RulesOpt",
    "one_line",
    "version_callback",
]


class CardroomGroup(TyperGroup):
    """The command group, with every usage error (an unknown option, a value out of
    range...) reported as one line, ``error: ...``, exit status 2, as cardroom's own
    errors are, instead of a boxed panel."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except TyperException as err:
            if not standalone_mode:
                raise
            if type(err).__name__ == "NoArgsIsHelpError":  # `cardroom` alone: the help
                print(err.format_message(), file=sys.stderr, flush=True)
            else:
                print(f"error: {one_line(err.format_message())}", file=sys.stderr, flush=True)
            sys.exit(EXIT_ERROR)
        except typer.Abort:
            if not standalone_mode:
                raise
            print("error: interrupted", file=sys.stderr, flush=True)
            sys.exit(130)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


def one_line(message: str) -> str:
    """A usage error's message on one line (Click sometimes adds a second)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def version_callback(value: bool) -> None:
    if value:
        print(version_line())
        raise typer.Exit()


# -- shared options -------------------------------------------------------------------
GameArg = Annotated[
    str, typer.Argument(metavar="GAME", help="Game id (see `cardroom games`).", show_default=False)
]
RulesOpt = Annotated[
    Path | None,
    typer.Option("--rules", metavar="FILE.toml", help="A rules variant (TOML) for the game."),
]
PersonOpt = Annotated[
    str | None,
    typer.Option(
        "--person",
        metavar="NAME",
        help="A named bankroll (the people of `play chemin-de-fer --people`); default: yours.",
    ),
]
BankrollOpt = Annotated[
    Path | None,
    typer.Option(
        "--bankroll-file",
        metavar="PATH",
        help="The SQLite file of the bankrolls and history "
        "(default: cardroom.sqlite3 in the user data directory).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object, exact fractions.")]
