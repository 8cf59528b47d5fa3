"""21-24-27 analysed with cards drawn with replacement: the player's best decisions, and
the outcomes of any way of playing.

With replacement a hand's future depends on its total alone, so the player's hand is
followed total by total, as the dealer's is
(:class:`~cardroom.games.finnish.replacement.DealerDraw`), a Joker drawn looping back
to the same total.  :func:`solve_21_24_27` works out what standing and hitting are worth
on every total against every dealer's two-card total, and chooses
(:class:`TwentyOneStrategy`); :func:`analyze_21_24_27` counts the outcomes of one way of
playing, by default the source's basic strategy, into the lines of the report
(:func:`twentyone_report`, which the finite-shoe analysis reads too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from cardroom.analysis.report import GameReport, Line, WagerReport
from cardroom.games.base import Action
from cardroom.games.finnish.hands import Total, total_from
from cardroom.games.finnish.options import fee_assumption, fee_scale
from cardroom.games.finnish.replacement import (
    MODEL,
    DealerDraw,
    DrawOdds,
    Hits,
    by_total,
    geometric,
    showdowns,
    two_card_starts,
)
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124

__all__ = [
    "StrategyCell",
    "TwentyOneStrategy",
    "analyze_21_24_27",
    "solve_21_24_27",
    "twentyone_report",
]


# -- 21-24-27 -------------------------------------------------------------------
@dataclass(frozen=True)
class StrategyCell:
    """One decision of the player: the values of standing and hitting, and the choice."""

    player: Total
    dealer: Total
    stand: Fraction
    hit: Fraction | None  # None where the player must stand
    forced: Action | None
    choice: Action

    @property
    def free(self) -> bool:
        return self.forced is None


@dataclass(frozen=True)
class TwentyOneStrategy:
    """The exact solution of 21-24-27's hit/stand decisions (with replacement)."""

    cells: tuple[StrategyCell, ...]

    def decisions(self) -> dict[tuple[Total, Total], Action]:
        return {(c.player, c.dealer): c.choice for c in self.cells}

    def hits(self, player: Total, dealer: Total) -> bool:
        return (player, dealer) in self._hitting

    @cached_property
    def _hitting(self) -> frozenset[tuple[Total, Total]]:
        return frozenset((c.player, c.dealer) for c in self.cells if c.choice is Action.HIT)

    def free_cells(self, dealer: Total) -> list[StrategyCell]:
        return [c for c in self.cells if c.dealer == dealer and c.free]


def _forced(rules: TwentyOne2427Rules, player: Total, dealer: Total) -> Action | None:
    if player.bust:
        return Action.STAND
    action, _ = rules.forced.forced(player, dealer)
    return action


def _net2124(rules: TwentyOne2427Rules, outcome: str) -> Fraction:
    return {"player": rules.win_pays, "push": Fraction(0)}.get(outcome, Fraction(-1))


def _stand_2124(
    rules: TwentyOne2427Rules, player: Total, finals: Mapping[Total, Fraction]
) -> Fraction:
    if player.bust:
        return Fraction(-1)
    value = Fraction(0)
    for final, r in finals.items():
        value += r * _net2124(rules, compare2124(player, final, rules)[0])
    return value


def solve_21_24_27(
    rules: TwentyOne2427Rules | None = None, odds: DrawOdds | None = None
) -> TwentyOneStrategy:
    """The player's best decision for every total against every dealer's two-card total.

    With cards drawn with replacement a hand's future depends on its total only, so
    this total-dependent strategy is also the best composition-dependent one.
    """
    rules = rules or TwentyOne2427Rules()
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    cells: list[StrategyCell] = []
    seen: set[Total] = set()
    for start in two_card_starts(odds, rules.initial_27s, rules.joanca_joker_second):
        if start.kind is not None or start.total in seen:
            continue
        dealer = start.total
        seen.add(dealer)
        finals = dealer_draw.finals(start.low, start.ace)
        memo: dict[tuple[int, bool], Fraction] = {}

        def value(
            low: int,
            ace: bool,
            dealer: Total = dealer,
            finals: Mapping[Total, Fraction] = finals,
            memo: dict[tuple[int, bool], Fraction] = memo,
        ) -> Fraction:
            known = memo.get((low, ace))
            if known is not None:
                return known
            player = total_from(low, ace)
            forced = _forced(rules, player, dealer)
            stand = _stand_2124(rules, player, finals)
            hit: Fraction | None = None
            if forced is not Action.STAND:
                hit = Fraction(0)
                for points, is_ace, p in odds.points():
                    hit += p * value(low + points, ace or is_ace)
                hit *= geometric(odds.joker)
            if forced is not None:
                choice = forced
            else:
                assert hit is not None
                choice = Action.HIT if hit > stand else Action.STAND
            best = hit if choice is Action.HIT else stand
            assert best is not None
            if not player.bust:
                cells.append(StrategyCell(player, dealer, stand, hit, forced, choice))
            memo[(low, ace)] = best
            return best

        for low in range(0, 28):
            for ace in (False, True):
                if ace and low < 1:
                    continue
                value(low, ace)
    cells.sort(key=lambda c: (c.dealer.soft, c.dealer.value, c.player.soft, c.player.value))
    return TwentyOneStrategy(tuple(cells))


