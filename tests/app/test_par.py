"""The PAR sheet (``cardroom report``): its figures are the exact analysis's, the page holds
every line of every wager, the PDF's every page has text, the spread's method agrees
with brute force, and bad input is one line."""

from __future__ import annotations

import hashlib
import html
import itertools
import re
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cardroom.analysis.spread import exact_distribution, exact_percentiles, spread
from cardroom.app import par_page
from cardroom.app.par import (
    SPREAD_ROUNDS,
    VOLATILITY_Z,
    ParSheet,
    build_sheet,
    compute_sheet,
    package_digest,
)
from cardroom.app.par_page import MISSING_REPORT_DEPS, check_report_deps, render_html
from cardroom.core.money import fraction_text
from cardroom.core.rules import rules_to_toml
from cardroom.games import GAMES, house_games
from cardroom.games.spec import Analysis, AnalysisAsk, StrategyAsk
from cardroom.terminal import report as report_module
from cardroom.terminal.cli import app
from tests.games.finnish.test_shoe import compile_once
from tests.shared import default_analysis

# the worker that compiles the finite-shoe kernels runs this module after them (the other
# goes on with the rest meanwhile), and each exact analysis is counted once
pytestmark = pytest.mark.xdist_group("finnish-shoe")


def _deps_missing() -> str | None:
    try:
        check_report_deps()
    except ValueError as err:
        return str(err)
    return None


needs_report_deps = pytest.mark.skipif(
    _deps_missing() is not None, reason=_deps_missing() or "the report extra"
)


def _analyse(request: pytest.FixtureRequest) -> dict[str, tuple[Any, Analysis]]:
    """Each house game's default rules and exact analysis, the effects of removal where
    they are quick (the baccarats); the Finnish games' (seconds each) are counted once per
    run and shared with the analysis's own tests."""
    compile_once()
    found: dict[str, tuple[Any, Analysis]] = {}
    for game in house_games():
        assert game.analyze is not None
        rules = game.default_rules()
        quick = not game.analysis_options and len(game.strategies) == 1
        found[game.id] = (
            rules,
            game.analyze(rules, AnalysisAsk(effects=True))
            if quick
            else default_analysis(request, game),
        )
    return found


@pytest.fixture(scope="module")
def analyses(request: pytest.FixtureRequest) -> dict[str, tuple[Any, Analysis]]:
    return _analyse(request)


@pytest.fixture(scope="module")
def sheets(analyses: dict[str, tuple[Any, Analysis]]) -> dict[str, ParSheet]:
    return {
        game_id: build_sheet(GAMES[game_id], rules, analysis, effects_asked=True)
        for game_id, (rules, analysis) in analyses.items()
    }


# -- the spread ------------------------------------------------------------------------------
TOY = [
    (Fraction(1, 3), Fraction(19, 20)),
    (Fraction(1, 6), Fraction(0)),
    (Fraction(5, 12), Fraction(-1)),
    (Fraction(1, 12), Fraction(11)),
]


def _brute_force(lines: list[tuple[Fraction, Fraction]], rounds: int) -> dict[Fraction, Fraction]:
    """Every sequence of ``rounds`` lines, one by one."""
    found: dict[Fraction, Fraction] = {}
    for sequence in itertools.product(lines, repeat=rounds):
        p, total = Fraction(1), Fraction(0)
        for probability, payout in sequence:
            p *= probability
            total += payout
        found[total] = found.get(total, Fraction(0)) + p
    return found


@pytest.mark.parametrize("rounds", [1, 2, 3, 5])
def test_the_exact_convolution_is_the_brute_force_count(rounds: int) -> None:
    brute = _brute_force(TOY, rounds)
    exact = exact_distribution(TOY, rounds)
    assert exact == dict(sorted(brute.items()))
    levels = tuple(range(1, 100))
    assert exact_percentiles(exact, levels) == exact_percentiles(
        dict(sorted(brute.items())), levels
    )


@pytest.mark.parametrize("rounds", [1, 2, 3, 5, 8])
def test_the_numerical_spread_finds_the_exact_percentiles(rounds: int) -> None:
    levels = tuple(range(1, 100))
    exact = exact_distribution(TOY, rounds)
    found = spread(TOY, rounds, levels)
    want = exact_percentiles(exact, levels)
    # a level the cumulative probability meets exactly is flagged; every other is exact
    assert [v for v in found.percentiles if v[0] not in found.ambiguous] == [
        v for v in want if v[0] not in found.ambiguous
    ]
    mean = sum((p * x for x, p in exact.items()), Fraction(0))
    assert found.mean == mean
    assert found.variance == sum((p * (x - mean) ** 2 for x, p in exact.items()), Fraction(0))
    assert found.ahead == pytest.approx(float(sum(p for x, p in exact.items() if x > 0)), abs=1e-12)
    assert found.even == pytest.approx(float(exact.get(Fraction(0), Fraction(0))), abs=1e-12)


