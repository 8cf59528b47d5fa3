"""A flood of sign-ins against a signed-in player's bets, on a real ``cardroom serve``.

Starts ``cardroom serve`` on a free loopback port (a new SQLite file unless ``--db``
names a database), registers a player who bets (punto banco, 10 on the player and 10 on
the banker) one round after another, and meanwhile sends ``--flood`` sign-ins at once,
each for a name that does not exist and each from its own loopback address (127.0.1.x,
so that the throttle's per-address limit does not stop them before their Argon2
check).  It prints the bets' latencies before and during the flood, how the sign-ins
were answered, and the memory of the server with its child processes (the password
pool's workers).  Run on demand; it asserts nothing::

    python benchmarks/bench_signin_flood.py [--flood 100] [--workers 1] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it (from /proc)."""
    found = [pid]
    for one in found:
        for task in Path(f"/proc/{one}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            found.extend(int(c) for c in children if int(c) not in found)
    return found


def rss_mib(pid: int) -> float:
    """The resident memory of ``pid`` and its descendants, in MiB."""
    total = 0
    for one in descendants(pid):
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def show(label: str, latencies: list[float]) -> str:
    ms = [v * 1000 for v in latencies]
    return (
        f"{label}: {len(ms)} bets, p50 {statistics.median(ms):.1f} ms, "
        f"p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--db", default=None)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cardroom-flood-"))
    db = options.db or f"sqlite:///{folder / 'flood.sqlite3'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "cardroom.terminal.cli", "serve", "--port", str(port)]
    command += ["--db", db]
    if options.workers != 1:
        command += ["--workers", str(options.workers)]
    log = (folder / "server.log").open("w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/api/games", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        player = httpx.Client(base_url=base, timeout=120)
        name = f"bettor{os.getpid()}"
        signed = player.post("/api/accounts", json={"username": name, "password": "pw" * 8})
        signed.raise_for_status()
        csrf = signed.json()["csrf_token"]

        def bet() -> float:
            start = time.perf_counter()
            answer = player.post(
                "/api/games/punto-banco/rounds",
                json={"bets": {"player": "10", "banker": "10"}},
                headers={"X-CSRF-Token": csrf},
            )
            took = time.perf_counter() - start
            if answer.status_code != 201:
                raise SystemExit(f"a bet was answered {answer.status_code}: {answer.text}")
            return took

        for _ in range(30):
            bet()
        quiet = [bet() for _ in range(200)]
        idle_rss = rss_mib(server.pid)

        flood_done = threading.Event()
        statuses: Counter[int] = Counter()
        lock = threading.Lock()
        go = threading.Barrier(options.flood + 1)

        def sign_in(n: int) -> None:
            address = f"127.0.{1 + n // 250}.{1 + n % 250}"
            transport = httpx.HTTPTransport(local_address=address)
            with httpx.Client(base_url=base, transport=transport, timeout=300) as client:
                go.wait()
                try:
                    answer = client.post(
                        "/api/login", json={"username": f"nobody{n}", "password": "guess" * 3}
                    )
                    status = answer.status_code
                except httpx.TransportError:
                    status = 0
            with lock:
                statuses[status] += 1

        threads = [threading.Thread(target=sign_in, args=(n,)) for n in range(options.flood)]
        for thread in threads:
            thread.start()
        peak = [idle_rss]

        def sample() -> None:
            while not flood_done.is_set():
                peak[0] = max(peak[0], rss_mib(server.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        go.wait()
        started = time.perf_counter()
        during: list[float] = []

        def flood_running() -> bool:
            return any(t.is_alive() for t in threads)

        while flood_running():
            during.append(bet())
        took = time.perf_counter() - started
        flood_done.set()
        sampler.join()
        print(
            f"{options.flood} sign-ins at once (unknown names, one address each), "
            f"{options.workers} server process(es), database {db.split(':')[0]}"
        )
        print(show("quiet  ", quiet))
        print(show("flooded", during))
        print(f"the flood took {took:.1f} s; sign-ins answered {dict(sorted(statuses.items()))}")
        print(f"server memory (with its children): {idle_rss:.0f} MiB idle, {peak[0]:.0f} MiB peak")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    main()
