"""A PAR sheet (:class:`cardroom.app.par.ParSheet`) as HTML and PDF: the page from a
Jinja2 template inside the package, the plots drawn by Matplotlib as SVG and embedded in
the page, the PDF laid out by WeasyPrint.  Nothing is fetched: the style, the plots and
the fonts (the machine's, through fontconfig) are all local.
"""

from __future__ import annotations

import base64
import csv
import importlib.util
import io
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, StrictUndefined, select_autoescape
from markupsafe import Markup

from cardroom.app.par import ParSheet, WagerFigures, one_in_text
from cardroom.core.money import format_decimal, format_odds, fraction_text, rounded_text

__all__ = [
    "MISSING_REPORT_DEPS",
    "Fractions",
    "check_report_deps",
    "csv_name",
    "load_report_deps",
    "plots_available",
    "render_html",
    "sheet_csv",
    "write_pdf",
]

#: how to install what the sheet needs, in one line
MISSING_REPORT_DEPS = (
    "cardroom report needs WeasyPrint and Matplotlib: install them with "
    "`pip install 'cardroom[report]'`"
)
#: what WeasyPrint needs of the system, in one line
MISSING_PANGO = (
    "WeasyPrint cannot load the Pango libraries: install them with "
    "`sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0`"
)

_TEMPLATES = files("cardroom.app").joinpath("templates")


def check_report_deps() -> None:
    """Refuse at once (a ValueError in one line) when WeasyPrint, Matplotlib or the Pango
    libraries WeasyPrint loads are missing."""
    try:
        import matplotlib  # noqa: F401  # lazy: Matplotlib (the report extra)
        import weasyprint  # noqa: F401  # lazy: WeasyPrint (the report extra)
    except ImportError:
        raise ValueError(MISSING_REPORT_DEPS) from None
    except OSError:  # WeasyPrint found no Pango
        raise ValueError(MISSING_PANGO) from None


def load_report_deps() -> Callable[[], None]:
    """:func:`check_report_deps` begun on a thread of its own, so that its imports (half a
    second) go on while a sheet is counted (a count leaves the interpreter free for most
    of its time).  A missing package is refused at once; the function returned waits for
    the imports, and raises the same ValueError where they failed (WeasyPrint found no
    Pango, say)."""
    if any(importlib.util.find_spec(name) is None for name in ("matplotlib", "weasyprint")):
        raise ValueError(MISSING_REPORT_DEPS)
    failed: list[ValueError] = []

    def load() -> None:
        try:
            check_report_deps()
            import matplotlib.backends.backend_svg  # lazy: the plots' writer
            import matplotlib.figure  # noqa: F401  # lazy: the plots
        except ValueError as err:
            failed.append(err)

    loading = threading.Thread(target=load, name="report-imports", daemon=True)
    loading.start()

    def wait() -> None:
        loading.join()
        if failed:
            raise failed[0]

    return wait


def plots_available() -> bool:
    """Can the sheet's plots be drawn (Matplotlib, of the report extra, installed)?"""
    try:
        import matplotlib  # noqa: F401  # lazy: Matplotlib (the report extra)
    except ImportError:
        return False
    return True


# -- figures as text -----------------------------------------------------------------------
def _pct(value: Fraction, places: int = 4) -> str:
    return f"{rounded_text(value * 100, places)}%"


def _dec(value: Fraction | int, places: int = 12) -> str:
    """An exact figure's decimal, rounded at ``places`` places (``0`` for zero)."""
    return "0" if value == 0 else rounded_text(Fraction(value), places)


def _pays(value: Fraction) -> str:
    if value == 0:
        return "push"
    if value < 0:
        return "loses" if value == -1 else f"loses {format_decimal(-value)}"
    return format_odds(value)


def _short(text: str) -> str:
    """A long decimal's first six places."""
    return rounded_text(Fraction(text), 6)


def _eor(value: Fraction) -> str:
    return f"{float(value * 10_000):+.3f}"


def _frac_pct(text: str) -> str:
    return _pct(Fraction(text))


