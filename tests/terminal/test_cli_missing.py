"""Commands that read the room's database refuse one that is not there (they made an
empty database and reported on it: "the books add up"), and options that do not apply
or cannot be meant are refused in one line, exit 2, before anything is done."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardroom.terminal.cli import app

runner = CliRunner()


def one_line_error(args: list[str], words: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    [line] = result.output.strip().splitlines()
    assert line.startswith("error:") and words in line, (args, result.output)


@pytest.mark.parametrize(
    "args",
    [
        ["audit"],
        ["operator", "list"],
        ["operator", "log", "--since", "2020-01-01"],
        ["operator", "remove", "Olga", "--reason", "left"],
        ["report", "floor", "--from", "2020-01-01", "--to", "2030-01-01"],
    ],
    ids=["audit", "operator list", "operator log", "operator remove", "report floor"],
)
def test_a_database_that_is_not_there_is_not_made(tmp_path: Path, args: list[str]) -> None:
    missing = tmp_path / "none.sqlite3"
    extra = ["--out", str(tmp_path / "floor")] if args[0] == "report" else []
    one_line_error([*args, *extra, "--db", f"sqlite:///{missing}"], "there is no database")
    assert sorted(tmp_path.iterdir()) == []  # no database, no report's folder


def test_options_that_cannot_apply_are_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    floor = ["report", "floor", "--from", "2020-01-01", "--to", "2030-01-01", "--db", db]
    one_line_error([*floor, "--rules", str(tmp_path / "none.toml")], "--rules and --eor")
    one_line_error([*floor, "--eor"], "--rules and --eor")
    reversed_log = ["operator", "log", "--since", "2030-01-01", "--until", "2020-01-01"]
    one_line_error([*reversed_log, "--db", db], "--until comes before --since")
    bank = str(tmp_path / "bank.sqlite3")
    for buy_in in ("0", "5"):
        one_line_error(
            ["play", "chemin-de-fer", "--buy-in", buy_in, "--bankroll-file", bank],
            "--buy-in: at least the table minimum of 10",
        )
    assert not Path(bank).exists()


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1:1", "nothing answers at 127.0.0.1:1 (connection refused)"),
        ("nowhere", "give the Ray cluster as HOST:PORT"),
        ("ray://127.0.0.1:99999", "give the Ray cluster as HOST:PORT"),
    ],
)
def test_a_ray_cluster_nothing_answers_on_is_one_line_at_once(address: str, words: str) -> None:
    """(Ray itself went on trying for minutes, and past a first interrupt.)"""
    args = ["simulate", "punto-banco", "--rounds", "1000", "--workers", "1", "--backend", "ray"]
    one_line_error([*args, "--address", address], f"--address: {words}")


def test_a_balance_changed_by_hand_into_text_is_one_line(tmp_path: Path) -> None:
    bank = tmp_path / "bank.sqlite3"
    assert runner.invoke(app, ["bankroll", "--bankroll-file", str(bank)]).exit_code == 0
    with sqlite3.connect(bank) as conn:
        conn.execute("UPDATE accounts SET balance = 'abc'")
    for command in ("bankroll", "audit"):
        one_line_error(
            [command, "--bankroll-file", str(bank)],
            "the database holds 'abc' where a sum in cents belongs",
        )


def test_long_values_are_cut_in_the_error_line(tmp_path: Path) -> None:
    """A value given as thousands of characters is not repeated whole: the error stays a
    line a person can read (its two ends kept)."""
    long_name = "g" * 5000
    for args in (
        ["rules", long_name],
        ["audit", "--db", f"sqlite:///{long_name}"],
        ["operator", "list", "--db", f"sqlite:///{long_name}"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args[0], result.output[:300])
        [line] = result.output.strip().splitlines()
        assert line.startswith("error:") and len(line) < 300, line[:300]
        assert "g" * 20 + "…" in line or "g" * 20 + "..." in line, line
