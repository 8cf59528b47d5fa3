"""What the two Finnish 27 games share: hand totals, hit-to-target tables, the deal.

Card points: Ace 1 or 14, 2-10 their number, Jack 11, Queen 12, King 13, Joker 0
(after the first two cards in ``finnish27``, always in ``21-24-27``).  At most one
Ace counts high, and only while that keeps the total at 27 or less; a hand with a
high Ace is *soft*.

>>> from cardroom.core.cards import parse_cards
>>> str(finnish_total(parse_cards("As Jd")))
'soft 25'
>>> str(finnish_total(parse_cards("As 9d Kc")))
'hard 23'
>>> initial_27(parse_cards("Jo 5h"), jokers_make_27=True)
<Initial27.JOANCA: 1>
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import cache
from typing import ClassVar, Protocol

from cardroom.core.cards import RANKS, Card, Rank
from cardroom.core.events import CardDealt, Decision, Event, Points, Why
from cardroom.core.rules import Between, Ref, check_ranges, rule
from cardroom.games.base import Action, IllegalAction, Round

TARGET = 27
ACE_BONUS = 13  # a high Ace counts 14 instead of 1

#: a limit a total is compared with ("hits below", "must stand from"): 0 (never hits;
#: always stands) to 28 (hits through 27; never stands)
TOTAL_LIMIT = Between(0, TARGET + 1)
#: a dealer's two-card total (hard 0, two Jokers, to soft 27)
TWO_CARD_TOTAL = Between(0, TARGET, note="a dealer's two-card total")


def card_points(card: Card) -> int:
    """Points of one card with the Ace counted low and the Joker as 0."""
    return card.rank.number


@dataclass(frozen=True, order=True)
class Total:
    """A hand total; ``soft`` when an Ace counts 14."""

    value: int
    soft: bool = False

    @property
    def points(self) -> Points:
        """The total as events carry it."""
        return Points(self.value, self.soft)

    def __str__(self) -> str:
        return f"{'soft' if self.soft else 'hard'} {self.value}"

    @property
    def bust(self) -> bool:
        return self.value > TARGET

    @property
    def distance(self) -> int:
        """How far the total is from 27, either way."""
        return abs(self.value - TARGET)


def total_from(low: int, has_ace: bool) -> Total:
    """The total of a hand whose cards sum to ``low`` with every Ace low."""
    if has_ace and low + ACE_BONUS <= TARGET:
        return Total(low + ACE_BONUS, True)
    return Total(low, False)


def total_index(total: Total) -> int:
    """A total as a table index, ``value * 2 + soft`` (the compiled kernels' and the
    counts' tables are indexed so)."""
    return total.value * 2 + int(total.soft)


@cache
def total_of(index: int) -> Total:
    """The total at a table index (:func:`total_index`)."""
    return Total(index // 2, bool(index % 2))


def finnish_total(cards: Iterable[Card]) -> Total:
    """The total of ``cards`` with every Joker counting 0."""
    low = 0
    has_ace = False
    for card in cards:
        low += card_points(card)
        has_ace = has_ace or card.rank is Rank.ACE
    return total_from(low, has_ace)


class Initial27(IntEnum):
    """The two-card 27s, ranked: Jo Jo beats Finnish 27 beats Joanca."""

    JOANCA = 1
    FINNISH_27 = 2
    JO_JO = 3

    @property
    def label(self) -> str:
        return {1: "Joanca", 2: "Finnish 27", 3: "Jo Jo"}[self.value]

    @property
    def key(self) -> str:
        """The name's id in events (``joanca``, ``finnish_27``, ``jo_jo``)."""
        return {1: "joanca", 2: "finnish_27", 3: "jo_jo"}[self.value]


#: every initial 27 (finnish27's default); 21-24-27 counts Ace + King only
EVERY_27: frozenset[Initial27] = frozenset(Initial27)
ACE_KING_ONLY: frozenset[Initial27] = frozenset({Initial27.FINNISH_27})


def counted_27s(jokers_make_27: bool | frozenset[Initial27]) -> frozenset[Initial27]:
    """The initial 27s a game counts: all of them if Jokers make 27, else Ace + King
    only (a set is given as it is)."""
    if isinstance(jokers_make_27, bool):
        return EVERY_27 if jokers_make_27 else ACE_KING_ONLY
    return jokers_make_27


def initial_27(
    cards: Sequence[Card],
    jokers_make_27: bool | frozenset[Initial27],
    joker_second: bool = False,
) -> Initial27 | None:
    """Which initial 27 the first two ``cards`` make, if any.

    With ``jokers_make_27`` (``finnish27``) a Joker among them makes 27 (Jo Jo
    with two, Joanca with one); without (``21-24-27``) only Ace + King counts.  A set
    of :class:`Initial27` names the ones that count (a finnish27 variant may count
    each on its own); two cards that make one not in it are played as their total.
    With ``joker_second`` a single Joker makes a Joanca only as the second card.

    >>> from cardroom.core.cards import parse_cards
    >>> initial_27(parse_cards("Jo 5h"), True, joker_second=True) is None
    True
    >>> initial_27(parse_cards("5h Jo"), True, joker_second=True)
    <Initial27.JOANCA: 1>
    """
    if len(cards) < 2:
        return None
    first, second = cards[0], cards[1]
    jokers = first.is_joker + second.is_joker
    kind: Initial27 | None = None
    if jokers == 2:
        kind = Initial27.JO_JO
    elif jokers and (second.is_joker or not joker_second):
        kind = Initial27.JOANCA
    elif {first.rank, second.rank} == {Rank.ACE, Rank.KING}:
        kind = Initial27.FINNISH_27
    return kind if kind in counted_27s(jokers_make_27) else None


@cache
def initial_totals(
    jokers_make_27: bool | frozenset[Initial27], joker_second: bool = False
) -> tuple[Total, ...]:
    """Every two-card total that is not an initial 27, in order."""
    ranks = [*RANKS, Rank.JOKER]
    totals: set[Total] = set()
    for a in ranks:
        for b in ranks:
            pair = (_sample(a), _sample(b))
            if initial_27(pair, jokers_make_27, joker_second) is None:
                totals.add(finnish_total(pair))
    return tuple(sorted(totals, key=lambda t: (t.soft, t.value)))


def _sample(rank: Rank) -> Card:
    return Card.parse("Jo") if rank is Rank.JOKER else Card.parse(f"{rank.value}s")


@dataclass(frozen=True)
class TargetRow:
    """One row of a hit-to-target table, keyed on the dealer's initial total.

    The row applies when the dealer's two-card total is ``dealer`` (``"hard"`` or
    ``"soft"``) and between ``low`` and ``high``.  The player hits while its own
    total is below ``hard`` (hard hands) or ``soft`` (soft hands); a row with
    ``relative`` instead hits while the total is below the dealer's total plus
    ``relative`` (1: "greater than the dealer's"; 0: "at least equal").
    """

    dealer: str = rule()
    low: int = rule(range=TWO_CARD_TOTAL)
    high: int = rule(range=Between(Ref("low"), TARGET, note="a dealer's two-card total"))
    hard: int | None = rule(None, range=TOTAL_LIMIT)
    soft: int | None = rule(None, range=TOTAL_LIMIT)
    relative: int | None = rule(
        None,
        range=Between(
            Ref("lowest_relative", "{}"),
            Ref("highest_relative", "{}"),
            note="the dealer's total plus relative is a target, 0 to 28",
        ),
    )

    def __post_init__(self) -> None:
        if self.dealer not in ("hard", "soft"):
            raise ValueError(f'dealer: must be "hard" or "soft", not {self.dealer!r}')
        check_ranges(self)
        absolute = self.hard is not None and self.soft is not None
        if absolute == (self.relative is not None) or (
            not absolute and (self.hard is not None or self.soft is not None)
        ):
            raise ValueError("relative: give either both hard and soft targets, or relative")

    @property
    def lowest_relative(self) -> int:
        """The least ``relative`` that keeps every target of the row at 0 or more."""
        return -self.low

    @property
    def highest_relative(self) -> int:
        """The most ``relative`` that keeps every target of the row at 28 or less."""
        return TARGET + 1 - self.high

    def applies(self, dealer: Total) -> bool:
        return dealer.soft == (self.dealer == "soft") and self.low <= dealer.value <= self.high

    def target(self, player: Total, dealer: Total) -> int:
        if self.relative is not None:
            return dealer.value + self.relative
        assert self.hard is not None and self.soft is not None
        return self.soft if player.soft else self.hard

    @property
    def dealer_label(self) -> str:
        span = str(self.low) if self.low == self.high else f"{self.low}-{self.high}"
        return f"{self.dealer} {span}"

    def facts(self) -> dict[str, int | str | None]:
        """The row as a decision's facts: the dealer's totals it covers and its targets."""
        return {
            "row_kind": self.dealer,
            "row_low": self.low,
            "row_high": self.high,
            "hard": self.hard,
            "soft": self.soft,
            "relative": self.relative,
        }

    @property
    def plan_label(self) -> str:
        if self.relative is None:
            return f"hit to hard {self.hard} and soft {self.soft}"
        if self.relative == 1:
            return "hit until above the dealer's total"
        if self.relative == 0:
            return "hit until at least the dealer's total"
        return f"hit to the dealer's total {self.relative:+d}"


@dataclass(frozen=True)
class TargetTable:
    """A hit-to-target strategy: the rows must cover each dealer total once."""

    rows: tuple[TargetRow, ...]

    def row_for(self, dealer: Total) -> TargetRow:
        for row in self.rows:
            if row.applies(dealer):
                return row
        raise LookupError(f"no row of the table covers a dealer's {dealer}")

    def hits(self, player: Total, dealer: Total) -> bool:
        return player.value < self.row_for(dealer).target(player, dealer)

    def check_covers(self, totals: Iterable[Total]) -> None:
        """Raise ValueError unless each of ``totals`` is covered by exactly one row."""
        for total in totals:
            matching = [row for row in self.rows if row.applies(total)]
            if len(matching) != 1:
                how = "no row covers" if not matching else f"{len(matching)} rows cover"
                raise ValueError(f"{how} a dealer's {total}")


class DealerDraw(Protocol):
    """The part of a Finnish game's rules the shared round needs: initial 27s and the
    dealer's draw."""

    @property
    def initial_27s(self) -> frozenset[Initial27]: ...

    @property
    def joanca_joker_second(self) -> bool:
        """Does a single Joker make a Joanca only as the hand's second card?"""
        ...

    @property
    def jokers_wild(self) -> bool:
        """Does a Joker drawn after the deal make its hand 27 at once?"""
        ...

    @property
    def dealer_hits_hard_below(self) -> int: ...

    @property
    def dealer_hits_soft_below(self) -> int: ...


def dealer_limit(rules: DealerDraw, total: Total) -> int:
    """The total below which the dealer draws to a hand of this kind (hard or soft)."""
    return rules.dealer_hits_soft_below if total.soft else rules.dealer_hits_hard_below


class FinnishRound(Round):
    """What both Finnish 27 games share: the deal, the totals and the dealer's draw.

    Cards go player, dealer, player, dealer; then the player's hand is played
    (:meth:`_player_turn`, the game's own rules), then the dealer draws to the
    rules' limits and :meth:`_showdown` settles.  A subclass sets
    :attr:`_hit_pending` when the player's next card is wanted.
    """

    hand_names = ("player", "dealer")
    DEAL_ORDER: ClassVar[tuple[str, ...]] = ("player", "dealer", "player", "dealer")

    def __init__(self, wagers: Mapping[str, Fraction], dealer: DealerDraw) -> None:
        super().__init__(wagers)
        self._dealer_rules = dealer
        self.initial_27s = dealer.initial_27s
        self.joker_second = dealer.joanca_joker_second
        self.jokers_wild = dealer.jokers_wild
        self._phase = "deal"
        self._hit_pending = False
        self.initial: dict[str, Initial27 | None] = {"player": None, "dealer": None}

    @property
    def next_hand(self) -> str | None:
        if self.is_complete:
            return None
        if self._phase == "deal":
            return self.DEAL_ORDER[len(self.hands["player"]) + len(self.hands["dealer"])]
        if self._phase == "player":
            return "player" if self._hit_pending else None
        return "dealer"

    #: Does the outcome depend on which ranks the player holds, beyond the total?
    #: (finnish27's bonus does); an exact walk keeps them in its state if so.
    PLAYER_RANKS_MATTER: ClassVar[bool] = False

    def state_key(self) -> Hashable:
        """What the rest of the round depends on, apart from the cards left.

        During the deal, the card order (a Joker's place decides a 27); after it,
        the dealer's first two ranks, the dealer's total, and the player's total
        (or, where the bonus needs them, the player's ranks).
        """
        if self._phase == "deal":
            return super().state_key()
        player = self.hands["player"]
        dealer = self.hands["dealer"]
        mine: Hashable = (
            tuple(sorted(card.rank.number for card in player))
            if self.PLAYER_RANKS_MATTER
            else (self.total("player"), len(player) > 2)
        )
        first_two = tuple(sorted(card.rank.number for card in dealer[:2]))
        return (self._phase, self._hit_pending, mine, first_two, self.total("dealer"))

    @property
    def dealer_initial(self) -> Total:
        """The dealer's two-card total, which the player's rules are keyed on."""
        return finnish_total(self.hands["dealer"][:2])

    def total(self, hand: str) -> Total:
        """A hand's total; an initial 27 counts 27, and so does a hand that drew a Joker
        after the deal where Jokers are wild."""
        cards = self.hands[hand]
        if self.jokers_wild and any(card.rank is Rank.JOKER for card in cards[2:]):
            return Total(TARGET, False)
        total = finnish_total(cards)
        if self.initial[hand] is not None and total.value != TARGET:
            return Total(TARGET, False)
        return total

    def totals(self) -> dict[str, int]:
        return {name: self.total(name).value for name in self.hand_names}

    def points(self) -> dict[str, Points]:
        points = {}
        for name in self.hand_names:
            kind = self.initial[name]
            total = self.total(name)
            points[name] = Points(total.value, total.soft, kind.key if kind else None)
        return points

    def deal(self, card: Card) -> list[Event]:
        hand = self.next_hand
        if hand is None:
            if self.is_complete:
                raise IllegalAction("the round is complete: it takes no more cards")
            raise IllegalAction("the round is waiting for the player to hit or stand")
        start = len(self.events)
        cards = self.hands[hand]
        cards.append(card)
        points: Points | None = None
        if len(cards) > 1:
            total = self.total(hand)
            points = Points(total.value, total.soft)
            named = None
            if len(cards) == 2:
                named = initial_27(cards, self.initial_27s, self.joker_second)
            if named is not None:
                points = Points(TARGET, False, named.key)
        self.events.append(CardDealt(hand, card, points))
        if self._phase == "deal":
            if len(self.hands["dealer"]) == 2:
                self.initial = {
                    name: initial_27(self.hands[name], self.initial_27s, self.joker_second)
                    for name in self.hand_names
                }
                self._after_deal()
        elif self._phase == "player":
            self._hit_pending = False
            self._player_turn()
        else:
            self._dealer_turn()
        return self.events[start:]

    def _after_deal(self) -> None:
        """Settle initial 27s (:attr:`initial` is set), or start the player's turn."""
        raise NotImplementedError

    def _player_turn(self) -> None:
        """Play the player's hand after each card; end with :meth:`_dealer_turn`."""
        raise NotImplementedError

    def _showdown(self, player: Total, dealer: Total) -> None:
        """Settle two complete hands."""
        raise NotImplementedError

    def _dealer_turn(self) -> None:
        self._phase = "dealer"
        dealer = self.total("dealer")
        limit = dealer_limit(self._dealer_rules, dealer)
        if dealer.value < limit:
            why = Why.of("dealer_hits", soft=dealer.soft, limit=limit)
            self.events.append(Decision("dealer", Action.HIT, True, why))
            return
        why = Why.of("dealer_stands", soft=dealer.soft, limit=limit)
        self.events.append(Decision("dealer", Action.STAND, True, why))
        self._showdown(self.total("player"), dealer)
