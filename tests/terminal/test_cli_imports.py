"""The command line imports what each command needs when it runs: importing it (as
`cardroom --version` does) loads neither the wallet's database nor Numba, and the
games' registry (as `cardroom games` and every game's command load it) loads no Numba."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import cardroom.terminal.cli
first = sorted(sys.modules)
import cardroom.games
second = sorted(sys.modules)
print(json.dumps([first, second]))
"""

#: what importing the command line leaves out
HEAVY = ("sqlalchemy", "numba", "numpy", "cryptography", "rich", "cardroom.games")


def test_the_command_line_and_the_games_import_only_what_they_need() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )
    first, second = json.loads(done.stdout)
    assert [name for name in HEAVY if name in first] == []
    assert [name for name in ("numba", "sqlalchemy") if name in second] == []


def test_a_simulation_ends_without_the_teardown_and_its_output_whole() -> None:
    """A finished simulation ends the process without the interpreter's teardown: its
    output is flushed whole first, and the status is 0."""
    command = "from cardroom.terminal.cli import main; main()"
    args = ["simulate", "punto-banco", "--rounds", "2000", "--seed", "3", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", command, *args], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout)["rounds"] == 2000
    assert done.stdout.endswith("}\n") and done.stderr == ""
