"""The floor report a regulator asks for: a period's stakes, payouts, gross gaming
revenue and hold per game and per table and wager, the hold of each against its exact
edge (the integrity monitor's verdicts), the alerts, and every operator action; as one
self-contained HTML page, as PDF (WeasyPrint, like the PAR sheet) and as CSV.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.resources import files

from jinja2 import Environment, StrictUndefined, select_autoescape

from cardroom.app.operators.floor import Figures, Floor, Period, game_of
from cardroom.app.operators.integrity import IntegrityMonitor
from cardroom.app.operators.log import LogEntry, OperatorLog
from cardroom.app.par import package_digest
from cardroom.app.variants import Variants, split_key
from cardroom.app.wallet.values import money_text
from cardroom.games import get_game
from cardroom.games.base import GameRules
from cardroom.storage.db import Database

__all__ = [
    "FloorReport",
    "build_report",
    "integrity_rows",
    "report_csv",
    "report_html",
    "stored_rules",
]


@dataclass(frozen=True)
class FloorReport:
    """What the report holds."""

    since: datetime
    until: datetime
    game: str | None
    period: Period
    #: the integrity monitor's rows (table, wager, rounds, staked, hold, edge, z, p,
    #: alert) as text, in the order shown
    integrity: tuple[Mapping[str, str], ...]
    alerts: tuple[LogEntry, ...]
    actions: tuple[LogEntry, ...]
    generated: datetime
    code: str


def build_report(
    db: Database,
    since: datetime,
    until: datetime,
    game: str | None = None,
    integrity: Sequence[Mapping[str, str]] = (),
) -> FloorReport:
    """The report of [``since``, ``until``) (hours in UTC), of one ``game`` or all."""
    floor = Floor(db)
    floor.rollup.catch_up()
    period = floor.period("the period", since, until)
    if game is not None:
        period = Period(
            period.name,
            period.since,
            {g: f for g, f in period.games.items() if g == game},
            {k: f for k, f in period.wagers.items() if game_of(k[0]) == game},
            _total(f for g, f in period.games.items() if g == game),
        )
    entries = OperatorLog(db).since(since, until)
    alerts = tuple(e for e in entries if e.action.startswith("alert"))
    actions = tuple(e for e in entries if not e.action.startswith("alert"))
    rows = tuple(r for r in integrity if game is None or game_of(r.get("table", "")) == game)
    return FloorReport(
        since, until, game, period, rows, alerts, actions, datetime.now(UTC), package_digest()
    )


def _total(figures: Iterable[Figures]) -> Figures:
    rounds = staked = paid = 0
    for f in figures:
        rounds += f.rounds
        staked += f.staked
        paid += f.paid
    return Figures(rounds, staked, paid)


def _pct(figures: Figures) -> str:
    hold = figures.hold
    return "-" if hold is None else f"{float(hold) * 100:.3f}%"


def _environment() -> Environment:
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    env.filters.update(money=money_text, hold=_pct)
    return env


def report_html(report: FloorReport) -> str:
    templates = files("cardroom.app").joinpath("templates")
    template = _environment().from_string(templates.joinpath("floor.html").read_text("utf-8"))
    css = templates.joinpath("par.css").read_text("utf-8")
    return template.render(report=report, css=css)


def report_csv(report: FloorReport) -> str:
    """Every figure of the report, one row each: section, game or table, wager, figure,
    value (money as exact decimals)."""
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(["section", "table", "wager", "figure", "value"])
    period = report.period
    for game, f in period.games.items():
        for name, value in _figures(f):
            rows.writerow(["game", game, "", name, value])
    for (table, wager), f in period.wagers.items():
        for name, value in _figures(f):
            rows.writerow(["wager", table, wager, name, value])
    for row in report.integrity:
        for name, value in row.items():
            if name not in ("table", "wager"):
                rows.writerow(
                    ["integrity", row.get("table", ""), row.get("wager", ""), name, value]
                )
    for entry in (*report.alerts, *report.actions):
        rows.writerow(
            [
                "log",
                entry.target or "",
                entry.action,
                entry.created_at.isoformat(),
                f"{entry.operator} ({entry.address}): {entry.reason}",
            ]
        )
    return out.getvalue()


def _figures(f: Figures) -> list[tuple[str, str]]:
    return [
        ("rounds", str(f.rounds)),
        ("staked", money_text(f.staked)),
        ("paid", money_text(f.paid)),
        ("ggr", money_text(f.ggr)),
        ("hold", _pct(f)),
    ]


def stored_rules(db: Database) -> Callable[[str], GameRules]:
    """The rules of a table by its key as a server at the default rules deals it: a
    game's own defaults, or a lab variant's rules as the database keeps them."""
    variants = Variants(db)

    def rules_for(key: str) -> GameRules:
        game_id, variant = split_key(key.split(":", 1)[0])
        game = get_game(game_id)
        if variant is None:
            rules: GameRules = game.default_rules()
            return rules
        found: GameRules = variants.rules(game, variant)
        return found

    return rules_for


def integrity_rows(
    db: Database,
    since: datetime,
    until: datetime,
    rules_for: Callable[[str], GameRules] | None = None,
) -> list[dict[str, str]]:
    """The integrity monitor's verdicts over the period, as the report shows them."""
    report = IntegrityMonitor(db, rules_for or stored_rules(db)).check(since, until)
    rows = []
    for verdict in report.verdicts:
        data = verdict.as_json()
        rows.append(
            {
                "table": verdict.table,
                "wager": verdict.wager,
                "rounds": str(verdict.rounds),
                "staked": str(data["staked"]),
                "held": str(data["taken"]),
                "hold": f"{data['hold_percent']}%",
                "exact": f"{data['expected_hold_percent']}%",
                "z": f"{verdict.z:+.2f}",
                "p": f"{verdict.p:.2g}",
                "alert": "ALERT" if verdict.alert else "",
            }
        )
    for unjudged in report.unjudged:
        rows.append(
            {
                "table": unjudged.table,
                "wager": unjudged.wager,
                "rounds": str(unjudged.rounds),
                "staked": "",
                "held": "",
                "hold": "",
                "exact": "",
                "z": "",
                "p": "",
                "alert": f"not judged: {unjudged.reason}",
            }
        )
    return rows
