"""A finnish27 award is written once: one added here, outside the package (two Jacks
and a 5, paying 4:1), is settled by the engine, counted by both exact analyses (with
cards drawn with replacement and from the real shoe), simulated by the kernel and shown
on the rules page, at a table whose bonus table names it, with nothing else changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from fractions import Fraction

import pytest

from cardroom.analysis.report import GameReport
from cardroom.app.disclosure import rules_text
from cardroom.app.words import plain, settlement_line
from cardroom.core.cards import Rank, parse_cards
from cardroom.core.events import Settled
from cardroom.core.rules import RulesError, apply_rules
from cardroom.core.shoe import ShoeRules
from cardroom.games.base import Round
from cardroom.games.finnish.analysis import analyze_finnish27
from cardroom.games.finnish.bonuses import Award, register, unregister
from cardroom.games.finnish.finnish27 import Finnish27Round, Finnish27Rules
from cardroom.games.finnish.kernel import Finnish27Kernel
from cardroom.games.finnish.replacement import DrawOdds
from cardroom.games.finnish.shoe import analyze_finnish27_shoe
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.walk import exact
from cardroom.simulation.prng import batch_state
from tests.games.finnish.test_shoe import compile_once
from tests.games.test_kernels import replay_against_engine

JJ5 = Award(
    "jacks_and_five",
    (5, 11, 11),
    lambda ask: "exactly three cards, two Jacks and a 5",
    label="J-J-5",
    pays=lambda bonus: Fraction(4),
)
LINE = "win + J-J-5 4:1"
#: a small shoe (the walk over the engine is slow on a whole one) that deals J-J-5s
SMALL = {Rank.FIVE: 2, Rank.JACK: 3, Rank.NINE: 2, Rank.KING: 2, Rank.ACE: 1, Rank.TEN: 2}


def offering(rules: Finnish27Rules) -> Finnish27Rules:
    """``rules`` with a bonus table that pays the added award."""
    return dataclasses.replace(
        rules, bonus=dataclasses.replace(rules.bonus, added_awards=(JJ5.key,))
    )


@pytest.fixture
def jj5() -> Iterator[Finnish27Rules]:
    register(JJ5)
    try:
        yield offering(Finnish27Rules())
    finally:
        unregister(JJ5.key)


def award_chance(rules: Finnish27Rules, counts: dict[Rank, int], replacement: bool) -> Fraction:
    """The chance of the award by the generic walk of the engine (the award does not read
    suits, so the walk's cards of one suit give it exactly)."""

    def leaf(rnd: Round) -> bool:
        assert isinstance(rnd, Finnish27Round)
        return rnd.bonus_key == JJ5.key

    walked = exact(lambda: Finnish27Round(rules), counts, leaf=leaf, replacement=replacement)
    return walked.get(True, Fraction(0))


def chance_of(report: GameReport, name: str) -> Fraction:
    """The chance of the player wager's line ``name`` in ``report``."""
    [found] = [x.probability for x in report.wagers["player"].lines if x.name == name]
    return found


def test_the_engine_settles_it(jj5: Finnish27Rules) -> None:
    rnd = Finnish27Round(jj5, {"player": Fraction(10)})
    for card in parse_cards("Jh 7c Jd 9s 5h"):  # player J J then 5: 27, a win
        rnd.deal(card)
    assert rnd.outcome == "player" and rnd.bonus_key == JJ5.key and rnd.bonus == "J-J-5"
    assert rnd.net["player"] == 10 + 4 * 10
    # a table that does not name it pays the same hand no bonus
    plain = Finnish27Round(Finnish27Rules(), {"player": Fraction(10)})
    for card in parse_cards("Jh 7c Jd 9s 5h"):
        plain.deal(card)
    assert plain.bonus_key is None and plain.net["player"] == 10


@pytest.mark.long  # (the real shoe's count below stays in make test)
def test_the_analysis_with_replacement_counts_it_as_the_engine_plays_it(
    jj5: Finnish27Rules,
) -> None:
    report = analyze_finnish27(jj5, odds=DrawOdds.of_counts(SMALL))
    chance = chance_of(report, LINE)
    assert chance > 0 and chance == award_chance(jj5, SMALL, replacement=True)
    # the paytable's order: the source's awards, then the added one
    names = [x.name for x in report.wagers["player"].lines]
    assert names.index(LINE) == len(names) - 3  # before the push and the loss


def test_the_real_shoe_counts_it_as_the_engine_plays_it(jj5: Finnish27Rules) -> None:
    compile_once()
    shoe = ShoeMakeup.of_counts(SMALL)
    report = analyze_finnish27_shoe(jj5, shoe)
    chance = chance_of(report, LINE)
    assert chance > 0 and chance == award_chance(jj5, SMALL, replacement=False)


def test_the_kernel_simulates_it(jj5: Finnish27Rules) -> None:
    # a shoe of many Jacks and Fives, so that the award comes often
    many = (8, 4, 4, 4, 24, 4, 4, 4, 4, 4, 24, 4, 4)
    rules = dataclasses.replace(
        jj5, shoe=ShoeRules(decks=2, jokers_per_deck=2, reshuffle_after=60, cards_per_rank=many)
    )
    kernel = Finnish27Kernel(rules)
    assert kernel.bonus_keys[-1] == JJ5.key
    nets = kernel.cell_nets()[kernel.wager_ids.index("player")]
    cell = kernel.bonus_keys.index(JJ5.key) + 1  # the player wins, with the award
    assert Fraction(int(nets[cell]), kernel.unit) == 1 + 4
    replay_against_engine("finnish27", rules, "basic", 3_000)  # cell by cell, same shoes
    _, cells = kernel.run(batch_state(2026, 7), 3_000, record=True)
    assert (cells == cell).sum() > 0  # (the replay above dealt these very rounds)


def test_the_rules_page_shows_it(jj5: Finnish27Rules) -> None:
    [rows] = [rows for title, _, rows in rules_text("finnish27", jj5).tables if "Bonus" in title]
    assert ["J-J-5", "exactly three cards, two Jacks and a 5", "4:1 on the stake"] in rows
    assert rows[-1][0] == "J-J-5"
    [plain] = [
        rows
        for title, _, rows in rules_text("finnish27", Finnish27Rules()).tables
        if "Bonus" in title
    ]
    assert "J-J-5" not in {row[0] for row in plain}


def test_a_rules_file_names_it_and_only_an_added_award() -> None:
    register(JJ5)
    try:
        rules = apply_rules(Finnish27Rules(), {"bonus": {"added_awards": [JJ5.key]}})
        assert rules.bonus.added_awards == (JJ5.key,)
    finally:
        unregister(JJ5.key)
    with pytest.raises(RulesError, match="'jacks_and_five' is not an award added"):
        apply_rules(Finnish27Rules(), {"bonus": {"added_awards": [JJ5.key]}})
    with pytest.raises(RulesError, match="'jo_jo' is not an award added"):
        apply_rules(Finnish27Rules(), {"bonus": {"added_awards": ["jo_jo"]}})
    with pytest.raises(ValueError, match="jo_jo is already a finnish27 award"):
        register(dataclasses.replace(JJ5, key="jo_jo"))
    with pytest.raises(ValueError, match="an award is for a hand of two or three cards"):
        register(dataclasses.replace(JJ5, key="four", shape=(1, 2, 3, 4)))
    with pytest.raises(ValueError, match="jo_jo is not an award that was added"):
        unregister("jo_jo")


def test_its_settlement_reads_with_its_name(jj5: Finnish27Rules) -> None:
    rnd = Finnish27Round(jj5, {"player": Fraction(10)})
    for card in parse_cards("Jh 7c Jd 9s 5h"):
        rnd.deal(card)
    settled = [e for e in rnd.events if isinstance(e, Settled)]
    assert "J-J-5" in plain(settlement_line(settled[0]))
