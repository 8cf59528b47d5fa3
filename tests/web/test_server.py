"""``cardroom serve`` as a person runs it: a real process on a loopback port, one log
line per request, one line of error for what keeps it from starting (a port in use, a
database it cannot write, a bad rules folder), and several worker processes on one port."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import re
import select
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text
from typer.testing import CliRunner
from uvicorn.supervisors.multiprocess import Process

from cardroom.storage import Database
from cardroom.terminal.cli import app as command
from cardroom.web import server as web_server
from cardroom.web.server import (
    BALANCES,
    Options,
    ServerError,
    answers,
    build_app,
    listen,
    listen_each,
    load_rules_dir,
)
from tests.databases import (  # noqa: F401
    pg_migrated_url,
    pg_server,
    pg_template,
    url_text,
)
from tests.processes import PATIENCE
from tests.web.served import CARDROOM, Served, alive, fetch, free_port


def test_serve_starts_answers_and_logs_each_request(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "punto-banco.toml").write_text("[table]\nminimum = 25\n", encoding="utf-8")
    port = free_port()
    command = [*CARDROOM, "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'c.db'}"]
    server = subprocess.Popen(
        [*command, "--rules-dir", str(rules), "--time-limit", "12"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert server.stderr is not None
        first = server.stderr.readline()  # printed before it serves
        assert f"http://127.0.0.1:{port}/" in first
        lines = []
        for line in server.stderr:
            lines.append(line)
            if "startup complete" in line:
                break
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games") as response:
            games = {g["id"]: g for g in json.load(response)["games"]}
        assert games["punto-banco"]["limits"]["minimum"] == "25"  # the rules folder's
        assert games["baccarat27"]["limits"]["minimum"] == "10"
        assert server.stdout is not None
        logged = server.stdout.readline()  # uvicorn's access log: a line per request
        assert '"GET /api/games HTTP/1.1" 200' in logged
        lobby = f"http://127.0.0.1:{port}/api/chemin-de-fer/tables"
        with urllib.request.urlopen(lobby) as response:
            limits = {table["time_limit"] for table in json.load(response)["tables"]}
        assert limits == {12}  # --time-limit reaches every chemin de fer table
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_port_in_use_is_one_line(tmp_path: Path, workers: int) -> None:
    taken = listen("127.0.0.1", 0)
    port = taken.getsockname()[1]
    db = f"sqlite:///{tmp_path / 'c.db'}"
    try:
        with pytest.raises(
            ServerError, match=f"cannot listen on 127.0.0.1:{port}: the port is in use"
        ):
            listen("127.0.0.1", port)
        done = subprocess.run(
            [*CARDROOM, "serve", "--port", str(port), "--workers", str(workers), "--db", db],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        taken.close()
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: the port is in use"
    ]


@pytest.mark.skipif(not BALANCES, reason="SO_REUSEPORT shares connections out on Linux")
def test_each_worker_listens_on_a_socket_of_its_own() -> None:
    sockets = listen_each("127.0.0.1", 0, 2)
    try:
        ports = {sock.getsockname()[1] for sock in sockets}
        assert len(sockets) == 2 and len(ports) == 1
        port = ports.pop()
        # another server cannot take a share of the port: it is in use
        with pytest.raises(ServerError, match="the port is in use"):
            listen_each("127.0.0.1", port, 2)
        # and the connections go to both sockets
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]
        try:
            for sock in sockets:
                sock.settimeout(5)
                sock.accept()[0].close()
        finally:
            for client in clients:
                client.close()
    finally:
        for sock in sockets:
            sock.close()


def test_a_bad_rules_folder_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(ServerError, match="is not a folder"):
        load_rules_dir(tmp_path / "nothing")
    (tmp_path / "poker.toml").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ServerError, match="no game is called 'poker'"):
        load_rules_dir(tmp_path)
    (tmp_path / "poker.toml").unlink()
    bad = tmp_path / "punto-banco.toml"
    bad.write_text('tie_pays = "x"\n', encoding="utf-8")
    with pytest.raises(ServerError) as caught:
        load_rules_dir(tmp_path)
    assert str(caught.value).count(str(bad)) == 1 and "tie_pays" in str(caught.value)
    bad.unlink()
    # rules the engine plays but the solved coup that the tables' bots play cannot take
    unsolved = tmp_path / "chemin-de-fer.toml"
    unsolved.write_text("player_must_stand_from = 7\n", encoding="utf-8")
    with pytest.raises(ServerError, match="exactly one total where the player chooses") as caught:
        load_rules_dir(tmp_path)
    assert str(caught.value).startswith(f"{unsolved}: ")


def test_a_bad_database_is_one_line() -> None:
    done = subprocess.run(
        [*CARDROOM, "serve", "--db", "nonsense://x"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: cannot use nonsense://x")


def test_a_database_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    Database.open(path=path).close()
    before = path.read_bytes()
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    done = subprocess.run(
        [*CARDROOM, "serve", "--port", str(free_port()), "--db", read_only],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert line == (
        f"error: the web table cannot write to its database: database 'file:{path}': "
        "attempt to write a readonly database"
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize("grants", ["SELECT only", "SELECT, and INSERT into login_failures"])
def test_a_postgresql_database_that_cannot_be_written_is_one_line(
    pg_migrated_url: str,  # noqa: F811
    grants: str,
) -> None:
    engine = create_engine(pg_migrated_url, isolation_level="AUTOCOMMIT")
    reader = make_url(pg_migrated_url).set(username="cardroom_reader")
    try:
        with engine.connect() as conn:
            conn.execute(text("DROP ROLE IF EXISTS cardroom_reader"))
            conn.execute(text("CREATE ROLE cardroom_reader LOGIN"))
            conn.execute(text("GRANT SELECT ON ALL TABLES IN SCHEMA public TO cardroom_reader"))
            if "INSERT" in grants:  # the probe's insert passes: its updates of the others do not
                conn.execute(text("GRANT INSERT ON login_failures TO cardroom_reader"))
                conn.execute(
                    text("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO cardroom_reader")
                )
        done = subprocess.run(
            [*CARDROOM, "serve", "--port", str(free_port()), "--db", url_text(reader)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0
        [line] = done.stderr.strip().splitlines()
        assert line.startswith("error: the web table cannot write to its database: ")
        assert "permission denied for table" in line
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM login_failures")).scalar() == 0
    finally:
        with engine.connect() as conn:
            conn.execute(text("DROP OWNED BY cardroom_reader"))
            conn.execute(text("DROP ROLE cardroom_reader"))
        engine.dispose()


def test_serve_with_two_workers(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "punto-banco.toml").write_text("[table]\nminimum = 25\n", encoding="utf-8")
    server = Served(
        tmp_path,
        *("--db", f"sqlite:///{tmp_path / 'c.db'}", "--workers", "2"),
        *("--rules-dir", str(rules), "--time-limit", "12"),
    )
    try:
        server.wait_for(lambda: server.log().count("Application startup complete") == 2, "startup")
        assert "in 2 worker processes" in server.log().splitlines()[0]
        first = server.workers()
        assert len(first) == 2
        # requests on new connections, until each worker has answered some
        served: set[int] = set()
        for _ in range(200):
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(lambda _: fetch(f"{server.url}/api/games"), range(8)))
            for games in answers:  # each worker built the app from the same options
                minimum = {g["id"]: g["limits"]["minimum"] for g in games["games"]}
                assert minimum["punto-banco"] == "25" and minimum["baccarat27"] == "10"
            served = {int(pid) for pid in re.findall(r"\[(\d+)\] 127\.0\.0\.1", server.access())}
            if served == first:
                break
        assert served == first
        tables = fetch(f"{server.url}/api/chemin-de-fer/tables")["tables"]
        assert {table["time_limit"] for table in tables} == {12}
        # a worker that dies is replaced, and the other serves meanwhile
        dead = min(first)
        os.kill(dead, signal.SIGKILL)
        server.wait_for(lambda: len(server.workers() - first) == 1, "a new worker")
        server.wait_for(
            lambda: server.log().count("Application startup complete") == 3, "its start"
        )
        assert f"Child process [{dead}] died" in server.log()
        assert fetch(f"{server.url}/api/games")["games"]
        now = server.workers()
        assert dead not in now and len(now) == 2
    finally:
        code = server.stop()
    assert code == 0
    assert not any(alive(pid) for pid in first | now)  # Ctrl-C stopped them all
    assert "Stopping parent process" in server.log()


def _ask(sock: socket.socket, path: str) -> bytes:
    """One request on an open connection, and the head of its answer (what came before
    the connection closed, if it did)."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65536)
        if not chunk:
            return answer
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    found = re.search(rb"content-length: (\d+)", head, re.I)
    length = int(found.group(1)) if found else 0
    while len(body) < length:
        body += sock.recv(65536)
    return head


