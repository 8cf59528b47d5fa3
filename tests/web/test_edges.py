"""The house-edge figures: computed once, in a child process, never while a page waits;
chemin de fer's solved coup: once per rules, however many requests ask at once."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from fractions import Fraction
from typing import Any

from cardroom.core.money import percent_text
from cardroom.games import get_game
from cardroom.games.chemin_de_fer import ChemmyRules
from cardroom.games.chemin_de_fer.analysis import ChemmySolution, solve_infinite
from cardroom.web.edges import ChemmySolutions, HouseEdges, analyser_means


def test_the_figures_come_from_the_analyser_in_a_child_process() -> None:
    rules = get_game("punto-banco").default_rules()
    edges = HouseEdges(analyser_means)  # the server's way: a child process
    try:
        assert edges.get("punto-banco", rules).status == "computing"
        edges.wait(timeout=120)
        ready = edges.get("punto-banco", rules)
        assert ready.status == "ready" and ready.means == analyser_means("punto-banco", rules)
        data = ready.to_json()["wagers"]["tie"]
        assert data["house_edge_percent"] == "14.3596"
    finally:
        edges.close()


def broken(game_id: str, rules: Any) -> dict[str, Fraction]:
    raise ValueError("no figures for you")


def test_a_failure_is_reported_not_raised() -> None:
    rules = get_game("baccarat27").default_rules()
    edges = HouseEdges(broken)
    try:
        edges.get("baccarat27", rules)
        edges.wait(timeout=120)
        failed = edges.get("baccarat27", rules)
        assert failed.status == "failed" and "no figures for you" in failed.message
        assert failed.to_json() == {"status": "failed", "error": failed.message}
    finally:
        edges.close()


def whose(game_id: str, rules: Any) -> dict[str, Fraction]:
    """The process that computed the figures, and a way to make it stop."""
    if rules.table.minimum == 7:
        os._exit(3)  # the analyser dies in the middle of its work
    return {"pid": Fraction(os.getpid())}


def test_one_analyser_process_serves_one_computation_after_another() -> None:
    game = get_game("punto-banco")
    first, second, dying = (
        replace(game.default_rules(), table=replace(game.default_rules().table, minimum=m))
        for m in (5, 6, 7)
    )
    edges = HouseEdges(whose)
    try:
        for rules in (first, second, dying):
            edges.get("punto-banco", rules)
        edges.wait(timeout=120)
        a, b, c = (edges.get("punto-banco", r) for r in (first, second, dying))
        assert a.means is not None and b.means is not None
        assert a.means["pid"] == b.means["pid"] != os.getpid()  # started once, kept
        assert c.status == "failed" and c.message == "the analyser stopped before it finished"
        again = replace(first, table=replace(first.table, minimum=8))
        edges.get("punto-banco", again)  # a new analyser takes over
        edges.wait(timeout=120)
        d = edges.get("punto-banco", again)
        assert d.means is not None and d.means["pid"] not in (a.means["pid"], os.getpid())
    finally:
        edges.close()


def test_percentages_are_the_exact_figure_rounded_only_at_the_end() -> None:
    assert percent_text(Fraction(1, 3)) == "33.3333"
    assert percent_text(Fraction(-1, 200)) == "-0.5000"
    assert percent_text(Fraction(123456789, 10**10)) == "1.2346"


def test_chemin_de_fer_is_solved_once_per_rules_however_many_ask() -> None:
    solved = solve_infinite()  # quick; stands in for the table's shoe
    calls: list[ChemmyRules] = []

    def slow(rules: ChemmyRules) -> ChemmySolution:
        calls.append(rules)
        time.sleep(0.2)  # both requests arrive while it works
        return solved

    solutions = ChemmySolutions(slow)
    rules = ChemmyRules()
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: solutions.get(rules), range(2)))
    assert calls == [rules] and all(a.solution is solved for a in answers)
    assert solutions.get(ChemmyRules()).solution is solved and len(calls) == 1
    data = answers[0].to_json()
    assert data["banker"] == {"exact": "679568/53094899", "percent": "1.2799"}
    assert data["player_draw"] == {"exact": "9/11", "percent": "81.82"}
    assert data["mixed"] == [
        {
            "holding": "6",
            "against": "the player stood",
            "draw": {"exact": "859/2288", "percent": "37.54"},
        }
    ]
    assert data["house"]["exact"] == "0" and data["cards"] == [] and data["by_cards"] == []
    six = data["by_total"][6]["cells"]
    assert [c["text"] for c in six] == ["S"] * 6 + ["D", "D", "S", "S", "37.5%"]


def test_chemin_de_fer_rules_the_analyser_cannot_solve_say_why() -> None:
    two_free = ChemmyRules(player_must_draw_below=4)
    data = ChemmySolutions().get(two_free).to_json()
    assert (
        data["status"] == "failed" and "exactly one total where the player chooses" in data["error"]
    )
