"""The operator's floor through the app: who may reach it (every route walked), the
TOTP sign-in, each action's effect and its log row, the tables' settings as players
meet them, and bad input refused with nothing changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import pyotp
import pytest
from argon2 import PasswordHasher
from sqlalchemy import func, select, text

from cardroom.app.operators.staff import Staff
from cardroom.app.variants import Variants
from cardroom.games import get_game
from cardroom.storage.schema import ledger, operator_log
from tests.web.conftest import CHEAP, Web

PASSWORD = "operator password"


def add_operator(web: Web, name: str = "Olga", role: str = "operator") -> str:
    """An operator of ``name``; their TOTP secret."""
    hashed = PasswordHasher.from_parameters(CHEAP).hash(PASSWORD)
    _, secret = Staff(web.db).add(name, hashed, role)
    return secret


class Operator:
    """A signed-in operator's client."""

    def __init__(self, web: Web, name: str, secret: str) -> None:
        self.http = web.client()
        code = pyotp.TOTP(secret).now()
        response = self.http.post(
            "/api/operator/login", json={"name": name, "password": PASSWORD, "code": code}
        )
        assert response.status_code == 200, response.text
        self.csrf = response.json()["csrf_token"]

    def post(self, path: str, body: object) -> Any:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def get(self, path: str) -> Any:
        return self.http.get(path)


@pytest.fixture
def olga(web: Web) -> Operator:
    return Operator(web, "Olga", add_operator(web, "Olga", "admin"))


def log_rows(web: Web) -> list[Any]:
    with web.db.read() as conn:
        return list(conn.execute(select(operator_log).order_by(operator_log.c.id)))


def account_id(web: Web, name: str) -> int:
    found = web.sessions.wallet.accounts.account(name)
    assert found is not None
    return found.id


# -- who reaches it --------------------------------------------------------------------------
def _sample_path(path: str) -> str:
    return (
        path.replace("{account_id}", "1")
        .replace("{round_id}", "1")
        .replace("{key}", "punto-banco")
        .replace("{action}", "note")
    )


def all_routes(routes: list[Any], prefix: str = "") -> list[Any]:
    """Every route, with the routers included flattened (their paths with the prefix)."""
    out = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            out += all_routes(inner.routes, prefix)
        else:
            out.append((prefix + getattr(route, "path", ""), route))
    return out


def operator_routes(web: Web) -> list[tuple[str, str]]:
    found = []
    for path, route in all_routes(web.app.routes):
        if not (path.startswith("/operator") or path.startswith("/api/operator")):
            continue
        if path.endswith("/login"):
            continue
        methods = sorted(getattr(route, "methods", None) or {"GET"})
        found += [(m, path) for m in methods if m != "HEAD"]
    return found


def test_every_operator_route_is_not_found_for_players_and_visitors(
    web: Web, olga: Operator
) -> None:
    routes = operator_routes(web)
    assert len(routes) >= 20  # the walk sees the floor's routes at all
    anonymous = web.client()
    ann = web.person("Ann")
    for method, path in routes:
        url = _sample_path(path)
        for client, csrf in ((anonymous, ""), (ann.http, ann.csrf)):
            response = client.request(
                method, url, json={"reason": "x"}, headers={"X-CSRF-Token": csrf}
            )
            assert response.status_code == 404, (method, path, response.status_code)
            assert "operator" not in response.text.lower()
        # and nothing was done by the tries
    assert [r.action for r in log_rows(web)] == ["add operator", "sign in"]


def test_an_operator_reaches_the_floor_and_only_an_admin_the_staff(
    web: Web, olga: Operator
) -> None:
    web.person("Ann")
    for path in (
        "/operator",
        "/operator/accounts",
        "/operator/tables",
        "/operator/log",
        "/api/operator/floor",
        "/api/operator/tables",
        "/api/operator/log",
        "/api/operator/me",
        "/api/operator/staff",
        "/operator/accounts/1",
    ):
        assert olga.get(path).status_code == 200, path
    oskar = Operator(web, "Oskar", add_operator(web, "Oskar"))
    assert oskar.get("/api/operator/floor").status_code == 200
    assert oskar.get("/api/operator/staff").status_code == 404
    # an operator's session is not a player's, nor the other way round
    assert oskar.http.get("/api/me").status_code == 401


