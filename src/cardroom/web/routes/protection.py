"""A person's protection (``/account/protection`` and ``/api/account/protection``): a
break or a self-exclusion they take, and the history of every one.

Taking one signs the person out everywhere at once (this request's session too), so
the answer clears the session cookie; until it ends they may sign in and look at their
history and wallet, not play (:mod:`cardroom.app.protections`).  Nothing here lifts one.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from cardroom.app.limits import Limits
from cardroom.app.protections import BREAKS, EXCLUSIONS, Protection, Protections
from cardroom.app.wallet import WalletError
from cardroom.web import signin
from cardroom.web.deps import (
    COOKIE,
    ApiError,
    Person,
    changing,
    csrf_ok,
    person_or_none,
    secure,
    services,
    signed_in,
)
from cardroom.web.models import CHANGES, answers
from cardroom.web.routes.pages import _must_sign_in, _page

router = APIRouter()

BreakLength = Literal["24 hours", "7 days", "30 days"]
ExclusionLength = Literal["6 months", "1 year", "5 years"]


class BreakAsk(BaseModel):
    """A break: how long."""

    model_config = ConfigDict(extra="forbid")
    length: BreakLength


class ExclusionAsk(BaseModel):
    """A self-exclusion: how long, and ``confirm`` true (it cannot be undone)."""

    model_config = ConfigDict(extra="forbid")
    length: ExclusionLength
    confirm: Literal[True] = Field(description="true: I know nobody can lift it early")

    @field_validator("confirm", mode="before")
    @classmethod
    def _json_true(cls, value: object) -> object:
        # (a literal True alone would take 1 and 1.0, which equal it: the exclusion
        # cannot be undone, so only JSON's true says yes)
        if value is not True:
            raise ValueError("confirm must be true: the exclusion cannot be undone")
        return value


Kind = Literal["time_out", "self_exclusion"]


class TakenOut(BaseModel):
    """A break or self-exclusion taken: when, until when (UTC), from which address."""

    model_config = ConfigDict(extra="forbid")
    kind: Kind
    taken: str
    until: str
    from_: str = Field(alias="from")


class ProtectionOut(BaseModel):
    """The break or exclusion in force, if any, and every one taken, newest first."""

    model_config = ConfigDict(extra="forbid")
    in_force: bool
    kind: Kind | None
    until: str | None
    history: list[TakenOut]
    breaks: list[str]
    exclusions: list[str]


def _taken(taken: Protection) -> TakenOut:
    return TakenOut.model_validate(taken.as_json())


def _state(request: Request, account_id: int) -> ProtectionOut:
    state = Protections(services(request).db).state(account_id)
    kind = state.kind if state.kind in ("time_out", "self_exclusion") else None
    return ProtectionOut(
        in_force=state.until is not None,
        kind=kind,  # type: ignore[arg-type]
        until=None if state.until is None else state.until.isoformat(),
        history=[_taken(p) for p in state.history],
        breaks=list(BREAKS),
        exclusions=list(EXCLUSIONS),
    )


def _signed_out(response: Response, request: Request) -> Response:
    """The answer with the session cookie cleared (the session is gone already)."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
    return response


@router.get(
    "/api/account/protection",
    response_model=ProtectionOut,
    operation_id="protection",
    tags=["protection"],
    responses=answers(401),
)
def protection(request: Request, person: Annotated[Person, Depends(signed_in)]) -> ProtectionOut:
    """The break or self-exclusion in force and the history of every one taken."""
    return _state(request, person.account.id)


@router.post(
    "/api/account/protection/break",
    response_model=TakenOut,
    response_model_by_alias=True,
    operation_id="take_a_break",
    tags=["protection"],
    responses=answers(400, 401, 403, 413, 422),
    openapi_extra=CHANGES,
)
async def take_a_break(
    request: Request,
    response: Response,
    body: BreakAsk,
    person: Annotated[Person, Depends(changing)],
) -> TakenOut:
    """Take a break from play (24 hours, 7 days or 30 days), at once: signed out
    everywhere, seats left after the coup in play; sign in to look, not to play."""
    taken = await run_in_threadpool(
        lambda: Protections(services(request).db).take_break(
            person.account.id, body.length, signin.address_of(request)
        )
    )
    _signed_out(response, request)
    return _taken(taken)


@router.post(
    "/api/account/protection/self-exclusion",
    response_model=TakenOut,
    response_model_by_alias=True,
    operation_id="exclude_myself",
    tags=["protection"],
    responses=answers(400, 401, 403, 413, 422),
    openapi_extra=CHANGES,
)
async def exclude_myself(
    request: Request,
    response: Response,
    body: ExclusionAsk,
    person: Annotated[Person, Depends(changing)],
) -> TakenOut:
    """Exclude yourself from play for 6 months, 1 year or 5 years, at once; nobody can
    lift it early."""
    taken = await run_in_threadpool(
        lambda: Protections(services(request).db).exclude(
            person.account.id, body.length, signin.address_of(request)
        )
    )
    _signed_out(response, request)
    return _taken(taken)


# -- the page ----------------------------------------------------------------------------------
@router.get("/account/protection", include_in_schema=False)
def protection_page(request: Request) -> Response:
    person = person_or_none(request)
    if person is None:
        return _must_sign_in(request)
    state = _state(request, person.account.id)
    kept = Limits(services(request).db).state(person.account.id)
    return _page(request, "protection.html", person, state=state, limits=kept, message=None)


def form_person(request: Request, token: str) -> Person | Response:
    """The person who sent a form of the protection page (its CSRF token checked: 403
    otherwise), or the way to sign in first."""
    person = person_or_none(request)
    if person is None:
        return RedirectResponse("/login?next=/account/protection", status_code=303)
    if not csrf_ok(token, person.session.csrf_token):
        raise ApiError(403, "the form had expired: reload the page")
    return person


@router.post("/account/protection/{which}", include_in_schema=False)
async def protection_form(
    request: Request,
    which: Literal["break", "self-exclusion"],
    csrf_token: Annotated[str, Form(max_length=200)] = "",
    length: Annotated[str, Form(max_length=40)] = "",
    confirm: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    person = form_person(request, csrf_token)
    if isinstance(person, Response):
        return person
    store = Protections(services(request).db)
    where = signin.address_of(request)
    if which == "self-exclusion" and confirm != "yes":
        raise ApiError(422, "tick the box that says you know nobody can lift it early")
    try:
        taken = await run_in_threadpool(
            lambda: (
                store.take_break(person.account.id, length, where)
                if which == "break"
                else store.exclude(person.account.id, length, where)
            )
        )
    except WalletError as err:
        raise ApiError(422, str(err)) from None
    page = _page(request, "protection_taken.html", None, taken=taken)
    return _signed_out(page, request)
