"""``chemin-de-fer``'s rules: every rule a variant may change, and the actions a seat has.

See :mod:`cardroom.games.chemin_de_fer` for the game step by step.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from cardroom.core.cards import Card
from cardroom.core.events import Why
from cardroom.core.rules import Between, Ref, check_ranges, rule
from cardroom.core.shoe import ShoeRules
from cardroom.games.baccarat import Tableau
from cardroom.games.base import TableLimits

GAME_ID = "chemin-de-fer"
#: the most seats at a table
MAX_SEATS = 12
HANDS = ("player", "banker")


class ChemmyAction(StrEnum):
    """Every decision a seat can be asked for."""

    PUT_BANK = "put_bank"
    PASS_BANK = "pass_bank"
    BANCO = "banco"
    STAKE = "stake"
    PASS = "pass"
    DRAW = "draw"
    STAND = "stand"


# -- rules -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChemmyRules:
    """Every rule of ``chemin-de-fer`` a variant may change (defaults: cardroom's game).

    ``player_must_draw_below`` and ``player_must_stand_from`` bound the player's free choice
    (by default only 5 is free); a two-card total of ``natural_from`` or more is a natural
    (10: no naturals).  ``commission`` is the house's share of the banker's winnings.  With
    ``banker_forced_by_tableau`` the banker loses its free choice and draws as ``tableau``
    says (the casino variant of the game).
    """

    shoe: ShoeRules = rule(
        words="six decks without Jokers, the cut card 16 cards from the end",
        factory=lambda: ShoeRules(decks=6, jokers_per_deck=0, cut_card=16),
    )
    table: TableLimits = rule(factory=TableLimits)
    min_seats: int = rule(2, "the fewest seats a table may have", range=Between(2, MAX_SEATS))
    max_seats: int = rule(
        8,
        "the most seats a table may have",
        range=Between(Ref("min_seats"), MAX_SEATS),
    )
    commission: Fraction = rule(
        Fraction(0),
        "the house's share of the banker's winnings (0: none; \"1:20\" is 5%)",
        kind="share",
        range=Between(0, 1, below=True),
    )
    player_must_draw_below: int = rule(
        5,
        "the player must draw on a total below this",
        range=Between(0, Ref("player_must_stand_from")),
    )
    player_must_stand_from: int = rule(
        6,
        "the player must stand on a total from this up (between the two the player chooses)",
        range=Between(0, Ref("natural_from")),
    )
    natural_from: int = rule(
        8,
        "a two-card total from this up is a natural, and both hands stand",
        range=Between(1, 10, note="10: no naturals"),
    )
    banker_may_pass: bool = rule(True, "the banker may give up the bank between coups")
    keep_whole_bank: bool = rule(
        False,
        "a banker who keeps the bank keeps it whole: the previous bank and its "
        "winnings, up to the table maximum (otherwise the banker may put up "
        "another amount)",
    )
    tie_keeps_bank: bool = rule(
        False,
        (
            "after a tie the banker keeps the bank (the source: only a banker who has "
            'won keeps the deal, "otherwise it passes on"; many casinos keep it)'
        ),
    )
    ace_high_in_draw: bool = rule(
        False,
        "the Ace ranks highest (not lowest) in the draw for the first banker",
    )
    banker_forced_by_tableau: bool = rule(
        False,
        "the banker draws as the casino tableau says, with no choice of its own",
    )
    tableau: Tableau = rule(
        words=(
            "the banker's draw by its total and the player's third card (with "
            "banker_forced_by_tableau)"
        ),
        factory=Tableau,
    )

    def __post_init__(self) -> None:
        if self.shoe.jokers_per_deck:
            raise ValueError("shoe.jokers_per_deck: must be 0: chemin de fer has no Jokers")
        if not self.shoe.whole_decks:
            raise ValueError(
                "shoe.cards_per_rank: chemin de fer's shoe is whole decks (its solved coup "
                "is counted by decks)"
            )
        check_ranges(self)
        if self.banker_forced_by_tableau and self.tableau.natural_from != self.natural_from:
            raise ValueError(
                f"tableau.natural_from: must equal natural_from ({self.natural_from}) when "
                f"banker_forced_by_tableau is true, not {self.tableau.natural_from}"
            )

    def is_natural(self, total: int) -> bool:
        return total >= self.natural_from

    def draw_rank(self, card: Card) -> int:
        """A card's rank in the draw for the bank: Ace 1 (14 with ``ace_high_in_draw``)
        ... King 13."""
        number = card.rank.number
        return 14 if number == 1 and self.ace_high_in_draw else number

    def player_rule(self, total: int) -> tuple[ChemmyAction | None, Why]:
        """The player's forced play on ``total`` (None: free), and the rule: ``must_draw``,
        ``must_stand`` or ``may_draw``, with the totals it covers."""
        draw_below, stand_from = self.player_must_draw_below, self.player_must_stand_from
        if total < draw_below:
            return ChemmyAction.DRAW, Why.of("must_draw", low=0, high=draw_below - 1)
        if total >= stand_from:
            return ChemmyAction.STAND, Why.of(
                "must_stand", low=stand_from, high=self.natural_from - 1
            )
        return None, Why.of("may_draw", low=draw_below, high=stand_from - 1)


def chemmy_rules() -> ChemmyRules:
    return ChemmyRules()
