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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any

import numpy as np

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

    def initial(pair: tuple[int, int]) -> bool:
        cards = [sample_card(pair[0]), sample_card(pair[1])]
        return initial_27(cards, rules.initial_27s) is not None

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
    prepared = prepare(twentyone_shape(rules, play), shoe)
    return count_rounds(Sweep.build(prepared, None if like is None else like.sweep()))


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
    prepared = prepare(twentyone_shape(rules, _always), shoe)
    modulus = prepared.modulus
    dealer = DealerHands.build(prepared)
    size = int(total_indices().max()) + 1
    codes_of = {d.total: forced_codes(rules, d.total, size) for d in prepared.dealers}
    standable = []
    for c, hands in enumerate(prepared.hands):
        totals = totals_of(hands.lows(), hands.counts[:, 0] > 0)
        mine = [codes_of[t] for t, k in prepared.class_of.items() if k == c]
        can = np.zeros(len(hands.counts), np.bool_)
        for codes in mine:
            can |= codes[totals] != kernel.MUST_HIT
        standable.append(can)
    player, places = PlayerHands.build(prepared, dealer, standable)
    universes = [
        _Universe.build(prepared, hands, rows, can)
        for hands, rows, can in zip(prepared.hands, places, standable, strict=True)
    ]
    ints, inverses = mont_tables(modulus, shoe.cards)
    big_c, big_f = player.big_tables(modulus)
    channels = [label for label, _ in TWENTYONE_LABELS]
    pays = [
        {"player": rules.win_pays, "push": Fraction(0)}.get(who, Fraction(-1))
        for _, who in TWENTYONE_LABELS
    ]
    pays_mont = modulus.table(pays)
    pays_f = np.array([float(v) for v in pays])
    kmax = max(int(u.sizes.max()) for u in universes)
    mmax = max((int(h.max()) for h in dealer.hits if len(h)), default=0)
    spec_totals = sorted({int(t) for u in universes for t in u.totals.tolist()})
    spec = OutcomeSpec.build(spec_totals, prepared.finals, prepared.shape, prepared.check)
    starts = _start_weights(prepared)
    cap = int(prepared.tables.caps.max())

    def run(i: int, override: np.ndarray, exact: bool) -> tuple[Any, ...]:
        d = prepared.dealers[i]
        u = universes[prepared.class_of[d.total]]
        left = np.array([shoe.counts[r] - d.counts[r] for r in range(13)], np.int64)
        _, _, tab, tab_f = kernel.shoe_tables(left, cap, ints, modulus.p, modulus.q, modulus.r2)
        draws = prepared.draws[d.draws]
        low, ace = prepared.draw_starts[d.draws]
        fit = np.all(draws.counts.astype(np.int64) <= left, axis=1)
        where = np.full(int(total_indices().max()) + 1, -1, np.int64)
        for k, t in enumerate(prepared.finals):
            where[total_index(t)] = k
        finals = where[totals_of(draws.lows()[fit] + low, (draws.counts[fit, 0] > 0) | ace)]
        g_ids, g_ptr, g_final, g_m, g_vals, g_f = kernel.dealer_terms(
            np.ascontiguousarray(draws.counts[fit]), np.ascontiguousarray(draws.ways[fit, 0]),
            finals, draws.sizes[fit], prepared.tables.radix, dealer.index_keys,
            dealer.index_vals, np.ones(len(dealer.universe), np.bool_), tab, tab_f,
            modulus.p, modulus.q, modulus.r2, len(prepared.finals),
        )  # fmt: skip
        invfall, invfall_f, *_ = kernel.pass_tables(
            d.jokers, shoe.ordinary, shoe.jokers, shoe.cards, kmax, mmax, ints, inverses,
            modulus.p, modulus.q,
        )  # fmt: skip
        codes = codes_of[d.total]
        hvals, svals = _thresholds(codes)
        st_x, st_w, st_wf = starts[d.pair]
        states = u.index(st_x)
        return kernel.decide_pass(  # type: ignore[no-any-return, unused-ignore]
            u.counts, u.sizes, u.totals, u.rows, u.children, player.sub_ptr, player.sub_id,
            player.sub_c, big_c, big_f, len(dealer.universe), spec.nb, spec.bp, spec.coef,
            g_ids, g_ptr, g_final, g_m, g_vals, g_f, len(prepared.finals), invfall, invfall_f,
            left, shoe.ordinary - sum(d.counts),
            codes, channels.index("player over 27"), pays_mont, pays_f, states,
            modulus.table(st_w).reshape(len(st_w), modulus.lanes), st_wf, hvals, svals,
            override, eps, exact, ints, inverses, modulus.p, modulus.q, modulus.r2,
        )  # fmt: skip

    overrides = {
        i: np.full(len(universes[prepared.class_of[d.total]].counts), -1, np.int8)
        for i, d in enumerate(prepared.dealers)
    }
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
                flagged, flag_hit, flag_stand = out[4], out[5], out[6]
                if not len(flagged):
                    continue
                if i not in exact:
                    exact.add(i)
                    todo.append(i)
                    continue
                d = prepared.dealers[i]
                # a state's values are whole numbers of 1/scale: every draw from here
                # on divides by the ordinary cards left
                left0 = shoe.ordinary - sum(d.counts)
                scale = _falling(left0, min(left0, kmax + mmax))
                changed = False
                for x, hit, stand in zip(flagged, flag_hit, flag_stand, strict=True):
                    exact_hit = modulus.reconstruct(hit, scale)
                    exact_stand = modulus.reconstruct(stand, scale)
                    choice = 1 if exact_hit > exact_stand else 0
                    if overrides[i][x] != choice:
                        overrides[i][x] = choice
                        changed = True
                if changed:
                    todo.append(i)
    lines = np.zeros((len(channels), modulus.lanes), object)
    grids: dict[Total, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    decisions: dict[tuple[int, int], tuple[_Universe, np.ndarray]] = {}
    for i, out in results.items():
        d = prepared.dealers[i]
        lines = lines + out[0].astype(object)
        hvals, svals = _thresholds(codes_of[d.total])
        grid = out[2].reshape(len(hvals), len(svals))
        known = grids.get(d.total)
        grids[d.total] = (hvals, svals, grid if known is None else known[2] + grid)
        u = universes[prepared.class_of[d.total]]
        decisions[d.pair] = (u, out[3])
    counts: dict[tuple[str, str | None], int] = {}
    extend = _falling(shoe.cards - 4, prepared.longest - 4)
    for key, n in prepared.settled.items():
        counts[key] = counts.get(key, 0) + n * extend
    for label, row in zip(channels, lines, strict=True):
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
    counted = Counts(counts, prepared.longest, prepared.denominator, {})
    composition = twentyone_from_counts(rules, shoe, counted, COMPOSITION)
    best = _best_table(rules, shoe, grids, given)
    return TwentyOneSolution(best, composition, grids, decisions, prepared.tables, counted)


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

    def solve() -> Counts:
        counted = solve_21_24_27_shoe(rules, shoe).counted
        assert counted is not None
        return counted

    counted = cached_counts("21-24-27 composition counts", rules, shoe, None, None, solve)
    return twentyone_from_counts(rules, shoe, counted, COMPOSITION)


def _always(total: Total, dealer: Total) -> bool:
    return True


@dataclass
class _Universe:
    """Every state of the player's hand (hitting wherever the rules let him) under one
    table of the rules, as :func:`~cardroom.games.finnish.shoe_kernel.decide_pass` reads
    them."""

    keys: np.ndarray
    counts: np.ndarray
    sizes: np.ndarray
    totals: np.ndarray
    rows: np.ndarray  # place among PlayerHands (states one may stand on), else -1
    children: np.ndarray

    @classmethod
    def build(
        cls, prepared: Prepared, hands: HandTable, rows: np.ndarray, standable: np.ndarray
    ) -> _Universe:
        keys = hands.keys
        order = np.argsort(keys)
        children = np.full((len(keys), 13), -1, np.int64)
        for r in range(13):
            wanted = keys + prepared.tables.radix[r]
            at = np.clip(np.searchsorted(keys[order], wanted), 0, len(keys) - 1)
            found = keys[order][at] == wanted
            children[found, r] = order[at][found]
        children[hands.draws == 0] = -1
        place = np.full(len(keys), -1, np.int64)
        place[standable] = rows
        return cls(
            keys, hands.counts, hands.sizes, totals_of(hands.lows(), hands.counts[:, 0] > 0),
            place, children,
        )  # fmt: skip

    def index(self, keys: np.ndarray) -> np.ndarray:
        order = np.argsort(self.keys)
        at = np.searchsorted(self.keys[order], keys)
        return np.ascontiguousarray(order[at]).astype(np.int64)


def _start_weights(
    prepared: Prepared,
) -> dict[tuple[int, int], tuple[np.ndarray, list[Fraction], np.ndarray]]:
    """Per dealer start, the player's starts (keys) and each deal's chance."""
    shoe = prepared.shoe
    per: dict[tuple[int, int], dict[int, Fraction]] = {}
    for deal in deals(shoe):
        if prepared.shape.initial(deal.player) or prepared.shape.initial(deal.dealer):
            continue
        counts, _ = ordinary_counts(deal.player)
        key = prepared.tables.key(counts)
        row = per.setdefault(deal.dealer, {})
        row[key] = row.get(key, Fraction(0)) + Fraction(deal.weight, _falling(shoe.cards, 4))
    out = {}
    for pair, row in per.items():
        keys = np.array(list(row), np.int64)
        weights = list(row.values())
        out[pair] = (keys, weights, np.array([float(w) for w in weights]))
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
