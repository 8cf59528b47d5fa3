"""finnish27's hands walked rank by rank, with cards drawn with replacement.

finnish27's poker bonus needs every rank of a winning hand, so its hands are followed as
multisets of ranks, not as totals.  Each start is played to its end by one hit/stand
rule (a *lane*), and the hands that end are tallied (:class:`Finishes`): by their total;
those of four cards or fewer by their ranks, as their bonus may depend on the dealer's
cards; those of five or more by their poker award, counted over the suits
(:mod:`cardroom.games.finnish.poker_odds`); and the 27s by their number of cards, where
the table pays by it.  The rows of a hit/stand table are walked together, a lane each
(:func:`finishes_in_lanes`; with a Charlie, which needs a hand's number of cards,
:func:`finishes_by_cards_in_lanes`), and so are the dealer's hands where the player's
poker award is held against the dealer's.
:func:`~cardroom.games.finnish.analysis.analyze_finnish27` reads the tallies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from math import comb, lcm
from operator import mul
from typing import TypeVar

from cardroom.core.cards import RANK_ORDER, Rank
from cardroom.games.finnish.bonuses import CARD_27_KEYS
from cardroom.games.finnish.finnish27 import POKER_BONUS
from cardroom.games.finnish.hands import TARGET, Total, total_from, total_index, total_of
from cardroom.games.finnish.poker import PLAIN_POKER, PokerCategory, PokerRules
from cardroom.games.finnish.poker_odds import TABLE_JOKERS, counts_row, counts_tables
from cardroom.games.finnish.replacement import DrawOdds, Start

__all__ = ["CARDS_27", "Counts", "Finishes", "finishes_by_cards_in_lanes", "finishes_in_lanes"]


#: the ordinary ranks (not the Joker), in RANK_ORDER
_ORDINARY: tuple[Rank, ...] = tuple(r for r in RANK_ORDER if r is not Rank.JOKER)
_ACE_INDEX = _ORDINARY.index(Rank.ACE)

#: a hand's cards that are not Jokers, as a count per rank of :data:`_ORDINARY`
Counts = tuple[int, ...]


#: the numbers of cards a 27 may be paid by
CARDS_27: tuple[int, ...] = tuple(sorted(CARD_27_KEYS))


@dataclass
class Finishes:
    """Where the player's hands end, for one way of playing (one hit/stand row).

    ``mass`` is the chance of ending on each total; ``poker`` the chance of each
    poker bonus key among those hands (five cards or more); ``short`` the chance
    of each hand of four cards or fewer by its ranks (Jokers included), whose
    bonus may depend on the dealer's cards.  Every chance is joint with the
    player's start and excludes initial 27s.
    """

    mass: dict[Total, Fraction]
    poker: dict[Total, dict[str, Fraction]]
    short: dict[Total, dict[tuple[Rank, ...], Fraction]]
    #: hands of 27 (hard or soft) by their number of cards (six to nine, Jokers
    #: counted): the chance of each, and of each poker key among them (part of ``poker``)
    by_count: dict[Total, dict[int, Fraction]] = field(default_factory=dict)
    poker_by_count: dict[tuple[Total, int], dict[str, Fraction]] = field(default_factory=dict)
    #: with a Charlie: the hands that are one (each a win at once), apart
    charlie: Finishes | None = None


@cache
def _counts_total(counts: Counts) -> Total:
    low = sum(map(mul, counts, _NUMBERS))
    return total_from(low, counts[_ACE_INDEX] > 0)


#: the points of the ranks of :data:`_ORDINARY`
_NUMBERS: tuple[int, ...] = tuple(rank.number for rank in _ORDINARY)


@cache
def _counts_index(counts: Counts) -> int:
    """:func:`_counts_total` as a table index (:func:`total_index`)."""
    return total_index(_counts_total(counts))


def _first_level(starts: Mapping[Start, Fraction], unit: int) -> dict[tuple[Counts, int], int]:
    """The starts a hand is played from (no initial 27), as (ordinary cards per rank,
    Jokers) with their chances in whole ``1/unit``."""
    level: dict[tuple[Counts, int], int] = {}
    for start, p in starts.items():
        if start.kind is not None:
            continue
        held = [0] * len(_ORDINARY)
        for rank in start.ranks:
            if rank is not Rank.JOKER:
                held[_ORDINARY.index(rank)] += 1
        first = (tuple(held), start.ranks.count(Rank.JOKER))
        level[first] = level.get(first, 0) + int(p * unit)
    return level


#: the most hits a hand walked with replacement may take (a hit/stand rule that lets
#: a hand hit on past this is refused)
_MOST_HITS = 40


def finishes_in_lanes(
    odds: DrawOdds,
    lanes: _Lanes,
    by_count: bool = False,
    wild: bool = False,
    poker: PokerRules = PLAIN_POKER,
    bare: int = 0,
) -> list[Finishes]:
    """Play every start of each lane (its starts, and its hit/stand rule) to its end,
    tracking the ranks of the hand (and, with ``by_count``, the hands of 27 by their
    number of cards).  The last ``bare`` lanes (a dealer's hands, walked beside a
    player's) keep only where their hands end and the poker counts of those of five
    cards or more: not the ranks of the shorter ones, nor the 27s by their cards.

    With ``wild`` a Joker hit makes the hand 27 and ends it: a hand that took ``k``
    ordinary hits then holds no hit Joker (chance ``(1-pJ)**k``), and every hand
    still hitting ends as a 27 with one Joker more (``pJ`` of its chance).

    A Joker hit changes neither the total nor the ranks that are not Jokers, so
    the walk runs over ordinary cards only (each with its share of the ordinary
    cards) and the Jokers are put back afterwards: a hand that took ``k``
    ordinary hits holds ``j`` hit Jokers with the negative binomial chance
    ``C(k+j-1, j) pJ**j (1-pJ)**k``.  Weights are integers over a common
    denominator per number of hits, so the walk over some 10**5 rank
    multisets needs no fractions.

    The lanes are walked together: a hand's weight holds each lane's in its own
    ``width`` bits of one integer, so a hand several lanes reach (the rows of a
    hit/stand table share most of theirs) is followed once, and a lane that stands
    where another hits is masked off.  Every weight and tally is a sum of
    non-negative terms below ``start_unit * unit**k * 4**(k + 2)``, which the width
    holds, so no lane ever carries into the next.
    """
    p_joker = odds.joker
    ordinary = [odds.odds[RANK_ORDER.index(r)] / (1 - p_joker) for r in _ORDINARY]
    # (counts, Jokers in the start) -> packed integer weights, one level per ordinary hit
    most = _most_hits(lanes, [r.number for r in _ORDINARY], ordinary)
    unit, weights, start_unit, width, lane_bits, level = _packed(lanes, ordinary, most)
    # the bits of the lanes that keep the short hands' ranks and the 27s by their cards
    kept = sum(lane_bits[: len(lanes) - bare])

    # (total, hits, Jokers in the start, hit Jokers or -1 for "4 or more", category) ->
    # weight; totals as indices (value * 2 + soft: an int hashes far faster than a Total)
    poker_acc: dict[tuple[int, int, int, int, int], int] = {}
    short_acc: dict[tuple[int, int, int, tuple[Rank, ...]], int] = {}
    mass_acc: dict[tuple[int, int], int] = {}
    # hands of 27 of six to nine cards: (hits, hit Jokers) -> weight, and with a poker key
    count_acc: dict[tuple[int, int, int], int] = {}
    count_poker_acc: dict[tuple[int, int, int, int, int], int] = {}
    # with Jokers wild, the hands a Joker ended: (hits, ranks) -> weight
    wild_acc: dict[tuple[int, Counts], int] = {}
    # the hands that stand, by (total, hits, Jokers in the start, their table's id), all
    # and the 27s (of the lanes that keep them); the tables by id (they stay alive in
    # _TABLES, so an id stays one table's)
    by_table: dict[tuple[int, int, int, int], int] = {}
    by_table_27: dict[tuple[int, int, int, int], int] = {}
    held: dict[int, list[list[int]]] = {}
    # by total index: the bits of the lanes that hit there
    hitting: dict[int, int] = {}
    k = 0
    while level:
        if k > most:
            raise AssertionError(f"a hand took more than the {most} hits its lanes allow")
        nxt: dict[tuple[Counts, int], int] = {}
        # the hands that stand here in some lane: (counts, j0, total index, weight)
        standing: list[tuple[Counts, int, int, int]] = []
        for (counts, j0), w in level.items():
            ti = _counts_index(counts)
            hit = hitting.get(ti)
            if hit is None:
                hit = hitting[ti] = _hitting(lane_bits, lanes, _counts_total(counts))
            if hit:
                drawing = w & hit
                if drawing:
                    if wild:
                        wild_acc[(k, counts)] = wild_acc.get((k, counts), 0) + drawing
                    for i, step in enumerate(weights):
                        if step:
                            child = ((*counts[:i], counts[i] + 1, *counts[i + 1 :]), j0)
                            nxt[child] = nxt.get(child, 0) + drawing * step
                    w ^= drawing  # the lanes that stand here
                    if not w:
                        continue
            standing.append((counts, j0, ti, w))
        tables = _counts_tables((counts for counts, *_ in standing), poker)
        for counts, j0, ti, w in standing:
            mass_acc[(ti, k)] = mass_acc.get((ti, k), 0) + w
            wk = w & kept
            # hands of four cards or fewer with j hit Jokers (none without a hit), by ranks
            for j in range(4 if k else 1):
                if k + 2 + j > 4 or not wk:
                    break
                skey = (ti, k, j, _short_ranks(counts, j0 + j))
                short_acc[skey] = short_acc.get(skey, 0) + wk
            # the rest by their poker counts, summed first over the hands that share a table
            table = tables[counts]
            gkey = (ti, k, j0, id(table))
            by_table[gkey] = by_table.get(gkey, 0) + w
            if by_count and wk and ti // 2 == TARGET:
                by_table_27[gkey] = by_table_27.get(gkey, 0) + wk
            held[id(table)] = table
        level = nxt
        k += 1

    # the poker counts with each number of Jokers: row j of a table holds (category,
    # count) pairs, the categories by number here (their keys once, at the end); a start
    # holds two Jokers at most and a 27 is paid by up to nine cards, so no row is past
    # TABLE_JOKERS
    for (ti, k, j0, tid), w in by_table.items():
        table = held[tid]
        for j in range(4 if k else 1):
            if k + 2 + j <= 4:
                continue  # a short hand
            row = table[j0 + j]
            for at in (0, 2, 4):
                if _PAID[row[at]]:
                    pkey = (ti, k, j0, j, row[at])
                    poker_acc[pkey] = poker_acc.get(pkey, 0) + w * row[at + 1]
        if k:
            # four hit Jokers or more: whatever the suits (wild ones, or five bugs and
            # more, as many as four); bugs in the start make five at least
            many = ((4, 4), (-5, 5)) if poker.bug and not j0 else ((-1, 4 + j0),)
            for j, n_jokers in many:
                # (its row of the table: a straight flush round it, whatever the suits)
                category = table[n_jokers][0]
                if _PAID[category]:
                    pkey = (ti, k, j0, j, category)
                    poker_acc[pkey] = poker_acc.get(pkey, 0) + w * 4 ** (k + 2 - j0)
    for (ti, k, j0, tid), w in by_table_27.items():
        table = held[tid]
        for j in range(max(0, CARDS_27[0] - k - 2), CARDS_27[-1] - k - 1):
            count_acc[(ti, k, j)] = count_acc.get((ti, k, j), 0) + w
            row = table[j0 + j]
            for at in (0, 2, 4):
                if _PAID[row[at]]:
                    ckey = (ti, k, j0, j, row[at])
                    count_poker_acc[ckey] = count_poker_acc.get(ckey, 0) + w * row[at + 1]

    @cache
    def scale(k: int) -> Fraction:
        return Fraction(1, start_unit * unit**k)

    @cache
    def jokers(k: int, j: int) -> Fraction:
        """The chance of j hit Jokers (-1: four or more, -5: five or more) among k
        ordinary hits."""
        if wild:  # a Joker would have ended the hand
            return (1 - p_joker) ** k if j == 0 else Fraction(0)
        if j < 0:
            return 1 - sum((jokers(k, i) for i in range(-j if j < -1 else 4)), Fraction(0))
        return comb(k + j - 1, j) * p_joker**j * (1 - p_joker) ** k if k else Fraction(j == 0)

    @cache
    def factor(k: int, j: int, ordinary: int) -> Fraction:
        """A whole weight's chance after ``k`` ordinary hits and ``j`` hit Jokers, counted
        out of the ``4**ordinary`` ways of the cards' suits."""
        return scale(k) * jokers(k, j) * Fraction(1, 4**ordinary)

    count = len(lanes)
    tallies = (mass_acc, poker_acc, short_acc, count_acc, count_poker_acc, wild_acc)
    mass_l, poker_l, short_l, count_l, count_poker_l, wild_l = (
        _lanes_of(tally, count, width) for tally in tallies
    )

    def finishes(lane: int) -> Finishes:
        found = Finishes({}, {}, {})
        # (with Jokers wild, only the hands that drew no Joker end here)
        found.mass = _exact_sums(
            (total_of(ti), w, factor(k, 0, 0) if wild else scale(k))
            for (ti, k), w in mass_l[lane].items()
        )
        # the start held 2 - j0 ordinary cards: counts are out of 4**(ordinary cards)
        _add_into(
            found.poker,
            _exact_sums(
                ((total_of(ti), _BONUS[category]), w, factor(k, j, k + 2 - j0))
                for (ti, k, j0, j, category), w in poker_l[lane].items()
            ),
        )
        _add_into(
            found.short,
            _exact_sums(
                ((total_of(ti), ranks), w, factor(k, j, 0))
                for (ti, k, j, ranks), w in short_l[lane].items()
            ),
        )
        _add_into(
            found.by_count,
            _exact_sums(
                ((total_of(ti), k + 2 + j), w, factor(k, j, 0))
                for (ti, k, j), w in count_l[lane].items()
            ),
        )
        _add_into(
            found.poker_by_count,
            _exact_sums(
                (((total_of(ti), k + 2 + j), _BONUS[category]), w, factor(k, j, k + 2 - j0))
                for (ti, k, j0, j, category), w in count_poker_l[lane].items()
            ),
        )
        if wild_l[lane]:
            _wild_finishes(found, wild_l[lane], scale, p_joker, poker)
        if lane >= count - bare:  # (the hands a wild Joker ended brought theirs)
            found.short, found.by_count, found.poker_by_count = {}, {}, {}
        return found

    return [finishes(lane) for lane in range(count)]


_K = TypeVar("_K")

#: lanes of a walk: each its starts (with their chances) and its hit/stand rule
_Lanes = Sequence[tuple[Mapping[Start, Fraction], Callable[[Total], bool]]]


def _most_hits(lanes: _Lanes, numbers: Sequence[int], steps: Sequence[Fraction]) -> int:
    """The most ordinary hits a hand of these lanes can take (the ranks of ``numbers``
    dealt where their ``steps`` are not 0): the longest run of hands (their points with
    every Ace low, and whether they hold one) each lane's rule hits, from its starts,
    followed for all lanes at once (a bit each)."""
    level: dict[tuple[int, bool], int] = {}
    for lane, (starts, _) in enumerate(lanes):
        for start in starts:
            if start.kind is None:
                level[(start.low, start.ace)] = level.get((start.low, start.ace), 0) | 1 << lane
    dealt = [(n, n == 1) for n, q in zip(numbers, steps, strict=True) if q]
    bits_of = [1 << lane for lane in range(len(lanes))]
    hits = 0
    while True:
        nxt: dict[tuple[int, bool], int] = {}
        for (low, ace), bits in level.items():
            total = total_from(low, ace)
            hitting = bits & _hitting(bits_of, lanes, total)
            for n, is_ace in dealt if hitting else ():
                child = (low + n, ace or is_ace)
                nxt[child] = nxt.get(child, 0) | hitting
        if not nxt:
            return hits
        hits += 1
        if hits > _MOST_HITS:
            raise ValueError(f"hits: a hand would take more than {_MOST_HITS} hits")
        level = nxt


def _packed(
    lanes: _Lanes, steps: Sequence[Fraction], most: int
) -> tuple[int, list[int], int, int, list[int], dict[tuple[Counts, int], int]]:
    """A walk's set-up: the denominator ``unit`` of the steps' chances and each step's
    whole weight; the starts' denominator; a lane's width (every tally of a hand of up
    to ``most`` draws fits: below ``start_unit * unit**k * 4**(k + 2)``) and each lane's
    bits; the first level, each lane's weight in its bits."""
    unit = lcm(*(q.denominator for q in steps))
    weights = [int(q * unit) for q in steps]
    start_unit = lcm(*(p.denominator for starts, _ in lanes for p in starts.values()))
    width = start_unit.bit_length() + most * unit.bit_length() + 2 * most + 8
    lane_bits = [((1 << width) - 1) << width * lane for lane in range(len(lanes))]
    level: dict[tuple[Counts, int], int] = {}
    for lane, (starts, _) in enumerate(lanes):
        for first, w in _first_level(starts, start_unit).items():
            level[first] = level.get(first, 0) + (w << width * lane)
    return unit, weights, start_unit, width, lane_bits, level


_O = TypeVar("_O")
_I = TypeVar("_I")


def _add_into(table: dict[_O, dict[_I, Fraction]], sums: Mapping[tuple[_O, _I], Fraction]) -> None:
    """Add each (outer, inner) key's sum into a table of rows."""
    for (outer, inner), p in sums.items():
        row = table.setdefault(outer, {})
        row[inner] = row.get(inner, Fraction(0)) + p


def _hitting(lane_bits: Sequence[int], lanes: _Lanes, total: Total) -> int:
    """The bits of the lanes whose rule hits ``total``."""
    return sum(bits for bits, (_, hits) in zip(lane_bits, lanes, strict=True) if hits(total))


def _lanes_of(tally: Mapping[_K, int], count: int, width: int) -> list[dict[_K, int]]:
    """Each of ``count`` lanes' non-zero entries of a tally of packed weights, in one
    pass over the tally."""
    out: list[dict[_K, int]] = [{} for _ in range(count)]
    full = (1 << width) - 1
    for key, packed in tally.items():
        lane = 0
        while packed:
            w = packed & full
            if w:
                out[lane][key] = w
            packed >>= width
            lane += 1
    return out


def _exact_sums(terms: Iterable[tuple[_K, int, Fraction]]) -> dict[_K, Fraction]:
    """The sum of ``w * f`` for each key, worked in integers over one common denominator
    and made a fraction once per key (adding fractions term by term reduces each sum).
    The factors are told apart by identity: the list keeps each alive, so two live at
    once never share one."""
    listed = list(terms)
    if not listed:
        return {}
    common = lcm(*{f.denominator for _, _, f in listed})
    scaled: dict[int, int] = {}  # by the factor's identity (each comes from a cache)
    sums: dict[_K, int] = {}
    for key, w, f in listed:
        m = scaled.get(id(f))
        if m is None:
            m = scaled[id(f)] = f.numerator * (common // f.denominator)
        sums[key] = sums.get(key, 0) + w * m
    return {key: Fraction(v, common) for key, v in sums.items()}


def finishes_by_cards_in_lanes(
    odds: DrawOdds,
    lanes: _Lanes,
    charlie: int,
    wild: bool = False,
    poker: PokerRules = PLAIN_POKER,
) -> list[Finishes]:
    """:func:`finishes_in_lanes` where a hand of ``charlie`` cards of 27 or less wins
    at once (a Charlie): the hand's number of cards matters, so its Jokers are drawn one
    by one with the other cards (no hand passes ``charlie`` cards, so the walk ends).
    The Charlies are kept apart, in ``charlie``; the hands of 27 are kept by their
    number of cards as well.  With ``wild`` a Joker drawn makes the hand 27 at once.
    The lanes are packed into one integer per hand as there.
    """
    every = [odds.odds[RANK_ORDER.index(r)] for r in _ORDINARY] + [odds.joker]
    # (ordinary counts, Jokers held) -> packed integer weights, one level per card drawn
    # no hand draws once it holds ``charlie`` cards
    unit, weights, start_unit, width, lane_bits, level = _packed(lanes, every, charlie - 2)

    plain, charlies = _Tally(poker), _Tally(poker)
    # by total index: the bits of the lanes that hit there
    hitting: dict[int, int] = {}
    drawn = 0
    while level:
        if drawn > charlie - 2:
            raise AssertionError(f"a hand drew {drawn} cards, past a Charlie of {charlie}")
        nxt: dict[tuple[Counts, int], int] = {}
        # the hands that end here in some lane: (tally, total index, counts, Jokers, weight)
        ended: list[tuple[_Tally, int, Counts, int, int]] = []
        for (counts, jokers), w in level.items():
            cards = sum(counts) + jokers
            wild_27 = wild and drawn > 0 and jokers > 0
            ti = 2 * TARGET if wild_27 else _counts_index(counts)
            if cards == charlie and ti // 2 <= TARGET:
                ended.append((charlies, ti, counts, jokers, w))
                continue
            hit = 0
            if not wild_27 and cards < charlie:
                hit = hitting.get(ti, -1)
                if hit < 0:
                    hit = hitting[ti] = _hitting(lane_bits, lanes, _counts_total(counts))
            drawing = w & hit
            if drawing:
                for i, step in enumerate(weights):
                    if not step:
                        continue
                    if i == len(_ORDINARY):
                        child = (counts, jokers + 1)
                    else:
                        child = ((*counts[:i], counts[i] + 1, *counts[i + 1 :]), jokers)
                    nxt[child] = nxt.get(child, 0) + drawing * step
                w ^= drawing  # the lanes that stand here
            if w:
                ended.append((plain, ti, counts, jokers, w))
        _counts_tables((counts for _, _, counts, _, _ in ended), poker)  # a level at once
        for tally, ti, counts, jokers, w in ended:
            tally.add(ti, counts, jokers, w, drawn)
        level = nxt
        drawn += 1

    @cache
    def scale(drawn: int) -> Fraction:
        return Fraction(1, start_unit * unit**drawn)

    found = []
    for one, charlie_lane in zip(
        plain.lanes(len(lanes), width), charlies.lanes(len(lanes), width), strict=True
    ):
        finishes = one.finishes(scale)
        finishes.charlie = charlie_lane.finishes(scale)
        found.append(finishes)
    return found


class _Tally:
    """Finished hands in whole weights (over a common denominator per number of cards
    drawn), as :class:`Finishes` keeps them in fractions: by total (its index), by
    ranks (four cards or fewer), by poker key (five or more: counts of suit assignments
    over ``4**ordinary cards``), and a 27 by its number of cards."""

    def __init__(self, poker: PokerRules) -> None:
        self.poker_rules = poker
        self.mass: dict[tuple[int, int], int] = {}
        self.short: dict[tuple[int, int, tuple[Rank, ...]], int] = {}
        self.poker: dict[tuple[int, int, int, str], int] = {}
        self.by_count: dict[tuple[int, int, int], int] = {}
        self.poker_by_count: dict[tuple[int, int, int, int, str], int] = {}

    def add(self, ti: int, counts: Counts, jokers: int, w: int, drawn: int) -> None:
        key = (ti, drawn)
        self.mass[key] = self.mass.get(key, 0) + w
        ordinary = sum(counts)
        cards = ordinary + jokers
        if cards <= 4:
            short = (ti, drawn, _short_ranks(counts, jokers))
            self.short[short] = self.short.get(short, 0) + w
            return
        poker = self.poker_rules
        row = _poker_row(_counts_table(counts, poker), counts, jokers, poker)
        split = [(_BONUS[row[at]], row[at + 1]) for at in (0, 2, 4) if _PAID[row[at]]]
        for name, n in split:
            pkey = (ti, drawn, ordinary, name)
            self.poker[pkey] = self.poker.get(pkey, 0) + w * n
        if ti // 2 == TARGET and cards in CARDS_27:
            ckey = (ti, drawn, cards)
            self.by_count[ckey] = self.by_count.get(ckey, 0) + w
            for name, n in split:
                cpkey = (ti, drawn, ordinary, cards, name)
                self.poker_by_count[cpkey] = self.poker_by_count.get(cpkey, 0) + w * n

    def lanes(self, count: int, width: int) -> list[_Tally]:
        """Each lane's tallies, where the weights are packed (:func:`_lanes_of`)."""
        split = [_Tally(self.poker_rules) for _ in range(count)]
        for name in ("mass", "short", "poker", "by_count", "poker_by_count"):
            for one, part in zip(split, _lanes_of(getattr(self, name), count, width), strict=True):
                setattr(one, name, part)
        return split

    def finishes(self, scale: Callable[[int], Fraction], out: Finishes | None = None) -> Finishes:
        """The tallies as chances (``scale(drawn)``: one whole weight's chance), added
        to ``out`` if given."""
        out = out if out is not None else Finishes({}, {}, {})

        @cache
        def factor(drawn: int, ordinary: int) -> Fraction:
            return scale(drawn) * Fraction(1, 4**ordinary)

        for total, p in _exact_sums(
            (total_of(ti), w, factor(drawn, 0)) for (ti, drawn), w in self.mass.items()
        ).items():
            out.mass[total] = out.mass.get(total, Fraction(0)) + p
        _add_into(
            out.short,
            _exact_sums(
                ((total_of(ti), ranks), w, factor(drawn, 0))
                for (ti, drawn, ranks), w in self.short.items()
            ),
        )
        _add_into(
            out.poker,
            _exact_sums(
                ((total_of(ti), name), w, factor(drawn, ordinary))
                for (ti, drawn, ordinary, name), w in self.poker.items()
            ),
        )
        _add_into(
            out.by_count,
            _exact_sums(
                ((total_of(ti), cards), w, factor(drawn, 0))
                for (ti, drawn, cards), w in self.by_count.items()
            ),
        )
        _add_into(
            out.poker_by_count,
            _exact_sums(
                (((total_of(ti), cards), name), w, factor(drawn, ordinary))
                for (ti, drawn, ordinary, cards, name), w in self.poker_by_count.items()
            ),
        )
        return out


def _wild_finishes(
    finishes: Finishes,
    wild_acc: Mapping[tuple[int, Counts], int],
    scale: Callable[[int], Fraction],
    p_joker: Fraction,
    poker: PokerRules,
) -> None:
    """Add the hands a wild Joker ended (each a 27 of its ranks and one Joker) to
    ``finishes``: ``wild_acc`` has each hand still hitting after ``k`` ordinary hits
    (none of them a Joker), by its ranks."""
    tally = _Tally(poker)
    _counts_tables((counts for _, counts in wild_acc), poker)  # all at once
    for (k, counts), w in wild_acc.items():
        tally.add(2 * TARGET, counts, 1, w, k)
    tally.finishes(lambda k: scale(k) * (1 - p_joker) ** k * p_joker, finishes)


def _short_ranks(counts: Counts, jokers: int) -> tuple[Rank, ...]:
    ranks = tuple(r for r, n in zip(_ORDINARY, counts, strict=True) for _ in range(n))
    return _sorted(ranks + (Rank.JOKER,) * jokers)


def _by_value(counts: Counts) -> tuple[int, ...]:
    """The cards per poker value (as :func:`~cardroom.games.finnish.poker_odds.counts_by_value`
    gives them) of ranks counted in :data:`_ORDINARY`'s order: the Ace first (its value
    is 14), then Two to King."""
    return (0, 0, *counts[1:], counts[0])


#: by poker rules, each hand's poker counts with 0 to :data:`TABLE_JOKERS` Jokers (rows
#: of flat (category, count) pairs, :func:`~cardroom.games.finnish.poker_odds.counts_table`),
#: by its ranks: worked out a level of a walk at a time
_TABLES: dict[PokerRules, dict[Counts, list[list[int]]]] = {}


def _counts_tables(hands: Iterable[Counts], poker: PokerRules) -> dict[Counts, list[list[int]]]:
    """The tables of :data:`_TABLES` under ``poker``, with those of ``hands`` that were
    missing worked out in one compiled call."""
    known = _TABLES.setdefault(poker, {})
    missing = [hand for hand in dict.fromkeys(hands) if hand not in known]
    if missing:
        worked = counts_tables([_by_value(hand) for hand in missing], poker)
        known.update(zip(missing, worked, strict=True))
    return known


def _counts_table(counts: Counts, poker: PokerRules) -> list[list[int]]:
    """One hand's table of :data:`_TABLES` (the walks fill a level's at once first)."""
    table = _TABLES.get(poker, {}).get(counts)
    return table if table is not None else _counts_tables((counts,), poker)[counts]


def _poker_row(table: list[list[int]], counts: Counts, jokers: int, poker: PokerRules) -> list[int]:
    """Row ``jokers`` of a hand's table (:data:`_TABLES`; worked out on its own beyond
    it)."""
    if jokers <= TABLE_JOKERS:
        return table[jokers]
    return counts_row(_by_value(counts), jokers, poker)


#: by category number: its poker bonus key ("" for a high card), and whether it earns
#: one (read at -1 and -2 too: no category, none)
_BONUS: tuple[str, ...] = tuple(POKER_BONUS.get(c, "") for c in PokerCategory)
_PAID: tuple[bool, ...] = (*(c in POKER_BONUS for c in PokerCategory), False, False)


def _sorted(ranks: tuple[Rank, ...]) -> tuple[Rank, ...]:
    return tuple(sorted(ranks, key=RANK_ORDER.index))
