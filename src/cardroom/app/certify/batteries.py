"""The external batteries: Debian's ``dieharder`` and ``ent`` read the raw file of the
production ``randbelow``'s draws, and their output is read back.

``dieharder -g 201 -f FILE`` reads the file as raw 32-bit words; a test that needs more
words than the file holds rewinds it and reads it again, which the report says (a lab
run scales the file with ``--shuffles``).  ``ent -t`` reads bytes: the whole file, and
each of its slices, so that its chi-square, mean and serial correlation give many
p-values, not one.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

from cardroom.app.certify.statistics import normal_p

__all__ = [
    "DIEHARDER_QUICK",
    "MISSING_BATTERIES",
    "DieharderResult",
    "EntResult",
    "batteries_missing",
    "run_dieharder",
    "run_ent",
]

#: how to install the batteries, in one line
MISSING_BATTERIES = (
    "certify-rng needs Debian's dieharder and ent: install them with "
    "`sudo apt-get install dieharder ent` (or `make dieharder` as root), or pass --no-dieharder"
)

#: the dieharder tests of a default run: those that do not rewind a file of 64 MiB
#: (birthdays, count the 1s stream, parking lot, minimum distance 2d and 3d, runs, STS
#: monobit and runs); ``--dieharder all`` runs every test (-a)
DIEHARDER_QUICK: tuple[int, ...] = (0, 8, 10, 11, 12, 15, 100, 101)

_ROW = re.compile(
    r"^\s*(?P<name>[\w-]+)\|\s*(?P<ntup>\d+)\|\s*(?P<tsamples>\d+)\|\s*(?P<psamples>\d+)\|"
    r"\s*(?P<p>[0-9.eE+-]+)\|\s*(?P<assessment>PASSED|WEAK|FAILED)"
)
_REWOUND = re.compile(r"rewound (\d+) times")


def batteries_missing() -> bool:
    """Is dieharder or ent missing from the PATH?"""
    return shutil.which("dieharder") is None or shutil.which("ent") is None


@dataclass(frozen=True)
class DieharderResult:
    """One line of dieharder's table: the test, its p-value and its assessment, and how
    many times the file was rewound for it."""

    test: str
    ntup: int
    tsamples: int
    psamples: int
    p: float
    assessment: str
    rewound: int


def parse_dieharder(text: str, rewound: int = 0) -> list[DieharderResult]:
    """dieharder's result lines in ``text``."""
    found = []
    for line in text.splitlines():
        match = _ROW.match(line)
        if match:
            found.append(
                DieharderResult(
                    match["name"],
                    int(match["ntup"]),
                    int(match["tsamples"]),
                    int(match["psamples"]),
                    float(match["p"]),
                    match["assessment"],
                    rewound,
                )
            )
    return found


def run_dieharder(
    path: Path, tests: tuple[int, ...] | None, progress: Callable[[str], None]
) -> tuple[list[DieharderResult], str]:
    """Run dieharder on ``path`` (``tests``: those test numbers, each by itself; None:
    every test, -a); the results and dieharder's whole output."""
    outputs = []
    results: list[DieharderResult] = []
    runs = [["-a"]] if tests is None else [["-d", str(t)] for t in tests]
    for i, args in enumerate(runs, 1):
        command = ["dieharder", *args, "-g", "201", "-f", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        text = done.stdout + done.stderr
        outputs.append("$ " + " ".join(command) + "\n" + text)
        rewinds = [int(n) for n in _REWOUND.findall(text)]
        results += parse_dieharder(text, max(rewinds, default=0))
        progress(f"dieharder: {i} of {len(runs)} runs, {len(results)} results")
    return results, "\n".join(outputs)


@dataclass(frozen=True)
class EntResult:
    """ent's figures of some bytes, and the p-values of its chi-square (255 degrees of
    freedom), of its mean (127.5 expected) and of its serial correlation (0 expected)."""

    size: int
    entropy: float
    chi_square: float
    mean: float
    pi: float
    serial: float

    @property
    def chi_p(self) -> float:
        return float(stats.chi2.sf(self.chi_square, 255))

    @property
    def mean_p(self) -> float:
        sd = math.sqrt((256 * 256 - 1) / 12 / self.size)
        return normal_p((self.mean - 127.5) / sd)

    @property
    def serial_p(self) -> float:
        return normal_p(self.serial * math.sqrt(self.size))


def parse_ent(text: str) -> EntResult:
    """``ent -t``'s terse output: a header line and a line of figures."""
    rows = [line.split(",") for line in text.strip().splitlines() if line.startswith("1,")]
    if not rows:
        raise ValueError(f"ent gave no figures: {text.strip()[:200]!r}")
    row = rows[0]
    return EntResult(int(row[1]), *(float(x) for x in row[2:7]))


def run_ent(data: bytes) -> EntResult:
    """ent's figures of ``data`` (read on its standard input)."""
    done = subprocess.run(["ent", "-t"], input=data, capture_output=True, check=False)
    return parse_ent(done.stdout.decode("ascii", "replace"))
