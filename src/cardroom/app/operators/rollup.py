"""The ledger's stakes and payouts summed hour by hour, by table and wager.

The floor's figures over a day, a week or a month would read every ledger row of the
period; with a million rounds that is too slow for a page.  So the rows are summed once
into ``ledger_hours`` (one row an hour, table and wager; the wager ``""`` is the table's
whole: its rounds counted once each), and a period's figures read those sums plus the
few ledger rows not summed yet (:meth:`Rollup.tail`), which makes them exact to the
last round.

:meth:`Rollup.refresh` sums the rows after the mark in ``rollup_marks`` in order of id,
stopping before the first row younger than :data:`SETTLE` (a transaction of another
process may still be writing rows with lower ids than the newest), grouped by the
database itself, and moves the mark; it runs in one transaction, which locks the mark's
row, so two processes never add the same rows twice.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Double, case, cast, func, literal_column, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from cardroom.storage.db import Database
from cardroom.storage.schema import ledger, ledger_hours, rollup_marks

__all__ = ["SETTLE", "WHOLE", "Rollup", "Sums", "hour_of"]

#: Rows younger than this are left to the next refresh.
SETTLE = timedelta(seconds=60)
#: The most ledger ids one refresh passes.
BATCH = 500_000
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
        """Sum the settled rows after the mark (up to :data:`BATCH` ids), grouped by the
        database; how many ids were passed."""
        cutoff = (now or datetime.now(UTC)) - SETTLE
        db = self.db

        def work(conn: Connection) -> int:
            query = select(rollup_marks.c.ledger_id).where(rollup_marks.c.name == MARK)
            if not db.is_sqlite:
                query = query.with_for_update()
            found = conn.execute(query).scalar()
            mark = 0 if found is None else int(found)
            first = conn.execute(select(func.min(ledger.c.id)).where(ledger.c.id > mark)).scalar()
            if first is None:
                return 0
            last = conn.execute(
                select(func.max(ledger.c.id)).where(
                    ledger.c.id >= first, ledger.c.id < int(first) + BATCH
                )
            ).scalar()
            if last is None:
                return 0
            young = conn.execute(
                select(func.min(ledger.c.id)).where(
                    ledger.c.id > mark, ledger.c.id <= last, ledger.c.created_at >= cutoff
                )
            ).scalar()
            upto = int(last if young is None else young - 1)
            if upto <= mark:
                return 0
            self._add(conn, mark, upto)
            insert = sqlite_insert if db.is_sqlite else pg_insert
            upsert = insert(rollup_marks).values(
                name=MARK, ledger_id=upto, updated_at=datetime.now(UTC)
            )
            conn.execute(
                upsert.on_conflict_do_update(
                    index_elements=[rollup_marks.c.name],
                    set_={
                        "ledger_id": upsert.excluded.ledger_id,
                        "updated_at": upsert.excluded.updated_at,
                    },
                )
            )
            return upto - mark

        return db.run(work)

    def _hour(self) -> Any:
        """The hour of a ledger row, as the database truncates it."""
        if self.db.is_sqlite:  # UTC wall time as text: 'YYYY-MM-DD HH...'
            return func.substr(ledger.c.created_at, literal_column("1"), literal_column("13"))
        return func.date_trunc(literal_column("'hour'"), ledger.c.created_at)

    def _read_hour(self, value: Any) -> datetime:
        if isinstance(value, datetime):
            return hour_of(value if value.tzinfo else value.replace(tzinfo=UTC))
        return datetime.strptime(str(value), "%Y-%m-%d %H").replace(tzinfo=UTC)

    def _cells(self, conn: Connection, after: int, upto: int | None) -> list[tuple[Key, Sums]]:
        """The sums of the ledger rows with ids after ``after`` (up to ``upto``), by the
        database's own grouping: by hour, table and wager, and by hour and table as a
        whole (its rounds counted once each)."""
        hour = self._hour().label("hour")
        ids = [ledger.c.id > after] + ([] if upto is None else [ledger.c.id <= upto])
        rows = (
            *ids,
            ledger.c.kind.in_(_KINDS),
            ledger.c.round_id.is_not(None),
            ledger.c.table_ref.is_not(None),
        )
        stake = ledger.c.kind == "stake"
        staked = func.sum(case((stake, -ledger.c.amount), else_=0))
        paid = func.sum(case((stake, 0), else_=ledger.c.amount))
        by_wager = conn.execute(
            select(
                hour,
                ledger.c.table_ref,
                func.coalesce(ledger.c.wager, literal_column("''")),
                func.sum(case((stake, 1), else_=0)),
                staked,
                paid,
                func.sum(case((stake, cast(ledger.c.amount, Double) * ledger.c.amount), else_=0.0)),
            )
            .where(*rows)
            .group_by(hour, ledger.c.table_ref, func.coalesce(ledger.c.wager, literal_column("''")))
        ).all()
        whole = conn.execute(
            select(
                hour,
                ledger.c.table_ref,
                func.count(func.distinct(case((stake, ledger.c.round_id), else_=None))),
                staked,
                paid,
            )
            .where(*rows)
            .group_by(hour, ledger.c.table_ref)
        ).all()
        cells: list[tuple[Key, Sums]] = [
            ((self._read_hour(h), str(ref), str(wager)), Sums(int(n), int(s), int(p), float(q)))
            for h, ref, wager, n, s, p, q in by_wager
        ]
        cells += [
            ((self._read_hour(h), str(ref), WHOLE), Sums(int(n), int(s), int(p)))
            for h, ref, n, s, p in whole
        ]
        return cells

    def _add(self, conn: Connection, mark: int, upto: int) -> None:
        """Add the rows with ids in (``mark``, ``upto``] to the sums."""
        insert = sqlite_insert if self.db.is_sqlite else pg_insert
        for (hour_at, ref, wager), cell in self._cells(conn, mark, upto):
            statement = insert(ledger_hours).values(
                hour=hour_at,
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

    def catch_up(self) -> None:
        """Refresh until the settled rows are all summed."""
        while self.refresh() > 0:
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
            end = None if until is None else hour_of(until)
            for (hour, ref, wager), cell in self._tail(conn).items():
                if hour >= start and (end is None or hour < end):
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
        return dict(self._cells(conn, self.mark(conn), None))
