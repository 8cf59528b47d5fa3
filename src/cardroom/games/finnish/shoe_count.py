"""Counting every round of a Finnish game dealt off the top of a finite shoe.

This is the machinery of :mod:`cardroom.games.finnish.shoe`; the compiled loops
are in :mod:`cardroom.games.finnish.shoe_kernel`.  This module holds the sweep: the
dealer's whole hands and the player's finished ones expanded over the sub-multisets
they share (:class:`Sweep`), and the count of every pass of it (:func:`count_rounds`).
The shoe, the deal and a game's rules as the count reads them are in
:mod:`~cardroom.games.finnish.shoe_deal`, the tables of the hands in
:mod:`~cardroom.games.finnish.shoe_hands`.

**What is counted.**  A round's cards are a sequence of distinct physical cards;
every sequence of ``L`` cards has chance ``1/(cards)_L``, so every chance is a
whole number of sequences of ``longest`` cards (at least any round's length) over
``(cards)_longest``, and that number is what is computed, exactly.

**The deal.**  The first four cards (player, dealer, player, dealer) are
enumerated over ranks (:func:`~cardroom.games.finnish.shoe_deal.deals`); a deal with an
initial 27 is settled by the engine itself.

**Jokers after the deal.**  A Joker drawn as a hit changes no total and no
decision, and the ordinary cards left after the deal come in random order
whatever the Jokers between them, so the rest of the round is played over the
ordinary cards alone (without the Jokers; the chance of a sequence of ordinary
cards is ``1/(ordinary cards left)_k``).  Where the Jokers matter (finnish27's
bonus) their number in the player's hand is put back with its chance.

**Wild Jokers.**  Where a Joker drawn after the deal makes its hand 27 and ends it,
Jokers are drawn as cards: every deal holding one is a 27, and a hand ends either
standing or on a Joker drawn where it would draw again (with the ordinary cards it
holds, one card more).  A round of ordinary hands X and D and ``e`` such Jokers then
has chance ``prod_r (n_r)_(x_r + d_r) (J)_e / (cards)_L``: the Jokers' factor is the
player's ``J`` and the dealer's ``J - e_player``, and the denominator runs over all the
cards left, so the same expansion counts it.

**A Charlie.**  Where a hand of so many cards (Jokers counted) wins at once, the
Jokers the player's hand draws are followed one by one
(:func:`~cardroom.games.finnish.shoe_hands.finished_rows`): its
part of a round's chance is ``(J')_e prod_r (n_r)_(x_r) / (cards left)_(hits + e)``,
and the dealer's draws after it still pass the Jokers through.

**The hands as multisets.**  Each hand draws by a table keyed on its total, which
depends only on which ranks it holds; so a hand is followed as a multiset of
ranks, with the number of card orders in which its rules draw it
(:func:`~cardroom.games.finnish.shoe_kernel.hand_states`).  The player's table
depends on the dealer's two-card total (one table per *class*), the dealer's on
nothing.

**The coupling.**  The player's hand X and the dealer's hand D (two cards and
draws) come out of the same shoe: ``prod_r (n_r)_(x_r + d_r) = prod_r (n_r)_(x_r)
prod_r (n_r - x_r)_(d_r)``, and the last product expands over the sub-multisets I
of both hands::

    prod_r (n_r - x_r)_(d_r)
        = sum_{I <= X, I <= D} prod_r (-1)**i_r C(d_r, i_r) (x_r)_(i_r) (n_r - i_r)_(d_r - i_r)

which separates the two hands: the dealer's side, summed over all his hands of a
*pass* (the dealer starts that share the player's table), is a table G over
(I, the dealer's final total, his number of draws); the player's side is
``c(X, I) = prod_r (x_r)_(i_r)``.  Each finished player hand then reads, from G's
cumulative finals folded with the denominators of his size, the chance of each
result: some 3 * 10**7 terms for finnish27 instead of 10**10 pairs of hands.

**Exact arithmetic.**  Everything runs modulo several primes below 2**63 (and
once more in floats, as a check and for decisions), and the counts come back by
the Chinese remainder theorem (:mod:`cardroom.analysis.modular`).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from cardroom.analysis.modular import Modulus
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.hands import total_index
from cardroom.games.finnish.shoe_deal import (
    JOKERS_HELD,
    NO_AWARDS,
    falling,
    no_card_awards,
    total_indices,
    totals_of,
    totals_where,
)
from cardroom.games.finnish.shoe_hands import DealerStart, HandTable, OutcomeSpec, Prepared

__all__ = [
    "BonusSource",
    "ClassRun",
    "Counts",
    "DealerHands",
    "Pass",
    "PlayerHands",
    "Sweep",
    "count_rounds",
    "finished_hands",
    "mont_tables",
    "passes",
    "same_rounds",
]


@dataclass
class DealerHands:
    """The dealer's whole hands (two cards and draws, Jokers left out), per start,
    and every sub-multiset of any of them (the expansion's I)."""

    counts: list[np.ndarray]  # per start: int8 [n, 13]
    ways: list[np.ndarray]  # card orders of the draws
    finals: list[np.ndarray]  # index into Prepared.finals
    hits: list[np.ndarray]  # cards drawn
    universe: np.ndarray  # sorted keys of the sub-multisets
    index_keys: np.ndarray  # a hash table: key -> place in universe
    index_vals: np.ndarray

    @classmethod
    def build(cls, prepared: Prepared) -> DealerHands:
        where = np.full(int(total_indices().max()) + 1, -1, np.int64)
        for i, t in enumerate(prepared.finals):
            if i != prepared.joker_final:
                where[total_index(t)] = i
        counts, ways, finals, hits = [], [], [], []
        shoe = np.array(prepared.shoe.counts[:13], np.int64)
        for d in prepared.dealers:
            low, ace = prepared.draw_starts[d.draws]
            table = prepared.draws[d.draws]
            hands = table.counts.astype(np.int64) + np.array(d.counts, np.int64)
            fit = np.all(hands <= shoe, axis=1)  # the others cannot be dealt
            counts.append(np.ascontiguousarray(hands[fit].astype(np.int8)))
            ways.append(np.ascontiguousarray(table.ways[fit, 0]))
            totals = totals_of(table.lows()[fit] + low, (table.counts[fit, 0] > 0) | ace)
            # a hand that would draw again ends on a wild Joker: one card more
            joker = table.draws[fit] == 1
            finals.append(np.where(joker, prepared.joker_final, where[totals]))
            hits.append(table.sizes[fit] + joker)
        # (many starts reach the same whole hand: each is expanded once)
        whole = np.concatenate(counts)
        _, first = np.unique(whole.astype(np.int64) @ prepared.tables.radix, return_index=True)
        universe = kernel.sub_universe(np.ascontiguousarray(whole[first]), prepared.tables.radix)
        keys, vals = kernel.hash_index(universe)
        return cls(counts, ways, finals, hits, universe, keys, vals)


def _unique_hands(
    prepared: Prepared, chosen: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The chosen states of every table, each hand once (by key), and each chosen
    state's place among them."""
    keys = np.concatenate([h.keys[f] for h, f in zip(prepared.hands, chosen, strict=True)])
    rows = np.concatenate([h.counts[f] for h, f in zip(prepared.hands, chosen, strict=True)])
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return np.ascontiguousarray(rows[first]), inverse


def finished_hands(prepared: Prepared) -> np.ndarray:
    """Every finished player hand of every table, once: the rows of the sweep's
    :attr:`PlayerHands.counts`, in their order."""
    return _unique_hands(prepared, [prepared.finished(h) for h in prepared.hands])[0]


def _sub_multisets(
    counts: np.ndarray, radix: np.ndarray, keys: np.ndarray, vals: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~cardroom.games.finnish.shoe_kernel.sub_multisets`, the rows split between
    threads (the kernel releases the interpreter's lock; each row's entries are its
    own), put back together in order."""
    workers = min(os.cpu_count() or 1, 4)
    if workers == 1 or len(counts) < 1000:
        return kernel.sub_multisets(counts, radix, keys, vals)  # type: ignore[no-any-return, unused-ignore]
    cuts = [len(counts) * i // workers for i in range(workers + 1)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(
            lambda cut: kernel.sub_multisets(
                np.ascontiguousarray(counts[cut[0] : cut[1]]), radix, keys, vals
            ),
            itertools.pairwise(cuts),
        ))  # fmt: skip
    ptrs, start = [np.zeros(1, np.int64)], 0
    for ptr, ids, _ in parts:
        ptrs.append(ptr[1:] + start)
        start += len(ids)
    return (
        np.concatenate(ptrs), np.concatenate([part[1] for part in parts]),
        np.concatenate([part[2] for part in parts]),
    )  # fmt: skip


@dataclass
class PlayerHands:
    """Every finished player hand of every table (each once), with its sub-multisets
    that are the dealer's too, and the weights ``c(X, I)``."""

    counts: np.ndarray
    sub_ptr: np.ndarray
    sub_id: np.ndarray  # places in DealerHands.universe
    sub_c: np.ndarray  # c(X, I), or -(index + 1) into big for those past 62 bits
    big: list[int]

    @classmethod
    def build(
        cls, prepared: Prepared, dealer: DealerHands, chosen: Sequence[np.ndarray] | None = None
    ) -> tuple[PlayerHands, list[np.ndarray]]:
        """The hands (``chosen[c]``: which states of table c; by default its finished
        hands), and for each table the place of each chosen state."""
        if chosen is None:
            chosen = [prepared.finished(h) for h in prepared.hands]
        finished = list(chosen)
        counts, inverse = _unique_hands(prepared, finished)
        ptr, ids, weights = _sub_multisets(
            counts, prepared.tables.radix, dealer.index_keys, dealer.index_vals
        )
        big: list[int] = []
        for at in np.nonzero(weights < 0)[0]:
            row = int(np.searchsorted(ptr, at, side="right")) - 1
            digits = prepared.tables.digits(int(dealer.universe[ids[at]]))
            exact = 1
            for x, i in zip(counts[row].tolist(), digits, strict=True):
                exact *= falling(x, i)
            big.append(exact)
            weights[at] = -len(big)
        places = []
        start = 0
        for f in finished:
            n = int(f.sum())
            places.append(inverse[start : start + n].astype(np.int64))
            start += n
        return cls(counts, ptr, ids, weights, big), places

    def big_tables(self, modulus: Modulus) -> tuple[np.ndarray, np.ndarray]:
        """The weights past 62 bits: plain residues (not Montgomery forms) and floats."""
        plain = np.array([[c % p for p in modulus.primes] for c in self.big], np.uint64)
        return plain.reshape(len(self.big), modulus.lanes), np.array(
            [float(c) for c in self.big], np.float64
        )


@dataclass
class ClassRun:
    """A player table's finished hands, as the kernels read them."""

    counts: np.ndarray
    sizes: np.ndarray
    totals: np.ndarray
    ways: np.ndarray
    rows: np.ndarray  # each hand's place in PlayerHands
    spec: OutcomeSpec
    wanted: np.ndarray  # per place in the universe: one of these hands has it

    drawn: np.ndarray  # Jokers drawn after the deal, where they are followed
    wins: np.ndarray  # a Charlie: the player wins before the dealer plays

    @classmethod
    def build(
        cls, prepared: Prepared, hands: HandTable, places: np.ndarray, player: PlayerHands,
        universe: int,
    ) -> ClassRun:  # fmt: skip
        """``places``: the place in ``player`` of each state :meth:`Prepared.finished`
        chose, in order."""
        found = prepared.rows(hands)
        place = np.full(len(hands.draws), -1, np.int64)
        place[np.nonzero(prepared.finished(hands))[0]] = places
        rows = place[found.state]
        counts = np.ascontiguousarray(hands.counts[found.state])
        totals = found.totals
        spec = OutcomeSpec.build(
            sorted(set(totals.tolist())), prepared.finals, prepared.shape, prepared.check
        )
        mine = np.zeros(len(player.counts), np.bool_)
        mine[rows[~found.wins]] = True  # a Charlie never meets the dealer
        wanted = kernel.mark_sub_multisets(
            player.sub_ptr, player.sub_id, np.flatnonzero(mine), universe
        )
        return cls(
            counts, counts.sum(axis=1).astype(np.int64), totals, found.ways, rows, spec,
            wanted, found.drawn, found.wins,
        )  # fmt: skip


@dataclass(frozen=True)
class Pass:
    """Dealer starts swept together: one player table, one number of Jokers among the
    dealer's two cards, one bonus group."""

    table: int
    jokers: int
    group: int
    dealers: tuple[int, ...]


def passes(prepared: Prepared, group: Callable[[DealerStart], int]) -> list[Pass]:
    keyed: dict[tuple[int, int, int], list[int]] = {}
    for i, d in enumerate(prepared.dealers):
        key = (prepared.class_of[d.total], d.jokers, group(d))
        keyed.setdefault(key, []).append(i)
    return [Pass(t, j, g, tuple(members)) for (t, j, g), members in sorted(keyed.items())]


def mont_tables(modulus: Modulus, cards: int) -> tuple[np.ndarray, np.ndarray]:
    """Montgomery forms of 0..cards and of their inverses (0 for 0)."""
    ints = modulus.table(list(range(cards + 1)))
    inverses = modulus.table([Fraction(0)] + [Fraction(1, v) for v in range(1, cards + 1)])
    return ints, inverses


@dataclass
class Sweep:
    """Everything the passes of the kernels share, for one prepared count."""

    prepared: Prepared
    dealer: DealerHands
    player: PlayerHands
    runs: list[ClassRun]
    ints: np.ndarray
    inverses: np.ndarray
    fall: np.ndarray
    fall_f: np.ndarray
    tab: np.ndarray
    tab_f: np.ndarray
    kmax: int
    mmax: int
    #: the sweep whose hands this one shares (:meth:`build`'s ``like``), if any
    base: Sweep | None = None
    _drawn: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: per pass, its dealer hands and G (where :meth:`keep_tables` asked for them)
    _kept: dict[Pass, tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]] | None = None
    _pass_locks: dict[Pass, threading.Lock] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, prepared: Prepared, like: Sweep | None = None) -> Sweep:
        """The sweep of ``prepared``; the hands and their sub-multisets are ``like``'s
        where its hands are the same (another shoe's sweep of the same rules: the full
        shoe's, for the effects of removal), which depend on the shoe only through the
        hands it can deal."""
        modulus = prepared.modulus
        base = like if like is not None and _same_hands(like.prepared, prepared) else None
        if base is not None:
            dealer, player, runs = base.dealer, base.player, base.runs
        else:
            dealer = DealerHands.build(prepared)
            player, places = PlayerHands.build(prepared, dealer)
            runs = [
                ClassRun.build(prepared, hands, at, player, len(dealer.universe))
                for hands, at in zip(prepared.hands, places, strict=True)
            ]
        ints, inverses = mont_tables(modulus, prepared.shoe.cards)
        cap = int(prepared.tables.caps.max())
        shoe = np.array(prepared.shoe.counts[:13], np.int64)
        fall, fall_f, tab, tab_f = kernel.shoe_tables(
            shoe, cap, ints, modulus.p, modulus.q, modulus.r2
        )
        kmax = max((int(r.sizes.max()) for r in runs if len(r.sizes)), default=2)
        mmax = max((int(h.max()) for h in dealer.hits if len(h)), default=0)
        return cls(
            prepared, dealer, player, runs, ints, inverses, fall, fall_f, tab, tab_f, kmax,
            mmax, base,
        )  # fmt: skip

    @cached_property
    def wild_tables(self) -> tuple[np.ndarray, ...]:
        """The dealer's factors where Jokers are wild (drawn as cards, not passed
        through): ``invfall[size, m] = 1 / (left)_m`` with ``left`` all the cards after
        the dealer's two and the player's ``size`` (his Jokers among them), and
        ``jl[e]``, the Jokers left for the dealer's when the player's hand holds ``e``
        (Montgomery forms and floats)."""
        prepared = self.prepared
        modulus = prepared.modulus
        cards, jokers = prepared.shoe.cards, prepared.shoe.jokers
        invfall, invfall_f, *_ = kernel.pass_tables(
            0, cards, 0, cards, self.kmax + 1, self.mmax, self.ints, self.inverses,
            modulus.p, modulus.q,
        )  # fmt: skip
        left = [max(jokers - e, 0) for e in range(2)]
        return invfall, invfall_f, modulus.table(left), np.array(left, np.float64)

    def drawn_tables(self, dealer_jokers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where a hand's Jokers drawn after the deal are followed, the player's factor
        ``jpk[jp, size, e]``: the chance of the deal's four cards and of the hand's
        draws, ``(J - jd)_jp (J - jd - jp)_e / (shoe)_4 / (shoe - 4)_(hits + e)`` for a
        hand of ``size`` ordinary cards (``hits`` drawn), ``jp`` Jokers dealt to it and
        ``e`` drawn, the dealer's two cards holding ``jd`` (Montgomery forms, floats and
        where there is such a hand)."""
        known = self._drawn.get(dealer_jokers)
        if known is not None:
            return known
        prepared = self.prepared
        modulus = prepared.modulus
        cards, jokers = prepared.shoe.cards, prepared.shoe.jokers - dealer_jokers
        drawn = max((int(run.drawn.max(initial=0)) for run in self.runs), default=0) + 1
        jpk = np.zeros((3, self.kmax + 1, drawn, modulus.lanes), np.uint64)
        jpk_f = np.zeros((3, self.kmax + 1, drawn))
        jpk_ok = np.zeros((3, self.kmax + 1, drawn), np.bool_)
        deal = falling(cards, 4)
        for jp in range(min(2, jokers) + 1):
            for size in range(2 - jp, self.kmax + 1):
                hits = size - (2 - jp)
                for e in range(min(drawn, jokers - jp + 1)):
                    if hits + e > cards - 4:
                        continue
                    chance = Fraction(
                        falling(jokers, jp) * falling(jokers - jp, e),
                        deal * falling(cards - 4, hits + e),
                    )
                    jpk[jp, size, e] = modulus.residues(chance)
                    jpk_f[jp, size, e] = float(chance)
                    jpk_ok[jp, size, e] = True
        self._drawn[dealer_jokers] = (jpk, jpk_f, jpk_ok)
        return jpk, jpk_f, jpk_ok

    def keep_tables(self) -> None:
        """Keep each pass's dealer hands and table G once made (the full shoe's, which the
        counts of the shoes with a card out start from: :meth:`dealer_table`)."""
        self._kept = {}

    def dealer_table(self, chosen: Pass) -> tuple[np.ndarray, ...]:
        """G of a pass: its starts' whole hands expanded over the sub-multisets.

        Where this sweep shares the hands of a :attr:`base` that keeps its tables (the
        full shoe's) and the shoes differ in the cards of one ordinary rank alone, G is
        the base's G plus the difference: only the terms of the whole hands holding that
        rank change (``tab`` of that rank), so only those hands are expanded, over the
        difference of the two shoes' ``tab`` of that rank (exact: the residues add),
        which is 0 for the sub-multisets holding all of a hand's cards of that rank:
        those are not taken."""
        if self._kept is not None:
            with self._lock:
                lock = self._pass_locks.setdefault(chosen, threading.Lock())
            with lock:  # (passes run on several threads; each table is made once)
                known = self._kept.get(chosen)
                if known is None:
                    hands = self._dealer_hands(chosen)
                    known = self._kept[chosen] = (hands, self._terms(chosen, hands))
            return known[1]
        rank = self._rank_out()
        if self.base is None or self.base._kept is None or rank is None:
            return self._terms(chosen, self._dealer_hands(chosen))
        if rank == 13:
            # the Jokers alone: G holds them only through the factor of the starts that
            # hold some (their ways), so the other passes' G are the base's
            if any(self.prepared.dealers[i].jokers for i in chosen.dealers):
                return self._terms(chosen, self._dealer_hands(chosen))
            return self.base.dealer_table(chosen)
        base = self.base.dealer_table(chosen)
        hands = self.base._kept[chosen][0]
        holding = hands[0][:, rank] > 0
        modulus = self.prepared.modulus
        tab, tab_f = self.base.tab.copy(), self.base.tab_f.copy()
        tab[rank] = _sub_mod(self.tab[rank], self.base.tab[rank], modulus.p)
        tab_f[rank] = self.tab_f[rank] - self.base.tab_f[rank]
        d_ids, d_ptr, d_final, d_m, d_vals, d_f = self._terms(
            chosen, tuple(np.ascontiguousarray(a[holding]) for a in hands), tab, tab_f, rank
        )
        g_ids, g_ptr, g_final, g_m, g_vals, g_f = base
        vals, vals_f, found = kernel.add_terms(
            g_ids, g_ptr, g_final, g_m, g_vals, g_f, d_ids, d_ptr, d_final, d_m, d_vals, d_f,
            modulus.p,
        )  # fmt: skip
        if not found:
            raise AssertionError("a term of the difference is not among the base's")
        return g_ids, g_ptr, g_final, g_m, vals, vals_f

    def _rank_out(self) -> int | None:
        """The one rank whose cards this shoe and :attr:`base`'s differ in (13: the
        Jokers; the same primes), else None."""
        if self.base is None:
            return None
        mine, theirs = self.prepared, self.base.prepared
        if mine.modulus.primes != theirs.modulus.primes:
            return None
        differ = [r for r in range(14) if mine.shoe.counts[r] != theirs.shoe.counts[r]]
        if len(differ) != 1:
            return None
        return differ[0]

    def _dealer_hands(self, chosen: Pass) -> tuple[np.ndarray, ...]:
        """A pass's dealer whole hands, each (hand, final, draws) once with its ways added
        over the starts (5-6 drawing a 2 and 2-6 drawing a 5): counts, ways, finals,
        draws."""
        prepared = self.prepared
        counts, ways, finals, hits = [], [], [], []
        for i in chosen.dealers:
            d = prepared.dealers[i]
            factor = d.orders * falling(prepared.shoe.jokers, d.jokers)
            w = self.dealer.ways[i].astype(object) * factor
            counts.append(self.dealer.counts[i])
            ways.append(w)
            finals.append(self.dealer.finals[i])
            hits.append(self.dealer.hits[i])
        all_counts = np.concatenate(counts)
        keyed = np.stack(
            [all_counts.astype(np.int64) @ prepared.tables.radix, np.concatenate(finals),
             np.concatenate(hits)], axis=1,
        )  # fmt: skip
        unique, first, inverse = np.unique(keyed, axis=0, return_index=True, return_inverse=True)
        summed = np.zeros(len(unique), object)
        np.add.at(summed, inverse.reshape(-1), np.concatenate(ways))
        if len(summed) and max(summed) >= 1 << 62:
            raise OverflowError("a dealer hand's count of card orders passes 62 bits")
        return (
            np.ascontiguousarray(all_counts[first]), summed.astype(np.int64),
            np.ascontiguousarray(unique[:, 1]), np.ascontiguousarray(unique[:, 2]),
        )  # fmt: skip

    def _terms(
        self, chosen: Pass, hands: tuple[np.ndarray, ...], tab: np.ndarray | None = None,
        tab_f: np.ndarray | None = None, short: int = -1,
    ) -> tuple[np.ndarray, ...]:  # fmt: skip
        """G of these dealer hands (:meth:`_dealer_hands`), over ``tab`` (the shoe's;
        ``short``: see :func:`~cardroom.games.finnish.shoe_kernel.dealer_terms`)."""
        prepared = self.prepared
        modulus = prepared.modulus
        counts, ways, finals, hits = hands
        return kernel.dealer_terms(  # type: ignore[no-any-return, unused-ignore]
            counts, ways, finals, hits, prepared.tables.radix, self.dealer.index_keys,
            self.dealer.index_vals, self.runs[chosen.table].wanted,
            self.tab if tab is None else tab, self.tab_f if tab_f is None else tab_f,
            modulus.p, modulus.q, modulus.r2, len(prepared.finals), short,
        )  # fmt: skip

    def start_arrays(self, chosen: Pass) -> tuple[np.ndarray, ...]:
        """Each start of a pass: its ordinary ranks and counts (-1: none) and its weight
        (orders x Jokers), for the chance of the dealer's two cards given a player hand."""
        prepared = self.prepared
        modulus = prepared.modulus
        n = len(chosen.dealers)
        ranks = np.full((n, 2), -1, np.int64)
        counts = np.zeros((n, 2), np.int64)
        weights = []
        for row, i in enumerate(chosen.dealers):
            d = prepared.dealers[i]
            col = 0
            for r, c in enumerate(d.counts):
                if c:
                    ranks[row, col] = r
                    counts[row, col] = c
                    col += 1
            weights.append(d.orders * falling(prepared.shoe.jokers, d.jokers))
        return (
            ranks, counts, modulus.table(weights).reshape(n, modulus.lanes),
            np.array(weights, np.float64),
        )  # fmt: skip


def _sub_mod(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``a - b`` modulo ``p`` (residues, the primes on the last axis)."""
    out: np.ndarray = np.where(a >= b, a - b, a + (p - b))
    return out


def same_rounds(one: Prepared, other: Prepared) -> bool:
    """Do two prepared counts of the same rules (their players' plays aside) count every
    round alike: the same shoe, deal and hands, so that their counts are the same?  (Two
    plays that differ only on totals no hand of the shoe reaches.)"""
    return (
        one.shoe == other.shoe
        and one.longest == other.longest
        and one.settled == other.settled
        and one.starts == other.starts
        and _same_hands(one, other)
    )


def _same_hands(one: Prepared, other: Prepared) -> bool:
    """Do two prepared counts of the same rules and play have the same hands, the same
    dealer starts and draws, and the same finals, so that their :class:`DealerHands`,
    :class:`PlayerHands` and :class:`ClassRun` are the same?  Each is made from these
    alone, but for the dealer's whole hands that a shoe cannot deal, which are left out:
    the same must be left out of both shoes."""
    if (
        one.shape.labels != other.shape.labels
        or (one.shape.ordered, one.shape.jokers_wild, one.shape.charlie)
        != (other.shape.ordered, other.shape.jokers_wild, other.shape.charlie)
        or one.check != other.check
        or one.joker_final != other.joker_final
        or one.finals != other.finals
        or one.class_of != other.class_of
        or one.draw_starts != other.draw_starts
        or len(one.hands) != len(other.hands)
        or not np.array_equal(one.tables.caps, other.tables.caps)
        or [(d.pair, d.counts, d.jokers, d.orders, d.total, d.draws) for d in one.dealers]
        != [(d.pair, d.counts, d.jokers, d.orders, d.total, d.draws) for d in other.dealers]
    ):
        return False
    tables = [*zip(one.hands, other.hands, strict=True), *zip(one.draws, other.draws, strict=True)]
    for a, b in tables:
        pairs = ((a.keys, b.keys), (a.counts, b.counts), (a.ways, b.ways), (a.draws, b.draws))
        if not all(np.array_equal(x, y) for x, y in pairs):
            return False
    shoes = [np.array(p.shoe.counts[:13], np.int64) for p in (one, other)]
    for d in one.dealers:
        hands = one.draws[d.draws].counts.astype(np.int64) + np.array(d.counts, np.int64)
        if not np.array_equal(*(np.all(hands <= shoe, axis=1) for shoe in shoes)):
            return False
    return True


# -- counting ------------------------------------------------------------------------------------
class BonusSource(Protocol):
    """What the kernel reads for a bonus on the first channel (finnish27's)."""

    #: by the poker categories a hand holds (bits): its award, or -1
    held_key: np.ndarray
    categories: int
    #: by total index: may a hand of that total earn the poker bonus?
    poker_ok: np.ndarray
    #: by total index and number of cards: the award paid by its number of cards, or -1
    card27: np.ndarray
    #: are the Jokers bugs in the poker award (else wild)?
    bugs: bool

    def group(self, dealer: DealerStart) -> int: ...

    def tables(self, chosen: Pass) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
        np.ndarray, np.ndarray,
    ]: ...  # fmt: skip


@dataclass(frozen=True)
class Counts:
    """Ordered sequences of ``longest`` cards from the shoe behind each result label
    (with, on the first channel, each bonus); the exact chances are these over
    ``total``.  ``floats`` are the same chances as computed in floating point."""

    results: dict[tuple[str, str | None], int]
    longest: int
    total: int
    floats: dict[str, float]

    def chances(self) -> dict[tuple[str, str | None], Fraction]:
        return {key: Fraction(n, self.total) for key, n in self.results.items()}

    def by_label(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for (label, _), n in self.results.items():
            out[label] = out.get(label, 0) + n
        return out


def count_rounds(
    sweep: Sweep, bonus: BonusSource | None = None, bonus_keys: Sequence[str] = (),
    workers: int | None = None,
) -> Counts:  # fmt: skip
    """Every round off the top of the shoe, counted: the deal's settled rounds, and
    every finished player hand of every table against every dealer start (the passes
    run on ``workers`` threads: the kernels release the interpreter's lock)."""
    prepared = sweep.prepared
    shape = prepared.shape
    modulus = prepared.modulus
    lanes = modulus.lanes
    width = len(shape.channels) + 1
    totals = np.zeros((width, lanes), object)
    totals_f = np.zeros(width)
    cats: np.ndarray | None = None
    big = sweep.player.big_tables(modulus)
    group = bonus.group if bonus else _no_group
    chosen_passes = [c for c in passes(prepared, group) if len(sweep.runs[c.table].counts)]
    # the longest first, so that the threads end together (a pass's time follows the
    # dealer's states it expands, then the player's hands it sweeps)
    chosen_passes.sort(key=lambda c: _pass_cost(sweep, c), reverse=True)
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        jobs = [pool.submit(_pass, sweep, chosen, bonus, big) for chosen in chosen_passes]
        for job in jobs:
            out, out_f, won = job.result()
            totals = totals + _lane_sum(out, modulus)
            totals_f += out_f.sum(axis=0)
            if bonus:
                summed = _lane_sum(won, modulus)
                cats = summed if cats is None else cats + summed
    denominator = prepared.denominator
    extend = falling(prepared.shoe.cards - 4, prepared.longest - 4)
    results: dict[tuple[str, str | None], int] = {}
    for settled, n in prepared.settled.items():
        results[settled] = results.get(settled, 0) + n * extend
    labels = [*shape.channels, shape.rest]
    with_bonus = 0
    if cats is not None:
        for bonus_key, row in zip(bonus_keys, cats, strict=True):
            n = _whole(row, modulus, denominator)
            if n:
                results[(labels[0], bonus_key)] = results.get((labels[0], bonus_key), 0) + n
                with_bonus += n
    floats: dict[str, float] = {}
    for o, label in enumerate(labels):
        n = _whole(totals[o], modulus, denominator) - (with_bonus if o == 0 else 0)
        results[(label, None)] = results.get((label, None), 0) + n
        floats[label] = float(totals_f[o])
    if sum(results.values()) != denominator:
        raise ValueError(
            "shoe: some rounds run out of cards before they end; the exact analysis "
            "needs a shoe no round can empty"
        )
    if min(results.values()) < 0:
        raise ArithmeticError("a count came out negative")
    return Counts(results, prepared.longest, denominator, floats)


def _pass_cost(sweep: Sweep, chosen: Pass) -> int:
    """A rough measure of a pass's time, to start the longest passes first."""
    prepared = sweep.prepared
    dealer = sum(len(prepared.draws[prepared.dealers[i].draws].keys) for i in chosen.dealers)
    return 20 * dealer + len(sweep.runs[chosen.table].counts)


def _pass(
    sweep: Sweep, chosen: Pass, bonus: BonusSource | None, big: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pass of the kernels: its dealer table G, then every finished player hand."""
    prepared = sweep.prepared
    modulus = prepared.modulus
    run = sweep.runs[chosen.table]
    if bonus:
        nhg, nhg_f, cat_key, cat_val, cat_f, short_row, short_key, short_val, short_f = (
            bonus.tables(chosen)
        )
        held_key, categories, poker_ok, card27, bugs = (
            bonus.held_key, bonus.categories, bonus.poker_ok, bonus.card27, bonus.bugs
        )  # fmt: skip
    else:
        nhg, nhg_f, cat_key, cat_val, cat_f, short_row, short_key, short_val, short_f = _no_bonus(
            sweep.kmax, modulus.lanes
        )
        held_key, categories, poker_ok = NO_AWARDS, 0, totals_where(lambda total: True)
        card27 = no_card_awards()
        bugs = False
    g_ids, g_ptr, g_final, g_m, g_vals, g_f = sweep.dealer_table(chosen)
    s_rank, s_count, s_w, s_w_f = sweep.start_arrays(chosen)
    invfall, invfall_f, jpk, jpk_f, jpk_ok, _ = kernel.pass_tables(
        chosen.jokers, prepared.shoe.ordinary, prepared.shoe.jokers, prepared.shoe.cards,
        sweep.kmax, sweep.mmax, sweep.ints, sweep.inverses, modulus.p, modulus.q,
    )  # fmt: skip
    # (the Jokers drawn: put back with their chance, so none in the player's factor)
    jpk, jpk_f, jpk_ok = jpk[:, :, None], jpk_f[:, :, None], jpk_ok[:, :, None]
    jl, jl_f = np.zeros((2, modulus.lanes), np.uint64), np.zeros(2)
    if prepared.explicit:  # the Jokers each hand drew are in its row
        jpk, jpk_f, jpk_ok = sweep.drawn_tables(chosen.jokers)
    if prepared.shape.jokers_wild:  # and the dealer's are drawn as cards
        invfall, invfall_f, jl, jl_f = sweep.wild_tables
    shoe = np.array(prepared.shoe.counts[:13], np.int64)
    out, out_f, won, _ = kernel.hands_pass(
        run.counts, run.sizes, run.totals, run.ways, run.rows, run.drawn, run.wins,
        prepared.explicit, sweep.player.sub_ptr,
        sweep.player.sub_id, sweep.player.sub_c, big[0], big[1], len(sweep.dealer.universe),
        run.spec.immediate, run.spec.nb, run.spec.bp, run.spec.coef, nhg, nhg_f, cat_key,
        cat_val, cat_f, short_row, short_key, short_val, short_f, held_key, poker_ok, card27,
        bugs, categories, g_ids, g_ptr, g_final, g_m, g_vals, g_f, len(prepared.finals), s_rank,
        s_count, s_w, s_w_f, shoe, sweep.fall, sweep.fall_f, invfall, invfall_f, jpk, jpk_f,
        jpk_ok, prepared.joker_final, jl, jl_f, sweep.ints, modulus.p, modulus.q, modulus.r2, 0,
        len(run.counts), _few_digits(sweep, g_ids),
    )  # fmt: skip
    return out, out_f, won


#: G with at most this many sub-multisets (a dealer who stands on his two cards) is
#: read sub-multiset by sub-multiset, not through each player hand's sub-multisets
_FEW = 64


def _few_digits(sweep: Sweep, g_ids: np.ndarray) -> np.ndarray:
    """G's sub-multisets as counts per rank where they are few and of two cards or fewer
    (:func:`~cardroom.games.finnish.shoe_kernel.hands_pass`'s ``g_digits``), else no
    rows."""
    none = np.zeros((0, 13), np.int64)
    if len(g_ids) > _FEW:
        return none
    tables = sweep.prepared.tables
    digits = np.array(
        [tables.digits(int(key)) for key in sweep.dealer.universe[g_ids]], np.int64
    ).reshape(len(g_ids), 13)
    return digits if int(digits.sum(axis=1).max(initial=0)) <= 2 else none


def _no_group(dealer: DealerStart) -> int:
    return 0


def _no_bonus(kmax: int, lanes: int) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
    np.ndarray, np.ndarray,
]:  # fmt: skip
    return (
        np.zeros((3, kmax + 1, JOKERS_HELD, lanes), np.uint64),
        np.zeros((3, kmax + 1, JOKERS_HELD)),
        np.full((1, 4, 4), -1, np.int64), np.zeros((1, 4, 4, lanes), np.uint64),
        np.zeros((1, 4, 4)), np.full(1, -1, np.int64), np.full((1, 4, 4), -1, np.int64),
        np.zeros((1, 4, 4, lanes), np.uint64), np.zeros((1, 4, 4)),
    )  # fmt: skip


def _whole(residues: np.ndarray, modulus: Modulus, denominator: int) -> int:
    """The sequences behind a chance, from its plain residues: chance x denominator."""
    plain = np.array([int(v) % p for v, p in zip(residues, modulus.primes, strict=True)], np.uint64)
    value = modulus.reconstruct(plain, denominator, montgomery=False) * denominator
    if value.denominator != 1:
        raise ArithmeticError("a chance is not a whole number of sequences")
    return int(value)


def _lane_sum(values: np.ndarray, modulus: Modulus) -> np.ndarray:
    """Sum over the first axis of plain residues, as Python integers mod each prime."""
    summed: Any = np.zeros(values.shape[1:], object)
    for row in values:
        summed = summed + row.astype(object)
    return summed % np.array(modulus.primes, object)  # type: ignore[no-any-return]
