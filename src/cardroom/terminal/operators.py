"""``cardroom operator``: add, remove and list the people who run the room, and export
their log.

Adding an operator asks for their password (twice at a terminal, or one line on
standard input with ``--password-stdin``), and shows their TOTP secret once: as text,
as a QR code drawn in the terminal, and with ``--qr FILE.svg`` as an SVG file, for
their authenticator app.
"""

from __future__ import annotations

import getpass
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from argon2 import PasswordHasher
from argon2.profiles import RFC_9106_LOW_MEMORY
from rich.console import Console
from rich.table import Table

from cardroom.app.operators.log import Actor, OperatorLog
from cardroom.app.operators.report import build_report, integrity_rows, report_csv, report_html
from cardroom.app.operators.staff import Staff, provisioning_uri, qr_svg, qr_text
from cardroom.app.par_page import check_report_deps, write_pdf
from cardroom.app.sessions import check_password_text
from cardroom.core.textfile import path_reason, shown_path
from cardroom.games import GAMES
from cardroom.storage import Database
from cardroom.terminal.common import check_output_file, fail, open_database
from cardroom.terminal.report import prepare_folder

__all__ = ["add", "list_operators", "log", "remove"]


def _open(db_url: str | None, *, create: bool = False) -> Database:
    """The room's database; only ``add`` (``create``) makes a new SQLite file: a command
    that reads or removes refuses one that is not there (it would make an empty room
    and report on it)."""
    if db_url is not None:
        return Database.open(db_url, create=create)
    return open_database(None, create=create)


def _actor() -> Actor:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "?"
    return Actor(None, f"command line ({user})", "-")


def _password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        return check_password_text(line.rstrip("\r\n"))
    if not sys.stdin.isatty():
        fail(
            "give the password at a terminal, or as one line on standard input "
            "with --password-stdin"
        )
    first = getpass.getpass("Password: ")
    check_password_text(first)
    if getpass.getpass("Password again: ") != first:
        fail("the two passwords differ")
    return first


def add(name: str, admin: bool, db_url: str | None, password_stdin: bool, qr: Path | None) -> None:
    """Add the operator and show their secret.  ``--qr``'s file is checked before
    anything is asked or added; should it still fail to be written, the secret is shown
    all the same (it is shown only this once), and then the error."""
    if qr is not None:
        if qr.suffix.lower() != ".svg":
            fail("--qr writes an SVG file: give it a name ending in .svg")
        check_output_file(qr, "--qr", (".svg",))
    password = _password(password_stdin)
    hashed = PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY).hash(password)
    with _open(db_url, create=True) as db:
        operator, secret = Staff(db).add(name, hashed, "admin" if admin else "operator", _actor())
    qr_failed = ""  # (why the QR code's file could not be written)
    if qr is not None:
        try:
            qr.write_text(qr_svg(operator.name, secret), encoding="utf-8")
        except OSError as err:
            qr_failed = f"--qr: cannot write {shown_path(qr)}: {path_reason(err)}"
    console = Console(highlight=False)
    console.print(f"{operator.role.capitalize()} {operator.name} added.")
    console.print("Their TOTP secret, shown this once (put it in an authenticator app):")
    console.print(f"  {secret}")
    console.print(f"  {provisioning_uri(operator.name, secret)}", soft_wrap=True)
    console.print(qr_text(operator.name, secret), end="")
    if qr_failed:
        fail(f"{qr_failed} ({operator.name} was added: the secret above is theirs)")
    if qr is not None:
        console.print(f"The QR code is also in {qr}.")


def remove(name: str, db_url: str | None, reason: str) -> None:
    with _open(db_url) as db:
        gone = Staff(db).remove(name, _actor(), reason or "removed")
    print(f"{gone.name} can no longer sign in; their sessions have ended.")


def list_operators(db_url: str | None, removed: bool) -> None:
    with _open(db_url) as db:
        people = Staff(db).all(removed=removed)
    if not people:
        print("No operators yet: add one with `cardroom operator add NAME --admin`.")
        return
    table = Table("name", "role", "added", "removed", box=None)
    for person in people:
        table.add_row(
            person.name,
            person.role,
            person.created_at.strftime("%Y-%m-%d %H:%M"),
            "" if person.removed_at is None else person.removed_at.strftime("%Y-%m-%d %H:%M"),
        )
    Console(highlight=False).print(table)


def _when(text: str, option: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        fail(
            f"{option} is a date or time such as 2026-11-29 or 2026-11-29T12:00, not {text[:40]!r}"
        )
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def log(db_url: str | None, since: str, until: str | None, as_json: bool) -> None:
    start = _when(since, "--since")
    end = None if until is None else _when(until, "--until")
    if end is not None and end <= start:
        fail("--until comes before --since: give a period that ends after it starts")
    with _open(db_url) as db:
        entries = OperatorLog(db).since(start, end)
    if as_json:
        print(json.dumps([e.as_json() for e in entries], ensure_ascii=False, indent=1))
        return
    for entry in entries:
        target = f" {entry.target}" if entry.target else ""
        print(
            f"{entry.created_at:%Y-%m-%d %H:%M:%S} {entry.operator} ({entry.address}): "
            f"{entry.action}{target}: {entry.reason}"
        )
    if not entries:
        print("Nothing in the log in that period.")


def floor_report(
    db_url: str | None, since: str | None, until: str | None, game: str | None, out: Path
) -> None:
    """``cardroom report floor``: the period's report as HTML, PDF and CSV in ``out``."""
    if since is None or until is None:
        fail("report floor needs --from DATE and --to DATE")
    start = _when(since, "--from")
    end = _when(until, "--to")
    if end <= start:
        fail("--to must come after --from")
    if game is not None and game not in GAMES:
        fail(f"there is no game {game[:40]!r}: see `cardroom games`")
    try:
        check_report_deps()
    except ValueError as err:
        fail(str(err))
    with _open(db_url) as db:  # (before the folder is made: a database that is not there)
        prepare_folder(out)
        verdicts = integrity_rows(db, start, end)
        report = build_report(db, start, end, game, verdicts)
    stem = f"floor-{start:%Y%m%d}-{end:%Y%m%d}" + (f"-{game}" if game else "")
    html = report_html(report)
    (out / f"{stem}.html").write_text(html, encoding="utf-8")
    write_pdf(html, out / f"{stem}.pdf")
    (out / f"{stem}.csv").write_text(report_csv(report), encoding="utf-8")
    print(f"Wrote {out / stem}.html, .pdf and .csv: {report.period.total.rounds} rounds.")
