"""punto-banco and baccarat27: values, naturals, every tableau cell, every payout.

Cards are in dealing order: player, banker, player, banker, then the third cards.
Every wager is staked 10.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from cardroom.core.cards import Card, Rank, Suit, parse_cards
from cardroom.core.events import CardDealt, Decision
from cardroom.core.rules import RulesError, apply_rules
from cardroom.games import get_game
from cardroom.games.baccarat import (
    Baccarat27Round,
    BaccaratRules,
    PuntoBancoRound,
    Tableau,
    baccarat27_rules,
    baccarat_total,
    card_value,
    punto_banco_rules,
)
from cardroom.games.base import IllegalAction, WagerError
from tests.conftest import play

PB = {"player": 10, "banker": 10, "tie": 10}
B27 = {**PB, "player_pair": 10, "banker_pair": 10, "b27": 10}


def pb(cards: str, **rules: object) -> PuntoBancoRound:
    rnd = PuntoBancoRound(BaccaratRules(**rules), PB)  # type: ignore[arg-type]
    play(rnd, cards)
    return rnd


def b27(cards: str) -> Baccarat27Round:
    rnd = Baccarat27Round(baccarat27_rules(), B27)
    play(rnd, cards)
    return rnd


# -- values ------------------------------------------------------------------------------
def test_tens_and_pictures_count_zero_aces_one() -> None:
    values = {rank: card_value(Card(rank, Suit.SPADES)) for rank in Rank if rank is not Rank.JOKER}
    assert values[Rank.ACE] == 1
    assert [values[r] for r in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING)] == [0, 0, 0, 0]
    assert [values[Rank.from_number(n)] for n in range(2, 10)] == list(range(2, 10))


@pytest.mark.parametrize(
    ("cards", "total"),
    [("7h 2c", 9), ("6d 2s", 8), ("9h 9c", 8), ("Kd 9s", 9), ("6s 4d", 0), ("9s Jh", 9)],
)
def test_totals_are_the_last_digit_of_the_sum(cards: str, total: int) -> None:
    assert baccarat_total(parse_cards(cards)) == total


def test_deal_order_is_player_banker_player_banker() -> None:
    rnd = pb("7h Kc 2d 3s")
    dealt = [(e.hand, e.card.code) for e in rnd.events if isinstance(e, CardDealt)]
    assert dealt == [("player", "7h"), ("banker", "Kc"), ("player", "2d"), ("banker", "3s")]


# -- naturals ------------------------------------------------------------------------------
def test_a_natural_ends_the_deal() -> None:
    rnd = pb("7h Kc 2d 3s")  # player natural 9 against banker 3: nobody draws
    assert rnd.totals() == {"player": 9, "banker": 3} and rnd.outcome == "player"
    assert len(rnd.hands["player"]) == len(rnd.hands["banker"]) == 2


def test_banker_natural_ends_the_deal_even_when_the_player_would_draw() -> None:
    rnd = pb("Kh 6c Qd 2s")  # player 0, banker natural 8
    assert rnd.outcome == "banker" and len(rnd.hands["player"]) == 2


def test_natural_9_beats_natural_8() -> None:
    rnd = pb("4h 5c 5d 3s")  # player 9, banker 8
    assert rnd.outcome == "player" and rnd.totals() == {"player": 9, "banker": 8}
    rnd = pb("6h 5c 2d 4s")  # player 8, banker 9
    assert rnd.outcome == "banker" and rnd.totals() == {"player": 8, "banker": 9}


# -- the tableau -----------------------------------------------------------------------------
def seed_001_banker_draws(banker: int, third: int | None) -> bool:
    """The City of Dreams table (source 001): 'stands when the player's third card is ...'."""
    if third is None:
        return banker <= 5
    stands_when = {3: {8}, 4: {1, 8, 9, 0}, 5: {1, 2, 3, 8, 9, 0}}  # its "10" is a zero
    if banker <= 2:
        return True
    if banker in stands_when:
        return third not in stands_when[banker]
    if banker == 6:
        return third in (6, 7)
    return False  # 7: no more cards


