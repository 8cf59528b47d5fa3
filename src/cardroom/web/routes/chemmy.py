"""The chemin de fer tables: the lobby and table pages, the seats API and the WebSocket.

``GET /api/chemin-de-fer/tables`` lists the tables; ``POST .../tables/{id}/seats`` buys
in and takes a seat, ``POST .../tables/{id}/leave`` stands up (both send the session's
``X-CSRF-Token``).  The game itself goes over ``/api/chemin-de-fer/tables/{id}/ws``: the
session cookie says who is connecting, the ``Origin`` must be this site, and the first
message must carry the session's CSRF token; then the server pushes each connection
what its seat may see, and takes its decisions.  See docs/web.md for the messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NoReturn
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Path, Request, WebSocket
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel
from starlette.websockets import WebSocketDisconnect, WebSocketState

from cardroom.app.tables.live import DATABASE_FAILED, ChemmyTables, Connection, LiveChemmy, Refused
from cardroom.app.wallet import WalletError
from cardroom.core.money import CENT, AmountError, parse_amount
from cardroom.storage import StorageError
from cardroom.web import models, topup, views
from cardroom.web.deps import (
    COOKIE,
    ApiError,
    Person,
    Services,
    changing,
    csrf_ok,
    person_or_none,
    services,
)
from cardroom.web.guard import MAX_DEPTH, nesting
from cardroom.web.models import ANYONE, CHANGES, NOBODY, answers, links, merge
from cardroom.web.routes.pages import _page

router = APIRouter(tags=["chemin de fer"])
log = logging.getLogger("cardroom.web")

TABLE_ID = Path(ge=1, le=1000, description="the table's id")
#: How long a new WebSocket has to send its CSRF token.
HELLO_WAIT = 10.0
#: The longest message taken from a WebSocket.
MAX_MESSAGE = 2000
#: WebSocket close code: the connection is refused (no session, another site, no token).
POLICY = 1008


#: Where a seat leads: the table, and leaving it.
SEAT_LINKS = links(
    Table=("chemmy_table", {"table_id": "$response.body#/table"}),
    Leave=("chemmy_leave", {"table_id": "$response.body#/table"}),
)
_SEAT_REFUSALS = {
    409: "the seat is taken, you already sit at this table, the buy-in is more than your "
    "balance, or a coup is still under way after a minute",
    422: "the buy-in is not an amount in the table's range or not in whole cents",
    503: "the database failed or the table's server did not answer: nothing was done",
}


def _tables(request: Request) -> ChemmyTables:
    return services(request).chemmy


def _table(request: Request, table_id: int) -> LiveChemmy:
    try:
        return _tables(request).get(table_id)
    except Refused as err:
        raise ApiError(err.status, err.message) from None


# -- the API --------------------------------------------------------------------------------
@router.get(
    "/api/chemin-de-fer/tables",
    response_model=models.Lobby,
    operation_id="chemmy_tables",
    responses=answers(503),
    openapi_extra=ANYONE,
)
async def tables(request: Request) -> dict[str, Any]:
    """The tables: seats taken (by whom, people or bots), stacks, the bank, the time limit
    and the buy-in range; ``you`` names your seats (signed in)."""
    chemmy = _tables(request)
    person = await asyncio.to_thread(person_or_none, request)
    if person is None:
        return {"tables": (await chemmy.lobby())[0], "you": None}
    await chemmy.recover(person.account.id)
    tables, mine = await chemmy.lobby(person.account.id)
    return {"tables": tables, "you": mine}


@router.get(
    "/api/chemin-de-fer/tables/{table_id}",
    response_model=models.ChemmyTableOut,
    operation_id="chemmy_table",
    responses=answers(404, 422, 503, why={404: "no such table"}),
    openapi_extra=NOBODY,
)
async def one_table(request: Request, table_id: int = TABLE_ID) -> dict[str, Any]:
    """One table as everybody may see it."""
    return await _table(request, table_id).snapshot()


TakeSeat = Callable[..., Awaitable[dict[str, Any]]]


def seat_routes(tables: ChemmyTables) -> APIRouter:
    """``POST /api/chemin-de-fer/tables/ID/seats`` for each table, each with its own
    seats and buy-in range in its body's schema."""
    seats = APIRouter(tags=["chemin de fer"])
    for live in tables.tables.values():
        spec = live.spec
        body = models.seat_model(spec.id, spec.seats, *live.buy_in_range())
        seats.add_api_route(
            f"/api/chemin-de-fer/tables/{spec.id}/seats",
            _seat_at(spec.id, body),
            methods=["POST"],
            status_code=201,
            response_model=models.Seated,
            operation_id=f"chemmy_sit_{spec.id}",
            summary=f"Sit down at {spec.name}",
            responses=merge(
                {201: {"links": SEAT_LINKS}},
                answers(400, 401, 403, 409, 413, 422, 503, why=_SEAT_REFUSALS),
            ),
            openapi_extra=CHANGES,
        )
    return seats


