"""The integrity monitor: what each table held against what its exact analysis says it
should hold, in standard errors, and an alert when the gap is too large for chance.

For every house table (a game's rules, or each lab variant on its own) and every wager,
over a window of time: the rounds, the amount staked, what was paid back, the hold (the
house's net over the amount staked), the exact expected hold and the exact variance of
the house's net from the game's exact analysis, how far apart the hold and its
expectation are in standard errors (``z``) and the probability of a gap at least that
large by chance (``p``, two-sided).  For a game between seats (chemin de fer), where the
house has no stake and takes only a commission on the banker's winnings, the same for the
commission: taken against the banks covered, beside the exact chance that the bank wins.

A verdict raises an alert when ``p`` is below the chance that a normal variable lies
further than the control limit from its mean (:data:`DEFAULT_LIMIT`, 4 standard errors:
6.3 in 100,000).  For a wager whose net over the window is close to normal that is
``|z| > limit``; for one whose payouts have a long tail (finnish27's bonus pays up to
1000 for 1) ``p`` comes from the saddlepoint approximation of the exact sum's tail
(:func:`tail_probability`), so that no wager raises alerts more often than the limit
says.  See ``docs/integrity.md`` for the statistics, the false-alarm rate and the power.

The parts:

- pure: :class:`WagerTally` and :class:`CommissionTally` (what the books say),
  :class:`WagerExpectation` and :class:`CommissionExpectation` (what the exact analysis
  says), :func:`judge` (a :class:`Verdict`) and :func:`tail_probability`;
- the exact figures of a table's rules: :func:`wager_expectations` and
  :func:`commission_expectation` (kept per rules: they are pure functions of them);
- the reader: :func:`read_wager_tallies` (one grouped query over the ledger and the
  rounds) and :func:`read_commission_tallies` (the coups' records);
- :class:`IntegrityMonitor`, which puts them together for a window of time.

Money stays exact (fractions of the database's whole cents); only ``z``, ``p`` and the
standard deviations are floats.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any, Protocol

from sqlalchemy import Connection, Select, case, func, select
from sqlalchemy.sql.elements import ColumnElement

from cardroom.analysis.report import GameReport
from cardroom.app.history import RecordError, RoundRecord
from cardroom.app.tables.stored import table_ref
from cardroom.app.wallet.values import from_cents
from cardroom.core.events import Commission
from cardroom.core.money import CENT, format_amount, fraction_text, percent_text, to_unit
from cardroom.games import GAMES, GameInfo
from cardroom.games.base import GameRules
from cardroom.games.spec import AnalysisAsk
from cardroom.storage.db import Database
from cardroom.storage.schema import ledger, rounds

__all__ = [
    "COMMISSION",
    "DEFAULT_LIMIT",
    "CommissionExpectation",
    "CommissionTally",
    "ExpectedLine",
    "IntegrityMonitor",
    "IntegrityReport",
    "Model",
    "Unjudged",
    "Verdict",
    "WagerExpectation",
    "WagerTally",
    "Window",
    "commission_expectation",
    "false_alarm_rate",
    "judge",
    "lattice_span",
    "read_commission_tallies",
    "read_wager_tallies",
    "rounds_to_detect",
    "table_key",
    "tail_probability",
    "wager_expectations",
    "wager_tally_query",
]

#: the control limit, in standard errors of the hold
DEFAULT_LIMIT = 4.0

#: what a verdict on chemin de fer's house take calls the "wager"
COMMISSION = "commission"

#: the ledger's kinds a house round's money moves by
_STAKE = "stake"
_PAID_BACK = ("win", "return")

#: how the web's tables are named in the wallet's rows (``web:KEY``)
_WEB = table_ref("")


def false_alarm_rate(limit: float) -> float:
    """The chance that a normal variable lies more than ``limit`` standard deviations from
    its mean (either way): the rate of false alarms of one verdict at that limit.

    >>> f"{false_alarm_rate(4.0):.3e}", f"{false_alarm_rate(3.0):.4f}"
    ('6.334e-05', '0.0027')
    """
    return math.erfc(limit / math.sqrt(2.0))


# -- windows and tables ----------------------------------------------------------------------
@dataclass(frozen=True)
class Window:
    """The rounds begun from ``since`` (included) to ``until`` (not included); None: no
    bound on that side."""

    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        for when in (self.since, self.until):
            if when is not None and when.tzinfo is None:
                raise ValueError(f"a window's times need their time zone: {when!r}")
        if self.since is not None and self.until is not None and self.until < self.since:
            raise ValueError("a window ends before it begins")

    @property
    def text(self) -> str:
        """The window in words (``2026-11-29 10:00 to 11:00 UTC``)."""

        def at(when: datetime) -> str:
            return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")

        if self.since is None and self.until is None:
            return "all rounds"
        if self.since is None:
            assert self.until is not None
            return f"rounds before {at(self.until)} UTC"
        if self.until is None:
            return f"rounds from {at(self.since)} UTC"
        return f"rounds from {at(self.since)} to {at(self.until)} UTC"

    def as_json(self) -> dict[str, str | None]:
        return {
            "since": None if self.since is None else self.since.isoformat(),
            "until": None if self.until is None else self.until.isoformat(),
        }


def table_key(ref: str | None, game: str) -> str:
    """The key of the table a round was dealt at, as ``rules_for`` is asked it: the web's
    ``web:KEY`` is ``KEY`` (a game's id, ``GAME~VARIANT``, or a live table of seats'
    ``GAME:NUMBER``); a round dealt elsewhere (the terminal) is its game's id.

    >>> table_key("web:punto-banco~0123456789abcdef0123", "punto-banco")
    'punto-banco~0123456789abcdef0123'
    >>> table_key(None, "finnish27"), table_key("finnish27", "finnish27")
    ('finnish27', 'finnish27')
    """
    if ref is not None and ref.startswith(_WEB):
        return ref.removeprefix(_WEB)
    return game


# -- what the books say ----------------------------------------------------------------------
#: amounts with how many times each came: (stake, rounds), smallest stake first
StakeCounts = tuple[tuple[Fraction, int], ...]


def _counts(pairs: Iterable[tuple[Fraction, int]]) -> StakeCounts:
    merged: dict[Fraction, int] = {}
    for stake, count in pairs:
        if stake <= 0 or count < 0:
            raise ValueError(
                f"stakes: {count} rounds at {stake}: a stake is above 0, a count not below"
            )
        if count:
            merged[Fraction(stake)] = merged.get(Fraction(stake), 0) + int(count)
    return tuple(sorted(merged.items()))


@dataclass(frozen=True)
class WagerTally:
    """One wager at one table over a window, as the ledger has it: how many rounds were
    staked at each amount (``stakes``), and what was paid back in all (``paid``: the
    stakes returned included)."""

    table: str
    game: str
    wager: str
    stakes: StakeCounts
    paid: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "stakes", _counts(self.stakes))
        if self.paid < 0:
            raise ValueError("paid: cannot be negative")

    @property
    def rounds(self) -> int:
        return sum(count for _, count in self.stakes)

    @property
    def staked(self) -> Fraction:
        return sum((stake * count for stake, count in self.stakes), Fraction(0))

    @property
    def stake_squares(self) -> Fraction:
        return sum((stake * stake * count for stake, count in self.stakes), Fraction(0))

    @property
    def taken(self) -> Fraction:
        """The house's net: the stakes less what was paid back."""
        return self.staked - self.paid

    @property
    def hold(self) -> Fraction:
        staked = self.staked
        return self.taken / staked if staked else Fraction(0)


