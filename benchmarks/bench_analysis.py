"""Seconds per exact analysis and per solve (run on demand; prints, asserts nothing).

``python benchmarks/bench_analysis.py [--walk]`` (about two minutes): ``--walk``
also times the generic walk of the punto banco engine over a full 8-deck shoe,
the reference the fast counter is tested against (about half a minute).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from cardroom.core.cards import Deck
from cardroom.games.baccarat import PuntoBancoRound, baccarat27_rules, punto_banco_rules
from cardroom.games.baccarat.analysis import analyze_baccarat, effects_of_removal
from cardroom.games.chemin_de_fer.analysis import solve_infinite, solve_shoe
from cardroom.games.finnish.analysis import analyze_finnish27
from cardroom.games.finnish.comparison import strategy_comparison
from cardroom.games.finnish.twentyone_analysis import analyze_21_24_27, solve_21_24_27
from cardroom.games.walk import composition, exact


def timed(label: str, job: Callable[[], object], repeat: int = 3) -> None:
    """The first (cold: caches empty) and the best of the later runs (warm)."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        job()
        runs.append(time.perf_counter() - start)
    warm = f"{min(runs[1:]):8.4f} s warm" if len(runs) > 1 else ""
    print(f"{label:50s} {runs[0]:8.4f} s cold {warm}")


def main() -> None:
    print("exact analysis, one core")
    pb, b27 = punto_banco_rules(), baccarat27_rules()
    timed("analyze punto-banco, 8 decks", lambda: analyze_baccarat(pb, "punto-banco"))
    timed("analyze baccarat27, 8 decks", lambda: analyze_baccarat(b27, "baccarat27"))
    timed("analyze baccarat27, 6 decks", lambda: analyze_baccarat(b27, "baccarat27", 6))
    timed("effects of removal, baccarat27, 8 decks", lambda: effects_of_removal(b27, "baccarat27"))
    timed("chemin de fer, infinite deck", solve_infinite)
    timed("chemin de fer, 6 decks, banker sees his cards", lambda: solve_shoe(None, 6))
    timed("chemin de fer, 8 decks, banker sees his cards", lambda: solve_shoe(None, 8))
    print("Finnish games, cards drawn with replacement")
    timed("analyze 21-24-27, source's basic strategy", analyze_21_24_27)
    timed("solve 21-24-27 (optimal strategy)", solve_21_24_27)
    timed(
        "analyze 21-24-27, optimal strategy",
        lambda: analyze_21_24_27(hits=solve_21_24_27().hits, label="optimal"),
    )
    timed("analyze finnish27, every bonus", analyze_finnish27, repeat=2)
    timed(
        "strategy 21-24-27 (solve and three analyses)",
        lambda: strategy_comparison("21-24-27", None),
        repeat=1,
    )
    if "--walk" in sys.argv:
        counts = composition(Deck.shoe(8, 0))
        stakes = {"player": 10, "banker": 10, "tie": 10}
        timed(
            "generic engine walk, punto-banco, 8 decks",
            lambda: exact(lambda: PuntoBancoRound(pb, stakes), counts),
            repeat=1,
        )


if __name__ == "__main__":
    main()
