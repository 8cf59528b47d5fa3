"""``cardroom serve`` as a person runs it: a real process on a loopback port, one log
line per request, and one line of error for what keeps it from starting."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from cardroom.web.server import ServerError, listen, load_rules_dir

CARDROOM = [sys.executable, "-m", "cardroom.terminal.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    taken = listen("127.0.0.1", 0)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(
            ServerError, match=f"cannot listen on 127.0.0.1:{port}: the port is in use"
        ):
            listen("127.0.0.1", port)
        done = subprocess.run(
            [*CARDROOM, "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'c.db'}"],
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
