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

from cardroom.core.money import format_amount, format_decimal, format_odds
from cardroom.games.baccarat import BaccaratRules, Tableau
from cardroom.games.chemin_de_fer import ChemmyRules
from cardroom.games.finnish27 import BonusTable, Finnish27Rules
from cardroom.games.hands import TargetRow
from cardroom.games.twentyone_24_27 import TwentyOne2427Rules
from cardroom.words import name_of

__all__ = ["PayRow", "RulesText", "paytable", "percent_of", "rules_text", "tableau_table"]


@dataclass(frozen=True)
class PayRow:
    """One line of a paytable: the wager, what it pays, and when; ``spot``, what a bet
    spot says in short where the odds alone would mislead (a banker paying otherwise on
    some totals, a bonus)."""

    wager: str
    pays: str
    when: str
    spot: str = ""

    @property
    def on_spot(self) -> str:
        """What the wager pays, as its bet spot says it: ``1:1; 2:1 on a 2, 1:2 on a 7``
        (the banker's winning total)."""
        return self.spot or self.pays


@dataclass(frozen=True)
class RulesText:
    """A game's rules for people: sentences, then tables (a title, a header, rows)."""

    sentences: list[str]
    tables: list[tuple[str, list[str], list[list[str]]]] = field(default_factory=list)


def _odds(value: Fraction) -> str:
    return format_odds(value)


def _shoe(rules: Any, round_word: str = "round") -> str:
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
    return text + f". A {round_word} in progress is finished before the shoe is reshuffled."


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
            PayRow(
                "player",
                _odds(rules.player_pays),
                "the player's hand wins; plus a bonus",
                f"{_odds(rules.player_pays)} + bonus",
            ),
            PayRow("dealer", _odds(rules.dealer_pays), "the dealer's hand wins"),
            PayRow("push", _odds(rules.push_pays), "the round is a push"),
        ]
    if isinstance(rules, TwentyOne2427Rules):
        return [PayRow("player", _odds(rules.win_pays), "your hand wins; a push returns it")]
    if isinstance(rules, ChemmyRules):
        commission = (
            f" (1:1 less the house's {percent_of(rules.commission)} commission)"
            if rules.commission
            else ""
        )
        return [
            PayRow("punter", "1:1", "the player's hand wins; a tie returns the stake"),
            PayRow(
                "bank",
                _odds(1 - rules.commission),
                f"the banker's hand wins{commission}; a tie returns the stakes",
            ),
        ]
    raise ValueError(f"{game_id} has no paytable here")


