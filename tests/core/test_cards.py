"""Cards: codes for machines, Finnish indices for people."""

from __future__ import annotations

from collections import Counter

import pytest

from cardroom.core.cards import JOKER, RANKS, Card, CardError, Deck, Rank, Suit, codes, parse_cards


@pytest.mark.parametrize(
    ("code", "finnish"),
    [
        ("As", "1♠"),
        ("2c", "2♣"),
        ("9h", "9♥"),
        ("Td", "10♦"),
        ("Js", "11♠"),
        ("Qh", "12♥"),
        ("Kc", "13♣"),
        ("Jo", "Joker"),
    ],
)
def test_finnish_indices(code: str, finnish: str) -> None:
    assert Card.parse(code).finnish == finnish


def test_joker_shows_no_index() -> None:
    assert JOKER.rank.finnish == ""
    assert not any(ch.isdigit() for ch in JOKER.finnish)


def test_every_code_round_trips() -> None:
    for card in set(Deck.standard(jokers=2)):
        assert Card.parse(card.code) == card


@pytest.mark.parametrize("text", ["10h", "Th", "th", "TH", "10H"])
def test_ten_is_accepted_as_10_and_T(text: str) -> None:
    assert Card.parse(text) == Card(Rank.TEN, Suit.HEARTS)


@pytest.mark.parametrize("text", ["jo", "JO", "Joker"])
def test_joker_codes(text: str) -> None:
    assert Card.parse(text) is JOKER or Card.parse(text) == JOKER


@pytest.mark.parametrize("text", ["", "A", "1s", "11h", "Ax", "Zs", "Jx", "As5"])
def test_bad_codes_are_refused_with_a_clear_message(text: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        Card.parse(text)


def test_a_joker_has_no_suit_and_others_must() -> None:
    with pytest.raises(CardError):
        Card(Rank.JOKER, Suit.SPADES)
    with pytest.raises(CardError):
        Card(Rank.ACE, None)


def test_six_deck_finnish_shoe_has_324_cards() -> None:
    shoe = Deck.shoe(6, 2)
    assert len(shoe) == 324
    counts = Counter(shoe)
    assert counts[JOKER] == 12
    assert all(counts[Card(r, s)] == 6 for r in RANKS for s in Suit)


def test_parse_cards_reads_a_line() -> None:
    assert codes(parse_cards("As 10d jo Kh")) == ["As", "Td", "Jo", "Kh"]


def test_from_number_maps_finnish_indices() -> None:
    assert [Rank.from_number(n).value for n in (1, 10, 11, 12, 13)] == ["A", "T", "J", "Q", "K"]
    with pytest.raises(CardError):
        Rank.from_number(14)
