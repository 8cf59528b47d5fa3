"""The wallet on a real database (SQLite and PostgreSQL): every movement a ledger row."""

from __future__ import annotations

import re
from datetime import UTC
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import func, select, text, update

from cardroom.app.wallet import (
    START_BALANCE,
    AuditError,
    InsufficientFunds,
    NameTaken,
    Wallet,
    WalletError,
)
from cardroom.storage import Database, StorageConflict
from cardroom.storage.schema import accounts, ledger, rounds, seats


def count(db: Database, table: Any) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def books(wallet: Wallet, account_id: int) -> list[tuple[str, Fraction, Fraction]]:
    """The ledger oldest first: (kind, amount, balance after)."""
    return [(r.kind, r.amount, r.balance_after) for r in reversed(wallet.books.ledger(account_id))]


# -- accounts ----------------------------------------------------------------------------------
def test_an_account_opens_with_a_deposit_in_the_ledger(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("  Ann ")
    assert (ann.name, ann.balance) == ("Ann", START_BALANCE)
    assert books(wallet, ann.id) == [("deposit", START_BALANCE, START_BALANCE)]
    bob = wallet.accounts.open_account("Bob", Fraction(0))
    assert bob.balance == 0 and wallet.books.ledger(bob.id) == []
    assert wallet.accounts.get(ann.id) == ann and wallet.accounts.account("ANN") == ann
    assert wallet.accounts.account("Cid") is None
    assert [a.name for a in wallet.accounts.all()] == ["Ann", "Bob"]
    with pytest.raises(WalletError, match="no account 999"):
        wallet.accounts.get(999)


def test_a_name_is_taken_whatever_its_case(wallet: Wallet) -> None:
    wallet.accounts.open_account("Änni")
    for taken in ("Änni", "äNNI"):
        with pytest.raises(NameTaken, match="already"):
            wallet.accounts.open_account(taken)
    for bad in ("", "   ", "Ann,Bob", "x" * 41, "tab\there"):
        with pytest.raises(WalletError, match="name"):
            wallet.accounts.open_account(bad)
    assert len(wallet.accounts.all()) == 1


def test_account_or_open_finds_or_opens(wallet: Wallet) -> None:
    ann = wallet.accounts.account_or_open("Ann")
    assert ann.balance == START_BALANCE
    wallet.accounts.deposit(ann.id, Fraction(5))
    assert wallet.accounts.account_or_open("ann") == wallet.accounts.get(ann.id)
    assert len(wallet.accounts.all()) == 1


def test_password_hashes(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", password_hash="h1")
    bob = wallet.accounts.open_account("Bob")
    assert wallet.accounts.password_hash("ANN") == (ann.id, "h1")
    assert (
        wallet.accounts.password_hash("Bob") is None
        and wallet.accounts.password_hash("Cid") is None
    )
    wallet.accounts.set_password_hash(bob.id, "h2")
    assert wallet.accounts.password_hash("bob") == (bob.id, "h2")
    with pytest.raises(WalletError, match="no account"):
        wallet.accounts.set_password_hash(999, "h")


# -- amounts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (0.5, "must be exact"),
        (Decimal("0.50"), "must be exact"),
        ("5", "must be exact"),
        (True, "must be exact"),
        (Fraction(1, 3), "not a whole number of cents"),
        (Fraction(1001, 1000), "not a whole number of cents"),
        (Fraction(0), "more than 0"),
        (Fraction(-5), "more than 0"),
        (Fraction(10**13), "too large"),
    ],
)
def test_only_exact_whole_cents_move(wallet: Wallet, amount: Any, message: str) -> None:
    ann = wallet.accounts.open_account("Ann")
    for move in (
        lambda: wallet.accounts.deposit(ann.id, amount),
        lambda: wallet.accounts.withdraw(ann.id, amount),
        lambda: wallet.rounds.open_round(ann.id, "punto-banco", {"banker": amount}, {}),
        lambda: wallet.seats.buy_in(ann.id, amount, "table-1"),
    ):
        with pytest.raises(WalletError, match=message):
            move()
    assert books(wallet, ann.id) == [("deposit", 1000, 1000)]
    assert count(wallet.db, rounds) == count(wallet.db, seats) == 0


