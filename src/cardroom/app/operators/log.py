"""The operator log: every operator action, append-only.

A row says who acted (an operator, or ``system`` for the floor's own alerts), when, from
which address, what (``action``) on which ``target`` (``account:ID``, ``table:KEY``,
``operator:NAME``), the state before and after as JSON, and the reason the operator
typed.  Rows are written in the same transaction as the action they record
(:func:`write`), so an action and its row stand or fall together.  Nothing in cardroom
updates or deletes a row, and triggers on both databases refuse to (migration 0007).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, select

from cardroom.storage.db import Database
from cardroom.storage.schema import operator_log

__all__ = ["SYSTEM", "Actor", "LogEntry", "OperatorLog", "ReasonMissing", "check_reason", "write"]

#: The longest reason kept.
REASON_MAX = 500


class ReasonMissing(ValueError):
    """An action without the reason it must give."""


@dataclass(frozen=True)
class Actor:
    """Who acts, and from where."""

    operator_id: int | None
    name: str
    address: str


#: The floor itself (its alerts).
SYSTEM = Actor(None, "system", "-")


@dataclass(frozen=True)
class LogEntry:
    """One row of the log."""

    id: int
    created_at: datetime
    operator: str
    address: str
    action: str
    target: str | None
    before: Any
    after: Any
    reason: str

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "at": self.created_at.isoformat(),
            "operator": self.operator,
            "address": self.address,
            "action": self.action,
            "target": self.target,
            "before": self.before,
            "after": self.after,
            "reason": self.reason,
        }


def check_reason(reason: str | None) -> str:
    """The reason as kept: not empty, one line, at most :data:`REASON_MAX` characters,
    printable (no control character that would rewrite the log's lines on a terminal,
    nor one that turns text around).

    >>> check_reason("  goodwill\\n after a  fault ")
    'goodwill after a fault'
    >>> check_reason("ok\\x1b[31m")
    Traceback (most recent call last):
    ...
    cardroom.app.operators.log.ReasonMissing: a reason is printable text: no control characters
    """
    text = " ".join(str(reason or "").split())
    if not text:
        raise ReasonMissing("give a reason: every operator action is logged with one")
    if len(text) > REASON_MAX:
        raise ReasonMissing(f"a reason has at most {REASON_MAX} characters")
    if any(unicodedata.category(c) == "Cc" or c in _TURNING for c in text):
        raise ReasonMissing("a reason is printable text: no control characters")
    return text


#: The characters that embed, override or isolate the direction of the text after them.
_TURNING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _json(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


def write(
    conn: Connection,
    actor: Actor,
    action: str,
    target: str | None,
    reason: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    when: datetime | None = None,
) -> int:
    """Add a row in the caller's transaction; its id."""
    row_id = conn.execute(
        operator_log.insert()
        .values(
            created_at=when or datetime.now(UTC),
            operator_id=actor.operator_id,
            operator=actor.name,
            address=actor.address,
            action=action,
            target=target,
            before=_json(before),
            after=_json(after),
            reason=reason,
        )
        .returning(operator_log.c.id)
    ).scalar_one()
    return int(row_id)


def _entry(row: Any) -> LogEntry:
    return LogEntry(
        id=int(row.id),
        created_at=row.created_at,
        operator=str(row.operator),
        address=str(row.address),
        action=str(row.action),
        target=row.target,
        before=None if row.before is None else json.loads(row.before),
        after=None if row.after is None else json.loads(row.after),
        reason=str(row.reason),
    )


class OperatorLog:
    """The log in ``db``, read back."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def append(
        self,
        actor: Actor,
        action: str,
        target: str | None,
        reason: str,
        before: Mapping[str, Any] | None = None,
        after: Mapping[str, Any] | None = None,
    ) -> int:
        """A row in a transaction of its own (an action that changes nothing else, such
        as a sign-in or a note)."""
        with self.db.write() as conn:
            return write(conn, actor, action, target, reason, before, after)

    def entries(
        self,
        since: datetime | None = None,
        until: datetime | None = None,
        target: str | None = None,
        before_id: int | None = None,
        limit: int = 100,
    ) -> list[LogEntry]:
        """The newest rows first (``limit`` of them), from ``since`` to before ``until``,
        of one ``target``, older than the row ``before_id`` (the next page)."""
        query = select(operator_log).order_by(operator_log.c.id.desc()).limit(limit)
        if since is not None:
            query = query.where(operator_log.c.created_at >= since)
        if until is not None:
            query = query.where(operator_log.c.created_at < until)
        if target is not None:
            query = query.where(operator_log.c.target == target)
        if before_id is not None:
            query = query.where(operator_log.c.id < before_id)
        with self.db.read() as conn:
            return [_entry(row) for row in conn.execute(query)]

    def since(self, since: datetime, until: datetime | None = None) -> list[LogEntry]:
        """Every row from ``since`` (to before ``until``), oldest first: the export."""
        query = (
            select(operator_log)
            .where(operator_log.c.created_at >= since)
            .order_by(operator_log.c.id)
        )
        if until is not None:
            query = query.where(operator_log.c.created_at < until)
        with self.db.read() as conn:
            return [_entry(row) for row in conn.execute(query)]
