"""The chemin de fer kernel: a table whose seats all play the equilibrium bot.

What it plays is what a :class:`~cardroom.games.chemin_de_fer.ChemmySession` plays at a
table of two seats (or the fewest the rules allow) whose bots are
:func:`~cardroom.games.chemin_de_fer.analysis.equilibrium_bot` and whose stacks never run
short: one draw for the bank at the start of the game (a card each in seat order, the
seats tied for the highest card drawing again; the cards are discarded), then coups in
which the seat after the banker calls "Banco", so every coup is one stake against one
bank.  Who holds the bank does not change the cards or the play, so the kernel does not
follow it.

Each coup counts in a *cell*: ``(outcome * 10 + player total) * 10 + banker total``.  Two
wagers are reported per unit staked: ``player`` (the punter's side: 1:1) and ``banker``
(the bank's side: 1:1 less the rules' ``commission`` on a win).

The tables come from the engine and the bot: naturals from
:meth:`~cardroom.games.chemin_de_fer.ChemmyRules.is_natural`, the player's forced plays
from :meth:`~cardroom.games.chemin_de_fer.ChemmyRules.player_rule`, the free ones and the
banker's from the bot's :class:`~cardroom.games.chemin_de_fer.analysis.EquilibriumDraws` (or the
rules' tableau when ``banker_forced_by_tableau``).  A mixed decision with chance ``x`` draws
when ``k < ceil(x * 2**53)`` for the next 53-bit number ``k`` of a second xoshiro stream
(the batch's state jumped 2**128 ahead): exactly the bot's ``rng.random() < x`` when its
generator returns ``k / 2**53``, which is how the differential test replays the kernel's
decisions through the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from cardroom.games.baccarat import card_value, card_with_value
from cardroom.games.chemin_de_fer import ChemmyAction, ChemmyRules
from cardroom.games.chemin_de_fer.analysis import equilibrium_bot
from cardroom.simulation import ahead
from cardroom.simulation.common import (
    BatchResult,
    ShoeTables,
    card_of,
    count_round,
    counters,
    new_shoe,
    read_only,
    units,
)
from cardroom.simulation.jit import njit
from cardroom.simulation.prng import jumped, next_u64

__all__ = ["SEATS", "ChemmyKernel", "threshold"]

OUTCOMES = ("player", "banker", "tie")
WAGERS = ("player", "banker")
#: the seats of the simulated table
SEATS = 2
#: the decision tables' codes besides a mixed threshold (> 0)
STAND, DRAW = 0, -1
_TICKS = 1 << 53


def threshold(chance: Fraction) -> int:
    """A draw chance as the kernel's code: STAND, DRAW, or ``ceil(chance * 2**53)``."""
    if chance <= 0:
        return STAND
    if chance >= 1:
        return DRAW
    return -(-chance.numerator * _TICKS // chance.denominator)


@dataclass(frozen=True)
class ChemmyKernel:
    """A compiled chemin de fer table for one set of rules."""

    rules: ChemmyRules
    outcome_names: tuple[str, ...] = OUTCOMES
    wager_ids: tuple[str, ...] = WAGERS

    @property
    def seats(self) -> int:
        """The seats at the simulated table: two, or the fewest the rules allow."""
        return max(SEATS, self.rules.min_seats)

    @property
    def unit(self) -> int:
        return units([Fraction(1), 1 - self.rules.commission])

    def tables(self) -> tuple[np.ndarray, ...]:
        """Card values, ranks in the draw for the bank, naturals, the player's and the
        banker's draw codes, and nets."""
        return _tables(self.rules, self.unit)

    def cell_outcome(self) -> np.ndarray:
        return np.arange(300, dtype=np.int64) // 100

    def cell_nets(self) -> np.ndarray:
        return self.tables()[-1]

    def run(
        self,
        state: np.ndarray,
        rounds: int,
        session: int = 0,
        record: bool = False,
    ) -> tuple[BatchResult, np.ndarray]:
        """Play ``rounds`` coups (after the draw for the bank) from ``state``.

        With ``record``, also return each coup's cell (for the tests).
        """
        value, draw_rank, naturals, player, banker, net = self.tables()
        shoe = ShoeTables.of(self.rules.shoe)
        cells, sessions, rec_cell = counters(net, rounds, session, record)
        played, shoes = ahead.call(
            _play,
            state, jumped(state), shoe.base, value, draw_rank, self.seats, naturals, player,
            banker, net, shoe.burn, shoe.burn_by_first_card, shoe.reshuffle_after,
            self.rules.shoe.reshuffle_after_rounds, rounds, session, cells, sessions, record,
            rec_cell,
        )  # fmt: skip
        result = BatchResult.of_cells(played, shoes, cells, net, self.cell_outcome(), sessions)
        return result, rec_cell


@lru_cache(maxsize=8)
def _tables(rules: ChemmyRules, unit: int) -> tuple[np.ndarray, ...]:
    """The tables of :meth:`ChemmyKernel.tables` (built once per process: the bot is solved)."""
    bot = equilibrium_bot(rules).draws
    value = np.array([card_value(card_of(c)) for c in range(52)], np.int8)
    draw_rank = np.array([rules.draw_rank(card_of(c)) for c in range(52)], np.int8)
    naturals = np.array([rules.is_natural(t) for t in range(10)], np.bool_)
    player = np.zeros(10, np.int64)
    for total in range(10):
        forced, _ = rules.player_rule(total)
        if forced is None:
            player[total] = threshold(bot.player_draw_chance(total))
        else:
            player[total] = DRAW if forced is ChemmyAction.DRAW else STAND
    # the banker: by his two cards' values and the player's third card (10: stood)
    banker = np.zeros((10, 10, 11), np.int64)
    for a in range(10):
        for b in range(10):
            for third in range(11):
                seen = None if third == 10 else third
                if rules.banker_forced_by_tableau:
                    card = None if seen is None else card_with_value(seen)
                    draws = rules.tableau.banker_draws((a + b) % 10, card)
                    banker[a, b, third] = DRAW if draws else STAND
                elif not (rules.is_natural((a + b) % 10)):
                    banker[a, b, third] = threshold(bot.banker_draw_chance((a, b), seen))
    won = int((1 - rules.commission) * unit)
    net = np.zeros((2, 300), np.int64)
    for cell in range(300):
        outcome = cell // 100
        if outcome == 0:
            net[0, cell], net[1, cell] = unit, -unit
        elif outcome == 1:
            net[0, cell], net[1, cell] = -unit, won
    tables = (value, draw_rank, naturals, player, banker, net)
    return tuple(read_only(table) for table in tables)


@njit(inline="always")
def _draws(code: int, decisions: np.ndarray) -> bool:
    """A decision by its code; only a mixed one takes a number from ``decisions``."""
    if code == STAND:
        return False
    if code == DRAW:
        return True
    tick = np.int64(next_u64(decisions) >> np.uint64(11))
    return bool(tick < code)


@njit(cache=True)
def _play(
    state: np.ndarray, decisions: np.ndarray, base: np.ndarray, value: np.ndarray,
    draw_rank: np.ndarray, seats: int, naturals: np.ndarray, player_code: np.ndarray,
    banker_code: np.ndarray, net: np.ndarray, burn: int, burn_by_first_card: bool,
    reshuffle_after: int, round_limit: int, rounds: int, session: int, cells: np.ndarray,
    sessions: np.ndarray, record: bool, rec_cell: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    size = base.shape[0]
    cards = base.copy()
    pos = new_shoe(state, cards, burn, burn_by_first_card)
    shoes = 1
    # the draw for the bank: a card each in seat order; the seats tied for the highest
    # card draw again, only they
    contenders = seats
    while True:
        if pos + contenders > size:
            return 0, shoes
        best = -1
        tied = 0
        for seat in range(contenders):
            rank = draw_rank[cards[pos + seat]]
            if rank > best:
                best = rank
                tied = 1
            elif rank == best:
                tied += 1
        pos += contenders
        if tied == 1:
            break
        contenders = tied
    played = 0
    in_shoe = 0  # coups begun from this shuffle
    while played < rounds:
        if pos >= reshuffle_after or (round_limit and in_shoe >= round_limit):
            pos = new_shoe(state, cards, burn, burn_by_first_card)
            shoes += 1
            in_shoe = 0
        if pos + 6 > size:  # a coup takes at most six cards; the engine never runs out
            break
        in_shoe += 1
        p1 = value[cards[pos]]
        b1 = value[cards[pos + 1]]
        p2 = value[cards[pos + 2]]
        b2 = value[cards[pos + 3]]
        pos += 4
        player = (p1 + p2) % 10
        banker = (b1 + b2) % 10
        if not (naturals[player] or naturals[banker]):
            third = 10
            if _draws(player_code[player], decisions):
                third = value[cards[pos]]
                pos += 1
                player = (player + third) % 10
            if _draws(banker_code[b1, b2, third], decisions):
                banker = (banker + value[cards[pos]]) % 10
                pos += 1
        outcome = 0 if player > banker else (1 if banker > player else 2)
        cell = (outcome * 10 + player) * 10 + banker
        if session or record:
            count_round(cell, played, cells, session, sessions, net, record, rec_cell)
        else:  # (a plain run: the count alone, which compiles to a faster round)
            cells[cell] += 1
        played += 1
    return played, shoes
