"""The JSON the API takes and gives (pydantic, at the edge only), and what its schema says
of each operation: the answers it can give and who may ask.

Money is always a decimal string (``"9.5"``): a JSON number is refused, since a float
cannot carry an amount exactly.  What an amount may be is said once, in
:mod:`cardroom.core.money` (:data:`~cardroom.core.money.AMOUNT_PATTERN`,
:func:`~cardroom.core.money.amount_pattern`); the models give the schema that rule, and
the server checks it with the same functions (``parse_amount``, ``check_wagers``), whose
refusals say in words what is wrong.  The same goes for names
(:func:`cardroom.app.wallet.account_name`, :func:`name_pattern`).

Every answer has a model here, so that the schema says what each operation gives.  A new
endpoint (see "Adding to the API" in docs/web.md):

- answers with a model of this module (``extra="forbid"``: a key the model does not
  name is an error in the tests, not a silent extra), built with :func:`answers` for its
  refusals and :data:`SIGNED_IN` or :data:`CHANGES` for who may ask;
- takes money as :func:`amount` fields and gives it as :data:`Money`;
- names the games, wagers and events from :mod:`cardroom.games` and the event registry
  (loops over them), never by hand.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
import unicodedata
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    create_model,
    model_validator,
)

from cardroom.app.sessions import PASSWORD_MAX, PASSWORD_MIN
from cardroom.app.wallet import NAME_LENGTH
from cardroom.core.cards import Card, Deck
from cardroom.core.events import EVENT_KINDS, Points, Why
from cardroom.core.money import AMOUNT_MAX_CHARS, CENT, amount_pattern, format_decimal
from cardroom.games import GameInfo
from cardroom.games.base import Action
from cardroom.storage.schema import LEDGER_KINDS
from cardroom.web.events import card_words, says_card

JsonDict = dict[str, Any]


def _strict() -> ConfigDict:
    return ConfigDict(extra="forbid")


# -- what a name may be --------------------------------------------------------------------
@cache
def name_pattern() -> str:
    """An account's name as :func:`cardroom.app.wallet.account_name` takes it, as a regular
    expression: white space around it (dropped), then characters that are, in Unicode's
    compatibility form (NFKC, as the name is kept), one character that Python prints
    (``str.isprintable``) other than a comma, or a space; the last of them not a space
    (the first may be: it is dropped with the white space).  The length, 1 to 40, is
    the field's ``maxLength`` (of the whole string: no character here grows in NFKC).

    One way it is stricter than the server: a character that NFKC makes several
    ("ﬁ", "½") is left out, as a name of them may be longer than it looks.  Built from
    this Python's Unicode tables as classes of the characters allowed (a class of those
    barred is as long, and far slower to draw from), the long one given twice and no
    more: each is a second's work for a generator to read; characters beyond the BMP
    appear as themselves."""
    edge: list[tuple[int, int]] = []
    inner: list[tuple[int, int]] = []
    starts: list[int | None] = [None, None]
    for point in range(sys.maxunicode + 2):
        kept = ""
        if point <= sys.maxunicode and not 0xD800 <= point <= 0xDFFF:
            kept = unicodedata.normalize("NFKC", chr(point))
        good = len(kept) == 1 and kept.isprintable() and kept not in ", "
        for n, (ok, ranges) in enumerate(((good, edge), (good or kept == " ", inner))):
            if ok and starts[n] is None:
                starts[n] = point
            elif not ok and starts[n] is not None:
                ranges.append((starts[n], point - 1))  # type: ignore[arg-type]
                starts[n] = None
    spaces = "".join(_char(p) for p in range(sys.maxunicode + 1) if chr(p).isspace())
    return f"^[{spaces}]*[{_class(inner)}]*[{_class(edge)}][{spaces}]*$"


def _class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)


def _char(point: int) -> str:
    """A character in a class, as every regular expression engine reads it."""
    if point > 0xFFFF:
        return chr(point)
    text = chr(point)
    if text.isalnum() and text.isascii():
        return text
    return f"\\u{point:04x}"


def _pattern(make: Callable[[], str]) -> Callable[[JsonDict], None]:
    """A field's schema gets ``pattern`` (made when the schema is, not at import); a
    key left out is absent, not a default value."""

    def extra(schema: JsonDict) -> None:
        schema["pattern"] = make()
        schema.pop("default", None)

    return extra


# -- what goes in -------------------------------------------------------------------------
Username = Annotated[
    str,
    StringConstraints(min_length=1, max_length=NAME_LENGTH, strict=True),
    Field(
        description=(
            f"1 to {NAME_LENGTH} characters, no comma, nothing unprintable; spaces around it "
            "are dropped and case does not matter when names are compared"
        ),
        json_schema_extra=_pattern(name_pattern),
    ),
]
NewPassword = Annotated[
    str,
    StringConstraints(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX, strict=True),
    Field(description=f"{PASSWORD_MIN} to {PASSWORD_MAX} characters"),
]
Password = Annotated[
    str,
    StringConstraints(min_length=1, max_length=PASSWORD_MAX, strict=True),
    Field(description=f"the account's password (at most {PASSWORD_MAX} characters)"),
]


def amount(
    description: str,
    low: Fraction | None = None,
    high: Fraction | None = None,
    unit: Fraction = CENT,
) -> Any:
    """An amount a client sends: a string of at most :data:`AMOUNT_MAX_CHARS` characters
    (checked here), which the schema describes exactly (``pattern``: a plain decimal from
    ``low`` to ``high`` in whole ``unit``\\ s) and the server reads with ``parse_amount``
    and the table's own checks (their refusals say what is wrong in words)."""
    return Annotated[
        str,
        StringConstraints(min_length=1, max_length=AMOUNT_MAX_CHARS, strict=True),
        Field(
            description=description,
            json_schema_extra=_pattern(lambda: amount_pattern(low, high, unit)),
        ),
    ]


