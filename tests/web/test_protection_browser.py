"""The protection page in a real browser at 1280x800 and 390x844: a break taken from
the menu's page signs the person out; signed in again they see it in force."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from playwright.sync_api import Page, expect
from sqlalchemy import update

from cardroom.storage.schema import accounts
from tests.web.browser import Server
from tests.web.test_browser import page, register, server
from tests.web.test_records_browser import shots

__all__ = ["page", "server"]


def test_a_break_from_the_protection_page(page: Page, server: Server) -> None:
    name = register(page)
    page.get_by_role("link", name="Protection").click()
    expect(page.get_by_role("heading", name="Protection", exact=True)).to_be_visible()
    shots(page, "protection")
    page.locator("#take-a-break select").select_option("24 hours")
    page.get_by_role("button", name="Take the break now").click()
    expect(page.locator("#taken")).to_contain_text("you cannot play here")
    shots(page, "protection-taken")
    page.goto("/login?next=/account/protection")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill("a good password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#in-force")).to_contain_text("You have taken a break until")
    expect(page.locator("#protection-history li")).to_have_count(1)
    shots(page, "protection-in-force")


def test_limits_from_the_protection_page_and_a_reality_check_at_the_table(
    page: Page, server: Server
) -> None:
    name = register(page)
    page.get_by_role("link", name="Protection").click()
    page.get_by_label("Stake limit a day", exact=True).fill("50")
    page.get_by_role("button", name="Save my limits").click()
    expect(page.locator("#limit-stake_day td").first).to_have_text("50")
    expect(page.locator("#limit-history li")).to_have_count(1)
    shots(page, "protection-limits")
    # an hour into the session, the reality check comes before the next bet
    with server.db.write() as conn:
        conn.execute(
            update(accounts)
            .where(accounts.c.name == name)
            .values(
                session_started=datetime.now(UTC) - timedelta(minutes=62),
                reality_due=datetime.now(UTC) - timedelta(minutes=2),
            )
        )
    page.goto("/play/punto-banco")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    page.locator("#bet-player").fill("10")
    page.get_by_role("button", name="Deal", exact=True).click()
    dialog = page.get_by_role("dialog", name="Reality check")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".minutes")).to_have_text("62 minutes")
    shots(page, "reality-check")
    dialog.get_by_role("button", name="Play on").click()
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#table")).to_have_attribute("data-state", "finished")
    expect(page.locator("#table")).to_have_attribute("data-round", "1")  # (a tie pays 1000 back)