def _seat_at(table_id: int, body: type[BaseModel]) -> TakeSeat:
    async def sit(
        body: Any, request: Request, person: Annotated[Person, Depends(changing)]
    ) -> dict[str, Any]:
        return await take_seat(request, person, table_id, body.seat, body.buy_in)

    sit.__doc__ = take_seat.__doc__
    # the body's model is this table's: FastAPI reads it from the signature
    signature = inspect.signature(sit)
    parameters = [
        p.replace(annotation=body) if p.name == "body" else p for p in signature.parameters.values()
    ]
    sit.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return sit


@router.post(
    "/api/chemin-de-fer/tables/{table_id}/seats", include_in_schema=False, response_model=None
)
def no_such_table(request: Request, table_id: str) -> NoReturn:
    """A seat at a table this server does not have (theirs come first: :func:`seat_routes`)."""
    raise ApiError(404, f"there is no table {table_id[:20]!r}")


async def take_seat(
    request: Request, person: Person, table_id: int, seat: int | None, buy_in_text: str
) -> dict[str, Any]:
    """Buy in from your wallet and sit down (between coups: waits for the coup in
    progress to end).  409: the seat is taken, you already sit here, or the buy-in is
    more than your balance; 422: the buy-in is not an amount in range."""
    table = _table(request, table_id)
    try:
        buy_in = parse_amount(buy_in_text)
    except AmountError as err:
        raise ApiError(422, f"Your buy-in {err}") from None
    if (buy_in / CENT).denominator != 1:
        raise ApiError(422, f"Your buy-in, {buy_in_text}, is not in whole cents.")
    await _tables(request).recover(person.account.id)
    try:
        seated = await table.sit(person.account, seat, buy_in)
    except Refused as err:
        message = err.message
        if err.status == 409:  # for want of money: the way on, where there is a top-up
            svc = services(request)
            if buy_in > await asyncio.to_thread(svc.wallet.accounts.balance, person.account.id):
                message = await asyncio.to_thread(topup.hint, svc, person.account.id, message)
        raise ApiError(err.status, message) from None
    except WalletError as err:
        raise ApiError(409, str(err)) from None
    balance = await asyncio.to_thread(services(request).wallet.accounts.balance, person.account.id)
    return {**seated, "balance": views.money(balance)}


@router.post(
    "/api/chemin-de-fer/tables/{table_id}/leave",
    response_model=models.Left,
    operation_id="chemmy_leave",
    responses=answers(
        400,
        401,
        403,
        404,
        409,
        413,
        422,
        503,
        why={409: "you have no seat at this table", 503: _SEAT_REFUSALS[503]},
    ),
    openapi_extra=CHANGES,
)
async def leave(
    request: Request, person: Annotated[Person, Depends(changing)], table_id: int = TABLE_ID
) -> dict[str, Any]:
    """Stand up: between coups at once, your stack back in the wallet (``left``: true);
    in a coup, once it ends (``left``: false; the absent policy plays for you)."""
    table = _table(request, table_id)
    try:
        result = await table.leave(person.account)
    except Refused as err:
        raise ApiError(err.status, err.message) from None
    balance = await asyncio.to_thread(services(request).wallet.accounts.balance, person.account.id)
    return {**result, "balance": views.money(balance)}


# -- the WebSocket ------------------------------------------------------------------------------
def same_site(origin: str | None, host: str | None) -> bool:
    """Does the WebSocket's ``Origin`` name this site (the ``Host`` it was sent to)?"""
    if not origin or not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


#: WebSocket close code: the server cannot serve the connection now (its database).
UNAVAILABLE = 1011


@router.websocket("/api/chemin-de-fer/tables/{table_id}/ws")
async def table_socket(websocket: WebSocket, table_id: int) -> None:
    try:
        await _socket(websocket, table_id)
    except StorageError as err:  # (an HTTP error page cannot be sent on a WebSocket)
        log.warning("chemin de fer: a connection to table %s: %s", table_id, err)
        await _refuse(websocket, UNAVAILABLE, "the database is busy or unavailable: try again")
    except Exception:
        log.exception("chemin de fer: a connection to table %s", table_id)
        await _refuse(websocket, UNAVAILABLE, "something went wrong on the server")


async def _refuse(websocket: WebSocket, code: int, message: str) -> None:
    with contextlib.suppress(Exception):
        if websocket.application_state == WebSocketState.CONNECTING:
            await websocket.close(code=code)
        elif websocket.application_state == WebSocketState.CONNECTED:
            await websocket.send_json({"type": "error", "error": message})
            await websocket.close(code=code)