Amount = amount("an exact decimal string, such as 10 or 12.50")


class NewAccount(BaseModel):
    """A name and a password to open an account with."""

    model_config = _strict()
    username: Username
    password: NewPassword


class Credentials(BaseModel):
    """A name and a password to sign in with."""

    model_config = _strict()
    username: Username
    password: Password


def _limits_words(low: Fraction, high: Fraction, unit: Fraction) -> str:
    whole = "whole cents" if unit == CENT else f"whole multiples of {format_decimal(unit)}"
    return f"{format_decimal(low)} to {format_decimal(high)} in {whole}"


@cache
def bets_model(game: GameInfo, wagers: tuple[str, ...], limits: Any) -> type[BaseModel]:
    """The body of a bet at ``game``: ``{"bets": {wager: amount}}`` with the wagers the
    server's rules offer (``wagers``) and amounts within the table ``limits``."""
    low, high, unit = limits.minimum, limits.maximum, limits.unit
    stake = amount(f"the stake: {_limits_words(low, high, unit)}", low, high, unit)
    fields: dict[str, Any] = {
        f"w{n}": (stake, Field(default=None, alias=wager)) for n, wager in enumerate(wagers)
    }
    stakes = create_model(f"Stakes-{game.id}", __base__=_Stakes, **fields)
    stakes.__doc__ = f"The stakes by wager ({', '.join(wagers)}); at least one."
    body = create_model(
        f"Bets-{game.id}",
        __config__=ConfigDict(extra="forbid", title=f"Bets at {game.name}"),
        bets=(stakes, ...),
    )
    body.__doc__ = f"A bet at {game.name}."
    return body


