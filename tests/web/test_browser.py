"""End to end in a real browser: Debian's Chromium (Playwright) against a real server.

For each house game: register, bet with chips, play the round on a phone's screen (hit
or stand where the game asks) with the hands, the result and the decisions in view after
every step, see the settlement and the balance change by exactly the net shown, find no
id or internal word on the page, open the recall and replay the round.  Screenshots of
each game's page after a round, at 1280x800 and 390x844, go to ``tests/artifacts/`` (not
committed) to be looked at.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from fractions import Fraction

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from cardroom.app.disclosure import paytable
from cardroom.app.words import signed
from cardroom.core.money import format_amount, parse_exact
from cardroom.games import get_game
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


#: True when every element of each selector is on the screen (above the bets' bar where
#: it is fixed at the bottom of a phone's screen), with what is not.
IN_VIEW = """(selectors) => {
  const bar = document.querySelector(".bet-bar");
  const fixed = getComputedStyle(bar).position === "fixed";
  const barTop = fixed ? bar.getBoundingClientRect().top : innerHeight;
  const out = [];
  for (const selector of selectors) {
    const found = [...document.querySelectorAll(selector)];
    if (!found.length) out.push(`${selector}: none`);
    for (const el of found) {
      const box = el.getBoundingClientRect();
      const bottom = bar.contains(el) ? innerHeight : barTop;
      if (!(box.height > 0 && box.top >= 0 && box.bottom <= bottom + 0.5)) {
        const [top, end] = [box.top, box.bottom].map(Math.round);
        out.push(`${selector}: ${top} to ${end}, the screen 0 to ${Math.round(bottom)}`);
      }
    }
  }
  return out;
}"""


def expect_in_view(page: Page, *selectors: str) -> None:
    """Each of ``selectors`` is on the screen (waited for: the page may still scroll)."""
    try:
        page.wait_for_function(f"(s) => ({IN_VIEW})(s).length === 0", arg=list(selectors))
    except PlaywrightError:
        pytest.fail(f"not in view: {page.evaluate(IN_VIEW, list(selectors))}")


#: What must never reach a person: ids with "_", CamelCase class names, "#12", raw ids
#: and values of code.
INTERNAL = re.compile(
    r"[A-Za-z0-9]_[A-Za-z0-9]|\b[A-Z][a-z]+[A-Z][A-Za-z]*|\b[a-z]+[A-Z][A-Za-z]*|#\d"
    r"|\b(?:None|null|undefined|NaN|Traceback|id)\b"
)


def internal_words(page: Page) -> list[str]:
    """Anything internal in what a person reads on the page: its visible text and the
    text alternatives a screen reader reads (labels, alt texts, titles)."""
    text = page.evaluate(
        """() => [document.body.innerText,
          ...[...document.querySelectorAll("[aria-label], [alt], [title]")].map(
            (e) => [e.getAttribute("aria-label"), e.getAttribute("alt"), e.getAttribute("title")]
              .filter(Boolean).join(" "))].join("\\n")"""
    )
    return [m.group(0) for m in INTERNAL.finditer(text)]


def play_round(page: Page, game: str, wager: str, chips: int = 1, phone: bool = False) -> Fraction:
    """Bet ``chips`` minimum chips on ``wager``, play the round out; the net shown.  On a
    ``phone``, the hands, the result and the decisions are seen together after each step."""
    page.goto(f"/play/{game}")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    for _ in range(chips):
        page.locator(f'.add[data-wager="{wager}"]').click()
    if phone:  # down at the bottom of the page, as after looking at the scoreboards
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        expect_in_view(page, "#deal")  # the bets' bar: at the bottom of the screen
    page.get_by_role("button", name="Deal", exact=True).click()
    table = page.locator("#table")
    expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    while table.get_attribute("data-state") == "awaiting_action":
        hit, stand = page.locator("#hit"), page.locator("#stand")
        assert hit.is_enabled() or stand.is_enabled()
        if phone:
            expect_in_view(page, "#table .hand", "#status", "#decide button")
        (stand if stand.is_enabled() else hit).click()
        expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    expect(page.locator("#settlement")).to_be_visible()
    if phone:
        expect_in_view(page, "#table .hand", "#status", "#result", "#settlement", "#deal")
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
    """The page after a round on the phone (what is on the screen, and the whole page),
    then at 1280x800."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{game}-390x844.png"))
    page.screenshot(path=str(ARTIFACTS / f"{game}-390x844-full.png"), full_page=True)
    # nothing sticks out sideways on a phone
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide on a 390px phone"
    page.set_viewport_size(DESKTOP)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{game}-1280x800.png"))


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
    page.set_viewport_size(PHONE)
    net = play_round(page, game, wager, chips=2, phone=True)
    after = balance(page)
    assert after - before == net
    assert F(page.locator("#balance-after").inner_text()) == after
    rows = page.locator("#settlement-rows tr")
    expect(rows).to_have_count(1)
    assert rows.first.get_attribute("data-wager") == wager
    assert page.locator("#log li").count() >= 5
    check_cards(page)
    # the result is said (a live region), with the net and the new balance
    result = page.locator("#result")
    assert result.get_attribute("aria-live") == "polite"
    expect(result).to_contain_text(f"balance {page.locator('#balance').inner_text()}")
    # the scoreboards show this shoe's round
    expect(page.locator("#bead-plate .mark")).to_have_count(1)
    assert internal_words(page) == []
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


