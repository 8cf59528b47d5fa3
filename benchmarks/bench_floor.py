"""The operator's pages with a million rounds in the database.

``python benchmarks/bench_floor.py [--rounds N] [--postgres]`` fills a new database
(SQLite in a temporary folder, or a throwaway PostgreSQL cluster with ``--postgres``)
with N rounds of punto banco (default 1,000,000) spread over the last 30 days across
1,000 accounts, two wagers each, written as the wallet writes them (a round row, its
stake rows and its payout rows) but in bulk.  It signs an operator in and times, each
as the median of 7 requests through the ASGI app (no sockets): the floor page, its JSON,
an account's page, the log and the tables.  The first floor request, which sums the
whole ledger into ``ledger_hours`` once, is timed on its own.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def fill(db: object, rounds: int, accounts: int) -> None:
    from sqlalchemy import insert

    from cardroom.storage.schema import accounts as accounts_table
    from cardroom.storage.schema import ledger
    from cardroom.storage.schema import rounds as rounds_table

    rng = random.Random(7)
    now = datetime.now(UTC)
    start = now - timedelta(days=30)
    with db.write() as conn:  # type: ignore[attr-defined]
        conn.execute(
            insert(accounts_table),
            [
                {
                    "name": f"p{n}",
                    "name_key": f"p{n}",
                    "name_skeleton": f"p{n}",
                    "password_hash": None,
                    "balance": 10**9,
                    "created_at": start,
                }
                for n in range(1, accounts + 1)
            ],
        )
    batch = 20_000
    round_id = 0
    for first in range(0, rounds, batch):
        count = min(batch, rounds - first)
        round_rows = []
        ledger_rows = []
        for n in range(count):
            round_id += 1
            when = start + (now - start) * ((first + n) / rounds) - timedelta(minutes=2)
            account = rng.randrange(1, accounts + 1)
            round_rows.append(
                {
                    "id": round_id,
                    "account_id": account,
                    "game": "punto-banco",
                    "table_ref": "web:punto-banco",
                    "status": "finished",
                    "created_at": when,
                    "updated_at": when,
                    "state": None,
                    "record": None,
                    "idempotency_key": None,
                }
            )
            for wager, pays in (("banker", 195), ("player", 200)):
                ledger_rows.append(
                    {
                        "account_id": account,
                        "created_at": when,
                        "kind": "stake",
                        "amount": -1000,
                        "balance_after": 10**9,
                        "round_id": round_id,
                        "table_ref": "web:punto-banco",
                        "wager": wager,
                        "memo": f"stake on {wager}",
                    }
                )
                if rng.random() < 0.47:
                    ledger_rows.append(
                        {
                            "account_id": account,
                            "created_at": when,
                            "kind": "win",
                            "amount": pays * 10,
                            "balance_after": 10**9,
                            "round_id": round_id,
                            "table_ref": "web:punto-banco",
                            "wager": wager,
                            "memo": f"{wager} won",
                        }
                    )
        with db.write() as conn:  # type: ignore[attr-defined]
            conn.execute(insert(rounds_table), round_rows)
            conn.execute(insert(ledger), ledger_rows)
        print(f"  {first + count:,} rounds written", end="\r", flush=True)
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000, metavar="N")
    parser.add_argument("--postgres", action="store_true", help="on a throwaway PostgreSQL")
    args = parser.parse_args()

    import pyotp
    from argon2 import Parameters, PasswordHasher, Type
    from fastapi.testclient import TestClient

    from cardroom.app.operators.staff import Staff
    from cardroom.storage import Database
    from cardroom.web.app import create_app
    from cardroom.web.edges import HouseEdges, analyser_means

    cheap = Parameters(
        Type.ID, 19, salt_len=16, hash_len=32, time_cost=1, memory_cost=1024, parallelism=1
    )
    with tempfile.TemporaryDirectory() as tmp:
        cluster = None
        if args.postgres:
            from tests.storage import pgserver

            binaries = pgserver.bin_dir()
            if binaries is None:
                print(pgserver.MISSING, file=sys.stderr)
                return 2
            cluster = pgserver.Cluster(binaries)
            url = pgserver.create_database(cluster.start()).render_as_string(hide_password=False)
        else:
            url = f"sqlite:///{Path(tmp) / 'floor.sqlite3'}"
        with Database.open(url) as db:
            began = time.perf_counter()
            fill(db, args.rounds, 1000)
            took = time.perf_counter() - began
            print(f"filled {args.rounds:,} rounds in {took:.0f} s ({url.split(':')[0]})")
            _, secret = Staff(db).add(
                "Olga", PasswordHasher.from_parameters(cheap).hash("password!"), "admin"
            )
            app = create_app(db, house_edges=HouseEdges(analyser_means, in_process=True))
            with TestClient(app) as client:
                code = pyotp.TOTP(secret).now()
                signed = client.post(
                    "/api/operator/login",
                    json={"name": "Olga", "password": "password!", "code": code},
                )
                assert signed.status_code == 200, signed.text
                began = time.perf_counter()
                assert client.get("/operator").status_code == 200
                took = time.perf_counter() - began
                print(f"first floor page (sums the ledger by hour once): {took:.1f} s")
                for path in (
                    "/operator",
                    "/api/operator/floor",
                    "/operator/accounts/17",
                    "/operator/log",
                    "/operator/tables",
                    "/operator/accounts?q=p12",
                ):
                    times = []
                    for _ in range(7):
                        began = time.perf_counter()
                        response = client.get(path)
                        times.append(time.perf_counter() - began)
                        assert response.status_code == 200, (path, response.status_code)
                    median, slowest = statistics.median(times) * 1000, max(times) * 1000
                    print(f"{path:28} median {median:6.1f} ms, slowest {slowest:6.1f} ms")
        if cluster is not None:
            cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
