"""Chemin de fer's rules page: what the bank and the punters are paid, and its rules
in sentences (the seats play each other; the house only deals)."""

from __future__ import annotations

from cardroom.core.money import format_amount
from cardroom.games.baccarat.disclosure import BACCARAT_POINTS, tableau_table
from cardroom.games.chemin_de_fer.bots import AlwaysDrawAtFive, CasinoTableauBanker, table_bot
from cardroom.games.chemin_de_fer.rules import ChemmyRules
from cardroom.games.disclosure import (
    PayRow,
    RulesText,
    listed,
    odds_text,
    percent_of,
    shoe_sentence,
    totals_words,
)
from cardroom.games.spec import BotsPlay

__all__ = ["bots_play", "paytable", "rules_text"]


def paytable(rules: ChemmyRules) -> list[PayRow]:
    """The punters' stakes and the bank."""
    commission = (
        f" (1:1 less the house's {percent_of(rules.commission)} commission)"
        if rules.commission
        else ""
    )
    return [
        PayRow("punter", "1:1", "the player's hand wins; a tie returns the stake"),
        PayRow(
            "bank",
            odds_text(1 - rules.commission),
            f"the banker's hand wins{commission}; a tie returns the stakes",
        ),
    ]


def _chemmy_player(rules: ChemmyRules) -> str:
    draw_below, stand_from, natural = (
        rules.player_must_draw_below,
        rules.player_must_stand_from,
        rules.natural_from,
    )
    plays = []
    if draw_below > 0:
        plays.append(f"must draw on {totals_words(0, draw_below - 1)}")
    if stand_from > draw_below:
        plays.append(
            f"chooses freely on {totals_words(draw_below, stand_from - 1)} "
            "(the punter's option: draw or stand)"
        )
    if stand_from < natural:
        plays.append(f"must stand on {totals_words(stand_from, natural - 1)}")
    said = ", ".join(plays[:-1]) + (" and " if len(plays) > 1 else "") + plays[-1]
    return (
        f"Otherwise the holder of the player's hand {said}; the rules make the forced plays, "
        "and a third card is dealt face up."
    )


def rules_text(rules: ChemmyRules) -> RulesText:
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
        f"A two-card {listed(naturals)} (a natural) on either side is shown at once and "
        "ends the coup."
        if naturals
        else "There are no naturals."
    )
    if rules.banker_forced_by_tableau:
        stands = rules.tableau.banker_draws_below_when_player_stands
        banker = (
            "Then the banker has no choice: he draws as the casino's tableau says, on "
            f"{totals_words(0, stands - 1)} when the player stood, and as the table below says "
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
        BACCARAT_POINTS,
        natural,
        _chemmy_player(rules),
        banker,
        "The higher total wins; equal totals tie and every stake goes back. When the "
        f"player's hand wins, the bank pays every stake 1:1; {banker_wins}",
        f"The banker keeps the bank after {listed(keeps)}; after {loses} it passes to the "
        "next seat in turn whose stack reaches the table minimum.",
        shoe_sentence(rules, "coup"),
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


def bots_play(rules: ChemmyRules) -> BotsPlay:
    """How the bots at the web's tables (:func:`table_bot`) draw: the player's free
    choice, and the tableau the banker follows where the rules let him choose."""
    bot = table_bot(rules)
    free = [
        str(total) for total in range(rules.natural_from) if rules.player_rule(total)[0] is None
    ]
    banker = bot.banker if isinstance(bot.banker, CasinoTableauBanker) else None
    tableau = None
    if banker is not None and not rules.banker_forced_by_tableau:  # else the rules draw
        tableau = tableau_table(
            banker.tableau, "The bots' banker: his third card when the player drew"
        )
    return BotsPlay(
        free=" or ".join(free),
        always_draw=isinstance(bot.player, AlwaysDrawAtFive),
        tableau=tableau,
        draws_below_when_stood=(
            banker.tableau.banker_draws_below_when_player_stands if banker else None
        ),
    )
