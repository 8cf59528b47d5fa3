"""Exact money: amounts are :class:`fractions.Fraction`, never floats.

>>> parse_amount("12.50")
Fraction(25, 2)
>>> format_amount(Fraction(19, 2)), format_amount(Fraction(-10)), format_amount(Fraction(1, 3))
('9.50', '-10', '1/3')
>>> odds("4:5"), odds("7:1"), odds(2)
(Fraction(4, 5), Fraction(7, 1), Fraction(2, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction

Money = Fraction


class AmountError(ValueError):
    """An amount of money that cannot be read or is not allowed."""


def parse_amount(text: str | int | Fraction) -> Fraction:
    """Read an amount exactly: ``10``, ``12.50`` or ``25/2``; refuse anything else.

    >>> parse_amount("abc")
    Traceback (most recent call last):
    ...
    cardroom.money.AmountError: 'abc' is not an amount: write a number such as 10 or 12.50
    """
    if isinstance(text, bool):
        raise AmountError(f"{text!r} is not an amount")
    if isinstance(text, int | Fraction):
        return Fraction(text)
    raw = text.strip()
    try:
        if "/" in raw:
            value = Fraction(raw)
        else:
            dec = Decimal(raw)
            if not dec.is_finite():
                raise InvalidOperation
            value = Fraction(dec)
    except (InvalidOperation, ValueError, ZeroDivisionError):
        raise AmountError(
            f"{text!r} is not an amount: write a number such as 10 or 12.50"
        ) from None
    return value


def format_amount(value: Fraction) -> str:
    """Show an amount to a person: whole units, cents where exact, else a fraction."""
    if value.denominator == 1:
        return str(value.numerator)
    cents = value * 100
    if cents.denominator == 1:
        sign = "-" if value < 0 else ""
        whole, rest = divmod(abs(cents.numerator), 100)
        return f"{sign}{whole}.{rest:02d}"
    return f"{value.numerator}/{value.denominator}"


def exact_json(value: Fraction) -> int | str:
    """An amount for JSON: an int when whole, else the exact fraction string ``"n/d"``."""
    if value.denominator == 1:
        return value.numerator
    return f"{value.numerator}/{value.denominator}"


def odds(value: str | int | Fraction) -> Fraction:
    """Read payout odds: ``"4:5"`` (pays 4 for 5), ``"1/2"``, ``2`` or ``"2"``."""
    if isinstance(value, bool):
        raise AmountError(f"{value!r} is not odds")
    if isinstance(value, str) and ":" in value:
        left, _, right = value.partition(":")
        try:
            win, per = int(left.strip()), int(right.strip())
        except ValueError:
            raise AmountError(f"{value!r} is not odds: write them like 4:5") from None
        if per <= 0 or win < 0:
            raise AmountError(f"{value!r} is not odds: both sides must be positive")
        return Fraction(win, per)
    result = parse_amount(value)
    if result < 0:
        raise AmountError(f"{value!r} is not odds: odds cannot be negative")
    return result


def format_odds(value: Fraction) -> str:
    """``Fraction(4, 5)`` -> ``'4:5'``."""
    return f"{value.numerator}:{value.denominator}"


@dataclass
class Ledger:
    """A bankroll's books: start + wins - losses = balance, checked after every round."""

    start: Fraction
    wins: Fraction = field(default_factory=Fraction)
    losses: Fraction = field(default_factory=Fraction)
    balance: Fraction = field(init=False)

    def __post_init__(self) -> None:
        self.balance = Fraction(self.start)

    def post(self, net: Fraction) -> None:
        """Book one wager's net result."""
        if net >= 0:
            self.wins += net
        else:
            self.losses -= net
        self.balance += net
        self.check()

    def check(self) -> None:
        if self.start + self.wins - self.losses != self.balance:
            raise AssertionError("ledger out of balance")  # pragma: no cover
