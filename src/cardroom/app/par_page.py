"""A PAR sheet (:class:`cardroom.app.par.ParSheet`) as HTML and PDF: the page from a
Jinja2 template inside the package, the plots drawn by Matplotlib as SVG and embedded in
the page, the PDF laid out by WeasyPrint.  Nothing is fetched: the style, the plots and
the fonts (the machine's, through fontconfig) are all local.
"""

from __future__ import annotations

import base64
import io
import math
from fractions import Fraction
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, StrictUndefined, select_autoescape

from cardroom.app.par import ParSheet, WagerFigures, one_in_text
from cardroom.core.money import format_decimal, format_odds, fraction_text, rounded_text

__all__ = [
    "MISSING_REPORT_DEPS",
    "check_report_deps",
    "plots_available",
    "render_html",
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


def _environment() -> Environment:
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    env.filters.update(
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
    """A Matplotlib figure as an SVG ``data:`` URI (no date in it: the same sheet draws
    the same bytes)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})  # type: ignore[attr-defined]
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _edge_plot(sheet: ParSheet) -> str:
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
    figure = Figure(figsize=(7.0, 0.45 * len(sheet.wagers) + 0.9))
    axes = figure.add_subplot()
    names = [w.name for w in sheet.wagers][::-1]
    edges = [float(w.house_edge) * 100 for w in sheet.wagers][::-1]
    bars = axes.barh(names, edges, color="#1f4e79")
    axes.bar_label(bars, labels=[f"{e:.4f}%" for e in edges], padding=3, fontsize=8)
    axes.set_xlabel("house edge, percent of the stake")
    axes.axvline(0, color="#333", linewidth=0.6)
    high = max([*edges, 0.0])
    low = min([*edges, 0.0])
    axes.set_xlim(low * 1.25 if low < 0 else 0, high * 1.3 if high > 0 else 1)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _svg_uri(figure)


def _spread_plot(wager: WagerFigures) -> str:
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
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
    template = _environment().from_string(_TEMPLATES.joinpath("par.html").read_text("utf-8"))
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
    )


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
