"""The web table's fixtures: an app on a new SQLite file, and people signed in to it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import Parameters, PasswordHasher, Type
from fastapi import FastAPI
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, sync_playwright

from cardroom.app.sessions import Sessions
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means, lab_par_sheet
from tests.conftest import assert_books_and_rounds
from tests.web.browser import CHROMIUM_ARGS, chromium_path


@dataclass
class Web:
    """An app on its own database."""

    app: FastAPI
    db: Database
    edges: HouseEdges
    sessions: Sessions
    #: the lab's PAR sheets, worked out in this process (where a test asks for them)
    sheets: HouseEdges | None = None

    def client(self, https: bool = False, address: str = "testclient") -> TestClient:
        """A client of the app, from ``address`` (what the app sees as the client's)."""
        base = "https://testserver" if https else "http://testserver"
        return TestClient(
            self.app, base_url=base, raise_server_exceptions=False, client=(address, 50000)
        )

    def person(self, name: str, password: str = "a good password") -> Person:
        client = self.client()
        response = client.post("/api/accounts", json={"username": name, "password": password})
        assert response.status_code == 201, response.text
        return Person(client, response.json()["csrf_token"], name)


@dataclass
class Person:
    """A signed-in client and its CSRF token."""

    http: TestClient
    csrf: str
    name: str

    def post(self, path: str, body: object, **headers: str) -> httpx.Response:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf, **headers})

    def moves_to(self, app: FastAPI) -> None:
        """Go on with the same session on another app (a restarted server)."""
        cookies = self.http.cookies
        self.http = TestClient(app, base_url=str(self.http.base_url), raise_server_exceptions=False)
        self.http.cookies = cookies

    def balance(self) -> Fraction:
        return Fraction(self.http.get("/api/me").json()["balance"])


@pytest.fixture
def web(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Web]:
    yield from served(tmp_path, request)


def served(tmp_path: Path, request: pytest.FixtureRequest, **options: Any) -> Iterator[Web]:
    """The ``web`` fixture's app on a new SQLite file, with ``create_app``'s ``options``;
    the books checked once the test is done."""
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        sheets = HouseEdges(lab_par_sheet, in_process=True)
        sessions = cheap_sessions(db)
        app = create_app(db, house_edges=edges, par_sheets=sheets, sessions=sessions, **options)
        yield Web(app, db, edges, sessions, sheets)
        edges.close()
        sheets.close()
        assert_books_and_rounds(db, request)


#: Argon2 at a test's cost: the same algorithm, less memory and time.
CHEAP = Parameters(
    Type.ID, 19, salt_len=16, hash_len=32, time_cost=1, memory_cost=1024, parallelism=1
)


def cheap_sessions(db: Database) -> Sessions:
    """Sessions whose passwords are hashed at a test's cost (:data:`CHEAP`)."""
    return Sessions(db, Wallet(db), PasswordHasher.from_parameters(CHEAP))


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium through Playwright: one per test worker, for every browser test."""
    path = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
