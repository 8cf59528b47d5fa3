"""Events as lines a person reads, for every game: the pieces of a line and their tones,
the sentences of the rules every game shares (the shoe, a wager's settlement), and a
house game's events (a card, a hit or a stand, the shuffle, the outcome, a bet settled).

A :class:`Words` turns a :class:`~cardroom.core.events.Why` into a sentence with the
rules' words it is given: a game's own (its ``words.py``), or every game's at once (the
application's, :mod:`cardroom.app.words`).  A card is always named by its Finnish index
(``13♥``), never by its machine code.

>>> from cardroom.core.events import Why
>>> plain(Words(SHARED.get).outcome_line(Outcome("tie", Why.of("new_shoe"))))
'Tie: new shoe'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from cardroom.core.events import (
    CardDealt,
    Decision,
    Event,
    Fact,
    Outcome,
    Points,
    Reshuffled,
    Settled,
    Why,
)
from cardroom.core.money import format_amount
from cardroom.games import phrases
from cardroom.games.phrases import Template

__all__ = [
    "NO_WINNER",
    "SHARED",
    "Line",
    "Span",
    "Tone",
    "Words",
    "capital",
    "names_text",
    "net_tone",
    "outcome_title",
    "plain",
    "reshuffle_reason",
    "signed",
]


class Tone(StrEnum):
    """What a part of a line is, for a screen to style it (the words stay the same)."""

    PLAIN = "plain"
    STRONG = "strong"  # a line that matters: a bank put up, an outcome
    QUIET = "quiet"  # a detail: a rule's reason, a pass
    TOTAL = "total"  # a hand's total
    WIN = "win"
    LOSS = "loss"
    EVEN = "even"
    NOTICE = "notice"  # the shoe is shuffled, the game is over
    WARNING = "warning"  # a reason to read: the shuffle's, a bank only partly covered
    CHOSEN = "chosen"  # a decision a person made
    FORCED = "forced"  # a decision the rules made


@dataclass(frozen=True)
class Span:
    """A piece of a line, in one tone."""

    text: str
    tone: Tone = Tone.PLAIN


#: A line a person reads: its pieces in order.
Line = tuple[Span, ...]


def plain(line: Iterable[Span]) -> str:
    """The line's words alone."""
    return "".join(span.text for span in line)


#: Outcomes that are nobody's win.
NO_WINNER = frozenset({"push", "tie"})


def capital(word: str) -> str:
    """``player`` -> ``Player``."""
    return word[:1].upper() + word[1:]


def signed(value: Fraction) -> str:
    """A result with its sign: ``+15``, ``-10``, ``±0``."""
    if value > 0:
        return f"+{format_amount(value)}"
    return format_amount(value) if value < 0 else "±0"


def net_tone(value: Fraction) -> Tone:
    return Tone.WIN if value > 0 else Tone.LOSS if value < 0 else Tone.EVEN


def outcome_title(outcome: str) -> str:
    """``player`` -> ``Player wins``; ``push`` -> ``Push``."""
    return capital(outcome) if outcome in NO_WINNER else f"{capital(outcome)} wins"


