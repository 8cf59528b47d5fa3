"""What the house sets for its tables: open or closed, the least and most a wager may
stake, and a lab variant put on a public table under a name players see.

A table is named by its key: a house game's id (the server's own rules), ``GAME~ID``
for a lab variant, or a chemin de fer table's reference.  With no row in
``table_settings`` a table is open at its rules' own limits; a public variant's row
makes it listed in the lobby beside the standard table.  Every change writes its row of
the operator log in the same transaction, with the settings before and after.  A change
applies from the next round: the round in play was dealt and staked under the settings
it began with (the house tables read the row as they lock the person's table:
:mod:`cardroom.app.tables.stored`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from cardroom.app.operators.log import Actor, check_reason, write
from cardroom.app.variants import split_key
from cardroom.app.wallet import WalletError, from_cents
from cardroom.app.wallet.values import money_text, to_cents
from cardroom.storage.db import Database
from cardroom.storage.schema import rule_variants, table_settings

__all__ = ["TableError", "TableSetting", "TableSettings", "table_target"]

#: The longest public name of a table.
NAME_MAX = 40


class TableError(WalletError):
    """A setting that cannot be made (bad limits, a variant that does not exist)."""


def table_target(key: str) -> str:
    """How the log names a table."""
    return f"table:{key}"


@dataclass(frozen=True)
class TableSetting:
    """What the house set for one table."""

    key: str
    name: str | None = None
    public: bool = False
    open: bool = True
    min_stake: Fraction | None = None
    max_stake: Fraction | None = None

    def as_json(self) -> dict[str, object]:
        def amount(value: Fraction | None) -> str | None:
            return None if value is None else money_text(to_cents(value))

        return {
            "key": self.key,
            "name": self.name,
            "public": self.public,
            "open": self.open,
            "min_stake": amount(self.min_stake),
            "max_stake": amount(self.max_stake),
        }


def _setting(row: Any) -> TableSetting:
    return TableSetting(
        key=str(row.key),
        name=row.name,
        public=bool(row.public),
        open=bool(row.open),
        min_stake=None if row.min_stake is None else from_cents(row.min_stake),
        max_stake=None if row.max_stake is None else from_cents(row.max_stake),
    )


class TableSettings:
    """The settings in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str) -> TableSetting:
        with self.db.read() as conn:
            return self._get(conn, key)

    def all(self) -> list[TableSetting]:
        with self.db.read() as conn:
            rows = conn.execute(select(table_settings).order_by(table_settings.c.key)).all()
        return [_setting(r) for r in rows]

    def public_variants(self) -> list[TableSetting]:
        """The lab variants on public tables, by name."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(table_settings)
                .where(table_settings.c.public == 1)
                .order_by(table_settings.c.name)
            ).all()
        return [_setting(r) for r in rows]

    def is_open(self, key: str) -> bool:
        return self.get(key).open

    @staticmethod
    def _get(conn: Connection, key: str) -> TableSetting:
        row = conn.execute(select(table_settings).where(table_settings.c.key == key)).first()
        return TableSetting(key) if row is None else _setting(row)

    def _change(
        self,
        actor: Actor,
        key: str,
        action: str,
        reason: str,
        change: Callable[[Connection, TableSetting], TableSetting],
    ) -> TableSetting:
        why = check_reason(reason)
        db = self.db

        def work(conn: Connection) -> TableSetting:
            before = self._get(conn, key)
            after = change(conn, before)
            if after == before:
                raise TableError(f"the table {key} is so already: nothing to change")
            values = {
                "key": key,
                "name": after.name,
                "public": int(after.public),
                "open": int(after.open),
                "min_stake": None if after.min_stake is None else to_cents(after.min_stake),
                "max_stake": None if after.max_stake is None else to_cents(after.max_stake),
                "updated_at": datetime.now(UTC),
            }
            insert = sqlite_insert if db.is_sqlite else pg_insert
            statement = insert(table_settings).values(values)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=[table_settings.c.key],
                    set_={k: statement.excluded[k] for k in values if k != "key"},
                )
            )
            write(conn, actor, action, table_target(key), why, before.as_json(), after.as_json())
            return after

        return db.run(work)

    def set_open(self, actor: Actor, key: str, open_: bool, reason: str) -> TableSetting:
        """Open or close a table to new rounds (a round in play finishes)."""
        return self._change(
            actor,
            key,
            "open table" if open_ else "close table",
            reason,
            lambda conn, before: replace(before, open=open_),
        )

    def set_limits(
        self,
        actor: Actor,
        key: str,
        min_stake: Fraction | None,
        max_stake: Fraction | None,
        reason: str,
        bounds: tuple[Fraction, Fraction] | None = None,
    ) -> TableSetting:
        """The least and most one wager may stake (None: the rules' own), within the
        rules' own ``bounds`` (their table minimum and maximum) when given."""
        low = None if min_stake is None else _limit(min_stake, "the least stake")
        high = None if max_stake is None else _limit(max_stake, "the most stake")
        if bounds is not None:
            least, most = bounds
            for value, what in ((low, "least"), (high, "most")):
                if value is not None and not least <= value <= most:
                    raise TableError(
                        f"the {what} stake, {money_text(to_cents(value))}, is outside the "
                        f"table's rules, {money_text(to_cents(least))} to "
                        f"{money_text(to_cents(most))}"
                    )
        if low is not None and high is not None and high < low:
            raise TableError(
                f"the most a wager may stake ({money_text(to_cents(high))}) is below the least "
                f"({money_text(to_cents(low))})"
            )
        return self._change(
            actor,
            key,
            "set limits",
            reason,
            lambda conn, before: replace(before, min_stake=low, max_stake=high),
        )

    def publish(
        self, actor: Actor, game_id: str, variant: str, name: str, reason: str
    ) -> TableSetting:
        """Put the lab's ``variant`` of ``game_id`` on a public table called ``name``."""
        shown = " ".join(str(name).split())
        if not shown or len(shown) > NAME_MAX:
            raise TableError(f"a table's name is 1 to {NAME_MAX} characters")
        key = f"{game_id}~{variant}"

        def change(conn: Connection, before: TableSetting) -> TableSetting:
            found = conn.execute(
                select(rule_variants.c.id).where(
                    rule_variants.c.id == variant, rule_variants.c.game == game_id
                )
            ).first()
            if found is None:
                raise TableError(f"there is no variant {variant[:40]} of {game_id[:40]}")
            return replace(before, name=shown, public=True)

        return self._change(actor, key, "publish variant", reason, change)

    def withdraw(self, actor: Actor, key: str, reason: str) -> TableSetting:
        """Take a variant off the public tables (its rounds stay in the records)."""
        if split_key(key)[1] is None:
            raise TableError("only a lab variant's table is published or withdrawn")
        return self._change(
            actor,
            key,
            "withdraw variant",
            reason,
            lambda conn, before: replace(before, public=False),
        )


def _limit(value: Fraction, what: str) -> Fraction:
    cents = to_cents(value, what)
    if cents <= 0:
        raise TableError(f"{what} is more than 0")
    return from_cents(cents)
