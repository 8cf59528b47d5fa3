"""The house games' pages as the server writes them (no browser): wagers in words, what
each bet spot pays, amounts as people read them, the scoreboards a table shows, and the
pairs marked on the bead plate.  What the page does in a browser is tests/web/test_browser.py."""

from __future__ import annotations

import html
import re

from fastapi import FastAPI

from cardroom.app.disclosure import paytable
from cardroom.core.money import format_amount, parse_exact
from cardroom.games import get_game
from cardroom.web.app import create_app
from tests.web.conftest import Web
from tests.web.test_api import FrontShuffler


def stacked(web: Web, game: str, cards: list[str]) -> FastAPI:
    """The app dealing ``cards`` first from each new shoe of ``game``."""
    shoe = get_game(game).default_rules().shoe
    return create_app(
        web.db,
        house_edges=web.edges,
        sessions=web.sessions,
        shuffler=lambda: FrontShuffler(cards, shoe),
    )


def visible(page: str) -> str:
    """The page's text as a person reads it (tags, scripts and attributes left out)."""
    body = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", body).split()))


def test_pairs_are_marked_on_the_bead_plate(web: Web) -> None:
    app = stacked(web, "baccarat27", ["4h", "Kc", "4d", "Qd", "Kh", "9c", "Qh", "9d"])
    ann = web.person("Ann")
    ann.moves_to(app)
    for _ in range(2):  # a player pair (4, 4: a natural 8), then a banker pair (9, 9)
        answer = ann.post("/api/games/baccarat27/rounds", {"bets": {"player_pair": "10"}})
        assert answer.status_code == 201, answer.text
    board = ann.http.get("/api/games/baccarat27/table").json()
    assert [(c["outcome"], c["pairs"]) for c in board["bead_plate"]] == [
        ("player", ["player"]),
        ("banker", ["banker"]),
    ]
    # punto banco offers no pair wager: its bead plate does not say
    ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    plain = ann.http.get("/api/games/punto-banco/table").json()["bead_plate"]
    assert plain and all("pairs" not in cell for cell in plain)


def test_the_game_page_names_wagers_and_pays_from_the_rules(web: Web) -> None:
    ann = web.person("Ann")
    page = ann.http.get("/play/baccarat27").text
    words = visible(page)
    for wager in ("Player pair", "Banker pair", "B-27"):
        assert wager in words
    assert "_" not in words
    rules = get_game("baccarat27").default_rules()
    [banker] = [row for row in paytable("baccarat27", rules) if row.wager == "banker"]
    assert f"pays {banker.on_spot}" in words
    assert banker.on_spot == "1:1; 2:1 on a 2, 1:2 on a 7"
    assert 'id="big-road"' in page and "a dot for a pair" in words
    # finnish27's big road beside its bead plate; 21-24-27 has one wager: no road
    finnish = ann.http.get("/play/finnish27").text
    assert 'id="big-road"' in finnish and "a push" in visible(finnish)
    assert "pays 1:1 + bonus" in visible(finnish)
    assert 'id="big-road"' not in ann.http.get("/play/21-24-27").text


def test_amounts_on_the_pages_are_written_as_people_read_them(web: Web) -> None:
    app = stacked(web, "punto-banco", ["2c", "9h", "3d", "Kd"])  # banker's natural 9
    ann = web.person("Ann")
    ann.moves_to(app)
    won = ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}}).json()
    assert won["balance"] == "1009.5"  # the wire: the shortest exact decimal
    for path in ("/play/punto-banco", "/", "/rules/punto-banco"):
        page = ann.http.get(path).text
        assert 'data-balance="1009.5">1009.50<' in page, path  # for people: format_amount
    assert format_amount(parse_exact("1009.5")) == "1009.50"
