"""How the finite-shoe analyses of the Finnish games are shown to people.

An interface module beside :mod:`cardroom.analysis_view`, whose strategy view it
reuses: only the line naming the model changes (the real shoe, not cards drawn with
replacement).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from cardroom import analysis_view
from cardroom.analysis.finnish_shoe import ShoeStrategyComparison

__all__ = ["strategy_view"]


def strategy_view(comparison: ShoeStrategyComparison) -> RenderableType:
    """The given table beside the best one, and the house edge of each play."""
    shown = analysis_view.strategy_view(comparison)
    assert isinstance(shown, Group)
    parts: list[RenderableType] = []
    for part in shown.renderables:
        if isinstance(part, Text) and part.plain.startswith("Model: "):
            part = Text(f"Model: {comparison.model}", "dim")
        parts.append(part)
    return Group(*parts)
