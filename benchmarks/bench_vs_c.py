"""Whole ``cardroom simulate`` commands against plain C programs playing the same game.

``python benchmarks/bench_vs_c.py [--rounds N] [--repeat R] [--seed S] [--cardroom CMD] [--jit]
[GAME ...]`` (run on
demand; prints figures, asserts nothing).  GAME is any of punto-banco, finnish27 and
21-24-27 (default: all three).  For each game it:

- builds the C baseline in ``benchmarks/c/`` with ``gcc -O3 -march=native`` (one thread,
  xoshiro256**, Fisher-Yates with Lemire's unbiased bounded integers, the game's shoe, cut
  card and rules, no I/O in the loop; the Finnish games' rule tables are written here from
  cardroom's engine, as its kernels take them);
- builds the kernels ahead of time (:mod:`cardroom.app.runner_ahead`) unless ``--jit``
  is given, so that the command calls them instead of loading the kernels into Numba;
- runs the C program and ``cardroom simulate GAME --rounds N --seed S --json`` back to back,
  R times (after one unmeasured run of each that fills Numba's and the exact column's disk
  caches), and prints each one's median wall and processor seconds, and their ratios:
  *speed vs C* is C's wall seconds over the command's (the command on every core, its
  start-up included), *per core* is C's processor seconds over the command's;
- holds the C program's counts against cardroom's: each wager's mean from the C counts
  beside the exact value (``z``, standard errors between them), and each outcome's share
  beside the command's.

The machine's load average is printed before and after: on a shared machine compare the
ratios, which are measured pair by pair in one run, rather than the seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cardroom.app.runner import exact_means, kernel_for
from cardroom.app.runner_ahead import build_kernels
from cardroom.games import get_game
from cardroom.games.finnish.kernel import (
    Finnish27Kernel,
    TwentyOne2427Kernel,
    _initial_table,
    _settle_2124,
)

HERE = Path(__file__).resolve().parent
SOURCES = {"punto-banco": "punto_banco.c", "finnish27": "finnish27.c", "21-24-27": "twentyone.c"}
CARDROOM = Path(sys.executable).with_name("cardroom")


def build(game: str, out: Path) -> Path:
    """The C program of ``game``, compiled into ``out``."""
    binary = out / Path(SOURCES[game]).stem
    source = HERE / "c" / SOURCES[game]
    cmd = ["gcc", "-O3", "-march=native", "-Wall", "-o", str(binary), str(source)]
    subprocess.run(cmd, check=True)
    return binary


def _write(f: object, name: str, values: np.ndarray | list[int]) -> None:
    flat = np.asarray(values, dtype=np.int64).ravel()
    f.write(f"{name} {flat.size}\n{' '.join(map(str, flat.tolist()))}\n")  # type: ignore[attr-defined]


def write_tables(game: str, path: Path) -> list[str]:
    """The rule tables the C program of a Finnish game reads (none for punto banco), from
    cardroom's engine; returns the extra arguments of the C program."""
    rules = get_game(game).load_rules()
    if game == "punto-banco":
        return []
    with path.open("w") as f:
        if game == "finnish27":
            kernel = Finnish27Kernel(rules)  # type: ignore[arg-type]
            t = kernel.tables()
            r = kernel.rules
            equal27 = ("player", "dealer", "push").index(r.equal_initial_27s)
            if r.jokers_wild or r.charlie or r.bonus.bugs or t["card27"].any():
                raise SystemExit("finnish27: the C program plays the default rules only")
            win27 = int(r.both_27 == "by_rules")
            scalars = [kernel.bonuses, equal27, int(r.player_initial_27_wins), win27,
                       r.player_loses_over, r.bonus.poker_margin]  # fmt: skip
            _write(f, "scalars", scalars)
            for name in ("initial", "hits", "settle", "poker", "place", "poker_ok", "bonus2",
                         "bonus3"):  # fmt: skip
                _write(f, name, t[name])
        else:
            k = TwentyOne2427Kernel.build(rules)  # type: ignore[arg-type]
            r2 = k.rules
            _write(f, "scalars", [("player", "dealer", "push").index(r2.both_initial_27s)])
            _write(f, "initial", _initial_table(r2.initial_27s, r2.joanca_joker_second))
            _write(f, "hits", k.decisions)
            _write(f, "settle", _settle_2124(r2))
    return [str(path)]


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall and processor seconds (the process and its children) of one command, and its
    output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def check(game: str, c_out: dict[str, object], ours: dict[str, object]) -> list[str]:
    """The C program's counts beside cardroom's: each wager's mean against the exact
    value, each outcome's share against the command's."""
    rules = get_game(game).load_rules()
    kernel = kernel_for(game, rules)
    cells = np.array(c_out["cells"], dtype=np.int64)
    n = int(cells.sum())
    nets = kernel.cell_nets().astype(np.float64) / kernel.unit
    exact = exact_means(game, rules)
    lines = []
    for w, wager in enumerate(kernel.wager_ids):
        mean = float(nets[w] @ cells) / n
        std = math.sqrt(max(float((nets[w] ** 2) @ cells) / n - mean * mean, 0.0))
        z = (mean - float(exact[wager])) / (std / math.sqrt(n))
        lines.append(f"  {wager}: C mean {mean:+.6f}, exact {float(exact[wager]):+.6f}, z {z:+.2f}")
    outcome_of = kernel.cell_outcome()  # type: ignore[attr-defined]
    counts = np.bincount(outcome_of, weights=cells, minlength=len(kernel.outcome_names))
    theirs = ours["outcomes"]
    m = int(ours["rounds"])  # type: ignore[call-overload]
    for o, name in enumerate(kernel.outcome_names):
        p, q = counts[o] / n, theirs[name] / m  # type: ignore[index]
        pooled = (counts[o] + theirs[name]) / (n + m)  # type: ignore[index]
        se = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m))
        z = (p - q) / se if se else 0.0
        lines.append(f"  {name}: C {p:.6%}, cardroom {q:.6%}, z {z:+.2f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(SOURCES))
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cardroom", default=str(CARDROOM), help="the cardroom command to time")
    parser.add_argument(
        "--jit",
        action="store_true",
        help="do not build the kernels ahead of time first (runs use the builds there are)",
    )
    args = parser.parse_args()
    if not shutil.which("gcc"):
        raise SystemExit("gcc: not found")
    if not args.jit:
        start = time.perf_counter()
        built = build_kernels()
        print(f"kernels built ahead of time: {len(built)} in {time.perf_counter() - start:.0f} s")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{args.rounds:,} rounds, seed {args.seed}, {args.repeat} pairs after a warm-up")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for game in args.games:
            binary = build(game, out)
            c_cmd = [str(binary), str(args.rounds), str(args.seed)]
            c_cmd += write_tables(game, out / f"{game}.tables")
            ours_cmd = [args.cardroom, "simulate", game, "--rounds", str(args.rounds),
                        "--seed", str(args.seed), "--json"]  # fmt: skip
            timed([*c_cmd[:1], "1000", *c_cmd[2:]])
            timed([*ours_cmd[:4], "1000", *ours_cmd[5:]])  # fills the disk caches
            c_runs, our_runs = [], []
            for _ in range(args.repeat):
                c_runs.append(timed(c_cmd))
                our_runs.append(timed(ours_cmd))
            c_wall = statistics.median(r[0] for r in c_runs)
            c_cpu = statistics.median(r[1] for r in c_runs)
            o_wall = statistics.median(r[0] for r in our_runs)
            o_cpu = statistics.median(r[1] for r in our_runs)
            speed = statistics.median(c[0] / o[0] for c, o in zip(c_runs, our_runs, strict=True))
            core = statistics.median(c[1] / o[1] for c, o in zip(c_runs, our_runs, strict=True))
            print(f"{game}:")
            print(f"  C (one thread): {c_wall:.2f} s wall, {c_cpu:.2f} s processor")
            print(f"  cardroom simulate: {o_wall:.2f} s wall, {o_cpu:.2f} s processor")
            print(f"  speed vs C: {speed:.2f}x; per core: {core:.2f}")
            c_out = json.loads(c_runs[-1][2])
            ours = json.loads(our_runs[-1][2])
            print("\n".join(check(game, c_out, ours)))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
