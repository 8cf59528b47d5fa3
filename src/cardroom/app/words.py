"""cardroom's English: the words a person reads for each rule, total and event.

Engines say *why* with data (:class:`~cardroom.core.events.Why`: a rule id and its
facts); this module is the one place where those become sentences, for the terminal
and the web alike.  A card is always named by its Finnish index (``13♥``), never by
its machine code.

>>> from cardroom.core.events import Points, Why
>>> explain(Why.of("dealer_hits", soft=False, limit=24))
'dealer hits hard totals below 24'
>>> points_text(Points(25, soft=True)), points_text(Points(27, False, "joanca"))
('soft 25', '27 (Joanca)')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from cardroom.core.cards import Card
from cardroom.core.events import (
    Announcement,
    BancoCalled,
    BankerChosen,
    BankPassed,
    BankPut,
    CardDealt,
    ChemmyEvent,
    Commission,
    CoupEvent,
    CoupVoid,
    Decision,
    DrawForBank,
    DrawTie,
    Event,
    ExcessReturned,
    Fact,
    GameOver,
    HandCard,
    HandShown,
    Outcome,
    PartCovered,
    Passed,
    PlayerChosen,
    Points,
    Reshuffled,
    SeatLeft,
    SeatSettled,
    SeatTaken,
    Settled,
    Staked,
    Why,
)
from cardroom.core.money import format_amount
from cardroom.games import GAMES, phrases
from cardroom.games.phrases import Template


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


def points_text(points: Points | None) -> str:
    """``soft 25``, ``hard 17``, ``27 (Finnish 27)``, ``7`` (baccarat), '' for None."""
    return phrases.points_text(points, name_of)


def _fact_text(value: Fact) -> str:
    return phrases.fact_text(value, name_of)


def _bonus(why: Why) -> str:
    key = str(why["bonus"])
    flat = why.get("bonus_flat")
    if flat is not None:
        assert isinstance(flat, Fraction)
        return f"{name_of(key)} ({format_amount(flat)} x table minimum)"
    return f"{name_of(key)} {phrases.odds_text(why['bonus_odds'])}"


def _pays(why: Why) -> str:
    text = f"{wager_name(str(why['wager']))} pays {phrases.odds_text(why['odds'])}"
    if why.get("bonus") is not None:
        text += f" + bonus {_bonus(why)}"
    elif why.get("bonus_stopped") is not None:
        stopped, theirs = str(why["bonus_stopped"]), str(why["dealer_poker"])
        text += f" (no bonus: {name_of(stopped)} against the dealer's {name_of(theirs)})"
    return text


def _fee(why: Why) -> str:
    """The fee a table collected on the stake, where it takes one: ``, less a fee of 0.10``."""
    fee = why.get("fee")
    return "" if fee is None else f", less a fee of {_fact_text(fee)}"


#: The sentences of the rules every game shares (the shoe, a wager's settlement); each
#: game's own rules have theirs in its description (``GameSpec.rule_words``).
TEMPLATES: dict[str, Template] = {
    "": "",
    # the shoe and the table
    "new_shoe": "new shoe",
    "reshuffle_point": "reshuffle point reached",
    "round_limit": "the shoe's rounds were all dealt",
    "ran_out": "the shoe ran out in mid-round",
    # settlement
    "pays": _pays,
    "returned_on_push": "a push returns the wager",
    "push_returned": "push: the wager is returned",
    "returned_on_tie": "a tie returns the wager",
    "won_by": "{winner} won",
    "no_push": "no push",
    "no_tie": "no tie",
}


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


def explain(why: Why, names: Sequence[str] = (), you: int | None = None) -> str:
    """The sentence of ``why`` (seats named from ``names``; ``you``: the reader's seat)."""
    template = template_of(why.rule)
    if template is None:
        return why.rule.replace("_", " ")
    if callable(template):
        return template(why) + _fee(why)
    facts = {key: _fact_text(value) for key, value in why.facts.items()}
    if names:
        for key, value in why.facts.items():
            if key.endswith("seat") and isinstance(value, int) and not isinstance(value, bool):
                facts[key] = seat_name(value, names, you)
            elif key.endswith("seats") and isinstance(value, tuple):
                facts[key] = names_text([seat_name(int(s), names, you) for s in value])
    for key in ("name",):
        if key in facts:
            facts[key] = name_of(facts[key])
    return template.format(**facts) + _fee(why)


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


# -- chemin de fer ---------------------------------------------------------------------------
def seat_name(seat: int, names: Sequence[str], you: int | None = None) -> str:
    return "you" if seat == you else names[seat]


def names_text(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def decision_text(hand: str, action: str, why: Why) -> str:
    """A hand's draw or stand with its rule, as a sentence's start: ``player draws on 3
    (must draw on 0-4)``; the tableau's and the Finnish games' rules read whole."""
    verb = {"hit": "hits", "stand": "stands", "draw": "draws"}.get(action, f"{action}s")
    if why.rule in ("must_draw", "must_stand", "may_draw"):
        return f"{hand} {verb} on {why['total']} ({explain(why)})"
    if why.rule == "banker_choice":  # (its sentence with the verb the choice made)
        return explain(Why(why.rule, {**why.facts, "verb": verb}))
    return explain(why)


def chemmy_turn_text(why: Why) -> str:
    """Why a chemin de fer hand is the holder's to play: ``the player may draw or stand
    on 5``, ``the banker draws or stands freely on 6 (the player stood)``."""
    if why.rule in ("must_draw", "must_stand", "may_draw"):
        return f"the player {explain(why)}"
    return explain(why)


# -- events as lines -------------------------------------------------------------------------
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
    """The line's words alone.

    >>> plain(outcome_line(Outcome("push", Why.of("equally_close_push", player=20, dealer=20))))
    'Push: 20 and 20 are equally close to 27'
    """
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


def outcome_line(event: Outcome, names: Sequence[str] = (), you: int | None = None) -> Line:
    """``Player wins: player's natural 9 beats banker's 7``."""
    reason = explain(event.why, names, you)
    return (Span(outcome_title(event.outcome), Tone.STRONG),) + (
        (Span(f": {reason}"),) if reason else ()
    )


def reshuffle_line(event: Reshuffled) -> Line:
    """``⟳ The shoe is reshuffled (reshuffle point reached; shoe 2)``: a person must see it.

    >>> plain(reshuffle_line(Reshuffled(1, "new_shoe", 11, Card.parse("Kh"))))
    '⟳ The shoe is shuffled (new shoe; first card 13♥ turned, 11 cards burnt; shoe 1)'
    """
    verb = "shuffled" if event.shoe == 1 and event.cause == "new_shoe" else "reshuffled"
    return (
        Span(f"⟳ The shoe is {verb}", Tone.NOTICE),
        Span(f" ({reshuffle_reason(event)}; shoe {event.shoe})", Tone.WARNING),
    )


def settlement_line(event: Settled) -> Line:
    """``Bet on player 10: +15 (player pays 1:1)``; a payout rounded down to the table's
    unit says what the table kept."""
    note = explain(event.why)
    if event.breakage:
        note += f"; {format_amount(event.breakage)} kept as breakage"
    return (
        Span(f"Bet on {wager_name(event.wager)} {format_amount(event.stake)}: "),
        Span(signed(event.net), net_tone(event.net)),
    ) + ((Span(f" ({note})", Tone.QUIET),) if note else ())


def dealt_line(event: CardDealt) -> Line:
    """``Player gets 13♥: soft 26``."""
    total = points_text(event.total)
    return (Span(f"{capital(event.hand)} gets {event.card.finnish}"),) + (
        (Span(f": {total}", Tone.TOTAL),) if total else ()
    )


def house_decision_line(event: Decision) -> Line:
    """A house game's hit or stand: the rules' (``Player stands: must stand on hard 24 or
    more against a dealer's hard 15``) or the person's (``Player hits (your choice; ...)``)."""
    verb = {"hit": "hits", "stand": "stands"}.get(str(event.action), str(event.action))
    reason = explain(event.why)
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


def house_line(event: Event) -> Line:
    """Any event of a house game (finnish27, 21-24-27, the baccarats) as a line."""
    if isinstance(event, CardDealt):
        return dealt_line(event)
    if isinstance(event, Decision):
        return house_decision_line(event)
    if isinstance(event, Reshuffled):
        return reshuffle_line(event)
    if isinstance(event, Outcome):
        return outcome_line(event)
    if isinstance(event, Settled):
        return settlement_line(event)
    return (Span(type(event).__name__),)  # pragma: no cover - no other event at a house game


class ChemmyNarrator:
    """Tells a chemin de fer table's events as one seat sees them.

    ``you`` is the reader's seat, told as "You" ("You draw", not "You draws"); every other
    seat by its name.  Feed it the events in order: it remembers the cards drawn for the
    bank and who holds the bank, to tell a coup's settlement as the bank's.

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

    def __init__(self, names: Sequence[str], you: int | None = None) -> None:
        self.names = tuple(names)
        self.you = you
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
        if isinstance(event, Reshuffled):
            return reshuffle_line(event)
        if isinstance(event, DrawForBank):
            self.drawn[event.seat] = event.card
            again = " (again)" if event.round > 1 else ""
            text = f"{self.does(event.seat, 'draws', 'draw')} {event.card.finnish} for the bank"
            return (Span(text + again),)
        if isinstance(event, DrawTie):
            who = names_text([self.who(seat, start=i == 0) for i, seat in enumerate(event.seats)])
            return (Span(f"{who} tie for the highest card: they draw again"),)
        if isinstance(event, BankerChosen):
            return self._banker_chosen(event)
        if isinstance(event, BankPut):
            self.banker = event.seat
            put = self.does(event.seat, "puts", "put")
            return (Span(f"{put} up a bank of {format_amount(event.amount)}", Tone.STRONG),)
        if isinstance(event, BankPassed):
            self.banker = event.seat
            return (Span(f"{self.does(event.seat, 'passes', 'pass')} the bank"),)
        if isinstance(event, BancoCalled):
            cover = "you cover" if event.seat == self.you else "covers"
            text = (
                f'{self.does(event.seat, "calls", "call")} "Banco!": '
                f"{cover} the whole bank of {format_amount(event.amount)}"
            )
            return (Span(text, Tone.STRONG),)
        if isinstance(event, Staked):
            stakes = self.does(event.seat, "stakes", "stake")
            return (Span(f"{stakes} {format_amount(event.amount)}"),)
        if isinstance(event, Passed):
            if event.forced:
                text = (
                    f"{self.does(event.seat, 'cannot', 'cannot')} stake: "
                    f"{self.whose(event.seat)} stack is below the table minimum"
                )
                return (Span(text, Tone.QUIET),)
            return (Span(self.does(event.seat, "passes", "pass"), Tone.QUIET),)
        if isinstance(event, ExcessReturned):
            text = (
                f"{format_amount(event.amount)} of {self.whose(event.seat)} stake goes back: "
                "the bank is covered"
            )
            return (Span(text, Tone.QUIET),)
        if isinstance(event, PartCovered):
            covered = format_amount(event.covered)
            text = (
                f"The bank of {format_amount(event.bank)} is covered for {covered} only: "
                f"it plays for {covered}"
            )
            return (Span(text, Tone.WARNING),)
        if isinstance(event, CoupVoid):
            return (Span("Nobody stakes against the bank: no coup", Tone.WARNING),)
        if isinstance(event, PlayerChosen):
            text = (
                f"{self.does(event.seat, 'holds', 'hold')} the player's hand "
                f"(stake {format_amount(event.stake)})"
            )
            return (Span(text, Tone.STRONG),)
        if isinstance(event, HandCard):
            return self._hand_card(event)
        if isinstance(event, Announcement):
            verb = ("draws", "draw") if event.action == "draw" else ("stands", "stand")
            return (
                Span(self.does(event.seat, *verb), Tone.FORCED),
                Span(f" ({event.hand})", Tone.QUIET),
            )
        if isinstance(event, Decision):
            reason = capital(decision_text(event.hand, event.action, event.why))
            return (Span(reason, Tone.FORCED if event.forced else Tone.CHOSEN),)
        if isinstance(event, HandShown):
            shows = self.does(event.seat, "shows", "show")
            cards = " ".join(card.finnish for card in event.cards)
            return (
                Span(f"{shows} the {event.hand}'s hand: {cards}"),
                Span(f" = {event.total}", Tone.TOTAL),
            )
        if isinstance(event, Outcome):
            return outcome_line(event, self.names, self.you)
        if isinstance(event, SeatSettled):
            return self._settled(event)
        if isinstance(event, Commission):
            text = (
                f"Commission to the house: {format_amount(event.amount)} "
                f"({format_amount(event.rate * 100)}% of {self.whose(event.seat)} winnings)"
            )
            return (Span(text, Tone.QUIET),)
        if isinstance(event, SeatTaken):
            sits = "You sit" if event.seat == self.you else f"{event.name} sits"
            return (Span(f"{sits} down with {format_amount(event.stack)}"),)
        if isinstance(event, SeatLeft):
            stands = self.does(event.seat, "stands", "stand")
            return (Span(f"{stands} up with {format_amount(event.stack)}"),)
        if isinstance(event, GameOver):
            return (Span(f"The game stops: {explain(event.why)}", Tone.NOTICE),)
        return (Span(type(event).__name__),)  # pragma: no cover - every event is above

    def _banker_chosen(self, event: BankerChosen) -> Line:
        seat = event.seat
        self.banker = seat
        if event.why.rule == "highest_card":
            high = self.drawn.get(seat) or event.why.get("card")
            card = f" ({_fact_text(high)})" if high is not None else ""
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
        total = points_text(event.total)
        return (Span(f"{event.card.finnish} to {to} as the {event.hand}{face}"),) + (
            (Span(f": {total}", Tone.TOTAL),) if total else ()
        )

    def _settled(self, event: SeatSettled) -> Line:
        role = " (bank)" if event.seat == self.banker else ""
        note = explain(event.why)
        if event.breakage:
            note += f"; {format_amount(event.breakage)} kept as breakage"
        return (
            Span(f"{self.who(event.seat)}{role}: "),
            Span(signed(event.net), net_tone(event.net)),
            Span(f" on {format_amount(event.stake)}"),
        ) + ((Span(f" ({note})", Tone.QUIET),) if note else ())
