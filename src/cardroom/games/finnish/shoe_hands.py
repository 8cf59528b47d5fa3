"""The hands of a finite-shoe count, prepared for the kernels.

Each hand is followed as a multiset of ranks, keyed by :class:`Tables`: every state of
the player's hand under each of the player's hit/stand tables, and the dealer's draws
from each of the dealer's two-card starts (:class:`HandTable`).  An
:class:`OutcomeSpec` says how each finished player total settles against the dealer's
final totals, and :func:`finished_rows` where a player's hand ends, with the Jokers it
drew where they are followed.  :func:`prepare` puts them together for one game and one
shoe (:class:`Prepared`): the deals with an initial 27 settled, and the tables of every
other hand.  :mod:`cardroom.games.finnish.shoe_count` explains the method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from math import comb, prod

import numpy as np

from cardroom.analysis.modular import Modulus
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.hands import (
    TARGET,
    Total,
    finnish_total,
    total_index,
    total_of,
)
from cardroom.games.finnish.shoe_deal import (
    WILD_27,
    GameShape,
    ShoeMakeup,
    deals,
    falling,
    hit_table,
    ordinary_counts,
    pair_orders,
    sample_card,
    totals_of,
)

__all__ = [
    "DealerStart",
    "FinishedRows",
    "HandTable",
    "OutcomeSpec",
    "Prepared",
    "Tables",
    "dealer_draws",
    "finished_rows",
    "player_hands",
    "prepare",
]


# -- tables of hands ---------------------------------------------------------------------------
@dataclass
class Tables:
    """Keys of multisets: digit r is the count of rank r, in base ``caps[r] + 1``."""

    caps: np.ndarray  # the most cards of each rank a hand can hold
    radix: np.ndarray

    @classmethod
    def build(cls, shoe: ShoeMakeup, drawing: Sequence[np.ndarray]) -> Tables:
        top = max(int(np.nonzero(t.any(axis=1))[0].max(initial=0)) for t in drawing) + 13
        caps = np.array([min(shoe.counts[r], top // (r + 1)) for r in range(13)], np.int64)
        radix = np.ones(13, np.int64)
        for r in range(1, 13):
            radix[r] = radix[r - 1] * (caps[r - 1] + 1)
        if prod(int(c) + 1 for c in caps) >= 1 << 62:
            raise ValueError("shoe: too many cards of each rank for the exact analysis")
        return cls(caps, radix)

    def key(self, counts: Sequence[int]) -> int:
        return sum(int(c) * int(r) for c, r in zip(counts, self.radix, strict=True))

    def digits(self, key: int) -> list[int]:
        out = []
        for cap in self.caps.tolist():
            key, digit = divmod(key, cap + 1)
            out.append(digit)
        return out


@dataclass
class HandTable:
    """States of a hand under one hit/stand table."""

    keys: np.ndarray  # int64 [n]
    counts: np.ndarray  # int8 [n, 13]
    ways: np.ndarray  # int64 [n, 3]: card orders, per Jokers among the first two cards
    draws: np.ndarray  # int8 [n]: 1 if the state draws

    # (both made once: a count reads them of every table, many times)
    @cached_property
    def sizes(self) -> np.ndarray:
        sizes: np.ndarray = self.counts.sum(axis=1).astype(np.int64)
        return sizes

    @cached_property
    def _lows(self) -> np.ndarray:
        lows: np.ndarray = (self.counts.astype(np.int64) * np.arange(1, 14)).sum(axis=1)
        return lows

    def lows(self) -> np.ndarray:
        return self._lows


def player_hands(
    tables: Tables, starts: Sequence[tuple[tuple[int, ...], int, int]], drawing: np.ndarray
) -> HandTable:
    """Every state of the player's hand under one hit/stand table, from the starts
    (ordinary cards of the first two per rank, Jokers among them, card orders)."""
    keys = np.array([tables.key(c) for c, _, _ in starts], np.int64)
    counts = np.array([c for c, _, _ in starts], np.int8).reshape(len(starts), 13)
    ways = np.zeros((len(starts), 3), np.int64)
    for i, (_, jokers, orders) in enumerate(starts):
        ways[i, jokers] = orders
    k, c, w, h = kernel.hand_states(
        keys, counts, ways, 0, False, drawing, tables.caps, tables.radix
    )
    return HandTable(k, c, w, h)


def dealer_draws(
    tables: Tables, low: int, ace: bool, drawing: np.ndarray, wild: bool = False
) -> HandTable:
    """The dealer's finished draws (as multisets) from a two-card start of ``low``
    with or without an Ace; with ``wild`` Jokers, also the draws on which he would draw
    again (``draws`` 1: the hands a Joker ends)."""
    start = np.zeros((1, 13), np.int8)
    k, c, w, h = kernel.hand_states(
        np.zeros(1, np.int64), start, np.ones((1, 1), np.int64), low, ace, drawing,
        tables.caps, tables.radix,
    )  # fmt: skip
    done = np.ones(len(h), np.bool_) if wild else h == 0
    return HandTable(k[done], c[done], w[done], h[done])


@dataclass(frozen=True)
class OutcomeSpec:
    """How each finished player total settles against the dealer's finals (kernel
    tables).

    ``immediate[ti]``: the channel of a total the dealer does not play against (the
    last, ``len(channels)``, for the rest), else -1.  Otherwise the chance of each
    channel, and of the dealer finishing (the last row), is a sum of the dealer's
    cumulative finals at ``bp[ti, :nb[ti]]`` with coefficients ``coef[ti, o, j]``; the
    last column weighs the chance of the dealer's start itself, where the cumulative
    finals end (the dealer always finishes unless ``check``, for tiny shoes, when the
    last final is a breakpoint too).
    """

    immediate: np.ndarray
    nb: np.ndarray
    bp: np.ndarray
    coef: np.ndarray

    @classmethod
    def build(
        cls, totals: Sequence[int], finals: Sequence[Total], shape: GameShape, check: bool
    ) -> OutcomeSpec:
        channels = shape.channels
        size = max(totals) + 1 if totals else 1
        nf = len(finals)
        specs: dict[int, tuple[list[int], list[list[int]]]] = {}
        widest = 1
        for ti in totals:
            if shape.immediate(total_of(ti)) is not None:
                continue
            outs = [shape.settle(total_of(ti), f) for f in finals]
            cuts = [i for i in range(nf - 1) if outs[i] != outs[i + 1]]
            if check:
                cuts.append(nf - 1)
            rows = [[0] * (len(cuts) + 1) for _ in range(len(channels) + 1)]

            def add(row: list[int], at: int, sign: int, cuts: list[int] = cuts) -> None:
                if at < 0:
                    return
                if at == nf - 1 and not check:
                    row[-1] += sign
                else:
                    row[cuts.index(at)] += sign

            start = 0
            for end in [*cuts[: len(cuts) - (1 if check else 0)], nf - 1]:
                if outs[end] in channels:
                    row = rows[channels.index(outs[end])]
                    add(row, end, 1)
                    add(row, start - 1, -1)
                start = end + 1
            add(rows[-1], nf - 1, 1)
            specs[ti] = (cuts, rows)
            widest = max(widest, len(cuts))
        imm = np.full(size, -1, np.int64)
        nb = np.zeros(size, np.int64)
        bp = np.zeros((size, widest), np.int64)
        coef = np.zeros((size, len(channels) + 1, widest + 1), np.int64)
        for ti in totals:
            label = shape.immediate(total_of(ti))
            if label is not None:
                imm[ti] = channels.index(label) if label in channels else len(channels)
                continue
            cuts, rows = specs[ti]
            nb[ti] = len(cuts)
            bp[ti, : len(cuts)] = cuts
            for o, row in enumerate(rows):
                coef[ti, o, : len(cuts)] = row[:-1]
                coef[ti, o, widest] = row[-1]
        if np.abs(coef).max(initial=0) > 1:
            raise AssertionError("a result adds a cumulative final twice")
        return cls(imm, nb, bp, coef)


# -- preparing a count -------------------------------------------------------------------------
@dataclass
class DealerStart:
    """A dealer's two-card hand that is not a 27."""

    pair: tuple[int, int]
    counts: tuple[int, ...]  # its ordinary cards per rank
    jokers: int
    orders: int
    total: Total
    draws: int  # index of its table of draws (Prepared.draws)


