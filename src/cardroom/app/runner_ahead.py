"""Build every game's simulation kernel ahead of time (:mod:`cardroom.simulation.ahead`):
``python -m cardroom.app.runner_ahead [--clear]``.

Each game's kernel is loaded through the JIT under the default rules (every strategy it
plays), which tells each compiled function's signature, and then built with Numba's AOT
compiler (``numba.pycc``: it needs setuptools and a C compiler), a minute or two in all.
Runs on this code and this machine then call the builds instead of loading the kernels
into Numba; without them everything runs as before.
"""

from __future__ import annotations

import argparse
import time

from cardroom.app.runner import kernel_for, load_compiled
from cardroom.games import GAMES
from cardroom.simulation import ahead

__all__ = ["build_kernels", "main"]


def build_kernels() -> list[str]:
    """Build every game's kernel; return the compiled functions built."""
    for game in GAMES.values():
        rules = game.default_rules()
        for strategy in game.strategies:
            load_compiled(kernel_for(game.id, rules, strategy))
    return ahead.build(ahead.seen())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clear", action="store_true", help="remove the builds instead")
    args = parser.parse_args()
    if args.clear:
        ahead.clear()
        print(f"removed {ahead.folder()}")
        return
    start = time.perf_counter()
    built = build_kernels()
    seconds = time.perf_counter() - start
    print(f"built {len(built)} kernels in {seconds:.0f} s into {ahead.folder()}")
    for name in built:
        print(f"  {name}")


if __name__ == "__main__":
    main()
