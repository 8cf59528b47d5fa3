"""A game's description: everything the other floors ask of a game, in one typed record.

The terminal, the web, the simulator and the analyser loop over these descriptions
(:data:`cardroom.games.GAMES`) instead of branching on rules types or game ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from cardroom.core.cards import Rank
from cardroom.core.rules import load_rules_file
from cardroom.games.base import PLAYER_SEAT, Action, Bets, GameRules, Replayable, Round
from cardroom.games.disclosure import PayRow, RulesText
from cardroom.games.phrases import NO_WORDS, Template

if TYPE_CHECKING:  # (a game's description stays free of NumPy and Numba)
    from cardroom.analysis.report import GameReport
    from cardroom.simulation.kernel import Kernel

__all__ = [
    "Analysis",
    "AnalysisAsk",
    "BotsPlay",
    "GameSpec",
    "R",
    "SeatedTable",
    "SeatsRules",
    "Solution",
    "StrategyAsk",
    "UnknownGame",
]

#: a game's rules type
R = TypeVar("R", bound=GameRules)


@dataclass(frozen=True)
class AnalysisAsk:
    """What an exact analysis is asked for: the shoe (``decks`` overrides the rules'; the
    real shoe, or with ``infinite`` cards drawn with replacement), the player's
    ``strategy``, finnish27's ``table_min`` and ``stake`` (for its flat bonuses), and the
    effects of removal.  A game refuses what it cannot count with a ValueError naming
    the option, never a wrong figure."""

    decks: int | None = None
    infinite: bool = False
    strategy: str = "basic"
    table_min: Fraction | None = None
    stake: Fraction | None = None
    effects: bool = False


@dataclass(frozen=True)
class Analysis:
    """An exact analysis: the report (a :class:`cardroom.analysis.report.GameReport`),
    and when asked each wager's effects of removal by rank, with the model said."""

    report: GameReport
    effects: Mapping[str, Mapping[Rank, Fraction]] | None = None
    effects_note: str | None = None


class Solution(Protocol):
    """A game's best play, worked out (a strategy comparison, or a game between two sides
    solved): what it is as JSON; the floors above draw it from its own fields."""

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class StrategyAsk:
    """What a strategy is asked for: the shoe (``decks``; ``infinite``: with replacement)
    and, between two deciding sides, whether the banker sees only his total."""

    decks: int | None = None
    infinite: bool = False
    total_only: bool = False


#: the words of a game whose wagers' ids read well with spaces
NO_NAMES: Mapping[str, str] = MappingProxyType({})


class SeatsRules(GameRules, Protocol):
    """What the floors above read of a game between seats' rules (its table in
    ``app/tables/``, its live page in ``web/``, its screen in ``terminal/``), beside every
    game's shoe and table limits; the rest they hand back to the game's description."""

    @property
    def min_seats(self) -> int: ...

    @property
    def max_seats(self) -> int: ...

    @property
    def banker_forced_by_tableau(self) -> bool: ...


@dataclass(frozen=True)
class BotsPlay:
    """How the bots at the web's tables of a game between seats draw, as its rules page
    tells it: the totals where the player may choose (in words, "5"), whether the bots
    always draw there, and where the rules let the banker choose, the tableau the bots'
    banker follows (a table: title, header, rows) and the total below which he draws
    when the player stood."""

    free: str
    always_draw: bool
    tableau: tuple[str, list[str], list[list[str]]] | None
    draws_below_when_stood: int | None


@dataclass(frozen=True)
class SeatedTable(Generic[R]):
    """What a table of seats, its live page and its screen ask of a game between seats
    (chemin de fer).  The engine and the bots it makes are the game's own types (typed
    loosely here, so that this module names no game's): the callers name them."""

    #: the engine of a new game: the rules, each seat's (name, stack), the empty seats, and
    #: the number of the table's last coup before it (0: none; the game numbers on from it)
    new_game: Callable[[R, Sequence[tuple[str, Fraction]], Iterable[int], int], Any]
    #: the engine set up again at the start of a coup (its ``coup_start()``), to finish it
    resume: Callable[[R, Mapping[str, Any]], Any]
    #: the bot that plays the solved game under the rules (a person's absent policy, the
    #: terminal's bots), staking as the money policy says (None: its own)
    solved_bot: Callable[[R, Any], Any]
    #: the bot that holds a seat at the web's tables under the rules
    table_bot: Callable[[R], Any]
    #: the solved coup the rules page shows (a ValueError: rules the analyser does not solve)
    solve: Callable[[R], Any]
    #: how :attr:`table_bot` draws, for the rules page
    bots_play: Callable[[R], BotsPlay]


