"""A game's given hit/stand table beside the best one, and what each is worth.

:func:`summarise` reads one dealer total's decisions as "hit to hard X, soft Y"
(:class:`TargetSummary`).  A :class:`StrategyComparison` puts a game's given table and
the best one side by side, a row per dealer total (:class:`StrategyRow`), with each
table's house edge on every wager.  :func:`strategy_comparison` makes one with cards
drawn with replacement: 21-24-27's basic strategy from the source beside the optimal
one, and finnish27's table beside the best table for the player wager
(:func:`finnish27_comparison`, which the finite-shoe analysis also uses, its edges then
counted in the real shoe).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from cardroom.analysis.report import GameReport, decimal_text, fraction_text
from cardroom.games.base import Action
from cardroom.games.finnish.analysis import analyze_finnish27, best_finnish27_table, table_hits
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.hands import Total
from cardroom.games.finnish.replacement import MODEL, Hits
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_analysis import analyze_21_24_27, solve_21_24_27

__all__ = [
    "BEST_TABLE_NOTE",
    "Count",
    "StrategyComparison",
    "StrategyRow",
    "TargetSummary",
    "finnish27_comparison",
    "strategy_comparison",
    "summarise",
]


# -- tables of targets ------------------------------------------------------------
@dataclass(frozen=True)
class TargetSummary:
    """A dealer total's decisions read as "hit to hard X, soft Y" where they can be.

    ``None`` means the player has no such decision to make (the rules force it).

    ``hard`` / ``soft`` is the lowest total the player stands on among the free
    (or, in finnish27, all) decisions, with every higher one standing too; totals
    where the decisions do not follow one threshold are listed in ``exceptions``.
    """

    dealer: Total
    hard: int | None
    soft: int | None
    exceptions: tuple[Total, ...]

    def label(self) -> str:
        if self.hard is not None and self.soft is not None:
            text = f"hit to hard {self.hard}, soft {self.soft}"
        else:
            text = ", ".join(
                f"{kind} forced" if value is None else f"hit to {kind} {value}"
                for kind, value in (("hard", self.hard), ("soft", self.soft))
            )
        if self.exceptions:
            text += " (except " + ", ".join(str(t) for t in self.exceptions) + ")"
        return text


def summarise(dealer: Total, decisions: Mapping[Total, bool]) -> TargetSummary:
    """Read ``decisions`` (player total -> hits?) as hit-to-target thresholds."""
    targets: dict[bool, int | None] = {}
    exceptions: list[Total] = []
    for soft in (False, True):
        cells = sorted((t for t in decisions if t.soft == soft), key=lambda t: t.value)
        stands = [t.value for t in cells if not decisions[t]]
        target = None
        if cells and not stands:
            target = cells[-1].value + 1  # hits every total it may: "hit to" the next
        if stands:
            # the lowest total from which every higher one stands
            target = stands[-1]
            for t in reversed(cells):
                if decisions[t]:
                    break
                target = t.value
        targets[soft] = target
        exceptions += [
            t for t in cells if target is not None and t.value < target and not decisions[t]
        ]
    return TargetSummary(dealer, targets[False], targets[True], tuple(exceptions))


# -- strategy comparisons -----------------------------------------------------------
@dataclass(frozen=True)
class StrategyRow:
    """One dealer total: the rules' (or source's) table beside the best one."""

    dealer: Total
    given: TargetSummary
    best: TargetSummary
    differences: tuple[Total, ...]  # player totals where the two decide differently


@dataclass(frozen=True)
class StrategyComparison:
    """A game's given hit/stand table beside the best one, and what each is worth."""

    game: str
    given_name: str
    best_name: str
    rows: tuple[StrategyRow, ...]
    house_edges: dict[str, dict[str, Fraction]]  # table name -> wager -> house edge
    notes: tuple[str, ...]
    #: what the edges are counted in: with replacement, or the real shoe (its words)
    model: str = MODEL

    def decision_rows(self) -> list[dict[str, Any]]:
        """One row per dealer total: the given table's targets and the best one's
        (``None``: that kind of total is forced), each in words, and the player totals
        where the two decide differently."""
        return [
            {
                "dealer": str(r.dealer),
                "given_hard": r.given.hard,
                "given_soft": r.given.soft,
                "given": r.given.label(),
                "best_hard": r.best.hard,
                "best_soft": r.best.soft,
                "best": r.best.label(),
                "differences": " ".join(str(t) for t in r.differences),
            }
            for r in self.rows
        ]

    def figures(self) -> dict[str, Any]:
        """What the comparison is of, and each table's exact house edge by wager."""
        return {
            "game": self.game,
            "model": self.model,
            "given": self.given_name,
            "best": self.best_name,
            "house_edges": {name: dict(edges) for name, edges in self.house_edges.items()},
        }

    def to_json(self) -> dict[str, Any]:
        def total(t: Total) -> str:
            return str(t)

        def summary(s: TargetSummary) -> dict[str, Any]:
            return {
                "hard": s.hard,
                "soft": s.soft,
                "exceptions": [total(t) for t in s.exceptions],
                "label": s.label(),
            }

        return {
            "game": self.game,
            "model": self.model,
            "given": self.given_name,
            "best": self.best_name,
            "rows": [
                {
                    "dealer": total(r.dealer),
                    "given": summary(r.given),
                    "best": summary(r.best),
                    "differences": [total(t) for t in r.differences],
                }
                for r in self.rows
            ],
            "house_edges": {
                name: {w: fraction_text(e) for w, e in edges.items()}
                for name, edges in self.house_edges.items()
            },
            "house_edges_decimal": {
                name: {w: decimal_text(e) for w, e in edges.items()}
                for name, edges in self.house_edges.items()
            },
            "notes": list(self.notes),
        }


