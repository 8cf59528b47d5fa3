"""finnish27's rule options (issue 21): how two finished hands settle, a 27 that waits
for the dealer's, and the house's fee per 100 staked.

Each option is checked on hand-picked hands, in the engine's own rounds, in the rules
file (the old switches still read and write as before), against the generic walk of
the engine with replacement and without (so both exact analyses count what the engine
plays), and in the simulation (the kernel plays the engine's rounds, and its means lie
within 4 standard errors of the exact figures).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from cardroom.analysis.report import GameReport, decimal_text
from cardroom.app.runner import exact_means, run
from cardroom.core.cards import parse_cards
from cardroom.core.rules import RulesError, load_rules_text, rules_to_toml
from cardroom.games import get_game
from cardroom.games.finnish.analysis import analyze_finnish27
from cardroom.games.finnish.disclosure import finnish27_text, twentyone_text
from cardroom.games.finnish.finnish27 import (
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    compare,
)
from cardroom.games.finnish.hands import Total
from cardroom.games.finnish.replacement import DrawOdds
from cardroom.games.finnish.shoe import analyze_21_24_27_shoe, analyze_finnish27_shoe
from cardroom.games.finnish.twentyone_24_27 import (
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124
from cardroom.games.finnish.twentyone_analysis import analyze_21_24_27
from cardroom.games.finnish.words import RULE_WORDS
from cardroom.games.walk import exact
from tests.games.finnish.test_analysis import (
    BONUS_SHOES,
    LONG_SECOND_SHOE,
    SHOES,
    TotalsOnlyRound,
    outcome,
)
from tests.games.finnish.test_shoe import (
    NINES_SHOE,
    POKER_SHOE,
    TWENTYONE_SHOE,
    check_lines_against_the_walk,
    compile_once,
)
from tests.games.test_kernels import replay_against_engine

# (not in the "finnish-shoe" group: compile_once() already has one worker compile the
# finite-shoe kernels while the other waits and loads them from Numba's cache, and this
# module's minute of work is better spread over both workers)

#: every value of every option, spread over three variants (each differs from the
#: defaults in most of its fields)
VARIANTS: list[dict[str, Any]] = [
    {"equal_distance": "player", "player_over": "loses", "dealer_over": "player_wins"},
    {"both_over": "push", "dealer_28": "stalemate", "both_27": "stalemate"},
    {
        "equal_distance": "push",
        "player_over": "wins_if_closer",
        "dealer_over": "dealer_wins_if_closer",
        "both_over": "player_loses",
        "dealer_28": "dealer_wins",
        "both_27": "stalemate",
    },
]
IDS = ["over-27s", "stalemates", "by-distance"]
#: the player wager's exact mean (percent) of TWENTYONE_VARIANTS[1] from the real shoe
PINNED_2124 = "-19.0896"

#: the variant the simulation plays, with a fee
SIMULATED = Finnish27Rules(
    equal_distance="player",
    player_over="loses",
    both_over="push",
    dealer_28="stalemate",
    both_27="stalemate",
    fee_per_100=Fraction(1),
)


def outcome_of(player: int, dealer: int, **options: Any) -> str:
    return compare(Total(player), Total(dealer), Finnish27Rules(**options))[0]


# -- the rules, hand by hand --------------------------------------------------------------
def test_equal_distance_may_go_to_the_player() -> None:
    assert outcome_of(25, 25, equal_distance="player") == "player"
    assert outcome_of(30, 30, equal_distance="player") == "player"
    by_distance = {"equal_distance": "player", "dealer_over": "dealer_wins_if_closer"}
    assert outcome_of(24, 30, **by_distance) == "player"  # no push rule fits


def test_a_player_over_27_against_a_dealer_who_is_not() -> None:
    # 28 is closer than 25: a push today, a loss or a win as the option says
    assert outcome_of(28, 25) == "push"
    assert outcome_of(28, 25, player_over="loses") == "dealer"
    assert outcome_of(28, 25, player_over="wins_if_closer") == "player"
    # 30 is farther than 25: the dealer wins whatever the option
    for option in ("loses", "push_if_closer", "wins_if_closer"):
        assert outcome_of(30, 25, player_over=option) == "dealer"
    # equally close: the equal distance rule, unless the player simply loses
    assert outcome_of(29, 25, player_over="wins_if_closer", equal_distance="push") == "push"
    assert outcome_of(29, 25, player_over="loses", equal_distance="push") == "dealer"


def test_a_dealer_over_27_against_a_player_who_is_not() -> None:
    # dealer 28 is closer than 25: a push today
    assert outcome_of(25, 28) == "push"
    assert outcome_of(25, 28, dealer_over="player_wins") == "player"
    assert outcome_of(25, 28, dealer_over="dealer_wins_if_closer") == "dealer"
    # the player closer: the player wins whatever the option
    for option in ("player_wins", "push_if_as_close", "dealer_wins_if_closer"):
        assert outcome_of(26, 30, dealer_over=option) == "player"
    # equally close: a push today; the equal distance rule when by distance
    assert outcome_of(25, 29) == "push"
    assert outcome_of(25, 29, dealer_over="dealer_wins_if_closer") == "dealer"
    assert outcome_of(25, 29, dealer_over="player_wins", equal_distance="dealer") == "player"


def test_both_over_27() -> None:
    assert outcome_of(29, 31) == "player"  # the closer wins
    assert outcome_of(31, 29) == "dealer"
    assert outcome_of(30, 30) == "dealer"  # equal distance: the dealer
    assert outcome_of(29, 31, both_over="push") == "push"
    assert outcome_of(29, 31, both_over="player_loses") == "dealer"


def test_a_dealer_s_28() -> None:
    assert outcome_of(24, 28) == "push"  # over and as close: today's push rule
    assert outcome_of(25, 28, dealer_over="player_wins") == "player"
    assert outcome_of(25, 28, dealer_over="player_wins", dealer_28="stalemate") == "push"
    assert outcome_of(25, 28, dealer_over="player_wins", dealer_28="dealer_wins") == "dealer"
    assert outcome_of(30, 28, dealer_28="stalemate") == "push"  # both over: still 28
    assert outcome_of(30, 29, dealer_28="stalemate") == "dealer"  # only 28
    # a player's 27 (when it waits for the dealer) is never beaten by a 28
    assert outcome_of(27, 28, dealer_28="dealer_wins", both_27="stalemate") == "player"


def test_a_player_s_27_waits_for_the_dealer_s_in_a_stalemate() -> None:
    """Player K 4 T makes 27 against the dealer's 9 8, who draws a Ten: 27 too."""
    cards = parse_cards("Kd 9s 4h 8c Ts Th")

    def play(rules: Finnish27Rules) -> Finnish27Round:
        rnd = Finnish27Round(rules, {"player": 10, "dealer": 10, "push": 10})
        for card in cards:
            if rnd.is_complete:
                break
            rnd.deal(card)
        assert rnd.is_complete
        return rnd

    today = play(Finnish27Rules())
    assert today.outcome == "player" and len(today.hands["dealer"]) == 2
    stalemate = play(Finnish27Rules(both_27="stalemate"))
    assert stalemate.outcome == "push" and len(stalemate.hands["dealer"]) == 3
    assert stalemate.net == {"player": 0, "dealer": 0, "push": 70}
    # against any other dealer's total the 27 still wins (with its bonus)
    assert outcome_of(27, 24, both_27="stalemate") == "player"
    assert outcome_of(27, 27, both_27="stalemate") == "push"
    # or the dealer's 27 wins
    dealer = play(Finnish27Rules(both_27="dealer_wins"))
    assert dealer.outcome == "dealer" and len(dealer.hands["dealer"]) == 3
    assert outcome_of(27, 27, both_27="dealer_wins") == "dealer"
    assert outcome_of(27, 24, both_27="dealer_wins") == "player"
    words = " ".join(finnish27_text(Finnish27Rules(both_27="dealer_wins")).sentences)
    assert "a dealer's 27 wins, any other total loses to it" in words


