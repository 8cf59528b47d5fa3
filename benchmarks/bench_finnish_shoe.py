"""Seconds per exact finite-shoe analysis of the Finnish games, and where they go.

``python benchmarks/bench_finnish_shoe.py [--eor] [--cold]`` (run on demand; prints,
asserts nothing):

* each analysis twice in this process: the first run loads the compiled kernels
  (or compiles them, about a minute, if Numba's cache is empty), the second is
  what an analysis costs once they are loaded;
* finnish27's phases, one at a time: the deal and the hands' tables, the dealer's
  hands and the player's sub-multisets, the bonus's suit counts, the dealer's
  tables G and the sweeps of the player's hands (these two run on every core in
  the analysis; here each is timed alone, on one core);
* ``--eor`` the effects of removal (fifteen analyses each);
* ``--cold`` compiling from an empty cache, in a fresh process;
* ``--options`` finnish27 with every bonus under each of the rule options (issue 21's
  target: at most 10 s each, kernels loaded).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction

from cardroom.games.finnish.finnish27 import BonusTable, Finnish27Rules
from cardroom.games.finnish.shoe import (
    analyze_21_24_27_shoe,
    analyze_finnish27_shoe,
    finnish27_effects_of_removal,
    solve_21_24_27_shoe,
    strategy_comparison_shoe,
    twentyone_effects_of_removal,
)
from cardroom.games.finnish.shoe_count import Sweep, count_rounds, passes
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.finnish.shoe_finnish27 import Finnish27Bonus, finnish27_shape
from cardroom.games.finnish.shoe_hands import prepare

# the counts are timed, not the disk cache's copies of them (the commands run from here
# inherit it too)
os.environ["CARDROOM_NO_CACHE"] = "1"


def timed(label: str, job: Callable[[], object], repeat: int = 2) -> None:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        job()
        runs.append(time.perf_counter() - start)
    later = f"{min(runs[1:]):7.1f} s loaded" if len(runs) > 1 else ""
    print(f"{label:58s} {runs[0]:7.1f} s first {later}", flush=True)


def phases(rules: Finnish27Rules | None = None) -> None:
    """finnish27's analysis step by step (kernels loaded)."""
    rules = rules or Finnish27Rules()
    shoe = ShoeMakeup.of_rules(rules.shoe)
    clock = time.perf_counter()

    def lap(label: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        print(f"  {label:56s} {now - clock:7.2f} s", flush=True)
        clock = now

    prepared = prepare(finnish27_shape(rules, rules.strategy.hits), shoe)
    lap("deal, player's and dealer's hand tables")
    sweep = Sweep.build(prepared)
    lap("dealer's whole hands, player's sub-multisets")
    bonus = Finnish27Bonus(prepared, poker=rules.bonus)
    lap("bonus: poker categories with suits from the shoe")
    chosen = passes(prepared, bonus.group)
    tables = [sweep.dealer_table(c) for c in chosen]
    lap(f"dealer's tables G ({len(chosen)} passes, one core)")
    terms = sum(len(t[2]) for t in tables)
    print(f"  {'':56s} {terms:,} entries of G")
    count_rounds(sweep, bonus, bonus.keys, workers=1)
    lap("every pass, G and the sweep of the player's hands (one core)")
    count_rounds(sweep, bonus, bonus.keys)
    lap(f"the same on {os.cpu_count()} threads")
    hands = len(sweep.player.counts)
    subs = len(sweep.player.sub_id)
    print(f"  {hands:,} finished player hands, {subs:,} (hand, sub-multiset) pairs;")
    bits = prepared.denominator.bit_length()
    print(f"  {prepared.modulus.lanes} primes for counts of {bits} bits")


def cold() -> None:
    """Compile every kernel from an empty cache, in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        code = (
            "import time; t = time.perf_counter();"
            "from cardroom.games.finnish.shoe import analyze_finnish27_shoe, "
            "solve_21_24_27_shoe; analyze_finnish27_shoe(); solve_21_24_27_shoe();"
            "print(f'{time.perf_counter() - t:.1f}')"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        print(f"{'finnish27 and 21-24-27 solved, from an empty cache':58s} {out.stdout.strip()} s")


#: each rule option at a value other than its default (finnish27, every bonus)
OPTIONS: dict[str, Finnish27Rules] = {
    "equal distance to the player": Finnish27Rules(equal_distance="player"),
    "player over 27 loses": Finnish27Rules(player_over="loses"),
    "dealer over 27: dealer wins if closer": Finnish27Rules(dealer_over="dealer_wins_if_closer"),
    "both over 27: push": Finnish27Rules(both_over="push"),
    "dealer's 28 wins": Finnish27Rules(dealer_28="dealer_wins"),
    "both 27: stalemate": Finnish27Rules(both_27="stalemate"),
    "fee of 1 per 100": Finnish27Rules(fee_per_100=Fraction(1)),
    "no Jo Jo, player's initial 27 first, Joanca 3:1": Finnish27Rules(
        jo_jo_27=False, player_initial_27_wins=True, bonus=BonusTable(joanca=Fraction(3))
    ),
    "Jo Jo only, pair and Jo Jo flat": Finnish27Rules(
        ace_king_27=False,
        joanca_27=False,
        bonus=BonusTable(flat=("pair", "jo_jo"), pair=Fraction(2)),
    ),
    "a Joanca only with its Joker second": Finnish27Rules(joanca_joker_second=True),
    "poker award from two pair, on 27s only": Finnish27Rules(
        bonus=BonusTable(poker_minimum="two_pair", poker_hands="27")
    ),
    "no initial 27 at all": Finnish27Rules(jo_jo_27=False, ace_king_27=False, joanca_27=False),
    "Jokers as bugs in the poker award": Finnish27Rules(bonus=BonusTable(poker_jokers="bug")),
    "poker categories in a designer's order (five below the flush)": Finnish27Rules(
        bonus=BonusTable(
            poker_order=(
                "pair",
                "two_pair",
                "three_of_a_kind",
                "flush",
                "straight",
                "four_of_a_kind",
                "five_of_a_kind",
                "full_house",
                "straight_flush",
            )
        )
    ),
    "27s of six to nine cards paid": Finnish27Rules(
        bonus=BonusTable(
            six_card_27=Fraction(5),
            seven_card_27=Fraction(10),
            eight_card_27=Fraction(25),
            nine_card_27=Fraction(50),
        )
    ),
    "Jokers wild anywhere": Finnish27Rules(jokers_wild=True),
    "a Charlie of nine cards": Finnish27Rules(charlie=9),
    "Jokers wild and a Charlie of seven cards": Finnish27Rules(jokers_wild=True, charlie=7),
}


def main() -> None:
    print(f"exact finite-shoe analyses, {os.cpu_count()} cores")
    timed("analyze finnish27, 6 decks, every bonus", analyze_finnish27_shoe)
    timed("analyze 21-24-27, source's table", analyze_21_24_27_shoe)
    timed("solve 21-24-27 (best table, composition-dependent)", solve_21_24_27_shoe)
    timed("strategy 21-24-27 (solve and the source's table)", strategy_comparison_shoe, 1)
    print("finnish27, phase by phase (kernels loaded):")
    phases()
    if "--eor" in sys.argv:
        timed("effects of removal, 21-24-27", twentyone_effects_of_removal, 1)
        timed("effects of removal, finnish27", finnish27_effects_of_removal, 1)
    if "--cold" in sys.argv:
        cold()
    if "--options" in sys.argv:
        print("finnish27 with every bonus, one rule option changed (kernels loaded):")
        for label, rules in OPTIONS.items():
            timed(f"  {label}", lambda rules=rules: analyze_finnish27_shoe(rules), 1)


if __name__ == "__main__":
    main()
