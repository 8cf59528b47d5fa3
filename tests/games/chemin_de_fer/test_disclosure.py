"""The rules in plain words: chemin de fer's sentences come from the rules object, so every
rule a variant changes changes what the page says."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from cardroom.app.disclosure import paytable, percent_of, rules_text
from cardroom.games.baccarat import BankerRow, Tableau
from cardroom.games.chemin_de_fer import GAME_ID, ChemmyRules
from cardroom.games.chemin_de_fer.rules import MAX_SEATS


def words(rules: ChemmyRules) -> str:
    return "\n".join(rules_text(GAME_ID, rules).sentences)


def test_the_default_game_in_words() -> None:
    text = rules_text(GAME_ID, ChemmyRules())
    said = "\n".join(text.sentences)
    for sentence in [
        "2 to 8 seats play against each other, not against the house",
        "the highest takes the bank (Ace lowest, King highest)",
        "he may let it ride with its winnings (up to the table maximum) or put up any other",
        "Instead of putting up a bank he may pass it to the next seat.",
        "may call Banco (cover the whole bank alone",
        "A two-card 8 or 9 (a natural) on either side",
        "must draw on 0 to 4, chooses freely on 5 (the punter's option: draw or stand) and "
        "must stand on 6 or 7",
        "the banker chooses freely to draw or stand, knowing his own two cards",
        "the banker takes every stake. The house takes no commission and has no stake",
        "The banker keeps the bank after a win or a coup nobody staked in; after a loss or a "
        "tie it passes",
        "The shoe holds 6 decks (312 cards); the cut card is 16 cards from the end. A coup in "
        "progress is finished",
        "Banks and stakes are 10 to 1000, in whole multiples of 0.01.",
    ]:
        assert sentence in said
    assert text.tables == []  # the banker chooses: no tableau binds him
    assert [(row.wager, row.pays) for row in paytable(GAME_ID, ChemmyRules())] == [
        ("punter", "1:1"),
        ("bank", "1:1"),
    ]


#: A rule changed, and what the words then say.
CHANGES: list[tuple[dict[str, Any], str]] = [
    ({"min_seats": 3, "max_seats": MAX_SEATS}, "3 to 12 seats play"),
    ({"ace_high_in_draw": True}, "(2 lowest, Ace highest)"),
    ({"keep_whole_bank": True}, "When he keeps the bank it stays whole"),
    ({"banker_may_pass": False}, "He may not pass the bank"),
    ({"natural_from": 9}, "A two-card 9 (a natural)"),
    (
        {"natural_from": 10, "player_must_stand_from": 7},
        "There are no naturals.",
    ),
    (
        {"player_must_draw_below": 6, "player_must_stand_from": 7},
        "must draw on 0 to 5, chooses freely on 6 (the punter's option: draw or stand) and "
        "must stand on 7;",
    ),
    (
        {"player_must_draw_below": 4, "player_must_stand_from": 6},
        "must draw on 0 to 3, chooses freely on 4 or 5",
    ),
    ({"player_must_draw_below": 5, "player_must_stand_from": 5}, "must draw on 0 to 4 and must"),
    ({"player_must_draw_below": 0}, "player's hand chooses freely on 0 to 5"),
    ({"tie_keeps_bank": True}, "after a win, a tie or a coup nobody staked in; after a loss it"),
    (
        {"commission": Fraction(1, 20)},
        "less the house's commission of 5% of those winnings (rounded up to 0.01). The "
        "commission is all the house gets",
    ),
    ({"commission": Fraction(1, 40)}, "commission of 2.5% of those winnings"),
    (
        {"banker_forced_by_tableau": True},
        "the banker has no choice: he draws as the casino's tableau says, on 0 to 5 when the "
        "player stood",
    ),
]


@pytest.mark.parametrize(("changes", "expected"), CHANGES)
def test_each_rule_changes_the_words(changes: dict[str, Any], expected: str) -> None:
    default = words(ChemmyRules())
    changed = words(ChemmyRules(**changes))
    assert expected in changed and expected not in default


def test_a_shoe_of_other_decks_is_told() -> None:
    rules = ChemmyRules()
    eight = dataclasses.replace(rules, shoe=dataclasses.replace(rules.shoe, decks=8))
    assert "The shoe holds 8 decks (416 cards)" in words(eight)


def test_the_banker_bound_by_a_tableau_gets_its_table() -> None:
    rows = [*Tableau().banker]
    rows[6] = BankerRow(6, (6,))  # the banker stands on 6 against a 7 here
    forced = ChemmyRules(banker_forced_by_tableau=True, tableau=Tableau(banker=tuple(rows)))
    [(title, header, table)] = rules_text(GAME_ID, forced).tables
    assert "he must follow it" in title and header[0] == "banker's total"
    assert table[6] == ["6", "6"] and table[7] == ["7", "never (stands)"]


def test_the_bank_pays_less_its_commission() -> None:
    rules = ChemmyRules(commission=Fraction(1, 20))
    punter, bank = paytable(GAME_ID, rules)
    assert (punter.wager, punter.pays) == ("punter", "1:1")
    assert (bank.wager, bank.pays) == ("bank", "19:20")
    assert "1:1 less the house's 5% commission" in bank.when
    assert [percent_of(Fraction(v)) for v in ("0", "1/20", "1/3")] == ["0%", "5%", "100/3%"]
