"""chemin-de-fer: one named test per procedure of the game, on stacked cards, plus
invariants over random sessions of bots and random people (Hypothesis).

Seats are Ann (0), Bob (1), Cid (2), Dee (3) ...; unless a test says otherwise Ann wins the
draw for the bank with a King.  Hand cards are in dealing order: player, banker, player,
banker, then the player's third card and the banker's.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.app.words import explain
from cardroom.core.cards import RANKS, Card, Deck, Suit, parse_cards
from cardroom.core.events import (
    NO_REASON,
    Announcement,
    BancoCalled,
    BankerChosen,
    BankPassed,
    BankPut,
    Commission,
    CoupEvent,
    CoupVoid,
    Decision,
    DrawForBank,
    DrawTie,
    ExcessReturned,
    GameOver,
    HandCard,
    HandShown,
    Outcome,
    PartCovered,
    Passed,
    PlayerChosen,
    Points,
    Reshuffled,
    SeatSettled,
    Staked,
    Why,
    coup_event_from_json,
    event_to_json,
)
from cardroom.core.rules import RulesError, apply_rules, rules_to_dict, rules_to_toml
from cardroom.core.shoe import SeededShuffler, Shoe, ShoeRules, StackedShoe
from cardroom.games.baccarat import Tableau
from cardroom.games.base import IllegalAction, TableLimits, Turn, WagerError
from cardroom.games.chemin_de_fer import (
    AlwaysDrawAtFive,
    CasinoTableauBanker,
    ChemmyAction,
    ChemmyGame,
    ChemmyRules,
    ChemmySession,
    Cover,
    MixedAtFive,
    Phase,
    SimpleMoney,
    TableauBot,
)
from cardroom.games.chemin_de_fer.words import decision_text

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")
LOW_CARDS = ("2h", "3h", "4h", "5h", "6h", "7h", "8h")
F = Fraction

PLAYER_NATURAL = "8s 3h Kd 4c"  # player 8 (natural) against banker 7
BANKER_NATURAL = "2s 9h 3d Kc"  # player 5 against banker 9 (natural)
EQUAL_NATURALS = "8s 8h Kd Qc"  # both 8


def new_game(stacks: tuple[int, ...] = (100, 100, 100), **rules: Any) -> ChemmyGame:
    return ChemmyGame(ChemmyRules(**rules), [(NAMES[i], s) for i, s in enumerate(stacks)])


def lab(
    stacks: tuple[int, ...] = (100, 100, 100),
    deal: str = "",
    draw: str | None = None,
    **rules: Any,
) -> tuple[ChemmyGame, ChemmySession, StackedShoe]:
    """A game after its draw for the bank (Ann's King by default), ``deal`` next in the shoe."""
    game = new_game(stacks, **rules)
    if draw is None:
        contenders = sum(1 for s in stacks if s >= game.rules.table.minimum)
        draw = " ".join(("Ks", *LOW_CARDS[: contenders - 1]))
    shoe = StackedShoe(parse_cards(f"{draw} {deal}"))
    session = ChemmySession(game, shoe, {}, np.random.default_rng(0))
    assert session.advance() is None
    assert game.phase is Phase.BANK
    return game, session, shoe


def play_out(session: ChemmySession, shoe: StackedShoe) -> None:
    """Deal until a person must decide; the stacked cards must all be used by then."""
    session.advance()


def events(game: ChemmyGame, kind: type[Any], coup: int | None = None) -> list[Any]:
    entries = game.log if coup is None else game.coup_events(coup)
    return [e.event for e in entries if isinstance(e.event, kind)]


def snapshot(game: ChemmyGame) -> tuple[Any, ...]:
    return (
        len(game.log),
        game.stacks,
        game.phase,
        game.banker,
        game.bank,
        dict(game.stakes),
        game.to_act,
        game.next_card_for,
        game.house,
    )


# -- the first banker ------------------------------------------------------------------------
def test_the_highest_card_takes_the_first_bank() -> None:
    game, _, _ = lab(draw="5h Qs 9c")
    assert [(e.seat, e.card.code) for e in events(game, DrawForBank)] == [
        (0, "5h"),
        (1, "Qs"),
        (2, "9c"),
    ]
    (chosen,) = events(game, BankerChosen)
    assert chosen.seat == 1 and chosen.why == Why.of("highest_card", card=Card.parse("Qs"))
    assert game.banker == 1 and game.coup == 1 and game.cards_in_play() == []
    assert {e.coup for e in game.log} == {0}
    turn = game.to_act
    assert turn is not None and turn.seat == 1
    # Ace low by default, high with the rule
    assert lab(draw="As 2h 3c")[0].banker == 2
    assert lab(draw="As 2h 3c", ace_high_in_draw=True)[0].banker == 0


def test_a_game_that_follows_others_numbers_its_coups_on() -> None:
    names = [(NAMES[i], 100) for i in range(3)]
    game = ChemmyGame(ChemmyRules(), names, coups_before=41)
    session = ChemmySession(
        game, StackedShoe(parse_cards(f"Ks 2h 3c {PLAYER_NATURAL}")), {}, np.random.default_rng(0)
    )
    assert session.advance() is None  # the draw for the bank: the last coup's number
    assert game.coup == 42 and {e.coup for e in game.log} == {41}
    assert game.coup_start()["coup"] == 42
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="coups before the game"):
            ChemmyGame(ChemmyRules(), names, coups_before=bad)  # type: ignore[arg-type]


