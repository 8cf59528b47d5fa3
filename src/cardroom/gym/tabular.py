"""A tabular Q-learner for the environments of :mod:`cardroom.gym` (or any environment
with a ``Discrete`` action space and an ``"action_mask"`` in its info).

Watkins' Q-learning, one value per (state, action), each state the hashable ``key`` of an
observation: every step moves the value of the action taken towards the reward plus the
best value of the next state (none after the last step), by ``1/n`` for its ``n``-th
visit, the plain average of its targets.  The behaviour explores: with chance
``explore`` it takes an allowed action at random, otherwise the greedy one.  Q-learning
learns the greedy strategy's values whatever the behaviour, so the default explores
always (``explore=1``: every allowed action as often, the most even spread of what is
tried), drawing from a generator seeded by ``seed``.  The greedy strategy takes, among
the allowed actions, the one worth most; a tie (a state never visited) goes to the
lowest action number.

>>> import gymnasium
>>> import cardroom.gym
>>> env = gymnasium.make("cardroom/TwentyOne2427-v0")
>>> learner = QLearner(2, key=lambda observation: tuple(observation["totals"].tolist()), seed=1)
>>> learner.train(env, episodes=200, seed=1)
>>> len(learner.values) > 50
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray

__all__ = ["QLearner"]


class QLearner:
    """Tabular Q-learning over ``actions`` actions, a state being ``key(observation)``."""

    def __init__(
        self,
        actions: int,
        key: Callable[[Any], Hashable],
        explore: float = 1.0,
        seed: int | None = None,
    ) -> None:
        if not 0 <= explore <= 1:
            raise ValueError(f"explore: a chance from 0 to 1, not {explore}")
        self.actions = actions
        self.key = key
        self.explore = explore
        #: each state's value of each action, and how often each was taken there
        self.values: dict[Hashable, NDArray[np.float64]] = {}
        self.visits: dict[Hashable, NDArray[np.int64]] = {}
        #: episodes learned from
        self.episodes = 0
        #: the generator the exploration draws from
        self.rng = np.random.default_rng(seed)

    def value(self, state: Hashable) -> NDArray[np.float64]:
        """The values of ``state``'s actions (0 where never tried)."""
        found = self.values.get(state)
        return np.zeros(self.actions) if found is None else found

    def greedy(self, state: Hashable, mask: NDArray[np.int8] | None = None) -> int:
        """The allowed action worth most in ``state`` (the lowest such action on a tie)."""
        values = self.value(state)
        if mask is not None:
            values = np.where(mask.astype(bool), values, -np.inf)
        return int(np.argmax(values))

    def behave(self, state: Hashable, mask: NDArray[np.int8], rng: np.random.Generator) -> int:
        """The action the learner takes while learning: a random allowed one with chance
        ``explore``, else the greedy one."""
        if self.explore and rng.random() < self.explore:
            allowed = np.flatnonzero(mask)
            return int(allowed[rng.integers(len(allowed))])
        return self.greedy(state, mask)

    def update(
        self,
        state: Hashable,
        action: int,
        reward: float,
        after: Hashable | None,
        mask: NDArray[np.int8] | None = None,
    ) -> None:
        """Learn from one step: ``after`` is the next state (None: the episode ended), and
        ``mask`` the actions allowed there."""
        values = self.values.setdefault(state, np.zeros(self.actions))
        visits = self.visits.setdefault(state, np.zeros(self.actions, np.int64))
        target = reward
        if after is not None:
            ahead = self.value(after)
            if mask is not None:
                ahead = ahead[mask.astype(bool)]
            target += float(ahead.max())
        visits[action] += 1
        values[action] += (target - values[action]) / visits[action]

    def train(self, env: gymnasium.Env[Any, Any], episodes: int, seed: int | None = None) -> None:
        """Learn from ``episodes`` episodes of ``env``, the first reset with ``seed`` (None:
        the environment goes on from where it is, as after an earlier call)."""
        for done_before in range(episodes):
            observation, info = env.reset(seed=seed if done_before == 0 else None)
            state: Hashable | None = self.key(observation)
            mask = info["action_mask"]
            while state is not None:
                action = self.behave(state, mask, self.rng)
                observation, reward, terminated, truncated, info = env.step(action)
                after = None if terminated else self.key(observation)
                mask = info["action_mask"]
                self.update(state, action, float(reward), after, None if after is None else mask)
                state = None if terminated or truncated else after
            self.episodes += 1
