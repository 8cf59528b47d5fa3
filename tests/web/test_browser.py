"""End to end in a real browser: Debian's Chromium (Playwright) against a real server.

For each house game: register, bet with chips, play the round (hit or stand where the
game asks), see the settlement and the balance change by exactly the net shown, open
the recall and replay the round.  Screenshots of each game's page after a round, at
1280x800 and 390x844, go to ``tests/artifacts/`` (not committed) to be looked at.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from fractions import Fraction

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.browser import ARTIFACTS, Server, serve

F = Fraction
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
CARD_ALT = re.compile(r"^(?:(?:[1-9]|1[0-3]) of (?:spades|clubs|hearts|diamonds)|Joker)$")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory.mktemp("web"))


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(
        viewport=DESKTOP, base_url=server.url, reduced_motion="reduce", device_scale_factor=1
    )
    context.set_default_timeout(15_000)
    opened = context.new_page()
    yield opened
    context.close()


def register(page: Page, name: str | None = None) -> str:
    name = name or f"p{secrets.token_hex(4)}"
    page.goto("/register")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill("a good password")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#balance")).to_have_text("1000")
    return name


def balance(page: Page) -> Fraction:
    return F(page.locator("#balance").get_attribute("data-balance") or "nan")


def play_round(page: Page, game: str, wager: str, chips: int = 1) -> Fraction:
    """Bet ``chips`` minimum chips on ``wager``, play the round out; the net shown."""
    page.goto(f"/play/{game}")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    for _ in range(chips):
        page.locator(f'.add[data-wager="{wager}"]').click()
    page.get_by_role("button", name="Deal", exact=True).click()
    table = page.locator("#table")
    expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    while table.get_attribute("data-state") == "awaiting_action":
        hit, stand = page.locator("#hit"), page.locator("#stand")
        assert hit.is_enabled() or stand.is_enabled()
        (stand if stand.is_enabled() else hit).click()
        expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    expect(page.locator("#settlement")).to_be_visible()
    net = page.locator("#round-net").get_attribute("data-net")
    assert net is not None
    return F(net)


def check_cards(page: Page) -> None:
    cards = page.locator("#table img.card")
    assert cards.count() >= 4
    for alt in cards.evaluate_all("cards => cards.map(c => c.alt)"):
        assert CARD_ALT.match(alt), alt
    # every card image loads (drawn by the server), none broken: waited for, as a slow
    # machine may still be fetching the last one
    page.wait_for_function(
        "() => [...document.querySelectorAll('#table img.card')]"
        ".every(c => c.complete && c.naturalWidth > 0)"
    )


def screenshots(page: Page, game: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{game}-1280x800.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / f"{game}-390x844.png"), full_page=True)
    # nothing sticks out sideways on a phone
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide on a 390px phone"
    page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize(
    ("game", "wager"),
    [
        ("finnish27", "player"),
        ("21-24-27", "player"),
        ("punto-banco", "banker"),
        ("baccarat27", "tie"),
    ],
)
def test_a_round_of_each_game_in_the_browser(page: Page, game: str, wager: str) -> None:
    register(page)
    before = balance(page)
    net = play_round(page, game, wager, chips=2)
    after = balance(page)
    assert after - before == net
    assert F(page.locator("#balance-after").inner_text()) == after
    rows = page.locator("#settlement-rows tr")
    expect(rows).to_have_count(1)
    assert rows.first.get_attribute("data-wager") == wager
    assert page.locator("#log li").count() >= 5
    check_cards(page)
    # the scoreboards show this shoe's round
    expect(page.locator("#bead-plate .mark")).to_have_count(1)
    screenshots(page, game)
    # the recall: the round with its cards, replayed and checked by the server
    page.goto("/history")
    item = page.locator(".recalled").first
    expect(item.locator("img.card").first).to_be_visible()
    assert F(item.locator(".total-net").get_attribute("data-net") or "nan") == net
    item.get_by_role("button", name="Replay").click()
    expect(item).to_have_attribute("data-replay", "same")
    expect(item.locator(".verdict")).to_contain_text("the same cards")
    page.screenshot(path=str(ARTIFACTS / f"history-{game}-1280x800.png"))
    # the wallet's ledger ends at the balance shown
    page.goto("/wallet")
    first = page.locator("#ledger tbody tr").first.locator("td").nth(3)
    assert F(first.inner_text()) == after
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / f"wallet-{game}-390x844.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_21_24_27_with_the_keyboard_alone(page: Page) -> None:
    register(page)
    page.goto("/play/21-24-27")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    table = page.locator("#table")
    for _ in range(30):  # rounds until one asks for a decision
        page.locator("#bet-player").focus()
        page.keyboard.press("Control+a")
        page.keyboard.type("10")
        page.keyboard.press("Tab")  # the "+ chip" button
        page.keyboard.press("Tab")  # Deal
        assert page.evaluate("document.activeElement.id") == "deal"
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none"  # the focus shows
        page.keyboard.press("Enter")
        expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
        if table.get_attribute("data-state") == "awaiting_action":
            break
    else:
        pytest.fail("no round asked for a decision")
    # the decision has focus on an enabled button; forced plays are marked as such
    focused = page.evaluate("document.activeElement.id")
    assert focused in ("hit", "stand")
    expect(page.locator("#asked")).to_contain_text("Your choice")
    while table.get_attribute("data-state") == "awaiting_action":
        page.keyboard.press("Enter")
        expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    expect(page.locator("#log .chosen").first).to_contain_text("your choice")


def test_bets_the_table_refuses_say_why(page: Page) -> None:
    register(page)
    page.goto("/play/punto-banco")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    for amount, message in [
        ("5", "below the table minimum of 10"),
        ("2000", "above the table maximum of 1000"),
        ("ten", "is not an amount"),
        ("10.001", "whole cents"),
    ]:
        page.locator("#bet-player").fill(amount)
        page.get_by_role("button", name="Deal", exact=True).click()
        expect(page.locator("#message")).to_contain_text(message)
        expect(page.locator("#table")).to_have_attribute("data-state", "betting")
        assert balance(page) == 1000
    page.locator("#bet-player").fill("")
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#message")).to_contain_text("Place a bet first")


def test_the_rules_page_discloses_the_exact_house_edge(page: Page, server: Server) -> None:
    page.goto("/rules/punto-banco")
    expect(page.locator("#paytable")).to_have_attribute("data-status", "ready", timeout=60_000)
    banker = page.locator('#paytable tr[data-wager="banker"]')
    expect(banker.locator(".edge")).to_have_text("1.0579%")
    expect(banker).to_contain_text("19:20")
    expect(page.locator(".rules")).to_contain_text("The player draws a third card on 0 to 5")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "rules-punto-banco-1280x800.png"), full_page=True)
    page.goto("/")
    page.screenshot(path=str(ARTIFACTS / "lobby-1280x800.png"))


def test_signing_out_and_back_in(page: Page) -> None:
    name = register(page)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in", exact=True)).to_be_visible()
    page.goto("/play/finnish27")
    assert "/login" in page.url
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#form-error")).to_have_text("wrong name or password")
    page.get_by_label("Password").fill("a good password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#table")).to_have_attribute("data-game", "finnish27")
