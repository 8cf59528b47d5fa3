"""finnish27: one named test per rule of RULES.md, on stacked cards.

Cards are listed in dealing order: player, dealer, player, dealer, then the
player's hits, then the dealer's.  Every round stakes 10 on each wager unless it
says otherwise, so a player win nets +10, a dealer win +8 (4:5), a push +70 (7:1).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from cardroom.app.words import points_text
from cardroom.core.cards import RANKS, Card, Suit
from cardroom.core.events import CardDealt, Decision, Points
from cardroom.games.base import IllegalAction, TableLimits, WagerError
from cardroom.games.finnish.finnish27 import NINE_RULES, Finnish27Round, Finnish27Rules, compare
from cardroom.games.finnish.hands import TargetTable, Total, initial_totals
from tests.conftest import play

ALL = {"player": 10, "dealer": 10, "push": 10}


def round_of(cards: str, wagers: dict[str, int] | None = None, **rules: object) -> Finnish27Round:
    return play(Finnish27Round(Finnish27Rules(**rules), ALL if wagers is None else wagers), cards)  # type: ignore[arg-type]


def nets(rnd: Finnish27Round) -> tuple[Fraction, Fraction, Fraction]:
    return rnd.net["player"], rnd.net["dealer"], rnd.net["push"]


# -- deal order -------------------------------------------------------------------------
def test_deal_order_is_player_dealer_player_dealer() -> None:
    rnd = round_of("Kc 5c Td 6d Kh")
    dealt = [(e.hand, e.card.code) for e in rnd.events if isinstance(e, CardDealt)]
    assert dealt[:4] == [("player", "Kc"), ("dealer", "5c"), ("player", "Td"), ("dealer", "6d")]


# -- initial 27s --------------------------------------------------------------------------
def test_joker_as_first_card_makes_a_joanca_that_wins_at_once() -> None:
    rnd = round_of("Jo 5h 9c 7d")
    assert rnd.outcome == "player" and rnd.bonus is None
    assert rnd.totals() == {"player": 27, "dealer": 12}
    assert nets(rnd) == (10, -10, -10)


def test_joker_as_second_card_makes_a_joanca() -> None:
    rnd = round_of("5h 9c Jo 7d")
    assert rnd.outcome == "player" and rnd.points()["player"] == Points(27, False, "joanca")


def test_dealer_initial_27_wins_at_once() -> None:
    rnd = round_of("5h Jo 9c 7d")
    assert rnd.outcome == "dealer" and nets(rnd) == (-10, 8, -10)


def test_jo_jo_wins_and_pays_bonus_1_to_1() -> None:
    rnd = round_of("Jo 5h Jo 7d")
    assert rnd.outcome == "player" and rnd.bonus == "Jo Jo"
    assert nets(rnd) == (20, -10, -10)


def test_ace_king_is_a_finnish_27_paying_bonus_1_to_2() -> None:
    rnd = round_of("Kd 5h As 7d")
    assert rnd.outcome == "player" and rnd.bonus == "Finnish 27"
    assert nets(rnd) == (15, -10, -10)


def test_joanca_earns_no_bonus() -> None:
    assert round_of("Jo 5h 9c 7d").bonus is None


def test_finnish_27_beats_joanca() -> None:
    rnd = round_of("As Jo Kd 5c")
    assert rnd.outcome == "player" and rnd.bonus == "Finnish 27"
    assert round_of("Jo As 5h Kd").outcome == "dealer"


def test_jo_jo_beats_finnish_27() -> None:
    rnd = round_of("Jo As Jo Kd")
    assert rnd.outcome == "player" and rnd.bonus == "Jo Jo"
    assert round_of("As Jo Kd Jo").outcome == "dealer"


@pytest.mark.parametrize("cards", ["Jo Jo 5h 6c", "As Ad Kc Kh", "Jo Jo Jo Jo"])
def test_equal_initial_27s_go_to_the_dealer(cards: str) -> None:
    rnd = round_of(cards)
    assert rnd.outcome == "dealer" and nets(rnd) == (-10, 8, -10)


def test_joker_from_the_third_card_counts_zero() -> None:
    rnd = round_of("9c Tc 8d 5h Jo 6s 9h")
    labels = [
        points_text(e.total) for e in rnd.events if isinstance(e, CardDealt) and e.hand == "player"
    ]
    assert labels == ["", "hard 17", "hard 17", "hard 23"]
    assert rnd.totals() == {"player": 23, "dealer": 24}
    assert rnd.outcome == "dealer"


# -- the player's nine-rule table -------------------------------------------------------
def source_target(player: Total, dealer: Total) -> int:
    """The source's nine rules, written out independently of the engine's data."""
    d = dealer.value
    if not dealer.soft:
        if 4 <= d <= 10 or 15 <= d <= 23:
            return 25 if player.soft else 23
        if 11 <= d <= 14:
            return 25 if player.soft else 24
        return d + 1  # 24-26: greater than the dealer's total
    if d in (25, 26):
        return d + 1
    if d == 24:
        return 25 if player.soft else 24
    if d == 23:
        return 26 if player.soft else 23
    if 16 <= d <= 22:
        return 26 if player.soft else 24
    assert d == 15
    return 26 if player.soft else 25


def test_nine_rules_cover_every_dealer_total_once() -> None:
    TargetTable(NINE_RULES).check_covers(initial_totals(True))
    assert len(NINE_RULES) == 9


def test_nine_rule_table_for_every_player_and_dealer_total() -> None:
    table = TargetTable(NINE_RULES)
    players = [Total(v, False) for v in range(2, 36)] + [Total(v, True) for v in range(15, 28)]
    for dealer in initial_totals(True):
        for player in players:
            expected = player.value < source_target(player, dealer)
            assert table.hits(player, dealer) == expected, (player, dealer)


def test_engine_plays_the_nine_rules_for_all_two_card_hands() -> None:
    """Every player two-card hand against every dealer two-card hand (13^4 deals)."""
    suits = [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS]
    checked = 0
    for p1, d1, p2, d2 in itertools.product(RANKS, repeat=4):
        cards = [Card(r, s) for r, s in zip((p1, d1, p2, d2), suits, strict=True)]
        rnd = Finnish27Round()
        for card in cards:
            rnd.deal(card)
        if rnd.initial["player"] or rnd.initial["dealer"]:
            continue
        decision = next(e for e in rnd.events if isinstance(e, Decision) and e.hand == "player")
        player, dealer = rnd.total("player"), rnd.total("dealer")
        assert (decision.action == "hit") == (player.value < source_target(player, dealer))
        assert decision.forced
        checked += 1
    assert checked == 13**4 - (2 * 13 * 13 * 2 - 4)  # all but the deals with an Ace-King


def test_greater_than_the_dealer_means_hit_while_not_above() -> None:
    rnd = round_of("Kc Kh Qd Qs Ac")  # player 25 against dealer hard 25: hits to 26
    hits = [e for e in rnd.events if isinstance(e, Decision) and e.hand == "player"]
    assert [d.action for d in hits] == ["hit", "stand"]
    assert rnd.totals() == {"player": 26, "dealer": 25} and rnd.outcome == "player"


# -- the player's checks ------------------------------------------------------------------
def test_player_exactly_27_wins_at_once() -> None:
    rnd = round_of("Kc 2c 5d 3d 9h")
    assert rnd.outcome == "player" and len(rnd.hands["dealer"]) == 2
    assert nets(rnd) == (10, -10, -10)


def test_player_over_35_loses_at_once() -> None:
    rnd = round_of("Kc 5c Td 6d Kh")
    assert rnd.totals()["player"] == 36 and len(rnd.hands["dealer"]) == 2
    assert rnd.outcome == "dealer"


def test_player_over_27_but_not_over_35_lets_the_dealer_play() -> None:
    rnd = round_of("Kc 5c Td 6d Qh 9s 4h")
    assert rnd.totals() == {"player": 35, "dealer": 24}
    assert rnd.outcome == "dealer"


# -- the dealer's rule ---------------------------------------------------------------------
def test_dealer_hits_hard_below_24() -> None:
    rnd = round_of("9c Kh 9d Ts 5s 2h")
    assert rnd.totals() == {"player": 23, "dealer": 25} and rnd.outcome == "dealer"


def test_dealer_hits_soft_below_25() -> None:
    rnd = round_of("Tc As 8d 9h 5c Ac 2c")  # dealer soft 23 -> soft 24 -> soft 26
    assert rnd.total("dealer") == Total(26, soft=True)


def test_dealer_stands_on_soft_25() -> None:
    rnd = round_of("Tc As 8d 9h 5c Ac Ac")  # dealer soft 23 -> soft 24 -> soft 25
    assert rnd.total("dealer") == Total(25, soft=True)
    assert rnd.outcome == "dealer"


def test_dealer_stands_on_hard_24() -> None:
    rnd = round_of("Tc Kh 9d Js 5s 2c")  # dealer K J = hard 24; player must pass 24: 26
    assert len(rnd.hands["dealer"]) == 2
    assert rnd.totals() == {"player": 26, "dealer": 24} and rnd.outcome == "player"


# -- settlement -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("player", "dealer", "outcome"),
    [
        (28, 24, "push"),  # player over 27, strictly closer: push
        (28, 25, "push"),
        (30, 24, "dealer"),  # player over 27, as close: not strictly closer
        (24, 30, "push"),  # dealer over 27 and as close: push
        (20, 28, "push"),  # dealer over 27 and closer: push
        (25, 30, "player"),  # dealer over 27 and farther: the closer wins
        (29, 30, "player"),  # both over 27: closer wins
        (30, 30, "dealer"),  # both over 27, equal: dealer
        (30, 29, "dealer"),
        (25, 25, "dealer"),  # equal distance: dealer
        (26, 24, "player"),
        (24, 26, "dealer"),
        (27, 27, "dealer"),
    ],
)
def test_settlement_rules(player: int, dealer: int, outcome: str) -> None:
    assert compare(Total(player), Total(dealer))[0] == outcome


def test_push_when_player_over_27_is_strictly_closer() -> None:
    rnd = round_of("Kc 2c 9d 3d 6h Tc 9s")
    assert rnd.totals() == {"player": 28, "dealer": 24}
    assert rnd.outcome == "push" and nets(rnd) == (0, 0, 70)


def test_push_when_dealer_over_27_is_as_close() -> None:
    rnd = round_of("Tc 8c 9d 7d 5h 8s 7h")
    assert rnd.totals() == {"player": 24, "dealer": 30}
    assert rnd.outcome == "push" and nets(rnd) == (0, 0, 70)


def test_both_over_27_the_closer_wins() -> None:
    rnd = round_of("Kc 2c 9d 3d 6h Tc 8s 7h")
    assert rnd.totals() == {"player": 28, "dealer": 30} and rnd.outcome == "player"
    assert round_of("Kc 2c 9d 3d 8h Tc 8s 7h").outcome == "dealer"  # 30 against 30


# -- payouts ---------------------------------------------------------------------------------
def test_payouts_player_1_to_1_dealer_4_to_5_push_7_to_1() -> None:
    assert nets(round_of("Kc 2c 5d 3d 9h")) == (10, -10, -10)
    assert nets(round_of("5h Jo 9c 7d")) == (-10, 8, -10)
    assert nets(round_of("Kc 2c 9d 3d 6h Tc 9s")) == (0, 0, 70)


def test_payouts_are_exact_fractions() -> None:
    rnd = round_of("5h Jo 9c 7d", {"dealer": 15})
    assert rnd.net["dealer"] == 12
    rnd = round_of("Kd 5h As 7d", {"player": 15})
    assert rnd.net["player"] == Fraction(45, 2)  # 15 + 7.50 Finnish 27 bonus


def test_payout_variant_from_rules() -> None:
    rnd = round_of("5h Jo 9c 7d", {"dealer": 20}, dealer_pays=Fraction(19, 20))
    assert rnd.net["dealer"] == 19


# -- bonuses -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "bonus", "net"),
    [
        ("Tc 2d 9h 3d 8s", "8-9-10 mixed suits", 15),
        ("Tc 2d 9c 3d 8c", "8-9-10 suited", 20),
        ("Th 2d 9h 3d 8h", "8-9-10 suited", 20),
        ("Td 2c 9d 3c 8d", "8-9-10 suited", 20),
        ("Ts 2d 9s 3d 8s", "8-9-10 spades", 30),
        ("9c 2c 9d 3d 9h", "9-9-9 mixed suits", 10 + 90),
        ("9s 2c 9s 3d 9s", "9-9-9 same suit", 10 + 990),
        ("9s 9c 9d 9h 9c", "9-9-9 against dealer's 9-9", 10 + 9990),
        ("2s Kc 2h Qc 3d 4c 9s 7h", "Pair", 12),
        ("3s Kc 4h Qc 5d 6c 7s 2h", "Straight", 40),
        ("2h Kc 4h Qc 6h 8h 3h 4d", "Flush", 70),
        ("2s Kc 2h Qc 2d 2c Jo Kd 6s", "Five of a kind", 90),
        ("2s Kc 3h Qc 5d 7c 9s", None, 10),  # five cards, high card only: no bonus
    ],
)
def test_bonus_paytable(cards: str, bonus: str | None, net: int) -> None:
    rnd = round_of(cards)
    assert rnd.outcome == "player"
    assert rnd.bonus == bonus
    assert rnd.net["player"] == net


def test_nine_nine_nine_awards_are_flat_multiples_of_the_table_minimum() -> None:
    rnd = round_of("9c 2c 9d 3d 9h", {"player": 50})
    assert rnd.net["player"] == 50 + 90  # 9 x the 10 minimum, whatever the stake
    limits = TableLimits(minimum=Fraction(25), maximum=Fraction(500))
    rnd = round_of("9c 2c 9d 3d 9h", {"player": 25}, table=limits)
    assert rnd.net["player"] == 25 + 225


def test_bonus_is_paid_only_on_a_winning_player_hand() -> None:
    rnd = round_of("2s Kc 2h Qc 3d 4c 9s 5h Kd")  # a pair, but 38 loses at once
    assert rnd.outcome == "dealer" and rnd.bonus is None and rnd.net["player"] == -10


def test_four_card_hands_earn_no_bonus() -> None:
    rnd = round_of("5s 2c 5h 3d 8c 9d")
    assert rnd.outcome == "player" and rnd.bonus is None and rnd.net["player"] == 10


# -- the state machine -------------------------------------------------------------------------
def test_a_complete_round_takes_no_more_cards_and_no_decisions() -> None:
    rnd = round_of("Jo 5h 9c 7d")
    with pytest.raises(IllegalAction, match="complete"):
        rnd.deal(Card.parse("2c"))
    with pytest.raises(IllegalAction, match="nobody decides"):
        rnd.hit()
    assert not rnd.can_hit() and not rnd.can_stand()


@pytest.mark.parametrize(
    ("wagers", "message"),
    [
        ({"banker": 10}, "no wager 'banker'"),
        ({"player": -5}, "must be positive"),
        ({"player": 0}, "must be positive"),
        ({"player": 5}, "below the table minimum"),
        ({"player": 5000}, "above the table maximum"),
        ({"player": "ten"}, "is not an amount"),
    ],
)
def test_bad_wagers_are_refused(wagers: dict[str, object], message: str) -> None:
    with pytest.raises(WagerError, match=message):
        Finnish27Round(Finnish27Rules(), wagers)  # type: ignore[arg-type]


def test_several_wagers_at_once() -> None:
    rnd = round_of("Kd 5h As 7d", {"player": 10, "push": 20})
    assert rnd.net == {"player": 15, "push": -20}


# -- every ruling is a default a variant may change ----------------------------------------------
def test_variant_jokers_do_not_make_27() -> None:
    rnd = Finnish27Round(Finnish27Rules(jo_jo_27=False, joanca_27=False), ALL)
    for card in ("Jo", "5h", "9c", "7d"):
        rnd.deal(Card.parse(card))
    assert not rnd.is_complete and rnd.total("player") == Total(9)


def test_variant_equal_initial_27s_push() -> None:
    rnd = round_of("Jo Jo 5h 6c", equal_initial_27s="push")
    assert rnd.outcome == "push" and nets(rnd) == (0, 0, 70)
    assert round_of("Jo As 5h Kd", equal_initial_27s="push").outcome == "dealer"  # not equal


def test_variant_equal_distance_pushes() -> None:
    rules = Finnish27Rules(equal_distance="push")
    assert compare(Total(25), Total(25), rules)[0] == "push"
    assert compare(Total(30), Total(30), rules)[0] == "push"


def test_variant_without_the_push_rules() -> None:
    rules = Finnish27Rules(player_over="wins_if_closer", dealer_over="dealer_wins_if_closer")
    assert compare(Total(28), Total(24), rules)[0] == "player"  # closer wins outright
    assert compare(Total(24), Total(30), rules)[0] == "dealer"  # equal distance: dealer


def test_bad_ruling_values_are_refused() -> None:
    with pytest.raises(ValueError, match="equal_distance"):
        Finnish27Rules(equal_distance="nobody")
