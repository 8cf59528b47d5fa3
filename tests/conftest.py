"""Shared test helpers: play a round of any engine on given cards."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import pytest
from hypothesis import settings

from cardroom.app.tables.audit import audit
from cardroom.app.wallet import Wallet
from cardroom.core.cards import parse_cards
from cardroom.games.base import PLAYER_SEAT, Action, Round
from cardroom.storage import Database

# exact results cached on disk go to a folder of the test run, not the user's cache
os.environ.setdefault(
    "CARDROOM_CACHE_DIR", os.path.join(tempfile.mkdtemp(prefix="cardroom-test-cache-"), "exact")
)

settings.register_profile("ci", deadline=None, max_examples=100)
settings.load_profile("ci")

#: a database on each kind of server, for every test that needs one
pytest_plugins = ["tests.databases"]


def assert_books_and_rounds(
    db: Database, request: pytest.FixtureRequest | None = None, *, rounds: bool = True
) -> None:
    """What ``cardroom audit`` checks, after a test that moved money: every account's
    books add up and (``rounds``) every round in progress waits for a decision; the
    wallet's own tests open rounds with no table's state, and check only the books.  A
    test that breaks the books on purpose is marked ``books_broken``."""
    if request is not None and request.node.get_closest_marker("books_broken") is not None:
        return
    if not rounds:
        Wallet(db).books.audit_all()
        return
    report = audit(Wallet(db))
    assert report.ok, "\n".join(report.problems)


def play(rnd: Round, cards: str, decide: Callable[[Round], Action] | None = None) -> Round:
    """Deal ``cards`` (codes in dealing order) into ``rnd`` until it is complete.

    Fails the test if the round wants more cards than given, or is complete with
    cards left over (so every stacked hand in a test is exactly what it says).
    """
    deck = list(parse_cards(cards))
    while not rnd.is_complete:
        if rnd.next_hand is None:
            assert decide is not None, "the round asks for a decision"
            rnd.act(PLAYER_SEAT, decide(rnd))
            continue
        assert deck, f"the round wants more cards than {cards!r}"
        rnd.deal(deck.pop(0))
    assert not deck, f"cards left over: {[c.code for c in deck]}"
    return rnd
