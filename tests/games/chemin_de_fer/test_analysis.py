"""The exact solution of the chemin de fer coup, checked by independent means.

- The coup's lines (each side's expectation per banker information set and action, as a
  function of the player's chance ``p`` to draw at 5) are recomputed here by two other
  enumerations written for these tests only: from the two-card total distribution for the
  infinite deck, and card by card in dealing order for a shoe.  They must agree exactly.
- The solutions are certified on those independent lines: the banker's every choice is a
  best response to ``p``, the player cannot gain by another ``p``, and (zero-sum) no ``p``
  on a fine grid of fractions does better against a best-responding banker.
- On tiny shoes the engine itself plays every deal (``ChemmyGame``, branching on each card
  and decision) with the solution's strategies and with pure deviations.
- The bots sample mixed decisions at their probability and leave the generator alone for
  pure ones.
"""

from __future__ import annotations

import copy
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pytest

from cardroom.core.cards import Card, Rank, Suit
from cardroom.core.events import Decision, HandShown
from cardroom.core.shoe import SeededShuffler, Shoe, StackedShoe
from cardroom.games import get_game
from cardroom.games.baccarat import STANDARD_TABLEAU, card_value
from cardroom.games.baccarat.analysis import expectations, shoe_composition
from cardroom.games.chemin_de_fer import (
    ChemmyGame,
    ChemmyRules,
    ChemmySession,
    Phase,
    SimpleMoney,
    TableauBot,
)
from cardroom.games.chemin_de_fer.analysis import (
    ChemmySolution,
    EquilibriumBot,
    EquilibriumDraws,
    InfoSet,
    coup_lines,
    equilibrium_bot,
    solution_text,
    solve_counts,
    solve_infinite,
    solve_shoe,
    solve_table,
    value_counts,
)

F = Fraction
V = range(10)
Line = tuple[Fraction, Fraction]
Lines = dict[InfoSet, dict[bool, tuple[Line, Line]]]

# Independent of the module: the published rules of the coup, written out here.
NATURAL = 8  # two-card 8 or 9
RANK_WEIGHT = {v: F(4 if v == 0 else 1, 13) for v in V}  # tens and pictures count 0


@cache
def infinite() -> ChemmySolution:
    return solve_infinite()


@cache
def shoe(decks: int, sees_cards: bool = True) -> ChemmySolution:
    return solve_shoe(ChemmyRules(), decks, banker_sees_cards=sees_cards)


# -- independent enumerations ----------------------------------------------------------------------
def player_options(total: int) -> list[tuple[int, int, bool]]:
    """How the player's total plays: (constant, coefficient of p, draws)."""
    if total <= 4:
        return [(1, 0, True)]
    if total == 5:
        return [(0, 1, True), (1, -1, False)]
    return [(1, 0, False)]


class Tally:
    """Chances each side wins, per information set and banker action, as ``a + b p``."""

    def __init__(self) -> None:
        self.cells: dict[tuple[InfoSet, bool], list[Any]] = defaultdict(lambda: [0, 0, 0, 0])
        self.naturals: list[Any] = [0, 0, 0, 0]

    @staticmethod
    def add(cell: list[Any], c0: int, c1: int, banker: int, player: int, chance: Any) -> None:
        if banker > player:
            cell[0] += c0 * chance
            cell[2] += c1 * chance
        elif player > banker:
            cell[1] += c0 * chance
            cell[3] += c1 * chance

    def lines(self, commission: Fraction, scale: Any = 1) -> tuple[tuple[Line, Line], Lines]:
        def sides(cell: list[Any]) -> tuple[Line, Line]:
            bc, pc, bs, ps = (F(x) / scale for x in cell)
            keep = 1 - commission
            return ((keep * bc - pc, keep * bs - ps), (pc - bc, ps - bs))

        out: Lines = defaultdict(dict)
        for (info, draw), cell in self.cells.items():
            out[info][draw] = sides(cell)
        return sides(self.naturals), dict(out)


