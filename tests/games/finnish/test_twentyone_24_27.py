"""21-24-27: one named test per rule of RULES.md, on stacked cards.

Cards are in dealing order: player, dealer, player, dealer, the player's hits,
then the dealer's.  The player follows the source's basic strategy where free.
"""

from __future__ import annotations

import itertools

import pytest

from cardroom.core.cards import RANKS, Card, Rank, Suit, parse_cards
from cardroom.core.events import Decision
from cardroom.games.base import Action, IllegalAction, Round
from cardroom.games.finnish.hands import Total, initial_totals
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    BASIC_STRATEGY_ROWS,
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from tests.conftest import play

BASIC = TableStrategy()


def basic(rnd: Round) -> Action:
    assert isinstance(rnd, TwentyOne2427Round)
    return BASIC.play(rnd)


def round_of(cards: str, stake: int = 10, **rules: object) -> TwentyOne2427Round:
    rnd = TwentyOne2427Round(TwentyOne2427Rules(**rules), {"player": stake})  # type: ignore[arg-type]
    play(rnd, cards, basic)
    return rnd


def dealt(cards: str, auto_forced: bool = True) -> TwentyOne2427Round:
    """A round after its first cards, waiting for whatever comes next."""
    rnd = TwentyOne2427Round(auto_forced=auto_forced, wagers={"player": 10})
    for card in parse_cards(cards):
        rnd.deal(card)
    return rnd


def player_decisions(rnd: Round) -> list[tuple[str, bool]]:
    return [
        (e.action, e.forced) for e in rnd.events if isinstance(e, Decision) and e.hand == "player"
    ]


# -- Jokers and initial 27s ----------------------------------------------------------------
def test_jokers_always_count_zero() -> None:
    rnd = dealt("Jo 5h 9c 7d")
    assert not rnd.is_complete
    assert rnd.total("player") == Total(9) and rnd.total("dealer") == Total(12)
    assert dealt("Jo 5h Jo 7d").total("player") == Total(0)


def test_only_ace_king_is_an_initial_27() -> None:
    assert not dealt("Jo 5h Kd 7d").is_complete
    assert not dealt("Jo 5h Jo 7d").is_complete


def test_player_finnish_27_alone_wins() -> None:
    rnd = round_of("As 5h Kd 7d")
    assert rnd.outcome == "player" and rnd.net == {"player": 10}
    assert rnd.totals()["player"] == 27


def test_dealer_finnish_27_alone_loses_for_the_player() -> None:
    rnd = round_of("5h As 7d Kd")
    assert rnd.outcome == "dealer" and rnd.net == {"player": -10}


def test_both_finnish_27_push() -> None:
    rnd = round_of("As Ad Kc Kh")
    assert rnd.outcome == "push" and rnd.net == {"player": 0}


# -- forced play -----------------------------------------------------------------------------
def source_forced(player: Total, dealer: Total) -> str | None:
    """The source's forced-play rules, written out independently of the engine."""
    weak = dealer.value < (24 if dealer.soft else 21)
    if weak:
        if not player.soft and player.value < 15:
            return "hit"
        if player.soft and player.value < 23:
            return "hit"
        if not player.soft and player.value >= 25:
            return "stand"
        if player.soft and player.value == 27:
            return "stand"
        return None
    if player.value < dealer.value:
        return "hit"
    if not player.soft or player.value > dealer.value:
        return "stand"
    return None


def test_forced_play_for_every_player_and_dealer_total() -> None:
    forced = TwentyOne2427Rules().forced
    players = [Total(v, False) for v in range(0, 28)] + [Total(v, True) for v in range(14, 28)]
    for dealer in initial_totals(False):
        for player in players:
            action, _ = forced.forced(player, dealer)
            assert action == source_forced(player, dealer), (player, dealer)


def test_engine_offers_exactly_the_legal_actions_for_all_two_card_hands() -> None:
    """Every two-card player hand against every dealer hand, Jokers included (14^4 deals)."""
    ranks = [*RANKS, Rank.JOKER]
    suits = [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS]
    for p1, d1, p2, d2 in itertools.product(ranks, repeat=4):
        deal = zip((p1, d1, p2, d2), suits, strict=True)
        cards = [Card(r, None if r is Rank.JOKER else s) for r, s in deal]
        rnd = TwentyOne2427Round(auto_forced=False)
        for card in cards:
            rnd.deal(card)
        if rnd.is_complete:
            assert rnd.initial["player"] or rnd.initial["dealer"]
            continue
        expected = source_forced(rnd.total("player"), rnd.dealer_initial)
        legal = {a.value for a in rnd.legal_actions()}
        assert legal == ({expected} if expected else {"hit", "stand"})


