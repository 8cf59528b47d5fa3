"""The JSON API under ``/api``: accounts, games, rounds, history and the ledger.

Each handler translates HTTP into calls on the tables, the wallet and the history, and
their answers (or refusals) back into JSON; the rules, the money and the records are
theirs.  Handlers are plain functions, which FastAPI runs in its thread pool, except
signing in and registering: they wait for an Argon2 check without holding a thread
(see :mod:`cardroom.web.signin`).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Annotated, Any, NoReturn

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.routing import Match, Route
from starlette.types import Message, Receive, Scope, Send

from cardroom.app.history import RecordError, RoundRecord, replay
from cardroom.app.sessions import LIFETIME
from cardroom.app.tables.house import KeyReused, OverBalance, RoundUnfinished
from cardroom.app.tables.stored import HouseRefused
from cardroom.app.variants import UnknownVariant, table_key
from cardroom.app.wallet import AccountSuspended, TopUpRefused, WalletError
from cardroom.games import GAMES, GameInfo, UnknownGame, get_game, house_games
from cardroom.games.base import GameRules, IllegalAction, WagerError
from cardroom.storage import StorageConflict
from cardroom.web import books, models, signin, topup, views
from cardroom.web.deps import (
    COOKIE,
    ROW_ID_MAX,
    ApiError,
    Person,
    changing,
    person_or_none,
    secure,
    services,
    signed_in,
)
from cardroom.web.live import NotFound
from cardroom.web.models import CHANGES, NOBODY, SIGNED_IN, answers, links, merge

router = APIRouter(prefix="/api", tags=["api"])

ROUND_ID = Path(ge=1, le=ROW_ID_MAX, description="the round's id")
#: The house games' ids (a path parameter's values in the schema).
HOUSE_GAME = Path(
    description="a house game's id",
    json_schema_extra={"enum": [game.id for game in house_games()]},
)
_COOKIE_SET = {
    "Set-Cookie": {
        "description": f"the session cookie, {COOKIE} (HttpOnly, SameSite=Lax)",
        "schema": {"type": "string"},
    }
}
#: Where a round leads: itself, its decisions, its replay (by its id).
ROUND_LINKS = links(
    GetRound=("get_round", {"round_id": "$response.body#/id"}),
    Act=("act", {"round_id": "$response.body#/id"}),
    ReplayRound=("replay_round", {"round_id": "$response.body#/id"}),
)


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(LIFETIME.total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure(request),
    )


def limits_json(rules: GameRules) -> models.Limits:
    table = rules.table
    return models.Limits(
        minimum=views.money(table.minimum),
        maximum=views.money(table.maximum),
        unit=views.money(table.unit),
    )


def house_game(request: Request, game_id: str) -> GameInfo:
    """A house game this server plays (404 for an unknown one)."""
    try:
        game = get_game(game_id)
    except UnknownGame:
        raise ApiError(404, f"there is no game {game_id!r}") from None
    if game.kind != "house":
        raise ApiError(404, f"{game.id} is played at seats, not against the house")
    if game.id not in services(request).rules:
        raise ApiError(404, f"this server does not deal {game.id}")
    return game


# -- accounts -------------------------------------------------------------------------------
@router.post(
    "/accounts",
    status_code=201,
    response_model=models.SignedIn,
    operation_id="register",
    responses=merge(
        {201: {"headers": _COOKIE_SET}},
        answers(400, 409, 413, 422, 503, why={409: "the name is taken"}, retry=[503]),
    ),
    openapi_extra=NOBODY,
)
async def register(
    body: models.NewAccount, request: Request, response: Response
) -> models.SignedIn:
    """Open an account (with 1,000 in play money) and sign in."""
    svc = services(request)
    account = await signin.register(svc, body.username, body.password)
    token, session = await signin.begin_session(svc, account.id, signin.address_of(request))
    set_session_cookie(request, response, token)
    return models.SignedIn(
        username=account.name, balance=views.money(account.balance), csrf_token=session.csrf_token
    )


@router.post(
    "/login",
    response_model=models.SignedIn,
    operation_id="login",
    responses=merge(
        {200: {"headers": _COOKIE_SET}},
        answers(400, 401, 413, 422, 429, 503, why={401: signin.WRONG}, retry=[503]),
    ),
    openapi_extra=NOBODY,
)
async def login(body: models.Credentials, request: Request, response: Response) -> models.SignedIn:
    """Sign in: the session cookie and the CSRF token to send with every change."""
    svc = services(request)
    account = await signin.sign_in(svc, request, body.username, body.password)
    token, session = await signin.begin_session(svc, account.id, signin.address_of(request))
    set_session_cookie(request, response, token)
    return models.SignedIn(
        username=account.name, balance=views.money(account.balance), csrf_token=session.csrf_token
    )


@router.post(
    "/logout",
    status_code=204,
    operation_id="logout",
    responses=answers(400, 401, 403, 413, 503),
    openapi_extra=CHANGES,
)
def logout(request: Request, person: Annotated[Person, Depends(changing)]) -> Response:
    """Sign out: the session ends."""
    services(request).sessions.end(person.token)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
    return response


@router.get(
    "/me",
    response_model=models.Me,
    operation_id="me",
    responses=answers(401, 503),
    openapi_extra=SIGNED_IN,
)
def me(person: Annotated[Person, Depends(signed_in)], request: Request) -> models.Me:
    """Who is signed in, and their balance."""
    balance = services(request).wallet.accounts.balance(person.account.id)
    return models.Me(username=person.account.name, balance=views.money(balance))


# -- games ---------------------------------------------------------------------------------
@router.get("/games", response_model=models.Games, operation_id="games", openapi_extra=NOBODY)
def games(request: Request) -> models.Games:
    """The games, with their wager ids and table limits."""
    rules = services(request).rules
    out = []
    for game in GAMES.values():
        if game.id not in rules:
            continue
        out.append(
            models.GameOut(
                id=game.id,
                name=game.name,
                description=game.description,
                kind=game.kind,
                wagers=list(game.wagers(rules[game.id])),
                outcomes=list(game.outcomes),
                decisions=game.decisions,
                limits=limits_json(rules[game.id]),
            )
        )
    return models.Games(games=out)


@router.get(
    "/games/{game_id}/edges",
    response_model=models.Edges,
    response_model_exclude_unset=True,
    operation_id="edges",
    responses=answers(404, 422),
    openapi_extra=NOBODY,
)
def edges(
    request: Request,
    game_id: Annotated[str, HOUSE_GAME],
    variant: Annotated[
        str | None,
        Query(pattern=r"^[0-9a-f]{20}$", description="a lab variant's table, by its id"),
    ] = None,
) -> dict[str, Any]:
    """The exact house edge of every wager at this server's rules, or at a lab
    ``variant``'s table ("computing" the first time: ask again)."""
    game = house_game(request, game_id)
    svc = services(request)
    try:
        rules = svc.tables.stored.rules_for(table_key(game.id, variant))
    except UnknownVariant as err:
        raise ApiError(404, str(err)) from None
    found = svc.edges.get(game.id, rules, capped=variant is not None).to_json()
    if found["status"] == "busy":
        found = {"status": "computing"}
    return {"game": game.id, **found}


