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
