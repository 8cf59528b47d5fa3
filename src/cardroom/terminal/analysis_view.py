"""How exact analyses are shown to people: Rich tables of outcomes and wagers.

An interface module: it only formats the reports of :mod:`cardroom.analysis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cardroom.analysis.report import GameReport, WagerReport, decimal_text
from cardroom.core.cards import RANK_ORDER, Rank
from cardroom.core.money import format_odds, percent_text
from cardroom.games.finnish.comparison import StrategyComparison


def percent(value: Fraction, places: int = 4) -> str:
    return f"{percent_text(value, places)}%"


def payout_text(value: Fraction) -> str:
    if value == 0:
        return "push"
    if value < 0:
        return "loses"
    return f"pays {format_odds(value)}"


def outcomes_table(report: GameReport) -> Table:
    table = Table(title=f"{report.game}: outcomes", title_justify="left")
    table.add_column("outcome")
    table.add_column("probability", justify="right")
    table.add_column("exact")
    if report.combinations:
        table.add_column("combinations", justify="right")
    for name, p in report.outcomes.items():
        row = [name, percent(p), f"{p.numerator}/{p.denominator}"]
        if report.combinations:
            row.append(f"{report.combinations.get(name, 0):,}")
        table.add_row(*row)
    if report.combinations and report.total_combinations is not None:
        table.add_row("total", "100%", "1", f"{report.total_combinations:,}", style="dim")
    return table


def wager_table(wager: WagerReport) -> Table:
    edge = wager.house_edge
    title = (
        f"{wager.wager}: house edge {percent(edge)} ({edge.numerator}/{edge.denominator}) · "
        f"std dev {float(wager.std_dev):.4f} · hit frequency {percent(wager.hit_frequency, 2)}"
    )
    table = Table(title=title, title_justify="left")
    table.add_column("resolves as")
    table.add_column("probability", justify="right")
    table.add_column("pays", justify="right")
    table.add_column("contribution", justify="right")
    for line in wager.lines:
        table.add_row(
            line.name,
            percent(line.probability, 6),
            payout_text(line.payout),
            f"{decimal_text(line.contribution, 6)}",
        )
    return table


def report_view(report: GameReport) -> RenderableType:
    parts: list[RenderableType] = [Text("Assumptions: " + "; ".join(report.assumptions), "dim")]
    parts.append(outcomes_table(report))
    for wager in report.wagers.values():
        parts.append(wager_table(wager))
        parts += [Text(f"Note: {note}", "bold") for note in wager.notes]
    return Group(*parts)


def eor_table(effects: Mapping[str, Mapping[Rank, Fraction]]) -> Table:
    """Change in each wager's expected return per card removed: a row per rank."""
    ranks = [r for r in RANK_ORDER if any(r in per for per in effects.values())]
    table = Table(
        title="Effects of removal: change in expected return per card removed, "
        "in hundredths of a percent of the stake",
        title_justify="left",
    )
    table.add_column("card")
    for wager in effects:
        table.add_column(wager, justify="right")
    for rank in ranks:
        label = "Joker" if rank is Rank.JOKER else rank.finnish
        row = [f"{float(per.get(rank, Fraction(0)) * 10000):+.3f}" for per in effects.values()]
        table.add_row(label, *row)
    return table


def strategy_view(comparison: StrategyComparison) -> RenderableType:
    """A game's given table beside the best one, differences marked, and the edges."""
    table = Table(
        title=f"{comparison.game}: {comparison.given_name} beside {comparison.best_name}",
        title_justify="left",
    )
    table.add_column("dealer's two cards")
    table.add_column(comparison.given_name)
    table.add_column(comparison.best_name)
    table.add_column("differs at")
    for row in comparison.rows:
        mark = ", ".join(str(t) for t in row.differences)
        style = "bold" if row.differences else None
        table.add_row(
            str(row.dealer), row.given.label(), row.best.label(), mark or "-", style=style
        )
    edges = Table(title="House edge of each wager", title_justify="left")
    edges.add_column("player's play")
    wagers = list(next(iter(comparison.house_edges.values())))
    for wager in wagers:
        edges.add_column(wager, justify="right")
    for name, per in comparison.house_edges.items():
        edges.add_row(name, *(percent(per[w]) for w in wagers))
    model = comparison.model
    notes = [Text(f"Model: {model}", "dim")] + [Text(f"Note: {n}", "dim") for n in comparison.notes]
    return Group(table, edges, *notes)
