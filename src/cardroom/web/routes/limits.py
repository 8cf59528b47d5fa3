"""A person's limits and reality checks (``/api/account/limits``,
``/api/account/reality-check``, and the forms of ``/account/protection``).

A limit set or lowered applies at once; one raised or removed applies 24 hours later,
and the answer shows it pending (:mod:`cardroom.app.limits`).  A stake that would pass a
limit, or one made while a reality check is due, is refused by the wallet with a 409
whose ``code`` is ``limit`` or ``reality_check``; the pages show the reality check as a
dialog whose button acknowledges it here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from cardroom.app.limits import LIMIT_KINDS, LimitError, Limits
from cardroom.core.money import AmountError, parse_amount
from cardroom.web import signin
from cardroom.web.deps import (
    ApiError,
    Person,
    changing,
    services,
    signed_in,
)
from cardroom.web.models import CHANGES, Amount, answers
from cardroom.web.routes.protection import form_person

router = APIRouter()


def _whole(value: object) -> object:
    """JSON's whole numbers alone (not "30", 30.0 or true), as every other number of
    the API is read."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("minutes are a whole number, such as 30")
    return value


Minutes = Annotated[
    int, BeforeValidator(_whole), Field(ge=5, le=24 * 60, description="minutes, 5 to 1440")
]
Every = Annotated[Literal[15, 30, 60], BeforeValidator(_whole)]


class LimitsAsk(BaseModel):
    """The limits to change: an amount sets one (lower: at once; higher: in 24 hours),
    ``null`` removes one (in 24 hours); a limit left out stays as it is."""

    model_config = ConfigDict(extra="forbid")
    loss_day: Amount | None = None
    loss_week: Amount | None = None
    loss_month: Amount | None = None
    stake_day: Amount | None = None
    stake_week: Amount | None = None
    stake_month: Amount | None = None
    session: Minutes | None = None


class RealityAsk(BaseModel):
    """How often the reality check comes: every 15, 30 or 60 minutes, or ``null``: never."""

    model_config = ConfigDict(extra="forbid")
    every: Every | None


class LimitOut(BaseModel):
    """One limit: in force (null: none; money as a decimal string, the session in
    minutes), a pending change and when it applies, and for a money limit what is left
    of it this period and when the period ends."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal[
        "loss_day", "loss_week", "loss_month", "stake_day", "stake_week", "stake_month", "session"
    ]
    amount: str | int | None
    pending: bool
    next_amount: str | int | None
    next_at: str | None
    left: str | None
    resets: str | None


class SessionOut(BaseModel):
    """The play session as a reality check shows it: since when, the minutes played, the
    net result (a decimal string, negative when down), whether a check is due now, and
    the interval (null: off)."""

    model_config = ConfigDict(extra="forbid")
    due: bool
    session_started: str
    minutes: int
    net: str
    every: int | None


class ChangeOut(BaseModel):
    """One change made: which, to what (null: removed or off), when it was made and when
    it applies, from which address."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    amount: str | int | None
    made: str
    applies: str
    from_: str = Field(alias="from")


class LimitsOut(BaseModel):
    """Every limit, the reality check's interval and choices, the session, and every
    change, newest first."""

    model_config = ConfigDict(extra="forbid")
    limits: list[LimitOut]
    reality_every: int | None
    reality_choices: list[int]
    session: SessionOut
    history: list[ChangeOut]


def _limits(request: Request) -> Limits:
    return Limits(services(request).db)


def _out(data: dict[str, Any]) -> LimitsOut:
    return LimitsOut.model_validate(data)


def _amounts(given: dict[str, str | int | None]) -> dict[str, Fraction | int | None]:
    out: dict[str, Fraction | int | None] = {}
    for kind, value in given.items():
        if value is None or kind == "session":
            out[kind] = None if value is None else int(value)
            continue
        try:
            out[kind] = parse_amount(str(value))
        except AmountError as err:
            raise ApiError(422, f"{LIMIT_KINDS[kind].lower()}: {err}") from None
    return out


@router.get(
    "/api/account/limits",
    response_model=LimitsOut,
    response_model_by_alias=True,
    operation_id="limits",
    tags=["protection"],
    responses=answers(401),
)
def limits(request: Request, person: Annotated[Person, Depends(signed_in)]) -> LimitsOut:
    """Your limits, the reality check and the history of every change."""
    return _out(_limits(request).state(person.account.id).as_json())


