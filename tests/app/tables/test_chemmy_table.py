"""ChemmyTable driven directly, with no terminal: people and bots, coups, money, restarts."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.chemmy import ChemmyTable, finish_interrupted_coups
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer import ChemmyAction, ChemmyRules, SimpleMoney, TableauBot
from cardroom.storage import Database

F = Fraction
RULES = ChemmyRules()


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[Wallet]:
    with Database.open(path=tmp_path / "w.sqlite3") as db:
        yield Wallet(db)


def new_table(wallet: Wallet, seed: int = 1, seats: int = 4) -> ChemmyTable:
    shoe = Shoe(RULES.shoe, SeededShuffler(seed))
    return ChemmyTable(
        RULES, shoe, wallet, np.random.default_rng(seed), seat_count=seats, table_ref="t1"
    )


def bots(table: ChemmyTable, seats: range) -> None:
    for seat in seats:
        table.sit_bot(seat, f"Bot{seat}", F(500), TableauBot(money=SimpleMoney()))


def answer(table: ChemmyTable, turn: Turn) -> None:
    """A person who banks the minimum, stakes the minimum and stands."""
    if ChemmyAction.PUT_BANK in turn.actions:
        table.act(turn.seat, ChemmyAction.PUT_BANK, turn.low)
    elif ChemmyAction.STAKE in turn.actions:
        table.act(turn.seat, ChemmyAction.STAKE, turn.low)
    else:
        table.act(turn.seat, ChemmyAction.STAND)


def play_coups(table: ChemmyTable, count: int) -> None:
    assert table.game is not None
    for _ in range(count):
        if table.game.is_over:
            return
        while (turn := table.advance()) is not None:
            answer(table, turn)


def test_a_person_plays_coups_with_bots_and_the_books_follow(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet)
    table.sit_person(0, ann.id, "Ann", F(300))
    bots(table, range(1, 4))
    assert wallet.accounts.balance(ann.id) == 700  # the buy-in left the wallet
    table.start()
    play_coups(table, 12)
    assert table.game is not None
    seat = wallet.seats.open_seats(ann.id)[0]
    assert seat.stack == table.game.stacks[0]
    coups = wallet.rounds.latest(ann.id, limit=50, game="chemin-de-fer")
    assert len(coups) >= 10
    for stored in coups:
        record = RoundRecord.from_json(stored.record)
        assert replay(record).same, replay(record).differences
    assert table.leave(0) == seat.stack
    assert wallet.accounts.balance(ann.id) == 700 + seat.stack
    assert wallet.seats.open_seats(ann.id) == []
    wallet.books.audit(ann.id)


def test_leaving_in_a_coup_is_played_out_then_cashed_out(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=4)
    table.sit_person(0, ann.id, "Ann", F(200))
    bots(table, range(1, 4))
    table.start()
    while (turn := table.advance()) is None:
        pass  # coups with no decision of Ann's
    assert turn.seat == 0
    assert table.leave(0) is None  # in a coup: the absent policy plays for her
    while table.game is not None and 0 in table.people:
        if table.advance() is not None:  # pragma: no cover - nobody else is a person
            raise AssertionError("only Ann was a person")
    assert wallet.seats.open_seats(ann.id) == []
    [last] = wallet.rounds.latest(ann.id, limit=1, game="chemin-de-fer")
    record = RoundRecord.from_json(last.record)
    mine = [d for d in record.decisions if d.seat == 0]
    assert mine and all(d.by == "default" for d in mine) and replay(record).same
    wallet.books.audit(ann.id)


def test_a_seat_that_does_not_answer_in_time_is_played_for(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=2)
    table.sit_person(0, ann.id, "Ann", F(200))
    bots(table, range(1, 4))
    table.start()
    while (turn := table.advance()) is None:
        pass
    with pytest.raises(IllegalAction, match="the table does not wait for seat 2"):
        table.play_for(1)
    table.play_for(0)  # the caller's clock ran out
    assert table.waiting_for() is None or table.waiting_for() != turn


def test_refusals_change_nothing(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(100))
    table = new_table(wallet)
    with pytest.raises(WagerError, match="more than Ann's balance of 100"):
        table.sit_person(0, ann.id, "Ann", F(300))
    with pytest.raises(WagerError, match="below the table minimum"):
        table.sit_person(0, ann.id, "Ann", F(5))
    assert wallet.accounts.balance(ann.id) == 100 and wallet.seats.open_seats(ann.id) == []
    table.sit_person(0, ann.id, "Ann", F(50))
    with pytest.raises(WagerError, match="seat 1 is taken by Ann"):
        table.sit_bot(0, "Bob", F(100), TableauBot())
    with pytest.raises(WagerError, match="Ann is already at the table"):
        table.sit_bot(2, "ann", F(100), TableauBot())
    bots(table, range(1, 4))
    table.start()
    while table.advance() is None:
        pass
    with pytest.raises(IllegalAction, match="it is not Bot1's turn"):
        table.act(1, ChemmyAction.PASS)


def test_somebody_joins_between_coups(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    bob = wallet.accounts.open_account("Bob", F(1000))
    table = new_table(wallet, seed=7, seats=4)
    table.sit_person(0, ann.id, "Ann", F(200))
    bots(table, range(1, 3))  # seat 4 stays empty
    table.start()
    play_coups(table, 2)
    assert table.game is not None and table.game.between_coups
    table.sit_person(3, bob.id, "Bob", F(150))
    assert table.game.stacks[3] == 150
    play_coups(table, 6)
    for person in (ann.id, bob.id):
        for stored in wallet.rounds.latest(person, limit=50, game="chemin-de-fer"):
            assert replay(RoundRecord.from_json(stored.record)).same
        wallet.books.audit(person)


def test_a_coup_left_in_progress_is_finished_and_the_stack_brought_back(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=3)
    table.sit_person(0, ann.id, "Ann", F(300))
    bots(table, range(1, 4))
    table.start()
    while (turn := table.advance()) is None:
        pass
    answer(table, turn)  # one decision made, then the process stops
    coup = table.game.coup if table.game else 0
    del table
    assert len(wallet.rounds.unfinished_rounds(ann.id)) == 1
    [record] = finish_interrupted_coups(wallet, ann.id)
    assert record.start["coup"] == coup and record.notes
    assert replay(record).same
    assert wallet.rounds.unfinished_rounds(ann.id) == [] and wallet.seats.open_seats(ann.id) == []
    assert wallet.accounts.balance(ann.id) == 700 + 300 + record.net(0)
    assert finish_interrupted_coups(wallet, ann.id) == []
    wallet.books.audit(ann.id)
