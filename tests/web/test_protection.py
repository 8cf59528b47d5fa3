"""A break and a self-exclusion through the API and the pages: at once, signed out
everywhere, no stake or top-up until the end (signing in to look still works), never
shortened and never lifted, kept in an append-only history, shown to operators."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import select, text

from cardroom.app.protections import Protections, add_months
from cardroom.storage import Database
from cardroom.storage.schema import accounts, protections
from tests.web.conftest import Person, Web
from tests.web.test_operator import Operator, account_id, add_operator

F = Fraction


def sign_in_again(web: Web, person: Person) -> Person:
    client = web.client()
    answer = client.post(
        "/api/login", json={"username": person.name, "password": "a good password"}
    )
    assert answer.status_code == 200, answer.text
    return Person(client, answer.json()["csrf_token"], person.name)


def test_a_break_signs_out_everywhere_and_stops_play_until_it_ends(web: Web) -> None:
    ann = web.person("Ann")
    other_tab = sign_in_again(web, ann)
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}}).status_code == 201
    state = ann.http.get("/api/account/protection").json()
    assert state["in_force"] is False and state["breaks"] == ["24 hours", "7 days", "30 days"]
    taken = ann.post("/api/account/protection/break", {"length": "7 days"})
    assert taken.status_code == 200, taken.text
    assert taken.json()["kind"] == "time_out" and "cardroom_session=" in taken.headers["set-cookie"]
    assert ann.http.get("/api/me").status_code == 401
    assert other_tab.http.get("/api/me").status_code == 401  # everywhere
    back = sign_in_again(web, ann)  # to look
    assert back.http.get("/api/history").status_code == 200
    balance = back.balance()
    refused = back.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    assert refused.status_code == 409
    assert "you have taken a break until" in refused.json()["error"]
    assert back.balance() == balance
    state = back.http.get("/api/account/protection").json()
    until = datetime.fromisoformat(state["until"])
    assert state["in_force"] and state["kind"] == "time_out"
    assert timedelta(days=6, hours=23) < until - datetime.now(UTC) <= timedelta(days=7)
    # a shorter break does not shorten it; a self-exclusion takes it further
    back.post("/api/account/protection/break", {"length": "24 hours"})
    again = sign_in_again(web, ann)
    assert again.http.get("/api/account/protection").json()["until"] == state["until"]
    no = again.post("/api/account/protection/self-exclusion", {"length": "1 year"})
    assert no.status_code == 422  # not confirmed
    done = again.post(
        "/api/account/protection/self-exclusion", {"length": "1 year", "confirm": True}
    )
    assert done.status_code == 200
    last = sign_in_again(web, ann)
    excluded = last.post("/api/games/baccarat27/rounds", {"bets": {"banker": "10"}})
    assert excluded.status_code == 409 and "excluded yourself" in excluded.json()["error"]
    history = last.http.get("/api/account/protection").json()["history"]
    assert [h["kind"] for h in history] == ["self_exclusion", "time_out", "time_out"]


def test_a_protected_account_gets_no_top_up_and_no_operator_lifts_it(web: Web) -> None:
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    web.sessions.wallet.accounts.set_balance(ann_id, F(0))
    ann.post("/api/account/protection/break", {"length": "24 hours"})
    back = sign_in_again(web, ann)
    refused = back.post("/api/wallet/top-up", {})
    assert refused.status_code == 409 and "break" in refused.json()["error"]
    olga = Operator(web, "Olga", add_operator(web, "Olga", "admin"))
    card = olga.get(f"/api/operator/accounts/{ann_id}").json()
    assert card["blocked_until"] is not None
    page = olga.get(f"/operator/accounts/{ann_id}")
    assert "Nobody can lift it early" in page.text
    lift = olga.post(f"/api/operator/accounts/{ann_id}/lift", {"reason": "asked nicely"})
    assert lift.status_code == 409  # (lift is for suspensions: this is not one)
    assert back.post("/api/wallet/top-up", {}).status_code == 409


def test_lengths_not_offered_are_refused_and_change_nothing(web: Web) -> None:
    ann = web.person("Ann")
    for path, body in (
        ("/api/account/protection/break", {"length": "2 hours"}),
        ("/api/account/protection/break", {"length": 7}),
        ("/api/account/protection/self-exclusion", {"length": "forever", "confirm": True}),
        # it cannot be undone: JSON's true alone confirms it, not 1 or 1.0 (equal to it)
        ("/api/account/protection/self-exclusion", {"length": "6 months", "confirm": 1}),
        ("/api/account/protection/self-exclusion", {"length": "5 years", "confirm": 1.0}),
        ("/api/account/protection/self-exclusion", {"length": "5 years", "confirm": "true"}),
        ("/api/account/protection/break", {"length": "7 days", "extra": 1}),
    ):
        response = ann.post(path, body)
        assert response.status_code == 422, (path, body, response.text)
    assert ann.http.get("/api/me").status_code == 200
    assert (
        ann.http.post("/api/account/protection/break", json={"length": "7 days"}).status_code == 403
    )
    assert web.client().get("/api/account/protection").status_code == 401
    assert ann.http.get("/api/account/protection").json()["history"] == []


def test_the_page_and_its_forms(web: Web) -> None:
    ann = web.person("Ann")
    page = ann.http.get("/account/protection")
    assert page.status_code == 200 and "Take a break" in page.text
    assert 'href="/account/protection"' in ann.http.get("/").text  # in the menu
    csrf = ann.csrf
    unticked = ann.http.post(
        "/account/protection/self-exclusion", data={"csrf_token": csrf, "length": "6 months"}
    )
    assert unticked.status_code == 422
    done = ann.http.post(
        "/account/protection/break", data={"csrf_token": csrf, "length": "30 days"}
    )
    assert done.status_code == 200 and "You are taking a break" in done.text
    assert ann.http.get("/api/me").status_code == 401
    assert web.client().get("/account/protection", follow_redirects=False).status_code == 303


def test_the_history_is_append_only(db: Database) -> None:
    from cardroom.app.wallet import Wallet

    ann = Wallet(db).accounts.open_account("Ann")
    Protections(db).take_break(ann.id, "24 hours", "127.0.0.1")
    statements: list[Any] = [protections.update().values(until=datetime.now(UTC))]
    statements.append(protections.delete())
    if not db.is_sqlite:  # (SQLite has no TRUNCATE)
        statements.append(text("TRUNCATE protections"))
    for statement in statements:
        with pytest.raises(Exception, match="append-only"), db.write() as conn:
            conn.execute(statement)
    with db.read() as conn:
        assert conn.execute(select(accounts.c.blocked_until)).scalar() is not None
        assert len(conn.execute(select(protections)).all()) == 1


def test_months_are_calendar_months() -> None:
    when = datetime(2026, 8, 31, 12, tzinfo=UTC)
    assert add_months(when, 6) == datetime(2027, 2, 28, 12, tzinfo=UTC)
    assert add_months(when, 12) == datetime(2027, 8, 31, 12, tzinfo=UTC)
    assert add_months(datetime(2028, 2, 29, tzinfo=UTC), 60) == datetime(2033, 2, 28, tzinfo=UTC)


def test_play_comes_back_when_it_ends_on_both_databases(db: Database) -> None:
    from sqlalchemy import update

    from cardroom.app.wallet import AccountSuspended, Wallet

    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", F(100))
    Protections(db).take_break(ann.id, "24 hours", "127.0.0.1")
    for ends, plays in ((timedelta(minutes=1), False), (timedelta(seconds=-2), True)):
        with db.write() as conn:
            conn.execute(
                update(accounts)
                .where(accounts.c.id == ann.id)
                .values(blocked_until=datetime.now(UTC) + ends)
            )
        if plays:
            opened = wallet.rounds.record_round(ann.id, "punto-banco", {"player": F(10)}, {}, {})
            assert opened.balance == 90
        else:
            with pytest.raises(AccountSuspended, match="taken a break"):
                wallet.rounds.record_round(ann.id, "punto-banco", {"player": F(10)}, {}, {})
            assert wallet.accounts.balance(ann.id) == 100
