"""Event records: everything that happens at a table, in order, so a round can be replayed.

Events are frozen dataclasses with a ``to_dict`` for storage and JSON, and
:func:`event_from_dict` reads them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cardroom.core.cards import Card
from cardroom.core.money import exact_json


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


# -- chemin de fer ---------------------------------------------------------------------------
# Seats are numbered from 0 in table order.  A chemin de fer game keeps its events wrapped in
# :class:`CoupEvent` records, which say the coup each belongs to (0 is the draw for the bank).


def _card_code(card: Card | None) -> str | None:
    return None if card is None else card.code


def _card_or_none(code: Any) -> Card | None:
    return None if code is None else Card.parse(str(code))


@dataclass(frozen=True)
class DrawForBank:
    """A seat's face-up card in the draw for the first bank (``round`` counts redraws)."""

    seat: int
    card: Card
    round: int = 1

    kind = "draw_for_bank"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "card": self.card.code, "round": self.round}


@dataclass(frozen=True)
class DrawTie:
    """Seats tied for the highest card in the draw for the bank: only they draw again."""

    seats: tuple[int, ...]
    reason: str

    kind = "draw_tie"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seats": list(self.seats), "reason": self.reason}


@dataclass(frozen=True)
class BankerChosen:
    """Who holds the bank for the next coup, and why (first draw, kept, passed on)."""

    seat: int
    reason: str

    kind = "banker"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "reason": self.reason}


@dataclass(frozen=True)
class BankPut:
    """The banker put up a bank of ``amount``."""

    seat: int
    amount: Fraction

    kind = "bank"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "amount": exact_json(self.amount)}


@dataclass(frozen=True)
class BankPassed:
    """The banker gave up the bank of its own accord."""

    seat: int
    reason: str

    kind = "bank_passed"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "reason": self.reason}


@dataclass(frozen=True)
class BancoCalled:
    """A seat called "Banco": it alone covers the whole bank (``amount``)."""

    seat: int
    amount: Fraction

    kind = "banco"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "amount": exact_json(self.amount)}


@dataclass(frozen=True)
class Staked:
    """A seat put up ``amount`` against the bank (any excess comes back in ExcessReturned)."""

    seat: int
    amount: Fraction

    kind = "stake"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "amount": exact_json(self.amount)}


@dataclass(frozen=True)
class Passed:
    """A seat did not stake this coup (``forced``: it could not, ``reason`` says why)."""

    seat: int
    forced: bool = False
    reason: str = ""

    kind = "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "forced": self.forced, "reason": self.reason}


@dataclass(frozen=True)
class ExcessReturned:
    """The part of a stake beyond what the bank still needed went back to the seat."""

    seat: int
    amount: Fraction

    kind = "excess_returned"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "seat": self.seat, "amount": exact_json(self.amount)}


@dataclass(frozen=True)
class PartCovered:
    """The stakes did not cover the bank: the banker plays for ``covered`` of ``bank`` only."""

    covered: Fraction
    bank: Fraction

    kind = "part_covered"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "covered": exact_json(self.covered),
            "bank": exact_json(self.bank),
        }


@dataclass(frozen=True)
class CoupVoid:
    """Nobody staked: no cards are dealt this coup."""

    reason: str

    kind = "coup_void"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "reason": self.reason}


@dataclass(frozen=True)
class PlayerChosen:
    """The seat that holds the player's hand for every punter, with its stake."""

    seat: int
    stake: Fraction
    reason: str

    kind = "player_hand"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "seat": self.seat,
            "stake": exact_json(self.stake),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class HandCard:
    """A card to the ``player`` or ``banker`` hand, held by ``seat``.

    ``card`` is None where the event is shown to somebody who may not see a face-down
    card; ``total`` (the hand's total so far) is then empty too.
    """

    hand: str
    seat: int
    card: Card | None
    face_up: bool
    total: str = ""

    kind = "hand_card"

    @property
    def hidden(self) -> bool:
        return self.card is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "hand": self.hand,
            "seat": self.seat,
            "card": _card_code(self.card),
            "face_up": self.face_up,
            "total": self.total,
        }


@dataclass(frozen=True)
class Announcement:
    """A hand's draw or stand as everybody but its holder hears it: no total, no reason."""

    hand: str
    seat: int
    action: str

    kind = "announcement"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "hand": self.hand, "seat": self.seat, "action": self.action}


