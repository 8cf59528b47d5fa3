"""What goes wrong with cardroom's database, as one line for a person.

Apart from :mod:`cardroom.storage.db` so that the modules that :mod:`~.db` itself uses
(the migrations, the legacy upgrade) can raise them without importing it.
"""

from __future__ import annotations

__all__ = ["StorageBusy", "StorageConflict", "StorageError"]


class StorageError(Exception):
    """The database cannot be opened, read or written; the message is one line."""


class StorageConflict(StorageError):
    """A write broke one of the database's constraints (a unique name or key, a check)."""


class StorageBusy(StorageError):
    """The database gave up on a transaction for a reason that passes (a deadlock, a
    serialization failure, busy beyond its timeout) every time it was tried: nothing of
    it was written.  Trying again later is right."""