@router.get(
    "/games/{game_id}/table",
    response_model=models.HouseTable,
    response_model_exclude_unset=True,
    operation_id="house_table",
    responses=answers(401, 404, 503),
    openapi_extra=SIGNED_IN,
)
def table(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    game_id: Annotated[str, HOUSE_GAME],
) -> dict[str, Any]:
    """Your table at the game: this shoe's bead plate and big road, the reshuffle notice,
    and the round in play, if any."""
    game = house_game(request, game_id)
    return services(request).tables.table_state(person.account, game)


# -- rounds --------------------------------------------------------------------------------
#: The keys of :class:`models.RoundOut` a round may leave out, as the model writes them.
ROUND_DEFAULTS = {
    "reshuffle_due": None,
    "reshuffle_cause": None,
    "played_at": None,
    "cards": None,
    "decisions": None,
    "coup": None,
    "hands": None,
    "outcome_text": None,
}


def round_response(data: dict[str, Any], status: int = 200) -> JSONResponse:
    """A round as :class:`models.RoundOut` describes it, sent as it is: the views build
    exactly that shape, and checking it again through the model on every round cost
    more than dealing it."""
    return JSONResponse({**ROUND_DEFAULTS, **data}, status_code=status)


def paused(err: AccountSuspended) -> ApiError:
    """A 409 for play that is paused, with its ``code`` (and the limit's or the reality
    check's ``details``) beside the line."""
    extra: dict[str, object] = {"code": err.code}
    if err.details:
        extra["details"] = dict(err.details)
    return ApiError(409, str(err), extra=extra)


def _refusal(err: Exception) -> ApiError:
    if isinstance(err, AccountSuspended):
        return paused(err)
    if isinstance(err, NotFound | UnknownVariant):
        return ApiError(404, str(err))
    if isinstance(err, OverBalance | RoundUnfinished | KeyReused | IllegalAction | HouseRefused):
        return ApiError(409, str(err))
    if isinstance(err, WagerError):
        return ApiError(422, str(err))
    return ApiError(409, str(err))


