"""``GET /healthz``: the database, the heartbeat, the listener and each chemin de fer
table's lease, as a load balancer or an operator asks; a real server on a PostgreSQL
server of the test's own, stopped and started again under it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.databases import url_text
from tests.storage import pgserver
from tests.web.conftest import Web
from tests.web.served import Served

pytestmark = pytest.mark.xdist_group("processes")


def until(check: Callable[[], dict[str, Any] | None], what: str, seconds: float = 60) -> Any:
    """``check()`` until it gives something (polled: the server's state changes on its
    own clock)."""
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        found = check()
        if found is not None:
            return found
        time.sleep(0.2)
    pytest.fail(f"never: {what}")


def test_health_on_sqlite_says_every_table_is_driven(web: Web) -> None:
    with web.client() as client:  # (its lifespan: the heartbeat that takes the tables)
        check(client)


def check(client: Any) -> None:
    def ok() -> dict[str, Any] | None:
        answer = client.get("/healthz")
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        return data if data["status"] == "ok" else None

    data = until(ok, "every table driven")
    assert data["database"] == {"ok": True, "error": None}
    chemmy = data["chemin_de_fer"]
    assert chemmy["listener"] is None  # SQLite: no NOTIFY to listen for
    assert chemmy["heartbeat"]["failures"] == 0 and chemmy["heartbeat"]["last"]
    assert [t["lease"] for t in chemmy["tables"]] == ["here", "here"]
    assert "no-store" in client.get("/healthz").headers["cache-control"]


def test_a_stopped_postgresql_is_said_and_its_return_too(tmp_path: Path) -> None:
    """The listener's lost connection is one warning line a try (no traceback: it is
    no bug), each try waits longer, and the health says so until the database is back."""
    binaries = pgserver.bin_dir()
    if binaries is None:
        pytest.skip(pgserver.MISSING)
    cluster = pgserver.Cluster(binaries)
    url = cluster.start()
    try:
        database = pgserver.create_database(url)
        served = Served(tmp_path, "--db", url_text(database)).ready()
        try:
            health = f"{served.url}/healthz"

            def answer() -> httpx.Response:
                return httpx.get(health, timeout=30)

            def listening() -> dict[str, Any] | None:
                data: dict[str, Any] = answer().json()
                listener = data["chemin_de_fer"] and data["chemin_de_fer"]["listener"]
                return data if data["status"] == "ok" and listener["listening"] else None

            until(listening, "listening on PostgreSQL")
            cluster.halt()
            failing = answer()
            assert failing.status_code == 503
            assert failing.json()["status"] == "failing"
            assert failing.json()["database"]["ok"] is False

            def listener_down() -> str | None:
                log = served.log()
                return (
                    log if "listening for the other processes failed (2 in a row" in log else None
                )

            log = until(listener_down, "the listener's second failure")
            assert "Traceback" not in log  # a lost database is no bug
            assert "next try in 1.0 s" in log  # and the waits grow
            cluster.resume()
            data = until(listening, "listening again once PostgreSQL is back")
            assert data["chemin_de_fer"]["listener"]["failures"] == 0
        finally:
            served.stop()
    finally:
        cluster.stop()