def test_bad_choices_are_refused_naming_the_field() -> None:
    for name in ("player_over", "dealer_over", "both_over", "dealer_28", "both_27"):
        with pytest.raises(ValueError, match=f"^{name}: must be"):
            Finnish27Rules(**{name: "sometimes"})
    with pytest.raises(ValueError, match="fee_per_100"):
        Finnish27Rules(fee_per_100=Fraction(100))
    with pytest.raises(ValueError, match="fee_per_100"):
        Finnish27Rules(fee_per_100=Fraction(-1))


def test_every_rule_of_the_options_has_its_sentence() -> None:
    rules = {
        compare(Total(p), Total(d), Finnish27Rules(**variant))[1].rule
        for variant in VARIANTS
        for p in range(14, 36)
        for d in range(17, 36)
    }
    assert rules <= set(RULE_WORDS)
    assert {"both_27_stalemate", "dealer_28_wins", "player_over_loses"} <= rules


# -- the rules file ---------------------------------------------------------------------------
def test_old_switches_read_as_the_options_and_mean_the_same() -> None:
    default = Finnish27Rules()
    old = load_rules_text(
        default, "push_player_over_closer = false\npush_dealer_over_as_close = false\n"
    )
    assert old.player_over == "wins_if_closer"
    assert old.dealer_over == "dealer_wins_if_closer"
    assert not old.push_player_over_closer and not old.push_dealer_over_as_close
    kept = load_rules_text(default, "push_player_over_closer = true\n")
    assert kept == default
    # the old switch and its field may both be given only when they agree
    same = "push_player_over_closer = true\nplayer_over = 'push_if_closer'\n"
    assert load_rules_text(default, same) == default
    with pytest.raises(RulesError, match="'push_player_over_closer': false means player_over"):
        load_rules_text(default, "push_player_over_closer = false\nplayer_over = 'loses'\n")
    with pytest.raises(RulesError, match="'push_dealer_over_as_close': must be true or false"):
        load_rules_text(default, "push_dealer_over_as_close = 'yes'\n")