def lines_by_totals(commission: Fraction = Fraction(0)) -> tuple[tuple[Line, Line], Lines]:
    """The infinite deck from the two-card total distribution (banker keyed by his total)."""
    two: Counter[int] = Counter()
    for x in V:
        for y in V:
            two[(x + y) % 10] += RANK_WEIGHT[x] * RANK_WEIGHT[y]
    assert sum(two.values()) == 1 and two[0] == F(25, 169) and two[5] == F(16, 169)
    tally = Tally()
    for player in V:
        for banker in V:
            chance = two[player] * two[banker]
            if player >= NATURAL or banker >= NATURAL:
                tally.add(tally.naturals, 1, 0, banker, player, chance)
                continue
            for c0, c1, draws in player_options(player):
                thirds = [(t, RANK_WEIGHT[t]) for t in V] if draws else [(None, F(1))]
                for third, w in thirds:
                    final = player if third is None else (player + third) % 10
                    info = (banker, third)
                    tally.add(tally.cells[(info, False)], c0, c1, banker, final, chance * w)
                    for s in V:
                        ending = (banker + s) % 10
                        tally.add(
                            tally.cells[(info, True)],
                            c0,
                            c1,
                            ending,
                            final,
                            chance * w * RANK_WEIGHT[s],
                        )
    return tally.lines(commission)


@cache
def lines_by_cards(decks: int) -> tuple[tuple[Line, Line], Lines]:
    """A shoe dealt card by card, player-banker-player-banker (banker keyed by his cards)."""
    left = [16 * decks if v == 0 else 4 * decks for v in V]
    n = sum(left)
    tally = Tally()
    for p1 in V:
        w1 = left[p1]
        left[p1] -= 1
        for b1 in V:
            w2 = w1 * left[b1]
            left[b1] -= 1
            for p2 in V:
                w3 = w2 * left[p2]
                left[p2] -= 1
                for b2 in V:
                    w4 = w3 * left[b2]
                    left[b2] -= 1
                    if w4:
                        deal_on(tally, left, n, w4, p1, p2, b1, b2)
                    left[b2] += 1
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1
    return tally.lines(F(0), n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5))


def deal_on(
    tally: Tally, left: list[int], n: int, ways: int, p1: int, p2: int, b1: int, b2: int
) -> None:
    player, banker = (p1 + p2) % 10, (b1 + b2) % 10
    key = (min(b1, b2), max(b1, b2))
    if player >= NATURAL or banker >= NATURAL:
        tally.add(tally.naturals, 1, 0, banker, player, ways * (n - 4) * (n - 5))
        return
    for c0, c1, draws in player_options(player):
        if not draws:
            info = (key, None)
            tally.add(tally.cells[(info, False)], c0, c1, banker, player, ways * (n - 4) * (n - 5))
            for s in V:
                chance = ways * left[s] * (n - 5)
                tally.add(tally.cells[(info, True)], c0, c1, (banker + s) % 10, player, chance)
            continue
        for t in V:
            w5 = ways * left[t]
            if not w5:
                continue
            left[t] -= 1
            final, info = (player + t) % 10, (key, t)
            tally.add(tally.cells[(info, False)], c0, c1, banker, final, w5 * (n - 5))
            for s in V:
                tally.add(tally.cells[(info, True)], c0, c1, (banker + s) % 10, final, w5 * left[s])
            left[t] += 1


def by_total(lines: Lines) -> Lines:
    """Card-keyed lines summed over the banker's pairs of each total."""
    out: dict[InfoSet, dict[bool, list[Fraction]]] = defaultdict(
        lambda: {True: [F(0)] * 4, False: [F(0)] * 4}
    )
    for (key, third), actions in lines.items():
        assert not isinstance(key, int)
        total = (key[0] + key[1]) % 10
        for draw, ((bc, bs), (pc, ps)) in actions.items():
            cell = out[(total, third)][draw]
            for i, x in enumerate((bc, bs, pc, ps)):
                cell[i] += x
    return {
        info: {d: ((c[0], c[1]), (c[2], c[3])) for d, c in actions.items()}
        for info, actions in out.items()
    }


# -- certificates --------------------------------------------------------------------------------
def at(line: Line, p: Fraction) -> Fraction:
    return line[0] + line[1] * p


def expectation(
    naturals: tuple[Line, Line], lines: Lines, p: Fraction, banker: Mapping[InfoSet, Fraction]
) -> tuple[Fraction, Fraction]:
    totals = [at(naturals[0], p), at(naturals[1], p)]
    for info, actions in lines.items():
        x = banker[info]
        for side in (0, 1):
            totals[side] += x * at(actions[True][side], p) + (1 - x) * at(actions[False][side], p)
    return totals[0], totals[1]


