"""The Finnish games in words: their named hands and bonuses, and the sentence of each
of their rules (the dealer's play, the player's forced plays, the showdown).

>>> from cardroom.core.events import Why
>>> RULE_WORDS["dealer_hits"](Why.of("dealer_hits", soft=False, limit=24))
'dealer hits hard totals below 24'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cardroom.core.events import Why
from cardroom.games.finnish.finnish27 import BonusTable
from cardroom.games.phrases import Template, fact_text, hard_or_soft, span

__all__ = ["NAMES", "RULE_WORDS", "name_of"]

#: The named hands' names.
HANDS: dict[str, str] = {
    "finnish_27": "Finnish 27",
    "joanca": "Joanca",
    "jo_jo": "Jo Jo",
    "natural": "natural",
}


class _Names(Mapping[str, str]):
    """The names of named hands and of finnish27's awards, as its paytable labels them
    (an award added to the source's too: read each time)."""

    def _all(self) -> dict[str, str]:
        return {**HANDS, **BonusTable.labels()}

    def __getitem__(self, key: str) -> str:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


#: The names of named hands and of finnish27's awards.
NAMES: Mapping[str, str] = _Names()


def name_of(key: str) -> str:
    """A named hand's or bonus's name (``finnish_27`` -> ``Finnish 27``)."""
    return NAMES.get(key, key.replace("_", " "))


def _plan(why: Why) -> str:
    """A hit-to-target row's plan: ``hit to hard 23 and soft 25``."""
    relative = why.get("relative")
    if relative is None:
        return f"hit to hard {why['hard']} and soft {why['soft']}"
    if relative == 1:
        return "hit until above the dealer's total"
    if relative == 0:
        return "hit until at least the dealer's total"
    assert isinstance(relative, int)
    return f"hit to the dealer's total {relative:+d}"


def _target(why: Why) -> str:
    verb = "is below" if why.rule == "target_hit" else "is at least"
    row = f"dealer {why['row_kind']} {span(int(str(why['row_low'])), int(str(why['row_high'])))}"
    return f"{fact_text(why['total'], name_of)} {verb} {why['target']} ({row}: {_plan(why)})"


#: The sentence of each of the Finnish games' rules (``{name}`` is a named hand's key).
RULE_WORDS: dict[str, Template] = {
    # initial 27s
    "initial_27": "{hand}'s initial {name}",
    "initial_27s_outrank": "player's {player} outranks dealer's {dealer}",
    "initial_27s_equal": "player's {player} equals dealer's {dealer}",
    "initial_27s_outranked": "player's {player} is outranked by {dealer}",
    "initial_27s_player_first": "player's {player} beats dealer's {dealer} (the player's wins)",
    "both_27s": "both hands are 27s",
    "named_27": "{hand}'s {name}",
    # play
    "target_hit": _target,
    "target_stand": _target,
    "dealer_hits": lambda w: f"dealer hits {hard_or_soft(w['soft'])} totals below {w['limit']}",
    "dealer_stands": lambda w: f"dealer stands on {hard_or_soft(w['soft'])} {w['limit']} or more",
    "must_hit_soft_below": "must hit soft below {limit} against a dealer's {dealer}",
    "must_stand_soft": "must stand on soft {limit} against a dealer's {dealer}",
    "must_hit_hard_below": "must hit hard below {limit} against a dealer's {dealer}",
    "must_stand_hard": "must stand on hard {limit} or more against a dealer's {dealer}",
    "free_against_weak": "free to choose with {player} against a dealer's {dealer}",
    "must_hit_below_dealer": "must hit below the dealer's {dealer}",
    "must_stand_hard_at_dealer": "must stand on a hard total at or above the dealer's {dealer}",
    "must_stand_soft_above_dealer": "must stand on a soft total above the dealer's {dealer}",
    "free_against_equal": "free to choose with {player} against the dealer's equal {dealer}",
    "player_27": "player's hand totals exactly 27",
    "charlie": "player's {cards} cards total {total}: a Charlie wins",
    "player_over": "player's {total} is over {limit}",
    "player_busts": "player busts with {total}",
    "dealer_busts": "dealer busts with {total}",
    # the showdown
    "push_player_over_closer": "player {player} is over 27 but closer than dealer {dealer}",
    "push_dealer_over_as_close": "dealer {dealer} is over 27 but as close as player {player}",
    "player_over_loses": "player {player} is over 27 and dealer {dealer} is not",
    "dealer_over_loses": "dealer {dealer} is over 27 and player {player} is not",
    "both_over_push": "player {player} and dealer {dealer} are both over 27: a push",
    "both_over_player_loses": "player {player} and dealer {dealer} are both over 27",
    "dealer_28_stalemate": "dealer's 28 is a stalemate against player {player}",
    "dealer_28_wins": "dealer's 28 beats player {player}",
    "both_27_stalemate": "both hands are 27: a stalemate",
    "both_27_dealer_wins": "both hands are 27: the dealer's wins",
    "player_closer": "player {player} is closer to 27 than dealer {dealer}",
    "dealer_closer": "dealer {dealer} is closer to 27 than player {player}",
    "equally_close": lambda why: (
        f"{fact_text(why['player'], name_of)} and {fact_text(why['dealer'], name_of)} are "
        "equally close: "
        + ("a push" if why["winner"] == "push" else f"{fact_text(why['winner'], name_of)} on ties")
    ),
    "equally_close_push": "{player} and {dealer} are equally close to 27",
}