class _Stakes(BaseModel):
    """The stakes of a bet (each game's model adds its wagers)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    @model_validator(mode="after")
    def one_bet(self) -> _Stakes:
        if not self.model_fields_set:
            raise ValueError("place at least one bet")
        return self


def _no_default(schema: JsonDict) -> None:
    """A key that may be left out (not null): its schema has no default."""
    schema.pop("default", None)


def _absent(description: str) -> Any:
    """A key sent only where it applies (never null)."""
    return Field(default=None, description=description, json_schema_extra=_no_default)


def given_bets(body: BaseModel) -> dict[str, str]:
    """The stakes of a :func:`bets_model` body, by wager id, as sent."""
    stakes: BaseModel = body.bets  # type: ignore[attr-defined]
    dumped: dict[str, str] = stakes.model_dump(by_alias=True, exclude_unset=True)
    return dumped


ActionName = Literal[tuple(a.value for a in Action)]  # type: ignore[valid-type]


class ActionIn(BaseModel):
    """A decision: ``hit`` or ``stand``."""

    model_config = _strict()
    action: ActionName  # type: ignore[valid-type]


def _whole(value: object) -> object:
    """A JSON number without a fraction (``3.0``) is the integer JSON Schema says it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def seat_model(table_id: int, seats: int, low: Fraction, high: Fraction) -> type[BaseModel]:
    """The body of taking a seat at a chemin de fer table of ``seats`` seats whose buy-in
    is ``low`` to ``high``."""
    buy_in = amount(
        f"taken from your wallet: {_limits_words(low, high, CENT)}, at most your balance",
        low,
        high,
    )
    seat = Annotated[
        int,
        Field(
            default=None,
            ge=0,
            le=seats - 1,
            strict=True,
            description="counted from 0; left out: the first empty seat",
            json_schema_extra=_no_default,
        ),
        BeforeValidator(_whole),
    ]
    model = create_model(
        f"SeatIn-{table_id}",
        __config__=ConfigDict(extra="forbid", title=f"A seat at table {table_id}"),
        seat=(seat, None),
        buy_in=(buy_in, ...),
    )
    model.__doc__ = f"A seat to take at table {table_id} and the buy-in."
    return model


# -- what comes out: money, cards, events ----------------------------------------------------
Money = Annotated[
    str,
    Field(description="an exact decimal string", pattern=r"^-?[0-9]+(?:\.[0-9]+)?$"),
]
Fraction_ = Annotated[
    str, Field(description="an exact fraction, n/d or whole", pattern=r"^-?[0-9]+(?:/[0-9]+)?$")
]
CARD_CODES = tuple(dict.fromkeys(card.code for card in Deck.standard(jokers=1)))
CardCode = Annotated[
    str,
    Field(
        description="a card: rank and suit (As, Td, 7h), Jo a Joker",
        pattern=r"^(?:[2-9TJQKA][cdhs]|Jo)$",
    ),
]
DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
#: why a shoe is shuffled again before the next round (the causes a table can be due)
ReshuffleCause = Literal["cut_card", "reshuffle_point", "round_limit"]


class PointsOut(BaseModel):
    """A hand's total as a person reads it."""

    model_config = _strict()
    value: int
    soft: bool | None = Field(description="soft or hard, where the game has that notion")
    named: str | None = Field(description="a named hand: finnish_27, natural...")


class WhyOut(BaseModel):
    """The rule that decided, and the facts it went on."""

    model_config = _strict()
    rule: str
    facts: dict[str, JsonValue] = Field(
        description='cards as {"card": code}, amounts {"amount": "9.5"}, totals {"points": ...}'
    )


