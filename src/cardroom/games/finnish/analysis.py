"""Exact analysis of the two Finnish 27 games, with cards drawn with replacement.

**The model.**  Every card is drawn from the full shoe *with replacement*: each
rank comes with its share of the shoe (6 decks of 54: 2/27 for each of the 13
ranks, 1/27 for the Joker) whatever was dealt before, and each suit is equally
likely.  This is the "infinite shoe" of blackjack analysis.  Under it a hand's
future depends only on its total, so the analysis is an exact recursion over
totals, in fractions (a few seconds; finnish27's poker bonus, which needs the
ranks of long hands, takes longer, see below).  It is *not* the finite
324-card shoe: removing dealt cards shifts the odds slightly (the difference to
the published 6-deck figures is in the second decimal of a percent, see the
tests and the README).  An exact finite-shoe analysis of these games is not
built: their hands are long (Jokers count 0, Aces 1), and the coupling of the
two hands through the cards they share makes the exact sum far too large for
the engine walk.

**One source of rules.**  Totals come from :func:`~cardroom.games.finnish.hands.total_from`,
the player's play from the rules' own table (:class:`~cardroom.games.finnish.hands.TargetTable`)
or forced-play rules, the comparison of final hands from each game's ``compare``,
the bonuses of hands of up to four cards from :func:`~cardroom.games.finnish.finnish27.find_bonus`
applied to every suit assignment, and the poker categories of longer hands from
:mod:`cardroom.games.finnish.poker_odds` (counted over suits, checked against the
game's evaluator).  The order of events (initial 27s, the player's hand, the
dealer's draw) is re-expressed here, so the tests check these figures, every
bonus line included, against the generic walk of the engine itself
(:mod:`cardroom.games.walk`, run with replacement) on reduced shoes.

**A Joker drawn as a hit** counts 0: the hand's total does not change, so for
the dealer (and for 21-24-27's player) it is a loop back to the same state,
summed exactly as a geometric series.  finnish27's player hand is followed rank
by rank (its poker bonus needs every rank), over about 70,000 distinct rank
multisets; its hit Jokers are put back afterwards with their negative binomial
chance, since they change neither the total nor the other ranks.

>>> from cardroom.analysis.report import decimal_text
>>> report = analyze_21_24_27()
>>> decimal_text(report.wagers["player"].house_edge, 6)
'0.010188'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from itertools import product
from math import comb, lcm
from operator import mul
from typing import Any, TypeVar

from cardroom.analysis.report import GameReport, Line, WagerReport, decimal_text, fraction_text
from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.core.money import format_odds
from cardroom.core.shoe import ShoeRules
from cardroom.games.base import Action
from cardroom.games.finnish.bonuses import CARD_27_KEYS
from cardroom.games.finnish.finnish27 import (
    POKER_BONUS,
    POKER_CATEGORY,
    BonusTable,
    Finnish27Rules,
    find_bonus,
    pays_joanca,
)
from cardroom.games.finnish.finnish27 import compare as compare27
from cardroom.games.finnish.hands import (
    TARGET,
    Initial27,
    Total,
    dealer_limit,
    initial_27,
    total_from,
    total_index,
    total_of,
)
from cardroom.games.finnish.options import fee_assumption, fee_of, fee_scale
from cardroom.games.finnish.poker import (
    PLAIN_POKER,
    PokerCategory,
    PokerRules,
)
from cardroom.games.finnish.poker_odds import TABLE_JOKERS, counts_row, counts_tables
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124

__all__ = [
    "DrawOdds",
    "StrategyCell",
    "TwentyOneStrategy",
    "analyze_21_24_27",
    "analyze_finnish27",
    "best_finnish27_table",
    "effects_of_removal",
    "finnish27_comparison",
    "finnish27_report",
    "solve_21_24_27",
    "strategy_comparison",
    "summarise",
    "table_hits",
    "twentyone_report",
]

MODEL = (
    "cards drawn with replacement (an infinite shoe): each rank has its share of the "
    "full shoe whatever was dealt; not the finite shoe"
)

Hits = Callable[[Total, Total], bool]


# -- the odds of a card ---------------------------------------------------------
@dataclass(frozen=True)
class DrawOdds:
    """The chance of each rank, from a shoe's make-up (drawn with replacement)."""

    odds: tuple[Fraction, ...]  # in RANK_ORDER

    @classmethod
    def of_shoe(cls, shoe: ShoeRules) -> DrawOdds:
        return cls.of_counts(shoe.rank_counts())

    @classmethod
    def of_counts(cls, counts: Mapping[Rank, int]) -> DrawOdds:
        total = sum(counts.values())
        if total <= 0:
            raise ValueError("shoe: it holds no cards")
        return cls(tuple(Fraction(counts.get(rank, 0), total) for rank in RANK_ORDER))

    def ranks(self) -> Iterator[tuple[Rank, Fraction]]:
        for rank, p in zip(RANK_ORDER, self.odds, strict=True):
            if p:
                yield rank, p

    @property
    def joker(self) -> Fraction:
        return self.odds[RANK_ORDER.index(Rank.JOKER)]

    def points(self) -> Iterator[tuple[int, bool, Fraction]]:
        """(points, is an Ace, chance) of each rank that is not a Joker."""
        for rank, p in self.ranks():
            if rank is not Rank.JOKER:
                yield rank.number, rank is Rank.ACE, p


SUITS: tuple[Suit, ...] = tuple(Suit)


def _card(rank: Rank, suit_index: int = 0) -> Card:
    return JOKER if rank is Rank.JOKER else Card(rank, SUITS[suit_index])


