"""The bankroll and the history of played rounds, kept in one SQLite file.

Money is stored exactly, as the text of a :class:`~fractions.Fraction` (``"1000"``,
``"19/2"``), never as a float.  A finished round and the bankroll it leaves are
written in one transaction, so a session that stops at any moment loses nothing
but the round in progress (whose stakes were never taken).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp, Storage(Path(tmp) / "b.sqlite3") as store:
...     store.balance(), store.set_balance(Fraction(25, 2)), store.reset()
(Fraction(1000, 1), Fraction(25, 2), Fraction(1000, 1))
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs

from cardroom.money import exact_json, format_amount
from cardroom.table import RoundRecord

#: What a new bankroll starts with (and what ``cardroom bankroll --reset`` restores).
START_BANKROLL = Fraction(1000)

#: Written to the ``meta`` table so cardroom never writes into somebody else's database.
APP_ID = "cardroom"
SCHEMA_VERSION = 1

_SCHEMA = """
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
    record         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rounds_by_game ON rounds (game, id);
"""


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
        }


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
            return
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("app", APP_ID), ("schema", str(SCHEMA_VERSION))],
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

    # -- the bankroll --------------------------------------------------------------
    def _read_balance(self) -> Fraction | None:
        row = self._db.execute("SELECT balance FROM bankroll WHERE id = 1").fetchone()
        return None if row is None else money_from_text(row[0])

    def _write_balance(self, amount: Fraction) -> None:
        self._db.execute(
            "INSERT INTO bankroll (id, balance, updated) VALUES (1, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, "
            "updated = excluded.updated",
            (money_to_text(amount), _now().isoformat()),
        )

    def balance(self) -> Fraction:
        """The bankroll; a new file starts with :data:`START_BANKROLL`."""
        try:
            current = self._read_balance()
            if current is not None:
                return current
            with self._transaction():
                current = self._read_balance()
                if current is None:
                    current = START_BANKROLL
                    self._write_balance(current)
            return current
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None

    def set_balance(self, amount: Fraction) -> Fraction:
        """Put the bankroll at ``amount`` (which must not be negative)."""
        amount = Fraction(amount)
        if amount < 0:
            raise StorageError(f"a bankroll cannot be negative ({format_amount(amount)})")
        try:
            with self._transaction():
                self._write_balance(amount)
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return amount

    def reset(self) -> Fraction:
        """Start again with :data:`START_BANKROLL` (the history is kept)."""
        return self.set_balance(START_BANKROLL)

    # -- rounds --------------------------------------------------------------------
    def save_round(
        self,
        record: RoundRecord,
        *,
        rules_file: str | None = None,
        labels: Mapping[str, str] | None = None,
        when: datetime | None = None,
    ) -> StoredRound:
        """Save a finished round and post its net result to the bankroll, atomically.

        The bankroll moves by the round's net from what the file holds now (so a
        bankroll changed by another command meanwhile is respected); the stored
        record's ``balance_before``/``balance_after`` are the file's.
        """
        net = sum(record.net.values(), Fraction(0))
        played_at = when or _now()
        data = record.to_dict()
        try:
            with self._transaction():
                before = self._read_balance()
                if before is None:
                    before = START_BANKROLL
                after = before + net
                data["balance_before"] = exact_json(before)
                data["balance_after"] = exact_json(after)
                self._write_balance(after)
                cursor = self._db.execute(
                    "INSERT INTO rounds (game, played_at, balance_before, balance_after, "
                    "rules_file, labels, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.game,
                        played_at.isoformat(),
                        money_to_text(before),
                        money_to_text(after),
                        rules_file,
                        json.dumps(dict(labels or {}), ensure_ascii=False),
                        json.dumps(data, ensure_ascii=False),
                    ),
                )
                row_id = cursor.lastrowid
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        assert row_id is not None
        return StoredRound(
            id=row_id,
            game=record.game,
            played_at=played_at,
            balance_before=before,
            balance_after=after,
            rules_file=rules_file,
            labels=dict(labels or {}),
            record=data,
        )

    def rounds(self, limit: int = 10, game: str | None = None) -> list[StoredRound]:
        """The last ``limit`` rounds (of ``game`` only, if given), oldest first."""
        query = (
            "SELECT id, game, played_at, balance_before, balance_after, rules_file, labels, "
            "record FROM rounds"
        )
        params: tuple[Any, ...] = ()
        if game is not None:
            query += " WHERE game = ?"
            params = (game,)
        query += " ORDER BY id DESC LIMIT ?"
        params += (max(0, limit),)
        try:
            rows = self._db.execute(query, params).fetchall()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return [self._stored(row) for row in reversed(rows)]

    def count_rounds(self, game: str | None = None) -> int:
        """How many rounds the file holds (of ``game`` only, if given)."""
        try:
            if game is None:
                row = self._db.execute("SELECT COUNT(*) FROM rounds").fetchone()
            else:
                row = self._db.execute(
                    "SELECT COUNT(*) FROM rounds WHERE game = ?", (game,)
                ).fetchone()
        except sqlite3.Error as err:
            raise StorageError(self._describe(err)) from None
        return int(row[0])

    def _stored(self, row: tuple[Any, ...]) -> StoredRound:
        row_id, game, played_at, before, after, rules_file, labels, record = row
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
        )


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
