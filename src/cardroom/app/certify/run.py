"""A certification run: shuffle every game's shoe with the generator under test, count,
test each family of statistics, write the raw files and run the batteries on them; one
:class:`Certificate` holds it all (:mod:`.report` writes it as HTML and PDF).
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import stats

import cardroom
from cardroom.app.certify.batteries import (
    DIEHARDER_QUICK,
    DieharderResult,
    EntResult,
    run_dieharder,
    run_ent,
)
from cardroom.app.certify.generators import Generator
from cardroom.app.certify.sampling import (
    Progress,
    ShoeTally,
    ShoeUnderTest,
    TaskCounts,
    _quiet,
    shuffle_shoes,
)
from cardroom.app.certify.statistics import (
    ALPHA,
    Family,
    chi_square,
    family,
    normal_p,
)
from cardroom.app.par import package_digest

__all__ = [
    "DEFAULT_SHUFFLES",
    "LAB_SHUFFLES",
    "MAX_SHUFFLES",
    "MIN_SHUFFLES",
    "Certificate",
    "CoupTable",
    "ShoeResult",
    "certify",
    "raw_size",
]

#: shuffles of each shoe in a default run (a few minutes on two cores)
DEFAULT_SHUFFLES = 100_000
#: the shuffles of each shoe a test lab's run needs at least
LAB_SHUFFLES = 1_000_000
#: the fewest and the most shuffles of each shoe a run takes
MIN_SHUFFLES = 1_000
MAX_SHUFFLES = 100_000_000
#: bytes of raw draws per shuffle of a shoe: 64 MiB for a default run
RAW_PER_SHUFFLE = Fraction(64 * 2**20, DEFAULT_SHUFFLES)
#: the raw file is read by ent in slices of this many bytes
ENT_SLICE = 2**20
#: the most times dieharder may rewind the raw file for a result the verdict counts
MAX_REWOUND = 1
#: p-values wanted of each family read by groups of consecutive shoes
TARGET_P_VALUES = 100


def raw_size(shuffles: int) -> int:
    """The raw file's bytes for a run of ``shuffles`` shuffles of each shoe (at least
    one slice)."""
    return max(ENT_SLICE, math.floor(shuffles * RAW_PER_SHUFFLE))


@dataclass(frozen=True)
class CoupTable:
    """A game's first coups: each outcome's count and share against its exact
    probability."""

    game_id: str
    model: str
    rows: tuple[tuple[str, int, float, Fraction], ...]
    chi_p: float | None


@dataclass(frozen=True)
class ShoeResult:
    """What a shoe's run found: its families, the first card's and first pair's table,
    the first coups, and the whole position matrix's figures."""

    label: str
    size: int
    games: tuple[str, ...]
    shuffles: int
    families: tuple[Family, ...]
    first_card: tuple[tuple[str, int, float, Fraction], ...]
    pair_same: tuple[int, Fraction]
    coups: tuple[CoupTable, ...]
    whole_chi: tuple[float, int, float]
    max_residual: float
    residuals: np.ndarray


@dataclass
class Certificate:
    """A certification run's every figure and its verdict."""

    generator: str
    generator_title: str
    generator_words: str
    shuffles: int
    workers: int
    shoes: list[ShoeResult] = field(default_factory=list)
    raw_families: list[Family] = field(default_factory=list)
    raw_files: list[tuple[str, int, str]] = field(default_factory=list)
    ent_whole: EntResult | None = None
    dieharder: list[DieharderResult] = field(default_factory=list)
    dieharder_mode: str = "skipped"
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    version: str = cardroom.__version__
    code_sha256: str = ""
    python: str = ""
    machine: str = ""
    generated: str = ""

    @property
    def families(self) -> list[Family]:
        return [f for shoe in self.shoes for f in shoe.families] + self.raw_families

    @property
    def passed(self) -> bool:
        return all(f.passed for f in self.families)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"

    @property
    def failed(self) -> list[Family]:
        return [f for f in self.families if not f.passed]


