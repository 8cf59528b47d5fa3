"""Invariants over random play of the engines (Hypothesis): cards are conserved, every
round settles, every payout is a whole number of the table's unit with the breakage said.

(The books of the wallet are checked the same way in ``tests/storage`` and
``tests/app/tables``.)"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from cardroom.core.cards import Deck, parse_cards
from cardroom.core.events import CardDealt, Outcome, Reshuffled, Settled
from cardroom.core.rules import apply_rules
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import get_game, house_games
from cardroom.games.base import PLAYER_SEAT, Action, Round
from cardroom.games.dealing import Dealer

GAME_IDS = sorted(game.id for game in house_games())
SMALL_SHOE = {"shoe": {"decks": 1, "reshuffle_after": 30}}


@given(
    game_id=st.sampled_from(GAME_IDS),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_sessions_conserve_cards_settle_and_balance(
    game_id: str, seed: int, data: st.DataObject
) -> None:
    game = get_game(game_id)
    rules = apply_rules(game.load_rules(), SMALL_SHOE)
    shoe = Shoe(rules.shoe, SeededShuffler(seed))
    table = Dealer(game, rules, shoe)
    dealt_since_shuffle: list[str] = []
    for _ in range(data.draw(st.integers(1, 12), label="rounds")):
        spots = data.draw(st.lists(st.sampled_from(game.wager_ids), unique=True), label="spots")
        wagers = {w: Fraction(data.draw(st.integers(1000, 100_000), label=w), 100) for w in spots}
        rnd = table.start_round(wagers)

        def choose(r: Round) -> Action:
            return data.draw(st.sampled_from(sorted(r.legal_actions())), label="decision")

        while not rnd.is_complete:
            if rnd.next_hand is None:
                rnd.act(PLAYER_SEAT, choose(rnd))
            else:
                table.step(rnd)
            assert len(rnd.cards_in_play()) < 60, "a round must end"

        # every card dealt is in exactly one hand, and the hands hold nothing else
        shown = [e.card for e in rnd.events if isinstance(e, CardDealt)]
        assert Counter(shown) == Counter(rnd.cards_in_play())
        if any(isinstance(e, Reshuffled) for e in rnd.events):
            dealt_since_shuffle = []
        dealt_since_shuffle += [c.code for c in shown]
        # cards conserved: dealt since the shuffle + what is left = the full shoe
        left = [c.code for c in shoe.peek(shoe.remaining)]
        full = Counter(c.code for c in Deck.shoe(rules.shoe.decks, rules.shoe.jokers_per_deck))
        assert Counter(dealt_since_shuffle) + Counter(left) == full

        # every round settles: one outcome, one settlement per wager, known outcome
        outcomes = [e for e in rnd.events if isinstance(e, Outcome)]
        assert len(outcomes) == 1 and outcomes[0].outcome in game.outcomes
        settled = {e.wager: e for e in rnd.events if isinstance(e, Settled)}
        assert set(settled) == set(wagers) == set(rnd.net)
        for wager, event in settled.items():
            assert event.net >= -event.stake  # nobody loses more than the stake
            assert event.net == rnd.net[wager]

            # paid in whole units of the table's money; what is kept is the breakage
            unit = rules.table.unit
            assert ((event.stake + event.net) / unit).denominator == 1
            assert 0 <= event.breakage < unit
            assert event.net + event.breakage == rnd.exact_net[wager]


@given(
    game_id=st.sampled_from(GAME_IDS),
    codes=st.permutations([c.code for c in Deck.shoe(6, 2)]),
    decisions=st.lists(st.sampled_from([Action.HIT, Action.STAND]), min_size=30, max_size=30),
)
def test_any_card_sequence_ends_in_a_settled_round(
    game_id: str, codes: list[str], decisions: list[Action]
) -> None:
    """Any order of a full shoe, any decisions: the engine always ends a round."""
    game = get_game(game_id)
    rnd = game.new_round(game.load_rules(), {w: 10 for w in game.wager_ids})
    cards = list(parse_cards(codes))
    while not rnd.is_complete:
        if rnd.next_hand is None:
            legal = rnd.legal_actions()
            choice = decisions.pop() if decisions else Action.STAND
            rnd.act(PLAYER_SEAT, choice if choice in legal else next(iter(legal)))
        else:
            rnd.deal(cards.pop())
    assert rnd.outcome in game.outcomes
    assert set(rnd.net) == set(game.wager_ids)
