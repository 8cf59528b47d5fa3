"""The exact house edge of every wager, for the disclosure on each game's page.

The figures come from the analyser (:func:`cardroom.simulation.runner.exact_means`,
cached on disk by the rules).  Some take many seconds the first time (finnish27), so
they are never computed while a page waits or the server starts: the first request
for a game's figures starts their computation in the background (one at a time, in a
child process so that the server's threads keep their share of the interpreter), and
answers "computing" until they are known; after that they are kept for the life of
the process.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from cardroom.core.rules import rules_to_toml

log = logging.getLogger("cardroom.web")

Compute = Callable[[str, Any], Mapping[str, Fraction]]


def analyser_means(game_id: str, rules: Any) -> dict[str, Fraction]:
    """Each wager's exact mean per unit staked (negative: the house's edge)."""
    from cardroom.simulation.runner import exact_means

    return exact_means(game_id, rules)


@dataclass(frozen=True)
class Edges:
    """A game's figures: ``ready`` (with ``means``), ``computing`` or ``failed``."""

    status: str
    means: Mapping[str, Fraction] | None = None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status}
        if self.means is not None:
            data["wagers"] = {
                wager: {
                    "house_edge": fraction_text(-mean),
                    "house_edge_percent": percent_text(-mean),
                }
                for wager, mean in self.means.items()
            }
        if self.message:
            data["error"] = self.message
        return data


def fraction_text(value: Fraction) -> str:
    """An exact figure as ``n/d`` (or a whole number)."""
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def percent_text(value: Fraction, places: int = 4) -> str:
    """``value`` as a percentage to ``places`` decimals (``1.0579``): the exact figure's
    decimal, rounded half to even only at the last place shown."""
    scaled = Decimal(value.numerator * 100) / Decimal(value.denominator)
    return str(scaled.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def _child(conn: Any, compute: Compute, game_id: str, rules: Any) -> None:
    """In the child process: compute and send the figures (or the error) back."""
    try:
        result: Any = ("ok", dict(compute(game_id, rules)))
    except Exception as err:  # the message goes back to the page
        result = ("error", f"{type(err).__name__}: {err}")
    conn.send(result)
    conn.close()


class HouseEdges:
    """The figures of each (game, rules), computed in the background on first request.

    ``in_process=True`` computes in the background thread itself (tests, or a machine
    that cannot start processes).
    """

    def __init__(self, compute: Compute = analyser_means, *, in_process: bool = False) -> None:
        self.compute = compute
        self.in_process = in_process
        self._known: dict[tuple[str, str], Edges] = {}
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[str, Any, tuple[str, str]] | None] = queue.Queue()
        self._worker: threading.Thread | None = None

    def get(self, game_id: str, rules: Any) -> Edges:
        """The figures if known, else ``computing`` (and their computation started)."""
        key = (game_id, rules_to_toml(rules))
        with self._lock:
            found = self._known.get(key)
            if found is not None:
                return found
            self._known[key] = Edges("computing")
            if self._worker is None:
                self._worker = threading.Thread(
                    target=self._work, name="cardroom-house-edges", daemon=True
                )
                self._worker.start()
        self._queue.put((game_id, rules, key))
        return Edges("computing")

    def wait(self, timeout: float | None = None) -> None:
        """Wait until everything asked for so far is known (for tests and warm-ups)."""
        self._queue.join() if timeout is None else _join(self._queue, timeout)

    def close(self) -> None:
        """Stop the background thread (a computation under way is abandoned)."""
        if self._worker is not None:
            self._queue.put(None)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                game_id, rules, key = item
                edges = self._run(game_id, rules)
                with self._lock:
                    self._known[key] = edges
            finally:
                self._queue.task_done()

    def _run(self, game_id: str, rules: Any) -> Edges:
        if self.in_process:
            try:
                return Edges("ready", dict(self.compute(game_id, rules)))
            except Exception as err:
                log.exception("the house edges of %s could not be computed", game_id)
                return Edges("failed", message=f"{type(err).__name__}: {err}")
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        child = context.Process(
            target=_child, args=(send, self.compute, game_id, rules), daemon=True
        )
        try:
            child.start()
            send.close()
            status, value = receive.recv()
        except (OSError, EOFError) as err:
            log.warning("the house edges of %s could not be computed: %s", game_id, err)
            return Edges("failed", message="the analyser stopped before it finished")
        finally:
            child.join(timeout=5)
        if status != "ok":
            log.warning("the house edges of %s could not be computed: %s", game_id, value)
            return Edges("failed", message=str(value))
        return Edges("ready", value)


def _join(work: queue.Queue[Any], timeout: float) -> None:
    done = threading.Event()

    def waiter() -> None:
        work.join()
        done.set()

    threading.Thread(target=waiter, daemon=True).start()
    done.wait(timeout)
