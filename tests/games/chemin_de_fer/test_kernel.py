"""The chemin de fer kernel against the engine's seated session, coup by coup.

The session (two seats, both the equilibrium bot) is dealt the kernel's shoes through a
replaying shuffler and makes its mixed decisions with a generator that replays the
kernel's decision stream, so the two must agree on every coup: the outcome, both totals,
and each side's net result per unit staked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import cast

import numpy as np
import pytest

from cardroom.app.runner import exact_means, run
from cardroom.core.events import BankPut, DrawTie, HandShown, Outcome, PlayerChosen, SeatSettled
from cardroom.core.shoe import Shoe
from cardroom.games.baccarat import card_with_value
from cardroom.games.chemin_de_fer import ChemmyAction, ChemmyGame, ChemmyRules, ChemmySession
from cardroom.games.chemin_de_fer.analysis import (
    EquilibriumBot,
    bot_values,
    equilibrium_bot,
    solve_shoe,
    value_counts,
)
from cardroom.games.chemin_de_fer.kernel import DRAW, STAND, ChemmyKernel, threshold
from cardroom.simulation.prng import batch_state, jumped, shuffled_orders, uniform_ticks
from tests.games.test_kernels import Replay

OUTCOMES = ("player", "banker", "tie")


class ReplayedUniforms:
    """Stands in for the bots' ``np.random.Generator``: ``random()`` gives ``k / 2**53``
    for the kernel's successive 53-bit numbers ``k``."""

    def __init__(self, ticks: np.ndarray) -> None:
        self.ticks: Iterator[np.int64] = iter(ticks)
        self.used = 0

    def random(self) -> float:
        self.used += 1
        return int(next(self.ticks)) / 2**53


@lru_cache(maxsize=4)
def bot_for(rules: ChemmyRules) -> EquilibriumBot:
    return equilibrium_bot(rules)


def play_against_engine(rules: ChemmyRules, coups: int, seed: int) -> tuple[int, int]:
    """Play ``coups`` coups both ways and demand identical results; returns the number
    of mixed decisions the engine's bots made and of ties in the draw for the bank (so
    a test can see both were exercised)."""
    kernel = ChemmyKernel(rules)
    state = batch_state(seed, 3)
    result, cells = kernel.run(state.copy(), coups, record=True)
    assert result.rounds == coups
    orders = shuffled_orders(state.copy(), rules.shoe.size, result.shoes)
    uniforms = ReplayedUniforms(uniform_ticks(jumped(state), coups))
    seats = [(f"seat {i}", 10**12) for i in range(kernel.seats)]
    game = ChemmyGame(rules, seats)
    bot = bot_for(rules)
    rng = cast(np.random.Generator, uniforms)
    bots = dict.fromkeys(range(kernel.seats), bot)
    session = ChemmySession(game, Shoe(rules.shoe, Replay(orders)), bots, rng)
    assert session.advance() is None and game.coup == 1  # the draw for the bank
    net = kernel.cell_nets()
    for i in range(coups):
        start = len(game.log)
        assert session.advance() is None
        events = [entry.event for entry in game.log[start:]]
        shown = {e.hand: e.total for e in events if isinstance(e, HandShown)}
        outcome = next(e.outcome for e in events if isinstance(e, Outcome))
        cell = (OUTCOMES.index(outcome) * 10 + shown["player"]) * 10 + shown["banker"]
        assert cell == cells[i], f"coup {i}: engine {outcome} {shown}, kernel cell {cells[i]}"
        settled = {e.seat: e for e in events if isinstance(e, SeatSettled)}
        banker = settled[next(e.seat for e in events if isinstance(e, BankPut))]
        player = settled[next(e.seat for e in events if isinstance(e, PlayerChosen))]
        assert player.net / player.stake == Fraction(int(net[0, cell]), kernel.unit)
        assert banker.net / banker.stake == Fraction(int(net[1, cell]), kernel.unit)
    assert session.source.shuffles == result.shoes
    ties = sum(isinstance(entry.event, DrawTie) for entry in game.log)
    return uniforms.used, ties


