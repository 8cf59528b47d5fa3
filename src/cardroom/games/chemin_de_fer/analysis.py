"""The exact game-theoretic solution of the chemin de fer coup.

The coup is a game between the player (punter) and the banker, stakes 1:1, a tie 0, and
zero-sum unless the house takes a ``commission`` on the banker's wins (off by default).  Two
cards each; a natural on either side ends the coup.  The player's draws are forced except at
one total (5 under the default rules; :class:`~cardroom.games.chemin_de_fer.ChemmyRules` says
which), where he draws with probability ``p``.  The banker then draws or stands freely,
knowing his own total and the value of the player's third card (``None``: the player stood)
-- and, in a finite shoe, his own two cards, which change what is left in the shoe.

How it is solved, exactly:

1. Every coup is enumerated card value by card value (tens and pictures all count 0, so the
   values are all that matter, for the totals and for what a card takes out of the shoe).
   Chances are counted as whole numbers of ordered card sequences over one common
   denominator -- ``13**6`` for the infinite deck, ``N (N-1) ... (N-5)`` for a shoe of ``N``
   cards -- and become fractions at the end (:func:`coup_lines`).
2. For every information set of the banker and each of his two actions, each side's
   expectation is a linear function of ``p``.  Given ``p`` the banker's best response takes
   the better line in every information set, each on its own.
3. An equilibrium is looked for at the candidate ``p``: 0, 1 and every breakpoint where an
   information set of the banker is indifferent.  There the banker plays his strict best
   responses and mixes at the indifferent information sets so that the player's
   expectation has slope 0 in ``p`` (at ``p`` = 0 or 1: the slope that keeps ``p`` there).
   Then the player has no better ``p``, and the banker no better action anywhere.  Without
   commission the banker's best-response value is a convex piecewise-linear function of
   ``p`` and the first candidate that passes is its minimum: the minimax solution.

The player chooses by his total only (as the engine's
:class:`~cardroom.games.chemin_de_fer.PlayerDrawStrategy` does); the banker's information is
his total (:func:`solve_infinite`, or ``banker_sees_cards=False``) or the values of his two
cards (:func:`solve_shoe`'s default: 44 pairs x 11 = 484 information sets, the model of
Downton and Lockwood, 1975).  With a commission the game is no longer zero-sum and the
solution is a Nash equilibrium: the banker's mix keeps the *player's* expectation flat in
``p``, the player's ``p`` the banker indifferent.

The infinite deck gives the Kemeny-Snell solution: the player draws at 5 with probability
9/11, the banker plays the punto banco tableau except with 6 when the player stood, where he
draws with probability 859/2288; the banker's edge is 679568/53094899 (about 1.28%).

>>> solution = solve_infinite()
>>> solution.player_draw_at_5, solution.mixed
(Fraction(9, 11), {(6, None): Fraction(859, 2288)})
>>> solution.value, decimal_text(solution.value, 6)
(Fraction(679568, 53094899), '0.012799')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from cardroom.analysis.report import decimal_text, fraction_text
from cardroom.core.cards import Card, Deck
from cardroom.core.rules import RulesError
from cardroom.games.baccarat import card_value, card_with_value
from cardroom.games.chemin_de_fer import (
    GAME_ID,
    ChemmyAction,
    ChemmyRules,
    MoneyPolicy,
    TableauBot,
)

#: The value of the player's third card; ``None``: the player stood.
Third = int | None
#: The banker's own information: his total, or the values of his two cards (sorted).
BankerKey = int | tuple[int, int]
#: One information set of the banker.
InfoSet = tuple[BankerKey, Third]
#: A side's expectation as ``(constant, slope)``: ``constant + slope * p``.
Linear = tuple[Fraction, Fraction]
#: ``(banker's, player's)`` expectation lines.
Sides = tuple[Linear, Linear]

VALUES = range(10)
_ZERO = Fraction(0)
_ONE = Fraction(1)
#: How a deal counts towards the lines: (constant, coefficient of p).
_FORCED = (1, 0)
_FREE_DRAW = (0, 1)
_FREE_STAND = (1, -1)


# -- the shoe ----------------------------------------------------------------------------------
def value_counts(decks: int | None = None) -> tuple[int, ...]:
    """Cards per baccarat value 0-9 in ``decks`` 52-card decks; None: the infinite deck.

    Ranks and values are the engine's (:func:`~cardroom.games.baccarat.card_value`).  The
    infinite deck deals each rank with probability 1/13: its weights are the ranks per value.

    >>> value_counts(), value_counts(1)[:2]
    ((4, 1, 1, 1, 1, 1, 1, 1, 1, 1), (16, 4))
    """
    counts = [0] * 10
    deck = Deck.standard()
    for card in deck:
        counts[card_value(card)] += 1
    if decks is None:
        suits = len({card.suit for card in deck})
        return tuple(count // suits for count in counts)
    if decks < 1:
        raise ValueError("decks: a shoe needs at least one deck")
    return tuple(count * decks for count in counts)


# -- the coup as lines in p ----------------------------------------------------------------------
def _at(line: Linear, p: Fraction) -> Fraction:
    return line[0] + line[1] * p


@dataclass(frozen=True)
class CoupLines:
    """The coup as linear functions of ``p``, the player's chance to draw at ``free_total``.

    ``lines[info][draw]`` holds ``(banker, player)``: each side's expectation (per unit
    staked) from the deals that reach ``info``, when the banker draws (True) or stands
    (False) there; ``naturals`` the same for the coups a natural ends.  ``weights[info]`` is
    the chance to reach ``info``, also as a line in ``p``.
    """

    free_total: int
    commission: Fraction
    naturals: Sides
    lines: dict[InfoSet, dict[bool, Sides]]
    weights: dict[InfoSet, Linear]

    def expectation(
        self, player_draw: Fraction, banker: Mapping[InfoSet, Fraction]
    ) -> tuple[Fraction, Fraction]:
        """(banker's, player's) expectation for a pair of strategies.

        ``banker`` gives the banker's chance to draw at every information set.
        """
        p = player_draw
        banker_total, player_total = _at(self.naturals[0], p), _at(self.naturals[1], p)
        for info, actions in self.lines.items():
            x = banker[info]
            for share, sides in ((x, actions[True]), (1 - x, actions[False])):
                if share:
                    banker_total += share * _at(sides[0], p)
                    player_total += share * _at(sides[1], p)
        return banker_total, player_total

    def best_response_value(self, player_draw: Fraction) -> Fraction:
        """The banker's expectation when he answers ``player_draw`` as well as he can."""
        p = player_draw
        total = _at(self.naturals[0], p)
        for actions in self.lines.values():
            total += max(_at(actions[True][0], p), _at(actions[False][0], p))
        return total