def test_weak_dealer_player_must_hit_hard_below_15() -> None:
    rnd = round_of("5c 5h 6d 7d 3s Ts 9c")  # 11 and 14 forced hits, 24 free: stands
    assert player_decisions(rnd) == [("hit", True), ("hit", True), ("stand", False)]
    assert rnd.totals() == {"player": 24, "dealer": 21} and rnd.outcome == "player"


def test_weak_dealer_player_must_hit_soft_below_23() -> None:
    rnd = dealt("Ac 5h 7d 7c", auto_forced=False)  # soft 21 against hard 12
    assert rnd.legal_actions() == {Action.HIT}


def test_weak_dealer_player_must_stand_hard_25_or_more() -> None:
    rnd = dealt("Kc 5h Qd 7c", auto_forced=False)
    assert rnd.legal_actions() == {Action.STAND}


def test_weak_dealer_player_must_stand_on_soft_27() -> None:
    rnd = dealt("Ac 5h 6d 7c", auto_forced=False)  # soft 20: must hit
    rnd.hit()
    rnd.deal(Card.parse("7s"))  # soft 27
    assert rnd.total("player") == Total(27, soft=True)
    assert rnd.legal_actions() == {Action.STAND}


def test_weak_dealer_player_is_free_between() -> None:
    for cards in ("Kc 5h 5d 7c", "Kc 5h Td 7c", "Ac 5h 9d 7c", "Ac 5h Qd 7c"):  # 15, 23, s23, s26
        assert dealt(cards, auto_forced=False).legal_actions() == {Action.HIT, Action.STAND}


def test_strong_dealer_player_must_hit_below_the_dealer() -> None:
    assert dealt("Tc Kh 9d 8d", auto_forced=False).legal_actions() == {Action.HIT}  # 19 v 21


def test_strong_dealer_player_must_stand_hard_at_or_above_the_dealer() -> None:
    assert dealt("Kc Kh 8c 8d", auto_forced=False).legal_actions() == {Action.STAND}  # 21 v 21


def test_strong_dealer_player_must_stand_soft_above_the_dealer() -> None:
    assert dealt("Ac Kh 8c 8d", auto_forced=False).legal_actions() == {Action.STAND}  # s22 v 21


def test_strong_dealer_player_free_only_with_an_equal_soft_total() -> None:
    assert dealt("Ac Kh 7c 8d", auto_forced=False).legal_actions() == {Action.HIT, Action.STAND}


def test_forced_plays_are_made_by_the_engine_and_say_so() -> None:
    rnd = dealt("Kc 5h Qd 7c")  # hard 25 against a weak dealer: the engine stands
    decision = next(e for e in rnd.events if isinstance(e, Decision) and e.hand == "player")
    assert decision.action == "stand" and decision.forced
    assert decision.why.rule.startswith("must_stand")


def test_an_illegal_decision_is_refused_and_changes_nothing() -> None:
    rnd = dealt("Kc 5h Qd 7c", auto_forced=False)
    before = list(rnd.events)
    with pytest.raises(IllegalAction, match="you cannot hit: the rules make you stand"):
        rnd.hit()
    assert rnd.events == before and rnd.legal_actions() == {Action.STAND}
    assert not rnd.can_hit() and rnd.can_stand()


def test_decisions_out_of_turn_are_refused() -> None:
    rnd = dealt("Kc 5h Qd")
    with pytest.raises(IllegalAction, match="next card goes to dealer"):
        rnd.stand()
    rnd = dealt("Kc 5h 5d 7c")  # free decision pending
    with pytest.raises(IllegalAction, match="waiting for the player"):
        rnd.deal(Card.parse("2c"))
    rnd = round_of("As 5h Kd 7d")
    with pytest.raises(IllegalAction, match="round is over"):
        rnd.hit()


# -- the dealer, and settlement -------------------------------------------------------------
def test_player_over_27_loses_at_once() -> None:
    rnd = round_of("9c Kd 9h Qd Ts")  # 18 must hit below the dealer's 25: 28
    assert rnd.outcome == "dealer" and len(rnd.hands["dealer"]) == 2
    assert rnd.net == {"player": -10}


def test_dealer_hits_hard_below_21_and_busts_over_27() -> None:
    rnd = round_of("Kc 5h Qd 7d 8s Kh")  # dealer 12 -> 20 -> 33
    assert rnd.totals() == {"player": 25, "dealer": 33}
    assert rnd.outcome == "player" and rnd.net == {"player": 10}


def test_dealer_hits_soft_below_24() -> None:
    rnd = round_of("Kc Ah Qd 5d 4s Ac")  # dealer soft 19 -> soft 23 -> soft 24
    assert rnd.total("dealer") == Total(24, soft=True) and rnd.outcome == "player"


def test_dealer_stands_on_hard_21() -> None:
    rnd = round_of("Kh Kc Jd 8d")
    assert len(rnd.hands["dealer"]) == 2 and rnd.outcome == "player"


