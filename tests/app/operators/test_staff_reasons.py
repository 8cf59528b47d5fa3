"""An operator's reason is one printable line the log keeps: the command line's operator
actions check it as the web's do (a control character could rewrite the log's lines on
the terminal that shows them; a reason without end would be kept whole)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from cardroom.app.operators.staff import Staff, StaffError
from cardroom.storage import Database
from cardroom.storage.schema import operator_log
from tests.terminal.test_cli_operator import cli

BAD = {
    "escape": "left\x1b[31m",
    "a line of its own": "left\x1b[2K\rremove operator: all is well",
    "turned around": "left \u202edlrow",
    "too long": "x" * 100_000,
}


@pytest.mark.parametrize("reason", BAD.values(), ids=BAD.keys())
def test_a_reason_that_is_not_one_printable_line_is_refused(tmp_path: Path, reason: str) -> None:
    with Database.open(path=tmp_path / "room.sqlite3") as db:
        staff = Staff(db)
        staff.add("Olga", "(hash)")
        with pytest.raises(StaffError, match="a reason"):
            staff.add("Oskar", "(hash)", reason=reason)
        with pytest.raises(StaffError, match="a reason"):
            staff.remove("Olga", reason=reason)
        assert [o.name for o in staff.all()] == ["Olga"]
        with db.read() as conn:
            assert conn.execute(select(func.count()).select_from(operator_log)).scalar() == 1
    url = f"sqlite:///{tmp_path / 'room.sqlite3'}"
    refused = cli("remove", "Olga", "--db", url, "--reason", reason)
    assert refused.exit_code == 2, refused.output
    [line] = refused.output.strip().splitlines()
    assert line.startswith("error: a reason") and "Traceback" not in refused.output


def test_a_reason_s_spaces_and_lines_are_folded_into_one(tmp_path: Path) -> None:
    with Database.open(path=tmp_path / "room.sqlite3") as db:
        staff = Staff(db)
        staff.add("Olga", "(hash)", reason="  hired\n  for the  night shift ")
        with db.read() as conn:
            kept = conn.execute(select(operator_log.c.reason)).scalar()
        assert kept == "hired for the night shift"
