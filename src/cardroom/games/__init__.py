"""The games cardroom knows, each described once (:class:`GameSpec`) by its package.

- :mod:`.finnish`: ``finnish27`` and ``21-24-27``;
- :mod:`.baccarat`: ``punto-banco`` and ``baccarat27`` (and the deal chemin de fer plays);
- :mod:`.chemin_de_fer`: ``chemin-de-fer``, played between seats.

Every other floor asks these descriptions: none of it names a rules type or a game id.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from cardroom.games.baccarat.spec import BACCARAT27, PUNTO_BANCO
from cardroom.games.chemin_de_fer.spec import CHEMIN_DE_FER
from cardroom.games.finnish.spec import FINNISH27, TWENTYONE_24_27
from cardroom.games.spec import GameSpec, UnknownGame

__all__ = [
    "GAMES",
    "GameInfo",
    "GameSpec",
    "UnknownGame",
    "game_of_rules",
    "get_game",
    "house_games",
    "seats_game",
]

#: any game's description (its rules type unknown to the caller)
GameInfo: TypeAlias = GameSpec[Any]

GAMES: dict[str, GameInfo] = {
    spec.id: spec for spec in (FINNISH27, TWENTYONE_24_27, PUNTO_BANCO, BACCARAT27, CHEMIN_DE_FER)
}


def house_games() -> list[GameInfo]:
    """The games played one round at a time against the house (all but chemin de fer)."""
    return [game for game in GAMES.values() if game.kind == "house"]


def seats_game() -> GameInfo:
    """The game played between seats (chemin de fer): the one game whose table of seats
    (``app/tables/chemmy.py``), live table (``app/tables/live/``) and screen
    (``terminal/chemmy.py``) there are."""
    [game] = [game for game in GAMES.values() if game.seats is not None]
    return game


def get_game(game_id: str) -> GameInfo:
    """The game with id ``game_id``, or :class:`UnknownGame` naming the ones there are."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}: cardroom knows {', '.join(GAMES)}") from None


def game_of_rules(rules: object) -> GameInfo:
    """The first game whose rules type ``rules`` are (punto-banco for any punto banco
    rules: the two baccarat games share theirs)."""
    for game in GAMES.values():
        if game.plays(rules):
            return game
    raise UnknownGame(f"rules: {type(rules).__name__} are no game's rules")
