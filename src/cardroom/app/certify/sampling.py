"""The shoes a certificate shuffles, and the counting of many shuffles on every core.

Each game's shoe is shuffled ``shuffles`` times by the generator under test (shoes of the
same cards are shuffled once for all their games).  The run is cut into tasks of
consecutive shuffles; each task runs in a worker process with its own shuffler and
returns what it counted: how often each card of the shoe (by its index, the
permutation's value) came at each position, the first two cards' ranks, the first
coup's outcome of each game dealt from that shoe, and the statistics of successive
shoes (serial correlation and runs).  The raw files are written the same way, a slice of
bytes per task.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from cardroom.app.certify.generators import Generator, RandBelow
from cardroom.core.cards import Card, Rank
from cardroom.core.shoe import Shuffler
from cardroom.games import GAMES, GameInfo, get_game
from cardroom.games.base import CardWanted, GameRules, Turn, play_through
from cardroom.games.spec import AnalysisAsk

__all__ = [
    "Coup",
    "ShoeTally",
    "ShoeUnderTest",
    "TaskCounts",
    "game_shoes",
    "raw_bytes",
    "shuffle_shoes",
]

Counts = npt.NDArray[np.int64]

#: the most tasks a shoe's run is cut into (each a group of consecutive shoes)
TASKS = 100
#: the fewest shoes of a task (its successive shoes' z-scores are then near normal)
TASK_SHOES = 200


@dataclass(frozen=True)
class Coup:
    """A game dealt from a shoe under test: its first coup's outcomes against their exact
    probabilities off the top of a full shoe."""

    game_id: str
    rules: GameRules
    outcomes: tuple[str, ...]
    exact: tuple[Fraction, ...]
    model: str


@dataclass(frozen=True)
class ShoeUnderTest:
    """A shoe's cards (in the order a shuffle permutes them), what they are called and
    which games deal from it."""

    label: str
    cards: tuple[Card, ...]
    games: tuple[str, ...] = ()
    coups: tuple[Coup, ...] = ()

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def ranks(self) -> tuple[str, ...]:
        """The shoe's ranks, in the order :meth:`rank_of` numbers them."""
        return tuple(r.value for r in Rank if any(c.rank is r for c in self.cards))

    @property
    def suits(self) -> tuple[str, ...]:
        """The shoe's suits (a Joker's is ``joker``), in the order :meth:`suit_of` numbers."""
        seen: list[str] = []
        for card in self.cards:
            name = _suit(card)
            if name not in seen:
                seen.append(name)
        return tuple(seen)

    def rank_of(self) -> npt.NDArray[np.int64]:
        """Each card index's rank number."""
        ranks = self.ranks
        return np.array([ranks.index(c.rank.value) for c in self.cards], dtype=np.int64)

    def suit_of(self) -> npt.NDArray[np.int64]:
        suits = self.suits
        return np.array([suits.index(_suit(c)) for c in self.cards], dtype=np.int64)


def _suit(card: Card) -> str:
    return "joker" if card.suit is None else card.suit.value


def game_shoes(with_coups: bool = True) -> list[ShoeUnderTest]:
    """Every registered game's shoe at its default rules, one per distinct set of cards,
    with the games dealt from it; ``with_coups``: each house game's first coup and its
    exact outcome probabilities (its own analysis, from the real shoe)."""
    shoes: dict[tuple[Card, ...], list[GameInfo]] = {}
    for game in GAMES.values():
        shoes.setdefault(game.default_rules().shoe.cards(), []).append(game)
    found = []
    for cards, games in shoes.items():
        coups = tuple(_coup(game) for game in games if with_coups and game.analyze is not None)
        label = f"{len(cards)} cards ({', '.join(g.id for g in games)})"
        found.append(ShoeUnderTest(label, cards, tuple(g.id for g in games), coups))
    return sorted(found, key=lambda shoe: shoe.size)


def _coup(game: GameInfo) -> Coup:
    rules = game.default_rules()
    assert game.analyze is not None
    report = game.analyze(rules, AnalysisAsk()).report
    outcomes = tuple(report.outcomes)
    exact = tuple(report.outcomes[o] for o in outcomes)
    return Coup(game.id, rules, outcomes, exact, report.model)


