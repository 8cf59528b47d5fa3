"""Chemin de fer in a real browser: two people (two browser contexts of Debian's
Chromium) and a bot at one table of a real server, until each person has held the bank
for a full coup and staked in one (the bank goes round: a person banks once, then passes
it on).

What a person sees is checked on the way, card by card: each page records its table,
seats, hands, header balance and log after every change (a ``MutationObserver``), and no
stack, banker or coup number shown while a coup's cards are dealt is other than the
coup's own start as its record has it (nothing gives the result away before the cards
that decide it); the draw for the bank is shown as such; a sit-down is logged once.  One
person has the longest name there is (40 characters with no space), the other the bot's
name (the bot takes another); no page scrolls sideways at 390 px.  One closes the page on
their turn: the other sees them away at once and the seconds left counting down, and they
come back to the same turn.  Each stands up and keeps their own news ("You stood up with
...") after the game stops.  The stacks and balances the pages show are the server's;
screenshots at 1280x800 and 390x844 go to ``tests/artifacts/`` to be looked at."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from cardroom.app.history import RoundRecord
from cardroom.app.wallet import Wallet
from cardroom.core.events import BankPut, HandCard, Staked
from tests.web.browser import ARTIFACTS, Server
from tests.web.chemmy_clients import chemmy_server
from tests.web.test_browser import CARD_ALT, DESKTOP, PHONE, register

F = Fraction
#: The longest name there is, with nowhere to break it.
ANN = "W" * 40
#: The name of the bot at table 1.
BOB = "Aino"

#: Each page of a context records, after every change of the table or the header, what it
#: shows (``window.chemmySeen.snaps``), and every line added to the log (``.lines``).
OBSERVER = """
window.chemmySeen = { snaps: [], lines: [] };
document.addEventListener("DOMContentLoaded", () => {
  const table = document.getElementById("table");
  if (!table) return;
  const seen = window.chemmySeen;
  const snap = () => seen.snaps.push({
    ready: table.dataset.ready,
    coup: table.dataset.coup,
    dealt: document.querySelector(".hands").dataset.coup || null,
    cards: document.querySelectorAll(".hands img.card").length,
    drawn: document.querySelectorAll("#draw img.card").length,
    settled: !document.getElementById("result").hidden,
    seats: [...document.querySelectorAll("#seats .seat")].map((s) => [
      s.querySelector(".seat-name").textContent,
      s.querySelector(".seat-stack") ? s.querySelector(".seat-stack").dataset.stack : null,
      s.classList.contains("banker"),
    ]),
    balance: document.getElementById("balance").dataset.balance,
    you: document.querySelector("header.top .name").textContent,
  });
  const observer = new MutationObserver(snap);
  const what = { subtree: true, childList: true, attributes: true, characterData: true };
  observer.observe(table, what);
  observer.observe(document.querySelector("header.top"), what);
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) seen.lines.push(node.textContent);
    }
  }).observe(document.getElementById("log"), { childList: true });
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a pause of a second after each coup, as people see it (and the screenshots catch)
    yield from chemmy_server(tmp_path_factory.mktemp("chemmy-browser"), time_limit=20, pause=1)


def person(
    browser: Browser, server: Server, viewport: ViewportSize = DESKTOP
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport=viewport, base_url=server.url, reduced_motion="reduce", device_scale_factor=1
    )
    context.set_default_timeout(15_000)
    context.add_init_script(OBSERVER)
    return context, context.new_page()


def records(server: Server, name: str) -> dict[int, RoundRecord]:
    """The person's finished coups by coup number."""
    wallet = Wallet(server.db)
    account = wallet.accounts.account(name)
    assert account is not None
    found = {}
    for stored in wallet.rounds.latest(account.id, limit=100, game="chemin-de-fer"):
        if stored.status == "finished" and stored.record:
            record = RoundRecord.from_json(stored.record)
            found[int(record.start["coup"])] = record
    return found


def each_way(server: Server, first: str, second: str) -> bool:
    """Has each of the two held the bank for a full coup, and staked in one?"""
    banked, staked = set(), set()
    for record in records(server, first).values():
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
    in_view(page)
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
            size = page.viewport_size or {"width": 0, "height": 0}
            width, height = size["width"], size["height"]
            if (width, "refused") not in VIEWS:  # a refusal is said in view, with the choices
                amount.fill("0", timeout=2000)
                amount.press("Enter", timeout=2000)
                refusal = page.locator("#turn-message")
                expect(refusal).to_contain_text("Write an amount from", timeout=2000)
                box = refusal.bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
                in_view(page)
                VIEWS[(width, "refused")] = 1
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


