"""Exact money: amounts are :class:`fractions.Fraction`, never floats.

>>> parse_amount("12.50")
Fraction(25, 2)
>>> format_amount(Fraction(19, 2)), format_amount(Fraction(-10)), format_amount(Fraction(1, 200))
('9.50', '-10', '0.005')
>>> odds("4:5"), odds("7:1"), odds(2)
(Fraction(4, 5), Fraction(7, 1), Fraction(2, 1))
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

Money = Fraction


class AmountError(ValueError):
    """An amount of money that cannot be read or is not allowed."""


#: The smallest coin of a wallet and the default unit of a table (rules ``[table] unit``).
CENT = Fraction(1, 100)

#: The largest amount cardroom reads (a trillion): more is a typo or an attack, not a stake.
MAX_AMOUNT = Fraction(10**12)

#: A plain decimal: ASCII digits, at most one point (no sign, exponent, ``_`` or other digits).
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)
_SIGNED_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)


def parse_amount(text: str | int | Fraction) -> Fraction:
    """Read an amount exactly from a plain decimal (``10``, ``12.50``); refuse anything else.

    What a person types or a client sends is read only as a plain decimal: no
    exponent (``1e3``), no ``_``, no digits of other scripts, no fractions, nothing
    negative and nothing above :data:`MAX_AMOUNT`.  Ints and Fractions pass as they are.

    >>> parse_amount("abc")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: 'abc' is not an amount: write a number such as 10 or 12.50
    >>> parse_amount("1e3")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: '1e3' is not an amount: write a number such as 10 or 12.50
    """
    if isinstance(text, bool):
        raise AmountError(f"{text!r} is not an amount")
    if isinstance(text, int | Fraction):
        return Fraction(text)
    if not isinstance(text, str):
        raise AmountError(f"{text!r} is not an amount")
    raw = text.strip()
    if raw.startswith("-") and _DECIMAL.fullmatch(raw[1:]):
        raise AmountError(f"{text!r} is not an amount: amounts cannot be negative")
    if len(raw) > 40 or not _DECIMAL.fullmatch(raw):
        raise AmountError(f"{text!r} is not an amount: write a number such as 10 or 12.50")
    value = Fraction(Decimal(raw))
    if value > MAX_AMOUNT:
        raise AmountError(f"{text!r} is too large: amounts go up to {format_amount(MAX_AMOUNT)}")
    return value


def in_units(value: Fraction, unit: Fraction, what: str = "amount") -> Fraction:
    """``value`` if it is a whole number of ``unit``s, else an :class:`AmountError`.

    >>> in_units(Fraction(21, 2), Fraction(1, 100))
    Fraction(21, 2)
    >>> in_units(Fraction(1001, 100), Fraction(1, 20), "stake on banker")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: stake on banker: 10.01 is not a whole number of 0.05
    """
    if (value / unit).denominator != 1:
        raise AmountError(
            f"{what}: {format_amount(value)} is not a whole number of {format_amount(unit)}"
        )
    return value


def to_unit(value: Fraction, unit: Fraction) -> Fraction:
    """``value`` rounded down to a whole number of ``unit``s (what a casino pays).

    >>> to_unit(Fraction(399, 40), Fraction(1, 100)), to_unit(Fraction(-21, 4), Fraction(1, 2))
    (Fraction(997, 100), Fraction(-11, 2))
    """
    return (value // unit) * unit


def _decimal_places(denominator: int) -> int | None:
    """How many decimal places show 1/denominator exactly (None: no number of them)."""
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    return max(twos, fives) if denominator == 1 else None


def format_amount(value: Fraction) -> str:
    """Show an amount to a person as a decimal: whole units, else at least two places.

    Money in cardroom is always a whole number of a table's unit, so it always has an
    exact decimal; a value that has none (a third) is not money and is shown ``n/d``.
    """
    if value.denominator == 1:
        return str(value.numerator)
    places = _decimal_places(value.denominator)
    if places is None:
        return f"{value.numerator}/{value.denominator}"
    places = max(places, 2)
    scaled = abs(value) * 10**places
    whole, rest = divmod(scaled.numerator, 10**places)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{rest:0{places}d}"


def format_decimal(value: Fraction) -> str:
    """An amount for machines: the shortest exact decimal (``"9.5"``, ``"-10"``,
    ``"0.005"``); ``"n/d"`` for a value no decimal shows exactly (not money).

    >>> [format_decimal(Fraction(v)) for v in ("19/2", "-10", "1/3")]
    ['9.5', '-10', '1/3']
    """
    if value.denominator == 1:
        return str(value.numerator)
    places = _decimal_places(value.denominator)
    if places is None:
        return f"{value.numerator}/{value.denominator}"
    return format_amount(value).rstrip("0")


def parse_exact(raw: object) -> Fraction:
    """Read back an exact value a machine wrote: an int, ``"9.5"`` or ``"19/2"``."""
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise AmountError(f"{raw!r} is not an exact amount")
    try:
        if isinstance(raw, int):
            return Fraction(raw)
        text = raw.strip()
        if "/" in text:
            return Fraction(text)
        if not _SIGNED_DECIMAL.fullmatch(text):
            raise ValueError
        return Fraction(Decimal(text))
    except (ValueError, ZeroDivisionError):
        raise AmountError(f"{raw!r} is not an exact amount") from None


def exact_json(value: Fraction) -> int | str:
    """An amount for JSON: an int when whole, else its exact decimal string (``"9.5"``)."""
    if value.denominator == 1:
        return value.numerator
    return format_decimal(value)


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
    if isinstance(value, int | Fraction):
        result = Fraction(value)
    else:
        try:
            result = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise AmountError(f"{value!r} is not odds: write them like 4:5") from None
    if result < 0:
        raise AmountError(f"{value!r} is not odds: odds cannot be negative")
    return result


def format_odds(value: Fraction) -> str:
    """``Fraction(4, 5)`` -> ``'4:5'``."""
    return f"{value.numerator}:{value.denominator}"