def _geometric(stay: Fraction) -> Fraction:
    """1 / (1 - stay): the weight of a state that loops back to itself."""
    if stay >= 1:
        raise ValueError("shoe: a hand that only draws Jokers never ends")
    return 1 / (1 - stay)


# -- the dealer's hand ----------------------------------------------------------
class DealerDraw:
    """The dealer's final totals from each two-card start (memoised)."""

    def __init__(
        self, odds: DrawOdds, hard_below: int, soft_below: int, wild: bool = False
    ) -> None:
        self.odds = odds
        self.hard_below = hard_below
        self.soft_below = soft_below
        #: a Joker drawn makes the hand 27 and ends it (else it passes, counting 0)
        self.wild = wild
        self.memo: dict[tuple[int, bool], dict[Total, Fraction]] = {}

    def finals(self, low: int, ace: bool) -> dict[Total, Fraction]:
        key = (low, ace)
        known = self.memo.get(key)
        if known is not None:
            return known
        total = total_from(low, ace)
        limit = self.soft_below if total.soft else self.hard_below
        result: dict[Total, Fraction] = {}
        if total.value >= limit:
            result[total] = Fraction(1)
        else:
            loop = _geometric(self.odds.joker)
            if self.wild and self.odds.joker:
                loop = Fraction(1)
                result[Total(TARGET, False)] = self.odds.joker
            for points, is_ace, p in self.odds.points():
                for final, q in self.finals(low + points, ace or is_ace).items():
                    result[final] = result.get(final, Fraction(0)) + p * q * loop
        self.memo[key] = result
        return result


def _showdowns(
    dealer_draw: DealerDraw, label: Callable[[Total, Total], str]
) -> Callable[[Start, Total], dict[str, Fraction]]:
    """The chance of each ``label(player, dealer's final total)`` of a finished player
    total against a dealer's start, memoised on the dealer's total and the player's."""
    memo: dict[tuple[int, bool, Total], dict[str, Fraction]] = {}

    def showdown(dealer: Start, player: Total) -> dict[str, Fraction]:
        key = (dealer.low, dealer.ace, player)
        known = memo.get(key)
        if known is None:
            known = {}
            for final, r in dealer_draw.finals(dealer.low, dealer.ace).items():
                name = label(player, final)
                known[name] = known.get(name, Fraction(0)) + r
            memo[key] = known
        return known

    return showdown


@dataclass(frozen=True)
class Start:
    """One two-card start of a hand: an initial 27 or a total, and its ranks."""

    kind: Initial27 | None
    low: int
    ace: bool
    ranks: tuple[Rank, Rank]

    @property
    def total(self) -> Total:
        return total_from(self.low, self.ace)


def _starts(
    odds: DrawOdds, counted: frozenset[Initial27], joker_second: bool = False
) -> dict[Start, Fraction]:
    """Every two-card start (in dealing order) and its chance."""
    starts: dict[Start, Fraction] = {}
    for (a, pa), (b, pb) in product(list(odds.ranks()), repeat=2):
        cards = [_card(a), _card(b)]
        kind = initial_27(cards, counted, joker_second)
        low = a.number + b.number
        start = Start(kind, low, Rank.ACE in (a, b), (a, b) if a.number <= b.number else (b, a))
        starts[start] = starts.get(start, Fraction(0)) + pa * pb
    return starts


# -- finnish27 ------------------------------------------------------------------
#: the ordinary ranks (not the Joker), in RANK_ORDER
_ORDINARY: tuple[Rank, ...] = tuple(r for r in RANK_ORDER if r is not Rank.JOKER)
_ACE_INDEX = _ORDINARY.index(Rank.ACE)

#: a hand's cards that are not Jokers, as a count per rank of :data:`_ORDINARY`
Counts = tuple[int, ...]


#: the numbers of cards a 27 may be paid by
CARDS_27: tuple[int, ...] = tuple(sorted(CARD_27_KEYS))


@dataclass
class _Finishes:
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
    charlie: _Finishes | None = None


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


def _finishes_in_lanes(
    odds: DrawOdds,
    lanes: _Lanes,
    by_count: bool = False,
    wild: bool = False,
    poker: PokerRules = PLAIN_POKER,
    bare: int = 0,
) -> list[_Finishes]:
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

    def finishes(lane: int) -> _Finishes:
        found = _Finishes({}, {}, {})
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


