"""cardroom's English: every game's rules and events in words, for the terminal and the
web alike.

Engines say *why* with data (:class:`~cardroom.core.events.Why`: a rule id and its
facts); each game's ``words.py`` gives its rules' sentences, and :mod:`cardroom.games.lines`
turns events into lines with them.  Here those are put together through the games'
descriptions (:data:`cardroom.games.GAMES`): a rule of any game, a wager or a named hand
of any game, in one :data:`WORDS`.

>>> from cardroom.core.events import Points, Why
>>> explain(Why.of("dealer_hits", soft=False, limit=24))
'dealer hits hard totals below 24'
>>> points_text(Points(25, soft=True)), points_text(Points(27, False, "joanca"))
('soft 25', '27 (Joanca)')
>>> plain(outcome_line(Outcome("push", Why.of("equally_close_push", player=20, dealer=20))))
'Push: 20 and 20 are equally close to 27'
"""

from __future__ import annotations

from collections.abc import Sequence

from cardroom.core.events import Event, Outcome, Points, Reshuffled, Settled, Why
from cardroom.games import GAMES, phrases
from cardroom.games.lines import (
    NO_WINNER,
    SHARED,
    Line,
    Span,
    Tone,
    Words,
    capital,
    names_text,
    net_tone,
    outcome_title,
    pays,
    plain,
    reshuffle_reason,
    signed,
)
from cardroom.games.phrases import Template

__all__ = [
    "NO_WINNER",
    "TEMPLATES",
    "WORDS",
    "Line",
    "Span",
    "Tone",
    "capital",
    "explain",
    "house_line",
    "name_of",
    "names_text",
    "net_tone",
    "outcome_line",
    "outcome_title",
    "plain",
    "points_text",
    "reshuffle_line",
    "reshuffle_reason",
    "settlement_line",
    "signed",
    "template_of",
    "wager_label",
    "wager_name",
]


def wager_name(wager: str) -> str:
    """A wager (or an outcome) in words, inside a sentence, as its game names it:
    ``player_pair`` -> ``player pair``, ``b27`` -> ``B-27``; a label starts it with a
    capital (:func:`wager_label`).  The one place a wager id becomes words."""
    for game in GAMES.values():
        names = game.wager_names()
        if wager in names:
            return names[wager]
    return wager.replace("_", " ")


def wager_label(wager: str) -> str:
    """A wager's name as a label: ``player_pair`` -> ``Player pair``, ``b27`` -> ``B-27``."""
    return capital(wager_name(wager))


def name_of(key: str) -> str:
    """A named hand's or bonus's name as its game says it (``finnish_27`` -> ``Finnish 27``)."""
    for game in GAMES.values():
        if key in game.hand_names:
            return game.hand_names[key]
    return phrases.plain_name(key)


def template_of(rule: str) -> Template | None:
    """The sentence of ``rule``: a shared one, or the one its game gives."""
    template = TEMPLATES.get(rule)
    if template is not None:
        return template
    for game in GAMES.values():
        template = game.rule_words.get(rule)
        if template is not None:
            return template
    return None


#: every game's rules and events in words
WORDS = Words(template_of, name_of, wager_name)
#: The sentences of the rules every game shares (the shoe, a wager's settlement);
#: each game's own rules have theirs in its description (``GameSpec.rule_words``).
TEMPLATES: dict[str, Template] = {**SHARED, "pays": pays(WORDS)}


def points_text(points: Points | None) -> str:
    """``soft 25``, ``hard 17``, ``27 (Finnish 27)``, ``7`` (baccarat), '' for None."""
    return WORDS.points_text(points)


def explain(why: Why, names: Sequence[str] = (), you: int | None = None) -> str:
    """The sentence of ``why`` (seats named from ``names``; ``you``: the reader's seat)."""
    return WORDS.explain(why, names, you)


def outcome_line(event: Outcome, names: Sequence[str] = (), you: int | None = None) -> Line:
    """``Player wins: player's natural 9 beats banker's 7``."""
    return WORDS.outcome_line(event, names, you)


def reshuffle_line(event: Reshuffled) -> Line:
    """``⟳ The shoe is reshuffled (reshuffle point reached; shoe 2)``: a person must see it."""
    return WORDS.reshuffle_line(event)


def settlement_line(event: Settled) -> Line:
    """``Bet on player 10: +15 (player pays 1:1)``."""
    return WORDS.settlement_line(event)


def house_line(event: Event) -> Line:
    """Any event of a house game (finnish27, 21-24-27, the baccarats) as a line."""
    return WORDS.house_line(event)
