"""Counting every round of a Finnish game dealt off the top of a finite shoe.

This is the machinery of :mod:`cardroom.games.finnish.shoe`; the compiled loops
are in :mod:`cardroom.games.finnish.shoe_kernel`.

**What is counted.**  A round's cards are a sequence of distinct physical cards;
every sequence of ``L`` cards has chance ``1/(cards)_L``, so every chance is a
whole number of sequences of ``longest`` cards (at least any round's length) over
``(cards)_longest``, and that number is what is computed, exactly.

**The deal.**  The first four cards (player, dealer, player, dealer) are
enumerated over ranks (:func:`deals`); a deal with an initial 27 is settled by
the engine itself.

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
Jokers the player's hand draws are followed one by one (:func:`finished_rows`): its
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

import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from math import comb, prod
from typing import Any, Protocol

import numpy as np

from cardroom.analysis.modular import Modulus
from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.hands import (
    TARGET,
    Total,
    finnish_total,
    total_from,
    total_index,
    total_of,
)

__all__ = [
    "Counts",
    "GameShape",
    "ShoeMakeup",
    "Sweep",
    "count_rounds",
    "prepare",
    "sample_card",
]

JOKER_INDEX = 13
#: the total of a hand a wild Joker ended
WILD_27 = Total(TARGET, False)
SUITS: tuple[Suit, ...] = tuple(Suit)
#: lows a hit/stand table is asked about (no hand draws anywhere near this)
_LOW_LIMIT = 120


def falling(n: int, k: int) -> int:
    """``n (n - 1) ... (n - k + 1)``: ordered ways to take k of n cards."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def sample_card(index: int) -> Card:
    """A card of rank ``RANK_ORDER[index]`` (spades: suits never change the play)."""
    return JOKER if index == JOKER_INDEX else Card(RANK_ORDER[index], Suit.SPADES)