def best_response_value(naturals: tuple[Line, Line], lines: Lines, p: Fraction) -> Fraction:
    total = at(naturals[0], p)
    for actions in lines.values():
        total += max(at(actions[True][0], p), at(actions[False][0], p))
    return total


def assert_equilibrium(naturals: tuple[Line, Line], lines: Lines, solution: ChemmySolution) -> None:
    """No pure deviation pays, on lines computed independently of the solver."""
    p = solution.player_draw_at_5
    assert set(solution.banker) == set(lines)
    # the value is what the strategies earn
    assert expectation(naturals, lines, p, solution.banker) == (
        solution.value,
        solution.player_value,
    )
    # the banker: every information set is answered as well as it can be
    for info, x in solution.banker.items():
        draw, stand = at(lines[info][True][0], p), at(lines[info][False][0], p)
        if x == 1:
            assert draw >= stand, info
        elif x == 0:
            assert stand >= draw, info
        else:
            assert draw == stand, info
    # the player: neither pure choice at 5 beats p
    as_stand = expectation(naturals, lines, F(0), solution.banker)[1]
    as_draw = expectation(naturals, lines, F(1), solution.banker)[1]
    if 0 < p < 1:
        assert as_stand == as_draw == solution.player_value
    else:
        assert solution.player_value == max(as_stand, as_draw)


# -- the infinite deck: Kemeny and Snell ---------------------------------------------------------
def test_infinite_deck_player_draws_at_5_with_probability_9_11() -> None:
    assert infinite().player_draw_at_5 == Fraction(9, 11)


def test_infinite_deck_banker_plays_the_tableau_and_mixes_only_on_6_when_the_player_stood() -> None:
    solution = infinite()
    assert solution.mixed == {(6, None): F(859, 2288)}
    expected: dict[InfoSet, Fraction] = {}
    for row in STANDARD_TABLEAU:  # banker draws on 0-5 when the player stood
        for third in [*V, None]:
            draws = row.banker <= 5 if third is None else third in row.draws_on
            expected[(row.banker, third)] = F(int(draws))
    expected[(6, None)] = F(859, 2288)
    assert solution.banker == expected
    assert len(solution.banker) == 8 * 11


def test_infinite_deck_value() -> None:
    solution = infinite()
    assert solution.value == F(679568, 53094899) == F(679568, 11 * 13**6)
    assert solution.player_value == -solution.value
    assert 0.0127 < float(solution.value) < 0.0129  # the published 1.28% edge of the banker


def test_the_mixed_cell_is_indifferent_exactly_at_9_11_by_hand() -> None:
    """Banker 6 against a player who stood: he faces 5 (chance 1-p), 6 or 7, each 16/169.

    Standing wins against 5 and loses against 7: (1-p) - 1.  Drawing (one of thirteen
    ranks) nets 2/13 against 5, -3/13 against 6 and -8/13 against 7.  Equal at p = 9/11.
    """
    p = F(9, 11)
    assert (1 - p) - 1 == ((1 - p) * 2 - 3 - 8) / F(13)
    lines = coup_lines(None, None).lines[(6, None)]
    draw, stand = lines[True][0], lines[False][0]
    scale = F(16, 169) ** 2  # the chance of those two totals per total, over ranks
    assert stand == (0, -scale)
    assert draw == (-9 * scale / 13, -2 * scale / 13)


def test_infinite_deck_lines_match_an_enumeration_by_totals() -> None:
    naturals, lines = lines_by_totals()
    enumerated = coup_lines(None, None)
    assert enumerated.naturals == naturals
    assert enumerated.lines == lines


def test_infinite_deck_solution_is_an_equilibrium() -> None:
    naturals, lines = lines_by_totals()
    assert_equilibrium(naturals, lines, infinite())