async def _socket(websocket: WebSocket, table_id: int) -> None:
    svc: Services = websocket.app.state.services
    if not same_site(websocket.headers.get("origin"), websocket.headers.get("host")):
        await websocket.close(code=POLICY, reason="another site")
        return
    token = websocket.cookies.get(COOKIE) or ""
    session = await asyncio.to_thread(svc.sessions.find, token) if token else None
    table = svc.chemmy.tables.get(table_id)
    if session is None or table is None:
        await websocket.close(code=POLICY, reason="sign in first" if table else "no such table")
        return
    await websocket.accept()
    try:
        async with asyncio.timeout(HELLO_WAIT):
            first = await websocket.receive_text()
        hello = _json(first)
    except (TimeoutError, ValueError, KeyError, WebSocketDisconnect):
        hello = None
    if not isinstance(hello, dict) or not csrf_ok(hello.get("csrf"), session.csrf_token):
        with contextlib.suppress(Exception):
            await websocket.send_json({"type": "error", "error": "send the page's CSRF token"})
            await websocket.close(code=POLICY)
        return
    try:
        account = await asyncio.to_thread(svc.wallet.accounts.get, session.account_id)
    except WalletError:
        await websocket.close(code=POLICY)
        return
    table.start()
    await svc.chemmy.recover(account.id)
    conn = await table.connect(account.id, account.name)
    writer = asyncio.get_running_loop().create_task(_write(websocket, conn))
    try:
        await _read(websocket, table, conn)
    finally:
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        try:
            await table.disconnect(conn)
        finally:
            if websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close()


def _json(text: str) -> Any:
    """A message's JSON, or None where it is not JSON, is too long or nests too deep (the
    decoder recursing into it)."""
    if len(text) > MAX_MESSAGE or nesting(text) > MAX_DEPTH:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


async def _read(websocket: WebSocket, table: LiveChemmy, conn: Connection) -> None:
    """Take the connection's decisions until it closes; a bad one is answered with an
    error message and changes nothing."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        error: str | None
        if not isinstance(text, str):
            error = "send JSON text"
        elif len(text) > MAX_MESSAGE:
            error = "the message is too long"
        else:
            data = _json(text)
            if not isinstance(data, dict):
                error = 'send a JSON object: {"action": "stake", "amount": "20"}'
            elif data.get("type") == "hello":
                continue
            else:
                error = await _decide(table, conn, data)
        if error is not None:
            conn.queue.put_nowait({"type": "error", "error": error})


async def _decide(table: LiveChemmy, conn: Connection, data: dict[str, Any]) -> str | None:
    """A decision, and the refusal in words; whatever goes wrong is a refusal too (the
    decision was not taken, the connection stays open)."""
    try:
        return await table.act(conn, data.get("action"), data.get("amount"))
    except StorageError as err:
        log.warning("chemin de fer: a decision: %s", err)
        return DATABASE_FAILED
    except Exception:
        log.exception("chemin de fer: a decision at table %s", table.spec.id)
        return "something went wrong at the table: your decision was not taken, try again"


async def _write(websocket: WebSocket, conn: Connection) -> None:
    while True:
        message = await conn.queue.get()
        await websocket.send_json(message)


# -- the pages ------------------------------------------------------------------------------
def _must_sign_in(path: str) -> Response:
    return RedirectResponse(f"/login?next={path}", status_code=303)


@router.get("/chemin-de-fer", include_in_schema=False)
async def lobby_page(request: Request) -> Response:
    person = await asyncio.to_thread(person_or_none, request)
    chemmy = _tables(request)
    if person is not None:
        await chemmy.recover(person.account.id)
    tables, seats = await chemmy.lobby(None if person is None else person.account.id)
    mine = {seat["table"] for seat in seats}
    return await asyncio.to_thread(
        _page, request, "chemmy_lobby.html", person, tables=tables, mine=mine
    )


@router.get("/chemin-de-fer/{table_id}", include_in_schema=False)
async def table_page(request: Request, table_id: int = TABLE_ID) -> Response:
    table = _table(request, table_id)
    person = await asyncio.to_thread(person_or_none, request)
    if person is None:
        return _must_sign_in(request.url.path)
    await _tables(request).recover(person.account.id)
    low, high = table.buy_in_range()
    suggested = min(max(low, table.rules.table.minimum * 20), high)
    return await asyncio.to_thread(
        _page,
        request,
        "chemmy_table.html",
        person,
        table=await table.snapshot(),
        default_buy_in=views.money(suggested),
    )
