"""The designer's workbench (``/lab``): a house game's rules as a form, two variants,
their exact house edges side by side, each variant's rules file and PAR sheet to
download, and a table of its own to play it at.

A variant's table (``/play/GAME?variant=ID``) is the house table of its game at the
variant's rules, kept in the database by the variant's id
(:mod:`cardroom.app.variants`): its bets and its scoreboards have routes of their own
here (the game's own routes check bets against the server's rules); its rounds are
rounds like any other.

The figures are worked out off the request path by the same background computation
as the rules pages (:class:`~cardroom.web.edges.HouseEdges`, one at a time, cached on
disk by the rules): the page asks again until they are known.  Reading a variant is
the application's (:mod:`cardroom.app.lab`); this module only asks and answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from cardroom.app.lab import MAX_FIELDS, LabError, compare_edges, field_groups, variant
from cardroom.app.variants import UnknownVariant, table_key
from cardroom.core.rules import rules_to_toml
from cardroom.games import GAMES, GameInfo
from cardroom.web import models
from cardroom.web.deps import ApiError, Person, changing, person_or_none, services, signed_in
from cardroom.web.edges import Edges, HouseEdges
from cardroom.web.routes.api import IDEMPOTENCY_KEY, house_game, place_bets
from cardroom.web.routes.pages import _must_sign_in, _page

router = APIRouter()

#: A variant: the form's values by dotted key (the others keep the game's rules).
Values = Annotated[
    dict[Annotated[str, Field(max_length=100)], Annotated[str, Field(max_length=200)]],
    Field(max_length=MAX_FIELDS),
]


class VariantAsk(BaseModel):
    """One variant of a game's rules: the form's values."""

    model_config = ConfigDict(extra="forbid")
    values: Values = Field(default_factory=dict)


class ParAsk(VariantAsk):
    """One variant whose PAR sheet to work out, as an HTML page, a PDF, or its exact
    figures as CSV."""

    format: Literal["html", "pdf", "csv"] = "html"


#: A variant's id in a path: 20 hex digits.
VARIANT = Path(pattern=r"^[0-9a-f]{20}$", description="a variant's id")
#: A stake or a wager's id, as a bet at a variant's table sends it.
Short = Annotated[str, Field(max_length=40)]


class VariantBets(BaseModel):
    """A bet at a variant's table: ``{"bets": {wager: amount}}``, checked as a bet at
    the game's own table is, against the variant's wagers and limits
    (:func:`_checked_bets`)."""

    model_config = ConfigDict(extra="forbid")
    bets: Annotated[dict[Short, Any], Field(max_length=20)]


@lru_cache(maxsize=64)
def _bets_model(game: GameInfo, wagers: tuple[str, ...], table: Any) -> type[BaseModel]:
    """The body model of a bet at these wagers and table limits (made once each)."""
    return models.bets_model(game, wagers, table)


def _checked_bets(game: GameInfo, rules: Any, bets: Mapping[str, Any]) -> dict[str, str]:
    """``bets`` read by the body model of the game's own table made for the variant's
    rules (the same answers to a bad stake as there: 422, one line)."""
    model = _bets_model(game, game.wagers(rules), rules.table)
    try:
        body = model.model_validate({"bets": dict(bets)})
    except ValidationError as err:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in err.errors()]
        raise RequestValidationError(errors) from None
    return models.given_bets(body)


class LabAsk(BaseModel):
    """Two variants of a game's rules to work out."""

    model_config = ConfigDict(extra="forbid")
    a: Values = Field(default_factory=dict)
    b: Values = Field(default_factory=dict)


def _worked_out(
    store: HouseEdges, game_id: str, default: Any, values: Mapping[str, str], label: str
) -> tuple[Any, Edges]:
    """A variant read from the form's ``values`` (422 if it cannot be) and what ``store``
    has worked out for it so far (its work started if not; 503 while too much waits)."""
    try:
        rules = variant(default, values, label)
    except LabError as err:
        raise ApiError(422, str(err)) from None
    found = store.get(game_id, rules, capped=True)
    if found.status == "busy":
        raise ApiError(503, found.message, {"Retry-After": "5"})
    return rules, found


def _lab_games(request: Request) -> list[GameInfo]:
    """The games the lab works on: the house games this server deals, then the games
    between seats (their figures are the solved coup's)."""
    svc = services(request)
    house = [g for g in GAMES.values() if g.kind == "house" and g.id in svc.rules]
    return house + [g for g in GAMES.values() if g.kind == "seats"]


def _lab_game(request: Request, game_id: str) -> GameInfo:
    """A game of the lab (404 otherwise)."""
    for game in _lab_games(request):
        if game.id == game_id:
            return game
    house_game(request, game_id)  # says why not
    raise ApiError(404, f"the lab has no game {game_id!r}")


def _lab_rules(request: Request, game: GameInfo) -> Any:
    """The rules this server plays ``game`` by: a variant starts from them."""
    svc = services(request)
    return svc.chemmy.rules if game.kind == "seats" else svc.rules[game.id]