class UnknownGame(KeyError):
    """A game id cardroom does not know (or a round it does not deal that way)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class GameSpec(Generic[R]):
    """A game's id, words about it, its default rules and how to start a round; its
    rules page (paytable and sentences); its exact figures and its simulation kernel."""

    id: str
    name: str
    description: str
    default_rules: Callable[[], R]
    #: a new round of these bets at these rules (:class:`WagerError` for bets it refuses)
    new_round: Callable[[R, Bets], Round]
    wager_ids: tuple[str, ...]
    outcomes: tuple[str, ...]
    hands: tuple[str, ...]
    decisions: bool
    #: what each wager pays under the rules, in the order of the wagers
    paytable: Callable[[R], list[PayRow]]
    #: the rules in plain words
    rules_text: Callable[[R], RulesText]
    #: the compiled simulation of the rules, for a strategy ("basic" or "optimal")
    kernel: Callable[[R, str], Kernel]
    #: each wager's exact expected net per unit staked off the top of a full shoe
    #: (rules, strategy, from the real shoe or with replacement)
    exact_means: Callable[[R, str, bool], dict[str, Fraction]]
    #: makes the strategy that plays the player's free decisions where nobody is asked
    #: (the rounds tool, simulations); None for games without player decisions
    player_strategy: Callable[[], Callable[[Round], Action]] | None = None
    #: "house": bettors against the house, one round at a time (a :class:`Round`);
    #: "seats": players against each other at a table of seats (chemin de fer)
    kind: str = "house"
    #: a game between seats: sets a coup up again from the state it started in (the
    #: banker, the stacks...), for a replay; None for a house game (set up from its stakes)
    resume: Callable[[R, Mapping[str, Any]], Replayable] | None = None
    #: the rules type (``default_rules()``'s), to tell a game's rules from another's
    rules_type: type | None = None
    #: the strategies a simulation of the game may play ("basic" always)
    strategies: tuple[str, ...] = ("basic",)
    #: what the exact column beside a simulation is
    exact_note: Callable[[R], str] = lambda rules: (
        "exact: off the top of a full shoe (cardroom analyze)"
    )
    #: the exact analysis of every wager (None: the game has none of that kind; chemin
    #: de fer is solved as a game between two sides, see ``strategy``)
    analyze: Callable[[R, AnalysisAsk], Analysis] | None = None
    #: the best play (a strategy comparison, or a solved game between two sides); None
    #: for a game where nobody decides
    strategy: Callable[[R, StrategyAsk], Solution] | None = None
    #: the game's wagers in words inside a sentence, by id, where its id with spaces
    #: would not do ("B-27"); asked each time, so that a wager added later has its words
    wager_names: Callable[[], Mapping[str, str]] = lambda: NO_NAMES
    #: the options of an analysis only this game takes ("table_min", "stake", "infinite")
    analysis_options: frozenset[str] = frozenset()
    #: checks rules read from a file beyond their ranges (a ValueError saying why), for
    #: what a game needs of them before a table deals (chemin de fer's bots: a solvable coup)
    check: Callable[[R], None] | None = None
    #: a game between seats: its table, its bots and its solved coup (None: a house game)
    seats: SeatedTable[R] | None = None

    #: the sentence of each of the game's own rules, by the rule's id in a ``Why``
    rule_words: Mapping[str, Template] = field(
        default_factory=lambda: NO_WORDS, hash=False, compare=False
    )
    #: the game's named hands and bonuses in words, by key (``jo_jo`` -> ``Jo Jo``)
    hand_names: Mapping[str, str] = field(
        default_factory=lambda: NO_NAMES, hash=False, compare=False
    )

    def seated(self) -> SeatedTable[R]:
        """The game's table of seats (:class:`UnknownGame` for a house game)."""
        if self.seats is None:
            raise UnknownGame(f"{self.id} is played against the house, not between seats")
        return self.seats

    def replay_state(
        self, rules: R, stakes: Mapping[int, Mapping[str, Fraction]], start: Mapping[str, Any]
    ) -> Replayable:
        """The state a record replays: a coup from its start, or a round from its stakes."""
        if self.resume is not None:
            return self.resume(rules, start)
        return self.new_round(rules, stakes.get(PLAYER_SEAT, {}))

    def wagers(self, rules: R) -> tuple[str, ...]:
        """The wager spots under ``rules`` (a variant may offer side wagers)."""
        ids: tuple[str, ...] = getattr(rules, "wager_ids", self.wager_ids)
        return ids

    def load_rules(self, path: str | Path | None = None) -> R:
        """The default rules, or a variant read from the TOML file ``path``."""
        default = self.default_rules()
        return default if path is None else load_rules_file(default, path)

    def plays(self, rules: object) -> bool:
        """Are ``rules`` this game's kind of rules?"""
        kind = self.rules_type or type(self.default_rules())
        return isinstance(rules, kind)
