"""What the wallet takes and gives: its errors, its values (accounts, ledger rows, rounds,
seats, pages), and amounts checked on the way in (whole cents, in range) and turned back.

>>> to_cents(Fraction(1001, 100)), to_cents(3), from_cents(1050)
(1001, 300, Fraction(21, 2))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from cardroom.app.names import clean_name
from cardroom.app.names import name_key as _name_key
from cardroom.core.money import MAX_AMOUNT, format_amount
from cardroom.storage.errors import StorageError

__all__ = [
    "NAME_LENGTH",
    "START_BALANCE",
    "TOP_UP_EVERY",
    "Account",
    "AccountSuspended",
    "AuditError",
    "InsufficientFunds",
    "LedgerPage",
    "LedgerRow",
    "LimitReached",
    "LockedAccount",
    "NameTaken",
    "OpenedRound",
    "RealityCheckDue",
    "RoundsPage",
    "Seat",
    "StoredRound",
    "TopUpRefused",
    "WalletError",
    "account_name",
    "from_cents",
    "name_key",
    "to_cents",
]

#: What a new account starts with (and what ``cardroom bankroll --reset`` restores).
START_BALANCE = Fraction(1000)

#: The longest name of an account.
NAME_LENGTH = 40

#: How often an account may be topped up.
TOP_UP_EVERY = timedelta(days=1)

_CENTS_PER_UNIT = 100
_MAX_CENTS = int(MAX_AMOUNT) * _CENTS_PER_UNIT


# -- errors ---------------------------------------------------------------------------------
class WalletError(Exception):
    """A refused movement of money or a bad request; nothing was changed. One line."""


class InsufficientFunds(WalletError):
    """The balance does not cover a stake, a withdrawal or a buy-in."""


class AccountSuspended(WalletError):
    """The account may not play now: an operator suspended it, or its person took a break
    or excluded themselves.  It takes no stake, buy-in or top-up.  ``code`` names the
    reason for a program (the web's 409 carries it)."""

    code = "suspended"
    #: what a program may read beside the line (the web's 409 carries it)
    details: Mapping[str, object] = {}


class LimitReached(AccountSuspended):
    """A stake or buy-in would pass a limit the person set (or their session time limit
    has passed): it names the limit, what is left of it and when it resets."""

    code = "limit"

    def __init__(self, message: str, details: Mapping[str, object]) -> None:
        super().__init__(message)
        self.details = dict(details)


class RealityCheckDue(AccountSuspended):
    """The person's reality check is due: nothing is staked until they acknowledge the
    notice of their session's time and net result."""

    code = "reality_check"

    def __init__(self, message: str, details: Mapping[str, object]) -> None:
        super().__init__(message)
        self.details = dict(details)


class NameTaken(WalletError):
    """An account of that name (compared without case) exists already, or one whose
    name looks like it (:func:`cardroom.app.names.name_skeleton`)."""


class TopUpRefused(WalletError):
    """A top-up of play money that may not be made now (the balance is enough to play,
    or the account had one less than a day ago)."""


class AuditError(Exception):
    """An account's books do not add up: stop everything and look."""


# -- values ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Account:
    id: int
    name: str
    balance: Fraction


@dataclass(frozen=True)
class LockedAccount:
    """An account row as :meth:`Accounts.lock` locked it: its balance in cents, and the
    round an idempotency key opened (if one was asked about and found)."""

    id: int
    name: str
    balance: int
    key_round: int | None = None


@dataclass(frozen=True)
class LedgerRow:
    """One movement of money; ``balance_after`` is the account's running balance."""

    id: int
    account_id: int
    created_at: datetime
    kind: str
    amount: Fraction
    balance_after: Fraction
    round_id: int | None
    seat_id: int | None
    table_ref: str | None
    wager: str | None
    memo: str


@dataclass(frozen=True)
class StoredRound:
    """A round of a house game (or a person's part in a chemin de fer coup) as the
    database has it.

    ``stakes`` and ``paid`` are by wager, from the ledger: what each wager took and what
    it paid back (wagers that paid nothing are not in ``paid``).
    """

    id: int
    account_id: int
    game: str
    table_ref: str | None
    status: str
    created_at: datetime
    updated_at: datetime
    state: dict[str, Any] | None
    record: dict[str, Any] | None
    stakes: dict[str, Fraction] = field(default_factory=dict)
    paid: dict[str, Fraction] = field(default_factory=dict)
    idempotency_key: str | None = None

    @property
    def net(self) -> Fraction:
        """What the round won (or lost, negative) for the account."""
        return sum(self.paid.values(), Fraction(0)) - sum(self.stakes.values(), Fraction(0))


@dataclass(frozen=True)
class LedgerPage:
    """One page of an account's ledger, newest first: ``older`` is the ``before`` of the
    page before it in time and ``newer`` the ``after`` of the page after it (None where
    there is none); ``balance_before`` is the balance before the page's oldest row, so
    that the page adds up from it to its newest row's balance."""

    rows: list[LedgerRow]
    older: int | None
    newer: int | None
    balance_before: Fraction


@dataclass(frozen=True)
class RoundsPage:
    """One page of an account's rounds, newest first, with the cursors of the pages
    around it (as :class:`LedgerPage`)."""

    rounds: list[StoredRound]
    older: int | None
    newer: int | None


@dataclass(frozen=True)
class OpenedRound:
    """What :meth:`Rounds.open_round` did: the round, and whether it existed already
    (an idempotency key used before: no money was taken this time)."""

    round: StoredRound
    existing: bool
    balance: Fraction

    @property
    def id(self) -> int:
        return self.round.id


@dataclass(frozen=True)
class Seat:
    """An account's money at a chemin de fer table."""

    id: int
    account_id: int
    table_ref: str
    stack: Fraction
    status: str
    created_at: datetime
    updated_at: datetime


# -- checking what comes in -------------------------------------------------------------------
def to_cents(amount: object, what: str = "an amount") -> int:
    """An amount in whole cents; a :class:`WalletError` for anything else.

    >>> to_cents(Fraction(1, 3), "the stake on banker")
    Traceback (most recent call last):
    ...
    cardroom.app.wallet.values.WalletError: the stake on banker: 1/3 is not a whole number of cents
    >>> to_cents(0.5)
    Traceback (most recent call last):
    ...
    cardroom.app.wallet.values.WalletError: an amount must be exact (a Fraction), not 0.5
    """
    if isinstance(amount, bool) or not isinstance(amount, int | Fraction):
        raise WalletError(f"{what} must be exact (a Fraction), not {amount!r}")
    value = Fraction(amount) * _CENTS_PER_UNIT
    if value.denominator != 1:
        raise WalletError(
            f"{what}: {format_amount(Fraction(amount))} is not a whole number of cents"
        )
    if abs(value.numerator) > _MAX_CENTS:
        raise WalletError(f"{what}: {format_amount(Fraction(amount))} is too large")
    return value.numerator


def from_cents(cents: int) -> Fraction:
    """Cents from the database as an amount (a :class:`WalletError` for anything that is
    not a whole number of them: a database changed by hand).

    >>> from_cents(1050)
    Fraction(21, 2)
    >>> from_cents("abc")
    Traceback (most recent call last):
    ...
    cardroom.app.wallet.values.WalletError: the database holds 'abc' where a sum in cents belongs
    """
    try:
        whole = int(cents)
    except (TypeError, ValueError):
        whole = None
    if whole is None or whole != cents:
        raise WalletError(f"the database holds {str(cents)[:40]!r} where a sum in cents belongs")
    return Fraction(whole, _CENTS_PER_UNIT)


def positive(amount: object, what: str) -> int:
    """``amount`` in cents, more than 0 (a :class:`WalletError` otherwise)."""
    cents = to_cents(amount, what)
    if cents <= 0:
        raise WalletError(f"{what} must be more than 0, not {format_amount(from_cents(cents))}")
    return cents


def not_negative(amount: object, what: str) -> int:
    """``amount`` in cents, 0 or more (a :class:`WalletError` otherwise)."""
    cents = to_cents(amount, what)
    if cents < 0:
        raise WalletError(f"{what} cannot be negative ({format_amount(from_cents(cents))})")
    return cents


def account_name(name: str) -> str:
    """An account's name, checked: one line of 1 to 40 characters, no ``,``, in Unicode's
    compatibility form (:func:`cardroom.app.names.clean_name`: a full-width "ＡＮＮ" is
    "ANN").

    >>> account_name("  Ann "), account_name("ＡＮＮ")
    ('Ann', 'ANN')
    """
    if not isinstance(name, str):
        raise WalletError(f"{name!r} cannot name an account")
    clean = clean_name(name)
    if not clean:
        raise WalletError("an account needs a name")
    if len(clean) > NAME_LENGTH:
        raise WalletError(
            f"a name has at most {NAME_LENGTH} characters, and this one has {len(clean)}: "
            "choose a shorter one"
        )
    if "," in clean or not clean.isprintable():
        raise WalletError(f"{name[:NAME_LENGTH]!r} cannot name an account: no commas, one line")
    return clean


def name_key(name: str) -> str:
    """How names are matched, at registration and sign-in alike: NFKC, without regard
    to case (:func:`cardroom.app.names.name_key`)."""
    return _name_key(name)


def dump(value: Mapping[str, Any], what: str) -> str:
    """A state or a record as the database keeps it (JSON); a :class:`WalletError` for
    what JSON cannot hold."""
    if not isinstance(value, Mapping):
        raise WalletError(f"the {what} must be a mapping, not {type(value).__name__}")
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise WalletError(f"the {what} cannot be stored as JSON: {err}") from None


def load(text: str | None, what: str) -> dict[str, Any] | None:
    """A JSON object the database keeps (a :class:`StorageError` if it is damaged)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        raise StorageError(f"the {what} in the database is damaged") from None
    if not isinstance(value, dict):
        raise StorageError(f"the {what} in the database is not a JSON object")
    return value


def now() -> datetime:
    return datetime.now(UTC)


def money_text(cents: int) -> str:
    """Cents as a person reads them (``19.55``)."""
    return format_amount(from_cents(cents))
