"""What a person sees in the browser, held where a tryout found it wrong: a decided round
of 21-24-27 keeps its shoe, the history says each hand's total and who won, a lab
variant's table gives its rules in words with its edges and PAR sheet, the money and the
wagers are written as the table writes them, a result of bets won and lost says both,
and a name too long is refused saying the limit."""

from __future__ import annotations

import re
import secrets
from fractions import Fraction

from playwright.sync_api import Page, expect

from tests.web.browser import ARTIFACTS, Server
from tests.web.test_browser import DESKTOP, PHONE, page, register, server

__all__ = ["page", "server"]  # the fixtures, shared with test_browser

F = Fraction
#: an amount as a person reads it: whole, or with two places (never "987.5")
AMOUNT = re.compile(r"^[+-]?\d+(?:\.\d\d\d*)?$|^±0$")


def deal(page: Page, wager: str, decide: str = "stand") -> str:
    """Deal a round at the page's table with one chip on ``wager``, deciding ``decide``
    (else the other) where asked; the state it ends in."""
    page.locator(f'.add[data-wager="{wager}"]').click()
    page.get_by_role("button", name="Deal", exact=True).click()
    table = page.locator("#table")
    expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    decided = False
    while table.get_attribute("data-state") == "awaiting_action":
        decided = True
        choice = page.locator(f"#{decide}")
        (choice if choice.is_enabled() else page.locator("#hit, #stand").first).click()
        expect(table).to_have_attribute("data-state", re.compile("^(finished|awaiting_action)$"))
    return "decided" if decided else "dealt"


def test_a_decided_round_of_21_24_27_keeps_its_shoe(page: Page) -> None:
    """A round finished by a decision saved no shoe, and the next opened a new one with
    its banner (issue 32)."""
    register(page)
    page.goto("/play/21-24-27")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    kinds = []
    for n in range(12):
        kinds.append(deal(page, "player", "stand" if n % 2 else "hit"))
        if n == 0:  # the first round shuffles the table's first shoe, and says so
            expect(page.locator("#reshuffle")).to_contain_text("shoe 1")
        else:
            expect(page.locator("#reshuffle")).to_be_hidden()
        expect(page.locator("#shoe-no")).to_contain_text("1")
        expect(page.locator("#bead-plate .mark")).to_have_count(n + 1)
        page.locator("#clear").click()
    assert "decided" in kinds


def test_the_history_says_each_hand_s_total_and_who_won(page: Page) -> None:
    register(page)
    for game, wager in (("finnish27", "player"), ("punto-banco", "banker")):
        page.goto(f"/play/{game}")
        expect(page.locator("#table")).to_have_attribute("data-ready", "true")
        deal(page, wager)
    page.goto("/history")
    items = page.locator(".recalled")
    expect(items).to_have_count(2)
    baccarat, finnish = items.nth(0), items.nth(1)
    expect(baccarat.locator(".recall-hands h3").first).to_have_text(re.compile(r"^Player: \d$"))
    expect(baccarat.locator(".recall-hands h3").nth(1)).to_have_text(re.compile(r"^Banker: \d$"))
    expect(baccarat.locator(".outcome-line")).to_have_text(
        re.compile(r"^(Player wins|Banker wins|Tie)")
    )
    titles = finnish.locator(".recall-hands h3")
    expect(titles.first).to_have_text(re.compile(r"^Player: (hard|soft|\d)"))
    expect(finnish.locator(".outcome-line")).to_have_text(
        re.compile(r"^(Player|Dealer) wins|^Push")
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "history-totals-1280x800.png"))


def test_a_variant_s_table_says_its_rules_and_leads_to_its_edges(page: Page) -> None:
    register(page)
    page.goto("/lab?game=punto-banco")
    page.locator("#b-shoe\\.decks").fill("6")
    page.get_by_role("button", name="Keep variant B for a public table").click()
    kept = page.locator('.lab-kept[data-side="b"]')
    expect(kept).to_contain_text("is kept as")
    variant = re.search(r"[0-9a-f]{20}", kept.inner_text())
    assert variant is not None
    page.goto(f"/play/punto-banco?variant={variant[0]}")
    # (no operator put it on a public table: its page says it takes no bets)
    expect(page.locator("#not-public")).to_contain_text(variant[0])
    rules = page.locator("#variant-rules")
    rules.locator("summary").first.click()
    expect(rules).to_contain_text("The shoe holds 6 decks (312 cards)")  # the variant's, in words
    expect(rules.locator(".rules-table caption").last).to_have_text(
        "The banker's third card when the player drew"
    )
    expect(rules.locator("pre")).to_be_hidden()  # its file, folded away
    page.get_by_role("link", name="This variant's rules, paytable and exact house edge").click()
    expect(page.locator("h1")).to_contain_text("of variant")
    expect(page.locator("#paytable")).to_have_attribute("data-status", "ready", timeout=120_000)
    expect(page.locator('#paytable tr[data-wager="tie"] .edge')).to_have_text(
        re.compile(r"^-?\d+\.\d+%$")
    )
    expect(page.get_by_role("link", name="PDF")).to_have_attribute(
        "href", re.compile(r"/rules/punto-banco/par\?format=pdf&variant=[0-9a-f]{20}$")
    )


def test_money_and_wagers_read_as_the_table_writes_them(page: Page) -> None:
    register(page)
    page.goto("/play/punto-banco")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    said = None
    for _ in range(40):  # a bet on each side: one wins and the other loses (or a tie)
        page.locator('.add[data-wager="player"]').click()
        deal(page, "banker")
        text = page.locator("#result").inner_text()
        if "lose" in text and "win" in text:
            said = text
            if "±0" in text:
                break
        page.locator("#clear").click()
    assert said is not None and re.search(r"You win [\d.]+, lose [\d.]+: [-+±][\d.]+", said), said
    page.goto("/play/baccarat27")
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    deal(page, "b27")
    page.goto("/wallet")
    rows = page.locator("#ledger tbody tr")
    for amount in rows.locator(".amount").all_inner_texts():
        assert AMOUNT.match(amount), amount
    for balance in rows.locator("td:nth-child(4)").all_inner_texts():
        assert AMOUNT.match(balance), balance
    expect(rows.first.locator(".what")).to_contain_text("B-27")
    assert "b27" not in page.locator("#ledger").inner_text()
    shown = page.locator("#balance").inner_text()
    assert page.locator("#wallet-balance").inner_text() == shown  # as the header writes it
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "wallet-amounts-390x844.png"))
    page.set_viewport_size(DESKTOP)


def test_a_name_too_long_is_refused_saying_the_limit(page: Page, server: Server) -> None:
    name = ("Wilhelmina" + secrets.token_hex(3)) * 7  # 112 characters
    page.goto("/register")
    page.get_by_label("Name").fill(name[:70])
    assert page.get_by_label("Name").input_value() == name[:70]  # typed whole, not cut
    page.get_by_label("Password").fill("a good password")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#form-error")).to_have_text(
        "a name has at most 40 characters, and this one has 70: choose a shorter one"
    )
    expect(page.get_by_text("(up to 40 characters)")).to_be_visible()
