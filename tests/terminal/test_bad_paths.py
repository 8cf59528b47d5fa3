"""Paths that cannot be used, and output that cannot be written: each is one line on
standard error, ``error: ...``, a non-zero exit status and nothing changed, never a
traceback (a name too long, a loop of symbolic links, a folder where a file goes, a
full disk on standard output)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cardroom.app.operators.staff import Staff
from cardroom.core.textfile import SHOWN_PATH, shown_path
from cardroom.storage import Database
from cardroom.terminal.cli import app
from tests.processes import cardroom_command

runner = CliRunner()

#: a file name longer than any file system takes (255 bytes): ENAMETOOLONG
LONG = "a" * 300


def run(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input)


def assert_one_line(result: Result, *words: str, status: int = 2) -> None:
    """The command failed with status ``status`` and one line, ``error: ...``, holding
    ``words``, on standard error (not a Python exception, which CliRunner keeps)."""
    assert result.exit_code == status, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def add_operator(url: str, name: str, *extra: str) -> Result:
    return run(
        "operator", "add", name, "--db", url, "--password-stdin", *extra,
        input="secretpassword123\n",
    )  # fmt: skip


def operators(url: str) -> list[str]:
    with Database.open(url) as db:
        return [person.name for person in Staff(db).all()]


@pytest.mark.parametrize(
    ("qr", "words"),
    [
        ("nowhere/q.svg", "there is no folder"),
        ("folder.svg", "is a folder"),
        (f"{LONG}.svg", "the file name is too long"),
    ],
)
def test_a_qr_file_that_cannot_be_written_adds_nobody(tmp_path: Path, qr: str, words: str) -> None:
    (tmp_path / "folder.svg").mkdir()
    url = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    refused = add_operator(url, "Olga", "--qr", str(tmp_path / qr))
    assert_one_line(refused, "--qr", words)
    assert "TOTP" not in refused.stdout
    assert operators(url) == []
    added = add_operator(url, "Olga", "--qr", str(tmp_path / "olga.svg"))  # the name is free
    assert added.exit_code == 0, added.output
    assert operators(url) == ["Olga"]
    assert (tmp_path / "olga.svg").read_text().startswith("<?xml")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_qr_file_that_fails_to_be_written_still_shows_the_secret(tmp_path: Path) -> None:
    (tmp_path / "full.svg").symlink_to("/dev/full")  # passes the checks, then the disk is full
    url = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    result = add_operator(url, "Olga", "--qr", str(tmp_path / "full.svg"))
    assert_one_line(result, "--qr", "no space left on device", "Olga was added")
    secret = next(line.strip() for line in result.stdout.splitlines() if len(line.strip()) == 32)
    assert f"secret={secret}" in result.stdout  # shown this once: not lost with the file
    assert operators(url) == ["Olga"]


#: Every command that checks a path given on the command line, given a name too long
#: ({long}; {tmp}: the test's folder, which holds a key pair and a database).
DATES = ["--from", "2020-01-01", "--to", "2030-01-01"]
ROOM = "sqlite:///{tmp}/room.sqlite3"
TOO_LONG = {
    "history": ["history", "--bankroll-file", "{long}.db"],
    "audit": ["audit", "--bankroll-file", "{long}.db"],
    "keygen": ["export", "keygen", "--out", "{long}"],
    "export": ["export", *DATES, "--out", "{long}", "--key", "{tmp}/k.key.pem", "--db", ROOM],
    "verify": ["export", "verify", "{long}", "--key", "{tmp}/k.pub.pem"],
    "report": ["report", "punto-banco", "--out", "{long}"],
    "floor": ["report", "floor", *DATES, "--out", "{long}", "--db", ROOM],
    "certify-rng": ["certify-rng", "--out", "{long}", "--shuffles", "1000", "--no-dieharder"],
    "plot": ["simulate", "punto-banco", "--rounds", "1000", "--session-rounds", "100",
             "--plot", "{long}.png"],
}  # fmt: skip


@pytest.mark.parametrize("command", TOO_LONG)
def test_a_name_too_long_is_one_line_naming_it_shortened(tmp_path: Path, command: str) -> None:
    assert run("export", "keygen", "--out", str(tmp_path / "k")).exit_code == 0
    Database.open(ROOM.format(tmp=tmp_path)).close()
    before = sorted(os.listdir(tmp_path))
    args = [arg.format(tmp=tmp_path, long=tmp_path / LONG) for arg in TOO_LONG[command]]
    result = run(*args)
    assert_one_line(result, "cannot use", "the file name is too long")
    assert LONG not in result.stderr and "...aaa" in result.stderr, result.stderr
    assert len(result.stderr) < SHOWN_PATH + 100, result.stderr
    assert sorted(os.listdir(tmp_path)) == before


def test_shown_paths_are_short_and_one_line() -> None:
    assert shown_path("plot.png") == "'plot.png'"
    shown = shown_path(f"/tmp/{LONG}.png\nx")
    assert shown.startswith("'/tmp/aaa") and shown.endswith(".png\\nx'") and "..." in shown
    assert len(shown) <= SHOWN_PATH + 2 and "\n" not in shown


def test_a_loop_of_symbolic_links_as_the_plot_is_refused_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "loop1.png").symlink_to(tmp_path / "loop1")
    result = run(
        "simulate", "punto-banco", "--rounds", "100", "--session-rounds", "10",
        "--plot", str(tmp_path / "loop1.png"), "--workers", "1",
    )  # fmt: skip
    assert_one_line(result, "--plot", "loop1.png", "loop")
    assert result.stdout == ""  # refused before any round was played


@pytest.mark.parametrize("prefix", ["", "/"])
def test_keygen_without_a_file_name(prefix: str, tmp_path: Path) -> None:
    result = run("export", "keygen", "--out", prefix)
    assert_one_line(result, "--out", "keys/room")


def full_stdout(*args: str) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [*cardroom_command(), *args], stdout=full, stderr=subprocess.PIPE, text=True
        )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["games"],
        ["rules", "finnish27"],
        ["simulate", "punto-banco", "--rounds", "100", "--workers", "1"],  # (read without Typer)
    ],
)
def test_a_full_disk_on_standard_output_is_one_line(args: list[str]) -> None:
    done = full_stdout(*args)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "error: cannot write the output: no space left on device\n"
