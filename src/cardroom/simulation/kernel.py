"""What a game's compiled simulation offers the runner (:mod:`cardroom.app.runner`): its
wagers and outcomes, the net of each wager in each cell of its counts, and a batch of
rounds from a generator's state.  Each game's ``kernel.py`` makes one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # (only the types: a game's description stays free of NumPy)
    import numpy as np

    from cardroom.simulation.common import BatchResult

__all__ = ["Kernel"]


class Kernel(Protocol):
    """A compiled game: what the runner needs of it."""

    @property
    def wager_ids(self) -> tuple[str, ...]: ...

    @property
    def outcome_names(self) -> tuple[str, ...]: ...

    @property
    def unit(self) -> int: ...

    def cell_nets(self) -> np.ndarray: ...

    def run(
        self, state: np.ndarray, rounds: int, session: int = 0, record: bool = False
    ) -> tuple[BatchResult, np.ndarray]: ...
