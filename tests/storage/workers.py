"""Real processes that use one database at the same time, for the concurrency tests.

Run as ``python -m tests.storage.workers TASK ARGS...``: each worker opens the
database, prints ``ready``, waits for a line on its standard input (so that all the
workers start their work at the same moment), does its task and prints its result as
one line of JSON.

Tasks:
- ``open URL``: open (and so migrate) the database.
- ``stakes URL ACCOUNT NAME CENTS,CENTS,...``: open a round with one stake of each
  amount, one after the other; which were accepted (with the round's id) and refused.
- ``keys URL ACCOUNT CENTS KEY,KEY,...``: open a round of CENTS with each idempotency key.
- ``alike URL NAME ACCOUNT``: register NAME, then top ACCOUNT up (below 10); which of the
  two were done.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardroom.app.wallet import InsufficientFunds, LimitReached, NameTaken, TopUpRefused, Wallet
from cardroom.storage import Database
from cardroom.storage.migrate import current_revisions

REPO = Path(__file__).resolve().parents[2]

#: A guard against a hung worker (not a timing assertion: a healthy run takes seconds).
PATIENCE = 300


def run_together(tasks: list[list[str]]) -> list[Any]:
    """Start a worker per task, let them all begin at once, and return their results."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.storage.workers", *task],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        for task in tasks
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            line = worker.stdout.readline()
            assert line == "ready\n", f"a worker did not start: {line!r} {worker.stderr}"
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        results = []
        for worker in workers:
            out, err = worker.communicate(timeout=PATIENCE)
            assert worker.returncode == 0, f"a worker failed:\n{err}"
            results.append(json.loads(out))
        return results
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


def _stakes(wallet: Wallet, account_id: int, name: str, amounts: list[int]) -> dict[str, Any]:
    accepted, refused = [], []
    pauses = random.Random(name)
    for index, cents in enumerate(amounts):
        # A moment between stakes, as a person or a web request would leave: SQLite's
        # waiting writer sleeps in its busy handler, and without a gap the process that
        # holds the lock would take it again at once and run all its stakes in one go.
        time.sleep(pauses.uniform(0, 0.003))
        try:
            opened = wallet.rounds.open_round(
                account_id,
                "punto-banco",
                {"banker": Fraction(cents, 100)},
                {"worker": name, "attempt": index},
                idempotency_key=f"{name}-{index}",
            )
        except (InsufficientFunds, LimitReached):
            refused.append(index)
        else:
            assert not opened.existing
            accepted.append([index, opened.id])
    return {"accepted": accepted, "refused": refused}


def _keys(wallet: Wallet, account_id: int, cents: int, keys: list[str]) -> dict[str, Any]:
    rounds = []
    for key in keys:
        opened = wallet.rounds.open_round(
            account_id, "punto-banco", {"banker": Fraction(cents, 100)}, {}, idempotency_key=key
        )
        rounds.append([key, opened.id, opened.existing])
    return {"rounds": rounds}


def main(task: str, url: str, *args: str) -> None:
    if task == "open":
        print("ready", flush=True)
        sys.stdin.readline()
        with Database.open(url) as db, db.read() as conn:
            print(json.dumps({"opened": sorted(current_revisions(conn))}))
        return
    with Database.open(url) as db:
        wallet = Wallet(db)
        print("ready", flush=True)
        sys.stdin.readline()
        if task == "stakes":
            account, name, amounts = args
            result = _stakes(wallet, int(account), name, [int(a) for a in amounts.split(",")])
        elif task == "keys":
            account, cents, keys = args
            result = _keys(wallet, int(account), int(cents), keys.split(","))
        elif task == "alike":
            name, account = args
            result = {}
            try:
                wallet.accounts.open_account(name)
                result["registered"] = True
            except NameTaken:
                result["registered"] = False
            try:
                wallet.accounts.top_up(int(account), Fraction(10))
                result["topped_up"] = True
            except TopUpRefused:
                result["topped_up"] = False
        else:
            raise SystemExit(f"no task {task!r}")
        print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
