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


class History(BaseModel):
    rounds: list[RoundOut]


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


class ErrorOut(BaseModel):
    error: str
