"""Rounds per second of the compiled simulation, against the plain engine.

``python benchmarks/bench_simulation.py [SCALE [GAME ...]]`` (run on demand; prints figures,
asserts nothing).  For each game with a kernel: the kernel on every core through
real seeded shoes (after one short run that loads or compiles it), one core for
comparison, and the plain engine (``Dealer.play`` with every wager staked) on one
core in the same run.  SCALE multiplies the round counts (default 1).
"""

from __future__ import annotations

import os
import sys
import time

from cardroom.app.runner import run
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import get_game
from cardroom.games.dealing import Dealer
from cardroom.games.finnish.twentyone_24_27 import TableStrategy

ROUNDS = {"punto-banco": 200_000_000, "baccarat27": 200_000_000, "finnish27": 50_000_000,
          "21-24-27": 100_000_000, "chemin-de-fer": 200_000_000}  # fmt: skip
ENGINE_ROUNDS = 20_000


def chemmy_engine_rate() -> float:
    """The seated session with two equilibrium bots, as the kernel plays it."""
    import numpy as np

    from cardroom.games.chemin_de_fer import ChemmyGame, ChemmySession
    from cardroom.games.chemin_de_fer.analysis import equilibrium_bot

    rules = get_game("chemin-de-fer").load_rules()
    bot = equilibrium_bot(rules)
    game = ChemmyGame(rules, [("Ann", 10**12), ("Bob", 10**12)])
    shoe = Shoe(rules.shoe, SeededShuffler(1))
    session = ChemmySession(game, shoe, {0: bot, 1: bot}, np.random.default_rng(1))
    session.play_coups(1)  # the draw for the bank
    start = time.perf_counter()
    session.play_coups(ENGINE_ROUNDS)
    return ENGINE_ROUNDS / (time.perf_counter() - start)


def engine_rate(game_id: str) -> float:
    if game_id == "chemin-de-fer":
        return chemmy_engine_rate()
    game = get_game(game_id)
    rules = game.load_rules()
    table = Dealer(game, rules, Shoe(rules.shoe, SeededShuffler(1)))
    stake = rules.table.minimum
    wagers = {w: stake for w in rules.wager_ids} if hasattr(rules, "wager_ids") else None
    if wagers is None:
        wagers = {w: stake for w in game.wager_ids}
    decide = TableStrategy().play if game_id == "21-24-27" else None
    start = time.perf_counter()
    for _ in range(ENGINE_ROUNDS):
        table.play(wagers, decide)
    return ENGINE_ROUNDS / (time.perf_counter() - start)


def main() -> None:
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    cores = os.cpu_count() or 1
    print(f"compiled kernels through real seeded shoes; {cores} cores")
    print(f"{'game':12s} {'rounds':>13s} {'all cores':>14s} {'one core':>14s} "
          f"{'engine':>10s} {'kernel/engine':>14s}")  # fmt: skip
    games = sys.argv[2:] or list(ROUNDS)
    for game_id in games:
        rounds = ROUNDS[game_id]
        rules = get_game(game_id).load_rules()
        run(game_id, rules, 10_000, seed=0)  # load (or compile) the kernel
        n = int(rounds * scale)
        every = run(game_id, rules, n, seed=1, workers=cores)
        one = run(game_id, rules, max(n // 4, 1), seed=1, workers=1)
        rate_all = every.rounds / every.seconds
        rate_one = one.rounds / one.seconds
        engine = engine_rate(game_id)
        print(
            f"{game_id:12s} {n:>13,d} {rate_all:>12,.0f}/s {rate_one:>12,.0f}/s "
            f"{engine:>8,.0f}/s {rate_all / engine:>13,.0f}x"
        )


if __name__ == "__main__":
    main()