def _rows(
    given: Callable[[Total, Total], bool], best: Mapping[Total, Mapping[Total, bool]]
) -> tuple[StrategyRow, ...]:
    rows = []
    for dealer in sorted(best, key=lambda t: (t.soft, t.value)):
        mine = {player: given(player, dealer) for player in best[dealer]}
        differ = tuple(p for p in best[dealer] if mine[p] != best[dealer][p])
        rows.append(
            StrategyRow(
                dealer, summarise(dealer, mine), summarise(dealer, best[dealer]), tuple(differ)
            )
        )
    return tuple(rows)


def _edges(report: GameReport) -> dict[str, Fraction]:
    return {name: wager.house_edge for name, wager in report.wagers.items()}


@lru_cache(maxsize=4)
def strategy_comparison(game: str, rules: Any) -> StrategyComparison:
    """``21-24-27``: the source's basic strategy beside the optimal one;
    ``finnish27``: the rules' table (the source's nine rules) beside the best table for
    the player wager.

    Kept for the next call with the same (immutable) rules: it takes seconds to a minute.
    """
    if game == "21-24-27":
        rules = rules or TwentyOne2427Rules()
        solution = solve_21_24_27(rules)
        best: dict[Total, dict[Total, bool]] = {}
        for cell in solution.cells:
            if cell.free:
                best.setdefault(cell.dealer, {})[cell.player] = cell.choice is Action.HIT
        for cell in solution.cells:
            best.setdefault(cell.dealer, {})
        source = analyze_21_24_27(rules)
        optimal = analyze_21_24_27(rules, solution.hits, label="the optimal strategy")
        return StrategyComparison(
            game,
            "the source's basic strategy",
            "optimal",
            _rows(BASIC_STRATEGY.hits, best),
            {
                "source's basic strategy": _edges(source),
                "optimal total-dependent strategy": _edges(optimal),
                "composition-dependent play": _edges(optimal),
            },
            (
                "only the free decisions are shown: the rules make the others",
                "with cards drawn with replacement a hand's cards tell nothing beyond its "
                "total, so composition-dependent play is the total-dependent optimum; in the "
                "finite shoe it would gain a little more (not computed)",
            ),
        )
    if game == "finnish27":
        return finnish27_comparison(rules or Finnish27Rules())
    raise ValueError(f"game: {game} has no hit/stand table to compare")


#: counts finnish27 with the player's table ``hits`` (None: the rules' own), ``label``
#: naming it
Count = Callable[[Hits | None, str | None], GameReport]

#: what finnish27's best table is, in words
BEST_TABLE_NOTE = (
    "the best table maximises the player wager's 1:1 part with cards drawn with "
    "replacement, from totals alone; bonuses aside"
)


def finnish27_comparison(rules: Finnish27Rules, count: Count | None = None) -> StrategyComparison:
    """finnish27's table (the source's nine rules) beside the best table for the player
    wager (found with cards drawn with replacement), each table's edges counted by
    ``count`` (by default with replacement too)."""
    table = best_finnish27_table(rules)

    def replaced(hits: Hits | None, label: str | None) -> GameReport:
        return analyze_finnish27(rules, hits=hits, label=label)

    count = count or replaced
    given = count(None, None)
    better = count(table_hits(table), "the best table")
    return StrategyComparison(
        "finnish27",
        f"the {rules.table_name}",
        "best for the player wager",
        _rows(rules.strategy.hits, table),
        {rules.table_name: _edges(given), "best table for the player wager": _edges(better)},
        (BEST_TABLE_NOTE,),
    )
