"""What a table must tell a person before they bet: its rules in plain words and its
paytable, made from the rules it plays (a variant's too), for the web table's pages.

Each game writes its own (``disclosure`` in its package, reached through its
:class:`~cardroom.games.spec.GameSpec`); payouts are odds (``"19:20"``, as
:func:`~cardroom.core.money.format_odds` writes them) and amounts exact
(:func:`~cardroom.core.money.format_amount`).

>>> from cardroom.games import get_game
>>> rows = paytable("punto-banco", get_game("punto-banco").default_rules())
>>> [(row.wager, row.pays) for row in rows]
[('player', '1:1'), ('banker', '19:20'), ('tie', '8:1')]
"""

from __future__ import annotations

from cardroom.games import get_game
from cardroom.games.baccarat.disclosure import tableau_table
from cardroom.games.base import GameRules
from cardroom.games.disclosure import PayRow, RulesText, percent_of

__all__ = ["PayRow", "RulesText", "paytable", "percent_of", "rules_text", "tableau_table"]


def paytable(game_id: str, rules: GameRules) -> list[PayRow]:
    """What each wager of ``game_id`` pays under ``rules``, in the order of the wagers."""
    rows: list[PayRow] = get_game(game_id).paytable(rules)
    return rows


def rules_text(game_id: str, rules: GameRules) -> RulesText:
    """``game_id``'s rules under ``rules``, in plain words."""
    text: RulesText = get_game(game_id).rules_text(rules)
    return text