@dataclass
class TaskCounts:
    """What one task of consecutive shuffles counted."""

    shoes: int
    #: [position, card index]: how often that card came at that position
    positions: Counts
    #: [rank of the first card, rank of the second]
    pairs: Counts
    #: per coup of the shoe: each outcome's count
    coups: list[Counts]
    #: the serial correlation of successive shoes, as a z-score (None: too few shoes)
    serial_z: float | None
    #: the runs above and below the middle of the first card's index, as a z-score
    runs_z: float | None


@dataclass
class ShoeTally:
    """A shoe's whole run: the position counts summed per group, every task's counts."""

    shoe: ShoeUnderTest
    shuffles: int
    tasks: list[TaskCounts] = field(default_factory=list)

    @property
    def positions(self) -> Counts:
        """Position by card index over the whole run."""
        total: Counts = np.zeros((self.shoe.size, self.shoe.size), dtype=np.int64)
        for task in self.tasks:
            total += task.positions
        return total

    def position_groups(self, groups: int) -> list[Counts]:
        """Position by card index summed over ``groups`` runs of consecutive tasks."""
        out = []
        for part in np.array_split(np.arange(len(self.tasks)), groups):
            total: Counts = np.zeros((self.shoe.size, self.shoe.size), dtype=np.int64)
            for i in part:
                total += self.tasks[int(i)].positions
            out.append(total)
        return out


