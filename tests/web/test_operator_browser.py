"""The operator's pages in a real browser: sign in with a TOTP code, the floor after
some rounds (its figures and its plot), find a player, suspend them with a reason and
see the player refused, close a table and set its limits, and the log.  Screenshots at
1280x800 and 390x844 go to ``tests/artifacts/``; nothing scrolls sideways on a phone."""

from __future__ import annotations

import re
import secrets

import pyotp
from argon2 import PasswordHasher
from playwright.sync_api import Page, expect

from cardroom.app.operators.staff import Staff
from tests.web.browser import Server
from tests.web.conftest import CHEAP
from tests.web.test_browser import page, register, server
from tests.web.test_records_browser import shots

__all__ = ["page", "server"]


def test_an_operator_runs_the_floor(page: Page, server: Server) -> None:
    name = register(page, f"Pia{secrets.token_hex(3)}")
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content") or ""
    for _ in range(12):
        answer = page.request.post(
            "/api/games/punto-banco/rounds",
            data={"bets": {"banker": "10", "player": "10"}},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status == 201
    boss = f"Boss{secrets.token_hex(3)}"
    hashed = PasswordHasher.from_parameters(CHEAP).hash("operator password")
    _, secret = Staff(server.db).add(boss, hashed, "admin")

    operator = page.context.browser.new_context(  # type: ignore[union-attr]
        viewport={"width": 1280, "height": 800}, base_url=server.url, device_scale_factor=1
    ).new_page()
    response = operator.goto("/operator")
    assert response is not None and response.status == 404
    operator.goto("/operator/login")
    shots(operator, "operator-login")
    operator.get_by_label("Name").fill(boss)
    operator.get_by_label("Password").fill("operator password")
    operator.get_by_label("Code from your authenticator app").fill(pyotp.TOTP(secret).now())
    operator.get_by_role("button", name="Sign in").click()
    expect(operator.get_by_role("heading", name="The floor")).to_be_visible()
    expect(operator.locator("#playing")).to_have_text("1")
    expect(operator.locator("svg.plot")).to_be_visible()
    expect(operator.locator("table.figures").first).to_contain_text("punto-banco")
    shots(operator, "operator-floor")

    operator.goto("/operator/accounts")
    operator.get_by_label("Name").fill(name[:4].lower())
    operator.get_by_role("button", name="Find").click()
    operator.get_by_role("link", name=name).click()
    expect(operator.locator("#account-balance")).to_be_visible()
    form = operator.locator('form[action$="/suspend"]')
    form.get_by_label("Reason").fill("a test of the floor")
    form.get_by_role("button", name="Suspend").click()
    expect(operator.locator("#done")).to_contain_text("suspended")
    expect(operator.locator("#suspended")).to_be_visible()
    expect(operator.locator("#notes")).to_contain_text("a test of the floor")
    shots(operator, "operator-account")

    refused = page.request.post(
        "/api/games/punto-banco/rounds",
        data={"bets": {"banker": "10"}},
        headers={"X-CSRF-Token": csrf},
    )
    assert refused.status == 409 and "suspended" in refused.json()["error"]

    operator.goto("/operator/tables")
    row = operator.locator("#tables tr", has_text="baccarat27")
    row.get_by_placeholder("least").fill("20")
    row.get_by_placeholder("most").fill("10")
    row.locator('form[action$="/limits"] input[name="reason"]').fill("try")
    row.get_by_role("button", name="Set limits").click()
    expect(operator.locator("#error")).to_contain_text("below the least")
    row = operator.locator("#tables tr", has_text="punto-banco")
    row.locator('form[action$="/close"] input[name="reason"]').fill("a dealer's break")
    row.get_by_role("button", name="Close").click()
    expect(operator.locator("#done")).to_contain_text("punto-banco closed")
    shots(operator, "operator-tables")

    operator.goto("/operator/integrity")
    expect(operator.locator("#verdicts")).to_contain_text("punto-banco")
    expect(operator.locator("#no-alerts")).to_be_visible()
    shots(operator, "operator-integrity")

    operator.goto("/operator/staff")
    form = operator.locator("#add-operator")
    form.get_by_label("Name").fill(f"Ola{secrets.token_hex(2)}")
    form.get_by_label("Password").fill("long enough password")
    form.get_by_label("Reason").fill("a new hire")
    form.get_by_role("button", name="Add").click()
    expect(operator.locator("#secret")).to_have_text(re.compile(r"^[A-Z2-7]{32}$"))
    expect(operator.locator(".qr svg")).to_be_visible()
    shots(operator, "operator-staff")

    operator.goto("/operator/log")
    expect(operator.locator("#log")).to_contain_text("close table")
    expect(operator.locator("#log")).to_contain_text("suspend")
    shots(operator, "operator-log")
    operator.context.close()
