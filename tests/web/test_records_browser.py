"""History, a round's page and the wallet in a real browser, for a person with a name of
40 characters: pages older and newer, a chemin de fer coup as they saw it (replayed),
the wallet adding up page by page, and a broke account topped up.  Screenshots at
1280x800 and 390x844 go to ``tests/artifacts/``; nothing scrolls sideways on a phone."""

from __future__ import annotations

import secrets
from fractions import Fraction

from playwright.sync_api import Page, expect

from cardroom.app.wallet import Wallet
from tests.conftest import assert_books_and_rounds
from tests.web.browser import ARTIFACTS, Server
from tests.web.conftest import Person
from tests.web.test_browser import DESKTOP, PHONE, balance, page, register, server
from tests.web.test_records_api import play_coups

__all__ = ["page", "server"]  # the fixtures, shared with test_browser

F = Fraction


def shots(page: Page, name: str) -> None:
    """The page at 1280x800 and, whole, at 390x844, where nothing may stick out sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / f"{name}-1280x800.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / f"{name}-390x844.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} is {width}px wide on a 390px phone"
    page.set_viewport_size(DESKTOP)


def test_history_wallet_and_a_top_up_for_a_long_name(page: Page, server: Server) -> None:
    name = f"Wilhelmina-{secrets.token_hex(3)}-Lindqvist-Bergströmsson"
    name = (name + "-" * 40)[:40]  # one word of 40 characters
    assert len(name) == 40
    register(page, name)
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content") or ""
    for _ in range(48):  # rounds through the API (over 50 ledger rows), from the page's session
        answer = page.request.post(
            "/api/games/punto-banco/rounds",
            data={"bets": {"banker": "10"}},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status == 201
    web = type("Web", (), {"db": server.db})()
    play_coups(web, Person(None, "", name), 6)  # type: ignore[arg-type]

    # the history: ten rounds a page, the newest a coup as this person saw it
    page.goto("/history")
    items = page.locator(".recalled")
    expect(items).to_have_count(10)
    coup = items.first
    expect(coup.locator(".round-title")).to_contain_text("Chemin de fer · Table 9 · coup")
    expect(coup.locator(".coup-part")).to_contain_text(f"{name}, seat 1: You")
    expect(coup.locator("img.card").first).to_be_visible()
    expect(page.get_by_text("Round 0")).to_have_count(0)
    coup.get_by_role("button", name="Replay").click()
    expect(coup).to_have_attribute("data-replay", "same")
    coup.locator("summary").click()  # every step, in the table's sentences
    expect(coup.locator(".log li").first).to_be_visible()
    shots(page, "records-history")
    page.get_by_role("link", name="Older →").first.click()
    expect(items).to_have_count(10)
    expect(page.get_by_role("link", name="← Newer").first).to_be_visible()

    # the wallet: each page adds up from the balance before its oldest row
    page.goto("/wallet")
    pages = 0
    while True:
        pages += 1
        rows = page.locator("#ledger tbody tr")
        amounts = [F(a.replace("±", "")) for a in rows.locator(".amount").all_inner_texts()]
        balances = [F(b) for b in rows.locator("td:nth-child(4)").all_inner_texts()]
        before = F(page.locator("#ledger tfoot td.num").inner_text())
        assert before + sum(amounts) == balances[0]
        if pages == 1:
            assert balances[0] == balance(page)
            shots(page, "records-wallet")
        older = page.get_by_role("link", name="Older →").first
        if not older.count():
            break
        older.click()
    assert pages == 2 and before == 0
    expect(page.locator("#ledger tbody tr").last).to_contain_text("Opening deposit")
    # a row's round has a page of its own
    page.locator("#ledger a[href^='/rounds/']").first.click()
    expect(page.locator("h1.round-title")).to_contain_text("Punto banco")
    shots(page, "records-round")

    # broke: the bet refused says the way on, and the wallet tops up once
    wallet = Wallet(server.db)
    account = wallet.accounts.account(name)
    assert account is not None
    wallet.accounts.withdraw(account.id, wallet.accounts.balance(account.id))
    page.goto("/play/punto-banco")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    page.locator("#bet-banker").fill("10")
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#message")).to_contain_text("top it up to 1000 on your Wallet page")
    page.goto("/wallet")
    expect(page.locator("#top-up")).to_contain_text("below every table's minimum")
    shots(page, "records-top-up")
    page.get_by_role("button", name="Top up to 1000").click()
    expect(page.locator("#balance")).to_have_text("1000")
    expect(page.locator("#top-up")).to_have_count(0)
    expect(page.locator("#ledger tbody tr").first).to_contain_text("Top-up to 1000 (play money)")
    assert_books_and_rounds(server.db)
