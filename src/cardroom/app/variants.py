"""The lab's variants that are played at a table of their own.

A variant is kept in the database by its id, the first 20 hex digits of the SHA-256 of
its rules file (:func:`variant_id`): the same rules get the same id in every process,
and any process reads them back (a person's next request may go to another).  Its
tables are the house tables of its game under the *table key* ``GAME~ID``
(:func:`table_key`); their rounds are written with their rules, like every round, so
history and replays need nothing of this module.

>>> table_key("punto-banco", "0123456789abcdef0123")
'punto-banco~0123456789abcdef0123'
>>> split_key("punto-banco~0123456789abcdef0123")
('punto-banco', '0123456789abcdef0123')
>>> split_key("punto-banco")
('punto-banco', None)
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from cardroom.app.par import rules_digest
from cardroom.core.rules import load_rules_text, rules_to_toml
from cardroom.games import GameInfo
from cardroom.storage.db import Database
from cardroom.storage.schema import rule_variants

__all__ = [
    "VARIANT_ID",
    "UnknownVariant",
    "Variants",
    "split_key",
    "table_key",
    "variant_id",
]

#: what a variant's id looks like
VARIANT_ID = re.compile(r"[0-9a-f]{20}")
#: the most variants' rules a process keeps read (they never change; more are read again)
KEEP = 256


class UnknownVariant(LookupError):
    """No variant of that game has that id."""


def variant_id(toml: str) -> str:
    """A variant's id: the start of the SHA-256 of its rules file (the digest a PAR
    sheet states)."""
    return rules_digest(toml)[:20]


def table_key(game_id: str, variant: str | None) -> str:
    """The key of a person's table at a game's house rules or at one of its variants."""
    return game_id if variant is None else f"{game_id}~{variant}"


def split_key(key: str) -> tuple[str, str | None]:
    """A table key's game id and variant id (None: the house rules)."""
    game_id, _, variant = key.partition("~")
    return game_id, variant or None


class Variants:
    """The variants kept in the database, each read once per process."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._known: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def save(self, game: GameInfo, rules: Any) -> str:
        """Keep ``rules`` of ``game`` (once: the same rules are the same row) and give
        their id."""
        toml = rules_to_toml(rules)
        found = variant_id(toml)
        row = {"id": found, "game": game.id, "rules": toml, "created_at": datetime.now(UTC)}
        insert = sqlite_insert if self.db.is_sqlite else pg_insert

        def work(conn: Connection) -> None:
            conn.execute(insert(rule_variants).values(row).on_conflict_do_nothing())

        self.db.run(work)
        self._keep((game.id, found), rules)
        return found

    def rules(self, game: GameInfo, variant: str) -> Any:
        """The rules of ``game``'s variant ``variant`` (:class:`UnknownVariant` if there
        is none)."""
        if not VARIANT_ID.fullmatch(variant):
            raise UnknownVariant(f"{variant[:40]!r} is not a variant's id (20 hex digits)")
        with self._lock:
            known = self._known.get((game.id, variant))
        if known is not None:
            return known

        def work(conn: Connection) -> str | None:
            query = select(rule_variants.c.rules).where(
                rule_variants.c.id == variant, rule_variants.c.game == game.id
            )
            return conn.execute(query).scalar_one_or_none()

        toml = self.db.run(work, write=False)
        if toml is None:
            raise UnknownVariant(f"there is no variant {variant} of {game.id}")
        rules = load_rules_text(game.default_rules(), toml, "the variant")
        self._keep((game.id, variant), rules)
        return rules

    def _keep(self, key: tuple[str, str], rules: Any) -> None:
        with self._lock:
            self._known[key] = rules
            self._known.move_to_end(key)
            while len(self._known) > KEEP:
                self._known.popitem(last=False)
