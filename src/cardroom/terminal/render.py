"""How cards, events, rounds and tables are shown to a person (Rich renderables).

Everything here is generic over the games: a hand is shown by its name, a card by
its Finnish index (``13♥``, ``1♠``, ``Joker``), money exactly with
:func:`~cardroom.core.money.format_amount`.  Nothing here prints: the CLI decides where
the text goes.

>>> from cardroom.core.cards import parse_cards
>>> hand_text(parse_cards("As Kh Jo")).plain
'1♠ 13♥ Joker'

The words of every event are :mod:`cardroom.app.words`' (the web shows the same): here they
get their colours, by :data:`STYLES`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from fractions import Fraction
from typing import Any

import tomlkit
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from cardroom.app.history import RoundRecord
from cardroom.app.lab import form_fields
from cardroom.app.words import (
    Span,
    Tone,
    capital,
    house_line,
    points_text,
    signed,
)
from cardroom.core.cards import Card, Suit
from cardroom.core.events import (
    BankPut,
    CardDealt,
    ChemmyEvent,
    CoupEvent,
    Event,
    HandCard,
    coup_event_from_json,
    event_from_json,
)
from cardroom.core.money import format_amount
from cardroom.games import GameInfo, seats_game
from cardroom.games.base import GameRules
from cardroom.games.chemin_de_fer.engine import visible
from cardroom.games.chemin_de_fer.words import ChemmyNarrator

RED_SUITS = frozenset({Suit.HEARTS, Suit.DIAMONDS})

#: How each tone of :mod:`cardroom.app.words` looks in the terminal.
STYLES: dict[Tone, str] = {
    Tone.PLAIN: "",
    Tone.STRONG: "bold",
    Tone.QUIET: "dim",
    Tone.TOTAL: "cyan",
    Tone.WIN: "bold green",
    Tone.LOSS: "bold red",
    Tone.EVEN: "bold yellow",
    Tone.NOTICE: "bold yellow",
    Tone.WARNING: "yellow",
    Tone.CHOSEN: "bold italic",
    Tone.FORCED: "italic",
}


def every_key(rules: GameRules, width: int = 88) -> str:
    """Every key of ``rules`` as TOML comments, each with its value, its range and what
    it means (the keys a rules file leaves out at their defaults included), for the end
    of a printed rules file."""
    lines = ["", "# Every key (dotted: [section] key), its value here, its range and meaning:"]
    for field in form_fields(rules):
        shown = field.value if field.kind == "rows" else _toml_value(field.kind, field.value)
        lines.append(f"# {field.key} = {shown}" if field.editable else f"# {field.key}: {shown}")
        said = field.help if not field.words else f"{field.help}: {field.words}"
        lines += textwrap.wrap(
            said, width, initial_indent="#     ", subsequent_indent="#     ",
            break_on_hyphens=False,
        )  # fmt: skip
    return "\n".join(lines) + "\n"


def _toml_value(kind: str, value: str) -> str:
    """A form's value as a rules file writes it: numbers and true/false bare, whole
    amounts and odds bare, the rest quoted, lists as arrays."""
    if kind == "list":
        items = [item.strip() for item in value.split(",") if item.strip()]
        return "[" + ", ".join(_toml_value("text", item) for item in items) + "]"
    if kind in ("bool", "number") or value.lstrip("-").isdigit():
        return value
    return tomlkit.item(value).as_string()


def styled(line: Iterable[Span]) -> Text:
    """A line of :mod:`cardroom.app.words` in the terminal's colours."""
    text = Text()
    for span in line:
        text.append(span.text, style=STYLES[span.tone])
    return text


STYLE_RED_CARD = "bold red3 on grey93"
STYLE_BLACK_CARD = "bold grey11 on grey93"
STYLE_JOKER = "bold magenta on grey93"


def card_text(card: Card) -> Text:
    """One card as a person sees it: Finnish index and suit, hearts/diamonds red."""
    if card.is_joker:
        style = STYLE_JOKER
    elif card.suit in RED_SUITS:
        style = STYLE_RED_CARD
    else:
        style = STYLE_BLACK_CARD
    return Text(card.finnish, style=style)


def hand_text(cards: Iterable[Card]) -> Text:
    """Cards side by side, separated by spaces."""
    return Text(" ").join(card_text(card) for card in cards)