def test_infinite_deck_value_is_the_minimum_over_a_grid_of_p() -> None:
    naturals, lines = lines_by_totals()
    value = infinite().value
    grid = {k: best_response_value(naturals, lines, F(k, 110)) for k in range(111)}
    assert grid[90] == value  # 90/110 = 9/11
    assert all(v > value for k, v in grid.items() if k != 90)
    # both sides of 9/11, close by
    assert best_response_value(naturals, lines, F(9, 11) - F(1, 10**6)) > value
    assert best_response_value(naturals, lines, F(9, 11) + F(1, 10**6)) > value


def test_infinite_deck_with_commission_is_a_nash_equilibrium() -> None:
    rules = ChemmyRules(commission=F(1, 20))
    solution = solve_infinite(rules)
    naturals, lines = lines_by_totals(F(1, 20))
    assert_equilibrium(naturals, lines, solution)
    assert solution.commission == F(1, 20)
    # the player's payoff has no commission in it: the banker mixes as before
    assert solution.mixed == {(6, None): F(859, 2288)}
    assert solution.player_draw_at_5 == F(179, 214)
    assert solution.player_value == infinite().player_value
    assert solution.value < 0 < infinite().value


# -- shoes ---------------------------------------------------------------------------------------
SHOE_SOLUTIONS = {
    6: (
        F(477191, 592524),
        ((0, 6), None),
        F(77143741, 121269912),
        F(974653793197999, 75340147272374985),
    ),
    8: (
        F(163305, 201968),
        ((0, 6), None),
        F(490310615, 774749248),
        F(1059778909061461, 82154663322498585),
    ),
}


@pytest.mark.parametrize("decks", [6, 8])
def test_shoe_solution(decks: int) -> None:
    p, mixed_at, mix, value = SHOE_SOLUTIONS[decks]
    solution = shoe(decks)
    assert solution.player_draw_at_5 == p
    assert solution.mixed == {mixed_at: mix}
    assert solution.value == value == -solution.player_value
    assert solution.decks == decks and solution.banker_sees_cards
    # 44 non-natural pairs of values for the banker, against 10 third cards or a stand
    assert len(solution.banker) == 44 * 11
    # the banker's cards matter: 6 made of 8+8 draws when the player stood, 1+5 stands
    assert solution.banker[((8, 8), None)] == 1 and solution.banker[((1, 5), None)] == 0
    # and 5 made of 2+3 stands against a 4, where 5 made of 0+5 draws
    assert solution.banker[((2, 3), 4)] == 0 and solution.banker[((0, 5), 4)] == 1


@pytest.mark.parametrize("decks", [6, 8])
def test_shoe_lines_match_an_enumeration_card_by_card(decks: int) -> None:
    naturals, lines = lines_by_cards(decks)
    enumerated = coup_lines(None, value_counts(decks))
    assert enumerated.naturals == naturals
    assert enumerated.lines == lines
    by_totals = coup_lines(None, value_counts(decks), banker_sees_cards=False)
    assert by_totals.naturals == naturals
    assert by_totals.lines == by_total(lines)


@pytest.mark.parametrize("decks", [6, 8])
def test_shoe_solutions_are_equilibria(decks: int) -> None:
    naturals, lines = lines_by_cards(decks)
    assert_equilibrium(naturals, lines, shoe(decks))
    assert_equilibrium(naturals, by_total(lines), shoe(decks, sees_cards=False))


def test_shoe_value_is_the_minimum_over_a_grid_of_p() -> None:
    naturals, lines = lines_by_cards(6)
    solution = shoe(6)
    assert best_response_value(naturals, lines, solution.player_draw_at_5) == solution.value
    for k in range(0, 101):
        assert best_response_value(naturals, lines, F(k, 100)) > solution.value


def test_seeing_his_cards_is_worth_something_to_the_banker() -> None:
    for decks in (6, 8):
        assert shoe(decks).value > shoe(decks, sees_cards=False).value > infinite().value
        assert shoe(decks, sees_cards=False).mixed.keys() == {(6, None)}


def test_a_huge_shoe_tends_to_the_infinite_deck() -> None:
    big = solve_shoe(None, 10_000, banker_sees_cards=False)
    assert abs(big.player_draw_at_5 - F(9, 11)) < F(1, 10**5)
    assert abs(big.value - infinite().value) < F(1, 10**6)
    assert big.mixed.keys() == {(6, None)}
    assert abs(big.mixed[(6, None)] - F(859, 2288)) < F(1, 10**5)


