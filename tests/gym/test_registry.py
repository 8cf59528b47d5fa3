"""cardroom.gym registers what the game packages offer, and cardroom works without
Gymnasium, but for cardroom.gym and the games' gym modules."""

from __future__ import annotations

import subprocess
import sys

import gymnasium

import cardroom.gym
from cardroom.gym import environments, register

IDS = {"cardroom/TwentyOne2427-v0", "cardroom/CheminDeFerSeat-v0"}


def test_every_declared_environment_is_registered_once() -> None:
    declared = environments()
    assert {spec.id for spec in declared} == IDS
    assert set(gymnasium.registry) >= IDS
    assert register() == []  # all registered on import: a second call adds nothing
    for spec in declared:
        env = gymnasium.make(spec.id)
        assert env.unwrapped.spec is not None and env.unwrapped.spec.id == spec.id
        env.close()


WITHOUT_GYMNASIUM = """
import sys
sys.modules["gymnasium"] = None  # as if it were not installed
import cardroom.games, cardroom.games.gym_base
for name in ("cardroom.gym", "cardroom.games.finnish.gym", "cardroom.games.chemin_de_fer.gym"):
    try:
        __import__(name)
    except ImportError as err:
        print(name, "gymnasium" in str(err))
"""


def test_cardroom_imports_without_gymnasium() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_GYMNASIUM], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [
        "cardroom.gym", "True",
        "cardroom.games.finnish.gym", "True",
        "cardroom.games.chemin_de_fer.gym", "True",
    ]  # fmt: skip
    assert cardroom.gym.__name__ == "cardroom.gym"
