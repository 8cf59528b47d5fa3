"""What the tests of both environments check alike."""

from __future__ import annotations

import warnings

import gymnasium
from gymnasium.utils.env_checker import check_env


def assert_gymnasium_checks(env_id: str, shoe: bool) -> None:
    """check_env passes on ``env_id``, and says nothing (its warnings are made errors
    here); the shoe's composition is in the observation exactly when asked for."""
    env = gymnasium.make(env_id, shoe_composition=shoe)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        check_env(env.unwrapped)
    assert ("shoe" in env.observation_space.spaces) is shoe