# -- the engine plays every deal of a tiny shoe ------------------------------------------------
CARD = {v: Card(Rank.KING if v == 0 else Rank.from_number(v), Suit.HEARTS) for v in V}
TINY = [2, 0, 2, 1, 0, 0, 2, 0, 0, 0]  # K K 2 2 3 6 6
SMALL = [2, 0, 3, 1, 0, 0, 2, 0, 0, 0]  # K K 2 2 2 3 6 6


def engine_at_deal(rules: ChemmyRules) -> ChemmyGame:
    """Ann banks 20 and Bob calls Banco: the next card is the coup's first."""
    game = ChemmyGame(rules, [("Ann", 100), ("Bob", 100)])
    draw = StackedShoe([Card(Rank.KING, Suit.SPADES), CARD[2]])
    session = ChemmySession(game, draw, {}, np.random.default_rng(0))
    assert session.advance() is None and game.banker == 0
    game.put_bank(0, 20)
    game.banco(1)
    assert game.next_card_for is not None and game.coup == 1
    return game


class EngineWalk:
    """Every deal of a shoe of ``counts`` through the engine: cards and decisions branch.

    The engine draws, settles and says when the coup is over; results are each side's net
    per unit staked (Ann banks 20, Bob calls Banco).
    """

    def __init__(self, rules: ChemmyRules, counts: list[int], p: Fraction) -> None:
        self.rules, self.counts, self.p = rules, counts, p
        self.memo: dict[Any, Any] = {}

    @staticmethod
    def info(game: ChemmyGame) -> InfoSet:
        cards = sorted(card_value(c) for c in game.hands["banker"])
        third = game.player_third
        return ((cards[0], cards[1]), None if third is None else card_value(third))

    def key(self, game: ChemmyGame, left: list[int], what: str) -> Any:
        def values(cards: list[Card]) -> tuple[int, ...]:
            v = [card_value(c) for c in cards]
            return (*sorted(v[:2]), *v[2:])

        hands = (values(game.hands["player"]), values(game.hands["banker"]))
        return (what, tuple(left), game.phase, game.next_card_for, hands)

    def children(
        self, game: ChemmyGame, left: list[int], banker: Callable[[InfoSet], Fraction]
    ) -> list[tuple[Fraction, ChemmyGame, list[int]]]:
        """The next card's or decision's branches, with their chances."""
        out = []
        if game.next_card_for is not None:
            for v, count in enumerate(left):
                if count:
                    nxt = copy.deepcopy(game)
                    nxt.deal(CARD[v])
                    rest = list(left)
                    rest[v] -= 1
                    out.append((F(count, sum(left)), nxt, rest))
            return out
        if game.phase is Phase.PLAYER:
            x, seat = self.p, game.player
        else:
            x, seat = banker(self.info(game)), game.banker
        assert seat is not None
        for share, act in ((x, "draw"), (1 - x, "stand")):
            if share:
                nxt = copy.deepcopy(game)
                getattr(nxt, act)(seat)
                out.append((share, nxt, left))
        return out

    def value(
        self, game: ChemmyGame, left: list[int], banker: Callable[[InfoSet], Fraction]
    ) -> tuple[Fraction, Fraction]:
        """(banker's, player's) expectation from here, the banker playing ``banker``."""
        if game.coup != 1:
            return F(game.stacks[0] - 100, 20), F(game.stacks[1] - 100, 20)
        key = self.key(game, left, "value")
        if key not in self.memo:
            total = (F(0), F(0))
            for chance, nxt, rest in self.children(game, left, banker):
                b, pl = self.value(nxt, rest, banker)
                total = (total[0] + chance * b, total[1] + chance * pl)
            self.memo[key] = total
        result: tuple[Fraction, Fraction] = self.memo[key]
        return result

    def contributions(self, game: ChemmyGame, left: list[int]) -> dict[Any, Fraction]:
        """Each side's expectation split by the banker's information set and action."""
        if game.coup != 1:  # a natural ended the coup
            b, pl = self.value(game, left, self.never)
            return {("natural", 0): b, ("natural", 1): pl}
        key = self.key(game, left, "split")
        if key in self.memo:
            found: dict[Any, Fraction] = self.memo[key]
            return found
        total: dict[Any, Fraction] = defaultdict(Fraction)
        if game.phase is Phase.BANKER and game.next_card_for is None:
            info = self.info(game)
            assert game.banker is not None
            for draw in (True, False):
                nxt = copy.deepcopy(game)
                (nxt.draw if draw else nxt.stand)(game.banker)
                for side, v in enumerate(self.value(nxt, left, self.never)):
                    total[(info, draw, side)] += v
        else:
            for chance, nxt, rest in self.children(game, left, self.never):
                for k, v in self.contributions(nxt, rest).items():
                    total[k] += chance * v
        self.memo[key] = dict(total)
        return self.memo[key]  # type: ignore[no-any-return]

    @staticmethod
    def never(info: InfoSet) -> Fraction:
        raise AssertionError("no banker decision after the banker's")


