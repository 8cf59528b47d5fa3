"""A real server on a loopback port and Debian's Chromium driven by Playwright, for the
browser tests (one of each per test worker; a new browser context per test)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from argon2 import PasswordHasher

from cardroom.app.sessions import Sessions
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def chromium_path() -> str:
    """Debian's Chromium, or a skip that says how to install it."""
    found = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if found is None:
        pytest.skip(
            "the browser tests need Debian's Chromium: sudo apt-get install chromium "
            "(make test installs it when run as root)"
        )
    return found


class Server:
    """uvicorn serving the app in a thread, on a free loopback port."""

    def __init__(self, db_path: Path, **options: Any) -> None:
        self.db = Database.open(path=db_path)
        self.edges = HouseEdges(analyser_means, in_process=True)
        hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
        sessions = Sessions(self.db, Wallet(self.db), hasher)
        app = create_app(self.db, house_edges=self.edges, sessions=sessions, **options)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.edges.close()
        self.db.close()
        self.sock.close()


def serve(tmp: Path) -> Iterator[Server]:
    with Server(tmp / "web.sqlite3") as server:
        yield server
