"""punto banco's rules page: its paytable from its wagers, its rules in sentences."""

from __future__ import annotations

from cardroom.games.baccarat.engine import BaccaratRules, Tableau
from cardroom.games.baccarat.wagers import WAGERS
from cardroom.games.disclosure import (
    PayRow,
    RulesText,
    limits_sentence,
    odds_text,
    shoe_sentence,
)

__all__ = ["BACCARAT_POINTS", "paytable", "rules_text", "tableau_table"]


BACCARAT_POINTS = (
    "Cards count: Ace (1) 1, 2 to 9 their number, 10 and the pictures "
    "(11, 12, 13) nothing. A hand counts the last digit of its sum (7 + 8 = 15 counts 5)."
)


def paytable(rules: BaccaratRules) -> list[PayRow]:
    """What each wager the rules offer pays, in the order of its spots."""
    return [
        PayRow(w, odds_text(WAGERS[w].odds(rules)), WAGERS[w].when(rules), WAGERS[w].spot(rules))
        for w in rules.wager_ids
    ]


def rules_text(rules: BaccaratRules) -> RulesText:
    tableau = rules.tableau
    natural = (
        f"A natural ({tableau.natural_from} or more with the first two cards) ends the round."
        if tableau.natural_from < 10
        else "There are no naturals."
    )
    sentences = [
        "Two hands, the player's and the banker's, get two cards each, player first. "
        "Nobody decides anything: the tableau says when each hand draws a third card.",
        BACCARAT_POINTS,
        natural,
        f"The player draws a third card on 0 to {tableau.player_draws_below - 1} and "
        "stands otherwise.",
        "When the player stands, the banker draws on 0 to "
        f"{tableau.banker_draws_below_when_player_stands - 1}; when the player draws, the "
        "banker draws as the table below says, by the value of the player's third card.",
        "The hand closer to 9 wins. A tie pays the tie wager and returns the player and "
        "banker wagers.",
        shoe_sentence(rules),
        limits_sentence(rules),
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