def test_the_defaults_file_is_as_before_and_variants_go_round() -> None:
    text = rules_to_toml(Finnish27Rules())
    assert "push_player_over_closer = true\npush_dealer_over_as_close = true\n" in text
    for key in ("player_over", "dealer_over", "both_over", "dealer_28", "both_27", "fee_per_100"):
        assert f"\n{key} =" not in text
    for variant in [*VARIANTS, {"fee_per_100": Fraction(5, 2)}]:
        rules = Finnish27Rules(**variant)
        assert load_rules_text(Finnish27Rules(), rules_to_toml(rules)) == rules
    written = rules_to_toml(SIMULATED)
    assert 'player_over = "loses"' in written and 'fee_per_100 = "1"' not in written
    assert "fee_per_100 = 1" in written and "push_dealer_over_as_close = true" in written


def test_the_rules_page_says_each_option() -> None:
    def text(**options: Any) -> str:
        return " ".join(finnish27_text(Finnish27Rules(**options)).sentences)

    default = text()
    assert "Exactly 27 wins at once" in default and "fee" not in default
    assert "A player over 27 loses when the dealer" in text(player_over="loses")
    assert "A dealer over 27 loses when the player" in text(dealer_over="player_wins")
    assert "Both hands over 27 make a push" in text(both_over="push")
    assert "both hands are over 27 the player loses" in text(both_over="player_loses")
    assert "final 28 is a stalemate" in text(dealer_28="stalemate")
    assert "final 28 wins" in text(dealer_28="dealer_wins")
    stalemate = text(both_27="stalemate")
    assert "Exactly 27" not in stalemate and "waits for the dealer's hand" in stalemate
    assert "equally close goes to the player" in text(equal_distance="player")
    assert "a fee of 2.50 per 100 staked" in text(fee_per_100=Fraction(5, 2))


# -- the fee --------------------------------------------------------------------------------
def test_the_fee_comes_off_the_stake_and_a_loss_never_costs_more() -> None:
    """A fee of 1 per 100 on 10: 0.10 goes to the house and 9.90 plays."""
    rules = Finnish27Rules(fee_per_100=Fraction(1))
    rnd = Finnish27Round(rules, {"player": 10, "dealer": 10, "push": 10})
    for card in parse_cards("Kd 5h As 7d"):  # the player's Finnish 27: 1:1 + 1:2 bonus
        rnd.deal(card)
    assert rnd.net == {"player": Fraction("14.75"), "dealer": -10, "push": -10}
    settled = [e for e in rnd.events if getattr(e, "wager", None) == "player"]
    assert settled[0].why.get("fee") == Fraction(1, 10)
    push = Finnish27Round(rules, {"player": 10, "dealer": 10, "push": 10})
    push.outcome = "push"
    assert push.settle("player", Fraction(10))[0] == Fraction(-1, 10)
    assert push.settle("push", Fraction(10))[0] == Fraction(693, 10) - Fraction(1, 10)


