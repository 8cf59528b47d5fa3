"""Runs of many rounds: fixed seeded batches, on local workers or on Ray.

A run of ``rounds`` rounds is cut into batches of a fixed size (the last one
shorter), whatever the number of workers.  Batch ``i`` shuffles from the state
``SeedSequence(seed, spawn_key=(i,))`` gives, and each batch starts a fresh shoe,
so the summed counts depend only on the seed, the rounds and the rules: one
worker, two workers or a Ray cluster give the same numbers.

Sessions (``session`` rounds each) never straddle batches: the batch size is
then a multiple of the session length, and a last incomplete session is left out.
"""

from __future__ import annotations

import math
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from cardroom.app.forked import can_fork, run_forked
from cardroom.games import get_game
from cardroom.games.base import GameRules
from cardroom.simulation.common import MAX_BATCH_ROUNDS, BatchResult, ShoeTables
from cardroom.simulation.kernel import Kernel
from cardroom.simulation.prng import batch_state

__all__ = [
    "BATCH_ROUNDS",
    "Kernel",
    "RunResult",
    "WagerFigures",
    "batches",
    "fresh_shoe",
    "kernel_for",
    "load_compiled",
    "run",
]

#: rounds per batch (a run's results do not depend on how batches meet workers)
BATCH_ROUNDS = MAX_BATCH_ROUNDS


@lru_cache(maxsize=16)
def kernel_for(game_id: str, rules: GameRules, strategy: str = "basic") -> Kernel:
    """The kernel of ``game_id`` under ``rules`` (21-24-27: the player's ``strategy``);
    built once per process, since its tables come from many calls into the engine."""
    game = get_game(game_id)
    if not game.plays(rules):
        raise ValueError(f"game: these rules are not {game_id}'s")
    kernel: Kernel = game.kernel(rules, strategy)
    return kernel


#: what Numba's first load imports and no kernel uses (see :func:`load_compiled`)
UNUSED_BY_KERNELS = ("scipy.linalg", "cffi")