def _wire(tp: Any) -> Any:
    """The JSON type of an event field of Python type ``tp`` (as ``event_to_json``
    writes it)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if args and type(None) in args:
        [inner] = [a for a in args if a is not type(None)]
        return _wire(inner) | None
    if origin is tuple:
        return list[_wire(args[0])]  # type: ignore[misc]
    wired: dict[Any, Any] = {
        Card: CardCode,
        Fraction: Money,
        Points: PointsOut,
        Why: WhyOut,
        int: int,
        str: str,
        bool: bool,
    }
    return wired[tp]


def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


@cache
def event_models(coup: bool = False) -> tuple[type[BaseModel], ...]:
    """One model per event kind of the registry (``event`` says which), with the
    sentence a person reads (``text``) and, for a dealt card, the card in words
    (``card_alt``): what :func:`cardroom.web.events.event_json` sends.  With ``coup``:
    an event of a chemin de fer coup from the history, with the coup's number, as
    :func:`cardroom.web.coups.coup_json` sends it."""
    models = []
    for kind, cls in EVENT_KINDS.items():
        hints = typing.get_type_hints(cls)
        fields: dict[str, Any] = {"coup": (int, ...)} if coup else {}
        fields["event"] = (Literal[kind], ...)
        for field in dataclasses.fields(cls):
            fields[field.name] = (_wire(hints[field.name]), ...)
        fields["text"] = (str, Field(description="the event in words"))
        if coup:
            for key, null in card_words(cls).items():
                tp: Any = str if key == "card_alt" else list[str]
                words = "the card in words" if key == "card_alt" else "the cards in words"
                if null:
                    tp, words = tp | None, f"{words} (null for a card face down)"
                fields[key] = (tp, Field(description=words))
        elif says_card(cls):
            fields["card_alt"] = (str, Field(description="the card in words"))
        name = f"{'Coup' if coup else ''}{_camel(kind)}Event"
        model = create_model(name, __config__=_strict(), **fields)
        model.__doc__ = (cls.__doc__ or kind).strip().split("\n\n")[0]
        models.append(model)
    return tuple(models)


if typing.TYPE_CHECKING:
    EventOut = dict[str, Any]
    CoupEventOut = dict[str, Any]
else:
    #: An event of any kind (``event`` says which).
    EventOut = Annotated[typing.Union[tuple(event_models())], Field(discriminator="event")]  # noqa: UP007
    #: An event of a chemin de fer coup from the history.
    CoupEventOut = Annotated[
        typing.Union[tuple(event_models(coup=True))],  # noqa: UP007
        Field(discriminator="event"),
    ]


# -- accounts ------------------------------------------------------------------------------
class SignedIn(BaseModel):
    """Signed in: the session cookie is set, and the CSRF token is for every change."""

    model_config = _strict()
    username: str
    balance: Money
    csrf_token: str = Field(description="send it back as X-CSRF-Token on every change")


class Me(BaseModel):
    model_config = _strict()
    username: str
    balance: Money


# -- games ---------------------------------------------------------------------------------
class Limits(BaseModel):
    model_config = _strict()
    minimum: Money
    maximum: Money
    unit: Money = Field(description="stakes are whole multiples of it")


class GameOut(BaseModel):
    model_config = _strict()
    id: str
    name: str
    description: str
    kind: str = Field(
        description='"house": bets against the house; "seats": played between seats',
        json_schema_extra={"enum": ["house", "seats"]},
    )
    wagers: list[str]
    outcomes: list[str]
    decisions: bool
    limits: Limits


class Games(BaseModel):
    model_config = _strict()
    games: list[GameOut]


class EdgeOut(BaseModel):
    model_config = _strict()
    house_edge: Fraction_
    house_edge_percent: Annotated[str, Field(pattern=r"^-?[0-9]+\.[0-9]+$")]


class Edges(BaseModel):
    """The exact house edge of each wager at this server's rules."""

    model_config = _strict()
    game: str
    status: Literal["computing", "ready", "failed"] = Field(
        description='"computing" the first time: ask again'
    )
    wagers: dict[str, EdgeOut] = _absent("each wager's edge, once ready")
    error: str = _absent("why the figures failed")


class HeartbeatOut(BaseModel):
    model_config = _strict()
    last: DateTime | None = Field(description="this process's last heartbeat that worked")
    failures: int = Field(description="heartbeats failed in a row since")
    error: str | None = Field(description="the last failure, in one line")


class ListenerOut(BaseModel):
    model_config = _strict()
    listening: bool
    failures: int = Field(description="tries to listen failed in a row (each waits longer)")
    error: str | None
    since: DateTime | None


class TableLeaseOut(BaseModel):
    model_config = _strict()
    id: int
    name: str
    lease: Literal["here", "elsewhere", "none"] = Field(
        description="who drives the table: this process, another, or nobody just now"
    )


