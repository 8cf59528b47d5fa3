"""A person's house table deals from one shoe until its cut comes out, whether rounds wait
for a decision or not, whichever process deals and whichever process takes the decision.

Each game is played at a one-deck shoe (so that the cut comes out every few rounds) and at
its standard shoe; :func:`tests.shoe_cut.check_cut` holds every round against the cut.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import URL

from cardroom.core.rules import apply_rules
from cardroom.games import get_game, house_games
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.conftest import assert_books_and_rounds
from tests.databases import pg_server, pg_template, url_text  # noqa: F401
from tests.shoe_cut import check_cut
from tests.storage import pgserver
from tests.web.conftest import Web, cheap_sessions
from tests.web.served import Served

HOUSE = [game.id for game in house_games()]
#: a one-deck shoe: its cut comes out every few rounds (the baccarat shoe also burns by
#: its first card, so that burnt cards count towards the cut)
SMALL: Mapping[str, Mapping[str, Any]] = {
    "finnish27": {"shoe": {"decks": 1}},
    "21-24-27": {"shoe": {"decks": 1}},
    "punto-banco": {"shoe": {"decks": 1, "burn_by_first_card": True}},
    "baccarat27": {"shoe": {"decks": 1}},
}
BETS = {
    "finnish27": {"player": "10", "dealer": "10"},
    "21-24-27": {"player": "10"},
    "punto-banco": {"banker": "10", "player": "10"},
    "baccarat27": {"banker": "10"},
}


def small_rules() -> dict[str, Any]:
    return {g: apply_rules(get_game(g).default_rules(), SMALL[g]) for g in HOUSE}


def test_every_house_game_has_a_one_deck_shoe_here() -> None:
    assert set(SMALL) == set(BETS) == set(HOUSE)


@pytest.fixture
def small(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Web]:
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        app = create_app(db, small_rules(), house_edges=edges, sessions=cheap_sessions(db))
        yield Web(app, db, edges, cheap_sessions(db))
        edges.close()
        assert_books_and_rounds(db, request)


Post = Callable[[str, object], httpx.Response]


def play(
    place: Post, act: Post, game_id: str, rounds: int, choices: Iterator[str]
) -> tuple[list[dict[str, Any]], int]:
    """``rounds`` rounds at the game, each decision the next of ``choices``: each round's
    last answer, and how many rounds waited for a decision."""
    played: list[dict[str, Any]] = []
    decided = 0
    for _ in range(rounds):
        answer = place(f"/api/games/{game_id}/rounds", {"bets": BETS[game_id]})
        assert answer.status_code == 201, answer.text
        data = answer.json()
        if data["state"] != "finished":
            decided += 1
        while data["state"] != "finished":
            action = next(choices)
            if action not in data["legal_actions"]:
                action = data["legal_actions"][0]
            answer = act(f"/api/rounds/{data['id']}/actions", {"action": action})
            assert answer.status_code == 200, answer.text
            data = answer.json()
        played.append(data)
    return played, decided


@pytest.mark.parametrize("game_id", HOUSE)
def test_a_one_deck_shoe_is_reshuffled_only_at_its_cut(small: Web, game_id: str) -> None:
    ann = small.person("Ann")
    rounds, decided = play(ann.post, ann.post, game_id, 24, itertools.cycle(["hit", "stand"]))
    reshuffle_after = small_rules()[game_id].shoe.reshuffle_after
    walk = check_cut(rounds, reshuffle_after)
    assert walk.cuts >= 2  # the cut came out, and a new shoe came with it, more than once
    if get_game(game_id).decisions:
        assert 0 < decided < len(rounds)  # rounds with a decision, and rounds without
    else:
        assert decided == 0
    # the table's bead plate is this shoe's: the rounds since the last reshuffle
    table = ann.http.get(f"/api/games/{game_id}/table").json()
    assert table["shoe"] == walk.shoes
    opening = [n for n, r in enumerate(rounds) if r["events"][0]["event"] == "reshuffled"]
    assert rounds[opening[-1]]["events"][0]["shoe"] == walk.shoes
    assert len(table["bead_plate"]) == len(rounds) - opening[-1]


def test_a_decision_keeps_the_standard_shoe_of_21_24_27(web: Web) -> None:
    """The defect of issue 32: a round finished by a decision lost its shoe, and the
    next round opened a new one."""
    ann = web.person("Ann")
    rounds, decided = play(ann.post, ann.post, "21-24-27", 20, itertools.cycle(["stand", "hit"]))
    assert decided >= 5
    walk = check_cut(rounds, get_game("21-24-27").default_rules().shoe.reshuffle_after)
    assert walk.shoes == 1 and walk.cuts == 0


def person_on(process: Served, name: str) -> tuple[str, str]:
    answer = httpx.post(
        process.url + "/api/accounts",
        json={"username": name, "password": "a good password"},
        timeout=60,
    )
    assert answer.status_code == 201, answer.text
    return answer.cookies["cardroom_session"], answer.json()["csrf_token"]


def poster(process: Served, cookie: str, csrf: str) -> Post:
    def post(path: str, body: object) -> httpx.Response:
        return httpx.post(
            process.url + path,
            json=body,
            headers={"X-CSRF-Token": csrf},
            cookies={"cardroom_session": cookie},
            timeout=60,
        )

    return post


# the SQLite case runs in make test-long, for time: in production several processes
# share a PostgreSQL (one process on SQLite deals from the same shoe rows, tested above)
@pytest.fixture(params=[pytest.param("sqlite", marks=pytest.mark.long), "postgresql"])
def two_processes(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    pg_server: URL | None,  # noqa: F811
    pg_template: URL | None,  # noqa: F811
) -> Iterator[list[Served]]:
    """Two ``cardroom serve`` processes on one database, at one-deck shoes."""
    folder = tmp_path / "rules"
    folder.mkdir()
    for game_id, data in SMALL.items():
        lines = ["[shoe]", *(f"{k} = {str(v).lower()}" for k, v in data["shoe"].items())]
        (folder / f"{game_id}.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    database = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'two.sqlite3'}"
        Database.open(url).close()  # migrated once, before either process opens it
    else:
        if pg_server is None:
            pytest.skip(pgserver.MISSING)
        database = pgserver.create_database(pg_server, pg_template)
        url = url_text(database)
    processes = [
        Served(tmp_path, "--db", url, "--rules-dir", str(folder), name=f"p{n}") for n in range(2)
    ]
    try:
        for process in processes:
            process.ready()
        yield processes
    finally:
        for process in processes:
            process.stop()
        with Database.open(url) as db:
            assert_books_and_rounds(db)
        if database is not None:
            assert pg_server is not None
            pgserver.drop_database(pg_server, database)


@pytest.mark.xdist_group("processes")
def test_each_round_dealt_by_one_process_and_decided_by_the_other(
    two_processes: list[Served],
) -> None:
    first, second = two_processes
    cookie, csrf = person_on(first, "Ann")
    on_first, on_second = poster(first, cookie, csrf), poster(second, cookie, csrf)
    choices = itertools.cycle(["hit", "stand", "stand"])
    for game_id in HOUSE:
        # the rounds are placed on one process and decided on the other, then the other
        # way round: the shoe is the database's, not a process's
        rounds, decided = play(on_first, on_second, game_id, 10, choices)
        more, decided_more = play(on_second, on_first, game_id, 10, choices)
        walk = check_cut(rounds + more, small_rules()[game_id].shoe.reshuffle_after)
        assert walk.cuts >= 1
        if get_game(game_id).decisions:
            assert decided + decided_more >= 3


def test_the_checker_fails_on_a_shoe_shuffled_too_soon() -> None:
    card = {"event": "card"}

    def shuffled(shoe: int, cause: str) -> dict[str, Any]:
        return {"event": "reshuffled", "shoe": shoe, "cause": cause, "burnt": 0}

    first = {"id": 1, "events": [shuffled(1, "new_shoe"), card, card]}
    again = {"id": 2, "events": [shuffled(2, "reshuffle_point"), card]}
    with pytest.raises(AssertionError, match="2 cards dealt from shoe 1"):
        check_cut([first, again], reshuffle_after=3)
    late = {"id": 2, "events": [card]}
    with pytest.raises(AssertionError, match="did not open"):
        check_cut([first, late], reshuffle_after=2)
    assert check_cut([first, again], reshuffle_after=2).cuts == 1
