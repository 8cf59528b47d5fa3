"""The JSON API under ``/api``: accounts, games, rounds, history and the ledger.

Each handler translates HTTP into calls on the tables, the wallet and the history, and
their answers (or refusals) back into JSON; the rules, the money and the records are
theirs.  Handlers are plain functions, which FastAPI runs in its thread pool, except
signing in and registering: they wait for an Argon2 check without holding a thread
(see :mod:`cardroom.web.signin`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from cardroom.app.history import RecordError, RoundRecord, replay
from cardroom.app.sessions import LIFETIME
from cardroom.app.tables.house import KeyReused, OverBalance, RoundUnfinished
from cardroom.app.wallet import TopUpRefused, WalletError
from cardroom.games import GAMES, GameInfo, UnknownGame, get_game
from cardroom.games.base import IllegalAction, WagerError
from cardroom.storage import StorageConflict
from cardroom.web import books, models, signin, topup, views
from cardroom.web.deps import (
    COOKIE,
    CSRF_PARAMETER,
    ApiError,
    Person,
    changing,
    person_or_none,
    secure,
    services,
    signed_in,
)
from cardroom.web.live import NotFound

router = APIRouter(prefix="/api", tags=["api"])

ROUND_ID = Path(ge=1, le=2**62, description="the round's id")
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": models.ErrorOut} for code in (400, 401, 403, 404, 409, 422, 429, 503)
}


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


def limits_json(rules: Any) -> models.Limits:
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
@router.post("/accounts", status_code=201, response_model=models.SignedIn, responses=ERRORS)
async def register(
    body: models.Credentials, request: Request, response: Response
) -> models.SignedIn:
    """Open an account (with 1,000 in play money) and sign in."""
    svc = services(request)
    account = await signin.register(svc, body.username, body.password)
    token, session = await signin.begin_session(svc, account.id)
    set_session_cookie(request, response, token)
    return models.SignedIn(
        username=account.name, balance=views.money(account.balance), csrf_token=session.csrf_token
    )


@router.post("/login", response_model=models.SignedIn, responses=ERRORS)
async def login(body: models.Credentials, request: Request, response: Response) -> models.SignedIn:
    """Sign in: the session cookie and the CSRF token to send with every change."""
    svc = services(request)
    account = await signin.sign_in(svc, request, body.username, body.password)
    token, session = await signin.begin_session(svc, account.id)
    set_session_cookie(request, response, token)
    return models.SignedIn(
        username=account.name, balance=views.money(account.balance), csrf_token=session.csrf_token
    )


@router.post("/logout", status_code=204, responses=ERRORS)
def logout(request: Request, person: Annotated[Person, Depends(changing)]) -> Response:
    """Sign out: the session ends."""
    services(request).sessions.end(person.token)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
    return response


@router.get("/me", response_model=models.Me, responses=ERRORS)
def me(person: Annotated[Person, Depends(signed_in)], request: Request) -> models.Me:
    """Who is signed in, and their balance."""
    balance = services(request).wallet.balance(person.account.id)
    return models.Me(username=person.account.name, balance=views.money(balance))


# -- games ---------------------------------------------------------------------------------
@router.get("/games", response_model=models.Games)
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


@router.get("/games/{game_id}/edges", responses=ERRORS)
def edges(game_id: str, request: Request) -> dict[str, Any]:
    """The exact house edge of every wager at this server's rules ("computing" the
    first time: ask again)."""
    game = house_game(request, game_id)
    svc = services(request)
    return {"game": game.id, **svc.edges.get(game.id, svc.rules[game.id]).to_json()}


@router.get("/games/{game_id}/table", responses=ERRORS)
def table(
    game_id: str, request: Request, person: Annotated[Person, Depends(signed_in)]
) -> dict[str, Any]:
    """Your table at the game: this shoe's bead plate and big road, the reshuffle notice,
    and the round in play, if any."""
    game = house_game(request, game_id)
    return services(request).tables.table_state(person.account, game)


# -- rounds --------------------------------------------------------------------------------
#: The keys of :class:`models.RoundOut` a round may leave out, as the model writes them.
ROUND_DEFAULTS = {
    "reshuffle_due": None,
    "played_at": None,
    "cards": None,
    "decisions": None,
    "coup": None,
}


def round_response(data: dict[str, Any], status: int = 200) -> JSONResponse:
    """A round as :class:`models.RoundOut` describes it, sent as it is: the views build
    exactly that shape, and checking it again through the model on every round cost
    more than dealing it."""
    return JSONResponse({**ROUND_DEFAULTS, **data}, status_code=status)


def _refusal(err: Exception) -> ApiError:
    if isinstance(err, NotFound):
        return ApiError(404, str(err))
    if isinstance(err, OverBalance | RoundUnfinished | KeyReused | IllegalAction):
        return ApiError(409, str(err))
    if isinstance(err, WagerError):
        return ApiError(422, str(err))
    return ApiError(409, str(err))


#: The ``Idempotency-Key`` header of a round as the schema declares it (read from the
#: request by the endpoint itself, as the CSRF token is: see :data:`CSRF_PARAMETER`).
IDEMPOTENCY_PARAMETER: dict[str, Any] = {
    "in": "header",
    "name": "idempotency-key",
    "required": False,
    "schema": {
        "anyOf": [{"maxLength": 100, "type": "string"}, {"type": "null"}],
        "title": "Idempotency-Key",
    },
}


@router.post(
    "/games/{game_id}/rounds",
    status_code=201,
    response_model=models.RoundOut,
    responses=ERRORS,
    openapi_extra={"parameters": [IDEMPOTENCY_PARAMETER, CSRF_PARAMETER]},
)
async def place_bets(game_id: str, body: models.Bets, request: Request) -> Response:
    """Place bets and deal the round as far as it goes without you.

    The stakes are taken with the balance check in one transaction. The same
    ``Idempotency-Key`` sent again gives the same round back and takes nothing again.
    """
    game = house_game(request, game_id)
    idempotency_key = request.headers.get("idempotency-key")
    if idempotency_key is not None and not (
        len(idempotency_key) <= 100
        and idempotency_key.isascii()
        and idempotency_key.isprintable()
        and idempotency_key.strip()
    ):
        raise ApiError(422, "an Idempotency-Key is up to 100 printable ASCII characters")
    svc = services(request)

    def work(_: object) -> tuple[dict[str, Any], bool]:
        person = changing(request)
        return svc.tables.place(person.account, game, body.bets, idempotency_key)

    # the busiest request: who is asking and the round itself are one transaction,
    # made in one trip to a worker thread
    try:
        try:
            data, new = await run_in_threadpool(svc.db.run, work)
        except StorageConflict:
            if idempotency_key is None:
                raise
            # the same key at the same moment from elsewhere: its round is given back
            data, new = await run_in_threadpool(svc.db.run, work)
    except (WagerError, WalletError) as err:
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


@router.post("/rounds/{round_id}/actions", response_model=models.RoundOut, responses=ERRORS)
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


@router.get("/rounds/{round_id}", response_model=models.RoundOut, responses=ERRORS)
def get_round(
    request: Request, person: Annotated[Person, Depends(signed_in)], round_id: int = ROUND_ID
) -> Response:
    """One of your rounds (404 for anyone else's)."""
    try:
        return round_response(services(request).tables.get(person.account, round_id))
    except NotFound as err:
        raise _refusal(err) from None


@router.get("/rounds/{round_id}/replay", response_model=models.Replayed, responses=ERRORS)
def replay_round(
    request: Request, person: Annotated[Person, Depends(signed_in)], round_id: int = ROUND_ID
) -> models.Replayed:
    """Run a finished round's record through the engine again: does it give the same
    cards, decisions, outcome and payouts?"""
    svc = services(request)
    try:
        stored = svc.wallet.round(round_id)
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


CURSOR = Query(ge=1, le=2**62, description="a cursor: the `older` or `newer` of a page")


def _cursors(before: int | None, after: int | None) -> None:
    if before is not None and after is not None:
        raise ApiError(422, "ask for the page before one row or after one, not both")


@router.get("/history", response_model=models.History, responses=ERRORS)
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
    ``before`` (the page's ``older``) or those after ``after`` (its ``newer``)."""
    svc = services(request)
    _cursors(before, after)
    if game is not None and game not in GAMES:
        raise ApiError(404, f"there is no game {game!r}")
    balance = svc.wallet.balance(person.account.id)
    page = svc.wallet.rounds_page(
        person.account.id, limit=limit, game=game, before=before, after=after
    )
    tables = books.table_names(svc)
    return {
        "rounds": [views.stored_round_json(r, balance, tables) for r in page.rounds],
        "older": page.older,
        "newer": page.newer,
    }


@router.get("/ledger", response_model=models.LedgerOut, responses=ERRORS)
def ledger(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    before: Annotated[int | None, CURSOR] = None,
    after: Annotated[int | None, CURSOR] = None,
) -> models.LedgerOut:
    """Your wallet's movements, a page at a time, newest first, each with the balance it
    left and what it was in words; ``balance_before`` is the balance before the page's
    oldest row (the page adds up from it)."""
    svc = services(request)
    _cursors(before, after)
    page = svc.wallet.ledger_page(person.account.id, limit, before=before, after=after)
    tables = books.table_names(svc)
    offered = topup.offer(svc, person.account.id)
    return models.LedgerOut(
        balance=views.money(svc.wallet.balance(person.account.id)),
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


@router.post("/wallet/top-up", response_model=models.TopUpDone, responses=ERRORS)
def top_up(request: Request, person: Annotated[Person, Depends(changing)]) -> models.TopUpDone:
    """Play money: your balance back to the starting balance, when it is below every
    table's minimum (with what you have at the tables), at most once a day (409
    otherwise, saying why and when)."""
    svc = services(request)
    before = svc.wallet.balance(person.account.id)
    try:
        balance = svc.wallet.top_up(person.account.id, topup.lowest_minimum(svc))
    except TopUpRefused as err:
        raise ApiError(409, str(err)) from None
    return models.TopUpDone(balance=views.money(balance), amount=views.money(balance - before))