@dataclass(frozen=True)
class CommissionTally:
    """The house's commission at one table of seats over a window, from the coups'
    records: how many coups had each amount of the bank covered by the punters'
    stakes (``covered``), and the commission the house took in all."""

    table: str
    game: str
    covered: StakeCounts
    commission: Fraction
    wager: str = COMMISSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "covered", _counts(self.covered))
        if self.commission < 0:
            raise ValueError("commission: cannot be negative")

    @property
    def stakes(self) -> StakeCounts:
        return self.covered

    @property
    def rounds(self) -> int:
        return sum(count for _, count in self.covered)

    @property
    def staked(self) -> Fraction:
        return sum((amount * count for amount, count in self.covered), Fraction(0))

    @property
    def taken(self) -> Fraction:
        return self.commission

    @property
    def hold(self) -> Fraction:
        staked = self.staked
        return self.commission / staked if staked else Fraction(0)


Tally = WagerTally | CommissionTally


# -- what the exact analysis says -------------------------------------------------------------
class Model(Protocol):
    """What the house takes on one round at a stake, line by line, with the exact chance
    of each line (the lines' chances add up to 1)."""

    @property
    def edge(self) -> Fraction:
        """The house's edge per unit staked as the game's figures state it."""
        ...

    @property
    def model(self) -> str:
        """What the figures are of, in words."""
        ...

    def takes(self, stake: Fraction) -> tuple[tuple[Fraction, Fraction], ...]:
        """(chance, the house's take) of each way one round at ``stake`` ends."""
        ...

    def __hash__(self) -> int: ...


@dataclass(frozen=True)
class ExpectedLine:
    """One way a wager ends: its exact chance, and the player's exact net, ``per_unit``
    of the stake plus a ``flat`` amount that does not grow with it (finnish27's awards
    in table minimums)."""

    name: str
    probability: Fraction
    per_unit: Fraction
    flat: Fraction = Fraction(0)

    def net(self, stake: Fraction, unit: Fraction) -> Fraction:
        """The player's net at ``stake``, the payout rounded down to the table's
        ``unit`` as the tables pay it."""
        return to_unit(stake + self.per_unit * stake + self.flat, unit) - stake


