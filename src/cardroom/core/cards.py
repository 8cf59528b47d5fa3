"""Playing cards: ranks, suits, the Joker, machine codes and Finnish indices.

Machine notation (what files, tests and the rounds tool use) is the usual two
characters, rank then suit: ``As``, ``Td``, ``Kh``; a Joker is ``Jo``.  On input
``10`` is accepted for ``T`` and case does not matter for the suit.

People are shown Finnish indices: the Ace shows ``1``, Jack ``11``, Queen ``12``,
King ``13``; the Joker carries no index at all.

>>> card = Card.parse("10h")
>>> card.code, card.finnish
('Th', '10♥')
>>> Card.parse("Ks").finnish, Card.parse("As").finnish, JOKER.finnish
('13♠', '1♠', 'Joker')
>>> codes(parse_cards("As 10d jo"))
['As', 'Td', 'Jo']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class CardError(ValueError):
    """A card code that cannot be read."""


class Rank(StrEnum):
    """The thirteen ranks plus the Joker, valued by their machine code."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    JOKER = "Jo"

    @property
    def number(self) -> int:
        """The Finnish index: Ace 1 ... King 13; 0 for the Joker (it has none)."""
        return _NUMBER[self]

    @property
    def finnish(self) -> str:
        """What a Finnish card shows in its corner ('' for the Joker)."""
        return "" if self is Rank.JOKER else str(_NUMBER[self])

    @classmethod
    def from_number(cls, number: int) -> Rank:
        """The rank with Finnish index ``number`` (1-13)."""
        for rank, value in _NUMBER.items():
            if value == number and rank is not Rank.JOKER:
                return rank
        raise CardError(f"no rank has the index {number}")


_NUMBER: dict[Rank, int] = {rank: i + 1 for i, rank in enumerate(list(Rank)[:13])}
_NUMBER[Rank.JOKER] = 0

#: The thirteen ordinary ranks, Ace first.
RANKS: tuple[Rank, ...] = tuple(r for r in Rank if r is not Rank.JOKER)


class Suit(StrEnum):
    """The four suits in the order the sources list them."""

    SPADES = "s"
    CLUBS = "c"
    HEARTS = "h"
    DIAMONDS = "d"

    @property
    def symbol(self) -> str:
        return _SYMBOL[self]


_SYMBOL = {Suit.SPADES: "♠", Suit.CLUBS: "♣", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a rank and a suit, or the Joker (rank JOKER, no suit)."""

    rank: Rank
    suit: Suit | None

    def __post_init__(self) -> None:
        if (self.rank is Rank.JOKER) != (self.suit is None):
            raise CardError("a Joker has no suit and every other card has one")

    @property
    def is_joker(self) -> bool:
        return self.rank is Rank.JOKER

    @property
    def code(self) -> str:
        """Machine code: ``As``, ``Td``, ``Jo``."""
        return "Jo" if self.suit is None else f"{self.rank.value}{self.suit.value}"

    @property
    def finnish(self) -> str:
        """How a person is shown the card: Finnish index and suit symbol."""
        if self.suit is None:
            return "Joker"
        return f"{self.rank.finnish}{self.suit.symbol}"

    def __str__(self) -> str:
        return self.code

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a machine code (``As``, ``10h``, ``Td``, ``Jo``)."""
        return _parse(text)


JOKER = Card(Rank.JOKER, None)

_RANK_CODES = {r.value.upper(): r for r in RANKS}
_RANK_CODES["10"] = Rank.TEN
_SUIT_CODES = {s.value: s for s in Suit}


def _parse(text: str) -> Card:
    code = text.strip()
    if code.upper() in ("JO", "JOKER"):
        return JOKER
    if len(code) < 2:
        raise CardError(f"{text!r} is not a card: write rank then suit, like As, Td, 10h or Jo")
    rank = _RANK_CODES.get(code[:-1].upper())
    suit = _SUIT_CODES.get(code[-1].lower())
    if rank is None or suit is None:
        raise CardError(f"{text!r} is not a card: write rank then suit, like As, Td, 10h or Jo")
    return Card(rank, suit)


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read cards separated by white space (or an iterable of codes)."""
    codes = text.split() if isinstance(text, str) else list(text)
    return tuple(_parse(code) for code in codes)


def codes(cards: Iterable[Card]) -> list[str]:
    """The machine codes of ``cards``."""
    return [card.code for card in cards]


class Deck:
    """Builds decks: 52 ordinary cards, plus Jokers where a game uses them."""

    @staticmethod
    def standard(jokers: int = 0) -> tuple[Card, ...]:
        """One deck, suits in source order, ranks Ace to King, then the Jokers."""
        ordinary = tuple(Card(rank, suit) for suit in Suit for rank in RANKS)
        return ordinary + (JOKER,) * jokers

    @staticmethod
    def shoe(decks: int, jokers_per_deck: int) -> tuple[Card, ...]:
        """``decks`` decks, each with ``jokers_per_deck`` Jokers, unshuffled."""
        return Deck.standard(jokers_per_deck) * decks


#: The rank order of shoe compositions (cards per rank) in the analyses and kernels:
#: Ace ... King, Joker.
RANK_ORDER: tuple[Rank, ...] = tuple(Rank)