def check_solvable(rules: ChemmyRules) -> None:
    """A :class:`RulesError` unless cardroom can solve the coup under ``rules``."""
    _free_total(rules)


def _free_total(rules: ChemmyRules) -> int:
    free = [total for total in range(rules.natural_from) if rules.player_rule(total)[0] is None]
    if len(free) != 1:
        # a rules problem for whoever asked for the solution (strategy, play, serve)
        raise RulesError(
            "chemin-de-fer rules: cardroom solves the coup (for `strategy`, its bots and the "
            "seats played for absent people) only with exactly one total where the player "
            "chooses (player_must_stand_from = player_must_draw_below + 1); these rules have "
            f"{len(free)}"
        )
    return free[0]


class _Enumeration:
    """Walks every deal of a coup, counting the ways each side wins per information set."""

    def __init__(
        self, rules: ChemmyRules, counts: Sequence[int] | None, banker_sees_cards: bool
    ) -> None:
        self.rules = rules
        self.free = _free_total(rules)
        self.replace = counts is None
        self.shoe = tuple(value_counts() if counts is None else counts)
        if len(self.shoe) != 10 or any(count < 0 for count in self.shoe):
            raise ValueError("counts: give ten card counts, for the values 0 to 9")
        size = sum(self.shoe)
        if not self.replace and size < 6:
            raise ValueError("counts: a coup may need six cards")
        self.keyed_by_cards = banker_sees_cards and not self.replace
        left = [size if self.replace else size - dealt for dealt in range(6)]
        # ways for the cards after a coup's last one, up to six cards: the common denominator
        self.unseen = {n: _product(left[n:]) for n in range(7)}
        self.denominator = self.unseen[0]
        self.removed = [0] * 10
        self.cells: dict[tuple[InfoSet, bool], list[int]] = {}
        self.reached: dict[InfoSet, list[int]] = {}
        self.naturals = [0, 0, 0, 0]

    def take(self, value: int) -> int:
        """Deal a card of ``value``: the ways it can come (0: none left)."""
        ways = self.shoe[value] if self.replace else self.shoe[value] - self.removed[value]
        self.removed[value] += 1
        return ways

    def put_back(self, value: int) -> None:
        self.removed[value] -= 1

    @staticmethod
    def add(cell: list[int], weight: tuple[int, int], banker: int, player: int, ways: int) -> None:
        """Count ``ways`` deals ending banker ``banker`` against player ``player``."""
        if banker > player:
            cell[0] += weight[0] * ways
            cell[2] += weight[1] * ways
        elif player > banker:
            cell[1] += weight[0] * ways
            cell[3] += weight[1] * ways

    def cell(self, info: InfoSet, draw: bool) -> list[int]:
        found = self.cells.get((info, draw))
        if found is None:
            found = self.cells[(info, draw)] = [0, 0, 0, 0]
        return found

    def run(self) -> CoupLines:
        rules = self.rules
        action_of = {total: rules.player_rule(total)[0] for total in VALUES}
        natural = [rules.is_natural(total) for total in VALUES]
        pairs = [(x, y) for x in VALUES for y in VALUES if x <= y]
        for bx, by in pairs:
            banker = (bx + by) % 10
            key: BankerKey = (bx, by) if self.keyed_by_cards else banker
            for px, py in pairs:
                player = (px + py) % 10
                ways = (1 if bx == by else 2) * (1 if px == py else 2)
                for value in (px, py, bx, by):
                    ways *= self.take(value)
                if ways and (natural[player] or natural[banker]):
                    self.add(self.naturals, _FORCED, banker, player, ways * self.unseen[4])
                elif ways:
                    action = action_of[player]
                    if action is not ChemmyAction.DRAW:
                        weight = _FORCED if action is ChemmyAction.STAND else _FREE_STAND
                        self.banker_acts((key, None), weight, banker, player, ways, 4)
                    if action is not ChemmyAction.STAND:
                        weight = _FORCED if action is ChemmyAction.DRAW else _FREE_DRAW
                        for third in VALUES:
                            ways_5 = ways * self.take(third)
                            if ways_5:
                                total = (player + third) % 10
                                self.banker_acts((key, third), weight, banker, total, ways_5, 5)
                            self.put_back(third)
                for value in (px, py, bx, by):
                    self.put_back(value)
        return self.lines()

    def banker_acts(
        self,
        info: InfoSet,
        weight: tuple[int, int],
        banker: int,
        player: int,
        ways: int,
        dealt: int,
    ) -> None:
        """Both of the banker's actions on ``ways`` deals of ``dealt`` cards reaching ``info``."""
        reached = self.reached.setdefault(info, [0, 0])
        reached[0] += weight[0] * ways * self.unseen[dealt]
        reached[1] += weight[1] * ways * self.unseen[dealt]
        self.add(self.cell(info, False), weight, banker, player, ways * self.unseen[dealt])
        draw = self.cell(info, True)
        unseen = self.unseen[dealt + 1]
        for value in VALUES:
            left = self.shoe[value] if self.replace else self.shoe[value] - self.removed[value]
            if left:
                self.add(draw, weight, (banker + value) % 10, player, ways * left * unseen)

    def lines(self) -> CoupLines:
        denominator, keep = self.denominator, 1 - self.rules.commission

        def sides(cell: Sequence[int]) -> Sides:
            banker_const, player_const, banker_slope, player_slope = cell
            banker = (
                (keep * banker_const - player_const) / denominator,
                (keep * banker_slope - player_slope) / denominator,
            )
            player = (
                Fraction(player_const - banker_const, denominator),
                Fraction(player_slope - banker_slope, denominator),
            )
            return banker, player

        infos = sorted(self.reached, key=_info_order)
        lines = {
            info: {draw: sides(self.cells[(info, draw)]) for draw in (True, False)}
            for info in infos
        }
        weights = {
            info: (
                Fraction(self.reached[info][0], denominator),
                Fraction(self.reached[info][1], denominator),
            )
            for info in infos
        }
        return CoupLines(self.free, self.rules.commission, sides(self.naturals), lines, weights)


