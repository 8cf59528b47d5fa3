"""Baccarat in words: the sentence of each rule of the tableau, the coup's result and
the side wagers (punto banco, baccarat27, and the deal chemin de fer shares).

>>> from cardroom.core.events import Why
>>> RULE_WORDS["player_draws"](Why.of("player_draws", total=3, below=6))
'player draws on 3 (0-5)'
"""

from __future__ import annotations

from cardroom.core.events import Why
from cardroom.games.phrases import Template, odds_text, totals_text

__all__ = ["RULE_WORDS"]


def _banker_rule(why: Why) -> str:
    verb = "draws" if why["draws"] else "stands"
    if why.rule == "banker_player_stood":
        limit = int(str(why["below"]))
        return f"banker {verb} on {why['banker']}: the player stood (banker draws on 0-{limit - 1})"
    return f"banker {verb} on {why['banker']} when the player's third card is a {why['value']}"


def _beats(why: Why) -> str:
    natural = "natural " if why.get("natural") else ""
    return (
        f"{why['winner']}'s {natural}{why['winner_total']} beats "
        f"{why['loser']}'s {why['loser_total']}"
    )


def _tie(why: Why) -> str:
    natural = "natural " if why.get("natural") else ""
    return f"both hands total {natural}{why['total']}"


#: The sentence of each baccarat rule.
RULE_WORDS: dict[str, Template] = {
    "player_draws": lambda w: f"player draws on {w['total']} (0-{int(str(w['below'])) - 1})",
    "player_stands": "player stands on {total}",
    "banker_player_stood": _banker_rule,
    "banker_third_card": _banker_rule,
    "beats": _beats,
    "tie": _tie,
    "pair_pays": lambda w: f"{w['hand']} pair pays {odds_text(w['odds'])}",
    "no_pair": "no {hand} pair",
    "b27_pays": lambda w: f"banker won with {w['total']}: B-27 pays {odds_text(w['odds'])}",
    "no_b27": lambda w: f"the banker did not win with {totals_text(w['totals'])}",
}
