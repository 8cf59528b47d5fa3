"""Opening the database: the schema, SQLite's settings, the write lock, and the errors."""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, inspect, text

from cardroom.storage import Database, StorageError, default_path
from cardroom.storage.db import _sqlite_connect
from cardroom.storage.migrate import VERSION_TABLE, current_revisions, heads
from cardroom.storage.schema import metadata
from tests.storage.workers import run_together

REPO = Path(__file__).resolve().parents[2]


def test_a_new_database_is_migrated_to_the_schema_of_the_code(db: Database) -> None:
    with db.read() as conn:
        assert current_revisions(conn) == heads()
        assert set(inspect(conn).get_table_names()) == {VERSION_TABLE, *metadata.tables}
        assert {"accounts", "ledger", "rounds", "seats", "house_tables"} <= set(metadata.tables)
        # what the migrations built is exactly what schema.py describes
        options = {"version_table": VERSION_TABLE, "compare_type": True}
        context = MigrationContext.configure(conn, opts=options)
        assert compare_metadata(context, metadata) == []
        # Alembic does not compare CHECK constraints: the names tell they are all there
        inspector = inspect(conn)
        for table in metadata.sorted_tables:
            checks = {c["name"] for c in inspector.get_check_constraints(table.name)}
            assert checks == {c.name for c in table.constraints if isinstance(c, CheckConstraint)}


def test_opening_again_changes_nothing(db_url: str) -> None:
    with Database.open(db_url) as first, first.write() as conn:
        conn.execute(
            text(
                "INSERT INTO accounts (name, name_key, name_skeleton, balance, created_at) "
                "VALUES ('Ann', 'ann', 'ann', 5, CURRENT_TIMESTAMP)"
            )
        )
    with Database.open(db_url) as again, again.read() as conn:
        assert conn.execute(text("SELECT name, balance FROM accounts")).all() == [("Ann", 5)]
        assert current_revisions(conn) == heads()


def test_sqlite_runs_with_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    with Database.open(path=tmp_path / "c.sqlite3", busy_timeout=7) as db, db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 7000


def _switch_to_wal(path: Path, start: Any, failures: Any) -> None:
    connection = sqlite3.connect(path, timeout=30)
    start.wait()
    try:
        _sqlite_connect(connection, None, busy_timeout=30)  # what each new connection runs
    except sqlite3.OperationalError as err:
        failures.put(str(err))
    finally:
        connection.close()


def test_processes_switching_one_file_to_wal_at_once_all_connect(tmp_path: Path) -> None:
    # SQLite answers "database is locked" at once, not after its busy timeout, to one of
    # two processes that both hold a shared lock and ask for the exclusive one that the
    # switch from a rollback journal to WAL needs: that process must try again.  (The
    # race is on the connections themselves: through Database.open it is rarer.)
    forked = multiprocessing.get_context("fork")
    failures = forked.Queue()
    for attempt in range(10):
        path = tmp_path / f"old{attempt}.sqlite3"
        old = sqlite3.connect(path)
        old.execute("CREATE TABLE notes (x)")  # a file with a rollback journal
        old.commit()
        old.close()
        start = forked.Barrier(4)
        workers = [
            forked.Process(target=_switch_to_wal, args=(path, start, failures)) for _ in range(4)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
            assert worker.exitcode == 0
        with sqlite3.connect(path) as check:
            assert check.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    errors = []
    while not failures.empty():
        errors.append(failures.get())
    assert errors == []


def test_a_write_transaction_holds_the_write_lock_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with Database.open(path=path) as first, Database.open(path=path, busy_timeout=0) as other:
        with first.write():
            # nothing written yet, and still no other writer may begin ...
            with pytest.raises(StorageError, match="busy"), other.write():
                pass
            # ... while readers go on (WAL)
            with other.read() as conn:
                assert conn.execute(text("SELECT COUNT(*) FROM accounts")).scalar() == 0
        with other.write():  # the lock is free again
            pass


def test_a_failed_write_transaction_leaves_nothing(db: Database) -> None:
    with pytest.raises(ZeroDivisionError), db.write() as conn:
        conn.execute(
            text(
                "INSERT INTO accounts (name, name_key, name_skeleton, balance, created_at) "
                "VALUES ('Ann', 'ann', 'ann', 5, CURRENT_TIMESTAMP)"
            )
        )
        _ = 1 / 0
    with db.read() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM accounts")).scalar() == 0


def test_the_default_database_is_in_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = default_path()
    assert path == tmp_path / "data" / "cardroom" / "cardroom.sqlite3"
    assert not path.parent.exists()
    with Database.open() as db:
        assert db.is_sqlite
    assert path.exists()


def test_two_processes_opening_a_new_database_at_once_migrate_it_once(db_url: str) -> None:
    results = run_together([["open", db_url], ["open", db_url]])
    assert results == [{"opened": sorted(heads())}] * 2
    with Database.open(db_url) as db, db.read() as conn:
        assert conn.execute(text(f"SELECT COUNT(*) FROM {VERSION_TABLE}")).scalar() == 1


# -- what cannot be opened: one line each, never a traceback -------------------------------------
def one_line_error(**where: object) -> str:
    with pytest.raises(StorageError) as caught:
        Database.open(**where)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and message
    error = caught.value
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    return message


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("this is not a database at all, just some words " * 50)
    assert "is not a cardroom database" in one_line_error(path=path)
    assert path.read_text().startswith("this is not")


def test_a_damaged_database(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    Database.open(path=path).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page: the list of tables
    path.write_bytes(bytes(data))
    message = one_line_error(path=path)
    assert "malformed" in message or "is not a cardroom database" in message


def test_a_database_of_some_other_program(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE accounts (name TEXT)")
    db.commit()
    db.close()
    assert "some other program" in one_line_error(path=path)
    db = sqlite3.connect(path)
    try:  # left as it was
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        db.close()
    assert tables == [("accounts",)]


def test_a_schema_newer_than_the_code(db_url: str) -> None:
    with Database.open(db_url) as db, db.write() as conn:
        conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    assert "newer cardroom (schema 9999)" in one_line_error(url=db_url)


def test_no_folder_no_file_and_bad_urls(tmp_path: Path) -> None:
    assert "cannot open" in one_line_error(path=tmp_path / "no" / "such" / "c.sqlite3")
    missing = tmp_path / "missing.sqlite3"
    assert "no database at" in one_line_error(path=missing, create=False)
    assert not missing.exists()
    assert "not a database URL" in one_line_error(url="no such thing")
    assert "no driver" in one_line_error(url="mysql://somebody@localhost/cardroom")
    assert "not both" in one_line_error(url="sqlite://", path=missing)


def test_a_postgresql_server_that_is_not_there(tmp_path: Path) -> None:
    message = one_line_error(url=f"postgresql://nobody@/cardroom?host={tmp_path}")
    assert message.startswith("cannot use the database postgresql+psycopg://nobody@/cardroom")


def test_the_migrations_are_shipped_with_the_package() -> None:
    """Nothing but the installed package is needed at run time: no alembic.ini."""
    script = (
        "import tempfile, pathlib; from cardroom.storage import Database;"
        "d = tempfile.mkdtemp(); Database.open(path=pathlib.Path(d) / 'x.db').close();"
        "print('ok')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd="/", capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
    assert not (REPO / "alembic.ini").exists()