@pytest.mark.parametrize("seed", [2026, pytest.param(2027, marks=pytest.mark.long)])
def test_kernel_plays_the_session_s_coups(seed: int) -> None:
    """12,000 coups of the default game, and 12,000 more from another seed in make
    test-long: the same outcome, totals and nets."""
    mixed, _ = play_against_engine(ChemmyRules(), 12_000, seed=seed)
    assert mixed > 600  # the player's draw at 5 is mixed, and more


def test_kernel_plays_a_variant_as_the_session_does() -> None:
    """A commission on the banker's wins (nets of 19/20), the banker drawing by the
    casino tableau, at least three seats: the same coups again.  (The draw for the
    bank's ties have their own test below.)"""
    rules = ChemmyRules(
        commission=Fraction(1, 20),
        banker_forced_by_tableau=True,
        min_seats=3,
    )
    assert ChemmyKernel(rules).unit == 20 and ChemmyKernel(rules).seats == 3
    mixed, _ = play_against_engine(rules, 8_000, seed=7)
    assert mixed > 400  # the player still mixes at 5


def test_a_round_limit_reshuffles_as_the_session_does() -> None:
    """A new shuffle every 9 coups: the same coups from the same shuffles."""
    rules = ChemmyRules(shoe=dataclasses.replace(ChemmyRules().shoe, reshuffle_after_rounds=9))
    play_against_engine(rules, 300, seed=11)
    result, _ = ChemmyKernel(rules).run(batch_state(11, 3), 300)
    assert result.shoes == 34


def test_the_draw_for_the_bank_is_dealt_as_the_session_deals_it() -> None:
    """Many games of a few coups at three seats, the Ace high: the draw for the bank
    (and its ties) takes the same cards, so the coups after it agree."""
    rules = ChemmyRules(min_seats=3, ace_high_in_draw=True)
    ties = sum(play_against_engine(rules, 2, seed)[1] for seed in range(250))
    assert ties >= 10


def test_decision_codes() -> None:
    assert threshold(Fraction(0)) == STAND and threshold(Fraction(1)) == DRAW
    assert threshold(Fraction(1, 2)) == 2**52
    third = threshold(Fraction(1, 3))  # the first k with k / 2**53 >= 1/3
    assert Fraction(third - 1, 2**53) < Fraction(1, 3) <= Fraction(third, 2**53)
    _, _, _, player, banker, _ = ChemmyKernel(ChemmyRules()).tables()
    solution = solve_shoe(ChemmyRules())
    assert list(player[:5]) == [DRAW] * 5 and list(player[6:8]) == [STAND] * 2
    assert player[5] == threshold(solution.player_draw_at_5)
    for (key, third_value), chance in solution.banker.items():
        assert isinstance(key, tuple)
        column = 10 if third_value is None else third_value
        assert banker[key[0], key[1], column] == threshold(chance)
        assert banker[key[1], key[0], column] == threshold(chance)  # either order dealt
    assert any(code > 0 for code in banker.flat)  # the banker does mix somewhere


def test_decision_stream_is_the_jumped_generator() -> None:
    """The kernel's decisions read the batch state jumped 2**128 ahead: golden values
    from the reference C code of xoshiro256** (state 1, 2, 3, 4)."""
    state = np.array([1, 2, 3, 4], np.uint64)
    assert [int(t) for t in uniform_ticks(state.copy(), 3)] == [
        11520 >> 11,
        0,
        1509978240 >> 11,
    ]
    uniform_ticks(state, 3)
    assert [int(w) for w in jumped(state)] == [
        9087704859701656341,
        12008401286956209623,
        630758442362283606,
        7690202542619134164,
    ]


@pytest.mark.parametrize(
    "rules",
    [ChemmyRules(), ChemmyRules(commission=Fraction(1, 20), banker_forced_by_tableau=True)],
)
def test_simulation_agrees_with_the_exact_values(rules: ChemmyRules) -> None:
    """Each side's mean within 4 standard errors of the exact value of what the bots play
    (off the top of a full shoe)."""
    exact = exact_means("chemin-de-fer", rules)
    banker, player = bot_values(rules)
    assert exact == {"player": player, "banker": banker}
    if not rules.commission:
        assert banker == -player == solve_shoe(rules).value
    result = run("chemin-de-fer", rules, 600_000, seed=5)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, exact[wager])
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)
    shares = result.outcomes / result.rounds
    assert 0.09 < shares[2] < 0.1 and shares[1] > shares[0]