def test_seats_tied_for_the_highest_card_draw_again() -> None:
    game, _, shoe = lab(draw="Ks 5h Kd 3c 7h")
    (tie,) = events(game, DrawTie)
    assert tie.seats == (0, 2)
    second = [(e.seat, e.card.code) for e in events(game, DrawForBank) if e.round == 2]
    assert second == [(0, "3c"), (2, "7h")]  # only the tied seats draw again
    assert game.banker == 2 and shoe.remaining == 0


def test_seats_below_the_minimum_do_not_draw_for_the_bank() -> None:
    game, _, _ = lab(stacks=(100, 5, 100), draw="2s Kh")
    assert [e.seat for e in events(game, DrawForBank)] == [0, 2]
    assert game.banker == 2


def test_a_table_needs_two_to_eight_seats_that_can_play() -> None:
    with pytest.raises(ValueError, match="seats: the table seats 2 to 8, not 1"):
        new_game((100,))
    with pytest.raises(ValueError, match="not 9"):
        new_game((100,) * 8 + (100,)) if False else ChemmyGame(
            None, [(str(i), 100) for i in range(9)]
        )
    with pytest.raises(ValueError, match="at least two seats need the table minimum"):
        new_game((100, 5))
    with pytest.raises(ValueError, match="same name"):
        ChemmyGame(None, [("Ann", 100), ("Ann", 100)])
    with pytest.raises(ValueError, match="not an amount"):
        ChemmyGame(None, [("Ann", 100), ("Bob", 100.0)])  # type: ignore[list-item]


# -- the bank --------------------------------------------------------------------------------
def test_the_bank_is_put_up_within_the_limits_and_the_stack() -> None:
    game, _, _ = lab(stacks=(100, 100, 100))
    turn = game.to_act
    assert turn == Turn(
        0,
        frozenset({ChemmyAction.PUT_BANK, ChemmyAction.PASS_BANK}),
        turn.why if turn else NO_REASON,
        F(10),
        F(100),
    )
    before = snapshot(game)
    refusals: list[tuple[Any, str]] = [
        (5, "below the table minimum of 10"),
        (150, "Ann cannot put up 150: the stack is 100"),
        ("abc", "not an amount"),
        (-5, "must be positive"),
        (0, "must be positive"),
        (2.5, "not an amount"),
        (True, "not an amount"),
    ]
    for amount, message in refusals:
        assert not game.can_put_bank(0, amount)
        with pytest.raises(WagerError, match=message):
            game.put_bank(0, amount)
        assert snapshot(game) == before
    with pytest.raises(
        IllegalAction,
        match="Bob cannot put up a bank now: the table waits for Ann to put up a bank",
    ):
        game.put_bank(1, 50)
    with pytest.raises(IllegalAction, match="no seat 7"):
        game.put_bank(7, 50)
    assert snapshot(game) == before
    assert game.can_put_bank(0, "12.50")
    (entry,) = game.put_bank(0, "12.50")
    assert entry == CoupEvent(1, BankPut(0, F(25, 2)))
    assert game.bank == F(25, 2) and game.phase is Phase.COVER

    rich, _, _ = lab(stacks=(5000, 100))
    with pytest.raises(WagerError, match="above the table maximum of 1000"):
        rich.put_bank(0, 1500)
    assert rich.can_put_bank(0, 1000)


def test_the_banker_may_pass_the_bank_unless_the_rules_say_no() -> None:
    game, _, _ = lab(stacks=(100, 5, 100))
    new = game.pass_bank(0)
    assert [type(e.event) for e in new] == [BankPassed, BankerChosen]
    assert game.banker == 2 and game.coup == 1  # Bob (below the minimum) is skipped
    strict, _, _ = lab(banker_may_pass=False)
    assert ChemmyAction.PASS_BANK not in strict.legal_actions(0)
    with pytest.raises(IllegalAction, match="do not let the banker pass"):
        strict.pass_bank(0)


# -- covering the bank -----------------------------------------------------------------------
def test_banco_covers_the_bank_alone_and_stops_other_stakes() -> None:
    game, session, shoe = lab(deal=PLAYER_NATURAL)
    game.put_bank(0, 60)
    assert game.to_act is not None and ChemmyAction.BANCO in game.to_act.actions
    assert game.can_banco(1)
    new = game.banco(1)
    assert [type(e.event) for e in new] == [BancoCalled, PlayerChosen]
    assert game.stakes == {1: F(60)}
    assert not game.can_stake(2, 10) and not game.can_banco(2)  # Cid is never asked
    assert game.phase is Phase.DEAL and game.player == 1
    play_out(session, shoe)
    assert not events(game, Passed) and not events(game, Staked)
    assert game.stacks == (F(40), F(160), F(100))


def test_banco_may_follow_passes() -> None:
    game, _, _ = lab()
    game.put_bank(0, 60)
    game.pass_(1)
    game.banco(2)
    assert game.stakes == {2: F(60)} and game.player == 2