def test_every_get_route_answers_an_operator(web: Web, olga: Operator) -> None:
    web.person("Ann")
    ann = web.person("Bea")
    ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    for method, path in operator_routes(web):
        if method == "GET":
            response = olga.get(_sample_path(path))
            assert response.status_code == 200, (path, response.text[:200])


# -- signing in ------------------------------------------------------------------------------
def test_the_second_factor_right_wrong_and_reused(web: Web) -> None:
    secret = add_operator(web)
    client = web.client()
    totp = pyotp.TOTP(secret)
    wrong = client.post(
        "/api/operator/login", json={"name": "Olga", "password": PASSWORD, "code": "000000"}
    )
    if totp.now() == "000000":  # (one time in a million)
        pytest.skip("the code now is the wrong one")
    assert wrong.status_code == 401
    assert wrong.json() == {"error": "wrong name, password or code"}
    bad_password = client.post(
        "/api/operator/login",
        json={"name": "Olga", "password": "not it at all", "code": totp.now()},
    )
    assert bad_password.status_code == 401
    code = totp.now()
    right = client.post(
        "/api/operator/login", json={"name": "Olga", "password": PASSWORD, "code": code}
    )
    assert right.status_code == 200
    cookie = right.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    again = web.client().post(
        "/api/operator/login", json={"name": "Olga", "password": PASSWORD, "code": code}
    )
    assert again.status_code == 401  # a code signs in once
    actions = [(r.action, r.reason) for r in log_rows(web)]
    assert actions == [
        ("add operator", "added"),
        ("sign in refused", "wrong or used code"),
        ("sign in refused", "wrong name or password"),
        ("sign in", "signed in"),
        ("sign in refused", "wrong or used code"),
    ]
    assert all(r.address == "testclient" for r in log_rows(web)[1:])


def test_a_player_password_does_not_sign_an_operator_in(web: Web) -> None:
    web.person("Olga", password=PASSWORD)
    response = web.client().post(
        "/api/operator/login", json={"name": "Olga", "password": PASSWORD, "code": "123456"}
    )
    assert response.status_code == 401


def test_wrong_passwords_are_throttled(web: Web) -> None:
    add_operator(web)
    client = web.client()
    statuses = [
        client.post(
            "/api/operator/login", json={"name": "Olga", "password": "wrong one!", "code": "123456"}
        ).status_code
        for _ in range(12)
    ]
    assert statuses[0] == 401 and statuses[-1] == 429


def test_the_sign_in_page_and_a_removed_operator(web: Web) -> None:
    secret = add_operator(web)
    page = web.client().get("/operator/login")
    assert page.status_code == 200 and "authenticator" in page.text
    Staff(web.db).remove("Olga")
    response = web.client().post(
        "/api/operator/login",
        json={"name": "Olga", "password": PASSWORD, "code": pyotp.TOTP(secret).now()},
    )
    assert response.status_code == 401


# -- accounts --------------------------------------------------------------------------------
def test_suspending_stops_bets_and_top_ups_and_lifting_lets_them(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    assert (
        olga.post(f"/api/operator/accounts/{ann_id}/suspend", {"reason": "  "}).status_code == 422
    )
    done = olga.post(f"/api/operator/accounts/{ann_id}/suspend", {"reason": "chargeback inquiry"})
    assert done.status_code == 200
    refused = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    assert refused.status_code == 409
    assert "suspended" in refused.json()["error"]
    assert ann.balance() == 1000
    assert ann.http.get("/api/history").status_code == 200  # still sees the history
    again = olga.post(f"/api/operator/accounts/{ann_id}/suspend", {"reason": "twice"})
    assert again.status_code == 409
    lifted = olga.post(f"/api/operator/accounts/{ann_id}/lift", {"reason": "cleared"})
    assert lifted.status_code == 200
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}}).status_code in (
        200,
        201,
    )
    rows = [r for r in log_rows(web) if r.target == f"account:{ann_id}"]
    assert [(r.action, r.reason) for r in rows] == [
        ("suspend", "chargeback inquiry"),
        ("lift suspension", "cleared"),
    ]
    assert '"suspended": false' in rows[0].before and '"suspended": true' in rows[0].after


