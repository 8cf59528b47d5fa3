"""The schema's versions: Alembic's migrations, shipped in the package and run on open.

The scripts are in ``cardroom/storage/migrations/versions/``; Alembic is configured here
in code (no ``alembic.ini``), with its version table named :data:`VERSION_TABLE`, whose
presence also marks a database as cardroom's.

:func:`prepare` (called by :meth:`Database.open <cardroom.storage.db.Database.open>`)
looks at the database in a read transaction and, only when it is not at the newest
revision, upgrades it inside one write transaction: on SQLite that holds the write lock
(``BEGIN IMMEDIATE``), on PostgreSQL a transaction-scoped advisory lock, so that two
processes opening a new database at once migrate it once.  DDL is transactional on both
databases, so an upgrade that fails leaves the database as it was.

A bankroll file of cardroom 0.1 (schema 1 or 2: tables ``meta``,
``bankroll``, ``people``, ``rounds``) is upgraded by the first revision: its tables are
renamed ``legacy_*`` and their bankrolls and rounds brought over
(:mod:`cardroom.storage.migrations.legacy_0001`).

To write a new revision, point Alembic at a scratch database that is at head and let it
compare the schema with :mod:`cardroom.storage.schema` (see ``docs/storage.md``)::

    from alembic import command
    config = alembic_config(url="sqlite:///scratch.sqlite3")
    command.revision(config, message="what changes", autogenerate=True, rev_id="0002")
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Literal

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text

from cardroom.storage.errors import StorageError

if TYPE_CHECKING:
    from cardroom.storage.db import Database

#: Alembic's version table; a database that has it is cardroom's.
VERSION_TABLE = "cardroom_version"

#: Where the migration scripts are (a package resource).
SCRIPT_LOCATION = "cardroom.storage:migrations"

#: The ``pg_advisory_xact_lock`` key that serialises migrations on PostgreSQL.
MIGRATION_LOCK = 0x63617264  # "card"

#: What the bankroll file wrote in its ``meta`` table, and the schemas it had.
LEGACY_APP = "cardroom"
LEGACY_SCHEMAS = (1, 2)

State = Literal["empty", "legacy", "behind", "current"]


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """Alembic's configuration for cardroom: the scripts' location, and either an open
    ``connection`` (in a transaction) to migrate or a ``url`` for Alembic's commands."""
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    # revision files are modules: v0002_what_changes.py, not 0002_what_changes.py
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def heads() -> frozenset[str]:
    """The newest revision(s) of the schema this code knows."""
    return frozenset(_scripts().get_heads())


def known_revisions() -> frozenset[str]:
    """Every revision this code knows."""
    return frozenset(script.revision for script in _scripts().walk_revisions())


def current_revisions(conn: Connection) -> frozenset[str]:
    """The revision(s) the database is at (none for a database without the version table)."""
    if VERSION_TABLE not in inspect(conn).get_table_names():
        return frozenset()
    rows = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars()
    return frozenset(str(row) for row in rows)


def state(conn: Connection, where: str) -> State:
    """What the database is, for cardroom; a :class:`StorageError` if it is not cardroom's
    or was written by a newer cardroom."""
    names = set(inspect(conn).get_table_names())
    if VERSION_TABLE in names:
        current = current_revisions(conn)
        unknown = sorted(current - known_revisions())
        if unknown:
            raise StorageError(
                f"{where} was written by a newer cardroom (schema {unknown[0]}): update cardroom"
            )
        return "current" if current == heads() else "behind"
    if not names:
        return "empty"
    if "meta" in names and {"bankroll", "rounds"} <= names:
        meta: dict[str, str] = {
            str(key): str(value) for key, value in conn.execute(text("SELECT key, value FROM meta"))
        }
        if meta.get("app") == LEGACY_APP:
            version = str(meta.get("schema", ""))
            if not version.isdigit():
                raise StorageError(f"{where} is a damaged bankroll file (schema {version!r})")
            if int(version) > max(LEGACY_SCHEMAS):
                raise StorageError(
                    f"{where} was written by a newer cardroom (schema {version}): update cardroom"
                )
            return "legacy"
    raise StorageError(f"{where} is a database of some other program (none of cardroom's tables)")


def prepare(db: Database) -> None:
    """Check that ``db`` is cardroom's and bring its schema up to date."""
    with db.read() as conn:
        if state(conn, db.where) == "current":
            return
    with db.write() as conn:
        if not db.is_sqlite:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        if state(conn, db.where) != "current":  # another process may have done it meanwhile
            command.upgrade(alembic_config(conn), "head")