#: An ``Idempotency-Key``: up to 100 printable ASCII characters, not all spaces.
#: The form of an ``Idempotency-Key``: printable ASCII, not only spaces, at most
#: :data:`_KEY_LONGEST` characters.
_KEY_FORM = re.compile(r"[ -~]*[!-~][ -~]*")
_KEY_LONGEST = 100
IDEMPOTENCY_KEY = Header(
    description="the same key sent again gives the same round back and takes nothing again",
    min_length=1,
    max_length=_KEY_LONGEST,
    pattern=f"^{_KEY_FORM.pattern}$",
)
_REPLAYED = {
    "Idempotent-Replayed": {
        "description": '"true": the round of an Idempotency-Key sent before, given back',
        "schema": {"type": "string", "enum": ["true"]},
    }
}
_BET_REFUSALS = {
    409: "more than your balance, your last round of this game unfinished, or an "
    "Idempotency-Key used for other bets",
    422: "no such wager, a stake out of the table's limits or not in its unit, not a "
    "decimal string, no bet",
}

PlaceBets = Callable[..., Awaitable[Response]]


def bet_bodies(rules: Mapping[str, Any]) -> list[tuple[GameInfo, type[BaseModel]]]:
    """Each house game this server deals, with the body of a bet there: the wagers
    ``rules`` offer, the stakes within its table's limits."""
    return [
        (game, models.bets_model(game, game.wagers(rules[game.id]), rules[game.id].table))
        for game in house_games()
        if game.id in rules
    ]


def game_routes(rules: Mapping[str, Any]) -> APIRouter:
    """``POST /api/games/GAME/rounds`` for each house game this server deals, each with
    its own body: the wagers ``rules`` offer, the stakes within its table's limits."""
    games = APIRouter(prefix="/api", tags=["api"])
    for game, body in bet_bodies(rules):
        games.add_api_route(
            f"/games/{game.id}/rounds",
            _bets_at(game, body),
            methods=["POST"],
            status_code=201,
            response_model=models.RoundOut,
            operation_id=f"bet_{game.id}",
            summary=f"Bet at {game.name}",
            responses=merge(
                {201: {"headers": _REPLAYED, "links": ROUND_LINKS}},
                answers(400, 401, 403, 409, 413, 422, 503, why=_BET_REFUSALS),
            ),
            openapi_extra=CHANGES,
        )
    return games


def _bets_at(game: GameInfo, body: type[BaseModel]) -> PlaceBets:
    async def bet(
        request: Request,
        body: Any,
        idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
    ) -> Response:
        return await place_bets(request, game, models.given_bets(body), idempotency_key)

    bet.__doc__ = place_bets.__doc__
    # the body's model is this game's: FastAPI reads it from the signature
    signature = inspect.signature(bet)
    parameters = [
        p.replace(annotation=body) if p.name == "body" else p for p in signature.parameters.values()
    ]
    bet.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return bet


#: The scope's mark of a bet the quick way gave to the FastAPI route.
_SLOW = "cardroom.slow_bet"


class QuickBet(Route):
    """``POST /api/games/GAME/rounds`` for a well-formed bet, without FastAPI's work on
    each request (its dependencies, its telemetry, two exit stacks, the content type
    read as an email header), about a quarter of a millisecond of a round's CPU, an
    eighth of it in process: the body is the JSON the game's model takes
    (checked by the model, as FastAPI would), any ``Idempotency-Key`` is in the
    schema's form, and the round is :func:`place_bets`, as it is from the FastAPI
    route.  Anything else (another content type, a body the model refuses, a key
    twice...) goes on to the FastAPI route, whose answers (422s and all) are the API's.
    The FastAPI route stays the one the schema describes; this one is left out of it.
    Refusals raised here are answered by the app's handlers, as from any route."""

    def __init__(self, game: GameInfo, body: type[BaseModel]) -> None:
        super().__init__(
            f"/api/games/{game.id}/rounds", self.serve, methods=["POST"], include_in_schema=False
        )
        self.app = self.serve  # an ASGI app: no Request made here
        self.game = game
        self.body = body

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope["method"] != "POST" or _SLOW in scope:
            return Match.NONE, {}
        return super().matches(scope)

    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()  # (the body whole: JsonBodies read it)
        first = [message]

        async def again() -> Message:
            return first.pop() if first else await receive()

        bets, key, ok = self.read(scope, message)
        if not ok:
            scope[_SLOW] = True
            await scope["router"].app(scope, again, send)
            return
        request = Request(scope, again, send)
        response = await place_bets(request, self.game, bets, key)
        await response(scope, again, send)

    def read(self, scope: Scope, message: Message) -> tuple[dict[str, str], str | None, bool]:
        """The stakes and the idempotency key of a well-formed bet, and True; else
        False."""
        if message["type"] != "http.request" or message.get("more_body", False):
            return {}, None, False
        kinds = keys = 0
        key: str | None = None
        for name, value in scope["headers"]:
            if name == b"content-type":
                kinds += 1
                if value != b"application/json":
                    return {}, None, False
            elif name == b"idempotency-key":
                keys += 1
                key = value.decode("latin-1")
                if len(key) > _KEY_LONGEST or not _KEY_FORM.fullmatch(key):
                    return {}, None, False
        if kinds != 1 or keys > 1:
            return {}, None, False
        try:
            body = self.body.model_validate(json.loads(message.get("body", b"")))
        except (ValueError, ValidationError):
            return {}, None, False
        return models.given_bets(body), key, True


