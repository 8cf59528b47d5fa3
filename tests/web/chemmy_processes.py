"""Real ``cardroom serve`` processes on loopback ports sharing one database, for the
chemin de fer tables across processes: started, waited for, stopped or killed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

import httpx
from sqlalchemy import select

from cardroom.storage import Database
from cardroom.storage.schema import chemmy_processes, chemmy_tables
from tests.processes import PATIENCE, cardroom_command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Served:
    """``cardroom serve --db URL`` on a free loopback port, its output in a file (so that
    nothing blocks on a full pipe), and the test's own connection to the database."""

    def __init__(self, db_url: str, folder: Path, name: str, time_limit: int = 5) -> None:
        self.name = name
        self.port = free_port()
        self.log = folder / f"{name}.log"
        command = [*cardroom_command(), "serve", "--port", str(self.port), "--db", db_url]
        with self.log.open("wb") as out:
            self.popen = subprocess.Popen(
                [*command, "--time-limit", str(time_limit)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        self.db = Database.open(db_url)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def ready(self) -> Served:
        """Wait until it answers (and has had its first heartbeat)."""
        give_up = time.monotonic() + PATIENCE * 2
        while True:
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.name} exited:\n{self.output}")
            try:
                if httpx.get(f"{self.url}/api/chemin-de-fer/tables", timeout=10).is_success:
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > give_up:
                raise AssertionError(f"{self.name} never answered:\n{self.output}")
            time.sleep(0.2)

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

    def kill(self) -> None:
        """SIGKILL: nothing of it runs after this."""
        self.popen.send_signal(signal.SIGKILL)
        assert self.popen.wait(timeout=PATIENCE) == -signal.SIGKILL

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=PATIENCE)

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
