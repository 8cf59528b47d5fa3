"""`cardroom simulate`: JSON, sessions, the plot, and refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardroom.terminal.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_json_has_counts_means_and_intervals() -> None:
    code, out, _ = run(
        "simulate", "baccarat27", "--rounds", "200000", "--seed", "1", "--workers", "1", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["rounds"] == 200_000 and data["seconds"] > 0
    assert sum(data["outcomes"].values()) == 200_000
    assert set(data["wagers"]) == {
        "player", "banker", "tie", "player_pair", "banker_pair", "b27"
    }  # fmt: skip
    banker = data["wagers"]["banker"]
    lo, hi = banker["ci95"]
    assert lo < banker["mean"] < hi
    assert banker["exact"].count("/") == 1 and abs(banker["z"]) < 4


def test_same_seed_same_counts_whatever_the_workers() -> None:
    args = ["simulate", "punto-banco", "--rounds", "1200000", "--seed", "8", "--json"]
    one = json.loads(run(*args, "--workers", "1")[1])
    two = json.loads(run(*args, "--workers", "2")[1])
    assert one["outcomes"] == two["outcomes"]
    assert one["wagers"]["banker"]["mean"] == two["wagers"]["banker"]["mean"]


def test_sessions_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "sessions.png"
    code, out, _ = run(
        "simulate", "21-24-27", "--rounds", "50000", "--session-rounds", "100",
        "--no-exact", "--workers", "1", "--plot", str(plot), "--json",
    )  # fmt: skip
    assert code == 0
    sessions = json.loads(out)["wagers"]["player"]["sessions"]
    assert sessions["sessions"] == 500 and sessions["rounds_per_session"] == 100
    assert 0 < sessions["ahead"] < 1
    assert sessions["percentiles"]["5"] <= sessions["percentiles"]["50"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_human_output_shows_exact_beside_simulated() -> None:
    code, out, _ = run("simulate", "punto-banco", "--rounds", "100000", "--workers", "1")
    assert code == 0
    assert "95% confidence interval" in out and "standard errors between" in out
    assert "off the top" in out


def test_chemin_de_fer_both_sides_play_the_equilibrium() -> None:
    code, out, _ = run(
        "simulate", "chemin-de-fer", "--rounds", "300000", "--seed", "2", "--workers", "1",
        "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert set(data["outcomes"]) == {"player", "banker", "tie"}
    assert set(data["wagers"]) == {"player", "banker"}
    banker, player = data["wagers"]["banker"], data["wagers"]["player"]
    assert banker["mean"] == -player["mean"]  # no commission: the coup is zero-sum
    assert abs(banker["z"]) < 4
    assert banker["exact"] == "974653793197999/75340147272374985"  # 6 decks, about 1.2937%
    code, out, _ = run("simulate", "chemin-de-fer", "--rounds", "1000", "--workers", "1")
    assert code == 0 and "solved equilibrium" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "nope", "--rounds", "10"], "unknown game"),
        (["simulate", "finnish27", "--rounds", "0"], "--rounds"),
        (["simulate", "finnish27", "--rounds", "ten"], "--rounds"),
        (["simulate", "finnish27", "--rounds", "10", "--seed", "-1"], "--seed"),
        (["simulate", "finnish27", "--rounds", "10", "--strategy", "optimal"], "21-24-27 only"),
        (["simulate", "21-24-27", "--rounds", "10", "--strategy", "best"], "basic or optimal"),
        (["simulate", "finnish27", "--rounds", "10", "--plot", "x.png"], "--session-rounds"),
        (["simulate", "finnish27", "--rounds", "10", "--backend", "mpi"], "local or ray"),
        (["simulate", "finnish27", "--rounds", "10", "--session-rounds", "20"], "longer"),
        (["simulate", "chemin-de-fer", "--rounds", "10", "--strategy", "optimal"], "only"),
    ],
)
def test_bad_input_is_refused(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_a_shoe_too_big_to_shuffle_is_refused_before_any_work(tmp_path: Path) -> None:
    rules = tmp_path / "huge.toml"
    rules.write_text("[shoe]\ndecks = 700\n")  # the rules allow 64 decks (at most 3,840 cards)
    code, _, err = run("simulate", "punto-banco", "--rounds", "10", "--rules", str(rules))
    assert code == 2
    assert "'shoe.decks': must be a whole number between 1 and 64, not 700" in err


def test_a_plot_that_cannot_be_written_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cardroom.app.runner as runner_module

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the run started before the plot file was checked")

    monkeypatch.setattr(runner_module, "run", no_run)
    for plot, message in (
        ("/nonexistent/x.png", "--plot: there is no folder '/nonexistent'"),
        (str(tmp_path / "x.svg"), "--plot: the file must end in .png"),
        (str(tmp_path), "--plot: the file must end in .png"),
    ):
        code, _, err = run(
            "simulate", "punto-banco", "--rounds", "1000000", "--session-rounds", "100",
            "--no-exact", "--plot", plot,
        )  # fmt: skip
        assert code == 2 and err.startswith(f"error: {message}"), err


def test_the_session_table_fits_80_columns() -> None:
    result = runner.invoke(
        app,
        [
            "simulate",
            "baccarat27",
            "--rounds",
            "20000",
            "--session-rounds",
            "100",
            "--workers",
            "1",
            "--no-exact",
        ],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert rows and all(len(line) <= 80 for line in rows)
    assert "…" not in result.stdout
    table = result.stdout[result.stdout.index("Sessions of 100 rounds") :]
    for wager in ("player", "banker", "tie", "player_pair", "banker_pair", "b27"):
        assert wager in table
    assert "p99" in table and "ahead" in table


def test_the_exact_column_is_computed_once_per_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cardroom.app.runner as runner_module

    monkeypatch.setenv("CARDROOM_CACHE_DIR", str(tmp_path / "cache"))
    computed: list[str] = []
    real = runner_module._exact_means

    def counting(game_id: str, rules: object, strategy: str, finite: bool) -> object:
        computed.append(game_id)
        return real(game_id, rules, strategy, finite)

    monkeypatch.setattr(runner_module, "_exact_means", counting)
    args = ["simulate", "punto-banco", "--rounds", "1000", "--workers", "1", "--json"]
    first = json.loads(run(*args)[1])
    second = json.loads(run(*args)[1])
    assert computed == ["punto-banco"]  # the second run read the cache
    assert first["wagers"]["banker"]["exact"] == second["wagers"]["banker"]["exact"]
    variant = tmp_path / "nine.toml"
    variant.write_text("tie_pays = 9\n", encoding="utf-8")
    third = json.loads(run(*args, "--rules", str(variant))[1])
    assert computed == ["punto-banco", "punto-banco"]  # other rules, another entry
    assert third["wagers"]["tie"]["exact"] != first["wagers"]["tie"]["exact"]
    # a damaged entry is computed again
    for entry in (tmp_path / "cache").glob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    again = json.loads(run(*args)[1])
    assert len(computed) == 3
    assert again["wagers"]["banker"]["exact"] == first["wagers"]["banker"]["exact"]


def test_payouts_too_fine_for_64_bit_sums_are_refused_before_any_work(tmp_path: Path) -> None:
    # five denominators near 1000 multiply to ~10^15 parts of a stake: the squared nets of
    # a batch would overflow the kernels' 64-bit sums and give a wrong mean silently
    rules = tmp_path / "fine.toml"
    rules.write_text(
        'side_wagers = ["player_pair", "banker_pair", "b27"]\n'
        'player_pays = "1:997"\nbanker_pays = "1:991"\ntie_pays = "1:983"\n'
        'pair_pays = "1:977"\nb27_pays = "1:971"\n',
        encoding="utf-8",
    )
    code, _, err = run("simulate", "punto-banco", "--rounds", "1000", "--rules", str(rules))
    assert code == 2 and err.startswith("error: rules: the payouts' odds need stakes cut into")


def test_rules_the_real_shoe_cannot_count_run_without_an_exact_column(tmp_path: Path) -> None:
    """The poker award held against the dealer's hand: the simulation runs and says why
    it has no exact column; the real shoe's analysis refuses in one line, and the one
    with replacement counts it."""
    rules = tmp_path / "against.toml"
    odd = "[8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8]"  # seven ranks: a short analysis
    rules.write_text(f'[shoe]\ncards_per_rank = {odd}\n[bonus]\npoker_against_dealer = "higher"\n')
    code, out, _ = run(
        "simulate", "finnish27", "--rounds", "2000", "--workers", "1", "--rules", str(rules)
    )
    assert code == 0, out
    assert "no exact column: poker_against_dealer: the real shoe's count" in " ".join(out.split())
    code, _, err = run("analyze", "finnish27", "--rules", str(rules))
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: poker_against_dealer:")
    code, out, _ = run("analyze", "finnish27", "--rules", str(rules), "--infinite", "--json")
    assert code == 0 and "player" in json.loads(out)["wagers"]


QUICK_LINES = [
    ["simulate", "punto-banco", "--rounds", "1000"],
    ["simulate", "--rounds", "5", "finnish27", "--json", "--seed", "18446744073709551615"],
    ["simulate", "21-24-27", "--rounds", "7", "--strategy", "optimal", "--workers", "3",
     "--session-rounds", "2", "--no-exact", "--fresh-shoe", "--rules", "a.toml"],
    ["simulate", "chemin-de-fer", "--rounds", "9", "--backend", "ray", "--address", "h:1",
     "--exact"],
]  # fmt: skip


@pytest.mark.parametrize("args", QUICK_LINES)
def test_the_quick_reading_gives_what_typer_gives(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cardroom simulate``'s plain command lines are read without Typer (its pydantic
    checks are a quarter of the start-up): the command gets the very arguments Typer
    gives it."""
    from cardroom.terminal import cli, simulate_tool

    given: list[dict[str, object]] = []
    names = simulate_tool.simulate.__code__.co_varnames[:13]

    def simulate(*values: object) -> None:
        given.append(dict(zip(names, values, strict=True)))

    monkeypatch.setattr(simulate_tool, "simulate", simulate)
    code, _, err = run(*args)
    assert code == 0, err
    assert cli.quick_simulate(args) == given[0]


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "punto-banco"],  # no --rounds: Typer says it is missing
        ["simulate", "punto-banco", "--rounds", "0"],  # out of range
        ["simulate", "punto-banco", "--rounds", "1_000"],
        ["simulate", "punto-banco", "--rounds=1000"],
        ["simulate", "punto-banco", "--rounds", "5", "--seed", "1", "--seed", "2"],
        ["simulate", "punto-banco", "--rounds", "5", "--json", "--json"],
        ["simulate", "punto-banco", "--rounds", "5", "--exact", "--no-exact"],
        ["simulate", "punto-banco", "baccarat27", "--rounds", "5"],
        ["simulate", "punto-banco", "--rounds", "5", "--plot", "a.png"],
        ["simulate", "punto-banco", "--rounds", "5", "--help"],
        ["simulate", "punto-banco", "--rounds", "5", "--rules", "-x"],
        ["simulate", "punto-banco", "--rounds"],
        ["analyze", "punto-banco", "--rounds", "5"],
    ],
)
def test_any_other_line_is_left_to_typer(args: list[str]) -> None:
    from cardroom.terminal.cli import quick_simulate

    assert quick_simulate(args) is None


