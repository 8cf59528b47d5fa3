"""Fixtures of every test that needs a database: one on each kind of server (made
available to the whole suite by ``tests/conftest.py``).

``db_url`` is a new, empty database (the migrations have not run yet) and ``db`` an
open, migrated one (a copy of a database migrated once per session, which is quicker),
each on a new SQLite file and on a new PostgreSQL database (see
:mod:`tests.storage.pgserver`); the PostgreSQL case is skipped, with the reason, when no
server can be had.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from tests.conftest import assert_books_and_rounds
from tests.storage import pgserver

BACKENDS = ["sqlite", "postgresql"]


def url_text(url: URL) -> str:
    return url.render_as_string(hide_password=False)


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


@pytest.fixture(scope="session")
def pg_template(pg_server: URL | None) -> Iterator[URL | None]:
    """A PostgreSQL database migrated to head, to copy."""
    if pg_server is None:
        yield None
        return
    template = pgserver.create_database(pg_server)
    Database.open(url_text(template)).close()
    try:
        yield template
    finally:
        pgserver.drop_database(pg_server, template)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file migrated to head, to copy."""
    path = tmp_path_factory.mktemp("template") / "cardroom.sqlite3"
    Database.open(path=path).close()
    assert not path.with_name(path.name + "-wal").exists()  # all of it is in the file
    return path


def _pg_database(server: URL | None, template: URL | None) -> Iterator[str]:
    if server is None:
        pytest.skip(pgserver.MISSING)
    database = pgserver.create_database(server, template)
    try:
        yield url_text(database)
    finally:
        pgserver.drop_database(server, database)


@pytest.fixture
def pg_url(pg_server: URL | None) -> Iterator[str]:
    """A new, empty PostgreSQL database (dropped after the test)."""
    yield from _pg_database(pg_server, None)


@pytest.fixture
def pg_migrated_url(pg_server: URL | None, pg_template: URL | None) -> Iterator[str]:
    """A new PostgreSQL database at the newest schema (dropped after the test)."""
    yield from _pg_database(pg_server, pg_template)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL for a new, empty database: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'cardroom.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture(params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL for a new database at the newest schema: SQLite, or PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "cardroom.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("pg_migrated_url")
    return url


@pytest.fixture
def db(migrated_url: str, request: pytest.FixtureRequest) -> Iterator[Database]:
    with Database.open(migrated_url) as opened:
        yield opened
        assert_books_and_rounds(opened, request, rounds=False)


@pytest.fixture
def wallet(db: Database) -> Wallet:
    return Wallet(db)
