"""The shoe: the cards, how they are shuffled, and when they are shuffled again.

Randomness is always injected.  :class:`SecureShuffler` draws on the operating
system's entropy (``secrets``) for live play; :class:`SeededShuffler` wraps a
NumPy ``Generator`` so a run can be reproduced from its seed; a
:class:`StackedShoe` deals cards in a given order, for replays and test labs.

>>> shoe = Shoe(ShoeRules(decks=1, jokers_per_deck=2, reshuffle_after=40), SeededShuffler(7))
>>> event = shoe.shuffle("new_shoe")
>>> event.shoe, shoe.remaining, shoe.needs_reshuffle
(1, 54, False)
"""

from __future__ import annotations

import functools
import math
import secrets
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol

import numpy as np

from cardroom.core.cards import JOKER, RANKS, Card, CardError, Deck, Rank, Suit
from cardroom.core.events import Reshuffled
from cardroom.core.rules import Between, Ref, brief, check_ranges, read_number, rule

#: the most decks a shoe holds (64 decks of 60 cards are far below the 32,767 cards
#: the simulation kernels can shuffle)
MAX_DECKS = 64
#: the most Jokers a deck holds
MAX_JOKERS = 8
_SIZE = Ref("size", "the shoe's {} cards")


class ShoeExhausted(RuntimeError):
    """The shoe has no card left to deal."""


class Shuffler(Protocol):
    """A source of uniformly random permutations."""

    def permutation(self, n: int) -> list[int]:
        """A uniformly random ordering of ``range(n)``."""
        ...


class SecureShuffler:
    """Fisher-Yates driven by the OS entropy pool (``secrets.SystemRandom``)."""

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def permutation(self, n: int) -> list[int]:
        order = list(range(n))
        self._random.shuffle(order)
        return order


class SeededShuffler:
    """Reproducible shuffles from a NumPy ``Generator`` (or a seed for one)."""

    def __init__(self, generator: np.random.Generator | int | None = None) -> None:
        if isinstance(generator, np.random.Generator):
            self._rng = generator
        else:
            self._rng = np.random.default_rng(generator)

    def permutation(self, n: int) -> list[int]:
        return [int(i) for i in self._rng.permutation(n)]


#: the order a shoe's ranges are checked in: the shoe, then how it is reshuffled
_RANGE_ORDER = (
    "decks",
    "jokers_per_deck",
    "cut_card",
    "reshuffle_fraction",
    "reshuffle_after",
    "burn",
    "reshuffle_after_rounds",
)


