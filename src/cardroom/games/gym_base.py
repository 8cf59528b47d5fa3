"""What the games' Gymnasium environments share (each game's own is in its package, as
``gym.py``; :mod:`cardroom.gym` registers them): the rules they take, and cards counted
by rank for their observations."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from cardroom.core.cards import RANK_ORDER, Card
from cardroom.games.spec import GameSpec, R

__all__ = ["RANKED", "Observation", "count_ranks", "rules_from"]

#: the ranks an observation counts cards by, in order: Ace to King, then the Joker
RANKED = RANK_ORDER
#: an observation: named whole numbers (``np.int64``) and arrays of them
Observation: TypeAlias = dict[str, Any]


def count_ranks(cards: Iterable[Card], ranks: tuple[Any, ...] = RANKED) -> NDArray[np.int64]:
    """How many of ``cards`` there are of each of ``ranks``, as a new array."""
    counts = np.zeros(len(ranks), np.int64)
    for card in cards:
        counts[ranks.index(card.rank)] += 1
    return counts


def rules_from(game: GameSpec[R], rules: R | str | Path | None) -> R:
    """The rules an environment plays: ``game``'s standard ones (None), a rules file's
    (a path), or the rules given, which must be the game's kind (TypeError otherwise)."""
    if rules is None or isinstance(rules, str | Path):
        return game.load_rules(rules)
    if not game.plays(rules):
        raise TypeError(f"rules: {type(rules).__name__} are not {game.id}'s rules")
    return rules