class _NotForKernels:
    """An import finder that refuses the packages of :data:`UNUSED_BY_KERNELS`."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if any(name == refused or name.startswith(refused + ".") for refused in self.names):
            raise ImportError("not needed to load a simulation kernel")


def load_compiled(kernel: Kernel) -> None:
    """Load ``kernel``'s compiled code in this process now (from Numba's disk cache, or
    compiled the first time), with a run of no rounds.

    The local workers are forked from this process afterwards, so they start with the
    code loaded instead of each loading it again (a second of processor time apiece).
    Numba's first load imports its implementations of NumPy, which ask SciPy whether a
    BLAS is there (half a second, for ``np.dot`` and ``np.linalg``, which no kernel uses),
    and its typing of C functions, which imports cffi and its C parser (a few hundredths
    of a second, for cffi functions, which no kernel calls): where nothing has imported
    them yet, they are refused for that first load, and Numba goes on without BLAS and
    without cffi in this process.
    """
    first = "numba.np.arraymath" not in sys.modules
    refused = tuple(name for name in UNUSED_BY_KERNELS if first and name not in sys.modules)
    finder = _NotForKernels(refused)
    if refused:
        sys.meta_path.insert(0, finder)
    try:
        kernel.run(batch_state(0, 0), 0)
    finally:
        if refused:
            sys.meta_path.remove(finder)


#: Sessions a run may report (each is kept: 8 bytes per wager).
MAX_SESSIONS = 10**7


@dataclass(frozen=True)
class Plan:
    """The batches of a run, made as they are needed (a run of 10^15 rounds has a
    billion of them): ``size`` rounds each, the last one ``rounds`` short of it."""

    rounds: int
    size: int

    def __len__(self) -> int:
        return -(-self.rounds // self.size)

    def __iter__(self) -> Iterator[int]:
        full, rest = divmod(self.rounds, self.size)
        for _ in range(full):
            yield self.size
        if rest:
            yield rest

    def rounds_in(self, index: int) -> int:
        """The rounds of batch ``index``."""
        return min(self.size, self.rounds - index * self.size)


def fresh_shoe(rules: GameRules) -> Any:
    """``rules`` with every round dealt from a full, freshly shuffled shoe: the shoe is
    reshuffled before every round (the reshuffle point after the first card dealt), so
    each round is dealt off the top, as the exact analyses count it.  A fixed burn goes
    (cards burnt face down from a full shoe change nothing on average); the casino
    burn of baccarat stays as the rules say."""
    shoe = replace(rules.shoe, reshuffle_after=1, reshuffle_fraction=None, cut_card=None, burn=0)
    return replace(rules, shoe=shoe)


def batches(rounds: int, session: int = 0, size: int = BATCH_ROUNDS) -> Plan:
    """The rounds of each batch of a run."""
    if rounds <= 0:
        raise ValueError("rounds: must be at least 1")
    if session < 0:
        raise ValueError("session-rounds: must be at least 1")
    if session:
        if rounds // session > MAX_SESSIONS:
            raise ValueError(
                f"session-rounds: a run reports at most {MAX_SESSIONS:,} sessions, not "
                f"{rounds // session:,}: give longer sessions or fewer rounds"
            )
        size = max(1, size // session) * session
    return Plan(rounds, size)


def _run_batch(
    game_id: str, rules: GameRules, strategy: str, seed: int, index: int, rounds: int, session: int
) -> BatchResult:
    kernel = kernel_for(game_id, rules, strategy)
    result, _ = kernel.run(batch_state(seed, index), rounds, session)
    if result.rounds < rounds:
        raise ValueError(
            "rules: the shoe ran out in the middle of a round; the reshuffle point leaves "
            "too few cards behind it for the simulation"
        )
    return result


@dataclass(frozen=True)
class WagerFigures:
    """One wager's simulated mean net result per unit staked, with its spread."""

    mean: float
    std_dev: float
    std_error: float
    exact: Fraction | None = None

    @property
    def ci95(self) -> tuple[float, float]:
        half = 1.959963984540054 * self.std_error
        return (self.mean - half, self.mean + half)

    @property
    def z(self) -> float | None:
        """Standard errors between the simulated mean and the exact value."""
        if self.exact is None or self.std_error == 0:
            return None
        return (self.mean - float(self.exact)) / self.std_error


@dataclass
class RunResult:
    """A whole run: exact integer sums, and the figures that follow."""

    game: str
    rounds: int
    seed: int
    seconds: float
    shoes: int
    outcome_names: tuple[str, ...]
    wager_ids: tuple[str, ...]
    unit: int
    outcomes: np.ndarray
    net: np.ndarray
    net_squared: np.ndarray
    sessions: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    session_rounds: int = 0
    workers: int = 1
    backend: str = "local"
    #: every round from a full, freshly shuffled shoe (see :func:`fresh_shoe`)
    fresh: bool = False

    def wager(self, index: int, exact: Fraction | None = None) -> WagerFigures:
        n = self.rounds
        mean = int(self.net[index]) / (n * self.unit)
        square = int(self.net_squared[index]) / (n * self.unit**2)
        std = math.sqrt(max(square - mean * mean, 0.0))
        return WagerFigures(mean, std, std / math.sqrt(n), exact)

    def outcome_counts(self) -> dict[str, int]:
        return {name: int(c) for name, c in zip(self.outcome_names, self.outcomes, strict=True)}

    def session_nets(self, index: int) -> np.ndarray:
        """Each complete session's net result for one wager, per unit staked."""
        return self.sessions[:, index] / self.unit


