"""The web table on PostgreSQL (the database for many people at once): people betting at
the same moment, idempotency and a decision, with every account's books audited."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import httpx
import pytest

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.conftest import assert_books_and_rounds
from tests.databases import pg_migrated_url, pg_server, pg_template  # noqa: F401
from tests.web.conftest import Web, cheap_sessions
from tests.web.test_api import play_until

F = Fraction


@pytest.fixture
def pg_web(pg_migrated_url: str, request: pytest.FixtureRequest) -> Iterator[Web]:  # noqa: F811
    with Database.open(pg_migrated_url) as db:
        edges = HouseEdges(analyser_means, in_process=True)
        sessions = cheap_sessions(db)
        yield Web(create_app(db, house_edges=edges, sessions=sessions), db, edges, sessions)
        edges.close()
        assert_books_and_rounds(db, request)


def test_many_people_at_once_on_postgresql(pg_web: Web) -> None:
    people = [pg_web.person(name) for name in ("Ann", "Bob", "Cy")]

    def bet(n: int) -> httpx.Response:
        who = people[n % len(people)]
        game = ("punto-banco", "baccarat27", "finnish27")[n % 3]
        wager = {"punto-banco": "banker", "baccarat27": "b27", "finnish27": "dealer"}[game]
        return who.post(f"/api/games/{game}/rounds", {"bets": {wager: "12.50"}})

    with ThreadPoolExecutor(max_workers=6) as pool:
        responses = list(pool.map(bet, range(30)))
    assert all(r.status_code == 201 for r in responses), [r.text for r in responses]
    for i, who in enumerate(people):
        mine = [F(r.json()["total_net"]) for n, r in enumerate(responses) if n % 3 == i]
        assert who.balance() == 1000 + sum(mine)
    ann = people[0]
    body = {"bets": {"player": "10"}}
    first = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": "pg-1"})
    again = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": "pg-1"})
    assert first.json()["id"] == again.json()["id"]
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    done = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"})
    assert done.status_code == 200
    assert people[1].http.get(f"/api/rounds/{waiting['id']}").status_code == 404
    assert Wallet(pg_web.db).books.audit_all() == 3


def test_a_lab_variant_s_table_on_postgresql(pg_web: Web) -> None:
    """A variant kept twice is one row; it takes bets once an operator put it on a
    public table, and its rounds are dealt at its own table."""
    from tests.web.test_lab_tables import GAME, bet, open_variant, publish

    ann = pg_web.person("Ann")
    variant = open_variant(ann, playable=False)
    assert bet(ann, variant, {"player": "5"}).status_code == 409
    assert ann.balance() == 1000
    publish(pg_web, variant)
    assert open_variant(ann) == variant
    for _ in range(3):
        assert bet(ann, variant, {"player": "5"}).status_code == 201
    table = ann.http.get(f"/api/variants/{GAME}/{variant}/table").json()
    assert table["rounds_played"] == 3
    assert ann.http.get(f"/api/games/{GAME}/table").json()["rounds_played"] == 0
