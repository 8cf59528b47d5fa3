"""finnish27's bonus table on its rules page: every condition of every award in words, for
the standard rules and for each option that changes an award, and the words and the
settlement held to each other (both come from :mod:`cardroom.games.finnish.bonuses`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.app.disclosure import rules_text
from cardroom.core.cards import Card, Deck, parse_cards
from cardroom.core.rules import apply_rules
from cardroom.games.finnish.bonuses import AWARDS, LINES, Hand, is_nines
from cardroom.games.finnish.finnish27 import (
    POKER_KEYS,
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    bonus_ask,
    find_bonus,
)


def bonus_table(rules: Finnish27Rules) -> dict[str, tuple[str, str]]:
    """The page's bonus table: each award's label -> (when, pays)."""
    [rows] = [rows for title, _, rows in rules_text("finnish27", rules).tables if "Bonus" in title]
    return {label: (when, pays) for label, when, pays in rows}


def sentences(rules: Finnish27Rules) -> str:
    return " ".join(rules_text("finnish27", rules).sentences)


def variant(bonus: dict[str, Any], **more: Any) -> Finnish27Rules:
    return apply_rules(Finnish27Rules(), {"bonus": bonus, **more})


def test_the_standard_poker_award_needs_five_cards_and_says_so() -> None:
    table = bonus_table(Finnish27Rules())
    assert table["Pair"] == (
        "five cards or more whose best five-card poker hand (Jokers wild) is a pair",
        "1:5 on the stake",
    )
    for key in POKER_KEYS:
        assert table[BonusTable.LABELS[key]][0].startswith("five cards or more ")
    assert table["Finnish 27"][0] == "exactly two cards, Ace and King (an initial Finnish 27)"
    assert "dealer's first two cards are both Nines" in table["9-9-9 against dealer's 9-9"][0]
    assert "Joanca" not in table  # the standard table pays it nothing: no row


def test_a_winning_four_card_pair_earns_nothing_as_the_page_says() -> None:
    # the hand of the report: 10c 4c 3d 10h wins, paid 1:1 with no bonus
    round_ = Finnish27Round(Finnish27Rules(), {"player": Fraction(10)})
    for card in parse_cards("10c 9s 4c 8d 3d 10h 5s"):
        if round_.to_move() is None:
            break
        round_.deal(card)
    assert [c.code for c in round_.hands["player"]] == ["Tc", "4c", "3d", "Th"]
    assert round_.outcome == "player" and round_.bonus_key is None
    assert round_.net["player"] == 10


#: an option of an award, and the words each row of the awards it changes then holds
OPTIONS: list[tuple[dict[str, Any], dict[str, Any], dict[str, str]]] = [
    ({"poker_hands": "27"}, {}, {"Pair": "totalling exactly 27"}),
    ({"poker_hands": "under_28"}, {}, {"Straight": "totalling 27 or less"}),
    ({"poker_jokers": "bug"}, {}, {"Flush": "each Joker a bug: an Ace, or a card that"}),
    (
        {"poker_against_dealer": "higher"},
        {},
        {"Two pair": "standing higher than the best poker hand of the dealer's final cards"},
    ),
    (
        {"poker_against_dealer": "as_high"},
        {},
        {"Five of a kind": "at least as high as the best poker hand of the dealer's"},
    ),
    (
        {"six_card_27": "5", "eight_card_27": "9"},
        {},
        {
            "6-card 27": "exactly six cards (Jokers counted) that total 27",
            "8-card 27": "exactly eight cards",
            "Pair": "not on a 27 of six, eight cards, which takes its own award",
        },
    ),
    (
        {"joanca": "1/2"},
        {"joanca_27": True},
        {"Joanca": "exactly two cards, a Joker and another card (an initial Joanca)"},
    ),
    (
        {"joanca": "1/2"},
        {"joanca_joker_second": True},
        {"Joanca": "exactly two cards, another card and then a Joker"},
    ),
    (
        {"nines_vs_dealer_by_suit": True},
        {},
        {
            "9-9-9 same suit against dealer's 9-9": "three Nines, all of one suit, while the "
            "dealer's first two cards are both Nines",
            "9-9-9 against dealer's 9-9": "three Nines, not all of one suit, while the dealer's",
        },
    ),
]


@pytest.mark.parametrize(("bonus", "more", "rows"), OPTIONS)
def test_each_option_of_an_award_is_said_in_its_rows(
    bonus: dict[str, Any], more: dict[str, Any], rows: dict[str, str]
) -> None:
    rules = variant(bonus, **more)
    table = bonus_table(rules)
    for label, words in rows.items():
        assert words in table[label][0], (label, table[label])
    standard = bonus_table(Finnish27Rules())
    assert any(table.get(label) != standard.get(label) for label in rows)


def test_the_least_category_drops_the_rows_below_it_and_says_so() -> None:
    rules = variant({"poker_minimum": "three_of_a_kind"})
    table = bonus_table(rules)
    assert "Pair" not in table and "Two pair" not in table and "Three of a kind" in table
    assert "No poker hand below three of a kind earns an award." in sentences(rules)
    assert "No poker hand below" not in sentences(Finnish27Rules())


def test_a_designer_s_order_of_the_categories_is_said() -> None:
    order = ["pair", "two_pair", "three_of_a_kind", "full_house", "straight"]
    order += ["four_of_a_kind", "flush", "straight_flush", "five_of_a_kind"]
    rules = variant({"poker_order": order})
    assert "low to high: pair, two pair, three of a kind, full house, straight," in sentences(rules)


def test_an_award_that_pays_nothing_has_no_row() -> None:
    table = bonus_table(variant({"pair": "0"}))
    assert "Pair" not in table and "Two pair" in table


CARDS = [c for c in Deck.shoe(1, 2)]
ASKS = st.builds(
    dict,
    joanca=st.booleans(),
    nines_vs_dealer_by_suit=st.booleans(),
    joanca_joker_second=st.booleans(),
)
#: hands of two and three cards rich in what the awards look for
NEAR = [c for c in CARDS if c.rank.number in (1, 8, 9, 10, 13) or c.is_joker]


@settings(max_examples=400, deadline=None)
@given(
    player=st.lists(st.sampled_from(NEAR), min_size=2, max_size=3),
    dealer=st.lists(st.sampled_from(NEAR), min_size=2, max_size=4),
    options=ASKS,
)
def test_the_award_settled_is_the_one_row_whose_words_hold(
    player: list[Card], dealer: list[Card], options: dict[str, bool]
) -> None:
    rules = variant(
        {
            "joanca": "1/2" if options["joanca"] else "0",
            **{"nines_vs_dealer_by_suit": options["nines_vs_dealer_by_suit"]},
        },
        joanca_joker_second=options["joanca_joker_second"],
    )
    ask = bonus_ask(rules)
    settled = find_bonus(
        player, dealer, ask.joanca, ask.nines_by_suit, ask.joker_second, rules.bonus
    )
    holding = [a.key for a in AWARDS if a.holds(Hand(player, is_nines(dealer)), ask)]
    assert holding == ([] if settled is None else [settled])  # at most one holds: that one
    if settled is not None:
        assert BonusTable.LABELS[settled] in bonus_table(rules)  # and the page has its row
        assert bonus_table(rules)[BonusTable.LABELS[settled]][0] == LINES[settled].words(ask)
