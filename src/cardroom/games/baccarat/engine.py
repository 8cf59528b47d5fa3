"""``punto-banco`` and ``baccarat27``: the punto banco engine, one rule set as data.

Both games deal the same coup and differ only in their rules data (which wagers
the table offers and what they pay).

1. Values: Ace 1, Two to Nine their number, tens and pictures 0; a hand's total is
   the last digit of the sum.
2. Cards go player, banker, player, banker.  A two-card 8 or 9 on either side is a
   *natural*: nobody draws.
3. Otherwise the player draws a third card on 0-5 and stands on 6-7.  If the player
   stood, the banker draws on 0-5; if the player drew, the banker follows the
   tableau (:data:`STANDARD_TABLEAU`): the banker's total against the value of the
   player's third card.
4. The higher total wins; equal totals tie.  Player and banker wagers push on a tie.

``punto-banco`` pays player 1:1, banker 19:20 (5% commission) and tie 8:1.
``baccarat27`` pays the banker 2:1 when it wins with 2, 1:2 when it wins with 7 and
1:1 otherwise; pairs (the hand's first two cards share a rank) 11:1; and B-27 8:1
when the banker wins with 2 or 7.

>>> from cardroom.core.cards import parse_cards
>>> [baccarat_total(parse_cards(hand)) for hand in ("9h Jc", "6s 4d", "7h 6c")]
[9, 0, 3]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from cardroom.core.cards import Card, Rank, Suit
from cardroom.core.events import CardDealt, Decision, Event, Fact, Points, Why
from cardroom.core.rules import ODDS, Between, check_ranges, rule
from cardroom.core.shoe import ShoeRules
from cardroom.games.baccarat.wagers import MAIN_WAGERS, WAGERS, CoupFacts, side_wagers
from cardroom.games.base import Action, IllegalAction, Round, TableLimits, check_wagers

#: a hand's total, or the value of a card
TOTAL = Between(0, 9)
#: the side wagers of the game as it ships (a test or a designer may register more)
SIDE_WAGERS = side_wagers()


def card_value(card: Card) -> int:
    """A card's baccarat points: Ace 1, 2-9 their number, tens and pictures 0."""
    number = card.rank.number
    return number if number < 10 else 0


def card_with_value(value: int) -> Card:
    """A card that counts ``value`` (0-9): Ace to Nine, or a Ten for 0 (spades: suits do
    not count)."""
    if not 0 <= value <= 9:
        raise ValueError(f"value: a baccarat card counts 0 to 9, not {value}")
    rank = Rank.TEN if value == 0 else next(r for r in Rank if r.number == value)
    return Card(rank, Suit.SPADES)


def baccarat_total(cards: Iterable[Card]) -> int:
    """The last digit of the sum of the cards' points."""
    return sum(card_value(card) for card in cards) % 10


@dataclass(frozen=True)
class BankerRow:
    """One banker total of the tableau: the player's third-card values it draws on."""

    banker: int = rule(range=TOTAL)
    draws_on: tuple[int, ...] = rule(range=Between(0, 9, note="values of the player's third card"))

    def __post_init__(self) -> None:
        check_ranges(self)


#: The standard tableau when the player has drawn: banker total -> values of the
#: player's third card on which the banker draws (8s and 9s are naturals).
STANDARD_TABLEAU: tuple[BankerRow, ...] = (
    BankerRow(0, tuple(range(10))),
    BankerRow(1, tuple(range(10))),
    BankerRow(2, tuple(range(10))),
    BankerRow(3, (0, 1, 2, 3, 4, 5, 6, 7, 9)),
    BankerRow(4, (2, 3, 4, 5, 6, 7)),
    BankerRow(5, (4, 5, 6, 7)),
    BankerRow(6, (6, 7)),
    BankerRow(7, ()),
)


