"""What a table saves of a round in progress, so that another process (or the next
start) can take it up where it stopped: written and read by the one codec
(:mod:`cardroom.core.codec`), amounts as exact decimals like the records.

A house round saves its rules, the stakes, the cards it has taken from the shoe, the
shoe's shuffle that opened it and the person's decisions; a coup of chemin de fer the
rules, the table, the seat, the state the coup started from, its cards and decisions.
A state saved by an older cardroom (stakes as ``"21/2"``) reads back the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cardroom.app.history import Decided, RecordedEvent, Start
from cardroom.core.codec import Amount, Codec, CodecError
from cardroom.core.events import Reshuffled

__all__ = [
    "COUP_STATE_VERSION",
    "HOUSE_STATE_VERSION",
    "CoupState",
    "HouseDecision",
    "HouseState",
    "StateError",
    "is_coup_state",
    "is_house_state",
    "read_coup_state",
    "read_house_state",
]

T = TypeVar("T")

#: The version of a house round's saved state.
HOUSE_STATE_VERSION = 1
#: The version of a chemin de fer coup's saved state.
COUP_STATE_VERSION = 1


class StateError(ValueError):
    """A saved state cardroom cannot read (of another version, or damaged)."""


@dataclass(frozen=True)
class HouseDecision:
    """A decision of the person at a house round, and who made it (``person``, ``default``)."""

    action: str
    by: str = "person"


@dataclass(frozen=True)
class HouseState:
    """A house round in progress."""

    rules: str
    name: str
    stakes: Mapping[str, Amount]
    #: the cards taken from the shoe, in segments (a new segment after a reshuffle)
    shoe: tuple[tuple[str, ...], ...] = ()
    reshuffled: RecordedEvent | None = None
    decisions: tuple[HouseDecision, ...] = ()
    version: int = HOUSE_STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _HOUSE.encode(self)
        return data

    @property
    def opening_shuffle(self) -> Reshuffled | None:
        return self.reshuffled if isinstance(self.reshuffled, Reshuffled) else None


@dataclass(frozen=True)
class CoupState:
    """A coup of chemin de fer in progress, as one seat's round row holds it."""

    rules: str
    table: str
    seat: int
    wallet_seat: int | None
    start: Start = field(default_factory=dict)
    shoe: tuple[tuple[str, ...], ...] = ()
    decisions: tuple[Decided, ...] = ()
    version: int = COUP_STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _COUP.encode(self)
        return data


_HOUSE: Codec[HouseState] = Codec(HouseState, "house round state")
_COUP: Codec[CoupState] = Codec(CoupState, "coup state")


def is_house_state(data: Mapping[str, Any] | None) -> bool:
    """Whether ``data`` is (or claims to be) a house round's state of this cardroom."""
    return isinstance(data, Mapping) and data.get("version") == HOUSE_STATE_VERSION


def is_coup_state(data: Mapping[str, Any] | None) -> bool:
    """Whether ``data`` is (or claims to be) a coup's state of this cardroom."""
    return isinstance(data, Mapping) and data.get("version") == COUP_STATE_VERSION


def read_house_state(data: Mapping[str, Any] | None) -> HouseState:
    """A house round's saved state; :class:`StateError` if it is not one this cardroom reads."""
    return _read(_HOUSE, HOUSE_STATE_VERSION, data)


def read_coup_state(data: Mapping[str, Any] | None) -> CoupState:
    """A coup's saved state; :class:`StateError` if it is not one this cardroom reads."""
    return _read(_COUP, COUP_STATE_VERSION, data)


def _read(codec: Codec[T], version: int, data: Mapping[str, Any] | None) -> T:
    got = data.get("version") if isinstance(data, Mapping) else None
    if got != version:
        raise StateError(f"its saved state is of an unknown kind ({got!r})")
    try:
        return codec.decode(data)
    except CodecError as err:
        raise StateError(f"its saved state is damaged: {err}") from None
