"""``cardroom export``: the audit export written, its keys made, and an export verified
(:mod:`cardroom.app.audit_export`; the format in ``docs/export.md``).

Everything asked is checked before any work (the dates, the period's direction, the
key, the file to write), so a refusal is one line, exit status 2, and changes nothing.
A verification that fails says its first bad line, ``line N: what``, and exits with
status 1.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from cardroom.app.audit_export import (
    ExportInputError,
    KeyFileError,
    Period,
    VerifyFailed,
    export,
    load_private,
    load_public,
    verify,
    write_new_key,
)
from cardroom.app.audit_export.writer import check_out_path
from cardroom.storage import Database, default_path
from cardroom.terminal.common import checking_path, fail, person_errors

__all__ = ["EXIT_FAILED", "keygen", "verify_file", "write_export"]

#: Exit status of an export that does not verify.
EXIT_FAILED = 1


def _open(db_url: str | None) -> Database:
    """The room's database, never made anew (an export only reads)."""
    if db_url is not None:
        return Database.open(db_url, create=False)
    return Database.open(path=default_path(), create=False)


def write_export(
    db_url: str | None, since: str | None, until: str | None, out: Path | None, key: Path | None
) -> None:
    """``cardroom export --from DATE --to DATE --out FILE --key PRIVATE.pem``."""
    if since is None or until is None or out is None or key is None:
        fail("export needs --from DATE, --to DATE, --out FILE and --key PRIVATE.pem")
    with person_errors(ExportInputError, KeyFileError):
        period = Period.parse(since, until)
        with checking_path(out, "--out"):
            check_out_path(out)
        private = load_private(key)
        with _open(db_url) as db:
            summary = export(db, period, private, out)
    kinds = ", ".join(f"{kind} {n}" for kind, n in summary.counts.items())
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"Wrote {summary.lines} lines to {summary.path}; rows by kind: {kinds}.")
    console.print(f"Signed by {summary.key}; the chain's head is {summary.head}.")


def keygen(prefix: Path) -> None:
    """``cardroom export keygen --out PREFIX``."""
    if not prefix.name:
        fail(
            "--out: give the start of the keys' file names, such as keys/room (for "
            "keys/room.key.pem and keys/room.pub.pem)"
        )
    with person_errors(KeyFileError), checking_path(prefix, "--out"):
        private, public, name = write_new_key(prefix)
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"The private key is in {private} (readable by you only): keep it secret.")
    console.print(f"The public key is in {public}: give it to whoever verifies the exports.")
    console.print(f"Its fingerprint: {name}")


def verify_file(path: Path, key: Path) -> None:
    """``cardroom export verify FILE --key PUBLIC.pem``."""
    with person_errors(KeyFileError):
        public = load_public(key)
        with checking_path(path, "FILE"):
            found = path.is_file()
    if not found:
        fail(f"there is no export file {str(path)!r}")
    try:
        verified = verify(path, public)
    except VerifyFailed as failed:
        print(str(failed), flush=True)
        raise typer.Exit(EXIT_FAILED) from None
    except OSError as err:
        fail(f"cannot read {str(path)!r}: {err.strerror or err}")
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(verified.counts.items())) or "no rows"
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(verified.not_replayed.items()))
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        f"Verified: {verified.lines} lines (rows by kind: {kinds}) from "
        f"{verified.period.start:%Y-%m-%d %H:%M:%S} to {verified.period.end:%Y-%m-%d %H:%M:%S} "
        f"UTC, signed by {verified.key}."
    )
    console.print(
        f"{verified.replayed} rounds replayed through their engines to the recorded outcome "
        f"and payouts{f'; not replayed: {skipped}' if skipped else ''}."
    )
