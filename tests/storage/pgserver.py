"""A PostgreSQL server for the tests: the one ``CARDROOM_TEST_PG`` names, or a throwaway
cluster started from the installed server binaries (Debian's ``postgresql`` package),
listening only on a unix socket in its own temporary folder.

As root the cluster runs as the ``postgres`` user (``runuser``), since PostgreSQL
refuses to run as root.  Without either, the PostgreSQL tests are skipped with
:data:`MISSING`, which says how to get one.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from uuid import uuid4

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

#: Names a PostgreSQL server for the tests instead of a throwaway cluster.
ENV = "CARDROOM_TEST_PG"

MISSING = (
    "PostgreSQL is not installed: run `apt-get install postgresql` (make test does it as "
    f"root), or set {ENV} to a server URL (see docs/storage.md)"
)

#: Settings of the throwaway cluster: a unix socket only, no durability (it is thrown away).
SETTINGS = {
    "listen_addresses": "''",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
}


def bin_dir() -> Path | None:
    """The newest installed server binaries (``initdb``, ``pg_ctl``), if any."""
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if found:

        def version(path: str) -> int:
            match = re.search(r"/postgresql/(\d+)/", path)
            return int(match.group(1)) if match else 0

        return Path(max(found, key=version)).parent
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(initdb).parent
    return None


class Cluster:
    """A PostgreSQL cluster in a temporary folder, started and stopped by the tests."""

    def __init__(self, binaries: Path, settings: Mapping[str, str] | None = None) -> None:
        """``settings``: server settings beside (or instead of) :data:`SETTINGS`, such as
        ``{"max_connections": "300"}`` for a load benchmark."""
        self.binaries = binaries
        self.settings = {**SETTINGS, **(settings or {})}
        self.folder = Path(tempfile.mkdtemp(prefix="cardroom-pg-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}{tail}"
            )

    def start(self) -> URL:
        self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        self.resume()
        return URL.create(
            "postgresql+psycopg",
            username="postgres",
            database="postgres",
            query={"host": str(self.folder), "port": "5432"},
        )

    def resume(self) -> None:
        """Start the server of the cluster made (again, after :meth:`halt`)."""
        options = " ".join(f"-c {key}={value}" for key, value in self.settings.items())
        self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "120",
            "-o",
            f"{options} -c unix_socket_directories={self.folder} -p 5432",
            "start",
        )

    def halt(self) -> None:
        """Stop the server (its connections dropped), keeping the cluster to resume."""
        self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def postmaster_pid(self) -> int | None:
        """The server's main process (its first line of ``postmaster.pid``), if running."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


def server_url(url: str) -> URL:
    """``CARDROOM_TEST_PG`` as an SQLAlchemy URL with the psycopg driver."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def create_database(server: URL, template: URL | None = None) -> URL:
    """A new database on the server (empty, or a copy of ``template``'s); its URL."""
    name = f"cardroom_test_{uuid4().hex[:16]}"
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            sql = f'CREATE DATABASE "{name}"'
            if template is not None:
                sql += f' TEMPLATE "{template.database}"'
                version = engine.dialect.server_version_info or (0,)
                if version >= (15,):  # a plain copy of a small database is faster
                    sql += " STRATEGY FILE_COPY"
            conn.execute(text(sql))
    finally:
        engine.dispose()
    return server.set(database=name)


def drop_database(server: URL, database: URL) -> None:
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{database.database}" WITH (FORCE)'))
    finally:
        engine.dispose()
