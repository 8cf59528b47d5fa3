"""Keeping freed memory (cardroom.analysis.memory): blocks freed on a thread and made
again come back without the system faulting their pages in again."""

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