@dataclass(frozen=True)
class WagerExpectation:
    """A wager's exact lines under a table's rules (from the game's exact analysis, off
    the top of a full shoe), the table's money ``unit`` and its ``minimum`` stake."""

    game: str
    wager: str
    lines: tuple[ExpectedLine, ...]
    unit: Fraction
    minimum: Fraction
    model: str = ""
    #: the one stake the lines hold at (their flat part not told apart), or None: any
    only_at: Fraction | None = None

    def __post_init__(self) -> None:
        total = sum((line.probability for line in self.lines), Fraction(0))
        if total != 1:
            raise ValueError(f"lines: the chances of {self.wager} add up to {total}, not 1")

    @property
    def edge(self) -> Fraction:
        """The house edge per unit staked at the table minimum, before rounding (the PAR
        sheet's)."""
        m = self.minimum
        return -sum(
            (line.probability * (line.per_unit + line.flat / m) for line in self.lines),
            Fraction(0),
        )

    @property
    def variance(self) -> Fraction:
        """The variance of the player's net per unit staked at the table minimum, before
        rounding (the PAR sheet's)."""
        m = self.minimum
        mean = -self.edge
        second = sum(
            (line.probability * (line.per_unit + line.flat / m) ** 2 for line in self.lines),
            Fraction(0),
        )
        return second - mean * mean

    def takes(self, stake: Fraction) -> tuple[tuple[Fraction, Fraction], ...]:
        return _wager_takes(self, Fraction(stake))


@lru_cache(maxsize=4096)
def _wager_takes(
    expectation: WagerExpectation, stake: Fraction
) -> tuple[tuple[Fraction, Fraction], ...]:
    if expectation.only_at is not None and stake != expectation.only_at:
        raise ValueError(
            f"the lines of {expectation.wager} are counted at a stake of "
            f"{format_amount(expectation.only_at)} only, not {format_amount(stake)}"
        )
    unit = expectation.unit
    return tuple((line.probability, -line.net(stake, unit)) for line in expectation.lines)


@dataclass(frozen=True)
class CommissionExpectation:
    """Chemin de fer's commission under a table's rules: the ``rate`` of the banker's
    winnings the house takes (rounded up to the table's ``unit``), and the exact chance
    that the bank wins a coup when both sides play as the game's description solves it
    (``bank_wins``)."""

    game: str
    rate: Fraction
    bank_wins: Fraction
    unit: Fraction
    model: str = ""

    def __post_init__(self) -> None:
        if not 0 < self.rate < 1 or not 0 <= self.bank_wins <= 1:
            raise ValueError("a commission needs a rate in (0, 1) and a chance in [0, 1]")

    @property
    def edge(self) -> Fraction:
        """The house's take per unit of the bank covered, before rounding."""
        return self.rate * self.bank_wins

    def fee(self, covered: Fraction) -> Fraction:
        """The commission on a bank that wins ``covered``, as the engine takes it."""
        return covered - to_unit(covered * (1 - self.rate), self.unit)

    def takes(self, stake: Fraction) -> tuple[tuple[Fraction, Fraction], ...]:
        return ((self.bank_wins, self.fee(Fraction(stake))), (1 - self.bank_wins, Fraction(0)))


# -- the statistics ---------------------------------------------------------------------------
def _normal_upper(w: float) -> float:
    return 0.5 * math.erfc(w / math.sqrt(2.0))


def _normal_density(w: float) -> float:
    return math.exp(-0.5 * w * w) / math.sqrt(2.0 * math.pi)


class _Cumulants:
    """The cumulant generating function of a sum of independent rounds, centred on its
    mean: groups of ``count`` rounds, each with its lines' chances and takes."""

    def __init__(self, groups: Sequence[tuple[int, Sequence[float], Sequence[float]]]) -> None:
        self.groups = [(n, list(ps), list(xs)) for n, ps, xs in groups if n]

    def at(self, theta: float) -> tuple[float, float, float]:
        """K(theta), K'(theta), K''(theta)."""
        k0 = k1 = k2 = 0.0
        for n, ps, xs in self.groups:
            top = max(theta * x for p, x in zip(ps, xs, strict=True) if p > 0)
            s0 = s1 = s2 = 0.0
            for p, x in zip(ps, xs, strict=True):
                if p > 0:
                    e = p * math.exp(theta * x - top)
                    s0 += e
                    s1 += e * x
                    s2 += e * x * x
            m1 = s1 / s0
            k0 += n * (top + math.log(s0))
            k1 += n * m1
            k2 += n * max(s2 / s0 - m1 * m1, 0.0)
        return k0, k1, k2

    def reach(self, upward: bool) -> tuple[float, float]:
        """The furthest the centred sum reaches that way, and the log of its chance."""
        total = 0.0
        log_chance = 0.0
        for n, ps, xs in self.groups:
            live = [(x, p) for p, x in zip(ps, xs, strict=True) if p > 0]
            end = max(x for x, _ in live) if upward else min(x for x, _ in live)
            total += n * end
            log_chance += n * math.log(sum(p for x, p in live if x == end))
        return total, log_chance


