"""The protection page in a real browser at 1280x800 and 390x844: a break taken from
the menu's page signs the person out; signed in again they see it in force."""

from __future__ import annotations

from playwright.sync_api import Page, expect

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
