"""Finnish 27 totals: high and low Aces, soft and hard, Jokers, initial 27s."""

from __future__ import annotations

import itertools

import pytest

from cardroom.core.cards import RANKS, Card, Rank, parse_cards
from cardroom.games.finnish.hands import Initial27, Total, finnish_total, initial_27, initial_totals


def total(cards: str) -> Total:
    return finnish_total(parse_cards(cards))


def test_source_example_ace_jack_is_soft_25() -> None:
    assert total("As Jd") == Total(25, soft=True)
    assert str(total("As Jd")) == "soft 25"


def test_source_example_ace_nine_king_is_hard_23() -> None:
    assert total("As 9d Kc") == Total(23, soft=False)
    assert str(total("As 9d Kc")) == "hard 23"


def test_face_cards_count_11_12_13_and_others_their_number() -> None:
    assert total("Js") == Total(11) and total("Qs") == Total(12) and total("Ks") == Total(13)
    assert [total(f"{r}h").value for r in "23456789T"] == [2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_ace_counts_14_when_that_keeps_the_total_at_27_or_less() -> None:
    assert total("Ah Kd") == Total(27, soft=True)
    assert total("Ah 6d 7c") == Total(27, soft=True)


def test_ace_counts_1_when_14_would_pass_27() -> None:
    assert total("Ah Kd 2c") == Total(16, soft=False)


def test_at_most_one_ace_is_high() -> None:
    assert total("Ah Ad") == Total(15, soft=True)
    assert total("Ah Ad Ac") == Total(16, soft=True)


def test_soft_total_over_27_turns_the_ace_low() -> None:
    assert total("As Qd") == Total(26, soft=True)
    assert total("As Qd 5h") == Total(18, soft=False)


def test_joker_counts_zero_in_a_total() -> None:
    assert total("Ks Qd Jo") == Total(25)
    assert total("Jo Jo") == Total(0)


def test_bust_and_distance() -> None:
    assert Total(28).bust and not Total(27).bust
    assert Total(24).distance == 3 == Total(30).distance


@pytest.mark.parametrize(
    ("cards", "jokers_make_27", "expected"),
    [
        ("Jo Jo", True, Initial27.JO_JO),
        ("Jo 5h", True, Initial27.JOANCA),
        ("Kd Jo", True, Initial27.JOANCA),
        ("As Kd", True, Initial27.FINNISH_27),
        ("Kd As", True, Initial27.FINNISH_27),
        ("As Qd", True, None),
        ("Jo Jo", False, None),
        ("Jo Kd", False, None),
        ("Kd Ah", False, Initial27.FINNISH_27),
    ],
)
def test_initial_27s(cards: str, jokers_make_27: bool, expected: Initial27 | None) -> None:
    assert initial_27(parse_cards(cards), jokers_make_27) == expected


def test_initial_27_ranking_jo_jo_over_finnish_27_over_joanca() -> None:
    assert Initial27.JO_JO > Initial27.FINNISH_27 > Initial27.JOANCA


def test_every_two_card_total_of_the_deck() -> None:
    """All 14 x 14 two-card hands: totals agree with a direct count."""
    ranks = [*RANKS, Rank.JOKER]
    for a, b in itertools.product(ranks, repeat=2):
        cards = [Card(a, None if a is Rank.JOKER else parse_cards("As")[0].suit)]
        cards.append(Card(b, None if b is Rank.JOKER else parse_cards("Ad")[0].suit))
        points = [r.number for r in (a, b)]
        aces = points.count(1)
        expected = sum(points) + 13 if aces and sum(points) + 13 <= 27 else sum(points)
        assert finnish_total(cards) == Total(expected, soft=expected != sum(points))


def test_possible_dealer_initial_totals() -> None:
    finnish = initial_totals(True)
    assert [t.value for t in finnish if not t.soft] == list(range(4, 27))
    assert [t.value for t in finnish if t.soft] == list(range(15, 27))
    free = initial_totals(False)
    assert [t.value for t in free if not t.soft] == [0, *range(2, 27)]
    assert [t.value for t in free if t.soft] == list(range(14, 27))
