"""What every kernel shares: card codes, the shoe's handling, and the batch result.

A card is a small integer: ``rank * 4 + suit`` with ranks in the order of
:data:`cardroom.games.walk.RANK_ORDER` (Ace first) and suits in the order of
:class:`cardroom.core.cards.Suit`; a Joker is 52.  A shoe is the engine's own card
list (``ShoeRules.cards()``) as codes; a shuffle permutes an index array into it,
exactly as :class:`cardroom.core.shoe.Shoe` applies a shuffler's permutation, so the
engine can be dealt the very same shoes in the differential tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np

from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.core.shoe import ShoeRules
from cardroom.simulation.jit import njit
from cardroom.simulation.prng import shuffle_in_place

__all__ = [
    "JOKER_CODE",
    "MAX_SHOE",
    "BatchResult",
    "ShoeTables",
    "card_of",
    "code_of",
    "counters",
    "read_only",
    "units",
]

JOKER_CODE = 52
#: the largest shoe a kernel shuffles (positions are 16-bit: see prng.shuffle_in_place)
MAX_SHOE = (1 << 15) - 1
_SUITS = tuple(Suit)


def code_of(card: Card) -> int:
    if card.rank is Rank.JOKER:
        return JOKER_CODE
    assert card.suit is not None
    return RANK_ORDER.index(card.rank) * 4 + _SUITS.index(card.suit)


def card_of(code: int) -> Card:
    if code == JOKER_CODE:
        return JOKER
    return Card(RANK_ORDER[code // 4], _SUITS[code % 4])


def read_only(array: np.ndarray) -> np.ndarray:
    """``array``, no longer writable: the kernels' tables are built once and shared."""
    array.flags.writeable = False
    return array


#: The most rounds a kernel adds up in one batch (the runner's batches are no bigger).
MAX_BATCH_ROUNDS = 1 << 20


def units(values: list[Fraction]) -> int:
    """The smallest number of parts of a stake in which every value is whole.

    A kernel adds a batch's nets and their squares in 64-bit integers of these parts;
    payouts whose denominators multiply up to parts too fine for that are refused
    here, before any work, rather than overflowing silently.
    """
    unit = lcm(*(Fraction(v).denominator for v in values))
    largest = max((abs(Fraction(v)) for v in values), default=Fraction(1)) * unit
    if largest * largest * MAX_BATCH_ROUNDS >= 2**63:
        raise ValueError(
            f"rules: the payouts' odds need stakes cut into {unit:,} parts to be counted "
            "exactly, too fine for the simulator's 64-bit sums; use odds with smaller or "
            "fewer different denominators"
        )
    return unit


@dataclass(frozen=True)
class ShoeTables:
    """A shoe's cards as codes and its handling, for a kernel."""

    base: np.ndarray  # codes, in the order of ShoeRules.cards()
    burn: int
    burn_by_first_card: bool
    reshuffle_after: int

    @classmethod
    def of(cls, rules: ShoeRules) -> ShoeTables:
        if rules.size > MAX_SHOE:
            raise ValueError(
                f"shoe: the simulator shuffles at most {MAX_SHOE:,} cards, not {rules.size:,}"
            )
        base = np.array([code_of(card) for card in rules.cards()], dtype=np.int8)
        return cls(base, rules.burn, rules.burn_by_first_card, rules.reshuffle_after)


@dataclass
class BatchResult:
    """What one batch of rounds added up to (exact integers; nets in 1/unit stakes).

    A kernel counts each round in a *cell* (outcome, bonus, totals: whatever
    decides every wager's net), so the sums follow from the cell counts.
    """

    rounds: int
    shoes: int
    cells: np.ndarray  # rounds per cell
    outcomes: np.ndarray  # rounds per outcome
    net: np.ndarray  # per wager: sum of net results, in units
    net_squared: np.ndarray  # per wager: sum of squared net results, in units**2
    sessions: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))

    @classmethod
    def of_cells(
        cls,
        rounds: int,
        shoes: int,
        cells: np.ndarray,
        net: np.ndarray,
        outcome_of: np.ndarray,
        sessions: np.ndarray,
        outcomes: int | None = None,
    ) -> BatchResult:
        """Sums from cell counts: ``net[w, cell]`` and ``outcome_of[cell]``."""
        counts = np.bincount(outcome_of, weights=cells, minlength=outcomes or 0)
        return cls(
            rounds,
            shoes,
            cells,
            np.rint(counts).astype(np.int64),
            net @ cells,
            (net * net) @ cells,
            sessions,
        )


def counters(
    net: np.ndarray, rounds: int, session: int, record: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch's empty counts for a kernel whose nets are ``net[wager, cell]``: rounds per
    cell, each session's sum per wager, and (for the tests) each round's cell."""
    cells = np.zeros(net.shape[1], np.int64)
    sessions = np.zeros((rounds // session if session else 0, net.shape[0]), np.int64)
    rec_cell = np.zeros(rounds if record else 0, np.int16)
    return cells, sessions, rec_cell


@njit(inline="always")
def new_shoe(state: np.ndarray, cards: np.ndarray, burn: int, burn_by_first_card: bool) -> int:
    """Shuffle ``cards`` in place (each shuffle continues from the last order, as
    :func:`cardroom.simulation.prng.shuffled_orders` does with indices), burn as the
    rules say, and return the position of the next card."""
    shuffle_in_place(state, cards)
    return first_card(int(cards[0]) // 4, cards.shape[0], burn, burn_by_first_card)


@njit(inline="always")
def first_card(top_rank: int, size: int, burn: int, burn_by_first_card: bool) -> int:
    """The position of the first card dealt from a shoe of ``size`` cards just shuffled,
    whose top card has the rank ``top_rank`` (a code // 4: 0 an Ace, 12 a King, a
    Joker's 13): ``burn`` cards are burned, or, by the first card, the top card and as
    many more as its number (an Ace 1, a picture 10, a Joker none)."""
    if burn_by_first_card:
        number = top_rank + 1 if top_rank != JOKER_CODE // 4 else 0
        return min(1 + min(number, 10), size)
    return min(burn, size)


@njit(inline="always")
def count_round(
    cell: int, played: int, cells: np.ndarray, session: int, sessions: np.ndarray,
    net: np.ndarray, record: bool, rec_cell: np.ndarray,
) -> None:  # fmt: skip
    """Count a round in its cell, its session's sums and (for the tests) the record.

    The kernels call it only where a run keeps sessions or the record, and otherwise
    count the cell themselves (``cells[cell] += 1``): with the sessions' sums in the same
    compiled path, punto banco's round took 8% longer (the branch moved in here, longer
    still)."""
    cells[cell] += 1
    if session:
        s = played // session
        if s < sessions.shape[0]:
            for w in range(net.shape[0]):
                sessions[s, w] += net[w, cell]
    if record:
        rec_cell[played] = cell
