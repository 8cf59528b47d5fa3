"""The scoreboards baccarat players read: the bead plate and the big road.

Both are made from one shoe's outcomes in order (``player``, ``banker``, ``tie``; the
Finnish games' ``dealer`` and ``push`` too), as :attr:`HouseTable.beads
<cardroom.app.tables.house.HouseTable.beads>` keeps them.  They are data here (cells with
a column and a row); how they look is the presentation's business.

The bead plate is every outcome in order, down columns of six, then across.

The big road follows streaks: each streak of player or banker wins goes down a column,
and a change of winner starts the next column.  A tie is not a cell of its own: it is
counted on the cell of the round before it (ties before any win are counted on the
first cell, which shows a tie until a hand wins).  A streak that meets the bottom, or a
cell already taken, turns right along its row (the "dragon tail"); the next streak still
starts in the column after the last streak's start.

>>> [(c.column, c.row, c.outcome) for c in bead_plate(["banker", "player"])]
[(0, 0, 'banker'), (0, 1, 'player')]
>>> road = big_road(["banker", "banker", "tie", "player", "player", "banker"])
>>> [(c.column, c.row, c.outcome, c.ties) for c in road]
[(0, 0, 'banker', 0), (0, 1, 'banker', 1), (1, 0, 'player', 0), (1, 1, 'player', 0), \
(2, 0, 'banker', 0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ROWS", "Cell", "bead_plate", "big_road", "counts"]

#: Rows of both scoreboards.
ROWS = 6

#: Outcomes that are nobody's win (the big road marks them on the cell before).
NO_WINNER = frozenset({"tie", "push"})


@dataclass(frozen=True)
class Cell:
    """One mark: its place (from the top left), the outcome, the ties counted on it, and
    the hands whose first two cards were a pair (baccarat's pair wagers)."""

    column: int
    row: int
    outcome: str
    ties: int = 0
    pairs: tuple[str, ...] = ()


def bead_plate(
    outcomes: Sequence[str], rows: int = ROWS, pairs: Sequence[Sequence[str]] | None = None
) -> list[Cell]:
    """Every outcome, down columns of ``rows``, then across; ``pairs``, round by round,
    the hands that were dealt a pair (marked on the bead, as baccarat tables do).

    >>> [c.pairs for c in bead_plate(["banker", "tie"], pairs=[("player",), ()])]
    [('player',), ()]
    """
    found = list(pairs or ())
    return [
        Cell(i // rows, i % rows, outcome, pairs=tuple(found[i]) if i < len(found) else ())
        for i, outcome in enumerate(outcomes)
    ]


def big_road(outcomes: Sequence[str], rows: int = ROWS) -> list[Cell]:
    """The big road of ``outcomes`` (see the module's docstring), cells in play order."""
    cells: list[Cell] = []
    taken: set[tuple[int, int]] = set()
    leading_ties = 0
    start = -1  # the column the current streak started in
    column = row = 0
    for outcome in outcomes:
        if outcome in NO_WINNER:
            if cells:
                last = cells[-1]
                cells[-1] = Cell(last.column, last.row, last.outcome, last.ties + 1)
            else:
                leading_ties += 1
            continue
        if not cells or cells[-1].outcome != outcome:
            start += 1
            column, row = start, 0
        elif row + 1 < rows and (column, row + 1) not in taken:
            row += 1
        else:
            column += 1
        taken.add((column, row))
        cells.append(Cell(column, row, outcome, leading_ties if not cells else 0))
        leading_ties = 0
    if not cells and leading_ties:  # only ties so far: marked in the first cell
        return [Cell(0, 0, "tie", leading_ties)]
    return cells


def counts(outcomes: Sequence[str]) -> dict[str, int]:
    """How many rounds each outcome took, in the order they first came.

    >>> counts(["player", "tie", "player"])
    {'player': 2, 'tie': 1}
    """
    found: dict[str, int] = {}
    for outcome in outcomes:
        found[outcome] = found.get(outcome, 0) + 1
    return found