def counted(count: int, word: str, plural: str | None = None) -> str:
    """``1 round``, ``2 rounds``, ``0 coups``.

    >>> counted(1, "round"), counted(3, "round"), counted(2, "person", "people")
    ('1 round', '3 rounds', '2 people')
    """
    return f"{count} {word if count == 1 else plural or word + 's'}"


def money(value: Fraction) -> str:
    return format_amount(value)


def bets_text(wagers: Mapping[str, Fraction]) -> str:
    """``player 10, push 5``."""
    return ", ".join(f"{wager} {money(stake)}" for wager, stake in wagers.items())


class EventRenderer:
    """Turns events into lines, remembering each hand's cards to show it whole.

    One renderer per round: feed it the round's events in order.
    """

    def __init__(self, indent: str = "  ") -> None:
        self.indent = indent
        self.hands: dict[str, list[Card]] = {}
        self.labels: dict[str, str] = {}
        self._width = 7

    def render(self, event: Event) -> Text:
        line = Text(self.indent)
        if isinstance(event, CardDealt):
            cards = self.hands.setdefault(event.hand, [])
            cards.append(event.card)
            label = points_text(event.total)
            if label:
                self.labels[event.hand] = label
            self._width = max(self._width, len(event.hand) + 1)
            line.append(f"{capital(event.hand):<{self._width}}", style="bold")
            line.append_text(hand_text(cards[:-1]))
            if len(cards) > 1:
                line.append(" ")
            line.append_text(card_text(event.card))
            if label:
                line.append(f"  {label}", style="cyan")
        else:
            line.append_text(styled(house_line(event)))
        return line

    def render_all(self, events: Iterable[Event]) -> list[Text]:
        return [self.render(event) for event in events]


def hands_summary(
    hands: Mapping[str, Sequence[Card]], labels: Mapping[str, str], indent: str = "  "
) -> Text:
    """``Player 1♠ 13♦ = 27 (Finnish 27) · Dealer 5♥ 6♣ = hard 11``."""
    text = Text(indent)
    for i, (name, cards) in enumerate(hands.items()):
        if i:
            text.append("  ·  ", style="dim")
        text.append(f"{capital(name)} ", style="bold")
        text.append_text(hand_text(cards))
        label = labels.get(name)
        if label:
            text.append(f" = {label}", style="cyan")
    return text


def bankroll_change(
    before: Fraction, after: Fraction, indent: str = "  ", label: str = "Bankroll"
) -> Text:
    """``Bankroll 1000 → 1015 (+15)`` (``label`` names whose: ``Ann's bankroll``)."""
    net = after - before
    style = "green" if net > 0 else "red" if net < 0 else "yellow"
    text = Text(f"{indent}{label} {money(before)} → ")
    text.append(money(after), style="bold")
    text.append(f" ({signed(net)})", style=style)
    return text


def limits_text(rules: GameRules) -> str:
    """The table limits of a game's rules: ``stakes 10 to 1000 per wager``."""
    table = rules.table
    return f"stakes {money(table.minimum)} to {money(table.maximum)} per wager"


#: The bead plate's mark and colour for each outcome it knows.
BEAD_MARKS: dict[str, tuple[str, str]] = {
    "player": ("P", "bold blue"),
    "banker": ("B", "bold red"),
    "tie": ("T", "bold green"),
}

#: Rows of a bead plate column.
BEAD_ROWS = 6


def has_bead_plate(outcomes: Iterable[str]) -> bool:
    """Does a game with these outcomes keep a bead plate (player, banker, tie)?

    >>> has_bead_plate(("player", "banker", "tie")), has_bead_plate(("player", "dealer", "push"))
    (True, False)
    """
    return all(outcome in BEAD_MARKS for outcome in outcomes)


def bead_plate(
    outcomes: Sequence[str], *, rows: int = BEAD_ROWS, max_columns: int | None = None
) -> Text:
    """The bead plate: one mark per round, top to bottom in columns of ``rows``, left to right.

    ``P`` (blue) player, ``B`` (red) banker, ``T`` (green) tie; ``·`` is a place not
    yet played.  An empty plate is one column of ``·``.  With ``max_columns`` only the
    last columns are shown, after a ``…``.

    >>> print(bead_plate(["player", "banker", "banker", "tie", "player"], rows=3))
    P T
    B P
    B ·
    """
    if rows < 1:
        raise ValueError("rows: a bead plate needs at least one row")
    columns = max(1, math.ceil(len(outcomes) / rows))
    first = 0 if max_columns is None else max(0, columns - max(1, max_columns))
    lines: list[Text] = []
    for row in range(rows):
        line = Text()
        if first:
            line.append("… ", style="dim")
        for column in range(first, columns):
            if column > first:
                line.append(" ")
            index = column * rows + row
            if index < len(outcomes):
                mark, style = BEAD_MARKS.get(outcomes[index], ("?", "bold"))
                line.append(mark, style=style)
            else:
                line.append("·", style="dim")
        lines.append(line)
    return Text("\n").join(lines)


