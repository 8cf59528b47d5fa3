"""finnish27's predetermined wins and awards (issue 21): each initial 27 (Jo Jo, Ace +
King, Joanca) switched on or off on its own, a Joanca only with its Joker second, the
player's initial 27 beating the dealer's whatever their ranks, a Joanca's own bonus,
the 9-9-9 against the dealer's 9-9 paid apart for three Nines of one suit, any award
paid in table minimums instead of odds on the stake, and the poker award's least
category and qualifying hands.

Each is checked hand by hand in the engine's rounds, in the rules file (an old file's
``jokers_make_27`` still reads, the file of the defaults is as before), against the
generic walk of the engine with replacement and from a real shoe (so both exact
analyses count what the engine plays, line by line), and in the simulation (the kernel
plays the engine's rounds, and its means lie within 4 standard errors of the exact
figures).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.analysis.report import GameReport
from cardroom.app.runner import RunResult, run
from cardroom.core.cards import Rank, parse_cards
from cardroom.core.events import Outcome
from cardroom.core.rules import RulesError, load_rules_text, rule_fields, rules_to_toml
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.analysis import (
    analyze_finnish27,
    best_finnish27_table,
    table_hits,
)
from cardroom.games.finnish.disclosure import finnish27_text
from cardroom.games.finnish.finnish27 import (
    ACE_KING_ROW,
    NINE_RULES,
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    find_bonus,
    pays_joanca,
)
from cardroom.games.finnish.replacement import DrawOdds
from cardroom.games.finnish.shoe import analyze_finnish27_shoe
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.walk import RANK_ORDER, exact
from tests.games.finnish.test_analysis import (
    BONUS_SHOES,
    SHOES,
    RanksRound,
    _suit_split,
    bonus_leaf,
)
from tests.games.finnish.test_shoe import (
    NINES_SHOE,
    POKER_SHOE,
    check_lines_against_the_walk,
    compile_once,
)
from tests.games.test_kernels import replay_against_engine

STAKES = {"player": 10, "dealer": 10, "push": 10}

#: every new option, over three variants
VARIANTS: list[dict[str, Any]] = [
    {
        "jo_jo_27": False,
        "player_initial_27_wins": True,
        "joanca_joker_second": True,
        "bonus": BonusTable(joanca=Fraction(3)),
    },
    {
        "ace_king_27": False,
        "joanca_27": False,
        "bonus": BonusTable(
            flat=("pair", "jo_jo", "nines_mixed", "nines_vs_dealer_nines"),
            pair=Fraction(2),
            nines_vs_dealer_by_suit=True,
            nines_suited_vs_dealer_nines=Fraction(5, 2),
            poker_minimum="two_pair",
            poker_hands="under_28",
        ),
    },
    {
        "jo_jo_27": False,
        "ace_king_27": False,
        "equal_initial_27s": "push",
        "both_27": "dealer_wins",
        "bonus": BonusTable(poker_hands="27"),
    },
]
IDS = ["no-jo-jo", "jo-jo-only", "joanca-only"]
#: Jokers wild anywhere, with 27s paid by their number of cards and a 27 that waits for
#: the dealer (whose Joker makes him 27 too)
WILD = {
    "jokers_wild": True,
    "both_27": "stalemate",
    "bonus": BonusTable(six_card_27=Fraction(5), poker_hands="27"),
}
#: a Charlie of five cards (so the walks reach it), Jokers that count 0 in a start, and
#: 27s of five to nine cards paid
CHARLIE = {
    "charlie": 5,
    "jo_jo_27": False,
    "bonus": BonusTable(six_card_27=Fraction(5), nine_card_27=Fraction(50)),
}
#: Jokers as bugs in the poker award, with a Jo Jo played as a total (so hands hold two
#: Jokers from the start)
BUGS = {"jo_jo_27": False, "bonus": BonusTable(poker_jokers="bug", five_of_a_kind=Fraction(20))}
#: a shoe with four Jokers, so that a hand may hold four bugs: with an Ace five of a
#: kind, without a straight flush
BUGS_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 1, Rank.FOUR: 3, Rank.FIVE: 1, Rank.NINE: 2, Rank.KING: 2, Rank.JOKER: 4},
    {Rank.ACE: (1, 0, 0, 0), Rank.FOUR: (3, 0, 0, 0), Rank.FIVE: (1, 0, 0, 0),
     Rank.NINE: (1, 1, 0, 0), Rank.KING: (1, 1, 0, 0)},
)  # fmt: skip
#: every 27 of six to nine cards paid by its number of cards (two of them in table minimums)
CARDS_27 = {
    "both_27": "stalemate",
    "bonus": BonusTable(
        six_card_27=Fraction(5),
        seven_card_27=Fraction(10),
        eight_card_27=Fraction(25),
        nine_card_27=Fraction(50),
        flat=("eight_card_27", "nine_card_27"),
    ),
}


def dealt(rules: Finnish27Rules, cards: str) -> Finnish27Round:
    """A round dealt ``cards`` (player, dealer, player, dealer, then as asked) to its end."""
    rnd = Finnish27Round(rules, STAKES)
    for card in parse_cards(cards):
        if rnd.is_complete:
            break
        rnd.deal(card)
    assert rnd.is_complete
    return rnd


# -- hand by hand ---------------------------------------------------------------------------
def test_each_initial_27_may_be_played_as_its_total() -> None:
    # the player's Jo Jo against the dealer's 9 8
    jo_jo = "Jo 9s Jo 8c Kd Qh 5s 7d"
    assert dealt(Finnish27Rules(), jo_jo).net["player"] == 20  # 1:1 and the Jo Jo's 1:1
    played = dealt(Finnish27Rules(jo_jo_27=False), jo_jo)
    assert len(played.hands["player"]) > 2  # hard 0: it hits
    assert played.points()["player"].named is None
    # the player's Joanca (Joker and 5)
    joanca = "Jo 9s 5h 8c Kd 5d Qs"
    assert dealt(Finnish27Rules(), joanca).outcome == "player"
    assert len(dealt(Finnish27Rules(joanca_27=False), joanca).hands["player"]) > 2
    # the player's Ace and King: soft 27 played, and (exactly 27) it wins at once
    ace_king = dealt(Finnish27Rules(ace_king_27=False), "As 9s Kd 8c")
    assert ace_king.outcome == "player" and len(ace_king.hands["player"]) == 2
    assert ace_king.points()["player"].named is None
    assert ace_king.net["player"] == 15  # the Finnish 27 bonus goes by the cards


def test_the_player_s_initial_27_may_beat_the_dealer_s() -> None:
    cards = "As Jo Kd Jo"  # the player's Finnish 27 against the dealer's Jo Jo
    assert dealt(Finnish27Rules(), cards).outcome == "dealer"
    first = dealt(Finnish27Rules(player_initial_27_wins=True), cards)
    assert first.outcome == "player" and first.net["player"] == 15
    assert any(
        getattr(e, "why", None) and e.why.rule == "initial_27s_player_first" for e in first.events
    )


def test_a_joanca_may_pay_its_own_bonus() -> None:
    rules = Finnish27Rules(bonus=BonusTable(joanca=Fraction(2)))
    rnd = dealt(rules, "Jo 9s 5h 8c")
    assert rnd.net["player"] == 30 and rnd.bonus == "Joanca"
    assert dealt(Finnish27Rules(), "Jo 9s 5h 8c").bonus is None  # the source pays none
    with pytest.raises(ValueError, match=r"^bonus.joanca: pays a winning initial Joanca"):
        Finnish27Rules(joanca_27=False, bonus=BonusTable(joanca=Fraction(2)))


def test_any_award_may_be_paid_in_table_minimums() -> None:
    bonus = BonusTable(flat=("jo_jo",), jo_jo=Fraction(3))
    rules = Finnish27Rules(bonus=bonus)
    rnd = dealt(rules, "Jo 9s Jo 8c")
    minimum = rules.table.minimum
    assert rnd.net["player"] == 10 + 3 * minimum
    assert bonus.describe("jo_jo") == "Jo Jo (3 x table minimum)"
    assert not bonus.is_flat("nines_mixed")  # no longer flat: odds on the stake
    with pytest.raises(ValueError, match=r"^flat: 'jackpot' is not a bonus"):
        BonusTable(flat=("jackpot",))
    with pytest.raises(ValueError, match=r"^flat: names a bonus twice"):
        BonusTable(flat=("pair", "pair"))


def test_nines_against_the_dealer_s_nines_may_pay_apart_by_suit() -> None:
    suited, mixed = "9s 9d 9s 9h 9s", "9s 9d 9h 9h 9c"  # the player's third card last
    bonus = BonusTable(nines_vs_dealer_by_suit=True, nines_suited_vs_dealer_nines=Fraction(5000))
    rules = Finnish27Rules(bonus=bonus)
    minimum = rules.table.minimum
    one_suit = dealt(rules, suited)
    assert one_suit.bonus == "9-9-9 same suit against dealer's 9-9"
    assert one_suit.net["player"] == 10 + 5000 * minimum
    assert dealt(rules, mixed).net["player"] == 10 + 999 * minimum
    # the source: one award for both
    assert dealt(Finnish27Rules(), suited).net["player"] == 10 + 999 * minimum
    with pytest.raises(ValueError, match=r"^nines_suited_vs_dealer_nines: must be"):
        BonusTable(nines_suited_vs_dealer_nines=Fraction(10_001))


def test_a_joanca_may_need_its_joker_second() -> None:
    rules = Finnish27Rules(joanca_joker_second=True, bonus=BonusTable(joanca=Fraction(2)))
    second = dealt(rules, "5h 9s Jo 8c")  # the player's 5, then the Joker: a Joanca
    assert second.points()["player"].named == "joanca" and second.net["player"] == 30
    first = dealt(rules, "Jo 9s 5h 8c Kd 5d Qs")  # the Joker first: a total of 5, hit
    assert first.points()["player"].named is None and len(first.hands["player"]) > 2
    assert dealt(Finnish27Rules(), "Jo 9s 5h 8c").outcome == "player"  # the source: either
    # the dealer's Joker first is no 27 either: the player's 9 8 then plays
    dealer = dealt(rules, "9s Jo 8c 5h Kd Qs 6c 4d 3c 2h 2s 3d 2d")
    assert dealer.points()["dealer"].named is None and len(dealer.hands["player"]) > 2
    jo_jo = dealt(rules, "Jo 9s Jo 8c")  # two Jokers: the second is a Joker
    assert jo_jo.points()["player"].named == "jo_jo"
    with pytest.raises(ValueError, match=r"^joanca_joker_second: says where"):
        Finnish27Rules(joanca_27=False, joanca_joker_second=True)


def test_the_poker_award_may_need_a_category_and_a_total() -> None:
    pair16, pair27, pair41 = "2s 2h 3d 4c 5s", "2s 2h 3d Kc 7s", "9s 9h 3d Kc 7s"

    def award(cards: str, **options: Any) -> str | None:
        return find_bonus(parse_cards(cards), [], poker=BonusTable(**options))

    assert [award(c) for c in (pair16, pair27, pair41)] == ["pair"] * 3  # the source's
    assert award(pair16, poker_minimum="two_pair") is None
    assert award("2s 2h 3d 3c 5s", poker_minimum="two_pair") == "two_pair"
    assert [award(c, poker_hands="27") for c in (pair16, pair27, pair41)] == [None, "pair", None]
    assert [award(c, poker_hands="under_28") for c in (pair16, pair27, pair41)] == [
        "pair",
        "pair",
        None,
    ]
    # a category below the least has no line of its own in the reports
    rules = Finnish27Rules(bonus=BonusTable(poker_minimum="straight"))
    small = DrawOdds.of_counts(SHOES[0])  # (the lines are the table's, whatever the shoe)
    lines = [line.name for line in analyze_finnish27(rules, odds=small).wagers["player"].lines]
    assert not any("Pair" in name or "Three of a kind" in name for name in lines)
    assert any("Straight 3:1" in name for name in lines)
    words = str(finnish27_text(Finnish27Rules(bonus=BonusTable(poker_hands="27"))))
    assert "five cards or more, totalling exactly 27, whose best five-card poker hand" in words
    with pytest.raises(ValueError, match=r'^poker_hands: must be "any", "27" or "under_28"'):
        BonusTable(poker_hands="all")


def test_a_27_of_six_to_nine_cards_may_pay_by_its_number_of_cards() -> None:
    """Jokers counted, in place of the hand's poker award; only a 27, only where paid."""
    rules = Finnish27Rules(**CARDS_27)
    six = dealt(rules, "2s 9s 3h 9h 4d 5c 6s 7h Kd")  # a straight of six cards; dealer 31
    assert (six.outcome, six.bonus_key, six.net["player"]) == ("player", "six_card_27", 60)
    seven = dealt(rules, "2s 9s 3h 9h Jo 4d 5c 6s 7h Kd")
    assert (seven.bonus_key, seven.net["player"]) == ("seven_card_27", 110)
    assert dealt(Finnish27Rules(), "2s 9s 3h 9h 4d 5c 6s 7h").bonus_key == "straight"

    def award(cards: str) -> str | None:
        return find_bonus(parse_cards(cards), [], poker=rules.bonus)

    assert award("Jo Jo 2s 3h 4d 5c 6s 7h") == "eight_card_27"
    assert award("Jo Jo Jo 2s 3h 4d 5c 6s 7h") == "nine_card_27"
    assert award("Jo Jo Jo Jo 2s 3h 4d 5c 6s 7h") == "five_of_a_kind"  # ten cards
    assert award("2s 3h 4d 5c 7s 5h") == "pair"  # 26
    assert award("4s 5h 6d 7c 5s") == "pair"  # a 27 of five cards
    table = BonusTable(seven_card_27=Fraction(10))
    assert find_bonus(parse_cards("2s 3h 4d 5c 6s 7h"), [], poker=table) == "straight"
    assert rules_to_toml(Finnish27Rules()) == rules_to_toml(Finnish27Rules(bonus=BonusTable()))
    assert "six_card_27 = 5" in rules_to_toml(rules)
    assert load_rules_text(Finnish27Rules(), rules_to_toml(rules)) == rules
    words = str(finnish27_text(rules))
    assert "cards (Jokers counted) that total 27; it takes the place of the hand's poker" in words


