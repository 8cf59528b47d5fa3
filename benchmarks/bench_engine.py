"""How fast the plain engines play: rounds per second through a real shoe.

Run on demand (``make bench`` or ``python benchmarks/bench_engine.py [ROUNDS]``);
it prints figures and asserts nothing.  These are the baselines the compiled
simulation kernels of later work are compared against.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import GAMES, get_game
from cardroom.games.base import Action, Round
from cardroom.games.dealing import Dealer
from cardroom.games.finnish.twentyone_24_27 import TableStrategy, TwentyOne2427Round

BASIC = TableStrategy()


def decide(rnd: Round) -> Action:
    assert isinstance(rnd, TwentyOne2427Round)
    return BASIC.play(rnd)


def bench(game_id: str, rounds: int) -> None:
    game = get_game(game_id)
    rules = game.load_rules()
    table = Dealer(game, rules, Shoe(rules.shoe, SeededShuffler(2026)))
    wagers = {w: 10 for w in game.wager_ids}
    outcomes: Counter[str] = Counter()
    net: Counter[str] = Counter()
    start = time.perf_counter()
    for _ in range(rounds):
        rnd = table.play(wagers, decide)
        outcomes[rnd.outcome or "?"] += 1
        for wager, value in rnd.net.items():
            net[wager] += value
    seconds = time.perf_counter() - start
    shares = ", ".join(f"{k} {v / rounds:.4f}" for k, v in sorted(outcomes.items()))
    returns = ", ".join(f"{k} {float(v) / rounds / 10:+.4f}" for k, v in sorted(net.items()))
    rate = rounds / seconds
    print(f"{game_id:10s} {rounds:>8,d} rounds in {seconds:6.2f} s = {rate:>8,.0f} rounds/s")
    print(f"{'':10s} outcomes: {shares}; return per unit: {returns}")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    print(f"plain engine, one core, seeded shoe, {rounds:,} rounds per game")
    for game_id in GAMES:
        bench(game_id, rounds)


if __name__ == "__main__":
    main()