def engine_lines(rules: ChemmyRules, counts: list[int]) -> tuple[tuple[Line, Line], Lines]:
    """The coup's lines in p, from the engine at p = 0 and p = 1 (they are linear in p)."""
    ends = [
        EngineWalk(rules, counts, p).contributions(engine_at_deal(rules), counts)
        for p in (F(0), F(1))
    ]
    keys = set(ends[0]) | set(ends[1])

    def line(k: Any) -> Line:
        at_0, at_1 = ends[0].get(k, F(0)), ends[1].get(k, F(0))
        return (at_0, at_1 - at_0)

    naturals = (line(("natural", 0)), line(("natural", 1)))
    lines: Lines = defaultdict(dict)
    for k in keys:
        if k[0] != "natural" and k[2] == 0:
            info, draw = k[0], k[1]
            lines[info][draw] = (line(k), line((info, draw, 1)))
    return naturals, dict(lines)


def test_tiny_shoe_solution() -> None:
    solution = solve_counts(None, TINY)
    assert solution.player_draw_at_5 == F(1, 4)
    assert solution.mixed == {((0, 6), None): F(1, 2)}
    assert solution.value == F(2, 35)


@pytest.mark.parametrize(("counts", "commission"), [(TINY, F(0)), (TINY, F(1, 20)), (SMALL, F(0))])
def test_the_engine_gives_the_same_lines_and_certifies_the_solution(
    counts: list[int], commission: Fraction
) -> None:
    rules = ChemmyRules(commission=commission)
    naturals, lines = engine_lines(rules, counts)
    enumerated = coup_lines(rules, counts)
    assert enumerated.naturals == naturals
    assert enumerated.lines == lines
    for sees_cards in (True, False):
        solution = solve_counts(rules, counts, banker_sees_cards=sees_cards)
        assert 0 < solution.player_draw_at_5 < 1 and len(solution.mixed) == 1
        assert_equilibrium(naturals, lines if sees_cards else by_total(lines), solution)


@pytest.mark.parametrize("commission", [F(0), F(1, 20)])
def test_the_engine_playing_the_solution_earns_its_value(commission: Fraction) -> None:
    rules = ChemmyRules(commission=commission)
    solution = solve_counts(rules, TINY)

    def table(info: InfoSet) -> Fraction:
        return solution.banker[info]

    def value(p: Fraction, banker: Callable[[InfoSet], Fraction]) -> tuple[Fraction, Fraction]:
        return EngineWalk(rules, TINY, p).value(engine_at_deal(rules), TINY, banker)

    assert value(solution.player_draw_at_5, table) == (solution.value, solution.player_value)
    # the player is indifferent between standing and drawing at 5 ...
    for pure in (F(0), F(1)):
        assert value(pure, table)[1] == solution.player_value
    # ... and the banker where he mixes
    (mixed_at,) = solution.mixed
    for pure in (F(0), F(1)):
        deviation = value(
            solution.player_draw_at_5, lambda i, x=pure: x if i == mixed_at else table(i)
        )
        assert deviation[0] == solution.value


# -- the rules object ----------------------------------------------------------------------------
def test_the_player_free_total_comes_from_the_rules() -> None:
    rules = ChemmyRules(player_must_draw_below=4, player_must_stand_from=5)
    solution = solve_infinite(rules)
    assert solution.free_total == 4
    assert 0 <= solution.player_draw_at_5 <= 1
    with pytest.raises(ValueError, match="exactly one total"):
        solve_infinite(ChemmyRules(player_must_draw_below=4, player_must_stand_from=6))


