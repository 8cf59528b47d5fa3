"""The exact figures each game's rules page discloses: the house edge of every wager of a
house game, and chemin de fer's solved coup (:class:`ChemmyFigures`); and the lab's
PAR sheets (:func:`lab_par_sheet`), computed the same way.

The figures come from the analyser (:func:`cardroom.app.runner.exact_means`,
cached on disk by the rules).  Some take many seconds the first time (finnish27), so
they are never computed while a page waits or the server starts: the first request
for a game's figures starts their computation in the background (one at a time, in a
child process kept for the purpose, so that the server's threads keep their share of
the interpreter), and answers "computing" until they are known; after that they are
kept for the life of the process.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import multiprocessing
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cardroom.analysis.memory import for_analysis
from cardroom.app.disclosure import percent_of
from cardroom.app.par import compute_sheet
from cardroom.app.par_page import pdf_bytes, plots_available, render_html, sheet_csv
from cardroom.core.money import percent_text
from cardroom.core.rules import rules_to_toml
from cardroom.games import GAMES, seats_game
from cardroom.games.base import GameRules
from cardroom.games.chemin_de_fer.analysis import BankerKey, ChemmySolution, Third
from cardroom.games.spec import SeatsRules

log = logging.getLogger("cardroom.web")

#: (game id, rules) -> the figures by name (each wager's mean; or a PAR sheet's page)
Compute = Callable[[str, Any], Mapping[str, Any]]


#: the most rules whose figures may wait to be worked out at once
MAX_WAITING = 16
#: the most rules whose figures a process keeps (the oldest are dropped first; the
#: analyser's cache on disk still has them)
MAX_KNOWN = 512
#: the most PAR sheets the lab keeps in a process (a page is some hundreds of kB; one
#: dropped is worked out again when asked)
MAX_SHEETS = 16
#: the most computations one analyser process makes before a new one takes over
MAX_JOBS = 64


def analyser_means(game_id: str, rules: GameRules) -> dict[str, Fraction]:
    """Each wager's exact mean per unit staked (negative: the house's edge)."""
    # (the figures are computed in a child process by default)
    from cardroom.app.runner import exact_means  # lazy: Numba, off the server's process

    return exact_means(game_id, rules)


def lab_par_sheet(game_id: str, rules: GameRules) -> dict[str, str]:
    """(In the child process) a variant's PAR sheet as one self-contained HTML page
    (``html``, with its plots when Matplotlib, of the report extra, is installed), as a
    PDF (``pdf``, in base64; or ``pdf_error``, one line, when WeasyPrint cannot lay it
    out here), and its every exact figure as CSV (``csv``)."""
    sheet = compute_sheet(GAMES[game_id], rules)
    html = render_html(sheet, plots=plots_available())
    figures = sheet_csv(sheet)
    try:
        pdf = base64.b64encode(pdf_bytes(html)).decode("ascii")
    except ValueError as err:
        return {"html": html, "csv": figures, "pdf_error": str(err)}
    return {"html": html, "csv": figures, "pdf": pdf}


@dataclass(frozen=True)
class Edges:
    """A game's figures: ``ready`` (with ``means``), ``computing`` or ``failed``."""

    status: str
    means: Mapping[str, Any] | None = None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status}
        if self.means is not None:
            data["wagers"] = {
                wager: {
                    "house_edge": str(-mean),
                    "house_edge_percent": percent_text(-mean),
                }
                for wager, mean in self.means.items()
            }
        if self.message:
            data["error"] = self.message
        return data


def _said(err: Exception) -> str:
    """An error as the page says it: an analyser's refusal (a ValueError, which names
    the rule it cannot count) as it is, anything else with its kind."""
    return str(err) if type(err) is ValueError else f"{type(err).__name__}: {err}"


def _serve(conn: Any, compute: Compute) -> None:
    """In the analyser's process: ``compute`` each (game id, rules) asked for and send
    back the figures (or the error), until the pipe closes."""
    for_analysis()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        game_id, rules = job
        try:
            result: Any = ("ok", dict(compute(game_id, rules)))
        except Exception as err:  # the message goes back to the page
            result = ("error", _said(err))
        conn.send(result)


