"""cardroom's results as pandas DataFrames: the figures the frames hold are the results'
own (the exact Fractions beside the floats), and their columns are the documented ones."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from cardroom.app.frames import (
    decisions_frame,
    effects_frame,
    lines_frame,
    outcomes_frame,
    rounds_frame,
    simulation_frame,
    strategy_frame,
    wagers_frame,
)
from cardroom.app.history import RoundRecord
from cardroom.app.runner import run
from cardroom.core.cards import RANKS
from cardroom.games import GAMES
from cardroom.games.chemin_de_fer.analysis import solve_infinite
from cardroom.games.finnish.comparison import StrategyComparison, StrategyRow, summarise
from cardroom.games.finnish.hands import Total
from cardroom.games.finnish.twentyone_analysis import solve_21_24_27
from cardroom.games.spec import AnalysisAsk

HOUSE = [g for g in GAMES.values() if g.kind == "house" and g.analyze is not None]
BACCARAT = next(g for g in HOUSE if not g.decisions and "banker" in g.wager_ids)
DECIDES = next(g for g in HOUSE if g.decisions)


def test_an_analysis_as_frames_holds_its_exact_figures() -> None:
    rules = BACCARAT.default_rules()
    assert BACCARAT.analyze is not None
    report = BACCARAT.analyze(rules, AnalysisAsk()).report
    outcomes = outcomes_frame(report)
    assert list(outcomes.columns) == ["probability", "probability_exact"]
    assert sum(outcomes["probability_exact"]) == 1
    wagers = wagers_frame(report)
    for name, wager in report.wagers.items():
        assert wagers.loc[name, "house_edge_exact"] == wager.house_edge
        assert wagers.loc[name, "house_edge"] == pytest.approx(float(wager.house_edge))
    lines = lines_frame(report)
    assert list(lines.columns) == [
        "wager",
        "line",
        "probability",
        "probability_exact",
        "payout",
        "payout_exact",
        "contribution",
        "contribution_exact",
    ]
    by_wager = lines.groupby("wager")["contribution_exact"].sum()
    assert all(by_wager[w] == report.wagers[w].expected for w in report.wagers)
    assert wagers.attrs["game"] == BACCARAT.id and outcomes.attrs["model"] == report.model


def test_effects_of_removal_as_a_frame() -> None:
    ranks = RANKS[:3]
    effects = {"player": {r: Fraction(n, 1000) for n, r in enumerate(ranks)}}
    frame = effects_frame(effects)
    assert list(frame.index) == [str(r) for r in sorted(ranks)]
    assert frame.attrs["exact"]["player"][str(ranks[1])] == Fraction(1, 1000)


def test_a_simulation_as_a_frame_sits_beside_the_exact_means() -> None:
    rules = BACCARAT.default_rules()
    result = run(BACCARAT.id, rules, 20_000, seed=7)
    exact = BACCARAT.exact_means(rules, "basic", True)
    frame = simulation_frame(result, exact)
    assert list(frame.columns) == [
        "mean",
        "std_dev",
        "std_error",
        "ci95_low",
        "ci95_high",
        "exact",
        "z",
    ]
    assert list(frame.index) == list(result.wager_ids)
    assert frame.attrs["rounds"] == 20_000 and frame.attrs["seed"] == 7
    for wager in result.wager_ids:
        assert frame.loc[wager, "mean"] == result.wager(result.wager_ids.index(wager)).mean
        assert frame.loc[wager, "exact"] == pytest.approx(float(exact[wager]))
        assert abs(frame.loc[wager, "z"]) < 6  # (a seeded run: it is what it is)


def test_a_strategy_and_a_history_as_frames() -> None:
    strategy = solve_21_24_27(DECIDES.default_rules())
    frame = strategy_frame(strategy)
    assert len(frame) == len(strategy.cells)
    free = frame[frame["forced"].isna()]
    assert set(free["choice"]) <= {"hit", "stand"} and len(free) > 0
    record = RoundRecord(
        game=BACCARAT.id,
        rules="",
        seats=("You",),
        cards=(),
        decisions=(),
        wagers=(),
        outcome="banker",
        events=(),
    )
    history = rounds_frame([record, record])
    assert list(history.columns) == ["game", "outcome", "staked", "net", "cards", "decisions"]
    assert list(history["net"]) == [0, 0] and len(history) == 2


def test_chemin_de_fer_s_solved_coup_as_a_frame() -> None:
    """Kemeny and Snell's game: the player draws at 5 with chance 9/11, and the banker
    mixes only at 6 when the player stood, drawing with chance 859/2288."""
    solution = solve_infinite()
    frame = decisions_frame(solution)
    assert len(frame) == 1 + len(solution.banker)
    player = frame.iloc[0]
    assert player["side"] == "player" and player["draw_exact"] == Fraction(9, 11)
    banker_mixes = frame[(frame["side"] == "banker") & (frame["draw"] > 0) & (frame["draw"] < 1)]
    assert banker_mixes[["banker_total", "player_third"]].values.tolist() == [[6, "stood"]]
    assert list(banker_mixes["draw_exact"]) == [Fraction(859, 2288)]
    banker = frame[frame["side"] == "banker"]
    assert list(banker["draw_exact"]) == list(solution.banker.values())
    assert str(banker["banker_total"].dtype) == "Int64"
    assert frame.attrs["value"] == solution.value and frame.attrs["game"] == "chemin-de-fer"


def test_a_table_beside_the_best_one_as_a_frame() -> None:
    """The Finnish games' ``strategy`` gives the given table beside the best one: one
    row per dealer total, the targets as nullable integers, and the edges exact."""
    hard, soft = Total(10), Total(10, soft=True)
    given = {Total(v): v < 22 for v in range(15, 28)}
    best = {**given, Total(22): True}
    comparison = StrategyComparison(
        game="21-24-27",
        given_name="the source's",
        best_name="optimal",
        rows=(
            StrategyRow(hard, summarise(hard, given), summarise(hard, best), (Total(22),)),
            StrategyRow(soft, summarise(soft, {}), summarise(soft, {}), ()),
        ),
        house_edges={"the source's": {"player": Fraction(1, 97)}},
        notes=(),
    )
    frame = decisions_frame(comparison)
    assert frame[["dealer", "given_hard", "best_hard", "differences"]].values.tolist() == [
        ["hard 10", 22, 23, "hard 22"],
        ["soft 10", pd.NA, pd.NA, ""],
    ]
    assert str(frame["best_hard"].dtype) == "Int64"
    assert frame.attrs["house_edges"] == {"the source's": {"player": Fraction(1, 97)}}
