"""The threads a server process deals house rounds on: a small pool of their own.

A bet's round is one transaction that waits on the database several times.  The
round's work runs on a worker thread, so that the event loop goes on reading and
answering other requests meanwhile.  The rounds get :data:`ROUND_THREADS` threads of
their own rather than the framework's pool of many: each wait on the database hands the
interpreter's lock from one thread to another, and with many threads taking their turns
at it a round cost the server about a sixth more of its processor time, and PostgreSQL
(one connection in use for each thread) about a tenth more (docs/benchmarks.md, "The
web table under load").  Dealing the round on the event loop's thread itself costs less
still, but then one round's waits hold up every other connection of the process.

>>> import asyncio
>>> from concurrent.futures import ThreadPoolExecutor
>>> def wait(job):  # an event loop of its own, as the server's would be
...     with ThreadPoolExecutor(1) as thread:
...         return thread.submit(asyncio.run, job).result()
>>> threads = RoundThreads(1)
>>> wait(threads.run(lambda: 6 * 7))
42
>>> threads.close()
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

__all__ = ["ROUND_THREADS", "RoundThreads"]

#: Each server process's threads for the house rounds (two measured best; see above).
ROUND_THREADS = 2

T = TypeVar("T")


class RoundThreads:
    """A process's threads for the house rounds, started when the first round comes and
    stopped by :meth:`close` (or when this is collected)."""

    def __init__(self, threads: int = ROUND_THREADS) -> None:
        if threads < 1:
            raise ValueError("round threads: at least 1")
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` on one of the threads (in a copy of the caller's context, as the
        framework's pool does), awaited without holding up the event loop."""
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        try:
            done = loop.run_in_executor(self._threads(), context.run, work)
        except RuntimeError:  # the interpreter is exiting: its thread pools take no work
            return await run_in_threadpool(work)
        return await done

    @property
    def started(self) -> bool:
        """Are the threads running (a round came since the start or the last close)?"""
        return self._pool is not None

    def _threads(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="rounds")
                weakref.finalize(self, self._pool.shutdown, wait=False)
            return self._pool

    def close(self) -> None:
        """Stop the threads once the rounds on them are done (a round after this starts
        them again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
