"""Compile the Numba kernels once, into their on-disk cache, before the tests run.

The kernels are compiled the first time a process calls them and then cached beside
their modules (``cache=True``).  On a fresh clone the cache is empty, and the test
workers running side by side would each compile the same kernels at once; ``make test``
runs this first (beside mypy) so that every worker loads them from the cache instead.

For every game it runs the commands that reach the kernels, on small inputs: a short
simulation, and the exact analysis and the strategy from one deck (from the game's own
shoe where it takes no number of decks).  A command a game does not offer is skipped.

Run: ``python scripts/compile_kernels.py`` (about two minutes of one core on a fresh
clone, half a minute once the cache is filled).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time

from typer.main import get_command

from cardroom.games import GAMES
from cardroom.terminal.cli import app


def _run(args: list[str]) -> int:
    """Run one ``cardroom`` command in this process, its output thrown away."""
    command = get_command(app)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            # (without standalone mode an exit code comes back as the return value)
            code = command.main(args, prog_name="cardroom", standalone_mode=False)
        except SystemExit as stop:
            return int(stop.code or 0)
        except Exception:  # a command this game does not offer
            return 1
    return code if isinstance(code, int) else 0


def main() -> int:
    started = time.monotonic()
    for game_id in GAMES:
        _run(["simulate", game_id, "--rounds", "2000", "--seed", "1"])
        if _run(["analyze", game_id, "--decks", "1"]):
            _run(["analyze", game_id])
        _run(["strategy", game_id, "--decks", "1"])
    print(f"kernels compiled in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