@dataclass(frozen=True)
class ShoeRules:
    """What goes in the shoe and when it is shuffled again.

    ``reshuffle_after`` is a count of dealt cards: once at least that many have
    been dealt, the round in progress is finished and the next one starts from a
    fresh shuffle.  Two other forms set it and follow the shoe's size: a
    ``cut_card`` (cards left behind it, counted from the end of the shoe) or a
    ``reshuffle_fraction`` (the share of the shoe's cards dealt, rounded down); give
    at most one of them.  ``burn`` cards are discarded face down after each shuffle;
    with ``burn_by_first_card`` the first card is turned over and as many more are
    burnt as it counts (Ace 1 ... Nine 9, tens and pictures 10), the casino baccarat
    procedure.
    """

    #: what the rules pages and the lab call this part of the rules
    TITLE: ClassVar[str] = "The shoe"

    decks: int = rule(6, "the number of 52-card decks in the shoe", range=Between(1, MAX_DECKS))
    jokers_per_deck: int = rule(2, "Jokers added to each deck", range=Between(0, MAX_JOKERS))
    reshuffle_after: int = rule(
        243,
        "cards dealt before the shoe is shuffled again (the round in progress is finished first)",
        range=Between(
            1,
            _SIZE,
            note='cards dealt before a reshuffle; a reshuffle_fraction such as "3/4" '
            "follows the shoe's size",
        ),
    )
    burn: int = rule(
        0,
        "cards discarded face down after each shuffle",
        range=Between(0, Ref("reshuffle_after"), below=True),
    )
    cut_card: int | None = rule(
        None,
        "the cut card, as the cards left behind it at the end of the shoe",
        range=Between(0, _SIZE, below=True, note="cards left behind it"),
    )
    burn_by_first_card: bool = rule(
        False,
        "turn over the first card and burn as many more as it counts (the casino baccarat burn)",
    )
    reshuffle_fraction: Fraction | None = rule(
        None,
        "the share of the shoe's cards dealt before a reshuffle (follows the shoe's size)",
        kind="share",
        range=Between(0, 1, above=True, note="of the shoe's cards dealt"),
    )
    reshuffle_after_rounds: int = rule(
        0,
        "rounds dealt from one shuffle before the next (as well as the reshuffle "
        "point in cards, whichever comes first); 0: no limit",
        range=Between(0, 100_000, note="0: no limit"),
    )
    cards_per_rank: tuple[int, ...] = rule(
        (),
        "the shoe's cards of each rank, Ace to King (13 counts), instead of four "
        "per deck; each rank's cards are spread over the suits in turn (spades, "
        "hearts, diamonds, clubs); the Jokers stay jokers_per_deck for each deck; "
        "empty: whole decks",
    )

    #: the forms of the reshuffle point, in the order a message names them
    RESHUFFLE_KEYS: ClassVar[tuple[str, ...]] = (
        "reshuffle_after",
        "reshuffle_fraction",
        "cut_card",
    )

    def __post_init__(self) -> None:
        _check_ranks(self.cards_per_rank)
        if self.cut_card is not None and self.reshuffle_fraction is not None:
            raise ValueError(
                "reshuffle_fraction: give a cut_card or a reshuffle_fraction, not both"
            )
        if self.cut_card is not None:
            object.__setattr__(self, "reshuffle_after", self.size - self.cut_card)
        elif self.reshuffle_fraction is not None:
            object.__setattr__(
                self, "reshuffle_after", _share_of(self.reshuffle_fraction, self.size)
            )
        # the shoe first, then how it is reshuffled
        check_ranges(self, _RANGE_ORDER)

    @property
    def size(self) -> int:
        return _size(self.decks, self.jokers_per_deck, self.cards_per_rank)

    # -- in a rules file ---------------------------------------------------------------
    @staticmethod
    def prepare_toml(default: ShoeRules, data: dict[str, Any]) -> dict[str, Any]:
        """Read the reshuffle point of a rules file in whichever form it is given.

        ``reshuffle_fraction = "3/4"`` (or ``0.75``) deals that share of the shoe's cards,
        ``cut_card = 16`` leaves 16 cards behind the cut card, ``reshuffle_after = 243``
        deals 243 cards (kept as its share of the file's shoe).  Forms given together
        must agree on the file's shoe.  A file that gives none keeps the default's form,
        so a change of the shoe's size keeps its cut card or its share.
        """
        decks = data.get("decks", default.decks)
        jokers = data.get("jokers_per_deck", default.jokers_per_deck)
        ranks = data.get("cards_per_rank", default.cards_per_rank)
        size = 0
        if _whole(decks) and _whole(jokers):
            try:
                size = _size(decks, jokers, _check_ranks(ranks))
            except ValueError:
                size = 0  # the check on cards_per_rank reports it
        if "reshuffle_fraction" in data:
            data["reshuffle_fraction"] = _share(data["reshuffle_fraction"])
        elif not ({"reshuffle_after", "cut_card"} & data.keys()):
            if default.cut_card is None and default.reshuffle_fraction is None:
                data["reshuffle_fraction"] = Fraction(default.reshuffle_after, default.size)
            return data
        if size < 1:
            return data  # the checks on decks and jokers_per_deck report it
        dealt: dict[str, int] = {}  # what each form given says, in cards dealt
        if "reshuffle_fraction" in data:
            dealt["reshuffle_fraction"] = _share_of(data["reshuffle_fraction"], size)
        if _whole(data.get("reshuffle_after")):
            dealt["reshuffle_after"] = data["reshuffle_after"]
        if _whole(data.get("cut_card")):
            dealt["cut_card"] = size - data["cut_card"]
        _agree(data, dealt, size)
        if "cut_card" in data:  # the cut card sets the reshuffle point
            data.pop("reshuffle_after", None)
            data["reshuffle_fraction"] = None
            return data
        data["cut_card"] = None
        count = data.pop("reshuffle_after", None)
        if "reshuffle_fraction" not in data:
            if _whole(count) and 1 <= count <= size:
                data["reshuffle_fraction"] = Fraction(count, size)
            else:  # refused (or its type reported) as a reshuffle_after
                data["reshuffle_after"], data["reshuffle_fraction"] = count, None
        return data

    def toml_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """Write the reshuffle point in the form that follows the shoe's size, where the
        count stood: the cut card, or else the share of the shoe dealt, so that a file
        whose decks alone are edited keeps its cut card or its share."""
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "reshuffle_after":
                if self.cut_card is not None:
                    out["cut_card"] = self.cut_card
                else:
                    share = self.reshuffle_fraction or Fraction(self.reshuffle_after, self.size)
                    out["reshuffle_fraction"] = str(share)
            elif key in ("reshuffle_after_rounds", "cards_per_rank") and not value:
                continue  # no limit, whole decks: a file leaves them out, as before
            elif key not in self.RESHUFFLE_KEYS:
                out[key] = value
        return out

    def cards(self) -> tuple[Card, ...]:
        return _shoe_cards(self.decks, self.jokers_per_deck, self.cards_per_rank)

    @property
    def whole_decks(self) -> bool:
        """Is the shoe whole decks (no ``cards_per_rank``)?"""
        return not self.cards_per_rank

    def rank_counts(self, decks: int | None = None) -> dict[Rank, int]:
        """The shoe's cards per rank (Jokers included); ``decks`` asks for that many
        whole decks instead, which a shoe of ``cards_per_rank`` refuses (ValueError)."""
        if decks is not None and not self.whole_decks:
            raise ValueError(
                "decks: these rules give the shoe's cards_per_rank; it is not whole decks"
            )
        if decks is not None:
            if decks < 1:
                raise ValueError("decks: a shoe needs at least one deck")
            return {r: decks * (self.jokers_per_deck if r is Rank.JOKER else 4) for r in Rank}
        counts = Counter(card.rank for card in self.cards())
        return {r: counts[r] for r in Rank}