def test_deposits_withdrawals_and_setting_the_balance(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    assert wallet.accounts.deposit(ann.id, Fraction(1, 100), "found a cent") == Fraction(10001, 100)
    assert wallet.accounts.withdraw(ann.id, Fraction(1, 100)) == 100
    with pytest.raises(InsufficientFunds, match="Ann has 100: not enough for a withdrawal of 101"):
        wallet.accounts.withdraw(ann.id, Fraction(101))
    assert wallet.accounts.set_balance(ann.id, Fraction(25, 2), "set") == Fraction(25, 2)
    assert wallet.accounts.set_balance(ann.id, START_BALANCE, "reset") == START_BALANCE
    assert wallet.accounts.set_balance(ann.id, START_BALANCE) == START_BALANCE  # no change, no row
    with pytest.raises(WalletError, match="negative"):
        wallet.accounts.set_balance(ann.id, Fraction(-1))
    assert books(wallet, ann.id) == [
        ("deposit", 100, 100),
        ("deposit", Fraction(1, 100), Fraction(10001, 100)),
        ("withdrawal", Fraction(-1, 100), 100),
        ("withdrawal", Fraction(-175, 2), Fraction(25, 2)),
        ("deposit", Fraction(1975, 2), 1000),
    ]
    assert [r.memo for r in wallet.books.ledger(ann.id)[:3]] == ["reset", "set", "withdrawal"]
    wallet.books.audit(ann.id)


# -- rounds ------------------------------------------------------------------------------------
def test_a_round_takes_its_stakes_and_settles(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    stakes = {"banker": Fraction(10), "b27": Fraction(5, 2), "player_pair": Fraction(1)}
    opened = wallet.rounds.open_round(ann.id, "baccarat27", stakes, {"shoe": [1, 2]}, "t1")
    assert not opened.existing and opened.balance == Fraction(173, 2)
    rnd = opened.round
    assert (rnd.status, rnd.game, rnd.table_ref, rnd.stakes, rnd.paid) == (
        "in_progress",
        "baccarat27",
        "t1",
        stakes,
        {},
    )
    assert [(r.kind, r.round_id, r.wager, r.amount) for r in reversed(wallet.books.ledger(ann.id))][
        1:
    ] == [
        ("stake", rnd.id, "banker", -10),
        ("stake", rnd.id, "b27", Fraction(-5, 2)),
        ("stake", rnd.id, "player_pair", -1),
    ]
    # banker pays 19.50 back (stake and 95%), b27 its stake (a push), the pair nothing
    payouts = {"banker": Fraction(39, 2), "b27": Fraction(5, 2), "player_pair": Fraction(0)}
    balance = wallet.rounds.settle_round(rnd.id, payouts, {"totals": [5, 7]})
    assert balance == Fraction(173, 2) + 22 == wallet.accounts.balance(ann.id)
    done = wallet.rounds.round(rnd.id)
    assert done.status == "finished" and done.record == {"totals": [5, 7]}
    assert done.paid == {"banker": Fraction(39, 2), "b27": Fraction(5, 2)}
    assert done.net == Fraction(22) - Fraction(27, 2)
    assert [(r.kind, r.wager, r.amount) for r in wallet.books.ledger(ann.id)[:2]] == [
        ("return", "b27", Fraction(5, 2)),
        ("win", "banker", Fraction(39, 2)),
    ]
    assert done.updated_at >= done.created_at and done.created_at.tzinfo is UTC


def test_a_partial_return_and_a_payout_left_out(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    opened = wallet.rounds.open_round(
        ann.id, "21-24-27", {"main": Fraction(10), "side": Fraction(5)}, {}
    )
    assert wallet.rounds.settle_round(opened.id, {"main": Fraction(5)}, {}) == 90
    assert [(r.kind, r.wager, r.amount) for r in wallet.books.ledger(ann.id)[:1]] == [
        ("return", "main", 5)
    ]


def test_stakes_the_balance_does_not_cover_leave_nothing(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(15))
    with pytest.raises(InsufficientFunds, match="Ann has 15: not enough for stakes of 20"):
        # the stakes are taken together or not at all
        wallet.rounds.open_round(
            ann.id, "finnish27", {"player": Fraction(10), "dealer": Fraction(10)}, {}
        )
    assert wallet.accounts.balance(ann.id) == 15 and books(wallet, ann.id) == [("deposit", 15, 15)]
    assert count(wallet.db, rounds) == 0
    opened = wallet.rounds.open_round(ann.id, "finnish27", {"player": Fraction(15)}, {})
    assert opened.balance == 0
    with pytest.raises(WalletError, match="no account"):
        wallet.rounds.open_round(999, "finnish27", {"player": Fraction(1)}, {})


def test_an_idempotency_key_opens_a_round_once(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    bob = wallet.accounts.open_account("Bob", Fraction(100))
    first = wallet.rounds.open_round(
        ann.id, "punto-banco", {"banker": Fraction(10)}, {}, None, "k1"
    )
    again = wallet.rounds.open_round(
        ann.id, "punto-banco", {"banker": Fraction(10)}, {}, None, "k1"
    )
    assert (first.existing, again.existing) == (False, True)
    assert again.id == first.id and again.balance == 90 == wallet.accounts.balance(ann.id)
    assert len(wallet.books.ledger(ann.id)) == 2
    other = wallet.rounds.open_round(
        bob.id, "punto-banco", {"banker": Fraction(10)}, {}, None, "k1"
    )
    assert not other.existing and other.id != first.id  # keys are per account
    with pytest.raises(WalletError, match="opened a round of punto-banco"):
        wallet.rounds.open_round(ann.id, "finnish27", {"player": Fraction(10)}, {}, None, "k1")
    wallet.rounds.settle_round(first.id, {}, {})
    # a settled round is still the answer to its key
    late = wallet.rounds.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {}, None, "k1")
    assert late.existing and late.round.status == "finished"


def test_state_and_record_round_trip_as_json(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann")
    state = {
        "rules": "variant.toml",
        "seed": 2**62,
        "decisions": [["hit", 1], ["stand", None]],
        "labels": {"player": "hard 23", "dealer": "Äss ♠"},
        "done": False,
        "stake": "25/2",
    }
    opened = wallet.rounds.open_round(ann.id, "finnish27", {"player": Fraction(10)}, state)
    assert opened.round.state == state and wallet.rounds.round(opened.id).state == state
    later = {**state, "decisions": [*state["decisions"], ["double", 2]]}
    wallet.rounds.save_state(opened.id, later)
    [unfinished] = wallet.rounds.unfinished_rounds(ann.id)
    assert unfinished.state == later and unfinished.record is None
    record = {"events": [{"event": "card", "card": "As"}], "net": {"player": "-10"}}
    wallet.rounds.settle_round(opened.id, {}, record)
    assert wallet.rounds.round(opened.id).record == record
    with pytest.raises(WalletError, match="cannot be stored as JSON"):
        wallet.rounds.open_round(ann.id, "finnish27", {"player": Fraction(1)}, {"x": Fraction(1)})
    with pytest.raises(WalletError, match="cannot be stored as JSON"):
        wallet.rounds.open_round(ann.id, "finnish27", {"player": Fraction(1)}, {"x": float("nan")})
    assert wallet.rounds.unfinished_rounds(ann.id) == []


def test_a_round_is_settled_or_voided_once(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    settled = wallet.rounds.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {}).id
    wallet.rounds.settle_round(settled, {"banker": Fraction(20)}, {"n": 1})
    rows = len(wallet.books.ledger(ann.id))
    for again in (
        lambda: wallet.rounds.settle_round(settled, {"banker": Fraction(20)}, {"n": 2}),
        lambda: wallet.rounds.void_round(settled, {"n": 2}),
        lambda: wallet.rounds.save_state(settled, {}),
    ):
        with pytest.raises(WalletError, match=f"round {settled} is finished: it cannot"):
            again()
    assert len(wallet.books.ledger(ann.id)) == rows and wallet.accounts.balance(ann.id) == 110
    assert wallet.rounds.round(settled).record == {"n": 1}

    voided = wallet.rounds.open_round(
        ann.id, "punto-banco", {"banker": Fraction(7), "tie": Fraction(1)}, {}
    )
    assert wallet.rounds.void_round(voided.id, {"why": "the shoe was wrong"}) == 110
    done = wallet.rounds.round(voided.id)
    assert done.status == "void" and done.paid == done.stakes
    assert [r.memo for r in wallet.books.ledger(ann.id)[:2]] == [
        "stake on tie back (round void)",
        "stake on banker back (round void)",
    ]
    with pytest.raises(WalletError, match="is void: it cannot be settled"):
        wallet.rounds.settle_round(voided.id, {}, {})
    with pytest.raises(WalletError, match="no round 999"):
        wallet.rounds.settle_round(999, {}, {})
    wallet.books.audit(ann.id)


def test_payouts_for_wagers_the_round_does_not_have_are_refused(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    rnd = wallet.rounds.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {}).id
    with pytest.raises(WalletError, match="no stake on player"):
        wallet.rounds.settle_round(rnd, {"banker": Fraction(20), "player": Fraction(20)}, {})
    with pytest.raises(WalletError, match="cannot be negative"):
        wallet.rounds.settle_round(rnd, {"banker": Fraction(-20)}, {})
    assert (
        wallet.rounds.round(rnd).status == "in_progress" and wallet.accounts.balance(ann.id) == 90
    )


def test_listing_rounds(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    bob = wallet.accounts.open_account("Bob", Fraction(100))
    ids = []
    for n, game in enumerate(["finnish27", "punto-banco", "finnish27", "finnish27"]):
        ids.append(wallet.rounds.open_round(ann.id, game, {"w": Fraction(1)}, {"n": n}).id)
    wallet.rounds.open_round(bob.id, "finnish27", {"w": Fraction(1)}, {})
    wallet.rounds.settle_round(ids[0], {}, {})
    wallet.rounds.void_round(ids[1], {})
    wallet.rounds.settle_round(ids[2], {"w": Fraction(2)}, {})
    assert [r.id for r in wallet.rounds.latest(ann.id)] == [ids[2], ids[1], ids[0]]
    assert [r.id for r in wallet.rounds.latest(ann.id, limit=2)] == [ids[2], ids[1]]
    assert [r.id for r in wallet.rounds.latest(ann.id, game="finnish27")] == [ids[2], ids[0]]
    assert [r.id for r in wallet.rounds.latest(ann.id, statuses=["void"])] == [ids[1]]
    assert [r.id for r in wallet.rounds.unfinished_rounds(ann.id)] == [ids[3]]
    assert wallet.rounds.unfinished_rounds(ann.id, game="punto-banco") == []
    assert (
        wallet.rounds.count_rounds(ann.id) == 3
        and wallet.rounds.count_rounds(ann.id, "finnish27") == 2
    )
    assert wallet.rounds.count_rounds(ann.id, statuses=["in_progress"]) == 1


# -- seats -------------------------------------------------------------------------------------
def test_money_at_a_chemin_de_fer_table(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    with pytest.raises(InsufficientFunds, match="not enough for a buy-in of 101"):
        wallet.seats.buy_in(ann.id, Fraction(101), "chemin-1")
    assert count(wallet.db, seats) == 0
    seat = wallet.seats.buy_in(ann.id, Fraction(80), "chemin-1")
    assert wallet.accounts.balance(ann.id) == 20
    [open_seat] = wallet.seats.open_seats(ann.id)
    assert (open_seat.id, open_seat.stack, open_seat.status) == (seat, 80, "open")
    wallet.seats.update_stack(seat, Fraction(9525, 100))
    wallet.seats.update_stack(seat, Fraction(19050, 100))
    assert wallet.seats.seat(seat).stack == Fraction(381, 2)
    assert wallet.seats.cash_out(seat) == Fraction(421, 2)
    assert wallet.seats.open_seats(ann.id) == [] and wallet.seats.seat(seat).status == "closed"
    for again in (
        lambda: wallet.seats.cash_out(seat),
        lambda: wallet.seats.update_stack(seat, Fraction(1)),
    ):
        with pytest.raises(WalletError, match=f"seat {seat} is closed"):
            again()
    assert [
        (r.kind, r.seat_id, r.table_ref, r.amount) for r in reversed(wallet.books.ledger(ann.id))
    ][1:] == [("buy_in", seat, "chemin-1", -80), ("cash_out", seat, "chemin-1", Fraction(381, 2))]
    with pytest.raises(WalletError, match="no seat 999"):
        wallet.seats.cash_out(999)
    with pytest.raises(WalletError, match="needs the table"):
        wallet.seats.buy_in(ann.id, Fraction(1), " ")
    wallet.books.audit(ann.id)


# -- the books ---------------------------------------------------------------------------------
def test_the_ledger_is_newest_first_with_running_balances(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(10))
    wallet.accounts.deposit(ann.id, Fraction(5))
    wallet.accounts.withdraw(ann.id, Fraction(3))
    rows = wallet.books.ledger(ann.id)
    assert [(r.kind, r.amount, r.balance_after) for r in rows] == [
        ("withdrawal", -3, 12),
        ("deposit", 5, 15),
        ("deposit", 10, 10),
    ]
    assert [r.id for r in wallet.books.ledger(ann.id, limit=2)] == [rows[0].id, rows[1].id]
    assert all(r.created_at.tzinfo is UTC for r in rows)


@pytest.mark.books_broken
def test_the_audit_finds_a_balance_changed_behind_the_ledger(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    rnd = wallet.rounds.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {}).id
    wallet.books.audit(ann.id)
    with wallet.db.write() as conn:
        conn.execute(update(accounts).values(balance=accounts.c.balance + 500))
    message = (
        "the books of account 1 (Ann) do not add up: its balance is 95 but its ledger adds up to 90"
    )
    with pytest.raises(AuditError, match=re.escape(message)):
        wallet.books.audit(ann.id)
    # a settlement does not read the whole ledger (its cost must not grow with the
    # books): it goes on from the balance, and the audit of every account still finds it
    wallet.rounds.settle_round(rnd, {"banker": Fraction(20)}, {})
    with pytest.raises(
        AuditError, match=re.escape(message.replace("95", "115").replace("90", "110"))
    ):
        wallet.books.audit_all()


@pytest.mark.books_broken
def test_the_audit_finds_a_row_that_does_not_follow_from_the_one_before(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", Fraction(100))
    wallet.accounts.deposit(ann.id, Fraction(5))
    wallet.accounts.withdraw(ann.id, Fraction(3))
    middle = wallet.books.ledger(ann.id)[1].id
    with wallet.db.write() as conn:  # the sums still agree; the running balance does not
        conn.execute(update(ledger).where(ledger.c.id == middle).values(balance_after=1))
    with pytest.raises(AuditError, match=f"ledger row {middle} has 0.01 after 5, but the row"):
        wallet.books.audit(ann.id)
    with pytest.raises(AuditError):
        wallet.books.audit_all()


def test_the_database_itself_refuses_a_negative_balance(db: Database) -> None:
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", Fraction(1))
    checks = r"balance_not_negative|CHECK constraint failed"
    with pytest.raises(StorageConflict, match=checks), db.write() as conn:
        conn.execute(text("UPDATE accounts SET balance = -1"))
    paying_stake = ledger.insert().values(
        account_id=ann.id,
        created_at=wallet.books.ledger(ann.id)[0].created_at,
        kind="stake",
        amount=5,
        balance_after=105,
        memo="a stake that pays",
    )
    checks = r"amount_sign|CHECK constraint failed"
    with pytest.raises(StorageConflict, match=checks), db.write() as conn:
        conn.execute(paying_stake)
    assert wallet.accounts.balance(ann.id) == 1
