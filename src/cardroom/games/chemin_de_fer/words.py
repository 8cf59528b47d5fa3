"""Chemin de fer in words: the sentence of each rule of the bank, the stakes and the
choices at the table (the deal's own rules are baccarat's), and a table's events told as
one seat sees them (:class:`ChemmyNarrator`).

>>> from cardroom.core.events import Why
>>> RULE_WORDS["may_draw"](Why.of("may_draw", low=5, high=5, total=5))
'may draw or stand on 5'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cardroom.core.cards import Card
from cardroom.core.events import (
    Announcement,
    BancoCalled,
    BankerChosen,
    BankPassed,
    BankPut,
    ChemmyEvent,
    Commission,
    CoupEvent,
    CoupVoid,
    Decision,
    DrawForBank,
    DrawTie,
    ExcessReturned,
    Fact,
    GameOver,
    HandCard,
    HandShown,
    Outcome,
    PartCovered,
    Passed,
    PlayerChosen,
    Reshuffled,
    SeatLeft,
    SeatSettled,
    SeatTaken,
    Staked,
    Why,
)
from cardroom.core.money import format_amount
from cardroom.games.baccarat.words import RULE_WORDS as DEAL_WORDS
from cardroom.games.lines import SHARED, Line, Span, Tone, Words, capital, names_text, net_tone
from cardroom.games.lines import signed as signed_text
from cardroom.games.phrases import Template, fact_text, span

__all__ = [
    "RULE_WORDS",
    "WORDS",
    "ChemmyNarrator",
    "chemmy_turn_text",
    "decision_text",
    "third_card_seen",
]


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


def _template_of(rule: str) -> Template | None:
    """The sentence of a rule at a chemin de fer table: the shared ones, the deal's
    (baccarat's) and the table's own."""
    return SHARED.get(rule) or DEAL_WORDS.get(rule) or RULE_WORDS.get(rule)


#: chemin de fer's rules and events in words
WORDS = Words(_template_of)


def decision_text(hand: str, action: str, why: Why, words: Words = WORDS) -> str:
    """A hand's draw or stand with its rule, as a sentence's start: ``player draws on 3
    (must draw on 0-4)``; the tableau's and the Finnish games' rules read whole."""
    verb = {"hit": "hits", "stand": "stands", "draw": "draws"}.get(action, f"{action}s")
    if why.rule in ("must_draw", "must_stand", "may_draw"):
        return f"{hand} {verb} on {why['total']} ({words.explain(why)})"
    if why.rule == "banker_choice":  # (its sentence with the verb the choice made)
        return words.explain(Why(why.rule, {**why.facts, "verb": verb}))
    return words.explain(why)


def chemmy_turn_text(why: Why) -> str:
    """Why a chemin de fer hand is the holder's to play: ``the player may draw or stand
    on 5``, ``the banker draws or stands freely on 6 (the player stood)``."""
    if why.rule in ("must_draw", "must_stand", "may_draw"):
        return f"the player {WORDS.explain(why)}"
    return WORDS.explain(why)


class ChemmyNarrator:
    """Tells a chemin de fer table's events as one seat sees them.

    ``you`` is the reader's seat, told as "You" ("You draw", not "You draws"); every other
    seat by its name.  Feed it the events in order: it remembers the cards drawn for the
    bank and who holds the bank, to tell a coup's settlement as the bank's.

    >>> from fractions import Fraction
    >>> from cardroom.games.lines import plain
    >>> n = ChemmyNarrator(("Ann", "Henri"), you=0)
    >>> plain(n.line(BankPut(1, Fraction(30))))
    'Henri puts up a bank of 30'
    >>> plain(n.line(BancoCalled(0, Fraction(30))))
    'You call "Banco!": you cover the whole bank of 30'
    >>> plain(n.line(HandCard("player", 1, None, False)))
    'A card face down to Henri (player)'
    >>> plain(n.line(SeatSettled(1, Fraction(30), Fraction(30), Why.of("banker_wins_stake"))))
    'Henri (bank): +30 on 30 (the banker wins the stake)'
    """

    def __init__(self, names: Sequence[str], you: int | None = None, words: Words = WORDS) -> None:
        self.names = tuple(names)
        self.you = you
        self.words = words
        self.banker: int | None = None
        self.drawn: dict[int, Card] = {}

    def who(self, seat: int, *, start: bool = True) -> str:
        """The seat's name; ``You`` (``you`` inside a sentence) for the reader's own."""
        if seat == self.you:
            return "You" if start else "you"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    def whose(self, seat: int) -> str:
        return "your" if seat == self.you else f"{self.who(seat)}'s"

    def does(self, seat: int, third: str, second: str) -> str:
        """``Henri draws`` / ``You draw``: the seat and its verb."""
        return f"You {second}" if seat == self.you else f"{self.who(seat)} {third}"

    def lines(self, events: Iterable[ChemmyEvent | CoupEvent]) -> list[Line]:
        return [self.line(event) for event in events]

    def line(self, event: ChemmyEvent | CoupEvent) -> Line:
        """The event as a line (a :class:`CoupEvent`'s own event)."""
        if isinstance(event, CoupEvent):
            event = event.event
        return self._line(event)

    def _line(self, event: ChemmyEvent) -> Line:
        for kind, tell in self._TELLERS:
            if isinstance(event, kind):
                return tell(self, event)
        return (Span(type(event).__name__),)  # pragma: no cover - every event is told

    # -- each kind of event -------------------------------------------------------------
    def _reshuffled(self, event: Reshuffled) -> Line:
        return self.words.reshuffle_line(event)

    def _drawn(self, event: DrawForBank) -> Line:
        self.drawn[event.seat] = event.card
        again = " (again)" if event.round > 1 else ""
        text = f"{self.does(event.seat, 'draws', 'draw')} {event.card.finnish} for the bank"
        return (Span(text + again),)

    def _tie(self, event: DrawTie) -> Line:
        who = names_text([self.who(seat, start=i == 0) for i, seat in enumerate(event.seats)])
        return (Span(f"{who} tie for the highest card: they draw again"),)

    def _bank_put(self, event: BankPut) -> Line:
        self.banker = event.seat
        put = self.does(event.seat, "puts", "put")
        return (Span(f"{put} up a bank of {format_amount(event.amount)}", Tone.STRONG),)

    def _bank_passed(self, event: BankPassed) -> Line:
        self.banker = event.seat
        return (Span(f"{self.does(event.seat, 'passes', 'pass')} the bank"),)

    def _banco(self, event: BancoCalled) -> Line:
        cover = "you cover" if event.seat == self.you else "covers"
        text = (
            f'{self.does(event.seat, "calls", "call")} "Banco!": '
            f"{cover} the whole bank of {format_amount(event.amount)}"
        )
        return (Span(text, Tone.STRONG),)

    def _staked(self, event: Staked) -> Line:
        stakes = self.does(event.seat, "stakes", "stake")
        return (Span(f"{stakes} {format_amount(event.amount)}"),)

    def _passed(self, event: Passed) -> Line:
        if event.forced:
            text = (
                f"{self.does(event.seat, 'cannot', 'cannot')} stake: "
                f"{self.whose(event.seat)} stack is below the table minimum"
            )
            return (Span(text, Tone.QUIET),)
        return (Span(self.does(event.seat, "passes", "pass"), Tone.QUIET),)

    def _excess(self, event: ExcessReturned) -> Line:
        text = (
            f"{format_amount(event.amount)} of {self.whose(event.seat)} stake goes back: "
            "the bank is covered"
        )
        return (Span(text, Tone.QUIET),)

    def _part_covered(self, event: PartCovered) -> Line:
        covered = format_amount(event.covered)
        text = (
            f"The bank of {format_amount(event.bank)} is covered for {covered} only: "
            f"it plays for {covered}"
        )
        return (Span(text, Tone.WARNING),)

    def _void(self, event: CoupVoid) -> Line:
        return (Span("Nobody stakes against the bank: no coup", Tone.WARNING),)

    def _player_chosen(self, event: PlayerChosen) -> Line:
        text = (
            f"{self.does(event.seat, 'holds', 'hold')} the player's hand "
            f"(stake {format_amount(event.stake)})"
        )
        return (Span(text, Tone.STRONG),)

    def _announced(self, event: Announcement) -> Line:
        verb = ("draws", "draw") if event.action == "draw" else ("stands", "stand")
        return (
            Span(self.does(event.seat, *verb), Tone.FORCED),
            Span(f" ({event.hand})", Tone.QUIET),
        )

    def _decided(self, event: Decision) -> Line:
        reason = capital(decision_text(event.hand, event.action, event.why, self.words))
        return (Span(reason, Tone.FORCED if event.forced else Tone.CHOSEN),)

    def _shown(self, event: HandShown) -> Line:
        shows = self.does(event.seat, "shows", "show")
        cards = " ".join(card.finnish for card in event.cards)
        return (
            Span(f"{shows} the {event.hand}'s hand: {cards}"),
            Span(f" = {event.total}", Tone.TOTAL),
        )

    def _outcome(self, event: Outcome) -> Line:
        return self.words.outcome_line(event, self.names, self.you)

    def _commission(self, event: Commission) -> Line:
        text = (
            f"Commission to the house: {format_amount(event.amount)} "
            f"({format_amount(event.rate * 100)}% of {self.whose(event.seat)} winnings)"
        )
        return (Span(text, Tone.QUIET),)

    def _seat_taken(self, event: SeatTaken) -> Line:
        sits = "You sit" if event.seat == self.you else f"{event.name} sits"
        return (Span(f"{sits} down with {format_amount(event.stack)}"),)

    def _seat_left(self, event: SeatLeft) -> Line:
        stands = self.does(event.seat, "stands", "stand")
        return (Span(f"{stands} up with {format_amount(event.stack)}"),)

    def _game_over(self, event: GameOver) -> Line:
        return (Span(f"The game stops: {self.words.explain(event.why)}", Tone.NOTICE),)

    def _banker_chosen(self, event: BankerChosen) -> Line:
        seat = event.seat
        self.banker = seat
        if event.why.rule == "highest_card":
            high = self.drawn.get(seat) or event.why.get("card")
            card = f" ({self.words.fact_text(high)})" if high is not None else ""
            takes = "take" if seat == self.you else "takes"
            draws = self.does(seat, "draws", "draw")
            text = f"→ {draws} the highest card{card} and {takes} the bank"
        elif event.why.rule == "bank_kept":
            text = (
                "→ You keep the bank"
                if seat == self.you
                else f"→ The bank stays with {self.who(seat)}"
            )
        elif event.why.rule == "bank_passed_on":
            text = f"→ The bank passes to {self.who(seat, start=False)}"
        else:
            text = f"→ {self.does(seat, 'holds', 'hold')} the bank"
        return (Span(text, Tone.STRONG),)

    def _hand_card(self, event: HandCard) -> Line:
        """``13♥ to Henri as the player: 3``; ``A card face down to Henri (player)``."""
        to = self.who(event.seat, start=False)
        if event.card is None:
            return (Span(f"A card face down to {to} ({event.hand})", Tone.QUIET),)
        face = "" if event.face_up else " (only you see it)"
        total = self.words.points_text(event.total)
        return (Span(f"{event.card.finnish} to {to} as the {event.hand}{face}"),) + (
            (Span(f": {total}", Tone.TOTAL),) if total else ()
        )

    def _settled(self, event: SeatSettled) -> Line:
        role = " (bank)" if event.seat == self.banker else ""
        note = self.words.explain(event.why)
        if event.breakage:
            note += f"; {format_amount(event.breakage)} kept as breakage"
        return (
            Span(f"{self.who(event.seat)}{role}: "),
            Span(signed_text(event.net), net_tone(event.net)),
            Span(f" on {format_amount(event.stake)}"),
        ) + ((Span(f" ({note})", Tone.QUIET),) if note else ())

    #: each kind of event and how it is told (the first that matches)
    _TELLERS: tuple[tuple[type, Callable[[ChemmyNarrator, Any], Line]], ...] = ()


ChemmyNarrator._TELLERS = (
    (Reshuffled, ChemmyNarrator._reshuffled),
    (DrawForBank, ChemmyNarrator._drawn),
    (DrawTie, ChemmyNarrator._tie),
    (BankerChosen, ChemmyNarrator._banker_chosen),
    (BankPut, ChemmyNarrator._bank_put),
    (BankPassed, ChemmyNarrator._bank_passed),
    (BancoCalled, ChemmyNarrator._banco),
    (Staked, ChemmyNarrator._staked),
    (Passed, ChemmyNarrator._passed),
    (ExcessReturned, ChemmyNarrator._excess),
    (PartCovered, ChemmyNarrator._part_covered),
    (CoupVoid, ChemmyNarrator._void),
    (PlayerChosen, ChemmyNarrator._player_chosen),
    (HandCard, ChemmyNarrator._hand_card),
    (Announcement, ChemmyNarrator._announced),
    (Decision, ChemmyNarrator._decided),
    (HandShown, ChemmyNarrator._shown),
    (Outcome, ChemmyNarrator._outcome),
    (SeatSettled, ChemmyNarrator._settled),
    (Commission, ChemmyNarrator._commission),
    (SeatTaken, ChemmyNarrator._seat_taken),
    (SeatLeft, ChemmyNarrator._seat_left),
    (GameOver, ChemmyNarrator._game_over),
)