def names_text(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def seat_name(seat: int, names: Sequence[str], you: int | None = None) -> str:
    return "you" if seat == you else names[seat]


def reshuffle_reason(event: Reshuffled) -> str:
    """``new shoe; first card 13♥ turned, 11 cards burnt``."""
    text = {
        "new_shoe": "new shoe",
        "reshuffle_point": "reshuffle point reached",
        "cut_card": "the cut card came out",
        "round_limit": "the shoe's rounds were all dealt",
        "ran_out": "the shoe ran out in mid-round",
    }.get(event.cause, event.cause.replace("_", " "))
    if event.first_card is not None:
        text += f"; first card {event.first_card.finnish} turned, {event.burnt} cards burnt"
    elif event.burnt:
        text += f"; {event.burnt} cards burnt"
    return text


def _plain_name(key: str) -> str:
    return phrases.plain_name(key)


def _wager_words(wager: str) -> str:
    return wager.replace("_", " ")


class Words:
    """Sentences and lines from the rules' words: ``template_of`` finds the sentence of a
    rule id; ``name_of`` names a named hand or bonus (``jo_jo`` -> ``Jo Jo``); and
    ``wager_name`` a wager inside a sentence (``b27`` -> ``B-27``)."""

    def __init__(
        self,
        template_of: Callable[[str], Template | None],
        name_of: Callable[[str], str] = _plain_name,
        wager_name: Callable[[str], str] = _wager_words,
    ) -> None:
        self.template_of = template_of
        self.name_of = name_of
        self.wager_name = wager_name

    # -- a rule in words ------------------------------------------------------------------
    def fact_text(self, value: Fact) -> str:
        return phrases.fact_text(value, self.name_of)

    def points_text(self, points: Points | None) -> str:
        """``soft 25``, ``hard 17``, ``27 (Finnish 27)``, ``7`` (baccarat), '' for None."""
        return phrases.points_text(points, self.name_of)

    def explain(self, why: Why, names: Sequence[str] = (), you: int | None = None) -> str:
        """The sentence of ``why`` (seats named from ``names``; ``you``: the reader's)."""
        template = self.template_of(why.rule)
        if template is None:
            return why.rule.replace("_", " ")
        if callable(template):
            return template(why) + self._fee(why)
        facts = {key: self.fact_text(value) for key, value in why.facts.items()}
        if names:
            for key, value in why.facts.items():
                if key.endswith("seat") and isinstance(value, int) and not isinstance(value, bool):
                    facts[key] = seat_name(value, names, you)
                elif key.endswith("seats") and isinstance(value, tuple):
                    facts[key] = names_text([seat_name(int(s), names, you) for s in value])
        if "name" in facts:
            facts["name"] = self.name_of(facts["name"])
        return template.format(**facts) + self._fee(why)

    def _fee(self, why: Why) -> str:
        """The fee a table collected on the stake, where it takes one."""
        fee = why.get("fee")
        return "" if fee is None else f", less a fee of {self.fact_text(fee)}"

    # -- lines ----------------------------------------------------------------------------
    def outcome_line(
        self, event: Outcome, names: Sequence[str] = (), you: int | None = None
    ) -> Line:
        """``Player wins: player's natural 9 beats banker's 7``."""
        reason = self.explain(event.why, names, you)
        return (Span(outcome_title(event.outcome), Tone.STRONG),) + (
            (Span(f": {reason}"),) if reason else ()
        )

    @staticmethod
    def reshuffle_line(event: Reshuffled) -> Line:
        """``⟳ The shoe is reshuffled (reshuffle point reached; shoe 2)``."""
        verb = "shuffled" if event.shoe == 1 and event.cause == "new_shoe" else "reshuffled"
        return (
            Span(f"⟳ The shoe is {verb}", Tone.NOTICE),
            Span(f" ({reshuffle_reason(event)}; shoe {event.shoe})", Tone.WARNING),
        )

    def settlement_line(self, event: Settled) -> Line:
        """``Bet on player 10: +15 (player pays 1:1)``; a payout rounded down to the
        table's unit says what the table kept."""
        note = self.explain(event.why)
        if event.breakage:
            note += f"; {format_amount(event.breakage)} kept as breakage"
        return (
            Span(f"Bet on {self.wager_name(event.wager)} {format_amount(event.stake)}: "),
            Span(signed(event.net), net_tone(event.net)),
        ) + ((Span(f" ({note})", Tone.QUIET),) if note else ())

    def dealt_line(self, event: CardDealt) -> Line:
        """``Player gets 13♥: soft 26``."""
        total = self.points_text(event.total)
        return (Span(f"{capital(event.hand)} gets {event.card.finnish}"),) + (
            (Span(f": {total}", Tone.TOTAL),) if total else ()
        )

    def house_decision_line(self, event: Decision) -> Line:
        """A house game's hit or stand: the rules' (``Player stands: must stand on hard
        24 or more against a dealer's hard 15``) or the person's (``Player hits (your
        choice; ...)``)."""
        verb = {"hit": "hits", "stand": "stands"}.get(str(event.action), str(event.action))
        reason = self.explain(event.why)
        if event.forced and reason.startswith(f"{event.hand} "):
            return (Span(capital(reason), Tone.FORCED),)  # the rule says it whole
        if event.forced:
            return (Span(f"{capital(event.hand)} {verb}", Tone.FORCED),) + (
                (Span(f": {reason}", Tone.QUIET),) if reason else ()
            )
        return (
            Span(f"{capital(event.hand)} {verb}", Tone.CHOSEN),
            Span(" (your choice" + (f"; {reason})" if reason else ")"), Tone.QUIET),
        )

    def house_line(self, event: Event) -> Line:
        """Any event of a house game (finnish27, 21-24-27, the baccarats) as a line."""
        if isinstance(event, CardDealt):
            return self.dealt_line(event)
        if isinstance(event, Decision):
            return self.house_decision_line(event)
        if isinstance(event, Reshuffled):
            return self.reshuffle_line(event)
        if isinstance(event, Outcome):
            return self.outcome_line(event)
        if isinstance(event, Settled):
            return self.settlement_line(event)
        return (Span(type(event).__name__),)  # pragma: no cover - no other event at a house game


def pays(words: Words) -> Template:
    """The sentence of a wager paid at its odds (and a bonus on it, or the bonus the
    dealer's hand stopped), named in ``words``."""

    def sentence(why: Why) -> str:
        text = f"{words.wager_name(str(why['wager']))} pays {phrases.odds_text(why['odds'])}"
        if why.get("bonus") is not None:
            key = str(why["bonus"])
            flat = why.get("bonus_flat")
            if flat is not None:
                assert isinstance(flat, Fraction)
                text += f" + bonus {words.name_of(key)} ({format_amount(flat)} x table minimum)"
            else:
                text += f" + bonus {words.name_of(key)} {phrases.odds_text(why['bonus_odds'])}"
        elif why.get("bonus_stopped") is not None:
            stopped, theirs = str(why["bonus_stopped"]), str(why["dealer_poker"])
            text += (
                f" (no bonus: {words.name_of(stopped)} against the dealer's "
                f"{words.name_of(theirs)})"
            )
        return text

    return sentence


#: The sentences of the rules every game shares (the shoe, a wager's settlement; a
#: wager paid is :func:`pays`, which names the wager): each game's own rules have
#: theirs in its ``words.py``.
SHARED: Mapping[str, Template] = {
    "": "",
    # the shoe and the table
    "new_shoe": "new shoe",
    "reshuffle_point": "reshuffle point reached",
    "round_limit": "the shoe's rounds were all dealt",
    "ran_out": "the shoe ran out in mid-round",
    # settlement
    "returned_on_push": "a push returns the wager",
    "push_returned": "push: the wager is returned",
    "returned_on_tie": "a tie returns the wager",
    "won_by": "{winner} won",
    "no_push": "no push",
    "no_tie": "no tie",
}
