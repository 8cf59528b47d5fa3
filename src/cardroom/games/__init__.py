"""The games cardroom knows, each with its rules type and engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardroom.core.rules import load_rules_file
from cardroom.games.baccarat import (
    Baccarat27Round,
    PuntoBancoRound,
    baccarat27_rules,
    punto_banco_rules,
)
from cardroom.games.base import PLAYER_SEAT, Action, Replayable, Round
from cardroom.games.chemin_de_fer import ChemmyGame, chemmy_rules
from cardroom.games.finnish27 import Finnish27Round, Finnish27Rules
from cardroom.games.twentyone_24_27 import TableStrategy, TwentyOne2427Round, TwentyOne2427Rules


class UnknownGame(KeyError):
    """A game id cardroom does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class GameInfo:
    """A game's id, a line about it, its default rules and how to start a round."""

    id: str
    name: str
    description: str
    default_rules: Callable[[], Any]
    new_round: Callable[[Any, Mapping[str, Fraction]], Round]
    wager_ids: tuple[str, ...]
    outcomes: tuple[str, ...]
    hands: tuple[str, ...]
    decisions: bool
    #: makes the strategy that plays the player's free decisions where nobody is asked
    #: (the rounds tool, simulations); None for games without player decisions
    player_strategy: Callable[[], Callable[[Round], Action]] | None = None
    #: "house": bettors against the house, one round at a time (a :class:`Round`);
    #: "seats": players against each other at a table of seats (chemin de fer)
    kind: str = "house"
    #: a game between seats: sets a coup up again from the state it started in (the
    #: banker, the stacks...), for a replay; None for a house game (set up from its stakes)
    resume: Callable[[Any, Mapping[str, Any]], Replayable] | None = None

    def replay_state(
        self, rules: Any, stakes: Mapping[int, Mapping[str, Fraction]], start: Mapping[str, Any]
    ) -> Replayable:
        """The state a record replays: a coup from its start, or a round from its stakes."""
        if self.resume is not None:
            return self.resume(rules, start)
        return self.new_round(rules, stakes.get(PLAYER_SEAT, {}))

    def wagers(self, rules: Any) -> tuple[str, ...]:
        """The wager spots under ``rules`` (a variant may offer side wagers)."""
        ids: tuple[str, ...] = getattr(rules, "wager_ids", self.wager_ids)
        return ids

    def load_rules(self, path: str | Path | None = None) -> Any:
        """The default rules, or a variant read from the TOML file ``path``."""
        default = self.default_rules()
        return default if path is None else load_rules_file(default, path)


def _seats_only(rules: Any, wagers: Mapping[str, Fraction]) -> Round:
    raise UnknownGame(
        "chemin-de-fer is played between seats, not against the house: "
        "use `cardroom play chemin-de-fer`"
    )


GAMES: dict[str, GameInfo] = {
    "finnish27": GameInfo(
        id="finnish27",
        name="Finnish 27 (baccarat-like)",
        description="Bet on player, dealer or push; fixed play to 27, Jokers make 27, "
        "poker bonus with Jokers wild",
        default_rules=Finnish27Rules,
        new_round=lambda rules, wagers: Finnish27Round(rules, wagers),
        wager_ids=Finnish27Round.wager_ids,
        outcomes=("player", "dealer", "push"),
        hands=("player", "dealer"),
        decisions=False,
    ),
    "21-24-27": GameInfo(
        id="21-24-27",
        name="21-24-27",
        description="Finnish 27 against the dealer: you hit or stand where the rules let "
        "you choose; Jokers count 0",
        default_rules=TwentyOne2427Rules,
        new_round=lambda rules, wagers: TwentyOne2427Round(rules, wagers),
        wager_ids=TwentyOne2427Round.wager_ids,
        outcomes=("player", "dealer", "push"),
        hands=("player", "dealer"),
        decisions=True,
        player_strategy=lambda: TableStrategy().play,
    ),
    "punto-banco": GameInfo(
        id="punto-banco",
        name="Punto banco",
        description="Casino baccarat: bet on player 1:1, banker 19:20 or tie 8:1; "
        "the tableau draws",
        default_rules=punto_banco_rules,
        new_round=lambda rules, wagers: PuntoBancoRound(rules, wagers),
        wager_ids=punto_banco_rules().wager_ids,
        outcomes=("player", "banker", "tie"),
        hands=("player", "banker"),
        decisions=False,
    ),
    "baccarat27": GameInfo(
        id="baccarat27",
        name="Baccarat 27",
        description="Punto banco without commission: banker pays 2:1 on a 2 and 1:2 on a 7; "
        "pairs 11:1, B-27 8:1",
        default_rules=baccarat27_rules,
        new_round=lambda rules, wagers: Baccarat27Round(rules, wagers),
        wager_ids=baccarat27_rules().wager_ids,
        outcomes=("player", "banker", "tie"),
        hands=("player", "banker"),
        decisions=False,
    ),
    "chemin-de-fer": GameInfo(
        id="chemin-de-fer",
        name="Chemin de fer",
        description='Baccarat between players: a rotating bank, "Banco", a choice at 5 '
        "and a free banker",
        default_rules=chemmy_rules,
        new_round=_seats_only,
        wager_ids=("stake",),
        outcomes=("player", "banker", "tie"),
        hands=("player", "banker"),
        decisions=True,
        kind="seats",
        resume=lambda rules, start: ChemmyGame.resume(rules, start),
    ),
}


def house_games() -> list[GameInfo]:
    """The games played one round at a time against the house (all but chemin de fer)."""
    return [game for game in GAMES.values() if game.kind == "house"]


def get_game(game_id: str) -> GameInfo:
    """The game with id ``game_id``, or :class:`UnknownGame` naming the ones there are."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}: cardroom knows {', '.join(GAMES)}") from None
