"""``cardroom operator``: adding (the secret shown once, as text, as a QR code in the
terminal and as an SVG file), listing, removing, and the log exported as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pyotp
from argon2 import PasswordHasher
from typer.testing import CliRunner, Result

from cardroom.app.operators.staff import Staff
from cardroom.storage import Database
from cardroom.terminal.cli import app

runner = CliRunner()


def cli(*args: str, stdin: str | None = None) -> Result:
    return runner.invoke(app, ["operator", *args], input=stdin)


def test_add_list_remove_and_the_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    qr = tmp_path / "olga.svg"
    added = cli(
        "add",
        "Olga",
        "--admin",
        "--db",
        url,
        "--password-stdin",
        "--qr",
        str(qr),
        stdin="a long password\n",
    )
    assert added.exit_code == 0, added.output
    assert "Admin Olga added." in added.output
    secret = next(line.strip() for line in added.output.splitlines() if len(line.strip()) == 32)
    assert f"otpauth://totp/cardroom:Olga?secret={secret}" in added.output
    assert "█" in added.output  # the QR code, drawn in the terminal
    assert qr.read_text().startswith("<?xml") and "<svg" in qr.read_text()
    with Database.open(url) as db:
        staff = Staff(db)
        [olga] = staff.all()
        assert staff.use_code(olga.id, pyotp.TOTP(secret).now())  # the secret shown is theirs
        assert PasswordHasher().verify(staff.credentials("Olga")[1], "a long password")  # type: ignore[index]
    listed = cli("list", "--db", url)
    assert "Olga" in listed.output and "admin" in listed.output
    assert (
        cli("add", "olga", "--db", url, "--password-stdin", stdin="another password\n").exit_code
        == 2
    )
    removed = cli("remove", "Olga", "--db", url, "--reason", "left the company")
    assert removed.exit_code == 0
    assert "No operators yet" in cli("list", "--db", url).output
    exported = cli("log", "--since", "2000-01-01", "--db", url, "--json")
    rows = json.loads(exported.output)
    assert [(r["action"], r["target"], r["reason"]) for r in rows] == [
        ("add operator", "operator:Olga", "added"),
        ("remove operator", "operator:Olga", "left the company"),
    ]
    assert rows[1]["before"] == {"name": "Olga", "role": "admin"}
    assert cli("log", "--since", "2999-01-01", "--db", url).output.startswith("Nothing")


def test_refusals_are_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    for args, stdin, words in (
        (("add", "Bo", "--db", url, "--password-stdin"), "short\n", "at least 8"),
        (("add", "", "--db", url, "--password-stdin"), "long enough pw\n", "name"),
        (
            ("add", "Bo", "--db", url, "--password-stdin", "--qr", "x.png"),
            "long enough pw\n",
            ".svg",
        ),
        (("remove", "Nobody", "--db", url), None, "no operator Nobody"),
        (("log", "--since", "yesterday", "--db", url), None, "--since"),
        (("add", "Bo", "--db", url), "", "--password-stdin"),
    ):
        result = cli(*args, stdin=stdin)
        assert result.exit_code == 2, (args, result.output)
        [line] = result.output.strip().splitlines()[-1:]
        assert line.startswith("error:") and words in line, (args, result.output)
        assert "Traceback" not in result.output


def test_the_floor_report(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from cardroom.app.operators.log import Actor
    from cardroom.app.operators.players import Players
    from cardroom.web.app import create_app
    from cardroom.web.edges import HouseEdges, analyser_means
    from tests.web.conftest import Web, cheap_sessions

    path = tmp_path / "room.sqlite3"
    with Database.open(path=path) as db:
        web = Web(
            create_app(db, house_edges=HouseEdges(analyser_means, in_process=True)),
            db,
            HouseEdges(analyser_means, in_process=True),
            cheap_sessions(db),
        )
        ann = web.person("Ann")
        for _ in range(5):
            ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "20", "tie": "10"}})
        ann.post("/api/games/baccarat27/rounds", {"bets": {"banker": "10"}})
        Players(db).note(Actor(None, "Olga", "10.0.0.1"), 1, "called about her limits")
    today = datetime.now(UTC).date()
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "report",
            "floor",
            "--from",
            str(today),
            "--to",
            str(today + timedelta(days=1)),
            "--db",
            f"sqlite:///{path}",
            "--out",
            str(out),
            "--game",
            "punto-banco",
        ],
    )
    assert result.exit_code == 0, result.output
    stem = out / f"floor-{today:%Y%m%d}-{today + timedelta(days=1):%Y%m%d}-punto-banco"
    html = stem.with_suffix(".html").read_text()
    assert "Floor report" in html and "punto-banco" in html and "baccarat27" not in html
    assert "called about her limits" in html
    assert stem.with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    rows = stem.with_suffix(".csv").read_text().splitlines()
    assert "game,punto-banco,,staked,150" in rows
    assert "wager,punto-banco,tie,rounds,5" in rows
    assert any(r.startswith("integrity,web:punto-banco,tie,z,") for r in rows)
    assert any(r.startswith("log,account:1,note,") for r in rows)
    bad = runner.invoke(app, ["report", "floor", "--from", str(today), "--to", str(today)])
    assert bad.exit_code == 2 and "--to must come after --from" in bad.output
