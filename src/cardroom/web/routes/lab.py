"""The designer's workbench (``/lab``): a house game's rules as a form, two variants,
their exact house edges side by side, and each variant's rules file and PAR sheet to
download.

The figures are worked out off the request path by the same background computation
as the rules pages (:class:`~cardroom.web.edges.HouseEdges`, one at a time, cached on
disk by the rules): the page asks again until they are known.  Reading a variant is
the application's (:mod:`cardroom.app.lab`); this module only asks and answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from cardroom.app.lab import MAX_FIELDS, LabError, compare_edges, rule_fields, variant
from cardroom.core.rules import rules_to_toml
from cardroom.games import GAMES
from cardroom.web.deps import ApiError, Person, changing, person_or_none, services
from cardroom.web.edges import Edges, HouseEdges
from cardroom.web.routes.api import house_game
from cardroom.web.routes.pages import _must_sign_in, _page

router = APIRouter()

#: A variant: the form's values by dotted key (the others keep the game's rules).
Values = Annotated[
    dict[Annotated[str, Field(max_length=100)], Annotated[str, Field(max_length=200)]],
    Field(max_length=MAX_FIELDS),
]


class ParAsk(BaseModel):
    """One variant whose PAR sheet to work out, as an HTML page or a PDF."""

    model_config = ConfigDict(extra="forbid")
    values: Values = Field(default_factory=dict)
    format: Literal["html", "pdf"] = "html"


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


@router.get("/lab", include_in_schema=False)
def lab_page(
    request: Request, game: Annotated[str | None, Query(max_length=40)] = None
) -> Response:
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    svc = services(request)
    games = [g for g in GAMES.values() if g.kind == "house" and g.id in svc.rules]
    chosen = house_game(request, game) if game is not None else games[0]
    rules = svc.rules[chosen.id]
    return _page(
        request,
        "lab.html",
        person,
        games=games,
        game=chosen,
        fields=rule_fields(rules),
    )


@router.post("/api/lab/{game_id}", include_in_schema=False)
def work_out(
    request: Request,
    game_id: str,
    ask: LabAsk,
    person: Annotated[Person, Depends(changing)],
) -> dict[str, Any]:
    """Both variants' rules and exact house edges ("computing" until known: ask again)."""
    game = house_game(request, game_id)
    svc = services(request)
    default = svc.rules[game.id]
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
    sheet as ``cardroom report`` writes: one HTML page (``html``) or a PDF (``pdf``, in
    base64; "failed" with the reason where WeasyPrint cannot lay it out)."""
    game = house_game(request, game_id)
    svc = services(request)
    _, sheet = _worked_out(svc.par_sheets, game.id, svc.rules[game.id], ask.values, "the variant")
    answer: dict[str, Any] = {"game": game.id, "status": sheet.status}
    if sheet.message:
        answer["error"] = sheet.message
    if sheet.means is None:
        return answer
    if ask.format == "html":
        answer["html"] = sheet.means["html"]
    elif "pdf" in sheet.means:
        answer["pdf"] = sheet.means["pdf"]
    else:
        answer.update(status="failed", error=sheet.means["pdf_error"])
    return answer