def _product(numbers: Sequence[int]) -> int:
    result = 1
    for number in numbers:
        result *= number
    return result


def _info_order(info: InfoSet) -> tuple[int, tuple[int, ...], int]:
    key, third = info
    total = key if isinstance(key, int) else sum(key) % 10
    cards = () if isinstance(key, int) else key
    return (total, cards, 10 if third is None else third)


def coup_lines(
    rules: ChemmyRules | None = None,
    counts: Sequence[int] | None = None,
    *,
    banker_sees_cards: bool = True,
) -> CoupLines:
    """Enumerate the coup: every information set's lines in ``p`` (see :class:`CoupLines`).

    ``counts`` are the cards per value 0-9 of a finite shoe (:func:`value_counts`); None is
    the infinite deck (each rank with probability 1/13, with replacement).  In a finite shoe
    the banker's information holds the values of his two cards when ``banker_sees_cards``;
    in the infinite deck his cards tell him no more than his total, which is the key.
    """
    return _Enumeration(rules or ChemmyRules(), counts, banker_sees_cards).run()


# -- the equilibrium -----------------------------------------------------------------------------
def equilibrium(lines: CoupLines) -> tuple[Fraction, dict[InfoSet, Fraction]]:
    """An equilibrium of the coup: the player's ``p`` and the banker's chance to draw per set."""
    candidates = {_ZERO, _ONE}
    for actions in lines.lines.values():
        (draw_const, draw_slope), (stand_const, stand_slope) = actions[True][0], actions[False][0]
        if draw_slope != stand_slope:
            root = (stand_const - draw_const) / (draw_slope - stand_slope)
            if 0 < root < 1:
                candidates.add(root)
    for p in sorted(candidates):
        banker = _banker_at(lines, p)
        if banker is not None:
            return p, banker
    raise AssertionError("a finite game has an equilibrium: no candidate passed")


