"""cardroom's results as pandas DataFrames, for a notebook: an exact analysis, its
effects of removal, a simulation, 21-24-27's strategy and a history of rounds.

Every exact figure comes twice: a float column to plot and sort (``probability``), and
the exact :class:`~fractions.Fraction` beside it (``probability_exact``, an ``object``
column), so nothing is lost to rounding when a mathematician needs the figure itself.
Money in a history is exact too (Fractions of a unit). The columns of each frame are
listed in ``docs/frames.md``; a frame's ``attrs`` hold what it is of (the game, the
model, the seed).

>>> from cardroom.games import GAMES
>>> from cardroom.games.spec import AnalysisAsk
>>> game = GAMES["punto-banco"]
>>> assert game.analyze is not None
>>> frame = wagers_frame(game.analyze(game.default_rules(), AnalysisAsk()).report)
>>> frame.loc["banker", "house_edge_exact"]
Fraction(114753351728, 10847218479825)
>>> round(float(frame.loc["banker", "house_edge"]), 6)
0.010579
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import pandas as pd

from cardroom.analysis.report import GameReport
from cardroom.app.history import RoundRecord
from cardroom.app.runner import RunResult
from cardroom.core.cards import Rank

__all__ = [
    "decisions_frame",
    "effects_frame",
    "lines_frame",
    "outcomes_frame",
    "rounds_frame",
    "simulation_frame",
    "strategy_frame",
    "wagers_frame",
]


def _attrs(frame: pd.DataFrame, **attrs: Any) -> pd.DataFrame:
    frame.attrs.update(attrs)
    return frame


def _report_attrs(report: GameReport) -> dict[str, Any]:
    return {"game": report.game, "model": report.model, "replacement": report.replacement}


def outcomes_frame(report: GameReport) -> pd.DataFrame:
    """One row per outcome (the index): ``probability`` and ``probability_exact``."""
    frame = pd.DataFrame(
        {
            "probability": [float(p) for p in report.outcomes.values()],
            "probability_exact": list(report.outcomes.values()),
        },
        index=pd.Index(list(report.outcomes), name="outcome"),
    )
    return _attrs(frame, **_report_attrs(report))


def wagers_frame(report: GameReport) -> pd.DataFrame:
    """One row per wager (the index): ``house_edge``, ``expected``, ``variance``,
    ``std_dev`` and ``hit_frequency`` per unit staked, each with its ``_exact``
    Fraction (``std_dev`` is a square root: a float only)."""
    rows = []
    for name, wager in report.wagers.items():
        rows.append(
            {
                "wager": name,
                "house_edge": float(wager.house_edge),
                "house_edge_exact": wager.house_edge,
                "expected": float(wager.expected),
                "expected_exact": wager.expected,
                "variance": float(wager.variance),
                "variance_exact": wager.variance,
                "std_dev": float(wager.std_dev),
                "hit_frequency": float(wager.hit_frequency),
                "hit_frequency_exact": wager.hit_frequency,
            }
        )
    frame = pd.DataFrame(rows).set_index("wager")
    return _attrs(frame, **_report_attrs(report))


def lines_frame(report: GameReport) -> pd.DataFrame:
    """One row per way each wager resolves: ``wager``, ``line`` (its name),
    ``probability``, ``payout`` (net per unit staked), ``contribution`` (their
    product, the line's share of the expected result), each with its ``_exact``."""
    rows = []
    for name, wager in report.wagers.items():
        for line in wager.lines:
            rows.append(
                {
                    "wager": name,
                    "line": line.name,
                    "probability": float(line.probability),
                    "probability_exact": line.probability,
                    "payout": float(line.payout),
                    "payout_exact": line.payout,
                    "contribution": float(line.contribution),
                    "contribution_exact": line.contribution,
                }
            )
    return _attrs(pd.DataFrame(rows), **_report_attrs(report))


def effects_frame(effects: Mapping[str, Mapping[Rank, Fraction]]) -> pd.DataFrame:
    """Effects of removal: one row per rank removed (the index, as the rank's symbol),
    a column per wager (the change of its expected result per unit, a float); the
    exact Fractions are in ``frame.attrs["exact"]`` by wager and rank."""
    ranks = sorted({rank for by_rank in effects.values() for rank in by_rank})
    frame = pd.DataFrame(
        {wager: [float(by_rank.get(r, 0)) for r in ranks] for wager, by_rank in effects.items()},
        index=pd.Index([str(r) for r in ranks], name="rank"),
    )
    return _attrs(frame, exact={w: {str(r): v for r, v in e.items()} for w, e in effects.items()})


def simulation_frame(
    result: RunResult, exact: Mapping[str, Fraction] | None = None
) -> pd.DataFrame:
    """One row per wager (the index): ``mean`` net per unit staked, ``std_dev``,
    ``std_error``, ``ci95_low`` and ``ci95_high``, and with ``exact`` means (a game's
    ``exact_means``) the ``exact`` value and ``z`` (standard errors between them).
    ``attrs``: the game, rounds, seed, shoes and the outcome counts."""
    rows = []
    for index, wager in enumerate(result.wager_ids):
        figures = result.wager(index, None if exact is None else exact.get(wager))
        low, high = figures.ci95
        rows.append(
            {
                "wager": wager,
                "mean": figures.mean,
                "std_dev": figures.std_dev,
                "std_error": figures.std_error,
                "ci95_low": low,
                "ci95_high": high,
                "exact": None if figures.exact is None else float(figures.exact),
                "z": figures.z,
            }
        )
    frame = pd.DataFrame(rows).set_index("wager")
    return _attrs(
        frame,
        game=result.game,
        rounds=result.rounds,
        seed=result.seed,
        shoes=result.shoes,
        outcomes=result.outcome_counts(),
    )


def strategy_frame(strategy: Any) -> pd.DataFrame:
    """A solved strategy's cells (21-24-27's ``TwentyOneStrategy``): one row per
    decision, ``player`` and ``dealer`` (the totals as the rules write them),
    ``stand`` and ``hit`` (the expected net of each per unit; ``hit`` missing where
    the player must stand), each with its ``_exact``, ``forced`` (the rules' forced
    play, or None) and ``choice``."""
    rows = []
    for cell in strategy.cells:
        rows.append(
            {
                "player": str(cell.player),
                "dealer": str(cell.dealer),
                "stand": float(cell.stand),
                "stand_exact": cell.stand,
                "hit": None if cell.hit is None else float(cell.hit),
                "hit_exact": cell.hit,
                "forced": None if cell.forced is None else str(cell.forced),
                "choice": str(cell.choice),
            }
        )
    return pd.DataFrame(rows)


def decisions_frame(solution: Any) -> pd.DataFrame:
    """A game's best play as its ``strategy`` gives it (chemin de fer's equilibrium; the
    Finnish games' best table beside the given one): the rows its ``decision_rows()``
    gives, in order, each Fraction column as a float with its ``_exact`` beside it,
    whole numbers with gaps as nullable integers; ``attrs`` hold its ``figures()``
    (exact)."""
    rows = []
    for row in solution.decision_rows():
        flat: dict[str, Any] = {}
        for name, value in row.items():
            if isinstance(value, Fraction):
                flat[name] = float(value)
                flat[f"{name}_exact"] = value
            else:
                flat[name] = value
        rows.append(flat)
    frame = pd.DataFrame(rows)
    for name in frame.columns:  # whole numbers with gaps: pandas' nullable integers
        values = [row[name] for row in rows if row.get(name) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            frame[name] = frame[name].astype("Int64")
    return _attrs(frame, **solution.figures())


def rounds_frame(records: Iterable[RoundRecord], seat: int = 0) -> pd.DataFrame:
    """A history: one row per round, in the order given: ``game``, ``outcome``,
    ``staked`` and ``net`` (what ``seat`` staked and won or lost, all its wagers, exact
    Fractions of a unit), ``cards`` (the cards dealt, in order, as codes) and
    ``decisions`` (how many the round asked for)."""
    rows = []
    for record in records:
        rows.append(
            {
                "game": record.game,
                "outcome": record.outcome,
                "staked": sum(record.staked(seat).values(), Fraction(0)),
                "net": record.net(seat),
                "cards": " ".join(str(c) for c in record.cards),
                "decisions": len(record.decisions),
            }
        )
    columns = ["game", "outcome", "staked", "net", "cards", "decisions"]
    return pd.DataFrame(rows, columns=columns)
