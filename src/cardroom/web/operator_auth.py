"""Who an operator's request is from, and signing operators in.

An operator's session is its own cookie (:data:`COOKIE`, HttpOnly, SameSite=Strict),
read against ``operator_sessions``: a player's session never reaches an operator's
route.  Every operator route but the sign-in asks :func:`operator` (or :func:`admin`),
which answers **404** to anyone else, the same "not found" as a route that does not
exist, so the floor gives nobody a hint that it is there.

Signing in takes the name, the password and the TOTP code.  It is throttled as the
players' sign-ins are (:mod:`cardroom.web.throttle`, the name counted as
``operator:NAME``), the Argon2 check runs in the password pool, and every sign-in and
every refusal is written to the operator log with the address it came from.
"""

from __future__ import annotations

from fastapi import Request, Response

from cardroom.app.operators.log import Actor
from cardroom.app.operators.room import Room
from cardroom.app.operators.staff import LIFETIME, OperatorSession
from cardroom.app.sessions import PASSWORD_MAX
from cardroom.app.wallet import WalletError, account_name, name_key
from cardroom.web.deps import CSRF_HEADER, ApiError, csrf_ok, secure, services
from cardroom.web.passwords import Busy
from cardroom.web.signin import address_of, busy_error, in_thread
from cardroom.web.throttle import Throttled

__all__ = [
    "COOKIE",
    "admin",
    "changing_admin",
    "changing_operator",
    "clear_cookie",
    "operator",
    "operator_or_none",
    "room",
    "set_cookie",
    "sign_in",
]

COOKIE = "cardroom_operator"
NOT_FOUND = "not found"
WRONG = "wrong name, password or code"


def room(request: Request) -> Room:
    found: Room = services(request).room
    return found


def operator_or_none(request: Request) -> OperatorSession | None:
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    return room(request).staff.session(token)


def operator(request: Request) -> OperatorSession:
    """The signed-in operator; 404 for anyone else."""
    found = operator_or_none(request)
    if found is None:
        raise ApiError(404, NOT_FOUND)
    return found


def admin(request: Request) -> OperatorSession:
    """The signed-in admin; 404 for anyone else, operators included."""
    found = operator(request)
    if not found.operator.is_admin:
        raise ApiError(404, NOT_FOUND)
    return found


def changing_operator(request: Request) -> OperatorSession:
    """The signed-in operator of an API request that changes something: its
    ``X-CSRF-Token`` header must be the session's (403)."""
    return _with_csrf(request, operator(request))


def changing_admin(request: Request) -> OperatorSession:
    """The signed-in admin of an API request that changes something (as
    :func:`changing_operator`)."""
    return _with_csrf(request, admin(request))


def _with_csrf(request: Request, found: OperatorSession) -> OperatorSession:
    if not csrf_ok(request.headers.get(CSRF_HEADER), found.csrf_token):
        raise ApiError(403, f"the {CSRF_HEADER} header is missing or wrong: reload the page")
    return found


def set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(LIFETIME.total_seconds()),
        path="/",
        httponly=True,
        samesite="strict",
        secure=secure(request),
    )


def clear_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/")


async def sign_in(
    request: Request, name: str, password: str, code: str
) -> tuple[str, OperatorSession]:
    """A new session for the operator whose name, password and code these are; an
    :class:`ApiError` (401, 422, 429 or 503) otherwise, every outcome logged."""
    svc = services(request)
    where = address_of(request)
    try:
        key = "operator:" + name_key(account_name(name))
    except WalletError as err:
        raise ApiError(422, str(err)) from None
    if len(password) > PASSWORD_MAX:
        raise ApiError(422, f"a password has at most {PASSWORD_MAX} characters")
    shown = " ".join(str(name).split())[:40]
    refused = Actor(None, shown or "?", where)
    try:
        svc.passwords.refuse_when_full()
    except Busy as err:
        raise busy_error(err) from None
    staff = svc.room.staff

    def start() -> tuple[int, object]:
        attempt = svc.throttle.begin(key, where)
        try:
            return attempt, staff.credentials(name)
        except BaseException:
            svc.throttle.cancel(attempt)
            raise

    try:
        attempt, found = await in_thread(start)
    except Throttled as err:
        await in_thread(
            lambda: svc.room.log.append(refused, "sign in refused", None, "too many tries")
        )
        raise ApiError(429, err.message, {"Retry-After": str(err.retry_after)}) from None
    credentials = found if isinstance(found, tuple) else None
    try:
        checked = await svc.passwords.verify(credentials[1] if credentials else None, password)
    except BaseException as err:
        await in_thread(lambda: svc.throttle.cancel(attempt))
        if isinstance(err, Busy):
            raise busy_error(err) from None
        raise
    if credentials is None or not checked.ok:
        await in_thread(
            lambda: svc.room.log.append(refused, "sign in refused", None, "wrong name or password")
        )
        raise ApiError(401, WRONG)
    person = credentials[0]
    good = await in_thread(lambda: staff.use_code(person.id, code))
    if not good:
        await in_thread(
            lambda: svc.room.log.append(
                Actor(person.id, person.name, where),
                "sign in refused",
                f"operator:{person.name}",
                "wrong or used code",
            )
        )
        raise ApiError(401, WRONG)

    def finish() -> tuple[str, OperatorSession]:
        svc.throttle.succeeded(key, where)
        token, session = staff.begin(person, where)
        svc.room.log.append(
            Actor(person.id, person.name, where), "sign in", f"operator:{person.name}", "signed in"
        )
        return token, session

    return await in_thread(finish)