def seed_003_banker_draws(banker: int, third: int | None) -> bool:
    """The mini-baccarat rules (source 003): 'draws if the player's third card was ...'."""
    if third is None:
        return banker <= 5  # "the same rules as the player"
    rules = {
        3: lambda v: v != 8,
        4: lambda v: 2 <= v <= 7,
        5: lambda v: 4 <= v <= 7,
        6: lambda v: v in (6, 7),
        7: lambda v: False,
    }
    return True if banker <= 2 else rules[banker](third)


THIRD_CARDS = {
    0: ["Ts", "Jh", "Qd", "Kc"],
    **{v: [f"{'A' if v == 1 else v}h"] for v in range(1, 10)},
}
BANKER_HANDS = {
    0: "Kd Qc",
    1: "Ad Tc",
    2: "2d Kc",
    3: "3d Jc",
    4: "2d 2c",
    5: "3d 2c",
    6: "4d 2c",
    7: "5d 2c",
}


@pytest.mark.parametrize("banker", range(8))
@pytest.mark.parametrize("third", [None, *range(10)], ids=lambda t: f"third-{t}")
def test_every_tableau_cell(banker: int, third: int | None) -> None:
    """Each banker total 0-7 against each third-card value, and a player who stood."""
    assert seed_001_banker_draws(banker, third) == seed_003_banker_draws(banker, third)
    expected = seed_001_banker_draws(banker, third)
    b1, b2 = BANKER_HANDS[banker].split()
    player = ("2h", "3c") if third is not None else ("3h", "3c")  # 5 draws, 6 stands
    thirds = THIRD_CARDS[third] if third is not None else [""]
    for card in thirds:
        cards = f"{player[0]} {b1} {player[1]} {b2} {card}".split()
        rnd = PuntoBancoRound()
        for code in cards:
            rnd.deal(Card.parse(code))
        banker_decision = [e for e in rnd.events if isinstance(e, Decision) and e.hand == "banker"]
        assert rnd.totals()["banker"] == banker
        assert banker_decision[-1].action == ("hit" if expected else "stand")
        assert (rnd.next_hand == "banker") == expected
        assert rnd.is_complete != expected


@pytest.mark.parametrize("player", range(8))
def test_player_draws_on_0_to_5_and_stands_on_6_and_7(player: int) -> None:
    cards = {
        0: "Kh Tc",
        1: "Ah Tc",
        2: "2h Tc",
        3: "3h Tc",
        4: "4h Tc",
        5: "5h Tc",
        6: "6h Tc",
        7: "7h Tc",
    }
    p1, p2 = cards[player].split()
    rnd = PuntoBancoRound()
    for code in (p1, "7d", p2, "Kd"):  # banker stands on 7
        rnd.deal(Card.parse(code))
    assert (rnd.next_hand == "player") == (player <= 5)


def test_the_tableau_is_data_a_variant_can_change() -> None:
    rules = apply_rules(punto_banco_rules(), {"tableau": {"player_draws_below": 5}})
    rnd = PuntoBancoRound(rules)
    for code in ("5h", "7d", "Tc", "Kd"):
        rnd.deal(Card.parse(code))
    assert rnd.is_complete  # 5 now stands
    with pytest.raises(RulesError, match="needs one row for each banker total"):
        apply_rules(punto_banco_rules(), {"tableau": {"banker": [{"banker": 0, "draws_on": []}]}})


def test_default_tableau_rows() -> None:
    rows = {row.banker: set(row.draws_on) for row in Tableau().banker}
    assert rows[3] == set(range(10)) - {8} and rows[4] == set(range(2, 8)) and rows[7] == set()


# -- punto-banco payouts -------------------------------------------------------------------------
def test_punto_banco_player_pays_1_to_1() -> None:
    assert pb("7h Kc 2d 3s").net == {"player": 10, "banker": -10, "tie": -10}