def analyze_21_24_27(
    rules: TwentyOne2427Rules | None = None,
    hits: Hits | None = None,
    odds: DrawOdds | None = None,
    label: str = "the source's 18-row basic strategy",
) -> GameReport:
    """Exact outcomes of 21-24-27 with the player's free decisions made by ``hits``."""
    rules = rules or TwentyOne2427Rules()
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    play = hits or BASIC_STRATEGY.hits
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    starts = two_card_starts(odds, rules.initial_27s, rules.joanca_joker_second)
    outcomes = {"player": Fraction(0), "dealer": Fraction(0), "push": Fraction(0)}
    lines: dict[str, Fraction] = {}

    def add(outcome: str, line: str, p: Fraction) -> None:
        outcomes[outcome] += p
        lines[line] = lines.get(line, Fraction(0)) + p

    walker = _Player2124(rules, odds, play)

    def line(player: Total, final: Total) -> str:
        outcome, _ = compare2124(player, final, rules)
        if outcome == "player" and final.bust:
            return "dealer over 27"
        return {"player": "player wins", "dealer": "dealer wins", "push": "push"}[outcome]

    showdown = showdowns(dealer_draw, line)
    for player, pp in by_total(starts).items():
        for dealer, pd in by_total(starts).items():
            p = pp * pd
            if player.kind or dealer.kind:
                if player.kind and dealer.kind:
                    outcome = rules.both_initial_27s
                    add(outcome, f"both initial 27s ({outcome})", p)
                elif player.kind:
                    add("player", "player's initial 27", p)
                else:
                    add("dealer", "dealer's initial 27", p)
                continue
            for total, q in walker.finals(dealer.total, player.low, player.ace).items():
                if total.bust:
                    add("dealer", "player over 27", p * q)
                    continue
                for name, r in showdown(dealer, total).items():
                    add(_WHO[name], name, p * q * r)
    return twentyone_report(rules, outcomes, lines, label)


def twentyone_report(
    rules: TwentyOne2427Rules,
    outcomes: Mapping[str, Fraction],
    lines: Mapping[str, Fraction],
    label: str,
) -> GameReport:
    """21-24-27's report from each outcome's chance and each line's (also read by the
    finite-shoe analysis, :mod:`cardroom.games.finnish.shoe_twentyone`, which replaces the
    model line)."""
    order = [
        ("player's initial 27", "player"),
        ("player wins", "player"),
        ("dealer over 27", "player"),
        (f"both initial 27s ({rules.both_initial_27s})", rules.both_initial_27s),
        ("push", "push"),
        ("dealer's initial 27", "dealer"),
        ("dealer wins", "dealer"),
        ("player over 27", "dealer"),
    ]
    paid = fee_scale(rules.fee_per_100)
    wager_lines = tuple(
        Line(name, lines.get(name, Fraction(0)), paid(_net2124(rules, who))) for name, who in order
    )
    report = WagerReport("player", wager_lines)
    assumptions = (MODEL, f"the player plays {label}", *fee_assumption(rules.fee_per_100))
    return GameReport("21-24-27", dict(outcomes), {"player": report}, assumptions, replacement=True)


_WHO = {
    "player wins": "player",
    "dealer over 27": "player",
    "dealer wins": "dealer",
    "push": "push",
}


class _Player2124:
    """The player's final totals in 21-24-27, memoised across starts."""

    def __init__(self, rules: TwentyOne2427Rules, odds: DrawOdds, hits: Hits) -> None:
        self.rules = rules
        self.odds = odds
        self.hits = hits
        self.memo: dict[tuple[Total, int, bool], dict[Total, Fraction]] = {}

    def finals(self, dealer: Total, low: int, ace: bool) -> dict[Total, Fraction]:
        key = (dealer, low, ace)
        known = self.memo.get(key)
        if known is not None:
            return known
        player = total_from(low, ace)
        forced = _forced(self.rules, player, dealer)
        hit = forced is Action.HIT or (forced is None and self.hits(player, dealer))
        result: dict[Total, Fraction] = {}
        if not hit:
            result[player] = Fraction(1)
        else:
            loop = geometric(self.odds.joker)
            for points, is_ace, p in self.odds.points():
                for final, q in self.finals(dealer, low + points, ace or is_ace).items():
                    result[final] = result.get(final, Fraction(0)) + p * q * loop
        self.memo[key] = result
        return result