@router.post(
    "/api/account/limits",
    response_model=LimitsOut,
    response_model_by_alias=True,
    operation_id="change_limits",
    tags=["protection"],
    responses=answers(400, 401, 403, 413, 422),
    openapi_extra=CHANGES,
)
async def change_limits(
    request: Request, body: LimitsAsk, person: Annotated[Person, Depends(changing)]
) -> LimitsOut:
    """Set, lower, raise or remove limits: lower at once, higher or removed in 24 hours."""
    changes = _amounts(body.model_dump(include=body.model_fields_set))
    where = signin.address_of(request)
    try:
        state = await run_in_threadpool(
            lambda: _limits(request).change(person.account.id, changes, where)
        )
    except LimitError as err:
        raise ApiError(422, str(err)) from None
    return _out(state.as_json())


@router.post(
    "/api/account/reality-check/every",
    response_model=LimitsOut,
    response_model_by_alias=True,
    operation_id="reality_check_every",
    tags=["protection"],
    responses=answers(400, 401, 403, 413, 422),
    openapi_extra=CHANGES,
)
async def reality_every(
    request: Request, body: RealityAsk, person: Annotated[Person, Depends(changing)]
) -> LimitsOut:
    """How often the reality check comes (at once)."""
    where = signin.address_of(request)
    state = await run_in_threadpool(
        lambda: _limits(request).reality_every(person.account.id, body.every, where)
    )
    return _out(state.as_json())


@router.get(
    "/api/account/reality-check",
    response_model=SessionOut,
    operation_id="reality_check",
    tags=["protection"],
    responses=answers(401),
)
def reality_check(request: Request, person: Annotated[Person, Depends(signed_in)]) -> SessionOut:
    """Your session as the reality check shows it, and whether one is due."""
    return SessionOut.model_validate(_limits(request).notice(person.account.id).as_json())


@router.post(
    "/api/account/reality-check/acknowledge",
    response_model=SessionOut,
    operation_id="acknowledge_reality_check",
    tags=["protection"],
    responses=answers(400, 401, 403, 409, 413, why={409: "no reality check is due"}),
    openapi_extra=CHANGES,
)
async def acknowledge(request: Request, person: Annotated[Person, Depends(changing)]) -> SessionOut:
    """I have read it: play on (recorded; the next is due an interval from now)."""
    where = signin.address_of(request)
    try:
        seen = await run_in_threadpool(
            lambda: _limits(request).acknowledge(person.account.id, where)
        )
    except LimitError as err:
        raise ApiError(409, str(err)) from None
    return SessionOut.model_validate(seen.as_json())


# -- the protection page's forms ----------------------------------------------------------------
@router.post("/account/protection/limits", include_in_schema=False)
async def limits_form(request: Request) -> Response:
    """The limits form: a field per limit; an empty field removes the limit, a field
    left as it was changes nothing."""
    form = await request.form()
    found = form_person(request, str(form.get("csrf_token", ""))[:200])
    if isinstance(found, Response):
        return found
    changes: dict[str, str | int | None] = {}
    for kind in LIMIT_KINDS:
        value = str(form.get(kind, ""))[:40].strip()
        if value == str(form.get(f"{kind}_was", ""))[:40].strip():
            continue
        if not value:
            changes[kind] = None
        elif kind == "session":
            if not value.isdigit():
                raise ApiError(422, "the session time limit is a whole number of minutes")
            changes[kind] = int(value)
        else:
            changes[kind] = value
    amounts = _amounts(changes)
    where = signin.address_of(request)
    try:
        await run_in_threadpool(lambda: _limits(request).change(found.account.id, amounts, where))
    except LimitError as err:
        raise ApiError(422, str(err)) from None
    return RedirectResponse("/account/protection#limits", status_code=303)


@router.post("/account/protection/reality-check", include_in_schema=False)
async def reality_form(
    request: Request,
    csrf_token: Annotated[str, Form(max_length=200)] = "",
    every: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    found = form_person(request, csrf_token)
    if isinstance(found, Response):
        return found
    minutes = None if every in ("", "off") else (int(every) if every.isdigit() else -1)
    where = signin.address_of(request)
    try:
        await run_in_threadpool(
            lambda: _limits(request).reality_every(found.account.id, minutes, where)
        )
    except LimitError as err:
        raise ApiError(422, str(err)) from None
    return RedirectResponse("/account/protection#reality", status_code=303)