def test_a_joker_may_be_wild_anywhere() -> None:
    """A Joker drawn after the deal makes its hand 27 and stops it; the dealer's too;
    only where every two-card Joker hand is an initial 27."""
    rules = Finnish27Rules(jokers_wild=True)
    player = dealt(rules, "2s 9s 3h 9h Jo")  # 5, then a Joker: 27, a win at once
    assert player.points()["player"].value == 27 and len(player.hands["player"]) == 3
    assert player.outcome == "player" and player.net["player"] == 10
    assert dealt(Finnish27Rules(), "2s 9s 3h 9h Jo 4d 5c 6s 7h").points()["player"].value == 27
    waits = Finnish27Rules(**WILD)
    both = dealt(waits, "2s 9s 3h 5h Jo Jo")  # the dealer's 14, then his Joker: 27
    assert both.points()["dealer"].value == 27 and both.outcome == "push"
    beaten = dealt(waits, "Ks 9s Qh 5h Jo")  # the player's 25 stands; the dealer's Joker
    assert beaten.outcome == "dealer" and beaten.points()["dealer"].value == 27
    # a poker hand of a wild 27 qualifies as a 27, and a 6-card one pays as such
    six = dealt(waits, "2s 9s 3h 9h 4d 5c 6s Jo Kd")
    assert (six.bonus_key, len(six.hands["player"])) == ("six_card_27", 6)
    words = " ".join(finnish27_text(rules).sentences)
    assert "From the third card on a Joker is wild" in words
    for bad in ({"jo_jo_27": False}, {"joanca_27": False}, {"joanca_joker_second": True}):
        with pytest.raises(ValueError, match=r"^jokers_wild: every hand holding a Joker"):
            Finnish27Rules(jokers_wild=True, **bad)