def focused(page: Page) -> str:
    return str(page.evaluate("document.activeElement.id"))


def finished_or_asking(page: Page) -> str:
    table = page.locator("#table")
    expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    return str(table.get_attribute("data-state"))


def test_21_24_27_with_the_keyboard_alone_reloaded_and_in_two_tabs(page: Page) -> None:
    register(page)
    other = page.context.new_page()  # a second tab, opened before the round
    other.goto("/play/21-24-27")
    page.goto("/play/21-24-27")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    page.locator("#bet-player").focus()
    page.keyboard.type("10")
    page.keyboard.press("Tab")  # the "+ chip" button
    page.keyboard.press("Tab")  # Deal
    assert focused(page) == "deal"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # the focus shows
    for _ in range(30):  # Enter deals again and again: focus stays on Deal after a round
        before = page.locator("#table").get_attribute("data-round") or ""
        page.keyboard.press("Enter")
        # the new round on the table (not the last one's state, still shown a moment)
        expect(page.locator("#table")).not_to_have_attribute("data-round", before)
        if finished_or_asking(page) == "awaiting_action":
            break
        assert focused(page) == "deal"
        expect(page.locator("#result")).to_contain_text("balance")  # said: a live region
    else:
        pytest.fail("no round asked for a decision")
    # the decision has focus on an enabled button
    assert focused(page) in ("hit", "stand")
    expect(page.locator("#asked")).to_contain_text("Your choice")
    # a reload in mid-round: the round is back with its stake, to be finished
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    assert page.locator("#table").get_attribute("data-state") == "awaiting_action"
    expect(page.locator("#bet-player")).to_have_value("10")
    expect(page.locator("#in-play")).to_contain_text("Player 10")
    assert focused(page) in ("hit", "stand")
    # the tab opened before the round: Deal brings the round in play there, to finish it
    expect(other.locator("#table")).to_have_attribute("data-ready", "true")
    other.locator("#bet-player").fill("10")
    other.locator("#deal").focus()
    other.keyboard.press("Enter")
    expect(other.locator("#table")).to_have_attribute("data-state", "awaiting_action")
    expect(other.locator("#message")).to_contain_text("not finished yet")
    expect(other.locator("#in-play")).to_contain_text("Player 10")
    assert internal_words(other) == []  # no round number, no id
    while finished_or_asking(other) == "awaiting_action":
        assert focused(other) in ("hit", "stand")
        other.keyboard.press("Enter")
    expect(other.locator("#log .chosen").first).to_contain_text("your choice")
    assert focused(other) == "deal"  # the next action after the last decision
    # the first tab's decision finds the round over: it shows how it ended
    page.locator("#hit:enabled, #stand:enabled").first.click()
    expect(page.locator("#table")).to_have_attribute("data-state", "finished")
    expect(page.locator("#balance")).to_have_text(other.locator("#balance").inner_text())
    assert F(str(page.locator("#round-net").get_attribute("data-net"))) == F(
        str(other.locator("#round-net").get_attribute("data-net"))
    )
    other.close()


def test_bets_the_table_refuses_say_why(page: Page) -> None:
    register(page)
    page.goto("/play/punto-banco")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    for amount, said in [
        ("5", "Your bet on Player, 5, is below the table minimum of 10."),
        ("2000", "Your bet on Player, 2000, is above the table maximum of 1000."),
        ("ten", "Your bet on Player, “ten”, is not an amount"),
        ("-5", "A bet cannot be negative: type how much to bet on Player"),
        ("10.001", "Your bet on Player, 10.001, is not in whole cents."),
    ]:
        page.locator("#bet-player").fill(amount)
        page.get_by_role("button", name="Deal", exact=True).click()
        expect(page.locator("#message")).to_contain_text(said)
        expect(page.locator("#table")).to_have_attribute("data-state", "betting")
        assert balance(page) == 1000
    page.locator("#bet-player").fill("")
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#message")).to_contain_text("Place a bet first")


