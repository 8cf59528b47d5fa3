"""A real ``cardroom play`` process: told to stop in the middle of a round, and in a
real terminal (a pseudo-terminal).

Once the bets are placed, SIGTERM and SIGHUP (the terminal closed), like Ctrl-C,
finish the round with the default play (stand where the rules allow it) and save
it: the stake is taken and the round is in the history, so nobody can walk away
from a bad hand for free.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import termios
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.bank import balance, nets, stored, wagers
from tests.processes import PATIENCE, Process, cardroom_command

# 21-24-27: player 9s 8h (hard 17) against dealer 5d 9c (hard 14) is a free choice; a player
# who stands there sees the dealer hit 4d (18) and 5s (23): the dealer wins.
T21_CARDS = "9s 5d 8h 9c 4d 5s 2c 3h 9d"
# chemin de fer: Sylvie draws the King for the bank and banks 30; your 20 makes you the
# player with 2s 3d = 5, a free choice; Sylvie holds Kc 6s = 6.
CHEMMY_CARDS = "2h 3h 4h Ks  2s Kc 3d 6s 4c 4d 7h 8h"


def saved(bank: Path) -> list[dict[str, Any]]:
    return stored(bank)


def stacked(tmp_path: Path, cards: str) -> Path:
    path = tmp_path / "stack.txt"
    path.write_text(cards + "\n", encoding="utf-8")
    return path


SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGHUP, id="SIGHUP")]


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_at_a_decision_stands_and_saves_the_round(
    tmp_path: Path, signum: signal.Signals
) -> None:
    bank = tmp_path / "bank.sqlite3"
    stack = stacked(tmp_path, T21_CARDS)
    args = ["play", "21-24-27", "--bankroll-file", str(bank), "--delay", "0", "--stack", str(stack)]
    process = Process(args)
    process.expect("Stake on player")
    process.send("10\n")
    process.expect("Hit or stand?")
    process.popen.send_signal(signum)
    status = process.finish()
    assert status == 128 + signum
    [record] = saved(bank)
    decisions = [e for e in record["events"] if e["event"] == "decision"]
    assert (decisions[0]["action"], decisions[0]["forced"]) == ("stand", False)
    assert record["outcome"] == "dealer" and nets(record) == {"player": -10}
    assert balance(bank) == Fraction(990)
    if signum == signal.SIGTERM:
        assert "Terminated: you stand, the round is finished and saved" in process.text


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_at_a_chemin_de_fer_draw_stands_and_saves_the_coup(
    tmp_path: Path, signum: signal.Signals
) -> None:
    bank = tmp_path / "bank.sqlite3"
    stack = stacked(tmp_path, CHEMMY_CARDS)
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), "--delay", "0"]
    process = Process([*args, "--stack", str(stack)])
    process.expect("Cover")
    process.send("20\n")
    process.expect("Draw or stand?")
    process.popen.send_signal(signum)
    status = process.finish()
    assert status == 128 + signum
    [record] = saved(bank)
    assert record["start"]["coup"] == 1
    stood = [e for e in record["events"] if e["event"] == "decision" and e["hand"] == "player"]
    assert stood and stood[0]["action"] == "stand"
    net = sum(nets(record, seat=0).values(), Fraction(0))
    assert balance(bank) == Fraction(1000) + net  # the stack was cashed out
    assert net != 0  # the stake was at risk and settled


class Terminal:
    """``cardroom play`` in a pseudo-terminal of ``columns`` columns: what it wrote so far,
    and keys typed at it."""

    def __init__(self, args: list[str], columns: int) -> None:
        self.leader, follower = pty.openpty()
        env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm"}
        self.child = subprocess.Popen(
            [*cardroom_command(), *args], stdin=follower, stdout=follower, stderr=follower, env=env
        )
        os.close(follower)
        self.seen = b""

    def until(self, marker: bytes) -> None:
        """Read what it writes until ``marker`` has come."""
        while marker not in self.seen:
            ready, _, _ = select.select([self.leader], [], [], PATIENCE)
            assert ready, self.seen.decode(errors="replace")
            try:
                self.seen += os.read(self.leader, 65536)
            except OSError:  # the child closed the terminal
                break
        assert marker in self.seen, self.seen.decode(errors="replace")

    def reading(self) -> None:
        """Wait until line editing reads the line (it takes the terminal out of its
        canonical mode): a key typed sooner is echoed by the terminal itself."""
        for _ in range(int(PATIENCE * 100)):
            if not termios.tcgetattr(self.leader)[3] & termios.ICANON:
                return
            select.select([], [], [], 0.01)
        pytest.fail("the prompt never read a line")

    def type(self, keys: bytes) -> None:
        os.write(self.leader, keys)

    def close(self) -> None:
        self.child.wait(timeout=PATIENCE)
        os.close(self.leader)


def test_arrow_keys_edit_the_line_at_a_prompt_in_a_terminal(tmp_path: Path) -> None:
    """In a terminal the prompts have line editing: ← moves back instead of typing ^[[D."""
    bank = tmp_path / "bank.sqlite3"
    args = ["play", "finnish27", "--seed", "1", "--bankroll-file", str(bank), "--delay", "0"]
    terminal = Terminal(args, columns=100)
    try:
        terminal.until(b"Your bets")
        terminal.type(b"p 0\x1b[D1\r")  # p 0, ←, 1: the line reads "p 10"
        terminal.until(b"Bankroll 1000")
        terminal.type(b"q\r")
        terminal.until(b"Goodbye")
    finally:
        terminal.close()
    assert b"Round 1 " in terminal.seen
    [record] = stored(bank)
    assert wagers(record) == {"player": 10}


def test_enter_alone_at_the_bets_prompt_starts_the_round_on_a_line_of_its_own(
    tmp_path: Path,
) -> None:
    """Enter alone bets again; the round's rule then starts on a new line, not on the
    prompt's (where it ran on and wrapped: line editing had not been told the prompt)."""
    bank = tmp_path / "bank.sqlite3"
    args = ["play", "finnish27", "--seed", "1", "--bankroll-file", str(bank), "--delay", "0"]
    terminal = Terminal(args, columns=80)
    try:
        terminal.until(b"Your bets")
        terminal.type(b"p 10\r")
        terminal.until(b"again")
        terminal.reading()
        terminal.type(b"\r")  # the same bet again
        terminal.until(b"Round 2")
        terminal.type(b"q\r")
        terminal.until(b"Goodbye")
    finally:
        terminal.close()
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]|[\x01\x02]", b"", terminal.seen).decode(
        errors="replace"
    )
    line = next(x for x in text.replace("\r", "").split("\n") if "Round 2" in x)
    assert line.startswith("Round 2 · bets: player 10"), repr(line)