@dataclass(frozen=True)
class HandShown:
    """A hand turned face up for everybody: its cards and total."""

    hand: str
    seat: int
    cards: tuple[Card, ...]
    total: int

    kind = "shown"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "hand": self.hand,
            "seat": self.seat,
            "cards": [card.code for card in self.cards],
            "total": self.total,
        }


@dataclass(frozen=True)
class SeatSettled:
    """A seat's result for the coup: ``net`` won (positive) or lost, on ``stake`` at risk."""

    seat: int
    stake: Fraction
    net: Fraction
    note: str = ""

    kind = "seat_settled"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "seat": self.seat,
            "stake": exact_json(self.stake),
            "net": exact_json(self.net),
            "note": self.note,
        }


@dataclass(frozen=True)
class Commission:
    """The house took ``amount`` (``rate`` of the banker's winnings) from the banker."""

    seat: int
    amount: Fraction
    rate: Fraction

    kind = "commission"

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "seat": self.seat,
            "amount": exact_json(self.amount),
            "rate": exact_json(self.rate),
        }


@dataclass(frozen=True)
class GameOver:
    """Fewer than two seats can still play: the game ends."""

    reason: str

    kind = "game_over"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "reason": self.reason}


ChemmyEvent = (
    Event
    | DrawForBank
    | DrawTie
    | BankerChosen
    | BankPut
    | BankPassed
    | BancoCalled
    | Staked
    | Passed
    | ExcessReturned
    | PartCovered
    | CoupVoid
    | PlayerChosen
    | HandCard
    | Announcement
    | HandShown
    | SeatSettled
    | Commission
    | GameOver
)


def _amount(value: Any) -> Fraction:
    return Fraction(str(value))


def chemmy_event_from_dict(data: dict[str, Any]) -> ChemmyEvent:
    """Read back any event a chemin de fer game writes (the shared kinds included)."""
    kind = data.get("event")
    if kind == "draw_for_bank":
        return DrawForBank(int(data["seat"]), Card.parse(data["card"]), int(data["round"]))
    if kind == "draw_tie":
        return DrawTie(tuple(int(s) for s in data["seats"]), data["reason"])
    if kind == "banker":
        return BankerChosen(int(data["seat"]), data["reason"])
    if kind == "bank":
        return BankPut(int(data["seat"]), _amount(data["amount"]))
    if kind == "bank_passed":
        return BankPassed(int(data["seat"]), data["reason"])
    if kind == "banco":
        return BancoCalled(int(data["seat"]), _amount(data["amount"]))
    if kind == "stake":
        return Staked(int(data["seat"]), _amount(data["amount"]))
    if kind == "pass":
        return Passed(int(data["seat"]), bool(data["forced"]), data.get("reason", ""))
    if kind == "excess_returned":
        return ExcessReturned(int(data["seat"]), _amount(data["amount"]))
    if kind == "part_covered":
        return PartCovered(_amount(data["covered"]), _amount(data["bank"]))
    if kind == "coup_void":
        return CoupVoid(data["reason"])
    if kind == "player_hand":
        return PlayerChosen(int(data["seat"]), _amount(data["stake"]), data["reason"])
    if kind == "hand_card":
        return HandCard(
            data["hand"],
            int(data["seat"]),
            _card_or_none(data["card"]),
            bool(data["face_up"]),
            data.get("total", ""),
        )
    if kind == "announcement":
        return Announcement(data["hand"], int(data["seat"]), data["action"])
    if kind == "shown":
        return HandShown(
            data["hand"],
            int(data["seat"]),
            tuple(Card.parse(code) for code in data["cards"]),
            int(data["total"]),
        )
    if kind == "seat_settled":
        return SeatSettled(
            int(data["seat"]), _amount(data["stake"]), _amount(data["net"]), data.get("note", "")
        )
    if kind == "commission":
        return Commission(int(data["seat"]), _amount(data["amount"]), _amount(data["rate"]))
    if kind == "game_over":
        return GameOver(data["reason"])
    return event_from_dict(data)


@dataclass(frozen=True)
class CoupEvent:
    """One event of a chemin de fer game and the coup it belongs to (0: the draw for the bank)."""

    coup: int
    event: ChemmyEvent

    def to_dict(self) -> dict[str, Any]:
        return {"coup": self.coup, **self.event.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CoupEvent:
        return cls(int(data["coup"]), chemmy_event_from_dict(data))
