"""What every request may need: the services, the person signed in, the CSRF check."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Path, Query, Request
from fastapi.templating import Jinja2Templates

from cardroom.app.operators.room import Room
from cardroom.app.sessions import Session, Sessions
from cardroom.app.tables.live import ChemmyTables
from cardroom.app.wallet import Account, Wallet
from cardroom.storage import Database
from cardroom.web.edges import ChemmySolutions, HouseEdges
from cardroom.web.live import LiveTables
from cardroom.web.passwords import PasswordPool
from cardroom.web.round_threads import RoundThreads
from cardroom.web.throttle import LoginThrottle

#: The largest id of a row the database holds (an id on a path or in a query beyond it
#: is refused with 422, not looked up).
ROW_ID_MAX = 2**62
#: A row's id on a request's path (an account's, a round's): 1 to :data:`ROW_ID_MAX`.
RowId = Annotated[int, Path(ge=1, le=ROW_ID_MAX)]
#: A page's cursor in a query: the id a page starts before or after (1 to :data:`ROW_ID_MAX`).
Cursor = Annotated[int | None, Query(ge=1, le=ROW_ID_MAX)]

#: The session cookie (HttpOnly, SameSite=Lax, Secure over HTTPS).
COOKIE = "cardroom_session"
#: The token of the sign-in and register forms before there is a session (double submit).
FORM_COOKIE = "cardroom_form"
CSRF_HEADER = "X-CSRF-Token"


class ApiError(Exception):
    """A refusal: its HTTP status, one line for the person, any headers
    (``Retry-After``) and what a program reads beside the line."""

    def __init__(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        extra: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        #: what a JSON answer carries beside ``error`` (``code``, ``details``)
        self.extra = extra or {}


@dataclass
class Services:
    """What the app serves from: the database and what is built on it."""

    db: Database
    wallet: Wallet
    sessions: Sessions
    rules: dict[str, Any]
    tables: LiveTables
    edges: HouseEdges
    #: the lab's PAR sheets, worked out in the background like the edges
    par_sheets: HouseEdges
    templates: Jinja2Templates
    throttle: LoginThrottle
    chemmy: ChemmyTables
    #: the Argon2 checks of this process, at most a few at once
    passwords: PasswordPool
    #: the operator's floor: staff, their log, accounts, tables, figures
    room: Room
    #: chemin de fer's solved coup, for its rules page
    solutions: ChemmySolutions = field(default_factory=ChemmySolutions)
    #: the threads the house rounds are dealt on
    rounds: RoundThreads = field(default_factory=RoundThreads)


@dataclass(frozen=True)
class Person:
    """The person a request is from, and their session."""

    account: Account
    session: Session
    token: str


def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def person_or_none(request: Request) -> Person | None:
    """The signed-in person, or None."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    found = services(request).sessions.find_person(token)
    if found is None:
        return None
    session, account = found
    return Person(account, session, token)


def signed_in(request: Request) -> Person:
    """The signed-in person (401 without a session)."""
    person = person_or_none(request)
    if person is None:
        raise ApiError(401, "sign in first")
    return person


def csrf_ok(given: str | None, expected: str) -> bool:
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())


def changing(request: Request) -> Person:
    """The signed-in person of a request that changes something: its X-CSRF-Token
    header must be the session's (403 otherwise)."""
    person = signed_in(request)
    if not csrf_ok(request.headers.get(CSRF_HEADER), person.session.csrf_token):
        raise ApiError(403, f"the {CSRF_HEADER} header is missing or wrong: reload the page")
    return person


def secure(request: Request) -> bool:
    """Is the request over HTTPS (the cookies are then Secure)?"""
    return request.url.scheme == "https"
