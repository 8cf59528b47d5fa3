"""A game's PAR sheet: every figure a testing lab or a regulator asks of a table game,
from the game's exact analysis, as one frozen record (``cardroom report`` writes it as
HTML and PDF, see :mod:`cardroom.app.par_page`).

A house game's sheet holds, for every wager, every line of its exact analysis
(probability, what it pays, its share of the mean), the house edge, the variance and
the standard deviation, the hit frequency and the volatility index, and the spread of
a player's result after 100, 1,000 and 10,000 rounds (:mod:`cardroom.analysis.spread`);
where somebody decides, the strategy tables; when asked, the effects of removal.  A
game between seats (chemin de fer) has no wager against the house to count line by
line: its sheet holds what its description solves, the coup's values for both sides
and the solved play.  Every sheet says which rules (their TOML and its SHA-256) and
which code (a SHA-256 of the package's Python files) made it.

Everything here is built from the game's description (:class:`~cardroom.games.GameInfo`),
never from a rules type or a game id; no file is written here.
"""

from __future__ import annotations

import hashlib
import math
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import cardroom
from cardroom.analysis.report import GameReport, Line, WagerReport, sqrt_decimal
from cardroom.analysis.spread import Spread, spread
from cardroom.core.cards import RANK_ORDER, Rank
from cardroom.core.rules import rules_to_toml
from cardroom.games import GameInfo
from cardroom.games.disclosure import PayRow, RulesText
from cardroom.games.spec import Analysis, AnalysisAsk, StrategyAsk

__all__ = [
    "SPREAD_ROUNDS",
    "VOLATILITY_Z",
    "EffectsTable",
    "ParSheet",
    "Provenance",
    "SolvedCoup",
    "StrategyTable",
    "WagerFigures",
    "build_sheet",
    "compute_sheet",
    "package_digest",
    "provenance",
    "rules_digest",
]

#: the numbers of rounds whose spread a sheet gives
SPREAD_ROUNDS: tuple[int, ...] = (100, 1_000, 10_000)

#: the volatility index is this many standard deviations of one round (a two-sided 90%
#: interval of the normal distribution, as table games' PAR sheets use it)
VOLATILITY_Z = Fraction(1645, 1000)

#: how the spread is worked out, in words (the sheet says it)
SPREAD_METHOD = (
    "Computed, not simulated: the exact distribution of one round's net result (the "
    "wager's lines) convolved with itself once per round, rounds taken as independent, "
    "each dealt off the top of a full shoe as the analysis assumes (in a real shoe "
    "rounds share cards, which the figures leave out). The convolution runs in double "
    "precision on the exact lattice of the results (binary powering with the fast "
    "Fourier transform; the same method in exact fractions is checked against it on small "
    "cases): each percentile is an exact result, the smallest whose cumulative "
    "probability reaches the level, to within 1e-9 of probability; the mean and the "
    "standard deviation after n rounds are exact (n times the mean, the square root of "
    "n times the variance). One unit is staked every round; results are in units."
)


@dataclass(frozen=True)
class Provenance:
    """What made a sheet: cardroom's version, the rules' TOML and its SHA-256, a SHA-256
    of the package's Python files, the Python it ran on and when."""

    version: str
    rules_toml: str
    rules_sha256: str
    code_sha256: str
    python: str
    generated: str


@dataclass(frozen=True)
class WagerFigures:
    """A wager's lines and figures per unit staked; the spread after many rounds."""

    wager: str
    name: str
    lines: tuple[Line, ...]
    expected: Fraction
    house_edge: Fraction
    variance: Fraction
    std_dev: str
    volatility_index: str
    hit_frequency: Fraction
    notes: tuple[str, ...]
    spreads: tuple[Spread, ...]


@dataclass(frozen=True)
class StrategyTable:
    """A strategy as tables: the play by situation, and the edge of each play."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    edges_header: tuple[str, ...]
    edges: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]
    #: what the edges are counted in, in words (the real shoe, or with replacement)
    model: str = ""


@dataclass(frozen=True)
class EffectsTable:
    """The change of each wager's mean per card of a rank removed, exact, and the model."""

    wagers: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Fraction, ...]], ...]
    note: str


@dataclass(frozen=True)
class SolvedCoup:
    """A game between seats, solved: each side's exact expectation per unit staked off
    the top of a full shoe, what that play is, and the solution in words and tables."""

    means: tuple[tuple[str, Fraction], ...]
    note: str
    solution: str


