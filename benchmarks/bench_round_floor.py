"""The least a web round can cost: the share of the HTTP ceiling with the round left out.

``python benchmarks/bench_round_floor.py [--processes 2] [--connections 200] [--seconds 10]
[--statements 0,1,3,5] [--repeat 2]`` serves the web table as ``make bench-load`` does
(``cardroom serve --workers N`` on a throwaway PostgreSQL cluster) with one more route,
``GET /bench/trips?n=K``, added to each server process for this benchmark only. It does what
every round does around its own work and nothing else: the hop to one of the process's
round threads (:mod:`cardroom.web.round_threads`), a connection from the pool, and ``K``
statements (``SELECT 1``, prepared) in one transaction, then a small JSON answer. wrk
(one thread a connection, as ``bench_load.py``) measures the ceiling (``GET /api/games``,
signed in, no database) and each ``K`` in turn, ``--repeat`` times; it prints each one's
answers a second, its share of the ceiling (against the mean of the ceiling's runs) and
the CPU an answer costs the server and PostgreSQL.

A house round makes about seven trips to the database with BEGIN and COMMIT
(docs/benchmarks.md), as ``K = 5`` does: that run's share of the ceiling is the most a
round's could be if its own work (finding the person, dealing, its record and words, the
wallet's checks, PostgreSQL's writes) cost nothing. It takes about a minute per
repeat; it needs what ``make bench-load`` needs.
"""

from __future__ import annotations

import sys

if sys.argv[1:2] == ["serve"]:
    # The serve command of this benchmark, in the supervisor and (re-imported as the
    # spawned workers' main module) in each worker: cardroom's, with the route of trips.
    from typing import Any

    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    import cardroom.web.server as server
    from cardroom.terminal.cli import main as cardroom_main

    async def trips(request: Request) -> Response:
        statements = int(request.query_params.get("n", "0"))
        services = request.app.state.services

        def work() -> None:
            def transaction(conn: Any) -> None:
                raw = conn.connection.driver_connection
                for _ in range(statements):
                    raw.execute("SELECT 1", prepare=True).fetchall()

            services.db.run(transaction)

        await services.rounds.run(work)
        return JSONResponse({"statements": statements, "balance": "1000"})

    built = server.build_app

    def build_app(options: Any, db: Any = None, rules: Any = None) -> Any:
        app = built(options, db, rules)
        app.router.routes.insert(0, Route("/bench/trips", trips, methods=["GET"]))
        return app

    server.build_app = build_app  # type: ignore[assignment]
    if __name__ == "__main__":
        sys.argv[0] = "cardroom"
        sys.exit(cardroom_main())

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_load


def wrk(url: str, connections: int, seconds: int, cookie: str) -> float:
    """wrk's answers a second (every answer must be a 200)."""
    command = [
        bench_load.wrk_command(),
        f"-t{connections}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--timeout=10s",
        "-H",
        f"Cookie: {bench_load.COOKIE}={cookie}",
        url,
    ]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise bench_load.SetupError(f"wrk saw errors on {url}:\n{out}")
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if found is None:
        raise bench_load.SetupError(f"wrk's output has no rate:\n{out}")
    return float(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--statements", default="0,1,3,5", help="K of each floor run")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    counts = [int(k) for k in args.statements.split(",")]
    paths = ["/api/games", *(f"/bench/trips?n={k}" for k in counts)]
    rates: dict[str, list[float]] = {path: [] for path in paths}
    server_ms: dict[str, list[float]] = {path: [] for path in paths}
    pg_ms: dict[str, list[float]] = {path: [] for path in paths}
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            bench_load.Postgres(durable=False, max_connections=100) as pg,
        ):
            where = bench_load.Server(pg.url_text, args.processes, True, Path(folder, "log"))
            where.command = [
                sys.executable,
                __file__,
                "serve",
                "--db",
                pg.url_text,
                "--port",
                str(where.port),
                "--workers",
                str(args.processes),
            ]
            with where as served:
                [account] = bench_load.register(served.url, ["floor"], threads=1)
                roots = {"server": served.pid, "postgres": pg.postmaster}
                wrk(served.url + "/bench/trips?n=1", args.connections, 2, account.cookie)
                for _ in range(args.repeat):
                    for path in paths:
                        window = bench_load.CpuWindow(roots)
                        window.start()
                        url = served.url + path
                        rate = wrk(url, args.connections, args.seconds, account.cookie)
                        window.stop()
                        answers = rate * window.wall
                        rates[path].append(rate)
                        server_ms[path].append(1000 * window.tree_seconds("server") / answers)
                        pg_ms[path].append(1000 * window.tree_seconds("postgres") / answers)
                        print(f"  {path}: {rate:,.0f}/s", flush=True)
    except bench_load.SetupError as err:
        print(f"bench_round_floor: {err}", file=sys.stderr)
        return 2
    ceiling = sum(rates["/api/games"]) / len(rates["/api/games"])
    print(
        f"\n{args.processes} processes, {args.connections} connections, "
        f"{args.seconds} s windows, {args.repeat} of each"
    )
    print(f"{'route':<22}{'answers/s':>12}{'of ceiling':>12}{'server ms':>11}{'PG ms':>8}")
    for path in paths:
        mean = sum(rates[path]) / len(rates[path])
        server = sum(server_ms[path]) / len(server_ms[path])
        database = sum(pg_ms[path]) / len(pg_ms[path])
        print(f"{path:<22}{mean:>12,.0f}{mean / ceiling:>12.1%}{server:>11.2f}{database:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