def test_a_hand_of_so_many_cards_under_28_may_win_at_once() -> None:
    """A Charlie: Jokers counted, before the dealer plays, only 27 or less."""
    rules = Finnish27Rules(charlie=5)
    five = dealt(rules, "2s 9s 3h 9h 4d Jo 5c")  # 2 3 4 Jo 5: 14 in five cards
    assert five.outcome == "player" and len(five.hands["dealer"]) == 2
    assert [e.why.rule for e in five.events if isinstance(e, Outcome)] == ["charlie"]
    assert dealt(Finnish27Rules(), "2s 9s 3h 9h 4d Jo 5c 6s 7h").bonus_key == "straight"
    over = dealt(Finnish27Rules(charlie=5, player_loses_over=27), "2s 9s 3h 9h 4d 9c Kd")
    assert over.outcome == "dealer" and len(over.hands["player"]) == 5  # 31 in five cards
    words = " ".join(finnish27_text(Finnish27Rules(charlie=9)).sentences)
    assert "A player's hand of 9 cards (Jokers counted) of 27 or less wins at once" in words
    for bad in (1, 4, 13, -1):
        with pytest.raises(ValueError, match=r"^charlie: "):
            Finnish27Rules(charlie=bad)


def test_the_poker_award_s_jokers_may_be_bugs() -> None:
    """A bug is an Ace, or any card that completes a straight, a flush or a straight
    flush: so no five of a kind but of Aces, and no pair made of a bug but of Aces."""
    bugs = BonusTable(poker_jokers="bug")

    def award(cards: str, table: BonusTable = bugs) -> str | None:
        return find_bonus(parse_cards(cards), [], poker=table)

    assert award("Jo 9s 9h 4d 2c") == "pair"  # the bug an Ace
    assert award("Jo 9s 9h 4d 2c", BonusTable()) == "three_of_a_kind"
    assert award("Jo Ks Kh 4d 4c") == "two_pair"
    assert award("Jo As Ah 4d 4c") == "full_house"
    assert award("Jo 2s 3h 4d 5c") == "straight"
    assert award("Jo 2s 3s 4s 9s") == "flush"
    assert award("Jo Jo Jo Jo Ks") == "straight_flush"
    assert award("Jo Jo Jo Jo As") == "five_of_a_kind"
    assert award("Jo Jo 9s 9h 4d") == "two_pair"
    assert award("Jo Jo 9s 9h 4d", BonusTable()) == "four_of_a_kind"
    words = str(finnish27_text(Finnish27Rules(bonus=bugs)))
    assert "each Joker a bug: an Ace, or a card that completes a straight" in words
    assert load_rules_text(Finnish27Rules(), '[bonus]\npoker_jokers = "bug"\n').bonus == bugs
    with pytest.raises(RulesError, match=r'poker_jokers.*"wild" or "bug"'):
        load_rules_text(Finnish27Rules(), '[bonus]\npoker_jokers = "semi"\n')


