"""The punto banco kernel (``punto-banco`` and ``baccarat27``).

The kernel's tables come from the engine: card points from
:func:`~cardroom.games.baccarat.card_value`, the draws from the rules'
:class:`~cardroom.games.baccarat.Tableau` methods, and each wager's net result by
outcome, banker total and pairs from the wager itself
(:data:`~cardroom.games.baccarat.wagers.WAGERS`).  The flow of a coup
(deal P B P B, naturals, the player's draw, the banker's) is re-expressed, and
the differential test plays it against the engine on the same shoes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from cardroom.games.baccarat.engine import BaccaratRules, card_value, card_with_value
from cardroom.games.baccarat.wagers import WAGERS, CoupFacts
from cardroom.simulation import ahead
from cardroom.simulation.common import (
    BatchResult,
    ShoeTables,
    card_of,
    count_round,
    counters,
    first_card,
    read_only,
    units,
)
from cardroom.simulation.jit import njit
from cardroom.simulation.prng import shuffle_in_place

__all__ = ["CELL_FACTS", "BaccaratKernel"]

_U64 = np.uint64

OUTCOMES = ("player", "banker", "tie")
#: What a coup's cell holds: a wager that reads anything else cannot be simulated here.
CELL_FACTS = frozenset({"outcome", "banker_total", "player_pair", "banker_pair"})


@dataclass(frozen=True)
class BaccaratKernel:
    """A compiled punto banco game for one set of rules."""

    rules: BaccaratRules
    outcome_names: tuple[str, ...] = OUTCOMES

    @property
    def wager_ids(self) -> tuple[str, ...]:
        return self.rules.wager_ids

    def __post_init__(self) -> None:
        for wager in self.wager_ids:
            beyond = sorted(WAGERS[wager].reads - CELL_FACTS)
            if beyond:
                raise ValueError(
                    f"wager: {wager} reads {', '.join(beyond)}, which the kernel's cells do "
                    "not hold"
                )

    @property
    def unit(self) -> int:
        return units([line.net for w in self.wager_ids for line in WAGERS[w].lines_for(self.rules)])

    def tables(self) -> tuple[np.ndarray, ...]:
        """The shoe's cards as :func:`faces`, naturals, the draws, and each wager's net by
        cell."""
        return _tables(self.rules, self.wager_ids, self.unit)

    def run(
        self,
        state: np.ndarray,
        rounds: int,
        session: int = 0,
        record: bool = False,
    ) -> tuple[BatchResult, np.ndarray]:
        """Play ``rounds`` coups through shoes shuffled from ``state``.

        With ``record``, also return each coup's cell (for the tests).
        """
        faces, naturals, player_draws, banker_draws, net = self.tables()
        shoe = self.rules.shoe
        cells, sessions, rec_cell = counters(net, rounds, session, record)
        played, shoes = ahead.call(
            _play,
            state, faces, naturals, player_draws, banker_draws, net,
            shoe.burn, shoe.burn_by_first_card, shoe.reshuffle_after,
            shoe.reshuffle_after_rounds, rounds, session,
            cells, sessions, record, rec_cell,
        )  # fmt: skip
        return BatchResult.of_cells(
            played, shoes, cells, net, self.cell_outcome(), sessions
        ), rec_cell

    def cell_outcome(self) -> np.ndarray:
        """The outcome (index into outcome_names) of each cell."""
        return np.arange(120, dtype=np.int64) // 40

    def cell_nets(self) -> np.ndarray:
        return self.tables()[-1]


@lru_cache(maxsize=16)
def _tables(rules: BaccaratRules, wager_ids: tuple[str, ...], unit: int) -> tuple[np.ndarray, ...]:
    """The tables of :meth:`BaccaratKernel.tables`, built once per process."""
    tableau = rules.tableau
    # 0/1 flags as integers: the kernel computes with them
    player_draws = np.array([tableau.player_draws(t) for t in range(10)], np.int64)
    banker_draws = np.zeros((10, 11), np.int64)
    naturals = np.array([tableau.is_natural(t) for t in range(10)], np.int64)
    for banker in range(10):
        for third in range(10):
            banker_draws[banker, third] = tableau.banker_draws(banker, card_with_value(third))
        banker_draws[banker, 10] = tableau.banker_draws(banker, None)
    # a coup's cell: ((outcome * 10 + banker total) * 2 + player pair) * 2 + banker pair
    net = np.zeros((len(wager_ids), 120), np.int64)
    for w, wager in enumerate(wager_ids):
        for cell in range(120):
            outcome, rest = divmod(cell, 40)
            total, pairs = divmod(rest, 4)
            ppair, bpair = divmod(pairs, 2)
            value_net = _net(rules, wager, OUTCOMES[outcome], total, bool(ppair), bool(bpair))
            net[w, cell] = int(value_net * unit)
    tables = (faces(ShoeTables.of(rules.shoe).base), naturals, player_draws, banker_draws, net)
    return tuple(read_only(table) for table in tables)


def faces(codes: np.ndarray) -> np.ndarray:
    """What the kernel reads of each card (``codes``: :func:`card_of`'s), one byte:
    its rank (a code // 4, a Joker's 13) times 16, plus its points.

    >>> from cardroom.core.cards import Card
    >>> from cardroom.simulation.common import code_of
    >>> [int(face) for face in faces(np.array([code_of(Card.parse(c)) for c in "7h Ks".split()]))]
    [103, 192]

    The kernel shuffles these: it reads a card's points and rank from the card itself,
    and fills no table of points from the codes after each shuffle (416 reads a shoe):
    10^7 coups on one thread took 0.140 s instead of 0.156 s.  The shuffle moves the
    cards as it moved their codes, so a seed deals what it dealt before.
    """
    points = np.array([card_value(card_of(c)) for c in range(52)] + [0], np.int16)
    ranks = codes.astype(np.int16) // 4
    face: np.ndarray = (ranks * 16 + points[codes]).astype(np.uint8)
    return face


def _net(
    rules: BaccaratRules, wager: str, outcome: str, banker: int, ppair: bool, bpair: bool
) -> Fraction:
    """A wager's net result per unit staked in a cell (a tie's player total is the
    banker's; otherwise the cells do not hold it, and no simulated wager reads it)."""
    coup = CoupFacts(outcome, banker if outcome == "tie" else -1, banker, ppair, bpair)
    return WAGERS[wager].net(rules, coup)


@njit(cache=True)
def _play(
    state: np.ndarray, faces: np.ndarray, naturals: np.ndarray,
    player_draws: np.ndarray, banker_draws: np.ndarray, net: np.ndarray,
    burn: int, burn_by_first_card: bool, reshuffle_after: int, round_limit: int, rounds: int,
    session: int,
    cells: np.ndarray, sessions: np.ndarray, record: bool, rec_cell: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Play ``rounds`` coups; count each coup's cell (outcome, banker total, pairs)."""
    size = faces.shape[0]
    cards = faces.copy()  # each card's rank * 16 + its points (see faces())
    pos = size
    shoes = 0
    played = 0
    in_shoe = 0  # coups begun from this shuffle
    while played < rounds:
        if shoes == 0 or pos >= reshuffle_after or (round_limit and in_shoe >= round_limit):
            shuffle_in_place(state, cards)
            pos = first_card(int(cards[0]) >> 4, size, burn, burn_by_first_card)
            shoes += 1
            in_shoe = 0
        if pos + 6 > size:  # a coup takes at most six cards; the engine never runs out
            break
        in_shoe += 1
        # Written without branches (0/1 flags pick the cards, totals drop 10 by
        # arithmetic): which way a coup goes cannot be predicted, and a chain of table
        # look-ups and mispredicted branches cost more than the coup itself.  The shoe
        # and the tables are read at unsigned indices, which Numba does not test for
        # being negative (a coup took a fifth longer with those tests).
        player = (cards[_U64(pos)] & 15) + (cards[_U64(pos + 2)] & 15)
        player -= 10 * (player >= 10)
        banker = (cards[_U64(pos + 1)] & 15) + (cards[_U64(pos + 3)] & 15)
        banker -= 10 * (banker >= 10)
        play_on = 1 - (naturals[_U64(player)] | naturals[_U64(banker)])
        player_draws_now = play_on & player_draws[_U64(player)]
        fifth = cards[_U64(pos + 4)] & 15
        third = 10 + player_draws_now * (fifth - 10)
        player += player_draws_now * fifth
        player -= 10 * (player >= 10)
        banker_draws_now = play_on & banker_draws[_U64(banker), _U64(third)]
        banker += banker_draws_now * (cards[_U64(pos + 4 + player_draws_now)] & 15)
        banker -= 10 * (banker >= 10)
        player_pair = (cards[_U64(pos)] >> 4) == (cards[_U64(pos + 2)] >> 4)
        banker_pair = (cards[_U64(pos + 1)] >> 4) == (cards[_U64(pos + 3)] >> 4)
        pos += 4 + player_draws_now + banker_draws_now
        outcome = (banker > player) + 2 * (banker == player)
        cell = ((outcome * 10 + banker) * 2 + player_pair) * 2 + banker_pair
        if session or record:
            count_round(cell, played, cells, session, sessions, net, record, rec_cell)
        else:  # (a plain run: the count alone, which compiles to a faster round)
            cells[_U64(cell)] += 1
        played += 1
    return played, shoes
