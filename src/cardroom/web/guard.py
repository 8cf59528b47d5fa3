"""Two pure ASGI middlewares at the edge of the web table (no ``BaseHTTPMiddleware``,
which costs a task and a copy of every body): the security headers of every answer,
and the checks of a JSON body that the JSON parser would let through.

:class:`SecurityHeaders` gives every HTTP answer

- ``Content-Security-Policy`` (:data:`CSP`): scripts, styles, images, fonts and
  connections (``fetch`` and the chemin de fer WebSocket) from this site only, no
  inline script or style, no plugin, no ``<base>``, forms posted to this site only, and
  no framing (``frame-ancestors 'none'``, with ``X-Frame-Options: DENY`` for older
  browsers).  The pages have no inline script: the history page's rounds are a
  ``<script type="application/json">`` data block, which is never run, so the policy
  does not apply to it;
- ``Referrer-Policy: same-origin`` and ``X-Content-Type-Options: nosniff``;
- ``Cache-Control: no-store`` unless the answer sets its own (the card images) or is a
  static file: the API's answers and the pages carry a person's balance, rounds, ledger
  and CSRF token, which no cache (nor the browser's back button after signing out)
  should keep.

:class:`JsonBodies` reads a request's JSON body (``application/json``, ``*+json``, or
no type; forms pass untouched) before the app does and refuses, with one line of JSON:

- 400 a body that is not UTF-8 (Python's JSON parser would guess UTF-16 or UTF-32 from
  the bytes and accept it);
- 422 an object that repeats a key (``{"bets": {"banker": "10", "banker": "20"}}``: the
  parser would keep the last one silently).

Anything else that is not JSON is left to the app, which refuses it with a 422.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "JsonBodies", "SecurityHeaders"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
]
_NO_STORE = (b"cache-control", b"no-store")
_STATIC = "/static/"


class SecurityHeaders:
    """The security headers of every HTTP answer (see the module's docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cacheable = scope["path"].startswith(_STATIC)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *_HEADERS]
                if not cacheable:
                    for name, _ in headers:  # (names come lower-cased from Starlette)
                        if name == b"cache-control":
                            break
                    else:
                        headers.append(_NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, sending)


class RepeatedKey(ValueError):
    """An object in the JSON repeats a key."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):  # (rare: only then look for which key)
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return found


#: Built once: ``json.loads`` with a hook builds a decoder on every call.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_repeats)


def _is_json(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            kind: bytes = value.split(b";", 1)[0].strip().lower()
            return kind == b"application/json" or (
                kind.startswith(b"application/") and kind.endswith(b"+json")
            )
    return True  # no type: the app would read it as JSON


#: the deepest a body's arrays and objects may nest (every body of the API needs 3 or 4)
MAX_DEPTH = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def nesting(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not
    count), counted without recursion.

    >>> nesting('{"a": [1, {"b": "[[["}]}'), nesting("[]"), nesting("7")
    (3, 1, 0)
    """
    depth = deepest = 0
    for found in _BRACKET.finditer(_STRING.sub('""', text)):
        if found.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def body_problem(body: bytes) -> tuple[int, str] | None:
    """What is wrong with a JSON body, as a status and one line; None: let it through.

    >>> body_problem(b'{"bets": {"banker": "10"}}') is None
    True
    >>> body_problem(b'{"bets": {"banker": "10", "banker": "20"}}')
    (422, 'the body repeats the key "banker": send each key once')
    >>> body_problem('{"bets": {}}'.encode("utf-16"))
    (400, 'the body is not UTF-8: send JSON in UTF-8')
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return 400, "the body is not UTF-8: send JSON in UTF-8"
    if "\x00" in text:  # JSON has no raw NUL: this is UTF-16 or UTF-32 without a BOM
        return 400, "the body is not UTF-8: send JSON in UTF-8"
    if nesting(text) > MAX_DEPTH:  # (before the decoder recurses into it)
        return 400, f"the body nests arrays and objects more than {MAX_DEPTH} deep"
    try:
        _DECODER.decode(text.removeprefix("\ufeff"))
    except RepeatedKey as err:
        shown = json.dumps(str(err), ensure_ascii=True)
        if len(shown) > 42:
            shown = shown[:40] + '…"'
        return 422, f"the body repeats the key {shown}: send each key once"
    except ValueError as err:
        if "integer string conversion" in str(err):  # (Python's limit on digits)
            return 400, "the body holds a number with more than 4,300 digits"
        return None  # not JSON: the app says so
    return None


class JsonBodies:
    """Refuse JSON bodies that are not UTF-8 or repeat a key (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD") or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = body_problem(body) if body else None
        if problem is not None:
            await _refuse(send, *problem)
            return
        whole: Message = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, _replay([whole], receive), send)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that gives ``messages`` first."""

    async def replay() -> Message:
        if messages:
            return messages.pop(0)
        return await receive()

    return replay


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
