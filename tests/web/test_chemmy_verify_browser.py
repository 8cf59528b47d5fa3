"""A chemin de fer table's shoe in a real browser (docs/fairness.md): the table's page
shows the commitment of the shoe dealing and, once a one-deck shoe of two coups has
ended, its revealed seed with a link to ``/verify``, where the browser's own
SubtleCrypto rebuilds the shoe and checks every coup recorded from it."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.browser import Server
from tests.web.chemmy_clients import Someone
from tests.web.test_browser import page
from tests.web.test_chemmy_fair import play_through_a_shoe, server
from tests.web.test_records_browser import shots

__all__ = ["page", "server"]


def test_a_chemmy_shoe_linked_from_the_table_and_checked_on_verify(
    page: Page, server: Server
) -> None:
    ann = Someone.register(server)
    page.context.add_cookies(
        [
            {
                "name": "cardroom_session",
                "value": ann.http.cookies["cardroom_session"],
                "url": server.url,
            }
        ]
    )
    page.goto("/chemin-de-fer/1")
    fair = page.locator("#fair")
    expect(fair).to_be_visible()
    promised = page.locator("#fair code.hash").first.get_attribute("title")
    assert promised and len(promised) == 64  # before the first card: the next shoe's

    play_through_a_shoe(ann)
    page.reload()
    link = page.locator("#verify-last")
    expect(link).to_contain_text("verify shoe 1")
    shots(page, "fair-chemmy-table")
    link.click()
    expect(page.locator('input[name="commitment"]')).to_have_value(promised)
    expect(page.locator('input[name="seed"]')).not_to_have_value("")
    page.get_by_role("button", name="Rebuild and check").click()
    result = page.locator("#verify-result")
    expect(result).to_have_attribute("data-ok", "yes")
    expect(result).to_contain_text("every card of 2 rounds")
    shots(page, "fair-chemmy-verify")
