"""The house games served by several real ``cardroom serve`` processes on one PostgreSQL
database at once: one person betting through all of them, idempotency keys sent to two
processes, a round in play taken on by another process.  No overdraft, no stake taken
twice, never two rounds of one game in play, and the books add up after it all."""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.engine import URL

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import rounds
from tests.conftest import assert_books_and_rounds
from tests.databases import pg_server, pg_template, url_text  # noqa: F401
from tests.storage import pgserver
from tests.web.served import Served

F = Fraction

pytestmark = pytest.mark.xdist_group("processes")


@pytest.fixture(scope="module")
def servers(
    pg_server: URL | None,  # noqa: F811
    pg_template: URL | None,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, list[Served]]]:
    """Three server processes on one new PostgreSQL database."""
    if pg_server is None:
        pytest.skip(pgserver.MISSING)
    database = pgserver.create_database(pg_server, pg_template)
    url = url_text(database)
    folder = tmp_path_factory.mktemp("servers")
    processes = [Served(folder, "--db", url, name=f"process{n}") for n in range(3)]
    try:
        for process in processes:
            process.ready()
        yield url, processes
    finally:
        for process in processes:
            process.stop()
        with Database.open(url) as db:
            assert_books_and_rounds(db)
        pgserver.drop_database(pg_server, database)


@dataclass
class Person:
    """One person's session, usable against any of the processes."""

    cookie: str
    csrf: str

    def post(self, process: Served, path: str, body: object, **headers: str) -> httpx.Response:
        return httpx.post(
            process.url + path,
            json=body,
            headers={"X-CSRF-Token": self.csrf, **headers},
            cookies={"cardroom_session": self.cookie},
            timeout=60,
        )

    def get(self, process: Served, path: str) -> httpx.Response:
        return httpx.get(process.url + path, cookies={"cardroom_session": self.cookie}, timeout=60)


def register(process: Served, name: str) -> Person:
    response = httpx.post(
        process.url + "/api/accounts",
        json={"username": name, "password": "a good password"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return Person(response.cookies["cardroom_session"], response.json()["csrf_token"])


def test_one_person_betting_through_three_processes_at_once(
    servers: tuple[str, list[Served]],
) -> None:
    _url, processes = servers
    ann = register(processes[0], "Ann")
    games = {
        "punto-banco": {"banker": "10", "player": "10"},
        "finnish27": {"player": "10", "dealer": "10"},
        "baccarat27": {"banker": "25"},
    }
    keyed = [f"key-{uuid.uuid4().hex}" for _ in range(10)]

    def bet(n: int) -> tuple[str | None, httpx.Response]:
        process = processes[n % 3]
        game = list(games)[n % len(games)]
        key = keyed[(n // 2) % len(keyed)] if n < 2 * len(keyed) else None
        if key is not None:  # each key goes to two processes, at once
            game = "punto-banco"
        headers = {} if key is None else {"Idempotency-Key": key}
        return key, ann.post(process, f"/api/games/{game}/rounds", {"bets": games[game]}, **headers)

    with ThreadPoolExecutor(max_workers=9) as pool:
        results = list(pool.map(bet, range(120)))
    assert all(r.status_code == 201 for _, r in results), [r.text for _, r in results][:3]
    by_key: dict[str, set[int]] = {}
    for key, response in results:
        if key is not None:
            by_key.setdefault(key, set()).add(response.json()["id"])
    assert all(len(ids) == 1 for ids in by_key.values())  # one round per key, everywhere
    replayed = [r for key, r in results if r.headers.get("Idempotent-Replayed") == "true"]
    assert len(replayed) == len(keyed)  # the second of each pair was given back
    seen = {r.json()["id"]: F(r.json()["total_net"]) for _, r in results}
    assert len(seen) == 120 - len(keyed)
    balance = F(ann.get(processes[1], "/api/me").json()["balance"])
    assert balance == 1000 + sum(seen.values())


def test_a_round_in_play_is_one_of_a_game_whoever_deals_it(
    servers: tuple[str, list[Served]],
) -> None:
    """21-24-27 rounds asked for through three processes at once: while one waits for
    a decision no other is opened; decisions sent to any process take it on."""
    url, processes = servers
    bob = register(processes[1], "Bob")
    opened: list[int] = []
    refused = 0
    lock = threading.Lock()

    def player(n: int) -> None:
        nonlocal refused
        for turn in range(12):
            process = processes[(n + turn) % 3]
            response = bob.post(process, "/api/games/21-24-27/rounds", {"bets": {"player": "10"}})
            if response.status_code == 409:
                assert "not finished" in response.json()["error"]
                with lock:
                    refused += 1
                continue
            assert response.status_code == 201, response.text
            data = response.json()
            with lock:
                opened.append(data["id"])
            step = 0
            while data["state"] == "awaiting_action":
                step += 1
                elsewhere = processes[(n + turn + step) % 3]
                answer = bob.post(
                    elsewhere, f"/api/rounds/{data['id']}/actions", {"action": "stand"}
                )
                assert answer.status_code == 200, answer.text
                data = answer.json()

    threads = [threading.Thread(target=player, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert opened and refused  # both happened
    with Database.open(url) as db, db.read() as conn:
        spans = conn.execute(
            select(rounds.c.id, rounds.c.created_at, rounds.c.updated_at, rounds.c.status)
            .where(rounds.c.game == "21-24-27")
            .order_by(rounds.c.created_at)
        ).all()
    assert sorted(r.id for r in spans) == sorted(opened)
    assert all(r.status == "finished" for r in spans)
    for before, after in itertools.pairwise(spans):
        assert before.updated_at <= after.created_at  # never two in play at once


def test_a_key_retried_after_the_balance_fell_gives_the_round_back(
    servers: tuple[str, list[Served]],
) -> None:
    """The answer to an accepted bet is lost; the client sends it again, with its key,
    to another process, after the money is gone: it gets the round, not a refusal."""
    url, processes = servers
    cy = register(processes[2], "Cy")
    first = cy.post(
        processes[0],
        "/api/games/punto-banco/rounds",
        {"bets": {"banker": "500", "player": "500"}},
        **{"Idempotency-Key": "all-of-it"},
    )
    assert first.status_code == 201
    balance = F(cy.get(processes[0], "/api/me").json()["balance"])
    with Database.open(url) as db:  # the money goes elsewhere: the same bets cannot be taken
        wallet = Wallet(db)
        account = wallet.accounts.account("Cy")
        assert account is not None
        wallet.accounts.withdraw(account.id, balance - 5, "spent elsewhere")
    assert F(cy.get(processes[1], "/api/me").json()["balance"]) == 5
    again = cy.post(
        processes[2],
        "/api/games/punto-banco/rounds",
        {"bets": {"banker": "500", "player": "500"}},
        **{"Idempotency-Key": "all-of-it"},
    )
    assert again.status_code == 201, again.text
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    other = cy.post(
        processes[1],
        "/api/games/punto-banco/rounds",
        {"bets": {"banker": "10"}},
        **{"Idempotency-Key": "all-of-it"},
    )
    assert other.status_code == 409 and "other bets" in other.json()["error"]