def test_without_ace_king_the_source_table_gains_a_row() -> None:
    rules = Finnish27Rules(ace_king_27=False)
    assert rules.player_table == (*NINE_RULES, ACE_KING_ROW)
    assert Finnish27Rules().player_table == NINE_RULES
    # and the reports name it by its rows
    assert (Finnish27Rules().table_name, rules.table_name) == ("nine-rule table", "ten-rule table")
    report = analyze_finnish27(rules, odds=DrawOdds.of_counts(SHOES[0]))
    assert any("the rules' ten-rule table" in line for line in report.assumptions)


# -- the rules file and page ----------------------------------------------------------------
def test_the_rules_file_reads_the_old_switch_and_goes_round() -> None:
    default = Finnish27Rules()
    text = rules_to_toml(default)
    assert "jokers_make_27 = true" in text
    quiet = (
        "jo_jo_27",
        "joanca_27",
        "ace_king_27",
        "joanca_joker_second",
        "player_initial_27_wins",
        "joanca",
        "flat",
    )
    for key in (*quiet, "nines_vs_dealer_by_suit", "nines_suited_vs_dealer_nines"):
        assert f"\n{key} =" not in text
    old = load_rules_text(default, "jokers_make_27 = false\n")
    assert not old.jo_jo_27 and not old.joanca_27 and old.ace_king_27
    with pytest.raises(RulesError, match="'jokers_make_27': false sets jo_jo_27 too"):
        load_rules_text(default, "jokers_make_27 = false\njo_jo_27 = true\n")
    with pytest.raises(RulesError, match="'jokers_make_27': must be true or false"):
        load_rules_text(default, "jokers_make_27 = 1\n")
    for variant in VARIANTS:
        rules = Finnish27Rules(**variant)
        assert load_rules_text(default, rules_to_toml(rules)) == rules
    mixed = rules_to_toml(Finnish27Rules(**VARIANTS[0]))
    assert "jo_jo_27 = false" in mixed and "joanca_27 = true" in mixed and "joanca = 3" in mixed
    assert "joanca_joker_second = true" in mixed


