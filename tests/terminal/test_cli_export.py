"""``cardroom export``: keys made, a period exported and verified, a changed byte named
(exit 1), and every refusal one line, exit 2, nothing written."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cardroom.storage import Database
from cardroom.terminal.cli import app
from tests.app.audit_export.rooms import fill

runner = CliRunner()


def cli(*args: str) -> Result:
    return runner.invoke(app, ["export", *args])


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A database with rounds in it, and a key pair made by ``export keygen``."""
    folder = tmp_path_factory.mktemp("room")
    with Database.open(path=folder / "room.sqlite3") as db:
        fill(db)
    made = cli("keygen", "--out", str(folder / "op"))
    assert made.exit_code == 0, made.output
    assert "sha256:" in made.output
    return f"sqlite:///{folder / 'room.sqlite3'}", folder / "op"


def test_keygen_export_and_verify(room: tuple[str, Path], tmp_path: Path) -> None:
    url, keys = room
    private, public = Path(f"{keys}.key.pem"), Path(f"{keys}.pub.pem")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    again = cli("keygen", "--out", str(keys))  # a key is never overwritten
    assert again.exit_code == 2 and "exists already" in again.stderr
    out = tmp_path / "period.jsonl"
    period = ["--from", "2000-01-01", "--to", "2100-01-01", "--out", str(out)]
    done = cli(*period)
    assert done.exit_code == 2 and "--key" in done.stderr and not out.exists()
    done = cli(*period, "--key", str(private), "--db", url)
    assert done.exit_code == 0, done.output
    assert "round 6," in done.output and "Signed by sha256:" in done.output
    checked = cli("verify", str(out), "--key", str(public))
    assert checked.exit_code == 0, checked.output
    assert "Verified:" in checked.output and "6 rounds replayed" in checked.output
    # one byte changed in the fourth line: exit 1, the line named, on one line
    data = bytearray(out.read_bytes())
    fourth = [i for i, b in enumerate(data) if b == ord("\n")][2] + 1
    data[fourth + 30] ^= 0x01
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(bytes(data))
    failed = cli("verify", str(changed), "--key", str(public))
    assert failed.exit_code == 1
    assert failed.output.startswith("line 4: ") and failed.output.count("\n") == 1


def test_refusals_are_one_line_and_write_nothing(room: tuple[str, Path], tmp_path: Path) -> None:
    url, keys = room
    private, public = f"{keys}.key.pem", f"{keys}.pub.pem"
    out = tmp_path / "out.jsonl"
    existing = tmp_path / "there.jsonl"
    existing.write_text("mine\n")
    period = ["--from", "2026-11-01", "--to", "2026-12-01"]
    to_out = ["--out", str(out)]
    signed = ["--key", private, "--db", url]
    for args, words in (
        (["--from", "2026-12-01", "--to", "2026-11-01", *to_out, *signed], "wrong way"),
        (["--from", "2026-11-01", "--to", "2026-11-01", *to_out, *signed], "wrong way"),
        (["--from", "last week", "--to", "2026-11-01", *to_out, *signed], "--from is a date"),
        ([*period, *to_out, "--key", public, "--db", url], "not an unencrypted private key"),
        ([*period, *to_out, "--key", str(tmp_path / "none.pem")], "no key file"),
        ([*period, "--out", str(existing), *signed], "exists already"),
        ([*period, "--out", str(tmp_path / "no" / "x.jsonl"), *signed], "no folder"),
        (
            [*period, *to_out, "--key", private, "--db", f"sqlite:///{tmp_path / 'none.db'}"],
            "no database",
        ),
        ([*period, "verify", str(out), "--key", public], "for the export itself"),
        (["verify", str(tmp_path / "none.jsonl"), "--key", public], "no export file"),
        (["verify", str(existing), "--key", private], "not a public key"),
        (["verify", str(existing)], "--key"),
    ):
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, args
        assert words in result.stderr, (args, result.stderr)
    assert not out.exists() and existing.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["there.jsonl"]
    # a file that is not an export at all does not verify (exit 1), on its first line
    result = cli("verify", str(existing), "--key", public)
    assert result.exit_code == 1 and result.output.startswith("line 1: not JSON")
