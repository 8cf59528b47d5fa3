"""The chemin de fer table when its database fails a step (a real server on a loopback
port, a SQLite file, and a trigger that makes every update of a round fail while it is
there): a person's decision is answered with an error, is not taken (neither in memory
nor in the database), the connection stays open and the same decision sent again is
taken; the table's own step (a seat played for after the time limit) is tried again
until the database takes it, and played once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from tests.web.browser import Server
from tests.web.chemmy_clients import Socket, Someone, answer, chemmy_server
from tests.web.test_chemmy_ws import records

FAIL = (
    "CREATE TRIGGER cardroom_test_fail BEFORE UPDATE ON rounds "
    "BEGIN SELECT RAISE(ABORT, 'injected: the disk is full'); END"
)


@pytest.fixture
def patient(tmp_path: Path) -> Iterator[Server]:
    yield from chemmy_server(tmp_path, time_limit=20)


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Server]:
    yield from chemmy_server(tmp_path, time_limit=2)


@contextmanager
def failing(db: Database) -> Iterator[None]:
    """While inside: every update of a round fails in the database."""
    with db.write() as conn:
        conn.exec_driver_sql(FAIL)
    try:
        yield
    finally:
        with db.write() as conn:
            conn.exec_driver_sql("DROP TRIGGER cardroom_test_fail")


def turn_in_a_coup(sock: Socket, wallet: Wallet, account_id: int) -> dict[str, Any]:
    """Answer until a turn of the person's comes in a coup saved in progress (a decision
    then updates the coup's round); that turn, unanswered."""
    give_up = time.monotonic() + 60
    while True:
        assert time.monotonic() < give_up, "no turn in a coup came"
        turn = sock.new_turn(sock.next())
        if turn is None:
            continue
        if wallet.rounds.unfinished_rounds(account_id):
            return turn
        sock.send(answer(turn))


def test_a_decision_the_database_fails_is_refused_and_not_taken(patient: Server) -> None:
    ann = Someone.register(patient)
    wallet = Wallet(patient.db)
    account = wallet.accounts.account(ann.name)
    assert account is not None
    ann.sit(2, "200")
    sock = ann.socket(2)
    turn = turn_in_a_coup(sock, wallet, account.id)
    [saved] = wallet.rounds.unfinished_rounds(account.id)
    with failing(patient.db):
        sock.send(answer(turn))
        refused = sock.until(lambda m: m["type"] == "error")
    assert refused["error"] == "the database could not save that, so nothing was done: try again"
    [still] = wallet.rounds.unfinished_rounds(account.id)
    assert still.state == saved.state  # nothing of it was written
    # the connection is open and the table still waits for that decision: sent again, taken
    sock.send(answer(turn))
    sent = 1 + sum(1 for d in saved.state["decisions"] if d["seat"] == 0)
    coup = int(saved.state["start"]["coup"])
    give_up = time.monotonic() + 60
    while coup not in records(patient, ann):  # play the coup out
        assert time.monotonic() < give_up, "the coup did not end"
        message = sock.next()
        assert message["type"] == "update", message
        if (more := sock.new_turn(message)) is not None:
            sock.send(answer(more))
            sent += 1
    record = records(patient, ann)[coup]
    made = [d for d in record.decisions if d.seat == 0]
    assert len(made) == sent and all(d.by == "person" for d in made)  # each taken once
    assert replay(record).same
    sock.close()
    wallet.books.audit(account.id)


def test_the_tables_own_step_is_tried_again_until_the_database_takes_it(
    quick: Server, caplog: pytest.LogCaptureFixture
) -> None:
    ann = Someone.register(quick)
    wallet = Wallet(quick.db)
    account = wallet.accounts.account(ann.name)
    assert account is not None
    ann.sit(2, "200")
    sock = ann.socket(2)
    turn_in_a_coup(sock, wallet, account.id)
    [saved] = wallet.rounds.unfinished_rounds(account.id)
    coup = int(saved.state["start"]["coup"])
    since = len(sock.messages)
    with failing(quick.db):  # Ann is silent: after 2 s the table plays for her, and fails
        give_up = time.monotonic() + 60
        while sum("the step is tried again" in r.getMessage() for r in caplog.records) < 2:
            assert time.monotonic() < give_up, "the table never tried its step"
            time.sleep(0.1)
        [still] = wallet.rounds.unfinished_rounds(account.id)
        assert still.state == saved.state
    sock.until(lambda m: any("time is up" in n for n in m.get("notices", [])), timeout=60)
    give_up = time.monotonic() + 60
    while coup not in records(quick, ann):
        assert time.monotonic() < give_up, "the coup did not end"
        sock.next()
    record: RoundRecord = records(quick, ann)[coup]
    assert replay(record).same
    defaults = [d for d in record.decisions if d.seat == 0 and d.by == "default"]
    assert defaults  # played for her once per turn, though the first tries failed
    notices = [n for m in sock.messages[since:] if m.get("type") == "update" for n in m["notices"]]
    assert sum("time is up" in n for n in notices) == len(defaults)
    sock.close()
    wallet.books.audit(account.id)