def test_an_idle_connection_is_kept_for_its_next_request(tmp_path: Path) -> None:
    """A client (or a proxy) that reuses a connection after 6 idle seconds finds it open:
    uvicorn's 5 s closed it, and a request sent as it closed was reset (issue 32)."""
    server = Served(tmp_path, "--db", f"sqlite:///{tmp_path / 'c.db'}").ready()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            assert _ask(sock, "/api/games").startswith(b"HTTP/1.1 200")
            ready, _, _ = select.select([sock], [], [], 6)  # idle: nothing comes, no close
            assert ready == []
            assert _ask(sock, "/api/games").startswith(b"HTTP/1.1 200")
    finally:
        server.stop()


def test_a_served_process_puts_what_it_started_with_beyond_the_collector(
    tmp_path: Path,
) -> None:
    """A server process freezes what it holds once started (gc.freeze), so a full
    collection walks what came later alone and stops no answer for 50-100 ms."""
    db = Database.open(f"sqlite:///{tmp_path / 'room.db'}")
    app = build_app(Options(db_url=None, rules_dir=None), db=db)
    gc.unfreeze()
    try:
        with TestClient(app) as client:
            frozen = gc.get_freeze_count()
            assert frozen > 10_000  # the modules, the games, the app
            assert client.get("/api/games").status_code == 200
    finally:
        gc.unfreeze()
        db.close()