def test_punto_banco_banker_pays_19_to_20() -> None:
    rnd = pb("Kh 6c Qd 2s")
    assert rnd.net == {"player": -10, "banker": Fraction(19, 2), "tie": -10}


def test_punto_banco_tie_pays_8_to_1_and_pushes_player_and_banker() -> None:
    rnd = pb("4h 5c 5d 4s")  # both natural 9
    assert rnd.outcome == "tie" and rnd.net == {"player": 0, "banker": 0, "tie": 80}


def test_punto_banco_tie_at_9_to_1_as_an_option() -> None:
    assert pb("4h 5c 5d 4s", tie_pays=Fraction(9)).net["tie"] == 90


def test_punto_banco_offers_no_side_wagers_by_default() -> None:
    with pytest.raises(WagerError, match="no wager 'player_pair'"):
        PuntoBancoRound(punto_banco_rules(), {"player_pair": 10})
    assert get_game("punto-banco").wagers(punto_banco_rules()) == ("player", "banker", "tie")


def test_a_variant_offers_pairs_at_punto_banco() -> None:
    rules = apply_rules(punto_banco_rules(), {"side_wagers": ["player_pair"]})
    rnd = play(PuntoBancoRound(rules, {"player_pair": 10}), "9h Kc 9d 3s")
    assert rnd.net == {"player_pair": 110}


# -- baccarat27 payouts ----------------------------------------------------------------------------
def test_baccarat27_banker_payouts_by_winning_total() -> None:
    two = b27("Kh Ac Qd Ac Ks Kc")  # player 0 draws 0 -> 0; banker 2 draws 0 -> 2
    assert two.totals() == {"player": 0, "banker": 2} and two.outcome == "banker"
    assert two.net["banker"] == 20 and two.net["b27"] == 80
    seven = b27("Kh 5c Qd 2s Ks")  # player 0 draws 0; banker 7 stands
    assert seven.totals() == {"player": 0, "banker": 7}
    assert seven.net["banker"] == 5 and seven.net["b27"] == 80
    other = b27("Kh 6c Qd 2s")  # banker natural 8
    assert other.net["banker"] == 10 and other.net["b27"] == -10


def test_baccarat27_b27_loses_when_the_player_wins_or_ties() -> None:
    rnd = b27("4h 5c 5d 4s")  # tie
    assert rnd.net["b27"] == -10 and rnd.net["tie"] == 80
    assert rnd.net["player"] == rnd.net["banker"] == 0


@pytest.mark.parametrize(
    ("cards", "player_pair", "banker_pair"),
    [
        ("9h 9c 9d 9s", 110, 110),  # both pairs (and a tie of natural 8s)
        ("Kh Qc Kd Qs Ks Kc", 110, 110),  # pictures pair by rank: K-K and Q-Q
        ("Kh Qc Qd Ks 5s Kc", -10, -10),  # K-Q is no pair though both count 0
        ("7h 7c 7d 2s", 110, -10),
    ],
)
def test_baccarat27_pairs_pay_11_to_1(cards: str, player_pair: int, banker_pair: int) -> None:
    rnd = play(Baccarat27Round(baccarat27_rules(), B27), cards, None)
    assert (rnd.net["player_pair"], rnd.net["banker_pair"]) == (player_pair, banker_pair)


def test_a_complete_coup_takes_no_cards_and_no_decisions() -> None:
    rnd = pb("7h Kc 2d 3s")
    with pytest.raises(IllegalAction, match="complete"):
        rnd.deal(Card.parse("2c"))
    with pytest.raises(IllegalAction, match="nobody decides"):
        rnd.hit()


def test_default_shoes() -> None:
    assert punto_banco_rules().shoe.decks == 8 and punto_banco_rules().shoe.jokers_per_deck == 0
    assert punto_banco_rules().shoe.reshuffle_after == 400  # cut card 16 from the end
    six = apply_rules(punto_banco_rules(), {"shoe": {"decks": 6}})
    assert six.shoe.reshuffle_after == 296