def test_the_fee_shifts_every_wager_exactly() -> None:
    """Every line's net per unit staked is (1 - f) n - f, a loss -1: each wager's mean
    is (1 - f) times today's less f (f the fee per unit).  (The flat 9-9-9 awards are
    left out here: they are amounts, not odds on what plays.)"""
    odds = DrawOdds.of_counts(BONUS_SHOES[0])
    fee = Fraction(5, 2)
    f = fee / 100
    flat = BonusTable(
        nines_mixed=Fraction(0), nines_suited=Fraction(0), nines_vs_dealer_nines=Fraction(0)
    )
    base = analyze_finnish27(Finnish27Rules(bonus=flat), odds=odds)
    charged = analyze_finnish27(Finnish27Rules(bonus=flat, fee_per_100=fee), odds=odds)
    assert charged.outcomes == base.outcomes
    for wager, report in base.wagers.items():
        assert charged.wagers[wager].expected == (1 - f) * report.expected - f
    assert any("fee of 2.50 per 100" in line for line in charged.assumptions)


# -- the exact analyses against the engine ------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
@pytest.mark.parametrize("counts", LONG_SECOND_SHOE)
def test_with_replacement_matches_the_engine_walk(variant: dict[str, Any], counts: Any) -> None:
    rules = Finnish27Rules(**variant)
    walked = exact(lambda: TotalsOnlyRound(rules), counts, leaf=outcome, replacement=True)
    report = analyze_finnish27(rules, odds=DrawOdds.of_counts(counts))
    assert {k: v for k, v in report.outcomes.items() if v} == walked


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
@pytest.mark.parametrize("shoe", [POKER_SHOE, NINES_SHOE], ids=["poker", "nines"])
def test_the_real_shoe_matches_the_engine_walk_line_by_line(
    variant: dict[str, Any], shoe: Any
) -> None:
    check_lines_against_the_walk(Finnish27Rules(**variant), shoe)


def test_each_option_changes_the_exact_figures_as_it_says() -> None:
    """With replacement, on a small shoe: an option that turns pushes into losses
    moves exactly those rounds, and so on."""
    odds = DrawOdds.of_counts(SHOES[0])
    base = analyze_finnish27(odds=odds).outcomes
    loses = analyze_finnish27(Finnish27Rules(player_over="loses"), odds=odds).outcomes
    moved = base["push"] - loses["push"]
    assert moved > 0 and loses["dealer"] - base["dealer"] == moved
    assert loses["player"] == base["player"]
    wins = analyze_finnish27(Finnish27Rules(dealer_over="player_wins"), odds=odds).outcomes
    assert wins["push"] < base["push"] and wins["player"] - base["player"] == (
        base["push"] - wins["push"]
    )
    assert wins["dealer"] == base["dealer"]
    both = analyze_finnish27(Finnish27Rules(both_over="push"), odds=odds).outcomes
    assert both["player"] < base["player"] and both["dealer"] < base["dealer"]


# -- the simulation ---------------------------------------------------------------------------
def test_the_kernel_plays_the_options_as_the_engine_does() -> None:
    for variant in VARIANTS[1:]:
        rules = replace(SIMULATED, **variant)
        replay_against_engine("finnish27", rules, "basic", 5_000)
    replay_against_engine("finnish27", SIMULATED, "basic", 5_000)


@pytest.mark.long
def test_simulation_agrees_with_the_exact_figures_of_a_variant() -> None:
    """SIMULATED's exact means from the real shoe (pinned) and 200,000 rounds within 4
    standard errors of them."""
    compile_once()
    report: GameReport = analyze_finnish27_shoe(SIMULATED)
    assert {w: decimal_text(r.expected * 100, 4) for w, r in report.wagers.items()} == {
        "player": "1.8184",
        "dealer": "-5.5291",
        "push": "92.0122",
    }
    # (the simulator's exact column is this analysis: its route is checked on the
    # cheaper 21-24-27 variant below, not by counting finnish27 twice)
    exact_values = {w: r.expected for w, r in report.wagers.items()}
    result = run("finnish27", SIMULATED, 200_000, seed=21)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, exact_values[wager])
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)
    assert get_game("finnish27").plays(SIMULATED)


# -- 21-24-27 -------------------------------------------------------------------------------
#: 21-24-27's options: equal distance to the player, a dealer's 28 both ways, and a fee
TWENTYONE_VARIANTS = [
    TwentyOne2427Rules(equal_distance="player", dealer_28="stalemate"),
    TwentyOne2427Rules(equal_distance="dealer", dealer_28="dealer_wins", fee_per_100=Fraction(2)),
]