def test_a_suspended_account_gets_no_top_up(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    web.sessions.wallet.accounts.set_balance(ann_id, Fraction(0))
    olga.post(f"/api/operator/accounts/{ann_id}/suspend", {"reason": "review"})
    refused = ann.post("/api/wallet/top-up", {})
    assert refused.status_code == 409 and "suspended" in refused.json()["error"]
    assert ann.balance() == 0


def test_signing_out_everywhere(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    done = olga.post(f"/api/operator/accounts/{ann_id}/sign-out", {"reason": "shared device"})
    assert done.json()["sessions_ended"] == 1
    assert ann.http.get("/api/me").status_code == 401


def test_adjusting_the_balance_is_a_ledger_row_of_its_own(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    up = olga.post(
        f"/api/operator/accounts/{ann_id}/adjust", {"amount": "25.50", "reason": "goodwill"}
    )
    assert up.json() == {"balance": "1025.50"}
    down = olga.post(f"/api/operator/accounts/{ann_id}/adjust", {"amount": "-5", "reason": "fix"})
    assert down.json() == {"balance": "1020.50"}
    for bad, status in (("-2000", 409), ("0", 409), ("abc", 422), ("1.001", 422), ("1e400", 422)):
        response = olga.post(
            f"/api/operator/accounts/{ann_id}/adjust", {"amount": bad, "reason": "x"}
        )
        assert response.status_code == status, (bad, response.text)
        assert "\n" not in response.json()["error"]
    cents = olga.post(f"/api/operator/accounts/{ann_id}/adjust", {"amount": "1.001", "reason": "x"})
    assert cents.json()["error"] == "the adjustment: 1.001 is not a whole number of cents"
    assert ann.balance() == Fraction("1020.50")
    with web.db.read() as conn:
        kinds = conn.execute(
            select(ledger.c.kind, ledger.c.amount)
            .where(ledger.c.account_id == ann_id)
            .order_by(ledger.c.id)
        ).all()
    assert [tuple(k) for k in kinds][-2:] == [("adjustment", 2550), ("adjustment", -500)]
    web.sessions.wallet.books.audit(ann_id)


def test_notes_search_and_the_account_page(web: Web, olga: Operator) -> None:
    web.person("Anneli")
    web.person("Bo")
    anneli = account_id(web, "Anneli")
    olga.post(f"/api/operator/accounts/{anneli}/note", {"reason": "asked about limits"})
    found = olga.get("/api/operator/accounts?q=ANN").json()["accounts"]
    assert [a["name"] for a in found] == ["Anneli"]
    alike = olga.get("/api/operator/accounts?q=Вo").json()["accounts"]  # a Cyrillic В
    assert [a["name"] for a in alike] == ["Bo"]
    card = olga.get(f"/api/operator/accounts/{anneli}").json()
    assert card["name"] == "Anneli" and card["balance"] == "1000"
    assert [n["reason"] for n in card["notes"]] == ["asked about limits"]
    assert [s["from"] for s in card["sessions"]] == ["testclient"]
    page = olga.get(f"/operator/accounts/{anneli}")
    assert "asked about limits" in page.text and "Suspend" in page.text


def test_bad_requests_change_nothing(web: Web, olga: Operator) -> None:
    web.person("Ann")
    before = len(log_rows(web))
    assert olga.post("/api/operator/accounts/999/suspend", {"reason": "x"}).status_code == 404
    assert (
        olga.post("/api/operator/accounts/999/adjust", {"amount": "5", "reason": "x"}).status_code
        == 404
    )
    assert olga.post("/api/operator/accounts/1/suspend", {}).status_code == 422
    assert (
        olga.post("/api/operator/accounts/1/suspend", {"reason": "x", "extra": 1}).status_code
        == 422
    )
    no_csrf = olga.http.post("/api/operator/accounts/1/suspend", json={"reason": "x"})
    assert no_csrf.status_code == 403
    assert olga.post("/api/operator/tables/no-such-table/close", {"reason": "x"}).status_code == 404
    assert len(log_rows(web)) == before


def test_an_operator_cannot_act_on_their_own_player_account(web: Web, olga: Operator) -> None:
    web.person("olga")
    own = account_id(web, "olga")
    response = olga.post(f"/api/operator/accounts/{own}/adjust", {"amount": "100", "reason": "me"})
    assert response.status_code == 409
    assert "own" in response.json()["error"]


# -- tables ----------------------------------------------------------------------------------
def test_closing_a_table_refuses_new_rounds_and_opening_it_deals_again(
    web: Web, olga: Operator
) -> None:
    ann = web.person("Ann")
    closed = olga.post("/api/operator/tables/punto-banco/close", {"reason": "maintenance"})
    assert closed.json()["open"] is False
    refused = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    assert refused.status_code == 409 and "closed" in refused.json()["error"]
    assert ann.balance() == 1000
    assert ann.post("/api/games/baccarat27/rounds", {"bets": {"player": "10"}}).status_code in (
        200,
        201,
    )
    assert (
        olga.post("/api/operator/tables/punto-banco/close", {"reason": "again"}).status_code == 422
    )
    olga.post("/api/operator/tables/punto-banco/open", {"reason": "done"})
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}}).status_code in (
        200,
        201,
    )


