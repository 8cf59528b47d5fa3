"""Work shared out to forked processes: results in order, errors raised, no worker left."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from cardroom.app.forked import can_fork, run_forked

pytestmark = pytest.mark.skipif(not can_fork(), reason="forked workers: Linux only")


def children() -> list[int]:
    """This process's child processes, alive or not yet reaped."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.append(int(entry.name))
    return found


def pid_and_square(i: int) -> tuple[int, int]:
    return os.getpid(), i * i


def test_results_come_in_order_from_several_workers_with_a_small_window() -> None:
    before = children()
    results = list(run_forked(pid_and_square, 50, workers=3, window=2))
    assert [square for _, square in results] == [i * i for i in range(50)]
    workers = {pid for pid, _ in results}
    assert os.getpid() not in workers and 1 <= len(workers) <= 3
    assert children() == before


def test_started_is_called_once_the_workers_have_work() -> None:
    calls: list[int] = []
    results = run_forked(lambda i: i, 3, workers=2, started=lambda: calls.append(len(children())))
    assert calls == []  # nothing forked before the first result is asked for
    assert list(results) == [0, 1, 2]
    assert len(calls) == 1 and calls[0] >= 1


def test_an_exception_in_a_worker_is_raised_here_and_every_worker_is_gone() -> None:
    before = children()

    def work(i: int) -> int:
        if i == 7:
            raise ValueError("rules: the shoe ran out")
        return i

    with pytest.raises(ValueError, match="the shoe ran out"):
        list(run_forked(work, 20, workers=2))
    assert children() == before


def test_an_exception_that_cannot_be_pickled_is_named() -> None:
    class Odd(Exception):
        def __init__(self) -> None:
            super().__init__("odd")
            self.lock = threading.Lock()  # (a lock cannot be pickled)

    def work(i: int) -> int:
        raise Odd

    with pytest.raises(RuntimeError, match="Odd: odd"):
        list(run_forked(work, 4, workers=2))


def test_a_worker_that_dies_is_an_error_not_a_wait() -> None:
    def work(i: int) -> int:
        if i == 3:
            os._exit(9)
        return i

    with pytest.raises(RuntimeError, match="stopped before its work was done"):
        list(run_forked(work, 10, workers=2))


def test_giving_up_early_stops_the_workers() -> None:
    before = children()
    results = run_forked(lambda i: i, 10**6, workers=2)
    assert [next(results) for _ in range(5)] == [0, 1, 2, 3, 4]
    results.close()
    assert children() == before
