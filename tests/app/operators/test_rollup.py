"""The ledger's hourly sums: a period's figures read from them (with the rows not summed
yet) equal the ledger's own sums, however the refreshes fall, on both databases."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from sqlalchemy import select

from cardroom.app.operators.rollup import WHOLE, Rollup
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import ledger

F = Fraction


def ledger_sums(db: Database) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(stakes made, staked, paid) by (table, wager) straight from the ledger, and each
    table's whole under the wager ``""`` (rounds counted once)."""
    staked: Counter[tuple[str, str]] = Counter()
    paid: Counter[tuple[str, str]] = Counter()
    made: Counter[tuple[str, str]] = Counter()
    rounds: dict[str, set[int]] = {}
    with db.read() as conn:
        for row in conn.execute(select(ledger)):
            if row.round_id is None or row.table_ref is None:
                continue
            for key in ((row.table_ref, row.wager), (row.table_ref, WHOLE)):
                if row.kind == "stake":
                    staked[key] -= row.amount
                    if key[1] != WHOLE:
                        made[key] += 1
                else:
                    paid[key] += row.amount
            if row.kind == "stake":
                rounds.setdefault(row.table_ref, set()).add(row.round_id)
    for table, ids in rounds.items():
        made[(table, WHOLE)] = len(ids)
    return {k: (made[k], staked[k], paid[k]) for k in staked}


def test_the_sums_equal_the_ledger_however_the_refreshes_fall(db: Database) -> None:
    wallet = Wallet(db)
    rng = random.Random(3)
    people = [wallet.accounts.open_account(f"p{n}", F(10_000)).id for n in range(3)]
    rollup = Rollup(db)
    start = datetime.now(UTC) - timedelta(hours=1)
    for n in range(60):
        stakes = {"banker": F(rng.choice([10, 20, 25])), "tie": F(5)}
        paid = {"banker": stakes["banker"] * rng.choice([0, 2, F(195, 100)]), "tie": F(0)}
        table = rng.choice(["web:punto-banco", "web:baccarat27", "web:punto-banco~abc"])
        wallet.rounds.record_round(rng.choice(people), "punto-banco", stakes, paid, {}, table)
        if n % 17 == 5:  # a refresh that sums everything so far, one that sums nothing
            rollup.refresh(datetime.now(UTC) + timedelta(minutes=5))
            rollup.refresh()
        sums = rollup.sums(start)
        expected = ledger_sums(db)
        assert {k: (s.rounds, s.staked, s.paid) for k, s in sums.items()} == expected
    rollup.catch_up()
    sums = rollup.sums(start)
    assert {k: (s.rounds, s.staked, s.paid) for k, s in sums.items()} == ledger_sums(db)
    squares = sum(s.stake_squares for (t, w), s in sums.items() if w == "banker")
    with db.read() as conn:
        direct = sum(
            float(a) ** 2
            for (a,) in conn.execute(
                select(ledger.c.amount).where(ledger.c.kind == "stake", ledger.c.wager == "banker")
            )
        )
    assert squares == direct
    hours = rollup.hours(start)
    assert sum(n for _, n, _ in hours) == 60
