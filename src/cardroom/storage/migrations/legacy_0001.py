"""Bringing a bankroll file of cardroom 0.1 (its ``bankroll_file`` module) into the new schema.

Part of the first migration (run once, by it, in the same transaction that renames the old
tables ``legacy_*`` and creates the new ones; it keeps a copy of what it uses, so that a
later change elsewhere cannot change what it does); nothing of the old tables is changed
or dropped.

- The default bankroll (``bankroll``, the one of ``person=None``) becomes the account
  :data:`DEFAULT_NAME`; each named bankroll (``people``, schema 2) an account of that
  name.  A person who has rounds but no bankroll row gets the account the bankroll file
  would have shown: :data:`START_BANKROLL`.
- Each account gets one ``deposit`` ledger row of its balance (the balance is whole cents
  now: a balance of a fraction of a cent, which the old file could hold, is rounded down
  and the memo says by how much), so that its books add up from the start.
- Every old round (and every old ``bankroll`` entry of ``--set``/``--reset``) becomes a
  ``finished`` round of its person, with its old id and time, and the record
  ``{"version": 0, "legacy": <the old row as a dict>}`` (its JSON columns decoded).
  Their money is already in the deposit, so they have no ledger rows.

Names are matched as the new schema matches them (case-folded); a second bankroll whose
name only differs in case from one already brought over (the old file compared only
ASCII letters without case) is given a `` (2)`` suffix, and so is a named bankroll
called "You" beside the default one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, Dialect, column, inspect, table, text
from sqlalchemy.types import BigInteger, DateTime, Integer, Text, TypeDecorator

from cardroom.storage.errors import StorageError

# -- what the first migration used, frozen here (the modules it came from may change) ------
CENT = Fraction(1, 100)


def format_amount(value: Fraction) -> str:
    """An amount as the memo writes it: whole units, else at least two places."""
    if value.denominator == 1:
        return str(value.numerator)
    places = 2
    while (value * 10**places).denominator != 1 and places < 40:
        places += 1
    scaled = abs(value) * 10**places
    whole, rest = divmod(math.floor(scaled), 10**places)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{rest:0{places}d}"


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime, stored in UTC (SQLite: its UTC wall time)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive datetime cannot be stored: {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


#: The account of the default bankroll (the terminal calls its one person "You").
DEFAULT_NAME = "You"

#: What the bankroll file gave a bankroll it did not hold yet.
START_BANKROLL = Fraction(1000)

MEMO = "brought over from the bankroll file"

_accounts = table(
    "accounts",
    column("id", Integer),
    column("name", Text),
    column("name_key", Text),
    column("balance", BigInteger),
    column("created_at", UTCDateTime),
)
_ledger = table(
    "ledger",
    column("account_id", Integer),
    column("created_at", UTCDateTime),
    column("kind", Text),
    column("amount", BigInteger),
    column("balance_after", BigInteger),
    column("memo", Text),
)
_rounds = table(
    "rounds",
    column("id", Integer),
    column("account_id", Integer),
    column("game", Text),
    column("status", Text),
    column("created_at", UTCDateTime),
    column("updated_at", UTCDateTime),
    column("record", Text),
)


@dataclass
class _Bankroll:
    name: str
    balance: Fraction
    account_id: int = 0


def name_key(name: str) -> str:
    """How names are matched: without regard to case (Unicode case folding)."""
    return name.casefold()


def bring_over(conn: Connection) -> None:
    """Create the accounts, deposits and rounds of the ``legacy_*`` tables (see above)."""
    tables = set(inspect(conn).get_table_names())
    now = datetime.now(UTC)
    old_rounds = _old_rounds(conn) if "legacy_rounds" in tables else []

    default: _Bankroll | None = None
    if "legacy_bankroll" in tables:
        row = conn.execute(text("SELECT balance FROM legacy_bankroll WHERE id = 1")).first()
        if row is not None:
            default = _Bankroll(DEFAULT_NAME, _amount(row[0]))
    if default is None and any(r.get("person") is None for r in old_rounds):
        default = _Bankroll(DEFAULT_NAME, START_BANKROLL)

    named: dict[str, _Bankroll] = {}  # by the old file's key (see _nocase)
    if "legacy_people" in tables:
        for name, balance in conn.execute(
            text("SELECT name, balance FROM legacy_people ORDER BY name")
        ):
            named.setdefault(_nocase(name), _Bankroll(str(name), _amount(balance)))
    for old in old_rounds:
        person = old.get("person")
        if person is not None:
            named.setdefault(_nocase(person), _Bankroll(str(person), START_BANKROLL))

    taken: set[str] = set()
    for bankroll in ([default] if default else []) + list(named.values()):
        bankroll.account_id = _open(conn, bankroll, taken, now)

    for old in old_rounds:
        person = old.get("person")
        owner = default if person is None else named[_nocase(person)]
        assert owner is not None
        when = _time(old.get("played_at")) or now
        conn.execute(
            _rounds.insert().values(
                id=int(old["id"]),
                account_id=owner.account_id,
                game=str(old["game"]),
                status="finished",
                created_at=when,
                updated_at=when,
                record=json.dumps({"version": 0, "legacy": old}, ensure_ascii=False),
            )
        )


def _open(conn: Connection, bankroll: _Bankroll, taken: set[str], now: datetime) -> int:
    """The account and its opening deposit; returns the account's id."""
    name = bankroll.name
    suffix = 1
    while name_key(name) in taken:
        suffix += 1
        name = f"{bankroll.name} ({suffix})"
    taken.add(name_key(name))
    cents = math.floor(bankroll.balance / CENT)
    memo = MEMO if name == bankroll.name else f"{MEMO} (its bankroll {bankroll.name!r})"
    if cents * CENT != bankroll.balance:
        memo += (
            f"; the file held {format_amount(bankroll.balance)}, "
            f"{format_amount(bankroll.balance - cents * CENT)} below a cent is left out"
        )
    account_id = conn.execute(
        _accounts.insert()
        .values(name=name, name_key=name_key(name), balance=cents, created_at=now)
        .returning(_accounts.c.id)
    ).scalar_one()
    conn.execute(
        _ledger.insert().values(
            account_id=account_id,
            created_at=now,
            kind="deposit",
            amount=cents,
            balance_after=cents,
            memo=memo,
        )
    )
    return int(account_id)


def _nocase(name: object) -> str:
    """How the bankroll file matched names (SQLite's NOCASE: ASCII letters without case).

    >>> _nocase("ÄNN Bob")
    'Änn bob'
    """
    return str(name).translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _old_rounds(conn: Connection) -> list[dict[str, Any]]:
    """Every row of ``legacy_rounds`` as a dict, its JSON columns decoded where they can be."""
    rows: list[dict[str, Any]] = []
    for mapping in conn.execute(text("SELECT * FROM legacy_rounds ORDER BY id")).mappings():
        rows.append(_decoded({str(key): value for key, value in mapping.items()}))
    return rows


def _decoded(mapping: Mapping[str, Any]) -> dict[str, Any]:
    row = dict(mapping)
    for key in ("labels", "record"):
        value = row.get(key)
        if isinstance(value, str):
            with suppress(ValueError):  # else kept as the text it is
                row[key] = json.loads(value)
    return row


def _amount(value: object) -> Fraction:
    """A bankroll file's amount (``"1000"``, ``"19/2"``); a damaged one stops the upgrade."""
    try:
        amount = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        amount = Fraction(-1)
    if amount < 0:
        raise StorageError(f"the bankroll file holds {value!r} where a bankroll should be")
    return amount


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