def test_limits_the_house_sets(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    bad = olga.post(
        "/api/operator/tables/punto-banco/limits",
        {"min_stake": "50", "max_stake": "20", "reason": "x"},
    )
    assert bad.status_code == 422 and "below" in bad.json()["error"]
    zero = olga.post("/api/operator/tables/punto-banco/limits", {"min_stake": "0", "reason": "x"})
    assert zero.status_code == 422
    below = olga.post("/api/operator/tables/punto-banco/limits", {"min_stake": "5", "reason": "x"})
    assert below.status_code == 422 and "outside the table's rules" in below.json()["error"]
    above = olga.post(
        "/api/operator/tables/punto-banco/limits", {"max_stake": "10000000", "reason": "x"}
    )
    assert above.status_code == 422
    done = olga.post(
        "/api/operator/tables/punto-banco/limits",
        {"min_stake": "20", "max_stake": "50", "reason": "high rollers"},
    )
    assert done.json()["min_stake"] == "20"
    low = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10"}})
    assert low.status_code == 409 and "least" in low.json()["error"]
    high = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "60"}})
    assert high.status_code == 409 and "most" in high.json()["error"]
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "20"}}).status_code in (
        200,
        201,
    )
    [row] = [r for r in log_rows(web) if r.action == "set limits"]
    assert '"min_stake": null' in row.before and '"min_stake": "20"' in row.after


def test_a_lab_variant_on_a_public_table(web: Web, olga: Operator) -> None:
    game = get_game("punto-banco")
    rules = game.default_rules()
    variant = Variants(web.db).save(game, rules.__class__(**{**rules.__dict__}))
    missing = olga.post(
        "/api/operator/variants",
        {"game": "punto-banco", "variant": "0" * 20, "name": "X", "reason": "x"},
    )
    assert missing.status_code == 422 and "no variant" in missing.json()["error"]
    done = olga.post(
        "/api/operator/variants",
        {"game": "punto-banco", "variant": variant, "name": "The Blue Table", "reason": "trial"},
    )
    assert done.status_code == 200, done.text
    lobby = web.client().get("/")
    assert "Play at The Blue Table" in lobby.text
    assert f"/play/punto-banco?variant={variant}" in lobby.text