def _banker_at(lines: CoupLines, p: Fraction) -> dict[InfoSet, Fraction] | None:
    """The banker's equilibrium answer to ``p`` if the player then has no better ``p``."""
    slope = lines.naturals[1][1]  # the player's expectation's slope in p
    banker: dict[InfoSet, Fraction] = {}
    indifferent: list[InfoSet] = []
    for info, actions in lines.lines.items():
        draw, stand = _at(actions[True][0], p), _at(actions[False][0], p)
        if draw == stand:
            indifferent.append(info)
            continue
        banker[info] = _ONE if draw > stand else _ZERO
        slope += actions[draw > stand][1][1]
    # each indifferent set's action with the higher slope for the player, and by how much
    draws_high: dict[InfoSet, bool] = {}
    gaps: dict[InfoSet, Fraction] = {}
    for info in indifferent:
        draw_slope, stand_slope = lines.lines[info][True][1][1], lines.lines[info][False][1][1]
        draws_high[info] = draw_slope > stand_slope
        gaps[info] = abs(draw_slope - stand_slope)
        slope += min(draw_slope, stand_slope)
    spread = sum(gaps.values(), _ZERO)
    # how far the player's slope must rise from all-low: to 0 inside, to nothing at p = 0,
    # to everything at p = 1 (where any slope >= 0 keeps the player at p)
    if p == 0:
        need = _ZERO if slope <= 0 else None
    elif p == 1:
        need = spread if slope + spread >= 0 else None
    else:
        need = -slope if slope <= 0 <= slope + spread else None
    if need is None:
        return None
    for info in indifferent:
        gap = gaps[info]
        high = min(_ONE, need / gap) if gap and need > 0 else _ZERO
        need -= high * gap
        banker[info] = high if draws_high[info] else 1 - high
        if not gap:
            banker[info] = _ZERO  # the player does not care: stand
    return dict(sorted(banker.items(), key=lambda item: _info_order(item[0])))


