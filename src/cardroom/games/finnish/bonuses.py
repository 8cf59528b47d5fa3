"""finnish27's bonuses on a winning player wager, each written once: when it holds (as a
test the engine settles by, and in the words its rules page shows) and what it pays (the
field of the bonus table named by its key, or its own odds).

An award of two or three cards is one :class:`Award`.  The engine settles by it
(:func:`first_award`), and so do the kernel (a table made from it of every hand of two
or three cards, by ranks, suits and the dealer's Nines), both exact analyses (each hand's
suits put through it) and the rules page (its words); one more is added with
:func:`register`, as a test does, and then paid, counted, simulated and shown with
nothing else changed.

A winning player hand earns at most one award. Its first two cards may make an initial
27's award, exactly three cards an 8-9-10's or a 9-9-9's, and five cards or more a 27 of
six to nine cards' (where the table pays it) or else its poker award; the poker award's
conditions (the least category, which totals, what a Joker is, the dealer's hand) are
the table's own fields, said in :func:`poker_when`.

>>> from cardroom.core.cards import parse_cards
>>> [a.key for a in AWARDS if a.holds(Hand(parse_cards("9s 9s 9s"), dealer_nines=True))]
['nines_vs_dealer_nines']
>>> LINES["eight_nine_ten_spades"].words(Ask())
'exactly three cards, 8, 9 and 10, all spades'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from cardroom.core.cards import Card, Rank, Suit
from cardroom.games.finnish.hands import Initial27, initial_27

if TYPE_CHECKING:  # (the bonus table is defined beside the rules that hold it)
    from cardroom.games.finnish.finnish27 import BonusTable

__all__ = [
    "AWARDS",
    "CARD_27_KEYS",
    "LINES",
    "Ask",
    "Award",
    "Hand",
    "added_labels",
    "card_27_when",
    "first_award",
    "is_nines",
    "poker_when",
    "register",
    "unregister",
    "when",
]


@dataclass(frozen=True)
class Ask:
    """What a table's rules say of the awards of two and three cards."""

    #: does a winning initial Joanca earn an award (an initial 27 that the table pays)?
    joanca: bool = False
    #: is three Nines of one suit against the dealer's 9-9 an award of its own?
    nines_by_suit: bool = False
    #: does a single Joker make a Joanca only as the second card?
    joker_second: bool = False
    #: the added awards (:func:`register`) the table pays
    added: frozenset[str] = frozenset()

    def offers(self, award: Award) -> bool:
        """Is ``award`` an award at this table at all?"""
        if award.key not in SOURCE and award.key not in self.added:
            return False
        return award.offered(self)


@dataclass(frozen=True)
class Hand:
    """A winning player hand as the awards read it: its cards, and whether the dealer's
    first two cards are both Nines (the one thing of the dealer's hand an award may ask,
    and so the one the kernel's table and the counts follow)."""

    cards: Sequence[Card]
    dealer_nines: bool = False

    @property
    def one_suit(self) -> bool:
        return len({card.suit for card in self.cards}) == 1

    @property
    def all_spades(self) -> bool:
        return all(card.suit is Suit.SPADES for card in self.cards)


def is_nines(dealer: Sequence[Card]) -> bool:
    """Are the dealer's first two cards both Nines?"""
    first = dealer[:2]
    return len(first) == 2 and all(card.rank is Rank.NINE for card in first)


Test = Callable[[Hand, Ask], bool]
Words = Callable[[Ask], str]
#: what an award looks for first: the initial 27 a hand's two cards make, or the ranks
#: of its three cards in order (Ace 1 ... King 13)
Shape = Initial27 | tuple[int, ...]


def _always(hand: Hand, ask: Ask) -> bool:
    return True


def _offered(ask: Ask) -> bool:
    return True


@dataclass(frozen=True)
class Award:
    """One award of two or three cards: its key, the hands it is for (:data:`Shape`) and
    what else must hold of them and of the dealer's cards, all of it in words (a phrase
    that follows "a winning player hand of"), and what it pays.

    The source's awards pay the odds of the bonus table's field named by their key and
    take their labels from :attr:`BonusTable.LABELS`; an award added with
    :func:`register` gives its ``label`` and ``pays`` (its odds under a bonus table)."""

    key: str
    shape: Shape
    words: Words
    test: Test = _always
    #: is it an award at this table at all (the Joanca's, the suited 9-9-9 against 9-9)?
    offered: Callable[[Ask], bool] = _offered
    #: its name on the paytable (an added award's; the source's are the bonus table's)
    label: str = ""
    #: its odds under a bonus table (None: the bonus table's field named by its key)
    pays: Callable[[BonusTable], Fraction] | None = None

    @property
    def cards(self) -> int:
        return 2 if isinstance(self.shape, Initial27) else len(self.shape)

    def holds(self, hand: Hand, ask: Ask | None = None) -> bool:
        ask = ask or Ask()
        return (
            shape_of(hand.cards, ask.joker_second) == self.shape
            and ask.offers(self)
            and self.test(hand, ask)
        )