# -- a shoe's families ----------------------------------------------------------------------
def _groups(tasks: Sequence[TaskCounts], groups: int) -> list[list[TaskCounts]]:
    parts = np.array_split(np.arange(len(tasks)), max(1, min(groups, len(tasks))))
    return [[tasks[int(i)] for i in part] for part in parts if len(part)]


def _group_count(shuffles: int, probabilities: Sequence[float]) -> int:
    """How many groups of consecutive shoes a family of one chi-square per group reads:
    up to :data:`TARGET_P_VALUES`, each group big enough that every cell is expected 5
    times, or 100 times on average (rarer cells are then pooled)."""
    live = [p for p in probabilities if p > 0]
    need = min(math.ceil(5 / min(live)), 100 * len(live))
    return max(1, min(TARGET_P_VALUES, shuffles // need))


def _p_values(tests: Sequence[object]) -> list[float]:
    return [t.p for t in tests if t is not None]  # type: ignore[attr-defined]


def shoe_result(tally: ShoeTally) -> ShoeResult:
    """The families of one shoe's run."""
    shoe = tally.shoe
    n, runs = shoe.size, tally.shuffles
    rank_of, suit_of = shoe.rank_of(), shoe.suit_of()
    rank_counts = np.bincount(rank_of, minlength=len(shoe.ranks))
    suit_counts = np.bincount(suit_of, minlength=len(shoe.suits))
    rank_p = [Fraction(int(c), n) for c in rank_counts]
    suit_p = [Fraction(int(c), n) for c in suit_counts]
    families = []

    # every card (by its index in the shoe) at every position, by rank and by suit
    position_groups = max(1, min(len(tally.tasks), math.ceil(TARGET_P_VALUES / n), runs // (5 * n)))
    card_p: list[float] = []
    rank_ps: list[float] = []
    suit_ps: list[float] = []
    uniform = [1 / n] * n
    for group in _groups(tally.tasks, position_groups):
        matrix = sum((t.positions for t in group), np.zeros((n, n), dtype=np.int64))
        by_rank = matrix @ np.eye(len(rank_p), dtype=np.int64)[rank_of]
        by_suit = matrix @ np.eye(len(suit_p), dtype=np.int64)[suit_of]
        card_p += _p_values([chi_square(row, uniform) for row in matrix])
        if len(rank_p) > 1 and len(rank_p) < n:
            rank_ps += _p_values([chi_square(row, rank_p) for row in by_rank])
        if len(suit_p) > 1:
            suit_ps += _p_values([chi_square(row, suit_p) for row in by_suit])
    per = f"{position_groups} groups of consecutive shoes × " if position_groups > 1 else ""
    families.append(
        family(
            f"{n} cards: card by position",
            f"one chi-square per position ({per}{n} positions) of the card index dealt "
            f"there against 1/{n} each",
            card_p,
        )
    )
    if rank_ps:
        families.append(
            family(
                f"{n} cards: rank by position",
                "one chi-square per position of the rank dealt there against the shoe's "
                "share of each rank",
                rank_ps,
            )
        )
    if suit_ps:
        families.append(
            family(
                f"{n} cards: suit by position",
                "one chi-square per position of the suit dealt there (a Joker's apart) "
                "against the shoe's share of each suit",
                suit_ps,
            )
        )

    # the first card and the first pair, by rank, against their exact probabilities
    ranks = len(rank_p)
    pair_p = [
        Fraction(int(rank_counts[a]) * (int(rank_counts[b]) - (a == b)), n * (n - 1))
        for a in range(ranks)
        for b in range(ranks)
    ]
    first_groups = min(len(tally.tasks), _group_count(runs, [float(p) for p in rank_p]))
    pair_groups = min(len(tally.tasks), _group_count(runs, [float(p) for p in pair_p]))
    first_p = [
        chi_square(sum(t.pairs.sum(axis=1) for t in group), rank_p)
        for group in _groups(tally.tasks, first_groups)
    ]
    pairs_p = [
        chi_square(sum(t.pairs for t in group), pair_p)
        for group in _groups(tally.tasks, pair_groups)
    ]
    if ranks > 1:
        families.append(
            family(
                f"{n} cards: first card",
                f"the rank of the first card against its exact probability, one chi-square "
                f"per group of consecutive shoes ({first_groups} groups)",
                _p_values(first_p),
            )
        )
        families.append(
            family(
                f"{n} cards: first pair",
                f"the ranks of the first two cards together ({ranks}×{ranks} cells) against "
                f"their exact probabilities, one chi-square per group ({pair_groups} groups)",
                _p_values(pairs_p),
            )
        )
    pairs_total = sum((t.pairs for t in tally.tasks), np.zeros((ranks, ranks), dtype=np.int64))
    first_total = pairs_total.sum(axis=1)
    first_card = tuple(
        (shoe.ranks[r], int(first_total[r]), int(first_total[r]) / runs, rank_p[r])
        for r in range(ranks)
    )
    same = int(np.trace(pairs_total))
    same_exact = sum((pair_p[a * ranks + a] for a in range(ranks)), Fraction(0))

    # each game's first coup
    coups = []
    for c, coup in enumerate(shoe.coups):
        groups = min(len(tally.tasks), _group_count(runs, [float(p) for p in coup.exact]))
        coup_p = [
            chi_square(sum(t.coups[c] for t in group), coup.exact)
            for group in _groups(tally.tasks, groups)
        ]
        families.append(
            family(
                f"{n} cards: first coup of {coup.game_id}",
                f"the outcome of the first coup dealt from the shuffled shoe against its "
                f"exact probability, one chi-square per group ({groups} groups)",
                _p_values(coup_p),
            )
        )
        total = sum((t.coups[c] for t in tally.tasks), np.zeros(len(coup.outcomes), np.int64))
        whole = chi_square(total, coup.exact)
        coups.append(
            CoupTable(
                coup.game_id,
                coup.model,
                tuple(
                    (o, int(total[i]), int(total[i]) / runs, coup.exact[i])
                    for i, o in enumerate(coup.outcomes)
                ),
                whole.p if whole else None,
            )
        )

    # successive shoes
    serial = [normal_p(t.serial_z) for t in tally.tasks if t.serial_z is not None]
    runs_p = [normal_p(t.runs_z) for t in tally.tasks if t.runs_z is not None]
    families.append(
        family(
            f"{n} cards: serial correlation",
            "the correlation of each shoe's order with the next one's, summed over a task's "
            "successive shoes as a z-score (one p-value per task)",
            serial,
        )
    )
    families.append(
        family(
            f"{n} cards: runs",
            "the runs of successive shoes' first cards in the upper and lower half of the "
            "shoe (Wald-Wolfowitz, one p-value per task)",
            runs_p,
        )
    )

    matrix = tally.positions
    expected = runs / n
    residuals = (matrix - expected) / math.sqrt(expected)
    statistic = float((residuals**2).sum())
    df = (n - 1) ** 2
    return ShoeResult(
        shoe.label,
        n,
        shoe.games,
        runs,
        tuple(families),
        first_card,
        (same, same_exact),
        tuple(coups),
        (statistic, df, float(stats.chi2.sf(statistic, df))),
        float(np.abs(residuals).max()),
        residuals,
    )


# -- the raw files ------------------------------------------------------------------------------
def ent_families(slices: Sequence[EntResult]) -> list[Family]:
    """The families of ent's figures over the raw file's slices."""
    size = slices[0].size if slices else 0
    return [
        family(
            "ent: byte chi-square",
            f"ent's chi-square of the 256 byte values (255 degrees of freedom) over each "
            f"slice of {size:,} bytes",
            [s.chi_p for s in slices],
        ),
        family(
            "ent: mean",
            "the mean byte of each slice against 127.5 (normal approximation)",
            [s.mean_p for s in slices],
        ),
        family(
            "ent: serial correlation",
            "ent's serial correlation of successive bytes of each slice against 0",
            [s.serial_p for s in slices],
        ),
    ]


def dieharder_family(results: Sequence[DieharderResult]) -> Family:
    """dieharder's p-values as a family; any FAILED assessment fails it."""
    counted = [r for r in results if r.rewound <= MAX_REWOUND]
    failed = [r.test for r in counted if r.assessment == "FAILED"]
    found = family(
        "dieharder",
        "every dieharder test's p-value (each itself a Kolmogorov-Smirnov test of its "
        "psamples); any FAILED assessment (p < 0.000001) fails the family; a test that "
        f"rewound the raw file more than {MAX_REWOUND} time reused its words and is left "
        f"out ({len(results) - len(counted)} of {len(results)})",
        [r.p for r in counted],
    )
    if failed:
        found = replace(found, veto=f"FAILED: {', '.join(failed)}")
    return found


def certify(
    generator: Generator,
    shoes: Sequence[ShoeUnderTest],
    shuffles: int,
    out: Path,
    workers: int,
    dieharder: str | None = "quick",
    ent: bool = True,
    progress: Progress = _quiet,
    raw: int | None = None,
) -> Certificate:
    """Certify ``generator``: shuffle each of ``shoes`` ``shuffles`` times on ``workers``
    processes, draw the raw file into ``out`` and run ``ent`` (if ``ent``) and
    ``dieharder`` (``quick``, ``all`` or None) on it; ``raw`` bytes of raw draws (None:
    :func:`raw_size` of the shuffles)."""
    started = time.perf_counter()
    cert = Certificate(generator.name, generator.title, generator.words, shuffles, workers)
    _, draw = generator.make()
    size = (raw_size(shuffles) if raw is None else raw) if draw is not None else 0
    tallies, chunks = shuffle_shoes(
        generator, shoes, shuffles, workers, progress, raw=(size, ENT_SLICE)
    )
    for tally in tallies:
        cert.shoes.append(shoe_result(tally))
    if size:
        raw_path = out / f"randbelow256-{generator.name}.bin"
        slices: list[EntResult] = []
        with raw_path.open("wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
                if ent:
                    slices.append(run_ent(chunk))
        cert.raw_files.append(
            (
                raw_path.name,
                size,
                f"{size:,} bytes, each randbelow(256) of the generator under test, in the "
                "order drawn (each worker process drew whole slices of "
                f"{ENT_SLICE:,} bytes; the slices are in the order they were asked for)",
            )
        )
        if ent:
            progress("ent: the whole file and each slice")
            cert.ent_whole = run_ent(raw_path.read_bytes())
            cert.raw_families += ent_families(slices)
        else:
            cert.notes.append("ent was not run (--no-dieharder, or ent is not installed)")
        if dieharder is not None:
            tests = None if dieharder == "all" else DIEHARDER_QUICK
            cert.dieharder, text = run_dieharder(raw_path, tests, progress)
            cert.dieharder_mode = "every test (-a)" if tests is None else "the quick set"
            (out / f"dieharder-{generator.name}.txt").write_text(text, encoding="utf-8")
            cert.raw_families.append(dieharder_family(cert.dieharder))
            rewound = [r for r in cert.dieharder if r.rewound > MAX_REWOUND]
            if rewound:
                cert.notes.append(
                    f"{len(rewound)} dieharder results rewound the raw file more than "
                    f"{MAX_REWOUND} time (it is too short for them) and are left out of the "
                    "verdict: a lab run makes the file larger with --shuffles"
                )
        else:
            cert.notes.append("dieharder was not run (--no-dieharder)")
    else:
        cert.notes.append(
            f"{generator.name}: its randbelow cannot be reached, so no raw file was drawn"
        )
    if shuffles < LAB_SHUFFLES:
        cert.notes.append(
            f"{shuffles:,} shuffles of each shoe: a test lab's run needs at least "
            f"{LAB_SHUFFLES:,} (--shuffles {LAB_SHUFFLES})"
        )
    cert.seconds = time.perf_counter() - started
    cert.code_sha256 = package_digest()
    cert.python = f"{platform.python_implementation()} {platform.python_version()}"
    cert.machine = f"{platform.machine()}, {workers} worker processes"
    cert.generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return cert


def alpha_text() -> str:
    """The level the families read their p-values at."""
    return f"{ALPHA:g}"