def test_the_spread_of_a_real_wager_agrees_with_its_exact_count(
    analyses: dict[str, tuple[Any, Analysis]],
) -> None:
    """Every wager of every house game, six rounds counted exactly in fractions."""
    levels = tuple(range(1, 100))
    for _, analysis in analyses.values():
        for wager in analysis.report.wagers.values():
            lines = [(line.probability, line.payout) for line in wager.lines]
            want = exact_percentiles(exact_distribution(lines, 4), levels)
            found = spread(lines, 4, levels)
            assert [v for v in found.percentiles if v[0] not in found.ambiguous] == [
                v for v in want if v[0] not in found.ambiguous
            ], wager.wager


# -- the figures -----------------------------------------------------------------------------
def test_every_house_game_has_a_sheet(sheets: dict[str, ParSheet]) -> None:
    assert set(sheets) == {game.id for game in GAMES.values() if game.analyze is not None}
    assert len(sheets) == 4


def test_the_sheets_figures_are_the_analysers(
    analyses: dict[str, tuple[Any, Analysis]], sheets: dict[str, ParSheet]
) -> None:
    for game_id, (_, analysis) in analyses.items():
        report, sheet = analysis.report, sheets[game_id]
        assert [w.wager for w in sheet.wagers] == list(report.wagers)
        assert sheet.outcomes == tuple(report.outcomes.items())
        for figures in sheet.wagers:
            wager = report.wagers[figures.wager]
            assert [(x.name, x.probability, x.payout) for x in figures.lines] == [
                (x.name, x.probability, x.payout) for x in wager.lines
            ]
            assert [x.contribution for x in figures.lines] == [x.contribution for x in wager.lines]
            assert figures.house_edge == wager.house_edge == -figures.expected
            assert figures.variance == wager.variance
            assert figures.hit_frequency == wager.hit_frequency
            assert figures.std_dev == wager.std_dev
            vi = Fraction(figures.volatility_index)
            assert abs(vi - VOLATILITY_Z * Fraction(wager.std_dev)) < Fraction(1, 10**11)
            assert [s.rounds for s in figures.spreads] == list(SPREAD_ROUNDS)
            for s in figures.spreads:
                assert s.mean == s.rounds * wager.expected
                assert s.variance == s.rounds * wager.variance
                assert [level for level, _ in s.percentiles] == [1, 5, 10, 25, 50, 75, 90, 95, 99]
                values = [v for _, v in s.percentiles]
                assert values == sorted(values)
                assert 0 <= s.behind <= 1 and abs(s.ahead + s.even + s.behind - 1) < 1e-9
        game = GAMES[game_id]
        assert sheet.paytable == tuple(game.paytable(game.default_rules()))


def test_the_sheet_says_what_made_it(sheets: dict[str, ParSheet]) -> None:
    for game_id, sheet in sheets.items():
        toml = rules_to_toml(GAMES[game_id].default_rules())
        assert sheet.provenance.rules_toml == toml
        assert sheet.provenance.rules_sha256 == hashlib.sha256(toml.encode()).hexdigest()
        assert sheet.provenance.code_sha256 == package_digest()
        assert re.fullmatch("[0-9a-f]{64}", sheet.provenance.code_sha256)


def test_the_effects_of_removal_are_the_analysers(
    analyses: dict[str, tuple[Any, Analysis]], sheets: dict[str, ParSheet]
) -> None:
    with_effects = [g for g, (_, a) in analyses.items() if a.effects is not None]
    assert with_effects
    for game_id in with_effects:
        effects = analyses[game_id][1].effects
        table = sheets[game_id].effects
        assert effects is not None and table is not None
        assert table.wagers == tuple(effects)
        assert len(table.rows) == len(next(iter(effects.values())))
        for wager, column in zip(table.wagers, zip(*(v for _, v in table.rows), strict=True),
                                 strict=True):  # fmt: skip
            assert sorted(column) == sorted(effects[wager].values())