def test_closer_to_27_wins() -> None:
    assert round_of("Kh Kc Jd 8d").outcome == "player"  # 24 against 21
    rnd = round_of("Kh 9c Td 9d 8s")  # 23 stands against 18; the dealer draws to 26
    assert rnd.totals() == {"player": 23, "dealer": 26}
    assert rnd.outcome == "dealer" and rnd.net == {"player": -10}


def test_equal_distance_pushes() -> None:
    rnd = round_of("Kh Kc Jd Jc")
    assert rnd.totals() == {"player": 24, "dealer": 24}
    assert rnd.outcome == "push" and rnd.net == {"player": 0}


def test_wins_pay_1_to_1_and_a_variant_can_change_it() -> None:
    from fractions import Fraction

    assert round_of("Kh Kc Jd 8d", stake=30).net == {"player": 30}
    assert round_of("Kh Kc Jd 8d", stake=30, win_pays=Fraction(3, 2)).net == {"player": 45}


# -- basic strategy ----------------------------------------------------------------------------
#: The source's eighteen rows: dealer total -> (hard target, soft target), or "eq" for
#: "at least equal to the dealer's hand total".
SOURCE_ROWS: dict[tuple[str, range], tuple[int, int] | str] = {
    ("hard", range(0, 7)): (22, 24),
    ("hard", range(7, 8)): (22, 23),
    ("hard", range(8, 9)): (21, 23),
    ("hard", range(9, 11)): (22, 23),
    ("hard", range(11, 16)): (22, 24),
    ("hard", range(16, 17)): (21, 24),
    ("hard", range(17, 18)): (21, 23),
    ("hard", range(18, 19)): (20, 23),
    ("hard", range(19, 21)): (19, 23),
    ("hard", range(21, 22)): (21, 22),
    ("hard", range(22, 23)): (22, 23),
    ("hard", range(23, 24)): (23, 24),
    ("hard", range(24, 25)): (24, 25),
    ("any", range(25, 27)): "eq",
    ("soft", range(24, 25)): (24, 25),
    ("soft", range(17, 24)): (22, 24),
    ("soft", range(16, 17)): (22, 25),
    ("soft", range(14, 16)): (23, 25),
}


def source_hits(player: Total, dealer: Total) -> bool:
    kind = "soft" if dealer.soft else "hard"
    for (row_kind, span), plan in SOURCE_ROWS.items():
        if row_kind in (kind, "any") and dealer.value in span:
            if plan == "eq":
                return player.value < dealer.value
            assert isinstance(plan, tuple)
            return player.value < (plan[1] if player.soft else plan[0])
    raise AssertionError(f"no source row for {dealer}")


def test_basic_strategy_has_the_source_eighteen_rows() -> None:
    assert len(SOURCE_ROWS) == 18
    assert len(BASIC_STRATEGY_ROWS) == 19  # "25 or 26" written once for hard, once for soft
    BASIC_STRATEGY.check_covers(initial_totals(False))


def test_basic_strategy_for_every_player_and_dealer_total() -> None:
    players = [Total(v, False) for v in range(0, 28)] + [Total(v, True) for v in range(14, 28)]
    for dealer in initial_totals(False):
        for player in players:
            assert BASIC.decide(player, dealer) == (
                Action.HIT if source_hits(player, dealer) else Action.STAND
            ), (player, dealer)


def test_basic_strategy_plays_a_free_hand() -> None:
    rnd = round_of("Tc Kh Jd 5d 3s")  # hard 21 against hard 18 (free): hit to 20, so stand
    assert player_decisions(rnd) == [("stand", False)]
    rnd = round_of("Tc Kh 9d 5d 2s 3c")  # hard 19 against hard 18: hit, then stand on 21
    assert player_decisions(rnd) == [("hit", False), ("stand", False)]
    assert rnd.outcome == "push"


# -- every ruling is a default a variant may change ----------------------------------------------
def test_variant_both_finnish_27s_go_to_the_dealer() -> None:
    rnd = round_of("As Ad Kc Kh", both_initial_27s="dealer")
    assert rnd.outcome == "dealer" and rnd.net == {"player": -10}


def test_variant_equal_distance_goes_to_the_dealer() -> None:
    rnd = round_of("Kh Kc Jd Jc", equal_distance="dealer")
    assert rnd.outcome == "dealer"


def test_variant_jokers_make_27() -> None:
    rnd = round_of("Jo 5h 9c 7d", jokers_make_27=True)
    assert rnd.outcome == "player" and rnd.totals()["player"] == 27


def test_bad_21_24_27_ruling_values_are_refused() -> None:
    with pytest.raises(ValueError, match="both_initial_27s"):
        TwentyOne2427Rules(both_initial_27s="nobody")
