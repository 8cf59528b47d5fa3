"""Opening cardroom's database (an SQLite file or a PostgreSQL server) and its transactions.

:meth:`Database.open` finds the database, makes sure it is cardroom's, and brings its
schema up to date with the migrations (see :mod:`cardroom.storage.migrate`).  Every use
then goes through one of two context managers, each a transaction that commits when
the block ends and rolls back if it raises:

- :meth:`Database.write` for anything that changes data.  On SQLite it starts with
  ``BEGIN IMMEDIATE``, which takes the database's write lock at once (waiting up to the
  busy timeout for another writer to finish), so that a value read in the transaction
  cannot be changed by another process before the transaction writes.  On PostgreSQL it
  is an ordinary ``READ COMMITTED`` transaction: code that reads a row before changing it
  reads it ``FOR UPDATE``, or changes it with a conditional ``UPDATE``.
- :meth:`Database.read` for reading: one consistent snapshot (SQLite's ``BEGIN`` in WAL
  mode; a read-only ``REPEATABLE READ`` transaction on PostgreSQL), so that several
  queries see the same state of the books.
- :meth:`Database.run` runs a function in a transaction and runs it again, in a new
  transaction, when the database gave up on the first for a reason that passes (a
  deadlock, a serialization failure, a database busy beyond its timeout).  A unit of
  work that must be all or nothing is one function given to :meth:`run`; if every try
  fails, nothing of it is written and :class:`StorageBusy` says so in one line.

Transactions nest by joining: a :meth:`write`, :meth:`read` or :meth:`run` inside
another on the same thread (or asyncio task) uses the outer one's connection and
commits with it, so that code written as several small transactions (the wallet's
methods) can be made one by calling it inside an outer :meth:`run`.  Only the outermost
one commits, rolls back or tries again.

SQLite runs with the WAL journal (readers never wait for the writer), foreign keys
enforced and a busy timeout.  pysqlite's own transaction handling is switched off and
SQLAlchemy's ``begin`` event emits the ``BEGIN``, as SQLAlchemy's SQLite documentation
describes.

Whatever goes wrong with the database itself becomes one :class:`StorageError` whose
message is one line for a person, never a traceback.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import platformdirs
from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import URL, make_url
from sqlalchemy.sql.expression import Executable

from cardroom.core.textfile import path_reason, shown_path
from cardroom.storage.errors import StorageBusy, StorageConflict, StorageError

#: The execution option that makes a transaction a write transaction (``BEGIN IMMEDIATE``).
WRITE_OPTION = "cardroom_write"

#: How long an SQLite write waits for another process's write to finish, in seconds.
BUSY_TIMEOUT = 30.0

#: How many times :meth:`Database.run` tries a unit of work that fails for a reason
#: that passes (the first try and three more).
ATTEMPTS = 4

#: PostgreSQL's SQLSTATE codes of failures that pass: a serialization failure, a
#: deadlock, a lock not available, a transaction rolled back by the server.
TRANSIENT_SQLSTATES = frozenset({"40001", "40P01", "55P03", "40003", "40002"})

T = TypeVar("T")

log = logging.getLogger("cardroom.storage")


def is_transient(err: BaseException) -> bool:
    """Did the database give up on a transaction for a reason that passes?

    PostgreSQL's deadlocks and serialization failures (by SQLSTATE), a connection the
    server closed under us, and SQLite's "database is locked" or "busy" once its busy
    timeout ran out.
    """
    if not isinstance(err, exc.DBAPIError):
        return False
    if err.connection_invalidated:
        return True
    orig = err.orig
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if isinstance(state, str) and state in TRANSIENT_SQLSTATES:
        return True
    if isinstance(orig, sqlite3.OperationalError):
        text = str(orig)
        return "locked" in text or "busy" in text
    return False


def default_path() -> Path:
    """``cardroom.sqlite3`` in the user's data directory (the folder is made on open)."""
    return Path(platformdirs.user_data_dir("cardroom")) / "cardroom.sqlite3"


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line (its whitespace runs made single spaces), cut at ``limit``.

    >>> one_line("connection failed:\\n   Is the server running?")
    'connection failed: Is the server running?'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class Database:
    """cardroom's database: an :class:`~sqlalchemy.Engine` and the transactions on it.

    Make one with :meth:`open`; close it with :meth:`close` (or use it in ``with``).
    """

    def __init__(self, engine: Engine, where: str) -> None:
        self.engine = engine
        #: the file or the URL (without its password), as messages show it
        self.where = where
        #: the transaction this thread (or task) is in, which inner ones join
        self._current: ContextVar[Connection | None] = ContextVar(
            f"cardroom_transaction_{id(self)}", default=None
        )
        #: how many units of work were tried again (for tests and the log)
        self.retries = 0
        #: single statements that need no transaction (PostgreSQL: its own pool in
        #: autocommit, so a lookup is one round trip, with no BEGIN and COMMIT)
        self._autocommit: Engine | None = None

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        url: str | None = None,
        path: Path | None = None,
        *,
        create: bool = True,
        busy_timeout: float = BUSY_TIMEOUT,
    ) -> Database:
        """Open (and upgrade, or create) cardroom's database.

        ``url``: an SQLAlchemy URL (``sqlite:///cardroom.sqlite3``,
        ``postgresql+psycopg://user@host/db``; a bare ``postgresql://`` uses psycopg).
        ``path``: an SQLite file.  Neither: :func:`default_path`, making its folder.
        ``create=False`` refuses to make a new SQLite file (for commands that only read).
        """
        from cardroom.storage import migrate  # lazy: Alembic

        if url is not None and path is not None:
            raise StorageError("give the database as a URL or as a path, not both")
        if url is None:
            if path is None:
                path = default_path()
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as err:
                    raise StorageError(
                        f"cannot create {str(path.parent)!r}: {err.strerror}"
                    ) from None
            target = URL.create("sqlite+pysqlite", database=str(path))
        else:
            try:
                target = make_url(url)
            except exc.ArgumentError:
                raise StorageError(f"{url!r} is not a database URL") from None
            if target.drivername == "postgresql":
                target = target.set(drivername="postgresql+psycopg")
        db = cls(_create_engine(target, busy_timeout), _where(target))
        try:
            if not create and db.is_sqlite and not _sqlite_file_exists(target):
                raise StorageError(f"there is no database at {db.where}")
            migrate.prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    # -- transactions ------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (see the module's docstring); commits unless the block raises.
        Inside another transaction it is that one."""
        joined = self._current.get()
        if joined is not None:
            yield joined
            return
        with self.translating(), self._transaction(write=True) as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only snapshot of the database (inside another transaction: that one)."""
        joined = self._current.get()
        if joined is not None:
            yield joined
            return
        with self.translating(), self._transaction(write=False) as conn:
            yield conn

    def run(
        self,
        work: Callable[[Connection], T],
        *,
        write: bool = True,
        attempts: int = ATTEMPTS,
    ) -> T:
        """``work(conn)`` in one transaction, committed when it returns; tried again in a
        new transaction (up to ``attempts`` times in all, after a short random pause) when
        the database gives up on it for a reason that passes.  ``work`` must be safe to run
        again: it reads what it needs inside the transaction.  Inside another transaction
        it simply runs in that one (the outer one tries again, as a whole).

        An exception raised by ``work`` itself rolls the transaction back and is raised
        as it is; the database's own errors become :class:`StorageError`, and
        :class:`StorageBusy` when every try failed for a reason that passes.
        """
        joined = self._current.get()
        if joined is not None:
            return work(joined)
        pause = 0.005
        for attempt in range(1, attempts + 1):
            try:
                with self._transaction(write=write) as conn:
                    return work(conn)
            except exc.SQLAlchemyError as err:
                if not is_transient(err):
                    raise self.translate(err) from None
                # SQLite has already waited its busy timeout: once more at most
                if attempt >= attempts or (self.is_sqlite and attempt >= 2):
                    log.warning("database: gave up after %d tries: %s", attempt, self.describe(err))
                    raise StorageBusy(
                        f"the database {self.where} is busy: nothing was changed, try again"
                    ) from None
                self.retries += 1
                time.sleep(pause * (1 + random.random()))
                pause = min(pause * 4, 0.5)
        raise AssertionError("unreachable")  # pragma: no cover

    def fast(
        self,
        conn: Connection,
        statement: Fast,
        params: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    ) -> list[tuple[Any, ...]]:
        """Run a :class:`Fast` statement on ``conn`` (in its transaction): its rows (those
        of ``RETURNING`` too), the columns' types applied.  A sequence of ``params``
        runs it once for each (no rows back)."""
        compiled = statement.compiled(self.engine.dialect)
        raw: Any = conn.connection.driver_connection
        try:
            if not isinstance(params, Mapping):
                cursor = raw.cursor()
                cursor.executemany(compiled.sql, [compiled.params(p) for p in params])
                return []
            if self.is_sqlite:
                cursor = raw.execute(compiled.sql, compiled.params(params))
            else:
                cursor = raw.execute(compiled.sql, compiled.params(params), prepare=True)
            if not compiled.results:  # (no rows: asking the cursor would describe them)
                return []
            return [compiled.row(row) for row in cursor.fetchall()]
        except Exception as err:
            # as SQLAlchemy would have raised it, so that run() can tell a passing failure
            dbapi = self.engine.dialect.loaded_dbapi
            if isinstance(err, dbapi.Error):
                raise exc.DBAPIError.instance(
                    compiled.sql, None, err, dbapi.Error, dialect=self.engine.dialect
                ) from err
            raise

    def fetch_one(self, statement: Fast, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row of one reading :class:`Fast` ``statement`` (a lookup by key on a
        request's path), outside any transaction: on PostgreSQL one round trip on a
        connection in autocommit.  Inside a transaction it is read in that one."""
        joined = self._current.get()
        if joined is not None:
            rows = self.fast(joined, statement, params)
            return rows[0] if rows else None
        if self.is_sqlite:
            with self.read() as conn:
                rows = self.fast(conn, statement, params)
                return rows[0] if rows else None
        if self._autocommit is None:
            self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        with self.translating(), self._autocommit.connect() as conn:
            rows = self.fast(conn, statement, params)
            return rows[0] if rows else None

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[Connection]:
        """A new transaction that inner ones on this thread join; raw database errors."""
        sqlite = self.is_sqlite
        with self.engine.connect() as conn:
            if write:
                # (only SQLite's BEGIN reads it: setting an option costs SQLAlchemy a walk
                # through its dialect's options, on every transaction)
                if sqlite:
                    conn.execution_options(**{WRITE_OPTION: True})
            elif not sqlite:
                conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
            token = self._current.set(conn)
            try:
                with conn.begin():
                    yield conn
            finally:
                self._current.reset(token)

    @property
    def in_transaction(self) -> bool:
        """Is this thread (or task) inside one of this database's transactions?"""
        return self._current.get() is not None

    def translate(self, err: exc.SQLAlchemyError) -> StorageError:
        """The :class:`StorageError` for a database error."""
        if isinstance(err, exc.IntegrityError):
            return StorageConflict(self.describe(err))
        if is_transient(err):
            return StorageBusy(self.describe(err))
        return StorageError(self.describe(err))

    @contextmanager
    def translating(self) -> Iterator[None]:
        """Turn the database's errors into :class:`StorageError` (one line)."""
        try:
            yield
        except exc.SQLAlchemyError as err:
            raise self.translate(err) from None

    def describe(self, err: BaseException) -> str:
        """A one-line message for a database error."""
        orig = getattr(err, "orig", None)
        text = one_line(str(orig if orig is not None else err)) or type(err).__name__
        if "not a database" in text:
            return f"{self.where} is not a cardroom database ({text})"
        if "unable to open" in text:
            return f"cannot open the database {self.where} (does its folder exist?)"
        if "database is locked" in text:
            return f"the database {self.where} is busy (another program is writing): try again"
        if isinstance(err, exc.OperationalError) and not self.is_sqlite:
            return f"cannot use the database {self.where}: {text}"
        return f"database {self.where}: {text}"

    # -- closing -----------------------------------------------------------------------
    def close(self) -> None:
        """Close the pooled connections."""
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Database({self.where})"


class Fast:
    """A statement of a busy request's path, built once with SQLAlchemy Core (so it is
    the same on SQLite and PostgreSQL), compiled once per database, and run on the
    driver's own connection inside the caller's transaction with :meth:`Database.fast`.

    SQLAlchemy's work around each execution (about 60 µs of CPU a statement on the
    project's machine, three times the driver's own) is what a round's few statements
    spent most; this skips it and keeps the rest: the SQL is SQLAlchemy's, and the
    columns' own types turn values to and from the database (the UTC times, say).  (They
    are not seen by SQLAlchemy's events, nor by its logging of statements.)
    """

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def compiled(self, dialect: Any) -> _Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = _Compiled(self.statement, dialect)
        return found


class _Compiled:
    """A :class:`Fast` statement's SQL for one database and its types' converters."""

    def __init__(self, statement: Executable, dialect: Any) -> None:
        compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        self.sql: str = compiled.string
        self.positional: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positional else None
        )
        self.binds: dict[str, Callable[[Any], Any]] = {}
        for name, bind in compiled.binds.items():
            convert = bind.type.bind_processor(dialect)
            if convert is not None:
                self.binds[bind.key] = convert
                self.binds[name] = convert
        # what a SELECT selects, or what an INSERT or UPDATE returns (nothing: no rows)
        columns: Any = getattr(statement, "exported_columns", ())
        self.results: list[Callable[[Any], Any] | None] = [
            column.type.result_processor(dialect, None) for column in columns
        ]

    def params(self, values: Mapping[str, Any]) -> Any:
        if self.binds:
            values = {k: (self.binds[k](v) if k in self.binds else v) for k, v in values.items()}
        if self.positional is not None:
            return tuple(values[name] for name in self.positional)
        return values

    def row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(
            value if convert is None or value is None else convert(value)
            for value, convert in zip(raw, self.results, strict=False)
        )


def _where(url: URL) -> str:
    if url.get_backend_name() == "sqlite":
        return repr(url.database or ":memory:")
    return url.render_as_string(hide_password=True)


def _sqlite_file_exists(url: URL) -> bool:
    name = url.database
    if not name or name == ":memory:":
        return True
    try:
        return Path(name).exists()
    except OSError as err:  # (a name too long, a loop of links: the person's to fix)
        raise StorageError(
            f"cannot use the database file {shown_path(name)}: {path_reason(err)}"
        ) from None


def _create_engine(url: URL, busy_timeout: float) -> Engine:
    try:
        if url.get_backend_name() == "sqlite":
            engine = create_engine(url, connect_args={"timeout": busy_timeout})
            event.listen(engine, "connect", partial(_sqlite_connect, busy_timeout=busy_timeout))
            event.listen(engine, "begin", _sqlite_begin)
            return engine
        # a transaction waits for another's lock at most the busy timeout, as on SQLite:
        # then it fails for a reason that passes, and run() tries it again or says busy
        options = f"-c lock_timeout={int(busy_timeout * 1000)}"
        # enough connections kept open for every thread of a server process that may use
        # one at once (the web's worker threads and asyncio's); a connection opened beyond
        # the pool is closed when it is given back, and a new PostgreSQL connection costs
        # the server a process of its own and its statements prepared again
        return create_engine(url, pool_size=32, max_overflow=16, connect_args={"options": options})
    except ImportError as err:
        raise StorageError(
            f"no driver for {url.drivername} ({err.name}): for PostgreSQL, "
            "pip install 'cardroom[pg]'"
        ) from None
    except exc.ArgumentError as err:
        raise StorageError(f"cannot use {_where(url)}: {one_line(str(err))}") from None


def _sqlite_connect(dbapi_connection: Any, record: Any, *, busy_timeout: float) -> None:
    """Every new SQLite connection: no implicit BEGIN of pysqlite's, WAL, foreign keys.

    Switching a file to WAL needs its exclusive lock.  When two processes switch the same
    file at once, each holding a shared lock while it asks for the exclusive one, SQLite
    answers one of them "database is locked" at once, without its busy handler (waiting
    could only deadlock).  That one lets go of its lock and tries again, until the busy
    timeout; by then the other has switched the file and the pragma has nothing to do.
    """
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        give_up = time.monotonic() + busy_timeout
        pause = 0.005
        while True:
            try:
                cursor.execute("PRAGMA journal_mode = WAL")
                break
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() + pause > give_up:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)
    finally:
        cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    """Start a transaction: ``BEGIN IMMEDIATE`` (the write lock now) for a write."""
    write = bool(conn.get_execution_options().get(WRITE_OPTION))
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
