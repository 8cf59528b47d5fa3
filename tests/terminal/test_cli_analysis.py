"""`cardroom analyze` and `cardroom strategy` from the command line."""

from __future__ import annotations

import json
from fractions import Fraction

from typer.testing import CliRunner

from cardroom.terminal.cli import app


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_analyze_punto_banco_json_has_exact_outcomes_and_wagers() -> None:
    code, out, _ = run("analyze", "punto-banco", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data["outcomes"]) == {"player", "banker", "tie"}
    assert data["combinations"]["banker"] == 2_292_252_566_437_888
    banker = data["wagers"]["banker"]
    assert Fraction(banker["house_edge"]) == Fraction(114753351728, 10847218479825)
    assert banker["house_edge_decimal"].startswith("0.010579")
    assert {"house_edge", "std_dev", "lines"} <= set(banker)
    assert sum(Fraction(line["probability"]) for line in banker["lines"]) == 1


def test_analyze_baccarat27_with_six_decks_and_effects_of_removal() -> None:
    code, out, _ = run("analyze", "baccarat27", "--decks", "6", "--json", "--eor")
    assert code == 0
    data = json.loads(out)
    assert Fraction(data["wagers"]["player_pair"]["house_edge"]) == Fraction(35, 311)
    assert set(data["effects_of_removal"]) == set(data["wagers"])
    assert set(data["effects_of_removal"]["b27"]) >= {"A", "7", "K"}


def test_analyze_shows_tables_for_people() -> None:
    code, out, _ = run("analyze", "punto-banco", "--eor")
    assert code == 0
    assert "banker: house edge 1.0579%" in out and "2,292,252,566,437,888" in out
    assert "Effects of removal" in out


def test_analyze_says_clearly_what_is_not_built_yet() -> None:
    code, _, err = run("analyze", "finnish27", "--infinite", "--decks", "6")
    assert code == 2 and "without it they are counted from the real shoe" in err
    code, _, err = run("analyze", "chemin-de-fer")
    assert code == 2 and "cardroom strategy chemin-de-fer" in err
    code, _, err = run("strategy", "baccarat27")
    assert code == 2 and "no decision" in err


def test_strategy_chemin_de_fer_infinite_is_kemeny_snell() -> None:
    code, out, _ = run("strategy", "chemin-de-fer", "--infinite", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["player_draw_at_5"] == "9/11"
    assert Fraction(data["value"]) == Fraction(679568, 53094899)


def test_strategy_chemin_de_fer_finite_shoe_for_people() -> None:
    code, out, _ = run("strategy", "chemin-de-fer", "--decks", "8")
    assert code == 0 and "163305/201968" in out
    code, _, err = run("strategy", "chemin-de-fer", "--decks", "8", "--infinite")
    assert code == 2 and "not both" in err
