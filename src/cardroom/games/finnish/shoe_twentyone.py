"""21-24-27 counted off the top of the real shoe, and the best play there.

:func:`twentyone_shape` takes what the count needs from the rules (the forced plays) and
from a way of playing the free decisions; :func:`analyze_21_24_27_shoe` counts every
round into the report's lines.  :func:`solve_21_24_27_shoe` finds the best play in the
shoe: the best table of the source's kind (a hard and a soft target per dealer two-card
total), and composition-dependent play, each free decision made on the cards seen
(:class:`TwentyOneSolution`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any

import numpy as np

from cardroom.analysis.modular import Modulus
from cardroom.analysis.report import GameReport
from cardroom.core.cards import RANK_ORDER, Card, Rank
from cardroom.games.base import Action
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.hands import (
    TARGET,
    TargetRow,
    TargetTable,
    Total,
    dealer_limit,
    initial_27,
    total_index,
    total_of,
)
from cardroom.games.finnish.replacement import Hits
from cardroom.games.finnish.shoe_cache import cached_counts
from cardroom.games.finnish.shoe_composition import composition_pass, flagged_values
from cardroom.games.finnish.shoe_count import (
    Counts,
    DealerHands,
    PlayerHands,
    Sweep,
    count_rounds,
    mont_tables,
)
from cardroom.games.finnish.shoe_deal import (
    GameShape,
    ShoeMakeup,
    deals,
    ordinary_counts,
    sample_card,
    shoe_model,
    total_indices,
    totals_of,
)
from cardroom.games.finnish.shoe_deal import (
    falling as _falling,
)
from cardroom.games.finnish.shoe_hands import HandTable, OutcomeSpec, Prepared, prepare
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124
from cardroom.games.finnish.twentyone_analysis import twentyone_report

__all__ = [
    "TWENTYONE_LABELS",
    "FullSweep",
    "TwentyOneSolution",
    "analyze_21_24_27_shoe",
    "composition_counts",
    "forced_codes",
    "solve_21_24_27_shoe",
    "twentyone_counts",
    "twentyone_from_counts",
    "twentyone_shape",
]


# -- 21-24-27's rules, as the count reads them, and its report ---------------------------
#: the result labels of 21-24-27's player wager, each with its outcome (the last is what
#: the others leave)
TWENTYONE_LABELS: tuple[tuple[str, str], ...] = (
    ("player wins", "player"),
    ("dealer over 27", "player"),
    ("push", "push"),
    ("player over 27", "dealer"),
    ("dealer wins", "dealer"),
)


def twentyone_shape(rules: TwentyOne2427Rules, play: Hits) -> GameShape:
    """21-24-27's rules as the count reads them: the forced plays from the rules'
    :class:`~cardroom.games.finnish.twentyone_24_27.ForcedPlay`, the free ones by ``play``."""

    known: dict[tuple[int, int], bool] = {}  # (the count asks of every deal's pairs)

    def initial(pair: tuple[int, int]) -> bool:
        found = known.get(pair)
        if found is None:
            cards = [sample_card(pair[0]), sample_card(pair[1])]
            found = known[pair] = initial_27(cards, rules.initial_27s) is not None
        return found

    def settle_deal(player: tuple[int, int], dealer: tuple[int, int]) -> tuple[str, str | None]:
        return _settle_deal2124(rules, player, dealer), None

    def player_draws(total: Total, dealer: Total) -> bool:
        if total.bust:
            return False
        action, _ = rules.forced.forced(total, dealer)
        if action is not None:
            return action is Action.HIT
        return play(total, dealer)

    def dealer_draws(total: Total) -> bool:
        return total.value < dealer_limit(rules, total)

    def settle(player: Total, dealer: Total) -> str:
        outcome, _ = compare2124(player, dealer, rules)
        if outcome == "player":
            return "dealer over 27" if dealer.bust else "player wins"
        return "push" if outcome == "push" else "dealer wins"

    return GameShape(
        initial, settle_deal, player_draws, dealer_draws,
        lambda total: "player over 27" if total.bust else None, settle, TWENTYONE_LABELS,
    )  # fmt: skip


@lru_cache(maxsize=4096)
def _settle_deal2124(
    rules: TwentyOne2427Rules, player: tuple[int, int], dealer: tuple[int, int]
) -> str:
    """The engine's own result of a deal with a Finnish 27, as a line of the report."""
    rnd = TwentyOne2427Round(rules)
    for index in (player[0], dealer[0], player[1], dealer[1]):
        rnd.deal(sample_card(index))
    if not rnd.is_complete or rnd.outcome is None:
        raise AssertionError("a deal with an initial 27 goes on")
    kinds = [
        initial_27([sample_card(pair[0]), sample_card(pair[1])], rules.initial_27s)
        for pair in (player, dealer)
    ]
    if kinds[0] and kinds[1]:
        return f"both initial 27s ({rnd.outcome})"
    return "player's initial 27" if kinds[0] else "dealer's initial 27"