class _Analyser:
    """One child process kept for a store's computations (``compute``): it imports the analyser and
    loads its compiled kernels once, not once per rules, so that a lab's one-rule change
    waits for its count alone.  It is started on the first computation (never while
    the server starts), started again if it died, and replaced after
    :data:`MAX_JOBS` computations (what its caches hold stays bounded)."""

    def __init__(self, compute: Compute) -> None:
        self.compute = compute
        self._process: Any = None
        self._conn: Any = None
        self._jobs = 0

    def run(self, game_id: str, rules: GameRules) -> tuple[str, Any]:
        """``compute(game_id, rules)`` in the child: ``("ok", figures)`` or
        ``("error", message)``; OSError or EOFError when the child stopped."""
        if self._process is None or not self._process.is_alive() or self._jobs >= MAX_JOBS:
            self.stop()
            self._start()
        self._jobs += 1
        try:
            self._conn.send((game_id, rules))
            answer: tuple[str, Any] = self._conn.recv()
        except (OSError, EOFError):
            self.stop()
            raise
        return answer

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe(duplex=True)
        process = context.Process(
            target=_serve, args=(theirs, self.compute), name="cardroom-analyser", daemon=True
        )
        process.start()
        theirs.close()
        self._process, self._conn, self._jobs = process, mine, 0

    def stop(self) -> None:
        """Let the child go (it ends when its pipe closes; killed if it does not)."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send(None)
            conn.close()
        if process is not None:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)


class HouseEdges:
    """The figures of each (game, rules), computed in the background on first request.

    ``in_process=True`` computes in the background thread itself (tests, or a machine
    that cannot start processes); ``keep`` is the most results kept in memory.
    """

    def __init__(
        self, compute: Compute = analyser_means, *, in_process: bool = False, keep: int = MAX_KNOWN
    ) -> None:
        self.compute = compute
        self.in_process = in_process
        self.keep = keep
        self._known: dict[tuple[str, str], Edges] = {}
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[str, Any, tuple[str, str]] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._waiting = 0
        self._analyser = _Analyser(compute)

    def get(self, game_id: str, rules: GameRules, *, capped: bool = False) -> Edges:
        """The figures if known, else ``computing`` (and their computation started); with
        ``capped`` (the lab's variants, which must not pile up work without end) ``busy``
        when :data:`MAX_WAITING` rules already wait for theirs."""
        key = (game_id, rules_to_toml(rules))
        with self._lock:
            found = self._known.get(key)
            if found is not None:
                return found
            if capped and self._waiting >= MAX_WAITING:
                return Edges("busy", message="the analyser is busy: ask again in a moment")
            self._waiting += 1
            while len(self._known) >= self.keep:  # the oldest figures go first
                del self._known[next(iter(self._known))]
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
                    self._analyser.stop()
                    return
                game_id, rules, key = item
                edges = self._run(game_id, rules)
                with self._lock:
                    self._known[key] = edges
                    self._waiting -= 1
            finally:
                self._queue.task_done()

    def _run(self, game_id: str, rules: GameRules) -> Edges:
        if self.in_process:
            try:
                return Edges("ready", dict(self.compute(game_id, rules)))
            except Exception as err:
                log.exception("the house edges of %s could not be computed", game_id)
                return Edges("failed", message=_said(err))
        try:
            status, value = self._analyser.run(game_id, rules)
        except (OSError, EOFError) as err:
            log.warning("the house edges of %s could not be computed: %s", game_id, err)
            return Edges("failed", message="the analyser stopped before it finished")
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


# -- chemin de fer -------------------------------------------------------------------------
ChemmySolve = Callable[[SeatsRules], ChemmySolution]


@dataclass(frozen=True)
class ChemmyFigures:
    """Chemin de fer's solved coup for a rules page: the solution, or why there is none
    (the analyser solves rules with exactly one total where the player chooses)."""

    solution: ChemmySolution | None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        """The figures as the page shows them: exact fractions and percentages."""
        solution = self.solution
        if solution is None:
            return {"status": "failed", "error": self.message}
        house = -(solution.value + solution.player_value)
        return {
            "status": "ready",
            "shoe": solution.shoe,
            "banker_knows": "his two cards" if solution.banker_sees_cards else "his total",
            "commission": percent_of(solution.commission),
            "banker": _figure(solution.value),
            "punter": _figure(solution.player_value),
            "house": _figure(house),
            "free_total": solution.free_total,
            "player_draw": _figure(solution.player_draw_at_5, places=2),
            "mixed": [
                {
                    "holding": _key_words(key),
                    "against": _third_words(third),
                    "draw": _figure(draw, places=2),
                }
                for (key, third), draw in solution.mixed.items()
            ],
            **_draw_tables(solution),
        }


def _figure(value: Fraction, places: int = 4) -> dict[str, str]:
    return {"exact": str(value), "percent": percent_text(value, places)}


def _key_words(key: BankerKey) -> str:
    return str(key) if isinstance(key, int) else f"{key[0]}+{key[1]} ({sum(key) % 10})"


def _cards_words(key: BankerKey) -> str:
    return str(key) if isinstance(key, int) else f"{key[0]}+{key[1]}"


def _third_words(third: Third) -> str:
    return "the player stood" if third is None else f"the player's third card {third}"


def _cell(draw: Fraction) -> dict[str, str]:
    """A cell of the banker's table: D (draws), S (stands) or his chance to draw."""
    if draw in (0, 1):
        return {"text": "D" if draw else "S", "title": "draws" if draw else "stands"}
    return {
        "text": f"{percent_text(draw, 1)}%",
        "title": f"draws with probability {draw!s}",
    }


def _draw_tables(solution: ChemmySolution) -> dict[str, Any]:
    """The banker's draws by his total (a cell his two cards decide is marked ``*`` and
    told in ``by_cards``) and, when he decides on his cards, the whole table by cards."""
    thirds: list[Third] = [*range(10), None]
    by_total: dict[int, dict[Third, dict[BankerKey, Fraction]]] = {}
    for (key, third), draw in solution.banker.items():
        total = key if isinstance(key, int) else sum(key) % 10
        by_total.setdefault(total, {}).setdefault(third, {})[key] = draw
    rows, notes = [], []
    for total, cells in sorted(by_total.items()):
        row = []
        for third in thirds:
            draws = cells.get(third, {})
            if not draws:
                row.append({"text": "-", "title": "never reached"})
            elif len(set(draws.values())) == 1:
                row.append(_cell(next(iter(draws.values()))))
            else:
                row.append({"text": "*", "title": "depends on his two cards: see below"})
                notes.append(_by_cards(total, third, draws))
        rows.append({"total": total, "cells": row})
    tables: dict[str, Any] = {
        "thirds": ["stood" if t is None else str(t) for t in thirds],
        "by_total": rows,
        "by_cards": notes,
        "cards": [],
    }
    if solution.banker_sees_cards:
        keys = list(dict.fromkeys(key for key, _ in solution.banker))
        tables["cards"] = [
            {
                "holding": _key_words(key),
                "cells": [
                    _cell(solution.banker[(key, t)])
                    if (key, t) in solution.banker
                    else {"text": "-", "title": "never reached"}
                    for t in thirds
                ],
            }
            for key in keys
        ]
    return tables


def _by_cards(total: int, third: Third, draws: Mapping[BankerKey, Fraction]) -> str:
    """A cell of the banker's table his two cards decide, in words."""
    parts = []
    for draw in sorted(set(draws.values()), reverse=True):
        holding = " or ".join(_cards_words(k) for k, x in draws.items() if x == draw)
        if draw == 1:
            parts.append(f"draws holding {holding}")
        elif draw == 0:
            parts.append(f"stands holding {holding}")
        else:
            parts.append(
                f"draws with probability {percent_text(draw, 2)}% "
                f"(exactly {draw!s}) holding {holding}"
            )
    return f"Banker {total} against {_third_words(third)}: " + "; ".join(parts) + "."


class ChemmySolutions:
    """Chemin de fer's solved coup for each rules (the game's ``seats.solve``:
    :func:`~cardroom.games.chemin_de_fer.analysis.solve_table`), worked out on the
    first request for them and kept for the life of the process.

    Solving takes about 0.3 s whatever the shoe (it enumerates card values, not cards), so
    it is done in the first request's worker thread (the page routes are plain functions,
    run off the event loop), under a lock so that two requests never both solve.
    """

    def __init__(self, solve: ChemmySolve | None = None) -> None:
        self.solve: ChemmySolve = solve or seats_game().seated().solve
        self._known: dict[str, ChemmyFigures] = {}
        self._lock = threading.Lock()

    def get(self, rules: SeatsRules) -> ChemmyFigures:
        key = rules_to_toml(rules)
        with self._lock:
            found = self._known.get(key)
            if found is None:
                try:
                    found = ChemmyFigures(self.solve(rules))
                except ValueError as err:  # rules the analyser does not solve
                    found = ChemmyFigures(None, str(err))
                self._known[key] = found
            return found