def shape_of(cards: Sequence[Card], joker_second: bool = False) -> Shape | None:
    """A hand's :data:`Shape` (None: a hand of two cards that is no initial 27)."""
    if len(cards) == 2:
        return initial_27(cards, True, joker_second)
    return tuple(sorted(card.rank.number for card in cards))


def first_award(cards: Sequence[Card], dealer: Sequence[Card], ask: Ask) -> str | None:
    """The key of the first award of :data:`AWARDS` that a winning hand of two or three
    ``cards`` holds, if any."""
    shape = shape_of(cards, ask.joker_second)
    candidates = BY_SHAPE.get(shape, ()) if shape is not None else ()  # (mostly none)
    hand = Hand(cards, is_nines(dealer))
    for award in candidates:
        if ask.offers(award) and award.test(hand, ask):
            return award.key
    return None


def _joanca_words(ask: Ask) -> str:
    if ask.joker_second:
        return "exactly two cards, another card and then a Joker (an initial Joanca)"
    return "exactly two cards, a Joker and another card (an initial Joanca)"


_NOT_NINES = "while the dealer's first two cards are not both Nines"
_NINES = "while the dealer's first two cards are both Nines"
_EIGHT_NINE_TEN = (8, 9, 10)
_NINES_SHAPE = (9, 9, 9)

#: every award of two or three cards, in the order they are looked for (added ones last)
AWARDS: list[Award] = [
    Award(
        "finnish_27",
        Initial27.FINNISH_27,
        lambda ask: "exactly two cards, Ace and King (an initial Finnish 27)",
    ),
    Award(
        "jo_jo",
        Initial27.JO_JO,
        lambda ask: "exactly two cards, two Jokers (an initial Jo Jo)",
    ),
    Award("joanca", Initial27.JOANCA, _joanca_words, offered=lambda ask: ask.joanca),
    Award(
        "eight_nine_ten_spades",
        _EIGHT_NINE_TEN,
        lambda ask: "exactly three cards, 8, 9 and 10, all spades",
        lambda hand, ask: hand.all_spades,
    ),
    Award(
        "eight_nine_ten_suited",
        _EIGHT_NINE_TEN,
        lambda ask: "exactly three cards, 8, 9 and 10, all of one suit other than spades",
        lambda hand, ask: hand.one_suit and not hand.all_spades,
    ),
    Award(
        "eight_nine_ten_mixed",
        _EIGHT_NINE_TEN,
        lambda ask: "exactly three cards, 8, 9 and 10, not all of one suit",
        lambda hand, ask: not hand.one_suit,
    ),
    Award(
        "nines_suited_vs_dealer_nines",
        _NINES_SHAPE,
        lambda ask: f"exactly three Nines, all of one suit, {_NINES}",
        lambda hand, ask: hand.one_suit and hand.dealer_nines,
        offered=lambda ask: ask.nines_by_suit,
    ),
    Award(
        "nines_vs_dealer_nines",
        _NINES_SHAPE,
        lambda ask: (
            f"exactly three Nines, not all of one suit, {_NINES}"
            if ask.nines_by_suit
            else f"exactly three Nines, of any suits, {_NINES}"
        ),
        lambda hand, ask: hand.dealer_nines and not (ask.nines_by_suit and hand.one_suit),
    ),
    Award(
        "nines_suited",
        _NINES_SHAPE,
        lambda ask: f"exactly three Nines, all of one suit, {_NOT_NINES}",
        lambda hand, ask: hand.one_suit and not hand.dealer_nines,
    ),
    Award(
        "nines_mixed",
        _NINES_SHAPE,
        lambda ask: f"exactly three Nines, not all of one suit, {_NOT_NINES}",
        lambda hand, ask: not hand.one_suit and not hand.dealer_nines,
    ),
]
#: the source's awards (the others were added with :func:`register`)
SOURCE: frozenset[str] = frozenset(award.key for award in AWARDS)
#: each award of two or three cards by its key
LINES: dict[str, Award] = {}
#: the awards of each shape, in the order they are looked for
BY_SHAPE: dict[Shape, tuple[Award, ...]] = {}


