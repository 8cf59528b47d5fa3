"""Shoes anyone can verify (docs/fairness.md): a table's shoe commitments and revealed
seeds, a shoe's rounds for the ``/verify`` page, and the person's client seed.

Every answer is the person's own: another person's shoe or round is not found.  A
server seed is sent only once its shoe has dealt its last card (``revealed``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from cardroom.app.tables.seeds import ShoeSeed, ShoeSeeds, UnknownShoe
from cardroom.app.tables.stored import table_ref
from cardroom.app.tables.verify import shoe_of
from cardroom.app.variants import split_key
from cardroom.core.fair import MAX_CLIENT_SEED
from cardroom.web.deps import (
    ROW_ID_MAX,
    ApiError,
    Person,
    changing,
    person_or_none,
    services,
    signed_in,
)
from cardroom.web.models import CHANGES, SIGNED_IN, answers
from cardroom.web.routes.pages import _must_sign_in, _page
from cardroom.web.routes.protection import form_person

router = APIRouter(tags=["fairness"])

TABLE_KEY = Query(
    pattern=r"^[a-z0-9-]{1,40}(~[0-9a-f]{20})?$",
    description="the table: a house game's id, or GAME~VARIANT",
)
SHOE_ID = Path(ge=1, le=ROW_ID_MAX, description="the shoe's id")


class ShoeOut(BaseModel):
    """A shoe: its commitment, and its server seed once revealed."""

    model_config = ConfigDict(extra="forbid")
    id: int
    table: str
    shoe: int | None
    commitment: str
    client_seed: str | None
    first_round: int | None
    revealed: bool
    server_seed: str | None = Field(description="hex; null until the shoe deals no more")


class TableShoes(BaseModel):
    """A table's next shoe's commitment and its last shoes, the newest first."""

    model_config = ConfigDict(extra="forbid")
    next_commitment: str
    client_seed: str
    shoes: list[ShoeOut]


class ShoeRound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    record: dict[str, Any]


class ShoeRounds(BaseModel):
    """A revealed shoe and the finished rounds that may have taken cards from it."""

    model_config = ConfigDict(extra="forbid")
    shoe: ShoeOut
    rounds: list[ShoeRound]
    unshuffled: list[str] = Field(description="the shoe's cards before the shuffle, in order")
    burn: int = Field(description="cards burnt after the shuffle")
    burn_by_first_card: bool


class ClientSeed(BaseModel):
    """A client seed: 1 to 64 printable characters."""

    model_config = ConfigDict(extra="forbid")
    client_seed: str = Field(min_length=1, max_length=MAX_CLIENT_SEED)


def _seeds(request: Request) -> ShoeSeeds:
    return services(request).tables.stored.seeds


def _out(seed: ShoeSeed) -> ShoeOut:
    return ShoeOut.model_validate(seed.to_json())


@router.get(
    "/api/shoes",
    response_model=TableShoes,
    operation_id="table_shoes",
    responses=answers(401, 404, 422),
    openapi_extra=SIGNED_IN,
)
def table_shoes(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    table: Annotated[str, TABLE_KEY],
) -> TableShoes:
    """Your table's next shoe's commitment (shown before its first card) and its last two
    shoes: the one dealing (its seed secret) and the one before (its seed revealed)."""
    svc = services(request)
    game_id, _ = split_key(table)
    if game_id not in svc.rules:
        raise ApiError(404, f"there is no table {table}")
    seeds = _seeds(request)
    ref = table_ref(table)
    return TableShoes(
        next_commitment=seeds.next_commitment(person.account.id, ref, table),
        client_seed=seeds.client_seed(person.account.id),
        shoes=[_out(s) for s in seeds.latest(person.account.id, ref)],
    )


@router.get(
    "/api/shoes/{shoe_id}",
    response_model=ShoeRounds,
    operation_id="shoe_rounds",
    responses=answers(401, 404, 422, why={404: "no shoe of yours"}),
    openapi_extra=SIGNED_IN,
)
def shoe_rounds(
    request: Request,
    person: Annotated[Person, Depends(signed_in)],
    shoe_id: int = SHOE_ID,
) -> ShoeRounds:
    """One of your shoes, and the finished rounds dealt from it once its seed is revealed
    (what the /verify page checks)."""
    seeds = _seeds(request)
    try:
        shoe = seeds.shoe(person.account.id, shoe_id)
    except UnknownShoe as err:
        raise ApiError(404, str(err)) from None
    found: list[ShoeRound] = []
    if shoe.server_seed is not None:
        found = [ShoeRound(id=i, record=r) for i, r in seeds.rounds_of(person.account.id, shoe)]
    rules = shoe_of([(r.id, r.record) for r in found])
    return ShoeRounds(
        shoe=_out(shoe),
        rounds=found,
        unshuffled=[] if rules is None else [card.code for card in rules.cards()],
        burn=0 if rules is None else rules.burn,
        burn_by_first_card=rules is not None and rules.burn_by_first_card,
    )


@router.get(
    "/api/account/client-seed",
    response_model=ClientSeed,
    operation_id="client_seed",
    responses=answers(401),
    openapi_extra=SIGNED_IN,
)
def client_seed(request: Request, person: Annotated[Person, Depends(signed_in)]) -> ClientSeed:
    """Your client seed: every shoe of yours is shuffled with it (docs/fairness.md)."""
    return ClientSeed(client_seed=_seeds(request).client_seed(person.account.id))


@router.post(
    "/api/account/client-seed",
    response_model=ClientSeed,
    operation_id="set_client_seed",
    responses=answers(400, 401, 403, 413, 422),
    openapi_extra=CHANGES,
)
async def set_client_seed(
    request: Request, body: ClientSeed, person: Annotated[Person, Depends(changing)]
) -> ClientSeed:
    """Change your client seed: it applies from each table's next shoe."""
    return ClientSeed(client_seed=await run_in_threadpool(_set, request, person, body.client_seed))


def _set(request: Request, person: Person, text: str) -> str:
    try:
        return _seeds(request).set_client_seed(person.account.id, text)
    except ValueError as err:
        raise ApiError(422, str(err)) from None


# -- the pages ---------------------------------------------------------------------------------
@router.post("/account/client-seed", include_in_schema=False)
async def client_seed_form(
    request: Request,
    csrf_token: Annotated[str, Form(max_length=200)] = "",
    client_seed: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    person = form_person(request, csrf_token)
    if isinstance(person, Response):
        return person
    await run_in_threadpool(_set, request, person, client_seed)
    return RedirectResponse("/account/protection#client-seed", status_code=303)


@router.get("/verify", include_in_schema=False)
def verify_page(
    request: Request, shoe: Annotated[int | None, Query(ge=1, le=ROW_ID_MAX)] = None
) -> Response:
    """Rebuild a shoe from its seeds in the browser and check its rounds."""
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    return _page(request, "verify.html", person, shoe=shoe)
