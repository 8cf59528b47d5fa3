"""Work shared out to processes forked from this one, its results given back in order.

:func:`run_forked` forks its workers once they are needed: each has this process's
modules, its compiled kernels and the work's arguments as they are (nothing is
pickled to start it).  The indices of the work go to the workers through one pipe
(each worker takes the next as it is free, so a worker slowed by other work on the
machine takes fewer), and each worker writes its results to a pipe of its own.  At
most ``window`` pieces are handed out ahead of the one the caller waits for, so a run
of any length holds no more than a short one.

It does what a process pool does for a simulation's batches, with none of the pool's
threads and messages: on two cores, the pool's work in the parent (about 20 ms of
processor time for 48 batches) and its import (14 ms before the workers start) were
time taken from the workers.

>>> list(run_forked(lambda i: i * i, 5, workers=2))
[0, 1, 4, 9, 16]
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import signal
import sys
from collections.abc import Callable, Iterator
from typing import TypeVar, cast

__all__ = ["can_fork", "run_forked"]

T = TypeVar("T")

#: The bytes of an index on the pipe of work, and of a result's length on a result pipe.
_WORD = 8


def can_fork() -> bool:
    """Can :func:`run_forked` run here (Linux: a forked process is safe to go on in)?"""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def run_forked(
    work: Callable[[int], T],
    count: int,
    workers: int,
    window: int | None = None,
    started: Callable[[], object] | None = None,
) -> Iterator[T]:
    """``work(0)``, ``work(1)``, ... ``work(count - 1)``, in that order, each worked out
    in one of ``workers`` forked processes; at most ``window`` (4 a worker by default)
    handed out beyond the one given back next.  ``started`` is called once the workers
    have their first pieces.  An exception ``work`` raises in a worker is raised here;
    a worker that stops without a result raises :class:`RuntimeError`.  The workers are
    gone when the iterator ends, is closed or raises."""
    workers = max(1, min(workers, count))
    window = max(1, window if window is not None else 4 * workers)
    jobs_out, jobs_in = os.pipe()
    results: dict[int, int] = {}  # a worker's result pipe -> its process
    try:
        for _ in range(workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: it never returns from here
                _worker(work, jobs_out, jobs_in, write_end)
            os.close(write_end)
            results[read_end] = pid
        os.close(jobs_out)
        jobs_out = -1
        handed = 0
        while handed < min(window, count):
            os.write(jobs_in, handed.to_bytes(_WORD, "little"))
            handed += 1
        if started is not None:
            started()
        done: dict[int, T] = {}
        with selectors.DefaultSelector() as ready:
            for read_end in results:
                ready.register(read_end, selectors.EVENT_READ)
            for index in range(count):
                while index not in done:
                    for key, _ in ready.select():
                        at, value = _receive(key.fd)
                        done[at] = cast(T, value)
                yield done.pop(index)
                if handed < count:
                    os.write(jobs_in, handed.to_bytes(_WORD, "little"))
                    handed += 1
    finally:
        os.close(jobs_in)  # a worker waiting for work reads the end of it, and stops
        if jobs_out >= 0:
            os.close(jobs_out)
        for read_end, pid in results.items():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # (one still at work: the caller gave up)
            os.waitpid(pid, 0)
            os.close(read_end)


def _worker(work: Callable[[int], object], jobs_out: int, jobs_in: int, out: int) -> None:
    """A forked worker: the index of each piece from the pipe of work, its result (or
    the exception it raised) to ``out``, until the pipe ends; then the process ends,
    without the parent's clean-up (its buffers, its exit handlers)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent says so, once
        os.close(jobs_in)
        while True:
            word = _read(jobs_out, _WORD)
            if word is None:
                break
            index = int.from_bytes(word, "little")
            try:
                message = pickle.dumps((index, True, work(index)), pickle.HIGHEST_PROTOCOL)
            except Exception as err:
                message = _pickled_error(index, err)
            _write(out, len(message).to_bytes(_WORD, "little") + message)
    finally:
        os._exit(0)


def _pickled_error(index: int, err: Exception) -> bytes:
    try:
        return pickle.dumps((index, False, err), pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that cannot be pickled: its type and message
        plain = RuntimeError(f"{type(err).__name__}: {err}")
        return pickle.dumps((index, False, plain), pickle.HIGHEST_PROTOCOL)


def _receive(read_end: int) -> tuple[int, object]:
    """The index and the result of the next message on a worker's pipe."""
    word = _read(read_end, _WORD)
    message = _read(read_end, int.from_bytes(word, "little")) if word is not None else None
    if message is None:
        raise RuntimeError("a worker process stopped before its work was done")
    index, ok, value = pickle.loads(message)
    if not ok:
        raise value
    return index, value


def _read(fd: int, size: int) -> bytes | None:
    """Exactly ``size`` bytes from ``fd``, or None at its end."""
    parts = []
    while size:
        part = os.read(fd, size)
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
