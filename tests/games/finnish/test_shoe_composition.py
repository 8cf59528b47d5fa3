"""A shoe of any number of cards per rank (``[shoe] cards_per_rank``, issue 21): the
cards the engines deal, the rules file, the words, and the exact analyses of the Finnish
games and of baccarat from that shoe, each checked against a simulation of it within
4 standard errors; chemin de fer, whose solved coup is counted by decks, refuses it."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from cardroom.app.disclosure import rules_text
from cardroom.app.runner import run
from cardroom.core.cards import Rank, Suit
from cardroom.core.rules import RulesError, apply_rules, load_rules_text, rules_to_toml
from cardroom.core.shoe import ShoeRules, check_in_shoe
from cardroom.games import get_game
from cardroom.games.baccarat.analysis import analyze_baccarat
from cardroom.games.finnish.replacement import DrawOdds
from cardroom.games.finnish.shoe import analyze_finnish27_shoe
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from tests.games.finnish.test_shoe import compile_once

# the kernels' compile is shared with the other finite-shoe tests
pytestmark = pytest.mark.xdist_group("finnish-shoe")

#: two decks' worth of each rank but the Tens, and one Ten more of the Kings
NO_TENS = (8, 8, 8, 8, 8, 8, 8, 8, 8, 0, 8, 8, 9)


def test_the_shoe_holds_the_cards_it_says() -> None:
    shoe = ShoeRules(decks=2, jokers_per_deck=1, reshuffle_after=50, cards_per_rank=NO_TENS)
    cards = shoe.cards()
    assert shoe.size == len(cards) == sum(NO_TENS) + 2
    ranks = Counter(card.rank for card in cards)
    assert ranks[Rank.TEN] == 0 and ranks[Rank.KING] == 9 and ranks[Rank.JOKER] == 2
    kings = Counter(card.suit for card in cards if card.rank is Rank.KING)
    assert kings == {Suit.SPADES: 3, Suit.HEARTS: 2, Suit.DIAMONDS: 2, Suit.CLUBS: 2}
    assert shoe.rank_counts()[Rank.KING] == 9
    with pytest.raises(ValueError, match=r"^decks: these rules give the shoe's cards_per_rank"):
        shoe.rank_counts(6)
    makeup = ShoeMakeup.of_rules(shoe)
    assert makeup.cards == shoe.size and makeup.suits[12] == (3, 2, 2, 2)
    with pytest.raises(ValueError, match=r"holds only"):
        check_in_shoe([card for card in cards if card.rank is Rank.ACE] * 2, shoe)


def test_the_rules_file_says_it_and_refuses_a_bad_one() -> None:
    default = get_game("finnish27").default_rules()
    text = "[shoe]\ndecks = 2\ncards_per_rank = [8, 8, 8, 8, 8, 8, 8, 8, 8, 0, 8, 8, 9]\n"
    rules = load_rules_text(default, text)
    assert rules.shoe.cards_per_rank == NO_TENS and rules.shoe.size == 101
    assert rules.shoe.reshuffle_after == 75  # three quarters of this shoe
    assert load_rules_text(default, rules_to_toml(rules)) == rules
    assert "cards_per_rank" not in rules_to_toml(default)
    words = " ".join(rules_text("finnish27", rules).sentences)
    assert "The shoe holds 8 Aces, 8 2s" in words and "0 10s" in words and "9 Kings" in words
    for bad in (
        "[8, 8]",
        "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
        '"all"',
        "[257" + ", 1" * 12 + "]",
    ):
        with pytest.raises(RulesError, match="cards_per_rank"):
            load_rules_text(default, f"[shoe]\ncards_per_rank = {bad}\n")
    chemmy = get_game("chemin-de-fer").default_rules()
    with pytest.raises(RulesError, match="chemin de fer's shoe is whole decks"):
        apply_rules(chemmy, {"shoe": {"cards_per_rank": list(NO_TENS)}})


def _fresh(rules: Any) -> Any:
    """The rules with every round dealt from a fresh shuffle: the exact figures are off
    the top of the shoe, and so is every simulated round."""
    shoe = replace(rules.shoe, reshuffle_after=1, reshuffle_fraction=None, cut_card=None)
    return replace(rules, shoe=shoe)


@pytest.mark.long
def test_finnish27_from_the_shoe_it_holds_agrees_with_its_simulation() -> None:
    compile_once()
    game = get_game("finnish27")
    rules = apply_rules(
        game.default_rules(), {"shoe": {"decks": 2, "cards_per_rank": list(NO_TENS)}}
    )
    report = analyze_finnish27_shoe(rules)
    # the same shoe given by its counts: the same figures
    assert (
        analyze_finnish27_shoe(rules, ShoeMakeup.of_rules(rules.shoe)).outcomes == report.outcomes
    )
    assert DrawOdds.of_shoe(rules.shoe).odds[9] == 0  # no Tens drawn with replacement either
    fresh = _fresh(rules)
    result = run("finnish27", fresh, 60_000, seed=31)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, report.wagers[wager].expected)
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)


def test_punto_banco_from_the_shoe_it_holds_agrees_with_its_simulation() -> None:
    game = get_game("punto-banco")
    nines = [32] * 13
    nines[8] = 0  # no Nines: no natural 9 but from pictures and Tens
    rules = apply_rules(game.default_rules(), {"shoe": {"cards_per_rank": nines}})
    report = analyze_baccarat(rules, "punto-banco")
    default = analyze_baccarat(game.default_rules(), "punto-banco")
    assert report.outcomes != default.outcomes
    assert any("cards of the ranks the rules give" in line for line in report.assumptions)
    result = run("punto-banco", _fresh(rules), 200_000, seed=32)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, report.wagers[wager].expected)
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)
