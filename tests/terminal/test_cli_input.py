"""Bad input at the command line, in files and at the prompts: one clear line, nothing
changed; and the rounds tool's checks of what a test lab feeds it."""

from __future__ import annotations

import json
import types
import typing
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.terminal.cli import app
from tests.bank import balance, count, rounds_of

runner = CliRunner()
#: punto banco: player 9h Kc and banker 9d Ks, naturals 9: a tie
TIE = "9h 9d Kc Ks"
GAMES = ["finnish27", "21-24-27", "punto-banco", "baccarat27", "chemin-de-fer"]


def run(*args: str, input: str | bytes | None = None, **env: str) -> Result:
    return runner.invoke(app, list(args), input=input, env=env or None)


def one_line_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr
    assert "Traceback" not in result.output and "╭" not in result.output


def records(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# -- options ------------------------------------------------------------------------------------
def test_every_numeric_option_has_bounds() -> None:
    """A number too small or too large is refused before any work: every int or float
    option of every command has a minimum and a maximum."""
    group = typer.main.get_command(app)
    missing = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            kind = param.type_descriptor.annotation
            if typing.get_origin(kind) in (typing.Union, types.UnionType):
                kind = next(a for a in typing.get_args(kind) if a is not type(None))
            if kind in (int, float) and (param.min is None or param.max is None):
                missing.append(f"{name} {param.opts[0]}")
    assert not missing


@pytest.mark.parametrize("game", GAMES)
def test_a_negative_or_huge_seed_is_a_one_line_error(game: str, tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    for seed in ("-5", str(2**64), "x"):
        one_line_error(run("play", game, "--seed", seed, "--bankroll-file", str(bank)), "--seed")
    assert not bank.exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "finnish27", "--bogus"], "No such option: --bogus"),
        (["play"], "Missing argument 'GAME'"),
        (["nope"], "No such command 'nope'"),
        (["history", "--limit", "0"], "--limit"),
        (["simulate", "punto-banco", "--rounds", "100000000000000000000000"], "--rounds"),
        (["simulate", "punto-banco", "--rounds", str(2**63)], "--rounds"),
        (["simulate", "punto-banco", "--rounds", "10", "--workers", "99999"], "--workers"),
        (["play", "finnish27", "--delay", "1e9"], "--delay"),
        (["analyze", "punto-banco", "--decks", "100000"], "--decks"),
    ],
)
def test_option_errors_are_one_line(args: list[str], fragment: str) -> None:
    one_line_error(run(*args), fragment)


def test_help_is_plain_text_wrapped_at_word_boundaries() -> None:
    result = run("history", "--help")
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout and "╭" not in result.stdout
    words = " ".join(result.stdout.split())
    assert "their own cards, the backs of the others' until the hands were shown" in words
    [line] = [line for line in result.stdout.splitlines() if "A chemin de fer coup" in line]
    assert len(line) > 60  # the paragraph is filled to the width, not cut where the source is
    for command in ("play", "simulate", "rounds", "bankroll", "analyze"):
        assert "<bool>" not in run(command, "--help").stdout


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.startswith("cardroom ")


# -- files that are not text ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        ["rounds", "finnish27"],
        ["play", "finnish27"],
        ["analyze", "punto-banco"],
        ["rules", "baccarat27"],
        ["simulate", "punto-banco", "--rounds", "10"],
    ],
)
def test_a_rules_file_that_is_not_utf8(command: list[str], tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"decks = 6\n\xff\xfe\x00junk")
    extra = ["--bankroll-file", str(tmp_path / "b.sqlite3")] if command[0] == "play" else []
    one_line_error(run(*command, "--rules", str(binary), *extra), "is not UTF-8 text")


@pytest.mark.parametrize(
    "command",
    [
        ["strategy", "chemin-de-fer"],
        ["play", "chemin-de-fer"],
        ["simulate", "chemin-de-fer", "--rounds", "10"],
    ],
)
def test_chemin_de_fer_rules_the_solver_cannot_take_are_a_one_line_error(
    command: list[str], tmp_path: Path
) -> None:
    # valid rules (the engine plays them), but two totals where the player chooses, and
    # the bots, the seats played for absent people and `strategy` need the solved coup
    variant = tmp_path / "two-free.toml"
    variant.write_text("player_must_draw_below = 5\nplayer_must_stand_from = 7\n")
    extra = ["--bankroll-file", str(tmp_path / "b.sqlite3")] if command[0] == "play" else []
    result = run(*command, "--rules", str(variant), *extra, input="q\n")
    one_line_error(result, "exactly one total where the player chooses", "these rules have 2")


