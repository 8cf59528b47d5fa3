"""Exact integer arithmetic for compiled kernels: residues modulo several primes.

The finite-shoe analysis of the Finnish games adds up some 10**8 products of
integers with hundreds of digits.  Python integers are far too slow for that and
machine integers far too small, so a kernel works with the value's *residues*
modulo several primes just below 2**63 (one "lane" per prime) and the exact
integer is put back together afterwards by the Chinese remainder theorem.  That
is exact as long as the integer is known to lie in a range smaller than the
product of the primes (:class:`Modulus` is chosen for a bound).

A probability with a known denominator ``D`` (every one of the analysis is a
count of ordered card sequences over the number of such sequences) is carried as
the residue of the fraction itself: ``a/b`` becomes ``a * b**-1 mod p``, which
needs ``b`` prime to ``p`` (every denominator here is a product of numbers of
cards, far below the primes).  Multiplied back by ``D`` it is the integer ``a*D/b``.

Inside kernels residues are kept in Montgomery form (``x * 2**64 mod p``), so a
product costs three machine multiplications and no division: :func:`mont_mul`
multiplies two Montgomery forms into a Montgomery form, and a plain residue times
a Montgomery form into a plain residue.  The high half of a 64 x 64-bit product,
which Numba does not offer, comes from a two-line LLVM intrinsic (:func:`mulhi`).

>>> m = Modulus.for_bits(200)
>>> len(m.primes), m.reconstruct(m.residues(Fraction(-3, 7)), 7)
(4, Fraction(-3, 7))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import prod
from typing import cast

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "Modulus",
    "add_mod",
    "add_wide",
    "mont_mul",
    "mulhi",
    "redc",
    "sub_mod",
]

_U64 = np.uint64
_TWO64 = 1 << 64


@intrinsic
def _mulhi(typingctx: object, a: types.Type, b: types.Type) -> object:
    """The high 64 bits of the 128-bit product of two unsigned 64-bit integers."""
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(
        context: object, builder: ir.IRBuilder, sig: object, args: list[ir.Value]
    ) -> object:
        wide = ir.IntType(128)
        x = builder.zext(args[0], wide)
        y = builder.zext(args[1], wide)
        high = builder.lshr(builder.mul(x, y), ir.Constant(wide, 64))
        return builder.trunc(high, ir.IntType(64))

    return signature, codegen


#: ``mulhi(a, b)``: the high 64 bits of ``a * b`` (in compiled code only)
mulhi = cast(Callable[[np.uint64, np.uint64], np.uint64], _mulhi)


@njit(inline="always")
def mont_mul(a: np.uint64, b: np.uint64, p: np.uint64, q: np.uint64) -> np.uint64:
    """``a * b / 2**64 mod p`` for ``a, b < p < 2**63``; ``q = -p**-1 mod 2**64``.

    Montgomery's reduction: with ``m = (a*b mod 2**64) * q mod 2**64``, ``a*b + m*p``
    is a multiple of 2**64 and its quotient is below ``2p``.
    """
    low = a * b
    m = low * q
    result = mulhi(a, b) + mulhi(m, p) + _U64(low != _U64(0))
    if result >= p:
        result -= p
    return result


@njit(inline="always")
def redc(low: np.uint64, high: np.uint64, p: np.uint64, q: np.uint64) -> np.uint64:
    """``(high * 2**64 + low) / 2**64 mod p`` for ``high < p`` (Montgomery's reduction
    of a 128-bit sum: of Montgomery forms times small integers, it is the plain
    residue of the sum of their values times the integers)."""
    m = low * q
    result = high + mulhi(m, p) + _U64(low != _U64(0))
    if result >= p:
        result -= p
    return result


@njit(inline="always")
def add_mod(a: np.uint64, b: np.uint64, p: np.uint64) -> np.uint64:
    """``a + b mod p`` for ``a, b < p < 2**63``."""
    s = a + b
    if s >= p:
        s -= p
    return s


@njit(inline="always")
def sub_mod(a: np.uint64, b: np.uint64, p: np.uint64) -> np.uint64:
    """``a - b mod p`` for ``a, b < p``."""
    return a - b if a >= b else a + (p - b)


@njit(inline="always")
def add_wide(
    low: np.ndarray, high: np.ndarray, j: int, lane: int, c: np.uint64, h: np.uint64
) -> None:
    """``c * h`` added to the 128-bit sum ``high[j, lane] * 2**64 + low[j, lane]``
    (exact: a kernel reduces the sum once, at the end, with :func:`redc`)."""
    before = low[j, lane]
    after = before + c * h
    low[j, lane] = after
    high[j, lane] += mulhi(c, h) + _U64(after < before)


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3 * 10**24 (these bases suffice)."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for b in bases:
        if n % b == 0:
            return n == b
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for b in bases:
        x = pow(b, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@cache
def _primes(count: int) -> tuple[int, ...]:
    """The ``count`` largest primes below 2**63."""
    found: list[int] = []
    n = (1 << 63) - 1
    while len(found) < count:
        if _is_prime(n):
            found.append(n)
        n -= 2
    return tuple(found)


@dataclass(frozen=True)
class Modulus:
    """Several primes below 2**63 and what a kernel needs to compute modulo each.

    Arrays hold one entry per prime ("lane"): ``p`` the primes, ``q`` their
    Montgomery constants ``-p**-1 mod 2**64``, ``r2`` the values ``2**128 mod p``
    (a plain residue times them, Montgomery-multiplied, is its Montgomery form).
    """

    primes: tuple[int, ...]

    @classmethod
    def for_bits(cls, bits: int) -> Modulus:
        """Enough primes that integers of up to ``bits`` bits, of either sign, come
        back exactly from their residues."""
        count = 1
        while prod(_primes(count)).bit_length() <= bits + 2:
            count += 1
        return cls(_primes(count))

    @property
    def lanes(self) -> int:
        return len(self.primes)

    @property
    def p(self) -> np.ndarray:
        return np.array(self.primes, np.uint64)

    @property
    def q(self) -> np.ndarray:
        return np.array([(-pow(p, -1, _TWO64)) % _TWO64 for p in self.primes], np.uint64)

    @property
    def r2(self) -> np.ndarray:
        return np.array([pow(2, 128, p) for p in self.primes], np.uint64)

    @property
    def product(self) -> int:
        return prod(self.primes)

    def residues(self, value: int | Fraction) -> np.ndarray:
        """The Montgomery forms of ``value`` modulo each prime."""
        value = Fraction(value)
        return np.array(
            [
                value.numerator % p * pow(value.denominator, -1, p) % p * _TWO64 % p
                for p in self.primes
            ],
            np.uint64,
        )

    def table(self, values: list[int] | list[Fraction]) -> np.ndarray:
        """Montgomery forms of several values: shape (len(values), lanes)."""
        if not values:
            return np.zeros((0, self.lanes), np.uint64)
        return np.stack([self.residues(v) for v in values])

    def integer(self, residues: np.ndarray, montgomery: bool = True) -> int:
        """The integer of least absolute value with these residues (Chinese remainder
        theorem); ``montgomery``: they are Montgomery forms."""
        total = 0
        whole = self.product
        for p, r in zip(self.primes, residues.tolist(), strict=True):
            plain = r * pow(_TWO64, -1, p) % p if montgomery else r % p
            rest = whole // p
            total += plain * rest * pow(rest, -1, p)
        total %= whole
        return total - whole if total > whole // 2 else total

    def reconstruct(
        self, residues: np.ndarray, denominator: int, montgomery: bool = True
    ) -> Fraction:
        """The exact value whose residues are given (Montgomery forms, or plain ones),
        known to be a whole number of ``1/denominator`` small enough for these primes."""
        scaled = []
        for p, r in zip(self.primes, residues.tolist(), strict=True):
            plain = r * pow(_TWO64, -1, p) % p if montgomery else r % p
            scaled.append(plain * denominator % p)
        return Fraction(self.integer(np.array(scaled, np.uint64), montgomery=False), denominator)
