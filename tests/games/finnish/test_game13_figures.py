"""scripts/game13_figures.py: its exact figures against brute force on small shoes.

The initial 27s are counted again by dealing every ordered sequence of four physical
cards of a small shoe to the engine's own round; the suit shares by going through
every set of physical cards and looking at their suits directly.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

from cardroom.core.cards import Card, Rank, Suit, parse_cards
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.finnish27 import Finnish27Round, Finnish27Rules

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "game13_figures.py"


@pytest.fixture(scope="module")
def game13() -> ModuleType:
    spec = importlib.util.spec_from_file_location("game13_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SMALL_SHOES = [
    "As Ah Ks Kh Kd Jo Jo Jo 5s 9c",
    "As Ks Kh Jo Jo 7d 7c",
    "As Ah Ac Ks Jo Jo Jo Jo Qs",
]


@pytest.mark.parametrize("shoe", SMALL_SHOES)
@pytest.mark.parametrize("equal", ["dealer", "push"])
def test_paid_initial_27s_match_the_engine_on_every_deal(
    game13: ModuleType, shoe: str, equal: str
) -> None:
    cards = parse_cards(shoe)
    rules = Finnish27Rules(equal_initial_27s=equal)
    paid: Counter[str] = Counter()
    held: Counter[str] = Counter()
    sequences = 0
    for deal in itertools.permutations(range(len(cards)), 4):
        sequences += 1
        rnd = Finnish27Round(rules, {"player": 10})
        for i in deal:
            rnd.deal(cards[i])
        kind = rnd.initial["player"]
        if kind is None:
            continue
        held[kind.key] += 1
        if rnd.is_complete and rnd.outcome == "player":
            paid[kind.key] += 1
    counts = game13.rank_counts(cards)
    assert game13.paid_initial_27_chances(counts) == {
        key: Fraction(paid[key], sequences) for key in ("jo_jo", "finnish_27", "joanca")
    }
    assert game13.initial_27_chances(counts) == {
        key: Fraction(held[key], sequences) for key in ("jo_jo", "finnish_27", "joanca")
    }


@pytest.mark.parametrize("spread", [(2, 2, 2, 2), (3, 1, 2, 0), (1, 0, 4, 2), (2, 3, 1, 1)])
def test_suit_shares_match_every_set_of_physical_cards(
    game13: ModuleType, spread: tuple[int, int, int, int]
) -> None:
    # one rank's cards spread over the suits as given, the other two rotated
    def cards_of(rank: Rank, shift: int) -> list[Card]:
        rotated = spread[shift:] + spread[:shift]
        return [Card(rank, suit) for suit, n in zip(Suit, rotated, strict=True) for _ in range(n)]

    ranks = {Rank.EIGHT: cards_of(Rank.EIGHT, 1), Rank.NINE: cards_of(Rank.NINE, 0)}
    ranks[Rank.TEN] = cards_of(Rank.TEN, 2)
    shoe = [card for group in ranks.values() for card in group]
    by_rank = {rank: game13.suit_counts(shoe, rank) for rank in ranks}

    seen: Counter[str] = Counter()
    triples = list(itertools.product(ranks[Rank.EIGHT], ranks[Rank.NINE], ranks[Rank.TEN]))
    for triple in triples:
        suits = {card.suit for card in triple}
        if suits == {Suit.SPADES}:
            seen["eight_nine_ten_spades"] += 1
        else:
            seen["eight_nine_ten_suited" if len(suits) == 1 else "eight_nine_ten_mixed"] += 1
    assert game13.eight_nine_ten_shares(by_rank) == {
        key: Fraction(n, len(triples)) for key, n in seen.items()
    } | {key: Fraction(0) for key in game13.EIGHT_NINE_TEN if key not in seen}

    nines: Counter[str] = Counter()
    sets = list(itertools.combinations(ranks[Rank.NINE], 3))
    for three in sets:
        nines["nines_suited" if len({card.suit for card in three}) == 1 else "nines_mixed"] += 1
    assert game13.nines_shares(by_rank[Rank.NINE]) == {
        key: Fraction(nines[key], len(sets)) for key in game13.NINES
    }


def test_game13_shoe_figures(game13: ModuleType) -> None:
    cards = game13.GAME13_SHOE.cards()
    assert len(cards) == 324 and ShoeRules(decks=6, jokers_per_deck=2).size == 324
    counts = game13.rank_counts(cards)
    assert game13.initial_27_chances(counts) == {
        "jo_jo": Fraction(12 * 11, 324 * 323),
        "finnish_27": Fraction(2 * 24 * 24, 324 * 323),
        "joanca": Fraction(2 * 12 * 312, 324 * 323),
    }
    # the same as cardroom's exact analysis of finnish27 (docs/finnish-exact.md), whose
    # Finnish 27 and Jo Jo wins are exactly these deals
    paid = game13.paid_initial_27_chances(counts)
    assert paid["finnish_27"] == Fraction(233536, 21462381)
    assert paid["jo_jo"] == Fraction(189332, 150236667)
    assert paid["joanca"] == Fraction(582800, 8837451)
    nines = game13.suit_counts(cards, Rank.NINE)
    assert game13.nines_shares(nines) == {
        "nines_mixed": Fraction(243, 253),
        "nines_suited": Fraction(10, 253),
    }
    by_rank = {rank: game13.suit_counts(cards, rank) for rank in (Rank.EIGHT, Rank.NINE, Rank.TEN)}
    assert game13.eight_nine_ten_shares(by_rank) == {
        "eight_nine_ten_mixed": Fraction(15, 16),
        "eight_nine_ten_suited": Fraction(3, 64),
        "eight_nine_ten_spades": Fraction(1, 64),
    }


def test_published_counts_sit_near_the_exact_figures(game13: ModuleType) -> None:
    found = game13.comparisons()
    assert len(found) == 3 * 10
    assert all(abs(c.z) < 3 for c in found)
    joanca = [c for c in found if c.label == "joker any card"]
    assert [c.trials for c in joanca] == [250_000_000, 250_000_000, 500_000_000]
