"""The learning curve of docs/gym.md: a tabular Q-learner on ``cardroom/TwentyOne2427-v0``
against the exact optimum.

Each seed's learner (:class:`cardroom.gym.tabular.QLearner`, keyed on the observation's
``"totals"``, exploring uniformly, the test's learner) trains on the standard game; at
checkpoints spaced evenly on a log scale (four a decade) its greedy strategy's exact
return is counted from the real shoe by cardroom's own analysis
(:func:`cardroom.games.finnish.gym.exact_return`).  The plot sets them against the
optimal table's exact return (``cardroom strategy 21-24-27``) and the best play in the
real shoe (each decision on the cards seen), and marks the test's episodes and bound.
It prints every figure as a table, and writes the plot with the date and the commit.

Run: ``python scripts/gym_curve.py`` (about 3 minutes of CPU a seed and a million
episodes; ``--workers`` runs the seeds in parallel).
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium

import cardroom.gym  # noqa: F401  (registers the environments)
from cardroom.games.finnish.gym import ACTIONS, exact_return, optimal_policy
from cardroom.games.finnish.shoe import solve_21_24_27_shoe
from cardroom.gym.tabular import QLearner

ID = "cardroom/TwentyOne2427-v0"
#: the learner test's episodes and distance (tests/gym/test_twentyone_24_27.py)
TEST_EPISODES = 20_000
TEST_DISTANCE = 0.025


def key(observation: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(v) for v in observation["totals"])


def checkpoints(last: int, first: int = 1000, per_decade: int = 4) -> list[int]:
    """Episode counts from ``first`` to ``last``, evenly spaced on a log scale."""
    points, k = [], 0
    while (n := round(first * 10 ** (k / per_decade))) < last:
        points.append(n)
        k += 1
    return [*points, last]


def curve(seed: int, last: int) -> list[tuple[int, float]]:
    """One seed's learner: its greedy strategy's exact return at each checkpoint."""
    env = gymnasium.make(ID)
    learner = QLearner(len(ACTIONS), key=key, seed=seed)
    found = []
    for point in checkpoints(last):
        learner.train(env, point - learner.episodes, seed=seed if not learner.episodes else None)
        found.append((point, float(exact_return(lambda totals: learner.greedy(totals)))))
        print(f"seed {seed}: {point} episodes, {found[-1][1]:+.6f}", file=sys.stderr, flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1_000_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("docs/gym-curve.png"))
    args = parser.parse_args()

    best = optimal_policy()
    optimum = float(exact_return(best.__getitem__))
    composition = float(solve_21_24_27_shoe().composition.wagers["player"].expected)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        jobs = [pool.submit(curve, seed, args.episodes) for seed in range(args.seeds)]
        curves = [job.result() for job in jobs]

    print(f"optimal table (cardroom strategy 21-24-27): {optimum:+.6%}")
    print(f"best play in the real shoe (on the cards seen): {composition:+.6%}")
    print("| episodes | " + " | ".join(f"seed {s}" for s in range(args.seeds)) + " |")
    print("|---:|" + "---:|" * args.seeds)
    for row in zip(*curves, strict=True):
        cells = " | ".join(f"{value:+.3%} ({optimum - value:.3%})" for _, value in row)
        print(f"| {row[0][0]:,} | {cells} |")

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    plot(curves, optimum, composition, args.out, f"{datetime.date.today()}, commit {commit}")
    print(f"wrote {args.out}")


def plot(
    curves: list[list[tuple[int, float]]],
    optimum: float,
    composition: float,
    out: Path,
    stamp: str,
) -> None:
    import matplotlib  # lazy: Matplotlib (only this script plots)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: Matplotlib

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4), layout="constrained")
    for seed, found in enumerate(curves):
        episodes = [n for n, _ in found]
        left.plot(episodes, [100 * v for _, v in found], marker="o", ms=3, label=f"seed {seed}")
        right.plot(episodes, [100 * (optimum - v) for _, v in found], marker="o", ms=3)
    left.axhline(100 * optimum, color="black", lw=1, label="optimal table (exact)")
    left.axhline(
        100 * (optimum - TEST_DISTANCE), color="grey", ls="--", lw=1, label="the test's bound"
    )
    for axes in (left, right):
        axes.set_xscale("log")
        axes.axvline(TEST_EPISODES, color="grey", ls=":", lw=1)
        axes.set_xlabel("episodes learnt from")
        axes.grid(alpha=0.3)
    lowest = min(value for found in curves for _, value in found)
    left.set_ylim(100 * min(lowest, optimum - TEST_DISTANCE) - 0.5, 100 * optimum + 0.5)
    left.set_ylabel("greedy strategy's exact return, % of the stake")
    left.set_title("Q-learning on cardroom/TwentyOne2427-v0")
    left.legend(loc="lower right", fontsize=8)
    right.set_yscale("log")
    right.set_ylabel("below the optimal table, percentage points")
    right.set_title("distance to the optimum (the test's episodes dotted)")
    fig.text(
        1.0,
        -0.01,
        f"exact returns from the real 324-card shoe; best play on the cards seen "
        f"{100 * composition:+.4f}%; {stamp}",
        ha="right",
        va="top",
        fontsize=7,
        color="grey",
    )
    fig.savefig(out, dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    main()
