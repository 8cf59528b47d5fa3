"""Fixtures of the storage tests: a database on each kind of server.

``db_url`` runs a test on a new SQLite file and on a new PostgreSQL database (see
:mod:`tests.storage.pgserver`); the PostgreSQL case is skipped, with the reason, when no
server can be had.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from cardroom.storage import Database
from cardroom.wallet import Wallet
from tests.storage import pgserver

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[URL | None]:
    """The PostgreSQL server of this test session (None: there is none to be had)."""
    given = os.environ.get(pgserver.ENV)
    if given:
        yield pgserver.server_url(given)
        return
    binaries = pgserver.bin_dir()
    if binaries is None:
        yield None
        return
    cluster = pgserver.Cluster(binaries)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_server: URL | None) -> Iterator[str]:
    """A new, empty PostgreSQL database (dropped after the test)."""
    if pg_server is None:
        pytest.skip(pgserver.MISSING)
    database = pgserver.create_database(pg_server)
    try:
        yield database.render_as_string(hide_password=False)
    finally:
        pgserver.drop_database(pg_server, database)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL for a new database: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'cardroom.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    with Database.open(db_url) as opened:
        yield opened


@pytest.fixture
def wallet(db: Database) -> Wallet:
    return Wallet(db)
