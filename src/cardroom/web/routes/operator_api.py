"""The operator's API (``/api/operator/...``): thin handlers over
:class:`~cardroom.app.operators.room.Room`.

Every route but the sign-in answers 404 to anyone but a signed-in operator (the admin's
routes to anyone but an admin); every change takes the session's CSRF token as
``X-CSRF-Token`` and a ``reason``, and is written to the operator log with it.  These
routes are left out of the public OpenAPI schema, as the floor is nobody else's
business.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from fractions import Fraction
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from cardroom.app.operators.log import ReasonMissing, check_reason
from cardroom.app.operators.players import NotAllowed
from cardroom.app.operators.staff import (
    Operator,
    OperatorSession,
    StaffError,
    provisioning_uri,
    qr_svg,
)
from cardroom.app.operators.tables import TableError
from cardroom.app.operators.watch import Watch
from cardroom.app.sessions import check_password_text
from cardroom.app.wallet import WalletError, name_key
from cardroom.app.wallet.values import money_text, to_cents
from cardroom.core.money import parse_amount
from cardroom.web.deps import ApiError, Cursor, RowId, services
from cardroom.web.operator_auth import (
    admin,
    changing_admin,
    changing_operator,
    clear_cookie,
    operator,
    room,
    set_cookie,
    sign_in,
)
from cardroom.web.operator_views import (
    account_json,
    floor_json,
    round_json,
    table_bounds,
    table_keys,
    table_rules,
    tables_json,
)
from cardroom.web.passwords import Busy
from cardroom.web.signin import busy_error

router = APIRouter(prefix="/api/operator", include_in_schema=False)

T = TypeVar("T")


def _strict() -> ConfigDict:
    return ConfigDict(extra="forbid", str_max_length=600)


class SignIn(BaseModel):
    model_config = _strict()
    name: str = Field(max_length=200)
    password: str = Field(max_length=600)
    code: str = Field(max_length=20)


class Reason(BaseModel):
    model_config = _strict()
    reason: str = Field(max_length=600)


class Adjust(Reason):
    amount: str = Field(max_length=40)


class Limits(Reason):
    min_stake: str | None = Field(default=None, max_length=40)
    max_stake: str | None = Field(default=None, max_length=40)


class NewOperator(Reason):
    name: str = Field(max_length=100)
    password: str = Field(max_length=600)
    #: JSON's true or false only (not "yes" or 1): it grants every right
    admin: StrictBool = False


class Publish(Reason):
    game: str = Field(max_length=40)
    variant: str = Field(pattern=r"^[0-9a-f]{20}$")
    name: str = Field(max_length=100)


def refusal(err: Exception) -> ApiError:
    """An application refusal as the API answers it."""
    text = str(err)
    if isinstance(err, ReasonMissing | TableError):
        return ApiError(422, text)
    if isinstance(err, NotAllowed | StaffError):
        return ApiError(409, text)
    if isinstance(err, WalletError) and text.startswith("there is no"):
        return ApiError(404, text)
    return ApiError(422, text)


async def _do(work: Callable[[], T]) -> T:
    """``work()`` in a worker thread, its refusals as the API answers them."""
    try:
        return await run_in_threadpool(work)
    except (WalletError, ReasonMissing, ValueError) as err:
        raise refusal(err) from None


def amount(text: str | None, what: str) -> Fraction | None:
    """An amount of a body, or None for an empty one (422 if it is not a plain decimal)."""
    if text is None or not str(text).strip():
        return None
    written = str(text).strip()
    sign = -1 if written.startswith("-") else 1
    try:
        value = sign * parse_amount(written.removeprefix("-"))
    except ValueError as err:
        raise ApiError(422, f"{what}: {err}") from None
    try:
        to_cents(value, what)
    except WalletError as err:  # (it names what it checked)
        raise ApiError(422, str(err)) from None
    return value


# -- signing in ------------------------------------------------------------------------------
@router.post("/login")
async def login(request: Request, body: SignIn) -> JSONResponse:
    token, session = await sign_in(request, body.name, body.password, body.code)
    response = JSONResponse(
        {
            "name": session.operator.name,
            "role": session.operator.role,
            "csrf_token": session.csrf_token,
        }
    )
    set_cookie(request, response, token)
    return response


@router.post("/logout")
def logout(
    request: Request, who: Annotated[OperatorSession, Depends(changing_operator)]
) -> JSONResponse:
    room(request).staff.end(request.cookies.get("cardroom_operator", ""))
    response = JSONResponse({"signed_out": True})
    clear_cookie(response)
    return response


@router.get("/me")
def me(who: Annotated[OperatorSession, Depends(operator)]) -> dict[str, object]:
    return {"name": who.operator.name, "role": who.operator.role, "csrf_token": who.csrf_token}


# -- the floor -------------------------------------------------------------------------------
@router.get("/floor")
async def floor(
    request: Request, who: Annotated[OperatorSession, Depends(operator)]
) -> dict[str, object]:
    return await run_in_threadpool(lambda: floor_json(room(request)))


# -- accounts --------------------------------------------------------------------------------
@router.get("/accounts")
def accounts(
    request: Request,
    who: Annotated[OperatorSession, Depends(operator)],
    q: Annotated[str, Query(max_length=40)] = "",
) -> dict[str, object]:
    found = room(request).players.search(q)
    return {"accounts": [{"id": i, "name": n, "suspended": s} for i, n, s in found]}


@router.get("/accounts/{account_id}")
async def account(
    request: Request,
    account_id: RowId,
    who: Annotated[OperatorSession, Depends(operator)],
    before: Cursor = None,
) -> dict[str, object]:
    return await _do(lambda: account_json(room(request), account_id, before))


def _action(request: Request, who: OperatorSession) -> Any:
    return who.actor(None if request.client is None else request.client.host)


@router.post("/accounts/{account_id}/adjust")
async def adjust(
    request: Request,
    account_id: RowId,
    body: Adjust,
    who: Annotated[OperatorSession, Depends(changing_operator)],
) -> dict[str, object]:
    value = amount(body.amount, "the adjustment")
    if value is None:
        raise ApiError(422, "the adjustment: give an amount, such as 25 or -10.50")
    balance = await _do(
        lambda: room(request).players.adjust(_action(request, who), account_id, value, body.reason)
    )
    return {"balance": money_text(to_cents(balance))}


#: An action on an account that takes only a reason, by its path: what it does.
AccountAction = Literal["suspend", "lift", "sign-out", "note"]


@router.post("/accounts/{account_id}/{action}")
async def account_action(
    request: Request,
    account_id: RowId,
    action: AccountAction,
    body: Reason,
    who: Annotated[OperatorSession, Depends(changing_operator)],
) -> dict[str, object]:
    """Suspend, lift a suspension, sign out everywhere, or write a note."""
    players = room(request).players
    actor = _action(request, who)
    do = {
        "suspend": players.suspend,
        "lift": players.lift,
        "sign-out": players.sign_out,
        "note": players.note,
    }[action]
    result = await _do(lambda: do(actor, account_id, body.reason))
    return {"done": action, "sessions_ended": result if action == "sign-out" else None}


@router.get("/rounds/{round_id}")
async def round_(
    request: Request, round_id: RowId, who: Annotated[OperatorSession, Depends(operator)]
) -> dict[str, object]:
    return await _do(lambda: round_json(room(request), round_id))


# -- tables ----------------------------------------------------------------------------------
@router.get("/tables")
def tables(
    request: Request, who: Annotated[OperatorSession, Depends(operator)]
) -> dict[str, object]:
    return tables_json(request)


@router.post("/tables/{key}/limits")
async def set_limits(
    request: Request,
    key: str,
    body: Limits,
    who: Annotated[OperatorSession, Depends(changing_operator)],
) -> dict[str, object]:
    low = amount(body.min_stake, "the least stake")
    high = amount(body.max_stake, "the most stake")
    setting = await _do(
        lambda: room(request).tables.set_limits(
            _action(request, who),
            _known(request, key),
            low,
            high,
            body.reason,
            table_bounds(request, key),
        )
    )
    return setting.as_json()


@router.post("/tables/{key}/{action}")
async def open_or_close(
    request: Request,
    key: str,
    action: Literal["open", "close"],
    body: Reason,
    who: Annotated[OperatorSession, Depends(changing_operator)],
) -> dict[str, object]:
    """Open or close a table to new rounds."""
    setting = await _do(
        lambda: room(request).tables.set_open(
            _action(request, who), _known(request, key), action == "open", body.reason
        )
    )
    return setting.as_json()


@router.post("/variants")
async def publish(
    request: Request, body: Publish, who: Annotated[OperatorSession, Depends(changing_operator)]
) -> dict[str, object]:
    _known(request, body.game)
    setting = await _do(
        lambda: room(request).tables.publish(
            _action(request, who), body.game, body.variant, body.name, body.reason
        )
    )
    return setting.as_json()


def _known(request: Request, key: str) -> str:
    """A table key this server has: 404 otherwise."""
    if key not in table_keys(request):
        raise ApiError(404, f"there is no table {key[:60]!r}")
    return key


# -- integrity -------------------------------------------------------------------------------
WindowName = Annotated[Literal["24 hours", "7 days", "30 days"], Query()]


@router.get("/integrity")
async def integrity(
    request: Request,
    who: Annotated[OperatorSession, Depends(operator)],
    window: WindowName = "24 hours",
) -> dict[str, Any]:
    watch = Watch(room(request).db, table_rules(services(request)))
    report = await run_in_threadpool(lambda: watch.check(window))
    return report.as_json()


# -- the log ---------------------------------------------------------------------------------
@router.get("/log")
def log(
    request: Request,
    who: Annotated[OperatorSession, Depends(operator)],
    since: Annotated[datetime | None, Query()] = None,
    before: Cursor = None,
    target: Annotated[str | None, Query(max_length=100)] = None,
) -> dict[str, object]:
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    entries = room(request).log.entries(since=since, target=target, before_id=before, limit=100)
    return {
        "entries": [e.as_json() for e in entries],
        "older": entries[-1].id if len(entries) == 100 else None,
    }


# -- the staff (admins) ----------------------------------------------------------------------
@router.get("/staff")
def staff(request: Request, who: Annotated[OperatorSession, Depends(admin)]) -> dict[str, object]:
    people = room(request).staff.all(removed=True)
    return {
        "operators": [
            {
                "name": p.name,
                "role": p.role,
                "added": p.created_at.isoformat(),
                "removed": p.removed_at is not None,
            }
            for p in people
        ]
    }


@router.post("/staff")
async def add_staff(
    request: Request, body: NewOperator, who: Annotated[OperatorSession, Depends(changing_admin)]
) -> dict[str, object]:
    """An admin adds an operator: their TOTP secret, shown this once (text, the
    ``otpauth://`` address and the QR code as SVG)."""
    added, secret = await add_operator(
        request, who, body.name, body.password, body.admin, body.reason
    )
    return {
        "name": added.name,
        "role": added.role,
        "secret": secret,
        "uri": provisioning_uri(added.name, secret),
        "qr_svg": qr_svg(added.name, secret),
    }


@router.post("/staff/{name}/remove")
async def remove_staff(
    request: Request,
    name: str,
    body: Reason,
    who: Annotated[OperatorSession, Depends(changing_admin)],
) -> dict[str, object]:
    await remove_operator(request, who, name, body.reason)
    return {"removed": name}


async def add_operator(
    request: Request, who: OperatorSession, name: str, password: str, is_admin: bool, reason: str
) -> tuple[Operator, str]:
    """Add an operator (the admin's action, logged with its reason)."""
    try:
        why = check_reason(reason)
        check_password_text(password)
    except (ReasonMissing, WalletError) as err:
        raise ApiError(422, str(err)) from None
    try:
        hashed = await services(request).passwords.hash(password)
    except Busy as err:
        raise busy_error(err) from None
    actor = _action(request, who)
    role = "admin" if is_admin else "operator"
    added: tuple[Operator, str] = await _do(
        lambda: room(request).staff.add(name, hashed, role, actor, why)
    )
    return added


async def remove_operator(request: Request, who: OperatorSession, name: str, reason: str) -> None:
    """Remove an operator (not oneself)."""
    try:
        why = check_reason(reason)
    except ReasonMissing as err:
        raise ApiError(422, str(err)) from None
    if name_key(name) == name_key(who.operator.name):
        raise ApiError(409, "an admin cannot remove themselves")
    await _do(lambda: room(request).staff.remove(name, _action(request, who), why))


__all__ = ["add_operator", "amount", "refusal", "remove_operator", "router"]
