"""How a simulation run is shown: Rich tables and the session plot (its JSON, which
needs no Rich, is :mod:`cardroom.terminal.simulation_json`)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

from rich.console import Group, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from cardroom.app.runner import RunResult
from cardroom.terminal.simulation_json import PERCENTILES, session_summary

__all__ = [
    "check_plotting",
    "progress_bar",
    "run_view",
    "session_plot",
]


def run_view(result: RunResult, exact: Mapping[str, Fraction], exact_note: str) -> RenderableType:
    rate = result.rounds / result.seconds if result.seconds else float("nan")
    head = Text(
        f"{result.game}: {result.rounds:,} rounds through {result.shoes:,} shoes, seed "
        f"{result.seed}, {result.workers} worker(s) ({result.backend}), {result.seconds:.2f} s "
        f"= {rate:,.0f} rounds/s"
    )
    outcomes = Table(title="Outcomes", title_justify="left")
    outcomes.add_column("outcome")
    outcomes.add_column("rounds", justify="right")
    outcomes.add_column("share", justify="right")
    for name, count in result.outcome_counts().items():
        outcomes.add_row(name, f"{count:,}", f"{count / result.rounds:.4%}")
    wagers = Table(
        title="Net result per unit staked (95% confidence interval)", title_justify="left"
    )
    for column in ("wager", "mean", "95% low", "95% high", "std dev", "exact", "z"):
        wagers.add_column(column, justify="left" if column == "wager" else "right")
    for i, wager in enumerate(result.wager_ids):
        f = result.wager(i, exact.get(wager))
        lo, hi = f.ci95
        wagers.add_row(
            wager,
            f"{f.mean:+.5f}",
            f"{lo:+.5f}",
            f"{hi:+.5f}",
            f"{f.std_dev:.4f}",
            "-" if f.exact is None else f"{float(f.exact):+.5f}",
            "-" if f.z is None else f"{f.z:+.2f}",
        )
    parts: list[RenderableType] = [head, outcomes, wagers]
    if exact:
        parts.append(Text("z: standard errors between the simulated mean and the exact value"))
    if exact_note:
        parts.append(Text(exact_note))
    if result.session_rounds and result.sessions.size:
        # a row per percentile and a column per wager: fits 80 columns with every wager
        sessions = Table(
            title=f"Sessions of {result.session_rounds:,} rounds: net result in stakes",
            title_justify="left",
        )
        sessions.add_column("")
        summaries = [session_summary(result, i) for i in range(len(result.wager_ids))]
        for wager in result.wager_ids:
            sessions.add_column(wager, justify="right")
        for p in PERCENTILES:
            sessions.add_row(f"p{p}", *(f"{s['percentiles'][str(p)]:+.1f}" for s in summaries))
        sessions.add_row("ahead", *(f"{s['ahead']:.1%}" for s in summaries))
        parts.append(sessions)
        parts.append(Text(f"{result.sessions.shape[0]:,} complete sessions"))
    return Group(*parts)


def progress_bar() -> Progress:
    """The bar shown at a terminal while a run plays: rounds done, rounds per second,
    time left; it goes when the run ends."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(show_speed=True),  # rounds per second
        TimeRemainingColumn(),
        transient=True,
    )


def check_plotting() -> None:
    """Refuse ``--plot`` at once (before a run) where Matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401  # lazy: Matplotlib (an optional extra)
    except ImportError:
        raise ValueError(
            "--plot: Matplotlib is not installed; install it with `pip install cardroom[plot]`"
        ) from None


def session_plot(result: RunResult, exact: Mapping[str, Fraction], path: Path) -> None:
    """Histograms of the session results, one panel per wager, with the exact
    expectation of a session marked where it is known."""
    check_plotting()
    import matplotlib  # lazy: Matplotlib (an optional extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: Matplotlib (an optional extra)

    wagers = result.wager_ids
    fig, axes = plt.subplots(len(wagers), 1, figsize=(8, 2.6 * len(wagers)), squeeze=False)
    for i, wager in enumerate(wagers):
        ax = axes[i][0]
        nets = result.session_nets(i)
        ax.hist(nets, bins=60, color="#4c72b0")
        if wager in exact:
            expected = float(exact[wager]) * result.session_rounds
            ax.axvline(expected, color="#c44e52", label=f"exact expectation {expected:+.2f}")
            ax.legend(loc="upper right")
        ax.set_title(f"{result.game} {wager}: {nets.size:,} sessions of {result.session_rounds:,}")
        ax.set_xlabel("net result of a session, in stakes")
        ax.set_ylabel("sessions")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
