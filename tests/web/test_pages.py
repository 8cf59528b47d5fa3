"""The pages and their forms through the real app: sign-in forms with their own CSRF
token, sign-out with the session's, redirects, the cards, and error pages."""

from __future__ import annotations

import re

import pytest

from cardroom.core.cards import RANKS, Card, Suit
from cardroom.wallet import Wallet
from cardroom.web.cards import card_label, card_svg
from tests.web.conftest import Web


def form_token(html: str) -> str:
    found = re.search(r'name="form_token" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_registering_and_signing_in_with_the_forms(web: Web) -> None:
    client = web.client()
    page = client.get("/register?next=/play/baccarat27")
    token = form_token(page.text)
    form = {"username": "Aino", "password": "a good password", "form_token": token}
    done = client.post(
        "/register", data={**form, "next": "/play/baccarat27"}, follow_redirects=False
    )
    assert done.status_code == 303 and done.headers["location"] == "/play/baccarat27"
    assert client.get("/api/me").json() == {"username": "Aino", "balance": "1000"}
    table = client.get("/play/baccarat27")
    assert table.status_code == 200 and 'data-game="baccarat27"' in table.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', table.text)
    assert csrf is not None
    # signing out needs the session's token
    assert client.post("/logout", data={"csrf_token": "wrong"}).status_code == 403
    out = client.post("/logout", data={"csrf_token": csrf.group(1)}, follow_redirects=False)
    assert out.status_code == 303 and client.get("/api/me").status_code == 401
    # back in, with the form
    token = form_token(client.get("/login").text)
    wrong = client.post(
        "/login", data={"username": "Aino", "password": "nope nope", "form_token": token}
    )
    assert wrong.status_code == 401 and "wrong name or password" in wrong.text
    back = client.post(
        "/login",
        data={"username": "aino", "password": "a good password", "form_token": token},
        follow_redirects=False,
    )
    assert back.status_code == 303 and client.get("/api/me").status_code == 200


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil"])
def test_signing_in_never_sends_a_person_elsewhere(web: Web, target: str) -> None:
    web.person("Aino")
    client = web.client()
    token = form_token(client.get("/login").text)
    done = client.post(
        "/login",
        data={
            "username": "Aino",
            "password": "a good password",
            "form_token": token,
            "next": target,
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == "/"


def test_a_form_from_elsewhere_is_refused(web: Web) -> None:
    client = web.client()  # no form cookie: the post did not come from our page
    refused = client.post(
        "/register", data={"username": "Aino", "password": "a good password", "form_token": "x"}
    )
    assert refused.status_code == 403 and Wallet(web.db).accounts() == []
    missing = client.post("/register", data={"username": "Aino"})
    assert missing.status_code == 422 and Wallet(web.db).accounts() == []


def test_pages_that_need_a_person_send_them_to_sign_in(web: Web) -> None:
    client = web.client()
    for path in ("/play/finnish27", "/history", "/wallet"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == f"/login?next={path}"
    for path in ("/", "/rules/21-24-27", "/rules/baccarat27", "/login", "/register"):
        assert client.get(path).status_code == 200
    missing = client.get("/play/poker")
    assert missing.status_code == 404 and "text/html" in missing.headers["content-type"]
    assert client.get("/rules/chemin-de-fer").status_code == 404


def test_every_card_has_its_finnish_index_and_suit() -> None:
    for suit in Suit:
        for rank in RANKS:
            card = Card(rank, suit)
            svg = card_svg(card)
            assert f">{rank.number}<" in svg and suit.symbol in svg
            assert card_label(card) in svg  # the title: a text alternative
    joker = card_svg(Card.parse("Jo"))
    assert "JOKER" in joker and not re.search(r">\d+<", joker)


def test_the_cards_are_served_as_svg(web: Web) -> None:
    client = web.client()
    king = client.get("/cards/Kh.svg")
    assert king.status_code == 200 and king.headers["content-type"] == "image/svg+xml"
    assert ">13<" in king.text
    assert client.get("/cards/back.svg").status_code == 200
    for bad in ("10h", "Zz", "KH", "x" * 50):
        assert client.get(f"/cards/{bad}.svg").status_code == 404


def test_the_throttle_forgets_after_its_window() -> None:
    from cardroom.web.throttle import LoginThrottle

    now = [0.0]
    throttle = LoginThrottle(attempts=2, window=60, clock=lambda: now[0])
    throttle.failed("Ann")
    assert not throttle.blocked("ann")
    throttle.failed("ANN")
    assert throttle.blocked("Ann")
    now[0] = 61.0
    assert not throttle.blocked("Ann")
    throttle.failed("Ann")
    throttle.succeeded("Ann")
    assert not throttle.blocked("Ann")
