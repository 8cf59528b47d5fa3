"""The house-edge figures: computed once, in a child process, never while a page waits."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cardroom.games import get_game
from cardroom.web.edges import HouseEdges, analyser_means, percent_text


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


def test_percentages_are_the_exact_figure_rounded_only_at_the_end() -> None:
    assert percent_text(Fraction(1, 3)) == "33.3333"
    assert percent_text(Fraction(-1, 200)) == "-0.5000"
    assert percent_text(Fraction(123456789, 10**10)) == "1.2346"
