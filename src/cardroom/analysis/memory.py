"""Memory settings for a process that analyses: freed memory kept, cycles collected
rarely (:func:`for_analysis`).

A count of a Finnish game makes and drops arrays of tens to hundreds of megabytes,
pass after pass, on several threads.  By default glibc's allocator hands each large
block back to the system when it is freed (and gives every thread an arena of its
own), so the next array of that size is faulted in again page by page: on this
project's 2-core reference machine that was a sixth of a count's processor time,
spent in the kernel, with the threads queueing for the process's memory map.

:func:`keep_freed_memory` tells the allocator to serve large blocks from its heap
and to keep what is freed there, in one arena: the process keeps its peak size
until it ends, which is what a one-off analysis command or an analysing worker
wants.  It changes no result.  Where the C library is not glibc it does nothing.

:func:`collect_rarely` has Python's cycle collector wait for many more new objects
between its passes: an analysis and the PAR sheet's layout make millions of objects
that live to the end (fractions, tables, boxes), which the default thresholds walk
again and again, for most of a second of the sheet's eight.  Garbage in cycles is still
collected, a little later.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from functools import cache

__all__ = ["collect_rarely", "for_analysis", "keep_freed_memory"]

#: the cycle collector's first generation: a pass after this many new objects
RARE_COLLECTIONS = 100_000

# mallopt's parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8

_SETTINGS = (
    (_M_MMAP_THRESHOLD, 1 << 30),  # blocks up to 1 GiB from the heap, not their own map
    (_M_TRIM_THRESHOLD, (1 << 31) - 1),  # keep what is freed at the heap's top
    (_M_TOP_PAD, 64 << 20),  # and grow the heap 64 MiB at a time
    (_M_ARENA_MAX, 1),  # one heap: a thread's freed blocks serve the next thread
)


@cache
def keep_freed_memory() -> bool:
    """Have glibc keep freed memory for reuse (see the module); True where it took
    every setting.  Idempotent, and harmless to call where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(mallopt(parameter, value) == 1 for parameter, value in _SETTINGS)


def collect_rarely() -> None:
    """Have the cycle collector pass after :data:`RARE_COLLECTIONS` new objects (the
    default is 700), the older generations as by default."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(RARE_COLLECTIONS, middle, oldest)


def for_analysis() -> None:
    """The settings of a process that analyses: :func:`keep_freed_memory` and
    :func:`collect_rarely`."""
    keep_freed_memory()
    collect_rarely()
