"""Any sequence of the wallet's movements keeps its books true (Hypothesis).

A state machine deposits, withdraws, opens rounds, settles and voids them (and tries to
settle them again), buys in, moves stacks and cashes out, on a real SQLite file, against
a model of the balance kept in cents; after every step the balance is the model's, it is
not negative, and the audit holds.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from cardroom.app.wallet import InsufficientFunds, Wallet, WalletError
from cardroom.storage import Database

CENTS = st.integers(min_value=1, max_value=50_000)
WAGERS = st.sampled_from(["player", "dealer", "banker", "tie", "b27"])


@cache
def template() -> Path:
    """A migrated database to copy for each run (migrating each time would be slower)."""
    folder = tempfile.mkdtemp(prefix="cardroom-wallet-template-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "cardroom.sqlite3"
    Database.open(path=path).close()
    return path


def money(cents: int) -> Fraction:
    return Fraction(cents, 100)


class WalletBooks(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="cardroom-wallet-")
        path = Path(self.folder) / "cardroom.sqlite3"
        shutil.copyfile(template(), path)
        self.db = Database.open(path=path)
        self.wallet = Wallet(self.db)
        self.account = self.wallet.accounts.open_account("Ann", Fraction(0)).id
        self.balance = 0  # cents, the model
        self.rounds: dict[int, dict[str, int]] = {}  # in progress: stakes in cents
        self.closed_rounds: list[int] = []
        self.seats: dict[int, int] = {}  # open: stack in cents
        self.closed_seats: list[int] = []

    def teardown(self) -> None:
        self.db.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    @rule(cents=CENTS)
    def deposit(self, cents: int) -> None:
        self.wallet.accounts.deposit(self.account, money(cents))
        self.balance += cents

    @rule(cents=CENTS)
    def withdraw(self, cents: int) -> None:
        if cents > self.balance:
            with pytest.raises(InsufficientFunds):
                self.wallet.accounts.withdraw(self.account, money(cents))
        else:
            self.wallet.accounts.withdraw(self.account, money(cents))
            self.balance -= cents

    @rule(cents=st.integers(min_value=0, max_value=100_000))
    def set_balance(self, cents: int) -> None:
        self.wallet.accounts.set_balance(self.account, money(cents))
        self.balance = cents

    @rule(stakes=st.dictionaries(WAGERS, CENTS, max_size=3))
    def open_round(self, stakes: dict[str, int]) -> None:
        wanted = {wager: money(cents) for wager, cents in stakes.items()}
        if sum(stakes.values()) > self.balance:
            before = len(self.wallet.rounds.unfinished_rounds(self.account))
            with pytest.raises(InsufficientFunds):
                self.wallet.rounds.open_round(self.account, "baccarat27", wanted, {"s": stakes})
            assert len(self.wallet.rounds.unfinished_rounds(self.account)) == before
            return
        opened = self.wallet.rounds.open_round(self.account, "baccarat27", wanted, {"s": stakes})
        self.balance -= sum(stakes.values())
        assert opened.balance == money(self.balance) and opened.round.stakes == wanted
        self.rounds[opened.id] = stakes

    @precondition(lambda self: self.rounds)
    @rule(data=st.data())
    def settle(self, data: st.DataObject) -> None:
        round_id = data.draw(st.sampled_from(sorted(self.rounds)))
        stakes = self.rounds.pop(round_id)
        payouts = {
            wager: data.draw(st.integers(min_value=0, max_value=3 * stake))
            for wager, stake in stakes.items()
            if data.draw(st.booleans())
        }
        new = self.wallet.rounds.settle_round(
            round_id, {w: money(c) for w, c in payouts.items()}, {"paid": payouts}
        )
        self.balance += sum(payouts.values())
        assert new == money(self.balance)
        settled = self.wallet.rounds.round(round_id)
        assert settled.paid == {w: money(c) for w, c in payouts.items() if c}
        self.closed_rounds.append(round_id)

    @precondition(lambda self: self.rounds)
    @rule(data=st.data())
    def void(self, data: st.DataObject) -> None:
        round_id = data.draw(st.sampled_from(sorted(self.rounds)))
        self.balance += sum(self.rounds.pop(round_id).values())
        assert self.wallet.rounds.void_round(round_id, {"void": True}) == money(self.balance)
        self.closed_rounds.append(round_id)

    @precondition(lambda self: self.closed_rounds)
    @rule(data=st.data(), cents=CENTS)
    def settle_again(self, data: st.DataObject, cents: int) -> None:
        round_id = data.draw(st.sampled_from(self.closed_rounds))
        wager = next(iter(self.wallet.rounds.round(round_id).stakes), "player")
        with pytest.raises(WalletError, match="cannot be"):
            self.wallet.rounds.settle_round(round_id, {wager: money(cents)}, {})

    @rule(cents=CENTS)
    def buy_in(self, cents: int) -> None:
        if cents > self.balance:
            with pytest.raises(InsufficientFunds):
                self.wallet.seats.buy_in(self.account, money(cents), "chemin-1")
            return
        seat = self.wallet.seats.buy_in(self.account, money(cents), "chemin-1")
        self.balance -= cents
        self.seats[seat] = cents

    @precondition(lambda self: self.seats)
    @rule(data=st.data(), cents=st.integers(min_value=0, max_value=100_000))
    def coup(self, data: st.DataObject, cents: int) -> None:
        seat = data.draw(st.sampled_from(sorted(self.seats)))
        self.wallet.seats.update_stack(seat, money(cents))
        self.seats[seat] = cents

    @precondition(lambda self: self.seats)
    @rule(data=st.data())
    def cash_out(self, data: st.DataObject) -> None:
        seat = data.draw(st.sampled_from(sorted(self.seats)))
        self.balance += self.seats.pop(seat)
        assert self.wallet.seats.cash_out(seat) == money(self.balance)
        self.closed_seats.append(seat)

    @precondition(lambda self: self.closed_seats)
    @rule(data=st.data())
    def cash_out_again(self, data: st.DataObject) -> None:
        seat = data.draw(st.sampled_from(self.closed_seats))
        with pytest.raises(WalletError, match="closed"):
            self.wallet.seats.cash_out(seat)

    @invariant()
    def books_add_up(self) -> None:
        balance = self.wallet.accounts.balance(self.account)
        assert balance == money(self.balance) and balance >= 0
        self.wallet.books.audit(self.account)
        assert {s.id: s.stack for s in self.wallet.seats.open_seats(self.account)} == {
            seat: money(cents) for seat, cents in self.seats.items()
        }
        assert {r.id for r in self.wallet.rounds.unfinished_rounds(self.account)} == set(
            self.rounds
        )


WalletBooks.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestWalletBooks = WalletBooks.TestCase
