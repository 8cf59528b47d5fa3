"""The operator's pages (``/operator``): the floor, accounts, tables, the log, a round.

Server-rendered forms; every change is a POST with the session's CSRF token and a
reason, done by the same application calls as the API
(:mod:`cardroom.web.routes.operator_api`), then a redirect back with what was done or
why not.  Every page but the sign-in answers 404 to anyone but an operator.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from cardroom.app.limits import Limits
from cardroom.app.operators.integrity import false_alarm_rate
from cardroom.app.operators.log import ReasonMissing
from cardroom.app.operators.staff import OperatorSession, provisioning_uri, qr_svg
from cardroom.app.operators.watch import WINDOWS, Watch
from cardroom.app.wallet import WalletError
from cardroom.web.deps import ApiError, Cursor, RowId, csrf_ok, services
from cardroom.web.operator_auth import (
    COOKIE,
    admin,
    clear_cookie,
    operator,
    operator_or_none,
    room,
    set_cookie,
    sign_in,
)
from cardroom.web.operator_plot import ggr_plot
from cardroom.web.operator_views import (
    account_json,
    floor_json,
    recent_alerts,
    round_json,
    table_bounds,
    table_keys,
    table_rules,
    tables_json,
)
from cardroom.web.routes.operator_api import add_operator, amount, refusal, remove_operator

router = APIRouter(prefix="/operator", include_in_schema=False)

Who = Annotated[OperatorSession, Depends(operator)]


def _page(request: Request, template: str, who: OperatorSession | None, **context: Any) -> Response:
    status = int(context.pop("status", 200))
    return services(request).templates.TemplateResponse(
        request,
        template,
        {
            "who": None
            if who is None
            else {"name": who.operator.name, "role": who.operator.role, "csrf": who.csrf_token},
            "done": request.query_params.get("done", "")[:200],
            "error": request.query_params.get("error", "")[:300],
            **context,
        },
        status_code=status,
    )


def _back(to: str, done: str = "", error: str = "") -> RedirectResponse:
    query = f"?done={quote(done)}" if done else f"?error={quote(error)}" if error else ""
    return RedirectResponse(to + query, status_code=303)


async def _form(request: Request, who: OperatorSession) -> dict[str, str]:
    """The form's fields (404 without the session's CSRF token: a form of nobody's)."""
    try:
        form = await request.form()
    except Exception:
        raise ApiError(400, "the form cannot be read") from None
    fields = {k: str(v)[:600] for k, v in form.items() if isinstance(v, str)}
    if not csrf_ok(fields.get("csrf_token"), who.csrf_token):
        raise ApiError(403, "the form is out of date: reload the page")
    return fields


async def _act(to: str, done: str, work: Any) -> RedirectResponse:
    try:
        await run_in_threadpool(work)
    except (WalletError, ReasonMissing, ValueError) as err:
        return _back(to, error=refusal(err).message)
    except ApiError as err:
        return _back(to, error=err.message)
    return _back(to, done=done)


# -- signing in ------------------------------------------------------------------------------
@router.get("/login")
def login_page(request: Request) -> Response:
    return _page(request, "operator_login.html", None)


@router.post("/login")
async def login(request: Request) -> Response:
    form = await request.form()
    fields = {k: str(v)[:600] for k, v in form.items() if isinstance(v, str)}
    try:
        token, _ = await sign_in(
            request, fields.get("name", ""), fields.get("password", ""), fields.get("code", "")
        )
    except ApiError as err:
        return _page(request, "operator_login.html", None, error=err.message, status=err.status)
    response = RedirectResponse("/operator", status_code=303)
    set_cookie(request, response, token)
    return response


@router.post("/logout")
async def logout(request: Request, who: Who) -> Response:
    await _form(request, who)
    room(request).staff.end(request.cookies.get(COOKIE, ""))
    response = RedirectResponse("/operator/login", status_code=303)
    clear_cookie(response)
    return response


# -- the floor -------------------------------------------------------------------------------
@router.get("")
async def floor(request: Request, who: Who) -> Response:
    data = await run_in_threadpool(lambda: floor_json(room(request)))
    hours = room(request).floor.hours()
    plot = ggr_plot(hours, "GGR and rounds an hour over the last 7 days")
    alerts = recent_alerts(room(request))
    return _page(request, "operator_floor.html", who, floor=data, plot=plot, alerts=alerts)


@router.get("/integrity")
async def integrity(
    request: Request,
    who: Who,
    window: Annotated[Literal["24 hours", "7 days", "30 days"], Query()] = "24 hours",
) -> Response:
    watch = Watch(room(request).db, table_rules(services(request)))
    report = await run_in_threadpool(lambda: watch.check(window))
    return _page(
        request,
        "operator_integrity.html",
        who,
        report=report,
        window=window,
        windows=WINDOWS,
        rate=false_alarm_rate(report.limit),
    )


# -- accounts --------------------------------------------------------------------------------
@router.get("/accounts")
def accounts(request: Request, who: Who, q: Annotated[str, Query(max_length=40)] = "") -> Response:
    found = room(request).players.search(q) if q else []
    return _page(request, "operator_accounts.html", who, q=q, found=found)


@router.get("/accounts/{account_id}")
async def account(request: Request, account_id: RowId, who: Who, before: Cursor = None) -> Response:
    try:
        data = await run_in_threadpool(lambda: account_json(room(request), account_id, before))
    except WalletError as err:
        raise refusal(err) from None
    kept = await run_in_threadpool(lambda: Limits(room(request).db).state(account_id))
    return _page(request, "operator_account.html", who, account=data, limits=kept)


