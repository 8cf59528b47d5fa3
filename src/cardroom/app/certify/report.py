"""A :class:`~cardroom.app.certify.run.Certificate` as HTML and PDF, the way the PAR
sheet is made: a Jinja2 template inside the package, Matplotlib's plots as SVG inside
the page, the PDF laid out by WeasyPrint (:func:`cardroom.app.par_page.write_pdf`).
"""

from __future__ import annotations

import base64
import io
from collections import Counter
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, StrictUndefined, select_autoescape

from cardroom.app.certify.run import Certificate, ShoeResult
from cardroom.app.par_page import plots_available, write_pdf

__all__ = ["render_html", "write_report"]

_TEMPLATES = files("cardroom.app").joinpath("templates")


def _svg_uri(figure: object) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})  # type: ignore[attr-defined]
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _summary_plot(cert: Certificate) -> str:
    """Each family's proportion of p-values at or above alpha, with its lower bound."""
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
    families = cert.families[::-1]
    figure = Figure(figsize=(7.0, 0.24 * len(families) + 0.9))
    axes = figure.add_subplot()
    names = [f.name for f in families]
    colours = ["#1f4e79" if f.passed else "#b32020" for f in families]
    axes.barh(names, [f.proportion for f in families], color=colours, height=0.6)
    for y, f in enumerate(families):
        axes.plot([f.low, f.low], [y - 0.4, y + 0.4], color="#c44e52", linewidth=1.5)
    low = min([0.9, *(f.proportion for f in families), *(f.low for f in families)])
    axes.set_xlim(max(0.0, low - 0.02), 1.005)
    axes.set_xlabel("proportion of p-values at or above 0.01 (red tick: the least allowed)")
    axes.tick_params(axis="y", labelsize=7)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _svg_uri(figure)


def _heat_plot(shoe: ShoeResult) -> str:
    """The standardised residual of every cell of position by card index."""
    from matplotlib import rcParams  # lazy: Matplotlib (the report extra)
    from matplotlib.figure import Figure  # lazy: Matplotlib (the report extra)

    rcParams["svg.hashsalt"] = "cardroom"
    figure = Figure(figsize=(6.0, 4.6))
    axes = figure.add_subplot()
    image = axes.imshow(
        shoe.residuals, cmap="RdBu_r", vmin=-4, vmax=4, interpolation="nearest", aspect="auto"
    )
    axes.set_xlabel("card index in the unshuffled shoe")
    axes.set_ylabel("position dealt")
    bar = figure.colorbar(image, ax=axes)
    bar.set_label("(observed − expected) / √expected")
    figure.tight_layout()
    return _svg_uri(figure)


def render_html(cert: Certificate, plots: bool = True) -> str:
    """The certificate as one self-contained HTML page (style and plots inside it)."""
    plots = plots and plots_available()
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    template = env.from_string(_TEMPLATES.joinpath("certify.html").read_text("utf-8"))
    counts = Counter({"PASSED": 0, "WEAK": 0, "FAILED": 0})
    counts.update(r.assessment for r in cert.dieharder)
    return template.render(
        cert=cert,
        css=_TEMPLATES.joinpath("par.css").read_text("utf-8"),
        summary_svg=_summary_plot(cert) if plots else "",
        heat_svgs=[_heat_plot(shoe) if plots else "" for shoe in cert.shoes],
        counts=counts,
    )


def write_report(cert: Certificate, out: Path) -> tuple[Path, Path]:
    """Write the certificate as ``certify-GENERATOR.html`` and ``.pdf`` in ``out``."""
    html = render_html(cert)
    html_path = out / f"certify-{cert.generator}.html"
    pdf_path = out / f"certify-{cert.generator}.pdf"
    html_path.write_text(html, encoding="utf-8")
    write_pdf(html, pdf_path)
    return html_path, pdf_path
