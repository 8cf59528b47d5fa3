"""ChemmyTable's seats over a long sitting (what the web tables need): a bot replaced
between coups, a person who stands up before the game starts, and a new game once the
old one is over, with the people's buy-ins carried over."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.chemmy import ChemmyTable, finish_table_coups
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.base import IllegalAction, WagerError
from cardroom.games.chemin_de_fer import ChemmyRules, SimpleMoney, TableauBot
from cardroom.storage import Database
from tests.app.tables.test_chemmy_table import answer

F = Fraction
RULES = ChemmyRules()


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[Wallet]:
    with Database.open(path=tmp_path / "w.sqlite3") as db:
        yield Wallet(db)


def new_table(wallet: Wallet, seed: int = 1, seats: int = 3) -> ChemmyTable:
    shoe = Shoe(RULES.shoe, SeededShuffler(seed))
    return ChemmyTable(
        RULES, shoe, wallet, np.random.default_rng(seed), seat_count=seats, table_ref="t2"
    )


def bot() -> TableauBot:
    return TableauBot(money=SimpleMoney())


def play_until_aino_is_broke(table: ChemmyTable) -> None:
    """Play the table's game (Aino, a bot with the price of one coup, against Ann)
    until it is over: the seed makes Aino lose and go broke."""
    game = table.game
    assert game is not None
    for _ in range(200):
        if game.is_over:
            break
        if (turn := table.advance()) is not None:
            answer(table, turn)
    assert game.is_over, "the seed makes Aino lose and go broke"


def test_a_person_who_stands_up_before_the_start_is_left_out_of_the_game(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet)
    table.sit_person(0, ann.id, "Ann", F(100))
    table.sit_bot(1, "Aino", F(500), bot())
    table.sit_bot(2, "Eero", F(500), bot())
    assert table.leave(0) == 100 and wallet.accounts.balance(ann.id) == 1000
    table.start()
    assert table.game is not None and table.game.empty_seats == (0,)


def test_a_bot_is_replaced_between_coups_and_not_during_one(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=5)
    table.sit_person(0, ann.id, "Ann", F(200))
    table.sit_bot(1, "Aino", F(500), bot())
    table.sit_bot(2, "Eero", F(500), bot())
    with pytest.raises(WagerError, match="seat 1 has no bot"):
        table.stand_bot(0)
    table.start()
    while (turn := table.advance()) is None:
        pass
    if not (table.game is not None and table.game.between_coups):
        with pytest.raises(WagerError, match="only between coups"):
            table.stand_bot(1)
        answer(table, turn)
        while (turn := table.advance()) is not None:
            answer(table, turn)
    assert table.game is not None and table.game.between_coups
    stack = table.game.stacks[2]
    assert table.stand_bot(2) == stack
    table.sit_bot(2, "Eero", F(500), bot())
    assert table.game.stacks[2] == 500
    while (turn := table.advance()) is not None:
        answer(table, turn)
    wallet.books.audit(ann.id)


def test_a_new_game_after_the_old_one_is_over_keeps_the_peoples_stacks(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=9, seats=2)
    table.sit_person(0, ann.id, "Ann", F(500))
    table.sit_bot(1, "Aino", F(10), bot())  # one losing coup and it cannot play
    with pytest.raises(IllegalAction, match="the game is not over"):
        table.new_game()
    table.start()
    game = table.game
    assert game is not None
    play_until_aino_is_broke(table)
    stack = game.stacks[0]
    assert wallet.seats.open_seats(ann.id)[0].stack == stack
    table.stand_bot(1)
    table.new_game()
    table.sit_bot(1, "Eero", F(500), bot())
    table.start()
    assert table.game is not None and table.game.stacks[0] == stack
    while (turn := table.advance()) is not None:
        answer(table, turn)
    assert table.leave(0) is not None
    wallet.books.audit(ann.id)


def test_coups_are_numbered_on_by_a_new_game_and_by_a_table_set_up_again(
    wallet: Wallet,
) -> None:
    """A new game after the old one is over numbers its coups on from the old one's last
    (its draw for the bank has that number); so does a table set up again on the same
    database (what a process that takes the table over does: :meth:`ChemmyTable.number_on`),
    from the last coup saved at the table, one left in progress included.  Ann's coups
    at the table never share a number."""
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet, seed=9, seats=2)
    table.sit_person(0, ann.id, "Ann", F(500))
    table.sit_bot(1, "Aino", F(10), bot())  # one losing coup and it cannot play
    table.start()
    game = table.game
    assert game is not None and game.coup == 1
    assert {e.coup for e in game.log} == {0}  # (a first game's draw for the bank)
    play_until_aino_is_broke(table)
    last = game.coup
    assert last >= 1
    table.stand_bot(1)
    table.new_game()
    table.sit_bot(1, "Eero", F(500), bot())
    table.start()
    assert table.game is not None and table.game.coup == last + 1
    assert {e.coup for e in table.game.log} == {last}  # (the draw for the bank)
    # coups until Ann decides in one saved in progress, then the process stops
    while not wallet.rounds.unfinished_rounds(ann.id):
        while (turn := table.advance()) is None:
            pass
        answer(table, turn)
    [left] = wallet.rounds.unfinished_rounds(ann.id)
    assert left.state is not None  # (a coup in progress keeps its state)
    stopped = int(left.state["start"]["coup"])
    assert stopped > last
    del table
    # the table set up again: what the last process left is finished, Ann's stack goes
    # back to her wallet, and the coups go on from the one it stopped in
    again = new_table(wallet, seed=10, seats=2)
    finish_table_coups(wallet, "t2")
    before = len(wallet.rounds.latest(ann.id, limit=100, game="chemin-de-fer"))
    again.number_on()
    assert again.last_coup == stopped
    again.sit_person(0, ann.id, "Ann", F(300))
    again.sit_bot(1, "Eero", F(500), bot())
    again.start()
    while (turn := again.advance()) is not None:
        answer(again, turn)
    stored = sorted(
        wallet.rounds.latest(ann.id, limit=100, game="chemin-de-fer"), key=lambda r: r.id
    )
    numbers = [int(RoundRecord.from_json(r.record).start["coup"]) for r in stored]
    assert numbers == sorted(set(numbers)), numbers
    assert numbers[before - 1] == stopped and numbers[before] == stopped + 1
    assert all(replay(RoundRecord.from_json(r.record)).same for r in stored)
    with pytest.raises(IllegalAction, match="the game has started"):
        again.number_on()
    assert again.leave(0) is not None
    wallet.books.audit(ann.id)


def test_leaving_after_passing_the_bank_leaves_no_coup_for_the_person(
    wallet: Wallet,
) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    bob = wallet.accounts.open_account("Bob", F(1000))
    table = new_table(wallet, seed=11, seats=3)
    table.sit_person(0, ann.id, "Ann", F(200))
    table.sit_person(1, bob.id, "Bob", F(200))
    table.sit_bot(2, "Aino", F(500), bot())
    table.start()
    game = table.game
    assert game is not None
    for _ in range(50):  # coups until a person holds the bank and may pass it
        turn = table.advance()
        if turn is not None and "pass_bank" in turn.actions:
            break
        while turn is not None:
            answer(table, turn)
            turn = table.advance()
    else:  # pragma: no cover - the seed gives a person the bank
        pytest.skip("no person held the bank")
    banker = turn.seat
    table.act(banker, "pass_bank")
    assert game.between_coups
    assert table.leave(banker) is not None  # between coups: stands up at once
    while (turn := table.advance()) is not None:
        answer(table, turn)
    for person in (ann.id, bob.id):
        assert wallet.rounds.unfinished_rounds(person) == []
        wallet.books.audit(person)
    leaver = ann.id if banker == 0 else bob.id
    assert wallet.rounds.latest(leaver, limit=1, game="chemin-de-fer", statuses=("void",)) == []
    other = bob.id if banker == 0 else ann.id
    [last] = wallet.rounds.latest(other, limit=1, game="chemin-de-fer")
    assert replay(RoundRecord.from_json(last.record)).same
