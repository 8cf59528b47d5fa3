"""The ledger's stakes and payouts summed hour by hour, by table and wager.

The floor's figures over a day, a week or a month would read every ledger row of the
period; with a million rounds that is too slow for a page.  So the rows are summed once
into ``ledger_hours`` (one row an hour, table and wager; the wager ``""`` is the table's
whole: its rounds counted once each), and a period's figures read those sums plus the
few ledger rows not summed yet (:meth:`Rollup.tail`), which makes them exact to the
last round.

:meth:`Rollup.refresh` sums the rows after the mark in ``rollup_marks`` in order of id,
stopping at the first row younger than :data:`SETTLE` (a transaction of another process
may still be writing rows with lower ids than the newest), and moves the mark; it runs
in one transaction, which locks the mark's row, so two processes never add the same
rows twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from cardroom.storage.db import Database
from cardroom.storage.schema import ledger, ledger_hours, rollup_marks

__all__ = ["SETTLE", "WHOLE", "Rollup", "Sums", "hour_of"]

#: Rows younger than this are left to the next refresh.
SETTLE = timedelta(seconds=60)
#: The most ledger rows one refresh reads.
BATCH = 200_000
#: The wager of a table's whole (its rounds counted once each).
WHOLE = ""
MARK = "ledger_hours"
_KINDS = ("stake", "win", "return")


def hour_of(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


@dataclass
class Sums:
    """Rounds (stakes, for a wager), cents staked and paid back, and the squared stakes."""

    rounds: int = 0
    staked: int = 0
    paid: int = 0
    stake_squares: float = 0.0

    def add(self, other: Sums) -> None:
        self.rounds += other.rounds
        self.staked += other.staked
        self.paid += other.paid
        self.stake_squares += other.stake_squares

    @property
    def ggr(self) -> int:
        """The house's gross gaming revenue in cents: staked less paid back."""
        return self.staked - self.paid


Key = tuple[datetime, str, str]


def _sum_rows(rows: Iterable[Any]) -> dict[Key, Sums]:
    """The sums of ledger rows (id, created_at, table_ref, wager, kind, amount, round_id)
    by hour, table and wager, and by hour and table as a whole."""
    sums: dict[Key, Sums] = defaultdict(Sums)
    seen: set[tuple[str, int]] = set()
    for row in rows:
        if row.kind not in _KINDS or row.round_id is None or row.table_ref is None:
            continue
        hour = hour_of(row.created_at)
        ref, wager = str(row.table_ref), str(row.wager or "")
        for key in ((hour, ref, wager), (hour, ref, WHOLE)):
            cell = sums[key]
            if row.kind == "stake":
                cell.staked -= int(row.amount)
                if key[2] != WHOLE:
                    cell.rounds += 1
                    cell.stake_squares += float(row.amount) ** 2
                elif (ref, int(row.round_id)) not in seen:
                    seen.add((ref, int(row.round_id)))
                    cell.rounds += 1
            else:
                cell.paid += int(row.amount)
    return sums


_COLUMNS = (
    ledger.c.id,
    ledger.c.created_at,
    ledger.c.table_ref,
    ledger.c.wager,
    ledger.c.kind,
    ledger.c.amount,
    ledger.c.round_id,
)