def test_the_rules_page_says_each_option() -> None:
    def text(**options: Any) -> str:
        return " ".join(finnish27_text(Finnish27Rules(**options)).sentences)

    assert "A Joker as a first or second card makes that two-card hand 27" in text()
    no_jo_jo = text(**VARIANTS[0])
    assert "Jo Jo is not an initial 27 here" in no_jo_jo
    assert "the player's wins" in no_jo_jo and "also pays its bonus" in no_jo_jo
    none = text(jo_jo_27=False, ace_king_27=False, joanca_27=False)
    assert "No two-card hand is 27 at once" in none


# -- the exact analyses against the engine --------------------------------------------------
@pytest.mark.parametrize(
    "variant",
    [
        VARIANTS[0],
        pytest.param(VARIANTS[2], marks=pytest.mark.long),
        # the awards two by two: by the number of cards, and the poker award's bugs (with
        # a Jo Jo played as a total, so that hands hold two bugs from the start)
        pytest.param(
            {**CARDS_27, **BUGS, "bonus": replace(CARDS_27["bonus"], poker_jokers="bug")},
            marks=pytest.mark.long,
        ),
        WILD,
        {**CHARLIE, "charlie": 9},
    ],
    ids=[IDS[0], IDS[2], "cards-27-bugs", "jokers-wild", "charlie-9"],
)
def test_with_replacement_matches_the_engine_walk(variant: dict[str, Any]) -> None:
    """Every outcome, and every line of the player wager's wins.  (Jo Jo alone is walked
    from the real shoe below; the kernel's test plays a Charlie of five cards.)"""
    check_with_replacement(Finnish27Rules(**variant))


