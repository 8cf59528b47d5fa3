"""The terminal keeps the limits a person set and their reality check: a bet past a
limit is refused with its one line and the table asks again; a reality check that is due
is shown as a prompt, acknowledged (and recorded) to play on, or the sitting ends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import delete, select, update
from typer.testing import CliRunner

from cardroom.app.limits import Limits
from cardroom.storage import Database
from cardroom.storage.schema import accounts, play_limits, reality_checks
from cardroom.terminal.cli import app

runner = CliRunner()


def play(bank: Path, input: str) -> str:
    result = runner.invoke(
        app,
        ["play", "punto-banco", "--bankroll-file", str(bank), "--delay", "0", "--seed", "5"],
        input=input,
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_a_limit_and_a_reality_check_at_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = tmp_path / "bankroll.sqlite3"
    play(bank, "q\n")  # the account is opened
    with Database.open(path=bank) as db:
        with db.read() as conn:
            [account] = conn.execute(select(accounts.c.id)).scalars().all()
        Limits(db).change(account, {"stake_day": Fraction(25)}, "test")
    out = play(bank, "b 10\nb 10\nb 10\nq\n")
    assert "your daily stake limit of 25 would be passed: 5 of it is left until" in out
    assert "Traceback" not in out
    # a reality check that has come due (the sitting's start not counted anew)
    monkeypatch.setattr(Limits, "begin_session", lambda self, account_id: None)
    with Database.open(path=bank) as db, db.write() as conn:
        conn.execute(
            update(accounts).values(
                session_started=datetime.now(UTC) - timedelta(minutes=75),
                reality_due=datetime.now(UTC) - timedelta(minutes=15),
            )
        )
        conn.execute(delete(play_limits))  # (a removal would wait a day)
    out = play(bank, "b 10\nn\n")
    assert "Reality check: you have played for 75 minutes this session and are" in out
    out = play(bank, "b 10\ny\nb 10\nq\n")
    assert "Reality check" in out and "(1 round played" in out
    with Database.open(path=bank) as db, db.read() as conn:
        assert len(conn.execute(select(reality_checks)).all()) == 1