def twentyone_counts(
    rules: TwentyOne2427Rules, shoe: ShoeMakeup, play: Hits, like: FullSweep | None = None
) -> Counts:
    """Every round of 21-24-27 under the table ``play`` dealt off the top of ``shoe``,
    counted exactly (``like``: the full shoe's sweep under the same rules and play,
    whose hands the count shares); kept on disk
    (:mod:`~cardroom.games.finnish.shoe_cache`)."""
    return cached_counts(
        "21-24-27 counts", rules, shoe, play, None,
        partial(_twentyone_counts, rules, shoe, play, like),
    )  # fmt: skip


def _twentyone_counts(
    rules: TwentyOne2427Rules, shoe: ShoeMakeup, play: Hits, like: FullSweep | None = None
) -> Counts:
    if like is not None and shoe == like.shoe:
        return count_rounds(like.sweep())
    full = None if like is None else like.sweep()
    prepared = prepare(twentyone_shape(rules, play), shoe, None if full is None else full.prepared)
    return count_rounds(Sweep.build(prepared, full))


class FullSweep:
    """The full shoe's sweep of 21-24-27 under one table, made once (by whichever thread
    asks first) for its own count and as the pattern of the counts of the shoes with a
    card taken out (the effects of removal), which share its hands and its dealer tables
    G (:meth:`Sweep.build`, :meth:`Sweep.dealer_table`)."""

    def __init__(self, rules: TwentyOne2427Rules, shoe: ShoeMakeup, play: Hits) -> None:
        self.rules, self.shoe, self.play = rules, shoe, play
        self._lock = threading.Lock()
        self._made: Sweep | None = None

    def sweep(self) -> Sweep:
        with self._lock:
            if self._made is None:
                self._made = Sweep.build(prepare(twentyone_shape(self.rules, self.play), self.shoe))
                self._made.keep_tables()
            return self._made


def twentyone_from_counts(
    rules: TwentyOne2427Rules, shoe: ShoeMakeup, counted: Counts, label: str
) -> GameReport:
    who = dict(TWENTYONE_LABELS)
    lines: dict[str, Fraction] = {}
    outcomes = dict.fromkeys(("player", "dealer", "push"), Fraction(0))
    for (name, _), p in counted.chances().items():
        lines[name] = lines.get(name, Fraction(0)) + p
        if name.startswith("both initial 27s"):
            outcomes[rules.both_initial_27s] += p
        elif name == "player's initial 27":
            outcomes["player"] += p
        elif name == "dealer's initial 27":
            outcomes["dealer"] += p
        else:
            outcomes[who[name]] += p
    report = twentyone_report(rules, outcomes, lines, label)
    combinations: dict[str, int] = dict.fromkeys(outcomes, 0)
    for name, p in outcomes.items():
        combinations[name] = int(p * counted.total)
    return replace(
        report,
        assumptions=(shoe_model(shoe, counted.longest), *report.assumptions[1:]),
        replacement=False,
        combinations=combinations,
        total_combinations=counted.total,
    )