def test_21_24_27_options_hand_by_hand() -> None:
    def settle(player: int, dealer: int, **options: Any) -> str:
        return compare2124(Total(player), Total(dealer), TwentyOne2427Rules(**options))[0]

    assert settle(25, 25) == "push"
    assert settle(25, 25, equal_distance="player") == "player"
    assert settle(25, 28) == "player"  # the dealer is over 27
    assert settle(25, 28, dealer_28="stalemate") == "push"
    assert settle(25, 28, dealer_28="dealer_wins") == "dealer"
    assert settle(27, 28, dealer_28="dealer_wins") == "player"  # not against a 27
    assert settle(25, 29, dealer_28="dealer_wins") == "player"  # only 28
    with pytest.raises(ValueError, match=r"^dealer_28: must be"):
        TwentyOne2427Rules(dealer_28="never")
    with pytest.raises(ValueError, match=r"^equal_distance: must be"):
        TwentyOne2427Rules(equal_distance="nobody")


def test_21_24_27_rules_file_and_page() -> None:
    text = rules_to_toml(TwentyOne2427Rules())
    assert "dealer_28" not in text and "fee_per_100" not in text
    for rules in TWENTYONE_VARIANTS:
        assert load_rules_text(TwentyOne2427Rules(), rules_to_toml(rules)) == rules
    page = " ".join(twentyone_text(TWENTYONE_VARIANTS[0]).sentences)
    assert "equally close goes to the player" in page and "final 28 is a stalemate" in page
    page = " ".join(twentyone_text(TWENTYONE_VARIANTS[1]).sentences)
    assert "final 28 wins" in page and "a fee of 2 per 100 staked" in page
    assert "equally close is a push." in " ".join(twentyone_text(TwentyOne2427Rules()).sentences)


@pytest.mark.parametrize("rules", TWENTYONE_VARIANTS, ids=["stalemate", "dealer-wins"])
@pytest.mark.parametrize("counts", LONG_SECOND_SHOE)
def test_21_24_27_with_replacement_matches_the_engine_walk(
    rules: TwentyOne2427Rules, counts: Any
) -> None:
    walked = exact(
        lambda: TwentyOne2427Round(rules), counts, TableStrategy().play, outcome, replacement=True
    )
    report = analyze_21_24_27(rules, odds=DrawOdds.of_counts(counts))
    assert {k: v for k, v in report.outcomes.items() if v} == walked


@pytest.mark.parametrize("rules", TWENTYONE_VARIANTS, ids=["stalemate", "dealer-wins"])
def test_21_24_27_real_shoe_matches_the_engine_walk(rules: TwentyOne2427Rules) -> None:
    compile_once()
    shoe = TWENTYONE_SHOE
    walked = exact(lambda: TwentyOne2427Round(rules), shoe.counts, TableStrategy().play, outcome)
    report = analyze_21_24_27_shoe(rules, shoe)
    assert {k: v for k, v in report.outcomes.items() if v} == walked


def test_21_24_27_fee_shifts_the_wager_exactly() -> None:
    odds = DrawOdds.of_counts(SHOES[0])
    rules = TWENTYONE_VARIANTS[1]
    f = rules.fee_per_100 / 100
    base = analyze_21_24_27(replace(rules, fee_per_100=Fraction(0)), odds=odds)
    charged = analyze_21_24_27(rules, odds=odds)
    assert charged.wagers["player"].expected == (1 - f) * base.wagers["player"].expected - f
    rnd = TwentyOne2427Round(rules, {"player": 10})
    rnd.outcome = "player"
    assert rnd.settle("player", Fraction(10))[0] == Fraction("9.60")  # 9.80 plays, 0.20 fee
    rnd.outcome = "dealer"
    assert rnd.settle("player", Fraction(10))[0] == -10


@pytest.mark.long
def test_21_24_27_simulation_agrees_with_the_exact_figures_of_a_variant() -> None:
    compile_once()
    rules = TWENTYONE_VARIANTS[1]
    replay_against_engine("21-24-27", rules, "basic", 5_000)
    replay_against_engine("21-24-27", TWENTYONE_VARIANTS[0], "basic", 5_000)
    exact_values = exact_means("21-24-27", rules)  # the simulator's exact column: the shoe's
    assert decimal_text(exact_values["player"] * 100, 4) == PINNED_2124
    result = run("21-24-27", rules, 200_000, seed=21)
    figures = result.wager(0, exact_values["player"])
    assert figures.z is not None and abs(figures.z) < 4, figures
