"""Simulation dealt from fresh shoes (``cardroom simulate GAME --fresh-shoe``).

Every round is dealt from a full, freshly shuffled shoe, so the simulation and the
exact finite-shoe analysis (:mod:`cardroom.games.finnish.shoe`) describe the same
game.  The kernels are the usual ones with the reshuffle point set to the first
card: the differential test deals the very same shoes to the kernel and to the
engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from cardroom.app.runner import fresh_shoe, run
from cardroom.games import get_game
from tests.games.test_kernels import replay_against_engine

#: the finite-shoe kernels compile once, on one worker (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("finnish-shoe")


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


@dataclass(frozen=True)
class Pinned:
    """One long run's exact sums (nets in 1/unit stakes) and the exact analysis."""

    seed: int
    unit: int
    outcomes: dict[str, int]
    net: dict[str, int]
    net_squared: dict[str, int]
    exact_outcomes: dict[str, str]
    exact_means: dict[str, str]


#: 10**8 rounds from fresh shoes, pinned from ``python
#: benchmarks/fresh_shoe_simulation.py GAME 100000000 SEED`` (about 90 s for finnish27,
#: 40 s for 21-24-27 on two cores), beside the exact analysis off the top of the
#: shoe (tests/games/finnish/test_shoe.py pins the exact fractions; 14 places here)
PINNED = {
    "finnish27": Pinned(
        seed=27,
        unit=10,
        outcomes={"player": 40_092_539, "dealer": 48_886_027, "push": 11_021_434},
        net={"player": -15_681_831, "dealer": -9_837_174, "push": -118_285_280},
        net_squared={"player": 27_966_357_833, "dealer": 7_137_959_628, "push": 62_902_883_200},
        exact_outcomes={
            "player": "0.40091958689636",
            "dealer": "0.48887607393162",
            "push": "0.11020433917202",
        },
        exact_means={
            "player": "-0.01570025142580",
            "dealer": "-0.00981872775107",
            "push": "-0.11836528662384",
        },
    ),
    "21-24-27": Pinned(
        seed=2427,
        unit=1,
        outcomes={"player": 45_175_626, "dealer": 46_226_054, "push": 8_598_320},
        net={"player": -1_050_428},
        net_squared={"player": 91_401_680},
        exact_outcomes={
            "player": "0.45178532046466",
            "dealer": "0.46221955564608",
            "push": "0.08599512388926",
        },
        exact_means={"player": "-0.01043423518143"},
    ),
}


@pytest.mark.parametrize("game_id", list(PINNED))
def test_a_fresh_shoe_simulation_of_1e8_rounds_agrees_with_the_exact_analysis(
    game_id: str,
) -> None:
    """Each outcome's share and each wager's mean within 4 standard errors."""
    pinned = PINNED[game_id]
    rounds = sum(pinned.outcomes.values())
    assert rounds == 100_000_000
    for name, count in pinned.outcomes.items():
        p = float(pinned.exact_outcomes[name])
        error = (p * (1 - p) / rounds) ** 0.5
        assert abs(count / rounds - p) < 4 * error, (name, count / rounds, p)
    for wager, total in pinned.net.items():
        mean = total / (rounds * pinned.unit)
        square = pinned.net_squared[wager] / (rounds * pinned.unit**2)
        error = ((square - mean * mean) / rounds) ** 0.5
        exact = float(pinned.exact_means[wager])
        assert abs(mean - exact) < 4 * error, (wager, mean, exact, error)
