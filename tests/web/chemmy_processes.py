"""Real ``cardroom serve`` processes on loopback ports sharing one database, for the
chemin de fer tables across processes: started, waited for, stopped or killed."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import TracebackType

from sqlalchemy import select

from cardroom.storage import Database
from cardroom.storage.schema import chemmy_processes, chemmy_tables
from tests.processes import PATIENCE
from tests.web.served import Served as BaseServed


class Served(BaseServed):
    """``cardroom serve --db URL --time-limit N`` on a free loopback port, and the test's
    own connection to the database (to look at the chemin de fer leases)."""

    def __init__(self, db_url: str, folder: Path, name: str, time_limit: int = 5) -> None:
        super().__init__(folder, "--db", db_url, "--time-limit", str(time_limit), name=name)
        self.db = Database.open(db_url)

    def ready(self, path: str = "/api/chemin-de-fer/tables") -> Served:
        """Wait until it answers (and has had its first heartbeat)."""
        super().ready(path)
        return self

    def process_id(self) -> str | None:
        """Its id among the chemin de fer processes (None before its first heartbeat)."""
        with self.db.read() as conn:
            found = conn.execute(
                select(chemmy_processes.c.id).where(chemmy_processes.c.pid == self.popen.pid)
            ).scalar_one_or_none()
        return None if found is None else str(found)

    def owns(self, table_id: int) -> bool:
        """Does it hold the table's lease?"""
        mine = self.process_id()
        with self.db.read() as conn:
            owner = conn.execute(
                select(chemmy_tables.c.owner).where(chemmy_tables.c.id == table_id)
            ).scalar_one_or_none()
        return mine is not None and owner == mine

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                return self.popen.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.popen.kill()
        return self.popen.wait(timeout=PATIENCE)

    def __enter__(self) -> Served:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
        self.db.close()