@dataclass
class Prepared:
    """A game's deal and hand tables for one shoe, ready for the kernels."""

    shape: GameShape
    shoe: ShoeMakeup
    tables: Tables
    settled: dict[tuple[str, str | None], int]  # ordered four-card sequences per result
    starts: list[tuple[tuple[int, ...], int, int]]  # player: counts, Jokers, orders
    dealers: list[DealerStart]
    classes: list[np.ndarray]  # distinct player hit/stand tables
    class_of: dict[Total, int]  # dealer's two-card total -> its table
    draws: list[HandTable]  # the dealer's draws, per start (low, Ace)
    draw_starts: list[tuple[int, bool]]
    finals: list[Total]  # the dealer's final totals, in order: the kernels' axis
    hands: list[HandTable]  # every player state, per class
    longest: int  # at least as many cards as any round takes
    #: with wild Jokers, the place in ``finals`` of a dealer's 27 that a Joker made
    #: (beside his other 27s; its chance carries the Joker's), else -1
    joker_final: int = -1
    #: :func:`finished_rows` of each player table, by the table's id (made once)
    _rows: dict[int, FinishedRows] = field(default_factory=dict, repr=False)

    def rows(self, hands: HandTable) -> FinishedRows:
        """The finished hands of one of the player's tables (:func:`finished_rows`)."""
        known = self._rows.get(id(hands))
        if known is None:
            known = self._rows[id(hands)] = finished_rows(self.shape, hands)
        return known

    @property
    def explicit(self) -> bool:
        """Are the Jokers a player's hand draws after the deal followed one by one (wild
        Jokers end a hand; a Charlie counts them among its cards)?"""
        return self.shape.jokers_wild or self.shape.charlie > 0

    def finished(self, hands: HandTable) -> np.ndarray:
        """Which states of a player's table some finished hand has as its ordinary
        cards."""
        if not self.explicit:
            done: np.ndarray = hands.draws == 0
            return done
        mask = np.zeros(len(hands.draws), np.bool_)
        mask[self.rows(hands).state] = True
        return mask

    @cached_property
    def denominator(self) -> int:
        """``(cards)_longest``: every chance is a whole number of 1/denominator."""
        return falling(self.shoe.cards, self.longest)

    @cached_property
    def modulus(self) -> Modulus:
        return Modulus.for_bits(self.denominator.bit_length() + 8)

    @property
    def check(self) -> bool:
        """Could a round run out of cards?  (Only in tiny shoes; the kernels then add
        up where the dealer finishes, and the count refuses a shortfall.)"""
        return self.longest >= self.shoe.cards


