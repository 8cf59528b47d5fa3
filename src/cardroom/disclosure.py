"""What a table must tell a person before they bet: its rules in plain words and its
paytable, made from the rules it plays (a variant's too), for the web table's pages.

Each game's rules are a list of sentences and tables of the values in its rules;
payouts are odds (``"19:20"``, as :func:`~cardroom.core.money.format_odds` writes them)
and amounts exact (:func:`~cardroom.core.money.format_amount`).

>>> from cardroom.games import get_game
>>> rows = paytable("punto-banco", get_game("punto-banco").default_rules())
>>> [(row.wager, row.pays) for row in rows]
[('player', '1:1'), ('banker', '19:20'), ('tie', '8:1')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from cardroom.core.money import format_amount, format_odds
from cardroom.games.baccarat import BaccaratRules
from cardroom.games.finnish27 import BonusTable, Finnish27Rules
from cardroom.games.hands import TargetRow
from cardroom.games.twentyone_24_27 import TwentyOne2427Rules
from cardroom.words import name_of

__all__ = ["PayRow", "RulesText", "paytable", "rules_text"]


@dataclass(frozen=True)
class PayRow:
    """One line of a paytable: the wager, what it pays, and when."""

    wager: str
    pays: str
    when: str


@dataclass(frozen=True)
class RulesText:
    """A game's rules for people: sentences, then tables (a title, a header, rows)."""

    sentences: list[str]
    tables: list[tuple[str, list[str], list[list[str]]]] = field(default_factory=list)


def _odds(value: Fraction) -> str:
    return format_odds(value)


def _shoe(rules: Any) -> str:
    shoe = rules.shoe
    decks = f"{shoe.decks} deck{'s' if shoe.decks != 1 else ''}"
    jokers = (
        f" with {shoe.jokers_per_deck} Joker{'s' if shoe.jokers_per_deck != 1 else ''} each"
        if shoe.jokers_per_deck
        else ""
    )
    if shoe.cut_card is not None:
        when = f"the cut card is {shoe.cut_card} cards from the end"
    else:
        when = f"it is reshuffled once {shoe.reshuffle_after} of its {shoe.size} cards are dealt"
    text = f"The shoe holds {decks}{jokers} ({shoe.size} cards); {when}"
    if shoe.burn_by_first_card:
        text += "; after each shuffle the first card is turned and as many burnt as it counts"
    elif shoe.burn:
        text += f"; {shoe.burn} cards are burnt after each shuffle"
    return text + ". A round in progress is finished before the shoe is reshuffled."


def _limits(rules: Any) -> str:
    table = rules.table
    return (
        f"Each wager takes {format_amount(table.minimum)} to {format_amount(table.maximum)}, "
        f"in whole multiples of {format_amount(table.unit)}; payouts are rounded down to "
        f"{format_amount(table.unit)}."
    )


def paytable(game_id: str, rules: Any) -> list[PayRow]:
    """What each wager of ``game_id`` pays under ``rules``, in the order of the wagers."""
    if isinstance(rules, BaccaratRules):
        return _baccarat_pays(rules)
    if isinstance(rules, Finnish27Rules):
        return [
            PayRow("player", _odds(rules.player_pays), "the player's hand wins; plus a bonus"),
            PayRow("dealer", _odds(rules.dealer_pays), "the dealer's hand wins"),
            PayRow("push", _odds(rules.push_pays), "the round is a push"),
        ]
    if isinstance(rules, TwentyOne2427Rules):
        return [PayRow("player", _odds(rules.win_pays), "your hand wins; a push returns it")]
    raise ValueError(f"{game_id} has no paytable here")