@dataclass(frozen=True)
class ParSheet:
    """A game's PAR sheet (see the module)."""

    game_id: str
    name: str
    description: str
    kind: str
    rules_text: RulesText
    paytable: tuple[PayRow, ...]
    provenance: Provenance
    outcomes: tuple[tuple[str, Fraction], ...]
    assumptions: tuple[str, ...]
    wagers: tuple[WagerFigures, ...]
    strategy: StrategyTable | None
    effects: EffectsTable | None
    effects_asked: bool
    solved: SolvedCoup | None
    #: what the figures are of, in words (the first of the analysis's assumptions)
    model: str = ""
    #: the figures are counted with cards drawn with replacement, not from the real shoe
    replacement: bool = False
    #: the rules are not the game's standard rules
    variant: bool = False
    spread_method: str = SPREAD_METHOD
    volatility_z: Fraction = VOLATILITY_Z


@cache
def package_digest() -> str:
    """SHA-256 of the installed package's Python files (each one's path under the
    package, then its bytes, in the order of the paths): the code that computed a sheet."""
    root = Path(cardroom.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def rules_digest(toml: str) -> str:
    """SHA-256 of a rules file's text (UTF-8)."""
    return hashlib.sha256(toml.encode("utf-8")).hexdigest()


def provenance(rules: Any, when: datetime | None = None) -> Provenance:
    toml = rules_to_toml(rules)
    moment = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return Provenance(
        version=cardroom.__version__,
        rules_toml=toml,
        rules_sha256=rules_digest(toml),
        code_sha256=package_digest(),
        python=f"{platform.python_implementation()} {platform.python_version()}",
        generated=moment,
    )


def _volatility(variance: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = 60
        sd = (Decimal(variance.numerator) / Decimal(variance.denominator)).sqrt()
        z = Decimal(VOLATILITY_Z.numerator) / Decimal(VOLATILITY_Z.denominator)
        return str((sd * z).quantize(Decimal("1e-12")))


def wager_figures(
    report: WagerReport, name: str, rounds: Sequence[int] = SPREAD_ROUNDS
) -> WagerFigures:
    lines = tuple(report.lines)
    pairs = [(line.probability, line.payout) for line in report.lines]
    return WagerFigures(
        wager=report.wager,
        name=name,
        lines=lines,
        expected=report.expected,
        house_edge=report.house_edge,
        variance=report.variance,
        std_dev=sqrt_decimal(report.variance),
        volatility_index=_volatility(report.variance),
        hit_frequency=report.hit_frequency,
        notes=tuple(report.notes),
        spreads=tuple(spread(pairs, n) for n in rounds),
    )


def _strategy_table(solved: Any) -> StrategyTable | None:
    """A strategy comparison (its rows of situations, the given play beside the best,
    and the edges of both) as tables; None for what is no such comparison."""
    rows = getattr(solved, "rows", None)
    edges: Mapping[str, Mapping[str, Fraction]] | None = getattr(solved, "house_edges", None)
    if rows is None or edges is None:
        return None
    given, best = str(solved.given_name), str(solved.best_name)
    table_rows = tuple(
        (
            str(row.dealer),
            row.given.label(),
            row.best.label(),
            ", ".join(str(t) for t in row.differences) or "-",
        )
        for row in rows
    )
    wagers = tuple(next(iter(edges.values()), {}))
    edge_rows = tuple(
        (str(play), *(f"{per[w].numerator}/{per[w].denominator}" for w in wagers))
        for play, per in edges.items()
    )
    return StrategyTable(
        title=f"{given} beside {best}",
        header=("dealer's two cards", given, best, "differs at"),
        rows=table_rows,
        edges_header=("player's play", *wagers),
        edges=edge_rows,
        notes=tuple(str(n) for n in solved.notes),
        model=str(getattr(solved, "model", "") or ""),
    )


def _rank_label(rank: Any) -> str:
    if rank is Rank.JOKER:
        return "Joker"
    return str(getattr(rank, "finnish", rank))


def _effects_table(analysis: Analysis) -> EffectsTable | None:
    effects = analysis.effects
    if effects is None:
        return None
    wagers = tuple(effects)
    ranks = [r for r in RANK_ORDER if any(r in per for per in effects.values())]
    rows = tuple(
        (_rank_label(rank), tuple(per.get(rank, Fraction(0)) for per in effects.values()))
        for rank in ranks
    )
    return EffectsTable(wagers=wagers, rows=rows, note=analysis.effects_note or "")


def wager_name(game: GameInfo, wager: str) -> str:
    """A wager's words: the game's own (``B-27``), else its id with spaces."""
    return game.wager_names().get(wager, wager.replace("_", " "))


def build_sheet(
    game: GameInfo,
    rules: Any,
    analysis: Analysis | None,
    strategy: Any = None,
    *,
    effects_asked: bool = False,
    when: datetime | None = None,
    rounds: Sequence[int] = SPREAD_ROUNDS,
) -> ParSheet:
    """The sheet of ``game`` under ``rules`` from its exact ``analysis`` (None for a game
    between seats) and its solved ``strategy`` (None: the game has none)."""
    report: GameReport | None = None if analysis is None else analysis.report
    solved: SolvedCoup | None = None
    if report is None:
        means = game.exact_means(rules, "basic", True)
        text = getattr(strategy, "text", None)
        solved = SolvedCoup(
            means=tuple(means.items()),
            note=game.exact_note(rules),
            solution=str(text()) if callable(text) else "",
        )
    wagers = tuple(
        wager_figures(w, wager_name(game, w.wager), rounds)
        for w in (report.wagers.values() if report is not None else ())
    )
    standard = rules_to_toml(game.default_rules())
    return ParSheet(
        game_id=game.id,
        name=game.name,
        description=game.description,
        kind=game.kind,
        rules_text=game.rules_text(rules),
        paytable=tuple(game.paytable(rules)),
        provenance=provenance(rules, when),
        outcomes=tuple(report.outcomes.items()) if report is not None else (),
        assumptions=tuple(report.assumptions) if report is not None else (),
        wagers=wagers,
        strategy=_strategy_table(strategy) if strategy is not None else None,
        effects=_effects_table(analysis) if analysis is not None else None,
        effects_asked=effects_asked,
        solved=solved,
        model=report.model if report is not None else game.exact_note(rules),
        replacement=report.replacement if report is not None else False,
        variant=rules_to_toml(rules) != standard,
    )


def compute_sheet(
    game: GameInfo,
    rules: Any,
    *,
    effects: bool = False,
    strategy_ask: StrategyAsk | None = None,
) -> ParSheet:
    """Run the game's exact analysis (with the effects of removal when asked) and its
    strategy (where somebody decides), and build the sheet.  A ValueError says what the
    analyser cannot count under these rules.

    Where the real shoe's count refuses the rules but the game can be counted with
    cards drawn with replacement, the sheet is of that model, and says so first among
    its assumptions.  Where the strategy cannot be worked out under these rules, the
    sheet has no strategy table and says why among its assumptions."""
    refused: str | None = None
    try:
        analysis = game.analyze(rules, AnalysisAsk(effects=effects)) if game.analyze else None
    except ValueError as err:
        if game.analyze is None or "infinite" not in game.analysis_options:
            raise
        refused = str(err)
        analysis = game.analyze(rules, AnalysisAsk(effects=effects, infinite=True))
    solved = None
    said: list[str] = []
    if refused is not None:
        said.append(
            f"the real shoe's count refuses these rules ({refused}): every figure on this "
            "sheet is for cards drawn with replacement, not the real shoe"
        )
    if game.strategy is not None:
        ask = strategy_ask or StrategyAsk()
        if refused is not None:  # the strategy is counted in the same model as the figures
            ask = replace(ask, infinite=True)
        try:
            solved = game.strategy(rules, ask)
        except ValueError as err:
            said.append(f"no strategy table: {err}")
    sheet = build_sheet(game, rules, analysis, solved, effects_asked=effects)
    if not said:
        return sheet
    return replace(sheet, assumptions=(*said, *sheet.assumptions))


def one_in_text(value: Fraction | None) -> str:
    """``1 in N`` with N to four significant figures (thousands separated)."""
    if value is None:
        return "never"
    number = float(value)
    if number >= 1e4:
        return f"1 in {number:,.0f}"
    digits = max(0, 3 - math.floor(math.log10(number)))
    return f"1 in {number:,.{digits}f}"