@dataclass(frozen=True)
class ShoeMakeup:
    """The cards of a shoe: how many of each rank, and of each suit within a rank.

    ``counts`` follows :data:`~cardroom.games.walk.RANK_ORDER` (Ace ... King,
    Joker); ``suits[r]`` splits the cards of ordinary rank ``r`` over the suits in
    the order of :class:`~cardroom.cards.Suit` (only finnish27's bonus reads it).
    """

    counts: tuple[int, ...]
    suits: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if len(self.counts) != len(RANK_ORDER) or any(c < 0 for c in self.counts):
            raise ValueError("counts: one count of 0 or more per rank of RANK_ORDER")
        if len(self.suits) != 13 or any(
            len(s) != 4 or sum(s) != c or min(s) < 0
            for s, c in zip(self.suits, self.counts, strict=False)
        ):
            raise ValueError("suits: four counts per ordinary rank, adding up to its count")

    @classmethod
    def of_rules(cls, shoe: ShoeRules, decks: int | None = None) -> ShoeMakeup:
        """The rules' shoe (``decks`` overrides the number of decks), its cards per rank
        and suit as the shoe holds them."""
        if decks is None and not shoe.whole_decks:
            cards = Counter((card.rank, card.suit) for card in shoe.cards())
            counts = shoe.rank_counts()
            return cls(
                tuple(counts[rank] for rank in RANK_ORDER),
                tuple(tuple(cards[(rank, suit)] for suit in SUITS) for rank in RANK_ORDER[:13]),
            )
        decks = shoe.decks if decks is None else decks
        counts = shoe.rank_counts(decks)  # refuses decks for a shoe of cards_per_rank
        return cls(tuple(counts[rank] for rank in RANK_ORDER), ((decks,) * 4,) * 13)

    @classmethod
    def of_counts(
        cls,
        counts: Mapping[Rank, int] | Sequence[int],
        suits: Mapping[Rank, Sequence[int]] | None = None,
    ) -> ShoeMakeup:
        """A shoe of ``counts`` cards per rank; a rank's cards are spread over the suits
        as evenly as can be (spades first) unless ``suits`` says otherwise."""
        if isinstance(counts, Mapping):
            values = tuple(counts.get(rank, 0) for rank in RANK_ORDER)
        else:
            values = tuple(counts)
        split = []
        for rank, n in zip(RANK_ORDER[:13], values, strict=False):
            if suits is not None and rank in suits:
                split.append(tuple(suits[rank]))
            else:
                split.append(tuple(n // 4 + (1 if i < n % 4 else 0) for i in range(4)))
        return cls(values, tuple(split))

    @property
    def cards(self) -> int:
        return sum(self.counts)

    @property
    def jokers(self) -> int:
        return self.counts[JOKER_INDEX]

    @property
    def ordinary(self) -> int:
        return self.cards - self.jokers

    def without(self, rank: Rank, suit: Suit | None = None) -> ShoeMakeup:
        """The shoe with one card of ``rank`` (of ``suit``; by default of the suit it
        has most of) taken out."""
        index = RANK_ORDER.index(rank)
        if not self.counts[index]:
            raise ValueError(f"shoe: it holds no card of rank {rank.value}")
        counts = list(self.counts)
        counts[index] -= 1
        suits = [list(s) for s in self.suits]
        if rank is not Rank.JOKER:
            held = suits[index]
            s = SUITS.index(suit) if suit is not None else held.index(max(held))
            if not held[s]:
                raise ValueError("shoe: no card of that suit")
            held[s] -= 1
        return ShoeMakeup(tuple(counts), tuple(tuple(s) for s in suits))


# -- totals ------------------------------------------------------------------------------
def hit_table(decide: Callable[[Total], bool]) -> np.ndarray:
    """``table[low, ace]``: does a hand whose cards add up to ``low`` (Aces low, Jokers 0)
    and that holds an Ace (``ace``) draw?  ``decide`` is asked about its total."""
    table = np.zeros((_LOW_LIMIT + 1, 2), np.bool_)
    for low in range(_LOW_LIMIT + 1):
        for ace in (0, 1):
            table[low, ace] = decide(total_from(low, bool(ace)))
    if table[-1].any():
        raise ValueError("rules: a hand would draw for ever")
    return table


def totals_where(keep: Callable[[Total], bool]) -> np.ndarray:
    """Per total index (every total a hand can reach), whether ``keep`` holds."""
    return np.array([keep(total_of(i)) for i in range(TOTAL_INDICES)], np.bool_)


#: how many total indices there are (every total a hand can reach, hard and soft)
TOTAL_INDICES = 2 * 4 * _LOW_LIMIT + 2
#: the Jokers a hand holds, as the bonus tables count them: 0 to 9, and 10 or more
JOKERS_HELD = 11
#: hands of up to this many cards may be paid by their number of cards
COUNTED_CARDS = 10


#: a poker award for no set of categories (a table without bonuses)
NO_AWARDS = np.full(1 << 10, -1, np.int64)
NO_AWARDS.flags.writeable = False


def no_card_awards() -> np.ndarray:
    """``[total index, cards]`` -> the award of a winning hand of that total and number
    of cards paid by its number of cards (-1: none), for a table without any."""
    return np.full((TOTAL_INDICES, COUNTED_CARDS), -1, np.int64)


@lru_cache(maxsize=1)
def _total_indices() -> np.ndarray:
    """``[low, ace]`` -> :func:`total_index` of :func:`total_from` (for whole arrays)."""
    table = np.zeros((4 * _LOW_LIMIT, 2), np.int64)
    for low in range(4 * _LOW_LIMIT):
        for ace in (0, 1):
            table[low, ace] = total_index(total_from(low, bool(ace)))
    return table


def totals_of(lows: np.ndarray, aces: np.ndarray) -> np.ndarray:
    """The total indices of many hands (their lows and whether they hold an Ace)."""
    return _total_indices()[lows.astype(np.int64), aces.astype(np.int64)]


# -- the deal ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Deal:
    """One way the first four cards can fall, as two pairs of rank indices (unordered,
    the lower first, but for :func:`pair_orders`), with the ordered sequences of four
    physical cards (player, dealer, player, dealer) that deal it."""

    player: tuple[int, int]
    dealer: tuple[int, int]
    weight: int


def pair_orders(pair: tuple[int, int], ordered: bool = False) -> int:
    """The orders of two cards that ``pair`` stands for: a pair of one rank is dealt
    one way, two ranks two ways, and a Joker with another card one way when
    ``ordered`` (where the Joker's place decides a 27, each order is its own pair)."""
    if pair[0] == pair[1] or (ordered and JOKER_INDEX in pair):
        return 1
    return 2


def two_card_pairs(ordered: bool = False) -> list[tuple[int, int]]:
    """The two-card hands as pairs of rank indices, the lower first; with ``ordered``
    a Joker and another card in both orders."""
    pairs = [(a, b) for a in range(14) for b in range(a, 14)]
    if ordered:
        pairs += [(JOKER_INDEX, a) for a in range(JOKER_INDEX)]
    return pairs


def deals(shoe: ShoeMakeup, ordered: bool = False) -> Iterator[Deal]:
    """Every deal of the first four cards with its weight (``ordered``: see
    :func:`pair_orders`)."""
    pairs = two_card_pairs(ordered)
    for pa in pairs:
        for da in pairs:
            used = [0] * 14
            for r in (*pa, *da):
                used[r] += 1
            weight = pair_orders(pa, ordered) * pair_orders(da, ordered)
            for r, k in enumerate(used):
                if k:
                    weight *= falling(shoe.counts[r], k)
            if weight:
                yield Deal(pa, da, weight)


def ordinary_counts(pair: tuple[int, int]) -> tuple[tuple[int, ...], int]:
    """A two-card hand's ordinary cards per rank, and its Jokers."""
    counts = [0] * 13
    jokers = 0
    for r in pair:
        if r == JOKER_INDEX:
            jokers += 1
        else:
            counts[r] += 1
    return tuple(counts), jokers


# -- the game ------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameShape:
    """What the count needs of a Finnish game's rules, each taken from the engine's
    own functions by the game's analysis (:mod:`cardroom.games.finnish.shoe`).

    ``initial(pair)``: is this two-card hand (rank indices) an initial 27;
    ``settle_deal(player, dealer)``: the result (a label of ``labels``, and a bonus)
    of a deal with a 27; ``player_draws(total, dealer)``: does the player draw on
    ``total`` against the dealer's two-card total; ``dealer_draws(total)``;
    ``immediate(total)``: the label of a finished player hand the dealer does not
    play against, else None; ``settle(player, dealer)``: the label of two finished
    hands.  ``labels`` maps each label to its outcome (player, dealer or push); the
    last label is what the others leave (the kernels count it as the rest).
    """

    initial: Callable[[tuple[int, int]], bool]
    settle_deal: Callable[[tuple[int, int], tuple[int, int]], tuple[str, str | None]]
    player_draws: Callable[[Total, Total], bool]
    dealer_draws: Callable[[Total], bool]
    immediate: Callable[[Total], str | None]
    settle: Callable[[Total, Total], str]
    labels: tuple[tuple[str, str], ...]
    #: does the order of a Joker and another card matter to a 27 (then each order is
    #: its own pair: :func:`deals`)
    ordered: bool = False
    #: does a Joker drawn after the deal make its hand 27 and end it (then every deal
    #: with a Joker is a 27, and each hand that would draw again may end on a Joker)
    jokers_wild: bool = False
    #: a player's hand of this many cards (Jokers counted) at 27 or less wins before
    #: the dealer plays (0: none); then the Jokers a hand draws are followed
    charlie: int = 0

    @property
    def channels(self) -> tuple[str, ...]:
        """The labels the kernels follow one by one (all but the last)."""
        return tuple(label for label, _ in self.labels[:-1])

    @property
    def rest(self) -> str:
        return self.labels[-1][0]


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

    @property
    def sizes(self) -> np.ndarray:
        sizes: np.ndarray = self.counts.sum(axis=1).astype(np.int64)
        return sizes

    def lows(self) -> np.ndarray:
        lows: np.ndarray = (self.counts.astype(np.int64) * np.arange(1, 14)).sum(axis=1)
        return lows


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


def prepare(shape: GameShape, shoe: ShoeMakeup) -> Prepared:
    """The deal settled where it can be, and every hand's table."""
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
    hands = [player_hands(tables, start_rows, table) for table in classes]
    longest_player = max((int(h.sizes.max()) for h in hands if len(h.sizes)), default=2)
    longest_dealer = max((int(d.sizes.max()) for d in draws if len(d.sizes)), default=0)
    longest = min(shoe.cards, shoe.jokers + longest_player + 2 + longest_dealer)
    return Prepared(
        shape, shoe, tables, settled, start_rows, dealers, classes, class_of, draws,
        draw_starts, finals, hands, longest, joker_final,
    )  # fmt: skip


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
        where = np.full(int(_total_indices().max()) + 1, -1, np.int64)
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
        ptr, ids, weights = kernel.sub_multisets(
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
        wanted = np.zeros(universe, np.bool_)
        wanted[player.sub_id[np.repeat(mine, np.diff(player.sub_ptr))]] = True
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
    _drawn: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    @classmethod
    def build(cls, prepared: Prepared) -> Sweep:
        modulus = prepared.modulus
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
            mmax,
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

    def dealer_table(self, chosen: Pass) -> tuple[np.ndarray, ...]:
        """G of a pass: its starts' whole hands expanded over the sub-multisets."""
        prepared = self.prepared
        modulus = prepared.modulus
        counts, ways, finals, hits = [], [], [], []
        for i in chosen.dealers:
            d = prepared.dealers[i]
            factor = d.orders * falling(prepared.shoe.jokers, d.jokers)
            w = self.dealer.ways[i].astype(object) * factor
            counts.append(self.dealer.counts[i])
            ways.append(w)
            finals.append(self.dealer.finals[i])
            hits.append(self.dealer.hits[i])
        # the same whole hand, final and number of draws from several starts of the
        # pass (5-6 drawing a 2 and 2-6 drawing a 5) is expanded once, its ways added
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
        return kernel.dealer_terms(  # type: ignore[no-any-return, unused-ignore]
            np.ascontiguousarray(all_counts[first]), summed.astype(np.int64),
            np.ascontiguousarray(unique[:, 1]), np.ascontiguousarray(unique[:, 2]),
            prepared.tables.radix, self.dealer.index_keys, self.dealer.index_vals,
            self.runs[chosen.table].wanted, self.tab, self.tab_f, modulus.p, modulus.q,
            modulus.r2, len(prepared.finals),
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
        len(run.counts),
    )  # fmt: skip
    return out, out_f, won


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
