"""finnish27's poker award held against the dealer's final hand (issue 21).

``[bonus] poker_against_dealer``: "ignored" (the source), "higher" (the player's
category must stand higher in the table's order than the best category of the dealer's
final cards) or "as_high" (as high will do).  The categories are compared, not the
cards within them; a dealer's hand of four cards or fewer holds none.

Checked hand by hand in the engine, in the rules file and page, the analysis with
replacement against the engine's walk of both hands' ranks (line by line), the kernel
round by round against the engine, and a simulation against the exact figures.  The real
shoe's count refuses it in one line.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction

import pytest

from cardroom.app.runner import run
from cardroom.app.words import explain
from cardroom.core.cards import Rank, parse_cards
from cardroom.core.rules import RulesError, load_rules_text, rules_to_toml
from cardroom.core.shoe import ShoeRules
from cardroom.games.base import Round
from cardroom.games.finnish.analysis import analyze_finnish27
from cardroom.games.finnish.disclosure import finnish27_text
from cardroom.games.finnish.finnish27 import (
    POKER_CATEGORY,
    POKER_KEYS,
    BonusTable,
    Finnish27Rules,
    find_bonus,
)
from cardroom.games.finnish.hands import FinnishRound
from cardroom.games.finnish.poker_odds import category_counts
from cardroom.games.finnish.replacement import DrawOdds
from cardroom.games.finnish.shoe import analyze_finnish27_shoe
from cardroom.games.walk import RANK_ORDER, exact
from tests.games.finnish.test_analysis import BONUS_SHOES, RanksRound, _capped, _suit_split
from tests.games.finnish.test_finnish27 import round_of
from tests.games.test_kernels import replay_against_engine

HIGHER = BonusTable(poker_against_dealer="higher")
AS_HIGH = BonusTable(poker_against_dealer="as_high")


def award(player: str, dealer: str, table: BonusTable = HIGHER) -> str | None:
    return find_bonus(parse_cards(player), parse_cards(dealer), poker=table)


def test_the_player_s_category_against_the_dealer_s() -> None:
    # a pair against a pair: not higher, but as high
    assert award("2s 2d 7h 9c Kd", "3s 3d 4h 5c 8d") is None
    assert award("2s 2d 7h 9c Kd", "3s 3d 4h 5c 8d", AS_HIGH) == "pair"
    # the categories, not the cards within them: a pair of Kings is no higher than Twos
    assert award("Ks Kd 2h 3c 4d", "2s 2d 3h 4c 5d", HIGHER) is None
    # two pair over a pair; a pair over a dealer's five cards of no pair
    assert award("2s 2d 7h 7c Kd", "3s 3d 4h 5c 8d") == "two_pair"
    assert award("2s 2d 7h 9c Kd", "3s 4d 6h 5c 8d") == "pair"
    # a dealer's hand of four cards or fewer holds no poker hand
    assert award("2s 2d 7h 9c Kd", "3s 3d 3h 9c") == "pair"
    # the dealer's Jokers and the table's order count as the player's do
    assert award("2s 2d 2h 9c Kd", "3s 3d Jo 5c 8d") is None
    assert award("2s 2d 7h 9c Kd", "3s 4d 5h 6c 7d") is None  # a straight
    reversed_order = replace(HIGHER, poker_order=tuple(reversed(POKER_KEYS)))
    assert award("2s 2d 7h 9c Kd", "3s 4d 5h 6c 7d", reversed_order) == "pair"
    # the source's table ignores the dealer's hand
    assert award("2s 2d 7h 9c Kd", "3s 3d 3h 5c 8d", BonusTable()) == "pair"


def test_the_option_in_the_rules_file_and_on_the_rules_page() -> None:
    rules = Finnish27Rules(bonus=HIGHER)
    text = rules_to_toml(rules)
    assert 'poker_against_dealer = "higher"' in text
    assert load_rules_text(Finnish27Rules(), text) == rules
    assert "poker_against_dealer" not in rules_to_toml(Finnish27Rules())
    assert "standing higher than the best poker hand of the dealer" in str(finnish27_text(rules))
    as_high = str(finnish27_text(Finnish27Rules(bonus=AS_HIGH)))
    assert "at least as high as the best poker hand" in as_high
    with pytest.raises(RulesError, match="poker_against_dealer"):
        load_rules_text(Finnish27Rules(), '[bonus]\npoker_against_dealer = "lower"\n')


def test_a_round_says_which_dealer_s_hand_stopped_the_award() -> None:
    """The player's two pair (26) against the dealer's full house (29, over): the player
    wins 1:1 and the settlement says why no bonus came with it."""
    cards = "5c 3s 4h 3h 5c 2c 4s 6h 4s 2c 2d 3h 5d 7c"
    rnd = round_of(cards, bonus=HIGHER)
    assert rnd.outcome == "player" and rnd.bonus_key is None
    assert rnd.poker_stopped == ("two_pair", "full_house")
    net, why = rnd.settle("player", Fraction(10))
    assert net == 10
    assert explain(why) == "player pays 1:1 (no bonus: Two pair against the dealer's Full house)"
    plain = round_of(cards)  # the source's table
    assert plain.bonus_key == "two_pair" and plain.poker_stopped is None


def test_the_real_shoe_s_count_refuses_it_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^poker_against_dealer: .*analyze --infinite"):
        analyze_finnish27_shoe(Finnish27Rules(bonus=HIGHER))


# -- the analysis with replacement against the engine's walk -----------------------------
class BothRanksRound(RanksRound):
    """:class:`RanksRound` that keys on the dealer's ranks too (the award now needs
    them)."""

    def state_key(self) -> Hashable:
        key = super().state_key()
        if not isinstance(key, tuple) or key[0] == "deal":
            return key
        return (*key, _capped(self.hands["dealer"]))


def both_leaf(rnd: Round) -> Hashable:
    if rnd.outcome != "player":
        return (rnd.outcome,)
    assert isinstance(rnd, FinnishRound)
    dealer = rnd.hands["dealer"]
    first_two = tuple(card.rank for card in dealer[:2])
    total = rnd.total("player").value
    return ("player", _capped(rnd.hands["player"]), first_two, _capped(dealer), total)


def _dealer_places(ranks: tuple[Rank, ...], bonus: BonusTable) -> dict[int, Fraction]:
    """The place in the table's order of the best category of the dealer's hand, over
    its suits (0: none)."""
    ordinary = [r for r in ranks if r is not Rank.JOKER]
    if len(ranks) < 5:
        return {0: Fraction(1)}
    split = category_counts(ordinary, len(ranks) - len(ordinary), bonus.bugs, bonus.ranking)
    every = 4 ** len(ordinary)
    places: dict[int, Fraction] = {}
    for category, n in split.items():
        place = bonus.ranking[category]
        places[place] = places.get(place, Fraction(0)) + Fraction(n, every)
    return places


#: Fours (and Threes) make long hands on both sides (the walk keys on both hands' ranks:
#: each rank more multiplies its time, 0.5 s for FOURS, 40 s for THREES)
FOURS = {Rank.FOUR: 2, Rank.KING: 1, Rank.JOKER: 1}
THREES = {Rank.THREE: 1, Rank.FOUR: 2, Rank.KING: 1, Rank.JOKER: 1}


@pytest.mark.parametrize(
    ("bonus", "counts"),
    [(HIGHER, FOURS), pytest.param(AS_HIGH, THREES, marks=pytest.mark.long)],
    ids=["higher", "as-high"],
)
def test_with_replacement_matches_the_engine_walk_of_both_hands(
    bonus: BonusTable, counts: dict[Rank, int]
) -> None:
    """The player's hand split over its suits by the engine's find_bonus, the dealer's
    over its own, the award paid where the table's comparison allows."""
    rules = Finnish27Rules(bonus=bonus)
    walked = exact(lambda: BothRanksRound(rules), counts, leaf=both_leaf, replacement=True)
    expected: dict[str, Fraction] = {}
    outcomes: dict[str, Fraction] = {}
    stopped = Fraction(0)
    for leaf, p in walked.items():
        outcomes[leaf[0]] = outcomes.get(leaf[0], Fraction(0)) + p
        if leaf[0] != "player":
            continue
        ranks, first_two, dealer, total = leaf[1:]
        player = _suit_split(tuple(sorted(ranks, key=RANK_ORDER.index)), first_two,
                             False, bonus, total)  # fmt: skip
        places = _dealer_places(dealer, bonus)
        for key, q in player.items():
            if key in POKER_KEYS:
                mine = bonus.ranking[POKER_CATEGORY[key]]
                share = sum((r for theirs, r in places.items() if bonus.outranks(mine, theirs)),
                            Fraction(0))  # fmt: skip
                stopped += p * q * (1 - share)
                add(expected, None, p * q * (1 - share), bonus)
                q *= share
            add(expected, key, p * q, bonus)
    assert stopped > 0  # the dealer's hand stops some awards
    report = analyze_finnish27(rules, odds=DrawOdds.of_counts(counts))
    assert {k: v for k, v in report.outcomes.items() if v} == outcomes
    lines = {line.name: line.probability for line in report.wagers["player"].lines}
    assert {name: p for name, p in lines.items() if p and name.startswith("win")} == expected


