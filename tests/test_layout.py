"""The floors above ``games/`` ask the games' descriptions (``cardroom.games.GAMES``):
no module outside ``src/cardroom/games/`` names a game's rules type or uses a game id
(a string literal, or a constant imported from a game's package) -- read from the
source's syntax tree, so that a docstring or a comment may still speak of them."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import cardroom
from cardroom.games import GAMES

ROOT = Path(cardroom.__file__).parent
RULES_TYPES = {
    kind.__name__
    for game in GAMES.values()
    for kind in (game.rules_type, type(game.default_rules()))
    if kind is not None
}
GAME_IDS = set(GAMES)


def _said_in_words(tree: ast.AST) -> set[int]:
    """The string constants that are statements of their own (docstrings)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _is_game_id(value: object) -> bool:
    return isinstance(value, str) and value in GAME_IDS


def _imported(module: str, name: str) -> object:
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def games_named(source: str, where: str = "<source>") -> list[str]:
    """Where ``source`` names a rules type or uses a game id, one line each."""
    tree = ast.parse(source, where)
    words = _said_in_words(tree)
    found = []
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Name) and node.id in RULES_TYPES:
            found.append(f"{line}: names the rules type {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in RULES_TYPES:
            found.append(f"{line}: names the rules type {node.attr}")
        elif isinstance(node, ast.Constant) and _is_game_id(node.value) and id(node) not in words:
            found.append(f"{line}: the game id {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cardroom.games"):
            for alias in node.names:
                if alias.name in RULES_TYPES:
                    found.append(f"{line}: imports the rules type {alias.name}")
                elif _is_game_id(_imported(node.module or "", alias.name)):
                    found.append(f"{line}: imports the game id {alias.name}")
    return found


def test_the_check_sees_rules_types_and_game_ids() -> None:
    assert {"ChemmyRules", "BaccaratRules"} <= RULES_TYPES and "punto-banco" in GAME_IDS
    source = '''
"""punto-banco and ChemmyRules, in words."""
from cardroom.games.chemin_de_fer import GAME_ID as CHEMMY, ChemmyRules
from cardroom.games import chemin_de_fer

def f(game: str, rules: object) -> bool:
    """"chemin-de-fer" said in a docstring."""
    return game == "punto-banco" or isinstance(rules, chemin_de_fer.ChemmyRules)
'''
    found = games_named(source)
    assert sorted(line.split(": ", 1)[1] for line in found) == [
        "imports the game id GAME_ID",
        "imports the rules type ChemmyRules",
        "names the rules type ChemmyRules",
        "the game id 'punto-banco'",
    ]


def test_nothing_outside_games_names_a_rules_type_or_a_game_id() -> None:
    games = ROOT / "games"
    paths = [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if games not in path.parents and "migrations" not in path.parts
    ]
    assert len(paths) > 50
    found = [
        line
        for path in paths
        for line in games_named(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == []


def test_a_game_between_seats_describes_its_table() -> None:
    for game in GAMES.values():
        assert (game.kind == "seats") == (game.seats is not None), game.id