def analyze_21_24_27_shoe(
    rules: TwentyOne2427Rules | None = None,
    shoe: ShoeMakeup | None = None,
    hits: Hits | None = None,
    label: str = "the source's 18-row basic strategy",
) -> GameReport:
    """Exact outcomes of 21-24-27 dealt off the top of the rules' shoe (or ``shoe``),
    the player's free decisions made by ``hits`` (by default the source's table)."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    counted = twentyone_counts(rules, shoe, hits or BASIC_STRATEGY.hits)
    return twentyone_from_counts(rules, shoe, counted, label)


# -- the best play -----------------------------------------------------------------------
_FORCED_CODE = {Action.HIT: kernel.MUST_HIT, Action.STAND: kernel.MUST_STAND, None: kernel.FREE}


def forced_codes(rules: TwentyOne2427Rules, dealer: Total, size: int) -> np.ndarray:
    """What the rules make of each player total index against a dealer's two cards."""
    codes = np.full(size, kernel.MUST_STAND, np.int64)
    for ti in range(size):
        total = total_of(ti)
        if total.soft and total.value > TARGET:
            continue
        if total.bust:
            codes[ti] = kernel.OVER
            continue
        action, _ = rules.forced.forced(total, dealer)
        codes[ti] = _FORCED_CODE[action]
    return codes