@router.post("/games/{game_id}/rounds", include_in_schema=False, response_model=None)
def no_such_house_game(request: Request, game_id: str) -> NoReturn:
    """A bet at a game this server does not deal against the house (the routes of the
    games it deals come first: :func:`game_routes`)."""
    house_game(request, game_id)
    raise ApiError(404, f"this server does not deal {game_id}")


async def place_bets(
    request: Request,
    game: GameInfo,
    bets: dict[str, str],
    idempotency_key: str | None,
    variant: str | None = None,
) -> Response:
    """Place bets and deal the round as far as it goes without you.

    The stakes are taken with the balance check in one transaction. The same
    ``Idempotency-Key`` sent again gives the same round back and takes nothing again.
    """
    svc = services(request)

    def work(_: object) -> tuple[dict[str, Any], bool]:
        person = changing(request)
        return svc.tables.place(person.account, game, bets, idempotency_key, variant)

    # the busiest request: who is asking and the round itself are one transaction,
    # made in one trip to a thread of the rounds' own
    try:
        try:
            data, new = await svc.rounds.run(partial(svc.db.run, work))
        except StorageConflict:
            if idempotency_key is None:
                raise
            # the same key at the same moment from elsewhere: its round is given back
            data, new = await svc.rounds.run(partial(svc.db.run, work))
    except (WagerError, WalletError, UnknownVariant) as err:
        refused = _refusal(err)
        if isinstance(err, OverBalance):  # the way on, where the account may be topped up
            person = person_or_none(request)
            if person is not None:
                message = await run_in_threadpool(topup.hint, svc, person.account.id, str(err))
                refused = ApiError(refused.status, message)
        raise refused from None
    answer = round_response(data, 201)
    if not new:
        answer.headers["Idempotent-Replayed"] = "true"
    return answer


@router.post(
    "/rounds/{round_id}/actions",
    response_model=models.RoundOut,
    operation_id="act",
    responses=merge(
        {200: {"links": ROUND_LINKS}},
        answers(
            400,
            401,
            403,
            404,
            409,
            413,
            422,
            503,
            why={409: "not a choice now (or nothing is asked)", 404: "no round of yours"},
        ),
    ),
    openapi_extra=CHANGES,
)
def act(
    body: models.ActionIn,
    request: Request,
    person: Annotated[Person, Depends(changing)],
    round_id: int = ROUND_ID,
) -> Response:
    """Your decision (``hit`` or ``stand``) where the round asks for one (409 otherwise)."""
    try:
        return round_response(services(request).tables.act(person.account, round_id, body.action))
    except (NotFound, IllegalAction, WalletError) as err:
        raise _refusal(err) from None


@router.get(
    "/rounds/{round_id}",
    response_model=models.RoundOut,
    operation_id="get_round",
    responses=merge(
        {200: {"links": ROUND_LINKS}},
        answers(401, 404, 422, 503, why={404: "no round of yours"}),
    ),
    openapi_extra=SIGNED_IN,
)
def get_round(
    request: Request, person: Annotated[Person, Depends(signed_in)], round_id: int = ROUND_ID
) -> Response:
    """One of your rounds (404 for anyone else's)."""
    try:
        return round_response(services(request).tables.get(person.account, round_id))
    except NotFound as err:
        raise _refusal(err) from None