#: the longest exact fraction written where its figure stands (longer ones go to the
#: appendix, so that no cell wraps a fraction over many lines)
INLINE_FRACTION = 44


@dataclass
class Fractions:
    """The sheet's exact fractions as the page writes them: one of up to
    :data:`INLINE_FRACTION` characters where its figure stands, a longer one by a
    reference (``F1``, ``F2``...) to the appendix, which lists them in the order met."""

    long: list[tuple[str, str, Fraction]] = field(default_factory=list)

    def __call__(self, value: Fraction | str, what: str) -> Markup:
        exact = Fraction(value)
        text = fraction_text(exact)
        if len(text) <= INLINE_FRACTION:
            return Markup("= ") + text
        ref = f"F{len(self.long) + 1}"
        self.long.append((ref, what, exact))
        return Markup('= <a href="#{0}">fraction {0}</a> (appendix)').format(ref)


def _in_favour(value: Fraction | str) -> Markup:
    """A flag beside a house edge below zero: the wager favours the player."""
    if Fraction(value) >= 0:
        return Markup("")
    return Markup(' <span class="favour">in the player\'s favour</span>')


def _environment() -> Environment:
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    env.filters.update(
        favour=_in_favour,
        frac=fraction_text,
        dec=_dec,
        pct=_pct,
        pays=_pays,
        one_in=one_in_text,
        result=format_decimal,
        plain=format_decimal,
        short=_short,
        eor=_eor,
        frac_text_pct=_frac_pct,
    )
    return env


# -- plots -----------------------------------------------------------------------------------
def _svg_uri(figure: object) -> str:
    """A Matplotlib figure, laid out already, as an SVG ``data:`` URI (no date in it: the
    same sheet draws the same bytes)."""
    # tight_layout() leaves a placeholder layout engine behind, for which savefig draws
    # the figure once more before drawing it: nothing is left to lay out, so none
    figure.set_layout_engine(None)  # type: ignore[attr-defined]
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})  # type: ignore[attr-defined]
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _edge_plot(sheet: ParSheet) -> str:
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
    rcParams["svg.fonttype"] = "none"  # text as text: selectable, and a lighter PDF
    figure = Figure(figsize=(7.0, 0.45 * len(sheet.wagers) + 0.9))
    axes = figure.add_subplot()
    names = [w.name for w in sheet.wagers][::-1]
    edges = [float(w.house_edge) * 100 for w in sheet.wagers][::-1]
    colours = ["#1f4e79" if e >= 0 else "#b35900" for e in edges]
    bars = axes.barh(names, edges, color=colours)
    high = max([*edges, 0.0])
    low = min([*edges, 0.0])
    span = (high - low) or 1.0
    for bar, edge in zip(bars, edges, strict=True):  # each label right of its bar's end
        # (or of the zero line, for an edge in the player's favour: clear of the names)
        x = max(edge, 0.0) + span * 0.01
        label = f"{edge:.4f}%" + (" (player's favour)" if edge < 0 else "")
        y = bar.get_y() + bar.get_height() / 2
        axes.text(x, y, label, va="center", ha="left", fontsize=8)
    axes.set_xlabel("house edge, percent of the stake")
    axes.axvline(0, color="#333", linewidth=0.6)
    axes.set_xlim(low - span * 0.05 if low < 0 else 0, high + span * 0.45)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _svg_uri(figure)


def _spread_plot(wager: WagerFigures) -> str:
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
    rcParams["svg.fonttype"] = "none"  # text as text: selectable, and a lighter PDF
    figure = Figure(figsize=(7.0, 2.8))
    axes = figure.add_subplot()
    colours = ("#9ecae1", "#4292c6", "#08306b")
    for spread, colour in zip(wager.spreads, colours * 3, strict=False):
        xs = [x / spread.rounds for x, _ in spread.curve]
        ys = [y for _, y in spread.curve]
        axes.step(xs, ys, where="post", color=colour, label=f"{spread.rounds:,} rounds")
    mean = float(wager.expected)
    axes.axvline(mean, color="#c44e52", linestyle="--", linewidth=1, label=f"mean {mean:+.4f}")
    axes.set_xlabel("net result per round, in units staked")
    axes.set_ylabel("cumulative probability")
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _svg_uri(figure)