def _baccarat_pays(rules: BaccaratRules) -> list[PayRow]:
    banker = _odds(rules.banker_pays)
    special = "; ".join(
        f"{_odds(p.pays)} when it wins with {p.total}" for p in rules.banker_pays_by_total
    )
    rows = [
        PayRow("player", _odds(rules.player_pays), "the player's hand wins; a tie returns it"),
        PayRow(
            "banker",
            banker,
            "the banker's hand wins" + (f" ({special})" if special else "") + "; a tie returns it",
        ),
        PayRow("tie", _odds(rules.tie_pays), "both hands have the same total"),
    ]
    for wager in rules.wager_ids[3:]:
        if wager in ("player_pair", "banker_pair"):
            hand = wager.removesuffix("_pair")
            rows.append(
                PayRow(wager, _odds(rules.pair_pays), f"the {hand}'s first two cards are a pair")
            )
        elif wager == "b27":
            totals = " or ".join(str(t) for t in rules.b27_totals)
            rows.append(
                PayRow(wager, _odds(rules.b27_pays), f"the banker wins with a total of {totals}")
            )
    return rows


def bonus_rows(bonus: BonusTable, minimum: Fraction) -> list[list[str]]:
    """finnish27's bonuses: the hand, and what it pays on a winning player wager."""
    rows = []
    for key, label in BonusTable.LABELS.items():
        value: Fraction = getattr(bonus, key)
        if key in BonusTable.FLAT:
            pays = f"{format_amount(value * minimum)} ({format_amount(value)} x table minimum)"
        else:
            pays = f"{_odds(value)} on the stake"
        rows.append([label, pays])
    return rows


def _target_rows(rows: tuple[TargetRow, ...]) -> list[list[str]]:
    out = []
    for row in rows:
        dealer = f"{row.dealer} {row.low}" + (f"-{row.high}" if row.high != row.low else "")
        if row.relative is None:
            plan = f"hit below hard {row.hard} and below soft {row.soft}"
        elif row.relative == 1:
            plan = "hit until above the dealer's total"
        elif row.relative == 0:
            plan = "hit until at least the dealer's total"
        else:
            plan = f"hit to the dealer's total {row.relative:+d}"
        out.append([dealer, plan])
    return out


_FINNISH_POINTS = (
    "Cards count their Finnish index: Ace 1 or 14 (it counts 14 while that keeps the hand "
    "at 27 or less; such a hand is soft), 2 to 10 their number, Jack 11, Queen 12, King 13."
)


def rules_text(game_id: str, rules: Any) -> RulesText:
    """``game_id``'s rules under ``rules``, in plain words."""
    if isinstance(rules, BaccaratRules):
        return _baccarat_text(rules)
    if isinstance(rules, Finnish27Rules):
        return _finnish27_text(rules)
    if isinstance(rules, TwentyOne2427Rules):
        return _twentyone_text(rules)
    raise ValueError(f"{game_id} has no rules text here")


def _baccarat_text(rules: BaccaratRules) -> RulesText:
    tableau = rules.tableau
    natural = (
        f"A natural ({tableau.natural_from} or more with the first two cards) ends the round."
        if tableau.natural_from < 10
        else "There are no naturals."
    )
    sentences = [
        "Two hands, the player's and the banker's, get two cards each, player first. "
        "Nobody decides anything: the tableau says when each hand draws a third card.",
        "Cards count: Ace (1) 1, 2 to 9 their number, 10 and the pictures "
        "(11, 12, 13) nothing. A hand counts the last digit of its sum (7 + 8 = 15 counts 5).",
        natural,
        f"The player draws a third card on 0 to {tableau.player_draws_below - 1} and "
        "stands otherwise.",
        "When the player stands, the banker draws on 0 to "
        f"{tableau.banker_draws_below_when_player_stands - 1}; when the player draws, the "
        "banker draws as the table below says, by the value of the player's third card.",
        "The hand closer to 9 wins. A tie pays the tie wager and returns the player and "
        "banker wagers.",
        _shoe(rules),
        _limits(rules),
    ]
    rows = []
    for row in sorted(tableau.banker, key=lambda r: r.banker):
        draws = ", ".join(str(v) for v in row.draws_on) or "never (stands)"
        rows.append([str(row.banker), draws])
    table = (
        "The banker's third card when the player drew",
        ["banker's total", "draws when the player's third card counts"],
        rows,
    )
    return RulesText(sentences, [table])