def test_banco_is_refused_when_the_stack_is_short_or_after_a_stake() -> None:
    game, _, _ = lab(stacks=(100, 40, 100))
    game.put_bank(0, 50)
    before = snapshot(game)
    assert not game.can_banco(1)
    assert ChemmyAction.BANCO not in game.legal_actions(1)
    with pytest.raises(WagerError, match='Bob cannot call "Banco": the stack of 40 does not'):
        game.banco(1)
    assert snapshot(game) == before
    game.stake(1, 20)
    before = snapshot(game)
    assert not game.can_banco(2)
    with pytest.raises(IllegalAction, match="too late: somebody has already staked"):
        game.banco(2)
    assert snapshot(game) == before


def test_the_bank_is_covered_in_seat_order_from_the_banker() -> None:
    game, _, _ = lab(stacks=(100, 100, 100, 100), draw="2s 3s Ks 4s")
    assert game.banker == 2
    game.put_bank(2, 100)
    asked: list[int] = []
    for _ in range(3):
        turn = game.to_act
        assert turn is not None
        asked.append(turn.seat)
        for other in range(4):
            if other != turn.seat:
                assert not game.can_stake(other, 10)
        with pytest.raises(IllegalAction, match=f"the table waits for {NAMES[turn.seat]} to cover"):
            game.stake((turn.seat + 1) % 4, 10)
        game.stake(turn.seat, 10)
    assert asked == [3, 0, 1]


def test_an_excess_stake_goes_back_to_its_seat() -> None:
    game, _, _ = lab(stacks=(100, 100, 100, 100))
    game.put_bank(0, 50)
    game.stake(1, 30)
    new = game.stake(2, 40)
    assert [e.event for e in new[:2]] == [Staked(2, F(40)), ExcessReturned(2, F(20))]
    assert game.stakes == {1: F(30), 2: F(20)}
    assert game.phase is Phase.DEAL  # covered: Dee is not asked
    assert not any(e.seat == 3 for e in events(game, Passed))


def test_a_part_covered_bank_plays_only_for_the_covered_amount() -> None:
    game, session, shoe = lab(deal=PLAYER_NATURAL)
    game.put_bank(0, 100)
    game.stake(1, 30)
    new = game.pass_(2)
    assert PartCovered(F(30), F(100)) in [e.event for e in new]
    play_out(session, shoe)
    assert game.stacks == (F(70), F(130), F(100))  # the banker lost 30, not 100


def test_no_stakes_means_no_coup() -> None:
    game, _, shoe = lab()
    game.put_bank(0, 50)
    game.pass_(1)
    new = game.pass_(2)
    assert [type(e.event) for e in new] == [Passed, CoupVoid, BankerChosen]
    assert game.coup == 2 and game.banker == 0 and game.default_bank == 50
    assert game.stacks == (F(100),) * 3 and shoe.remaining == 0  # no card was dealt
    assert not events(game, Outcome)
    assert game.to_act is not None and game.to_act.seat == 0


def test_the_largest_stake_plays_the_hand() -> None:
    game, session, _ = lab(stacks=(500, 100, 100, 100), deal=PLAYER_NATURAL)
    game.put_bank(0, 200)
    game.stake(1, 20)
    game.stake(2, 40)
    game.stake(3, 40)  # equal largest: Cid, first in order, holds the hand
    (chosen,) = events(game, PlayerChosen)
    assert chosen.seat == 2 and chosen.stake == 40 and game.player == 2
    session.advance()
    assert {e.seat for e in events(game, HandCard) if e.hand == "player"} == {2}
    # everybody on the player's side is paid, not only the holder
    assert game.stacks == (F(400), F(120), F(140), F(140))


def test_the_largest_stake_is_counted_after_the_excess_is_returned() -> None:
    game, _, _ = lab(stacks=(100, 100, 100))
    game.put_bank(0, 50)
    game.stake(1, 30)
    game.stake(2, 40)  # 20 of it comes back: Bob's 30 is the largest
    assert game.player == 1


def test_a_short_stacked_seat_is_passed_over() -> None:
    game, _, _ = lab(stacks=(100, 5, 100))
    new = game.put_bank(0, 50)
    assert Passed(1, True, Why("stack_below_minimum")) in [e.event for e in new]
    assert game.to_act is not None and game.to_act.seat == 2


def test_a_seat_that_cannot_cover_its_stake_is_refused_and_nothing_changes() -> None:
    game, _, _ = lab(stacks=(500, 40, 100))
    game.put_bank(0, 200)
    before = snapshot(game)
    assert not game.can_stake(1, 50)
    with pytest.raises(WagerError, match="Bob cannot cover a stake of 50: the stack is 40"):
        game.stake(1, 50)
    for amount, message in [
        (5, "below the table minimum"),
        (0, "must be positive"),
        (-10, "must be positive"),
        ("ten", "not an amount"),
        (None, "not an amount"),
    ]:
        with pytest.raises(WagerError, match=message):
            game.stake(1, amount)  # type: ignore[arg-type]
    with pytest.raises(WagerError, match="stake needs an amount"):
        game.act(1, "stake")
    with pytest.raises(IllegalAction, match="no action 'raise'"):
        game.act(1, "raise")
    assert snapshot(game) == before
    game.stake(1, 40)
    assert game.stakes == {1: F(40)}


