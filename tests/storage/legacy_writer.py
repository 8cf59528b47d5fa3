"""How cardroom 0.1 wrote its bankroll file, kept to make such files for the upgrade tests.

This is the old ``cardroom.bankroll_file`` module as it was when the wallet replaced it
(``cardroom.storage`` upgrades these files in place); nothing in the package uses it.

The bankrolls and the history of played rounds, kept in one SQLite file.

Money is stored exactly, as the text of a :class:`~fractions.Fraction` (``"1000"``,
``"19/2"``), never as a float.  A finished round and the bankroll it leaves are
written in one transaction, so a session that stops at any moment loses nothing
but the round in progress (whose stakes were never taken).

One file holds the default person's bankroll (``person=None``: the one bankroll of
files from before named bankrolls) and any number of named ones (people taking turns
at one terminal); each starts at :data:`START_BANKROLL`.  Names are matched without
regard to case.  Every saved round belongs to one person.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp, Storage(Path(tmp) / "b.sqlite3") as store:
...     store.balance(), store.set_balance(Fraction(25, 2)), store.reset()
(Fraction(1000, 1), Fraction(25, 2), Fraction(1000, 1))
>>> with tempfile.TemporaryDirectory() as tmp, Storage(Path(tmp) / "b.sqlite3") as store:
...     store.set_balance(Fraction(50), person="Ann"), store.balance("ANN"), store.balance()
(Fraction(50, 1), Fraction(50, 1), Fraction(1000, 1))
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs

from cardroom.core.money import exact_json, format_amount

#: What a new bankroll starts with (and what ``cardroom bankroll --reset`` restores).
START_BANKROLL = Fraction(1000)

#: The history's "game" of an entry that sets or resets a bankroll (not a round).
BANKROLL_ENTRY = "bankroll"

#: Written to the ``meta`` table so cardroom never writes into somebody else's database.
APP_ID = "cardroom"
#: 1: one bankroll; 2: named bankrolls too (``people``) and ``rounds.person``.
SCHEMA_VERSION = 2

#: The named bankrolls (schema 2), and the index of each person's rounds.
_PEOPLE = """
CREATE TABLE IF NOT EXISTS people (
    name    TEXT PRIMARY KEY COLLATE NOCASE,
    balance TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rounds_by_person ON rounds (person COLLATE NOCASE, id);
"""

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bankroll (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    balance TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    game           TEXT NOT NULL,
    played_at      TEXT NOT NULL,
    balance_before TEXT NOT NULL,
    balance_after  TEXT NOT NULL,
    rules_file     TEXT,
    labels         TEXT NOT NULL,
    record         TEXT NOT NULL,
    person         TEXT
);
CREATE INDEX IF NOT EXISTS rounds_by_game ON rounds (game, id);
"""
    + _PEOPLE
)

#: Brings a schema 1 file (one bankroll) up to schema 2: its rounds are the default person's.
_MIGRATE_1_TO_2 = "ALTER TABLE rounds ADD COLUMN person TEXT;" + _PEOPLE


class StorageError(Exception):
    """The bankroll file cannot be opened, read or written."""


def default_path() -> Path:
    """``cardroom.sqlite3`` in the user's data directory (created on first use)."""
    return Path(platformdirs.user_data_dir("cardroom")) / "cardroom.sqlite3"


def money_to_text(value: Fraction) -> str:
    """How an amount is stored: ``"1000"`` or ``"19/2"`` (exact, never a float)."""
    return str(Fraction(value))


def money_from_text(text: object) -> Fraction:
    """Read back :func:`money_to_text`; anything else is a damaged file."""
    if not isinstance(text, str | int):
        raise StorageError(f"the bankroll file holds {text!r} where an amount should be")
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise StorageError(f"the bankroll file holds {text!r} where an amount should be") from None


