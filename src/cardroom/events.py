"""Event records: everything that happens at a table, in order, so a round can be replayed.

Events are frozen dataclasses with a ``to_dict`` for storage and JSON, and
:func:`event_from_dict` reads them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cardroom.cards import Card
from cardroom.money import exact_json


@dataclass(frozen=True)
class CardDealt:
    """A card went to a hand (``hand`` is ``"player"``, ``"dealer"``, ``"banker"`` ...)."""

    hand: str
    card: Card
    total: str = ""

    kind = "card"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "hand": self.hand, "card": self.card.code, "total": self.total}


@dataclass(frozen=True)
class Decision:
    """A hit or stand.  ``forced`` says the rules made it, ``reason`` says which rule."""

    hand: str
    action: str
    forced: bool
    reason: str = ""

    kind = "decision"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "hand": self.hand,
            "action": self.action,
            "forced": self.forced,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Reshuffled:
    """The shoe was shuffled (``shoe`` counts shuffles from 1)."""

    shoe: int
    reason: str

    kind = "reshuffled"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "shoe": self.shoe, "reason": self.reason}


@dataclass(frozen=True)
class Outcome:
    """Who won the round, and by which rule."""

    outcome: str
    reason: str

    kind = "outcome"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "outcome": self.outcome, "reason": self.reason}


@dataclass(frozen=True)
class Settled:
    """One wager settled: ``net`` is what the bettor won (positive) or lost (negative)."""

    wager: str
    stake: Fraction
    net: Fraction
    note: str = ""

    kind = "settled"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "wager": self.wager,
            "stake": exact_json(self.stake),
            "net": exact_json(self.net),
            "note": self.note,
        }


Event = CardDealt | Decision | Reshuffled | Outcome | Settled


def event_from_dict(data: dict[str, Any]) -> Event:
    """Read back what :meth:`to_dict` wrote."""
    kind = data.get("event")
    if kind == "card":
        return CardDealt(data["hand"], Card.parse(data["card"]), data.get("total", ""))
    if kind == "decision":
        return Decision(data["hand"], data["action"], bool(data["forced"]), data.get("reason", ""))
    if kind == "reshuffled":
        return Reshuffled(int(data["shoe"]), data["reason"])
    if kind == "outcome":
        return Outcome(data["outcome"], data["reason"])
    if kind == "settled":
        return Settled(
            data["wager"], Fraction(str(data["stake"])), Fraction(str(data["net"])), data["note"]
        )
    raise ValueError(f"unknown event {kind!r}")