#: the most cards of one rank a shoe may hold
MAX_PER_RANK = 4 * MAX_DECKS


def _check_ranks(ranks: Any) -> tuple[int, ...]:
    """A ``cards_per_rank`` as given: nothing, or 13 whole counts (ValueError otherwise)."""
    words = (
        f"must be 13 whole numbers (Ace to King) between 0 and {MAX_PER_RANK}, at least one above 0"
    )
    if not isinstance(ranks, tuple | list):
        raise ValueError(f"cards_per_rank: {words}")
    if not ranks:
        return ()
    for i, n in enumerate(ranks):
        if not (_whole(n) and 0 <= n <= MAX_PER_RANK):
            raise ValueError(
                f"cards_per_rank[{i}]: must be a whole number between 0 and {MAX_PER_RANK}, "
                f"not {brief(n)}"
            )
    if len(ranks) != 13 or not any(ranks):
        raise ValueError(f"cards_per_rank: {words}, not {brief(list(ranks))}")
    return tuple(ranks)


def _size(decks: int, jokers_per_deck: int, ranks: tuple[int, ...]) -> int:
    ordinary = sum(ranks) if ranks else 52 * decks
    return ordinary + decks * jokers_per_deck


@functools.lru_cache(maxsize=64)
def _shoe_cards(decks: int, jokers_per_deck: int, ranks: tuple[int, ...] = ()) -> tuple[Card, ...]:
    """A shoe's cards, unshuffled: made once per size (a web server sets a shoe up for
    every round, and cards are frozen values).  With ``ranks``, that many cards of each
    rank (Ace to King), dealt round the suits in turn, then the Jokers."""
    if not ranks:
        return Deck.shoe(decks, jokers_per_deck)
    suits = tuple(Suit)
    ordinary = tuple(
        Card(rank, suits[i % 4])
        for rank, count in zip(RANKS, ranks, strict=True)
        for i in range(count)
    )
    return ordinary + (JOKER,) * (decks * jokers_per_deck)


def check_in_shoe(cards: Iterable[Card], rules: ShoeRules) -> None:
    """Refuse cards that one shoe of ``rules`` could not deal: a card it does not hold
    (a Joker in a shoe without them), or more copies of a card than it holds.

    >>> from cardroom.core.cards import parse_cards
    >>> check_in_shoe(parse_cards("Jo 5h"), ShoeRules(decks=8, jokers_per_deck=0, cut_card=16))
    Traceback (most recent call last):
    ...
    cardroom.core.cards.CardError: Jo is not in this game's shoe: it has no Jokers
    >>> check_in_shoe(parse_cards("Kd Kd Kd"), ShoeRules(decks=2, reshuffle_after=60))
    Traceback (most recent call last):
    ...
    cardroom.core.cards.CardError: Kd comes 3 times, but the shoe of 2 decks holds only 2
    """
    held = Counter(rules.cards())
    for card, count in Counter(cards).items():
        have = held[card]
        if not have:
            raise CardError(f"{card.code} is not in this game's shoe: it has no Jokers")
        if count > have:
            decks = f"{rules.decks} deck{'s' if rules.decks != 1 else ''}"
            if not rules.whole_decks:
                decks = f"{rules.size} cards"
            raise CardError(
                f"{card.code} comes {count} times, but the shoe of {decks} holds only {have}"
            )


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _share_of(share: Fraction, size: int) -> int:
    """The cards dealt before a reshuffle when ``share`` of ``size`` cards are: rounded
    down, but at least one."""
    return max(1, math.floor(share * size))


