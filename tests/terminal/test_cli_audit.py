"""``cardroom audit``: the books of every account and every round in progress, checked
on a real database file; each problem named on a line of its own, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner, Result

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import accounts, ledger, rounds
from cardroom.terminal.cli import app
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.web.conftest import Web, cheap_sessions
from tests.web.test_api import play_until

runner = CliRunner()


def audit(path: Path) -> Result:
    return runner.invoke(app, ["audit", "--bankroll-file", str(path)])


@pytest.fixture
def played(tmp_path: Path) -> tuple[Path, int]:
    """A database where Ann played some rounds on the web and has one waiting for her."""
    path = tmp_path / "audit.sqlite3"
    with Database.open(path=path) as db:
        edges = HouseEdges(analyser_means, in_process=True)
        web = Web(
            create_app(db, house_edges=edges, sessions=cheap_sessions(db)),
            db,
            edges,
            cheap_sessions(db),
        )
        ann = web.person("Ann")
        for _ in range(5):
            ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
        waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
        edges.close()
    return path, int(waiting["id"])


def test_books_that_add_up_and_a_round_waiting_for_a_decision(played: tuple[Path, int]) -> None:
    path, _ = played
    result = audit(path)
    assert result.exit_code == 0, result.output
    assert "1 account, 1 round in progress" in result.output
    assert "the books add up and every round in progress waits for a decision" in result.output


def test_a_balance_changed_behind_the_ledger_is_named(played: tuple[Path, int]) -> None:
    path, _ = played
    with Database.open(path=path) as db, db.write() as conn:
        conn.execute(update(accounts).values(balance=accounts.c.balance + 100))
    result = audit(path)
    assert result.exit_code == 1
    assert "the books of account 1 (Ann) do not add up: its balance is" in result.output


def test_the_first_wrong_ledger_row_is_named(played: tuple[Path, int]) -> None:
    path, _ = played
    with Database.open(path=path) as db, db.write() as conn:
        query = select(ledger.c.id).order_by(ledger.c.id).offset(2).limit(1)
        third = conn.execute(query).scalar_one()
        conn.execute(update(ledger).where(ledger.c.id == third).values(balance_after=1))
    result = audit(path)
    assert result.exit_code == 1
    assert f"ledger row {third} has 0.01 after" in result.output


def test_a_round_that_waits_for_nothing_is_named(played: tuple[Path, int]) -> None:
    """A round in progress whose saved decisions end it (settled nowhere): its stakes
    would be held for ever.  The round path cannot leave one; the audit would find it."""
    path, round_id = played
    with Database.open(path=path) as db:
        stored = Wallet(db).rounds.round(round_id)
        state = dict(stored.state or {})
        state["decisions"] = [{"action": "stand", "by": "person"}] * 9
        with db.write() as conn:
            conn.execute(
                update(rounds).where(rounds.c.id == round_id).values(state=json.dumps(state))
            )
    result = audit(path)
    assert result.exit_code == 1
    assert f"round {round_id} (21-24-27, account 1) is in progress but waits for no decision" in (
        result.output.replace("\n", " ")
    )


def test_a_database_that_is_not_there(tmp_path: Path) -> None:
    result = audit(tmp_path / "none.sqlite3")
    assert result.exit_code == 2 and "there is no database at" in result.output
