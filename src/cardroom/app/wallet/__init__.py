"""The wallet: every account's money, and every movement of it a row of the ledger.

Amounts go in and out as :class:`~fractions.Fraction` of whole cents (an ``int`` is
whole units); the database holds integer cents.  Anything else (a float, a Decimal, a
third of a cent) is refused with :class:`WalletError` before anything is written.

A :class:`Wallet` is four parts over one database, each a module of its own:

- :attr:`Wallet.accounts` (:mod:`.accounts`): accounts and their sign-in secrets, and
  money in and out away from the tables (deposits, withdrawals, top-ups);
- :attr:`Wallet.rounds` (:mod:`.rounds`): the house games' rounds (stakes taken and the
  round opened at once, settled, voided), and every round read back;
- :attr:`Wallet.seats` (:mod:`.seats`): chemin de fer's money at a table, and its coups;
- :attr:`Wallet.books` (:mod:`.books`): the ledger read back, and the audit.

All of them change a balance only through :mod:`.money` (one update of the balance and
its ledger rows, under the account's lock, checked by the statement itself); the values
they take and give are in :mod:`.values`.  Each public method is one transaction (tried
again when the database gives up on it for a reason that passes, see
:meth:`Database.run`), or a part of the caller's when called inside one: a table that
opens, deals and settles a round inside one ``db.run`` writes it all or nothing.

>>> import tempfile
>>> from fractions import Fraction
>>> from pathlib import Path
>>> from cardroom.core.money import format_amount
>>> from cardroom.storage import Database
>>> with tempfile.TemporaryDirectory() as tmp, Database.open(path=Path(tmp) / "w.db") as db:
...     wallet = Wallet(db)
...     ann = wallet.accounts.open_account("Ann", Fraction(100))
...     opened = wallet.rounds.open_round(ann.id, "punto-banco", {"banker": Fraction(10)}, {})
...     balance = wallet.rounds.settle_round(opened.id, {"banker": Fraction(391, 20)}, {})
...     books = [(row.kind, format_amount(row.amount)) for row in wallet.books.ledger(ann.id)]
>>> format_amount(balance), books
('109.55', [('win', '19.55'), ('stake', '-10'), ('deposit', '100')])
"""

from __future__ import annotations

from cardroom.app.wallet.accounts import Accounts
from cardroom.app.wallet.books import Books
from cardroom.app.wallet.rounds import Rounds
from cardroom.app.wallet.seats import Seats
from cardroom.app.wallet.values import (
    NAME_LENGTH,
    START_BALANCE,
    TOP_UP_EVERY,
    Account,
    AccountSuspended,
    AuditError,
    InsufficientFunds,
    LedgerPage,
    LedgerRow,
    LimitReached,
    LockedAccount,
    NameTaken,
    OpenedRound,
    RealityCheckDue,
    RoundsPage,
    Seat,
    StoredRound,
    TopUpRefused,
    WalletError,
    account_name,
    from_cents,
    name_key,
    to_cents,
)
from cardroom.storage.db import Database

__all__ = [
    "NAME_LENGTH",
    "START_BALANCE",
    "TOP_UP_EVERY",
    "Account",
    "AccountSuspended",
    "Accounts",
    "AuditError",
    "Books",
    "InsufficientFunds",
    "LedgerPage",
    "LedgerRow",
    "LimitReached",
    "LockedAccount",
    "NameTaken",
    "OpenedRound",
    "RealityCheckDue",
    "Rounds",
    "RoundsPage",
    "Seat",
    "Seats",
    "StoredRound",
    "TopUpRefused",
    "Wallet",
    "WalletError",
    "account_name",
    "from_cents",
    "name_key",
    "to_cents",
]


class Wallet:
    """The accounts, rounds, seats and books of one :class:`~cardroom.storage.Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.accounts = Accounts(db)
        self.rounds = Rounds(db)
        self.seats = Seats(db)
        self.books = Books(db, self.accounts)
