"""Simulation dealt from fresh shoes (``cardroom simulate GAME --fresh-shoe``).

Every round is dealt from a full, freshly shuffled shoe, so the simulation and the
exact finite-shoe analysis (:mod:`cardroom.analysis.finnish_shoe`) describe the same
game.  The kernels are the usual ones with the reshuffle point set to the first
card: the differential test deals the very same shoes to the kernel and to the
engine.
"""

from __future__ import annotations

import pytest

from cardroom.games import get_game
from cardroom.simulation.runner import fresh_shoe, run
from tests.test_simulation import replay_against_engine


@pytest.mark.parametrize("game_id", ["finnish27", "21-24-27", "punto-banco"])
def test_fresh_shoe_kernel_plays_the_engine_s_rounds(game_id: str) -> None:
    rules = fresh_shoe(get_game(game_id).load_rules())
    assert rules.shoe.reshuffle_after == 1
    replay_against_engine(game_id, rules, "basic", 3_000)


def test_fresh_shoe_run_shuffles_before_every_round() -> None:
    rules = get_game("21-24-27").load_rules()
    result = run("21-24-27", rules, 5_000, seed=9, fresh=True)
    assert result.fresh and result.shoes == result.rounds == 5_000
    through = run("21-24-27", rules, 5_000, seed=9)
    assert not through.fresh and through.shoes < 5_000 / 25
