"""The audit export on both databases: written, verified with every round replayed,
and each kind of tampering named with its line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import func, select

from cardroom.app.audit_export import (
    EXPORTED,
    ExportInputError,
    Period,
    VerifyFailed,
    export,
    verify,
    writer,
)
from cardroom.app.audit_export.canonical import FormatError, canonical, parse_line
from cardroom.storage import Database
from tests.app.audit_export.rooms import fill, lines_of, rechain

NOW = datetime.now(UTC)
TODAY = Period(NOW - timedelta(days=1), NOW + timedelta(days=1))


def failure(path: Path, key: Ed25519PrivateKey) -> VerifyFailed:
    with pytest.raises(VerifyFailed) as caught:
        verify(path, key.public_key())
    return caught.value


def test_an_export_verifies_and_holds_every_row_of_the_period(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rounds = fill(db)
    monkeypatch.setattr(writer, "BATCH", 2)  # the tables' cursors fetch batch by batch
    key = Ed25519PrivateKey.generate()
    out = tmp_path / "export.jsonl"
    summary = export(db, TODAY, key, out)
    with db.read() as conn:
        expected = {
            t.kind: conn.execute(select(func.count()).select_from(t.table)).scalar_one()
            for t in EXPORTED
        }
    assert summary.counts == expected and expected["round"] == rounds
    assert min(expected.values()) >= 1
    verified = verify(out, key.public_key())
    assert dict(verified.counts) == expected and verified.replayed == rounds
    assert verified.lines == summary.lines == sum(expected.values()) + 2
    assert verified.database == db.dialect
    lines = [json.loads(line) for line in lines_of(out)]
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "end"
    order = [(line["row"]["created_at"], line["table"], line["row"]["id"]) for line in lines[1:-1]]
    assert order == sorted(order) and len(set(order)) == len(order)
    # money is whole cents
    ledger = [line["row"] for line in lines if line.get("kind") == "ledger"]
    assert all(isinstance(row["amount"], int) for row in ledger)
    # a period with nothing in it is an export of no rows, and verifies
    empty = tmp_path / "empty.jsonl"
    export(db, Period(NOW - timedelta(days=9), NOW - timedelta(days=8)), key, empty)
    assert sum(verify(empty, key.public_key()).counts.values()) == 0
    assert len(lines_of(empty)) == 2


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ed25519PrivateKey]:
    """One export on SQLite, for the tampering tests (a file is a file, whatever wrote it)."""
    folder = tmp_path_factory.mktemp("export")
    key = Ed25519PrivateKey.generate()
    with Database.open(path=folder / "room.sqlite3") as db:
        fill(db)
        export(db, TODAY, key, folder / "export.jsonl")
    return folder / "export.jsonl", key


def test_a_changed_byte_is_named_with_its_line(
    exported: tuple[Path, Ed25519PrivateKey], tmp_path: Path
) -> None:
    path, key = exported
    data = path.read_bytes()
    starts = [0, *[i + 1 for i, b in enumerate(data) if b == ord("\n")][:-1]]
    ends = [data.index(b"\n", s) for s in starts]  # each line's \n
    tried = 0
    for number, (start, end) in enumerate(zip(starts, ends, strict=True), start=1):
        # the first byte, bytes inside (a key, the prev, a value), the last one, the \n;
        # every byte of the end line (the count, the kind, the head, the signature)
        inside = {start, start + 9, (start + end) // 2, end - 70, end - 1, end}
        if number == len(starts):
            inside = set(range(start, end + 1))
        for at in sorted(at for at in inside if start <= at <= end):
            for bit in (0x01, 0x20):
                changed = bytearray(data)
                changed[at] ^= bit
                tampered = tmp_path / "tampered.jsonl"
                tampered.write_bytes(bytes(changed))
                failed = failure(tampered, key)
                assert failed.line == number, (at, bit, str(failed))
                tried += 1
    assert tried > 600


def test_a_payout_changed_and_signed_again_fails_the_signature_and_the_replay(
    exported: tuple[Path, Ed25519PrivateKey], tmp_path: Path
) -> None:
    path, key = exported
    lines = lines_of(path)
    number, line = next((n, x) for n, x in enumerate(lines, 1) if x.startswith(b'{"kind":"round"'))
    data = parse_line(line)
    record = json.loads(data["row"]["record"])
    record["wagers"][0]["net"] = str(int(float(record["wagers"][0]["net"])) + 100)
    data["row"]["record"] = json.dumps(record)
    lines[number - 1] = canonical(data)
    forger = Ed25519PrivateKey.generate()
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(rechain(lines, forger))
    # the chain holds, but not the signature under the operator's key
    failed = failure(forged, key)
    assert failed.line == len(lines) and "signature does not verify" in failed.message
    # with the forger's own key the round does not replay to its record
    failed = failure(forged, forger)
    assert failed.line == number and "does not replay" in failed.message
    assert "the payouts are" in failed.message
    # the same rows signed again by the forger: theirs, not the operator's
    resigned = tmp_path / "resigned.jsonl"
    resigned.write_bytes(rechain(lines_of(path), forger))
    assert verify(resigned, forger.public_key()).replayed == 6
    failed = failure(resigned, key)
    assert failed.line == len(lines) and "signature does not verify" in failed.message


def test_lines_removed_added_or_reordered(
    exported: tuple[Path, Ed25519PrivateKey], tmp_path: Path
) -> None:
    path, key = exported
    lines = lines_of(path)
    cases = {
        # (the line before a gap is named: the next line's prev no longer matches it)
        "dropped": ([*lines[:3], *lines[4:]], 3),
        "swapped": ([*lines[:3], lines[4], lines[3], *lines[5:]], 4),
        "no end": (lines[:-1], len(lines)),
        "after the end": ([*lines, lines[-1]], len(lines) + 1),
    }
    for name, (changed, line) in cases.items():
        tampered = tmp_path / f"{name}.jsonl"
        tampered.write_bytes(b"".join(x + b"\n" for x in changed))
        assert failure(tampered, key).line == line, name
    # swapped and chained again by a forger: out of order, before the signature
    swapped = rechain([*lines[:3], lines[4], lines[3], *lines[5:]], key)
    tampered = tmp_path / "swapped.jsonl"
    tampered.write_bytes(swapped)
    failed = failure(tampered, key)
    assert failed.line == 5 and "out of order" in failed.message


def test_a_line_is_canonical_json_with_no_floats() -> None:
    assert canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()
    with pytest.raises(FormatError, match="float"):
        canonical({"amount": 1.5})
    for line, words in (
        (b'{"a": 1}', "canonical"),
        (b'{"b":1,"a":2}', "canonical"),
        (b'{"a":1.5}', "not whole"),
        (b'{"a":NaN}', "not JSON"),
        (b"[1]", "object"),
        (b'{"a":"\xff"}', "UTF-8"),
        (b'{"a":1', "not JSON"),
        (b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'{"a":' + b"9" * 100_000 + b"}", "a number too long"),
    ):
        with pytest.raises(FormatError, match=words):
            parse_line(line)


def test_a_period_the_wrong_way_round_is_refused() -> None:
    with pytest.raises(ExportInputError, match="wrong way"):
        Period.parse("2026-11-29", "2026-11-01")
    with pytest.raises(ExportInputError, match="wrong way"):
        Period.parse("2026-11-29", "2026-11-29")
    with pytest.raises(ExportInputError, match="--to is a date"):
        Period.parse("2026-11-01", "tomorrow")
    assert Period.parse("2026-11-01", "2026-11-29T12:00+02:00").end.hour == 10