def check_with_replacement(rules: Finnish27Rules) -> None:
    """The analysis with replacement of ``rules`` equals the engine's walk: every outcome,
    and every line of the player wager's wins."""
    counts = BONUS_SHOES[1]  # Aces, Kings, Nines and a Joker
    walked = exact(lambda: RanksRound(rules), counts, leaf=bonus_leaf, replacement=True)
    expected: dict[str, Fraction] = {}
    outcomes: dict[str, Fraction] = {}
    for leaf, p in walked.items():
        outcomes[leaf[0]] = outcomes.get(leaf[0], Fraction(0)) + p
        if leaf[0] != "player":
            continue
        ranks = tuple(sorted(leaf[1], key=RANK_ORDER.index))
        if len(ranks) == 2 and ranks.count(Rank.JOKER) == 1 and pays_joanca(rules):
            split: dict[str | None, Fraction] = {"joanca": Fraction(1)}
        else:
            split = _suit_split(
                ranks, leaf[2], rules.bonus.nines_vs_dealer_by_suit, rules.bonus, leaf[3]
            )
        for key, q in split.items():
            name = "win (no bonus)" if key is None else f"win + {rules.bonus.describe(key)}"
            expected[name] = expected.get(name, Fraction(0)) + p * q
    report = analyze_finnish27(rules, odds=DrawOdds.of_counts(counts))
    assert {k: v for k, v in report.outcomes.items() if v} == outcomes
    lines = {line.name: line.probability for line in report.wagers["player"].lines}
    assert {name: p for name, p in lines.items() if p and name.startswith("win")} == expected


@pytest.mark.parametrize(
    ("variant", "shoe"),
    [
        (VARIANTS[0], POKER_SHOE),
        *(pytest.param(v, POKER_SHOE, marks=pytest.mark.long) for v in VARIANTS[1:]),
        (VARIANTS[1], NINES_SHOE),
        (CARDS_27, POKER_SHOE),
        (BUGS, BUGS_SHOE),
        (WILD, POKER_SHOE),
        (CHARLIE, POKER_SHOE),
        ({**WILD, "charlie": 5}, POKER_SHOE),
    ],
    ids=[
        *(f"poker-{name}" for name in IDS),
        f"nines-{IDS[1]}",
        "poker-cards-27",
        "poker-bugs",
        "poker-wild",
        "poker-charlie",
        "poker-wild-charlie",
    ],
)
def test_the_real_shoe_matches_the_engine_walk_line_by_line(
    variant: dict[str, Any], shoe: Any
) -> None:
    lines = check_lines_against_the_walk(Finnish27Rules(**variant), shoe)
    if variant is CARDS_27:  # this shoe has 27s of six, seven and eight cards
        assert sum("-card 27" in name for name in lines) == 3
    if variant is BUGS:  # four bugs without an Ace, and with one
        assert {"win + Straight flush 7:1", "win + Five of a kind 20:1"} <= lines.keys()
    if variant is WILD:  # 27s a Joker made, paid by their number of cards or as poker
        assert {"win + 6-card 27 5:1", "win + Flush 6:1"} <= lines.keys()


