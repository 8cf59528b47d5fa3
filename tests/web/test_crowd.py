"""Signing in when a crowd does, against real ``cardroom serve`` processes with the real
Argon2 parameters: a flood of sign-ins beside a player who bets, two server processes on
one PostgreSQL database sharing the throttle, and the client's address behind a proxy."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import httpx
import pytest

from cardroom.web.passwords import PARAMETERS, WORKER_MEMORY
from cardroom.web.throttle import PER_NAME
from tests.databases import pg_migrated_url, pg_server, pg_template  # noqa: F401
from tests.processes import PATIENCE
from tests.web.served import Served

RIGHT = "the right password"
STATS = re.compile(
    r"password checks: (\d+) done, (\d+) refused as busy, at most (\d+) at once "
    r"\(the pool's bound is (\d+)\)"
)
MiB = 2**20


def client(server: Served, address: str = "127.0.0.1") -> httpx.Client:
    """A client of ``server`` whose connections come from ``address`` (any of 127/8)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=PATIENCE * 5)


def login(http: httpx.Client, name: str, password: str) -> int:
    return http.post("/api/login", json={"username": name, "password": password}).status_code


def started(server: Served) -> Served:
    server.wait_for(lambda: "Application startup complete" in server.log(), "startup")
    return server


def stats(server: Served) -> tuple[int, int, int, int]:
    """The pool's figures the server logged when it stopped: checks done, refused, the
    most at once (by the workers' own clocks), and its bound."""
    found = STATS.findall(server.log())
    assert len(found) == 1, server.log()
    done, refused, most, bound = (int(n) for n in found[0])
    return done, refused, most, bound


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Served]:
    # a short queue for the password checks (the real ones, at the lowest priority,
    # are slow on a machine that runs other tests): the rest are refused at once
    server = Served(tmp_path, "--db", f"sqlite:///{tmp_path / 'c.db'}", "--password-queue", "8")
    try:
        yield started(server)
    finally:
        server.stop()


def test_a_flood_of_sign_ins_does_not_hold_up_a_player(sqlite_server: Served) -> None:
    server = sqlite_server
    player = client(server)
    signed = player.post("/api/accounts", json={"username": "Bettor", "password": RIGHT})
    assert signed.status_code == 201
    csrf = signed.json()["csrf_token"]
    idle = server.memory()
    flood, answers, peak = 100, Counter[int](), [idle]
    go = threading.Barrier(flood + 1)
    lock = threading.Lock()

    def sign_in(n: int) -> None:  # each from its own address, so the throttle lets it by
        with client(server, f"127.0.1.{n + 1}") as http:
            go.wait()
            status = login(http, f"nobody{n}", "a guess!!")
        with lock:
            answers[status] += 1

    def flooding() -> bool:
        return any(thread.is_alive() for thread in crowd)

    def watch_memory() -> None:  # a check takes about 0.2 s: every 10 ms sees each one
        while flooding():
            peak[0] = max(peak[0], server.memory())
            time.sleep(0.01)

    crowd = [threading.Thread(target=sign_in, args=(n,)) for n in range(flood)]
    for thread in crowd:
        thread.start()
    watcher = threading.Thread(target=watch_memory)
    watcher.start()
    go.wait()
    bets: list[int] = []
    refusals: list[str] = []
    balance = Fraction(1000)
    while flooding():
        time.sleep(0.02)  # a player betting briskly, not a loop taking the test's core
        if balance < 20:  # (a fast server deals thousands in a long flood) asks on
            asked = player.get("/api/me")
            bets.append(201 if asked.status_code == 200 else asked.status_code)
            continue
        bet = player.post(
            "/api/games/punto-banco/rounds",
            json={"bets": {"player": "10", "banker": "10"}},
            headers={"X-CSRF-Token": csrf},
        )
        bets.append(bet.status_code)
        if bet.status_code != 201:
            refusals.append(f"{bet.status_code} {bet.text}")
        else:
            balance = Fraction(bet.json()["balance"])
    watcher.join()
    assert bets and set(bets) == {201}, refusals[:3]  # every bet taken while the crowd waited
    assert sum(answers.values()) == flood and set(answers) <= {401, 503}, answers
    server.stop()  # (Ctrl-C: the pool's figures are logged as it stops)
    done, refused, most, bound = stats(server)
    assert 1 <= most <= bound  # never more Argon2 checks at once than the pool's bound
    assert refused == answers[503]  # a full queue is refused at once ...
    assert done == 1 + answers[401]  # ... and every other sign-in was checked once
    # the memory a check takes, for each that may run at once, and a little more
    allowed = bound * (PARAMETERS.memory_cost * 1024 + WORKER_MEMORY) + 64 * MiB
    assert peak[0] - idle <= allowed, f"{(peak[0] - idle) / MiB:.0f} MiB more in the flood"


def test_two_servers_on_one_postgresql_share_the_throttle(
    tmp_path: Path,
    pg_migrated_url: str,  # noqa: F811
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Served(tmp_path / "a", "--db", pg_migrated_url)
    second = Served(tmp_path / "b", "--db", pg_migrated_url)
    try:
        started(first)
        started(second)
        with client(first) as http:
            made = http.post("/api/accounts", json={"username": "Ann", "password": RIGHT})
            assert made.status_code == 201
        names = ["Ann", " ann", "ANN\t", "\u2003Ann", "aNn\u2003", "  ann ", "ANN"]
        with client(first, "127.0.0.3") as one, client(second, "127.0.0.3") as two:
            guesses = [login((one, two)[n % 2], names[n % 7], f"guess {n}") for n in range(14)]
            assert guesses == [401] * PER_NAME + [429] * (14 - PER_NAME)
            assert login(one, "Ann", RIGHT) == 429 and login(two, "ann", RIGHT) == 429
        with client(second, "127.0.0.2") as owner:  # the owner, from her own address
            assert login(owner, "\u2003ANN", RIGHT) == 200
    finally:
        first.stop()
        second.stop()
    checks = stats(first)[0] + stats(second)[0]
    assert checks == 1 + PER_NAME + 1  # her account, five guesses, her sign-in


def test_behind_a_proxy_the_forwarded_address_is_counted(sqlite_server: Served) -> None:
    server = sqlite_server
    with client(server) as http:
        assert http.post("/api/accounts", json={"username": "Ann", "password": RIGHT}).is_success

    def via_proxy(forwarded: str, password: str) -> int:
        with client(server) as proxy:  # 127.0.0.1: trusted by default, as a proxy there is
            answer = proxy.post(
                "/api/login",
                json={"username": "ann", "password": password},
                headers={"X-Forwarded-For": forwarded},
            )
            return answer.status_code

    assert [via_proxy("198.51.100.7", "a guess!!") for _ in range(PER_NAME)] == [401] * PER_NAME
    assert via_proxy("198.51.100.7", RIGHT) == 429
    assert via_proxy("203.0.113.5", RIGHT) == 200
    # a client that is not a trusted proxy cannot choose its address
    with client(server, "127.0.0.9") as forger:
        tries = [
            forger.post(
                "/api/login",
                json={"username": "ann", "password": "a guess!!"},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(PER_NAME + 1)
        ]
    assert tries == [401] * PER_NAME + [429]
