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
import json
import logging
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Path, Request, WebSocket
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from starlette.websockets import WebSocketDisconnect, WebSocketState

from cardroom.app.wallet import WalletError
from cardroom.core.money import AmountError, parse_amount
from cardroom.storage import StorageError
from cardroom.web import models, topup, views
from cardroom.web.chemmy import DATABASE_FAILED, ChemmyTables, Connection, LiveChemmy, Refused
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
from cardroom.web.routes.pages import _page

router = APIRouter(tags=["chemin de fer"])
log = logging.getLogger("cardroom.web")

TABLE_ID = Path(ge=1, le=1000, description="the table's id")
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": models.ErrorOut} for code in (401, 403, 404, 409, 422)
}
#: How long a new WebSocket has to send its CSRF token.
HELLO_WAIT = 10.0
#: The longest message taken from a WebSocket.
MAX_MESSAGE = 2000
#: WebSocket close code: the connection is refused (no session, another site, no token).
POLICY = 1008


class SeatIn(BaseModel):
    """A seat to take (counted from 0; none: the first empty one) and the buy-in."""

    model_config = ConfigDict(extra="forbid")
    seat: StrictInt | None = Field(default=None, ge=0, le=11)
    buy_in: models.Amount


def _tables(request: Request) -> ChemmyTables:
    return services(request).chemmy


def _table(request: Request, table_id: int) -> LiveChemmy:
    try:
        return _tables(request).get(table_id)
    except Refused as err:
        raise ApiError(err.status, err.message) from None


# -- the API --------------------------------------------------------------------------------
@router.get("/api/chemin-de-fer/tables", responses=ERRORS)
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


@router.get("/api/chemin-de-fer/tables/{table_id}", responses=ERRORS)
async def one_table(request: Request, table_id: int = TABLE_ID) -> dict[str, Any]:
    """One table as everybody may see it."""
    return await _table(request, table_id).snapshot()


@router.post("/api/chemin-de-fer/tables/{table_id}/seats", status_code=201, responses=ERRORS)
async def take_seat(
    body: SeatIn,
    request: Request,
    person: Annotated[Person, Depends(changing)],
    table_id: int = TABLE_ID,
) -> dict[str, Any]:
    """Buy in from your wallet and sit down (between coups: waits for the coup in
    progress to end).  409: the seat is taken, you already sit here, or the buy-in is
    more than your balance; 422: the buy-in is not an amount in range."""
    table = _table(request, table_id)
    try:
        buy_in = parse_amount(body.buy_in)
    except AmountError as err:
        raise ApiError(422, f"buy_in: {err}") from None
    await _tables(request).recover(person.account.id)
    try:
        seated = await table.sit(person.account, body.seat, buy_in)
    except Refused as err:
        message = err.message
        if err.status == 409:  # for want of money: the way on, where there is a top-up
            svc = services(request)
            if buy_in > await asyncio.to_thread(svc.wallet.balance, person.account.id):
                message = await asyncio.to_thread(topup.hint, svc, person.account.id, message)
        raise ApiError(err.status, message) from None
    except WalletError as err:
        raise ApiError(409, str(err)) from None
    balance = await asyncio.to_thread(services(request).wallet.balance, person.account.id)
    return {**seated, "balance": views.money(balance)}


@router.post("/api/chemin-de-fer/tables/{table_id}/leave", responses=ERRORS)
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
    balance = await asyncio.to_thread(services(request).wallet.balance, person.account.id)
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
        first = await asyncio.wait_for(websocket.receive_text(), HELLO_WAIT)
        hello = json.loads(first) if len(first) <= MAX_MESSAGE else None
    except (TimeoutError, ValueError, KeyError, WebSocketDisconnect):
        hello = None
    if not isinstance(hello, dict) or not csrf_ok(hello.get("csrf"), session.csrf_token):
        with contextlib.suppress(Exception):
            await websocket.send_json({"type": "error", "error": "send the page's CSRF token"})
            await websocket.close(code=POLICY)
        return
    try:
        account = await asyncio.to_thread(svc.wallet.get, session.account_id)
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
            try:
                data = json.loads(text)
            except ValueError:
                data = None
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