def enumerated_values(rules: ChemmyRules, player_draw: Fraction) -> tuple[Fraction, Fraction]:
    """(banker's, player's) expectation when the banker draws by the casino tableau and
    the player draws at his free total with chance ``player_draw``: every sequence of
    six card values (player, banker, player, banker, then the third cards), weighted by
    its number of ordered draws from the rules' full shoe, counted with NumPy."""
    counts = np.array(value_counts(rules.shoe.decks), np.int64)
    cards = np.array(list(product(range(10), repeat=6)), np.int64)
    rows = np.arange(len(cards))
    ways = np.ones(len(cards), np.int64)
    taken = np.zeros((len(cards), 10), np.int64)
    for k in range(6):
        ways *= np.maximum(counts[cards[:, k]] - taken[rows, cards[:, k]], 0)
        taken[rows, cards[:, k]] += 1
    player = (cards[:, 0] + cards[:, 2]) % 10
    banker = (cards[:, 1] + cards[:, 3]) % 10
    natural = np.array([rules.is_natural(t) for t in range(10)])[player]
    natural |= np.array([rules.is_natural(t) for t in range(10)])[banker]
    seen = [card_with_value(t) for t in range(10)] + [None]  # 10: the player stood
    tableau = np.array([[rules.tableau.banker_draws(b, c) for c in seen] for b in range(10)])
    rule = [rules.player_rule(t)[0] for t in range(10)]
    must = np.array([r is ChemmyAction.DRAW for r in rule])[player]
    free = np.array([r is None for r in rule])[player]

    def wins(draws: np.ndarray) -> tuple[int, int]:
        draws &= ~natural
        third = np.where(draws, cards[:, 4], 10)
        final_player = np.where(draws, (player + cards[:, 4]) % 10, player)
        banker_draws = tableau[banker, third] & ~natural
        banker_card = np.where(draws, cards[:, 5], cards[:, 4])
        final_banker = np.where(banker_draws, (banker + banker_card) % 10, banker)
        return (
            int(ways[final_player > final_banker].sum()),
            int(ways[final_banker > final_player].sum()),
        )

    stand_p, stand_b = wins(must.copy())
    draw_p, draw_b = wins(must | free)
    total = int(ways.sum())
    player_wins = (1 - player_draw) * stand_p + player_draw * draw_p
    banker_wins = (1 - player_draw) * stand_b + player_draw * draw_b
    return (
        ((1 - rules.commission) * banker_wins - player_wins) / total,
        (player_wins - banker_wins) / total,
    )


@pytest.mark.parametrize("commission", [Fraction(0), Fraction(1, 20)])
def test_bot_values_under_the_casino_tableau_match_a_plain_count(commission: Fraction) -> None:
    """The exact figure ``simulate`` shows when the banker draws by the tableau: the
    solver's lines played with the tableau equal a count over every card sequence; it is
    not the free banker's value."""
    rules = ChemmyRules(commission=commission, banker_forced_by_tableau=True)
    solution = solve_shoe(rules)
    values = bot_values(rules)
    assert values == enumerated_values(rules, solution.player_draw_at_5)
    assert values != (solution.value, solution.player_value)


def test_results_do_not_depend_on_workers() -> None:
    """Each batch's decision stream comes from the batch's own state: the same sums
    with one worker or two."""
    rules = ChemmyRules()
    one = run("chemin-de-fer", rules, 2_200_000, seed=6, workers=1)
    two = run("chemin-de-fer", rules, 2_200_000, seed=6, workers=2)
    assert list(one.outcomes) == list(two.outcomes)
    assert list(one.net) == list(two.net) and list(one.net_squared) == list(two.net_squared)


if __name__ == "__main__":
    import time

    t = time.time()
    print(play_against_engine(ChemmyRules(), 20_000, seed=1), time.time() - t)
