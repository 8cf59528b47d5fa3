"""docs/adding-a-game.md, run: its code blocks make a game from the public parts, and
listed in ``GAMES`` that game is analysed exactly, read from a rules file and dealt by
the web table with nothing else changed."""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from cardroom.core.rules import RulesError, load_rules_text
from cardroom.games import GAMES
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means, lab_par_sheet
from tests.web.conftest import Web, cheap_sessions

PAGE = Path(__file__).parents[2] / "docs" / "adding-a-game.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


@pytest.fixture(scope="module")
def page() -> Iterator[dict[str, Any]]:
    """What the page's code blocks define, run in order as one module."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = list(BLOCK.finditer(text))
    assert len(blocks) >= 5, "the page has lost its code"
    module = types.ModuleType("adding_a_game")
    sys.modules[module.__name__] = module  # (a dataclass looks its module up)
    try:
        for block in blocks:
            # (padded, so that a traceback names the page's own line)
            code = "\n" * text.count("\n", 0, block.start(1)) + block.group(1)
            exec(compile(code, str(PAGE), "exec"), module.__dict__)
        yield module.__dict__
    finally:
        del sys.modules[module.__name__]


@pytest.fixture
def listed(page: dict[str, Any]) -> Iterator[Any]:
    """Card duel in ``GAMES`` (as the page's last step puts it) for one test."""
    spec = page["CARD_DUEL"]
    GAMES[spec.id] = spec
    try:
        yield spec
    finally:
        del GAMES[spec.id]


def test_the_walk_gives_the_exact_edge(page: dict[str, Any]) -> None:
    rules, means = page["DuelRules"](), page["exact_means"]
    # after the player's card, 23 of the 311 cards left share its rank; a tie costs half
    assert means(rules, "basic", True) == {"duel": -Fraction(1, 2) * Fraction(23, 311)}
    # with replacement, a tie is 1 in 13
    assert means(rules, "basic", False) == {"duel": -Fraction(1, 26)}


def test_a_rules_file_sets_the_tie_loss_within_its_range(page: dict[str, Any]) -> None:
    default = page["DuelRules"]()
    assert load_rules_text(default, "tie_loss = 0.25").tie_loss == Fraction(1, 4)
    with pytest.raises(RulesError, match="tie_loss"):
        load_rules_text(default, "tie_loss = 2")


def test_the_web_table_deals_it(listed: Any, tmp_path: Path) -> None:
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        sheets = HouseEdges(lab_par_sheet, in_process=True)
        app = create_app(db, house_edges=edges, par_sheets=sheets, sessions=cheap_sessions(db))
        web = Web(app, db, edges, cheap_sessions(db), sheets)
        try:
            games = web.client().get("/api/games").json()
            assert "card-duel" in {game["id"] for game in games["games"]}
            ann = web.person("Ann")
            before = ann.balance()
            answer = ann.post("/api/games/card-duel/rounds", {"bets": {"duel": "10"}})
            assert answer.status_code == 201, answer.text
            played = answer.json()
            assert played["state"] == "finished"
            assert [e["hand"] for e in played["events"] if e["event"] == "card"] == [
                "player",
                "dealer",
            ]
            assert ann.balance() == before + Fraction(played["total_net"])
            refused = ann.post("/api/games/card-duel/rounds", {"bets": {"banker": "10"}})
            assert refused.status_code == 422
            page = ann.http.get("/rules/card-duel")
            assert page.status_code == 200
            assert "your card is higher than the dealer&#39;s" in page.text
        finally:
            edges.close()
            sheets.close()
