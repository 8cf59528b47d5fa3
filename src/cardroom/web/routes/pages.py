"""The pages: server-rendered with Jinja2; the game page plays through the JSON API.

The sign-in, register and sign-out forms work without JavaScript.  Before there is a
session, the two forms carry a token that must equal the one in a cookie of their own
(the double-submit pattern); the sign-out form carries the session's CSRF token.
"""

from __future__ import annotations

import base64
import secrets
from fractions import Fraction
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from cardroom.app.disclosure import paytable, rules_text
from cardroom.app.scoreboards import NO_WINNER
from cardroom.app.tables.stored import table_key_of
from cardroom.app.variants import UnknownVariant, split_key, table_key
from cardroom.app.wallet import TopUpRefused, WalletError
from cardroom.app.words import signed, wager_label, wager_name
from cardroom.core.rules import rules_to_toml
from cardroom.games import GAMES, GameInfo, UnknownGame, get_game
from cardroom.web import books, signin, topup, views
from cardroom.web.cards import svg_for_code
from cardroom.web.deps import (
    COOKIE,
    FORM_COOKIE,
    ApiError,
    Cursor,
    Person,
    RowId,
    csrf_ok,
    person_or_none,
    secure,
    services,
)
from cardroom.web.live import PAIR_WAGERS
from cardroom.web.routes.api import limits_json, set_session_cookie

router = APIRouter(include_in_schema=False)

#: Short forms of the outcomes on the bead plate.
MARKS = {"player": "P", "banker": "B", "tie": "T", "dealer": "D", "push": "="}


def _page(
    request: Request, template: str, person: Person | None, status: int = 200, **context: Any
) -> Response:
    svc = services(request)
    who = None
    if person is not None:
        who = {
            "name": person.account.name,
            "balance": views.money(svc.wallet.accounts.balance(person.account.id)),
            "csrf": person.session.csrf_token,
        }
    house = [g for g in GAMES.values() if g.kind == "house" and g.id in svc.rules]
    return svc.templates.TemplateResponse(
        request,
        template,
        {"person": who, "house_games": house, **context},
        status_code=status,
    )