def run(
    game_id: str,
    rules: GameRules,
    rounds: int,
    seed: int = 0,
    workers: int = 1,
    session: int = 0,
    strategy: str = "basic",
    backend: str = "local",
    address: str | None = None,
    progress: Callable[[int], None] | None = None,
    fresh: bool = False,
    meanwhile: Callable[[], object] | None = None,
) -> RunResult:
    """Play ``rounds`` rounds of ``game_id`` in seeded batches and add them up.

    ``progress`` is called with the rounds of each batch as it completes.  ``fresh``:
    deal every round from a full, freshly shuffled shoe (:func:`fresh_shoe`).
    ``meanwhile`` is called once, while the local workers play their first batches (where
    there are none, before the first batch): the caller's own work of the run (its exact
    column, its output's imports) then takes no time of its own on a machine whose every
    core plays.
    """
    if fresh:
        rules = fresh_shoe(rules)
    if workers < 1:
        raise ValueError("workers: must be at least 1")
    if seed < 0:
        raise ValueError("seed: must be 0 or more")
    plan = batches(rounds, session)
    ShoeTables.of(rules.shoe)  # a shoe the kernels cannot take is refused before any work
    kernel = kernel_for(game_id, rules, strategy)
    if backend == "local":
        load_compiled(kernel)
    start = time.perf_counter()

    def job(i: int) -> tuple[Any, ...]:
        return (game_id, rules, strategy, seed, i, plan.rounds_in(i), session)

    jobs = (job(i) for i in range(len(plan)))
    totals = _Totals(kernel)
    if backend == "ray":
        results = _run_ray(jobs, address, workers)
    elif backend != "local":
        raise ValueError(f"backend: local or ray, not {backend!r}")
    elif workers == 1 or len(plan) == 1:
        results = (_run_batch(*job) for job in jobs)
    else:
        results = _run_pool(job, len(plan), workers, meanwhile)
        meanwhile = None
    if meanwhile is not None:
        meanwhile()
    for result in results:
        totals.add(result)
        if progress:
            progress(result.rounds)
    seconds = time.perf_counter() - start
    merged = totals.result(game_id, seed, seconds, session, workers, backend)
    merged.fresh = fresh
    return merged


def _window(workers: int) -> int:
    """Batches in flight at once: enough to keep every worker busy, few enough that a
    run of any length needs no more memory than a short one."""
    return 4 * workers


def _run_pool(
    job: Callable[[int], tuple[Any, ...]],
    count: int,
    workers: int,
    started: Callable[[], object] | None = None,
) -> Iterator[BatchResult]:
    """The results of batches ``0`` to ``count - 1`` in order (``job(i)``: batch ``i``'s
    arguments), from worker processes; ``started`` is called once the workers have their
    first batches.  On Linux the workers are forked from this process
    (:mod:`cardroom.app.forked`); elsewhere a process pool starts them."""
    if can_fork():
        return run_forked(lambda i: _run_batch(*job(i)), count, workers, _window(workers), started)
    return _run_executor((job(i) for i in range(count)), workers, started)


def _run_executor(
    jobs: Iterator[tuple[Any, ...]], workers: int, started: Callable[[], object] | None = None
) -> Iterator[BatchResult]:
    """:func:`_run_pool` through :class:`concurrent.futures.ProcessPoolExecutor`."""
    from concurrent.futures import Future, ProcessPoolExecutor  # lazy: where not forked

    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[BatchResult]] = deque()
        for job in jobs:
            pending.append(pool.submit(_run_batch, *job))
            if len(pending) >= _window(workers):
                if started is not None:
                    started()
                    started = None
                yield pending.popleft().result()
        if started is not None:
            started()
        while pending:
            yield pending.popleft().result()