#: How many times each viewport's hands, result and choices were found in view together,
#: on a turn (the choices there) and after a coup (its result there).
VIEWS: dict[tuple[int, str], int] = {}

BOXES = """() => {
  const box = (el) => {
    if (!el || el.closest("[hidden]")) return null;
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const choices = [...document.querySelectorAll("#decide .choice")].filter((b) => !b.disabled);
  return {
    width: window.innerWidth,
    height: window.innerHeight,
    hands: box(document.querySelector("#table .hands")),
    result: box(document.getElementById("result")),
    choices: choices.map(box).filter(Boolean),
    decide: box(document.getElementById("decide")),
  };
}"""


def in_view(page: Page) -> None:
    """The hands, the result (once shown) and the choices (on a turn) are inside the
    viewport together, and the choices (a bar at the foot of a phone) cover neither."""
    boxes = page.evaluate(BOXES)
    width, height = boxes["width"], boxes["height"]
    assert boxes["hands"] is not None
    shown = [boxes["hands"], *([boxes["result"]] if boxes["result"] else []), *boxes["choices"]]
    for left, top, right, bottom in shown:
        inside = left >= 0 and right <= width and top >= 0 and bottom <= height
        assert inside, (width, boxes)
    if boxes["decide"] is not None:
        d_left, d_top, d_right, d_bottom = boxes["decide"]
        for left, top, right, bottom in shown[: len(shown) - len(boxes["choices"])]:
            apart = bottom <= d_top or top >= d_bottom or right <= d_left or left >= d_right
            assert apart, boxes
    # a turn that comes with the last coup's result still in view checks both
    seen_now = ["turn"] * bool(boxes["choices"]) + ["result"] * bool(boxes["result"])
    for what in seen_now or ["hands"]:
        VIEWS[(width, what)] = VIEWS.get((width, what), 0) + 1
    # what a person sees at once on a turn: the first, until one right after a coup
    first = (width, "shot") not in VIEWS
    if boxes["choices"] and (first or (boxes["result"] and VIEWS[(width, "shot")] < 2)):
        VIEWS[(width, "shot")] = 2 if boxes["result"] else 1
        page.screenshot(path=str(ARTIFACTS / f"chemmy-turn-{width}x{height}.png"))


def all_views_checked() -> bool:
    """Has each viewport been checked on a turn, after a coup and on a refusal?"""
    return all(VIEWS.get((w, what)) for w in (1280, 390) for what in ("turn", "result", "refused"))


def results_in_view(*pages: Page) -> None:
    """On each page showing a coup's result, it is in view with the hands."""
    for page in pages:
        if page.locator("#result").is_visible() and page.locator("#table .hands img").count():
            in_view(page)


