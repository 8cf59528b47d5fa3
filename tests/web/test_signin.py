"""Signing in through the real app on a real SQLite file: the throttle in the database
(one count per normalised name and per address, the owner from elsewhere let in, the
limits forgotten after their window, old rows deleted), and every Argon2 check made in
the app's bounded pool of worker processes."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from argon2 import PasswordHasher
from sqlalchemy import func, select

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import login_failures
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from cardroom.web.passwords import PasswordPool
from cardroom.web.throttle import (
    PER_ADDRESS,
    PER_NAME,
    TOO_MANY,
    TOO_MANY_HERE,
    LoginThrottle,
    Throttled,
)
from tests.processes import PATIENCE
from tests.web.conftest import CHEAP, Web, cheap_sessions
from tests.web.test_pages import form_token

RIGHT = "the right password"
#: Ann as people type her name: spaces, a tab, an em space (U+2003), any case.
VARIANTS = [
    "Ann",
    "ann",
    "ANN",
    " Ann",
    "Ann ",
    "\tann",
    "aNN\t",
    "\u2003Ann",
    "ANN\u2003",
    "  ann  ",
    "\u2003 aNn\t",
    "ＡＮＮ",  # full width: one name with "Ann" in Unicode's compatibility form (NFKC)
    "Ａｎｎ ",
]


@pytest.fixture
def pool() -> Iterator[PasswordPool]:
    """A pool of its own (one worker process), to count the checks a test makes."""
    own = PasswordPool(CHEAP, size=1)
    yield own
    own.close()


@pytest.fixture
def web(tmp_path: Path, pool: PasswordPool) -> Iterator[Web]:
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        sessions = cheap_sessions(db)
        app = create_app(db, house_edges=edges, sessions=sessions, passwords=pool)
        yield Web(app, db, edges, sessions)
        edges.close()


def login(client: httpx.Client, name: str, password: str) -> httpx.Response:
    return client.post("/api/login", json={"username": name, "password": password})


def failure_rows(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(login_failures)).scalar_one())


def test_name_variants_share_one_count_and_only_five_guesses_are_checked(
    web: Web, pool: PasswordPool
) -> None:
    web.person("Ann", RIGHT)
    checks = pool.done
    attacker = web.client(address="198.51.100.7")
    answers = [login(attacker, name, "a guess!!").status_code for name in VARIANTS * 5]
    assert answers[:PER_NAME] == [401] * PER_NAME
    assert answers[PER_NAME:] == [429] * (len(answers) - PER_NAME)
    assert pool.done - checks == PER_NAME  # 5 of 55 guesses reached Argon2, not 50
    refused = login(attacker, "ann", RIGHT)  # even with the right password
    assert refused.status_code == 429 and refused.json() == {"error": TOO_MANY}
    assert int(refused.headers["Retry-After"]) > 0
    with web.db.read() as conn:
        keys = set(conn.execute(select(login_failures.c.name_key)).scalars())
    assert keys == {"ann"}
    # the owner, from their own address, signs in with any of the variants
    owner = web.client(address="203.0.113.5")
    assert login(owner, "\u2003ANN\t", RIGHT).status_code == 200
    assert owner.get("/api/me").json()["username"] == "Ann"


def test_the_owner_from_another_address_gets_in_while_the_attacker_is_refused(web: Web) -> None:
    web.person("Ann", RIGHT)
    attacker = web.client(address="198.51.100.7")
    for _ in range(PER_NAME):
        assert login(attacker, "Ann", "a guess!!").status_code == 401
    assert login(attacker, "Ann", RIGHT).status_code == 429
    owner = web.client(address="203.0.113.5")
    assert login(owner, "Ann", "a typo!!").status_code == 401  # a typo of her own
    assert login(owner, "Ann", RIGHT).status_code == 200
    # her success forgets her typo, not the attacker's guesses
    assert login(attacker, "Ann", RIGHT).status_code == 429
    with web.db.read() as conn:
        rows = conn.execute(select(login_failures.c.address)).scalars().all()
    assert rows == ["198.51.100.7"] * PER_NAME


def test_an_address_guessing_many_names_is_stopped(web: Web, pool: PasswordPool) -> None:
    web.person("Bob", RIGHT)
    sprayer = web.client(address="198.51.100.9")
    for n in range(PER_ADDRESS):
        assert login(sprayer, f"someone{n}", "password1").status_code == 401
    checks = pool.done
    refused = login(sprayer, "Bob", RIGHT)
    assert refused.status_code == 429 and refused.json() == {"error": TOO_MANY_HERE}
    assert pool.done == checks  # refused before any check
    assert login(web.client(address="203.0.113.5"), "Bob", RIGHT).status_code == 200


def test_the_forms_share_the_throttle(web: Web) -> None:
    web.person("Aino", RIGHT)
    client = web.client(address="198.51.100.7")
    token = form_token(client.get("/login").text)
    for name in ("Aino", " aino", "AINO\t", "\u2003Aino", "aino "):
        data = {"username": name, "password": "nope nope", "form_token": token}
        assert client.post("/login", data=data).status_code == 401
    data = {"username": "Aino", "password": RIGHT, "form_token": token}
    refused = client.post("/login", data=data, follow_redirects=False)
    assert refused.status_code == 429 and "too many wrong passwords" in refused.text
    assert "Retry-After" in refused.headers
    other = web.client(address="203.0.113.5")
    data["form_token"] = form_token(other.get("/login").text)
    assert other.post("/login", data=data, follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    "name", ["", "   ", "\u2003\t", "a,b", "x" * 41, "tab\tinside", "nul\x00"], ids=repr
)
def test_a_name_that_cannot_be_an_account_is_refused_before_any_check(
    web: Web, pool: PasswordPool, name: str
) -> None:
    checks = pool.done
    client = web.client()
    refused = login(client, name, RIGHT)
    assert refused.status_code == 422 and "name" in refused.json()["error"]
    assert "\n" not in refused.json()["error"]
    token = form_token(client.get("/login").text)
    page = client.post("/login", data={"username": name, "password": RIGHT, "form_token": token})
    # (a form drops an empty field before it gets here: 422 as well)
    assert page.status_code == 422
    too_long = login(client, "Ann", "x" * 257)
    assert too_long.status_code == 422 and "at most 256" in too_long.json()["error"]
    assert pool.done == checks and failure_rows(web.db) == 0


def test_registering_makes_its_hash_in_the_pool(web: Web, pool: PasswordPool) -> None:
    checks = pool.done
    web.person("Cy", RIGHT)
    assert pool.done == checks + 1
    taken = web.client().post("/api/accounts", json={"username": " cy\t", "password": RIGHT})
    assert taken.status_code == 409 and pool.done == checks + 1  # no hash spent on it
    short = web.client().post("/api/accounts", json={"username": "Dee", "password": "short"})
    assert short.status_code == 422 and pool.done == checks + 1
    stored = Wallet(web.db).accounts.password_hash("Cy")
    assert stored is not None and stored[1].startswith("$argon2id$v=19$m=1024,t=1,p=1$")


def test_an_older_hash_still_signs_in_and_is_made_again(web: Web) -> None:
    older = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=2)
    wallet = Wallet(web.db)
    ann = wallet.accounts.open_account("Ann", password_hash=older.hash(RIGHT))
    assert login(web.client(), "ann", RIGHT).status_code == 200
    stored = wallet.accounts.password_hash("Ann")
    assert stored is not None and stored[0] == ann.id
    assert stored[1].startswith("$argon2id$v=19$m=1024,t=1,p=1$")  # the pool's parameters
    assert login(web.client(), "ann", RIGHT).status_code == 200


def test_a_full_queue_is_refused_at_once_and_counts_nothing(tmp_path: Path) -> None:
    pool = PasswordPool(CHEAP, size=1, waiting=0)
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        sessions = cheap_sessions(db)
        edges = HouseEdges(analyser_means, in_process=True)
        app = create_app(db, house_edges=edges, sessions=sessions, passwords=pool)
        web = Web(app, db, edges, sessions)
        try:
            web.person("Ann", RIGHT)
            [worker] = pool.worker_pids
            os.kill(worker, signal.SIGSTOP)  # its one worker is busy: stopped mid-way
            try:
                first: list[int] = []
                waiting = threading.Thread(
                    target=lambda: first.append(login(web.client(), "Ann", "a guess!!").status_code)
                )
                waiting.start()
                deadline = time.monotonic() + PATIENCE
                while pool.in_flight < 1:
                    assert time.monotonic() < deadline, "the first sign-in never reached the pool"
                    time.sleep(0.01)
                busy = login(web.client(address="203.0.113.5"), "Ann", RIGHT)
                assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
                assert busy.json() == {
                    "error": "the server is busy signing people in: try again in a moment"
                }
                assert failure_rows(db) == 1  # the one waiting; the refused one is not counted
            finally:
                os.kill(worker, signal.SIGCONT)
            waiting.join(timeout=PATIENCE)
            assert first == [401] and failure_rows(db) == 1
            assert login(web.client(address="203.0.113.5"), "Ann", RIGHT).status_code == 200
            assert pool.refused == 1
        finally:
            pool.close()
            web.edges.close()


def test_a_worker_that_dies_is_replaced(web: Web, pool: PasswordPool) -> None:
    web.person("Ann", RIGHT)
    [worker] = pool.worker_pids
    os.kill(worker, signal.SIGKILL)
    answers = {login(web.client(), "Ann", RIGHT).status_code for _ in range(2)}
    assert answers <= {200, 503} and 200 in answers
    [again] = pool.worker_pids
    assert again != worker


# -- the throttle itself, with a clock of the test's ------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_limits_are_forgotten_after_the_window_and_old_rows_deleted(tmp_path: Path) -> None:
    clock = Clock()
    with Database.open(path=tmp_path / "t.sqlite3") as db:
        throttle = LoginThrottle(db, per_name=2, window=timedelta(minutes=15), clock=clock)
        throttle.begin("ann", "a")
        clock.now += timedelta(minutes=10)
        throttle.begin("ann", "a")
        with pytest.raises(Throttled) as refused:
            throttle.begin("ann", "a")
        assert refused.value.retry_after == 5 * 60 + 1  # when the first leaves the window
        assert failure_rows(db) == 2  # a refused sign-in is not counted
        clock.now += timedelta(minutes=5, seconds=1)
        throttle.begin("ann", "a")  # the first is out of the window ...
        assert failure_rows(db) == 2  # ... and deleted by this sign-in
        clock.now += timedelta(hours=1)
        for n in range(5):
            throttle.begin(f"name{n}", "b")
        assert failure_rows(db) == 5  # the rest of the old rows went too


def test_a_name_under_attack_limits_the_addresses_that_guessed_it(tmp_path: Path) -> None:
    with Database.open(path=tmp_path / "t.sqlite3") as db:
        throttle = LoginThrottle(db, per_name=3, under_attack=6, per_name_under_attack=1)
        for n in range(3):
            throttle.begin("ann", f"bot{n}")
            throttle.begin("ann", f"bot{n}")
        # six wrong passwords from three addresses: each address that guessed is done
        for n in range(3):
            with pytest.raises(Throttled, match="too many wrong passwords for this name"):
                throttle.begin("ann", f"bot{n}")
        # an address that never guessed wrong for it is let in: the owner at home
        row = throttle.begin("ann", "home")
        throttle.succeeded("ann", "home")
        with db.read() as conn:
            ids = conn.execute(select(login_failures.c.id)).scalars().all()
        assert row not in ids and len(ids) == 6
        throttle.begin("bob", "bot0")  # other names are not held back


def test_a_refused_check_is_taken_back(tmp_path: Path) -> None:
    with Database.open(path=tmp_path / "t.sqlite3") as db:
        throttle = LoginThrottle(db, per_name=1)
        row = throttle.begin("ann", "a")
        throttle.cancel(row)
        throttle.begin("ann", "a")  # the cancelled one did not count
        with pytest.raises(Throttled):
            throttle.begin("ann", "a")


def test_the_most_checks_at_once_is_counted_at_one_moment() -> None:
    pool = PasswordPool(CHEAP, size=2)
    for started, ended in [(0.0, 1.0), (0.1, 0.5), (0.6, 0.9), (0.9, 1.2)]:
        pool._count(started, ended)
    assert pool.peak == 2 and pool.done == 4  # a long check beside two short ones in turn
    pool._count(0.95, 1.1)
    assert pool.peak == 3