# -- the log ---------------------------------------------------------------------------------
def test_the_log_refuses_update_and_delete(db_url: str) -> None:
    from cardroom.storage import Database

    with Database.open(db_url) as db:
        Staff(db).add("Olga", "(hash)")
        statements: list[Any] = [
            operator_log.update().values(reason="changed"),
            operator_log.delete(),
        ]
        if not db.is_sqlite:  # (SQLite has no TRUNCATE)
            statements.append(text("TRUNCATE operator_log"))
        for statement in statements:
            with pytest.raises(Exception, match="append-only"), db.write() as conn:
                conn.execute(statement)
        with db.read() as conn:
            assert conn.execute(select(func.count()).select_from(operator_log)).scalar() == 1
            assert conn.execute(select(operator_log.c.reason)).scalar() == "added"


def test_the_log_page_and_its_api(web: Web, olga: Operator) -> None:
    since = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    entries = olga.http.get("/api/operator/log", params={"since": since}).json()["entries"]
    assert [e["action"] for e in entries] == ["sign in", "add operator"]
    assert "sign in" in olga.get("/operator/log").text


def test_the_floor_adds_up_to_the_ledger(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    for _ in range(6):
        response = ann.post(
            "/api/games/punto-banco/rounds", {"bets": {"player": "20", "tie": "10"}}
        )
        assert response.status_code in (200, 201), response.text
    floor = olga.get("/api/operator/floor").json()
    today = floor["periods"][0]
    assert today["games"]["punto-banco"]["rounds"] == 6
    assert today["games"]["punto-banco"]["staked"] == "180"
    paid = Fraction(today["games"]["punto-banco"]["paid"])
    assert 1000 - 180 + paid == ann.balance()
    wagers = {w["wager"]: w for w in today["wagers"]}
    assert wagers["player"]["staked"] == "120" and wagers["tie"]["rounds"] == 6
    assert floor["playing"] == 1 and floor["signed_in"] == 1
    assert "<svg" in olga.get("/operator").text


# -- integrity -------------------------------------------------------------------------------
def test_the_integrity_page_judges_every_table_and_wager(web: Web, olga: Operator) -> None:
    ann = web.person("Ann")
    for _ in range(8):
        ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "20", "banker": "10"}})
    report = olga.get("/api/operator/integrity").json()
    wagers = {(v["key"], v["wager"]): v for v in report["verdicts"]}
    assert set(wagers) == {("punto-banco", "player"), ("punto-banco", "banker")}
    assert wagers[("punto-banco", "player")]["rounds"] == 8
    assert report["alerts"] == [] and report["limit"] == 4.0
    page = olga.get("/operator/integrity?window=7+days")
    assert page.status_code == 200 and "No alert over the last 7 days" in page.text
    assert olga.get("/api/operator/integrity?window=a+year").status_code == 422
    assert "None." in olga.get("/operator").text  # no alert on the floor either


def test_an_alert_is_logged_once_a_day_and_shown_on_the_floor(web: Web, olga: Operator) -> None:
    from dataclasses import replace

    from cardroom.app.operators.integrity import IntegrityReport, Window
    from cardroom.app.operators.watch import Watch
    from cardroom.web.operator_views import table_rules

    ann = web.person("Ann")
    for _ in range(4):
        ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "20"}})
    watch = Watch(web.db, table_rules(web.app.state.services))
    fair = watch.check()
    [verdict] = fair.verdicts
    now = datetime.now(UTC)
    wrong = replace(verdict, z=-5.2, p=2e-7, alert=True)
    report = IntegrityReport(Window(now - timedelta(days=1)), 4.0, (wrong,))
    assert watch.log_alerts(report, "24 hours", now) == 1
    assert watch.log_alerts(report, "24 hours", now + timedelta(hours=1)) == 0
    assert watch.log_alerts(report, "7 days", now) == 1  # another window: its own alert
    assert watch.log_alerts(report, "24 hours", now + timedelta(hours=25)) == 1
    [first, *_] = [r for r in log_rows(web) if r.action == "alert"]
    assert first.operator == "system" and first.target == "table:punto-banco"
    assert "ALERT: web:punto-banco wager player" in first.reason
    assert "ALERT" in olga.get("/operator").text


