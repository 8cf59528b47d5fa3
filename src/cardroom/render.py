"""How cards, events, rounds and tables are shown to a person (Rich renderables).

Everything here is generic over the games: a hand is shown by its name, a card by
its Finnish index (``13♥``, ``1♠``, ``Joker``), money exactly with
:func:`~cardroom.money.format_amount`.  Nothing here prints: the CLI decides where
the text goes.

>>> from cardroom.cards import parse_cards
>>> hand_text(parse_cards("As Kh Jo")).plain
'1♠ 13♥ Joker'
>>> signed(Fraction(15)), signed(Fraction(-10)), signed(Fraction(0))
('+15', '-10', '±0')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from fractions import Fraction
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from cardroom.cards import Card, Suit
from cardroom.events import (
    CardDealt,
    Decision,
    Event,
    Outcome,
    Reshuffled,
    Settled,
    event_from_dict,
)
from cardroom.games import GameInfo
from cardroom.money import format_amount

RED_SUITS = frozenset({Suit.HEARTS, Suit.DIAMONDS})

#: Outcomes that are nobody's win (others read "<Outcome> wins").
NO_WINNER = frozenset({"push", "tie"})

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


def hand_name(name: str) -> str:
    """``player`` -> ``Player``."""
    return name[:1].upper() + name[1:]


def money(value: Fraction) -> str:
    return format_amount(value)


def signed(value: Fraction) -> str:
    """A result with its sign: ``+15``, ``-10``, ``±0``."""
    if value > 0:
        return f"+{format_amount(value)}"
    if value < 0:
        return format_amount(value)
    return "±0"


def outcome_title(outcome: str) -> str:
    """``player`` -> ``Player wins``; ``push`` -> ``Push``."""
    if outcome in NO_WINNER:
        return hand_name(outcome)
    return f"{hand_name(outcome)} wins"


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
            if event.total:
                self.labels[event.hand] = event.total
            self._width = max(self._width, len(event.hand) + 1)
            line.append(f"{hand_name(event.hand):<{self._width}}", style="bold")
            line.append_text(hand_text(cards[:-1]))
            if len(cards) > 1:
                line.append(" ")
            line.append_text(card_text(event.card))
            if event.total:
                line.append(f"  {event.total}", style="cyan")
        elif isinstance(event, Decision):
            verb = {"hit": "hits", "stand": "stands"}.get(str(event.action), str(event.action))
            if event.forced:
                line.append(f"{hand_name(event.hand)} {verb}", style="italic")
                if event.reason:
                    line.append(f": {event.reason}", style="dim")
            else:
                line.append(f"{hand_name(event.hand)} {verb}", style="bold italic")
                line.append(" (chosen", style="dim")
                line.append(f"; {event.reason})" if event.reason else ")", style="dim")
        elif isinstance(event, Reshuffled):
            line.append_text(reshuffle_text(event))
        elif isinstance(event, Outcome):
            line.append(outcome_title(event.outcome), style="bold")
            if event.reason:
                line.append(f": {event.reason}")
        elif isinstance(event, Settled):
            line.append_text(settlement_text(event))
        else:  # pragma: no cover - every event kind is handled above
            line.append(str(event))
        return line

    def render_all(self, events: Iterable[Event]) -> list[Text]:
        return [self.render(event) for event in events]


def reshuffle_text(event: Reshuffled) -> Text:
    """``The shoe is reshuffled (reshuffle point reached)``: loud, a person must see it."""
    verb = "shuffled" if event.shoe == 1 and event.reason == "new shoe" else "reshuffled"
    text = Text(f"⟳ The shoe is {verb}", style="bold yellow")
    text.append(f" ({event.reason}; shoe {event.shoe})", style="yellow")
    return text


def settlement_text(event: Settled) -> Text:
    """``bet on player 10: +15 (player pays 1:1)``, green for a win, red for a loss."""
    style = "green" if event.net > 0 else "red" if event.net < 0 else "yellow"
    text = Text(f"Bet on {event.wager} {money(event.stake)}: ")
    text.append(signed(event.net), style=f"bold {style}")
    if event.note:
        text.append(f" ({event.note})", style="dim")
    return text


def hands_summary(
    hands: Mapping[str, Sequence[Card]], labels: Mapping[str, str], indent: str = "  "
) -> Text:
    """``Player 1♠ 13♦ = 27 (Finnish 27) · Dealer 5♥ 6♣ = hard 11``."""
    text = Text(indent)
    for i, (name, cards) in enumerate(hands.items()):
        if i:
            text.append("  ·  ", style="dim")
        text.append(f"{hand_name(name)} ", style="bold")
        text.append_text(hand_text(cards))
        label = labels.get(name)
        if label:
            text.append(f" = {label}", style="cyan")
    return text


def bankroll_change(before: Fraction, after: Fraction, indent: str = "  ") -> Text:
    """``Bankroll 1000 → 1015 (+15)``."""
    net = after - before
    style = "green" if net > 0 else "red" if net < 0 else "yellow"
    text = Text(f"{indent}Bankroll {money(before)} → ")
    text.append(money(after), style="bold")
    text.append(f" ({signed(net)})", style=style)
    return text


def limits_text(rules: Any) -> str:
    """The table limits of a game's rules: ``stakes 10 to 1000 per wager``."""
    table = rules.table
    return f"stakes {money(table.minimum)} to {money(table.maximum)} per wager"


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
            event = event_from_dict(data)
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
