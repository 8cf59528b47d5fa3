"""A result that several test modules need and that takes seconds to count (finnish27's
exact analysis from the real shoe), counted once per test run and shared between the
pytest-xdist workers through a file: the first worker that asks counts it while the
others wait on a lock, then they read what it wrote."""

from __future__ import annotations

import fcntl
import functools
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from cardroom.games import GameInfo
from cardroom.games.spec import Analysis, AnalysisAsk

T = TypeVar("T")

_KEPT: dict[str, object] = {}


def shared(request: pytest.FixtureRequest, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, once per run under ``name`` (kept in this process too)."""
    if name in _KEPT:
        return _KEPT[name]  # type: ignore[return-value]
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: nothing to share
        found = compute()
    else:
        # the run's folder, which both workers' own folders are in
        factory: pytest.TempPathFactory = request.config._tmp_path_factory  # type: ignore[attr-defined]
        path: Path = factory.getbasetemp().parent / f"shared-{name}.pickle"
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists():
                found = pickle.loads(path.read_bytes())
            else:
                found = compute()
                path.write_bytes(pickle.dumps(found))
    _KEPT[name] = found
    return found


def default_analysis(request: pytest.FixtureRequest, game: GameInfo) -> Analysis:
    """``game``'s exact analysis of its default rules, as ``cardroom analyze`` counts it
    (the Finnish games' from the real shoe take seconds each), once per run."""
    assert game.analyze is not None
    count = functools.partial(game.analyze, game.default_rules(), AnalysisAsk())
    return shared(request, f"analysis-{game.id}", count)
