"""A real ``cardroom play`` process killed (SIGKILL: nothing runs after it) in the middle
of a round, then started again: the round is finished from where it stopped, with the
same cards and the default play, never lost and never refunded for free."""

from __future__ import annotations

import signal
from fractions import Fraction
from pathlib import Path

import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from tests.processes import Process

#: a long pause between cards: the kill always lands between the bet and the settlement
SLOW = ["--delay", "8"]


def books(bank: Path, name: str = "You") -> tuple[Fraction, int, list[RoundRecord]]:
    """The balance, the rounds left in progress, and the finished rounds' records."""
    with Database.open(path=bank, create=False) as db:
        wallet = Wallet(db)
        account = wallet.accounts.account(name)
        assert account is not None
        wallet.books.audit(account.id)
        done = [
            RoundRecord.from_json(r.record)
            for r in wallet.rounds.latest(account.id, limit=20)
            if r.record and r.record.get("version") == 1
        ]
        return account.balance, len(wallet.rounds.unfinished_rounds(account.id)), done


def kill(process: Process) -> None:
    process.popen.send_signal(signal.SIGKILL)
    assert process.finish() == -signal.SIGKILL


@pytest.mark.parametrize(
    ("game", "bet", "stake", "point"),
    [
        ("finnish27", "p 10 d 10\n", 20, "Round 1"),
        ("punto-banco", "b 10 t 10\n", 20, "Round 1"),
        ("baccarat27", "b 10 b27 10\n", 20, "Round 1"),
        ("21-24-27", "10\n", 10, "Round 1"),
    ],
)
def test_a_killed_round_is_finished_on_the_next_start(
    tmp_path: Path, game: str, bet: str, stake: int, point: str
) -> None:
    bank = tmp_path / "bank.sqlite3"
    args = ["play", game, "--bankroll-file", str(bank), "--seed", "11"]
    process = Process([*args, *SLOW])
    process.expect("› ")
    process.send(bet)
    process.expect(point)
    kill(process)
    balance, open_rounds, done = books(bank)
    assert (balance, open_rounds, done) == (1000 - stake, 1, [])  # stakes taken, round open

    again = Process([*args, "--delay", "0"])
    again.send("q\n")
    assert again.finish() == 0
    assert "was interrupted when cardroom stopped; it has been finished" in again.text
    balance, open_rounds, [record] = books(bank)
    assert open_rounds == 0 and record.notes and "stopped in the middle" in record.notes[0]
    assert balance == 1000 + record.net() and replay(record).same


def test_a_round_killed_at_a_decision_keeps_the_decisions_made(tmp_path: Path) -> None:
    bank = tmp_path / "bank.sqlite3"
    stack = tmp_path / "stack.txt"
    # player 9s 8h (hard 17) against 5d 9c (hard 14): free; a hit (4d: 21) is free again
    stack.write_text("9s 5d 8h 9c 4d 5s 2c 3h 9d\n", encoding="utf-8")
    args = ["play", "21-24-27", "--bankroll-file", str(bank), "--stack", str(stack)]
    process = Process([*args, "--delay", "0"])
    process.expect("Stake on player")
    process.send("10\n")
    process.expect("Hit or stand?")
    process.send("h\n")
    process.expect("hard 21 vs Dealer hard 14 · Hit or stand?")
    kill(process)
    assert books(bank)[:2] == (990, 1)

    again = Process(["play", "21-24-27", "--bankroll-file", str(bank), "--seed", "1"])
    again.send("q\n")
    assert again.finish() == 0
    balance, open_rounds, [record] = books(bank)
    assert open_rounds == 0
    assert [(d.action, d.by) for d in record.decisions] == [("hit", "person"), ("stand", "default")]
    # stand at 21 against the dealer's 5d 9c 5s = hard 19... then 2c: the dealer's 21
    assert balance == 1000 + record.net() and replay(record).same


@pytest.mark.parametrize(("point", "answer"), [("Cover", None), ("Draw or stand?", "20\n")])
def test_a_chemin_de_fer_coup_killed_is_finished_and_the_stack_brought_back(
    tmp_path: Path, point: str, answer: str | None
) -> None:
    bank = tmp_path / "bank.sqlite3"
    stack = tmp_path / "stack.txt"
    # Sylvie draws the King and banks 30; your 20 makes you the player with 2s 3d = 5
    stack.write_text("2h 3h 4h Ks  2s Kc 3d 6s 4c 4d 7h 8h 9h 9c\n", encoding="utf-8")
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), "--buy-in", "200"]
    process = Process([*args, "--stack", str(stack), "--delay", "0"])
    if answer is not None:
        process.expect("Cover")
        process.send(answer)
    process.expect(point)
    kill(process)
    balance, open_rounds, _ = books(bank)
    assert (balance, open_rounds) == (800, 1)  # 200 at the table, the coup open

    again = Process(["play", "chemin-de-fer", "--bankroll-file", str(bank), "--seed", "3"])
    again.send("q\n")
    again.finish()
    assert "was interrupted when cardroom stopped" in again.text
    balance, open_rounds, done = books(bank)
    [record] = [r for r in done if r.notes]
    assert open_rounds == 0 and replay(record).same
    assert record.start["coup"] == 1
    with Database.open(path=bank, create=False) as db:
        wallet = Wallet(db)
        account = wallet.accounts.account("You")
        assert account is not None and wallet.seats.open_seats(account.id) == []
        cashed = [row for row in wallet.books.ledger(account.id) if row.kind == "cash_out"]
        assert cashed and cashed[-1].amount == 200 + record.net(0)
