"""Argon2 off the event loop: a bounded pool of password checks at a low priority.

An Argon2 check is made to be expensive: with the parameters here (:data:`PARAMETERS`,
RFC 9106's second recommended option, which argon2-cffi also uses by default) each
one takes 64 MiB of memory and about 0.2 s of one core.  A server that runs every
sign-in's check at once lets a crowd of sign-ins (even for names that do not exist)
take all its memory and every core from the people who are playing.  So every check,
hash and dummy check of the web table goes through one :class:`PasswordPool` per
server process:

- at most :attr:`PasswordPool.size` checks run at once (:func:`pool_size`: one fewer
  than there are cores, and no more than fit in :data:`MEMORY_BUDGET`, 512 MiB, with
  each worker's own memory counted), each in a worker process (or thread) whose
  priority is lowered by :data:`NICE`, so that the server's own work comes first on a
  busy CPU;
- at most :attr:`PasswordPool.waiting` more wait for their turn; beyond that a check is
  refused at once with :class:`Busy` (the web answers 503 and "try again");
- the caller awaits its check without holding a thread (the web's handlers are
  ``async``), so a queue of sign-ins never holds up the thread pool that the bets use.

>>> import asyncio
>>> from concurrent.futures import ThreadPoolExecutor
>>> from argon2 import Parameters, Type
>>> def wait(job):  # an event loop of its own, as the server's would be
...     with ThreadPoolExecutor(1) as thread:
...         return thread.submit(asyncio.run, job).result()
>>> cheap = Parameters(Type.ID, 19, 16, 32, time_cost=1, memory_cost=1024, parallelism=1)
>>> pool = PasswordPool(cheap, size=1)
>>> stored = wait(pool.hash("correct horse"))
>>> wait(pool.verify(stored, "correct horse")), wait(pool.verify(None, "x"))
(Checked(ok=True, needs_rehash=False), Checked(ok=False, needs_rehash=False))
>>> pool.close()
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import functools
import json
import logging
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from argon2 import Parameters, PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError
from argon2.profiles import RFC_9106_LOW_MEMORY

__all__ = [
    "MAX_WAITING",
    "MEMORY_BUDGET",
    "NICE",
    "PARAMETERS",
    "Busy",
    "Checked",
    "PasswordPool",
    "parameters_of",
    "pool_size",
    "shared_pool",
]

log = logging.getLogger("cardroom.web")

#: Argon2id, 64 MiB, 3 passes, 4 lanes, 16-byte salt, 32-byte hash: RFC 9106's
#: "second recommended option" for memory-constrained settings (the first asks 2 GiB
#: per check, which no web server can give a crowd).  A stored hash made with other
#: parameters keeps verifying and is replaced with one of these at its next sign-in.
PARAMETERS: Parameters = RFC_9106_LOW_MEMORY

#: The most memory the checks of one server process may take at once.
MEMORY_BUDGET = 512 * 2**20
#: A worker process's own memory beside its check's (Python and argon2: measured at
#: 21 MiB resident, 86 MiB at the peak of a check with :data:`PARAMETERS`).
WORKER_MEMORY = 32 * 2**20
#: Checks that may wait for a worker beyond those running (more are refused: Busy).
MAX_WAITING = 64
#: How much lower the workers' priority is than the server's (``os.nice``): the
#: lowest.  (Measured with 100 sign-ins at once on a busy 2-core machine: the bets' p99
#: was 55-60 ms at 19, 85-150 ms at 10 and 420 ms at 0.)
NICE = 19

BUSY = "the server is busy signing people in: try again in a moment"


class Busy(Exception):
    """Too many password checks are waiting already: try again in a moment."""


@dataclasses.dataclass(frozen=True)
class Checked:
    """A password check: was it the password, and should its hash be made again with
    the pool's parameters?"""

    ok: bool
    needs_rehash: bool


def parameters_of(hasher: PasswordHasher) -> Parameters:
    """The Argon2 parameters a :class:`PasswordHasher` hashes with."""
    return Parameters(
        type=hasher.type,
        version=19,
        salt_len=hasher.salt_len,
        hash_len=hasher.hash_len,
        time_cost=hasher.time_cost,
        memory_cost=hasher.memory_cost,
        parallelism=hasher.parallelism,
    )