def test_a_stack_file_that_is_not_utf8_or_not_a_file(tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"As Kd \x80\x81")
    for stack, fragment in ((junk, "is not UTF-8 text"), (tmp_path, "cannot read")):
        result = run("play", "punto-banco", "--stack", str(stack), "--bankroll-file", str(bank))
        one_line_error(result, fragment)
    assert not bank.exists()


def test_files_with_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_bytes("\ufefftie_pays = 9\n".encode())
    result = run("rounds", "punto-banco", "--rules", str(rules), input=TIE + "\n")
    assert result.exit_code == 0, result.output
    assert records(result)[0]["net"]["tie"] == 90


# -- the rounds tool ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "line", "fragment"),
    [
        ("punto-banco", "Jo Jo Jo Jo Jo Jo", "line 1: Jo is not in this game's shoe"),
        ("baccarat27", "Kd 5h 3c 4d\n2h Jo 3c 4d", "line 2: Jo is not in this game's shoe"),
        (
            "punto-banco",
            "As " * 9,
            "line 1: As comes 9 times, but the shoe of 8 decks holds only 8",
        ),
        (
            "finnish27",
            "Jo " * 13,
            "line 1: Jo comes 13 times, but the shoe of 6 decks holds only 12",
        ),
    ],
)
def test_rounds_refuses_cards_the_shoe_does_not_hold(game: str, line: str, fragment: str) -> None:
    one_line_error(run("rounds", game, input=line + "\n"), fragment)


def test_rounds_reads_a_byte_order_mark_and_refuses_bytes_that_are_not_utf8() -> None:
    result = run("rounds", "punto-banco", input=f"\ufeff{TIE}\n".encode())
    assert result.exit_code == 0, result.output
    assert records(result)[0]["outcome"] == "tie"
    one_line_error(run("rounds", "punto-banco", input=b"Kd 5h 3c 4d\n\xff\n"), "line 2")


def test_rounds_with_chosen_stakes() -> None:
    line = "Kd 5h 3c 4d\n"  # player Kd 3c = 3, banker 5h 4d = 9: a banker natural
    result = run("rounds", "punto-banco", "--stakes", "b=10.50,player=20", input=line)
    assert result.exit_code == 0, result.output
    [record] = records(result)
    # 19:20 on 10.50 is 9.975: the table pays 9.97, rounded down to its unit of 0.01
    assert record["net"] == {"banker": "9.97", "player": -20}
    for stakes, fragment in (
        ("x=10", "--stakes: this game has no wager 'x'"),
        ("b=5", "below the table minimum"),
        ("b=10,b=20", "banker is named twice"),
        ("b10", "--stakes: write each wager as WAGER=AMOUNT"),
        ("b=1e3", "'1e3' is not a stake"),
    ):
        one_line_error(run("rounds", "punto-banco", "--stakes", stakes, input=line), fragment)


def test_rounds_keep_going_reports_bad_lines_as_json_and_goes_on() -> None:
    text = b"Kd 5h 3c 4d\nJo Jo Jo Jo\n\xff\xfe\n# a comment\nAs 2h\n5h 5d 3c 2d 9s 9h\n"
    result = run("rounds", "punto-banco", "--keep-going", input=text)
    assert result.exit_code == 2
    lines = records(result)
    assert [r["line"] for r in lines] == [1, 2, 3, 5, 6]
    assert "outcome" in lines[0] and "outcome" in lines[4]
    assert "Jo is not in this game's shoe" in lines[1]["error"]
    assert "not UTF-8" in lines[2]["error"]
    assert "needs more cards than the 2 given" in lines[3]["error"]
    assert result.stderr == "error: 3 lines of the input could not be played (see the output)\n"