# -- the solution --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChemmySolution:
    """An exact equilibrium of the chemin de fer coup.

    ``player_draw_at_5`` is the player's chance to draw at his free total (``free_total``, 5
    by default); ``banker`` the banker's chance to draw at each information set
    ``(banker_key, third)`` -- the key is his total, or the sorted values of his two cards
    when ``banker_sees_cards``; ``third`` the value of the player's third card, None if the
    player stood.  ``value`` is the banker's expectation per unit staked (positive: good for
    the banker), ``player_value`` the player's (its negative without commission).
    ``decks`` is None for the infinite deck.
    """

    player_draw_at_5: Fraction
    banker: dict[InfoSet, Fraction]
    value: Fraction
    player_value: Fraction
    decks: int | None = None
    banker_sees_cards: bool = False
    free_total: int = 5
    commission: Fraction = _ZERO

    @property
    def mixed(self) -> dict[InfoSet, Fraction]:
        """The information sets where the banker mixes, and his chance to draw there."""
        return {info: x for info, x in self.banker.items() if 0 < x < 1}

    @property
    def shoe(self) -> str:
        if self.decks is None:
            return "infinite deck"
        return f"{self.decks} deck{'s' if self.decks > 1 else ''}"

    def banker_draw(self, key: BankerKey, third: Third) -> Fraction:
        """The banker's chance to draw at ``(key, third)``."""
        try:
            return self.banker[(key, third)]
        except KeyError:
            raise KeyError(
                f"no information set of the banker ({key!r}, {third!r}) in this solution"
            ) from None

    def text(self) -> str:
        """The solution in words and tables, as ``cardroom strategy`` prints it."""
        return solution_text(self)

    def decision_rows(self) -> list[dict[str, Any]]:
        """Every decision of the solved coup, one row each, exact: the player's at his
        free total, then the banker's at each information set (``banker``: his total,
        or his two cards' values; ``player_third``: the player's third card, or
        "stood"), ``draw`` the chance to draw there."""
        player = {
            "side": "player",
            "banker": None,
            "banker_total": None,
            "player_third": None,
            "draw": self.player_draw_at_5,
        }
        banker = [
            {
                "side": "banker",
                "banker": str(key) if isinstance(key, int) else " ".join(map(str, key)),
                "banker_total": _total_of(key),
                "player_third": "stood" if third is None else str(third),
                "draw": draw,
            }
            for (key, third), draw in self.banker.items()
        ]
        return [player, *banker]

    def figures(self) -> dict[str, Any]:
        """What the solution is of and worth: its shoe, what the banker knows, the
        commission, and the banker's and the player's values per unit staked (exact)."""
        return {
            "game": GAME_ID,
            "shoe": self.shoe,
            "banker_sees_cards": self.banker_sees_cards,
            "free_total": self.free_total,
            "commission": self.commission,
            "value": self.value,
            "player_value": self.player_value,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "shoe": self.shoe,
            "decks": self.decks,
            "banker_knows": "his two cards" if self.banker_sees_cards else "his total",
            "commission": fraction_text(self.commission),
            "player_free_total": self.free_total,
            "player_draw_at_5": fraction_text(self.player_draw_at_5),
            "player_draw_at_5_decimal": decimal_text(self.player_draw_at_5),
            "value": fraction_text(self.value),
            "value_decimal": decimal_text(self.value),
            "player_value": fraction_text(self.player_value),
            "player_value_decimal": decimal_text(self.player_value),
            "banker_mixed": [_row(info, x) for info, x in self.mixed.items()],
            "banker": [_row(info, x) for info, x in self.banker.items()],
        }