@router.get("/lab", include_in_schema=False)
def lab_page(
    request: Request, game: Annotated[str | None, Query(max_length=40)] = None
) -> Response:
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    games = _lab_games(request)
    chosen = _lab_game(request, game) if game is not None else games[0]
    rules = _lab_rules(request, chosen)
    # the rules' own figures (variant A until it is changed), worked out while the
    # person picks a change: the first question then waits for its variant alone, not
    # for the analyser's process to start and load the game's analysis as well
    services(request).edges.get(chosen.id, rules, capped=True)
    return _page(
        request,
        "lab.html",
        person,
        games=games,
        game=chosen,
        seats=chosen.kind == "seats",
        groups=field_groups(rules),
        own_tables=services(request).tables.stored.own_variants,
    )


@router.post("/api/lab/{game_id}", include_in_schema=False)
def work_out(
    request: Request,
    game_id: str,
    ask: LabAsk,
    person: Annotated[Person, Depends(changing)],
) -> dict[str, Any]:
    """Both variants' rules and exact house edges ("computing" until known: ask again)."""
    game = _lab_game(request, game_id)
    svc = services(request)
    default = _lab_rules(request, game)
    sides: dict[str, Any] = {}
    means: dict[str, Any] = {}
    for label, values in (("a", ask.a), ("b", ask.b)):
        rules, edges = _worked_out(svc.edges, game.id, default, values, f"variant {label.upper()}")
        means[label] = edges.means if edges.status == "ready" else None
        sides[label] = {"status": edges.status, "toml": rules_to_toml(rules)}
        if edges.message:
            sides[label]["error"] = edges.message
    ready = all(side["status"] != "computing" for side in sides.values())
    return {
        "game": game.id,
        "ready": ready,
        **sides,
        "rows": [row.to_json() for row in compare_edges(means["a"], means["b"])],
    }


@router.post("/api/lab/{game_id}/par", include_in_schema=False)
def par_sheet(
    request: Request,
    game_id: str,
    ask: ParAsk,
    person: Annotated[Person, Depends(changing)],
) -> dict[str, Any]:
    """A variant's PAR sheet ("computing" until it is worked out: ask again), the same
    sheet as ``cardroom report`` writes: one HTML page (``html``), a PDF (``pdf``, in
    base64; "failed" with the reason where WeasyPrint cannot lay it out), or every exact
    figure of it as CSV (``csv``)."""
    game = _lab_game(request, game_id)
    svc = services(request)
    default = _lab_rules(request, game)
    _, sheet = _worked_out(svc.par_sheets, game.id, default, ask.values, "the variant")
    answer: dict[str, Any] = {"game": game.id, "status": sheet.status}
    if sheet.message:
        answer["error"] = sheet.message
    if sheet.means is None:
        return answer
    if ask.format in ("html", "csv"):
        answer[ask.format] = sheet.means[ask.format]
    elif "pdf" in sheet.means:
        answer["pdf"] = sheet.means["pdf"]
    else:
        answer.update(status="failed", error=sheet.means["pdf_error"])
    return answer


@router.post("/api/lab/{game_id}/table", include_in_schema=False)
def open_table(
    request: Request,
    game_id: str,
    ask: VariantAsk,
    person: Annotated[Person, Depends(changing)],
) -> dict[str, Any]:
    """Keep a variant (read from the form's values, 422 if it cannot be) and give the
    address of its table, and whether it takes bets there (``playable``: at a server
    that lets anyone play their own variants, or once an operator put it on a public
    table; until then an operator can put it on one by its id)."""
    game = house_game(request, game_id)
    svc = services(request)
    try:
        rules = variant(svc.rules[game.id], ask.values, "the variant")
    except LabError as err:
        raise ApiError(422, str(err)) from None
    found = svc.tables.variants.save(game, rules)
    return {
        "game": game.id,
        "variant": found,
        "url": f"/play/{game.id}?variant={found}",
        "playable": svc.tables.stored.takes_bets(table_key(game.id, found)),
    }


@router.post("/api/variants/{game_id}/{variant_id}/rounds", include_in_schema=False)
async def bet_at_variant(
    request: Request,
    game_id: str,
    body: VariantBets,
    variant_id: Annotated[str, VARIANT],
    idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
) -> Response:
    """A bet at a variant's table, as at the game's own (the same answers)."""
    game = house_game(request, game_id)
    try:
        stored = services(request).tables.stored
        rules = await run_in_threadpool(stored.rules_for, table_key(game.id, variant_id))
    except UnknownVariant as err:
        raise ApiError(404, str(err)) from None
    bets = _checked_bets(game, rules, body.bets)
    return await place_bets(request, game, bets, idempotency_key, variant_id)


@router.get("/api/variants/{game_id}/{variant_id}/table", include_in_schema=False)
def variant_table(
    request: Request,
    game_id: str,
    variant_id: Annotated[str, VARIANT],
    person: Annotated[Person, Depends(signed_in)],
) -> dict[str, Any]:
    """Your table at a variant: its scoreboards, the reshuffle notice, the round in play."""
    game = house_game(request, game_id)
    try:
        return services(request).tables.table_state(person.account, game, variant_id)
    except UnknownVariant as err:
        raise ApiError(404, str(err)) from None