def _thresholds(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The hit-below targets a table can give the free hard and soft totals: from the
    lowest free total (stand on every one) to one past the highest (hit every one)."""
    out = []
    for soft in (0, 1):
        free = [ti // 2 for ti in range(len(codes)) if ti % 2 == soft and codes[ti] == kernel.FREE]
        if not free:
            out.append(np.array([TARGET + 1], np.int64))
        else:
            out.append(np.arange(min(free), max(free) + 2, dtype=np.int64))
    return out[0], out[1]


@dataclass
class TwentyOneSolution:
    """21-24-27 solved for a finite shoe.

    ``best_table`` is the best total-dependent table of the source's kind (per dealer
    two-card total, hit free hard totals below one target and soft below another);
    ``composition`` the exact report of composition-dependent play (each free decision
    made on the player's cards and the dealer's two), ``decisions`` its choices per
    dealer start (rank indices) over that start's states; ``grids`` the expected net of
    every pair of targets per dealer total (floats, as chosen from).
    """

    best_table: TargetTable
    composition: GameReport
    grids: dict[Total, tuple[np.ndarray, np.ndarray, np.ndarray]]
    decisions: dict[tuple[int, int], tuple[_Universe, np.ndarray]] = field(repr=False)
    tables: Any = field(repr=False)
    #: the counts behind ``composition``
    counted: Counts | None = field(default=None, repr=False)

    def composition_hits(self, dealer: Sequence[Card], player: Sequence[Card]) -> bool:
        """The composition-dependent choice on these cards (Jokers change nothing)."""
        pair = sorted(RANK_ORDER.index(card.rank) for card in dealer[:2])
        counts = [0] * 13
        for card in player:
            if card.rank is not Rank.JOKER:
                counts[RANK_ORDER.index(card.rank)] += 1
        universe, chosen = self.decisions[(pair[0], pair[1])]
        at = universe.index(np.array([self.tables.key(counts)], np.int64))[0]
        if universe.keys[at] != self.tables.key(counts):
            raise KeyError("no such hand")
        return bool(chosen[at])


class _Solver:
    """What every dealer start's pass of the best play shares: the hands, the dealer's
    sub-multisets, the tables of the arithmetic, the player's starts."""

    def __init__(
        self,
        rules: TwentyOne2427Rules,
        shoe: ShoeMakeup,
        eps: float,
        pool: ThreadPoolExecutor | None = None,
    ) -> None:
        """With a ``pool``, each dealer start's own tables (:meth:`dealer_part`) are
        made on it, the largest first, while this thread makes the player's side."""
        self.rules, self.shoe, self.eps = rules, shoe, eps
        prepared = self.prepared = prepare(twentyone_shape(rules, _always), shoe)
        modulus = self.modulus = prepared.modulus
        dealer = self.dealer = DealerHands.build(prepared)
        self.ints, self.inverses = mont_tables(modulus, shoe.cards)
        self.kmax = max(int(h.sizes.max()) for h in prepared.hands)
        self.mmax = max((int(h.max()) for h in dealer.hits if len(h)), default=0)
        self.cap = int(prepared.tables.caps.max())
        spec_totals = sorted(
            set(
                np.unique(
                    np.concatenate(
                        [totals_of(h.lows(), h.counts[:, 0] > 0) for h in prepared.hands]
                    )
                ).tolist()
            )
        )
        spec = self.spec = OutcomeSpec.build(
            spec_totals, prepared.finals, prepared.shape, prepared.check
        )
        # the dealer's finals a result is read at: up to the last breakpoint (the rest
        # are his busts, which the chance of his start stands for)
        self.read = min(
            len(prepared.finals),
            max([int(spec.bp[ti, nb - 1]) + 1 for ti, nb in enumerate(spec.nb) if nb] or [1]),
        )
        self.order = sorted(
            range(len(prepared.dealers)),
            key=lambda i: -len(prepared.draws[prepared.dealers[i].draws].counts),
        )
        self._dealer_parts = (
            {} if pool is None else {i: pool.submit(self.dealer_part, i, True) for i in self.order}
        )
        size = int(total_indices().max()) + 1
        dealer_totals = {d.total: None for d in prepared.dealers}
        codes_of = self.codes_of = {t: forced_codes(rules, t, size) for t in dealer_totals}
        standable = []
        for c, hands in enumerate(prepared.hands):
            totals = totals_of(hands.lows(), hands.counts[:, 0] > 0)
            mine = [codes_of[t] for t, k in prepared.class_of.items() if k == c]
            can = np.zeros(len(hands.counts), np.bool_)
            for codes in mine:  # (a hand over 27 reads nothing of the dealer's)
                can |= (codes[totals] != kernel.MUST_HIT) & (codes[totals] != kernel.OVER)
            standable.append(can)
        player, places = PlayerHands.build(prepared, dealer, standable)
        self.player = player
        tables = list(zip(prepared.hands, places, standable, strict=True))
        # (with a pool, made there, after the dealer's tables: this thread goes on)
        self._universes = [
            _done(_Universe.build(prepared, *table))
            if pool is None
            else pool.submit(_Universe.build, prepared, *table)
            for table in tables
        ]
        self.big_c, self.big_f = player.big_tables(modulus)
        self.channels = [label for label, _ in TWENTYONE_LABELS]
        pays = [
            {"player": rules.win_pays, "push": Fraction(0)}.get(who, Fraction(-1))
            for _, who in TWENTYONE_LABELS
        ]
        self.pays_mont = modulus.table(pays)
        self.pays_f = np.array([float(v) for v in pays])
        # the totals that read the dealer's finals alike, numbered
        kinds: dict[tuple[int, bytes, bytes], int] = {}
        self.kind = np.array(
            [
                kinds.setdefault((int(nb), bp[:nb].tobytes(), coef.tobytes()), len(kinds))
                for nb, bp, coef in zip(self.spec.nb, self.spec.bp, self.spec.coef, strict=True)
            ],
            np.int64,
        )
        self.starts, self.deal_count = _start_weights(prepared)

    def dealer_part(self, i: int, trim: bool = False) -> dict[str, Any]:
        """A dealer start's own tables: the shoe it leaves, its draws expanded (G), the
        denominators.  ``trim``: without his hands that end past the finals a result is
        read at (his busts: :func:`composition_pass` reads none of their terms)."""
        prepared, modulus, shoe = self.prepared, self.modulus, self.shoe
        dealer = self.dealer
        d = prepared.dealers[i]
        left = np.array([shoe.counts[r] - d.counts[r] for r in range(13)], np.int64)
        _, _, tab, tab_f = kernel.shoe_tables(
            left, self.cap, self.ints, modulus.p, modulus.q, modulus.r2
        )
        draws = prepared.draws[d.draws]
        low, ace = prepared.draw_starts[d.draws]
        fit = np.all(draws.counts.astype(np.int64) <= left, axis=1)
        where = np.full(int(total_indices().max()) + 1, -1, np.int64)
        for k, t in enumerate(prepared.finals):
            where[total_index(t)] = k
        finals = where[totals_of(draws.lows()[fit] + low, (draws.counts[fit, 0] > 0) | ace)]
        if trim:
            kept = finals < self.read
            fit = np.nonzero(fit)[0][kept]
            finals = finals[kept]
        g_ids, g_ptr, g_final, g_m, g_vals, g_f = kernel.dealer_terms(
            np.ascontiguousarray(draws.counts[fit]), np.ascontiguousarray(draws.ways[fit, 0]),
            finals, draws.sizes[fit], prepared.tables.radix, dealer.index_keys,
            dealer.index_vals, np.ones(len(dealer.universe), np.bool_), tab, tab_f,
            modulus.p, modulus.q, modulus.r2, len(prepared.finals),
        )  # fmt: skip
        invfall, invfall_f, *_ = kernel.pass_tables(
            d.jokers, shoe.ordinary, shoe.jokers, shoe.cards, self.kmax, self.mmax,
            self.ints, self.inverses, modulus.p, modulus.q,
        )  # fmt: skip
        return {
            "g": (g_ids, g_ptr, g_final, g_m, g_vals, g_f),
            "invfall": invfall,
            "invfall_f": invfall_f,
            "left": left,
            "left0": shoe.ordinary - sum(d.counts),
        }

    def pass_arguments(self, i: int) -> dict[str, Any]:
        """A dealer start's tables (:meth:`dealer_part`), the rules' codes and the
        player's states and starts."""
        known = self._dealer_parts.get(i)
        at = self.dealer_part(i) if known is None else dict(known.result())
        d = self.prepared.dealers[i]
        u = self.universe(i)
        starts = self.starts[d.pair]
        at.update(
            u=u, codes=self.codes_of[d.total], states=u.index(starts.keys),
            st_w=starts.lanes(self.modulus, self.deal_count), st_wf=starts.chances,
        )  # fmt: skip
        return at

    def run(self, i: int, override: np.ndarray, exact: bool, at: dict[str, Any]) -> tuple[Any, ...]:
        """:func:`~cardroom.games.finnish.shoe_kernel.decide_pass` of a dealer start."""
        modulus, player, spec = self.modulus, self.player, self.spec
        u = at["u"]
        g_ids, g_ptr, g_final, g_m, g_vals, g_f = at["g"]
        hvals, svals = _thresholds(at["codes"])
        return kernel.decide_pass(  # type: ignore[no-any-return, unused-ignore]
            u.counts, u.sizes, u.totals, u.rows, u.children, player.sub_ptr, player.sub_id,
            player.sub_c, self.big_c, self.big_f, len(self.dealer.universe), spec.nb,
            spec.bp, spec.coef, g_ids, g_ptr, g_final, g_m, g_vals, g_f,
            len(self.prepared.finals), at["invfall"], at["invfall_f"], at["left"],
            at["left0"], at["codes"], self.channels.index("player over 27"), self.pays_mont,
            self.pays_f, at["states"], at["st_w"], at["st_wf"], hvals, svals, override,
            self.eps, exact, self.ints, self.inverses, modulus.p, modulus.q, modulus.r2,
        )  # fmt: skip

    def settle(
        self, i: int, flagged: np.ndarray, hits: np.ndarray, stands: np.ndarray,
        override: np.ndarray,
    ) -> bool:  # fmt: skip
        """Decide the flagged states in exact arithmetic (into ``override``), from their
        exact values of hitting and of standing: did a decision change?"""
        d = self.prepared.dealers[i]
        # a state's values are whole numbers of 1/scale: every draw from here on
        # divides by the ordinary cards left
        left0 = self.shoe.ordinary - sum(d.counts)
        scale = _falling(left0, min(left0, self.kmax + self.mmax))
        changed = False
        for x, hit, stand in zip(flagged, hits, stands, strict=True):
            exact_hit = self.modulus.reconstruct(hit, scale)
            exact_stand = self.modulus.reconstruct(stand, scale)
            choice = 1 if exact_hit > exact_stand else 0
            if override[x] != choice:
                override[x] = choice
                changed = True
        return changed

    @property
    def universes(self) -> list[_Universe]:
        """Every state of the player's hand under each of his tables."""
        return [made.result() for made in self._universes]

    def universe(self, i: int) -> _Universe:
        """The states of the player's hand against dealer start ``i``."""
        return self._universes[self.prepared.class_of[self.prepared.dealers[i].total]].result()

    def override(self, i: int) -> np.ndarray:
        return np.full(len(self.universe(i).counts), -1, np.int8)

    def compose(self, i: int) -> np.ndarray:
        """The chance of each channel under composition-dependent play against a
        dealer start (plain lanes): :func:`composition_pass`, its close decisions
        settled exactly as :func:`solve_21_24_27_shoe` settles them
        (:func:`flagged_values`)."""
        at = self.pass_arguments(i)
        override = self.override(i)
        modulus, player, spec = self.modulus, self.player, self.spec
        u = at["u"]
        g_ids, g_ptr, g_final, g_m, g_vals, g_f = at["g"]
        over = self.channels.index("player over 27")
        while True:
            lines, decision, flagged = composition_pass(
                u.counts, u.sizes, u.totals, u.rows, u.children, player.sub_ptr,
                player.sub_id, player.sub_c, self.big_c, self.big_f,
                len(self.dealer.universe), spec.nb, spec.bp, spec.coef, g_ids, g_ptr,
                g_final, g_m, g_vals, g_f, len(self.prepared.finals), self.kind,
                at["invfall"], at["invfall_f"], at["left"], at["left0"], at["codes"], over,
                self.pays_f, at["states"], at["st_w"], at["st_wf"], override, self.eps,
                self.ints, self.inverses, modulus.p, modulus.q,
            )  # fmt: skip
            if not len(flagged):
                return lines
            hits, stands = flagged_values(
                u.counts, u.sizes, u.totals, u.rows, u.children, player.sub_ptr,
                player.sub_id, player.sub_c, self.big_c, len(self.dealer.universe), spec.nb,
                spec.bp, spec.coef, g_ids, g_ptr, g_final, g_m, g_vals,
                len(self.prepared.finals), at["invfall"], at["left"], at["left0"],
                at["codes"], over, self.pays_mont, decision, flagged, self.ints,
                self.inverses, modulus.p, modulus.q, modulus.r2,
            )  # fmt: skip
            if not self.settle(i, flagged, hits, stands, override):
                return lines

    def counted(self, lines: np.ndarray) -> Counts:
        """The counts of composition-dependent play from its channels' chances (plain
        lanes, summed over the dealer starts as Python integers)."""
        prepared, modulus, shoe = self.prepared, self.modulus, self.shoe
        counts: dict[tuple[str, str | None], int] = {}
        extend = _falling(shoe.cards - 4, prepared.longest - 4)
        for key, n in prepared.settled.items():
            counts[key] = counts.get(key, 0) + n * extend
        for label, row in zip(self.channels, lines, strict=True):
            residues = np.array(
                [int(v) % p for v, p in zip(row, modulus.primes, strict=True)], np.uint64
            )
            value = modulus.reconstruct(residues, prepared.denominator, montgomery=False)
            counts[(label, None)] = int(value * prepared.denominator)
        if sum(counts.values()) != prepared.denominator:
            raise ValueError(
                "shoe: some rounds run out of cards before they end; the exact analysis "
                "needs a shoe no round can empty"
            )
        return Counts(counts, prepared.longest, prepared.denominator, {})


