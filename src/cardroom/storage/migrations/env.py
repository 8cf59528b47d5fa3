"""Alembic's environment for cardroom's migrations.

:func:`cardroom.storage.migrate.prepare` hands over an open connection already in a
write transaction (``config.attributes["connection"]``), so every revision of an upgrade
runs in that one transaction.  Alembic's own commands (``revision --autogenerate``)
get ``sqlalchemy.url`` instead and connect here.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from cardroom.storage.migrate import VERSION_TABLE
from cardroom.storage.schema import metadata


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        compare_type=True,
        # SQLite changes a table by copying it: let Alembic write future ALTERs that way
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    config = context.config
    if context.is_offline_mode():
        raise SystemExit("cardroom's migrations run on a connection, not as SQL scripts")
    connection = config.attributes.get("connection")
    if connection is not None:
        run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give Alembic a database: alembic_config(url=...)")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            run(conn)
    finally:
        engine.dispose()


# Alembic runs this file inside a migration; imported anywhere else (a doctest collector,
# a documentation tool) it has no context and does nothing.
if hasattr(context, "config"):
    main()
