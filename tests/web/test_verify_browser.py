"""Shoes anyone can verify (docs/fairness.md) in a real browser at 1280x800 and 390x844:
the house table's page shows the shoe's commitment before its first card; a one-deck
shoe played to its end through the page's session is revealed, linked from the table
and checked on ``/verify`` by the browser's own SubtleCrypto, card by card; another
seed is refused.  Screenshots go to ``tests/artifacts/``; nothing scrolls sideways."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from cardroom.core.rules import apply_rules
from cardroom.games import get_game
from tests.web.browser import Server
from tests.web.test_browser import page, register
from tests.web.test_records_browser import shots

__all__ = ["page"]

GAME = "punto-banco"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose punto banco shoe is one deck (a shoe ends in about ten rounds)."""
    rules = {GAME: apply_rules(get_game(GAME).default_rules(), {"shoe": {"decks": 1}})}
    with Server(tmp_path_factory.mktemp("fair") / "web.sqlite3", rules=rules) as running:
        yield running


def _shoes(page: Page) -> dict[str, Any]:
    answer = page.request.get(f"/api/shoes?table={GAME}")
    assert answer.status == 200, answer.text()
    data: dict[str, Any] = answer.json()
    return data


def test_a_shoe_committed_on_the_table_and_checked_on_verify(page: Page, server: Server) -> None:
    register(page)
    page.goto(f"/play/{GAME}")
    fair = page.locator("#fair")
    # before the first card: the next shoe's commitment, in full in the title
    expect(fair).to_be_visible()
    before = _shoes(page)
    expect(fair.locator("code.hash")).to_have_count(1)
    expect(fair.locator("code.hash")).to_have_attribute("title", before["next_commitment"])
    shots(page, "fair-table-before")

    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content") or ""
    played = []
    for _ in range(30):
        answer = page.request.post(
            f"/api/games/{GAME}/rounds",
            data={"bets": {"banker": "10"}},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status == 201, answer.text()
        played.append(answer.json()["id"])
        if len(played) == 1:  # the shoe dealing, and the next one's, both committed
            page.reload()
            hashes = fair.locator("code.hash")
            expect(hashes).to_have_count(2)
            expect(hashes.first).to_have_attribute("title", before["next_commitment"])
            expect(page.locator("#verify-last")).to_have_count(0)
        if answer.json()["reshuffle_due"]:
            break
    else:
        pytest.fail("a one-deck shoe lasted over 30 rounds")

    # the shoe deals no more: its seed is revealed, and the table links to its check
    last = _shoes(page)["shoes"][0]
    assert last["revealed"] and last["commitment"] == before["next_commitment"]
    assert hashlib.sha256(bytes.fromhex(last["server_seed"])).hexdigest() == last["commitment"]
    page.reload()
    link = page.locator("#verify-last")
    expect(link).to_have_attribute("href", f"/verify?shoe={last['id']}")
    expect(fair.locator(f'code[title="{last["server_seed"]}"]')).to_have_count(1)
    shots(page, "fair-table")

    link.click()
    seed = page.locator('input[name="seed"]')
    expect(seed).to_have_value(last["server_seed"])
    expect(page.locator('input[name="commitment"]')).to_have_value(last["commitment"])
    expect(page.locator('input[name="client"]')).to_have_value(last["client_seed"])
    check = page.get_by_role("button", name="Rebuild and check")
    check.click()
    result = page.locator("#verify-result")
    expect(result).to_have_attribute("data-ok", "yes")
    expect(result).to_contain_text(f"every card of {len(played)} rounds")
    expect(page.locator("#verify-rounds li")).to_have_count(0)
    shots(page, "verify-ok")

    # another seed: it is not the one committed to, and the cards are not its shoe's
    seed.fill("ab" * 32)
    check.click()
    expect(result).to_have_attribute("data-ok", "no")
    expect(result).to_contain_text("does NOT match")
    expect(page.locator("#verify-rounds li").first).to_contain_text("not the commitment")
    shots(page, "verify-other-seed")
