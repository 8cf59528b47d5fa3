"""A simulation dealt from fresh shoes beside the exact finite-shoe analysis (on demand).

``python benchmarks/fresh_shoe_simulation.py GAME ROUNDS SEED`` plays ROUNDS rounds
of GAME (finnish27 or 21-24-27) with the compiled kernels, every round from a full,
freshly shuffled shoe (``cardroom simulate GAME --fresh-shoe``), and prints each
outcome's count and each wager's simulated mean with its standard error and its
distance in standard errors from the exact value off the top of the shoe
(:mod:`cardroom.games.finnish.shoe`).  The last lines are the run's exact sums,
which ``tests/games/finnish/test_shoe.py`` pins (10**8 rounds: about 90 s for finnish27 and
45 s for 21-24-27 on two cores; docs/finnish-exact.md has the measured times).
"""

from __future__ import annotations

import sys
import time

from cardroom.app.runner import exact_means, run
from cardroom.games import get_game


def main() -> None:
    game_id, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rules = get_game(game_id).load_rules()
    start = time.perf_counter()
    result = run(game_id, rules, rounds, seed=seed, workers=2, fresh=True)
    seconds = time.perf_counter() - start
    exact = exact_means(game_id, rules)
    print(f"{game_id}: {result.rounds:,} rounds from fresh shoes, seed {seed}, {seconds:.0f} s")
    for name, count in result.outcome_counts().items():
        print(f"  {name:8s} {count:>13,}  {count / result.rounds:.6%}")
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, exact[wager])
        print(
            f"  {wager:8s} mean {figures.mean:+.6f} (standard error {figures.std_error:.6f}), "
            f"exact {float(exact[wager]):+.6f}, z {figures.z:+.2f}"
        )
    print("sums for the test:")
    print(f"  outcomes {[int(n) for n in result.outcomes]}")
    print(f"  net {[int(n) for n in result.net]} (units of 1/{result.unit} stake)")
    print(f"  net_squared {[int(n) for n in result.net_squared]}")


if __name__ == "__main__":
    main()
