"""The JSON the API takes and gives (pydantic, at the edge only).

Money is always a decimal string (``"9.5"``): a JSON number is refused, since a float
cannot carry an amount exactly.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Name = Annotated[str, StringConstraints(min_length=1, max_length=100, strict=True)]
Password = Annotated[str, StringConstraints(min_length=1, max_length=1000, strict=True)]
WagerId = Annotated[str, StringConstraints(min_length=1, max_length=40, strict=True)]
Amount = Annotated[str, StringConstraints(min_length=1, max_length=60, strict=True)]


class Credentials(BaseModel):
    """A name and a password (to register or to sign in)."""

    model_config = ConfigDict(extra="forbid")
    username: Name
    password: Password


class Bets(BaseModel):
    """The stakes of a round by wager id, each a decimal string."""

    model_config = ConfigDict(extra="forbid")
    bets: dict[WagerId, Amount] = Field(max_length=20)


class ActionIn(BaseModel):
    """A decision: ``hit`` or ``stand``."""

    model_config = ConfigDict(extra="forbid")
    action: Annotated[str, StringConstraints(min_length=1, max_length=20, strict=True)]


class SignedIn(BaseModel):
    username: str
    balance: str = Field(description="exact decimal string")
    csrf_token: str = Field(description="send it back as X-CSRF-Token on every change")


class Me(BaseModel):
    username: str
    balance: str = Field(description="exact decimal string")


class Limits(BaseModel):
    minimum: str
    maximum: str
    unit: str


class GameOut(BaseModel):
    id: str
    name: str
    description: str
    kind: str = Field(description='"house" (bets against the house) or "seats"')
    wagers: list[str]
    outcomes: list[str]
    decisions: bool
    limits: Limits


class Games(BaseModel):
    games: list[GameOut]


# -- the history's coups, the pages of the wallet, the top-up (records-wallet) -------------
class CardOut(BaseModel):
    card: str | None = Field(description="the card's code; null for a card face down")
    card_alt: str


class CoupHandOut(BaseModel):
    hand: str = Field(description='"player" or "banker"')
    seat: int
    name: str
    cards: list[CardOut]
    total: int | None
    shown: bool = Field(description="turned over at the end of the coup")


class CoupOut(BaseModel):
    """A chemin de fer coup as its person saw it."""

    table: str
    number: int | None
    seat: int | None = Field(description="your seat, counted from 0")
    name: str | None
    part: str | None = Field(description='"banker", "punter" or "watcher"')
    part_text: str
    hands: list[CoupHandOut]


class TopUpOffer(BaseModel):
    """A top-up of play money, offered while the balance is below every table's minimum."""

    due: bool = Field(description="it may be made now (else `next_at` says when)")
    to: str = Field(description="the balance it brings back")
    minimum: str = Field(description="the lowest table minimum")
    next_at: str | None
    text: str


class TopUpDone(BaseModel):
    balance: str
    amount: str = Field(description="what the top-up added")


class RoundOut(BaseModel):
    """A round: its events so far, what may be done now, and the money."""

    id: int
    game: str
    state: str = Field(description='"awaiting_action" or "finished" ("void": called off)')
    legal_actions: list[str]
    asked: str = Field(description="why the decision is asked (empty when none is)")
    events: list[dict[str, Any]]
    outcome: str | None
    stakes: dict[str, str]
    net: dict[str, str] = Field(description="each wager's result, once finished")
    total_net: str | None
    bonus: str | None = Field(description="finnish27: the bonus the player's hand won")
    balance: str
    notes: list[str]
    reshuffle_due: bool | None = None
    played_at: str | None = None
    cards: list[str] | None = None
    decisions: list[dict[str, str]] | None = None
    coup: CoupOut | None = Field(None, description="chemin de fer: the coup as you saw it")


class History(BaseModel):
    rounds: list[RoundOut]
    older: int | None = Field(None, description="`before` for the page of older rounds")
    newer: int | None = Field(None, description="`after` for the page of newer rounds")


class Replayed(BaseModel):
    id: int
    same: bool
    differences: list[str]


class LedgerRowOut(BaseModel):
    id: int
    at: str
    kind: str
    amount: str
    balance_after: str
    round_id: int | None
    wager: str | None
    memo: str


class LedgerOut(BaseModel):
    balance: str
    rows: list[LedgerRowOut]
    older: int | None = Field(None, description="`before` for the page of older rows")
    newer: int | None = Field(None, description="`after` for the page of newer rows")
    balance_before: str = Field(description="the balance before the page's oldest row")
    top_up: TopUpOffer | None = Field(None, description="null when the balance is enough")


class ErrorOut(BaseModel):
    error: str