def _finishes_by_cards_in_lanes(
    odds: DrawOdds,
    lanes: _Lanes,
    charlie: int,
    wild: bool = False,
    poker: PokerRules = PLAIN_POKER,
) -> list[_Finishes]:
    """:func:`_finishes_in_lanes` where a hand of ``charlie`` cards of 27 or less wins
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
    drawn), as :class:`_Finishes` keeps them in fractions: by total (its index), by
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

    def finishes(self, scale: Callable[[int], Fraction], out: _Finishes | None = None) -> _Finishes:
        """The tallies as chances (``scale(drawn)``: one whole weight's chance), added
        to ``out`` if given."""
        out = out if out is not None else _Finishes({}, {}, {})

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
    finishes: _Finishes,
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


def _dealer_lanes(
    starts: Mapping[Start, Mapping[Start, Fraction]], rules: Finnish27Rules
) -> list[tuple[Mapping[Start, Fraction], Callable[[Total], bool]]]:
    """The dealer's hands as lanes of a walk, one per dealer's start (merged by total:
    the two-card starts it stands for, with their chances given it), each drawn by
    the dealer's limits."""

    def hits(total: Total) -> bool:
        return total.value < dealer_limit(rules, total)

    return [(pairs, hits) for pairs in starts.values()]


def _dealer_places(
    starts: Iterable[Start], walked: Iterable[_Finishes], poker: PokerRules
) -> dict[Start, dict[Total, dict[int, Fraction]]]:
    """For each dealer's start, from the walk of its lane (:func:`_dealer_lanes`), the
    dealer's final totals, each split by the place in the table's order of the best
    poker category the final hand holds (0: none, and always for four cards or
    fewer)."""
    found: dict[Start, dict[Total, dict[int, Fraction]]] = {}
    for dealer, finishes in zip(starts, walked, strict=True):
        places = found[dealer] = {}
        for total, mass in finishes.mass.items():
            row = places.setdefault(total, {0: mass})
            for key, q in finishes.poker.get(total, {}).items():
                place = poker.ranking[POKER_CATEGORY[key]]
                row[place] = row.get(place, Fraction(0)) + q
                row[0] -= q
    return found


def _against(play: Hits, dealer: Total) -> Callable[[Total], bool]:
    def hits(total: Total) -> bool:
        return play(total, dealer)

    return hits


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


@cache
def _bonus_split(
    ranks: tuple[Rank, ...],
    dealer_ranks: tuple[Rank, ...],
    joanca: bool = False,
    nines_by_suit: bool = False,
) -> dict[str | None, Fraction]:
    """The chance of each bonus of a winning hand of these ranks, over its cards' suits."""
    dealer = [_card(r) for r in dealer_ranks]
    options = [
        [JOKER] if rank is Rank.JOKER else [_card(rank, s) for s in range(len(SUITS))]
        for rank in ranks
    ]
    counts: dict[str | None, int] = {}
    for cards in product(*options):
        key = find_bonus(list(cards), dealer, joanca, nines_by_suit)
        counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    return {key: Fraction(n, total) for key, n in counts.items()}


def _short_bonus(
    ranks: tuple[Rank, ...],
    dealer_ranks: tuple[Rank, Rank],
    joanca: bool = False,
    nines_by_suit: bool = False,
) -> dict[str | None, Fraction]:
    """:func:`_bonus_split`, asking about the dealer's cards only where it can matter.

    The dealer's cards only ever change a bonus the hand earns (9-9-9 against the
    dealer's 9-9), so a hand that earns none against no dealer cards earns none.
    """
    alone = _bonus_split(ranks, (), joanca, nines_by_suit)
    if alone.keys() == {None}:
        return alone
    return _bonus_split(ranks, dealer_ranks, joanca, nines_by_suit)


def analyze_finnish27(
    rules: Finnish27Rules | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
    hits: Hits | None = None,
    odds: DrawOdds | None = None,
    label: str | None = None,
) -> GameReport:
    """Exact outcomes and wagers of finnish27 (cards drawn with replacement).

    ``table_minimum`` and ``stake`` weigh the flat 9-9-9 awards (default: the rules'
    table minimum and a stake of that size); ``hits`` replaces the player's table
    (``label`` names it; by default the rules' table, by its rows).
    """
    rules = rules or Finnish27Rules()
    label = label or f"the rules' {rules.table_name}"
    minimum = Fraction(table_minimum if table_minimum is not None else rules.table.minimum)
    stake = Fraction(stake if stake is not None else minimum)
    if minimum <= 0 or stake <= 0:
        raise ValueError("stake: the table minimum and the stake must be positive")
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    play = hits or rules.strategy.hits
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    starts = _starts(odds, rules.initial_27s, rules.joanca_joker_second)

    # (outcome, bonus key or None) -> chance
    results: dict[tuple[str, str | None], Fraction] = {}

    def add(outcome: str, bonus: str | None, p: Fraction) -> None:
        if p:
            results[(outcome, bonus)] = results.get((outcome, bonus), Fraction(0)) + p

    joanca, by_suit = pays_joanca(rules), rules.bonus.nines_vs_dealer_by_suit
    dealers = _by_total(starts)
    dealer_ranks: dict[Start, dict[tuple[Rank, Rank], Fraction]] = {}
    for start, p in starts.items():
        merged = dealer_ranks.setdefault(_merged(start), {})
        merged[start.ranks] = merged.get(start.ranks, Fraction(0)) + p / dealers[_merged(start)]

    def short_wins(
        ranks: tuple[Rank, ...], dealer: Start, p: Fraction, initial: bool = False
    ) -> None:
        # only an initial 27 is a Joanca (a Joker first may be a total of two cards)
        if _bonus_split(ranks, (), joanca and initial, by_suit).keys() == {None}:
            add("player", None, p)  # no bonus whatever the dealer's cards (their chances add to 1)
            return
        for pair, w in dealer_ranks[dealer].items():
            for key, q in _short_bonus(ranks, pair, joanca and initial, by_suit).items():
                add("player", key, p * w * q)

    against_dealer = _showdowns(
        dealer_draw, lambda player, final: compare27(player, final, rules)[0]
    )

    def showdown(dealer: Start, player: Total) -> dict[str, Fraction]:
        if player.value == TARGET and rules.both_27 == "by_rules":
            return {"player": Fraction(1)}
        if player.value > rules.player_loses_over:
            return {"dealer": Fraction(1)}
        return against_dealer(dealer, player)

    # the player's poker award held against the dealer's final hand: the dealer's finals
    # by the place of their best category, per dealer's start (merged by total)
    against_poker = rules.bonus.poker_against_dealer != "ignored"
    # every dealer's start that plays on, the two-card starts it stands for by chance
    played = {
        merged: {s: p / dealers[merged] for s, p in starts.items() if _merged(s) == merged}
        for merged in dealers
        if merged.kind is None
    }
    places: dict[Start, dict[Total, dict[int, Fraction]]] = {}
    paid_wins: dict[tuple[Start, Total, int], Fraction] = {}

    def poker_win(dealer: Start, player: Total, key: str) -> Fraction:
        """The chance that ``player`` wins against ``dealer``'s final hand with a
        poker award ``key`` the table pays against it (given the dealer's start)."""
        place = rules.bonus.ranking[POKER_CATEGORY[key]]
        known = paid_wins.get((dealer, player, place))
        if known is not None:
            return known
        known = Fraction(0)
        for final, row in places[dealer].items():
            if compare27(player, final, rules)[0] == "player":
                known += sum(
                    (q for theirs, q in row.items() if rules.bonus.outranks(place, theirs)),
                    Fraction(0),
                )
        paid_wins[(dealer, player, place)] = known
        return known

    def won(
        finishes: _Finishes,
        total: Total,
        mass: Fraction,
        win: Fraction,
        dealer: Start,
        dealer_plays: Fraction | None = None,
    ) -> None:
        """The hands of ``finishes`` ending on ``total`` (``mass``) win with chance
        ``win``: each with its bonus.  ``dealer_plays``: the chance of the dealer's
        start where the dealer's hand is played out (and may stop a poker award)."""
        plain = mass
        poker = dict(finishes.poker.get(total, {}))
        # 27s paid by their number of cards, not by poker
        for n, q in finishes.by_count.get(total, {}).items():
            key = rules.bonus.card_award(n, total.value)
            if key is None:
                continue
            add("player", key, win * q)
            plain -= q
            for name, part in finishes.poker_by_count.get((total, n), {}).items():
                poker[name] -= part
        for key, q in poker.items():
            if rules.bonus.poker_award(key, total.value) is None:
                continue  # below the least category paid, or a hand that does not qualify
            paid = win
            if against_poker and dealer_plays is not None:
                paid = dealer_plays * poker_win(dealer, total, key)
                add("player", None, (win - paid) * q)
            add("player", key, paid * q)
            plain -= q
        for ranks, q in finishes.short.get(total, {}).items():
            short_wins(ranks, dealer, win * q)
            plain -= q
        add("player", None, win * plain)

    poker = rules.bonus.poker_rules
    # the player's finishes, once per distinct row of the hit/stand table
    totals = [total_from(low, ace) for low in range(60) for ace in (False, True) if low or not ace]
    # each distinct row's rule, by the first dealer's start that plays it
    row_rules: dict[tuple[bool, ...], Callable[[Total], bool]] = {}
    row_of: dict[Start, tuple[bool, ...]] = {}
    for dealer in dealers:
        if dealer.kind is not None:
            continue
        row = row_of[dealer] = tuple(play(total, dealer.total) for total in totals)
        if row not in row_rules:
            row_rules[row] = _against(play, dealer.total)
    # the rows walked together (they share most of their hands), and where the poker
    # award is held against the dealer's hand, the dealer's hands beside them
    lanes = [(starts, against) for against in row_rules.values()]
    dealer_lanes = _dealer_lanes(played, rules) if against_poker else []
    if rules.charlie:
        walked = _finishes_by_cards_in_lanes(odds, lanes, rules.charlie, rules.jokers_wild, poker)
        theirs = (
            _finishes_in_lanes(
                odds, dealer_lanes, False, rules.jokers_wild, poker, bare=len(dealer_lanes)
            )
            if dealer_lanes
            else []
        )
    else:
        walked = _finishes_in_lanes(
            odds, lanes + dealer_lanes, rules.bonus.card_27s, rules.jokers_wild, poker,
            bare=len(dealer_lanes),
        )  # fmt: skip
        walked, theirs = walked[: len(lanes)], walked[len(lanes) :]
    if against_poker:
        places.update(_dealer_places(played, theirs, poker))
    rows = dict(zip(row_rules, walked, strict=True))
    finishes_of = {dealer: rows[row] for dealer, row in row_of.items()}

    for dealer, pd in dealers.items():
        for player, pp in starts.items():
            if player.kind is None and dealer.kind is None:
                continue
            p = pp * pd
            if player.kind and (
                dealer.kind is None or player.kind > dealer.kind or rules.player_initial_27_wins
            ):
                short_wins(player.ranks, dealer, p, initial=True)
            elif player.kind and player.kind == dealer.kind:
                add(rules.equal_initial_27s, None, p)
            else:
                add("dealer", None, p)
        if dealer.kind is not None:
            continue
        finishes = finishes_of[dealer]
        for total, mass in finishes.mass.items():
            for outcome, r in showdown(dealer, total).items():
                if outcome != "player":
                    add(outcome, None, pd * mass * r)
                    continue
                at_once = total.value == TARGET and rules.both_27 == "by_rules"
                won(finishes, total, mass, pd * r, dealer, None if at_once else pd)
        if finishes.charlie is not None:  # each a win at once
            for total, mass in finishes.charlie.mass.items():
                won(finishes.charlie, total, mass, pd, dealer)
    return _finnish27_report(rules, results, minimum, stake, label)


def finnish27_report(
    rules: Finnish27Rules,
    results: Mapping[tuple[str, str | None], Fraction],
    minimum: Fraction,
    stake: Fraction,
    label: str,
) -> GameReport:
    """finnish27's report from the chance of each (outcome, bonus key or None): the
    lines of every wager (also read by the finite-shoe analysis,
    :mod:`cardroom.games.finnish.shoe`, which replaces the model line)."""
    return _finnish27_report(rules, results, minimum, stake, label)


def _finnish27_report(
    rules: Finnish27Rules,
    results: Mapping[tuple[str, str | None], Fraction],
    minimum: Fraction,
    stake: Fraction,
    label: str,
) -> GameReport:
    outcomes = {name: Fraction(0) for name in ("player", "dealer", "push")}
    for (outcome, _), p in results.items():
        outcomes[outcome] += p
    paid = fee_scale(rules.fee_per_100)
    played = stake - fee_of(rules.fee_per_100, stake)
    player_lines = [
        Line("win (no bonus)", results.get(("player", None), Fraction(0)), paid(rules.player_pays))
    ]
    for key in BonusTable.LABELS:
        if not rules.bonus.pays(key):
            continue  # no such line at a table without the award
        p = results.get(("player", key), Fraction(0))
        net = rules.player_pays + rules.bonus.amount(key, played, minimum) / played
        player_lines.append(Line(f"win + {rules.bonus.describe(key)}", p, paid(net)))
    player_lines += [
        Line("push", outcomes["push"], paid(Fraction(0))),
        Line("loss", outcomes["dealer"], Fraction(-1)),
    ]
    wagers = {
        "player": WagerReport("player", tuple(player_lines)),
        "dealer": WagerReport(
            "dealer",
            (
                Line(
                    f"dealer wins, pays {format_odds(rules.dealer_pays)}",
                    outcomes["dealer"],
                    paid(rules.dealer_pays),
                ),
                Line("push", outcomes["push"], paid(Fraction(0))),
                Line("player wins", outcomes["player"], Fraction(-1)),
            ),
        ),
        "push": WagerReport(
            "push",
            (
                Line(
                    f"push, pays {format_odds(rules.push_pays)}",
                    outcomes["push"],
                    paid(rules.push_pays),
                ),
                Line("no push", 1 - outcomes["push"], Fraction(-1)),
            ),
        ),
    }
    assumptions = (
        MODEL,
        f"the player's hand follows {label}",
        f"{_flat_words(rules.bonus)} weighed at a table minimum of {minimum} and a stake of "
        f"{stake}",
        *fee_assumption(rules.fee_per_100),
    )
    return GameReport("finnish27", outcomes, wagers, assumptions, replacement=True)


def _flat_words(bonus: BonusTable) -> str:
    """The flat awards, as the assumption about the table minimum names them."""
    if set(bonus.flat) == BonusTable.FLAT:
        return "flat 9-9-9 awards"
    if not bonus.flat:
        return "no flat awards (every bonus is odds on the stake),"
    return "flat awards (" + ", ".join(BonusTable.LABELS[key] for key in bonus.flat) + ")"


def best_finnish27_table(
    rules: Finnish27Rules | None = None, odds: DrawOdds | None = None
) -> dict[Total, dict[Total, bool]]:
    """The hit/stand table that maximises the player wager's even-money return.

    For each dealer's two-card total, whether the player should hit each of its own
    totals below 27 (bonuses aside: they depend on the cards, not the total).  Where
    hitting and standing are worth exactly the same, the rules' own decision is kept.
    """
    rules = rules or Finnish27Rules()
    if rules.charlie:
        raise ValueError(
            "charlie: the best table is worked out from the totals alone, and a Charlie "
            "depends on the hand's number of cards as well"
        )
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    given = rules.strategy.hits
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    table: dict[Total, dict[Total, bool]] = {}
    for start in _starts(odds, rules.initial_27s, rules.joanca_joker_second):
        if start.kind is not None or start.total in table:
            continue
        finals = dealer_draw.finals(start.low, start.ace)
        decisions: dict[Total, bool] = {}
        memo: dict[tuple[int, bool], Fraction] = {}

        def stand(total: Total, finals: Mapping[Total, Fraction] = finals) -> Fraction:
            if total.value == TARGET and rules.both_27 == "by_rules":
                return rules.player_pays
            if total.value > rules.player_loses_over:
                return Fraction(-1)
            value = Fraction(0)
            for final, r in finals.items():
                outcome, _ = compare27(total, final, rules)
                value += r * {"player": rules.player_pays, "push": Fraction(0)}.get(
                    outcome, Fraction(-1)
                )
            return value

        def best(
            low: int,
            ace: bool,
            decisions: dict[Total, bool] = decisions,
            memo: dict[tuple[int, bool], Fraction] = memo,
            dealer: Total = start.total,
        ) -> Fraction:
            known = memo.get((low, ace))
            if known is not None:
                return known
            total = total_from(low, ace)
            value = stand(total)
            if total.value < TARGET:
                hit = Fraction(0)
                for points, is_ace, p in odds.points():
                    hit += p * best(low + points, ace or is_ace)
                if rules.jokers_wild:  # a Joker makes 27 and stops the hand
                    hit += odds.joker * stand(Total(TARGET, False))
                else:  # a Joker passes
                    hit *= _geometric(odds.joker)
                # an exact tie keeps the rules' own decision
                decisions[total] = hit > value or (hit == value and given(total, dealer))
                value = max(value, hit)
            memo[(low, ace)] = value
            return value

        for low in range(0, 2 * 13 + 1):
            for ace in (False, True):
                if ace and low < 1:
                    continue
                best(low, ace)
        table[start.total] = decisions
    return table


def table_hits(table: Mapping[Total, Mapping[Total, bool]]) -> Hits:
    """A :data:`Hits` policy from a table of decisions."""

    def hits(player: Total, dealer: Total) -> bool:
        return table[dealer].get(player, False)

    return hits


# -- effects of removal ------------------------------------------------------------
def effects_of_removal(
    shoe: ShoeRules, analyze: Callable[[DrawOdds], GameReport]
) -> dict[str, dict[Rank, Fraction]]:
    """Wager -> rank -> change in expected return per unit staked when one card of
    that rank leaves the full shoe, **in the model with replacement**: each analysis
    draws with replacement from the shoe's proportions, before and after the card
    is taken out.  The player's play stays as it was (``analyze`` fixes it).

    This is the first-order effect a card counter uses; it is not the finite-shoe
    effect (which needs the finite-shoe analysis this module does not build).
    """
    counts = shoe.rank_counts()
    base = analyze(DrawOdds.of_counts(counts))
    result: dict[str, dict[Rank, Fraction]] = {wager: {} for wager in base.wagers}
    for rank in RANK_ORDER:
        if not counts[rank]:
            continue
        after = analyze(DrawOdds.of_counts({**counts, rank: counts[rank] - 1}))
        for wager, report in base.wagers.items():
            result[wager][rank] = report.house_edge - after.wagers[wager].house_edge
    return result


# -- 21-24-27 -------------------------------------------------------------------
@dataclass(frozen=True)
class StrategyCell:
    """One decision of the player: the values of standing and hitting, and the choice."""

    player: Total
    dealer: Total
    stand: Fraction
    hit: Fraction | None  # None where the player must stand
    forced: Action | None
    choice: Action

    @property
    def free(self) -> bool:
        return self.forced is None


@dataclass(frozen=True)
class TwentyOneStrategy:
    """The exact solution of 21-24-27's hit/stand decisions (with replacement)."""

    cells: tuple[StrategyCell, ...]

    def decisions(self) -> dict[tuple[Total, Total], Action]:
        return {(c.player, c.dealer): c.choice for c in self.cells}

    def hits(self, player: Total, dealer: Total) -> bool:
        return (player, dealer) in self._hitting

    @cached_property
    def _hitting(self) -> frozenset[tuple[Total, Total]]:
        return frozenset((c.player, c.dealer) for c in self.cells if c.choice is Action.HIT)

    def free_cells(self, dealer: Total) -> list[StrategyCell]:
        return [c for c in self.cells if c.dealer == dealer and c.free]


def _forced(rules: TwentyOne2427Rules, player: Total, dealer: Total) -> Action | None:
    if player.bust:
        return Action.STAND
    action, _ = rules.forced.forced(player, dealer)
    return action


def _net2124(rules: TwentyOne2427Rules, outcome: str) -> Fraction:
    return {"player": rules.win_pays, "push": Fraction(0)}.get(outcome, Fraction(-1))


def _stand_2124(
    rules: TwentyOne2427Rules, player: Total, finals: Mapping[Total, Fraction]
) -> Fraction:
    if player.bust:
        return Fraction(-1)
    value = Fraction(0)
    for final, r in finals.items():
        value += r * _net2124(rules, compare2124(player, final, rules)[0])
    return value


def solve_21_24_27(
    rules: TwentyOne2427Rules | None = None, odds: DrawOdds | None = None
) -> TwentyOneStrategy:
    """The player's best decision for every total against every dealer's two-card total.

    With cards drawn with replacement a hand's future depends on its total only, so
    this total-dependent strategy is also the best composition-dependent one.
    """
    rules = rules or TwentyOne2427Rules()
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    cells: list[StrategyCell] = []
    seen: set[Total] = set()
    for start in _starts(odds, rules.initial_27s, rules.joanca_joker_second):
        if start.kind is not None or start.total in seen:
            continue
        dealer = start.total
        seen.add(dealer)
        finals = dealer_draw.finals(start.low, start.ace)
        memo: dict[tuple[int, bool], Fraction] = {}

        def value(
            low: int,
            ace: bool,
            dealer: Total = dealer,
            finals: Mapping[Total, Fraction] = finals,
            memo: dict[tuple[int, bool], Fraction] = memo,
        ) -> Fraction:
            known = memo.get((low, ace))
            if known is not None:
                return known
            player = total_from(low, ace)
            forced = _forced(rules, player, dealer)
            stand = _stand_2124(rules, player, finals)
            hit: Fraction | None = None
            if forced is not Action.STAND:
                hit = Fraction(0)
                for points, is_ace, p in odds.points():
                    hit += p * value(low + points, ace or is_ace)
                hit *= _geometric(odds.joker)
            if forced is not None:
                choice = forced
            else:
                assert hit is not None
                choice = Action.HIT if hit > stand else Action.STAND
            best = hit if choice is Action.HIT else stand
            assert best is not None
            if not player.bust:
                cells.append(StrategyCell(player, dealer, stand, hit, forced, choice))
            memo[(low, ace)] = best
            return best

        for low in range(0, 28):
            for ace in (False, True):
                if ace and low < 1:
                    continue
                value(low, ace)
    cells.sort(key=lambda c: (c.dealer.soft, c.dealer.value, c.player.soft, c.player.value))
    return TwentyOneStrategy(tuple(cells))


def analyze_21_24_27(
    rules: TwentyOne2427Rules | None = None,
    hits: Hits | None = None,
    odds: DrawOdds | None = None,
    label: str = "the source's 18-row basic strategy",
) -> GameReport:
    """Exact outcomes of 21-24-27 with the player's free decisions made by ``hits``."""
    rules = rules or TwentyOne2427Rules()
    odds = odds or DrawOdds.of_shoe(rules.shoe)
    play = hits or BASIC_STRATEGY.hits
    dealer_draw = DealerDraw(
        odds, rules.dealer_hits_hard_below, rules.dealer_hits_soft_below, rules.jokers_wild
    )
    starts = _starts(odds, rules.initial_27s, rules.joanca_joker_second)
    outcomes = {"player": Fraction(0), "dealer": Fraction(0), "push": Fraction(0)}
    lines: dict[str, Fraction] = {}

    def add(outcome: str, line: str, p: Fraction) -> None:
        outcomes[outcome] += p
        lines[line] = lines.get(line, Fraction(0)) + p

    walker = _Player2124(rules, odds, play)

    def line(player: Total, final: Total) -> str:
        outcome, _ = compare2124(player, final, rules)
        if outcome == "player" and final.bust:
            return "dealer over 27"
        return {"player": "player wins", "dealer": "dealer wins", "push": "push"}[outcome]

    showdown = _showdowns(dealer_draw, line)
    for player, pp in _by_total(starts).items():
        for dealer, pd in _by_total(starts).items():
            p = pp * pd
            if player.kind or dealer.kind:
                if player.kind and dealer.kind:
                    outcome = rules.both_initial_27s
                    add(outcome, f"both initial 27s ({outcome})", p)
                elif player.kind:
                    add("player", "player's initial 27", p)
                else:
                    add("dealer", "dealer's initial 27", p)
                continue
            for total, q in walker.finals(dealer.total, player.low, player.ace).items():
                if total.bust:
                    add("dealer", "player over 27", p * q)
                    continue
                for name, r in showdown(dealer, total).items():
                    add(_WHO[name], name, p * q * r)
    return twentyone_report(rules, outcomes, lines, label)


def twentyone_report(
    rules: TwentyOne2427Rules,
    outcomes: Mapping[str, Fraction],
    lines: Mapping[str, Fraction],
    label: str,
) -> GameReport:
    """21-24-27's report from each outcome's chance and each line's (also read by the
    finite-shoe analysis, :mod:`cardroom.games.finnish.shoe`, which replaces the
    model line)."""
    order = [
        ("player's initial 27", "player"),
        ("player wins", "player"),
        ("dealer over 27", "player"),
        (f"both initial 27s ({rules.both_initial_27s})", rules.both_initial_27s),
        ("push", "push"),
        ("dealer's initial 27", "dealer"),
        ("dealer wins", "dealer"),
        ("player over 27", "dealer"),
    ]
    paid = fee_scale(rules.fee_per_100)
    wager_lines = tuple(
        Line(name, lines.get(name, Fraction(0)), paid(_net2124(rules, who))) for name, who in order
    )
    report = WagerReport("player", wager_lines)
    assumptions = (MODEL, f"the player plays {label}", *fee_assumption(rules.fee_per_100))
    return GameReport("21-24-27", dict(outcomes), {"player": report}, assumptions, replacement=True)


_WHO = {
    "player wins": "player",
    "dealer over 27": "player",
    "dealer wins": "dealer",
    "push": "push",
}


def _by_total(starts: Mapping[Start, Fraction]) -> dict[Start, Fraction]:
    """The starts merged where only the total (or the initial 27) matters."""
    merged: dict[Start, Fraction] = {}
    for start, p in starts.items():
        key = _merged(start)
        merged[key] = merged.get(key, Fraction(0)) + p
    return merged


def _merged(start: Start) -> Start:
    return Start(start.kind, start.low, start.ace, (Rank.JOKER, Rank.JOKER))


class _Player2124:
    """The player's final totals in 21-24-27, memoised across starts."""

    def __init__(self, rules: TwentyOne2427Rules, odds: DrawOdds, hits: Hits) -> None:
        self.rules = rules
        self.odds = odds
        self.hits = hits
        self.memo: dict[tuple[Total, int, bool], dict[Total, Fraction]] = {}

    def finals(self, dealer: Total, low: int, ace: bool) -> dict[Total, Fraction]:
        key = (dealer, low, ace)
        known = self.memo.get(key)
        if known is not None:
            return known
        player = total_from(low, ace)
        forced = _forced(self.rules, player, dealer)
        hit = forced is Action.HIT or (forced is None and self.hits(player, dealer))
        result: dict[Total, Fraction] = {}
        if not hit:
            result[player] = Fraction(1)
        else:
            loop = _geometric(self.odds.joker)
            for points, is_ace, p in self.odds.points():
                for final, q in self.finals(dealer, low + points, ace or is_ace).items():
                    result[final] = result.get(final, Fraction(0)) + p * q * loop
        self.memo[key] = result
        return result


# -- tables of targets ------------------------------------------------------------
@dataclass(frozen=True)
class TargetSummary:
    """A dealer total's decisions read as "hit to hard X, soft Y" where they can be.

    ``None`` means the player has no such decision to make (the rules force it).

    ``hard`` / ``soft`` is the lowest total the player stands on among the free
    (or, in finnish27, all) decisions, with every higher one standing too; totals
    where the decisions do not follow one threshold are listed in ``exceptions``.
    """

    dealer: Total
    hard: int | None
    soft: int | None
    exceptions: tuple[Total, ...]

    def label(self) -> str:
        if self.hard is not None and self.soft is not None:
            text = f"hit to hard {self.hard}, soft {self.soft}"
        else:
            text = ", ".join(
                f"{kind} forced" if value is None else f"hit to {kind} {value}"
                for kind, value in (("hard", self.hard), ("soft", self.soft))
            )
        if self.exceptions:
            text += " (except " + ", ".join(str(t) for t in self.exceptions) + ")"
        return text


def summarise(dealer: Total, decisions: Mapping[Total, bool]) -> TargetSummary:
    """Read ``decisions`` (player total -> hits?) as hit-to-target thresholds."""
    targets: dict[bool, int | None] = {}
    exceptions: list[Total] = []
    for soft in (False, True):
        cells = sorted((t for t in decisions if t.soft == soft), key=lambda t: t.value)
        stands = [t.value for t in cells if not decisions[t]]
        target = None
        if cells and not stands:
            target = cells[-1].value + 1  # hits every total it may: "hit to" the next
        if stands:
            # the lowest total from which every higher one stands
            target = stands[-1]
            for t in reversed(cells):
                if decisions[t]:
                    break
                target = t.value
        targets[soft] = target
        exceptions += [
            t for t in cells if target is not None and t.value < target and not decisions[t]
        ]
    return TargetSummary(dealer, targets[False], targets[True], tuple(exceptions))


# -- strategy comparisons -----------------------------------------------------------
@dataclass(frozen=True)
class StrategyRow:
    """One dealer total: the rules' (or source's) table beside the best one."""

    dealer: Total
    given: TargetSummary
    best: TargetSummary
    differences: tuple[Total, ...]  # player totals where the two decide differently


@dataclass(frozen=True)
class StrategyComparison:
    """A game's given hit/stand table beside the best one, and what each is worth."""

    game: str
    given_name: str
    best_name: str
    rows: tuple[StrategyRow, ...]
    house_edges: dict[str, dict[str, Fraction]]  # table name -> wager -> house edge
    notes: tuple[str, ...]
    #: what the edges are counted in: with replacement, or the real shoe (its words)
    model: str = MODEL

    def to_json(self) -> dict[str, Any]:
        def total(t: Total) -> str:
            return str(t)

        def summary(s: TargetSummary) -> dict[str, Any]:
            return {
                "hard": s.hard,
                "soft": s.soft,
                "exceptions": [total(t) for t in s.exceptions],
                "label": s.label(),
            }

        return {
            "game": self.game,
            "model": self.model,
            "given": self.given_name,
            "best": self.best_name,
            "rows": [
                {
                    "dealer": total(r.dealer),
                    "given": summary(r.given),
                    "best": summary(r.best),
                    "differences": [total(t) for t in r.differences],
                }
                for r in self.rows
            ],
            "house_edges": {
                name: {w: fraction_text(e) for w, e in edges.items()}
                for name, edges in self.house_edges.items()
            },
            "house_edges_decimal": {
                name: {w: decimal_text(e) for w, e in edges.items()}
                for name, edges in self.house_edges.items()
            },
            "notes": list(self.notes),
        }


def _rows(
    given: Callable[[Total, Total], bool], best: Mapping[Total, Mapping[Total, bool]]
) -> tuple[StrategyRow, ...]:
    rows = []
    for dealer in sorted(best, key=lambda t: (t.soft, t.value)):
        mine = {player: given(player, dealer) for player in best[dealer]}
        differ = tuple(p for p in best[dealer] if mine[p] != best[dealer][p])
        rows.append(
            StrategyRow(
                dealer, summarise(dealer, mine), summarise(dealer, best[dealer]), tuple(differ)
            )
        )
    return tuple(rows)


def _edges(report: GameReport) -> dict[str, Fraction]:
    return {name: wager.house_edge for name, wager in report.wagers.items()}


@lru_cache(maxsize=4)
def strategy_comparison(game: str, rules: Any) -> StrategyComparison:
    """``21-24-27``: the source's basic strategy beside the optimal one;
    ``finnish27``: the rules' table (the source's nine rules) beside the best table for
    the player wager.

    Kept for the next call with the same (immutable) rules: it takes seconds to a minute.
    """
    if game == "21-24-27":
        rules = rules or TwentyOne2427Rules()
        solution = solve_21_24_27(rules)
        best: dict[Total, dict[Total, bool]] = {}
        for cell in solution.cells:
            if cell.free:
                best.setdefault(cell.dealer, {})[cell.player] = cell.choice is Action.HIT
        for cell in solution.cells:
            best.setdefault(cell.dealer, {})
        source = analyze_21_24_27(rules)
        optimal = analyze_21_24_27(rules, solution.hits, label="the optimal strategy")
        return StrategyComparison(
            game,
            "the source's basic strategy",
            "optimal",
            _rows(BASIC_STRATEGY.hits, best),
            {
                "source's basic strategy": _edges(source),
                "optimal total-dependent strategy": _edges(optimal),
                "composition-dependent play": _edges(optimal),
            },
            (
                "only the free decisions are shown: the rules make the others",
                "with cards drawn with replacement a hand's cards tell nothing beyond its "
                "total, so composition-dependent play is the total-dependent optimum; in the "
                "finite shoe it would gain a little more (not computed)",
            ),
        )
    if game == "finnish27":
        return finnish27_comparison(rules or Finnish27Rules())
    raise ValueError(f"game: {game} has no hit/stand table to compare")


#: counts finnish27 with the player's table ``hits`` (None: the rules' own), ``label``
#: naming it
Count = Callable[[Hits | None, str | None], GameReport]

#: what finnish27's best table is, in words
BEST_TABLE_NOTE = (
    "the best table maximises the player wager's 1:1 part with cards drawn with "
    "replacement, from totals alone; bonuses aside"
)


def finnish27_comparison(rules: Finnish27Rules, count: Count | None = None) -> StrategyComparison:
    """finnish27's table (the source's nine rules) beside the best table for the player
    wager (found with cards drawn with replacement), each table's edges counted by
    ``count`` (by default with replacement too)."""
    table = best_finnish27_table(rules)

    def replaced(hits: Hits | None, label: str | None) -> GameReport:
        return analyze_finnish27(rules, hits=hits, label=label)

    count = count or replaced
    given = count(None, None)
    better = count(table_hits(table), "the best table")
    return StrategyComparison(
        "finnish27",
        f"the {rules.table_name}",
        "best for the player wager",
        _rows(rules.strategy.hits, table),
        {rules.table_name: _edges(given), "best table for the player wager": _edges(better)},
        (BEST_TABLE_NOTE,),
    )
