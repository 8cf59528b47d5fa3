"""Today's bankroll files (cardroom.bankroll_file, schema 1 and 2) upgrade in place."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from cardroom.app.wallet import StoredRound, Wallet
from cardroom.storage import Database, StorageError
from cardroom.storage.migrations.legacy_0001 import MEMO
from tests.storage.legacy_files import finished_round, schema_1_file
from tests.storage.legacy_writer import HistoryEntry, Storage
from tests.storage.workers import run_together


def dump(path: Path, tables: list[str]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``tables``, read with sqlite3 itself."""
    db = sqlite3.connect(path)
    try:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}
    finally:
        db.close()


def old_rows(path: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in db.execute("SELECT * FROM legacy_rounds ORDER BY id")]
    finally:
        db.close()


def all_rounds(wallet: Wallet) -> list[StoredRound]:
    found = [r for a in wallet.accounts.all() for r in wallet.rounds.latest(a.id, limit=1000)]
    return sorted(found, key=lambda r: r.id)


def bankroll_file(path: Path) -> Path:
    """A file as today's code writes it: the default bankroll, two named ones, rounds."""
    with Storage(path) as store:
        record, labels = finished_round(
            "As Kd 5h 6c 9s 8d 7c", {"player": Fraction(10), "dealer": Fraction(20)}
        )
        store.save_round(record, labels=labels, rules_file="variant.toml")
        store.set_balance(Fraction(50), person="Ann")
        record, labels = finished_round(
            "Kh 3c Qd 4s 5h", {"banker": Fraction(25, 2)}, game_id="punto-banco"
        )
        # 19:20 on 12.50 is 95/8: cardroom paid such payouts exactly before tables had a
        # money unit, so older files hold fractions of a cent
        entry = HistoryEntry("punto-banco", Fraction(95, 8), record, person="ANN", labels=labels)
        store.save_entries([entry])
        store.save_entries(
            [
                HistoryEntry("chemin-de-fer", Fraction(20), {"coup": 1}, person="Bob"),
                HistoryEntry("chemin-de-fer", Fraction(-5), {"coup": 1}),
            ]
        )
    return path


def test_a_bankroll_file_of_today_upgrades_with_nothing_lost(tmp_path: Path) -> None:
    path = bankroll_file(tmp_path / "cardroom.sqlite3")
    with Storage(path) as store:
        balances = {"You": store.balance(), **store.people()}
        count = store.count_rounds(entries=True) + sum(
            store.count_rounds(person=p, entries=True) for p in store.people()
        )
    assert balances == {"You": 1001, "Ann": 50 + Fraction(95, 8), "Bob": 1020}
    before = dump(path, ["meta", "bankroll", "people", "rounds"])

    with Database.open(path=path) as db:
        wallet = Wallet(db)
        accounts = {a.name: a for a in wallet.accounts.all()}
        # 61.875 has a part of a cent: 61.87 is kept, and the memo says what was left out
        assert {name: a.balance for name, a in accounts.items()} == {
            "You": 1001,
            "Ann": Fraction(6187, 100),
            "Bob": 1020,
        }
        for account in accounts.values():
            [deposit] = wallet.books.ledger(account.id)
            assert deposit.kind == "deposit" and deposit.amount == account.balance
            assert deposit.memo.startswith(MEMO)
            wallet.books.audit(account.id)
        assert (
            "61.875, 0.005 below a cent is left out"
            in wallet.books.ledger(accounts["Ann"].id)[0].memo
        )

        rounds = all_rounds(wallet)
        olds = old_rows(path)
        assert len(rounds) == len(olds) == count == 5
        owners = {a.id: name for name, a in accounts.items()}
        for new, old in zip(rounds, olds, strict=True):
            assert new.id == old["id"] and new.game == old["game"]
            assert new.status == "finished" and new.state is None
            assert new.stakes == {} and new.paid == {}  # their money is in the deposit
            assert new.created_at == datetime.fromisoformat(old["played_at"]).astimezone(UTC)
            assert owners[new.account_id] == {None: "You", "ANN": "Ann"}.get(
                old["person"], old["person"]
            )
            expected = {**old, "labels": json.loads(old["labels"])}
            expected["record"] = json.loads(old["record"])
            assert new.record == {"version": 0, "legacy": expected}
        first = rounds[0].record
        assert first is not None and first["legacy"]["rules_file"] == "variant.toml"
        assert first["legacy"]["labels"] == {"player": "hard 23", "dealer": "hard 26"}

    # the old tables are all there, renamed and untouched
    after = dump(path, ["legacy_meta", "legacy_bankroll", "legacy_people", "legacy_rounds"])
    assert list(after.values()) == list(before.values())