def _run_ray(
    jobs: Iterator[tuple[Any, ...]], address: str | None, workers: int
) -> Iterator[BatchResult]:
    """The batches' results in order, from a Ray cluster."""
    if address is not None:
        _reachable(address)
    try:
        import ray  # lazy: Ray (an optional extra)
    except ImportError:
        raise ValueError(
            "backend: Ray is not installed; install it with `pip install cardroom[ray]`"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(_run_batch)
    cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
    window = _window(max(workers, int(cpus)))
    pending: deque[Any] = deque()
    for job in jobs:
        pending.append(remote.remote(*job))
        if len(pending) >= window:
            yield ray.get(pending.popleft())
    while pending:
        yield ray.get(pending.popleft())


#: The seconds a Ray cluster's address has to take a connection before the run gives up.
REACH_SECONDS = 5.0


def _reachable(address: str) -> None:
    """Refuse, in one line and within seconds, a cluster address nothing answers on
    (Ray itself keeps trying for minutes).  ``auto`` and ``local`` are Ray's own words
    and are left to it; ``host:port`` and ``ray://host:port`` are tried.

    >>> _reachable("auto")
    >>> _reachable("nowhere")
    Traceback (most recent call last):
    ...
    ValueError: --address: give the Ray cluster as HOST:PORT (or ray://HOST:PORT), not 'nowhere'
    """
    if address in ("auto", "local"):
        return
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            "--address: give the Ray cluster as HOST:PORT (or ray://HOST:PORT), "
            f"not {address[:80]!r}"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_SECONDS).close()
    except OSError as err:
        reason = "no answer" if isinstance(err, TimeoutError) else (err.strerror or "no answer")
        raise ValueError(
            f"--address: nothing answers at {address[:80]} ({reason.lower()}): is the Ray "
            "cluster running there?"
        ) from None


class _Totals:
    """A run's sums, added up batch by batch, in the batches' order."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.rounds = 0
        self.shoes = 0
        # summed as Python integers: squares of big payouts over billions of rounds
        # would overflow 64 bits
        self.outcomes = [0] * len(kernel.outcome_names)
        self.net = [0] * len(kernel.wager_ids)
        self.net_squared = [0] * len(kernel.wager_ids)
        self.sessions: list[np.ndarray] = []

    def add(self, result: BatchResult) -> None:
        self.rounds += result.rounds
        self.shoes += result.shoes
        for sums, part in (
            (self.outcomes, result.outcomes),
            (self.net, result.net),
            (self.net_squared, result.net_squared),
        ):
            for i, value in enumerate(part):
                sums[i] += int(value)
        if result.sessions.size:
            self.sessions.append(result.sessions)

    def result(
        self, game_id: str, seed: int, seconds: float, session: int, workers: int, backend: str
    ) -> RunResult:
        kernel = self.kernel
        wagers = len(kernel.wager_ids)
        return RunResult(
            game=game_id,
            rounds=self.rounds,
            seed=seed,
            seconds=seconds,
            shoes=self.shoes,
            outcome_names=kernel.outcome_names,
            wager_ids=kernel.wager_ids,
            unit=kernel.unit,
            outcomes=np.array(self.outcomes, dtype=object),
            net=np.array(self.net, dtype=object),
            net_squared=np.array(self.net_squared, dtype=object),
            sessions=(
                np.concatenate(self.sessions) if self.sessions else np.zeros((0, wagers), np.int64)
            ),
            session_rounds=session,
            workers=workers,
            backend=backend,
        )


def exact_means(
    game_id: str, rules: GameRules, strategy: str = "basic", finite: bool = True
) -> dict[str, Fraction]:
    """Each wager's exact expected net result per unit staked, off the top of a
    full shoe, from :mod:`cardroom.analysis` (finnish27 and 21-24-27: dealt from the
    rules' shoe, or with ``finite=False`` with cards drawn with replacement;
    chemin-de-fer: the equilibrium both bots play).

    Kept in the disk cache (:mod:`cardroom.analysis.cache`), keyed by the rules and
    the code: the first run of a rules variant computes them, later runs read them.
    """
    from cardroom.analysis.cache import cached_fractions  # lazy: read once the workers play

    model = "real shoe" if finite else "with replacement"
    return cached_fractions(
        "exact means",
        game_id,
        rules,
        lambda: _exact_means(game_id, rules, strategy, finite),
        f"{strategy}; {model}",
    )


def _exact_means(
    game_id: str, rules: GameRules, strategy: str, finite: bool
) -> dict[str, Fraction]:
    means: dict[str, Fraction] = get_game(game_id).exact_means(rules, strategy, finite)
    return means