def _share(raw: Any) -> Fraction:
    """A rules file's ``reshuffle_fraction``: above 0 and at most 1."""
    words = 'must be a fraction such as "3/4" or 0.75, above 0 and at most 1'
    try:
        share = read_number(raw, odds_allowed=False)
    except (ValueError, ArithmeticError):
        raise ValueError(f"reshuffle_fraction: {words}, not {brief(raw)}") from None
    if not 0 < share <= 1:
        raise ValueError(f"reshuffle_fraction: {words}, not {brief(raw)}")
    return share


def _agree(data: dict[str, Any], dealt: dict[str, int], size: int) -> None:
    """Refuse two forms of the reshuffle point that deal different numbers of cards."""
    forms = [key for key in ShoeRules.RESHUFFLE_KEYS if key in dealt]
    for i, first in enumerate(forms):
        for second in forms[i + 1 :]:
            if dealt[first] != dealt[second]:
                said = {key: _written(data[key]) for key in (first, second)}
                raise ValueError(
                    f"{first}: {first} = {said[first]} and {second} = {said[second]} disagree "
                    f"on a shoe of {size} cards (a reshuffle after {dealt[first]} or after "
                    f"{dealt[second]} cards dealt): give only one of them"
                )


def _written(value: Any) -> str:
    return f'"{value}"' if isinstance(value, Fraction) else str(value)


