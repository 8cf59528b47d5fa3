"""The games cardroom knows, each described once (:class:`GameSpec`) by its package.

- :mod:`.finnish`: ``finnish27`` and ``21-24-27``;
- :mod:`.baccarat`: ``punto-banco`` and ``baccarat27`` (and the deal chemin de fer plays);
- :mod:`.chemin_de_fer`: ``chemin-de-fer``, played between seats.

Every other floor asks these descriptions: none of it names a rules type or a game id.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module
from typing import Any, TypeAlias

from cardroom.games.spec import GameSpec, UnknownGame

__all__ = [
    "GAMES",
    "GameInfo",
    "GameRegistry",
    "GameSpec",
    "UnknownGame",
    "game_of_rules",
    "get_game",
    "house_games",
    "seats_game",
]

#: any game's description (its rules type unknown to the caller)
GameInfo: TypeAlias = GameSpec[Any]


class GameRegistry(MutableMapping[str, GameInfo]):
    """The games by id, in their order: each game's description is imported the first time
    it is asked for, so that a command about one game (a simulation's start-up) imports
    that game's family only.  A game added (``GAMES[spec.id] = spec``) is listed after them.
    """

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._where = dict(where)  # id -> (module, name) of each listed description
        self._games: dict[str, GameInfo | None] = dict.fromkeys(where)

    def __getitem__(self, game_id: str) -> GameInfo:
        game = self._games[game_id]
        if game is None:  # (two threads asking at once both import it: the same module)
            module, name = self._where[game_id]
            game = self._games[game_id] = getattr(import_module(module), name)
        return game

    def __setitem__(self, game_id: str, game: GameInfo) -> None:
        self._where.pop(game_id, None)
        self._games[game_id] = game

    def __delitem__(self, game_id: str) -> None:
        del self._games[game_id]
        self._where.pop(game_id, None)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._games

    def __iter__(self) -> Iterator[str]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)


GAMES = GameRegistry(
    {
        "finnish27": ("cardroom.games.finnish.spec", "FINNISH27"),
        "21-24-27": ("cardroom.games.finnish.spec", "TWENTYONE_24_27"),
        "punto-banco": ("cardroom.games.baccarat.spec", "PUNTO_BANCO"),
        "baccarat27": ("cardroom.games.baccarat.spec", "BACCARAT27"),
        "chemin-de-fer": ("cardroom.games.chemin_de_fer.spec", "CHEMIN_DE_FER"),
    }
)


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