def bead_counts(outcomes: Sequence[str]) -> Text:
    """``P 4 · B 3 · T 1``: how many rounds each outcome took.

    >>> bead_counts(["player", "tie", "player"]).plain
    'P 2 · B 0 · T 1'
    """
    text = Text()
    for i, (outcome, (mark, style)) in enumerate(BEAD_MARKS.items()):
        if i:
            text.append(" · ", style="dim")
        text.append(mark, style=style)
        text.append(f" {outcomes.count(outcome)}")
    return text


def bead_board(
    outcomes: Sequence[str],
    shoe: int | None = None,
    *,
    note: str = "",
    max_columns: int | None = None,
    indent: str = "  ",
) -> Text:
    """The bead plate with its title, counts and an optional note beside its first rows.

    >>> print(bead_board(["banker", "player", "tie"], 2, note="new shoe next"))
      B   Bead plate · shoe 2
      P   P 1 · B 1 · T 1
      T   new shoe next
      ·
      ·
      ·
    """
    title = Text("Bead plate", style="bold")
    if shoe is not None:
        title.append(f" · shoe {shoe}", style="dim")
    beside = [title, bead_counts(outcomes)]
    if note:
        beside.append(Text(note, style="yellow"))
    plate = bead_plate(outcomes, max_columns=max_columns).split("\n")
    width = max(len(line) for line in plate)
    lines: list[Text] = []
    for row, cells in enumerate(plate):
        line = Text(indent)
        line.append_text(cells)
        if row < len(beside):
            line.append(" " * (width - len(cells) + 3))
            line.append_text(beside[row])
        lines.append(line)
    return Text("\n").join(lines)


def games_table(games: Iterable[GameInfo]) -> RichTable:
    """The ``cardroom games`` table: id, name, one line about the game."""
    table = RichTable(title="Games", title_justify="left", show_lines=False)
    table.add_column("id", style="bold cyan", no_wrap=True)
    table.add_column("name", no_wrap=True)
    table.add_column("description")
    for game in games:
        table.add_row(game.id, game.name, game.description)
    return table


def stored_round(
    number: int,
    game: str,
    played_at: datetime,
    balance_before: Fraction,
    balance_after: Fraction,
    record: Mapping[str, Any],
    labels: Mapping[str, str],
    rules_file: str | None = None,
) -> RenderableType:
    """A saved round for ``cardroom history``: every card, decision, wager and payout."""
    header = Text()
    header.append(f"#{number}", style="bold")
    header.append(f"  {game}  ", style="bold cyan")
    header.append(played_at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), style="dim")
    wagers = {str(k): Fraction(str(v)) for k, v in record.get("wagers", {}).items()}
    if wagers:
        header.append(f"  bets: {bets_text(wagers)}")
    if rules_file:
        header.append(f"  rules: {rules_file}", style="dim")
    renderer = EventRenderer()
    lines: list[RenderableType] = [header]
    for data in record.get("events", []):
        try:
            event = event_from_json(data)
        except (KeyError, ValueError, TypeError):
            lines.append(Text(f"  (unreadable event {data!r})", style="red"))
            continue
        lines.append(renderer.render(event))
    shown_labels = dict(renderer.labels)
    shown_labels.update(labels)
    if renderer.hands:
        lines.append(hands_summary(renderer.hands, shown_labels))
    lines.append(bankroll_change(balance_before, balance_after))
    return Group(*lines)