def plan(shuffles: int, tasks: int = TASKS) -> list[int]:
    """The sizes of a run's tasks: at most ``tasks`` of them, each of at least
    :data:`TASK_SHOES` shoes where there are so many, as even as can be."""
    count = max(1, min(tasks, shuffles // TASK_SHOES))
    base, extra = divmod(shuffles, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


# -- in the worker ---------------------------------------------------------------------------
_MADE: dict[str, tuple[Shuffler, RandBelow | None]] = {}


def _made(generator: Generator) -> tuple[Shuffler, RandBelow | None]:
    """The worker's own shuffler of ``generator`` (made once per process)."""
    if generator.name not in _MADE:
        _MADE[generator.name] = generator.make()
    return _MADE[generator.name]


def count_shuffles(generator: Generator, shoe: ShoeUnderTest, shoes: int) -> TaskCounts:
    """Shuffle ``shoe`` ``shoes`` times with the worker's shuffler and count."""
    shuffler, _ = _made(generator)
    n = shoe.size
    rank_of = shoe.rank_of()
    ranks = len(shoe.ranks)
    orders = np.empty((shoes, n), dtype=np.int64)
    coup_counts = [np.zeros(len(coup.outcomes), dtype=np.int64) for coup in shoe.coups]
    players = [_Player(coup) for coup in shoe.coups]
    for t in range(shoes):
        order = shuffler.permutation(n)
        orders[t] = order
        for player, counts in zip(players, coup_counts, strict=True):
            counts[player.outcome_index([shoe.cards[i] for i in order])] += 1
    flat = (np.arange(n, dtype=np.int64) * n + orders).ravel()
    positions = np.bincount(flat, minlength=n * n).reshape(n, n)
    pair_flat = rank_of[orders[:, 0]] * ranks + rank_of[orders[:, 1 % n]]
    pairs = np.bincount(pair_flat, minlength=ranks * ranks).reshape(ranks, ranks)
    return TaskCounts(
        shoes, positions, pairs, coup_counts, serial_z(orders), runs_z(orders[:, 0], n)
    )


class _Player:
    """Deals a game's first coup from a shuffled shoe: the player's free decisions by
    the game's own strategy (as the rounds tool plays them), one unit on every wager."""

    def __init__(self, coup: Coup) -> None:
        self.coup = coup
        self.game = get_game(coup.game_id)
        rules = coup.rules
        self.stakes = {w: Fraction(rules.table.minimum) for w in self.game.wagers(rules)}
        maker = self.game.player_strategy
        self.strategy = maker() if maker is not None else None

    def outcome_index(self, cards: Sequence[Card]) -> int:
        rnd = self.game.new_round(self.coup.rules, self.stakes)
        deck = iter(cards)
        strategy = self.strategy

        def draw(wanted: CardWanted) -> Card:
            return next(deck)

        def decide(turn: Turn) -> tuple[str, Fraction | None]:
            assert strategy is not None, "a decision with no strategy"
            return strategy(rnd).value, None

        play_through(rnd, draw, decide)
        assert rnd.outcome is not None
        return self.coup.outcomes.index(rnd.outcome)


def serial_z(orders: npt.NDArray[np.int64]) -> float | None:
    """Successive shoes' correlation as one z-score: the Pearson correlation of each shoe's
    order with the next one's, position by position, summed over the pairs of successive
    shoes and scaled (independent shoes: each correlation has mean 0 and variance
    1/(n-1), and successive ones are uncorrelated, so the z is standard normal)."""
    shoes, n = orders.shape
    if shoes < 2 or n < 2:
        return None
    centred = orders - (n - 1) / 2
    var = (n * n - 1) / 12
    corr = (centred[:-1] * centred[1:]).sum(axis=1) / (n * var)
    return float(corr.sum() * math.sqrt(n - 1) / math.sqrt(shoes - 1))


def runs_z(first: npt.NDArray[np.int64], n: int) -> float | None:
    """The Wald-Wolfowitz runs of successive shoes' first cards above and below the
    middle of the shoe (index ``n // 2`` or more: above), as a z-score conditional on
    the numbers of each."""
    high = first >= n // 2
    ones = int(high.sum())
    zeros = len(high) - ones
    total = ones + zeros
    if ones == 0 or zeros == 0 or total < 3:
        return None
    runs = 1 + int(np.count_nonzero(high[1:] != high[:-1]))
    mean = 2 * ones * zeros / total + 1
    var = 2 * ones * zeros * (2 * ones * zeros - total) / (total * total * (total - 1))
    return float((runs - mean) / math.sqrt(var)) if var > 0 else None


def draw_bytes(generator: Generator, count: int) -> bytes:
    """``count`` bytes, each ``randbelow(256)`` of the worker's generator."""
    _, draw = _made(generator)
    if draw is None:
        raise ValueError(f"{generator.name}: its randbelow cannot be reached")
    return bytes(draw(256) for _ in range(count))


# -- the run ------------------------------------------------------------------------------------
Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def _executor(workers: int) -> Executor:
    if workers <= 1:
        return _InProcess()
    return ProcessPoolExecutor(max_workers=workers)


class _InProcess(Executor):
    """Runs each task at once in this process (one worker: tests, tiny runs)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as err:  # handed back as a pool's future would hand it
            future.set_exception(err)
        return future


def shuffle_shoes(
    generator: Generator,
    shoes: Sequence[ShoeUnderTest],
    shuffles: int,
    workers: int,
    progress: Progress = _quiet,
    raw: tuple[int, int] = (0, 1 << 20),
) -> tuple[list[ShoeTally], Iterator[bytes]]:
    """Shuffle each shoe ``shuffles`` times on ``workers`` processes; ``raw`` asks for
    that many bytes of ``randbelow(256)`` in slices of the second number.  The tallies,
    and the raw bytes in order (an iterator over the slices)."""
    tallies = [ShoeTally(shoe, shuffles) for shoe in shoes]
    total_bytes, slice_size = raw
    with _executor(workers) as pool:
        jobs: list[tuple[ShoeTally, Future[TaskCounts]]] = []
        for tally in tallies:
            for size in plan(shuffles):
                jobs.append((tally, pool.submit(count_shuffles, generator, tally.shoe, size)))
        slices = [
            pool.submit(draw_bytes, generator, min(slice_size, total_bytes - start))
            for start in range(0, total_bytes, slice_size)
        ]
        done: dict[str, int] = {}
        step = max(1, len(jobs) // 20)
        for i, (tally, job) in enumerate(jobs, 1):
            tally.tasks.append(job.result())
            label = tally.shoe.label
            done[label] = done.get(label, 0) + tally.tasks[-1].shoes
            if i % step == 0 or i == len(jobs):
                progress(f"shuffled {done[label]:,} of {shuffles:,} shoes of {label}")
        chunks = []
        for i, piece in enumerate(slices, 1):
            chunks.append(piece.result())
            if i % max(1, len(slices) // 10) == 0 or i == len(slices):
                progress(f"drew {sum(map(len, chunks)):,} of {total_bytes:,} raw bytes")
    return tallies, iter(chunks)


def raw_bytes(generator: Generator, count: int) -> bytes:
    """``count`` bytes of ``randbelow(256)`` in this process (tests)."""
    return draw_bytes(generator, count)


def default_workers() -> int:
    """Every core."""
    return os.cpu_count() or 1