def lattice_span(values: Iterable[Sequence[Fraction]]) -> Fraction:
    """The span of the lattice a sum of draws lies on: the greatest common divisor of the
    differences between the values of each group (0: every group has one value).

    >>> lattice_span([[Fraction(-1), Fraction(19, 20), Fraction(0)], [Fraction(-2)]])
    Fraction(1, 20)
    """
    steps = [x - xs[0] for xs in values for x in xs[1:] if x != xs[0]]
    if not steps:
        return Fraction(0)
    common = math.lcm(*(step.denominator for step in steps))
    return Fraction(math.gcd(*(int(step * common) for step in steps)), common)


@dataclass(frozen=True)
class _Group:
    """One stake's rounds under a model: the mean and the variance of a round's take, its
    lines' chances and takes (exact, and as floats centred on the mean)."""

    mean: Fraction
    variance: Fraction
    values: tuple[Fraction, ...]
    chances: tuple[float, ...]
    centred: tuple[float, ...]


def _group_of(chances: Sequence[Fraction], values: Sequence[Fraction]) -> _Group:
    first = sum((p * x for p, x in zip(chances, values, strict=True)), Fraction(0))
    second = sum((p * x * x for p, x in zip(chances, values, strict=True)), Fraction(0))
    return _Group(
        first,
        second - first * first,
        tuple(values),
        tuple(float(p) for p in chances),
        tuple(float(x - first) for x in values),
    )


@lru_cache(maxsize=8192)
def _group(model: Model, stake: Fraction) -> _Group:
    lines = model.takes(stake)
    return _group_of([p for p, _ in lines], [x for _, x in lines])


def tail_probability(
    groups: Sequence[tuple[int, Sequence[Fraction], Sequence[Fraction]]], observed: Fraction
) -> float:
    """The chance that a sum of independent rounds lies at least as far from its mean as
    ``observed`` does, on the same side (``observed`` included): ``groups`` of (rounds,
    the lines' chances, the lines' values), each round one draw of its group's lines.

    The saddlepoint approximation of Lugannani and Rice, with the continuity correction
    of a sum on a lattice (Daniels' second; a sum of whole cents lies on one): as exact
    as the normal approximation in the limit of many rounds, and close where the normal
    is far off, in the long tail of a wager that pays rarely and a great deal.  Within
    one standard deviation of the mean it is the normal's (no verdict is near the limit
    there).

    >>> coin = [(100, [Fraction(1, 2)] * 2, [Fraction(1), Fraction(-1)])]
    >>> f"{tail_probability(coin, Fraction(20)):.5f}"  # exactly 0.02844 (60 heads or more)
    '0.02844'
    """
    parts = [(n, _group_of(ps, xs)) for n, ps, xs in groups]
    return _tail(parts, observed)


def _tail(parts: Sequence[tuple[int, _Group]], observed: Fraction) -> float:
    parts = [(n, g) for n, g in parts if n]
    mean = sum((n * g.mean for n, g in parts), Fraction(0))
    variance = sum((n * g.variance for n, g in parts), Fraction(0))
    gap = float(observed - mean)
    if variance == 0:
        return 1.0 if gap == 0 else 0.0
    sd = math.sqrt(float(variance))
    z = gap / sd
    if abs(z) < 1.0:
        return _normal_upper(abs(z))
    cumulants = _Cumulants([(n, g.chances, g.centred) for n, g in parts])
    upward = gap > 0
    end, log_end = cumulants.reach(upward)
    if (gap >= end) if upward else (gap <= end):
        # at the very end of the range (beyond it cannot be): the chance of being there
        return math.exp(log_end) if abs(gap - end) <= 1e-9 * max(1.0, abs(end)) else 0.0
    span = float(lattice_span([g.values for _, g in parts]))
    sign = 1.0 if upward else -1.0
    target = gap - sign * span / 2.0  # half a step back towards the mean
    if target * sign <= 0.0:  # (a lattice as coarse as the spread: the normal's)
        return _normal_upper(max(0.0, abs(z) - span / (2.0 * sd)))
    theta = _saddlepoint(cumulants, target, float(variance))
    k0, _, k2 = cumulants.at(theta)
    w2 = 2.0 * (theta * target - k0)
    if w2 <= 0.0 or k2 <= 0.0:
        return _normal_upper(abs(target) / sd)
    w = math.copysign(math.sqrt(w2), theta)
    if span > 0.0:
        u = 2.0 * math.sinh(theta * span / 2.0) / span * math.sqrt(k2)
    else:
        u = theta * math.sqrt(k2)
    # the upper tail of the sum, or (downward) the upper tail of minus the sum
    tail = _normal_upper(sign * w) + _normal_density(w) * (1.0 / (sign * u) - 1.0 / (sign * w))
    return min(1.0, max(0.0, tail))


