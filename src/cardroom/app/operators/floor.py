"""The floor as the operator sees it now: who is signed in and playing, rounds a minute
by game, the tables in use, and each game's and wager's stakes, payouts, gross gaming
revenue (GGR: staked less paid back) and hold over today, the last 7 and the last 30
days, and GGR and rounds hour by hour.

Every figure is read from the database (the ledger through its hourly sums,
:mod:`cardroom.app.operators.rollup`; the rounds by their index on the time they
began), so every process shows the same floor.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from sqlalchemy import func, select

from cardroom.app.operators.rollup import WHOLE, Rollup, Sums, hour_of
from cardroom.storage.db import Database
from cardroom.storage.schema import chemmy_tables, house_tables, rounds, web_sessions

__all__ = ["Figures", "Floor", "LiveTable", "Period", "game_of", "table_key_of_ref"]

#: A person counts as playing who began a round this recently.
PLAYING = timedelta(minutes=15)
#: Rounds a minute are counted over this much time.
RATE_WINDOW = timedelta(minutes=10)


def table_key_of_ref(ref: str) -> str:
    """A ledger's table reference as a table key (``web:GAME~ID`` is ``GAME~ID``)."""
    return ref.removeprefix("web:")


def game_of(ref: str) -> str:
    """The game of a table reference: the key before any ``~`` or ``:``."""
    key = table_key_of_ref(ref)
    return key.split("~", 1)[0].split(":", 1)[0]


@dataclass(frozen=True)
class Figures:
    """Stakes, payouts and GGR in cents, rounds, and the hold (GGR over stakes)."""

    rounds: int
    staked: int
    paid: int

    @property
    def ggr(self) -> int:
        return self.staked - self.paid

    @property
    def hold(self) -> Fraction | None:
        return None if self.staked == 0 else Fraction(self.ggr, self.staked)

    @staticmethod
    def of(sums: Sums) -> Figures:
        return Figures(sums.rounds, sums.staked, sums.paid)


@dataclass(frozen=True)
class Period:
    """One period's figures: by game, and by (table key, wager)."""

    name: str
    since: datetime
    games: dict[str, Figures]
    wagers: dict[tuple[str, str], Figures]
    total: Figures


@dataclass(frozen=True)
class LiveTable:
    """A table in use now."""

    kind: str
    key: str
    people: int
    detail: str
    seats: list[dict[str, object]] = field(default_factory=list)


class Floor:
    """The floor's figures from ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.rollup = Rollup(db)

    def periods(self, now: datetime | None = None) -> list[Period]:
        """Today (from midnight UTC), the last 7 days and the last 30 days."""
        now = now or datetime.now(UTC)
        self.rollup.catch_up()
        midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        starts = [
            ("today", midnight),
            ("7 days", now - timedelta(days=7)),
            ("30 days", now - timedelta(days=30)),
        ]
        return [self.period(name, since) for name, since in starts]

    def period(self, name: str, since: datetime, until: datetime | None = None) -> Period:
        sums = self.rollup.sums(since, until)
        games: dict[str, Sums] = defaultdict(Sums)
        wagers: dict[tuple[str, str], Figures] = {}
        total = Sums()
        for (ref, wager), cell in sorted(sums.items()):
            if wager == WHOLE:
                games[game_of(ref)].add(cell)
                total.add(cell)
            else:
                wagers[(table_key_of_ref(ref), wager)] = Figures.of(cell)
        return Period(
            name,
            since,
            {g: Figures.of(s) for g, s in sorted(games.items())},
            wagers,
            Figures.of(total),
        )

    def hours(self, days: int = 7, now: datetime | None = None) -> list[tuple[datetime, int, int]]:
        """GGR and rounds hour by hour over the last ``days``, every hour (0 where
        nothing was played)."""
        now = now or datetime.now(UTC)
        since = hour_of(now - timedelta(days=days))
        found = {h: (n, g) for h, n, g in self.rollup.hours(since)}
        out = []
        hour = since
        while hour <= now:
            rounds_, ggr = found.get(hour, (0, 0))
            out.append((hour, rounds_, ggr))
            hour += timedelta(hours=1)
        return out

    def people(self, now: datetime | None = None) -> tuple[int, int]:
        """(People signed in, people who began a round in the last :data:`PLAYING`)."""
        now = now or datetime.now(UTC)
        with self.db.read() as conn:
            signed_in = conn.execute(
                select(func.count(func.distinct(web_sessions.c.account_id))).where(
                    web_sessions.c.expires_at > now
                )
            ).scalar_one()
            playing = conn.execute(
                select(func.count(func.distinct(rounds.c.account_id))).where(
                    rounds.c.created_at > now - PLAYING
                )
            ).scalar_one()
        return int(signed_in), int(playing)

    def rates(self, now: datetime | None = None) -> dict[str, Fraction]:
        """Rounds a minute by game over the last :data:`RATE_WINDOW`."""
        now = now or datetime.now(UTC)
        minutes = Fraction(int(RATE_WINDOW.total_seconds()), 60)
        with self.db.read() as conn:
            rows = conn.execute(
                select(rounds.c.game, func.count())
                .where(rounds.c.created_at > now - RATE_WINDOW)
                .group_by(rounds.c.game)
            ).all()
        return {str(game): Fraction(int(n)) / minutes for game, n in sorted(rows)}

    def tables(self, now: datetime | None = None) -> list[LiveTable]:
        """The house tables dealt at in the last :data:`PLAYING` (by table key, with how
        many people), and every chemin de fer table as its owner last published it."""
        now = now or datetime.now(UTC)
        out = []
        with self.db.read() as conn:
            house = conn.execute(
                select(house_tables.c.game, func.count())
                .where(house_tables.c.updated_at > now - PLAYING)
                .group_by(house_tables.c.game)
            ).all()
            seated = conn.execute(
                select(
                    chemmy_tables.c.table_ref, chemmy_tables.c.owner, chemmy_tables.c.view
                ).order_by(chemmy_tables.c.id)
            ).all()
        for key, people in sorted(house):
            out.append(LiveTable("house", str(key), int(people), "each person's own shoe"))
        for ref, owner, view_text in seated:
            view = json.loads(view_text) if view_text else {}
            seats = [s for s in view.get("seats", []) if s.get("kind") != "empty"]
            bits = []
            if view.get("coup") is not None:
                bits.append(f"coup {view['coup']}")
            if view.get("bank"):
                bits.append(f"bank {view['bank']}")
            bits.append("driven by a process" if owner else "driven by nobody")
            out.append(
                LiveTable(
                    "chemin de fer", str(ref), int(view.get("people", 0)), ", ".join(bits), seats
                )
            )
        return out
