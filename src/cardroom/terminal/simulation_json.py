"""A simulation run as JSON (``cardroom simulate --json``): without Rich, which the
parent process of a run would otherwise import while its workers deal."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from cardroom.analysis.report import fraction_text
from cardroom.app.runner import RunResult

__all__ = ["PERCENTILES", "run_json", "session_summary"]

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


def session_summary(result: RunResult, index: int) -> dict[str, Any]:
    """Percentiles of a session's net result (units of stake) and the chance of
    finishing ahead, even or behind."""
    nets = result.session_nets(index)
    return {
        "sessions": int(nets.size),
        "rounds_per_session": result.session_rounds,
        "percentiles": {str(p): float(np.percentile(nets, p)) for p in PERCENTILES},
        "mean": float(nets.mean()),
        "ahead": float((nets > 0).mean()),
        "even": float((nets == 0).mean()),
        "behind": float((nets < 0).mean()),
    }


def run_json(result: RunResult, exact: Mapping[str, Fraction]) -> dict[str, Any]:
    wagers: dict[str, Any] = {}
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, exact.get(wager))
        entry: dict[str, Any] = {
            "mean": figures.mean,
            "ci95": list(figures.ci95),
            "std_dev": figures.std_dev,
            "std_error": figures.std_error,
        }
        if figures.exact is not None:
            entry["exact"] = fraction_text(figures.exact)
            entry["exact_decimal"] = float(figures.exact)
            entry["z"] = figures.z
        if result.session_rounds and result.sessions.size:
            entry["sessions"] = session_summary(result, i)
        wagers[wager] = entry
    return {
        "game": result.game,
        "rounds": result.rounds,
        "seed": result.seed,
        "seconds": result.seconds,
        "rounds_per_second": result.rounds / result.seconds if result.seconds else None,
        "workers": result.workers,
        "backend": result.backend,
        "shoes": result.shoes,
        "outcomes": result.outcome_counts(),
        "wagers": wagers,
    }