#: Amounts as the wire writes them, and others a page may meet.
AMOUNTS = ["0", "10", "10.5", "10.50", "1010.5", "0.005", "-10", "-0.5", "9.97", "12.345"]
AMOUNTS += ["1000000", "0.01", "-3.10", "007.10", "-0", "10.00", "1/3"]


def test_baccarat_27_bets_as_an_online_player_expects(page: Page) -> None:
    """Chips that say at once what the table or the balance refuses, Rebet and Double,
    bets kept across a reload, pairs on the bead plate, the dealing speed, what the
    banker pays, and money written by the page exactly as by the server."""
    register(page)
    page.goto("/play/baccarat27")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    rules = get_game("baccarat27").default_rules()
    pays = {row.wager: row.on_spot for row in paytable("baccarat27", rules)}
    expect(page.locator('.spot[data-wager="banker"] .pays')).to_have_text(f"pays {pays['banker']}")
    expect(page.locator('.spot[data-wager="player_pair"] .wager-name')).to_have_text("Player pair")
    add = {w: page.locator(f'.add[data-wager="{w}"]') for w in ("banker", "tie", "player_pair")}
    add["player_pair"].click()
    add["player_pair"].click()
    add["tie"].click()
    expect(page.locator("#bet-total")).to_have_text("30")
    # a chip above the table maximum, or the balance, is refused at once, saying why
    page.locator("#bet-banker").fill("1000")
    add["banker"].click()
    expect(page.locator("#message")).to_contain_text("above the table maximum of 1000")
    expect(page.locator("#bet-banker")).to_have_value("1000")
    page.locator("#bet-banker").fill("960")
    add["banker"].click()  # 970: 1000 in all
    expect(page.locator("#bet-banker")).to_have_value("970")
    add["banker"].click()
    expect(page.locator("#message")).to_contain_text("more than your balance of 1000")
    expect(page.locator("#bet-banker")).to_have_value("970")
    page.locator("#bet-banker").fill("")
    # the bets on the spots are kept across a reload; the dealing speed too
    assert page.locator("#speed").input_value() == "instant"  # the system's reduced motion
    page.locator("#speed").select_option("normal")
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    expect(page.locator("#bet-player_pair")).to_have_value("20")
    expect(page.locator("#bet-tie")).to_have_value("10")
    expect(page.locator("#bet-banker")).to_have_value("")
    assert page.locator("#speed").input_value() == "normal"
    page.locator("#speed").select_option("instant")
    page.locator("#deal").click()
    expect(page.locator("#table")).to_have_attribute("data-state", "finished")
    # pairs on the bead plate: the player's and banker's first two cards, as dealt
    for hand in ("player", "banker"):
        ranks = page.locator(f'.hand[data-hand="{hand}"] img.card').evaluate_all(
            "cards => cards.slice(0, 2).map(c => c.dataset.card[0])"
        )
        paired = page.locator(f"#bead-plate .mark.paired-{hand}")
        expect(paired).to_have_count(1 if ranks[0] == ranks[1] else 0)
    # Rebet puts the last round's bets back; Double doubles them
    page.get_by_role("button", name="Clear", exact=True).click()
    expect(page.locator("#bet-total")).to_have_text("0")
    page.get_by_role("button", name="Rebet", exact=True).click()
    expect(page.locator("#bet-player_pair")).to_have_value("20")
    expect(page.locator("#bet-tie")).to_have_value("10")
    page.get_by_role("button", name="Double", exact=True).click()
    expect(page.locator("#bet-player_pair")).to_have_value("40")
    expect(page.locator("#bet-total")).to_have_text("60")
    assert internal_words(page) == []
    # money: the page's script writes every amount exactly as the server does
    written = page.evaluate(
        """async (amounts) => {
             const money = await import("/static/api.js");
             return amounts.map((a) => [money.showMoney(a), money.showSigned(a)]);
           }""",
        AMOUNTS,
    )
    for amount, (shown, with_sign) in zip(AMOUNTS, written, strict=True):
        if "/" in amount:
            assert shown == amount  # not money: shown as it is
            continue
        value = parse_exact(amount)
        assert (shown, with_sign) == (format_amount(value), signed(value)), amount
    # and the balance the server wrote on the page is the one the script writes
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    header = page.locator("#balance")
    shown_by_page = page.evaluate(
        "async (b) => (await import('/static/api.js')).showMoney(b)",
        header.get_attribute("data-balance"),
    )
    assert header.inner_text() == shown_by_page == format_amount(balance(page))


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
