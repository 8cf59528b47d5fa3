"""The settings of an analysing process (cardroom.analysis.memory): blocks freed on a
thread and made again come back without the system faulting their pages in again, and
the cycle collector passes rarely."""

from __future__ import annotations

import subprocess
import sys

import pytest

_CHILD = """
import resource, sys, threading
import numpy as np
from cardroom.analysis.memory import keep_freed_memory

if sys.argv[1] == "keep":
    assert keep_freed_memory() and keep_freed_memory()
faults = []

def count() -> None:  # as a count's passes do: arrays made and dropped, on a thread
    for _ in range(4):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        blocks = [np.ones(1 << 20) for _ in range(4)]  # 8 MiB each, every page touched
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        del blocks

worker = threading.Thread(target=count)
worker.start()
worker.join()
print(sum(faults[1:]))
"""


def _faults_again(mode: str) -> int:
    """The page faults of the second to fourth rounds of making the blocks."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_blocks_are_reused_not_faulted_in_again() -> None:
    assert _faults_again("default") > 300  # handed back, and faulted in again
    assert _faults_again("keep") < 30


_OBJECTS = """
import gc, sys
from cardroom.analysis.memory import for_analysis

if sys.argv[1] == "analysis":
    for_analysis()
before = gc.get_stats()[0]["collections"]
kept = [[n] for n in range(50_000)]  # new objects the collector follows
print(gc.get_stats()[0]["collections"] - before)
"""


def _collections(mode: str) -> int:
    """The cycle collector's passes while 50,000 lists are made."""
    done = subprocess.run(
        [sys.executable, "-c", _OBJECTS, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def test_the_cycle_collector_passes_rarely() -> None:
    assert _collections("default") >= 50  # every 700 new objects
    assert _collections("analysis") == 0