# -- the hand --------------------------------------------------------------------------------
def test_a_natural_on_either_side_ends_the_deal() -> None:
    game, session, shoe = lab(deal=PLAYER_NATURAL + " " + BANKER_NATURAL)
    game.put_bank(0, 50)
    game.banco(1)
    assert session.advance() is None  # no decision asked: the natural ends the deal
    assert not events(game, Decision) and shoe.remaining == 4
    shown = events(game, HandShown)
    assert [(e.hand, e.total) for e in shown] == [("player", 8), ("banker", 7)]
    (outcome,) = events(game, Outcome)
    assert outcome.outcome == "player" and "natural 8" in explain(outcome.why)
    # the bank passed to Bob, who now loses to the banker's natural 9
    game.put_bank(1, 50)
    game.banco(2)
    session.advance()
    outcome = events(game, Outcome, coup=2)[0]
    assert outcome.outcome == "banker" and "natural 9" in explain(outcome.why)
    assert not events(game, Decision) and shoe.remaining == 0


def test_the_player_must_draw_on_0_to_4() -> None:
    game, session, shoe = lab(deal="As Kh 2d 5c 4h")
    game.put_bank(0, 50)
    game.banco(1)
    turn = session.advance()
    (decision,) = events(game, Decision)
    assert decision == Decision("player", "draw", True, Why.of("must_draw", low=0, high=4, total=3))
    assert said(decision) == "player draws on 3 (must draw on 0-4)"
    third = events(game, HandCard)[-1]
    assert third == HandCard("player", 1, Card.parse("4h"), True, Points(7))
    assert turn is not None and turn.seat == 0  # now the banker decides
    assert turn.actions == {ChemmyAction.DRAW, ChemmyAction.STAND}
    assert shoe.remaining == 0


def test_the_player_must_stand_on_6_and_7() -> None:
    for cards, total in (("6s 2h Td 3c", 6), ("7s 2h Td 3c", 7)):
        game, session, _ = lab(deal=cards)
        game.put_bank(0, 50)
        game.banco(1)
        turn = session.advance()
        (decision,) = events(game, Decision)
        assert decision.forced and decision.action == "stand"
        assert said(decision) == f"player stands on {total} (must stand on 6-7)"
        assert turn is not None and turn.seat == 0 and game.player_third is None


def test_the_player_chooses_at_5() -> None:
    game, session, shoe = lab(deal="2s Kh 3d 6c 9h")
    game.put_bank(0, 50)
    game.banco(1)
    turn = session.advance()
    assert turn is not None and turn.seat == 1 and game.phase is Phase.PLAYER
    assert turn.actions == {ChemmyAction.DRAW, ChemmyAction.STAND}
    assert not events(game, Decision)  # nothing was forced
    before = snapshot(game)
    for seat in (0, 2):
        assert not game.can_draw(seat) and not game.can_stand(seat)
        with pytest.raises(
            IllegalAction, match="the table waits for Bob to draw or stand as the player"
        ):
            game.draw(seat)
    with pytest.raises(IllegalAction, match="Bob cannot put up a bank now"):
        game.put_bank(1, 50)
    with pytest.raises(IllegalAction, match="no card is wanted now"):
        game.deal(Card.parse("9h"))
    assert snapshot(game) == before
    assert game.can_draw(1) and game.can_stand(1)
    game.draw(1)
    [chosen] = events(game, Decision)
    assert not chosen.forced and said(chosen) == "player draws on 5 (may draw or stand on 5)"
    session.advance()
    assert game.to_act is not None and game.to_act.seat == 0  # the banker decides now
    assert game.player_third == Card.parse("9h")
    assert shoe.remaining == 0


def test_the_player_standing_at_5_gives_the_banker_the_turn() -> None:
    game, session, _ = lab(deal="2s Kh 3d 6c")
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    game.stand(1)
    turn = game.to_act
    assert turn is not None and turn.seat == 0 and turn.why["third"] is None
    assert "the player stood" in explain(turn.why)


@pytest.mark.parametrize("banker_draws", [True, False])
@pytest.mark.parametrize("player_draws", [True, False])
def test_the_banker_chooses_freely(banker_draws: bool, player_draws: bool) -> None:
    # player 5 (chooses), banker 7: the tableau would stand, the banker may still draw
    cards = "2s 4h 3d 3c" + (" 2h" if player_draws else "") + (" 2c" if banker_draws else "")
    game, session, shoe = lab(deal=cards)
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    (game.draw if player_draws else game.stand)(1)
    turn = session.advance()
    assert turn is not None and turn.seat == 0
    assert turn.actions == {ChemmyAction.DRAW, ChemmyAction.STAND}
    assert game.can_draw(0) and game.can_stand(0)
    assert not game.can_draw(1)
    seen = "the player's third card is 2♥" if player_draws else "the player stood"
    assert seen in explain(turn.why)
    (game.draw if banker_draws else game.stand)(0)
    if banker_draws:
        assert session.advance() is None  # the third card ends the coup
    assert game.coup == 2 and shoe.remaining == 0
    decision = events(game, Decision)[-1]
    assert decision.hand == "banker" and not decision.forced
    assert decision.action == ("draw" if banker_draws else "stand")
    player = 7 if player_draws else 5
    banker = 9 if banker_draws else 7
    winner = "player" if player > banker else "banker" if banker > player else "tie"
    assert events(game, Outcome)[0].outcome == winner


def test_the_banker_can_be_bound_to_the_tableau() -> None:
    game, session, shoe = lab(deal="As Kh 2d 5c 4h 9s", banker_forced_by_tableau=True)
    game.put_bank(0, 50)
    game.banco(1)
    assert session.advance() is None and shoe.remaining == 0  # nobody was asked
    banker = [e for e in events(game, Decision) if e.hand == "banker"]
    assert banker[0].forced and banker[0].action == "draw"  # 5 against a 4: draws
    assert Tableau().banker_draws(5, Card.parse("4h"))