class _Cards:
    """Cards dealt from the top of a list: what a live and a stacked shoe share."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards = list(cards)
        self._next = 0
        #: rounds begun since the last shuffle (:meth:`begin_round`)
        self.rounds = 0

    def begin_round(self) -> None:
        """Count a round begun (after any reshuffle before it)."""
        self.rounds += 1

    @property
    def dealt(self) -> int:
        """Cards taken since the last shuffle (burnt ones included)."""
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._cards) - self._next

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise ShoeExhausted(f"the shoe ran out of cards after {self._next}")
        card = self._cards[self._next]
        self._next += 1
        return card

    def peek(self, count: int) -> Sequence[Card]:
        """The next ``count`` cards, without dealing them (for tests and replays)."""
        return tuple(self._cards[self._next : self._next + count])


class Shoe(_Cards):
    """A live shoe dealt from the top, shuffled by an injected :class:`Shuffler`."""

    def __init__(self, rules: ShoeRules, shuffler: Shuffler) -> None:
        super().__init__()
        self.rules = rules
        self._shuffler = shuffler
        self._all = rules.cards()
        self.shuffles = 0

    @classmethod
    def restore(
        cls,
        rules: ShoeRules,
        shuffler: Shuffler,
        cards: Sequence[Card],
        dealt: int,
        shuffles: int,
        rounds: int = 0,
    ) -> Shoe:
        """A shoe as it was saved (:attr:`order`, :attr:`dealt`, :attr:`shuffles`, and the
        :attr:`rounds` begun since that shuffle): the same cards in the same order, dealt
        as far; it goes on with ``shuffler``.

        >>> rules = ShoeRules(decks=1, jokers_per_deck=0, reshuffle_after=40)
        >>> shoe = Shoe(rules, SeededShuffler(3))
        >>> _ = shoe.shuffle("new_shoe"); _ = shoe.draw()
        >>> again = Shoe.restore(shoe.rules, SeededShuffler(0), shoe.order, shoe.dealt, 1)
        >>> again.draw() == shoe.draw(), again.remaining
        (True, 50)
        """
        shoe = cls(rules, shuffler)
        if not 0 <= dealt <= len(cards) or shuffles < 0 or (cards and not shuffles):
            raise ValueError(f"a saved shoe of {len(cards)} cards cannot have dealt {dealt}")
        shoe._cards = list(cards)
        shoe._next = dealt
        shoe.shuffles = shuffles
        shoe.rounds = max(0, rounds)
        return shoe

    @property
    def order(self) -> tuple[Card, ...]:
        """The cards of this shuffle in order, dealt ones included (what :meth:`restore`
        takes back)."""
        return tuple(self._cards)

    @property
    def needs_reshuffle(self) -> bool:
        """True before the first shuffle and once the reshuffle point is reached (in
        cards dealt, or in rounds where the rules set a limit)."""
        return self.shuffles == 0 or self._next >= self.rules.reshuffle_after or self._rounds_up

    @property
    def _rounds_up(self) -> bool:
        limit = self.rules.reshuffle_after_rounds
        return bool(limit) and self.rounds >= limit

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled:
        """Shuffle every card except those still on the table (``in_play``).

        ``cause`` says why, for the event: ``new_shoe``, ``reshuffle_point`` or
        ``ran_out`` (in mid-round).
        """
        pool = list(self._all)
        for card in in_play:
            pool.remove(card)
        order = self._shuffler.permutation(len(pool))
        self._cards = [pool[i] for i in order]
        self.shuffles += 1
        burnt = self.rules.burn
        first: Card | None = None
        if self.rules.burn_by_first_card and self._cards:
            first = self._cards[0]
            burnt = 1 + min(first.rank.number, 10)
        self._next = min(burnt, len(self._cards))
        # a shoe that ran out in mid-round deals the rest of that round: it is this
        # shuffle's first
        self.rounds = 1 if cause == "ran_out" else 0
        return Reshuffled(self.shuffles, cause, self._next, first)

    @property
    def next_cause(self) -> str:
        """Why the next shuffle happens: ``new_shoe``, or ``cut_card`` (the cut card came
        out) or ``reshuffle_point`` (so many cards were dealt), or ``round_limit`` (so
        many rounds were dealt from this shuffle)."""
        if self.shuffles == 0:
            return "new_shoe"
        if self._next < self.rules.reshuffle_after and self._rounds_up:
            return "round_limit"
        return "cut_card" if self.rules.cut_card is not None else "reshuffle_point"


class StackedShoe(_Cards):
    """A shoe whose cards come in a given order; it is never reshuffled."""

    shuffles = 1

    @property
    def needs_reshuffle(self) -> bool:
        return False

    @property
    def next_cause(self) -> str:
        return "reshuffle_point"

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled:
        raise ShoeExhausted(
            f"the stacked shoe ran out of cards after {self._next} (it is never reshuffled)"
        )


class CardSource(Protocol):
    """What a table deals from: a live :class:`Shoe` or a :class:`StackedShoe`."""

    shuffles: int

    @property
    def dealt(self) -> int: ...

    @property
    def remaining(self) -> int: ...

    @property
    def needs_reshuffle(self) -> bool: ...

    @property
    def next_cause(self) -> str: ...

    def begin_round(self) -> None: ...

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled: ...

    def draw(self) -> Card: ...


def _nothing() -> None:
    return None


def reshuffle_if_due(
    source: CardSource,
    record: Callable[[Reshuffled], object],
    after: Callable[[], None] = _nothing,
    begins_round: bool = True,
) -> bool:
    """Between rounds: reshuffle ``source`` if its reshuffle point has come, ``record``
    the reshuffle, then call ``after``; says whether it did.  Every table deals this way
    (the plain dealer, the bots' driver, the house and chemin de fer tables).  The round
    that follows is counted against the shoe's round limit if it ``begins_round`` (the
    draw for chemin de fer's bank does not)."""
    due = source.needs_reshuffle
    if due:
        record(source.shuffle(source.next_cause))
        after()
    if begins_round:
        source.begin_round()
    return due


def draw_or_reshuffle(
    source: CardSource,
    in_play: Callable[[], Collection[Card]],
    record: Callable[[Reshuffled], object],
    after: Callable[[], None] = _nothing,
) -> Card:
    """The next card of ``source``; a shoe that runs out in the middle of a round is
    reshuffled without the cards in play, the reshuffle ``record``-ed and ``after``
    called, and the card drawn from the new shoe.  A stacked shoe that runs out raises
    :class:`ShoeExhausted` (a replay or a lab asked for more cards than it gave)."""
    try:
        return source.draw()
    except ShoeExhausted:
        if isinstance(source, StackedShoe):
            raise
        record(source.shuffle("ran_out", in_play=in_play()))
        after()
        return source.draw()
