"""cardroom's database: the schema, opening it, its transactions and migrations.

:class:`Database` (in :mod:`cardroom.storage.db`) opens an SQLite file or a PostgreSQL
server and upgrades it; :mod:`cardroom.storage.schema` has the tables.  Money moves
only through :class:`cardroom.app.wallet.Wallet`, which is built on these.
"""

from cardroom.storage.db import Database, default_path
from cardroom.storage.errors import StorageConflict, StorageError

__all__ = ["Database", "StorageConflict", "StorageError", "default_path"]