# -- settlement and the next bank ------------------------------------------------------------
def test_a_tie_returns_every_stake() -> None:
    game, session, _ = lab(deal=EQUAL_NATURALS)
    game.put_bank(0, 50)
    game.stake(1, 20)
    game.stake(2, 30)
    session.advance()
    assert events(game, Outcome)[0].outcome == "tie"
    assert [(e.seat, e.net) for e in events(game, SeatSettled)] == [(1, 0), (2, 0), (0, 0)]
    assert game.stacks == (F(100),) * 3
    assert game.banker == 1  # the source: only a banker who has won keeps the deal


def test_a_tie_keeps_the_bank_as_a_rules_option() -> None:
    game, session, _ = lab(deal=EQUAL_NATURALS, tie_keeps_bank=True)
    game.put_bank(0, 50)
    game.stake(1, 20)
    game.stake(2, 30)
    session.advance()
    assert events(game, Outcome)[0].outcome == "tie"
    assert game.banker == 0 and game.default_bank == 50


def test_a_banker_win_keeps_the_bank() -> None:
    game, session, _ = lab(deal=BANKER_NATURAL)
    game.put_bank(0, 50)
    game.stake(1, 30)
    game.stake(2, 20)
    session.advance()
    assert game.stacks == (F(150), F(70), F(80))
    assert [(e.seat, e.stake, e.net) for e in events(game, SeatSettled)] == [
        (1, 30, -30),
        (2, 20, -20),
        (0, 50, 50),
    ]
    assert events(game, BankerChosen)[-1] == BankerChosen(0, Why.of("bank_kept", cause="won"))
    assert game.banker == 0 and game.default_bank == 100  # the bank plus its winnings
    turn = game.to_act
    assert turn is not None and (turn.seat, turn.low, turn.high) == (0, F(10), F(150))
    assert game.can_put_bank(0, 60)  # by default any legal bank


def test_keep_whole_bank_makes_the_banker_keep_the_whole_bank_or_pass() -> None:
    game, session, _ = lab(deal=BANKER_NATURAL, keep_whole_bank=True)
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    turn = game.to_act
    assert turn is not None and (turn.low, turn.high) == (F(100), F(100))
    with pytest.raises(WagerError, match="the bank must stay whole at 100"):
        game.put_bank(0, 60)
    assert game.can_pass_bank(0) and game.can_put_bank(0, 100)


def test_the_next_bank_is_capped_by_the_table_maximum() -> None:
    game, session, _ = lab(deal=BANKER_NATURAL, table=TableLimits(F(10), F(80)))
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    assert game.default_bank == 80


def test_a_banker_loss_passes_the_bank_to_the_next_seat_that_can_play() -> None:
    game, session, _ = lab(stacks=(100, 5, 100, 100), deal=PLAYER_NATURAL)
    game.put_bank(0, 50)
    game.banco(2)
    session.advance()
    chosen = events(game, BankerChosen)[-1]
    assert chosen == BankerChosen(2, Why.of("bank_passed_on", cause="lost"))
    assert game.banker == 2 and game.default_bank is None and game.coup == 2
    turn = game.to_act
    assert turn is not None and turn.seat == 2 and turn.high == 150


def test_the_bank_order_wraps_round_the_table() -> None:
    game, session, _ = lab(stacks=(100, 100, 100), draw="2s 3s Ks", deal=PLAYER_NATURAL)
    game.put_bank(2, 50)
    game.banco(0)
    session.advance()
    assert game.banker == 0


def test_house_commission_on_banker_wins() -> None:
    game, session, _ = lab(deal=BANKER_NATURAL, commission=F(1, 20))
    money = game.table_money
    game.put_bank(0, 50)
    game.stake(1, 30)
    game.stake(2, 10)
    new = session.advance()
    assert new is None
    assert events(game, Commission) == [Commission(0, F(2), F(1, 20))]
    settled = events(game, SeatSettled)[-1]
    assert (settled.seat, settled.stake, settled.net) == (0, F(40), F(38))
    assert explain(settled.why) == "the banker collects every stake, less 2 commission"
    assert game.stacks == (F(138), F(70), F(90)) and game.house == 2
    assert game.table_money == money
    assert game.default_bank == 88


def test_no_commission_on_a_banker_loss_or_by_default() -> None:
    game, session, _ = lab(deal=PLAYER_NATURAL, commission=F(1, 20))
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    assert not events(game, Commission) and game.house == 0
    plain, session, _ = lab(deal=BANKER_NATURAL)
    plain.put_bank(0, 50)
    plain.banco(1)
    session.advance()
    assert not events(plain, Commission) and plain.house == 0


def test_the_game_is_over_when_fewer_than_two_seats_can_play() -> None:
    game, session, _ = lab(stacks=(100, 50), deal=BANKER_NATURAL)
    game.put_bank(0, 50)
    game.banco(1)
    assert session.advance() is None
    assert game.is_over and game.to_act is None and game.next_card_for is None
    assert isinstance(game.log[-1].event, GameOver)
    assert game.stacks == (F(150), F(0))
    with pytest.raises(IllegalAction, match="the game is over"):
        game.put_bank(0, 50)


