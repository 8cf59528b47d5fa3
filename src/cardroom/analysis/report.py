"""What an exact analysis reports: outcomes, and every way each wager resolves.

All probabilities, payouts and edges are exact fractions.  The standard deviation
is the square root of an exact variance, so it is given as a decimal beside the
exact variance.

>>> line = Line("win", Fraction(1, 2), Fraction(1))
>>> report = WagerReport("even", (line, Line("loss", Fraction(1, 2), Fraction(-1))))
>>> report.expected, report.house_edge, report.variance, report.hit_frequency
(Fraction(0, 1), Fraction(0, 1), Fraction(1, 1), Fraction(1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from cardroom.core.money import fraction_text as fraction_text
from cardroom.core.money import rounded_text

#: an exact figure's decimal, rounded (the reports' name for it)
decimal_text = rounded_text


def sqrt_decimal(value: Fraction, places: int = 12) -> str:
    with localcontext() as ctx:
        ctx.prec = 60
        number = (Decimal(value.numerator) / Decimal(value.denominator)).sqrt()
        return str(number.quantize(Decimal(1).scaleb(-places)))


@dataclass(frozen=True)
class Line:
    """One way a wager resolves: its probability and its net result per unit staked."""

    name: str
    probability: Fraction
    payout: Fraction

    @property
    def contribution(self) -> Fraction:
        return self.probability * self.payout

    @property
    def one_in(self) -> Fraction | None:
        """The line happens once in this many rounds (None: never)."""
        return 1 / self.probability if self.probability else None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "probability": fraction_text(self.probability),
            "probability_decimal": decimal_text(self.probability),
            "payout": fraction_text(self.payout),
            "contribution": fraction_text(self.contribution),
            "contribution_decimal": decimal_text(self.contribution),
        }


@dataclass(frozen=True)
class WagerReport:
    """A wager's lines and the figures that follow from them (per unit staked)."""

    wager: str
    lines: tuple[Line, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        total = sum((line.probability for line in self.lines), Fraction(0))
        if total != 1:
            raise ValueError(f"lines: the probabilities of {self.wager} add up to {total}, not 1")

    @property
    def expected(self) -> Fraction:
        """Expected net result per unit staked (negative: the house's edge)."""
        return sum((line.contribution for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected

    @property
    def variance(self) -> Fraction:
        second = sum((line.probability * line.payout**2 for line in self.lines), Fraction(0))
        return second - self.expected**2

    @property
    def std_dev(self) -> str:
        return sqrt_decimal(self.variance)

    @property
    def hit_frequency(self) -> Fraction:
        """The chance the wager wins something."""
        return sum((line.probability for line in self.lines if line.payout > 0), Fraction(0))

    def to_json(self) -> dict[str, Any]:
        return {
            "house_edge": fraction_text(self.house_edge),
            "house_edge_decimal": decimal_text(self.house_edge),
            "expected": fraction_text(self.expected),
            "variance": fraction_text(self.variance),
            "std_dev": self.std_dev,
            "hit_frequency": fraction_text(self.hit_frequency),
            "hit_frequency_decimal": decimal_text(self.hit_frequency),
            "lines": [line.to_json() for line in self.lines],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class GameReport:
    """A game's exact analysis from a full shoe."""

    game: str
    outcomes: dict[str, Fraction]
    wagers: dict[str, WagerReport]
    assumptions: tuple[str, ...] = ()
    combinations: dict[str, int] = field(default_factory=dict)
    total_combinations: int | None = None
    #: counted with cards drawn with replacement (an infinite shoe), not from the real shoe
    replacement: bool = False

    @property
    def model(self) -> str:
        """What the figures are of, in words: the first of the assumptions."""
        return self.assumptions[0] if self.assumptions else ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "assumptions": list(self.assumptions),
            "outcomes": {k: fraction_text(v) for k, v in self.outcomes.items()},
            "outcomes_decimal": {k: decimal_text(v) for k, v in self.outcomes.items()},
            "wagers": {k: v.to_json() for k, v in self.wagers.items()},
        }
        if self.combinations:
            data["combinations"] = dict(self.combinations)
            data["total_combinations"] = self.total_combinations
        return data
