"""HouseTable driven directly, with no terminal: bets, rounds, money, records, restarts."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.house import HouseTable, finish_interrupted
from cardroom.app.wallet import Wallet
from cardroom.core.cards import parse_cards
from cardroom.core.events import Reshuffled, Settled
from cardroom.core.rules import apply_rules
from cardroom.core.shoe import SeededShuffler, Shoe, StackedShoe
from cardroom.games import get_game
from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.storage import Database

F = Fraction
# 21-24-27: player 9s 8h (hard 17) against dealer 5d 9c (hard 14) is a free choice; a stand
# there loses to the dealer's 5d 9c 4d 5s = hard 23
T21 = "9s 5d 8h 9c 4d 5s 2c 3h 9d"


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[Wallet]:
    with Database.open(path=tmp_path / "w.sqlite3") as db:
        yield Wallet(db)


def table(wallet: Wallet, game_id: str, cards: str | None = None, seed: int = 1) -> HouseTable:
    game = get_game(game_id)
    rules = game.default_rules()
    account = wallet.accounts.account_or_open("Ann")
    source = StackedShoe(parse_cards(cards)) if cards else Shoe(rules.shoe, SeededShuffler(seed))
    return HouseTable(game, rules, source, wallet, account.id, name="Ann")


def test_a_round_with_a_decision_moves_the_money_and_is_recorded(wallet: Wallet) -> None:
    t = table(wallet, "21-24-27", T21)
    live = t.place_bets({"player": "10"})
    assert t.balance == 990  # the stake is taken when the bet is placed
    t.advance(live)
    step = live.to_move()
    assert isinstance(step, Turn) and step.actions == {"hit", "stand"}
    t.act(live, "hit")
    t.act(live, "hit")  # 17 + 4 = 21, + 5 = 26: a forced stand; the dealer busts with 28
    assert live.is_over and live.engine.outcome == "player"
    assert t.balance == 1010 and live.balance == 1010
    assert [(r.kind, r.amount) for r in wallet.books.ledger(t.account_id)][:2] == [
        ("win", F(20)),
        ("stake", F(-10)),
    ]
    record = live.record
    assert record is not None and record.net() == 10 and len(record.decisions) == 2
    stored = wallet.rounds.latest(t.account_id)[0]
    again = RoundRecord.from_json(stored.record)
    assert again == record and replay(again).same
    wallet.books.audit(t.account_id)


@pytest.mark.parametrize(
    ("bets", "message"),
    [
        ({"banker": "10"}, "this game has no wager 'banker'"),
        ({"player": "5"}, "below the table minimum"),
        ({"player": "2000"}, "above the table maximum"),
        ({"player": "ten"}, "is not an amount"),
        ({"player": "-10"}, "cannot be negative"),
        ({"player": "10.001"}, "whole"),
        ({}, "place at least one bet"),
    ],
)
def test_bad_bets_are_refused_and_change_nothing(
    wallet: Wallet, bets: dict[str, str], message: str
) -> None:
    t = table(wallet, "21-24-27", T21)
    with pytest.raises(WagerError, match=message):
        t.place_bets(bets)
    assert t.balance == 1000 and wallet.rounds.count_rounds(t.account_id) == 0
    assert wallet.rounds.unfinished_rounds(t.account_id) == []


def test_stakes_above_the_balance_and_a_second_round_are_refused(wallet: Wallet) -> None:
    t = table(wallet, "punto-banco", seed=3)
    wallet.accounts.set_balance(t.account_id, F(25))
    with pytest.raises(WagerError, match=r"the stakes \(30\) are more than your balance \(25\)"):
        t.place_bets({"player": "20", "tie": "10"})
    live = t.place_bets({"player": "20"})
    with pytest.raises(WagerError, match="is not finished yet"):
        t.place_bets({"player": "10"})
    t.advance(live)
    assert live.is_over and t.place_bets({"player": "10"}) is not None


def test_a_payout_is_rounded_down_to_the_unit_and_the_breakage_recorded(wallet: Wallet) -> None:
    # player Kd 3c = 3, banker 5h 4d = 9: a banker natural; 19:20 on 10.50 is 9.975
    t = table(wallet, "punto-banco", "Kd 5h 3c 4d")
    live = t.place_bets({"banker": "10.50"})
    t.advance(live)
    [settled] = [e for e in live.events if isinstance(e, Settled)]
    assert (settled.net, settled.breakage) == (F(997, 100), F(1, 200))
    assert t.balance == F(100997, 100)
    assert wallet.books.ledger(t.account_id)[0].amount == F(2047, 100)


def test_illegal_decisions_are_refused_and_change_nothing(wallet: Wallet) -> None:
    t = table(wallet, "21-24-27", T21)
    live = t.place_bets({"player": "10"})
    with pytest.raises(IllegalAction, match="no decision is asked now"):
        t.act(live, "hit")
    t.advance(live)
    with pytest.raises(IllegalAction, match="you cannot split now"):
        t.act(live, "split")
    t.act(live, "stand")
    with pytest.raises(IllegalAction, match="the round is over"):
        t.act(live, "hit")
    assert live.record is not None and len(live.record.decisions) == 1


@pytest.mark.parametrize("decided", [0, 1])
def test_a_round_left_in_progress_is_finished_on_the_next_start(
    wallet: Wallet, decided: int
) -> None:
    t = table(wallet, "21-24-27", T21)
    live = t.place_bets({"player": "10"})
    t.advance(live)
    if decided:
        t.act(live, "hit")  # hard 21: free again
    del t, live  # the process stops here: nothing more happens to the round
    assert len(wallet.rounds.unfinished_rounds(wallet.accounts.account_or_open("Ann").id)) == 1
    [record] = finish_interrupted(wallet, wallet.accounts.account_or_open("Ann").id)
    assert record.notes and "stopped in the middle" in record.notes[0]
    assert [d.by for d in record.decisions] == ["person"] * decided + ["default"]
    assert record.decisions[-1].action == "stand"
    assert replay(record).same
    account = wallet.accounts.account_or_open("Ann").id
    assert wallet.rounds.unfinished_rounds(account) == []
    assert wallet.accounts.balance(account) == 1000 + record.net()
    assert finish_interrupted(wallet, account) == []  # never twice
    wallet.books.audit(account)


def test_a_tampered_record_does_not_replay(wallet: Wallet) -> None:
    t = table(wallet, "finnish27", "As Kd 5h 6c 9s 8d 7c")
    live = t.place_bets({"player": "10", "dealer": "10"})
    t.advance(live)
    assert live.record is not None and replay(live.record).same
    data = live.record.to_json()
    data["cards"][1] = "Qd"
    result = replay(RoundRecord.from_json(data))
    assert not result.same and result.differences


@settings(max_examples=40)  # each example is a new database and six rounds
@given(
    seed=st.integers(0, 2**32 - 1),
    game_id=st.sampled_from(["finnish27", "21-24-27", "punto-banco", "baccarat27"]),
    choices=st.lists(st.sampled_from(["hit", "stand"]), max_size=30),
)
def test_random_rounds_balance_the_books_and_replay(
    tmp_path_factory: pytest.TempPathFactory, seed: int, game_id: str, choices: list[str]
) -> None:
    path = tmp_path_factory.mktemp("house") / "w.sqlite3"
    with Database.open(path=path) as db:
        wallet = Wallet(db)
        t = table(wallet, game_id, seed=seed)
        wagers = t.wager_ids
        moves = iter(choices)
        for n in range(6):
            live = t.place_bets({wagers[n % len(wagers)]: "10"})
            t.advance(live)
            while isinstance(step := live.to_move(), Turn):
                wanted = next(moves, "stand")
                t.act(live, wanted if wanted in step.actions else sorted(step.actions)[0])
            assert live.record is not None and replay(live.record).same
        wallet.books.audit(t.account_id)
        rounds = wallet.rounds.latest(t.account_id, limit=10)
        assert len(rounds) == 6
        assert t.balance == 1000 + sum(RoundRecord.from_json(r.record).net() for r in rounds)


def test_a_round_in_progress_is_set_up_again_where_it_stopped(wallet: Wallet) -> None:
    from cardroom.app.tables.house import restore_round

    t = table(wallet, "21-24-27", T21)
    live = t.place_bets({"player": "10"})
    t.advance(live)
    t.act(live, "hit")  # hard 21: free again
    [stored] = wallet.rounds.unfinished_rounds(t.account_id)
    again_table, again = restore_round(wallet, stored)
    assert again.to_move() == live.to_move() and again.cards == live.cards
    assert again.decisions == live.decisions
    again_table.act(again, "hit")
    assert again.record is not None and again.record.outcome == "player"
    assert replay(again.record).same and wallet.accounts.balance(t.account_id) == 1010


def test_an_idempotency_key_returns_its_round_and_takes_no_money_again(wallet: Wallet) -> None:
    from cardroom.app.tables.house import ExistingRound, KeyReused, OverBalance, RoundUnfinished

    t = table(wallet, "21-24-27", T21)
    live = t.place_bets({"player": "10"}, idempotency_key="k1")
    # the round is unfinished: the same key gives it back, another key or none is refused
    with pytest.raises(ExistingRound) as again:
        t.place_bets({"player": "10"}, idempotency_key="k1")
    assert again.value.stored.id == live.id
    with pytest.raises(KeyReused, match="other bets"):
        t.place_bets({"player": "20"}, idempotency_key="k1")
    with pytest.raises(RoundUnfinished, match="is not finished yet"):
        t.place_bets({"player": "10"}, idempotency_key="k2")
    assert t.balance == 990 and len(wallet.rounds.unfinished_rounds(t.account_id)) == 1
    t.advance(live)
    t.act(live, "stand")
    # finished: the key still gives the same round back, and nothing is taken
    with pytest.raises(ExistingRound):
        t.place_bets({"player": "10"}, idempotency_key="k1")
    assert wallet.rounds.count_rounds(t.account_id) == 1
    with pytest.raises(OverBalance):
        t.place_bets({"player": "1000"}, idempotency_key="k3")


def test_a_shoe_that_runs_dry_mid_round_is_reshuffled_and_the_round_replays(
    wallet: Wallet,
) -> None:
    game = get_game("punto-banco")
    rules = apply_rules(game.load_rules(), {"shoe": {"decks": 1, "reshuffle_after": 52}})
    account = wallet.accounts.account_or_open("Ann")
    t = HouseTable(game, rules, Shoe(rules.shoe, SeededShuffler(5)), wallet, account.id, name="Ann")
    for _ in range(40):
        live = t.place_bets({"banker": "10"})
        t.advance(live)
        assert live.is_over
        events = live.engine.events
        mid = [e for e in events if isinstance(e, Reshuffled) and e.cause == "ran_out"]
        if mid:
            record = live.record
            assert record is not None
            assert replay(record).same  # the new shoe is in its record
            assert len(live.shoe) == 2  # and in its saved state: the old shoe, then the new
            return
    pytest.fail("no coup ran the 1-deck shoe dry in 40 coups")