def _baccarat_pays(rules: BaccaratRules) -> list[PayRow]:
    banker = _odds(rules.banker_pays)
    special = "; ".join(
        f"{_odds(p.pays)} when it wins with {p.total}" for p in rules.banker_pays_by_total
    )
    short = ", ".join(f"{_odds(p.pays)} on a {p.total}" for p in rules.banker_pays_by_total)
    rows = [
        PayRow("player", _odds(rules.player_pays), "the player's hand wins; a tie returns it"),
        PayRow(
            "banker",
            banker,
            "the banker's hand wins" + (f" ({special})" if special else "") + "; a tie returns it",
            f"{banker}; {short}" if short else "",
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


_BACCARAT_POINTS = (
    "Cards count: Ace (1) 1, 2 to 9 their number, 10 and the pictures "
    "(11, 12, 13) nothing. A hand counts the last digit of its sum (7 + 8 = 15 counts 5)."
)

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
    if isinstance(rules, ChemmyRules):
        return _chemmy_text(rules)
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
        _BACCARAT_POINTS,
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
    table = tableau_table(tableau, "The banker's third card when the player drew")
    return RulesText(sentences, [table])


def tableau_table(tableau: Tableau, title: str) -> tuple[str, list[str], list[list[str]]]:
    """The banker's rows of ``tableau`` as a table: his total, and the values of the
    player's third card he draws on."""
    rows = []
    for row in sorted(tableau.banker, key=lambda r: r.banker):
        draws = ", ".join(str(v) for v in row.draws_on) or "never (stands)"
        rows.append([str(row.banker), draws])
    return (title, ["banker's total", "draws when the player's third card counts"], rows)


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


def percent_of(share: Fraction) -> str:
    """A share as a percentage, exactly: ``Fraction(1, 20)`` -> ``'5%'``."""
    return f"{format_decimal(share * 100)}%"


def _totals(low: int, high: int) -> str:
    """Hand totals ``low`` to ``high`` in words: ``5``, ``6 or 7``, ``0 to 4``."""
    if low == high:
        return str(low)
    if high == low + 1:
        return f"{low} or {high}"
    return f"{low} to {high}"


def _listed(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" or {items[-1]}"


def _chemmy_player(rules: ChemmyRules) -> str:
    draw_below, stand_from, natural = (
        rules.player_must_draw_below,
        rules.player_must_stand_from,
        rules.natural_from,
    )
    plays = []
    if draw_below > 0:
        plays.append(f"must draw on {_totals(0, draw_below - 1)}")
    if stand_from > draw_below:
        plays.append(
            f"chooses freely on {_totals(draw_below, stand_from - 1)} "
            "(the punter's option: draw or stand)"
        )
    if stand_from < natural:
        plays.append(f"must stand on {_totals(stand_from, natural - 1)}")
    said = ", ".join(plays[:-1]) + (" and " if len(plays) > 1 else "") + plays[-1]
    return (
        f"Otherwise the holder of the player's hand {said}; the rules make the forced plays, "
        "and a third card is dealt face up."
    )


def _chemmy_text(rules: ChemmyRules) -> RulesText:
    """Chemin de fer's rules: the seats play each other; the house only deals."""
    table, unit = rules.table, format_amount(rules.table.unit)
    ace = "2 lowest, Ace highest" if rules.ace_high_in_draw else "Ace lowest, King highest"
    if rules.keep_whole_bank:
        kept = (
            "When he keeps the bank it stays whole: the previous bank and its winnings, up "
            "to the table maximum."
        )
    else:
        kept = (
            "When he keeps the bank he may let it ride with its winnings (up to the table "
            "maximum) or put up any other amount."
        )
    passing = (
        " Instead of putting up a bank he may pass it to the next seat."
        if rules.banker_may_pass
        else " He may not pass the bank: while he holds it he must put one up."
    )
    naturals = [str(total) for total in range(rules.natural_from, 10)]
    natural = (
        f"A two-card {_listed(naturals)} (a natural) on either side is shown at once and "
        "ends the coup."
        if naturals
        else "There are no naturals."
    )
    if rules.banker_forced_by_tableau:
        stands = rules.tableau.banker_draws_below_when_player_stands
        banker = (
            "Then the banker has no choice: he draws as the casino's tableau says, on "
            f"{_totals(0, stands - 1)} when the player stood, and as the table below says "
            "when the player drew."
            if stands > 0
            else "Then the banker has no choice: he stands when the player stood, and draws "
            "as the table below says when the player drew."
        )
    else:
        banker = (
            "Then the banker chooses freely to draw or stand, knowing his own two cards and "
            "the player's third card (or that the player stood)."
        )
    if rules.commission:
        banker_wins = (
            "when the banker's wins, the banker takes every stake, less the house's "
            f"commission of {percent_of(rules.commission)} of those winnings (rounded up to "
            f"{unit}). The commission is all the house gets: it has no stake in the coup."
        )
    else:
        banker_wins = (
            "when the banker's wins, the banker takes every stake. The house takes no "
            "commission and has no stake in the coup."
        )
    keeps = ["a win", *(["a tie"] if rules.tie_keeps_bank else []), "a coup nobody staked in"]
    loses = "a loss" if rules.tie_keeps_bank else "a loss or a tie"
    sentences = [
        f"{rules.min_seats} to {rules.max_seats} seats play against each other, not against "
        "the house: one seat holds the bank and the others, the punters, stake against it.",
        "The first banker is drawn for: each seat that can play turns a card face up and the "
        f"highest takes the bank ({ace}); seats tied for the highest draw again.",
        "The banker puts up a bank between the table minimum and the smaller of the table "
        f"maximum and his stack. {kept}{passing}",
        "Then in turn from the seat after the banker each punter may call Banco (cover the "
        "whole bank alone: only while nobody has staked, with a stack that covers it), stake "
        "part of it, or pass. Staking stops once the bank is covered (the part of the last "
        "stake it did not need goes back); a bank not wholly covered plays for what was "
        "staked, and a bank nobody stakes against makes no coup.",
        "The punter with the largest stake (the first in turn among equal ones) holds the "
        "player's hand for all the punters. Two cards each, player, banker, player, banker, "
        "face down: each hand is seen only by its holder.",
        _BACCARAT_POINTS,
        natural,
        _chemmy_player(rules),
        banker,
        "The higher total wins; equal totals tie and every stake goes back. When the "
        f"player's hand wins, the bank pays every stake 1:1; {banker_wins}",
        f"The banker keeps the bank after {_listed(keeps)}; after {loses} it passes to the "
        "next seat in turn whose stack reaches the table minimum.",
        _shoe(rules, "coup"),
        f"Banks and stakes are {format_amount(table.minimum)} to "
        f"{format_amount(table.maximum)}, in whole multiples of {unit}.",
    ]
    tables = []
    if rules.banker_forced_by_tableau:
        tables.append(
            tableau_table(
                rules.tableau, "The banker's third card when the player drew (he must follow it)"
            )
        )
    return RulesText(sentences, tables)
