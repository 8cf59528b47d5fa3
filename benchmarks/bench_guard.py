"""What the web table's edge middlewares cost per request (``cardroom/web/guard.py``).

Two measures, on one core, in this process (no network):

1. the middlewares alone: a bet's request (its headers and JSON body) through the
   security headers, the body limit and the JSON checks around an app that answers at
   once, against the body limit alone, in microseconds per request;
2. the round endpoint itself: ``POST /api/games/punto-banco/rounds`` through the whole
   app on a new SQLite file, with and without the two middlewares, in rounds a second.

Run on demand (``python benchmarks/bench_guard.py [ROUNDS]``); it asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from cardroom.storage import Database
from cardroom.web.app import MAX_BODY, BodyLimit, create_app
from cardroom.web.edges import HouseEdges, analyser_means
from cardroom.web.guard import JsonBodies, SecurityHeaders

BODY = json.dumps({"bets": {"player": "10", "banker": "10"}}).encode()
SCOPE: dict[str, Any] = {
    "type": "http",
    "method": "POST",
    "path": "/api/games/punto-banco/rounds",
    "headers": [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(BODY)).encode()),
        (b"x-csrf-token", b"x" * 43),
        (b"cookie", b"cardroom_session=" + b"y" * 43),
    ],
}


async def answer(scope: Any, receive: Any, send: Any) -> None:
    await receive()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"9")]
    await send({"type": "http.response.start", "status": 201, "headers": headers})
    await send({"type": "http.response.body", "body": b'{"id": 1}'})


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": BODY, "more_body": False}


async def send(message: Any) -> None:
    pass


async def per_request(app: Any, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await app(dict(SCOPE), receive, send)
    return (time.perf_counter() - start) / n * 1e6


async def middlewares_alone() -> None:
    bare = BodyLimit(answer, limit=MAX_BODY)
    guarded = SecurityHeaders(BodyLimit(JsonBodies(answer), limit=MAX_BODY))
    added = []
    for _ in range(7):
        without = await per_request(bare, 20_000)
        with_them = await per_request(guarded, 20_000)
        added.append(with_them - without)
    print(
        f"the middlewares alone: {without:.1f} us a request without, {with_them:.1f} us with; "
        f"added: median {statistics.median(added):.1f} us (of 7 runs: "
        f"{', '.join(f'{a:.1f}' for a in sorted(added))})"
    )


async def rounds_per_second(guards: bool, rounds: int) -> float:
    folder = Path(tempfile.mkdtemp(prefix="cardroom-guard-"))
    with Database.open(path=folder / "b.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        app = create_app(db, house_edges=edges)
        if not guards:
            app.user_middleware = [
                m for m in app.user_middleware if m.cls not in (SecurityHeaders, JsonBodies)
            ]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            made = await client.post(
                "/api/accounts", json={"username": "Bench", "password": "a good password"}
            )
            csrf = made.json()["csrf_token"]
            headers = {"X-CSRF-Token": csrf, "content-type": "application/json"}
            wallet = app.state.services.wallet
            account = wallet.accounts.account("Bench")
            wallet.accounts.deposit(account.id, 10**9)
            for _ in range(50):
                await client.post("/api/games/punto-banco/rounds", content=BODY, headers=headers)
            start = time.perf_counter()
            for _ in range(rounds):
                bet = await client.post(
                    "/api/games/punto-banco/rounds", content=BODY, headers=headers
                )
                assert bet.status_code == 201, bet.text
            took = time.perf_counter() - start
        app.state.services.passwords.close()
        edges.close()
    return rounds / took


async def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    await middlewares_alone()
    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(3):
        for guards in (False, True):
            rates[guards].append(await rounds_per_second(guards, rounds))
    without, with_them = max(rates[False]), max(rates[True])
    print(
        f"POST /api/games/punto-banco/rounds, one process, SQLite, {rounds} rounds (best of 3): "
        f"{without:,.0f} rounds/s without the two middlewares, {with_them:,.0f} with "
        f"(with/without {with_them / without:.3f})"
    )


if __name__ == "__main__":
    asyncio.run(main())
