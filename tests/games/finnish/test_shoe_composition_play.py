"""Composition-dependent play of 21-24-27 counted on its own
(:func:`~cardroom.games.finnish.shoe_twentyone.composition_counts`, what ``analyze
--strategy optimal`` shows): the same counts as the whole solve, which also works out
every table of thresholds and every state's exact values."""

from __future__ import annotations

import pytest

from cardroom.core.cards import Rank
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.finnish.shoe_twentyone import composition_counts, solve_21_24_27_shoe
from cardroom.games.finnish.twentyone_24_27 import TwentyOne2427Rules
from tests.games.finnish.test_shoe import TWENTYONE_SHOE, TWENTYONE_VARIANT, compile_once

pytestmark = pytest.mark.xdist_group("finnish-shoe")

#: more cards of each rank than TWENTYONE_SHOE: more states, and more dealer starts
WIDER_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 3, Rank.TWO: 2, Rank.FIVE: 3, Rank.SEVEN: 2, Rank.NINE: 2, Rank.TEN: 3,
     Rank.KING: 3, Rank.JOKER: 2}
)  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    compile_once()


@pytest.mark.parametrize("shoe", [TWENTYONE_SHOE, WIDER_SHOE], ids=["small", "wider"])
@pytest.mark.parametrize(
    "rules", [TwentyOne2427Rules(), TWENTYONE_VARIANT], ids=["rules", "variant"]
)
@pytest.mark.parametrize("eps", [1e-9, 10.0], ids=["floats", "every-decision-exact"])
def test_composition_counts_are_the_solves(
    rules: TwentyOne2427Rules, shoe: ShoeMakeup, eps: float
) -> None:
    """With a huge ``eps`` every free decision is settled in exact arithmetic (the
    exact values of the flagged states are worked out apart from the pass)."""
    solved = solve_21_24_27_shoe(rules, shoe, eps=eps).counted
    assert solved is not None
    counted = composition_counts(rules, shoe, eps)
    assert counted.results == solved.results
    assert (counted.longest, counted.total) == (solved.longest, solved.total)
