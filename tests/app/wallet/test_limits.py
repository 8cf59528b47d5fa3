"""The limits a person sets, enforced in the transaction of the stake on SQLite and
PostgreSQL: a stake that would pass one is refused with the limit, what is left and when
it resets, and nothing is taken; a lower limit applies at once, a higher one a day later;
the session time limit and the reality check pause play until their time or an
acknowledgement; two processes staking at once cannot pass a limit together."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from sqlalchemy import func, select, text, update

from cardroom.app.limits import LimitError, Limits
from cardroom.app.wallet import LimitReached, RealityCheckDue, Wallet
from cardroom.app.wallet.limits import period_end, period_start
from cardroom.storage import Database
from cardroom.storage.errors import StorageError
from cardroom.storage.schema import accounts, ledger, limit_changes, play_limits, reality_checks
from tests.storage.workers import run_together

F = Fraction
HERE = "127.0.0.1"


def stake(wallet: Wallet, account_id: int, amount: Fraction, key: str | None = None) -> int:
    return wallet.rounds.open_round(
        account_id, "punto-banco", {"banker": amount}, {}, idempotency_key=key
    ).id


def rows(db: Database, account_id: int) -> int:
    with db.read() as conn:
        return int(
            conn.execute(
                select(func.count()).select_from(ledger).where(ledger.c.account_id == account_id)
            ).scalar_one()
        )


def test_a_stake_limit_refuses_the_stake_that_would_pass_it_and_takes_nothing(
    db: Database,
) -> None:
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", F(500)).id
    stake(wallet, ann, F(30))  # before the limit: counted all the same
    state = Limits(db).change(ann, {"stake_day": F(50)}, HERE)
    [day] = [v for v in state.limits if v.kind == "stake_day"]
    assert day.amount == 5000 and day.used == 3000 and not day.pending
    stake(wallet, ann, F(15))
    balance, written = wallet.accounts.balance(ann), rows(db, ann)
    with pytest.raises(LimitReached) as refused:
        stake(wallet, ann, F(10))
    resets = period_end("day", period_start("day", datetime.now(UTC)))
    assert str(refused.value) == (
        f"your daily stake limit of 50 would be passed: 5 of it is left until "
        f"{resets:%Y-%m-%d %H:%M} UTC"
    )
    assert refused.value.details == {
        "limit": "stake_day",
        "left": "5",
        "resets": resets.isoformat(),
    }
    assert wallet.accounts.balance(ann) == balance and rows(db, ann) == written
    stake(wallet, ann, F(5))  # exactly to the limit
    with pytest.raises(LimitReached):
        stake(wallet, ann, F("0.01"))


def test_a_loss_limit_counts_what_came_back(db: Database) -> None:
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", F(500)).id
    Limits(db).change(ann, {"loss_week": F(20)}, HERE)
    won = stake(wallet, ann, F(20))
    wallet.rounds.settle_round(won, {"banker": F(39)}, {})  # 19 up
    stake(wallet, ann, F(39))  # a loss of 20 at most
    with pytest.raises(LimitReached, match="weekly loss limit of 20 would be passed: 0 of it"):
        stake(wallet, ann, F(1))
    # a chemin de fer buy-in counts, and its cash-out comes back against it
    with pytest.raises(LimitReached):
        wallet.seats.buy_in(ann, F(5), "chemmy-1")


def test_lower_at_once_higher_a_day_later_and_every_change_kept(db: Database) -> None:
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", F(500)).id
    limits = Limits(db)
    limits.change(ann, {"stake_month": F(100)}, HERE)
    state = limits.change(ann, {"stake_month": F(200)}, HERE)  # a raise waits
    [month] = [v for v in state.limits if v.kind == "stake_month"]
    assert month.amount == 10000 and month.pending and month.next_amount == 20000
    assert month.next_at is not None
    assert (
        timedelta(hours=23, minutes=59) < month.next_at - datetime.now(UTC) <= timedelta(hours=24)
    )
    stake(wallet, ann, F(100))
    with pytest.raises(LimitReached):
        stake(wallet, ann, F(1))
    # a day later (the pending change's time moved back) the raise applies
    with db.write() as conn:
        conn.execute(
            update(play_limits)
            .where(play_limits.c.account_id == ann)
            .values(next_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    stake(wallet, ann, F(1))
    # removing one waits too; lowering it meanwhile applies at once and ends the wait
    limits.change(ann, {"stake_month": None}, HERE)
    state = limits.change(ann, {"stake_month": F(101)}, HERE)
    [month] = [v for v in state.limits if v.kind == "stake_month"]
    assert month.amount == 10100 and not month.pending
    with pytest.raises(LimitReached):
        stake(wallet, ann, F(1))
    assert [(c.kind, c.amount) for c in reversed(state.history)] == [
        ("stake_month", 10000),
        ("stake_month", 20000),
        ("stake_month", None),
        ("stake_month", 10100),
    ]
    with pytest.raises(StorageError), db.write() as conn:
        conn.execute(update(limit_changes).values(amount=0))


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"loss_day": F(-1)}, "cannot be negative"),
        ({"stake_week": F(1, 1000)}, "not a whole number of cents"),
        ({"loss_year": F(1)}, "there is no limit 'loss_year'"),
        ({"session": 2}, "from 5 to 1440 minutes"),
    ],
)
def test_a_bad_limit_is_refused_and_changes_nothing(
    db: Database, changes: dict[str, Fraction | int], words: str
) -> None:
    ann = Wallet(db).accounts.open_account("Ann", F(50)).id
    with pytest.raises(LimitError, match=words):
        Limits(db).change(ann, {"loss_month": F(5), **changes}, HERE)
    with pytest.raises(LimitError, match="every 15, 30, 60 minutes, or never"):
        Limits(db).reality_every(ann, 20, HERE)
    assert Limits(db).state(ann).history == ()


def test_the_session_time_limit_and_the_reality_check_pause_play(db: Database) -> None:
    wallet = Wallet(db)
    limits = Limits(db)
    ann = wallet.accounts.open_account("Ann", F(500)).id
    assert limits.state(ann).reality_every == 60  # a new account's
    stake(wallet, ann, F(10))
    # an hour on, the reality check is due: the next stake waits for it
    with db.write() as conn:
        conn.execute(
            update(accounts)
            .where(accounts.c.id == ann)
            .values(
                session_started=datetime.now(UTC) - timedelta(minutes=61),
                reality_due=datetime.now(UTC) - timedelta(minutes=1),
            )
        )
    written = rows(db, ann)
    with pytest.raises(RealityCheckDue) as due:
        stake(wallet, ann, F(10))
    assert str(due.value) == (
        "reality check: you have played for 61 minutes this session and are 10 down; "
        "acknowledge it to play on"
    )
    assert due.value.details["minutes"] == 61 and due.value.details["net"] == "-10"
    assert rows(db, ann) == written
    seen = limits.acknowledge(ann, HERE)
    assert (seen.minutes, seen.net) == (61, -1000)
    stake(wallet, ann, F(10))
    with pytest.raises(LimitError, match="no reality check is due"):
        limits.acknowledge(ann, HERE)
    with db.read() as conn:
        [check] = conn.execute(select(reality_checks)).all()
        due_next = conn.execute(select(accounts.c.reality_due).where(accounts.c.id == ann)).scalar()
    assert check.minutes == 61 and check.net == -1000 and due_next is not None
    assert timedelta(minutes=59) < due_next - datetime.now(UTC) <= timedelta(minutes=60)
    # a session time limit of 30 minutes, lowered into a session of 61: over at once
    limits.change(ann, {"session": 30}, HERE)
    with pytest.raises(LimitReached, match="your session time limit was reached"):
        stake(wallet, ann, F(10))
    # reality checks off: none is due again
    assert limits.reality_every(ann, None, HERE).reality_every is None


def test_two_processes_staking_at_once_never_pass_a_limit_together(migrated_url: str) -> None:
    rng = random.Random(35)
    amounts = {name: [rng.randint(50, 400) for _ in range(40)] for name in ("a", "b")}
    limit = 5000  # cents; the 80 stakes add up to far more
    with Database.open(migrated_url) as db:
        ann = Wallet(db).accounts.open_account("Ann", F(1000)).id
        Limits(db).change(ann, {"stake_day": F(limit, 100)}, HERE)
    results = run_together(
        [
            ["stakes", migrated_url, str(ann), name, ",".join(map(str, cents))]
            for name, cents in amounts.items()
        ]
    )
    taken = refused = 0
    smallest_refused = limit
    for name, result in zip(amounts, results, strict=True):
        taken += sum(amounts[name][index] for index, _ in result["accepted"])
        for index in result["refused"]:
            refused += 1
            smallest_refused = min(smallest_refused, amounts[name][index])
    assert refused and taken <= limit
    # each refusal was right: the stakes taken by then, and so all of them, plus it
    # passed the limit
    assert taken + smallest_refused > limit
    with Database.open(migrated_url) as db:
        assert Wallet(db).accounts.balance(ann) == F(1000) - F(taken, 100)
        with db.read() as conn:
            staked = conn.execute(text("SELECT day_staked FROM play_totals")).scalar()
    assert staked == taken
