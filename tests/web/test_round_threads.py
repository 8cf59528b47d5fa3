"""The house rounds' own threads (:mod:`cardroom.web.round_threads`): a bet's round is
dealt on one of them, the quick way and the framework's; no more rounds run at once
than there are threads; the caller's context goes with the work; the app's end stops
them."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient

from cardroom.web.round_threads import RoundThreads
from tests.web.conftest import Web

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")
T = TypeVar("T")


def on_a_loop_of_its_own(job: Coroutine[Any, Any, T]) -> T:
    """``job`` run to its end on an event loop of its own thread, as a server's would be
    (the test process may have a loop running on its own thread)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, job).result()


def test_a_bet_is_dealt_on_the_rounds_threads(web: Web, monkeypatch: pytest.MonkeyPatch) -> None:
    ann = web.person("Ann")
    services = web.app.state.services
    real = services.db.run
    where: list[str] = []

    def run(work: Any, **options: Any) -> Any:
        where.append(threading.current_thread().name)
        return real(work, **options)

    monkeypatch.setattr(services.db, "run", run)
    quick = ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
    assert quick.status_code == 201, quick.text
    assert where[-1].startswith("rounds")
    # a content type the quick way leaves to the framework's route: the same threads
    slow = ann.http.post(
        "/api/games/punto-banco/rounds",
        content=b'{"bets": {"player": "10"}}',
        headers={"X-CSRF-Token": ann.csrf, "Content-Type": "application/json; charset=utf-8"},
    )
    assert slow.status_code == 201, slow.text
    assert where[-1].startswith("rounds") and len(where) >= 2


def test_no_more_rounds_at_once_than_threads_and_the_context_goes_along() -> None:
    threads = RoundThreads(2)
    both = threading.Barrier(2, timeout=30)  # broken unless two run at once
    lock = threading.Lock()
    running = most = 0

    def work() -> tuple[str, str]:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        both.wait()
        with lock:
            running -= 1
        return threading.current_thread().name, WHO.get()

    async def six() -> list[tuple[str, str]]:
        WHO.set("Ann")
        return list(await asyncio.gather(*(threads.run(work) for _ in range(6))))

    try:
        done = on_a_loop_of_its_own(six())
    finally:
        threads.close()
    assert most == 2
    assert {who for _, who in done} == {"Ann"}
    assert len({name for name, _ in done}) == 2
    assert all(name.startswith("rounds") for name, _ in done)
    assert not threads.started


def test_the_apps_end_stops_its_round_threads(web: Web) -> None:
    rounds = web.app.state.services.rounds
    with TestClient(web.app) as client:
        made = client.post("/api/accounts", json={"username": "Bo", "password": "a good password"})
        csrf = made.json()["csrf_token"]
        bet = client.post(
            "/api/games/punto-banco/rounds",
            json={"bets": {"tie": "10"}},
            headers={"X-CSRF-Token": csrf},
        )
        assert bet.status_code == 201, bet.text
        assert rounds.started
    assert not rounds.started


def test_at_least_one_thread() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RoundThreads(0)
