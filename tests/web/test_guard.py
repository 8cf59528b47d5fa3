"""The headers of every answer and the checks of JSON bodies, through the real app: the
content security policy and its companions on every page, ``no-store`` on every answer
with a person's data, and bodies that repeat a key or are not UTF-8 refused with one
line and nothing changed."""

from __future__ import annotations

import json
from fractions import Fraction

import httpx
import pytest

from cardroom.app.wallet import Wallet
from cardroom.web.guard import CSP
from tests.web.conftest import Person, Web
from tests.web.test_pages import form_token


def secured(response: httpx.Response) -> None:
    """The headers every answer carries."""
    headers = response.headers
    assert headers["content-security-policy"] == CSP
    assert "frame-ancestors 'none'" in CSP and "script-src 'self';" in CSP
    assert "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["x-content-type-options"] == "nosniff"


def not_stored(response: httpx.Response) -> None:
    secured(response)
    assert response.headers.get_list("cache-control") == ["no-store"]


def test_every_page_has_the_security_headers_and_is_not_stored(web: Web) -> None:
    ann = web.person("Ann")
    ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    pages = ["/", "/play/punto-banco", "/history", "/wallet", "/rules/punto-banco"]
    pages += ["/rules/chemin-de-fer", "/chemin-de-fer", "/chemin-de-fer/1", "/login"]
    for path in pages:
        page = ann.http.get(path)
        assert page.status_code == 200 and "text/html" in page.headers["content-type"], path
        not_stored(page)
    signed_out = web.client()
    for path in ("/", "/register", "/nowhere"):
        not_stored(signed_out.get(path))
    not_stored(signed_out.get("/history", follow_redirects=False))  # a redirect too


def test_every_api_answer_is_not_stored(web: Web) -> None:
    ann = web.person("Ann")
    played = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    assert played.status_code == 201
    not_stored(played)
    round_id = played.json()["id"]
    for path in (
        "/api/me",
        "/api/ledger",
        "/api/history",
        f"/api/rounds/{round_id}",
        f"/api/rounds/{round_id}/replay",
        "/api/games/punto-banco/table",
        "/api/games",
        "/api/chemin-de-fer/tables",
        "/api/chemin-de-fer/tables/1",
    ):
        answer = ann.http.get(path)
        assert answer.status_code == 200, path
        not_stored(answer)
    # refusals too, and the body limit's own answer
    not_stored(web.client().get("/api/me"))
    not_stored(ann.http.get("/api/rounds/999999"))
    not_stored(ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "1"}}))
    huge = web.client().post(
        "/api/login", content=b"x" * 70_000, headers={"content-type": "application/json"}
    )
    assert huge.status_code == 413
    not_stored(huge)
    login = web.client().post("/api/login", json={"username": "Ann", "password": "a good password"})
    assert login.status_code == 200
    not_stored(login)


def test_static_files_and_cards_may_be_cached(web: Web) -> None:
    client = web.client()
    script = client.get("/static/table.js")
    assert script.status_code == 200
    secured(script)
    assert "cache-control" not in script.headers
    card = client.get("/cards/Kh.svg")
    secured(card)
    assert card.headers.get_list("cache-control") == ["public, max-age=86400"]


def balance_and_rounds(web: Web, person: Person) -> tuple[Fraction, int]:
    wallet = Wallet(web.db)
    account = wallet.accounts.account(person.name)
    assert account is not None
    rounds = wallet.rounds.count_rounds(account.id, statuses=("in_progress", "finished", "void"))
    return wallet.accounts.balance(account.id), rounds


def post_raw(
    person: Person, path: str, body: bytes, kind: str = "application/json"
) -> httpx.Response:
    headers = {"X-CSRF-Token": person.csrf, "content-type": kind}
    return person.http.post(path, content=body, headers=headers)


ROUNDS = "/api/games/punto-banco/rounds"


@pytest.mark.parametrize(
    ("body", "key"),
    [
        (b'{"bets": {"banker": "10", "banker": "20"}}', "banker"),
        (b'{"bets": {"banker": "10"}, "bets": {"player": "20"}}', "bets"),
        (b'{"bets": {"player": "10", "b\\u0061nker": "10", "banker": "500"}}', "banker"),
    ],
)
def test_a_body_that_repeats_a_key_is_refused_and_changes_nothing(
    web: Web, body: bytes, key: str
) -> None:
    ann = web.person("Ann")
    before = balance_and_rounds(web, ann)
    refused = post_raw(ann, ROUNDS, body)
    assert refused.status_code == 422
    assert refused.json() == {"error": f'the body repeats the key "{key}": send each key once'}
    not_stored(refused)
    assert balance_and_rounds(web, ann) == before
    # the same bets once each are taken
    assert ann.post(ROUNDS, {"bets": {"banker": "20"}}).status_code == 201


def test_repeated_keys_are_refused_everywhere_in_the_api(web: Web) -> None:
    client = web.client()
    body = b'{"username": "Eve", "username": "Ann", "password": "a good password"}'
    refused = client.post(
        "/api/accounts", content=body, headers={"content-type": "application/json"}
    )
    assert refused.status_code == 422 and "repeats the key" in refused.json()["error"]
    assert Wallet(web.db).accounts.all() == []