def seen(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("window.chemmySeen")
    return found


def narrow(page: Page) -> int:
    """How wide the page is at a phone's 390 px (it must not scroll sideways)."""
    width: int = page.evaluate("document.scrollingElement.scrollWidth")
    return width


def test_two_people_and_a_bot_play_a_coup_each_way(browser: Browser, server: Server) -> None:
    # Ann on a desktop's screen, Bob on a phone's
    (ann_context, ann), (bob_context, bob) = person(browser, server), person(browser, server, PHONE)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    VIEWS.clear()
    for stale in ARTIFACTS.glob("chemmy-turn-*.png"):
        stale.unlink()
    try:
        names = {}
        for page, name in ((ann, ANN), (bob, BOB)):
            names[page] = register(page, name)
            page.goto("/chemin-de-fer")
            page.get_by_role("link", name="Go to Table 1").click()
            expect(page.locator("#table")).to_have_attribute("data-ready", "true")
            page.get_by_label("Buy-in").fill("200")
            page.get_by_role("button", name="Take a seat").click()
            if page is ann:
                expect(page.locator("#you")).to_have_attribute("data-stack", "200")
            # back to the top of the page, to look at the table: from here on only the page
            # scrolls (a click does if what it clicks is out of view, and it is checked
            # before, in view)
            page.evaluate("window.scrollTo(0, 0)")
        banked: set[str] = set()
        give_up = time.monotonic() + 120
        # play on until a coup went each way and each screen was checked on a turn, after
        # a coup and on a refusal (the last coup may end before the desktop's page looked)
        while not (each_way(server, names[ann], names[bob]) and all_views_checked()):
            assert time.monotonic() < give_up, ("no coup each way, every view checked", VIEWS)
            acted = act(ann, banked, names[ann]) | act(bob, banked, names[bob])
            if not acted:
                results_in_view(ann, bob)
                ann.wait_for_timeout(60)
        for width in (1280, 390):  # (each checked on turns and after coups, and a refusal)
            assert VIEWS.get((width, "turn")) and VIEWS.get((width, "result")), VIEWS
            assert VIEWS.get((width, "refused")), VIEWS
        # Bob has the bot's name: the bot took another, and nobody was refused
        seats = bob.request.get("/api/chemin-de-fer/tables/1").json()["seats"]
        bot = seats[2]["name"]
        assert [s["name"] for s in seats] == [ANN, BOB, bot] and bot.casefold() != BOB.casefold()
        assert seats[2]["kind"] == "bot"
        screenshots(ann, bob, names, banked)
        bob, bob_first = away_and_back(ann, bob, bob_context, names, banked)
        lobby_on_a_phone(ann_context)
        leave(ann, bob, names, banked)
        check_what_was_seen(server, {ANN: [seen(ann)], BOB: [bob_first, seen(bob)]})
    finally:
        ann_context.close()
        bob_context.close()


def screenshots(ann: Page, bob: Page, names: dict[Page, str], banked: set[str]) -> None:
    """Screenshots of Ann's page (1280x800) and Bob's (390x844) each just after a coup,
    its cards checked, neither page wider than a phone at 390 px; then the stacks shown
    against the server's."""
    shots = {ann: ARTIFACTS / "chemmy-1280x800.png", bob: ARTIFACTS / "chemmy-390x844.png"}
    for _ in range(600):
        for page, path in list(shots.items()):
            shown = page.evaluate(
                """() => [!document.getElementById("result").hidden,
                          [...document.querySelectorAll("#table img.card")].map(c => c.alt)]"""
            )
            if shown[0] and shown[1]:
                for _ in range(100):  # (the cards' images loaded: CSP forbids wait_for_function)
                    if page.evaluate("() => [...document.images].every(i => i.complete)"):
                        break
                    page.wait_for_timeout(20)
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
    assert narrow(bob) <= 390  # Ann's 40 characters in the seats, the hands and the log
    ann.set_viewport_size(PHONE)
    assert narrow(ann) <= 390  # and in her own header
    ann.set_viewport_size(DESKTOP)
    for page in (ann, bob):  # the stack shown is the server's (once both have settled)
        for _ in range(100):
            table = page.request.get("/api/chemin-de-fer/tables/1").json()
            mine = next(s for s in table["seats"] if s["name"] == names[page])
            if page.locator("#you").get_attribute("data-stack") == mine["stack"]:
                break
            page.wait_for_timeout(50)
        expect(page.locator("#you")).to_have_attribute("data-stack", mine["stack"])


def away_and_back(
    ann: Page, bob: Page, context: BrowserContext, names: dict[Page, str], banked: set[str]
) -> tuple[Page, dict[str, Any]]:
    """Bob closes his page on his turn: Ann sees him away at once (while the table still
    waits for him) and the seconds left going down; Bob opens the table again within the
    time limit and has his turn back.  Bob's new page, and what the closed one saw."""
    for _ in range(600):
        if bob.locator("#table").get_attribute("data-state") == "your_turn":
            break
        if not act(ann, banked, names[ann]):
            ann.wait_for_timeout(50)
    expect(bob.locator("#table")).to_have_attribute("data-state", "your_turn")
    seat = bob.locator("#table").get_attribute("data-seat")
    name = names.pop(bob)
    first = seen(bob)
    bob.close()
    waiting = ann.locator("#waiting")
    expect(ann.locator(f'#seats .seat[data-seat="{seat}"] .seat-tags')).to_contain_text("away")
    expect(waiting).to_have_attribute("data-seat", str(seat))
    expect(waiting).to_have_attribute("data-away", "true")
    expect(waiting).to_contain_text(f"{BOB} is away: the table plays for them in")
    left = int(waiting.get_attribute("data-left") or 0)
    assert left > 0  # (the table still waits for him: he was shown away before the limit)
    ann.screenshot(path=str(ARTIFACTS / "chemmy-away-1280x800.png"))
    lower = "|".join(str(n) for n in range(left))
    expect(waiting).to_have_attribute("data-left", re.compile(f"^({lower})$"))
    expect(waiting).to_have_attribute("data-seat", str(seat))
    bob = context.new_page()
    names[bob] = name
    bob.goto("/chemin-de-fer/1")
    expect(bob.locator("#table")).to_have_attribute("data-state", "your_turn")
    expect(ann.locator(f'#seats .seat[data-seat="{seat}"]')).not_to_contain_text("away")
    return bob, first


def lobby_on_a_phone(context: BrowserContext) -> None:
    """The lobby at 390 px with Ann's 40 characters seated, in her own header too."""
    page = context.new_page()
    page.set_viewport_size(PHONE)
    page.goto("/chemin-de-fer")
    expect(page.locator("#chemmy-tables")).to_contain_text(ANN)
    assert narrow(page) <= 390
    page.screenshot(path=str(ARTIFACTS / "chemmy-lobby-390x844.png"), full_page=True)
    page.close()


def leave(ann: Page, bob: Page, names: dict[Page, str], banked: set[str]) -> None:
    """Both stand up; each keeps their own news (with the stack their cash-out brought
    back) after the game stops; the balance shown is the server's."""
    for page in (ann, bob):
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
        rows = page.request.get("/api/ledger").json()["rows"]
        cashed = F(next(r for r in rows if r["kind"] == "cash_out")["amount"])
        news = page.locator("#news")
        expect(news).to_contain_text("You stood up with")
        said = re.search(r"You stood up with ([0-9.]+)", news.text_content() or "")
        assert said is not None and F(said.group(1)) == cashed
    for page in (ann, bob):  # the game stopped: it says why, and the news stays
        expect(page.locator("#log")).to_contain_text("The game stops: fewer than two seats")
        expect(page.locator("#news")).to_contain_text("You stood up with")
        assert page.request.get("/api/history?game=chemin-de-fer").ok


def check_what_was_seen(server: Server, observed: dict[str, list[dict[str, Any]]]) -> None:
    """Card by card, each page showed each coup as it started until its result was shown
    (Ann's page, connected throughout, every coup that dealt cards); the draw for the bank
    apart from the hands; each sit-down once in the log."""
    full = {**records(server, ANN), **records(server, BOB)}
    checked = {
        name: {n for page in pages for n in checked_coups(page, full)}
        for name, pages in observed.items()
    }
    dealt = {n for n, record in full.items() if any(isinstance(e, HandCard) for e in record.events)}
    assert len(dealt) >= 2 and checked[ANN] == dealt, (dealt, checked)  # (she saw them all)
    assert checked[BOB] and checked[BOB] <= dealt
    first = observed[ANN][0]
    assert any(s["drawn"] >= 2 and not s["cards"] for s in first["snaps"])  # the draw
    lines = first["lines"]
    for who in (ANN, BOB):
        assert sum(line.startswith(f"{who} sits down") for line in lines) == 1, lines
    assert any(f"{BOB} (a bot) is now called" in line for line in lines)


def checked_coups(page: dict[str, Any], full: dict[int, RoundRecord]) -> set[int]:
    """The coups whose cards the page showed, each snapshot of them checked: until the
    result is shown, the coup's own number, banker and starting stacks, and one balance
    (the page's person's, if they sit in the coup)."""
    checked: set[int] = set()
    balances: dict[int, str] = {}
    for snap in page["snaps"]:
        if snap["ready"] != "true" or not snap["cards"] or snap["settled"]:
            continue
        coup = int(snap["dealt"])
        record = full.get(coup)
        if record is None:
            continue
        start = record.start
        assert snap["coup"] == str(coup), snap
        sitting = [n for n in range(len(start["names"])) if n not in start["empty"]]
        stacks = {start["names"][n]: F(start["stacks"][n]) for n in sitting}
        shown = {seat: F(stack) for seat, stack, _ in snap["seats"] if stack is not None}
        assert shown == stacks, (coup, snap)
        banker = [seat for seat, _, holds in snap["seats"] if holds]
        put = next(e.seat for e in record.events if isinstance(e, BankPut))
        assert banker == [start["names"][put]], (coup, snap)
        balance = balances.setdefault(coup, snap["balance"])
        assert snap["balance"] == balance or snap["you"] not in stacks, snap
        checked.add(coup)
    return checked