def test_naturals_come_from_the_rules() -> None:
    solution = solve_infinite(ChemmyRules(natural_from=9))
    assert {key for key, _ in solution.banker} == set(range(9))
    assert solution.value != infinite().value


def test_bad_shoes_are_refused() -> None:
    with pytest.raises(ValueError, match="ten card counts"):
        solve_counts(None, [4, 4])
    with pytest.raises(ValueError, match="six cards"):
        solve_counts(None, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="at least one deck"):
        solve_shoe(None, 0)


# -- output --------------------------------------------------------------------------------------
def test_to_json() -> None:
    data = json.loads(json.dumps(infinite().to_json()))
    assert data["player_draw_at_5"] == "9/11"
    assert data["player_draw_at_5_decimal"] == "0.818181818182"
    assert data["value"] == "679568/53094899"
    assert data["value_decimal"] == "0.012799120307"
    assert data["player_value"] == "-679568/53094899"
    assert data["shoe"] == "infinite deck" and data["decks"] is None
    assert data["banker_mixed"] == [
        {
            "banker": 6,
            "banker_total": 6,
            "player_third": "stood",
            "draw": "859/2288",
            "draw_decimal": "0.375437062937",
        }
    ]
    assert len(data["banker"]) == 88
    assert {"banker": 3, "banker_total": 3, "player_third": 8, "draw": "0/1"}.items() <= next(
        row for row in data["banker"] if row["banker"] == 3 and row["player_third"] == 8
    ).items()
    cards = shoe(6).to_json()
    assert cards["banker_knows"] == "his two cards" and cards["decks"] == 6
    assert cards["banker_mixed"][0]["banker"] == [0, 6]
    assert cards["banker_mixed"][0]["banker_total"] == 6


def test_solution_text() -> None:
    text = solution_text(infinite())
    assert "9/11" in text and "859/2288" in text and "0.012799" in text
    rows = text.splitlines()
    assert rows[-2].split() == ["6", "S", "S", "S", "S", "S", "S", "D", "D", "S", "S", "0.375"]
    assert rows[-1].split()[1:] == ["S"] * 11
    assert "0+6 (6)" in solution_text(shoe(6))


# -- bots ----------------------------------------------------------------------------------------
def frequency(decide: Callable[[np.random.Generator], bool], samples: int = 20_000) -> float:
    rng = np.random.default_rng(20240604)
    return sum(decide(rng) for _ in range(samples)) / samples


def untouched(decide: Callable[[np.random.Generator], bool]) -> bool:
    rng = np.random.default_rng(7)
    before = rng.bit_generator.state
    decide(rng)
    return rng.bit_generator.state == before


def test_mixed_decisions_are_sampled_at_their_probability() -> None:
    draws = EquilibriumDraws(infinite())
    assert abs(frequency(lambda rng: draws.player_draws(5, rng)) - 9 / 11) < 0.012
    six = frequency(lambda rng: draws.banker_draws(6, None, rng))
    assert abs(six - 859 / 2288) < 0.014
    cards = EquilibriumDraws(shoe(6))
    ten_six = (Card(Rank.TEN, Suit.CLUBS), Card(Rank.SIX, Suit.HEARTS))
    mixed = frequency(lambda rng: cards.banker_draws_holding(ten_six, None, rng))
    assert abs(mixed - float(shoe(6).mixed[((0, 6), None)])) < 0.014


def test_pure_decisions_never_touch_the_generator() -> None:
    solution = infinite()
    draws = EquilibriumDraws(solution)
    for (total, third), x in solution.banker.items():
        card = None if third is None else CARD[third]
        if x in (0, 1):
            assert untouched(lambda rng, t=total, c=card: draws.banker_draws(t, c, rng))
            assert draws.banker_draws(total, card, np.random.default_rng(0)) is (x == 1)
        else:
            assert not untouched(lambda rng, t=total, c=card: draws.banker_draws(t, c, rng))
    for total in (0, 4, 6, 7):
        assert untouched(lambda rng, t=total: draws.player_draws(t, rng))
        assert draws.player_draws(total, np.random.default_rng(0)) is (total < 5)
    assert not untouched(lambda rng: draws.player_draws(5, rng))
    eight_eight = (Card(Rank.EIGHT, Suit.CLUBS), Card(Rank.EIGHT, Suit.HEARTS))
    cards = EquilibriumDraws(shoe(6))
    assert untouched(lambda rng: cards.banker_draws_holding(eight_eight, None, rng))
    assert cards.banker_draws_holding(eight_eight, None, np.random.default_rng(0))