def record_view(
    record: RoundRecord,
    seat: int = 0,
    *,
    number: int | None = None,
    when: datetime | None = None,
    status: str = "finished",
) -> RenderableType:
    """A round's or a coup's record for a person: every card they may see, every decision,
    wager and payout, and how the round ended (a note when it was finished after a stop).

    A chemin de fer coup is shown as ``seat`` saw it: their own cards, the backs of the
    others' until the hands were shown.
    """
    header = Text()
    if number is not None:
        header.append(f"#{number}  ", style="bold")
    header.append(record.game, style="bold cyan")
    if when is not None:
        header.append("  " + when.astimezone().strftime("%Y-%m-%d %H:%M:%S"), style="dim")
    lines: list[RenderableType] = [header]
    if record.start:  # a coup: as its person saw it
        names = list(record.seats)
        you = seat if 0 <= seat < len(names) and names[seat] == "You" else None
        coup = int(record.start.get("coup", 0))
        header.append(f"  coup {coup}")
        if 0 <= seat < len(names):
            header.append(f" · {names[seat]}, seat {seat + 1}")
        renderer = ChemmyRenderer(names, you=you)
        renderer.banker = record.start.get("banker")
        for entry in visible([CoupEvent(coup, e) for e in record.events], seat):
            lines.append(renderer.render(entry))
        net = record.net(seat)
        label = "Your" if you is not None else f"{names[seat]}'s" if names else "The"
        text = Text(f"  {label} net on the coup: ")
        text.append(signed(net), style="green" if net > 0 else "red" if net < 0 else "yellow")
        lines.append(text)
    else:
        stakes = record.staked(seat)
        if stakes:
            header.append(f"  bets: {bets_text(stakes)}")
        renderer_house = EventRenderer()
        for event in record.events:
            lines.append(renderer_house.render(event))
        if renderer_house.hands:
            lines.append(hands_summary(renderer_house.hands, renderer_house.labels))
        net = record.net(seat)
        text = Text("  Net ")
        text.append(signed(net), style="green" if net > 0 else "red" if net < 0 else "yellow")
        staked = sum(stakes.values(), Fraction(0))
        text.append(f" (staked {money(staked)}, paid back {money(staked + net)})", style="dim")
        lines.append(text)
    if status == "void":
        lines.append(Text("  The round is void: its stakes were returned.", style="yellow"))
    for note in record.notes:
        lines.append(Text(f"  Note: {note}.", style="yellow"))
    return Group(*lines)


def stored_bankroll_change(
    number: int, played_at: datetime, before: Fraction, after: Fraction, change: str
) -> Text:
    """A history entry that set or reset the bankroll (``cardroom bankroll``)."""
    line = Text()
    line.append(f"#{number}", style="bold")
    line.append("  bankroll  ", style="bold cyan")
    line.append(played_at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), style="dim")
    what = "reset" if change == "reset" else "set"
    line.append(f"  {what} (cardroom bankroll --{what})\n")
    line.append_text(bankroll_change(before, after))
    return line


# -- chemin de fer -----------------------------------------------------------------------------
#: How a card a person may not see is shown (the back of a card).
CARD_BACK = "[?]"
STYLE_CARD_BACK = "bold blue on grey93"


def card_or_back(card: Card | None) -> Text:
    """A card, or its back (:data:`CARD_BACK`) where it is face down and not yours to see."""
    return Text(CARD_BACK, style=STYLE_CARD_BACK) if card is None else card_text(card)