NOT_UTF8 = [
    ("utf-16", '{"bets": {"banker": "10"}}'.encode("utf-16")),  # with its BOM
    ("utf-16-le", '{"bets": {"banker": "10"}}'.encode("utf-16-le")),  # without
    ("utf-16-be", '{"bets": {"banker": "10"}}'.encode("utf-16-be")),
    ("utf-32", '{"bets": {"banker": "10"}}'.encode("utf-32")),
    ("latin-1", '{"bets": {"banker": "10"}, "note": "café"}'.encode("latin-1")),
]


@pytest.mark.parametrize(("encoding", "body"), NOT_UTF8, ids=[e for e, _ in NOT_UTF8])
def test_a_body_that_is_not_utf8_is_refused_and_changes_nothing(
    web: Web, encoding: str, body: bytes
) -> None:
    ann = web.person("Ann")
    before = balance_and_rounds(web, ann)
    for kind in ("application/json", f"application/json; charset={encoding}"):
        refused = post_raw(ann, ROUNDS, body, kind)
        assert refused.status_code == 400, refused.text
        assert refused.json() == {"error": "the body is not UTF-8: send JSON in UTF-8"}
    assert balance_and_rounds(web, ann) == before
    assert ann.post(ROUNDS, {"bets": {"banker": "10"}}).status_code == 201


def test_a_body_not_sent_as_json_or_with_a_huge_number_says_so(web: Web) -> None:
    ann = web.person("Ann")
    before = balance_and_rounds(web, ann)
    bets = json.dumps({"bets": {"banker": "10"}}).encode()
    for path, body, kind in (
        (ROUNDS, bets, "text/plain"),
        (ROUNDS, bets, "application/xml"),
        ("/api/account/limits", b"session=30", "application/x-www-form-urlencoded"),
    ):
        refused = post_raw(ann, path, body, kind)
        assert refused.status_code == 422, (path, kind, refused.text)
        assert refused.json() == {"error": "send the body as JSON (Content-Type: application/json)"}
    huge = post_raw(ann, ROUNDS, b'{"bets": {"banker": ' + b"9" * 5000 + b"}}", "application/json")
    assert huge.status_code == 400
    assert huge.json() == {"error": "the body holds a number with more than 4,300 digits"}
    assert balance_and_rounds(web, ann) == before


def test_json_in_utf8_is_still_read_and_bad_json_still_refused(web: Web) -> None:
    ann = web.person("Ann")
    ok = post_raw(ann, ROUNDS, json.dumps({"bets": {"banker": "10"}}, ensure_ascii=False).encode())
    assert ok.status_code == 201
    name = web.client().post(
        "/api/accounts",
        content='{"username": "Åsa Öberg", "password": "päss wörd"}'.encode(),
        headers={"content-type": "application/json"},
    )
    assert name.status_code == 201 and name.json()["username"] == "Åsa Öberg"
    bad = post_raw(ann, ROUNDS, b'{"bets": ')
    assert bad.status_code == 422 and bad.json() == {"error": "the body is not valid JSON"}


def test_the_forms_keep_working(web: Web) -> None:
    client = web.client()
    token = form_token(client.get("/register").text)
    form = {"username": "Åsa", "password": "päss wörd!", "form_token": token}
    done = client.post("/register", data=form, follow_redirects=False)
    assert done.status_code == 303 and client.get("/api/me").json()["username"] == "Åsa"
    csrf = client.get("/wallet").text.split('name="csrf-token" content="')[1].split('"')[0]
    out = client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert out.status_code == 303 and client.get("/api/me").status_code == 401
    token = form_token(client.get("/login").text)
    back = client.post(
        "/login",
        data={"username": "åsa", "password": "päss wörd!", "form_token": token},
        follow_redirects=False,
    )
    assert back.status_code == 303 and client.get("/api/me").status_code == 200


@pytest.mark.parametrize("depth", [65, 980, 5000])
def test_a_body_nested_too_deep_is_refused_before_it_is_read(web: Web, depth: int) -> None:
    """980 levels of arrays at /api/login were a RecursionError, a 500 and two tracebacks
    (issue 32): a body deeper than 64 levels is refused at once, signed in or not."""
    client = web.client()
    body = b'{"username": "x", "password": ' + b"[" * depth + b"]" * depth + b"}"
    for path in ("/api/login", "/api/accounts"):
        refused = client.post(path, content=body, headers={"content-type": "application/json"})
        assert refused.status_code == 400, refused.text
        assert refused.json() == {"error": "the body nests arrays and objects more than 64 deep"}
    ann = web.person("Ann")
    before = balance_and_rounds(web, ann)
    deep = b'{"bets": {"banker": ' + b"[" * depth + b'"10"' + b"]" * depth + b"}}"
    assert post_raw(ann, ROUNDS, deep).status_code == 400
    assert balance_and_rounds(web, ann) == before
    # 64 levels are read as before (and refused for what they hold, in one line)
    fine = b'{"username": "x", "password": ' + b"[" * 62 + b"]" * 62 + b"}"
    answer = client.post("/api/login", content=fine, headers={"content-type": "application/json"})
    assert answer.status_code == 422 and "password" in answer.json()["error"]
