"""cardroom's games as Gymnasium environments, registered with Gymnasium on import.

>>> import gymnasium
>>> import cardroom.gym
>>> env = gymnasium.make("cardroom/TwentyOne2427-v0")

Each game package that offers environments says so in its own ``gym`` module (its
``ENVIRONMENTS``: a Gymnasium ``EnvSpec`` each, the environment class as its entry point);
this package finds those modules and registers every one (``gymnasium.register``), naming
no game itself.  :func:`environments` lists them.  See docs/gym.md for each environment's
observations, actions and rewards.

Gymnasium is an optional dependency (``pip install cardroom[gym]``): only this package
and the games' ``gym`` modules import it.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import gymnasium
from gymnasium.envs.registration import EnvSpec

import cardroom.games

__all__ = ["environments", "register"]


def environments() -> list[EnvSpec]:
    """Every environment the game packages offer, in the order of their packages."""
    found: list[EnvSpec] = []
    for package in pkgutil.iter_modules(cardroom.games.__path__, cardroom.games.__name__ + "."):
        name = f"{package.name}.gym"
        if package.ispkg and importlib.util.find_spec(name) is not None:
            found.extend(importlib.import_module(name).ENVIRONMENTS)
    return found


def register() -> list[str]:
    """Register every environment not registered yet; returns the ids registered."""
    done = []
    for spec in environments():
        if spec.id not in gymnasium.registry:
            gymnasium.register(
                id=spec.id,
                entry_point=spec.entry_point,
                max_episode_steps=spec.max_episode_steps,
                kwargs=dict(spec.kwargs),
            )
            done.append(spec.id)
    return done


register()