@dataclass(frozen=True)
class Tableau:
    """The drawing rules of punto banco, as data."""

    #: what the rules pages and the lab call this part of the rules
    TITLE: ClassVar[str] = "The tableau"

    natural_from: int = rule(
        8,
        "a two-card total from this up is a natural, and both hands stand",
        range=Between(1, 10, note="10: no naturals"),
    )
    player_draws_below: int = rule(
        6,
        "the player draws a third card on a total below this",
        range=Between(0, 10),
    )
    banker_draws_below_when_player_stands: int = rule(
        6,
        "when the player stands, the banker draws on a total below this",
        range=Between(0, 10),
    )
    banker: tuple[BankerRow, ...] = rule(
        STANDARD_TABLEAU,
        "when the player drew: the banker's draw by his total and the player's third card",
    )

    def __post_init__(self) -> None:
        check_ranges(self)
        totals = sorted(row.banker for row in self.banker)
        if totals != list(range(self.natural_from)):
            raise ValueError(
                f"banker: needs one row for each banker total 0 to {self.natural_from - 1}"
            )

    def is_natural(self, total: int) -> bool:
        return total >= self.natural_from

    def player_draws(self, player: int) -> bool:
        return player < self.player_draws_below

    def banker_draws(self, banker: int, player_third: Card | None) -> bool:
        """Does the banker draw, given the player's third card (None: the player stood)?"""
        if player_third is None:
            return banker < self.banker_draws_below_when_player_stands
        for row in self.banker:
            if row.banker == banker:
                return card_value(player_third) in row.draws_on
        return False

    def banker_reason(self, banker: int, player_third: Card | None, draws: bool) -> Why:
        """The tableau's rule for the banker's draw or stand."""
        if player_third is None:
            below = self.banker_draws_below_when_player_stands
            return Why.of("banker_player_stood", draws=draws, banker=banker, below=below)
        value = card_value(player_third)
        return Why.of("banker_third_card", draws=draws, banker=banker, value=value)


@dataclass(frozen=True)
class BankerPay:
    """A banker win with this total pays these odds instead of the usual."""

    total: int = rule(range=TOTAL)
    pays: Fraction = rule(range=ODDS)

    def __post_init__(self) -> None:
        check_ranges(self)


@dataclass(frozen=True)
class BaccaratRules:
    """Every rule of a punto banco game (defaults: ``punto-banco``)."""

    shoe: ShoeRules = rule(factory=lambda: ShoeRules(decks=8, jokers_per_deck=0, cut_card=16))
    table: TableLimits = rule(factory=TableLimits)
    tableau: Tableau = rule(factory=Tableau)
    side_wagers: tuple[str, ...] = rule((), "the side wagers the table offers")
    player_pays: Fraction = rule(Fraction(1), "what a winning player wager pays", range=ODDS)
    banker_pays: Fraction = rule(
        Fraction(19, 20),
        "what a winning banker wager pays (19:20 is 1:1 less a 5% commission)",
        range=ODDS,
    )
    banker_pays_by_total: tuple[BankerPay, ...] = rule(
        (),
        "other pays for a banker win on some totals",
    )
    tie_pays: Fraction = rule(Fraction(8), "what the tie wager pays", range=ODDS)
    pair_pays: Fraction = rule(Fraction(11), "what each pair wager pays", range=ODDS)
    b27_pays: Fraction = rule(Fraction(8), "what the 27 side wager pays", range=ODDS)
    b27_totals: tuple[int, ...] = rule(
        (2, 7),
        "the banker's winning totals the 27 side wager pays on",
        range=TOTAL,
    )

    def __post_init__(self) -> None:
        check_ranges(self)
        totals = [special.total for special in self.banker_pays_by_total]
        twice = [total for i, total in enumerate(totals) if total in totals[:i]]
        if twice:
            raise ValueError(f"banker_pays_by_total: the total {twice[0]} is given twice")
        sides = side_wagers()
        unknown = [w for w in self.side_wagers if w not in sides]
        if unknown:
            raise ValueError(
                f"side_wagers: unknown {', '.join(unknown)} (choose from {', '.join(sides)})"
            )

    @property
    def wager_ids(self) -> tuple[str, ...]:
        return MAIN_WAGERS + tuple(w for w in side_wagers() if w in self.side_wagers)

    def banker_odds(self, total: int) -> Fraction:
        for special in self.banker_pays_by_total:
            if special.total == total:
                return special.pays
        return self.banker_pays


def punto_banco_rules() -> BaccaratRules:
    return BaccaratRules()


def baccarat27_rules() -> BaccaratRules:
    return BaccaratRules(
        side_wagers=SIDE_WAGERS,
        banker_pays=Fraction(1),
        banker_pays_by_total=(BankerPay(2, Fraction(2)), BankerPay(7, Fraction(1, 2))),
    )


#: the first four cards of a coup, in order
DEAL_ORDER = ("player", "banker", "player", "banker")


def after_card(hands: Mapping[str, Sequence[Card]], hand: str) -> str:
    """What a coup does once a card went to ``hand`` (chemin de fer's too): the hand of
    the next of the first four cards, ``"drawing"`` once the four are out (naturals, then
    the player's third card), ``"banker"`` after the player's third card (the banker's
    turn), ``"showdown"`` after the banker's."""
    dealt = len(hands["player"]) + len(hands["banker"])
    if dealt < 4:
        return DEAL_ORDER[dealt]
    if dealt == 4:
        return "drawing"
    return "banker_turn" if hand == "player" else "showdown"


