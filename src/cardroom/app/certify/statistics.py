"""The statistics of a certificate: chi-square tests of counts against exact
probabilities, and the NIST SP 800-22 reading of many p-values.

No single p-value is a verdict.  Each family of tests gives many p-values (one per
position of the shoe, per group of consecutive shoes, per slice of the raw file); a
family passes when the number of its p-values at or above alpha = 0.01 lies within the
range a true generator leaves with probability 0.00135 on each side (SP 800-22 rev 1a,
section 4.2.1, whose p ± 3·sqrt(p(1-p)/m) is the normal approximation of that range; the
exact binomial is used, since with p = 0.99 and m = 100 the approximation fails a true
generator one time in 55 instead of one in 740), and, with at least 55 p-values, when
they are spread evenly: a chi-square over ten bins whose P-value_T is at least 0.0001
(section 4.2.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = [
    "ALPHA",
    "Family",
    "chi_square",
    "family",
    "proportion_bounds",
    "uniformity",
]

#: the level each p-value is read at
ALPHA = 0.01
#: the chance, on each side, that a true generator's count of p-values at or above alpha
#: falls outside a family's bounds (the one-sided tail of three standard deviations)
TAIL = 0.00135
#: the least P-value_T of the p-values' spread over ten bins
UNIFORMITY_LEVEL = 0.0001
#: the fewest p-values whose spread is tested (SP 800-22: at least 55)
UNIFORMITY_MIN = 55
#: a cell expected fewer times than this is pooled with others
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class ChiSquare:
    """A chi-square test: the statistic, its degrees of freedom and its p-value."""

    statistic: float
    df: int
    p: float


def chi_square(
    observed: npt.ArrayLike, probabilities: Sequence[float | Fraction] | npt.ArrayLike
) -> ChiSquare | None:
    """Observed counts against exact probabilities (summing to 1).  Cells expected fewer
    than :data:`MIN_EXPECTED` times are pooled, the least likely first, into bins each
    expected that often; a count in a cell of probability 0 is an impossible event
    (p = 0).  None: fewer than two cells left to compare."""
    obs = np.asarray(observed, dtype=np.float64).ravel()
    probs = np.asarray([float(p) for p in np.asarray(probabilities, dtype=object).ravel()])
    total = obs.sum()
    if total <= 0:
        return None
    if np.any(obs[probs == 0] > 0):
        return ChiSquare(math.inf, max(1, int(np.count_nonzero(probs)) - 1), 0.0)
    keep = probs > 0
    obs, expected = obs[keep], probs[keep] * total
    order = np.argsort(expected, kind="stable")
    obs, expected = obs[order], expected[order]
    # pool the least expected cells, in turn, into bins each expected MIN_EXPECTED times
    bins_obs: list[float] = []
    bins_exp: list[float] = []
    o_sum = e_sum = 0.0
    for o, e in zip(obs, expected, strict=True):
        if e >= MIN_EXPECTED and e_sum == 0.0:
            bins_obs.append(float(o))
            bins_exp.append(float(e))
            continue
        o_sum += float(o)
        e_sum += float(e)
        if e_sum >= MIN_EXPECTED:
            bins_obs.append(o_sum)
            bins_exp.append(e_sum)
            o_sum = e_sum = 0.0
    if e_sum:  # a last bin short of MIN_EXPECTED joins the one before it
        if bins_exp:
            bins_obs[-1] += o_sum
            bins_exp[-1] += e_sum
        else:
            bins_obs.append(o_sum)
            bins_exp.append(e_sum)
    obs, expected = np.array(bins_obs), np.array(bins_exp)
    if len(expected) < 2:
        return None
    statistic = float(((obs - expected) ** 2 / expected).sum())
    df = len(expected) - 1
    return ChiSquare(statistic, df, float(stats.chi2.sf(statistic, df)))


def normal_p(z: float) -> float:
    """The two-sided p-value of a standard normal z-score."""
    return float(2 * stats.norm.sf(abs(z)))


def proportion_bounds(m: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The range the proportion of ``m`` p-values at or above ``alpha`` must lie in: the
    counts a true generator reaches with all but :data:`TAIL` of its chance on each side.

    >>> proportion_bounds(100)
    (0.95, 1.0)
    """
    low = float(stats.binom.ppf(TAIL, m, 1 - alpha))
    high = float(stats.binom.isf(TAIL, m, 1 - alpha))
    return low / m, min(1.0, high / m)


def uniformity(p_values: Sequence[float]) -> float | None:
    """P-value_T of the p-values' spread over ten equal bins (None: fewer than
    :data:`UNIFORMITY_MIN`)."""
    if len(p_values) < UNIFORMITY_MIN:
        return None
    counts, _ = np.histogram(np.clip(p_values, 0, 1), bins=10, range=(0.0, 1.0))
    expected = len(p_values) / 10
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return float(stats.chi2.sf(statistic, 9))


@dataclass(frozen=True)
class Family:
    """A family of tests: its p-values, the share at or above alpha and its bounds, the
    spread's P-value_T, and whether it passes (by proportion and spread, never by one
    p-value).  A family with no p-value at all is not tested (and does not pass)."""

    name: str
    what: str
    p_values: tuple[float, ...]
    passed_count: int
    low: float
    high: float
    uniformity_p: float | None
    note: str = ""
    #: a reason the family fails whatever its p-values (dieharder's FAILED)
    veto: str = ""

    @property
    def m(self) -> int:
        return len(self.p_values)

    @property
    def proportion(self) -> float:
        return self.passed_count / self.m if self.m else 0.0

    @property
    def proportion_ok(self) -> bool:
        return self.m > 0 and self.low <= self.proportion <= self.high

    @property
    def uniformity_ok(self) -> bool:
        return self.uniformity_p is None or self.uniformity_p >= UNIFORMITY_LEVEL

    @property
    def passed(self) -> bool:
        return self.proportion_ok and self.uniformity_ok and not self.veto

    @property
    def verdict(self) -> str:
        if not self.m:
            return "NOT TESTED"
        return "PASS" if self.passed else "FAIL"


def family(name: str, what: str, p_values: Sequence[float], note: str = "") -> Family:
    """A family read by SP 800-22's rules from its ``p_values``."""
    values = tuple(float(p) for p in p_values)
    m = len(values)
    low, high = proportion_bounds(m) if m else (0.0, 1.0)
    passed = sum(1 for p in values if p >= ALPHA)
    return Family(name, what, values, passed, low, high, uniformity(values), note)
