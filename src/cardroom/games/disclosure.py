"""What every game's rules page says alike: the paytable's rows, the rules as sentences
and tables, and the sentences about the shoe and the limits.  Each game's own words are
in its package (``disclosure`` beside its engine), reached through its game description.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from cardroom.core.money import format_amount, format_odds
from cardroom.core.money import percent_of as percent_of
from cardroom.games.base import GameRules

__all__ = [
    "PayRow",
    "RulesText",
    "limits_sentence",
    "listed",
    "odds_text",
    "percent_of",
    "shoe_sentence",
    "totals_words",
]


@dataclass(frozen=True)
class PayRow:
    """One line of a paytable: the wager, what it pays, and when; ``spot``, what a bet
    spot says in short where the odds alone would mislead (a banker paying otherwise on
    some totals, a bonus)."""

    wager: str
    pays: str
    when: str
    spot: str = ""

    @property
    def on_spot(self) -> str:
        """What the wager pays, as its bet spot says it: ``1:1; 2:1 on a 2, 1:2 on a 7``
        (the banker's winning total)."""
        return self.spot or self.pays


@dataclass(frozen=True)
class RulesText:
    """A game's rules for people: sentences, then tables (a title, a header, rows)."""

    sentences: list[str]
    tables: list[tuple[str, list[str], list[list[str]]]] = field(default_factory=list)


def odds_text(value: Fraction) -> str:
    return format_odds(value)


def shoe_sentence(rules: GameRules, round_word: str = "round") -> str:
    shoe = rules.shoe
    decks = f"{shoe.decks} deck{'s' if shoe.decks != 1 else ''}"
    jokers = (
        f" with {shoe.jokers_per_deck} Joker{'s' if shoe.jokers_per_deck != 1 else ''} each"
        if shoe.jokers_per_deck
        else ""
    )
    if shoe.cut_card is not None:
        when = f"the cut card is {shoe.cut_card} cards from the end"
    else:
        when = f"it is reshuffled once {shoe.reshuffle_after} of its {shoe.size} cards are dealt"
    if shoe.reshuffle_after_rounds:
        limit = shoe.reshuffle_after_rounds
        when += (
            f"; it is also reshuffled once {limit} {round_word}{'s' if limit != 1 else ''} "
            "have been dealt from one shuffle, whichever comes first"
        )
    if not shoe.whole_decks:
        names = ("Aces", *(f"{n}s" for n in range(2, 11)), "Jacks", "Queens", "Kings")
        held = ", ".join(f"{n} {name}" for n, name in zip(shoe.cards_per_rank, names, strict=True))
        jokers_held = shoe.decks * shoe.jokers_per_deck
        decks = f"{held}" + (
            f" and {jokers_held} Joker{'s' if jokers_held != 1 else ''}" if jokers_held else ""
        )
        jokers = ""
    text = f"The shoe holds {decks}{jokers} ({shoe.size} cards); {when}"
    if shoe.burn_by_first_card:
        text += "; after each shuffle the first card is turned and as many burnt as it counts"
    elif shoe.burn:
        text += f"; {shoe.burn} cards are burnt after each shuffle"
    return text + f". A {round_word} in progress is finished before the shoe is reshuffled."


def limits_sentence(rules: GameRules) -> str:
    table = rules.table
    return (
        f"Each wager takes {format_amount(table.minimum)} to {format_amount(table.maximum)}, "
        f"in whole multiples of {format_amount(table.unit)}; payouts are rounded down to "
        f"{format_amount(table.unit)}."
    )


def totals_words(low: int, high: int) -> str:
    """Hand totals ``low`` to ``high`` in words: ``5``, ``6 or 7``, ``0 to 4``."""
    if low == high:
        return str(low)
    if high == low + 1:
        return f"{low} or {high}"
    return f"{low} to {high}"


def listed(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" or {items[-1]}"
