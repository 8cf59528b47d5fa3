"""The Finnish games' named hands and bonuses in words."""

from __future__ import annotations

from cardroom.games.finnish.finnish27 import BonusTable

__all__ = ["NAMES", "name_of"]

#: The names of named hands and of finnish27's bonuses (the bonuses' as its paytable
#: labels them).
NAMES: dict[str, str] = {
    "finnish_27": "Finnish 27",
    "joanca": "Joanca",
    "jo_jo": "Jo Jo",
    "natural": "natural",
    **BonusTable.LABELS,
}


def name_of(key: str) -> str:
    """A named hand's or bonus's name (``finnish_27`` -> ``Finnish 27``)."""
    return NAMES.get(key, key.replace("_", " "))