def add(expected: dict[str, Fraction], key: str | None, p: Fraction, bonus: BonusTable) -> None:
    if p:
        name = "win (no bonus)" if key is None else f"win + {bonus.describe(key)}"
        expected[name] = expected.get(name, Fraction(0)) + p


def test_the_comparison_lowers_only_the_poker_lines() -> None:
    odds = DrawOdds.of_counts(BONUS_SHOES[0])
    base = analyze_finnish27(odds=odds)
    higher = analyze_finnish27(Finnish27Rules(bonus=HIGHER), odds=odds)
    as_high = analyze_finnish27(Finnish27Rules(bonus=AS_HIGH), odds=odds)
    assert base.outcomes == higher.outcomes == as_high.outcomes
    edges = [r.wagers["player"].house_edge for r in (base, as_high, higher)]
    assert edges[0] < edges[1] < edges[2]
    for report in (higher, as_high):
        assert report.wagers["dealer"] == base.wagers["dealer"]


# -- the kernel and the simulation ------------------------------------------------------------
#: Twos to Sixes, Kings and Jokers, fresh every round: long hands on both sides (some 9
#: per cent of the player's wins, 3.5 per cent of rounds, have a poker award the dealer's
#: hand stops), and the draws differ from drawing with replacement by far less than a
#: standard error
SMALL_SHOE = ShoeRules(
    decks=16, cards_per_rank=(0, 64, 64, 64, 64, 64, 0, 0, 0, 0, 0, 0, 64), reshuffle_after=1
)


def test_the_kernel_holds_the_hands_as_the_engine_does() -> None:
    """From a shoe of small cards (dealt to its cut card), in a reversed order with bugs."""
    small = (0, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 16)
    shoe = replace(SMALL_SHOE, decks=4, cards_per_rank=small, reshuffle_after=80)
    rules = Finnish27Rules(
        bonus=replace(HIGHER, poker_order=tuple(reversed(POKER_KEYS)), poker_jokers="bug"),
        shoe=shoe,
    )
    replay_against_engine("finnish27", rules, "basic", 6_000)


@pytest.mark.long
def test_simulation_agrees_with_the_exact_figures() -> None:
    """40,000 rounds from :data:`SMALL_SHOE` within 4 standard errors of the analysis with
    replacement (the real shoe's count refuses the option)."""
    rules = Finnish27Rules(bonus=HIGHER, shoe=SMALL_SHOE)
    report = analyze_finnish27(rules)
    result = run("finnish27", rules, 40_000, seed=2721)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, report.wagers[wager].expected)
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)
