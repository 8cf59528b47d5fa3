"""``finnish27``: baccarat-like Finnish 27 -- the whole rule set and its engine.

A player hand and a dealer hand are dealt player, dealer, player, dealer, all
face up.  Nobody decides anything: the player's hand follows a fixed nine-row
hit-to-target table, the dealer hits hard totals below 24 and soft below 25.
Bettors back the player (1:1, plus a bonus for some winning hands), the dealer
(4:5) or a push (7:1).

The round, step by step (each step is one rule and has a named test):

1. Initial 27s.  A Joker as a first or second card makes that two-card hand 27
   (one Joker: *Joanca*; two: *Jo Jo*); Ace + King is a *Finnish 27*.  An initial
   27 wins at once; if both hands have one, Jo Jo > Finnish 27 > Joanca and equal
   ranks go to the dealer.  From the third card on a Joker counts 0.
2. The player hits while below the target of the table row that matches the
   dealer's two-card total (hard target for a hard hand, soft for a soft one; a
   "relative" row hits while the player is not above the dealer's total).
3. Player exactly 27: the player wins at once.  Player over 35: the dealer wins
   at once.  Otherwise the dealer plays, even when the player is over 27.
4. Settlement with final totals P and D ("bust" = over 27): push if P busts, D
   does not and P is strictly closer to 27; push if D busts, P does not and D is
   at least as close; otherwise the closer hand wins and equal distance goes to
   the dealer (also when both are over 27).
5. A push returns the player and dealer wagers.  A winning player wager also
   collects at most one bonus (see :class:`BonusTable`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from cardroom.core.cards import Card
from cardroom.core.events import Decision, Event, Fact, Why
from cardroom.core.money import format_amount, format_odds
from cardroom.core.rules import ODDS, Between, check_choices, check_ranges, rule
from cardroom.core.shoe import ShoeRules
from cardroom.games.base import (
    Action,
    IllegalAction,
    TableLimits,
    check_wagers,
)
from cardroom.games.finnish.bonuses import (
    CARD_27_KEYS,
    LINES,
    SOURCE,
    Ask,
    added_labels,
    first_award,
)
from cardroom.games.finnish.hands import (
    TARGET,
    TOTAL_LIMIT,
    FinnishRound,
    Initial27,
    TargetRow,
    TargetTable,
    Total,
    finnish_total,
    initial_totals,
)
from cardroom.games.finnish.options import (
    FEE,
    fee_of,
    with_fee,
)
from cardroom.games.finnish.poker import PokerCategory, PokerRules, best_category, best_held

GAME_ID = "finnish27"

#: The source's nine rules, keyed on the dealer's two-card total.  The first row
#: starts at hard 0 and the last covers soft 14 too: those totals (a Joker in a
#: two-card hand) only exist in a variant where Jokers do not make 27.
NINE_RULES: tuple[TargetRow, ...] = (
    TargetRow("hard", 0, 10, hard=23, soft=25),
    TargetRow("hard", 11, 14, hard=24, soft=25),
    TargetRow("hard", 15, 23, hard=23, soft=25),
    TargetRow("hard", 24, 26, relative=1),
    TargetRow("soft", 25, 26, relative=1),
    TargetRow("soft", 24, 24, hard=24, soft=25),
    TargetRow("soft", 23, 23, hard=23, soft=26),
    TargetRow("soft", 16, 22, hard=24, soft=26),
    TargetRow("soft", 14, 15, hard=25, soft=26),
)


#: the row the source's table gains when Ace + King is not an initial 27
ACE_KING_ROW = TargetRow("soft", 27, 27, hard=27, soft=27)


#: the poker bonus's awards, from the lowest category up (the source's order)
POKER_KEYS: tuple[str, ...] = (
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "full_house",
    "four_of_a_kind",
    "flush",
    "straight_flush",
    "five_of_a_kind",
)
#: which winning hands may earn the poker bonus: any, a total of 27, or not over 27
POKER_HANDS: tuple[str, ...] = ("any", "27", "under_28")
#: what a Joker is in the poker award: fully wild, or a "bug" (an Ace, or a card that
#: completes a straight, a flush or a straight flush)
POKER_JOKERS: tuple[str, ...] = ("wild", "bug")
#: the player's poker award against the dealer's final hand: not asked, only when the
#: player's category stands higher in the table's order, or when it stands as high
POKER_AGAINST_DEALER: tuple[str, ...] = ("ignored", "higher", "as_high")


@dataclass(frozen=True)
class BonusTable:
    """Bonuses on a winning player wager, as odds on its stake.

    The awards named in ``flat`` are flat amounts instead: that many times the table
    minimum (the three 9-9-9 awards by default: 9, 99 and 999 make the source's $90,
    $990 and $9,990 at a $10 table).  ``joanca`` pays a winning initial Joanca (a Joker
    and another card, when it is an initial 27); the source pays it nothing.
    """

    #: what the rules pages and the lab call this part of the rules
    TITLE: ClassVar[str] = "Bonuses on a winning player wager"

    finnish_27: Fraction = rule(
        Fraction(1, 2),
        "a winning initial Ace + King (Finnish 27)",
        range=ODDS,
    )
    jo_jo: Fraction = rule(Fraction(1), "a winning initial two Jokers (Jo Jo)", range=ODDS)
    eight_nine_ten_mixed: Fraction = rule(
        Fraction(1, 2),
        "a winning 8-9-10 of mixed suits",
        range=ODDS,
    )
    eight_nine_ten_suited: Fraction = rule(
        Fraction(1),
        "a winning 8-9-10 of one suit (not spades)",
        range=ODDS,
    )
    eight_nine_ten_spades: Fraction = rule(Fraction(2), "a winning 8-9-10 of spades", range=ODDS)
    nines_mixed: Fraction = rule(
        Fraction(9),
        "a winning 9-9-9 of mixed suits",
        kind="multiple",
        range=Between(0, 10_000, note="times the table minimum"),
    )
    nines_suited: Fraction = rule(
        Fraction(99),
        "a winning 9-9-9 of one suit",
        kind="multiple",
        range=Between(0, 10_000, note="times the table minimum"),
    )
    nines_vs_dealer_nines: Fraction = rule(
        Fraction(999),
        "a winning 9-9-9 against the dealer's first two cards 9-9",
        kind="multiple",
        range=Between(0, 10_000, note="times the table minimum"),
    )
    pair: Fraction = rule(
        Fraction(1, 5),
        "a winning hand of five cards or more whose best poker hand (Jokers wild) is a pair",
        range=ODDS,
    )
    two_pair: Fraction = rule(
        Fraction(1),
        "a winning hand of five cards or more whose best poker hand is two pair",
        range=ODDS,
    )
    three_of_a_kind: Fraction = rule(
        Fraction(2),
        "a winning hand of five cards or more whose best poker hand is three of a kind",
        range=ODDS,
    )
    straight: Fraction = rule(
        Fraction(3),
        "a winning hand of five cards or more whose best poker hand is a straight",
        range=ODDS,
    )
    full_house: Fraction = rule(
        Fraction(4),
        "a winning hand of five cards or more whose best poker hand is a full house",
        range=ODDS,
    )
    four_of_a_kind: Fraction = rule(
        Fraction(5),
        "a winning hand of five cards or more whose best poker hand is four of a kind",
        range=ODDS,
    )
    flush: Fraction = rule(
        Fraction(6),
        "a winning hand of five cards or more whose best poker hand is a flush",
        range=ODDS,
    )
    straight_flush: Fraction = rule(
        Fraction(7),
        "a winning hand of five cards or more whose best poker hand is a straight flush",
        range=ODDS,
    )
    five_of_a_kind: Fraction = rule(
        Fraction(8),
        "a winning hand of five cards or more whose best poker hand is five of a kind",
        range=ODDS,
    )
    joanca: Fraction = rule(
        Fraction(0),
        "a winning initial Joker and another card (Joanca); 0: none",
        range=ODDS,
        quiet=True,
    )
    nines_vs_dealer_by_suit: bool = rule(
        False,
        "the player's 9-9-9 against the dealer's 9-9 paid apart by its suits: "
        "three of one suit take nines_suited_vs_dealer_nines, mixed ones "
        "nines_vs_dealer_nines (the source has one award for both)",
        quiet=True,
    )
    nines_suited_vs_dealer_nines: Fraction = rule(
        Fraction(999),
        "with nines_vs_dealer_by_suit: a winning 9-9-9 of one suit against the dealer's 9-9",
        kind="multiple",
        range=Between(0, 10_000, note="times the table minimum"),
    )
    six_card_27: Fraction = rule(
        Fraction(0),
        "a winning 27 of exactly six cards, Jokers counted (it takes the place of "
        "the hand's poker award); 0: none",
        range=ODDS,
        quiet=True,
    )
    seven_card_27: Fraction = rule(
        Fraction(0),
        "a winning 27 of exactly seven cards (in place of the poker award); 0: none",
        range=ODDS,
        quiet=True,
    )
    eight_card_27: Fraction = rule(
        Fraction(0),
        "a winning 27 of exactly eight cards (in place of the poker award); 0: none",
        range=ODDS,
        quiet=True,
    )
    nine_card_27: Fraction = rule(
        Fraction(0),
        "a winning 27 of exactly nine cards (in place of the poker award); 0: none",
        range=ODDS,
        quiet=True,
    )
    flat: tuple[str, ...] = rule(
        (
            "nines_mixed",
            "nines_suited",
            "nines_vs_dealer_nines",
            "nines_suited_vs_dealer_nines",
        ),
        "the awards paid as that many times the table minimum, not as odds on the stake",
    )
    poker_minimum: str = rule(
        "pair",
        "the least poker category that earns its award (the lower ones earn "
        "nothing), in the order of poker_order",
        choices=POKER_KEYS,
        quiet=True,
    )
    poker_hands: str = rule(
        "any",
        (
            'which winning hands of five cards or more earn the poker award: "any", '
            '"27" (a total of 27) or "under_28" (a total of 27 or less)'
        ),
        choices=POKER_HANDS,
        quiet=True,
    )
    poker_jokers: str = rule(
        "wild",
        (
            'what a Joker is in the poker award: "wild" (any card) or "bug" (an Ace, '
            "or a card that completes a straight, a flush or a straight flush)"
        ),
        choices=POKER_JOKERS,
        quiet=True,
    )
    poker_order: tuple[str, ...] = rule(
        POKER_KEYS,
        "the nine poker categories from the lowest to the highest: a hand is the "
        "category, of those some five of its cards show, that stands highest "
        "here.  The source's order: pair, two_pair, three_of_a_kind, straight, "
        "full_house, four_of_a_kind, flush, straight_flush, five_of_a_kind",
        quiet=True,
    )
    poker_against_dealer: str = rule(
        "ignored",
        (
            'the poker award against the dealer\'s final hand: "ignored" (the source), '
            '"higher" (paid only when the player\'s category stands higher in '
            'poker_order than the best the dealer\'s cards hold) or "as_high" (as high '
            "will do); categories are compared, not the cards within them, and a "
            "dealer's hand of four cards or fewer, or of no pair, holds none"
        ),
        choices=POKER_AGAINST_DEALER,
        quiet=True,
    )

    added_awards: tuple[str, ...] = rule(
        (),
        "awards of two or three cards added to the source's (each registered in "
        "cardroom.games.finnish.bonuses) that this table pays",
        quiet=True,
    )

    #: the source's flat awards (each may go up to 10,000 table minimums)
    FLAT: ClassVar[frozenset[str]] = frozenset(
        {"nines_mixed", "nines_suited", "nines_vs_dealer_nines", "nines_suited_vs_dealer_nines"}
    )
    LABELS: ClassVar[dict[str, str]] = {
        "finnish_27": "Finnish 27",
        "jo_jo": "Jo Jo",
        "eight_nine_ten_mixed": "8-9-10 mixed suits",
        "eight_nine_ten_suited": "8-9-10 suited",
        "eight_nine_ten_spades": "8-9-10 spades",
        "nines_mixed": "9-9-9 mixed suits",
        "nines_suited": "9-9-9 same suit",
        "nines_vs_dealer_nines": "9-9-9 against dealer's 9-9",
        "pair": "Pair",
        "two_pair": "Two pair",
        "three_of_a_kind": "Three of a kind",
        "straight": "Straight",
        "full_house": "Full house",
        "four_of_a_kind": "Four of a kind",
        "flush": "Flush",
        "straight_flush": "Straight flush",
        "five_of_a_kind": "Five of a kind",
        "joanca": "Joanca",
        "nines_suited_vs_dealer_nines": "9-9-9 same suit against dealer's 9-9",
        "six_card_27": "6-card 27",
        "seven_card_27": "7-card 27",
        "eight_card_27": "8-card 27",
        "nine_card_27": "9-card 27",
    }

    @staticmethod
    def labels() -> dict[str, str]:
        """Every award's label by its key: the source's (:attr:`LABELS`, in the order the
        reports and the kernel's cells keep), then those added with
        :func:`~cardroom.games.finnish.bonuses.register`."""
        return {**BonusTable.LABELS, **added_labels()}

    def odds(self, key: str) -> Fraction:
        """What the award ``key`` pays here: the field of that name, or an added award's
        own odds."""
        award = LINES.get(key)
        if award is not None and award.pays is not None:
            return award.pays(self)
        value: Fraction = getattr(self, key)
        return value

    def __post_init__(self) -> None:
        check_ranges(self)
        check_choices(self)
        labels = self.labels()
        for key in self.added_awards:
            if key not in labels or key in SOURCE:
                added = ", ".join(added_labels()) or "none"
                raise ValueError(
                    f"added_awards: {key!r} is not an award added to the source's (added: {added})"
                )
        unknown = [key for key in self.flat if key not in labels]
        if unknown:
            raise ValueError(
                f"flat: {unknown[0]!r} is not a bonus (the bonuses: {', '.join(labels)})"
            )
        if len(set(self.flat)) != len(self.flat):
            raise ValueError("flat: names a bonus twice")
        if sorted(self.poker_order) != sorted(POKER_KEYS):
            raise ValueError(
                "poker_order: the nine categories, each once, from the lowest to the highest "
                f"(the source's: {', '.join(POKER_KEYS)})"
            )

    def toml_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """A file leaves out the suited 9-9-9 against 9-9 when it is no award of its own,
        and ``flat`` when it names the source's flat awards, in any order (so the file of
        the defaults reads as it did before they existed)."""
        out = dict(data)
        if not self.nines_vs_dealer_by_suit:
            out.pop("nines_suited_vs_dealer_nines", None)
        if set(self.flat) == self.FLAT:
            out.pop("flat", None)
        return out

    def pays(self, key: str) -> bool:
        """Is ``key`` an award this table has (the Joanca's when it pays, the suited
        9-9-9 against the dealer's 9-9 when it is apart)?"""
        if key == "joanca" or key in CARD_27_KEYS.values():
            return bool(getattr(self, key))
        if key == "nines_suited_vs_dealer_nines":
            return self.nines_vs_dealer_by_suit
        if key in POKER_KEYS:
            return self.poker_order.index(key) >= self.poker_order.index(self.poker_minimum)
        if key in LINES and key not in SOURCE:
            return key in self.added_awards
        return key in self.labels()

    def poker_qualifies(self, total: int) -> bool:
        """May a winning hand of five cards or more of this ``total`` earn the poker
        award?"""
        if self.poker_hands == "27":
            return total == TARGET
        return self.poker_hands == "any" or total <= TARGET

    def poker_award(self, key: str | None, total: int) -> str | None:
        """The poker award ``key`` a winning hand of ``total`` earns at this table (None
        below the least category, or for a hand that does not qualify)."""
        if key is None or not self.pays(key) or not self.poker_qualifies(total):
            return None
        return key

    def card_award(self, cards: int, total: int) -> str | None:
        """The award of a winning hand of ``cards`` cards and this ``total`` for its
        number of cards (a 27 of six to nine cards, where the table pays it), or None."""
        key = CARD_27_KEYS.get(cards)
        if key is None or total != TARGET or not getattr(self, key):
            return None
        return key

    @property
    def ranking(self) -> tuple[int, ...]:
        """Each :class:`PokerCategory`'s place in ``poker_order`` (a high card lowest),
        as :func:`~cardroom.games.finnish.poker.best_held` takes it."""
        places = [0] * len(PokerCategory)
        for place, key in enumerate(self.poker_order, start=1):
            places[POKER_CATEGORY[key]] = place
        return tuple(places)

    def held_award(self, held: int) -> str | None:
        """The poker award of a hand that holds the categories ``held`` (a
        :func:`~cardroom.games.finnish.poker.held_mask`), if this table pays it (its
        total not asked)."""
        key = POKER_BONUS.get(best_held(held, self.ranking))
        return key if key is not None and self.pays(key) else None

    @property
    def poker_margin(self) -> int:
        """How many places of :attr:`ranking` the player's poker category must stand
        above the dealer's to be paid (below any difference where it is ignored)."""
        return {"ignored": -len(PokerCategory), "higher": 1, "as_high": 0}[
            self.poker_against_dealer
        ]

    def outranks(self, player: int, dealer: int) -> bool:
        """May a player's poker category at place ``player`` of :attr:`ranking` be paid
        against a dealer's hand whose best category stands at ``dealer`` (0: none)?"""
        return player - dealer >= self.poker_margin

    @property
    def poker_rules(self) -> PokerRules:
        """How this table reads a poker hand: its Jokers and its order."""
        return PokerRules(self.bugs, self.ranking)

    @property
    def bugs(self) -> bool:
        """Are the poker award's Jokers bugs (an Ace, or a card completing a straight, a
        flush or a straight flush) rather than wild?"""
        return self.poker_jokers == "bug"

    @property
    def card_27s(self) -> bool:
        """Does any 27 of six to nine cards earn an award of its own?"""
        return any(getattr(self, key) for key in CARD_27_KEYS.values())

    def is_flat(self, key: str) -> bool:
        """Is the award ``key`` paid in table minimums?"""
        return key in self.flat

    def amount(self, key: str, stake: Fraction, table_minimum: Fraction) -> Fraction:
        """What the bonus ``key`` pays on a winning ``stake``."""
        value = self.odds(key)
        return value * table_minimum if self.is_flat(key) else value * stake

    def describe(self, key: str) -> str:
        value, label = self.odds(key), self.labels()[key]
        if self.is_flat(key):
            return f"{label} ({format_amount(value)} x table minimum)"
        return f"{label} {format_odds(value)}"

    def facts(self, key: str) -> dict[str, Fact]:
        """The bonus ``key`` as a settlement's facts: its odds, or its flat multiple."""
        value = self.odds(key)
        if self.is_flat(key):
            return {"bonus": key, "bonus_flat": value}
        return {"bonus": key, "bonus_odds": value}


#: the fields of the two initial 27s a Joker makes, as ``jokers_make_27`` says them
JOKER_27S = ("jo_jo_27", "joanca_27")

#: each poker category's award (in the order of :data:`POKER_KEYS`)
POKER_BONUS: dict[PokerCategory, str] = {
    PokerCategory.PAIR: "pair",
    PokerCategory.TWO_PAIR: "two_pair",
    PokerCategory.THREE_OF_A_KIND: "three_of_a_kind",
    PokerCategory.STRAIGHT: "straight",
    PokerCategory.FULL_HOUSE: "full_house",
    PokerCategory.FOUR_OF_A_KIND: "four_of_a_kind",
    PokerCategory.FLUSH: "flush",
    PokerCategory.STRAIGHT_FLUSH: "straight_flush",
    PokerCategory.FIVE_OF_A_KIND: "five_of_a_kind",
}
#: each poker award's category
POKER_CATEGORY: dict[str, PokerCategory] = {key: c for c, key in POKER_BONUS.items()}


@dataclass(frozen=True)
class Finnish27Rules:
    """Every rule of ``finnish27`` that a variant may change (defaults: the source)."""

    shoe: ShoeRules = rule(
        words="six decks with two Jokers each, reshuffled once three quarters are dealt",
        factory=lambda: ShoeRules(reshuffle_fraction=Fraction(3, 4)),
    )
    table: TableLimits = rule(factory=TableLimits)
    player_pays: Fraction = rule(
        Fraction(1),
        "what a winning player wager pays (before its bonus)",
        range=ODDS,
    )
    dealer_pays: Fraction = rule(Fraction(4, 5), "what a winning dealer wager pays", range=ODDS)
    push_pays: Fraction = rule(Fraction(7), "what the push wager pays", range=ODDS)
    bonus: BonusTable = rule(
        words="the bonuses on a winning player wager (at most one a round)",
        factory=BonusTable,
    )
    player_table: tuple[TargetRow, ...] = rule(
        NINE_RULES,
        "the player's hit-to-target table, a row for each dealer's two-card total",
    )
    dealer_hits_hard_below: int = rule(
        24,
        "the dealer hits a hard total below this",
        range=TOTAL_LIMIT,
    )
    dealer_hits_soft_below: int = rule(
        25,
        "the dealer hits a soft total below this",
        range=TOTAL_LIMIT,
    )
    player_loses_over: int = rule(
        35,
        "a player's total over this loses at once, before the dealer plays",
        range=Between(TARGET, 99),
    )
    # The initial 27s, each a win at once (a predetermined win) or, switched off, two
    # cards played as their total.  A rules file says the two Joker ones together as
    # ``jokers_make_27`` when they are alike.
    jo_jo_27: bool = rule(True, "two Jokers as the first two cards (Jo Jo) are an initial 27")
    ace_king_27: bool = rule(
        True,
        "Ace + King as the first two cards (Finnish 27) are an initial 27",
        quiet=True,
    )
    joanca_27: bool = rule(
        True,
        "a Joker and another card as the first two cards (Joanca) are an initial 27",
    )
    joanca_joker_second: bool = rule(
        False,
        "a Joker and another card are a Joanca only when the Joker is the second "
        "card (a Joker first, then another card, play as that card's total)",
        quiet=True,
    )
    jokers_wild: bool = rule(
        False,
        "Jokers wild anywhere: a Joker drawn after the deal makes its hand 27 at "
        "once (the hand stops there; a Joker among the first two cards is the "
        "initial 27 it is)",
        quiet=True,
    )
    charlie: int = rule(
        0,
        (
            "a player's hand of this many cards (Jokers counted) of 27 or less wins "
            'at once, before the dealer plays (a "Charlie"); 0: none'
        ),
        range=Between(0, 12, note="cards; 0: none, else 5 or more"),
        quiet=True,
    )
    equal_initial_27s: str = rule(
        "dealer",
        'who wins when both initial 27s rank equal: "dealer" or "push"',
        choices=("dealer", "push"),
    )
    player_initial_27_wins: bool = rule(
        False,
        "the player's initial 27 beats the dealer's, whatever their ranks",
        quiet=True,
    )
    equal_distance: str = rule(
        "dealer",
        (
            'who wins hands equally close to 27 (no other rule applying): "dealer", '
            '"push" or "player"'
        ),
        choices=("dealer", "push", "player"),
    )
    player_over: str = rule(
        "push_if_closer",
        (
            'the player over 27, the dealer not: "loses"; "push_if_closer" (a push if '
            'the player is closer, else by distance); "wins_if_closer" (by distance)'
        ),
        choices=("loses", "push_if_closer", "wins_if_closer"),
        aliases={"push_player_over_closer": ("push_if_closer", "wins_if_closer")},
    )
    dealer_over: str = rule(
        "push_if_as_close",
        (
            'the dealer over 27, the player not: "player_wins"; "push_if_as_close" (a '
            "push if the dealer is as close or closer, else the player wins); "
            '"dealer_wins_if_closer" (by distance)'
        ),
        choices=("player_wins", "push_if_as_close", "dealer_wins_if_closer"),
        aliases={"push_dealer_over_as_close": ("push_if_as_close", "dealer_wins_if_closer")},
    )
    both_over: str = rule(
        "by_distance",
        'both over 27: "by_distance" (the closer wins), "push" or "player_loses"',
        choices=("by_distance", "push", "player_loses"),
        quiet=True,
    )
    dealer_28: str = rule(
        "normal",
        (
            'a dealer\'s final 28 against any player total but 27: "normal" (the rules '
            'above), "stalemate" (a push) or "dealer_wins"'
        ),
        choices=("normal", "stalemate", "dealer_wins"),
        quiet=True,
    )
    both_27: str = rule(
        "by_rules",
        (
            'a player\'s 27 that is not an initial 27: "by_rules" (it wins at once), '
            '"stalemate" (the dealer plays; his 27 makes a push, anything else loses) '
            'or "dealer_wins" (the dealer plays; his 27 wins, as any 27 of his is a '
            "win)"
        ),
        choices=("by_rules", "stalemate", "dealer_wins"),
        quiet=True,
    )
    fee_per_100: Fraction = rule(
        Fraction(0),
        "the house's collection per 100 staked on every wager, taken off the "
        "stake before the deal: the rest of the stake is the wager that plays",
        kind="amount",
        range=FEE,
        quiet=True,
    )

    def __post_init__(self) -> None:
        check_ranges(self)
        check_choices(self)
        if self.bonus.joanca and not self.joanca_27:
            raise ValueError(
                "bonus.joanca: pays a winning initial Joanca, which there is none of with "
                "joanca_27 = false"
            )
        if self.joanca_joker_second and not self.joanca_27:
            raise ValueError(
                "joanca_joker_second: says where a Joanca's Joker must be, but there is no "
                "Joanca with joanca_27 = false"
            )
        if 0 < self.charlie < 5:
            raise ValueError(f"charlie: 0 (none) or a hand of 5 to 12 cards, not {self.charlie}")
        if self.jokers_wild and (
            not (self.jo_jo_27 and self.joanca_27) or self.joanca_joker_second
        ):
            raise ValueError(
                "jokers_wild: every hand holding a Joker is 27, so two Jokers and a Joker "
                "with another card must be initial 27s in either order (jo_jo_27 and "
                "joanca_27 true, joanca_joker_second false)"
            )
        if not self.ace_king_27 and self.player_table == NINE_RULES:
            # the source's table has no row for a dealer's soft 27 (Ace + King is always
            # an initial 27 there): against it the player hits to 27, its only hope
            object.__setattr__(self, "player_table", (*NINE_RULES, ACE_KING_ROW))
        try:
            TargetTable(self.player_table).check_covers(
                initial_totals(self.initial_27s, self.joanca_joker_second)
            )
        except ValueError as err:
            raise ValueError(f"player_table: {err}") from None

    @staticmethod
    def prepare_toml(default: Finnish27Rules, data: dict[str, Any]) -> dict[str, Any]:
        """Read ``jokers_make_27`` as both Joker 27s (the old switches, such as
        ``push_player_over_closer = false``, are read as their field by the reader)."""
        if "jokers_make_27" in data:
            value = data.pop("jokers_make_27")
            if not isinstance(value, bool):
                raise ValueError(f"jokers_make_27: must be true or false, not {value!r}")
            for name in JOKER_27S:
                if data.setdefault(name, value) != value:
                    raise ValueError(
                        f"jokers_make_27: {str(value).lower()} sets {name} too, but {name} "
                        f"is {data[name]!r}: give one of the two"
                    )
        return data

    def toml_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """Write the two Joker 27s as ``jokers_make_27`` when they are alike."""
        out = dict(data)
        if self.jo_jo_27 == self.joanca_27:
            out = {
                ("jokers_make_27" if key == JOKER_27S[0] else key): value
                for key, value in out.items()
                if key != JOKER_27S[1]
            }
        return out

    @property
    def initial_27s(self) -> frozenset[Initial27]:
        """The initial 27s this table counts (each a win at once)."""
        switched = (
            (Initial27.JO_JO, self.jo_jo_27),
            (Initial27.FINNISH_27, self.ace_king_27),
            (Initial27.JOANCA, self.joanca_27),
        )
        return frozenset(kind for kind, on in switched if on)

    @property
    def jokers_make_27(self) -> bool:
        """Do Jokers make any initial 27?"""
        return self.jo_jo_27 or self.joanca_27

    @property
    def push_player_over_closer(self) -> bool:
        """The old switch: a push when the player is over 27 but closer."""
        return self.player_over == "push_if_closer"

    @property
    def push_dealer_over_as_close(self) -> bool:
        """The old switch: a push when the dealer is over 27 but as close."""
        return self.dealer_over == "push_if_as_close"

    @property
    def strategy(self) -> TargetTable:
        return TargetTable(self.player_table)

    @property
    def table_name(self) -> str:
        """The player's table by its rows: "nine-rule table" for the source's nine (a
        table without Ace + King as a 27 has ten)."""
        rows = len(self.player_table)
        words = {9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}
        return f"{words.get(rows, str(rows))}-rule table"


def compare(player: Total, dealer: Total, rules: Finnish27Rules | None = None) -> tuple[str, Why]:
    """Settle two complete hands: the outcome and the rule that decided it."""
    rules = rules or Finnish27Rules()
    p_over, d_over = player.bust, dealer.bust
    totals = {"player": player.value, "dealer": dealer.value}
    if rules.both_27 == "stalemate" and player.value == dealer.value == TARGET:
        return "push", Why("both_27_stalemate", totals)
    if rules.both_27 == "dealer_wins" and player.value == dealer.value == TARGET:
        return "dealer", Why("both_27_dealer_wins", totals)
    if rules.dealer_28 != "normal" and dealer.value == TARGET + 1 and player.value != TARGET:
        if rules.dealer_28 == "stalemate":
            return "push", Why("dealer_28_stalemate", totals)
        return "dealer", Why("dealer_28_wins", totals)
    if p_over and d_over:
        if rules.both_over == "push":
            return "push", Why("both_over_push", totals)
        if rules.both_over == "player_loses":
            return "dealer", Why("both_over_player_loses", totals)
    elif p_over:
        if rules.player_over == "loses":
            return "dealer", Why("player_over_loses", totals)
        if rules.player_over == "push_if_closer" and player.distance < dealer.distance:
            return "push", Why("push_player_over_closer", totals)
    elif d_over:
        if rules.dealer_over == "player_wins":
            return "player", Why("dealer_over_loses", totals)
        if rules.dealer_over == "push_if_as_close" and dealer.distance <= player.distance:
            return "push", Why("push_dealer_over_as_close", totals)
    if player.distance < dealer.distance:
        return "player", Why("player_closer", totals)
    if player.distance == dealer.distance:
        who = rules.equal_distance
        return who, Why("equally_close", {**totals, "winner": who})
    return "dealer", Why("dealer_closer", totals)


def find_bonus(
    player: list[Card],
    dealer: list[Card],
    joanca: bool = False,
    nines_by_suit: bool = False,
    joker_second: bool = False,
    poker: BonusTable | None = None,
    total: int | None = None,
    added: frozenset[str] = frozenset(),
) -> str | None:
    """The bonus key a winning player hand earns, if any (at most one): of two or three
    cards, the first of :data:`~cardroom.games.finnish.bonuses.AWARDS` that holds; a Joker and
    another card earn ``joanca`` only if asked (:func:`pays_joanca`), and then with
    ``joker_second`` only with the Joker second; three Nines of one suit against the
    dealer's 9-9 earn their own award only with ``nines_by_suit``; a hand of five cards
    or more its poker category's, as the bonus table ``poker`` allows (any, without;
    against the ``dealer``'s final cards where the table asks), unless it is a 27 of six
    to nine cards that ``poker`` pays by its number of cards.
    ``total`` is the hand's total where it is not its cards' (a Joker wild); ``added``:
    the added awards the table pays (:attr:`BonusTable.added_awards`)."""
    count = len(player)
    if count < 5:
        if count == 4:
            return None
        return first_award(player, dealer, Ask(joanca, nines_by_suit, joker_second, added))
    if poker is not None:
        total = finnish_total(player).value if total is None else total
        by_count = poker.card_award(count, total)
        if by_count is not None:
            return by_count
        award, stopped = poker_award(player, dealer, poker, total)
        return None if stopped else award
    return POKER_BONUS.get(best_category(player))


def poker_award(
    player: list[Card], dealer: list[Card], poker: BonusTable, total: int
) -> tuple[str | None, str | None]:
    """The poker award a winning hand of five cards or more and ``total`` holds, and the
    dealer's category that stops it where the table holds the two hands against each
    other (else None)."""
    category = best_category(player, poker.bugs, poker.ranking)
    award = poker.poker_award(POKER_BONUS.get(category), total)
    if award is None or len(dealer) < 5:
        return award, None
    theirs = best_category(dealer, poker.bugs, poker.ranking)
    if poker.outranks(poker.ranking[category], poker.ranking[theirs]):
        return award, None
    return award, POKER_BONUS[theirs]


def pays_joanca(rules: Finnish27Rules) -> bool:
    """Does a winning Joanca earn a bonus?  Only as an initial 27 (then every Joker and
    other card in two is one) at a table whose bonus table pays it."""
    return rules.joanca_27 and rules.bonus.joanca > 0


def bonus_ask(rules: Finnish27Rules) -> Ask:
    """What the rules say of the awards of two and three cards (the engine settles by
    it, and the rules page says it)."""
    return Ask(
        pays_joanca(rules),
        rules.bonus.nines_vs_dealer_by_suit,
        rules.joanca_joker_second,
        frozenset(rules.bonus.added_awards),
    )


class Finnish27Round(FinnishRound):
    """One round of ``finnish27``; feed it cards until :attr:`is_complete`."""

    game = GAME_ID
    wager_ids = ("player", "dealer", "push")
    PLAYER_RANKS_MATTER = True

    def __init__(
        self,
        rules: Finnish27Rules | None = None,
        wagers: Mapping[str, Fraction | int | str] | None = None,
    ) -> None:
        self.rules = rules or Finnish27Rules()
        super().__init__(check_wagers(wagers or {}, self.wager_ids, self.rules.table), self.rules)
        self.bonus_key: str | None = None
        #: a poker award the dealer's final hand stopped, and the dealer's category
        self.poker_stopped: tuple[str, str] | None = None

    def _decide(self, action: Action) -> list[Event]:
        raise IllegalAction(
            "in finnish27 the player's hand is played by the fixed table: nobody decides"
        )

    # -- the rules -----------------------------------------------------------------
    def _after_deal(self) -> None:
        player, dealer = self.initial["player"], self.initial["dealer"]
        if player and dealer:
            names = {"player": player.key, "dealer": dealer.key}
            if self.rules.player_initial_27_wins:
                self._win("player", Why("initial_27s_player_first", names))
            elif player > dealer:
                self._win("player", Why("initial_27s_outrank", names))
            elif player == dealer:
                self._finish(self.rules.equal_initial_27s, Why("initial_27s_equal", names))
            else:
                self._finish("dealer", Why("initial_27s_outranked", names))
        elif player:
            self._win("player", Why.of("initial_27", hand="player", name=player.key))
        elif dealer:
            self._finish("dealer", Why.of("initial_27", hand="dealer", name=dealer.key))
        else:
            self._phase = "player"
            self._player_turn()

    def _player_turn(self) -> None:
        player, dealer = self.total("player"), self.dealer_initial
        cards = len(self.hands["player"])
        if cards == self.rules.charlie and player.value <= TARGET:
            self._win("player", Why.of("charlie", cards=cards, total=player.value))
            return
        row = self.rules.strategy.row_for(dealer)
        target = row.target(player, dealer)
        facts = {"total": player.points, "target": target, **row.facts()}
        if player.value < target:
            self.events.append(Decision("player", Action.HIT, True, Why("target_hit", facts)))
            self._hit_pending = True
            return
        self.events.append(Decision("player", Action.STAND, True, Why("target_stand", facts)))
        if player.value == TARGET and self.rules.both_27 == "by_rules":
            self._win("player", Why("player_27"))
        elif player.value > self.rules.player_loses_over:
            self._finish(
                "dealer",
                Why.of("player_over", total=player.value, limit=self.rules.player_loses_over),
            )
        else:
            self._dealer_turn()

    def _showdown(self, player: Total, dealer: Total) -> None:
        outcome, why = compare(player, dealer, self.rules)
        if outcome == "player":
            self._win("player", why)
        else:
            self._finish(outcome, why)

    def _win(self, outcome: str, why: Why) -> None:
        ask = bonus_ask(self.rules)
        self.bonus_key = find_bonus(
            self.hands["player"],
            self.hands["dealer"],
            ask.joanca,
            ask.nines_by_suit,
            ask.joker_second,
            self.rules.bonus,
            self.total("player").value,
            ask.added,
        )
        if self.bonus_key is not None:
            self.bonus = BonusTable.labels()[self.bonus_key]
        else:
            self.poker_stopped = self._poker_stopped()
        self._finish(outcome, why)

    def _poker_stopped(self) -> tuple[str, str] | None:
        """The player's poker award and the dealer's category that stopped it, where
        the table holds one against the other and the dealer's hand did."""
        bonus = self.rules.bonus
        player = self.hands["player"]
        if bonus.poker_against_dealer == "ignored" or len(player) < 5:
            return None
        total = self.total("player").value
        if bonus.card_award(len(player), total) is not None:
            return None  # paid by its number of cards, not by poker
        award, stopped = poker_award(player, self.hands["dealer"], bonus, total)
        return None if award is None or stopped is None else (award, stopped)

    def settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        """The wager's net: the stake less the house's fee plays, and the fee is lost."""
        fee = fee_of(self.rules.fee_per_100, stake)
        return with_fee(*self._settle(wager, stake - fee), fee)

    def _settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        rules = self.rules
        if self.outcome == "push":
            if wager == "push":
                return stake * rules.push_pays, Why.of("pays", wager="push", odds=rules.push_pays)
            return Fraction(0), Why("returned_on_push")
        if wager == "push":
            return -stake, Why("no_push")
        if wager == "dealer":
            if self.outcome == "dealer":
                odds = rules.dealer_pays
                return stake * odds, Why.of("pays", wager="dealer", odds=odds)
            return -stake, Why.of("won_by", winner="player")
        if self.outcome == "player":
            net = stake * rules.player_pays
            facts: dict[str, Fact] = {"wager": "player", "odds": rules.player_pays}
            if self.bonus_key is not None:
                net += rules.bonus.amount(self.bonus_key, stake, rules.table.minimum)
                facts.update(rules.bonus.facts(self.bonus_key))
            elif self.poker_stopped is not None:
                facts["bonus_stopped"], facts["dealer_poker"] = self.poker_stopped
            return net, Why("pays", facts)
        return -stake, Why.of("won_by", winner="dealer")