def test_a_card_keyed_solution_needs_the_banker_cards() -> None:
    cards = EquilibriumDraws(shoe(6))
    with pytest.raises(ValueError, match="banker_draws_holding"):
        cards.banker_draws(6, None, np.random.default_rng(0))
    # a total-keyed solution also takes the cards, and keys them by their total
    totals = EquilibriumDraws(infinite())
    two_four = (Card(Rank.TWO, Suit.CLUBS), Card(Rank.FOUR, Suit.HEARTS))
    assert totals.banker_draws_holding(two_four, CARD[6], np.random.default_rng(0))
    assert not totals.banker_draws_holding(two_four, CARD[5], np.random.default_rng(0))


def test_the_bot_composes_like_tableau_bot() -> None:
    money = SimpleMoney(bank_minimums=5)
    bot = EquilibriumBot(infinite(), money=money)
    assert isinstance(bot, TableauBot) and bot.money is money
    assert bot.player is bot.banker and isinstance(bot.player, EquilibriumDraws)
    assert isinstance(EquilibriumBot(infinite()).money, SimpleMoney)
    # its parts slot into a TableauBot too
    draws = EquilibriumDraws(infinite())
    assert TableauBot(player=draws, banker=draws).player_draws(5, np.random.default_rng(1)) in (
        True,
        False,
    )


def test_equilibrium_bots_play_a_session_by_their_table() -> None:
    rules = ChemmyRules()
    bot = equilibrium_bot(rules)
    assert bot.solution.decks == 6 and bot.solution.banker_sees_cards
    game = ChemmyGame(rules, [("Ann", 1000), ("Bob", 1000), ("Cid", 1000)])
    shoe_ = Shoe(rules.shoe, SeededShuffler(3))
    session = ChemmySession(game, shoe_, {0: bot, 1: bot, 2: bot}, np.random.default_rng(3))
    played = session.play_coups(400)
    assert played > 100
    checked = 0
    for coup in range(1, game.coup):
        entries = [e.event for e in game.coup_events(coup)]
        shown = {e.hand: e.cards for e in entries if isinstance(e, HandShown)}
        for decision in (e for e in entries if isinstance(e, Decision) and not e.forced):
            if decision.hand == "player":
                assert sum(card_value(c) for c in shown["player"][:2]) % 10 == 5
                continue
            values = sorted(card_value(c) for c in shown["banker"][:2])
            player = shown["player"]
            third = card_value(player[2]) if len(player) == 3 else None
            x = bot.solution.banker[((values[0], values[1]), third)]
            if x in (0, 1):
                assert (decision.action == "draw") is (x == 1)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("commission", [F(0), F(1, 20)])
def test_a_table_s_figures_are_its_own_game(commission: Fraction) -> None:
    """A banker who chooses: the equilibrium on his two cards.  The casino variant: the
    banker follows punto banco's tableau and the player's best answer at 5 is to draw, so
    the player's side is exactly punto banco's player wager on the same shoe (counted by
    the baccarat analyser), whatever the commission."""
    free = ChemmyRules(commission=commission)
    assert solve_table(free) == solve_shoe(free, banker_sees_cards=True)
    casino = ChemmyRules(commission=commission, banker_forced_by_tableau=True)
    solved = solve_table(casino)
    assert solved.player_draw_at_5 == 1 and solved.mixed == {} and not solved.banker_sees_cards
    punto = get_game("punto-banco").default_rules()
    means = expectations(punto, shoe_composition(punto, casino.shoe.decks))
    assert solved.player_value == means["player"]
    if not commission:
        assert solved.value == -means["player"]
    # standing at 5 instead is worse for the player against that tableau
    lines = coup_lines(casino, value_counts(6), banker_sees_cards=False)
    assert lines.expectation(F(0), solved.banker)[1] < solved.player_value
