"""The live chemin de fer tables: people and bots at one table, on any number of server
processes over one database.

:class:`ChemmyTables` (:mod:`~cardroom.app.tables.live.hub`) is a process's side of the
tables; each :class:`LiveChemmy` (:mod:`~cardroom.app.tables.live.table`) one table, with
its parts: the steps (:mod:`~cardroom.app.tables.live.steps`), the driver
(:mod:`~cardroom.app.tables.live.driver`), a person's requests
(:mod:`~cardroom.app.tables.live.acts`) and the other processes' inbox
(:mod:`~cardroom.app.tables.live.inbox`).  The database traffic between processes is
:mod:`~cardroom.app.tables.live.link`'s (and :mod:`~cardroom.app.tables.live.listener`'s
on PostgreSQL).  How a table looks is the presentation's: it gives a
:class:`TableViews`.
"""

from cardroom.app.tables.live.base import (
    BOT_NAMES,
    DATABASE_FAILED,
    DEFAULT_TABLES,
    WEB_TABLE,
    Connection,
    Refused,
    TableSpec,
    TableViews,
    Told,
    bot_name,
)
from cardroom.app.tables.live.hub import ChemmyTables
from cardroom.app.tables.live.table import LiveChemmy

__all__ = [
    "BOT_NAMES",
    "DATABASE_FAILED",
    "DEFAULT_TABLES",
    "WEB_TABLE",
    "ChemmyTables",
    "Connection",
    "LiveChemmy",
    "Refused",
    "TableSpec",
    "TableViews",
    "Told",
    "bot_name",
]