class ChemmyHealthOut(BaseModel):
    model_config = _strict()
    heartbeat: HeartbeatOut
    listener: ListenerOut | None = Field(description="PostgreSQL only: its NOTIFY listener")
    tables: list[TableLeaseOut]


class DatabaseHealthOut(BaseModel):
    model_config = _strict()
    ok: bool
    error: str | None


class Health(BaseModel):
    """Whether this process serves: its database, and the chemin de fer tables."""

    model_config = _strict()
    status: Literal["ok", "degraded", "failing"] = Field(
        description='"failing": the database does not answer (503); "degraded": a heartbeat '
        "or the listener fails, or a table is driven by nobody"
    )
    database: DatabaseHealthOut
    chemin_de_fer: ChemmyHealthOut | None


class Cell(BaseModel):
    model_config = _strict()
    column: int
    row: int
    outcome: str


class BeadCell(Cell):
    pairs: list[Literal["player", "banker"]] = _absent(
        "the hands whose first two cards were a pair (at a game with pair wagers)"
    )


class RoadCell(Cell):
    ties: int


class HouseTable(BaseModel):
    """Your table at a house game."""

    model_config = _strict()
    game: str
    balance: Money
    reshuffle_due: bool = Field(description="the next round starts from a new shoe")
    reshuffle_cause: ReshuffleCause | None = Field(
        default=None, description="why the next round starts from a new shoe"
    )
    rounds_played: int
    round_in_play: int | None = Field(description="the round waiting for your decision")
    shoe: int | None = Field(description="which shuffle the scoreboards are of")
    bead_plate: list[BeadCell]
    big_road: list[RoadCell]
    counts: dict[str, int]


# -- rounds --------------------------------------------------------------------------------
class DecisionOut(BaseModel):
    model_config = _strict()
    action: str
    by: str = Field(description='"person", or who played for them')
    text: str = Field(description="the decision in words")


class HandTotalOut(BaseModel):
    model_config = _strict()
    hand: str
    total: str = Field(description="the hand's last total in words (empty where none is given)")


# -- the history's chemin de fer coups, the top-up ---------------------------------------------
class CardOut(BaseModel):
    model_config = _strict()
    card: CardCode | None = Field(description="the card's code; null for a card face down")
    card_alt: str = Field(description="the card in words")


class CoupHandOut(BaseModel):
    model_config = _strict()
    hand: Literal["player", "banker"]
    seat: int
    name: str
    cards: list[CardOut]
    total: int | None
    shown: bool = Field(description="turned over at the end of the coup")


class CoupOut(BaseModel):
    """A chemin de fer coup as its person saw it."""

    model_config = _strict()
    table: str = Field(description="the table's name")
    number: int | None = Field(description="the coup's number (null: not read)")
    seat: int | None = Field(description="your seat, counted from 0")
    name: str | None
    part: Literal["banker", "punter", "watcher"] | None
    part_text: str
    hands: list[CoupHandOut]


class TopUpOffer(BaseModel):
    """A top-up of play money, offered while the balance is below every table's minimum."""

    model_config = _strict()
    due: bool = Field(description="it may be made now (else `next_at` says when)")
    to: Money = Field(description="the balance it brings back")
    minimum: Money = Field(description="the lowest table minimum")
    next_at: DateTime | None
    text: str


class TopUpDone(BaseModel):
    model_config = _strict()
    balance: Money
    amount: Money = Field(description="what the top-up added")


