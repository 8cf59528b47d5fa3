"""Chemin de fer in words: the sentence of each rule of the bank, the stakes and the
choices at the table (the deal's own rules are baccarat's).

>>> from cardroom.core.events import Why
>>> RULE_WORDS["may_draw"](Why.of("may_draw", low=5, high=5, total=5))
'may draw or stand on 5'
"""

from __future__ import annotations

from cardroom.core.events import Fact, Why
from cardroom.games.phrases import Template, fact_text, span

__all__ = ["RULE_WORDS", "third_card_seen"]


def _player_rule(why: Why) -> str:
    """``must draw on 0-4``."""
    low, high = int(str(why["low"])), int(str(why["high"]))
    return {
        "must_draw": f"must draw on {span(low, high)}",
        "must_stand": f"must stand on {span(low, high)}",
        "may_draw": f"may draw or stand on {span(low, high)}",
    }[why.rule]


def third_card_seen(third: Fact) -> str:
    """What the banker saw of the player's hand: ``the player's third card is 5♠``."""
    return "the player stood" if third is None else f"the player's third card is {fact_text(third)}"


def _verb(why: Why) -> str:
    """The banker's choice as a verb where the sentence says it (``draws ``), else ''."""
    verb = why.get("verb")
    return f"{verb} " if verb else ""


def _banker_collects(why: Why) -> str:
    fee = why.get("commission")
    text = "the banker collects every stake"
    return text if fee is None else f"{text}, less {fact_text(fee)} commission"


#: The sentence of each chemin de fer rule.
RULE_WORDS: dict[str, Template] = {
    "must_draw": _player_rule,
    "must_stand": _player_rule,
    "may_draw": _player_rule,
    "banker_choice": lambda w: (
        f"banker {_verb(w)}on {w['banker']} by choice ({third_card_seen(w.get('third'))})"
    ),
    "banker_free": lambda w: (
        f"the banker draws or stands freely on {w['banker']} ({third_card_seen(w.get('third'))})"
    ),
    "highest_card": "draws the highest card ({card}) and takes the bank",
    "bank_passed_on": "the bank passes on",
    "bank_kept": "the banker keeps the bank",
    "passes": "passes",
    "stack_below_minimum": "the stack is below the table minimum",
    "nobody_staked": "nobody staked against the bank: no coup",
    "only_punter": "the only punter",
    "largest_stake": "the largest stake",
    "tie_returns_stakes": "both hands total {total}: every stake is returned",
    "bank_pays_even": "the bank pays 1:1",
    "bank_pays_every_stake": "the bank pays every stake",
    "tie_returned": "tie: returned",
    "tie_all_returned": "tie: every stake is returned",
    "banker_wins_stake": "the banker wins the stake",
    "banker_collects": _banker_collects,
    "fewer_than_two": "fewer than two seats can play (a seat needs {minimum} or more)",
    "put_up_bank": lambda w: "put up a bank" + (" or pass it" if w.get("may_pass") else ""),
    "may_cover": "may stake against the bank ({needed} to cover)",
}
