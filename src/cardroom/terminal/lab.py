"""The test lab's ``rounds`` tool: one stacked round per line of standard input, JSON out.

Each line holds card codes in dealing order; every card must be one the game's shoe
holds (no more copies than it has).  The round is played by the engine itself through
the shared turn protocol, the player's free decisions by the game's basic strategy.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardroom.core.cards import Card, CardError, parse_cards
from cardroom.core.events import Decision
from cardroom.core.shoe import ShoeExhausted, check_in_shoe
from cardroom.core.textfile import InputLine, text_lines
from cardroom.games import GameInfo
from cardroom.games.base import CardWanted, GameRules, Round, Turn, check_wagers, play_through
from cardroom.terminal import render
from cardroom.terminal.common import CliError, load_game, person_errors
from cardroom.terminal.prompts import parse_stakes


def round_record(rnd: Round) -> dict[str, Any]:
    """``Round.summary()`` plus the decisions, in a stable key order."""
    data = dict(rnd.summary())
    data["decisions"] = [
        {"hand": e.hand, "action": str(e.action), "forced": e.forced}
        for e in rnd.events
        if isinstance(e, Decision)
    ]
    return data


def run_stacked_round(
    game: GameInfo, rules: GameRules, cards: Sequence[Card], stakes: Mapping[str, Fraction]
) -> Round:
    """Play one round from ``cards``; the player follows the game's strategy.

    Raises :class:`~cardroom.core.shoe.ShoeExhausted` when the cards run out first and
    :class:`CliError` when the game asks for a decision cardroom has no strategy for.
    """
    rnd = game.new_round(rules, stakes)
    strategy = game.player_strategy() if game.player_strategy is not None else None
    deck = iter(cards)

    def draw(wanted: CardWanted) -> Card:
        card = next(deck, None)
        if card is None:
            raise ShoeExhausted("the cards ran out")
        return card

    def decide(turn: Turn) -> tuple[str, Fraction | None]:
        if strategy is None:
            raise CliError(f"{game.id} asks the player to decide and cardroom has no strategy")
        return strategy(rnd).value, None

    play_through(rnd, draw, decide)
    return rnd


def rounds(game_id: str, rules: Path | None, stakes_text: str | None, keep_going: bool) -> None:
    """The ``rounds`` command: read standard input, write one JSON object a line."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        wager_ids = game.wagers(game_rules)
        if stakes_text is None:
            minimum = Fraction(game_rules.table.minimum)
            stakes = {wager: minimum for wager in wager_ids}
        else:
            stakes = parse_stakes(stakes_text, wager_ids, Fraction(game_rules.table.unit))
        stakes = check_wagers(stakes, wager_ids, game_rules.table)
        refused = 0
        for line in text_lines(sys.stdin.buffer):
            try:
                data = {"line": line.number, **lab_round(game, game_rules, line, stakes)}
            except CliError as err:
                if not keep_going:
                    raise
                refused += 1
                data = {"line": line.number, "error": str(err)}
            if data.keys() != {"line"}:
                sys.stdout.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
                sys.stdout.flush()
        if refused:
            lines = render.counted(refused, "line")
            raise CliError(f"{lines} of the input could not be played (see the output)")


def lab_round(
    game: GameInfo, rules: GameRules, line: InputLine, stakes: Mapping[str, Fraction]
) -> dict[str, Any]:
    """The record of the round one input line deals ({} for a blank or comment line);
    :class:`CliError` naming the line when it cannot be played."""
    if line.error is not None:
        raise CliError(line.error)
    text = line.text.partition("#")[0].strip()
    if not text:
        return {}
    try:
        cards = parse_cards(text)
        check_in_shoe(cards, rules.shoe)
        rnd = run_stacked_round(game, rules, cards, stakes)
    except (CardError, CliError) as err:
        raise CliError(f"line {line.number}: {err}") from None
    except ShoeExhausted:
        raise CliError(
            f"line {line.number}: the round needs more cards than the {len(cards)} given"
        ) from None
    return round_record(rnd)