@router.post("/accounts/{account_id}/{action}")
async def account_action(request: Request, account_id: RowId, action: str, who: Who) -> Response:
    fields = await _form(request, who)
    players = room(request).players
    actor = who.actor(None if request.client is None else request.client.host)
    reason = fields.get("reason", "")
    to = f"/operator/accounts/{account_id}"
    if action == "suspend":
        return await _act(to, "suspended", lambda: players.suspend(actor, account_id, reason))
    if action == "lift":
        return await _act(to, "suspension lifted", lambda: players.lift(actor, account_id, reason))
    if action == "sign-out":
        return await _act(
            to, "signed out everywhere", lambda: players.sign_out(actor, account_id, reason)
        )
    if action == "note":
        return await _act(to, "note added", lambda: players.note(actor, account_id, reason))
    if action == "adjust":
        try:
            value = amount(fields.get("amount"), "the adjustment")
        except ApiError as err:
            return _back(to, error=err.message)
        if value is None:
            return _back(to, error="the adjustment: give an amount, such as 25 or -10.50")
        return await _act(
            to, "balance adjusted", lambda: players.adjust(actor, account_id, value, reason)
        )
    raise ApiError(404, "not found")


@router.get("/rounds/{round_id}")
async def round_page(request: Request, round_id: RowId, who: Who) -> Response:
    try:
        data = await run_in_threadpool(lambda: round_json(room(request), round_id))
    except WalletError as err:
        raise refusal(err) from None
    return _page(request, "operator_round.html", who, round=data)


# -- tables ----------------------------------------------------------------------------------
@router.get("/tables")
def tables(request: Request, who: Who) -> Response:
    return _page(request, "operator_tables.html", who, tables=tables_json(request)["tables"])


@router.post("/tables/{key}/{action}")
async def table_action(request: Request, key: str, action: str, who: Who) -> Response:
    fields = await _form(request, who)
    settings = room(request).tables
    actor = who.actor(None if request.client is None else request.client.host)
    reason = fields.get("reason", "")
    to = "/operator/tables"
    if key not in table_keys(request):
        return _back(to, error=f"there is no table {key[:60]!r}")
    if action in ("open", "close"):
        return await _act(
            to,
            f"{key} {'opened' if action == 'open' else 'closed'}",
            lambda: settings.set_open(actor, key, action == "open", reason),
        )
    if action == "limits":
        try:
            low = amount(fields.get("min_stake"), "the least stake")
            high = amount(fields.get("max_stake"), "the most stake")
        except ApiError as err:
            return _back(to, error=err.message)
        bounds = table_bounds(request, key)
        return await _act(
            to,
            f"limits of {key} set",
            lambda: settings.set_limits(actor, key, low, high, reason, bounds),
        )
    raise ApiError(404, "not found")


@router.post("/variants")
async def publish(request: Request, who: Who) -> Response:
    fields = await _form(request, who)
    actor = who.actor(None if request.client is None else request.client.host)
    game = fields.get("game", "")
    to = "/operator/tables"
    if game not in services(request).rules:
        return _back(to, error=f"there is no game {game[:40]!r}")
    return await _act(
        to,
        "variant put on a public table",
        lambda: room(request).tables.publish(
            actor,
            game,
            fields.get("variant", "").strip(),
            fields.get("name", ""),
            fields.get("reason", ""),
        ),
    )


# -- the staff (admins) ----------------------------------------------------------------------
@router.get("/staff")
def staff(request: Request, who: Annotated[OperatorSession, Depends(admin)]) -> Response:
    people = room(request).staff.all(removed=True)
    return _page(request, "operator_staff.html", who, people=people, added=None)


@router.post("/staff")
async def add_staff(request: Request, who: Annotated[OperatorSession, Depends(admin)]) -> Response:
    fields = await _form(request, who)
    try:
        added, secret = await add_operator(
            request,
            who,
            fields.get("name", ""),
            fields.get("password", ""),
            fields.get("role") == "admin",
            fields.get("reason", ""),
        )
    except ApiError as err:
        return _back("/operator/staff", error=err.message)
    people = room(request).staff.all(removed=True)
    shown = {
        "name": added.name,
        "role": added.role,
        "secret": secret,
        "uri": provisioning_uri(added.name, secret),
        "qr": qr_svg(added.name, secret),
    }
    return _page(request, "operator_staff.html", who, people=people, added=shown)


@router.post("/staff/{name}/remove")
async def remove_staff(
    request: Request, name: str, who: Annotated[OperatorSession, Depends(admin)]
) -> Response:
    fields = await _form(request, who)
    try:
        await remove_operator(request, who, name, fields.get("reason", ""))
    except ApiError as err:
        return _back("/operator/staff", error=err.message)
    return _back("/operator/staff", done=f"{name} removed")


# -- the log ---------------------------------------------------------------------------------
@router.get("/log")
def log(
    request: Request,
    who: Who,
    before: Cursor = None,
    target: Annotated[str | None, Query(max_length=100)] = None,
) -> Response:
    entries = room(request).log.entries(target=target or None, before_id=before, limit=50)
    older = entries[-1].id if len(entries) == 50 else None
    return _page(request, "operator_log.html", who, entries=entries, older=older, target=target)


__all__ = ["operator_or_none", "router"]