#: the source's order of the poker categories, lowest first
SOURCE_ORDER = BonusTable().poker_order


@st.composite
def rule_combinations(draw: st.DrawFn) -> Finnish27Rules:
    """finnish27's options drawn together (the flow of the hands, the settlements, the
    initial 27s and the poker award), as a designer might combine them."""
    wild = draw(st.booleans())
    choices = {
        f.name: draw(st.sampled_from(f.about.choices))
        for f in rule_fields(Finnish27Rules)
        if f.about.choices
    }
    initial = {} if wild else {
        name: draw(st.booleans()) for name in ("jo_jo_27", "joanca_27", "ace_king_27")
    }  # fmt: skip
    bonus = BonusTable(
        six_card_27=Fraction(draw(st.sampled_from([0, 5]))),
        seven_card_27=Fraction(draw(st.sampled_from([0, 10]))),
        poker_jokers=draw(st.sampled_from(["wild", "bug"])),
        poker_hands=draw(st.sampled_from(["any", "27", "under_28"])),
        poker_minimum=draw(st.sampled_from(["pair", "two_pair"])),
        poker_order=tuple(draw(st.permutations(SOURCE_ORDER))),
    )
    return Finnish27Rules(
        jokers_wild=wild,
        charlie=draw(st.sampled_from([0, 5, 6, 7])),
        player_initial_27_wins=draw(st.booleans()),
        dealer_hits_hard_below=draw(st.sampled_from([23, 24, 25])),
        bonus=bonus,
        **choices,
        **initial,
    )


@pytest.mark.long
@settings(max_examples=12, deadline=None)
@given(rule_combinations(), st.sampled_from([POKER_SHOE, BUGS_SHOE]))
def test_the_real_shoe_counts_option_combinations_as_the_engine_plays_them(
    rules: Finnish27Rules, shoe: ShoeMakeup
) -> None:
    """Any combination of the options the real shoe's count takes, on a small shoe:
    every line of the player wager equals the engine's walk."""
    check_lines_against_the_walk(rules, shoe)


def test_each_option_moves_the_exact_figures_as_it_says() -> None:
    """From a small shoe: the player's initial 27 beating the dealer's moves exactly the
    rounds of two initial 27s the dealer won; a Joanca's bonus adds its chance times its
    pay to the player wager and nothing else."""
    odds = DrawOdds.of_counts(SHOES[0])
    base = analyze_finnish27(odds=odds)
    first = analyze_finnish27(Finnish27Rules(player_initial_27_wins=True), odds=odds)
    moved = first.outcomes["player"] - base.outcomes["player"]
    assert moved > 0 and base.outcomes["dealer"] - first.outcomes["dealer"] == moved
    paid = analyze_finnish27(Finnish27Rules(bonus=BonusTable(joanca=Fraction(2))), odds=odds)
    assert paid.outcomes == base.outcomes
    joanca = next(line.probability for line in paid.wagers["player"].lines if "Joanca" in line.name)
    assert joanca > 0
    gained = paid.wagers["player"].expected - base.wagers["player"].expected
    assert gained == 2 * joanca
    assert paid.wagers["dealer"] == base.wagers["dealer"]


# -- the simulation -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "variant",
    [
        VARIANTS[0],
        *(pytest.param(v, marks=pytest.mark.long) for v in VARIANTS[1:]),
        # the newer options two by two: the awards, then the hands' flow
        {**CARDS_27, "bonus": replace(CARDS_27["bonus"], poker_jokers="bug")},
        {**WILD, "charlie": 5},
    ],
    ids=[*IDS, "cards-27-bugs", "jokers-wild-charlie-5"],
)
def test_the_kernel_plays_the_options_as_the_engine_does(variant: dict[str, Any]) -> None:
    replay_against_engine("finnish27", Finnish27Rules(**variant), "basic", 6_000)


