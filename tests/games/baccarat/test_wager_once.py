"""A punto banco wager is written once: one added here, outside the package, is settled
by the engine, counted by the exact analysis, simulated by the kernel and shown on the
rules page, with nothing else changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from fractions import Fraction

import pytest

from cardroom.app.disclosure import paytable
from cardroom.app.runner import run
from cardroom.app.words import wager_label
from cardroom.core.cards import Rank, parse_cards
from cardroom.core.events import Why
from cardroom.games.baccarat import (
    WAGERS,
    BaccaratRound,
    BaccaratRules,
    CoupFacts,
    PayLine,
    Wager,
    baccarat27_rules,
    register,
    unregister,
)
from cardroom.games.baccarat.analysis import analyze_baccarat, analyze_composition
from cardroom.games.baccarat.kernel import BaccaratKernel
from cardroom.games.walk import exact

NINE_PAYS = Fraction(3)


def _nine_lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
    return (
        PayLine(
            "banker wins with 9",
            lambda c: c.outcome == "banker" and c.banker_total == 9,
            NINE_PAYS,
            lambda c: Why.of("pays", wager="banker_nine", odds=NINE_PAYS),
        ),
        PayLine("loss", lambda c: True, Fraction(-1), lambda c: Why.of("won_by", winner="x")),
    )


NINE = Wager(
    id="banker_nine",
    reads=frozenset({"outcome", "banker_total"}),
    lines=_nine_lines,
    odds=lambda rules: NINE_PAYS,
    when=lambda rules: "the banker wins with a total of 9",
    name="banker 9",
)


@pytest.fixture
def nine() -> Iterator[BaccaratRules]:
    """baccarat27 offering the new wager beside its own side wagers."""
    register(NINE)
    try:
        rules = baccarat27_rules()
        yield dataclasses.replace(rules, side_wagers=(*rules.side_wagers, NINE.id))
    finally:
        unregister(NINE.id)


def coup(rules: BaccaratRules, cards: str) -> BaccaratRound:
    round_ = BaccaratRound(rules, {"banker_nine": 10, "banker": 10})
    for card in parse_cards(cards):
        round_.deal(card)
    assert round_.is_complete
    return round_


def test_the_engine_settles_it(nine: BaccaratRules) -> None:
    assert "banker_nine" in nine.wager_ids
    won = coup(nine, "2h 4c 3d 5s")  # player 5, banker 9: a natural
    assert won.net["banker_nine"] == 30
    lost = coup(nine, "2h 4c 3d 4s")  # player 5, banker 8
    assert lost.net["banker_nine"] == -10


def test_the_analysis_counts_it_as_the_engine_plays_it(nine: BaccaratRules) -> None:
    # a small shoe (the walk over the engine is slow on a whole deck) that makes 9s
    counts = {Rank.ACE: 2, Rank.FOUR: 2, Rank.FIVE: 2, Rank.EIGHT: 2, Rank.NINE: 2, Rank.KING: 3}
    report = analyze_composition(nine, counts, "baccarat27")
    stake = nine.table.minimum
    dist = exact(lambda: BaccaratRound(nine, {"banker_nine": stake}), counts)
    by_engine: dict[Fraction, Fraction] = {}
    for leaf, p in dist.items():
        _outcome, _bonus, net = leaf  # type: ignore[misc]
        for _wager, amount in net:
            by_engine[amount / stake] = by_engine.get(amount / stake, Fraction(0)) + p
    lines = report.wagers["banker_nine"].lines
    assert [line.name for line in lines] == ["banker wins with 9", "loss"]
    assert {line.payout: line.probability for line in lines} == by_engine
    win = lines[0].probability
    assert win > 0
    assert report.wagers["banker_nine"].expected == 3 * win - (1 - win)


def test_the_kernel_simulates_it(nine: BaccaratRules) -> None:
    exact_ = -analyze_baccarat(nine, "baccarat27").wagers["banker_nine"].house_edge
    result = run("baccarat27", nine, 200_000, seed=7)
    index = result.wager_ids.index("banker_nine")
    figures = result.wager(index, exact_)
    assert figures.z is not None and abs(figures.z) < 4
    # and the kernel's nets are the wager's, cell by cell
    kernel = BaccaratKernel(nine)
    nets = kernel.cell_nets()[kernel.wager_ids.index("banker_nine")]
    for cell, net in enumerate(nets):
        outcome, total = ("player", "banker", "tie")[cell // 40], cell % 40 // 4
        expected = NINE_PAYS if (outcome, total) == ("banker", 9) else -1
        assert Fraction(int(net), kernel.unit) == expected


def test_the_rules_page_shows_it(nine: BaccaratRules) -> None:
    rows = {row.wager: row for row in paytable("baccarat27", nine)}
    assert rows["banker_nine"].pays == "3:1"
    assert rows["banker_nine"].when == "the banker wins with a total of 9"
    assert list(rows)[-1] == "banker_nine"
    assert wager_label("banker_nine") == "Banker 9"  # its words, on the page and the table


def test_what_cannot_be_counted_is_refused_in_a_line() -> None:
    both = dataclasses.replace(
        NINE, id="paired_banker", reads=frozenset({"banker_pair", "outcome"})
    )
    register(both)
    try:
        rules = dataclasses.replace(baccarat27_rules(), side_wagers=("paired_banker",))
        with pytest.raises(ValueError, match="paired_banker reads banker_pair, outcome together"):
            analyze_baccarat(rules, "baccarat27")
    finally:
        unregister("paired_banker")
    player = dataclasses.replace(NINE, id="player_nine", reads=frozenset({"player_total"}))
    register(player)
    try:
        rules = dataclasses.replace(baccarat27_rules(), side_wagers=("player_nine",))
        with pytest.raises(ValueError, match="player_nine reads player_total, which the kernel"):
            BaccaratKernel(rules)
    finally:
        unregister("player_nine")
    with pytest.raises(ValueError, match="is already a punto banco wager"):
        register(WAGERS["b27"])
    with pytest.raises(ValueError, match="b27 is not a wager that was added"):
        unregister("b27")
    with pytest.raises(ValueError, match="dice is not a fact of a coup"):
        Wager("x", frozenset({"dice"}), _nine_lines, NINE.when, NINE.odds)


def test_facts_of_a_coup() -> None:
    assert CoupFacts("tie", 3, 3, banker_pair=True).pair("banker")