# -- visibility ------------------------------------------------------------------------------
def said(decision: Decision) -> str:
    """A decision in words, as the table shows it."""
    return decision_text(decision.hand, decision.action, decision.why)


def _hidden_leaks(game: ChemmyGame, viewer: int | None, secret: list[str]) -> list[str]:
    text = json.dumps([event_to_json(e) for e in game.visible_events(viewer)])
    return [code for code in secret if code in text]


def test_face_down_cards_are_seen_by_their_holder_only() -> None:
    # Bob (player) holds As 2d, Ann (banker) Kh 5c; the third card 4h is dealt face up
    game, session, _ = lab(deal="As Kh 2d 5c 4h")
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()  # the player drew (forced): the banker decides
    player_cards, banker_cards = ["As", "2d"], ["Kh", "5c"]
    assert _hidden_leaks(game, 0, player_cards) == []
    assert _hidden_leaks(game, 1, banker_cards) == []
    for onlooker in (2, None):
        assert _hidden_leaks(game, onlooker, player_cards + banker_cards) == []
    # each holder sees its own cards and totals
    bob = [e.event for e in game.visible_events(1) if isinstance(e.event, HandCard)]
    assert [(e.hand, e.card.code if e.card else None, e.total) for e in bob] == [
        ("player", "As", None),
        ("banker", None, None),
        ("player", "2d", Points(3)),
        ("banker", None, None),
        ("player", "4h", Points(7)),
    ]
    ann = [e.event for e in game.visible_events(0) if isinstance(e.event, HandCard)]
    assert [e.card.code if e.card else None for e in ann] == [None, "Kh", None, "5c", "4h"]
    assert ann[-1].total is None  # the third card is face up, but not the player's total
    # the forced draw is announced without the total or the rule that forced it
    assert [e.event for e in game.visible_events(0) if isinstance(e.event, Announcement)] == [
        Announcement("player", 1, "draw")
    ]
    assert any(isinstance(e.event, Decision) for e in game.visible_events(1))
    game.stand(0)
    # at the end both hands are shown to everybody
    for viewer in (0, 1, 2, None):
        shown = [e.event for e in game.visible_events(viewer) if isinstance(e.event, HandShown)]
        assert [(e.hand, [c.code for c in e.cards], e.total) for e in shown] == [
            ("player", ["As", "2d", "4h"], 7),
            ("banker", ["Kh", "5c"], 5),
        ]
    banker_said = [e.event for e in game.visible_events(1) if isinstance(e.event, Announcement)]
    assert banker_said == [Announcement("banker", 0, "stand")]
    assert len(game.visible_events(2)) == len(game.log)


def test_the_session_hands_each_seat_its_new_visible_events() -> None:
    game, session, _ = lab(deal="As Kh 2d 5c 4h")
    first = session.new_events(2)
    assert first == game.visible_events(2)
    assert session.new_events(2) == []
    game.put_bank(0, 50)
    game.banco(1)
    session.advance()
    later = session.new_events(2)
    assert [e.event.kind for e in later][:3] == ["bank", "banco", "player_hand"]
    cards = [e.event for e in later if isinstance(e.event, HandCard)]
    assert [c.card.code if c.card else None for c in cards] == [None, None, None, None, "4h"]


def test_what_a_seat_sees_from_any_point_is_the_same_as_from_the_start() -> None:
    # the web reads each seat's new events from where it stopped: that must match the
    # view of the whole log, also mid-coup (a hand's holder is known from coups before)
    rules = ChemmyRules(shoe=ShoeRules(decks=1, jokers_per_deck=0, cut_card=10))
    game = ChemmyGame(rules, [(n, 300) for n in NAMES[:3]])
    bots = {0: TableauBot(), 1: TableauBot(), 2: TableauBot()}
    session = ChemmySession(
        game, Shoe(rules.shoe, SeededShuffler(5)), bots, np.random.default_rng(5)
    )
    session.play_coups(12)
    assert game.coup > 10
    for viewer in (0, 1, 2, None):
        whole = game.visible_events(viewer)
        for start in range(len(game.log) + 1):
            assert game.visible_events(viewer, start) == whole[start:], (viewer, start)


# -- bots and the session --------------------------------------------------------------------
def test_the_casino_tableau_banker_draws_as_punto_banco() -> None:
    bot, tableau, rng = CasinoTableauBanker(), Tableau(), np.random.default_rng(0)
    thirds: list[Card | None] = [None, *(Card(rank, Suit.SPADES) for rank in RANKS)]
    for total in range(8):
        for third in thirds:
            assert bot.banker_draws(total, third, rng) == tableau.banker_draws(total, third)
    assert bot.banker_draws(3, Card.parse("8s"), rng) is False
    assert AlwaysDrawAtFive().player_draws(5, rng) is True


def test_mixed_decisions_sample_the_injected_random_source() -> None:
    mixed = MixedAtFive(F(1, 4))
    draws = [mixed.player_draws(5, np.random.default_rng(7)) for _ in range(3)]
    assert len(set(draws)) == 1  # same seed, same choice
    rng = np.random.default_rng(11)
    share = sum(mixed.player_draws(5, rng) for _ in range(2000)) / 2000
    assert 0.2 < share < 0.3
    with pytest.raises(ValueError, match="draw: a probability"):
        MixedAtFive(F(3, 2))


