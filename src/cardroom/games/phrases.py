"""The small phrases every game's words are made of: a fact, a span of totals, odds.

A game's package keeps the sentences of its own rules (``RULE_WORDS`` in its
``words.py``, given to the floors above by its description); they are built from these.

>>> from fractions import Fraction
>>> from cardroom.core.cards import Card
>>> fact_text(Card.parse("Kh")), fact_text(Fraction(5, 2)), span(0, 4), odds_text(Fraction(4, 5))
('13♥', '2.50', '0-4', '4:5')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from types import MappingProxyType

from cardroom.core.cards import Card
from cardroom.core.events import Fact, Points, Why
from cardroom.core.money import format_amount, format_odds

__all__ = [
    "NO_WORDS",
    "Template",
    "fact_text",
    "hard_or_soft",
    "odds_text",
    "plain_name",
    "points_text",
    "span",
    "totals_text",
]

#: A rule's sentence: a format string over its facts' words, or a function of the Why.
Template = str | Callable[[Why], str]

#: The rule words of a game that has none of its own.
NO_WORDS: Mapping[str, Template] = MappingProxyType({})


def plain_name(key: str) -> str:
    """A key in words as it stands: ``jo_jo`` -> ``jo jo``."""
    return key.replace("_", " ")


def points_text(points: Points | None, name_of: Callable[[str], str] = plain_name) -> str:
    """``soft 25``, ``hard 17``, ``27 (Finnish 27)`` (a named hand by ``name_of``), ``7``."""
    if points is None:
        return ""
    if points.named is not None and points.named != "natural":
        return f"{points.value} ({name_of(points.named)})"
    if points.soft is None:
        return str(points.value)
    return f"{'soft' if points.soft else 'hard'} {points.value}"


def fact_text(value: Fact, name_of: Callable[[str], str] = plain_name) -> str:
    """A fact in words: a card by its Finnish index, an amount with its cents, a total."""
    if isinstance(value, Card):
        return value.finnish
    if isinstance(value, Points):
        return points_text(value, name_of)
    if isinstance(value, Fraction):
        return format_amount(value)
    if isinstance(value, tuple):
        return ", ".join(fact_text(v, name_of) for v in value)
    return str(value)


def span(low: int, high: int) -> str:
    """``0-4``, or ``7`` for a span of one."""
    return str(low) if low == high else f"{low}-{high}"


def hard_or_soft(soft: Fact) -> str:
    return "soft" if soft else "hard"


def odds_text(value: Fact) -> str:
    """Odds as a table writes them: ``4:5``, ``8:1``."""
    assert isinstance(value, Fraction)
    return format_odds(value)


def totals_text(values: Fact) -> str:
    """``2 or 7``."""
    assert isinstance(values, tuple)
    return " or ".join(str(v) for v in values)