def solve_21_24_27_shoe(
    rules: TwentyOne2427Rules | None = None,
    shoe: ShoeMakeup | None = None,
    given: TargetTable = BASIC_STRATEGY,
    eps: float = 1e-9,
) -> TwentyOneSolution:
    """The best threshold table and composition-dependent play of 21-24-27, dealt off
    the top of the rules' shoe (or ``shoe``), exactly (decisions closer than ``eps``
    in floating point are settled in exact arithmetic)."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    solver = _Solver(rules, shoe, eps)
    prepared = solver.prepared
    modulus = solver.modulus

    def run(i: int, override: np.ndarray, exact: bool) -> tuple[Any, ...]:
        return solver.run(i, override, exact, solver.pass_arguments(i))

    overrides = {i: solver.override(i) for i in range(len(prepared.dealers))}
    results: dict[int, tuple[Any, ...]] = {}
    todo = list(range(len(prepared.dealers)))
    exact: set[int] = set()  # starts with close decisions: their values are worked out
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        while todo:
            jobs = [pool.submit(run, i, overrides[i], i in exact) for i in todo]
            done = {i: job.result() for i, job in zip(todo, jobs, strict=True)}
            results.update(done)
            todo = []
            for i, out in done.items():
                if not len(out[4]):
                    continue
                if i not in exact:
                    exact.add(i)
                    todo.append(i)
                    continue
                if solver.settle(i, out[4], out[5], out[6], overrides[i]):
                    todo.append(i)
    lines = np.zeros((len(solver.channels), modulus.lanes), object)
    grids: dict[Total, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    decisions: dict[tuple[int, int], tuple[_Universe, np.ndarray]] = {}
    for i, out in results.items():
        d = prepared.dealers[i]
        lines = lines + out[0].astype(object)
        hvals, svals = _thresholds(solver.codes_of[d.total])
        grid = out[2].reshape(len(hvals), len(svals))
        known = grids.get(d.total)
        grids[d.total] = (hvals, svals, grid if known is None else known[2] + grid)
        u = solver.universes[prepared.class_of[d.total]]
        decisions[d.pair] = (u, out[3])
    counted = solver.counted(lines)
    composition = twentyone_from_counts(rules, shoe, counted, COMPOSITION)
    best = _best_table(rules, shoe, grids, given)
    return TwentyOneSolution(best, composition, grids, decisions, prepared.tables, counted)


def composition_counts(rules: TwentyOne2427Rules, shoe: ShoeMakeup, eps: float = 1e-9) -> Counts:
    """The counts of composition-dependent play alone (what
    :func:`solve_21_24_27_shoe` counts, without the tables of thresholds, which it
    leaves out of the work too): each dealer start's pass on the pool's threads, the
    largest first."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        solver = _Solver(rules, shoe, eps, pool)
        prepared = solver.prepared
        order = solver.order
        done = dict(zip(order, pool.map(solver.compose, order), strict=True))
    lines = np.zeros((len(solver.channels), solver.modulus.lanes), object)
    for i in range(len(prepared.dealers)):
        lines = lines + done[i].astype(object)
    return solver.counted(lines)