@dataclass(frozen=True)
class StoredRound:
    """One saved round: the table's record plus when, what game and the bankroll."""

    id: int
    game: str
    played_at: datetime
    balance_before: Fraction
    balance_after: Fraction
    rules_file: str | None
    labels: dict[str, str]
    record: dict[str, Any]
    #: whose round it is: None for the default person
    person: str | None = None

    @property
    def net(self) -> Fraction:
        return self.balance_after - self.balance_before

    def to_dict(self) -> dict[str, Any]:
        """The stored round as JSON-able data (money exact: int or ``"n/d"``)."""
        return {
            "id": self.id,
            "game": self.game,
            "time": self.played_at.isoformat(),
            "balance_before": exact_json(self.balance_before),
            "balance_after": exact_json(self.balance_after),
            "rules_file": self.rules_file,
            "labels": self.labels,
            "record": self.record,
            "person": self.person,
        }


@dataclass(frozen=True)
class HistoryEntry:
    """A finished round (or coup) as one person played it, for :meth:`Storage.save_entries`.

    ``net`` moves the person's bankroll; ``record`` is what ``cardroom history`` shows.
    """

    game: str
    net: Fraction
    record: Mapping[str, Any]
    person: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    rules_file: str | None = None


def person_name(name: str) -> str:
    """A named bankroll's name, checked: one line of 1 to 40 characters, no ``,``.

    >>> person_name("  Ann ")
    'Ann'
    """
    clean = name.strip()
    if not clean:
        raise StorageError("a bankroll needs a name")
    if len(clean) > 40 or "," in clean or not clean.isprintable():
        raise StorageError(f"{name!r} cannot name a bankroll: use up to 40 letters, no commas")
    return clean