def showdown(player: int, banker: int, natural: bool = False) -> tuple[str, Why]:
    """The outcome of two complete baccarat hands, and why (chemin de fer's too)."""
    if player == banker:
        return "tie", Why.of("tie", total=player, natural=natural)
    winner, loser = ("player", "banker") if player > banker else ("banker", "player")
    high, low = max(player, banker), min(player, banker)
    facts: dict[str, Fact] = {"winner": winner, "loser": loser, "natural": natural}
    return winner, Why("beats", {**facts, "winner_total": high, "loser_total": low})


class BaccaratRound(Round):
    """One coup of punto banco; feed it cards until :attr:`is_complete`."""

    game = "punto-banco"
    wager_ids = MAIN_WAGERS + SIDE_WAGERS  # those the rules offer: ``rules.wager_ids``
    hand_names = ("player", "banker")
    DEAL_ORDER = DEAL_ORDER

    def __init__(
        self,
        rules: BaccaratRules | None = None,
        wagers: Mapping[str, Fraction | int | str] | None = None,
    ) -> None:
        self.rules = rules or self.default_rules()
        super().__init__(check_wagers(wagers or {}, self.rules.wager_ids, self.rules.table))
        self._next: str | None = "player"

    @staticmethod
    def default_rules() -> BaccaratRules:
        return punto_banco_rules()

    @property
    def next_hand(self) -> str | None:
        return None if self.is_complete else self._next

    def total(self, hand: str) -> int:
        return baccarat_total(self.hands[hand])

    def totals(self) -> dict[str, int]:
        return {name: self.total(name) for name in self.hand_names}

    @property
    def player_third(self) -> Card | None:
        cards = self.hands["player"]
        return cards[2] if len(cards) > 2 else None

    def pair(self, hand: str) -> bool:
        """Do the hand's first two cards share a rank?"""
        cards = self.hands[hand]
        return len(cards) >= 2 and cards[0].rank is cards[1].rank

    def state_key(self) -> Hashable:
        """What the rest of the coup depends on: totals, card counts, pairs, third card."""
        third = self.player_third
        return (
            self._next,
            # a lone first card's rank still decides a pair
            tuple(cards[0].rank if len(cards) == 1 else None for cards in self.hands.values()),
            self.total("player"),
            self.total("banker"),
            len(self.hands["player"]),
            len(self.hands["banker"]),
            self.pair("player"),
            self.pair("banker"),
            None if third is None else card_value(third),
        )

    def _decide(self, action: Action) -> list[Event]:
        raise IllegalAction("in punto banco nobody decides: the tableau plays both hands")

    def deal(self, card: Card) -> list[Event]:
        hand = self.next_hand
        if hand is None:
            raise IllegalAction("the coup is complete: it takes no more cards")
        start = len(self.events)
        self.hands[hand].append(card)
        self.events.append(CardDealt(hand, card, Points(self.total(hand))))
        step = after_card(self.hands, hand)
        if step == "drawing":
            self._after_deal()
        elif step == "banker_turn":
            self._banker_turn()
        elif step == "showdown":
            self._showdown()
        else:
            self._next = step
        return self.events[start:]

    def _after_deal(self) -> None:
        tableau = self.rules.tableau
        player, banker = self.total("player"), self.total("banker")
        if tableau.is_natural(player) or tableau.is_natural(banker):
            self._showdown(natural=True)
            return
        if tableau.player_draws(player):
            why = Why.of("player_draws", total=player, below=tableau.player_draws_below)
            self.events.append(Decision("player", Action.HIT, True, why))
            self._next = "player"
            return
        why = Why.of("player_stands", total=player)
        self.events.append(Decision("player", Action.STAND, True, why))
        self._banker_turn()

    def _banker_turn(self) -> None:
        tableau = self.rules.tableau
        banker, third = self.total("banker"), self.player_third
        draws = tableau.banker_draws(banker, third)
        reason = tableau.banker_reason(banker, third, draws)
        self.events.append(Decision("banker", Action.HIT if draws else Action.STAND, True, reason))
        if draws:
            self._next = "banker"
        else:
            self._showdown()

    def _showdown(self, natural: bool = False) -> None:
        self._next = None
        player, banker = self.total("player"), self.total("banker")
        self._finish(*showdown(player, banker, natural))

    def facts(self) -> CoupFacts:
        """What the finished coup tells its wagers."""
        assert self.outcome is not None
        return CoupFacts(
            self.outcome,
            self.total("player"),
            self.total("banker"),
            self.pair("player"),
            self.pair("banker"),
        )

    def settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        return WAGERS[wager].settle(self.rules, self.facts(), stake)


class PuntoBancoRound(BaccaratRound):
    """A coup of ``punto-banco``."""

    game = "punto-banco"


class Baccarat27Round(BaccaratRound):
    """A coup of ``baccarat27``."""

    game = "baccarat27"

    @staticmethod
    def default_rules() -> BaccaratRules:
        return baccarat27_rules()
