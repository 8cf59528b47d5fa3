"""The shoe: composition, reshuffle point, injected randomness, unbiased shuffles."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from cardroom.core.cards import JOKER, Card, Deck
from cardroom.core.shoe import (
    SecureShuffler,
    SeededShuffler,
    Shoe,
    ShoeExhausted,
    ShoeRules,
    Shuffler,
    StackedShoe,
    reshuffle_if_due,
)

SHUFFLES = 100_000


def test_default_shoe_is_six_decks_with_two_jokers_each() -> None:
    rules = ShoeRules()
    assert (rules.decks, rules.jokers_per_deck, rules.size) == (6, 2, 324)
    assert rules.reshuffle_after == 243  # 4.5 decks of 54


def test_shoe_is_shuffled_before_the_first_round() -> None:
    shoe = Shoe(ShoeRules(), SeededShuffler(1))
    assert shoe.needs_reshuffle
    with pytest.raises(ShoeExhausted):
        shoe.draw()
    event = shoe.shuffle("new_shoe")
    assert event.shoe == 1 and event.cause == "new_shoe"
    assert not shoe.needs_reshuffle
    assert shoe.remaining == 324


def test_reshuffle_point_is_reached_after_243_cards() -> None:
    shoe = Shoe(ShoeRules(), SeededShuffler(2))
    shoe.shuffle("new_shoe")
    for _ in range(242):
        shoe.draw()
    assert not shoe.needs_reshuffle
    shoe.draw()
    assert shoe.needs_reshuffle and shoe.dealt == 243


def test_a_round_limit_reshuffles_after_so_many_rounds() -> None:
    """Every table begins a round with reshuffle_if_due: the fourth round of a shoe
    limited to three starts from a new shuffle, whose cause says why; a restored
    shoe goes on counting; with the limit off only the cards count."""
    rules = ShoeRules(decks=1, jokers_per_deck=0, reshuffle_after=40, reshuffle_after_rounds=3)
    shoe = Shoe(rules, SeededShuffler(3))
    causes: list[str] = []
    for _ in range(7):
        reshuffle_if_due(shoe, lambda event: causes.append(event.cause))
        shoe.draw()
    assert causes == ["new_shoe", "round_limit", "round_limit"] and shoe.rounds == 1
    again = Shoe.restore(rules, SeededShuffler(0), shoe.order, shoe.dealt, shoe.shuffles, 3)
    assert again.needs_reshuffle and again.next_cause == "round_limit"
    assert not Shoe.restore(rules, SeededShuffler(0), shoe.order, shoe.dealt, 3, 2).needs_reshuffle
    unlimited = Shoe(dataclasses.replace(rules, reshuffle_after_rounds=0), SeededShuffler(3))
    for _ in range(39):
        reshuffle_if_due(unlimited, lambda event: None)
        unlimited.draw()
    assert unlimited.shuffles == 1 and unlimited.rounds == 39
    # a shoe that runs out in mid-round: the rest of that round is the new shuffle's first
    shoe.shuffle("ran_out")
    assert shoe.rounds == 1
    with pytest.raises(ValueError, match="reshuffle_after_rounds: must be"):
        ShoeRules(reshuffle_after_rounds=-1)


def test_shuffled_shoe_holds_every_card_once() -> None:
    shoe = Shoe(ShoeRules(), SeededShuffler(3))
    shoe.shuffle("new_shoe")
    dealt = [shoe.draw() for _ in range(324)]
    assert Counter(dealt) == Counter(Deck.shoe(6, 2))
    with pytest.raises(ShoeExhausted):
        shoe.draw()


def test_reshuffle_keeps_cards_in_play_out_of_the_shoe() -> None:
    shoe = Shoe(ShoeRules(decks=1, jokers_per_deck=2, reshuffle_after=54), SeededShuffler(4))
    shoe.shuffle("new_shoe")
    in_play = [shoe.draw() for _ in range(5)]
    shoe.shuffle("ran_out", in_play=in_play)
    rest = [shoe.draw() for _ in range(shoe.remaining)]
    assert Counter(rest) + Counter(in_play) == Counter(Deck.shoe(1, 2))


def test_burn_cards_are_discarded_after_a_shuffle() -> None:
    shoe = Shoe(
        ShoeRules(decks=1, jokers_per_deck=0, reshuffle_after=40, burn=3), SeededShuffler(5)
    )
    shoe.shuffle("new_shoe")
    assert shoe.dealt == 3 and shoe.remaining == 49


def test_same_seed_same_shoe_and_different_seed_different_shoe() -> None:
    def order(seed: int) -> list[str]:
        shoe = Shoe(ShoeRules(), SeededShuffler(seed))
        shoe.shuffle("new_shoe")
        return [shoe.draw().code for _ in range(324)]

    assert order(42) == order(42)
    assert order(42) != order(43)


def test_seeded_shuffler_accepts_a_numpy_generator() -> None:
    a = SeededShuffler(np.random.default_rng(9)).permutation(20)
    b = SeededShuffler(9).permutation(20)
    assert a == b


def test_stacked_shoe_deals_in_order_and_runs_out() -> None:
    cards = (*Deck.standard(jokers=1)[:3], JOKER)
    shoe = StackedShoe(cards)
    assert [shoe.draw() for _ in range(4)] == list(cards)
    assert not shoe.needs_reshuffle
    with pytest.raises(ShoeExhausted, match="ran out"):
        shoe.draw()


@pytest.mark.parametrize(
    "rules",
    [
        {"decks": 0},
        {"jokers_per_deck": -1},
        {"reshuffle_after": 0},
        {"reshuffle_after": 325},
        {"burn": 243},
    ],
)
def test_bad_shoe_rules_are_refused(rules: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        ShoeRules(**rules)


def _chi_square_p_values(shuffler: Shuffler, n: int) -> tuple[float, float]:
    """p-values of (a) the position of each card, (b) the frequency of each ordering."""
    positions = np.zeros((n, n), dtype=np.int64)
    orderings: Counter[tuple[int, ...]] = Counter()
    for _ in range(SHUFFLES):
        order = tuple(shuffler.permutation(n))
        orderings[order] += 1
        positions[list(order), range(n)] += 1
    # Each card lands in each position with probability 1/n.
    position_p = chisquare(positions.ravel()).pvalue
    every = [orderings[p] for p in itertools.permutations(range(n))]
    ordering_p = chisquare(every).pvalue
    return float(position_p), float(ordering_p)


@pytest.mark.parametrize(
    "shuffler", [SeededShuffler(20261121), SecureShuffler()], ids=["seeded", "secure"]
)
def test_shuffles_are_unbiased(shuffler: Shuffler) -> None:
    """Chi-square over 100,000 shuffles of a 5-card deck: card positions and all 120 orders.

    A biased shuffle (e.g. the classic swap-with-any-position mistake) fails both
    at p < 1e-6 with this many shuffles; an unbiased one fails at 1e-4 once in
    ten thousand runs (the seeded one never: it is deterministic).
    """
    position_p, ordering_p = _chi_square_p_values(shuffler, 5)
    assert position_p > 1e-4
    assert ordering_p > 1e-4


class _NaiveShuffler:
    """The textbook mistake: swap each card with ANY position. It is biased."""

    def __init__(self) -> None:
        self._rng = np.random.default_rng(7)

    def permutation(self, n: int) -> list[int]:
        order = list(range(n))
        for i in range(n):
            j = int(self._rng.integers(n))
            order[i], order[j] = order[j], order[i]
        return order


def test_the_chi_square_test_catches_a_biased_shuffle() -> None:
    position_p, ordering_p = _chi_square_p_values(_NaiveShuffler(), 5)
    assert min(position_p, ordering_p) < 1e-6


@pytest.mark.parametrize(("first", "burnt"), [("As", 2), ("7h", 8), ("Kd", 11), ("Tc", 11)])
def test_burn_by_the_first_card(first: str, burnt: int) -> None:
    class FirstCardFirst:
        """Puts the wanted card on top; the rest in deck order."""

        def permutation(self, n: int) -> list[int]:
            top = [c.code for c in Deck.shoe(8, 0)].index(first)
            return [top, *[i for i in range(n) if i != top]]

    rules = ShoeRules(decks=8, jokers_per_deck=0, cut_card=16, burn_by_first_card=True)
    shoe = Shoe(rules, FirstCardFirst())
    event = shoe.shuffle("new_shoe")
    assert shoe.dealt == burnt and shoe.remaining == 416 - burnt
    assert event.first_card == Card.parse(first) and event.burnt == burnt


def test_cut_card_sets_the_reshuffle_point_from_the_end() -> None:
    assert ShoeRules(decks=8, jokers_per_deck=0, cut_card=16).reshuffle_after == 400
    assert ShoeRules(decks=6, jokers_per_deck=0, cut_card=16).reshuffle_after == 296
    with pytest.raises(ValueError, match="cut_card"):
        ShoeRules(decks=1, jokers_per_deck=0, cut_card=52)


def test_a_reshuffle_fraction_follows_the_size_of_the_shoe() -> None:
    shoe = ShoeRules(decks=6, jokers_per_deck=2, reshuffle_fraction=Fraction(3, 4))
    assert shoe.reshuffle_after == 243
    assert dataclasses.replace(shoe, decks=1).reshuffle_after == 40  # 3/4 of 54, rounded down
    assert (
        ShoeRules(decks=1, jokers_per_deck=0, reshuffle_fraction=Fraction(1, 100)).reshuffle_after
        == 1
    )


def test_a_cut_card_and_a_reshuffle_fraction_together_are_refused() -> None:
    with pytest.raises(
        ValueError, match="reshuffle_fraction: give a cut_card or a reshuffle_fraction"
    ):
        ShoeRules(cut_card=16, reshuffle_fraction=Fraction(3, 4))