def _total_of(key: BankerKey) -> int:
    """The banker's total of an information set's key (his total, or his cards' values)."""
    return key if isinstance(key, int) else sum(key) % 10


def _row(info: InfoSet, draw: Fraction) -> dict[str, Any]:
    key, third = info
    return {
        "banker": key if isinstance(key, int) else list(key),
        "banker_total": _total_of(key),
        "player_third": "stood" if third is None else third,
        "draw": fraction_text(draw),
        "draw_decimal": decimal_text(draw),
    }


def solve_lines(
    lines: CoupLines, decks: int | None = None, banker_sees_cards: bool = False
) -> ChemmySolution:
    """The equilibrium of enumerated lines, as a :class:`ChemmySolution`."""
    p, banker = equilibrium(lines)
    return _solution(lines, p, banker, lines.expectation(p, banker), decks, banker_sees_cards)


def _solution(
    lines: CoupLines,
    p: Fraction,
    banker: dict[InfoSet, Fraction],
    values: tuple[Fraction, Fraction],
    decks: int | None,
    banker_sees_cards: bool,
) -> ChemmySolution:
    """The play ``p`` and ``banker`` on ``lines``, with their (banker's, player's) values."""
    value, player_value = values
    return ChemmySolution(
        player_draw_at_5=p,
        banker=banker,
        value=value,
        player_value=player_value,
        decks=decks,
        banker_sees_cards=banker_sees_cards,
        free_total=lines.free_total,
        commission=lines.commission,
    )


def solve_infinite(rules: ChemmyRules | None = None) -> ChemmySolution:
    """The coup dealt from an infinite deck (every rank 1/13): the Kemeny-Snell game."""
    return solve_lines(coup_lines(rules, None))


def solve_shoe(
    rules: ChemmyRules | None = None,
    decks: int | None = None,
    *,
    banker_sees_cards: bool = True,
) -> ChemmySolution:
    """The coup dealt from a full shoe of ``decks`` 52-card decks (None: the rules' shoe).

    With ``banker_sees_cards`` the banker decides on his two cards (their values) and the
    player's third card; without it on his total, as the engine's bots are asked.
    """
    rules = rules or ChemmyRules()
    decks = rules.shoe.decks if decks is None else decks
    return _solve_shoe(rules, decks, banker_sees_cards)


@lru_cache(maxsize=32)
def _solve_shoe(rules: ChemmyRules, decks: int, banker_sees_cards: bool) -> ChemmySolution:
    # kept per rules: every table of a server, its absent seats, its recovery of stopped
    # coups and its rules page ask for the same solution (about 0.3 s each time)
    lines = coup_lines(rules, value_counts(decks), banker_sees_cards=banker_sees_cards)
    return solve_lines(lines, decks, banker_sees_cards)


def solve_counts(
    rules: ChemmyRules | None,
    counts: Sequence[int],
    *,
    banker_sees_cards: bool = True,
) -> ChemmySolution:
    """The coup dealt from any shoe: ``counts`` cards of each value 0-9 (at least six cards).

    ``decks`` of the solution is None here; the shoe is the caller's.
    """
    lines = coup_lines(rules, counts, banker_sees_cards=banker_sees_cards)
    return solve_lines(lines, None, banker_sees_cards)


def _tableau_draws(rules: ChemmyRules, lines: CoupLines) -> dict[InfoSet, Fraction]:
    """The banker's draws at every information set of ``lines`` as ``rules.tableau`` says."""
    tableau = rules.tableau
    banker: dict[InfoSet, Fraction] = {}
    for info in lines.lines:
        key, third = info
        total = key if isinstance(key, int) else sum(key) % 10
        card = None if third is None else card_with_value(third)
        banker[info] = _ONE if tableau.banker_draws(total, card) else _ZERO
    return banker