@dataclass
class FinishedRows:
    """A player's table's finished hands: each is a state of the table (its ordinary
    cards) with the Jokers it drew after the deal, where those are followed."""

    state: np.ndarray  # int64 [n]: the state of the table
    drawn: np.ndarray  # int64 [n]: Jokers drawn after the deal
    wins: np.ndarray  # bool [n]: a Charlie, which wins before the dealer plays
    ways: np.ndarray  # int64 [n, 3]: card orders, per Jokers among the first two cards
    totals: np.ndarray  # int64 [n]: the total's index


def finished_rows(shape: GameShape, hands: HandTable) -> FinishedRows:
    """The finished hands of a player's table (:class:`FinishedRows`).

    Without wild Jokers or a Charlie, the states that stand (the Jokers drawn are put
    back with their chance later).  With wild Jokers, also each state that draws,
    ended by a Joker as a 27.  With a Charlie of ``c`` cards, the Jokers drawn count
    among the hand's cards: a hand of ``k`` ordinary hits and ``e`` Jokers drawn in
    between (``C(k - 1 + e, e)`` orders with the last card ordinary, ``C(k + e - 1,
    e - 1)`` with a Joker last, from a state that draws) that reaches ``c`` cards at 27
    or less is a Charlie, and one that stands with fewer cards (or over 27) stands.
    """
    sizes = hands.sizes
    n = len(sizes)
    totals = totals_of(hands.lows(), hands.counts[:, 0] > 0)
    value = totals // 2  # (a total's index is twice its value, plus one if soft)
    drawing = hands.draws == 1
    charlie = shape.charlie
    parts: list[tuple[np.ndarray, int, bool, np.ndarray, np.ndarray]] = []

    def add(mask: np.ndarray, drawn: int, wins: bool, ways: np.ndarray, total: np.ndarray) -> None:
        keep = mask & ways.any(axis=1)
        if keep.any():
            parts.append((np.nonzero(keep)[0], drawn, wins, ways[keep], total[keep]))

    if shape.jokers_wild:  # no deal left holds a Joker: the ways are all in column 0
        reach = (sizes == charlie) & (value <= TARGET)
        within = sizes <= charlie if charlie else np.ones(n, np.bool_)
        add(reach, 0, True, hands.ways, totals)
        add(~drawing & ~reach & within, 0, False, hands.ways, totals)
        wild = np.full(n, total_index(WILD_27), np.int64)
        ends = drawing & (sizes < charlie if charlie else np.ones(n, np.bool_))
        add(ends & (sizes + 1 == charlie), 1, True, hands.ways, wild)
        add(ends & (sizes + 1 != charlie), 1, False, hands.ways, wild)
    elif charlie:
        binom = np.array([[comb(a, b) for b in range(charlie + 1)] for a in range(2 * charlie + 2)])
        for jp in range(3):
            w = hands.ways[:, jp]
            hits = np.clip(sizes - (2 - jp), 0, None)
            for e in range(charlie + 1):
                cards = sizes + jp + e
                if not (w.any() and (cards <= charlie).any()):
                    continue
                small = np.minimum(hits + e, 2 * charlie + 1)
                # the last card ordinary (none drawn at all: the two cards dealt)
                last_ordinary = np.where(hits >= 1, binom[np.maximum(small - 1, 0), e], e == 0)
                last_joker = binom[np.maximum(small - 1, 0), max(e - 1, 0)] * (e >= 1) * drawing
                reach = (cards == charlie) & (value <= TARGET)
                stand = ~drawing & ~reach & (cards <= charlie)
                column = np.zeros((n, 3), np.int64)
                column[:, jp] = _times(w, last_ordinary + last_joker)
                add(reach, e, True, column.copy(), totals)
                column[:, jp] = _times(w, last_ordinary)
                add(stand, e, False, column, totals)
    else:
        add(~drawing, 0, False, hands.ways, totals)
    if not parts:
        return FinishedRows(
            np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.bool_),
            np.zeros((0, 3), np.int64), np.zeros(0, np.int64),
        )  # fmt: skip
    state = np.concatenate([state for state, *_ in parts])
    # by state, so that the sweep meets a hand's rows one after another and its hands
    # in order of their cards (as the table lists its states)
    order = np.argsort(state, kind="stable")
    return FinishedRows(
        state[order],
        np.concatenate([np.full(len(st), drawn, np.int64) for st, drawn, *_ in parts])[order],
        np.concatenate([np.full(len(st), wins, np.bool_) for st, _, wins, *_ in parts])[order],
        np.ascontiguousarray(np.concatenate([ways for *_, ways, _ in parts])[order]),
        np.concatenate([total for *_, total in parts])[order],
    )