# -- the page and the PDF -------------------------------------------------------------------
@needs_report_deps
def test_the_page_holds_every_line_of_every_wager(sheets: dict[str, ParSheet]) -> None:
    for sheet in sheets.values():
        page = render_html(sheet, plots=False)
        text = html.unescape(page)
        for wager in sheet.wagers:
            assert f"Wager: {wager.name}" in text
            for line in wager.lines:  # (where it stands, or in the appendix when long)
                assert line.name in text
                assert fraction_text(line.probability) in text
                assert fraction_text(line.contribution) in text
            assert fraction_text(wager.house_edge) in text
        assert sheet.provenance.rules_sha256 in text and sheet.provenance.code_sha256 in text
        assert sheet.provenance.rules_toml.strip() in text
        for sentence in sheet.rules_text.sentences:
            assert sentence in text
        # nothing is fetched: no address outside the page
        assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)


@needs_report_deps
def test_each_plot_is_drawn_once(sheets: dict[str, ParSheet], monkeypatch: Any) -> None:
    """A plot laid out already is not drawn again before it is saved (tight_layout()
    leaves an engine behind for which savefig would draw it twice)."""
    from matplotlib.figure import Figure

    drawn: list[Figure] = []
    draw = Figure.draw

    def counted(figure: Figure, renderer: Any) -> None:
        drawn.append(figure)
        draw(figure, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    sheet = next(s for s in sheets.values() if len(s.wagers) > 1)
    render_html(sheet)
    plots = sum(1 for w in sheet.wagers if w.spreads and all(s.curve for s in w.spreads))
    assert plots > 0
    assert len(drawn) == plots + 1  # and the house edges' bars
    assert len(set(map(id, drawn))) == len(drawn)


@needs_report_deps
def test_the_pdf_has_text_on_every_page(sheets: dict[str, ParSheet], tmp_path: Path) -> None:
    from pypdf import PdfReader

    from cardroom.app.par_page import write_pdf

    sheet = next(s for s in sheets.values() if len(s.wagers) > 1 and s.effects is not None)
    page = render_html(sheet)
    assert page.count("data:image/svg+xml;base64,") == len(sheet.wagers) + 1
    path = tmp_path / "sheet.pdf"
    write_pdf(page, path)
    reader = PdfReader(path)
    assert len(reader.pages) >= 3
    texts = [p.extract_text() for p in reader.pages]
    assert all(text.strip() for text in texts)
    whole = " ".join(texts)
    assert f"PAR sheet: {sheet.name}" in texts[0]
    assert sheet.provenance.rules_sha256 in whole.replace("\n", "")
    for wager in sheet.wagers:
        assert f"Wager: {wager.name}" in whole


@needs_report_deps
def test_a_strategy_is_shown_as_its_tables(analyses: dict[str, tuple[Any, Analysis]]) -> None:
    """The games where the player decides (strategies beyond basic) show the given play
    beside the best (with replacement here, to stay quick)."""
    [game] = [g for g in house_games() if len(g.strategies) > 1]
    rules, analysis = analyses[game.id]
    assert game.strategy is not None
    solved = game.strategy(rules, StrategyAsk(infinite=True))
    sheet = build_sheet(game, rules, analysis, solved, rounds=(10,))
    table = sheet.strategy
    assert table is not None and table.rows and table.edges
    assert all(len(row) == len(table.header) for row in table.rows)
    page = html.unescape(render_html(sheet, plots=False))
    assert f"Strategy: {table.title}" in page
    for row in table.rows:
        assert row[1] in page


@needs_report_deps
def test_a_game_between_seats_says_what_its_sheet_holds() -> None:
    [game] = [g for g in GAMES.values() if g.analyze is None]
    rules = game.default_rules()
    sheet = compute_sheet(game, rules)
    assert sheet.wagers == () and sheet.solved is not None
    assert dict(sheet.solved.means) == game.exact_means(rules, "basic", True)
    page = html.unescape(render_html(sheet))
    assert "no lines, no hit frequency" in page
    assert "Effects of removal" not in page
    for value in dict(sheet.solved.means).values():
        assert fraction_text(value) in page
    assert sheet.solved.solution.splitlines()[0] in page


# -- the command ------------------------------------------------------------------------------
def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _one_line_error(result: Any, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0]


@needs_report_deps
def test_the_command_writes_both_files(tmp_path: Path) -> None:
    [game] = [
        g for g in house_games() if not g.analysis_options and len(g.wagers(g.default_rules())) == 3
    ]
    out = tmp_path / "new" / "folder"
    result = _cli("report", game.id, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / f"{game.id}-par.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (out / f"{game.id}-par.pdf").read_bytes().startswith(b"%PDF-")
    assert f"{game.id}: wrote" in result.output


def test_an_unknown_game_is_one_line(tmp_path: Path) -> None:
    _one_line_error(_cli("report", "roulette", "--out", str(tmp_path)), "unknown game")


def test_a_bad_rules_file_is_one_line(tmp_path: Path) -> None:
    game = next(iter(house_games()))
    bad = tmp_path / "bad.toml"
    bad.write_text("no_such_key = 1\n", encoding="utf-8")
    _one_line_error(
        _cli("report", game.id, "--rules", str(bad), "--out", str(tmp_path)), "bad.toml"
    )
    _one_line_error(
        _cli("report", game.id, "--rules", str(tmp_path / "none.toml"), "--out", str(tmp_path))
    )
    _one_line_error(_cli("report", "all", "--rules", str(bad)), "--rules")


@needs_report_deps
def test_an_out_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    game = next(iter(house_games()))
    a_file = tmp_path / "file"
    a_file.write_text("", encoding="utf-8")
    _one_line_error(_cli("report", game.id, "--out", str(a_file)), "--out", "is a file")
    _one_line_error(_cli("report", game.id, "--out", str(a_file / "below")), "--out")


@pytest.fixture
def no_weasyprint(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def missing() -> Callable[[], None]:
        raise ValueError(MISSING_REPORT_DEPS)

    monkeypatch.setattr(report_module, "load_report_deps", missing)
    yield


def test_missing_dependencies_say_how_to_install_them(no_weasyprint: None, tmp_path: Path) -> None:
    game = next(iter(house_games()))
    _one_line_error(
        _cli("report", game.id, "--out", str(tmp_path)), "pip install 'cardroom[report]'"
    )


@needs_report_deps
def test_a_failure_of_the_imports_begun_meanwhile_is_the_same_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The report's imports go on while the sheet is counted: where they fail (WeasyPrint
    finding no Pango), the command still ends in that one line, and writes no sheet."""

    def no_pango() -> None:
        raise ValueError(par_page.MISSING_PANGO)

    monkeypatch.setattr(par_page, "check_report_deps", no_pango)
    game = next(iter(house_games()))
    _one_line_error(_cli("report", game.id, "--out", str(tmp_path)), "Pango")
    assert list(tmp_path.iterdir()) == []


def test_rules_the_real_shoe_refuses_get_a_sheet_of_the_model_with_replacement() -> None:
    """The poker award held against the dealer's hand (the real shoe's count refuses
    it): the sheet is of cards drawn with replacement, says so first among its
    assumptions, and its figures are that analysis's."""
    from cardroom.core.shoe import ShoeRules
    from cardroom.games import get_game
    from cardroom.games.finnish.analysis import analyze_finnish27
    from cardroom.games.finnish.finnish27 import BonusTable, Finnish27Rules

    odd = (8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8)  # seven ranks: a short analysis
    rules = Finnish27Rules(
        bonus=BonusTable(poker_against_dealer="higher"),
        shoe=ShoeRules(cards_per_rank=odd, reshuffle_after=40),
    )
    sheet = compute_sheet(get_game("finnish27"), rules)
    first = sheet.assumptions[0]
    assert first.startswith("the real shoe's count refuses these rules (poker_against_dealer:")
    assert "every figure on this sheet is for cards drawn with replacement" in first
    expected = analyze_finnish27(rules).wagers
    assert {w.wager: w.house_edge for w in sheet.wagers} == {
        name: wager.house_edge for name, wager in expected.items()
    }
    assert sheet.replacement and "drawn with replacement" in sheet.model
    # the strategy is counted in the same model: its first row is the summary's figures
    assert sheet.strategy is not None and sheet.strategy.model == sheet.model
    _first_row_is_the_summary(sheet)


def test_a_sheet_without_a_strategy_says_why() -> None:
    """A Charlie: the real shoe counts it, but the best table (worked out from totals)
    cannot; the sheet has the real shoe's figures, no strategy table, and says why."""
    from cardroom.core.shoe import ShoeRules
    from cardroom.games import get_game
    from cardroom.games.finnish.finnish27 import Finnish27Rules
    from cardroom.games.finnish.shoe import analyze_finnish27_shoe

    odd = (8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8)
    rules = Finnish27Rules(charlie=9, shoe=ShoeRules(cards_per_rank=odd, reshuffle_after=40))
    sheet = compute_sheet(get_game("finnish27"), rules)
    assert sheet.strategy is None
    assert sheet.assumptions[0].startswith("no strategy table: charlie: the best table")
    assert not any("drawn with replacement" in line for line in sheet.assumptions)
    expected = analyze_finnish27_shoe(rules).wagers
    assert {w.wager: w.house_edge for w in sheet.wagers} == {
        name: wager.house_edge for name, wager in expected.items()
    }


# -- one figure for one play in one model (issue 32) ---------------------------------------
ODD = (8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8)  # seven ranks: a short count from the real shoe


def _first_row_is_the_summary(sheet: ParSheet) -> None:
    """The strategy's row of the rules' own play holds the summary's house edges, exactly."""
    assert sheet.strategy is not None
    first = sheet.strategy.edges[0]
    wagers = sheet.strategy.edges_header[1:]
    edges = {w.wager: w.house_edge for w in sheet.wagers}
    assert {w: Fraction(cell) for w, cell in zip(wagers, first[1:], strict=True)} == {
        w: edges[w] for w in wagers
    }


@pytest.mark.parametrize("game_id", ["finnish27", "21-24-27"])
def test_the_strategy_is_counted_in_the_summary_s_model(game_id: str) -> None:
    from cardroom.core.rules import apply_rules

    game = GAMES[game_id]
    rules = apply_rules(game.default_rules(), {"shoe": {"cards_per_rank": list(ODD)}})
    sheet = compute_sheet(game, rules)
    assert not sheet.replacement and sheet.model.startswith("dealt off the top of a full shoe")
    assert sheet.strategy is not None and sheet.strategy.model == sheet.model
    _first_row_is_the_summary(sheet)
    assert sheet.variant
    page = re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", "", html.unescape(render_html(sheet, plots=False)))
    )
    assert f"Model: {sheet.model}: the model of the summary" in page


