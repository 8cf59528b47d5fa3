"""Signing in and registering, for the API and the forms alike.

Both are ``async``: their database steps run in a few threads of their own
(:data:`THREADS`), not in the thread pool that serves the other requests, and the
Argon2 check is awaited from the password pool (:mod:`cardroom.web.passwords`) without
holding a thread.  So a crowd of sign-ins leaves FastAPI's threads to the people who are
playing, and at most a few of its writes (the throttle's) wait for the database beside
theirs (on SQLite one transaction writes at a time).  Every refusal is an
:class:`ApiError`:

- 422 a name that cannot be an account's (nothing is hashed or counted), a password
  that is too long (or, to register, too short);
- 429 the throttle's limits (:mod:`cardroom.web.throttle`), with ``Retry-After``;
- 401 a wrong name or password (counted by the throttle);
- 409 a name taken (to register);
- 503 the password pool's queue is full, with ``Retry-After`` (nothing counted).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import TypeVar

from fastapi import Request

from cardroom.app.sessions import PASSWORD_MAX, PasswordError, Session, check_password_text
from cardroom.app.wallet import Account, NameTaken, WalletError, account_name, name_key
from cardroom.web.deps import ApiError, Services
from cardroom.web.passwords import Busy
from cardroom.web.throttle import Throttled, client_address

T = TypeVar("T")

WRONG = "wrong name or password"
#: Seconds a sign-in refused for a full queue is told to wait.
BUSY_RETRY = 2


#: The threads of the sign-ins' database steps, in each server process.
THREADS = 2
_threads = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="signin")


async def in_thread(work: Callable[[], T]) -> T:
    """``work()`` in one of the sign-ins' threads (with this task's context)."""
    return await asyncio.wrap_future(_threads.submit(contextvars.copy_context().run, work))


def address_of(request: Request) -> str:
    """The client's address as the throttle counts it."""
    return client_address(request.client.host if request.client else None)


def busy_error(err: Busy) -> ApiError:
    return ApiError(503, str(err), {"Retry-After": str(BUSY_RETRY)})


async def sign_in(svc: Services, request: Request, name: str, password: str) -> Account:
    """The account whose name and password these are (see the module for refusals)."""
    try:
        key = name_key(account_name(name))
    except WalletError as err:
        raise ApiError(422, str(err)) from None
    if len(password) > PASSWORD_MAX:
        raise ApiError(422, f"a password has at most {PASSWORD_MAX} characters")
    try:
        svc.passwords.refuse_when_full()  # before the throttle writes anything
    except Busy as err:
        raise busy_error(err) from None
    address = client_address(request.client.host if request.client else None)

    def start() -> tuple[int, tuple[int, str] | None]:
        attempt = svc.throttle.begin(key, address)
        try:
            return attempt, svc.wallet.accounts.password_hash(name)
        except BaseException:
            svc.throttle.cancel(attempt)
            raise

    try:
        attempt, found = await in_thread(start)
    except Throttled as err:
        raise ApiError(429, err.message, {"Retry-After": str(err.retry_after)}) from None
    try:
        checked = await svc.passwords.verify(found[1] if found else None, password)
    except BaseException as err:
        await in_thread(lambda: svc.throttle.cancel(attempt))
        if isinstance(err, Busy):
            raise busy_error(err) from None
        raise
    if found is None or not checked.ok:
        raise ApiError(401, WRONG)
    account_id = found[0]
    rehashed = None
    if checked.needs_rehash:
        with suppress(Busy):  # else made again at a later sign-in
            rehashed = await svc.passwords.hash(password)

    def finish() -> Account:
        svc.throttle.succeeded(key, address)
        if rehashed is not None:
            svc.wallet.accounts.set_password_hash(account_id, rehashed)
        return svc.wallet.accounts.get(account_id)

    return await in_thread(finish)


async def register(svc: Services, name: str, password: str) -> Account:
    """A new account with this name and password (see the module for refusals)."""
    try:
        clean = account_name(name)
        check_password_text(password)
    except (PasswordError, WalletError) as err:
        raise ApiError(422, str(err)) from None
    try:
        svc.passwords.refuse_when_full()
    except Busy as err:
        raise busy_error(err) from None
    try:  # before the hash, not to spend a check on a name that is taken or looks it
        await in_thread(lambda: svc.wallet.accounts.check_name_free(clean))
    except NameTaken as err:
        raise ApiError(409, str(err)) from None
    try:
        hashed = await svc.passwords.hash(password)
    except Busy as err:
        raise busy_error(err) from None

    def open_account() -> Account:
        return svc.wallet.accounts.open_account(clean, password_hash=hashed)

    try:
        return await in_thread(open_account)
    except NameTaken as err:
        raise ApiError(409, str(err)) from None
    except WalletError as err:
        raise ApiError(422, str(err)) from None


async def begin_session(
    svc: Services, account_id: int, address: str | None = None
) -> tuple[str, Session]:
    """A new session for the account, signed in from ``address`` (in the sign-ins'
    threads)."""
    return await in_thread(lambda: svc.sessions.begin(account_id, address))
