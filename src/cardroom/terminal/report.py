"""``cardroom report``: a game's PAR sheet (or every game's), as HTML and PDF in a folder,
with every exact figure of it as CSV.

The options are checked before any work (an unknown game, a bad rules file, a folder
that cannot be written, WeasyPrint or Matplotlib missing: one line each, exit 2); then
each game's exact analysis runs (:mod:`cardroom.app.par`) and the sheet is written
(:mod:`cardroom.app.par_page`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from cardroom.app.par import compute_sheet
from cardroom.app.par_page import csv_name, load_report_deps, render_html, sheet_csv, write_pdf
from cardroom.games import GAMES, GameInfo, get_game
from cardroom.terminal.common import CliError, checking_path, make_console, person_errors

__all__ = ["ALL", "report", "sheet_paths"]

#: the GAME that asks for every game's sheet
ALL = "all"


def sheet_paths(out: Path, game: GameInfo) -> tuple[Path, Path]:
    """Where a game's sheet goes: ``GAME-par.html`` and ``GAME-par.pdf`` in ``out``."""
    return out / f"{game.id}-par.html", out / f"{game.id}-par.pdf"


def prepare_folder(out: Path) -> None:
    """The folder the sheets go in: made when missing, refused when it cannot be written."""
    with checking_path(out, "--out"):
        if out.exists() and not out.is_dir():
            raise CliError(f"--out: {str(out)!r} is a file, not a folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CliError(f"--out: cannot make the folder {str(out)!r} ({err.strerror})") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise CliError(f"--out: cannot write in {str(out)!r} (permission denied)")


def report(game_id: str, rules: Path | None, out: Path, eor: bool) -> None:
    """Write the PAR sheet of ``game_id`` (``all``: every game's) under ``rules`` in
    ``out``, as HTML and PDF, saying where each went."""
    console = make_console()
    with person_errors():
        if game_id == ALL:
            if rules is not None:
                raise CliError("--rules is for one game's sheet, not all of them")
            chosen = [(game, game.default_rules()) for game in GAMES.values()]
        else:
            game = get_game(game_id)
            chosen = [(game, game.load_rules(rules))]
        try:
            deps_loaded = load_report_deps()
        except ValueError as err:
            raise CliError(str(err)) from None
        prepare_folder(out)
        for game, game_rules in chosen:
            started = time.perf_counter()
            try:
                sheet = compute_sheet(game, game_rules, effects=eor and game.analyze is not None)
            except ValueError as err:
                raise CliError(f"{game.id}: {err}") from None
            try:
                deps_loaded()
            except ValueError as err:
                raise CliError(str(err)) from None
            html_path, pdf_path = sheet_paths(out, game)
            html = render_html(sheet)
            csv_path = out / csv_name(sheet)
            try:
                html_path.write_text(html, encoding="utf-8")
                write_pdf(html, pdf_path)
                csv_path.write_text(sheet_csv(sheet), encoding="utf-8")
            except OSError as err:
                raise CliError(f"cannot write the sheet of {game.id}: {err}") from None
            seconds = time.perf_counter() - started
            console.print(
                f"{game.id}: wrote {html_path}, {pdf_path} and {csv_path.name} ({seconds:.1f} s)"
            )