def test_a_quick_simulation_imports_neither_typer_nor_the_analyses() -> None:
    """What a run imports before its figures: not Typer (nor its checks of options through
    pydantic's type adapters), any game's exact analysis (the exact column comes from its
    cache; the run plays without it) nor the other games; for JSON, not Rich, which
    only the tables need; nor TOML's writer, which only writing rules needs."""
    script = (  # as the console script runs it; the modules listed as the process ends
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
        "from cardroom.terminal.cli import main\n"
        "sys.argv = ['cardroom', 'simulate', 'punto-banco', '--rounds', '1000', '--seed', '1',"
        " '--json', '--no-exact']\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    modules = json.loads(done.stderr.splitlines()[-1])
    assert json.loads(done.stdout.splitlines()[0])["rounds"] == 1000
    assert [name for name in modules if name.startswith("typer")] == []
    assert [name for name in modules if name.startswith("rich")] == []
    assert [name for name in modules if name.startswith("tomlkit")] == []  # (writes rules)
    analyses = ("analysis", "rank_walk", "comparison", "replacement", "poker_odds")
    games = [name for name in modules if name.startswith("cardroom.games.")]
    assert [name for name in games if any(part in name for part in analyses)] == []
    # the registry imports the description of the game asked for, and its family only
    assert [
        name
        for name in games
        if name.startswith(("cardroom.games.finnish", "cardroom.games.chemin_de_fer"))
    ] == []