class ChemmyRenderer:
    """Shows chemin de fer events, as one seat may see them, as lines: the words are
    :class:`~cardroom.games.chemin_de_fer.words.ChemmyNarrator`'s; a hand's card shows the
    hand whole as it grows,
    a face-down card the viewer may not see (an event whose card is None) as
    :data:`CARD_BACK`.  One renderer per coup, fed in order.

    >>> from cardroom.core.events import BancoCalled
    >>> r = ChemmyRenderer(("You", "Henri"), you=0)
    >>> print(r.render(BankPut(1, Fraction(30))).plain)
      Henri puts up a bank of 30
    >>> print(r.render(BancoCalled(0, Fraction(30))).plain)
      You call "Banco!": you cover the whole bank of 30
    >>> print(r.render(HandCard("player", 0, Card.parse("Kh"), False)).plain)
      Player (You)    13♥
    >>> print(r.render(HandCard("banker", 1, None, False)).plain)
      Banker (Henri)  [?]
    """

    def __init__(self, names: Sequence[str], you: int | None = None, indent: str = "  ") -> None:
        self.narrator = ChemmyNarrator(names, you)
        self.names = tuple(names)
        self.you = you
        self.indent = indent
        self.hands: dict[str, list[Card | None]] = {}
        self._width = max(len(f"Banker ({name})") for name in ("You", *self.names)) + 2

    @property
    def banker(self) -> int | None:
        return self.narrator.banker

    @banker.setter
    def banker(self, seat: int | None) -> None:
        self.narrator.banker = seat

    def who(self, seat: int, *, start: bool = True) -> str:
        """The seat's name; ``You`` (``you`` inside a sentence) for the person's own."""
        return self.narrator.who(seat, start=start)

    def whose(self, seat: int) -> str:
        return self.narrator.whose(seat)

    def does(self, seat: int, third: str, second: str) -> str:
        """``Henri draws`` / ``You draw``: the seat and its verb."""
        return self.narrator.does(seat, third, second)

    def hand_label(self, hand: str, seat: int) -> Text:
        return Text(f"{capital(hand)} ({self.who(seat)})".ljust(self._width), style="bold")

    def render(self, event: ChemmyEvent | CoupEvent) -> Text:
        if isinstance(event, CoupEvent):
            event = event.event
        line = Text(self.indent)
        if isinstance(event, HandCard):
            line.append_text(self._hand_card(event))
            return line
        if isinstance(event, BankPut):
            self.hands = {}
        line.append_text(styled(self.narrator.line(event)))
        return line

    def render_all(self, events: Iterable[ChemmyEvent | CoupEvent]) -> list[Text]:
        return [self.render(event) for event in events]

    def _hand_card(self, event: HandCard) -> Text:
        cards = self.hands.setdefault(event.hand, [])
        cards.append(event.card)
        text = self.hand_label(event.hand, event.seat)
        text.append_text(Text(" ").join(card_or_back(card) for card in cards))
        if event.total is not None:
            text.append(f"  {points_text(event.total)}", style=STYLES[Tone.TOTAL])
        return text


def stacks_text(
    names: Sequence[str],
    stacks: Sequence[Fraction],
    banker: int | None = None,
    you: int | None = None,
    indent: str = "  ",
) -> Text:
    """``Stacks: You 1030 · Henri 970 (bank) · Sylvie 1000``.

    >>> stacks_text(("You", "Henri"), (Fraction(1030), Fraction(970)), banker=1, you=0).plain
    '  Stacks: You 1030 · Henri 970 (bank)'
    """
    text = Text(f"{indent}Stacks: ", style="bold")
    for seat, (name, stack) in enumerate(zip(names, stacks, strict=True)):
        if seat:
            text.append(" · ", style="dim")
        text.append(f"{'You' if seat == you else name} {money(stack)}")
        if seat == banker:
            text.append(" (bank)", style="dim")
    return text


def stored_coup(
    number: int,
    played_at: datetime,
    balance_before: Fraction,
    balance_after: Fraction,
    record: Mapping[str, Any],
    rules_file: str | None = None,
) -> RenderableType:
    """A saved chemin de fer coup for ``cardroom history``, as its person saw it: their
    own cards, the backs of the others' until the hands were shown, and their net."""
    names = [str(name) for name in record.get("names", [])]
    raw_seat = record.get("seat")
    seat = raw_seat if isinstance(raw_seat, int) and 0 <= raw_seat < len(names) else None
    you = seat if seat is not None and names[seat] == "You" else None
    header = Text()
    header.append(f"#{number}", style="bold")
    header.append(f"  {record.get('game', seats_game().id)}  ", style="bold cyan")
    header.append(played_at.astimezone().strftime("%Y-%m-%d %H:%M:%S"), style="dim")
    header.append(f"  coup {record.get('coup', '?')}")
    if seat is not None:
        header.append(f" · {names[seat]}, seat {seat + 1}")
    if rules_file:
        header.append(f"  rules: {rules_file}", style="dim")
    lines: list[RenderableType] = [header]
    renderer = ChemmyRenderer(names, you=you)
    for data in record.get("events", []):
        try:
            entry = coup_event_from_json(data)
            lines.append(renderer.render(entry))
        except (KeyError, ValueError, TypeError, IndexError):
            lines.append(Text(f"  (unreadable event {data!r})", style="red"))
    stacks = record.get("stacks")
    if isinstance(stacks, list) and len(stacks) == len(names):
        amounts = [Fraction(str(stack)) for stack in stacks]
        lines.append(stacks_text(names, amounts, you=you))
    lines.append(bankroll_change(balance_before, balance_after))
    return Group(*lines)
