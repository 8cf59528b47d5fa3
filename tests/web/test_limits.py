"""Limits and reality checks through the API and the protection page's forms: a bet that
would pass a limit gets a 409 naming the limit, what is left and when it resets, and
takes nothing; a reality check that is due pauses bets (409, code ``reality_check``)
until it is acknowledged; bad limits are one-line 422s that change nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from sqlalchemy import select, update

from cardroom.storage.schema import accounts, limit_changes, reality_checks
from tests.web.conftest import Person, Web
from tests.web.test_operator import Operator, add_operator

F = Fraction
BET = "/api/games/punto-banco/rounds"


def account_of(web: Web, person: Person) -> int:
    with web.db.read() as conn:
        return int(
            conn.execute(select(accounts.c.id).where(accounts.c.name == person.name)).scalar_one()
        )


def test_a_bet_past_a_limit_is_a_409_that_says_which_what_is_left_and_when(web: Web) -> None:
    ann = web.person("Ann")
    assert ann.post(BET, {"bets": {"player": "20"}}).status_code == 201
    set_ = ann.post("/api/account/limits", {"stake_day": "25", "session": 120})
    assert set_.status_code == 200, set_.text
    day = {v["kind"]: v for v in set_.json()["limits"]}
    assert day["stake_day"]["amount"] == "25" and day["session"]["amount"] == 120
    balance = ann.balance()
    refused = ann.post(BET, {"bets": {"player": "30"}})
    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "limit" and body["details"]["limit"] == "stake_day"
    assert re.fullmatch(
        r"your daily stake limit of 25 would be passed: 5 of it is left until "
        r"\d{4}-\d\d-\d\d 00:00 UTC",
        body["error"],
    )
    assert ann.balance() == balance
    # raising it waits a day, and the answer says so
    raised = ann.post("/api/account/limits", {"stake_day": "100"}).json()
    day = {v["kind"]: v for v in raised["limits"]}["stake_day"]
    assert day["amount"] == "25" and day["pending"] and day["next_amount"] == "100"
    assert ann.post(BET, {"bets": {"player": "30"}}).status_code == 409
    history = ann.http.get("/api/account/limits").json()["history"]
    assert [(c["kind"], c["amount"]) for c in history] == [
        ("stake_day", "100"),
        ("session", 120),
        ("stake_day", "25"),
    ]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"loss_day": "-5"}, "loss limit a day: '-5' is not an amount"),
        ({"stake_week": "1.001"}, "stake limit a week: 1.001 is not a whole number of cents"),
        ({"stake_week": 5}, "stake_week"),
        ({"loss_year": "5"}, "loss_year"),
        ({"session": 3}, "session"),
        ({"session": "30"}, "session: minutes are a whole number, such as 30"),
        ({"session": 30.0}, "session: minutes are a whole number, such as 30"),
        ({"session": True}, "session: minutes are a whole number, such as 30"),
        ({"loss_day": "1" * 40}, "is too large"),
    ],
)
def test_bad_limits_are_one_line_422s_and_change_nothing(
    web: Web, body: dict[str, object], words: str
) -> None:
    ann = web.person("Ann")
    answer = ann.post("/api/account/limits", {"stake_day": "10", **body})
    assert answer.status_code == 422 and words in answer.json()["error"]
    assert "\n" not in answer.json()["error"]
    every_before = ann.http.get("/api/account/limits").json()["reality_every"]
    for every in (20, 15.0, "15", True):
        assert ann.post("/api/account/reality-check/every", {"every": every}).status_code == 422
    assert ann.http.get("/api/account/limits").json()["reality_every"] == every_before
    assert ann.http.get("/api/account/limits").json()["history"] == []
    # no CSRF token, no change
    assert ann.http.post("/api/account/limits", json={"stake_day": "10"}).status_code == 403


def test_a_reality_check_pauses_bets_until_acknowledged(web: Web) -> None:
    ann = web.person("Ann")
    me = account_of(web, ann)
    assert ann.post(BET, {"bets": {"banker": "10"}}).status_code == 201
    assert ann.http.get("/api/account/reality-check").json()["due"] is False
    assert ann.post("/api/account/reality-check/acknowledge", {}).status_code == 409
    past = datetime.now(UTC) - timedelta(minutes=1)
    with web.db.write() as conn:
        conn.execute(
            update(accounts)
            .where(accounts.c.id == me)
            .values(session_started=past - timedelta(minutes=60), reality_due=past)
        )
    balance = ann.balance()
    refused = ann.post(BET, {"bets": {"banker": "10"}})
    assert refused.status_code == 409 and refused.json()["code"] == "reality_check"
    details = refused.json()["details"]
    assert details["minutes"] == 61 and details["due"] is True
    assert ann.balance() == balance
    seen = ann.post("/api/account/reality-check/acknowledge", {})
    assert seen.status_code == 200 and seen.json()["minutes"] == 61
    assert ann.post(BET, {"bets": {"banker": "10"}}).status_code == 201
    with web.db.read() as conn:
        assert len(conn.execute(select(reality_checks)).all()) == 1
    # every 15 minutes: the next is due 15 minutes from the session's start, long past
    assert ann.post("/api/account/reality-check/every", {"every": 15}).json()["reality_every"] == 15
    assert ann.post(BET, {"bets": {"banker": "10"}}).json()["code"] == "reality_check"
    off = ann.post("/api/account/reality-check/every", {"every": None})
    assert off.status_code == 200 and off.json()["reality_every"] is None
    assert ann.post(BET, {"bets": {"banker": "10"}}).status_code == 201


def test_the_protection_page_shows_and_sets_limits(web: Web) -> None:
    ann = web.person("Ann")
    page = ann.http.get("/account/protection")
    assert page.status_code == 200 and "Your limits" in page.text
    assert "every 60 minutes</option>" in page.text.replace(" selected", "")
    form = {"csrf_token": ann.csrf, "stake_week": "40", "stake_week_was": ""}
    for kind in ("loss_day", "loss_week", "loss_month", "stake_day", "stake_month", "session"):
        form |= {kind: "", f"{kind}_was": ""}
    done = ann.http.post("/account/protection/limits", data=form, follow_redirects=False)
    assert done.status_code == 303
    page = ann.http.get("/account/protection").text
    assert "stake limit a week set to 40" in page
    bad = ann.http.post(
        "/account/protection/limits", data={**form, "stake_week": "4e1"}, follow_redirects=False
    )
    assert bad.status_code == 422
    forged = ann.http.post(
        "/account/protection/limits", data={**form, "csrf_token": "x"}, follow_redirects=False
    )
    assert forged.status_code == 403
    with web.db.read() as conn:
        assert len(conn.execute(select(limit_changes)).all()) == 1


def test_an_operator_sees_the_limits_and_cannot_change_them(web: Web) -> None:
    ann = web.person("Ann")
    ann.post("/api/account/limits", {"loss_week": "200"})
    ann.post("/api/account/limits", {"loss_week": "300"})  # pending
    olga = Operator(web, "Olga", add_operator(web, "Olga", "admin"))
    page = olga.get(f"/operator/accounts/{account_of(web, ann)}").text
    assert "Limits the player set: loss limit a week 200 (300 from " in page
    assert "Reality check every 60 minutes" in page
    # an operator's session is not a player's: the player's routes do not know it
    assert olga.post("/api/account/limits", {"loss_week": None}).status_code == 401