@router.get(
    "/rounds/{round_id}/replay",
    response_model=models.Replayed,
    operation_id="replay_round",
    responses=answers(
        401, 404, 409, 422, 503, why={404: "no round of yours", 409: "the round is not finished"}
    ),
    openapi_extra=SIGNED_IN,
)
def replay_round(
    request: Request, person: Annotated[Person, Depends(signed_in)], round_id: int = ROUND_ID
) -> models.Replayed:
    """Run a finished round's record through the engine again: does it give the same
    cards, decisions, outcome and payouts?"""
    svc = services(request)
    try:
        stored = svc.wallet.rounds.round(round_id)
    except WalletError:
        stored = None
    if stored is None or stored.account_id != person.account.id:
        raise ApiError(404, f"there is no round {round_id} of yours")
    if stored.status != "finished" or not stored.record:
        raise ApiError(409, f"round {round_id} is not finished: there is no record to replay")
    try:
        result = replay(RoundRecord.from_json(stored.record))
    except RecordError as err:
        return models.Replayed(id=round_id, same=False, differences=[str(err)])
    return models.Replayed(id=round_id, same=result.same, differences=list(result.differences))


CURSOR = Query(ge=1, le=ROW_ID_MAX, description="a cursor: the `older` or `newer` of a page")


@router.get(
    "/history",
    response_model=models.History,
    operation_id="history",
    responses=answers(401, 404, 422, 503, why={404: "no such game"}),
    openapi_extra=SIGNED_IN,
)
def history(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    game: Annotated[str | None, Query(max_length=40)] = None,
    before: Annotated[int | None, CURSOR] = None,
    after: Annotated[int | None, CURSOR] = None,
) -> dict[str, Any]:
    """Your rounds, a page at a time, newest first, each with every card, decision, wager
    and payout (a chemin de fer coup as you saw it): the newest, those before the round
    ``before`` (the page's ``older``) or those after ``after`` (its ``newer``); with
    both, the newest between them."""
    svc = services(request)
    if game is not None and game not in GAMES:
        raise ApiError(404, f"there is no game {game!r}")
    balance = svc.wallet.accounts.balance(person.account.id)
    page = svc.wallet.rounds.rounds_page(
        person.account.id, limit=limit, game=game, before=before, after=after
    )
    tables = books.table_names(svc)
    return {
        "rounds": [views.stored_round_json(r, balance, tables) for r in page.rounds],
        "older": page.older,
        "newer": page.newer,
    }


@router.get(
    "/ledger",
    response_model=models.LedgerOut,
    operation_id="ledger",
    responses=answers(401, 422, 503),
    openapi_extra=SIGNED_IN,
)
def ledger(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    before: Annotated[int | None, CURSOR] = None,
    after: Annotated[int | None, CURSOR] = None,
) -> models.LedgerOut:
    """Your wallet's movements, a page at a time, newest first, each with the balance it
    left and what it was in words (``before`` and ``after`` as for the history);
    ``balance_before`` is the balance before the page's oldest row (the page adds up
    from it)."""
    svc = services(request)
    page = svc.wallet.books.ledger_page(person.account.id, limit, before=before, after=after)
    tables = books.table_names(svc)
    offered = topup.offer(svc, person.account.id)
    return models.LedgerOut(
        balance=views.money(svc.wallet.accounts.balance(person.account.id)),
        rows=[
            models.LedgerRowOut(
                id=row.id,
                at=row.created_at.isoformat(),
                kind=row.kind,
                amount=views.money(row.amount),
                balance_after=views.money(row.balance_after),
                round_id=row.round_id,
                wager=row.wager,
                memo=books.row_words(row, tables),
            )
            for row in page.rows
        ],
        older=page.older,
        newer=page.newer,
        balance_before=views.money(page.balance_before),
        top_up=None if offered is None else models.TopUpOffer(**offered),
    )


@router.post(
    "/wallet/top-up",
    response_model=models.TopUpDone,
    operation_id="top_up",
    responses=answers(
        400,
        401,
        403,
        409,
        413,
        503,
        why={409: "the balance is enough, or the day's top-up has been made (the line says when)"},
    ),
    openapi_extra=CHANGES,
)
def top_up(request: Request, person: Annotated[Person, Depends(changing)]) -> models.TopUpDone:
    """Play money: your balance back to the starting balance, when it is below every
    table's minimum (with what you have at the tables), at most once a day (409
    otherwise, saying why and when)."""
    svc = services(request)
    before = svc.wallet.accounts.balance(person.account.id)
    try:
        balance = svc.wallet.accounts.top_up(person.account.id, topup.lowest_minimum(svc))
    except (TopUpRefused, AccountSuspended) as err:
        raise ApiError(409, str(err)) from None
    return models.TopUpDone(balance=views.money(balance), amount=views.money(balance - before))
