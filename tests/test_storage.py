"""The bankroll file: exact money, rounds saved with the bankroll in one transaction."""

from __future__ import annotations

import sqlite3
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import pytest

from cardroom.bankroll_file import START_BANKROLL, HistoryEntry, Storage, StorageError, default_path
from cardroom.core.cards import parse_cards
from cardroom.core.money import Ledger
from cardroom.core.shoe import StackedShoe
from cardroom.games import get_game
from cardroom.table import RoundRecord, Table
from cardroom.words import points_text


def finished_round(
    cards: str,
    wagers: dict[str, Fraction],
    balance: Fraction = START_BANKROLL,
    game_id: str = "finnish27",
) -> tuple[RoundRecord, dict[str, str]]:
    """A round of ``game_id`` dealt from ``cards`` at a table with a bankroll."""
    game = get_game(game_id)
    table = Table(game, game.load_rules(None), StackedShoe(parse_cards(cards)), Ledger(balance))
    rnd = table.play(wagers)
    return table.finish(rnd), {hand: points_text(p) for hand, p in rnd.points().items()}


def test_a_new_bankroll_starts_at_1000_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    with Storage(path) as store:
        assert store.balance() == Fraction(1000)
        store.set_balance(Fraction(1234))
    with Storage(path) as store:
        assert store.balance() == Fraction(1234)