def solve_table(rules: ChemmyRules | None = None) -> ChemmySolution:
    """The coup of a table playing ``rules``, off the top of its full shoe.

    A banker who chooses: the equilibrium :func:`solve_shoe` finds (the banker deciding on
    his two cards), which ``cardroom strategy chemin-de-fer`` prints.  Under
    ``banker_forced_by_tableau`` only the player chooses: the banker draws as the tableau
    says (keyed by his total) and the player draws at his free total if that is at least
    as good for him as standing (his best answer: a pure play).

    >>> from cardroom.games.chemin_de_fer import ChemmyRules
    >>> casino = solve_table(ChemmyRules(banker_forced_by_tableau=True))
    >>> casino.player_draw_at_5, casino.mixed, casino.banker_draw(6, None)
    (Fraction(1, 1), {}, Fraction(0, 1))
    """
    rules = rules or ChemmyRules()
    if not rules.banker_forced_by_tableau:
        return solve_shoe(rules, banker_sees_cards=True)
    decks = rules.shoe.decks
    lines = coup_lines(rules, value_counts(decks), banker_sees_cards=False)
    banker = _tableau_draws(rules, lines)
    draws, stands = lines.expectation(_ONE, banker), lines.expectation(_ZERO, banker)
    p = _ONE if draws[1] >= stands[1] else _ZERO
    return _solution(lines, p, banker, draws if p == 1 else stands, decks, False)


def bot_values(rules: ChemmyRules | None = None) -> tuple[Fraction, Fraction]:
    """(banker's, player's) exact expectation per unit staked, off the top of the rules'
    full shoe, when both sides play :func:`equilibrium_bot` -- what ``cardroom simulate
    chemin-de-fer`` plays.  Under ``banker_forced_by_tableau`` the engine draws for the
    banker by the tableau, so those are the banker's draws here too.
    """
    rules = rules or ChemmyRules()
    solution = solve_shoe(rules, banker_sees_cards=True)
    if not rules.banker_forced_by_tableau:
        return solution.value, solution.player_value
    lines = coup_lines(rules, value_counts(rules.shoe.decks), banker_sees_cards=True)
    return lines.expectation(solution.player_draw_at_5, _tableau_draws(rules, lines))


# -- text ----------------------------------------------------------------------------------------
def _cell(draw: Fraction) -> str:
    if draw == 1:
        return "D"
    if draw == 0:
        return "S"
    return decimal_text(draw, 3)  # the exact chance is listed above the table


def solution_text(solution: ChemmySolution) -> str:
    """The solution for people: the player's mix, the value and the banker's table.

    In the table ``D`` is draw, ``S`` stand and a decimal the chance to draw (given exactly
    above the table).
    """
    p = solution.player_draw_at_5
    knows = "his two cards" if solution.banker_sees_cards else "his total"
    lines = [
        f"chemin de fer, {solution.shoe}; the banker decides on {knows} "
        "and the player's third card",
        f"player draws at {solution.free_total} with probability {fraction_text(p)} "
        f"({decimal_text(p, 6)})",
        f"banker's expectation {fraction_text(solution.value)} "
        f"({decimal_text(solution.value, 6)}) per unit staked; "
        f"player's {fraction_text(solution.player_value)} "
        f"({decimal_text(solution.player_value, 6)})",
    ]
    for (key, third), draw in solution.mixed.items():
        seen = "the player stood" if third is None else f"a player's third card {third}"
        lines.append(
            f"banker mixes on {_key_text(key)} against {seen}: draws with probability "
            f"{fraction_text(draw)} ({decimal_text(draw, 6)})"
        )
    thirds: list[Third] = [*VALUES, None]
    width = max([5, *(len(_cell(x)) for x in solution.banker.values())])
    header = "banker".ljust(10) + "".join(
        ("stood" if t is None else str(t)).rjust(width + 1) for t in thirds
    )
    lines += ["", "banker's draws (D draw, S stand, or the chance to draw):", header]
    keys = list(dict.fromkeys(key for key, _ in solution.banker))
    for key in keys:
        cells = [
            _cell(solution.banker[(key, t)]) if (key, t) in solution.banker else "-" for t in thirds
        ]
        lines.append(_key_text(key).ljust(10) + "".join(cell.rjust(width + 1) for cell in cells))
    return "\n".join(lines)