def _saddlepoint(cumulants: _Cumulants, gap: float, variance: float) -> float:
    """The theta where K'(theta) = gap (K' rises with theta): Newton's steps kept inside
    a bracket that widens until it holds the root."""
    sign = 1.0 if gap > 0 else -1.0
    target = abs(gap)
    low, high = 0.0, math.inf  # in t = sign * theta >= 0
    t = target / variance
    for _ in range(400):
        _, k1, k2 = cumulants.at(sign * t)
        reached = sign * k1
        if reached < target:
            low = t
        else:
            high = t
        if abs(reached - target) <= 1e-12 * max(target, math.sqrt(variance)):
            return sign * t
        step = t - (reached - target) / k2 if k2 > 0 else math.nan
        if not low < step < high or math.isnan(step):
            step = 2.0 * t if math.isinf(high) else 0.5 * (low + high)
        if step == t:
            return sign * t
        t = step
    return sign * t


# -- verdicts ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """One wager at one table over a window, judged.

    ``staked`` and ``paid`` as the books have them (for the commission: the banks
    covered, and no ``paid``); ``taken`` the house's net (the commission); ``hold`` =
    ``taken / staked``; ``expected_hold`` its exact expectation at these stakes (the
    payouts rounded as the table rounds them); ``edge`` the house edge per unit staked
    the game's figures state (at the table minimum, before rounding); ``variance`` the
    exact variance of one round's net per unit staked (the variance of the house's net
    over the window divided by ``stake_squares``, the sum of the squared stakes); ``z``
    the gap in standard errors; ``p`` the chance of a gap at least that large, either
    way, by chance; ``alert`` when ``p`` is below the limit's false-alarm rate."""

    table: str
    key: str
    game: str
    wager: str
    window: Window
    rounds: int
    staked: Fraction
    paid: Fraction | None
    taken: Fraction
    hold: Fraction
    expected_hold: Fraction
    edge: Fraction
    variance: Fraction
    stake_squares: Fraction
    z: float
    p: float
    limit: float
    alert: bool
    model: str = ""

    @property
    def sd_per_unit(self) -> float:
        """The standard deviation of one round's net per unit staked."""
        return math.sqrt(float(self.variance))

    @property
    def standard_error(self) -> float:
        """The standard error of the hold over the window."""
        if not self.staked:
            return 0.0
        return math.sqrt(float(self.variance * self.stake_squares)) / float(self.staked)

    @property
    def target(self) -> str:
        """What the operator log names: the table (``table:KEY``)."""
        return f"table:{self.key}"

    @property
    def text(self) -> str:
        """The verdict in one line, naming the table, the wager and the window."""
        commission = self.wager == COMMISSION
        head = "ALERT: " if self.alert else ""
        return (
            f"{head}{self.table} {'commission' if commission else 'wager ' + self.wager}, "
            f"{self.window.text}: held {percent_text(self.hold, 3)}% of "
            f"{format_amount(self.staked)} {'covered' if commission else 'staked'} over "
            f"{self.rounds:,} {'coups' if commission else 'rounds'} against an exact "
            f"{percent_text(self.expected_hold, 3)}%: {self.z:+.2f} standard errors apart "
            f"(p = {self.p:.2g}; the limit {self.limit:g})"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "key": self.key,
            "game": self.game,
            "wager": self.wager,
            "window": self.window.as_json(),
            "rounds": self.rounds,
            "staked": format_amount(self.staked),
            "paid": None if self.paid is None else format_amount(self.paid),
            "taken": format_amount(self.taken),
            "hold": fraction_text(self.hold),
            "hold_percent": percent_text(self.hold),
            "expected_hold": fraction_text(self.expected_hold),
            "expected_hold_percent": percent_text(self.expected_hold),
            "edge": fraction_text(self.edge),
            "edge_percent": percent_text(self.edge),
            "sd_per_unit": self.sd_per_unit,
            "standard_error": self.standard_error,
            "z": self.z,
            "p": self.p,
            "limit": self.limit,
            "alert": self.alert,
            "model": self.model,
            "text": self.text,
        }