#: how composition-dependent play is named in its report
COMPOSITION = "composition-dependent play (the exact cards seen)"


def composition_21_24_27_shoe(
    rules: TwentyOne2427Rules | None = None, shoe: ShoeMakeup | None = None
) -> GameReport:
    """The report of composition-dependent play (:func:`solve_21_24_27_shoe`'s
    ``composition``), its counts kept on disk (:mod:`~cardroom.games.finnish.shoe_cache`):
    what ``analyze --strategy optimal`` shows, without the solve when it was made before."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)

    counted = cached_counts(
        "21-24-27 composition counts", rules, shoe, None, None,
        partial(composition_counts, rules, shoe),
    )  # fmt: skip
    return twentyone_from_counts(rules, shoe, counted, COMPOSITION)


def _always(total: Total, dealer: Total) -> bool:
    return True


def _done(value: _Universe) -> Future[_Universe]:
    made: Future[_Universe] = Future()
    made.set_result(value)
    return made


@dataclass
class _Universe:
    """Every state of the player's hand (hitting wherever the rules let him) under one
    table of the rules, as :func:`~cardroom.games.finnish.shoe_kernel.decide_pass` reads
    them."""

    keys: np.ndarray
    counts: np.ndarray
    sizes: np.ndarray
    totals: np.ndarray
    rows: np.ndarray  # place among PlayerHands (states that stand short of 27), else -1
    children: np.ndarray
    order: np.ndarray = field(repr=False)  # the states by key

    @classmethod
    def build(
        cls, prepared: Prepared, hands: HandTable, rows: np.ndarray, standable: np.ndarray
    ) -> _Universe:
        keys = hands.keys
        order = np.argsort(keys)
        children = np.full((len(keys), 13), -1, np.int64)
        ordered = keys[order]
        for r in range(13):
            wanted = keys + prepared.tables.radix[r]
            at = np.clip(np.searchsorted(ordered, wanted), 0, len(keys) - 1)
            found = ordered[at] == wanted
            children[found, r] = order[at][found]
        children[hands.draws == 0] = -1
        place = np.full(len(keys), -1, np.int64)
        place[standable] = rows
        return cls(
            keys, hands.counts, hands.sizes, totals_of(hands.lows(), hands.counts[:, 0] > 0),
            place, children, order,
        )  # fmt: skip

    def index(self, keys: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.keys[self.order], keys)
        return np.ascontiguousarray(self.order[at]).astype(np.int64)


def _start_weights(prepared: Prepared) -> tuple[dict[tuple[int, int], _Starts], int]:
    """Per dealer start, the player's starts (keys) and each deal's chance, in cards
    dealt of ``(cards)_4`` (returned beside)."""
    shoe = prepared.shoe
    initial = prepared.shape.initial
    per: dict[tuple[int, int], dict[int, int]] = {}
    keys: dict[tuple[int, int], int] = {}
    for deal in deals(shoe):
        if initial(deal.player) or initial(deal.dealer):
            continue
        key = keys.get(deal.player)
        if key is None:
            key = keys[deal.player] = prepared.tables.key(ordinary_counts(deal.player)[0])
        row = per.setdefault(deal.dealer, {})
        row[key] = row.get(key, 0) + deal.weight
    deal_count = _falling(shoe.cards, 4)
    out = {}
    for pair, row in per.items():
        weights = list(row.values())
        out[pair] = _Starts(
            np.array(list(row), np.int64), weights, np.array([w / deal_count for w in weights])
        )
    return out, deal_count


@dataclass
class _Starts:
    """The player's starts against one dealer start: their keys, and each one's
    chance in deals of the first four cards (integers), and as floats."""

    keys: np.ndarray
    deals: list[int]
    chances: np.ndarray

    def lanes(self, modulus: Modulus, deal_count: int) -> np.ndarray:
        """The chances in Montgomery lanes (``modulus.table`` of ``deals / deal_count``,
        without its fractions)."""
        out = np.empty((len(self.deals), modulus.lanes), np.uint64)
        for lane, p in enumerate(modulus.primes):
            # the Montgomery form of 1 / deal_count
            unit = pow(deal_count, -1, p) * (1 << 64) % p
            out[:, lane] = [w % p * unit % p for w in self.deals]
        return out


def _best_table(
    rules: TwentyOne2427Rules,
    shoe: ShoeMakeup,
    grids: dict[Total, tuple[np.ndarray, np.ndarray, np.ndarray]],
    given: TargetTable,
) -> TargetTable:
    """Per dealer total the targets worth most (near ties settled exactly by counting
    both tables; an exact tie keeps the given table's play).  A dealer total where the
    best targets decide every free total as the given table does keeps its row."""
    chosen: dict[Total, TargetRow] = {}
    size = int(total_indices().max()) + 1
    for dealer, (hvals, svals, grid) in sorted(grids.items(), key=_by_dealer):
        codes = forced_codes(rules, dealer, size)
        free = [total_of(ti) for ti in range(size) if codes[ti] == kernel.FREE]
        top = float(grid.max())
        near = [
            (int(hvals[h]), int(svals[s]))
            for h in range(len(hvals))
            for s in range(len(svals))
            if top - grid[h, s] <= 1e-9
        ]
        if len(near) > 1:
            near = _exactly_best(rules, shoe, dealer, near, given)
        row = given.row_for(dealer)
        plays = {pair: [t.value < (pair[1] if t.soft else pair[0]) for t in free] for pair in near}
        mine = [given.hits(t, dealer) for t in free]
        if any(play == mine for play in plays.values()):
            chosen[dealer] = TargetRow(
                row.dealer, dealer.value, dealer.value, row.hard, row.soft, row.relative
            )
            continue
        hard, soft = near[0]
        if not any(not t.soft for t in free):
            hard = dealer.value  # no free hard total: the rules decide them all
        kind = "soft" if dealer.soft else "hard"
        chosen[dealer] = TargetRow(kind, dealer.value, dealer.value, hard=hard, soft=soft)
    rows = list(chosen.values())
    covered = {(r.dealer, r.low) for r in rows}
    for row in given.rows:
        for value in range(row.low, row.high + 1):
            if (row.dealer, value) not in covered:
                rows.append(TargetRow(row.dealer, value, value, row.hard, row.soft, row.relative))
    return TargetTable(tuple(rows))


def _by_dealer(item: tuple[Total, Any]) -> tuple[bool, int]:
    return (item[0].soft, item[0].value)


def _exactly_best(
    rules: TwentyOne2427Rules,
    shoe: ShoeMakeup,
    dealer: Total,
    candidates: list[tuple[int, int]],
    given: TargetTable,
) -> list[tuple[int, int]]:
    """The candidates worth exactly the most for this dealer total (each counted with
    the given table elsewhere)."""
    values = {}
    for hard, soft in candidates:

        def play(total: Total, d: Total, hard: int = hard, soft: int = soft) -> bool:
            if d == dealer:
                return total.value < (soft if total.soft else hard)
            return given.hits(total, d)

        report = twentyone_from_counts(rules, shoe, twentyone_counts(rules, shoe, play), "")
        values[(hard, soft)] = report.wagers["player"].expected
    top = max(values.values())
    return [c for c, v in values.items() if v == top]
