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
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

Money = Fraction


class AmountError(ValueError):
    """An amount of money that cannot be read or is not allowed."""


#: The smallest coin of a wallet and the default unit of a table (rules ``[table] unit``).
CENT = Fraction(1, 100)

#: The largest amount cardroom reads (a trillion): more is a typo or an attack, not a stake.
MAX_AMOUNT = Fraction(10**12)

#: An amount as cardroom reads it (:func:`parse_amount`): a plain decimal of ASCII digits
#: with at most one point and digits on both sides of it (no sign, exponent, ``_``, spaces
#: or other digits).  The web API's schema says the same with this very expression.
AMOUNT_PATTERN = r"[0-9]+(?:\.[0-9]+)?"
#: The longest amount read, in characters.
AMOUNT_MAX_CHARS = 40
_DECIMAL = re.compile(AMOUNT_PATTERN, re.ASCII)
_SIGNED_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)


def parse_amount(text: str | int | Fraction) -> Fraction:
    """Read an amount exactly from a plain decimal (``10``, ``12.50``); refuse anything else.

    What a person types or a client sends is read only as a plain decimal
    (:data:`AMOUNT_PATTERN`, at most :data:`AMOUNT_MAX_CHARS` characters): no exponent
    (``1e3``), no ``_``, no digits of other scripts, no fractions, no spaces around it,
    nothing negative and nothing above :data:`MAX_AMOUNT`.  Ints and Fractions pass as
    they are.

    >>> parse_amount("abc")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: 'abc' is not an amount: write a number such as 10 or 12.50
    >>> parse_amount("1e3")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: '1e3' is not an amount: write a number such as 10 or 12.50
    >>> parse_amount("10\\u00a0")
    Traceback (most recent call last):
    ...
    cardroom.core.money.AmountError: '10\\xa0' is not an amount: write it without spaces around it
    """
    if isinstance(text, bool):
        raise AmountError(f"{text!r} is not an amount")
    if isinstance(text, int | Fraction):
        return Fraction(text)
    if not isinstance(text, str):
        raise AmountError(f"{text!r} is not an amount")
    raw = text
    if raw.strip() != raw and raw.strip():
        raise AmountError(f"{text!r} is not an amount: write it without spaces around it")
    if raw.startswith("-") and _DECIMAL.fullmatch(raw[1:]):
        raise AmountError(f"{text!r} is not an amount: amounts cannot be negative")
    if len(raw) > AMOUNT_MAX_CHARS or not _DECIMAL.fullmatch(raw):
        raise AmountError(f"{text!r} is not an amount: write a number such as 10 or 12.50")
    value = Fraction(Decimal(raw))
    if value > MAX_AMOUNT:
        raise AmountError(f"{text!r} is too large: amounts go up to {format_amount(MAX_AMOUNT)}")
    return value


def amount_pattern(
    low: Fraction | None = None, high: Fraction | None = None, unit: Fraction = CENT
) -> str:
    """The text :func:`parse_amount` reads as an amount from ``low`` to ``high`` in whole
    ``unit``\\ s, as a regular expression anchored at both ends (for a JSON Schema
    ``pattern``, with ``maxLength`` :data:`AMOUNT_MAX_CHARS`); without bounds, any amount.

    ``unit`` is a whole number of cents that divides 1 (0.01, 0.05, 0.25...) or is 1;
    for another unit the pattern holds the range only (the description must say the rest).

    >>> import re
    >>> stake = re.compile(amount_pattern(Fraction(10), Fraction(1000)))
    >>> [bool(stake.match(s)) for s in ("10", "010.50", "999.99", "1000.000", "1000.01")]
    [True, True, True, True, False]
    >>> [bool(stake.match(s)) for s in ("9.99", "10.001", "10.", ".5", " 10", "1e3")]
    [False, False, False, False, False, False]
    >>> amount_pattern()
    '^[0-9]+(?:\\\\.[0-9]+)?$'
    """
    if low is None or high is None:
        return f"^{AMOUNT_PATTERN}$"
    step = unit * 100
    if step.denominator != 1 or step <= 0:
        raise ValueError(f"{unit} is not a whole number of cents")
    cents_step = step.numerator
    if 100 % cents_step != 0 and cents_step != 100:
        cents_step = 1  # (the range alone: see the docstring)
    lo = _ceil_to(low * 100, cents_step)
    hi = int(high * 100) // cents_step * cents_step
    if lo > hi:
        raise ValueError(f"no amount from {low} to {high} is a whole number of {unit}")
    allowed = [c for c in range(0, 100, cents_step)] if cents_step < 100 else [0]
    parts = []
    low_whole, low_cents = divmod(lo, 100)
    high_whole, high_cents = divmod(hi, 100)
    if low_whole == high_whole:
        parts.append(
            _amount_part(low_whole, low_whole, [c for c in allowed if low_cents <= c <= high_cents])
        )
    else:
        parts.append(_amount_part(low_whole, low_whole, [c for c in allowed if c >= low_cents]))
        parts.append(_amount_part(low_whole + 1, high_whole - 1, allowed))
        parts.append(_amount_part(high_whole, high_whole, [c for c in allowed if c <= high_cents]))
    return "^0*(?:" + "|".join(p for p in parts if p) + ")$"