@pytest.mark.long
def test_simulation_agrees_with_the_exact_figures_of_a_variant() -> None:
    """The first variant (with its 27s of six and seven cards paid) dealt from two decks:
    the exact figures off the top of the shoe, and 60,000 rounds each dealt from a fresh
    shoe within 4 standard errors of them."""
    compile_once()
    cards_27 = CARDS_27["bonus"]
    assert isinstance(cards_27, BonusTable)
    bonus = replace(
        VARIANTS[0]["bonus"],
        **{key: getattr(cards_27, key) for key in ("six_card_27", "seven_card_27")},
    )
    rules = Finnish27Rules(
        **{**VARIANTS[0], "bonus": bonus}, shoe=ShoeRules(decks=2, reshuffle_after=1)
    )
    agrees(analyze_finnish27_shoe(rules), rules, 60_000, 27)


def agrees(report: GameReport, rules: Finnish27Rules, rounds: int, seed: int) -> RunResult:
    """A simulation of ``rounds`` lies within 4 standard errors of ``report``'s edges
    (the simulation, for more checks)."""
    result = run("finnish27", rules, rounds, seed=seed)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, report.wagers[wager].expected)
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)
    return result


#: two decks, each round dealt from a fresh shoe: the real shoe's count is these rounds'
#: exact figures, and the model with replacement is far from them
TWO_DECKS = ShoeRules(decks=2, reshuffle_after=1)


def agrees_with_the_real_shoe_only(rules: Finnish27Rules, rounds: int, seed: int) -> None:
    """``rounds`` simulated from a fresh shoe lie within 4 standard errors of the real
    shoe's count, and the player wager's mean more than 4 from the model with
    replacement (so the simulation can tell the two apart)."""
    compile_once()
    result = agrees(analyze_finnish27_shoe(rules), rules, rounds, seed)
    model = analyze_finnish27(rules).wagers["player"].expected
    far = result.wager(result.wager_ids.index("player"), model)
    assert far.z is not None and abs(far.z) > 4, far


def test_simulation_of_wild_jokers_and_a_charlie_agrees_with_the_real_shoe() -> None:
    """Wild Jokers, a Charlie of seven cards and a 27 that waits for the dealer's (whose
    Joker makes him 27 too): 4,000,000 rounds (20 standard errors from the model with
    replacement on the player wager when this was written)."""
    rules = Finnish27Rules(jokers_wild=True, charlie=7, both_27="stalemate", shoe=TWO_DECKS)
    agrees_with_the_real_shoe_only(rules, 4_000_000, 2731)


def test_simulation_of_a_charlie_agrees_with_the_real_shoe() -> None:
    """A Charlie of six cards with Jokers that count 0 (Jo Jo is no 27, so hands start
    with Jokers too): 4,000,000 rounds (31 standard errors from the model with
    replacement)."""
    rules = Finnish27Rules(charlie=6, jo_jo_27=False, shoe=TWO_DECKS)
    agrees_with_the_real_shoe_only(rules, 4_000_000, 2732)


@pytest.mark.long
def test_the_best_table_knows_wild_jokers_and_refuses_a_charlie() -> None:
    """With wild Jokers the best table's search counts a Joker as a 27 that stops the
    hand: no single decision changed at the edge of a row does better on the player
    wager's even-money part.  A Charlie, which hangs on the number of cards as well as
    the total, is refused in one line."""
    odds = DrawOdds.of_counts(SHOES[0])
    rules = Finnish27Rules(jokers_wild=True)
    table = best_finnish27_table(rules, odds)

    def even(hits: Any) -> Fraction:
        wager = analyze_finnish27(rules, odds=odds, hits=hits).wagers["player"]
        return sum(
            (line.probability * (1 if line.payout > 0 else line.payout) for line in wager.lines),
            Fraction(0),
        )

    best = even(table_hits(table))
    assert best >= even(None)
    for dealer, decisions in list(table.items())[:3]:  # (three rows: a second each)
        hitting = [total for total, hit in decisions.items() if hit]
        if not hitting:
            continue
        edge = max(hitting, key=lambda t: (t.value, t.soft))  # the last total it hits
        flipped = {**table, dealer: {**decisions, edge: False}}
        assert even(table_hits(flipped)) <= best, (dealer, edge)
    with pytest.raises(ValueError, match=r"^charlie: the best table"):
        best_finnish27_table(Finnish27Rules(charlie=9), odds)