def test_the_simple_money_policy() -> None:
    game, _, _ = lab(stacks=(300, 100, 1000))
    policy, rng = SimpleMoney(), np.random.default_rng(0)
    assert policy.choose_bank(game.table_view(0), rng) == 30
    game.put_bank(0, 30)
    assert policy.choose_cover(game.table_view(1), rng) == Cover(ChemmyAction.STAKE, F(20))
    game.pass_(1)
    assert policy.choose_cover(game.table_view(2), rng) == Cover(ChemmyAction.BANCO)


def test_the_session_lets_bots_play_until_a_person_decides() -> None:
    game = new_game()
    shoe = StackedShoe(parse_cards("Ks 2h 3c  As Kh 2d 5c 4h"))
    bots = {1: TableauBot(), 2: TableauBot()}
    session = ChemmySession(game, shoe, bots, np.random.default_rng(0))
    assert session.advance() is None  # the draw for the bank
    turn = session.advance()
    assert turn is not None and turn.seat == 0 and ChemmyAction.PUT_BANK in turn.actions
    assert session.waiting_for() == turn
    game.put_bank(0, 30)
    turn = session.advance()  # Bob stakes 20, Cid 10; Bob plays, draws on 3; Ann decides
    assert game.stakes == {1: F(20), 2: F(10)} and game.player == 1
    assert turn is not None and turn.seat == 0 and turn.actions == {"draw", "stand"}
    game.stand(0)  # 5 against 7: the coup is over
    assert game.coup == 2 and shoe.remaining == 0
    assert game.stacks == (F(70), F(120), F(110)) and game.banker == 1
    turn = session.advance()  # Bob (a bot) banks 30 and Ann is asked to cover it
    assert turn is not None and turn.seat == 0 and game.bank == 30


def test_bots_play_whole_sessions_and_reshuffle_at_the_cut_card() -> None:
    rules = ChemmyRules(shoe=ShoeRules(decks=1, jokers_per_deck=0, cut_card=10))
    game = ChemmyGame(rules, [(n, 300) for n in NAMES[:4]])
    shoe = Shoe(rules.shoe, SeededShuffler(3))
    session = ChemmySession(
        game, shoe, {s: TableauBot() for s in range(4)}, np.random.default_rng(3)
    )
    assert session.play_coups(40) == 40
    causes = [e.cause for e in events(game, Reshuffled)]
    assert causes[0] == "new_shoe" and "cut_card" in causes
    assert game.table_money == 1200


def test_a_shoe_that_runs_dry_in_mid_coup_is_reshuffled_without_the_cards_in_play() -> None:
    rules = ChemmyRules(shoe=ShoeRules(decks=1, jokers_per_deck=0, cut_card=0))
    game = ChemmyGame(rules, [(n, 10_000) for n in NAMES[:3]])
    shoe = Shoe(rules.shoe, SeededShuffler(5))
    session = ChemmySession(
        game, shoe, {s: TableauBot() for s in range(3)}, np.random.default_rng(5)
    )
    session.play_coups(120)
    assert any(e.cause == "ran_out" for e in events(game, Reshuffled))
    for coup in range(1, game.coup):
        cards = [e.card for e in events(game, HandCard, coup)]
        assert len(cards) == len(set(cards))  # one deck: no card twice in a coup
    assert game.table_money == 30_000


def test_a_person_may_not_be_played_by_play_coups() -> None:
    _, session, _ = lab()
    with pytest.raises(IllegalAction, match="a person must decide"):
        session.play_coups(1)


# -- rules and records -----------------------------------------------------------------------
def test_rules_are_data_and_are_checked() -> None:
    rules = ChemmyRules()
    assert apply_rules(rules, rules_to_dict(rules)) == rules
    assert apply_rules(rules, {"shoe": {"decks": 8}}).shoe.decks == 8
    changed = apply_rules(
        rules, {"commission": "1/20", "keep_whole_bank": True, "table": {"minimum": 5}}
    )
    assert changed.commission == F(1, 20) and changed.table.minimum == 5
    text = rules_to_toml(changed)
    import tomllib

    assert apply_rules(rules, tomllib.loads(text)) == changed
    refused: list[tuple[dict[str, Any], str]] = [
        ({"commission": 1}, "commission"),
        ({"min_seats": 1}, "min_seats"),
        ({"max_seats": 1}, "max_seats"),
        ({"player_must_draw_below": 7}, "player_must_draw_below"),
        ({"player_must_stand_from": 9}, "player_must_stand_from"),
        ({"natural_from": 11}, "natural_from"),
        ({"shoe": {"jokers_per_deck": 2}}, "shoe.jokers_per_deck"),
        ({"banker_forced_by_tableau": True, "natural_from": 9}, "tableau.natural_from"),
    ]
    for data, key in refused:
        with pytest.raises(RulesError, match=f"'{key}'"):
            apply_rules(rules, data)


def test_the_free_totals_follow_the_rules() -> None:
    game, session, _ = lab(deal="2s Kh 2d 6c", player_must_draw_below=4)
    game.put_bank(0, 50)
    game.banco(1)
    turn = session.advance()  # the player's 4 is now a free choice
    assert turn is not None and turn.seat == 1
    assert turn.why == Why.of("may_draw", low=4, high=5)
    assert "may draw or stand on 4-5" in explain(turn.why)