def judge(
    tally: Tally,
    model: Model,
    limit: float = DEFAULT_LIMIT,
    window: Window | None = None,
    key: str | None = None,
) -> Verdict:
    """The tally against the model: the hold, its exact expectation, ``z``, ``p`` and
    whether it raises an alert at ``limit`` standard errors."""
    if not limit > 0:
        raise ValueError(f"limit: must be above 0, not {limit}")
    parts = [(count, _group(model, stake)) for stake, count in tally.stakes]
    mean = sum((n * g.mean for n, g in parts), Fraction(0))
    variance = sum((n * g.variance for n, g in parts), Fraction(0))
    gap = tally.taken - mean
    if variance:
        z = float(gap) / math.sqrt(float(variance))
        p = min(1.0, 2.0 * _tail(parts, tally.taken))
    else:
        z, p = 0.0, 1.0 if gap == 0 else 0.0
    staked = tally.staked
    squares = sum((s * s * n for s, n in tally.stakes), Fraction(0))
    return Verdict(
        table=tally.table,
        key=key if key is not None else table_key(tally.table, tally.game),
        game=tally.game,
        wager=tally.wager,
        window=window or Window(),
        rounds=tally.rounds,
        staked=staked,
        paid=tally.paid if isinstance(tally, WagerTally) else None,
        taken=tally.taken,
        hold=tally.hold,
        expected_hold=mean / staked if staked else Fraction(0),
        edge=model.edge,
        variance=variance / squares if squares else Fraction(0),
        stake_squares=squares,
        z=z,
        p=p,
        limit=limit,
        alert=tally.rounds > 0 and p < false_alarm_rate(limit),
        model=model.model,
    )


# -- the exact figures of a table's rules -----------------------------------------------------
def _report(game: GameInfo, rules: GameRules, stake: Fraction | None) -> GameReport:
    """The game's exact analysis (the real shoe, or with replacement where the real shoe's
    count refuses the rules, as the PAR sheet does)."""
    assert game.analyze is not None
    try:
        return game.analyze(rules, AnalysisAsk(stake=stake)).report
    except ValueError:
        if "infinite" not in game.analysis_options:
            raise
        return game.analyze(rules, AnalysisAsk(stake=stake, infinite=True)).report


@lru_cache(maxsize=64)
def wager_expectations(
    game: GameInfo, rules: GameRules, *, any_stake: bool = True
) -> Mapping[str, WagerExpectation]:
    """Every wager's exact lines under ``rules`` (a house game; kept per rules).

    Where the game's analysis takes the stake (finnish27: its flat awards are table
    minimums, whatever the stake) and ``any_stake`` is asked, it is counted at the table
    minimum and at twice it, and each line's net is split into the part that grows with
    the stake and the flat part: a line's net at a stake ``s`` is ``a * s + b``, and two
    stakes give ``a`` and ``b``.  Without ``any_stake`` it is counted once, and its
    lines hold at the table minimum only.  A ValueError for a game with no exact
    analysis of its wagers."""
    if game.analyze is None:
        raise ValueError(f"{game.name} has no exact analysis of wagers against the house")
    minimum = Fraction(rules.table.minimum)
    unit = Fraction(getattr(rules.table, "unit", CENT))
    by_stake = "stake" in game.analysis_options
    first = _report(game, rules, minimum if by_stake else None)
    second = _report(game, rules, 2 * minimum) if by_stake and any_stake else None
    found: dict[str, WagerExpectation] = {}
    for wager, report in first.wagers.items():
        lines = []
        other = None if second is None else second.wagers[wager].lines
        if other is not None and (
            [(x.name, x.probability) for x in other]
            != [(x.name, x.probability) for x in report.lines]
        ):
            raise ValueError(f"{game.name}: the lines of {wager} change with the stake")
        for n, line in enumerate(report.lines):
            if other is None:
                per_unit, flat = line.payout, Fraction(0)
            else:
                at_min, at_twice = line.payout * minimum, other[n].payout * 2 * minimum
                per_unit = (at_twice - at_min) / minimum
                flat = at_min - per_unit * minimum
            lines.append(ExpectedLine(line.name, line.probability, per_unit, flat))
        found[wager] = WagerExpectation(
            game.id,
            wager,
            tuple(lines),
            unit,
            minimum,
            first.model or first.game,
            only_at=minimum if by_stake and second is None else None,
        )
    return found


@lru_cache(maxsize=64)
def commission_expectation(game: GameInfo, rules: GameRules) -> CommissionExpectation | None:
    """Chemin de fer's commission under ``rules`` (None: the rules take none).

    The coup is zero-sum between the banker and the punters but for the commission, so the
    house's take per unit covered is minus the sum of both sides' exact means (both
    playing as the game's description solves it), and the bank wins with that take over
    the rate."""
    rate = Fraction(getattr(rules, "commission", 0) or 0)
    if not rate:
        return None
    means = game.exact_means(rules, "basic", True)
    take = -sum(means.values(), Fraction(0))
    unit = Fraction(getattr(rules.table, "unit", CENT))
    return CommissionExpectation(game.id, rate, take / rate, unit, game.exact_note(rules))


# -- the reader -------------------------------------------------------------------------------
def _window_clauses(window: Window) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [rounds.c.status == "finished"]
    if window.since is not None:
        where.append(rounds.c.created_at >= window.since)
    if window.until is not None:
        where.append(rounds.c.created_at < window.until)
    return where