class RoundOut(BaseModel):
    """A round: its events so far, what may be done now, and the money."""

    model_config = _strict()
    id: int
    game: str
    state: Literal["awaiting_action", "finished", "void", "in_progress"] = Field(
        description='"void": called off, the stakes returned; "in_progress": a chemin de '
        "fer coup still being played"
    )
    legal_actions: list[ActionName]  # type: ignore[valid-type]
    asked: str = Field(description="why the decision is asked (empty when none is)")
    events: list[EventOut | CoupEventOut] = Field(
        description="a chemin de fer coup's events come with the coup's number"
    )
    outcome: str | None
    stakes: dict[str, Money]
    net: dict[str, Money] = Field(description="each wager's result, once finished")
    total_net: Money | None
    bonus: str | None = Field(description="finnish27: the bonus the player's hand won")
    balance: Money
    notes: list[str]
    reshuffle_due: bool | None = Field(
        default=None, description="a round just finished: the next starts from a new shoe"
    )
    reshuffle_cause: ReshuffleCause | None = Field(
        default=None, description="with reshuffle_due: why the next round starts from a new shoe"
    )
    played_at: DateTime | None = Field(default=None, description="a round from the history")
    cards: list[CardCode] | None = Field(
        default=None, description="a round from the history: its cards in dealing order"
    )
    decisions: list[DecisionOut] | None = Field(
        default=None, description="a round from the history: its decisions"
    )
    coup: CoupOut | None = Field(
        default=None, description="a chemin de fer coup from the history: as you saw it"
    )
    hands: list[HandTotalOut] | None = Field(
        default=None, description="a house round: each hand and its total so far"
    )
    outcome_text: str | None = Field(
        default=None, description="a finished house round: who won and why, in words"
    )


class History(BaseModel):
    model_config = _strict()
    rounds: list[RoundOut]
    older: int | None = Field(description="`before` for the page of older rounds")
    newer: int | None = Field(description="`after` for the page of newer rounds")


class Replayed(BaseModel):
    model_config = _strict()
    id: int
    same: bool
    differences: list[str]


class LedgerRowOut(BaseModel):
    model_config = _strict()
    id: int
    at: DateTime
    kind: Literal[LEDGER_KINDS]  # type: ignore[valid-type]
    amount: Money
    balance_after: Money
    round_id: int | None
    wager: str | None
    memo: str


class LedgerOut(BaseModel):
    model_config = _strict()
    balance: Money
    rows: list[LedgerRowOut]
    older: int | None = Field(description="`before` for the page of older rows")
    newer: int | None = Field(description="`after` for the page of newer rows")
    balance_before: Money = Field(description="the balance before the page's oldest row")
    top_up: TopUpOffer | None = Field(description="null when the balance is enough")


# -- chemin de fer ------------------------------------------------------------------------------
class SeatView(BaseModel):
    """A seat as everybody sees it."""

    model_config = _strict()
    seat: int
    kind: Literal["person", "bot", "empty"]
    name: str | None
    stack: Money | None
    banker: bool
    player: bool = Field(description="holds the player's hand this coup")
    leaving: bool
    away: bool = Field(description="a person with no connection to the table")


class Range(BaseModel):
    model_config = _strict()
    minimum: Money
    maximum: Money


class RevealedShoe(BaseModel):
    """A table's last shoe whose seed is revealed (it deals no more)."""

    model_config = _strict()
    id: int = Field(description="the shoe's id (/verify?shoe=ID)")
    shoe: int
    commitment: str
    client_seed: str
    server_seed: str = Field(description="hex")


class TableShoe(BaseModel):
    """A table's shoe anyone can verify (docs/fairness.md): commitments only, for a shoe
    that may still deal."""

    model_config = _strict()
    shoe: int | None = Field(description="the shoe dealing (null before the first)")
    commitment: str | None = Field(description="the SHA-256 of the dealing shoe's seed")
    next_commitment: str | None = Field(description="the next shoe's, before its first card")
    client_seed: str = Field(description="the table's client seed")
    revealed: RevealedShoe | None


class ChemmyTableOut(BaseModel):
    """A chemin de fer table as everybody may see it."""

    model_config = _strict()
    id: int
    name: str
    seats: list[SeatView]
    people: int
    bots: int
    empty: int
    time_limit: float = Field(description="seconds for each decision")
    playing: bool
    coup: int | None
    banker: int | None = Field(description="the banker's seat")
    bank: Money | None
    covered: Money | None
    limits: Range
    buy_in: Range
    shoe: TableShoe | None = Field(
        default=None, description="null where the shoe is not one anyone can verify"
    )