def _times(ways: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Card orders times the orders of the Jokers among them, refusing past 62 bits."""
    if len(ways) and float(ways.max()) * float(orders.max()) >= 2.0**62:
        raise OverflowError("a hand's count of card orders passes 62 bits")
    product: np.ndarray = ways * orders.astype(np.int64)
    return product


def _against(player_draws: Callable[[Total, Total], bool], dealer: Total, total: Total) -> bool:
    return player_draws(total, dealer)


def prepare(shape: GameShape, shoe: ShoeMakeup, like: Prepared | None = None) -> Prepared:
    """The deal settled where it can be, and every hand's table.

    ``like``: the same game and play prepared for another shoe (the full shoe, for the
    effects of removal).  Its tables of hands are taken as they are where this shoe's
    would be the same: the same starts, the same hit/stand tables and the same most
    cards of each rank a hand can hold (the tables depend on the shoe only through
    these)."""
    settled: dict[tuple[str, str | None], int] = {}
    starts: dict[tuple[int, int], None] = {}
    dealer_pairs: dict[tuple[int, int], None] = {}
    for deal in deals(shoe, shape.ordered):
        if shape.initial(deal.player) or shape.initial(deal.dealer):
            key = shape.settle_deal(deal.player, deal.dealer)
            settled[key] = settled.get(key, 0) + deal.weight
            continue
        starts[deal.player] = None
        dealer_pairs[deal.dealer] = None
    start_rows = []
    for pair in starts:
        counts, jokers = ordinary_counts(pair)
        start_rows.append((counts, jokers, pair_orders(pair, shape.ordered)))
    dealer_table = hit_table(shape.dealer_draws)
    classes: list[np.ndarray] = []
    class_of: dict[Total, int] = {}
    draw_starts: list[tuple[int, bool]] = []
    dealers = []
    for pair in dealer_pairs:
        counts, jokers = ordinary_counts(pair)
        total = finnish_total([sample_card(pair[0]), sample_card(pair[1])])
        if total not in class_of:
            drawing = hit_table(partial(_against, shape.player_draws, total))
            for i, known in enumerate(classes):
                if np.array_equal(known, drawing):
                    class_of[total] = i
                    break
            else:
                class_of[total] = len(classes)
                classes.append(drawing)
        start = (sum((r + 1) * c for r, c in enumerate(counts)), counts[0] > 0)
        if start not in draw_starts:
            draw_starts.append(start)
        dealers.append(
            DealerStart(
                pair, counts, jokers, pair_orders(pair, shape.ordered), total,
                draw_starts.index(start),
            )
        )  # fmt: skip
    tables = Tables.build(shoe, [dealer_table, *classes])
    wild = shape.jokers_wild
    if like is not None and _same_tables(like, shape, tables, start_rows, dealer_table, classes,
                                         draw_starts):  # fmt: skip
        draws, finals, joker_final, hands = like.draws, like.finals, like.joker_final, like.hands
        rows = dict(like._rows)  # (by the tables' ids: the same tables)
    else:
        draws, finals, joker_final = _dealer_tables(tables, draw_starts, dealer_table, wild)
        hands = [player_hands(tables, start_rows, table) for table in classes]
        rows = {}
    longest_player = max((int(h.sizes.max()) for h in hands if len(h.sizes)), default=2)
    longest_dealer = max((int(d.sizes.max()) for d in draws if len(d.sizes)), default=0)
    longest = min(shoe.cards, shoe.jokers + longest_player + 2 + longest_dealer)
    return Prepared(
        shape, shoe, tables, settled, start_rows, dealers, classes, class_of, draws,
        draw_starts, finals, hands, longest, joker_final, rows,
    )  # fmt: skip


def _dealer_tables(
    tables: Tables, draw_starts: list[tuple[int, bool]], dealer_table: np.ndarray, wild: bool
) -> tuple[list[HandTable], list[Total], int]:
    """The dealer's draws from each start, his final totals in order, and the place among
    them of a 27 a wild Joker made (-1: none)."""
    draws = [dealer_draws(tables, low, ace, dealer_table, wild) for low, ace in draw_starts]
    finals_seen: set[int] = set()
    for (low, ace), table in zip(draw_starts, draws, strict=True):
        stands = table.draws == 0
        lows, aces = table.lows()[stands], table.counts[stands, 0] > 0
        finals_seen.update(np.unique(totals_of(lows + low, aces | ace)).tolist())
    finals = sorted((total_of(ti) for ti in finals_seen), key=lambda t: (t.value, t.soft))
    joker_final = -1
    if wild:  # a 27 that a Joker made settles as any 27 of his: it goes beside them
        joker_final = sum(1 for t in finals if t.value <= TARGET)
        finals.insert(joker_final, WILD_27)
    return draws, finals, joker_final


def _same_tables(
    like: Prepared, shape: GameShape, tables: Tables,
    start_rows: list[tuple[tuple[int, ...], int, int]], dealer_table: np.ndarray,
    classes: list[np.ndarray], draw_starts: list[tuple[int, bool]],
) -> bool:  # fmt: skip
    """Would :func:`prepare` make ``like``'s tables of hands again (and so its finals and
    finished rows)?  They are made from these alone."""
    theirs = like.shape
    return (
        (shape.jokers_wild, shape.charlie) == (theirs.jokers_wild, theirs.charlie)
        and np.array_equal(like.tables.caps, tables.caps)
        and like.starts == start_rows
        and like.draw_starts == draw_starts
        and len(like.classes) == len(classes)
        and all(np.array_equal(a, b) for a, b in zip(like.classes, classes, strict=True))
        and np.array_equal(hit_table(theirs.dealer_draws), dealer_table)
    )