def _next(target: str | None) -> str:
    """Where to go after signing in: a path on this site only."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


def _form_token(request: Request) -> str:
    return request.cookies.get(FORM_COOKIE) or secrets.token_urlsafe(24)


def _with_form_cookie(request: Request, response: Response, token: str) -> Response:
    response.set_cookie(
        FORM_COOKIE, token, path="/", httponly=True, samesite="strict", secure=secure(request)
    )
    return response


def _signed_in_redirect(request: Request, token: str, target: str) -> Response:
    response = RedirectResponse(_next(target), status_code=303)
    set_session_cookie(request, response, token)
    response.delete_cookie(FORM_COOKIE, path="/")
    return response


@router.get("/")
def lobby(request: Request) -> Response:
    person = person_or_none(request)
    svc = services(request)
    games = []
    published = svc.room.tables.public_variants()
    for game in GAMES.values():
        if game.id not in svc.rules:
            continue
        limits = limits_json(svc.rules[game.id])
        variants = []
        for table in published:
            game_id, variant = split_key(table.key)
            if game_id == game.id and variant is not None:
                variants.append({"name": table.name, "variant": variant})
        games.append({"game": game, "limits": limits, "variants": variants})
    return _page(request, "lobby.html", person, games=games)


def _account_form(
    request: Request,
    which: str,
    error: str = "",
    name: str = "",
    target: str = "/",
    status: int = 200,
) -> Response:
    token = _form_token(request)
    response = _page(
        request,
        "account.html",
        person_or_none(request),
        status=status,
        which=which,
        error=error,
        name=name,
        form_token=token,
        next=_next(target),
    )
    return _with_form_cookie(request, response, token)


@router.get("/login")
def login_page(request: Request, next: Annotated[str, Query(max_length=200)] = "/") -> Response:
    return _account_form(request, "login", target=next)


@router.get("/register")
def register_page(request: Request, next: Annotated[str, Query(max_length=200)] = "/") -> Response:
    return _account_form(request, "register", target=next)


FormText = Annotated[str, Form(max_length=1000)]


def _form_checked(request: Request, token: str) -> bool:
    return csrf_ok(token, request.cookies.get(FORM_COOKIE, ""))


async def _account_done(
    request: Request, which: str, username: str, password: str, form_token: str, next: str
) -> Response:
    """The sign-in or register form sent: signed in and on to ``next``, or the form
    again with the refusal.  ``async``, as the Argon2 check is awaited without holding a
    thread (see cardroom.web.signin); the rest runs in the thread pool."""
    if not _form_checked(request, form_token):
        message = "the form had expired: try again"
        return await run_in_threadpool(_account_form, request, which, message, username, next, 403)
    svc = services(request)
    try:
        if which == "login":
            account = await signin.sign_in(svc, request, username, password)
        else:
            account = await signin.register(svc, username, password)
    except ApiError as err:
        page = await run_in_threadpool(
            _account_form, request, which, err.message, username, next, err.status
        )
        page.headers.update(err.headers)
        return page
    token, _ = await signin.begin_session(svc, account.id, signin.address_of(request))
    return _signed_in_redirect(request, token, next)


@router.post("/login")
async def login_form(
    request: Request,
    username: FormText,
    password: FormText,
    form_token: FormText,
    next: FormText = "/",
) -> Response:
    return await _account_done(request, "login", username, password, form_token, next)


@router.post("/register")
async def register_form(
    request: Request,
    username: FormText,
    password: FormText,
    form_token: FormText,
    next: FormText = "/",
) -> Response:
    return await _account_done(request, "register", username, password, form_token, next)


@router.post("/logout")
def logout_form(request: Request, csrf_token: FormText) -> Response:
    person = person_or_none(request)
    if person is not None:
        if not csrf_ok(csrf_token, person.session.csrf_token):
            raise ApiError(403, "the form had expired: reload the page and sign out again")
        services(request).sessions.end(person.token)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
    return response


def _house_game(request: Request, game_id: str) -> GameInfo:
    try:
        game = get_game(game_id)
    except UnknownGame:
        raise ApiError(404, f"there is no game {game_id!r}") from None
    if game.kind != "house" or game.id not in services(request).rules:
        raise ApiError(404, f"{game.id} is not played at this web table yet")
    return game


def _must_sign_in(request: Request) -> Response:
    here = request.url.path
    if request.url.query:
        here += "?" + request.url.query
    return RedirectResponse(f"/login?next={quote(here, safe='/')}", status_code=303)


@router.get("/play/{game_id}")
def play(
    request: Request,
    game_id: str,
    variant: Annotated[str | None, Query(pattern=r"^[0-9a-f]{20}$")] = None,
) -> Response:
    """A person's table at a house game: at the server's rules, or at a ``variant`` of
    them made in the lab."""
    game = _house_game(request, game_id)
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    try:
        rules = services(request).tables.stored.rules_for(table_key(game.id, variant))
    except UnknownVariant as err:
        raise ApiError(404, str(err)) from None
    wagers = game.wagers(rules)
    pays = {row.wager: row.on_spot for row in paytable(game.id, rules)}
    sides = [o for o in game.outcomes if o not in NO_WINNER]
    return _page(
        request,
        "game.html",
        person,
        game=game,
        variant=variant,
        variant_toml=rules_to_toml(rules) if variant else "",
        variant_text=rules_text(game.id, rules) if variant else None,
        playable=services(request).tables.stored.takes_bets(table_key(game.id, variant)),
        spots=[{"id": w, "name": wager_label(w), "pays": pays[w]} for w in wagers],
        limits=limits_json(rules),
        # a table with bets on more than one outcome gets the big road beside its bead
        # plate (the baccarats, finnish27); pairs are marked where they can be bet on
        road=len(wagers) > 1,
        road_sides=" or ".join(wager_name(o) for o in sides),
        road_even=" or ".join(f"a {wager_name(o)}" for o in game.outcomes if o in NO_WINNER),
        pairs=bool(PAIR_WAGERS & set(wagers)),
        outcomes=[{"id": o, "name": wager_label(o), "mark": MARKS[o]} for o in game.outcomes],
        chips=[
            {
                "value": views.money(rules.table.minimum * n),
                "label": views.shown(rules.table.minimum * n),
            }
            for n in (1, 5, 10, 50)
            if rules.table.minimum * n <= rules.table.maximum
        ],
    )


#: A lab variant's id, as a page's query names it.
Variant = Annotated[str | None, Query(pattern=r"^[0-9a-f]{20}$")]
#: The forms a PAR sheet downloads in: each one's media type.
SHEET_TYPES = {"pdf": "application/pdf", "html": "text/html; charset=utf-8", "csv": "text/csv"}


def _table_rules(request: Request, game: GameInfo, variant: str | None) -> Any:
    """The rules of the game's table at this server, or of its lab ``variant`` (404)."""
    try:
        return services(request).tables.stored.rules_for(table_key(game.id, variant))
    except UnknownVariant as err:
        raise ApiError(404, str(err)) from None