class YourSeat(BaseModel):
    model_config = _strict()
    table: int
    seat: int


class Lobby(BaseModel):
    model_config = _strict()
    tables: list[ChemmyTableOut]
    you: list[YourSeat] | None = Field(description="your seats; null when signed out")


class Seated(BaseModel):
    model_config = _strict()
    table: int
    seat: int
    stack: Money
    balance: Money


class Left(BaseModel):
    model_config = _strict()
    table: int
    seat: int
    left: bool = Field(description="false: you stand up when the coup in progress ends")
    stack: Money | None = Field(description="what came back to the wallet (null: not yet)")
    balance: Money


# -- refusals, and who may ask ---------------------------------------------------------------------
class ErrorOut(BaseModel):
    """A refusal: one line saying what is wrong (nothing was changed)."""

    model_config = _strict()
    error: str
    #: why play is paused, for a program: ``suspended``, ``limit`` (a limit the person
    #: set) or ``reality_check`` (acknowledge the notice to play on)
    code: Literal["suspended", "limit", "reality_check"] | None = None
    #: with ``limit``: the limit, what is left and when it resets; with
    #: ``reality_check``: the session's start, minutes and net result
    details: dict[str, Any] | None = None


#: What each refusal means, wherever it can happen.
REFUSALS: dict[int, str] = {
    400: "the body is not JSON in UTF-8",
    401: "not signed in (no session, or it has ended)",
    403: "the X-CSRF-Token header is missing or is not the session's",
    404: "no such thing (or not yours)",
    409: "not possible now",
    413: "the body is larger than 64 KiB",
    422: "the request is not valid: the line says what",
    429: "too many wrong passwords: try again after Retry-After seconds",
    503: "the server is busy (the database, the password checks): nothing was done, try again",
}
_RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before trying again",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def answers(
    *codes: int, why: dict[int, str] | None = None, retry: Iterable[int] = ()
) -> dict[int | str, JsonDict]:
    """The refusals an operation can give (``why``: its own words for some), with
    ``Retry-After`` on those in ``retry`` (a 429 always has it)."""
    out: dict[int | str, JsonDict] = {}
    for code in codes:
        entry: JsonDict = {
            "model": ErrorOut,
            "description": (why or {}).get(code, REFUSALS[code]),
        }
        if code == 429 or code in retry:
            entry["headers"] = _RETRY_AFTER
        out[code] = entry
    return out


#: The two security schemes: the session cookie, and the CSRF header of a change.
SESSION = "session"
CSRF = "csrf"
SECURITY_SCHEMES: JsonDict = {
    SESSION: {
        "type": "apiKey",
        "in": "cookie",
        "name": "cardroom_session",
        "description": "the session, set by signing in or registering (HttpOnly)",
    },
    CSRF: {
        "type": "apiKey",
        "in": "header",
        "name": "X-CSRF-Token",
        "description": "the session's csrf_token, sent with every request that changes something",
    },
}
#: ``openapi_extra`` of an operation for the signed-in only, of one that changes
#: something, and of one that answers everybody but says more to the signed-in.
SIGNED_IN: JsonDict = {"security": [{SESSION: []}]}
CHANGES: JsonDict = {"security": [{SESSION: [], CSRF: []}]}
ANYONE: JsonDict = {"security": [{}, {SESSION: []}]}
NOBODY: JsonDict = {"security": []}


def links(**targets: tuple[str, dict[str, str]]) -> JsonDict:
    """OpenAPI links of a response: name -> (operation id, its parameters from the
    answer, such as ``{"round_id": "$response.body#/id"}``)."""
    return {
        name: {"operationId": operation, "parameters": parameters}
        for name, (operation, parameters) in targets.items()
    }


def merge(*parts: dict[int | str, JsonDict]) -> dict[int | str, JsonDict]:
    """Responses put together (the later win, key by key)."""
    out: dict[int | str, JsonDict] = {}
    for part in parts:
        for code, entry in part.items():
            out[code] = {**out.get(code, {}), **entry}
    return out