def pool_size(parameters: Parameters, budget: int = MEMORY_BUDGET, cpus: int | None = None) -> int:
    """How many checks may run at once: one per core but one, which is left to the
    server itself (measured: on 2 cores, a second worker made the bets' p99 during a
    flood half again as long, and the flood no shorter on a busy machine), and no more
    than fit in ``budget`` (each its ``memory_cost`` KiB and a worker's own memory); at
    least one.

    >>> pool_size(PARAMETERS, cpus=2), pool_size(PARAMETERS, cpus=4), pool_size(PARAMETERS, cpus=64)
    (1, 3, 5)
    """
    per_check = parameters.memory_cost * 1024 + WORKER_MEMORY
    cores = cpus or os.cpu_count() or 1
    return max(1, min(cores - 1, budget // per_check))


def _key(parameters: Parameters) -> tuple[Any, ...]:
    """``parameters`` as a dictionary key (Parameters is not hashable)."""
    return dataclasses.astuple(parameters)


# -- the work, in a worker process (or thread) ---------------------------------------------
def _lower_priority(nice: int, thread: bool) -> None:
    """Lower this worker's priority by ``nice`` (in a thread, the thread's own, where
    Linux keeps one per thread).  Where it is not allowed it runs as it is."""
    if nice <= 0:
        return
    try:
        if not thread:
            os.nice(nice)
        elif sys.platform == "linux":
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)
    except OSError:  # pragma: no cover - a system that refuses
        pass


def _do(hasher: PasswordHasher, request: dict[str, Any]) -> dict[str, Any]:
    """One request: ``{"op": "hash", "password"}`` or ``{"op": "verify", "stored",
    "password"}``; the answer with the monotonic times it started and ended."""
    started = time.monotonic()
    # a lone surrogate (valid in JSON) hashes as its bytes, the same every time
    password = str(request["password"]).encode("utf-8", "surrogatepass")
    if request["op"] == "hash":
        answer: dict[str, Any] = {"hash": hasher.hash(password)}
    else:
        stored = str(request["stored"])
        ok: bool
        try:
            ok = hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            ok = False
        answer = {"ok": ok, "rehash": ok and hasher.check_needs_rehash(stored)}
    answer["started"], answer["ended"] = started, time.monotonic()
    return answer


def _parameters_json(parameters: Parameters) -> str:
    fields = dataclasses.asdict(parameters)
    fields["type"] = parameters.type.value
    return json.dumps(fields)


def _parameters_from_json(text: str) -> Parameters:
    fields = json.loads(text)
    fields["type"] = Type(fields["type"])
    return Parameters(**fields)


def worker_main(argv: list[str]) -> None:
    """A worker process, ``python -m cardroom.web.passwords PARAMETERS NICE``: one JSON
    request a line on its standard input, one answer a line on its output.  It ends
    when its input does (the server closed it, or the server is gone), and leaves
    Ctrl-C to the server."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parameters = _parameters_from_json(argv[1])
    _lower_priority(int(argv[2]), thread=False)
    hasher = PasswordHasher.from_parameters(parameters)
    for line in sys.stdin.buffer:
        answer = _do(hasher, json.loads(line))
        sys.stdout.buffer.write(json.dumps(answer).encode() + b"\n")
        sys.stdout.buffer.flush()


class WorkerDied(Exception):
    """A worker process ended in the middle of a check (killed, out of memory)."""


class _Worker:
    """One worker process (started when first needed, again after it died), used by
    one thread at a time."""

    def __init__(self, parameters: Parameters, nice: int) -> None:
        self.command = [
            sys.executable,
            "-m",
            "cardroom.web.passwords",
            _parameters_json(parameters),
            str(nice),
        ]
        self.popen: subprocess.Popen[bytes] | None = None

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.popen is None or self.popen.poll() is not None:
            self.popen = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        assert self.popen.stdin is not None and self.popen.stdout is not None
        try:
            self.popen.stdin.write(json.dumps(request).encode() + b"\n")
            self.popen.stdin.flush()
            line = self.popen.stdout.readline()
        except OSError:
            line = b""
        if not line:
            self.stop()
            raise WorkerDied("a password worker ended")
        answer: dict[str, Any] = json.loads(line)
        return answer

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None and self.popen.poll() is None else None

    def stop(self) -> None:
        """End the process: its input closed, and killed if it does not end."""
        popen, self.popen = self.popen, None
        if popen is None:
            return
        for stream in (popen.stdin, popen.stdout):
            if stream is not None:
                stream.close()
        try:
            popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a stuck worker
            popen.kill()
            popen.wait()


# -- in the server -------------------------------------------------------------------------
class PasswordPool:
    """Argon2 hashes and checks with ``parameters``, at most ``size`` at once and at most
    ``waiting`` more queued, in worker processes (``processes=False``: threads of this
    process) at a priority lowered by ``nice``.  The workers start with the first
    check; :meth:`close` stops them (the next check starts them again).  Safe to use
    from any thread and any event loop.
    """

    def __init__(
        self,
        parameters: Parameters = PARAMETERS,
        *,
        size: int | None = None,
        waiting: int = MAX_WAITING,
        processes: bool = True,
        nice: int = NICE,
    ) -> None:
        self.parameters = parameters
        self.size = size or pool_size(parameters)
        self.waiting = waiting
        self.processes = processes
        self.nice = nice
        self._lock = threading.Lock()
        self._threads: ThreadPoolExecutor | None = None
        self._workers = [_Worker(parameters, nice) for _ in range(self.size)]
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        for worker in self._workers:
            self._idle.put(worker)
        self._hasher = PasswordHasher.from_parameters(parameters)
        self._dummy: Future[dict[str, Any]] | None = None
        #: checks submitted and not finished (running or waiting)
        self.in_flight = 0
        #: checks done, refused as Busy, and the most seen running at once
        self.done = 0
        self.refused = 0
        self.peak = 0
        self._recent: deque[tuple[float, float]] = deque(maxlen=4 * self.size + 16)

    def refuse_when_full(self) -> None:
        """:class:`Busy` (and counted) if a check would be refused now: for a caller to
        refuse before it does anything else (the check itself is refused again if the
        pool is full by then)."""
        with self._lock:
            if self.in_flight >= self.size + self.waiting:
                self.refused += 1
                raise Busy(BUSY)

    # -- checks ----------------------------------------------------------------------
    async def hash(self, password: str) -> str:
        """A new hash of ``password`` (:class:`Busy` when too many wait)."""
        answer = await self._run({"op": "hash", "password": password})
        return str(answer["hash"])

    async def verify(self, stored: str | None, password: str) -> Checked:
        """Is ``password`` the one ``stored`` was made from?  ``stored`` None (no such
        account) checks against a hash of a random password, so that it takes as long
        (and is never right)."""
        dummy = stored is None
        if stored is None:
            stored = await self._dummy_hash()
        answer = await self._run({"op": "verify", "stored": stored, "password": password})
        if dummy:
            return Checked(False, False)
        return Checked(bool(answer["ok"]), bool(answer["rehash"]))

    async def _dummy_hash(self) -> str:
        """The hash of a random password, made once by the first worker free."""
        with self._lock:
            threads = self._threads or self._start()
            if self._dummy is None or (self._dummy.done() and self._dummy.exception()):
                request = {"op": "hash", "password": secrets.token_urlsafe(16)}
                self._dummy = threads.submit(self._work, request)
            dummy = self._dummy
        try:
            answer = await asyncio.wrap_future(dummy)
        except WorkerDied:
            raise Busy(BUSY) from None
        return str(answer["hash"])

    async def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self.in_flight >= self.size + self.waiting:
                self.refused += 1
                raise Busy(BUSY)
            threads = self._threads or self._start()
            self.in_flight += 1
        try:
            future = threads.submit(self._work, request)
        except RuntimeError:  # closed at this moment
            with self._lock:
                self.in_flight -= 1
            raise Busy(BUSY) from None
        future.add_done_callback(self._finished)  # (at once if it is done already)
        try:
            answer = await asyncio.wrap_future(future)
        except WorkerDied:
            log.warning("a password worker died: a new one is started")
            raise Busy(BUSY) from None
        self._count(float(answer["started"]), float(answer["ended"]))
        return answer

    def _work(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, in one of the pool's threads: given to a free worker process (there
        is always one, as there are as many as threads), or made in this thread."""
        if not self.processes:
            return _do(self._hasher, request)
        worker = self._idle.get()
        try:
            return worker.call(request)
        finally:
            self._idle.put(worker)

    def _finished(self, future: Future[Any]) -> None:
        with self._lock:
            self.in_flight -= 1

    def _count(self, started: float, ended: float) -> None:
        """Count a finished check, and the most checks that ran at one moment among the
        last few (by the workers' own monotonic clock, which is the machine's)."""
        with self._lock:
            self.done += 1
            self._recent.append((started, ended))
            moments = sorted([(s, 1) for s, _ in self._recent] + [(e, -1) for _, e in self._recent])
            running = 0
            for _, step in moments:  # (an end before a start at the same moment)
                running += step
                self.peak = max(self.peak, running)

    def _start(self) -> ThreadPoolExecutor:
        lower = None if self.processes else functools.partial(_lower_priority, self.nice, True)
        self._threads = ThreadPoolExecutor(
            max_workers=self.size, thread_name_prefix="argon2", initializer=lower
        )
        return self._threads

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes running now."""
        return [pid for pid in (w.pid for w in self._workers) if pid is not None]

    def stats(self) -> str:
        """One line for the log: checks done, refused, and the most at once."""
        return (
            f"password checks: {self.done} done, {self.refused} refused as busy, "
            f"at most {self.peak} at once (the pool's bound is {self.size})"
        )

    def close(self) -> None:
        """Stop the workers (the checks under way finish first; those waiting are
        cancelled).  The next check starts them again."""
        with self._lock:
            threads, self._threads = self._threads, None
            self._dummy = None
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        for worker in self._workers:
            worker.stop()


_shared: dict[tuple[tuple[Any, ...], bool, int], PasswordPool] = {}
_shared_lock = threading.Lock()


def shared_pool(
    parameters: Parameters = PARAMETERS, processes: bool = True, waiting: int = MAX_WAITING
) -> PasswordPool:
    """This process's pool for ``parameters`` (and ``waiting`` checks queued at most): the
    bound is per server process, so every app in a process shares one (closed when the
    process exits)."""
    with _shared_lock:
        key = (_key(parameters), processes, waiting)
        pool = _shared.get(key)
        if pool is None:
            pool = _shared[key] = PasswordPool(parameters, processes=processes, waiting=waiting)
        return pool


@atexit.register
def _close_shared() -> None:
    for pool in list(_shared.values()):
        pool.close()


if __name__ == "__main__":
    worker_main(sys.argv)