@pytest.mark.parametrize("flag", [[], ["--own-variant-tables"]])
def test_own_variant_tables_are_the_serve_command_s_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: list[str]
) -> None:
    """``cardroom serve --own-variant-tables`` reaches each process's app (through the
    options the workers are built from); without it a lab variant's table takes bets
    only once an operator has put it on a public table."""
    given: dict[str, object] = {}
    monkeypatch.setattr(web_server, "run", lambda **options: given.update(options))
    done = CliRunner().invoke(command, ["serve", *flag])
    assert done.exit_code == 0, done.output
    assert given["own_variant_tables"] is bool(flag)
    db = Database.open(f"sqlite:///{tmp_path / 'room.db'}")
    try:
        options = Options(None, None, own_variant_tables=bool(flag))
        built = build_app(options, db=db)
        assert built.state.services.tables.stored.own_variants is bool(flag)
    finally:
        db.close()


def _pong_once(conn: Connection) -> None:
    """A worker that answers one health check, then goes on."""
    conn.recv()
    conn.send(True)
    time.sleep(60)


def _die_soon(conn: Connection) -> None:
    """A worker that never answers, and is gone in a moment."""
    time.sleep(1)


def _health(target: Callable[[Connection], None]) -> bool | None:
    """:func:`answers`, with a timeout of an hour, about a forked process running
    ``target`` on its end of the health check's pipe; None if it had not told within
    the test's patience."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe()
    worker = context.Process(target=target, args=(child,), daemon=True)
    worker.start()
    told: list[bool] = []
    stand_in = cast(Process, SimpleNamespace(process=worker, parent_conn=parent))
    asking = threading.Thread(target=lambda: told.append(answers(stand_in, timeout=3600)))
    asking.start()
    asking.join(timeout=PATIENCE)
    worker.kill()
    worker.join()
    return told[0] if told else None


def test_a_worker_that_answers_its_health_check_is_alive() -> None:
    assert _health(_pong_once) is True


def test_a_worker_gone_during_its_health_check_is_seen_gone_then_not_after_the_timeout() -> None:
    """The supervisor's wait for an answer ends when the worker is gone (one killed just
    before a check is replaced at once, not a whole timeout later)."""
    assert _health(_die_soon) is False
