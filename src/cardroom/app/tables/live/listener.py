"""Woken by the other processes: PostgreSQL's ``NOTIFY`` for the chemin de fer tables.

Every write one process makes for another (:mod:`~cardroom.app.tables.live.link`) also
sends a ``NOTIFY`` on the channel of the process or the table it is for.  A
:class:`Listener` is the thread of a process that ``LISTEN`` s on its channels and wakes
whoever waits for them; when the connection is lost it tries again, backing off.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import exc

from cardroom.app.tables.live.link import wall_clock
from cardroom.storage.db import Database, one_line

log = logging.getLogger("cardroom.tables")

#: what a lost database looks like to the listener, beside the driver's own errors
#: (psycopg's ``Error``: see :meth:`Listener._run`): SQLAlchemy's, and a closed socket;
#: anything else is a bug, logged with its traceback
DATABASE_GONE: tuple[type[BaseException], ...] = (exc.SQLAlchemyError, OSError)
#: the longest wait between two tries to listen again (it doubles from half a second)
MAX_BACKOFF = 30.0


@dataclass
class ListenerHealth:
    """How the listener stands: listening now, the failures in a row since it last
    listened, the last failure in one line, and when it last listened (the wall clock)."""

    listening: bool = False
    failures: int = 0
    error: str | None = None
    since: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "listening": self.listening,
            "failures": self.failures,
            "error": self.error,
            "since": None if self.since is None else self.since.isoformat(),
        }


class Listener:
    """A thread that ``LISTEN`` s on PostgreSQL for ``channels`` and calls ``wake`` with
    each notification's channel (``"*"`` after every new connection: notifications may
    have been missed, poll everything).  After a lost connection it tries again, waiting
    twice as long each time (half a second up to :data:`MAX_BACKOFF`); what failed is
    logged (a bug with its traceback) and kept in :attr:`health`."""

    def __init__(self, db: Database, channels: Sequence[str], wake: Callable[[str], None]) -> None:
        self.db = db
        self.channels = list(channels)
        self.wake = wake
        self.stopping = threading.Event()
        self.health = ListenerHealth()
        self.thread = threading.Thread(target=self._run, name="cardroom-listen", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        import psycopg  # lazy: psycopg (only PostgreSQL is listened to)

        gone: tuple[type[BaseException], ...] = (*DATABASE_GONE, psycopg.Error)
        while not self.stopping.is_set():
            try:
                self._listen()
            except gone as err:  # the database went away: try again, later
                self._failed(one_line(str(err)) or type(err).__name__)
                log.warning(
                    "chemin de fer: listening for the other processes failed (%d in a row, "
                    "next try in %.1f s): %s",
                    self.health.failures,
                    self.backoff,
                    self.health.error,
                )
            except Exception as err:  # a bug: said with its traceback
                self._failed(f"{type(err).__name__}: {one_line(str(err))}")
                log.exception(
                    "chemin de fer: listening for the other processes failed (%d in a row, "
                    "next try in %.1f s)",
                    self.health.failures,
                    self.backoff,
                )
            self.stopping.wait(self.backoff)

    @property
    def backoff(self) -> float:
        """The wait before the next try: 0 while listening, else doubling per failure."""
        failures = self.health.failures
        return 0.0 if not failures else min(MAX_BACKOFF, 0.5 * 2 ** min(failures - 1, 10))

    def _failed(self, error: str) -> None:
        self.health.listening = False
        self.health.failures += 1
        self.health.error = error

    def _listen(self) -> None:
        raw = self.db.engine.raw_connection()
        try:
            self._listen_on(raw)
        except BaseException:
            with contextlib.suppress(Exception):  # closed as broken: no reset tried on it
                raw.invalidate()
            raise
        with contextlib.suppress(Exception):
            raw.close()

    def _listen_on(self, raw: Any) -> None:
        """Listen on the connection ``raw`` (out of the pool) until stopped."""
        pg: Any = raw.driver_connection
        raw.detach()  # a connection of its own, out of the pool
        pg.rollback()
        pg.autocommit = True
        for channel in self.channels:
            pg.execute(f'LISTEN "{channel}"')
        self.health = ListenerHealth(listening=True, since=wall_clock())
        self.wake("*")
        while not self.stopping.is_set():
            for note in pg.notifies(timeout=0.5):
                self.wake(str(note.channel))


__all__ = ["DATABASE_GONE", "MAX_BACKOFF", "Listener", "ListenerHealth"]