def _ceil_to(value: Fraction, step: int) -> int:
    whole = -(-value // 1)
    return int(-(-whole // step) * step)


def _amount_part(first: int, last: int, cents: list[int]) -> str:
    """The text of the amounts whose whole part is ``first`` to ``last`` (no leading
    zeros) and whose cents are one of ``cents`` (any trailing zeros after them)."""
    if first > last or not cents:
        return ""
    whole = _integers(first, last)
    tails = dict.fromkeys(f"{c // 10}0*" if c % 10 == 0 else f"{c:02d}0*" for c in cents)
    if len(cents) > 10 and cents == list(range(cents[0], cents[-1] + 1)):
        # a run of cents: two digits in the run, or one digit d where d0 is in it
        tens = [c // 10 for c in cents if c % 10 == 0]
        runs = _same_length(f"{cents[0]:02d}", f"{cents[-1]:02d}")
        tails = dict.fromkeys(
            [f"{r}0*" for r in runs] + ([_digits(tens[0], tens[-1])] if tens else [])
        )
    fraction = "\\.(?:" + "|".join(tails) + ")"
    head = whole[0] if len(whole) == 1 else "(?:" + "|".join(whole) + ")"
    return head + (f"(?:{fraction})?" if 0 in cents else fraction)


def _integers(first: int, last: int) -> list[str]:
    """Alternatives that match the numerals of ``first`` to ``last`` (no leading zeros)."""
    found: list[str] = []
    for size in range(len(str(first)), len(str(last)) + 1):
        a = max(first, 10 ** (size - 1) if size > 1 else 0)
        b = min(last, 10**size - 1)
        if a <= b:
            found += _same_length(str(a), str(b))
    return found


def _same_length(a: str, b: str) -> list[str]:
    """Alternatives (each a plain sequence) that match the numerals from ``a`` to ``b``,
    both of one length."""
    if a == b:
        return [a]
    if len(a) == 1:
        return [_digits(int(a), int(b))]
    if a[0] == b[0]:
        return [a[0] + rest for rest in _same_length(a[1:], b[1:])]
    n = len(a) - 1
    found = []
    first, last = int(a[0]), int(b[0])
    if a[1:] != "0" * n:
        found += [a[0] + rest for rest in _same_length(a[1:], "9" * n)]
        first += 1
    if b[1:] != "9" * n:
        last -= 1
    if first <= last:
        found.append(_digits(first, last) + ("[0-9]" if n == 1 else f"[0-9]{{{n}}}"))
    if b[1:] != "9" * n:
        found += [b[0] + rest for rest in _same_length("0" * n, b[1:])]
    return found


def _digits(first: int, last: int) -> str:
    return str(first) if first == last else f"[{first}-{last}]"


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


# -- figures: the one place a number becomes text, for people and for machines -----------


def exact_text(value: Fraction) -> str:
    """An amount as a rules file writes it, exactly: ``10``, ``12.50`` (cents),
    ``0.005``; else ``"n/d"``.

    >>> [exact_text(Fraction(v)) for v in ("10", "25/2", "1/200", "1/3")]
    ['10', '12.50', '0.005', '1/3']
    """
    rest = value.denominator
    for factor in (2, 5):
        while rest % factor == 0:
            rest //= factor
    if rest != 1 or (value * 100).denominator == 1:
        return format_amount(value)
    digits = 2
    while (value * 10**digits).denominator != 1:
        digits += 1
    whole, part = divmod(abs(value.numerator * 10**digits // value.denominator), 10**digits)
    return f"{'-' if value < 0 else ''}{whole}.{part:0{digits}d}"


def fraction_text(value: Fraction) -> str:
    """``"n/d"`` (``"n/1"`` for whole numbers, so that every exact figure of a report
    reads the same way).

    >>> fraction_text(Fraction(3)), fraction_text(Fraction(-1, 3))
    ('3/1', '-1/3')
    """
    return f"{value.numerator}/{value.denominator}"


def rounded_text(value: Fraction, places: int = 12) -> str:
    """An exact figure's decimal, rounded half to even at ``places`` places only.

    >>> rounded_text(Fraction(1, 3), 4), rounded_text(Fraction(-5, 2), 0)
    ('0.3333', '-2')
    """
    with localcontext() as ctx:
        ctx.prec = 60
        number = Decimal(value.numerator) / Decimal(value.denominator)
        return str(number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def percent_text(value: Fraction, places: int = 4) -> str:
    """A share as a percentage to ``places`` decimals, without the sign (``1.0579``).

    >>> percent_text(Fraction(1, 94)), percent_text(Fraction(1, 20), 2)
    ('1.0638', '5.00')
    """
    return rounded_text(value * 100, places)


def percent_of(share: Fraction) -> str:
    """A share as a percentage, exactly: ``Fraction(1, 20)`` -> ``'5%'``.

    >>> percent_of(Fraction(1, 20)), percent_of(Fraction(1, 40))
    ('5%', '2.5%')
    """
    return f"{format_decimal(share * 100)}%"
