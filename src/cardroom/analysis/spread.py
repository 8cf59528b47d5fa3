"""The spread of a player's result after many rounds of one wager, from its exact lines.

A wager's lines (:class:`cardroom.analysis.report.Line`) are a finite distribution of its
net result per unit staked, with exact probabilities.  Over ``n`` rounds, each staked
one unit, the player's total is the sum of ``n`` draws from it when the rounds are
independent (every round dealt off the top of a full shoe: the analysis's own
assumption).  Its distribution is the ``n``-fold convolution of the lines':

- :func:`exact_distribution` convolves in fractions, exactly (small ``n``: the
  probabilities' denominators grow as the ``n``-th power of the lines');
- :func:`spread` convolves the same distribution numerically (binary powering with the
  fast Fourier transform, in double precision) for hundreds or thousands of rounds, on
  the exact lattice of the results: each percentile is an exact result, found where
  the cumulative probability crosses its level; the mean and the variance over ``n``
  rounds are exact.

Every net result is ``low + k * unit`` for a whole ``k >= 0`` (``low`` the worst line,
``unit`` the lattice of the payouts), so the partial sums only grow in ``k``: mass
above the window can be dropped at every step without changing the cumulative
probabilities inside it.  The window reaches 12 standard deviations above the mean,
past the 99th percentile of any distribution (Cantelli: at most 1/145 of the mass
lies there).

>>> lines = [(Fraction(1, 2), Fraction(1)), (Fraction(1, 2), Fraction(-1))]
>>> exact_distribution(lines, 2)
{Fraction(-2, 1): Fraction(1, 4), Fraction(0, 1): Fraction(1, 2), Fraction(2, 1): Fraction(1, 4)}
>>> [value for _, value in spread(lines, 2, (25, 50, 75)).percentiles]
[Fraction(-2, 1), Fraction(0, 1), Fraction(0, 1)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = [
    "PERCENTILES",
    "Spread",
    "exact_distribution",
    "exact_percentiles",
    "spread",
]

#: the percentiles a spread gives, in percent
PERCENTILES: tuple[int, ...] = (1, 5, 10, 25, 50, 75, 90, 95, 99)

#: how far above the mean the numerical window reaches, in standard deviations of the total
WINDOW_SDS = 12

#: the slack allowed on a cumulative probability computed in floating point
TOLERANCE = 1e-9

#: the points of the cumulative curve kept for a plot
CURVE_POINTS = 400


@dataclass(frozen=True)
class Spread:
    """The player's total net result after ``rounds`` rounds of one unit each.

    ``mean`` and ``variance`` are exact; each of ``percentiles`` is ``(level, result)``,
    the smallest result whose cumulative probability reaches ``level`` percent (an
    exact point of the results' lattice); ``ahead``, ``even`` and ``behind`` are the
    chances of finishing above, at and below zero (floating point, see the module);
    ``curve`` a few hundred ``(result, cumulative probability)`` points for a plot;
    ``ambiguous`` the levels a cumulative probability came within the tolerance of
    (their result might be one point of the lattice lower).
    """

    rounds: int
    mean: Fraction
    variance: Fraction
    percentiles: tuple[tuple[int, Fraction], ...]
    ahead: float
    even: float
    behind: float
    curve: tuple[tuple[float, float], ...]
    ambiguous: tuple[int, ...] = ()

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.variance)


def _merged(lines: Iterable[tuple[Fraction, Fraction]]) -> dict[Fraction, Fraction]:
    """Probability by net result: lines with the same payout together, none of zero
    probability."""
    merged: dict[Fraction, Fraction] = {}
    for probability, payout in lines:
        if probability < 0:
            raise ValueError(f"a line has a negative probability {probability}")
        if probability:
            merged[payout] = merged.get(payout, Fraction(0)) + probability
    if sum(merged.values(), Fraction(0)) != 1:
        raise ValueError("the lines' probabilities do not add up to 1")
    return dict(sorted(merged.items()))


def _moments(merged: dict[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    mean = sum((p * x for x, p in merged.items()), Fraction(0))
    second = sum((p * x * x for x, p in merged.items()), Fraction(0))
    return mean, second - mean * mean


def exact_distribution(
    lines: Sequence[tuple[Fraction, Fraction]], rounds: int
) -> dict[Fraction, Fraction]:
    """The exact distribution of the total of ``rounds`` independent rounds: result ->
    probability, in increasing order.  ``lines`` are ``(probability, net result)``."""
    if rounds < 0:
        raise ValueError(f"rounds: 0 or more, not {rounds}")
    step = _merged(lines)
    total: dict[Fraction, Fraction] = {Fraction(0): Fraction(1)}
    for _ in range(rounds):
        following: dict[Fraction, Fraction] = {}
        for value, p in total.items():
            for x, q in step.items():
                following[value + x] = following.get(value + x, Fraction(0)) + p * q
        total = following
    return dict(sorted(total.items()))


def exact_percentiles(
    distribution: dict[Fraction, Fraction], levels: Sequence[int] = PERCENTILES
) -> tuple[tuple[int, Fraction], ...]:
    """The smallest result whose cumulative probability reaches each level (percent)."""
    found: list[tuple[int, Fraction]] = []
    for level in levels:
        target, cumulative = Fraction(level, 100), Fraction(0)
        for value, p in distribution.items():
            cumulative += p
            if cumulative >= target:
                found.append((level, value))
                break
    return tuple(found)


def _convolve(a: np.ndarray, b: np.ndarray, keep: int) -> np.ndarray:
    """``a * b`` (their convolution), its first ``keep`` entries, no negative noise."""
    size = len(a) + len(b) - 1
    fft_size = 1 << max(size - 1, 1).bit_length()
    product = np.fft.irfft(np.fft.rfft(a, fft_size) * np.fft.rfft(b, fft_size), fft_size)
    out: np.ndarray = np.clip(product[: min(size, keep)], 0.0, None)
    return out


def spread(
    lines: Sequence[tuple[Fraction, Fraction]],
    rounds: int,
    levels: Sequence[int] = PERCENTILES,
) -> Spread:
    """The spread of the total over ``rounds`` independent rounds of the wager whose lines
    are ``(probability, net result)`` (see the module for the method)."""
    if rounds < 1:
        raise ValueError(f"rounds: 1 or more, not {rounds}")
    merged = _merged(lines)
    mean, variance = _moments(merged)
    low = next(iter(merged))
    scale = math.lcm(*(x.denominator for x in merged))
    unit = Fraction(math.gcd(*(int((x - low) * scale) for x in merged)) or scale, scale)
    steps = {int((x - low) / unit): float(p) for x, p in merged.items()}
    # the window, in steps of the lattice: 12 standard deviations above the mean
    mean_k = (mean - low) / unit * rounds
    sd_k = math.sqrt(variance * rounds) / unit
    zero = (-low * rounds) / unit  # where the total is 0, in steps
    top = max(math.ceil(mean_k + WINDOW_SDS * sd_k) + 1, math.ceil(zero) + 1)
    top = min(max(steps) * rounds, top)
    base = np.zeros(min(max(steps), top) + 1)
    for k, p in steps.items():
        if k <= top:
            base[k] += p
    total = np.ones(1)
    left = rounds
    while left:
        if left & 1:
            total = _convolve(total, base, top + 1)
        left >>= 1
        if left:
            base = _convolve(base, base, top + 1)
    cumulative = np.cumsum(total)

    def result(k: int) -> Fraction:
        return low * rounds + unit * k

    found: list[tuple[int, Fraction]] = []
    ambiguous: list[int] = []
    for level in levels:
        target = level / 100
        index = int(np.searchsorted(cumulative, target - TOLERANCE, side="left"))
        if index >= len(cumulative):
            raise ArithmeticError(f"the {level}th percentile is beyond the window")
        if abs(cumulative[index] - target) <= TOLERANCE or (
            index > 0 and abs(cumulative[index - 1] - target) <= TOLERANCE
        ):
            ambiguous.append(level)
        found.append((level, result(index)))
    below = float(cumulative[math.ceil(zero) - 1]) if zero >= 1 else 0.0
    even = float(total[int(zero)]) if zero.denominator == 1 and zero < len(total) else 0.0
    ahead = max(0.0, 1.0 - below - even)
    first = int(np.searchsorted(cumulative, 0.0005))
    last = min(len(total) - 1, int(np.searchsorted(cumulative, 0.9995)))
    stride = max(1, (last - first) // CURVE_POINTS)
    curve = tuple((float(result(k)), float(cumulative[k])) for k in range(first, last + 1, stride))
    return Spread(
        rounds=rounds,
        mean=mean * rounds,
        variance=variance * rounds,
        percentiles=tuple(found),
        ahead=ahead,
        even=even,
        behind=below,
        curve=curve,
        ambiguous=tuple(ambiguous),
    )
