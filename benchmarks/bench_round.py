"""The CPU of one house-game round in the web app, in-process, on PostgreSQL.

``python benchmarks/bench_round.py [--rounds N] [--inline] [--profile FILE]`` starts a
throwaway PostgreSQL cluster (as the storage tests do), builds the app on it, opens two
accounts (punto banco and finnish27, 10 on each of two wagers, as ``make bench-load``
bets) and sends ``POST /api/games/GAME/rounds`` straight to the ASGI app, one after
another, with no sockets and no uvicorn. It prints the wall time and this process's CPU
per round. ``--inline`` runs the round's work on the event loop's thread instead of a
worker thread (no hand-off: steadier, and what cProfile sees whole); ``--profile``
writes cProfile's stats (timed by CPU, not wall time) to FILE.

On a shared machine the CPU per round varies by a tenth from run to run: compare two
versions by alternating runs of each.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BETS = {"punto-banco": ("player", "banker"), "finnish27": ("player", "dealer")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, metavar="N")
    parser.add_argument("--inline", action="store_true", help="no worker thread")
    parser.add_argument("--profile", metavar="FILE", help="cProfile's stats (by CPU)")
    args = parser.parse_args()

    from argon2 import Parameters, PasswordHasher, Type

    from cardroom.app.sessions import Sessions
    from cardroom.app.wallet import Wallet
    from cardroom.storage import Database
    from cardroom.web.app import create_app
    from cardroom.web.edges import HouseEdges, analyser_means
    from tests.storage import pgserver

    if args.inline:
        from cardroom.web.round_threads import RoundThreads

        async def inline(self: RoundThreads, work: Any) -> Any:
            return work()

        RoundThreads.run = inline  # type: ignore[method-assign]

    binaries = pgserver.bin_dir()
    if binaries is None:
        print(pgserver.MISSING, file=sys.stderr)
        return 2
    cluster = pgserver.Cluster(binaries)
    server = cluster.start()
    url = pgserver.create_database(server)
    try:
        db = Database.open(url.render_as_string(hide_password=False))
        cheap = Parameters(Type.ID, 19, 16, 32, time_cost=1, memory_cost=1024, parallelism=1)
        sessions = Sessions(db, Wallet(db), PasswordHasher.from_parameters(cheap))
        edges = HouseEdges(analyser_means, in_process=True)
        app = create_app(db, house_edges=edges, sessions=sessions)
        wallet = Wallet(db)
        people = []
        for n, (game, wagers) in enumerate(BETS.items()):
            account = wallet.accounts.open_account(f"bench{n}", Fraction(10**9))
            token, session = sessions.begin(account.id)
            body = json.dumps({"bets": {w: "10" for w in wagers}}).encode()
            people.append((game, token, session.csrf_token, body))
        asyncio.run(play(app, people, args.rounds, args.profile))
        edges.close()
        db.close()
    finally:
        pgserver.drop_database(server, url)
        cluster.stop()
    return 0


async def play(
    app: Any, people: list[tuple[str, str, str, bytes]], rounds: int, profile: str | None
) -> None:
    async def one(game: str, token: str, csrf: str, body: bytes) -> None:
        path = f"/api/games/{game}/rounds"
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
            "headers": [
                (b"host", b"bench"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cookie", f"cardroom_session={token}".encode()),
                (b"x-csrf-token", csrf.encode()),
            ],
        }
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        if status != [201]:
            raise SystemExit(f"a round was answered {status}")

    async with app.router.lifespan_context(app):
        for n in range(50):  # warm: the statements prepared, the shoes made
            await one(*people[n % len(people)])
        profiler = cProfile.Profile(time.process_time) if profile else None
        wall, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        for n in range(rounds):
            await one(*people[n % len(people)])
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{rounds} rounds: wall {1000 * wall / rounds:.3f} ms a round, "
        f"CPU {1000 * cpu / rounds:.3f} ms a round"
    )


if __name__ == "__main__":
    sys.exit(main())