# -- the page and the PDF ---------------------------------------------------------------------
def render_html(sheet: ParSheet, plots: bool = True) -> str:
    """The sheet as one self-contained HTML page (style and plots inside it)."""
    fractions = Fractions()  # (one per page: it numbers the page's long fractions)
    env = _environment()
    env.filters["exact"] = fractions
    template = env.from_string(_TEMPLATES.joinpath("par.html").read_text("utf-8"))
    spread_svgs = {
        w.wager: _spread_plot(w) if plots and w.spreads and all(s.curve for s in w.spreads) else ""
        for w in sheet.wagers
    }
    edge_svg = _edge_plot(sheet) if plots and len(sheet.wagers) > 1 else ""
    return template.render(
        sheet=sheet,
        css=_TEMPLATES.joinpath("par.css").read_text("utf-8"),
        spread_svgs=spread_svgs,
        edge_svg=edge_svg,
        isfinite=math.isfinite,
        long_fractions=fractions.long,
        csv_name=csv_name(sheet),
    )


def csv_name(sheet: ParSheet) -> str:
    """The file name of the sheet's figures as CSV (beside the HTML and the PDF)."""
    return f"{sheet.game_id}-par.csv"


def sheet_csv(sheet: ParSheet) -> str:
    """Every exact figure of the sheet as CSV: where it stands, what it is, its decimal
    (to 16 places) and its exact fraction, one per row."""
    rows: list[tuple[str, str, Fraction]] = []
    for name, p in sheet.outcomes:
        rows.append(("outcomes", f"{name}: probability", p))
    for w in sheet.wagers:
        where = f"wager {w.name}"
        rows += [
            (where, "house edge", w.house_edge),
            (where, "mean net result", w.expected),
            (where, "variance", w.variance),
            (where, "hit frequency", w.hit_frequency),
        ]
        for line in w.lines:
            rows.append((where, f"{line.name}: probability", line.probability))
            rows.append((where, f"{line.name}: contribution", line.contribution))
    if sheet.solved is not None:
        rows += [("the coup, solved", f"{side}: expectation", v) for side, v in sheet.solved.means]
    if sheet.strategy is not None:
        for play, *cells in sheet.strategy.edges:
            for wager, cell in zip(sheet.strategy.edges_header[1:], cells, strict=True):
                rows.append(("strategy", f"{play}: house edge of {wager}", Fraction(cell)))
    if sheet.effects is not None:
        for label, values in sheet.effects.rows:
            for wager, value in zip(sheet.effects.wagers, values, strict=True):
                rows.append(("effects of removal", f"{label} out: {wager}", value))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", "figure", "decimal", "exact"])
    for section, what, value in rows:
        writer.writerow([section, what, _dec(value, 16), fraction_text(value)])
    return out.getvalue()


def pdf_bytes(html: str) -> bytes:
    """``html`` laid out as a PDF's bytes (WeasyPrint; nothing fetched).  A ValueError
    in one line when WeasyPrint or the Pango libraries it loads are missing."""
    try:
        import weasyprint  # lazy: WeasyPrint (the report extra)
    except ImportError:
        raise ValueError(MISSING_REPORT_DEPS) from None
    except OSError:  # WeasyPrint found no Pango
        raise ValueError(MISSING_PANGO) from None
    data: bytes = weasyprint.HTML(string=html).write_pdf()
    return data


def write_pdf(html: str, path: Path) -> None:
    """Lay ``html`` out as a PDF at ``path`` (WeasyPrint; nothing fetched: the page holds
    its style and its plots)."""
    import weasyprint  # lazy: WeasyPrint (the report extra)

    weasyprint.HTML(string=html, base_url=str(path.parent)).write_pdf(str(path))
