"""The floor's plot of GGR and rounds hour by hour, drawn on the server as SVG (no
script, no CDN): GGR as bars above and below a zero line, rounds as a line on a scale
of its own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

from cardroom.app.wallet.values import money_text

__all__ = ["ggr_plot"]

WIDTH = 720
HEIGHT = 260
LEFT = 64
RIGHT = 84
TOP = 16
BOTTOM = 40


def ggr_plot(hours: Sequence[tuple[datetime, int, int]], title: str) -> str:
    """An SVG of ``hours`` (hour, rounds, GGR in cents), ``title`` for screen readers."""
    inner_w = WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-labelledby="plot-title" class="plot">',
        f'<title id="plot-title">{escape(title)}</title>',
    ]
    if not any(rounds for _, rounds, _ in hours):
        parts.append(
            f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" class="plot-empty">'
            "No rounds in this period yet</text></svg>"
        )
        return "".join(parts)
    ggrs = [g for _, _, g in hours]
    high = max(0, *ggrs)
    low = min(0, *ggrs)
    span = (high - low) or 1
    most_rounds = max(n for _, n, _ in hours) or 1
    step = inner_w / len(hours)

    def y_money(cents: int) -> float:
        return TOP + (high - cents) / span * inner_h

    zero = y_money(0)
    parts.append(
        f'<line x1="{LEFT}" x2="{LEFT + inner_w}" y1="{zero:.1f}" y2="{zero:.1f}" class="axis"/>'
    )
    for n, (hour, rounds, ggr) in enumerate(hours):
        x = LEFT + n * step
        top = min(zero, y_money(ggr))
        height = abs(y_money(ggr) - zero)
        kind = "gain" if ggr >= 0 else "loss"
        parts.append(
            f'<rect x="{x + step * 0.1:.1f}" y="{top:.1f}" width="{max(step * 0.8, 0.5):.1f}" '
            f'height="{max(height, 0.5):.1f}" class="bar {kind}">'
            f"<title>{hour:%Y-%m-%d %H:00} UTC: GGR {money_text(ggr)}, {rounds} rounds</title>"
            "</rect>"
        )
    points = " ".join(
        f"{LEFT + (n + 0.5) * step:.1f},{TOP + (1 - r / most_rounds) * inner_h:.1f}"
        for n, (_, r, _) in enumerate(hours)
    )
    parts.append(f'<polyline points="{points}" class="rounds-line"/>')
    labels = [
        (LEFT - 6, TOP + 10, "end", "tick", money_text(high)),
        (LEFT - 6, TOP + inner_h, "end", "tick", money_text(low)),
        (LEFT + inner_w + 6, TOP + 10, "start", "tick", f"{most_rounds} rounds"),
        (LEFT, HEIGHT - 12, "start", "tick", f"{hours[0][0]:%d %b %H:00}"),
        (LEFT + inner_w, HEIGHT - 12, "end", "tick", f"{hours[-1][0]:%d %b %H:00} UTC"),
        (LEFT, HEIGHT - 26, "start", "legend", "bars: GGR an hour · line: rounds an hour"),
    ]
    for x, y, anchor, kind, text in labels:
        parts.append(
            f'<text x="{x}" y="{y}" text-anchor="{anchor}" class="{kind}">{escape(text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