def wager_tally_query(window: Window, games: Collection[str]) -> Select[Any]:
    """The one grouped query of :func:`read_wager_tallies`: per table, game, wager and
    stake, the rounds and what they paid back, over the finished rounds of ``games``
    begun in ``window`` (the rounds' money summed per round and wager first)."""
    staked = func.sum(case((ledger.c.kind == _STAKE, -ledger.c.amount), else_=0))
    paid = func.sum(case((ledger.c.kind.in_(_PAID_BACK), ledger.c.amount), else_=0))
    per_round = (
        select(
            rounds.c.table_ref.label("table_ref"),
            rounds.c.game.label("game"),
            ledger.c.wager.label("wager"),
            staked.label("stake"),
            paid.label("paid"),
        )
        .select_from(rounds.join(ledger, ledger.c.round_id == rounds.c.id))
        .where(
            *_window_clauses(window),
            rounds.c.game.in_(sorted(games)),
            ledger.c.kind.in_((_STAKE, *_PAID_BACK)),
        )
        .group_by(ledger.c.round_id, rounds.c.table_ref, rounds.c.game, ledger.c.wager)
        .subquery()
    )
    return select(
        per_round.c.table_ref,
        per_round.c.game,
        per_round.c.wager,
        per_round.c.stake,
        func.count().label("rounds"),
        func.sum(per_round.c.paid).label("paid"),
    ).group_by(per_round.c.table_ref, per_round.c.game, per_round.c.wager, per_round.c.stake)


def read_wager_tallies(
    conn: Connection, window: Window, games: Collection[str] | None = None
) -> list[WagerTally]:
    """Every wager at every table of the house games (``games``: their ids; None: every
    house game) over ``window``, from the finished rounds begun in it (a void round
    returned its stakes; one in progress has not been paid), by one grouped query
    (:func:`wager_tally_query`).

    The window is read on ``rounds.created_at`` (its index finds the window's rounds),
    each round's rows of the ledger by ``ledger.round_id`` (its index)."""
    ids = games if games is not None else [g.id for g in GAMES.values() if g.kind == "house"]
    if not ids:
        return []
    found: dict[tuple[str, str, str], tuple[list[tuple[Fraction, int]], int]] = {}
    for ref, game, wager, stake, count, paid_back in conn.execute(wager_tally_query(window, ids)):
        if wager is None or stake is None or int(stake) <= 0:
            continue  # (a payout with no stake: not a round the tables deal)
        where = (ref if ref is not None else game, str(game), str(wager))
        counts, cents = found.setdefault(where, ([], 0))
        counts.append((from_cents(int(stake)), int(count)))
        found[where] = (counts, cents + int(paid_back or 0))
    return [
        WagerTally(ref, game, wager, tuple(counts), from_cents(cents))
        for (ref, game, wager), (counts, cents) in sorted(found.items())
    ]


@dataclass
class _Coups:
    covered: dict[Fraction, int] = field(default_factory=dict)
    commission: Fraction = Fraction(0)


def read_commission_tallies(
    conn: Connection, window: Window, games: Collection[str] | None = None
) -> tuple[list[CommissionTally], int]:
    """The commission taken at every table of the games between seats (``games``: their
    ids; None: every such game) over ``window``, from the finished coups' records (each
    coup is kept once for each person at the table, with the same record: counted once),
    and how many records could not be read.  A coup in which nobody covered the bank
    (the game ended, or every punter passed) counts for nothing."""
    ids = sorted(
        games if games is not None else [g.id for g in GAMES.values() if g.kind == "seats"]
    )
    if not ids:
        return [], 0
    query = (
        select(rounds.c.table_ref, rounds.c.game, rounds.c.record)
        .where(*_window_clauses(window), rounds.c.game.in_(ids), rounds.c.record.is_not(None))
        .order_by(rounds.c.id)
        .execution_options(yield_per=1000)
    )
    seen: set[tuple[str, bytes]] = set()
    tables: dict[tuple[str, str], _Coups] = {}
    damaged = 0
    for ref, game, text in conn.execute(query):
        where = str(ref if ref is not None else game)
        digest = hashlib.sha256(str(text).encode()).digest()
        if (where, digest) in seen:
            continue
        seen.add((where, digest))
        try:
            record = RoundRecord.from_json(json.loads(text))
        except (ValueError, RecordError):
            damaged += 1
            continue
        covered = sum((w.stake for w in record.wagers if w.wager == "bank"), Fraction(0))
        if record.outcome is None or covered <= 0:
            continue
        coups = tables.setdefault((where, str(game)), _Coups())
        coups.covered[covered] = coups.covered.get(covered, 0) + 1
        coups.commission += sum(
            (Fraction(e.amount) for e in record.events if isinstance(e, Commission)), Fraction(0)
        )
    tallies = [
        CommissionTally(ref, game, tuple(coups.covered.items()), coups.commission)
        for (ref, game), coups in sorted(tables.items())
    ]
    return tallies, damaged


# -- the monitor ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unjudged:
    """A table the monitor could not judge, and why (its rules unknown, or no exact
    figures of them)."""

    table: str
    game: str
    wager: str
    rounds: int
    reason: str


