"""Chemin de fer in a real browser: two people (two browser contexts of Debian's
Chromium) and a bot at one table of a real server, until each person has held the bank
for a full coup and staked in one (the bank goes round: a person banks once, then passes
it on).  The
stacks and balances the pages show are the server's; screenshots after a coup at
1280x800 and 390x844 go to ``tests/artifacts/`` to be looked at."""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from cardroom.app.history import RoundRecord
from cardroom.app.wallet import Wallet
from cardroom.core.events import BankPut, Staked
from tests.web.browser import ARTIFACTS, Server
from tests.web.chemmy_clients import chemmy_server
from tests.web.test_browser import CARD_ALT, DESKTOP, PHONE, register

F = Fraction


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a pause of a second after each coup, as people see it (and the screenshots catch)
    yield from chemmy_server(tmp_path_factory.mktemp("chemmy-browser"), time_limit=20, pause=1)


def person(browser: Browser, server: Server) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport=DESKTOP, base_url=server.url, reduced_motion="reduce", device_scale_factor=1
    )
    context.set_default_timeout(15_000)
    return context, context.new_page()


def each_way(server: Server, first: str, second: str) -> bool:
    """Has each of the two held the bank for a full coup, and staked in one?"""
    wallet = Wallet(server.db)
    account = wallet.account(first)
    assert account is not None
    banked, staked = set(), set()
    for stored in wallet.rounds(account.id, limit=100, game="chemin-de-fer"):
        if stored.status != "finished" or not stored.record:
            continue
        record = RoundRecord.from_json(stored.record)
        if record.outcome is None:
            continue
        banked |= {record.seats[e.seat] for e in record.events if isinstance(e, BankPut)}
        staked |= {record.seats[e.seat] for e in record.events if isinstance(e, Staked)}
    return {first, second} <= banked & staked


def act(page: Page, banked: set[str], name: str) -> bool:
    """Make the page's person's choice if it is their turn: bank once (then pass the
    bank on, so that it goes round), stake the smallest amount (with the keyboard: the
    amount field has the focus), stand where they may.  False if nothing was done (a
    turn that changed under the click is tried again on the next call)."""
    if page.locator("#table").get_attribute("data-state") != "your_turn":
        return False
    enabled = set(
        page.eval_on_selector_all(
            ".choice", "buttons => buttons.filter(b => !b.disabled).map(b => b.dataset.action)"
        )
    )
    try:
        if "put_bank" in enabled:
            if name in banked and "pass_bank" in enabled:
                page.locator('.choice[data-action="pass_bank"]').click(timeout=2000)
            else:
                page.locator('.choice[data-action="put_bank"]').click(timeout=2000)
                banked.add(name)
        elif "stake" in enabled:
            amount = page.locator("#amount")
            expect(amount).to_be_focused(timeout=2000)
            amount.fill(amount.get_attribute("min") or "10", timeout=2000)
            amount.press("Enter", timeout=2000)
        elif enabled & {"stand", "draw"}:
            choice = "stand" if "stand" in enabled else "draw"
            page.locator(f'.choice[data-action="{choice}"]').click(timeout=2000)
        else:
            return False
    except (PlaywrightTimeout, AssertionError):
        return False
    return True


def test_two_people_and_a_bot_play_a_coup_each_way(browser: Browser, server: Server) -> None:
    (ann_context, ann), (bob_context, bob) = person(browser, server), person(browser, server)
    try:
        names = {}
        for page, name in ((ann, "Eero"), (bob, "Liisa")):
            names[page] = register(page, name)
            page.goto("/chemin-de-fer")
            page.get_by_role("link", name="Go to Table 1").click()
            expect(page.locator("#table")).to_have_attribute("data-ready", "true")
            page.get_by_label("Buy-in").fill("200")
            page.get_by_role("button", name="Take a seat").click()
            if page is ann:
                expect(page.locator("#you")).to_have_attribute("data-stack", "200")
        banked: set[str] = set()
        give_up = time.monotonic() + 120
        while not each_way(server, names[ann], names[bob]):
            assert time.monotonic() < give_up, "no coup each way in 120 s"
            acted = act(ann, banked, names[ann]) | act(bob, banked, names[bob])
            if not acted:
                ann.wait_for_timeout(60)
        finish(ann, bob, names, banked)
    finally:
        ann_context.close()
        bob_context.close()


def finish(ann: Page, bob: Page, names: dict[Page, str], banked: set[str]) -> None:
    """Screenshots of Ann's page (1280x800) and Bob's (390x844) each just after a coup,
    its cards checked; then the stacks shown against the server's, and both leave."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bob.set_viewport_size(PHONE)
    shots = {ann: ARTIFACTS / "chemmy-1280x800.png", bob: ARTIFACTS / "chemmy-390x844.png"}
    for _ in range(600):
        for page, path in list(shots.items()):
            shown = page.evaluate(
                """() => [!document.getElementById("result").hidden,
                          [...document.querySelectorAll("#table img.card")].map(c => c.alt)]"""
            )
            if shown[0] and shown[1]:
                page.screenshot(path=str(path), full_page=True)
                for alt in shown[1]:
                    first = alt.split(",")[0]
                    assert CARD_ALT.match(first) or alt.startswith("a card face down"), alt
                del shots[page]
        if not shots:
            break
        if not any([act(page, banked, names[page]) for page in (ann, bob)]):
            ann.wait_for_timeout(50)
    assert not shots, "no coup ended on both pages"
    bob.set_viewport_size(DESKTOP)
    for page in (ann, bob):  # the stack shown is the server's (once both have settled)
        for _ in range(100):
            table = page.request.get("/api/chemin-de-fer/tables/1").json()
            mine = next(s for s in table["seats"] if s["name"] == names[page])
            if page.locator("#you").get_attribute("data-stack") == mine["stack"]:
                break
            page.wait_for_timeout(50)
        expect(page.locator("#you")).to_have_attribute("data-stack", mine["stack"])
        page.get_by_role("button", name="Leave the table").click()
    for page in (ann, bob):
        for _ in range(400):
            if act(page, banked, names[page]):
                continue
            if page.locator("#sit").is_visible():
                break
            page.wait_for_timeout(50)
        me = page.request.get("/api/me").json()
        expect(page.locator("#balance")).to_have_attribute("data-balance", me["balance"])
        assert page.request.get("/api/history?game=chemin-de-fer").ok
        assert page.goto("/history").ok
        assert Path(ARTIFACTS / "chemmy-1280x800.png").exists()
