"""``cardroom/CheminDeFerSeat-v0``: Gymnasium's own checks, seeds, vector environments, a
rules file, what the seat is asked and what it sees, and refused steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import cardroom.gym  # noqa: F401  (registers the environments)
from cardroom.core.cards import RANKS
from cardroom.games.base import IllegalAction
from cardroom.games.chemin_de_fer import ChemmyRules
from cardroom.games.chemin_de_fer.gym import ROLES, CheminDeFerSeatEnv
from tests.gym.checks import assert_gymnasium_checks

ID = "cardroom/CheminDeFerSeat-v0"
STAND, DRAW = 0, 1


def draw_below_5(observation: dict[str, Any]) -> int:
    return DRAW if observation["total"] < 5 else STAND


def episodes(env: gymnasium.Env[Any, Any], seed: int | None, count: int) -> list[Any]:
    """``count`` episodes played by :func:`draw_below_5` after ``reset(seed=seed)``: every
    observation, reward and what each reset skipped."""
    record: list[Any] = []
    observation, info = env.reset(seed=seed)
    for _ in range(count):
        record.append((info["coups_without_choice"], info["net_without_choice"]))
        record.append({name: np.asarray(value).tolist() for name, value in observation.items()})
        observation, reward, done, _, info = env.step(draw_below_5(observation))
        assert done
        record.append((reward, info["outcome"]))
        record.append({name: np.asarray(value).tolist() for name, value in observation.items()})
        observation, info = env.reset()
    return record


@pytest.mark.parametrize("shoe", [False, True], ids=["cards", "with-shoe"])
def test_gymnasium_checks_the_environment(shoe: bool) -> None:
    assert_gymnasium_checks(ID, shoe)


def test_a_seed_replays_its_episodes_and_another_differs() -> None:
    """The shoe, the draw for the bank and the solved bots' mixed draws all come from the
    seeded generator."""
    first = episodes(gymnasium.make(ID, opponents="solved"), 3, 25)
    assert episodes(gymnasium.make(ID, opponents="solved"), 3, 25) == first
    assert episodes(gymnasium.make(ID, opponents="solved"), 4, 25) != first


def test_the_seat_is_asked_its_draws_and_sees_its_own_cards() -> None:
    """As the player the seat is asked at 5 only, on two cards; as the banker, on two
    cards, knowing the player's third card if he drew.  It always sees its own hand,
    and counts every card it saw out of the shoe."""
    env = CheminDeFerSeatEnv(shoe_composition=True)
    observation, info = env.reset(seed=9)
    roles: dict[str, int] = {"player": 0, "banker": 0}
    for _ in range(120):
        assert info["action_mask"].tolist() == [1, 1]
        role = ROLES[int(observation["role"])]
        assert role is not None and observation["cards"].sum() == 2
        roles[role] += 1
        if role == "player":
            assert observation["total"] == 5 and observation["third"] == 0
        cards = [RANKS[i] for i, n in enumerate(observation["cards"]) for _ in range(n)]
        points = sum(min(rank.number, 10) for rank in cards) % 10
        assert points == observation["total"]
        observation, reward, done, _, info = env.step(draw_below_5(observation))
        assert done and info["action_mask"].tolist() == [0, 0]
        assert reward in (-1.0, 0.0, 1.0) and info["outcome"] in ("player", "banker", "tie")
        assert observation["shoe"].sum() < 6 * 52 and observation["shoe"].min() >= 0
        observation, info = env.reset()
    assert roles["banker"] > 60 and roles["player"] > 5  # the player decides at 5 only


def test_three_environments_in_a_vector() -> None:
    envs = gymnasium.make_vec(ID, num_envs=3, vectorization_mode="sync")
    observation, info = envs.reset(seed=[2, 2, 5])
    assert observation["cards"].shape == (3, 13) and info["action_mask"].shape == (3, 2)
    differs = False
    for _ in range(40):
        actions = np.where(observation["total"] < 5, DRAW, STAND)
        observation, reward, terminated, truncated, info = envs.step(actions)
        assert not truncated.any()
        assert np.all(reward[~terminated] == 0)
        assert all(np.array_equal(observation[k][0], observation[k][1]) for k in observation)
        differs |= not all(
            np.array_equal(observation[k][0], observation[k][2]) for k in observation
        )
    envs.close()
    assert differs


def test_a_rules_file(tmp_path: Path) -> None:
    """A variant read from TOML: four decks, the banker bound by the tableau, the player
    free at 4 and 5.  The seat is then asked only as the player, at 4 or 5, and its
    shoe holds 16 cards of a rank."""
    path = tmp_path / "variant.toml"
    path.write_text(
        "banker_forced_by_tableau = true\nplayer_must_draw_below = 4\n\n[shoe]\ndecks = 4\n",
        encoding="utf-8",
    )
    env = gymnasium.make(ID, rules=path, shoe_composition=True, bots=3)
    assert env.observation_space["shoe"].high.tolist() == [16] * 13
    observation, _ = env.reset(seed=6)
    totals = set()
    for _ in range(30):
        assert ROLES[int(observation["role"])] == "player"
        totals.add(int(observation["total"]))
        env.step(DRAW)
        observation, _ = env.reset()
    assert totals == {4, 5}


def test_refused_steps_and_settings() -> None:
    env = CheminDeFerSeatEnv()
    with pytest.raises(IllegalAction, match="call reset"):
        env.step(STAND)  # no coup yet
    env.reset(seed=1)
    with pytest.raises(IllegalAction, match="0 stands and 1 draws"):
        env.step(-1)
    env.step(STAND)
    with pytest.raises(IllegalAction, match="call reset"):
        env.step(DRAW)
    forced = ChemmyRules(banker_forced_by_tableau=True, player_must_draw_below=6)
    with pytest.raises(ValueError, match="never be asked"):
        CheminDeFerSeatEnv(forced)
    with pytest.raises(ValueError, match="bots"):
        CheminDeFerSeatEnv(bots=8)
    with pytest.raises(ValueError, match="opponents"):
        CheminDeFerSeatEnv(opponents="nobody")


def test_a_reset_before_the_coup_ends_plays_it_out() -> None:
    """The table cannot leave a coup half played: the seat's draw is made as the bots
    would, and the next observation is a new decision on two cards."""
    env = CheminDeFerSeatEnv()
    env.reset(seed=8)
    for _ in range(5):
        observation, info = env.reset()
        assert info["coups_without_choice"] >= 1
        assert ROLES[int(observation["role"])] is not None and observation["cards"].sum() == 2