def test_every_event_survives_a_trip_through_json() -> None:
    rules = ChemmyRules(commission=F(1, 20))
    game = ChemmyGame(rules, [(n, 200) for n in NAMES[:5]])
    session = ChemmySession(
        game,
        Shoe(rules.shoe, SeededShuffler(1)),
        {s: TableauBot() for s in range(5)},
        np.random.default_rng(1),
    )
    session.play_coups(30)
    kinds = set()
    for viewer in (None, 0, 1):
        for entry in game.log + game.visible_events(viewer):
            data = json.loads(json.dumps(event_to_json(entry)))
            assert coup_event_from_json(data) == entry
            kinds.add(entry.event.kind)
    assert {"hand_card", "announcement", "shown", "seat_settled", "commission"} <= kinds


# -- invariants over random sessions ---------------------------------------------------------
def _person_acts(game: ChemmyGame, turn: Turn, data: st.DataObject, passes: int) -> None:
    """A random person: sometimes tries something illegal (refused, nothing changes)."""
    seat = turn.seat
    if data.draw(st.integers(0, 5), label="try illegal") == 0:
        before = snapshot(game)
        wrong = data.draw(st.sampled_from(list(ChemmyAction)), label="wrong action")
        other = data.draw(st.integers(0, game.seat_count - 1), label="wrong seat")
        bad: Fraction | str = data.draw(
            st.sampled_from([F(-1), F(0), F(1), F(10**6)]) | st.just("x"), label="bad amount"
        )
        # the amounts are never legal, so only a legal action without an amount may pass
        if wrong in game.legal_actions(other) and wrong not in (
            ChemmyAction.PUT_BANK,
            ChemmyAction.STAKE,
        ):
            return
        with pytest.raises((IllegalAction, WagerError)):
            game.act(other, wrong, bad)
        assert snapshot(game) == before
    actions = sorted(turn.actions)
    if passes > 2 and ChemmyAction.PASS_BANK in actions:
        actions.remove(ChemmyAction.PASS_BANK)
    action = data.draw(st.sampled_from(actions), label="action")
    amount: Fraction | None = None
    if action in (ChemmyAction.PUT_BANK, ChemmyAction.STAKE):
        assert turn.low is not None and turn.high is not None
        low, high = int(turn.low), int(turn.high)
        amount = F(data.draw(st.integers(low, max(low, high)), label="amount"))
        amount = max(turn.low, min(amount, turn.high))
    game.act(seat, action, amount)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(2, 8),
    data=st.data(),
)
def test_random_sessions_conserve_money_and_cards_and_every_coup_ends(
    seed: int, count: int, data: st.DataObject
) -> None:
    stacks = [data.draw(st.integers(10, 400), label="stack") for _ in range(2)]
    stacks += [data.draw(st.integers(0, 400), label="stack") for _ in range(count - 2)]
    rules = ChemmyRules(
        shoe=ShoeRules(decks=1, jokers_per_deck=0, cut_card=10),
        table=TableLimits(F(10), F(200)),
        commission=data.draw(st.sampled_from([F(0), F(1, 20), F(1, 7)]), label="commission"),
        keep_whole_bank=data.draw(st.booleans(), label="keep whole bank"),
        banker_may_pass=data.draw(st.booleans(), label="may pass"),
    )
    game = ChemmyGame(rules, [(NAMES[i], s) for i, s in enumerate(stacks)])
    people = set(data.draw(st.lists(st.integers(0, count - 1), unique=True), label="people"))
    bots = {s: TableauBot() for s in range(count) if s not in people}
    shoe = Shoe(rules.shoe, SeededShuffler(seed))
    session = ChemmySession(game, shoe, bots, np.random.default_rng(seed))
    money = game.table_money
    full = Counter(Deck.shoe(1, 0))
    for _ in range(15):
        if game.is_over:
            break
        coup, steps, passes = game.coup, 0, 0
        while not game.is_over and game.coup == coup:
            turn = session.advance()
            if turn is None:
                break
            passes += ChemmyAction.PASS_BANK in turn.actions
            _person_acts(game, turn, data, passes)
            steps += 1
            assert steps < 40, "a coup must end"
            assert game.table_money == money
        # every coup ends: settled (one outcome) or void, and the table is cleared
        if game.coup > coup or game.is_over:
            finished = game.coup_events(coup)
            ends = [e for e in finished if isinstance(e.event, Outcome | CoupVoid)]
            assert len(ends) == (0 if coup == 0 else 1)
            assert game.cards_in_play() == []
        # money is conserved and nobody goes below zero
        assert game.table_money == money
        assert all(stack >= 0 for stack in game.stacks)
        # cards are conserved: dealt since the last shuffle + what is left = the shoe
        dealt: list[Card] = []
        for entry in game.log:
            event = entry.event
            if isinstance(event, Reshuffled):
                dealt = []
            elif isinstance(event, DrawForBank | HandCard) and event.card is not None:
                dealt.append(event.card)
        assert Counter(dealt) + Counter(shoe.peek(shoe.remaining)) == full
        # nobody ever sees another seat's face-down card
        for viewer in (None, *range(count)):
            for entry in game.visible_events(viewer):
                event = entry.event
                if isinstance(event, HandCard) and not event.face_up and event.seat != viewer:
                    assert event.card is None and event.total is None
    assert game.is_over or game.coup >= 1