class Rollup:
    """The hourly sums in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def mark(self, conn: Connection) -> int:
        found = conn.execute(
            select(rollup_marks.c.ledger_id).where(rollup_marks.c.name == MARK)
        ).scalar()
        return 0 if found is None else int(found)

    def refresh(self, now: datetime | None = None) -> int:
        """Sum the settled rows after the mark (up to :data:`BATCH`); how many were read."""
        cutoff = (now or datetime.now(UTC)) - SETTLE
        db = self.db

        def work(conn: Connection) -> int:
            query = select(rollup_marks.c.ledger_id).where(rollup_marks.c.name == MARK)
            if not db.is_sqlite:
                query = query.with_for_update()
            found = conn.execute(query).scalar()
            mark = 0 if found is None else int(found)
            rows = conn.execute(
                select(*_COLUMNS).where(ledger.c.id > mark).order_by(ledger.c.id).limit(BATCH)
            ).all()
            settled = []
            for row in rows:
                if row.created_at >= cutoff:
                    break
                settled.append(row)
            if not settled:
                return 0
            insert = sqlite_insert if db.is_sqlite else pg_insert
            for (hour, ref, wager), cell in _sum_rows(settled).items():
                statement = insert(ledger_hours).values(
                    hour=hour,
                    table_ref=ref,
                    wager=wager,
                    rounds=cell.rounds,
                    staked=cell.staked,
                    paid=cell.paid,
                    stake_squares=cell.stake_squares,
                )
                conn.execute(
                    statement.on_conflict_do_update(
                        index_elements=[
                            ledger_hours.c.hour,
                            ledger_hours.c.table_ref,
                            ledger_hours.c.wager,
                        ],
                        set_={
                            c: getattr(ledger_hours.c, c) + statement.excluded[c]
                            for c in ("rounds", "staked", "paid", "stake_squares")
                        },
                    )
                )
            new_mark = {
                "name": MARK,
                "ledger_id": int(settled[-1].id),
                "updated_at": datetime.now(UTC),
            }
            upsert = insert(rollup_marks).values(new_mark)
            conn.execute(
                upsert.on_conflict_do_update(
                    index_elements=[rollup_marks.c.name],
                    set_={
                        "ledger_id": upsert.excluded.ledger_id,
                        "updated_at": upsert.excluded.updated_at,
                    },
                )
            )
            return len(settled)

        return db.run(work)

    def catch_up(self) -> None:
        """Refresh until the settled rows are all summed."""
        while self.refresh() >= BATCH:
            pass

    def sums(self, since: datetime, until: datetime | None = None) -> dict[tuple[str, str], Sums]:
        """The period's sums by (table reference, wager): the hours from ``since``'s hour
        (to before ``until``'s), and the rows not summed yet."""
        start = hour_of(since)
        out: dict[tuple[str, str], Sums] = defaultdict(Sums)
        with self.db.read() as conn:
            query = select(ledger_hours).where(ledger_hours.c.hour >= start)
            if until is not None:
                query = query.where(ledger_hours.c.hour < hour_of(until))
            for row in conn.execute(query):
                out[(row.table_ref, row.wager)].add(
                    Sums(int(row.rounds), int(row.staked), int(row.paid), float(row.stake_squares))
                )
            if until is None:
                for (hour, ref, wager), cell in self._tail(conn).items():
                    if hour >= start:
                        out[(ref, wager)].add(cell)
        return dict(out)

    def hours(self, since: datetime) -> list[tuple[datetime, int, int]]:
        """Each hour from ``since``: (hour, rounds, GGR in cents) over every table."""
        by_hour: dict[datetime, Sums] = defaultdict(Sums)
        with self.db.read() as conn:
            rows = conn.execute(
                select(ledger_hours).where(
                    ledger_hours.c.hour >= hour_of(since), ledger_hours.c.wager == WHOLE
                )
            ).all()
            for row in rows:
                by_hour[row.hour].add(Sums(int(row.rounds), int(row.staked), int(row.paid)))
            for (hour, _, wager), cell in self._tail(conn).items():
                if wager == WHOLE and hour >= hour_of(since):
                    by_hour[hour].add(cell)
        return [(h, s.rounds, s.ggr) for h, s in sorted(by_hour.items())]

    def _tail(self, conn: Connection) -> dict[Key, Sums]:
        """The rows after the mark, summed (they are few: at most a minute's or so)."""
        rows = conn.execute(
            select(*_COLUMNS).where(ledger.c.id > self.mark(conn)).order_by(ledger.c.id)
        ).all()
        return _sum_rows(rows)
