"""The integrity monitor over a million rounds of fair tables dealt through the
application's own tables.

``python benchmarks/integrity_monitor.py [--rounds N] [--window W] [--db URL] [--seed S]
[--keep FILE] [--covering-index]`` deals ``N`` rounds (default 1,000,000) at fair tables
of the four house games and of a lab variant of punto banco, one person at each, through
the web's house tables (:class:`~cardroom.app.tables.stored.StoredTables`, no HTTP; each
decision of 21-24-27 the game's basic strategy's), every wager staked at 10, 20 or 50 in
turn, the tables taking turns (21-24-27 one round for every three of the others), 250
rounds to a transaction.  Every ``W`` rounds (default
10,000) a window of time ends.  Then the monitor judges every window and the whole run;
the script prints the rounds, the verdicts and the alerts at the limits 4 and 3 beside
the numbers their false-alarm rates give, the alerts ``|z| > 4`` alone would raise (the
long tail of finnish27's bonus), and the timings: the dealing, the monitor's grouped
query over the whole run, its judging.  ``--covering-index`` times the query again with
an index on ``ledger (round_id, kind, wager, amount)`` made in this database only.

The database is a new SQLite file in a temporary folder (``--keep FILE`` keeps it there),
or ``--db URL`` (PostgreSQL: an empty database).  A million rounds take about 17 minutes
to deal on one core, and the checks a minute or two more (docs/integrity.md).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import event, inspect, text

from cardroom.app.operators.integrity import (
    IntegrityMonitor,
    Verdict,
    Window,
    false_alarm_rate,
    read_wager_tallies,
    wager_tally_query,
)
from cardroom.app.tables.stored import StoredTables
from cardroom.app.variants import Variants
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler
from cardroom.games import GameInfo, get_game, house_games
from cardroom.storage import Database

AMOUNTS = (10, 20, 50)
BATCH = 250


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000, metavar="N")
    parser.add_argument("--window", type=int, default=10_000, metavar="W")
    parser.add_argument("--db", metavar="URL", help="a database URL (default: a new SQLite file)")
    parser.add_argument("--keep", metavar="FILE", help="keep the SQLite file here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--covering-index", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1 or args.window < 1:
        parser.error("--rounds and --window: at least 1")
    with tempfile.TemporaryDirectory() as folder:
        if args.db:
            db = Database.open(args.db)
        else:
            path = Path(args.keep) if args.keep else Path(folder) / "integrity.sqlite3"
            db = Database.open(path=path)
        with db:
            run(db, args)
    return 0


class Floor:
    """The fair tables: one person at each game's table, and one at a variant's.  A game
    where the person decides deals one round for every three of the others (each of its
    decisions is a request of its own, which sets the round up again from the database:
    its rounds cost several times as much)."""

    def __init__(self, db: Database, seed: int) -> None:
        self.db = db
        wallet = Wallet(db)
        games = house_games()
        rules = {game.id: game.default_rules() for game in games}
        seeds = itertools.count(seed * 1_000_003)
        self.tables = StoredTables(wallet, rules, lambda: SeededShuffler(next(seeds)), Variants(db))
        punto = get_game("punto-banco")
        variant = Variants(db).save(punto, replace(rules[punto.id], tie_pays=Fraction(9)))
        self.seats: list[tuple[int, GameInfo, str | None, tuple[str, ...], Any]] = []
        self.turns: list[int] = []
        for n, game in enumerate([*games, punto]):
            account = wallet.accounts.open_account(f"bench{n}", Fraction(10**8)).id
            at = variant if n == len(games) else None
            strategy = game.player_strategy() if game.player_strategy is not None else None
            self.seats.append((account, game, at, game.wagers(rules[game.id]), strategy))
            self.turns += [n] * (1 if game.decisions else 3)
        self.dealt = [0] * len(self.seats)

    def deal(self, rounds: int, start: int) -> None:
        """``rounds`` rounds, the tables taking turns (round ``start`` on)."""
        tables = self.tables
        for first in range(start, start + rounds, BATCH):
            with self.db.write():
                for n in range(first, min(start + rounds, first + BATCH)):
                    seat = self.turns[n % len(self.turns)]
                    account, game, variant, wagers, strategy = self.seats[seat]
                    turn = self.dealt[seat]
                    self.dealt[seat] += 1
                    bets = {
                        w: Fraction(AMOUNTS[(turn + i) % len(AMOUNTS)])
                        for i, w in enumerate(wagers)
                    }
                    live = tables.place(account, "bench", game, bets, variant=variant).live
                    while live is not None and not live.is_over:
                        live = tables.act(account, live.id, strategy(live.engine).value).live


def created_at_index(db: Database) -> None:
    """The index of rounds by the time they began, which finds a window's rounds (migration
    0007 makes it): made here on a database from before it, and said."""
    found = inspect(db.engine).get_indexes("rounds")
    if any(index["column_names"] == ["created_at"] for index in found):
        return
    print("(no index on rounds.created_at in this database: made here, as migration 0007 does)")
    with db.write() as conn:
        conn.execute(text("CREATE INDEX ix_rounds_created_at ON rounds (created_at)"))


def run(db: Database, args: argparse.Namespace) -> None:
    created_at_index(db)
    floor = Floor(db, args.seed)
    monitor = IntegrityMonitor(db, floor.tables.rules_for)
    marks = [datetime.now(UTC)]
    dealt = 0
    started = time.perf_counter()
    while dealt < args.rounds:
        now = min(args.window, args.rounds - dealt)
        floor.deal(now, dealt)
        dealt += now
        marks.append(datetime.now(UTC))
        elapsed = time.perf_counter() - started
        print(
            f"\r{dealt:,} rounds dealt, {1000 * elapsed / dealt:.3f} ms a round",
            end="",
            file=sys.stderr,
            flush=True,
        )
    dealing = time.perf_counter() - started
    print(file=sys.stderr)
    print(f"{dealt:,} rounds dealt in {dealing:.0f} s ({1000 * dealing / dealt:.3f} ms a round)")

    whole = Window(marks[0], marks[-1])
    started = time.perf_counter()
    with db.read() as conn:
        tallies = read_wager_tallies(conn, whole)
    query = time.perf_counter() - started
    started = time.perf_counter()
    report = monitor.judge_all(tallies, whole)
    judging = time.perf_counter() - started
    print(
        f"the monitor over all {dealt:,} rounds: the query {query:.2f} s "
        f"({len(tallies)} tallies), the judging {judging:.2f} s (exact figures counted once)"
    )
    started = time.perf_counter()
    report = monitor.check(whole.since, whole.until)
    print(f"the whole check again: {time.perf_counter() - started:.2f} s")
    show(report.verdicts)

    windows = [Window(a, b) for a, b in itertools.pairwise(marks)]
    verdicts: list[Verdict] = []
    started = time.perf_counter()
    for window in windows:
        verdicts += monitor.check(window.since, window.until).verdicts
    per_window = (time.perf_counter() - started) / len(windows)
    print(
        f"{len(windows)} windows of {args.window:,} rounds: {len(verdicts)} verdicts, "
        f"{per_window:.3f} s a window's check"
    )
    for limit in (4.0, 3.0):
        rate = false_alarm_rate(limit)
        alerts = [v for v in verdicts if v.p < rate]
        plain = [v for v in verdicts if abs(v.z) > limit]
        expected = rate * len(verdicts)
        print(
            f"  limit {limit:g}: {len(alerts)} alerts, {expected:.2f} expected "
            f"(false-alarm rate {rate:.3g}); |z| > {limit:g} alone: {len(plain)}"
        )
        for verdict in alerts[:10]:
            print(f"    {verdict.text}")
    whole_alerts = [v for v in report.verdicts if v.alert]
    print(f"the whole run: {len(report.verdicts)} verdicts, {len(whole_alerts)} alerts")

    if args.covering_index and db.is_sqlite:
        explain(db, whole)
        with db.write() as conn:
            conn.execute(
                text(
                    "CREATE INDEX IF NOT EXISTS ix_bench_ledger_round_money "
                    "ON ledger (round_id, kind, wager, amount)"
                )
            )
        for _ in range(2):
            started = time.perf_counter()
            with db.read() as conn:
                read_wager_tallies(conn, whole)
            print(f"the query with a covering index: {time.perf_counter() - started:.2f} s")
        explain(db, whole)


def explain(db: Database, window: Window) -> None:
    """SQLite's plan of the monitor's grouped query over ``window``."""

    def planned(*args: Any) -> tuple[str, Any]:
        return f"EXPLAIN QUERY PLAN {args[2]}", args[3]

    games = [game.id for game in house_games()]
    event.listen(db.engine, "before_cursor_execute", planned, retval=True)
    try:
        with db.read() as conn:
            for row in conn.execute(wager_tally_query(window, games)):
                print(f"    plan: {row[-1]}")
    finally:
        event.remove(db.engine, "before_cursor_execute", planned)


def show(verdicts: tuple[Verdict, ...]) -> None:
    for verdict in verdicts:
        hold, exact = float(verdict.hold) * 100, float(verdict.expected_hold) * 100
        print(
            f"  {verdict.key:35s} {verdict.wager:12s} {verdict.rounds:9,d} rounds  "
            f"hold {hold:8.3f}%  exact {exact:7.3f}%  z {verdict.z:+6.2f}  p {verdict.p:.3g}"
        )


if __name__ == "__main__":
    sys.exit(main())