@router.get("/rules/{game_id}")
def rules_page(request: Request, game_id: str, variant: Variant = None) -> Response:
    """A game's rules in words, its paytable and exact house edges (of a lab ``variant``
    where one is named), with its PAR sheet to download."""
    if game_id in GAMES and GAMES[game_id].kind == "seats":
        return _chemmy_rules_page(request, GAMES[game_id])
    game = _house_game(request, game_id)
    svc = services(request)
    rules = _table_rules(request, game, variant)
    edges = svc.edges.get(game.id, rules, capped=variant is not None).to_json()
    if edges["status"] == "busy":  # (too many variants wait: asked again by the page)
        edges = {"status": "computing"}
    return _page(
        request,
        "rules.html",
        person_or_none(request),
        game=game,
        variant=variant,
        text=rules_text(game.id, rules),
        pays=paytable(game.id, rules),
        edges=edges,
        limits=limits_json(rules),
    )


@router.get("/rules/{game_id}/par")
def par_sheet(
    request: Request,
    game_id: str,
    variant: Variant = None,
    format: Annotated[str, Query(pattern="^(pdf|html|csv)$")] = "pdf",
) -> Response:
    """The PAR sheet of the game's table (or of a lab ``variant``'s) as a download, once
    it is worked out in the background; until then a page that says so and reloads."""
    game = _house_game(request, game_id)
    svc = services(request)
    rules = _table_rules(request, game, variant)
    sheet = svc.par_sheets.get(game.id, rules, capped=True)
    if sheet.status == "busy":
        raise ApiError(503, sheet.message, {"Retry-After": "5"})
    if sheet.status == "failed" or (sheet.means is not None and format not in sheet.means):
        message = sheet.message or str((sheet.means or {}).get("pdf_error", "it cannot be made"))
        raise ApiError(503, f"the PAR sheet is not available: {message}")
    if sheet.means is None:
        return _page(
            request, "working.html", person_or_none(request), status=202, game=game,
            variant=variant,
        )  # fmt: skip
    body = sheet.means[format]
    content = base64.b64decode(body) if format == "pdf" else str(body).encode("utf-8")
    name = f"{game.id}{'-variant-' + variant[:8] if variant else ''}-par.{format}"
    return Response(
        content,
        media_type=SHEET_TYPES[format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _chemmy_rules_page(request: Request, game: GameInfo) -> Response:
    """Chemin de fer's rules, the rules its tables play, and its solved coup (worked out
    here on the first request, in about 0.3 s, then kept: see ChemmySolutions)."""
    svc = services(request)
    rules = svc.chemmy.rules
    return _page(
        request,
        "chemmy_rules.html",
        person_or_none(request),
        game=game,
        text=rules_text(game.id, rules),
        pays=paytable(game.id, rules),
        figures=svc.solutions.get(rules).to_json(),
        bots=game.seated().bots_play(rules),
        forced=rules.banker_forced_by_tableau,
    )


#: Rows of the ledger and rounds of the history on one page.
LEDGER_PAGE = 50
HISTORY_PAGE = 10


def _one_way(before: int | None, after: int | None) -> None:
    if before is not None and after is not None:
        raise ApiError(422, "ask for the page before one row or after one, not both")


@router.get("/wallet")
def wallet_page(request: Request, before: Cursor = None, after: Cursor = None) -> Response:
    return _wallet(request, before, after)


def _wallet(
    request: Request, before: int | None = None, after: int | None = None, error: str = ""
) -> Response:
    """The wallet page (``error``: a top-up refused, said at the top)."""
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    _one_way(before, after)
    svc = services(request)
    page = svc.wallet.books.ledger_page(person.account.id, LEDGER_PAGE, before=before, after=after)
    tables = books.table_names(svc)
    rows = [
        {
            "row": row,
            "what": books.row_words(row, tables),
            "amount": _signed(row.amount),
            "balance": views.money(row.balance_after),
        }
        for row in page.rows
    ]
    return _page(
        request,
        "wallet.html",
        person,
        rows=rows,
        page=page,
        first=before is None and after is None,
        balance_before=views.money(page.balance_before),
        top_up=topup.offer(svc, person.account.id),
        error=error,
        status=409 if error else 200,
    )


@router.post("/wallet/top-up")
def top_up_form(request: Request, csrf_token: FormText) -> Response:
    """The wallet page's top-up: back to the wallet, or the wallet with the refusal."""
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    if not csrf_ok(csrf_token, person.session.csrf_token):
        raise ApiError(403, "the form had expired: reload the page and try again")
    svc = services(request)
    try:
        svc.wallet.accounts.top_up(person.account.id, topup.lowest_minimum(svc))
    except TopUpRefused as err:
        return _wallet(request, error=str(err)[:1].upper() + str(err)[1:] + ".")
    return RedirectResponse("/wallet", status_code=303)


def _signed(value: Fraction) -> str:
    """A result with its sign, as the tables show it: ``+19.50``, ``-10``, ``±0``."""
    return signed(value)


def _round_items(svc: Any, rounds: list[Any], balance: Any) -> list[dict[str, Any]]:
    tables = books.table_names(svc)
    items = []
    for stored in rounds:
        data = views.stored_round_json(stored, balance, tables)
        data["variant"] = split_key(table_key_of(stored))[1]
        data["signed"] = {w: _signed(Fraction(n)) for w, n in data["net"].items()}
        data["signed_total"] = (
            None if data["total_net"] is None else _signed(Fraction(data["total_net"]))
        )
        data["title"] = _round_title(data)
        items.append(data)
    return items


def _round_title(data: dict[str, Any]) -> str:
    coup = data.get("coup")
    if coup:
        number = f" · coup {coup['number']}" if coup.get("number") else ""
        return f"Chemin de fer · {coup['table']}{number}"
    game = GAMES.get(data["game"])
    name = game.name if game is not None else str(data["game"])
    if data.get("variant"):
        name += f" · lab variant {data['variant'][:8]}"
    return name


@router.get("/history")
def history_page(request: Request, before: Cursor = None, after: Cursor = None) -> Response:
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    _one_way(before, after)
    svc = services(request)
    balance = svc.wallet.accounts.balance(person.account.id)
    page = svc.wallet.rounds.rounds_page(
        person.account.id, HISTORY_PAGE, before=before, after=after
    )
    return _page(
        request,
        "history.html",
        person,
        rounds=_round_items(svc, page.rounds, balance),
        page=page,
        first=before is None and after is None,
        marks=MARKS,
    )


@router.get("/rounds/{round_id}")
def round_page(request: Request, round_id: RowId) -> Response:
    """One of the person's rounds on a page of its own (what the wallet links to); any
    other round is not found, whoever's it is."""
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    svc = services(request)
    try:
        stored = svc.wallet.rounds.round(round_id)
    except WalletError:
        stored = None
    if stored is None or stored.account_id != person.account.id:
        raise ApiError(404, f"there is no round {round_id} of yours")
    balance = svc.wallet.accounts.balance(person.account.id)
    [item] = _round_items(svc, [stored], balance)
    return _page(request, "round.html", person, r=item, marks=MARKS)


@router.get("/cards/{code}.svg")
def card_image(code: str) -> Response:
    svg = svg_for_code(code)
    if svg is None:
        raise ApiError(404, f"there is no card {code!r}")
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )
