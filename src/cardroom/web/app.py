"""The web table's application: :func:`create_app` builds it on a database.

Every refusal is JSON ``{"error": "..."}`` under ``/api`` (a short page elsewhere) with
a 4xx status; an unexpected failure is logged with its traceback and answered with a
500 and one line, never the traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cardroom.app.operators.room import Room
from cardroom.app.operators.watch import Watch
from cardroom.app.sessions import Sessions
from cardroom.app.tables.live import DEFAULT_TABLES, ChemmyTables, TableSpec
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SecureShuffler, Shuffler
from cardroom.games import GAMES, seats_game
from cardroom.storage import Database, StorageError
from cardroom.web import views
from cardroom.web.chemmy import ChemmyViews
from cardroom.web.deps import ApiError, Services
from cardroom.web.edges import MAX_SHEETS, HouseEdges, lab_par_sheet
from cardroom.web.guard import JsonBodies, SecurityHeaders
from cardroom.web.live import LiveTables
from cardroom.web.models import SECURITY_SCHEMES
from cardroom.web.operator_views import table_rules
from cardroom.web.passwords import PasswordPool, parameters_of, shared_pool
from cardroom.web.routes import (
    api,
    chemmy,
    fairness,
    health,
    lab,
    limits,
    operator_api,
    operator_pages,
    pages,
    protection,
)
from cardroom.web.throttle import LoginThrottle

log = logging.getLogger("cardroom.web")

#: The worker threads of a server process (requests wait in them for the database).
WORKER_THREADS = 16

#: The seconds between two runs of the integrity monitor in a server process.
WATCH_EVERY = 900.0

#: The largest request body taken (a round's bets are a few hundred bytes).
MAX_BODY = 64 * 1024

WEB = files("cardroom.web")


def default_rules() -> dict[str, Any]:
    """Every game's default rules."""
    return {game_id: game.default_rules() for game_id, game in GAMES.items()}


def create_app(
    db: Database,
    rules: Mapping[str, Any] | None = None,
    *,
    house_edges: HouseEdges | None = None,
    par_sheets: HouseEdges | None = None,
    shuffler: Callable[[], Shuffler] = SecureShuffler,
    sessions: Sessions | None = None,
    chemmy_tables: Sequence[TableSpec] = DEFAULT_TABLES,
    chemmy_time_limit: float = 30.0,
    chemmy_pause: float = 1.5,
    threads: int = WORKER_THREADS,
    passwords: PasswordPool | None = None,
    watch_every: float | None = WATCH_EVERY,
    own_variant_tables: bool = False,
) -> FastAPI:
    """The web table on ``db``: ``rules`` by game id (the defaults for the games left
    out), the house-edge figures (computed in the background by default), and the
    shuffler of each new shoe (the operating system's entropy).  The chemin de fer
    tables: which, the seconds a person has for each decision (and keeps a seat with no
    connection), and the pause after each coup.  ``passwords``: the pool of Argon2
    checks (by default this process's, with the sessions' hasher's parameters).
    ``watch_every``: the seconds between two runs of the integrity monitor, which logs
    its alerts (None: only when an operator looks).  ``own_variant_tables``: anyone
    signed in may play a lab variant at a table of their own, for the wallet's money
    (otherwise only the variants an operator put on a public table take bets)."""
    rules_by_game = default_rules()
    rules_by_game.update(rules or {})
    wallet = Wallet(db)
    edges = house_edges or HouseEdges()
    sheets = par_sheets or HouseEdges(lab_par_sheet, keep=MAX_SHEETS)
    templates = Jinja2Templates(directory=str(WEB.joinpath("templates")))
    views.add_filters(templates.env)
    tables = ChemmyTables(
        wallet,
        rules_by_game[seats_game().id],
        ChemmyViews(),
        shuffler,
        specs=chemmy_tables,
        time_limit=chemmy_time_limit,
        pause=chemmy_pause,
    )
    sessions = sessions or Sessions(db, wallet)
    services = Services(
        db=db,
        wallet=wallet,
        sessions=sessions,
        rules=rules_by_game,
        tables=LiveTables(wallet, rules_by_game, shuffler, own_variants=own_variant_tables),
        edges=edges,
        par_sheets=sheets,
        templates=templates,
        throttle=LoginThrottle(db),
        chemmy=tables,
        passwords=passwords or shared_pool(parameters_of(sessions.hasher)),
        room=Room(db, wallet),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the worker threads that wait for the database: a few are enough, and fewer
        # threads waste less of the interpreter's lock handing it from one to another
        anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        tables.start()  # the heartbeat: this process takes the chemin de fer tables it can
        watching = (
            None if watch_every is None else asyncio.create_task(_watch(services, watch_every))
        )
        yield
        if watching is not None:
            watching.cancel()
        await tables.close()
        edges.close()
        sheets.close()
        services.rounds.close()

    app = FastAPI(
        title="cardroom",
        summary="The web table: Finnish 27, 21-24-27, punto banco, baccarat 27 and chemin de fer",
        description=(
            'Money is always an exact decimal string (`"9.5"`). Every request that '
            "changes something sends the session's CSRF token as `X-CSRF-Token`; "
            'refusals are `{"error": "..."}` with a 4xx status.'
        ),
        version="1",
        lifespan=lifespan,
        # the schema only: the interactive docs pages load their scripts from a CDN
        docs_url=None,
        redoc_url=None,
    )
    app.state.services = services
    app.add_middleware(JsonBodies)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(SecurityHeaders)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(StorageError, _storage_error)
    app.add_exception_handler(Exception, _unexpected)
    app.mount("/static", StaticFiles(directory=str(WEB.joinpath("static"))), name="static")
    # each house game's bets and each table's seats first: their bodies are their own
    app.include_router(api.game_routes(rules_by_game))
    # a well-formed bet the quick way, ahead of every route (the rest goes on to them)
    app.router.routes[:0] = [
        api.QuickBet(game, body) for game, body in api.bet_bodies(rules_by_game)
    ]
    app.include_router(api.router)
    app.include_router(chemmy.seat_routes(tables))
    app.include_router(chemmy.router)
    app.openapi = lambda: _schema(app)  # type: ignore[method-assign]
    app.include_router(lab.router)
    # before protection's /account/protection/{which}
    app.include_router(limits.router)
    app.include_router(protection.router)
    app.include_router(fairness.router)
    app.include_router(pages.router)
    app.include_router(health.router)
    app.include_router(operator_api.router)
    app.include_router(operator_pages.router)
    return app


async def _watch(svc: Services, every: float) -> None:
    """Run the integrity monitor over the last day every ``every`` seconds, logging its
    alerts (each once a day: every process may run it)."""
    watch = Watch(svc.db, table_rules(svc))
    while True:
        await asyncio.sleep(every)
        try:
            await anyio.to_thread.run_sync(watch.check)
        except Exception:
            log.exception("the integrity monitor failed; it runs again in %s s", every)


def _schema(app: FastAPI) -> dict[str, Any]:
    """FastAPI's OpenAPI schema (made once) with the security schemes the operations
    name (the session cookie and the CSRF header), and without the 422 FastAPI adds of
    its own to an operation that cannot give one (an operation that can declares it:
    ``{"error": ...}``, as every refusal)."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
        )
        for operations in schema["paths"].values():
            for operation in operations.values():
                answer = operation.get("responses", {}).get("422", {})
                if "HTTPValidationError" in str(answer.get("content")):
                    del operation["responses"]["422"]
        components = schema.setdefault("components", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            components.get("schemas", {}).pop(unused, None)
        components["securitySchemes"] = SECURITY_SCHEMES
        app.openapi_schema = schema
    return app.openapi_schema


# -- refusals ------------------------------------------------------------------------------
def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api") or request.url.path.startswith("/openapi")


def error_response(
    request: Request, status: int, message: str, extra: dict[str, object] | None = None
) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": message, **(extra or {})}, status_code=status)
    templates: Jinja2Templates = request.app.state.services.templates
    return templates.TemplateResponse(
        request,
        "error.html",
        {"status": status, "message": message, "person": None},
        status_code=status,
    )


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    response = error_response(request, exc.status, exc.message, exc.extra)
    response.headers.update(exc.headers)
    return response


def validation_message(exc: RequestValidationError) -> str:
    """The first problems of a request, on one line: ``bets.player: ...``."""
    parts = []
    for error in list(exc.errors())[:3]:
        where = ".".join(
            str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")
        )
        what = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
        kind = error.get("type")
        if kind == "string_type" and ("bets" in where or where == "buy_in"):
            what = 'amounts are decimal strings, such as "10" or "12.50"'
        elif kind == "extra_forbidden" and where.startswith("bets."):
            what = f"this game has no wager {where.removeprefix('bets.')[:40]!r}"
            where = "bets"
        elif kind == "string_pattern_mismatch":
            what = "is not in the form the API's schema gives"
            if where == "idempotency-key":
                what = "up to 100 printable ASCII characters"
        elif kind == "json_invalid":
            what = "the body is not valid JSON"
            where = ""
        parts.append(f"{where}: {what}" if where else what)
    return "; ".join(parts) or "the request is not valid"


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    whole = [e for e in exc.errors() if tuple(e.get("loc", ())) == ("body",)]
    if whole and kind != "application/json" and whole[0].get("type") == "model_attributes_type":
        # (a form, text or nothing where the route reads a JSON object)
        said = "send the body as JSON (Content-Type: application/json)"
        return error_response(request, 422, said)
    return error_response(request, 422, validation_message(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    message = str(exc.detail) if exc.status_code != 404 else "not found"
    if exc.status_code == 400 and "parsing the body" in message:
        message = "the body cannot be read: send JSON in UTF-8"
    response = error_response(request, exc.status_code, message)
    for key, value in (exc.headers or {}).items():
        response.headers[key] = value
    return response


async def _storage_error(request: Request, exc: Exception) -> Response:
    log.warning("database: %s", exc)
    return error_response(request, 503, "the database is busy or unavailable: try again")


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(request, 500, "something went wrong on the server")


class BodyLimit:
    """Refuse a request body above ``limit`` bytes with a 413 (as declared or as sent)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(send)
            return
        seen = 0

        async def counting() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge
            return message

        try:
            await self.app(scope, counting, send)
        except TooLarge:
            await _too_large(send)


class TooLarge(Exception):
    """A body sent in pieces grew past the limit."""


async def _too_large(send: Send) -> None:
    body = b'{"error": "the request body is too large"}'
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


__all__ = ["MAX_BODY", "create_app", "default_rules", "error_response"]
