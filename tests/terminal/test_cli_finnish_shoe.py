"""The command line of the finite-shoe analyses of the Finnish games: `cardroom analyze`
(the real shoe by default, `--infinite` for cards drawn with replacement, `--decks`,
`--eor`), `cardroom strategy 21-24-27` and `cardroom simulate --fresh-shoe`."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from typer.testing import CliRunner

from cardroom.core.cards import Rank
from cardroom.games.finnish import shoe as finnish_shoe
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.terminal.cli import app
from tests.games.finnish.test_shoe import POKER_SHOE, TWENTYONE_SHOE, compile_once, full_report

#: the finite-shoe kernels compile once, on one worker (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("finnish-shoe")


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    compile_once()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_analyze_finnish27_counts_the_real_shoe_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--decks 1` makes the shoe (54 cards), which a reduced shoe then stands in for:
    the analysis of full shoes is tested with the analysis."""
    real = finnish_shoe.analyze_finnish27_shoe
    given: list[ShoeMakeup] = []

    def analyze(rules: Any, shoe: ShoeMakeup, *args: Any) -> Any:
        given.append(shoe)
        return real(rules, POKER_SHOE, *args)

    monkeypatch.setattr(finnish_shoe, "analyze_finnish27_shoe", analyze)
    code, out, _ = run("analyze", "finnish27", "--decks", "1", "--json")
    assert code == 0, out
    assert given == [ShoeMakeup.of_rules(Finnish27Rules().shoe, 1)] and given[0].cards == 54
    data = json.loads(out)
    assert "without replacement" in data["assumptions"][0]
    outcomes = {name: Fraction(p) for name, p in data["outcomes"].items()}
    assert sum(outcomes.values()) == 1
    total = data["total_combinations"]
    for name, count in data["combinations"].items():
        assert Fraction(count, total) == outcomes[name]
    lines = data["wagers"]["player"]["lines"]
    assert any(line["name"] == "win + Flush 6:1" for line in lines)


def test_analyze_infinite_keeps_the_model_with_replacement() -> None:
    code, out, _ = run("analyze", "21-24-27", "--infinite", "--json")
    assert code == 0
    data = json.loads(out)
    assert "replacement" in data["assumptions"][0]
    assert data["wagers"]["player"]["house_edge_decimal"].startswith("0.010188")


def test_analyze_21_24_27_optimal_is_composition_dependent_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = finnish_shoe.composition_21_24_27_shoe
    asked: list[ShoeMakeup] = []

    def composition(rules: Any, shoe: ShoeMakeup) -> Any:
        asked.append(shoe)
        return real(rules, TWENTYONE_SHOE)  # a small shoe for the rules' own

    monkeypatch.setattr(finnish_shoe, "composition_21_24_27_shoe", composition)
    code, out, _ = run("analyze", "21-24-27", "--strategy", "optimal", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert "composition-dependent" in data["assumptions"][1]
    assert "without replacement" in data["assumptions"][0]
    assert len(asked) == 1  # (the small shoe stood in: the rules' own shoe was not counted)


def test_analyze_eor_in_the_real_shoe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring of --eor (the effects themselves are tested with the analysis): a
    small shoe stands in for the rules' so that fifteen analyses take seconds."""
    shoe = TWENTYONE_SHOE
    real_analyze = finnish_shoe.analyze_21_24_27_shoe
    real_effects = finnish_shoe.twentyone_effects_of_removal

    def analyze(rules: Any, _shoe: ShoeMakeup, *args: Any) -> Any:
        return real_analyze(rules, shoe, *args)

    def effects(rules: Any, _shoe: ShoeMakeup, *args: Any) -> Any:
        return real_effects(rules, shoe, *args)

    monkeypatch.setattr(finnish_shoe, "analyze_21_24_27_shoe", analyze)
    monkeypatch.setattr(finnish_shoe, "twentyone_effects_of_removal", effects)
    code, out, _ = run("analyze", "21-24-27", "--eor", "--json")
    assert code == 0, out
    data = json.loads(out)
    per_rank = {rank: Fraction(v) for rank, v in data["effects_of_removal"]["player"].items()}
    counts = dict(zip((r.value for r in Rank), shoe.counts, strict=True))
    assert set(per_rank) == {r for r, n in counts.items() if n}
    assert sum(counts[r] * e for r, e in per_rank.items()) == 0
    assert "real shoe" in data["effects_of_removal_model"]
    code, out, _ = run("analyze", "21-24-27", "--eor")
    assert code == 0 and "Effects of removal" in out and "real shoe" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "21-24-27", "--strategy", "optimal", "--eor"], "--strategy basic"),
        (["analyze", "punto-banco", "--infinite"], "finnish27 and 21-24-27"),
        (["analyze", "finnish27", "--infinite", "--decks", "2"], "counted from the real shoe"),
        (["strategy", "21-24-27", "--total-only"], "chemin-de-fer"),
        (["strategy", "finnish27", "--infinite", "--decks", "2"], "counted from the real shoe"),
    ],
)
def test_cli_refuses_what_does_not_apply(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert message in err


def test_strategy_21_24_27_in_the_real_shoe(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cardroom strategy 21-24-27` solves the real shoe (here a small one stands in for
    the rules', whose solution the analysis tests check)."""
    real = finnish_shoe.strategy_comparison_shoe
    monkeypatch.setattr(
        finnish_shoe,
        "strategy_comparison_shoe",
        lambda rules, shoe: real(rules, TWENTYONE_SHOE),
    )
    code, out, _ = run("strategy", "21-24-27", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert "without replacement" in data["model"]
    assert set(data["house_edges"]) == {
        "source's basic strategy",
        "best total-dependent table",
        "composition-dependent play",
    }
    edges = [Fraction(e["player"]) for e in data["house_edges"].values()]
    assert edges[0] >= edges[1] >= edges[2]
    code, out, _ = run("strategy", "21-24-27")
    assert code == 0 and "without replacement" in out and "replacement)" not in out
    assert "composition-dependent play" in out


@pytest.mark.long
def test_simulate_fresh_shoe_beside_the_exact_analysis(request: pytest.FixtureRequest) -> None:
    code, out, _ = run(
        "simulate", "21-24-27", "--rounds", "8000", "--seed", "5", "--workers", "1",
        "--fresh-shoe", "--json",
    )  # fmt: skip
    assert code == 0, out
    data = json.loads(out)
    assert data["fresh_shoe"] is True
    assert data["shoes"] == data["rounds"] == 8_000
    player = data["wagers"]["player"]
    assert (
        Fraction(player["exact"]) == -full_report(request, "21-24-27").wagers["player"].house_edge
    )
    assert abs(player["z"]) < 4
    code, out, _ = run(
        "simulate", "finnish27", "--rounds", "2000", "--workers", "1", "--fresh-shoe",
        "--no-exact",
    )  # fmt: skip
    assert code == 0 and "freshly shuffled" in out and "2,000 shoes" in out
