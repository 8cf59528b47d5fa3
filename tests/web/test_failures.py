"""When the database fails in the middle of a round: nothing is half done.

A database held by another program for longer than the busy timeout, a failure that
passes (tried again), a failure that does not: each request is one transaction, so the
person is told 503 in one line and the round, the stake and the table are as they were,
or the round is dealt once.  Every test ends with the audit of the books and rounds."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import exc, func, select

from cardroom.app.tables.stored import StoredTables
from cardroom.storage import Database
from cardroom.storage.schema import house_tables, ledger, rounds
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.conftest import assert_books_and_rounds
from tests.web.conftest import Web, cheap_sessions
from tests.web.test_api import play_until

F = Fraction


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Web]:
    """The web table on an SQLite file whose writers wait at most half a second."""
    with Database.open(path=tmp_path / "q.sqlite3", busy_timeout=0.5) as db:
        edges = HouseEdges(analyser_means, in_process=True)
        sessions = cheap_sessions(db)
        yield Web(create_app(db, house_edges=edges, sessions=sessions), db, edges, sessions)
        edges.close()
        assert_books_and_rounds(db)


def counts(db: Database) -> tuple[int, int]:
    with db.read() as conn:
        return (
            int(conn.execute(select(func.count()).select_from(rounds)).scalar_one()),
            int(conn.execute(select(func.count()).select_from(ledger)).scalar_one()),
        )


def test_a_database_locked_longer_than_the_busy_timeout_leaves_nothing_stuck(
    quick: Web, tmp_path: Path
) -> None:
    ann = quick.person("Ann")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    before = (ann.balance(), counts(quick.db))
    locked, release = threading.Event(), threading.Event()

    def another_program() -> None:  # holds the write lock for as long as it likes
        conn = sqlite3.connect(tmp_path / "q.sqlite3")
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        release.wait(60)
        conn.rollback()
        conn.close()

    holder = threading.Thread(target=another_program)
    holder.start()
    try:
        locked.wait(10)
        bet = ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
        act = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"})
        for answer in (bet, act):
            assert answer.status_code == 503
            assert answer.json() == {"error": "the database is busy or unavailable: try again"}
    finally:
        release.set()
        holder.join()
    assert (ann.balance(), counts(quick.db)) == before  # nothing of either was written
    again = ann.http.get(f"/api/rounds/{waiting['id']}").json()
    assert again["state"] == "awaiting_action" and again["legal_actions"]
    done = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"}).json()
    while done["state"] == "awaiting_action":
        done = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"}).json()
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}}).status_code == 201


def _failing_once(monkeypatch: pytest.MonkeyPatch, error: Exception, times: int) -> list[int]:
    """Make writing the table's row fail ``times`` times, after the round and its money
    were written in the same transaction."""
    real = StoredTables._write
    calls: list[int] = []

    def write(self: StoredTables, *args: Any) -> None:
        calls.append(1)
        if len(calls) <= times:
            raise error
        real(self, *args)

    monkeypatch.setattr(StoredTables, "_write", write)
    return calls


def deadlock() -> exc.OperationalError:
    class Deadlock(Exception):
        sqlstate = "40P01"

    return exc.OperationalError("UPDATE house_tables ...", {}, Deadlock("deadlock detected"))


def test_a_failure_that_passes_is_tried_again_and_the_round_dealt_once(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = web.person("Ann")
    calls = _failing_once(monkeypatch, deadlock(), times=1)
    tried = web.db.retries
    response = ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
    assert response.status_code == 201, response.text
    assert len(calls) == 2 and web.db.retries == tried + 1
    assert counts(web.db)[0] == 1  # one round, not two
    assert ann.balance() == 1000 + F(response.json()["total_net"])


@pytest.mark.parametrize("error", ["deadlock", "other"])
def test_a_failure_in_mid_round_changes_nothing(
    web: Web, monkeypatch: pytest.MonkeyPatch, error: str
) -> None:
    ann = web.person("Ann")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    before = (ann.balance(), counts(web.db))
    with web.db.read() as conn:
        table = conn.execute(select(house_tables)).all()
    failure = (
        deadlock() if error == "deadlock" else exc.OperationalError("x", {}, Exception("gone"))
    )
    _failing_once(monkeypatch, failure, times=10)
    bet = ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
    act = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"})
    assert bet.status_code == act.status_code == 503
    assert (ann.balance(), counts(web.db)) == before
    with web.db.read() as conn:
        assert conn.execute(select(house_tables)).all() == table
    monkeypatch.undo()
    again = ann.http.get(f"/api/rounds/{waiting['id']}").json()
    assert again["state"] == "awaiting_action" and again["events"] == waiting["events"]
    done = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"})
    assert done.status_code == 200