def test_a_schema_1_file_upgrades(tmp_path: Path) -> None:
    path = schema_1_file(tmp_path / "old.sqlite3")
    with Database.open(path=path) as db:
        wallet = Wallet(db)
        [you] = wallet.accounts.all()
        assert (you.name, you.balance) == ("You", Fraction(2031, 2))
        [old] = wallet.rounds.latest(you.id)
        assert old.game == "finnish27" and old.status == "finished"
        assert old.record == {
            "version": 0,
            "legacy": {
                "id": 1,
                "game": "finnish27",
                "played_at": "2024-01-01T00:00:00+00:00",
                "balance_before": "1000",
                "balance_after": "2031/2",
                "rules_file": None,
                "labels": {},
                "record": {"events": []},
            },
        }
        assert old.created_at == datetime(2024, 1, 1, tzinfo=UTC)
        wallet.books.audit(you.id)


def test_opening_an_upgraded_file_again_brings_nothing_over_twice(tmp_path: Path) -> None:
    path = bankroll_file(tmp_path / "c.sqlite3")
    Database.open(path=path).close()
    with Database.open(path=path) as db:
        wallet = Wallet(db)
        assert len(wallet.accounts.all()) == 3
        assert len(all_rounds(wallet)) == 5
        assert all(len(wallet.books.ledger(a.id)) == 1 for a in wallet.accounts.all())


def test_two_processes_upgrading_one_file_at_once_bring_it_over_once(tmp_path: Path) -> None:
    path = bankroll_file(tmp_path / "c.sqlite3")
    url = f"sqlite:///{path}"
    assert len(run_together([["open", url], ["open", url]])) == 2
    with Database.open(path=path) as db:
        wallet = Wallet(db)
        assert sorted(a.name for a in wallet.accounts.all()) == ["Ann", "Bob", "You"]
        assert len(all_rounds(wallet)) == 5


def test_names_that_the_new_schema_would_match_get_a_suffix(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with Storage(path) as store:
        store.set_balance(Fraction(7), person="you")  # beside the default "You"
        store.set_balance(Fraction(8), person="Äni")
        store.set_balance(Fraction(9), person="äni")  # two bankrolls to SQLite's NOCASE
        store.balance()
    with Database.open(path=path) as db:
        wallet = Wallet(db)
        balances = {a.name: a.balance for a in wallet.accounts.all()}
        assert balances == {"You": 1000, "you (2)": 7, "Äni": 8, "äni (2)": 9}
        renamed = wallet.accounts.account("you (2)")
        assert renamed is not None
        assert "its bankroll 'you'" in wallet.books.ledger(renamed.id)[0].memo


def test_a_bankroll_file_that_cannot_be_upgraded_is_left_alone(tmp_path: Path) -> None:
    newer = schema_1_file(tmp_path / "newer.sqlite3")
    other = schema_1_file(tmp_path / "other.sqlite3")
    damaged = schema_1_file(tmp_path / "damaged.sqlite3")
    for path, sql in [
        (newer, "UPDATE meta SET value = '3' WHERE key = 'schema'"),
        (other, "UPDATE meta SET value = 'someone' WHERE key = 'app'"),
        (damaged, "UPDATE bankroll SET balance = 'lots'"),
    ]:
        db = sqlite3.connect(path)
        db.execute(sql)
        db.commit()
        db.close()
    tables = ["meta", "bankroll", "rounds"]
    for path, message in [
        (newer, "written by a newer cardroom (schema 3)"),
        (other, "some other program"),
        (damaged, "holds 'lots' where a bankroll should be"),
    ]:
        before = dump(path, tables)
        with pytest.raises(StorageError, match=re.escape(message)) as caught:
            Database.open(path=path)
        assert "\n" not in str(caught.value)
        assert dump(path, tables) == before  # the failed upgrade rolled back