def test_ids_beyond_the_database_s_are_refused_not_looked_up(web: Web, olga: Operator) -> None:
    """An account's or a round's id, or a page's cursor, outside 1 to 2**62 is a 422 (a
    number SQLite's integers cannot hold once gave a 500), and changes nothing."""
    ann = web.person("Ann")
    ann_id = account_id(web, "Ann")
    for big in ("9223372036854775808", "9" * 25, "0", "-1"):
        for path in (
            f"/api/operator/accounts/{big}",
            f"/api/operator/accounts/{ann_id}?before={big}",
            f"/api/operator/rounds/{big}",
            f"/api/operator/log?before={big}",
            f"/operator/accounts/{big}",
            f"/operator/rounds/{big}",
            f"/operator/log?before={big}",
        ):
            assert olga.get(path).status_code == 422, path
        for path, body in (
            (f"/api/operator/accounts/{big}/adjust", {"reason": "x", "amount": "10"}),
            (f"/api/operator/accounts/{big}/note", {"reason": "x"}),
        ):
            answer = olga.post(path, body)
            assert answer.status_code == 422, (path, answer.text)
            assert "error" in answer.json()
    assert olga.get(f"/api/operator/accounts/{2**62}").status_code == 404  # the largest id
    assert ann.balance() == 1000


# -- the staff -------------------------------------------------------------------------------
def test_an_admin_adds_and_removes_operators(web: Web, olga: Operator) -> None:
    body = {"name": "Ola", "password": "long enough", "reason": "x"}
    assert olga.http.post("/api/operator/staff", json=body).status_code == 403  # no CSRF
    assert olga.http.post("/api/operator/staff/Olga/remove", json=body).status_code == 403
    bad = olga.post("/api/operator/staff", {"name": "Ola", "password": "short", "reason": "x"})
    assert bad.status_code == 422 and "at least 8" in bad.json()["error"]
    for loose in ("yes", 1, "true"):  # every right, given by JSON's true alone
        admin = olga.post("/api/operator/staff", {**body, "admin": loose})
        assert admin.status_code == 422, (loose, admin.text)
    assert olga.get("/api/operator/staff").text.count('"Ola"') == 0
    no_reason = olga.post(
        "/api/operator/staff", {"name": "Ola", "password": "long enough", "reason": ""}
    )
    assert no_reason.status_code == 422
    added = olga.post(
        "/api/operator/staff", {"name": "Ola", "password": "long enough", "reason": "new hire"}
    )
    assert added.status_code == 200, added.text
    data = added.json()
    assert data["role"] == "operator" and data["qr_svg"].startswith("<?xml")
    assert f"secret={data['secret']}" in data["uri"]
    again = olga.post(
        "/api/operator/staff", {"name": "ola", "password": "long enough", "reason": "x"}
    )
    assert again.status_code == 409
    ola = web.client()
    signed = ola.post(
        "/api/operator/login",
        json={"name": "Ola", "password": "long enough", "code": pyotp.TOTP(data["secret"]).now()},
    )
    assert signed.status_code == 200
    assert ola.get("/api/operator/staff").status_code == 404  # an operator, not an admin
    assert olga.post("/api/operator/staff/Olga/remove", {"reason": "x"}).status_code == 409
    gone = olga.post("/api/operator/staff/Ola/remove", {"reason": "left"})
    assert gone.status_code == 200
    assert ola.get("/api/operator/floor").status_code == 404  # her session ended with her
    actions = [(r.action, r.operator, r.reason) for r in log_rows(web) if "operator" in r.action]
    assert actions[-2:] == [
        ("add operator", "Olga", "new hire"),
        ("remove operator", "Olga", "left"),
    ]
    page = olga.get("/operator/staff")
    assert "Ola" in page.text and "removed" in page.text