@needs_report_deps
def test_the_page_flags_a_variant_long_fractions_and_the_player_s_favour(
    sheets: dict[str, ParSheet],
) -> None:
    from cardroom.app.par_page import INLINE_FRACTION, sheet_csv

    sheet = sheets["finnish27"]
    assert not sheet.variant
    page = render_html(sheet, plots=False)
    assert "<h1>PAR sheet: Finnish 27 (baccarat-like)</h1>" in page and "a variant" not in page
    # no fraction longer than the limit stands beside its figure: it is in the appendix
    body, appendix = page.split("Appendix: exact fractions")
    inline = re.findall(r"= ([-0-9/]+)", html.unescape(body))
    assert inline and max(len(f) for f in inline) <= INLINE_FRACTION
    longest = max((w.variance for w in sheet.wagers), key=lambda v: len(fraction_text(v)))
    assert len(fraction_text(longest)) > INLINE_FRACTION
    assert fraction_text(longest) in appendix
    # every exact figure is in the CSV, with its decimal
    rows = sheet_csv(sheet).splitlines()
    assert rows[0] == "section,figure,decimal,exact"
    for wager in sheet.wagers:
        for line in wager.lines:
            assert any(row.endswith("," + fraction_text(line.probability)) for row in rows)
    # an edge below zero is flagged as in the player's favour (and only such an edge)
    assert "in the player" not in page  # the standard finnish27: none
    game = GAMES["punto-banco"]
    rules = _no_commission()
    assert game.analyze is not None
    variant = build_sheet(game, rules, game.analyze(rules, AnalysisAsk()), rounds=(10,))
    banker = next(w for w in variant.wagers if w.wager == "banker")
    assert banker.house_edge < 0 and all(
        w.house_edge > 0 for w in variant.wagers if w is not banker
    )
    text = html.unescape(render_html(variant, plots=False))
    assert text.count("in the player's favour") == 2  # the summary and the banker's section
    # a variant says so in its title (the PDF's footer repeats the title)
    assert variant.variant
    title = f"PAR sheet: {variant.name}, a variant (rules {variant.provenance.rules_sha256[:12]})"
    assert f"<h1>{title}</h1>" in text


def _no_commission() -> Any:
    from cardroom.core.rules import apply_rules

    return apply_rules(GAMES["punto-banco"].default_rules(), {"banker_pays": 1})