def test_money_is_stored_exactly_as_text(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    with Storage(path) as store:
        store.set_balance(Fraction(1, 3))
    with Storage(path) as store:
        assert store.balance() == Fraction(1, 3)
    db = sqlite3.connect(path)
    try:
        kind, text = db.execute("SELECT typeof(balance), balance FROM bankroll").fetchone()
    finally:
        db.close()
    assert (kind, text) == ("text", "1/3")


def test_reset_and_refusing_a_negative_bankroll(tmp_path: Path) -> None:
    with Storage(tmp_path / "b.sqlite3") as store:
        store.set_balance(Fraction(5))
        with pytest.raises(StorageError, match="negative"):
            store.set_balance(Fraction(-1))
        assert store.balance() == Fraction(5)
        assert store.reset() == START_BANKROLL
        assert store.balance() == START_BANKROLL


def test_save_round_posts_the_net_and_keeps_the_record(tmp_path: Path) -> None:
    # Player As 5h 9s 8d = 23, dealer Kd 6c 7c = 26: the dealer wins.
    record, labels = finished_round(
        "As Kd 5h 6c 9s 8d 7c", {"player": Fraction(10), "dealer": Fraction(20)}
    )
    assert record.net == {"player": Fraction(-10), "dealer": Fraction(16)}
    with Storage(tmp_path / "b.sqlite3") as store:
        saved = store.save_round(record, labels=labels, rules_file="variant.toml")
        assert store.balance() == Fraction(1006)
        assert (saved.balance_before, saved.balance_after) == (Fraction(1000), Fraction(1006))
        [again] = store.rounds()
    assert again.id == saved.id
    assert again.game == "finnish27"
    assert again.net == Fraction(6)
    assert again.labels == {"player": "hard 23", "dealer": "hard 26"}
    assert again.rules_file == "variant.toml"
    assert again.record["net"] == {"player": -10, "dealer": 16}
    assert again.record["balance_after"] == 1006
    assert [e["card"] for e in again.record["events"] if e["event"] == "card"] == [
        "As",
        "Kd",
        "5h",
        "6c",
        "9s",
        "8d",
        "7c",
    ]
    data = again.to_dict()
    assert data["balance_before"] == 1000 and data["balance_after"] == 1006


def test_a_fractional_net_stays_exact(tmp_path: Path) -> None:
    record, _ = finished_round("As Kd 5h 6c 9s 8d 7c", {"dealer": Fraction(25, 2)})
    with Storage(tmp_path / "b.sqlite3") as store:
        saved = store.save_round(record)
        assert store.balance() == Fraction(1010)
        assert saved.record["net"] == {"dealer": 10}
        record, _ = finished_round("As Kd 5h 6c 9s 8d 7c", {"dealer": Fraction(11)})
        saved = store.save_round(record)
        assert saved.balance_after == Fraction(1010) + Fraction(44, 5)
        assert saved.to_dict()["balance_after"] == "5094/5"


def test_a_punto_banco_commission_and_baccarat27_side_wagers_stay_exact(tmp_path: Path) -> None:
    # banker 3c 4s = 7 beats player Kh Qd 5h = 5: 19:20 on 12.50 is 11.875 exactly; the
    # table pays it rounded down to the cent, 11.87, and keeps 0.005 of breakage
    banker_7 = "Kh 3c Qd 4s 5h"
    record, labels = finished_round(banker_7, {"banker": Fraction(25, 2)}, game_id="punto-banco")
    with Storage(tmp_path / "b.sqlite3") as store:
        saved = store.save_round(record, labels=labels)
        assert saved.record["net"] == {"banker": "1187/100"}
        [settled] = [e for e in saved.record["events"] if e["event"] == "settled"]
        assert settled["net"] == "11.87" and settled["breakage"] == "0.005"
        assert store.balance() == Fraction(1000) + Fraction(1187, 100)
        stakes = {"banker": Fraction(10), "b27": Fraction(20), "player_pair": Fraction(10)}
        record, labels = finished_round(banker_7, stakes, game_id="baccarat27")
        store.save_round(record, labels=labels)
        first, second = store.rounds()
    assert (first.game, second.game) == ("punto-banco", "baccarat27")
    assert first.labels == second.labels == {"player": "5", "banker": "7"}
    assert first.record["summary"]["totals"] == {"player": 5, "banker": 7}
    assert second.record["net"] == {"banker": 5, "b27": 160, "player_pair": -10}
    assert second.balance_before == first.balance_after
    assert second.balance_after == Fraction(1000) + Fraction(1187, 100) + 155
    assert second.to_dict()["balance_after"] == "116687/100"
    assert [e["event"] for e in second.record["events"]].count("decision") == 2


def test_the_bankroll_moves_from_what_the_file_holds(tmp_path: Path) -> None:
    """Another command changed the bankroll during the round: its change is kept."""
    record, _ = finished_round("As 5h Kd 6c", {"player": Fraction(10)})
    with Storage(tmp_path / "b.sqlite3") as store:
        store.set_balance(Fraction(500))
        saved = store.save_round(record)
        assert saved.balance_before == Fraction(500)
        assert store.balance() == Fraction(515)
        assert saved.record["balance_before"] == 500


def test_a_failed_save_changes_nothing(tmp_path: Path) -> None:
    record, _ = finished_round("As 5h Kd 6c", {"player": Fraction(10)})
    with Storage(tmp_path / "b.sqlite3") as store:
        with pytest.raises(TypeError):
            store.save_round(record, labels={"player": object()})  # type: ignore[dict-item]
        assert store.balance() == START_BANKROLL
        assert store.count_rounds() == 0


def test_rounds_are_listed_oldest_first_limited_and_by_game(tmp_path: Path) -> None:
    with Storage(tmp_path / "b.sqlite3") as store:
        ids = []
        for stake in (10, 20, 30):
            record, _ = finished_round("As 5h Kd 6c", {"player": Fraction(stake)})
            ids.append(store.save_round(record).id)
        assert [r.id for r in store.rounds()] == ids
        assert [r.id for r in store.rounds(limit=2)] == ids[1:]
        assert store.rounds(game="21-24-27") == []
        assert store.count_rounds() == 3 and store.count_rounds("finnish27") == 3
        assert store.balance() == Fraction(1000 + 15 + 30 + 45)


def test_files_that_are_not_bankrolls_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("this is not a database at all, just some words " * 50)
    with pytest.raises(StorageError, match="not a cardroom bankroll file"):
        Storage(text)
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE accounts (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="some other program"):
        Storage(other)
    with pytest.raises(StorageError, match="no bankroll file"):
        Storage(tmp_path / "missing.sqlite3", create=False)
    with pytest.raises(StorageError, match="cannot open"):
        Storage(tmp_path / "no" / "such" / "dir" / "b.sqlite3")


def test_the_default_file_is_in_the_user_data_dir() -> None:
    path = default_path()
    assert path.name == "cardroom.sqlite3"
    assert "cardroom" in path.parent.as_posix()


# -- named bankrolls ---------------------------------------------------------------------------
# A file as cardroom wrote it before named bankrolls (schema 1), with one saved round.
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bankroll (
    id INTEGER PRIMARY KEY CHECK (id = 1), balance TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE rounds (
    id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, played_at TEXT NOT NULL,
    balance_before TEXT NOT NULL, balance_after TEXT NOT NULL, rules_file TEXT,
    labels TEXT NOT NULL, record TEXT NOT NULL
);
CREATE INDEX rounds_by_game ON rounds (game, id);
INSERT INTO meta VALUES ('app', 'cardroom'), ('schema', '1');
INSERT INTO bankroll VALUES (1, '2031/2', '2024-01-01T00:00:00+00:00');
INSERT INTO rounds (game, played_at, balance_before, balance_after, rules_file, labels, record)
VALUES ('finnish27', '2024-01-01T00:00:00+00:00', '1000', '2031/2', NULL, '{}', '{"events": []}');
"""


def schema_1_file(path: Path) -> Path:
    db = sqlite3.connect(path)
    try:
        db.executescript(SCHEMA_1)
        db.commit()
    finally:
        db.close()
    return path


def test_an_old_file_keeps_its_bankroll_and_rounds_and_gains_named_bankrolls(
    tmp_path: Path,
) -> None:
    path = schema_1_file(tmp_path / "old.sqlite3")
    with Storage(path) as store:
        assert store.balance() == Fraction(2031, 2)
        [old] = store.rounds()
        assert old.game == "finnish27" and old.person is None and old.net == Fraction(31, 2)
        assert store.count_rounds() == 1 and store.count_rounds(person="Ann") == 0
        assert store.balance("Ann") == START_BANKROLL
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("2",)
    finally:
        db.close()
    with Storage(path) as store:  # opened again: already up to date
        assert store.balance() == Fraction(2031, 2) and store.people() == {"Ann": START_BANKROLL}


def test_a_file_from_a_newer_cardroom_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with Storage(path):
        pass
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="newer cardroom"):
        Storage(path)


def test_named_bankrolls_are_separate_and_matched_without_case(tmp_path: Path) -> None:
    with Storage(tmp_path / "b.sqlite3") as store:
        assert store.balance("Ann") == START_BANKROLL
        store.set_balance(Fraction(25, 2), person="ann")
        store.set_balance(Fraction(300), person="Bob")
        assert store.balance("ANN") == Fraction(25, 2) and store.balance() == START_BANKROLL
        assert store.people() == {"Ann": Fraction(25, 2), "Bob": Fraction(300)}
        assert store.spelling("bob") == "Bob" and store.spelling("Cid") == "Cid"
        assert store.reset("Bob") == START_BANKROLL and store.balance("Bob") == START_BANKROLL
        for bad in ("", "  ", "Ann,Bob", "x" * 41):
            with pytest.raises(StorageError, match="name"):
                store.balance(bad)


def test_entries_of_several_people_are_saved_in_one_transaction(tmp_path: Path) -> None:
    with Storage(tmp_path / "b.sqlite3") as store:
        store.set_balance(Fraction(500), person="Bob")
        saved = store.save_entries(
            [
                HistoryEntry("chemin-de-fer", Fraction(20), {"coup": 1}, person="Ann"),
                HistoryEntry("chemin-de-fer", Fraction(-41, 2), {"coup": 1}, person="Bob"),
                HistoryEntry("chemin-de-fer", Fraction(0), {"coup": 1}),
            ]
        )
        assert [(s.person, s.balance_before, s.balance_after) for s in saved] == [
            ("Ann", 1000, 1020),
            ("Bob", 500, Fraction(959, 2)),
            (None, 1000, 1000),
        ]
        assert saved[1].record == {"coup": 1, "balance_before": 500, "balance_after": "959/2"}
        assert store.balance("Ann") == 1020 and store.balance("Bob") == Fraction(959, 2)
        [bob] = store.rounds(person="BOB", game="chemin-de-fer")
        assert bob.person == "Bob" and bob.net == Fraction(-41, 2)
        assert store.count_rounds("chemin-de-fer", person="Ann") == 1
        assert store.count_rounds("finnish27", person="Ann") == 0
        # a bad entry anywhere: nothing of the coup is saved
        with pytest.raises(StorageError):
            store.save_entries(
                [
                    HistoryEntry("chemin-de-fer", Fraction(5), {"coup": 2}, person="Ann"),
                    HistoryEntry("chemin-de-fer", Fraction(5), {"coup": 2}, person="A,B"),
                ]
            )
        assert store.balance("Ann") == 1020 and store.count_rounds(person="Ann") == 1


def test_setting_a_bankroll_is_in_the_history_so_the_history_adds_up(tmp_path: Path) -> None:
    with Storage(tmp_path / "b.sqlite3") as store:
        store.save_entries([HistoryEntry("finnish27", Fraction(15), {"round": 1})])
        store.set_balance(Fraction(4001, 4))
        store.save_entries([HistoryEntry("finnish27", Fraction(-10), {"round": 2})])
        store.reset()
        entries = store.rounds(limit=100)
        assert [e.game for e in entries] == ["finnish27", "bankroll", "finnish27", "bankroll"]
        assert [e.record.get("change") for e in entries] == [None, "set", None, "reset"]
        assert entries[1].balance_before == 1015 and entries[1].balance_after == Fraction(4001, 4)
        # every balance follows from the one before it and the entry's net
        for earlier, later in pairwise(entries):
            assert later.balance_before == earlier.balance_after
        assert START_BANKROLL + sum(e.net for e in entries) == store.balance() == 1000