def _finnish27_text(rules: Finnish27Rules) -> RulesText:
    jokers = (
        "A Joker as a first or second card makes that two-card hand 27 (one Joker: "
        f"{name_of('joanca')}; two: {name_of('jo_jo')}); Ace and King make a "
        f"{name_of('finnish_27')}. An initial 27 wins at once; if both hands have one, "
        f"{name_of('jo_jo')} beats {name_of('finnish_27')} beats {name_of('joanca')}, and "
        f"equal ones go to the {rules.equal_initial_27s}. From the third card on a Joker "
        "counts 0."
        if rules.jokers_make_27
        else f"Ace and King make a {name_of('finnish_27')}, which wins at once. Jokers count 0."
    )
    sentences = [
        "A player hand and a dealer hand are dealt player, dealer, player, dealer, face up. "
        "Nobody decides anything: both hands play by fixed rules.",
        _FINNISH_POINTS,
        jokers,
        "The player's hand hits while it is below the target of the row below that matches "
        "the dealer's two-card total.",
        f"Exactly 27 wins at once; over {rules.player_loses_over} loses at once. Otherwise the "
        f"dealer hits hard totals below {rules.dealer_hits_hard_below} and soft totals below "
        f"{rules.dealer_hits_soft_below}.",
        "The hand closer to 27 wins (over 27 counts its distance too); equally close goes to "
        f"the {rules.equal_distance}."
        + (
            " A push when the player is over 27, the dealer is not, and the player is closer."
            if rules.push_player_over_closer
            else ""
        )
        + (
            " A push when the dealer is over 27, the player is not, and the dealer is as close."
            if rules.push_dealer_over_as_close
            else ""
        ),
        "A push returns the player and dealer wagers. A winning player wager also collects "
        "at most one bonus, from the table below.",
        _shoe(rules),
        _limits(rules),
    ]
    return RulesText(
        sentences,
        [
            (
                "The player's hand",
                ["dealer's two cards", "the player"],
                _target_rows(rules.player_table),
            ),
            (
                "Bonuses on a winning player wager",
                ["hand", "pays"],
                bonus_rows(rules.bonus, rules.table.minimum),
            ),
        ],
    )


def _twentyone_text(rules: TwentyOne2427Rules) -> RulesText:
    forced = rules.forced
    sentences = [
        "You play your hand against the dealer's: cards are dealt player, dealer, player, "
        "dealer, face up.",
        _FINNISH_POINTS + " Jokers count 0.",
        "Ace and King are a Finnish 27: yours alone wins, the dealer's alone loses, both "
        f"are a {rules.both_initial_27s}.",
        "You hit or stand, but the rules decide for you in many spots (the page shows such "
        "plays as forced):",
        f"against a dealer's hard total below {forced.weak_dealer_hard_below} or soft total "
        f"below {forced.weak_dealer_soft_below}, you must hit hard totals below "
        f"{forced.must_hit_hard_below} and soft totals below {forced.must_hit_soft_below}, "
        f"must stand on hard {forced.must_stand_hard_from} or more and soft "
        f"{forced.must_stand_soft_from} or more, and choose freely in between;",
        "against any other dealer's total, you must hit below it, must stand on a hard total "
        "at or above it and on a soft total above it, and choose freely only with a soft "
        "total equal to it.",
        f"Over 27 you lose at once. The dealer hits hard totals below "
        f"{rules.dealer_hits_hard_below} and soft totals below {rules.dealer_hits_soft_below}; "
        "a dealer over 27 loses.",
        f"Otherwise the hand closer to 27 wins; equally close is a {rules.equal_distance}. "
        f"A win pays {_odds(rules.win_pays)}.",
        _shoe(rules),
        _limits(rules),
    ]
    return RulesText(sentences)