def _index() -> None:
    """:data:`LINES` and :data:`BY_SHAPE` from :data:`AWARDS` (in place: importers hold
    them)."""
    LINES.clear()
    LINES.update((award.key, award) for award in AWARDS)
    BY_SHAPE.clear()
    for award in AWARDS:
        BY_SHAPE[award.shape] = (*BY_SHAPE.get(award.shape, ()), award)


_index()


def register(award: Award) -> None:
    """Add ``award``: a table whose bonus table names it in ``added_awards`` pays it, and
    its engine settles it, the analyses count it, the kernel simulates it and its rules
    page shows it (after the source's, in the order added).  A ValueError for a key
    already taken or a hand that is not of two or three cards; it needs its ``label``
    and ``pays``."""
    taken = {*LINES, *CARD_27_KEYS.values(), *CATEGORY_WORDS}
    if award.key in taken:
        raise ValueError(f"{award.key} is already a finnish27 award")
    if award.cards not in (2, 3):
        raise ValueError(f"{award.key}: an award is for a hand of two or three cards")
    if not award.label or award.pays is None:
        raise ValueError(f"{award.key}: an added award says its label and what it pays")
    AWARDS.append(award)
    _index()


def unregister(key: str) -> None:
    """Take away an award :func:`register` added."""
    if key in SOURCE or key not in LINES:
        raise ValueError(f"{key} is not an award that was added")
    AWARDS[:] = [award for award in AWARDS if award.key != key]
    _index()


def added_labels() -> dict[str, str]:
    """The labels of the awards :func:`register` added, in the order added."""
    return {award.key: award.label for award in AWARDS if award.key not in SOURCE}


#: the awards for a winning 27 of six to nine cards, by its number of cards (Jokers counted)
CARD_27_KEYS: Mapping[int, str] = {
    6: "six_card_27",
    7: "seven_card_27",
    8: "eight_card_27",
    9: "nine_card_27",
}
_COUNTS = {6: "six", 7: "seven", 8: "eight", 9: "nine"}
#: each poker award's category in words
CATEGORY_WORDS: Mapping[str, str] = {
    "pair": "a pair",
    "two_pair": "two pair",
    "three_of_a_kind": "three of a kind",
    "straight": "a straight",
    "full_house": "a full house",
    "four_of_a_kind": "four of a kind",
    "flush": "a flush",
    "straight_flush": "a straight flush",
    "five_of_a_kind": "five of a kind",
}


def card_27_when(cards: int) -> str:
    """When a 27 of ``cards`` cards earns its own award."""
    return (
        f"exactly {_COUNTS[cards]} cards (Jokers counted) that total 27; it takes the place "
        "of the hand's poker award"
    )


def when(bonus: BonusTable, ask: Ask, key: str) -> str:
    """When the award ``key`` is paid at this table, as a phrase that follows "a winning
    player hand of"."""
    if key in LINES:
        return LINES[key].words(ask)
    counts = {field: n for n, field in CARD_27_KEYS.items()}
    if key in counts:
        return card_27_when(counts[key])
    return poker_when(bonus, key)


def poker_when(bonus: BonusTable, key: str) -> str:
    """When a poker category's award is paid at the table ``bonus``: every condition its
    fields set (the hands, the Jokers, the dealer's hand, the 27s paid by their cards)."""
    hands = {
        "any": "five cards or more",
        "27": "five cards or more, totalling exactly 27,",
        "under_28": "five cards or more, totalling 27 or less,",
    }[bonus.poker_hands]
    jokers = (
        "each Joker a bug: an Ace, or a card that completes a straight, a flush or a straight flush"
        if bonus.bugs
        else "Jokers wild"
    )
    category = CATEGORY_WORDS[key]
    text = f"{hands} whose best five-card poker hand ({jokers}) is {category}"
    if bonus.poker_against_dealer != "ignored":
        stands = "higher than" if bonus.poker_against_dealer == "higher" else "at least as high as"
        text += (
            f", standing {stands} the best poker hand of the dealer's final cards (a dealer's "
            "hand of four cards or fewer holds none)"
        )
    if bonus.card_27s:
        paid = [n for n, field in CARD_27_KEYS.items() if getattr(bonus, field)]
        counts = ", ".join(_COUNTS[n] for n in paid)
        text += f"; not on a 27 of {counts} cards, which takes its own award"
    return text
