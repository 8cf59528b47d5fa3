"""finnish27 from freshly shuffled 6-deck shoes, through the engine (run on demand).

``python benchmarks/fresh_shoe_check.py SEED ROUNDS`` plays ROUNDS rounds, each
dealt from the top of its own freshly shuffled 324-card shoe ("off the top", the
situation the source's figures describe), with every wager at the table minimum.
It prints the outcome shares, the player wager's mean net return with its standard
error, and how often each bonus was paid.  The README's "6-deck simulation" column
comes from seeds 11 and 12 with 1,200,000 rounds each (about 4.5 minutes each on
one core).  It is the check that the exact figures with replacement differ from
the source because of the model, not the rules.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

import numpy as np

from cardroom.core.cards import Deck
from cardroom.games.finnish.finnish27 import Finnish27Round, Finnish27Rules


def main() -> None:
    seed, rounds = int(sys.argv[1]), int(sys.argv[2])
    rules = Finnish27Rules()
    shoe = Deck.shoe(rules.shoe.decks, rules.shoe.jokers_per_deck)
    stake = rules.table.minimum
    rng = np.random.default_rng(seed)
    outcomes: dict[str, int] = {}
    bonuses: dict[str | None, int] = {}
    total = Fraction(0)
    squares = Fraction(0)
    start = time.perf_counter()
    for _ in range(rounds):
        order = rng.permutation(len(shoe))
        rnd = Finnish27Round(rules, {"player": stake, "dealer": stake, "push": stake})
        dealt = 0
        while not rnd.is_complete:
            rnd.deal(shoe[order[dealt]])
            dealt += 1
        net = rnd.net["player"] / stake
        total += net
        squares += net * net
        outcomes[rnd.outcome or "?"] = outcomes.get(rnd.outcome or "?", 0) + 1
        bonuses[rnd.bonus_key] = bonuses.get(rnd.bonus_key, 0) + 1
    seconds = time.perf_counter() - start
    mean = total / rounds
    spread = float(squares / rounds - mean * mean) ** 0.5
    print(f"{rounds} rounds in {seconds:.1f} s ({rounds / seconds:,.0f} rounds/s), seed {seed}")
    for name, n in sorted(outcomes.items()):
        print(f"  {name:8s} {n / rounds:.4%}")
    error = spread / rounds**0.5
    print(f"player wager: mean net {float(mean):+.5f} per unit, standard error {error:.5f}")
    for key, n in sorted(bonuses.items(), key=lambda item: -item[1]):
        print(f"  bonus {key or '(none)':24s} {n:9d}  {n / rounds:.5%}")


if __name__ == "__main__":
    main()