@dataclass(frozen=True)
class IntegrityReport:
    """The monitor's verdicts over a window, and what it could not judge."""

    window: Window
    limit: float
    verdicts: tuple[Verdict, ...]
    unjudged: tuple[Unjudged, ...] = ()
    damaged_records: int = 0

    @property
    def alerts(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.alert)

    def as_json(self) -> dict[str, Any]:
        return {
            "window": self.window.as_json(),
            "limit": self.limit,
            "false_alarm_rate": false_alarm_rate(self.limit),
            "verdicts": [v.as_json() for v in self.verdicts],
            "alerts": [v.as_json() for v in self.alerts],
            "unjudged": [
                {
                    "table": u.table,
                    "game": u.game,
                    "wager": u.wager,
                    "rounds": u.rounds,
                    "reason": u.reason,
                }
                for u in self.unjudged
            ],
            "damaged_records": self.damaged_records,
        }


#: the rules of a table, by its key (:func:`table_key`); a LookupError: not known
RulesFor = Callable[[str], GameRules]


class IntegrityMonitor:
    """Judges every table's wagers over a window against the exact figures of the rules
    ``rules_for`` gives for the table's key (each variant its own), at ``limit`` standard
    errors.  The exact figures are kept per rules (:func:`wager_expectations`)."""

    def __init__(self, db: Database, rules_for: RulesFor, *, limit: float = DEFAULT_LIMIT) -> None:
        if not limit > 0:
            raise ValueError(f"limit: must be above 0, not {limit}")
        self.db = db
        self.rules_for = rules_for
        self.limit = limit

    def check(
        self, since: datetime | None = None, until: datetime | None = None
    ) -> IntegrityReport:
        """Read the window's tallies in one snapshot of the books and judge them."""
        window = Window(since, until)
        with self.db.read() as conn:
            wagers = read_wager_tallies(conn, window)
            commissions, damaged = read_commission_tallies(conn, window)
        return self.judge_all([*wagers, *commissions], window, damaged)

    def judge_all(
        self, tallies: Iterable[Tally], window: Window, damaged: int = 0
    ) -> IntegrityReport:
        """Judge tallies already read (a caller that reads them another way)."""
        verdicts: list[Verdict] = []
        unjudged: list[Unjudged] = []
        for tally in tallies:
            key = table_key(tally.table, tally.game)
            try:
                model = self.model(tally, key)
            except (LookupError, ValueError) as err:
                reason = str(err) if str(err) else type(err).__name__
                unjudged.append(
                    Unjudged(tally.table, tally.game, tally.wager, tally.rounds, reason)
                )
                continue
            if model is None:
                continue  # (no commission under these rules: nothing to judge)
            verdicts.append(judge(tally, model, self.limit, window, key))
        return IntegrityReport(window, self.limit, tuple(verdicts), tuple(unjudged), damaged)

    def model(self, tally: Tally, key: str) -> Model | None:
        """The exact figures a tally is judged by (a LookupError: the table's rules are not
        known; a ValueError: no exact figures of them)."""
        game = GAMES.get(tally.game)
        if game is None:
            raise LookupError(f"cardroom knows no game {tally.game!r}")
        rules = self.rules_for(key)
        if not game.plays(rules):
            raise LookupError(f"the rules of table {key} are not {game.name}'s")
        if isinstance(tally, CommissionTally):
            return commission_expectation(game, rules)
        at_minimum = all(stake == rules.table.minimum for stake, _ in tally.stakes)
        found = wager_expectations(game, rules, any_stake=not at_minimum).get(tally.wager)
        if found is None:
            raise LookupError(
                f"{game.name} under the rules of table {key} has no wager {tally.wager!r}"
            )
        return found


def rounds_to_detect(
    shift: Fraction | float,
    sd: float,
    true_sd: float | None = None,
    limit: float = DEFAULT_LIMIT,
    power: float = 0.5,
) -> float:
    """The power calculation: how many rounds (at one stake) it takes for a table whose
    true edge is ``shift`` per unit staked away from the stated edge to raise an alert
    at ``limit`` with chance ``power``.  ``sd``: the standard deviation of one round's
    net per unit staked that the monitor assumes (the stated rules'); ``true_sd``: the
    table's own (default the same).  After ``n`` rounds ``z`` is close to normal with
    mean ``shift * sqrt(n) / sd`` and standard deviation ``true_sd / sd``, so

        n = ((limit * sd + q(power) * true_sd) / shift) ** 2

    with ``q`` the normal quantile (the other tail's alerts left out: they only add).

    >>> round(rounds_to_detect(0.01, 1.0))  # a shift of 1% at 1 unit of spread: 160,000
    160000
    """
    if not shift:
        return math.inf
    q = statistics.NormalDist().inv_cdf(power)
    spread = true_sd if true_sd is not None else sd
    return ((limit * sd + q * spread) / abs(float(shift))) ** 2
