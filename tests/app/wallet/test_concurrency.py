"""Two real processes take stakes from one account at once: never below zero, nothing lost.

Each worker (:mod:`tests.storage.workers`) opens its own connection to the same database
and, at the same moment as the other, opens 100 rounds with a stake each.  The account
holds less than all 200 stakes, so some must be refused, and which ones depends on how
the two processes interleave: what the test checks holds for every interleaving.
"""

from __future__ import annotations

import random
from fractions import Fraction

from sqlalchemy import func, select

from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import ledger, rounds
from tests.storage.workers import run_together

START = 300  # units; the 200 stakes add up to about 550


def test_200_stakes_from_two_processes_never_overdraw_and_lose_nothing(migrated_url: str) -> None:
    rng = random.Random(27)
    amounts = {name: [rng.randint(50, 500) for _ in range(100)] for name in ("a", "b")}
    assert sum(map(sum, amounts.values())) > START * 100  # not all of them can be covered
    with Database.open(migrated_url) as db:
        ann = Wallet(db).accounts.open_account("Ann", Fraction(START)).id

    results = run_together(
        [
            ["stakes", migrated_url, str(ann), name, ",".join(map(str, cents))]
            for name, cents in amounts.items()
        ]
    )

    accepted: dict[int, tuple[str, int]] = {}  # round id -> (worker, attempt)
    refused: list[int] = []  # the refused stakes, in cents
    for name, result in zip(amounts, results, strict=True):
        assert len(result["accepted"]) + len(result["refused"]) == 100
        for index, round_id in result["accepted"]:
            accepted[round_id] = (name, index)
        refused += [amounts[name][index] for index in result["refused"]]
    taken = sum(amounts[name][index] for name, index in accepted.values())
    assert accepted and refused

    with Database.open(migrated_url) as db:
        wallet = Wallet(db)
        balance = wallet.accounts.balance(ann)
        # the balance is what the accepted stakes left, and it is not below zero ...
        assert balance == Fraction(START * 100 - taken, 100) >= 0
        # ... and every refused stake was more than was left when it was refused
        assert min(refused) > balance * 100
        # every accepted stake is a round with its one stake row; the refused left nothing
        stored = wallet.rounds.unfinished_rounds(ann)
        assert {r.id for r in stored} == set(accepted)
        for stored_round in stored:
            name, index = accepted[stored_round.id]
            assert stored_round.stakes == {"banker": Fraction(amounts[name][index], 100)}
            assert stored_round.state == {"worker": name, "attempt": index}
            assert stored_round.idempotency_key == f"{name}-{index}"
        with db.read() as conn:
            assert conn.execute(select(func.count()).select_from(rounds)).scalar() == len(accepted)
            stakes = conn.execute(
                select(func.count(), func.sum(ledger.c.amount)).where(ledger.c.kind == "stake")
            ).one()
        assert tuple(stakes) == (len(accepted), -taken)
        # the books add up, row by row
        wallet.books.audit(ann)
        rows = wallet.books.ledger(ann, limit=1000)
        assert len(rows) == len(accepted) + 1 and rows[0].balance_after == balance


def test_two_processes_with_the_same_idempotency_keys_open_each_round_once(
    migrated_url: str,
) -> None:
    keys = [f"request-{n}" for n in range(30)]
    with Database.open(migrated_url) as db:
        ann = Wallet(db).accounts.open_account("Ann", Fraction(100)).id

    task = ["keys", migrated_url, str(ann), "100", ",".join(keys)]
    first, second = run_together([task, task])

    for (key, id_a, existing_a), (same_key, id_b, existing_b) in zip(
        first["rounds"], second["rounds"], strict=True
    ):
        assert key == same_key and id_a == id_b
        assert sorted([existing_a, existing_b]) == [False, True]  # one opened it
    with Database.open(migrated_url) as db:
        wallet = Wallet(db)
        assert len(wallet.rounds.unfinished_rounds(ann)) == 30
        assert wallet.accounts.balance(ann) == 70  # each stake taken once
        wallet.books.audit(ann)
