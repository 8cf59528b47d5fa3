"""The dealer: reshuffles between rounds and survives a shoe running dry."""

from __future__ import annotations

from collections import Counter

import pytest

from cardroom.core.cards import Deck, parse_cards
from cardroom.core.events import CardDealt, Reshuffled
from cardroom.core.rules import apply_rules
from cardroom.core.shoe import SeededShuffler, Shoe, ShoeExhausted, StackedShoe
from cardroom.games import get_game
from cardroom.games.base import WagerError
from cardroom.games.dealing import Dealer


def test_reshuffle_happens_between_rounds_once_the_point_is_reached() -> None:
    game = get_game("finnish27")
    rules = apply_rules(game.load_rules(), {"shoe": {"decks": 1, "reshuffle_after": 20}})
    shoe = Shoe(rules.shoe, SeededShuffler(8))
    table = Dealer(game, rules, shoe)
    reasons = []
    for _ in range(30):
        dealt_before = shoe.dealt
        rnd = table.play({"player": 10})
        shuffles = [e for e in rnd.events if isinstance(e, Reshuffled)]
        if shuffles:
            reasons.append(shuffles[0].cause)
            # the reshuffle comes first in the round, and only once the point was reached
            assert rnd.events[0] == shuffles[0]
            assert dealt_before >= 20 or shuffles[0].cause == "new_shoe"
    assert reasons[0] == "new_shoe" and "reshuffle_point" in reasons
    assert len(reasons) >= 5


def test_a_shoe_that_runs_dry_mid_round_is_reshuffled_without_the_cards_on_the_table() -> None:
    game = get_game("21-24-27")
    rules = apply_rules(game.load_rules(), {"shoe": {"decks": 1, "reshuffle_after": 54}})
    shoe = Shoe(rules.shoe, SeededShuffler(3))
    table = Dealer(game, rules, shoe)
    strategy = game.player_strategy
    assert strategy is not None
    for _ in range(200):
        rnd = table.play({"player": 10}, strategy())
        mid = [i for i, e in enumerate(rnd.events) if isinstance(e, Reshuffled) and i > 0]
        if mid:
            at = mid[0]
            assert rnd.events[at].cause == "ran_out"  # type: ignore[union-attr]
            before = Counter(e.card.code for e in rnd.events[:at] if isinstance(e, CardDealt))
            after = Counter(e.card.code for e in rnd.events[at:] if isinstance(e, CardDealt))
            left = Counter(c.code for c in shoe.peek(shoe.remaining))
            full = Counter(c.code for c in Deck.shoe(1, 2))
            # the new shoe held every card but those on the table when it ran dry
            assert after + left == full - before
            assert before + after == Counter(c.code for c in rnd.cards_in_play())
            return
    pytest.fail("no round ran the 1-deck shoe dry in 200 rounds")


def test_a_bad_wager_is_refused_and_changes_nothing() -> None:
    game = get_game("finnish27")
    rules = game.load_rules()
    shoe = Shoe(rules.shoe, SeededShuffler(1))
    table = Dealer(game, rules, shoe)
    with pytest.raises(WagerError, match="below the table minimum"):
        table.start_round({"player": 5})
    assert shoe.shuffles == 0 and table.rounds_played == 0


def test_a_stacked_shoe_running_out_is_an_error_not_a_reshuffle() -> None:
    game = get_game("finnish27")
    table = Dealer(game, game.load_rules(), StackedShoe(parse_cards("Kc 5c Td")))
    with pytest.raises(ShoeExhausted):
        table.play({"player": 10})