# -- prompts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("typed", ["1e3", "1_0", "١٠", "10/1", "0x10", "+10", "10.", "nan"])
def test_stakes_are_plain_decimals_only(typed: str, tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    result = run(
        "play", "finnish27", "--seed", "1", "--bankroll-file", str(bank), input=f"p {typed}\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert "is not a stake" in result.stdout and "Round 1" not in result.stdout
    assert balance(bank) == 1000 and count(bank) == 0


def test_q_at_a_decision_stands_finishes_and_saves(tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    stack = tmp_path / "s.txt"
    stack.write_text("9s 5d 8h 9c 4d 5s 2c 3h 9d\n", encoding="utf-8")
    args = ["play", "21-24-27", "--bankroll-file", str(bank), "--delay", "0"]
    result = run(*args, "--stack", str(stack), input="10\nq\n")
    assert result.exit_code == 0, result.output
    assert "Hit or stand? (h hit · s stand · ? help · q leave)" in result.stdout
    assert "You leave: you stand, the round is finished and saved" in result.stdout
    [saved] = rounds_of(bank)
    assert saved.net == -10 and balance(bank) == 990


# -- bankroll and history ------------------------------------------------------------------------
def test_setting_the_bankroll_is_a_movement_of_the_ledger_which_adds_up(tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    stack = tmp_path / "s.txt"
    stack.write_text("As Kd 5h 6c 9s 8d 7c\n", encoding="utf-8")
    play = ["play", "finnish27", "--bankroll-file", str(bank), "--delay", "0"]
    assert run(*play, "--stack", str(stack), input="d 10\n").exit_code == 0
    changed = run("bankroll", "--bankroll-file", str(bank), "--set", "250.50", "--ledger", "10")
    assert changed.exit_code == 0, changed.output
    assert "Bankroll 1008 → 250.50" in changed.stdout
    assert "withdrawal" in changed.stdout and "-757.50" in changed.stdout
    with Database.open(path=bank) as db:
        wallet = Wallet(db)
        account = wallet.accounts.account("You")
        assert account is not None
        rows = wallet.books.ledger(account.id)
        assert rows[0].kind == "withdrawal" and rows[0].memo == "set by cardroom bankroll --set"
        assert sum(r.amount for r in rows) == account.balance == Fraction(501, 2)
        wallet.books.audit(account.id)
    shown = run("bankroll", "--bankroll-file", str(bank))
    assert "1 round in the history" in shown.stdout


@pytest.mark.parametrize("amount", ["1e3", "10.005", "-1", "1" * 20])
def test_bankroll_set_refuses_amounts_that_are_not_plain_cents(tmp_path: Path, amount: str) -> None:
    bank = tmp_path / "b.sqlite3"
    one_line_error(run("bankroll", "--bankroll-file", str(bank), "--set", amount))


# -- money: the table's unit and breakage ------------------------------------------------------
def test_a_payout_below_the_unit_is_rounded_down_and_shown_as_a_decimal(tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    stack = tmp_path / "s.txt"
    stack.write_text("Kd 5h 3c 4d\n", encoding="utf-8")  # a banker natural 9
    args = ["play", "punto-banco", "--bankroll-file", str(bank), "--delay", "0"]
    result = run(*args, "--stack", str(stack), input="b 10.50\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Bet on banker 10.50: +9.97 (banker pays 19:20; 0.005 kept as breakage)" in out
    assert "Bankroll 1000 → 1009.97 (+9.97)" in out
    assert "/" not in out.split("Round 1")[1]  # no amount is shown as a fraction
    assert balance(bank) == Fraction(100997, 100)


def test_stakes_must_be_whole_units_of_the_table(tmp_path: Path) -> None:
    bank = tmp_path / "b.sqlite3"
    rules = tmp_path / "halves.toml"
    rules.write_text('[table]\nunit = "0.50"\n', encoding="utf-8")
    args = ["play", "punto-banco", "--bankroll-file", str(bank), "--rules", str(rules)]
    result = run(*args, "--seed", "1", input="b 10.25\nq\n")
    assert "stake on banker: stakes are in whole multiples of 0.50, not 10.25" in result.stdout
    assert balance(bank) == 1000 and count(bank) == 0
    lab = run("rounds", "punto-banco", "--rules", str(rules), "--stakes", "b=10.25", input="")
    one_line_error(lab, "whole multiples of 0.50")