class Storage:
    """A bankroll file: open it, read or change the bankroll, save and list rounds.

    ``create=False`` refuses to make a new file (for commands that only read).
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StorageError(f"there is no bankroll file at {str(self.path)!r}")
        try:
            self._db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        try:
            self._prepare()
        except StorageError:
            self._db.close()
            raise
        except sqlite3.Error as err:
            self._db.close()
            raise StorageError(self._describe(err)) from None

    @classmethod
    def open_default(cls) -> Storage:
        """The bankroll file in the user's data directory, creating the directory."""
        path = default_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StorageError(f"cannot create {str(path.parent)!r}: {err.strerror}") from None
        return cls(path)

    def _describe(self, err: sqlite3.Error) -> str:
        text = str(err)
        if "not a database" in text:
            return f"{str(self.path)!r} is not a cardroom bankroll file ({text})"
        if "unable to open" in text:
            return f"cannot open the bankroll file {str(self.path)!r} (does its folder exist?)"
        return f"bankroll file {str(self.path)!r}: {text}"

    def _prepare(self) -> None:
        tables = {
            row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if tables and "meta" not in tables:
            raise StorageError(f"{str(self.path)!r} is an SQLite file of some other program")
        if "meta" in tables:
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("app") != APP_ID:
                raise StorageError(f"{str(self.path)!r} is an SQLite file of some other program")
            version = int(meta.get("schema", "0"))
            if version > SCHEMA_VERSION:
                raise StorageError(
                    f"{str(self.path)!r} was written by a newer cardroom (schema {version})"
                )
            if version < SCHEMA_VERSION:
                self._migrate()
            return
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("app", APP_ID), ("schema", str(SCHEMA_VERSION))],
            )

    def _migrate(self) -> None:
        """Bring an older file up to :data:`SCHEMA_VERSION`; its bankroll and rounds stay."""
        with self._transaction():
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is not None and int(row[0]) >= SCHEMA_VERSION:
                return  # another session got there first
            for statement in _MIGRATE_1_TO_2.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction, taken at once so that two sessions cannot interleave."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as err:
            self._db.execute("ROLLBACK")
            raise StorageError(self._describe(err)) from None

    # -- closing -------------------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Storage:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- the bankrolls ------------------------------------------------------------
    def _read_balance(self, person: str | None = None) -> Fraction | None:
        if person is None:
            row = self._db.execute("SELECT balance FROM bankroll WHERE id = 1").fetchone()
        else:
            row = self._db.execute(
                "SELECT balance FROM people WHERE name = ?", (person_name(person),)
            ).fetchone()
        return None if row is None else money_from_text(row[0])

    def _write_balance(self, amount: Fraction, person: str | None = None) -> None:
        if person is None:
            self._db.execute(
                "INSERT INTO bankroll (id, balance, updated) VALUES (1, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, "
                "updated = excluded.updated",
                (money_to_text(amount), _now().isoformat()),
            )
            return
        self._db.execute(
            "INSERT INTO people (name, balance, updated) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET balance = excluded.balance, "
            "updated = excluded.updated",
            (person_name(person), money_to_text(amount), _now().isoformat()),
        )

    def balance(self, person: str | None = None) -> Fraction:
        """A bankroll (the default person's, or ``person``'s); a new one starts with
        :data:`START_BANKROLL`."""
        try:
            current = self._read_balance(person)
            if current is not None:
                return current
            with self._transaction():
                current = self._read_balance(person)
                if current is None:
                    current = START_BANKROLL
                    self._write_balance(current, person)
            return current
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None

    def set_balance(
        self, amount: Fraction, person: str | None = None, *, reason: str = "set"
    ) -> Fraction:
        """Put a bankroll at ``amount`` (which must not be negative).

        The change is written to the history too (game :data:`BANKROLL_ENTRY`, with
        ``reason``, the amount before and after), in the same transaction, so that the
        history always adds up to the bankroll.
        """
        amount = Fraction(amount)
        if amount < 0:
            raise StorageError(f"a bankroll cannot be negative ({format_amount(amount)})")
        entry = HistoryEntry(
            game=BANKROLL_ENTRY,
            net=Fraction(0),
            record={"game": BANKROLL_ENTRY, "change": reason},
            person=person,
        )
        self._save(entry, _now(), set_to=amount)
        return amount

    def reset(self, person: str | None = None) -> Fraction:
        """Start a bankroll again with :data:`START_BANKROLL` (the history is kept)."""
        return self.set_balance(START_BANKROLL, person, reason="reset")

    def spelling(self, person: str) -> str:
        """A named bankroll's name as it was first written (``ann`` -> ``Ann``), or
        ``person`` itself for a name the file does not have yet."""
        name = person_name(person)
        try:
            row = self._db.execute("SELECT name FROM people WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return name if row is None else str(row[0])

    def people(self) -> dict[str, Fraction]:
        """The named bankrolls, by name as first written, in the order of the names."""
        try:
            rows = self._db.execute(
                "SELECT name, balance FROM people ORDER BY name COLLATE NOCASE"
            ).fetchall()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return {str(name): money_from_text(balance) for name, balance in rows}

    # -- rounds --------------------------------------------------------------------
    def save_round(
        self,
        record: Mapping[str, Any],
        *,
        rules_file: str | None = None,
        labels: Mapping[str, str] | None = None,
        when: datetime | None = None,
        person: str | None = None,
    ) -> StoredRound:
        """Save a finished round (its record as cardroom 0.1 wrote it) and post its net."""
        entry = HistoryEntry(
            game=str(record["game"]),
            net=sum((Fraction(str(v)) for v in record["net"].values()), Fraction(0)),
            record=record,
            person=person,
            labels=dict(labels or {}),
            rules_file=rules_file,
        )
        [saved] = self.save_entries([entry], when=when)
        return saved

    def save_entries(
        self, entries: Sequence[HistoryEntry], *, when: datetime | None = None
    ) -> list[StoredRound]:
        """Save each entry to the history and post its net to its person's bankroll, all in
        one transaction (several people's share of one coup: all of it or nothing).

        Each bankroll moves from what the file holds now, as in :meth:`save_round`.
        """
        played_at = when or _now()
        try:
            with self._transaction():
                return [self._insert(entry, played_at) for entry in entries]
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None

    def _save(self, entry: HistoryEntry, played_at: datetime, set_to: Fraction) -> StoredRound:
        try:
            with self._transaction():
                return self._insert(entry, played_at, set_to)
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None

    def _insert(
        self, entry: HistoryEntry, played_at: datetime, set_to: Fraction | None = None
    ) -> StoredRound:
        """Within a transaction: move the person's bankroll by the entry's net (or to
        ``set_to``) and add the entry to the history."""
        person = None if entry.person is None else person_name(entry.person)
        before = self._read_balance(person)
        if before is None:
            before = START_BANKROLL
        after = before + entry.net if set_to is None else set_to
        data = dict(entry.record)
        data["balance_before"] = exact_json(before)
        data["balance_after"] = exact_json(after)
        labels = dict(entry.labels)
        self._write_balance(after, person)
        cursor = self._db.execute(
            "INSERT INTO rounds (game, played_at, balance_before, balance_after, "
            "rules_file, labels, record, person) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.game,
                played_at.isoformat(),
                money_to_text(before),
                money_to_text(after),
                entry.rules_file,
                json.dumps(labels, ensure_ascii=False),
                json.dumps(data, ensure_ascii=False),
                person,
            ),
        )
        assert cursor.lastrowid is not None
        return StoredRound(
            id=cursor.lastrowid,
            game=entry.game,
            played_at=played_at,
            balance_before=before,
            balance_after=after,
            rules_file=entry.rules_file,
            labels=labels,
            record=data,
            person=person,
        )

    @staticmethod
    def _where(game: str | None, person: str | None) -> tuple[str, tuple[Any, ...]]:
        """The rounds of one person (None: the default person's), of ``game`` if given."""
        params: tuple[Any, ...] = ()
        if person is None:
            query = " WHERE person IS NULL"
        else:
            query, params = " WHERE person = ? COLLATE NOCASE", (person_name(person),)
        if game is not None:
            query += " AND game = ?"
            params += (game,)
        return query, params

    def rounds(
        self, limit: int = 10, game: str | None = None, person: str | None = None
    ) -> list[StoredRound]:
        """A person's last ``limit`` rounds (of ``game`` only, if given), oldest first."""
        where, params = self._where(game, person)
        query = (
            "SELECT id, game, played_at, balance_before, balance_after, rules_file, labels, "
            "record, person FROM rounds" + where + " ORDER BY id DESC LIMIT ?"
        )
        params += (max(0, limit),)
        try:
            rows = self._db.execute(query, params).fetchall()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return [self._stored(row) for row in reversed(rows)]

    def count_rounds(
        self, game: str | None = None, person: str | None = None, *, entries: bool = False
    ) -> int:
        """How many rounds a person has in the file (of ``game`` only, if given);
        ``entries``: the changes of the bankroll count too."""
        where, params = self._where(game, person)
        if game is None and not entries:
            where += " AND game != ?"
            params += (BANKROLL_ENTRY,)
        try:
            row = self._db.execute("SELECT COUNT(*) FROM rounds" + where, params).fetchone()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return int(row[0])

    def _stored(self, row: tuple[Any, ...]) -> StoredRound:
        row_id, game, played_at, before, after, rules_file, labels, record, person = row
        try:
            when = datetime.fromisoformat(played_at)
            label_data = json.loads(labels)
            record_data = json.loads(record)
        except (TypeError, ValueError) as err:
            raise StorageError(f"round {row_id} in {str(self.path)!r} is damaged: {err}") from None
        return StoredRound(
            id=int(row_id),
            game=str(game),
            played_at=when,
            balance_before=money_from_text(before),
            balance_after=money_from_text(after),
            rules_file=rules_file,
            labels={str(k): str(v) for k, v in label_data.items()},
            record=record_data,
            person=None if person is None else str(person),
        )


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