def _key_text(key: BankerKey) -> str:
    if isinstance(key, int):
        return str(key)
    return f"{key[0]}+{key[1]} ({sum(key) % 10})"


# -- bots ----------------------------------------------------------------------------------------
def _decide(draw: Fraction, rng: np.random.Generator) -> bool:
    """Draw with probability ``draw``: a pure decision never touches ``rng``."""
    if draw == 1:
        return True
    if draw == 0:
        return False
    return float(rng.random()) < draw


class EquilibriumDraws:
    """The draws of a :class:`ChemmySolution`, for the player and for the banker.

    It is both a :class:`~cardroom.games.chemin_de_fer.PlayerDrawStrategy` and a
    :class:`~cardroom.games.chemin_de_fer.BankerDrawStrategy`.  Mixed decisions are sampled
    from the generator passed in; pure ones never touch it.  A solution keyed on the
    banker's two cards needs them: :meth:`banker_draws_holding` (the engine's
    :meth:`banker_draws` passes only the total, so that raises for such a solution).
    """

    def __init__(self, solution: ChemmySolution) -> None:
        self.solution = solution
        knows = "cards" if solution.banker_sees_cards else "total"
        shoe = "infinite" if solution.decks is None else f"{solution.decks}-decks"
        self.name = f"equilibrium-{shoe}-{knows}"

    def player_draw_chance(self, total: int) -> Fraction:
        """The player's chance to draw on ``total`` (0 or 1 off the free total)."""
        free = self.solution.free_total
        if total != free:  # the engine makes forced plays itself; keep to the rules anyway
            return _ONE if total < free else _ZERO
        return self.solution.player_draw_at_5

    def player_draws(self, total: int, rng: np.random.Generator) -> bool:
        return _decide(self.player_draw_chance(total), rng)

    def banker_draws(
        self, banker_total: int, player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        if self.solution.banker_sees_cards:
            raise ValueError(
                "this solution keys the banker on his two cards: use banker_draws_holding, "
                "or solve with banker_sees_cards=False"
            )
        return _decide(self.solution.banker_draw(banker_total, _third(player_third)), rng)

    def banker_draws_holding(
        self, cards: Sequence[Card], player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        """The banker's draw knowing his two ``cards`` (works for every solution)."""
        if len(cards) != 2:
            raise ValueError("cards: the banker decides on his two cards")
        values = (card_value(cards[0]), card_value(cards[1]))
        return _decide(self.banker_draw_chance(values, _third(player_third)), rng)

    def banker_draw_chance(self, values: tuple[int, int], third: Third) -> Fraction:
        """The banker's chance to draw holding cards of ``values`` (0-9), the player's
        third card's value being ``third`` (None: the player stood)."""
        low, high = sorted(values)
        key: BankerKey = (low, high) if self.solution.banker_sees_cards else (low + high) % 10
        return self.solution.banker_draw(key, third)


def _third(card: Card | None) -> Third:
    return None if card is None else card_value(card)


class EquilibriumBot(TableauBot):
    """A bot that draws by a :class:`ChemmySolution` and handles money by ``money``
    (:class:`~cardroom.games.chemin_de_fer.SimpleMoney` by default).
    """

    def __init__(
        self,
        solution: ChemmySolution,
        money: MoneyPolicy | None = None,
        name: str = "equilibrium",
    ) -> None:
        draws = EquilibriumDraws(solution)
        super().__init__(money=money, player=draws, banker=draws, name=name)
        self.solution = solution
        self.draws = draws

    def banker_draws_holding(
        self, cards: Sequence[Card], player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        return self.draws.banker_draws_holding(cards, player_third, rng)


def equilibrium_bot(
    rules: ChemmyRules | None = None, money: MoneyPolicy | None = None
) -> EquilibriumBot:
    """The equilibrium bot for a table with ``rules``: solved for the rules' full shoe, the
    banker deciding on his own two cards (the session hands a bot its cards), the same
    solution ``cardroom strategy chemin-de-fer`` prints.
    """
    return EquilibriumBot(solve_shoe(rules, banker_sees_cards=True), money=money)
