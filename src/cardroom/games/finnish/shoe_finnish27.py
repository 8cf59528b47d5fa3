"""finnish27 counted off the top of the real shoe: its rules as the count reads them,
the chance of each bonus of a winning hand, and its report.

:func:`finnish27_shape` takes what the count needs from the engine's own functions.  A
:class:`Finnish27Bonus` gives the kernels every winning hand's chance of each bonus,
the suits of its cards counted from the shoe (:mod:`cardroom.games.finnish.poker_shoe`)
and the Jokers it drew put back with their chance.  :func:`count_finnish27` counts every
round, and :func:`analyze_finnish27_shoe` makes the report: the lines of
:func:`~cardroom.games.finnish.analysis.finnish27_report`, with the shoe's words in
place of the model's.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from fractions import Fraction
from functools import cache, lru_cache, partial
from itertools import product
from math import comb, prod

import numpy as np

from cardroom.analysis.report import GameReport
from cardroom.core.cards import JOKER, RANK_ORDER, Card
from cardroom.games.finnish import poker_shoe
from cardroom.games.finnish.analysis import finnish27_report
from cardroom.games.finnish.bonuses import BY_SHAPE, is_nines
from cardroom.games.finnish.finnish27 import (
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    compare,
    find_bonus,
)
from cardroom.games.finnish.hands import (
    TARGET,
    Total,
    dealer_limit,
    initial_27,
    total_of,
)
from cardroom.games.finnish.poker import PokerCategory, makes_five
from cardroom.games.finnish.replacement import Hits
from cardroom.games.finnish.shoe_cache import cached_counts
from cardroom.games.finnish.shoe_count import (
    Counts,
    Pass,
    Sweep,
    count_rounds,
    finished_hands,
    same_rounds,
)
from cardroom.games.finnish.shoe_deal import (
    COUNTED_CARDS,
    JOKERS_HELD,
    SUITS,
    GameShape,
    ShoeMakeup,
    no_card_awards,
    sample_card,
    shoe_model,
    totals_where,
)
from cardroom.games.finnish.shoe_hands import DealerStart, Prepared, prepare

__all__ = [
    "Finnish27Bonus",
    "FullShoe",
    "SuitMixture",
    "analyze_finnish27_shoe",
    "bonus_keys",
    "count_finnish27",
    "finnish27_shape",
    "finnish27_shoe_report",
]


FIVE_OF_A_KIND = PokerCategory.FIVE_OF_A_KIND
FLUSH = PokerCategory.FLUSH
STRAIGHT_FLUSH = PokerCategory.STRAIGHT_FLUSH


def bonus_keys() -> tuple[str, ...]:
    """Every award's key, in the order of the count's bonus columns (the source's, then
    those added)."""
    return tuple(BonusTable.labels())


# -- finnish27's rules, as the count reads them ------------------------------------------
def finnish27_shape(rules: Finnish27Rules, hits: Hits) -> GameShape:
    """finnish27's rules as the count reads them, from the engine's own functions."""
    if rules.bonus.poker_against_dealer != "ignored":
        raise ValueError(
            "poker_against_dealer: the real shoe's count keeps no table of both hands' "
            "cards together, so it cannot hold the player's poker hand against the "
            "dealer's; the analysis with cards drawn with replacement (analyze --infinite) "
            "counts it"
        )

    # (the deal asks about each pair many times: the answers are kept, per pair)
    initials: dict[tuple[int, int], bool] = {}
    settled: dict[tuple[tuple[int, int], tuple[int, int]], tuple[str, str | None]] = {}

    def initial(pair: tuple[int, int]) -> bool:
        known = initials.get(pair)
        if known is None:
            cards = [sample_card(pair[0]), sample_card(pair[1])]
            known = initials[pair] = (
                initial_27(cards, rules.initial_27s, rules.joanca_joker_second) is not None
            )
        return known

    def settle_deal(player: tuple[int, int], dealer: tuple[int, int]) -> tuple[str, str | None]:
        known = settled.get((player, dealer))
        if known is None:
            known = settled[(player, dealer)] = _settle_deal27(rules, player, dealer)
        return known

    def dealer_draws(total: Total) -> bool:
        return total.value < dealer_limit(rules, total)

    def immediate(total: Total) -> str | None:
        if total.value == TARGET and rules.both_27 == "by_rules":
            return "player"
        if total.value > rules.player_loses_over:
            return "dealer"
        return None

    return GameShape(
        initial, settle_deal, hits, dealer_draws, immediate,
        lambda player, dealer: compare(player, dealer, rules)[0],
        (("player", "player"), ("push", "push"), ("dealer", "dealer")),
        rules.joanca_joker_second, rules.jokers_wild, rules.charlie,
    )  # fmt: skip


@lru_cache(maxsize=4096)
def _settle_deal27(
    rules: Finnish27Rules, player: tuple[int, int], dealer: tuple[int, int]
) -> tuple[str, str | None]:
    """The engine's own result of a deal with an initial 27 (suits never matter to a
    two-card bonus)."""
    rnd = Finnish27Round(rules)
    for index in (player[0], dealer[0], player[1], dealer[1]):
        rnd.deal(sample_card(index))
    if not rnd.is_complete or rnd.outcome is None:
        raise AssertionError("a deal with an initial 27 goes on")
    return rnd.outcome, rnd.bonus_key


# -- the bonus of a winning hand ---------------------------------------------------------
class Finnish27Bonus:
    """The chance of each bonus of a winning finnish27 hand, as the kernel reads it.

    A hand of five cards or more takes its poker category's bonus, with the suits
    of its ordinary cards counted from the shoe (:mod:`cardroom.games.finnish.poker_shoe`);
    a shorter one the bonus :func:`~cardroom.games.finnish.finnish27.find_bonus` gives it on
    each assignment of suits, weighed by its chance (hands of four cards get one
    assignment: find_bonus pays them nothing whatever their suits).  The Jokers a
    hand drew are put back with their chance (:meth:`jokers`).

    ``mixture`` weighs several splits of the shoe's cards into suits (the shoe with a
    card of unknown suit taken out, for the effects of removal); they must be alike
    but for the names of the suits, which poker does not read.  ``like``, a bonus of
    the same rules and hands from another shoe (the full one, for the effects of
    removal), gives the chances of the hands that hold none of the ranks whose suits
    differ: only the others are counted.
    """

    def __init__(
        self,
        prepared: Prepared,
        mixture: SuitMixture | None = None,
        nines_by_suit: bool = False,
        poker: BonusTable | None = None,
        like: Finnish27Bonus | None = None,
    ) -> None:
        #: the finished player hands, in the order of the sweep's (its ``player.counts``)
        self.hands = hands = finished_hands(prepared)
        #: the poker awards: the least category paid, and the hands that qualify
        self.poker = poker = poker or BonusTable()
        #: the most ordinary cards a finished hand holds (the sweep's ``kmax``)
        self.kmax = int(hands.sum(axis=1).max(initial=2))
        #: three Nines of one suit against the dealer's 9-9 have their own award
        self.nines_by_suit = nines_by_suit
        #: every award's key, in the order of the bonus columns
        self.keys = bonus_keys()
        #: the added awards the table pays
        self.added = frozenset(poker.added_awards)
        #: the most awards a short hand may split into over its suits: the most of one
        #: shape (the source's four of 9-9-9)
        self.width = max(4, *(len(awards) for awards in BY_SHAPE.values()))
        self.poker_ok = totals_where(lambda total: poker.poker_qualifies(total.value))
        self.card27 = no_card_awards()
        #: the Jokers are bugs in the poker award (four of them make five of a kind only
        #: with an Ace: five do always)
        self.bugs = poker.bugs
        #: by the poker categories a hand holds (bits): its award in the table's order
        #: (its place in BONUS_KEYS), or -1
        self.held_key = np.array(
            [
                -1 if (award := poker.held_award(held)) is None else self.keys.index(award)
                for held in range(1 << len(PokerCategory))
            ],
            np.int64,
        )
        ranking = poker.ranking
        #: does five of a kind outrank the flush and the straight flush (then a hand of
        #: five of a kind needs no count of its suits)?
        self.five_tops = ranking[FIVE_OF_A_KIND] > max(ranking[FLUSH], ranking[STRAIGHT_FLUSH])
        #: the Jokers a hand holds, as its tables count them: up to "four or more" (five
        #: of a kind), "five or more" where the Jokers are bugs (four make a straight
        #: flush without an Ace), or one by one to "ten or more" where 27s are paid by
        #: their cards
        self.held = JOKERS_HELD if poker.card_27s else 6 if self.bugs else 5
        for ti in range(len(self.card27)):
            for cards in range(COUNTED_CARDS):
                key = poker.card_award(cards, total_of(ti).value)
                if key is not None:
                    self.card27[ti, cards] = self.keys.index(key)
        self.modulus = modulus = prepared.modulus
        self.shoe = shoe = prepared.shoe
        self.mixture = list(mixture or [(Fraction(1), shoe.suits)])
        if like is not None and _unknown_card_out(like.mixture, self.mixture):
            # a card of unknown suit out of ``like``'s split: a hand's cards of its rank are
            # then as random a subset of the rank's cards as in the full split, so every
            # chance of its suits is the same (the suits of the card out averaged away)
            self.mixture = list(like.mixture)
        #: ``like``, where its counts can stand for this shoe's; the place of each hand
        #: (row of :attr:`hands`) among its hands (-1: not there), and the hands whose
        #: chances it cannot give
        self._like, self._in_like, self._redo = self._reuse(like)
        # splits alike but for the suits' names have the same poker counts: each kind of
        # split is counted once, and the kinds' chances are added by their weights (the
        # categories of a hand, and so the keys, depend on its ranks alone)
        kinds: dict[tuple[tuple[int, ...], ...], tuple[Fraction, tuple[tuple[int, ...], ...]]] = {}
        for weight, split in self.mixture:
            kind = _canonical(split)
            known = kinds.get(kind)
            kinds[kind] = (weight, split) if known is None else (known[0] + weight, known[1])
        cat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        for weight, split in kinds.values():
            keys, vals, vals_f = self._categories_of(np.array(split, np.int64))
            if len(kinds) == 1:
                cat = keys, vals, vals_f
                break
            if cat is None:
                cat = keys, np.zeros_like(vals), np.zeros_like(vals_f)
            if not np.array_equal(cat[0], keys):
                raise AssertionError("a hand's poker keys changed with the suits")
            poker_shoe.add_weighted(cat[1], vals, modulus.residues(weight), modulus.p, modulus.q)
            cat[2][:] += float(weight) * vals_f
        if cat is None:
            raise AssertionError("no split of the suits")
        self.cat = cat
        self.categories = len(self.keys)
        self._groups: list[bool] = []
        self._dealer_of_group: list[list[Card]] = []
        self._short: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._short_of: dict[tuple[Card, ...], tuple[np.ndarray, ...]] = {}
        self._short_lock = threading.Lock()
        #: :meth:`jokers` by the dealer's Jokers (passes with as many share it)
        self._jokers: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _reuse(
        self, like: Finnish27Bonus | None
    ) -> tuple[Finnish27Bonus | None, np.ndarray, np.ndarray]:
        """Can ``like`` (the same rules, another shoe's suits or another table's hands:
        the full shoe of the effects of removal, the rules' table beside the best one)
        give this bonus's chances?  A hand's chances depend on its ranks and the suits
        of the ranks it holds alone, so those of the hands ``like`` has too and that
        hold no rank whose suits differ in some split of :attr:`mixture` are ``like``'s.
        Returns ``like`` (None where it cannot stand), each hand's place among its
        hands (-1: not there) and which hands need counting."""
        n = len(self.hands)
        if (
            like is None
            or len(like.mixture) != 1
            or like.poker != self.poker
            or like.nines_by_suit != self.nines_by_suit
            or like.modulus.primes != self.modulus.primes
            or like.hands.shape[1] != self.hands.shape[1]
        ):
            return None, np.full(n, -1, np.int64), np.ones(n, np.bool_)
        if np.array_equal(like.hands, self.hands):
            places = np.arange(n, dtype=np.int64)
        else:
            known = {row.tobytes(): at for at, row in enumerate(like.hands)}
            places = np.array([known.get(row.tobytes(), -1) for row in self.hands], np.int64)
        split = np.array(like.mixture[0][1], np.int64)
        moved = np.zeros(13, np.bool_)
        for _, suits in self.mixture:
            moved |= np.any(np.array(suits, np.int64) != split, axis=1)
        return like, places, (places < 0) | np.any(self.hands[:, moved] > 0, axis=1)

    def _categories_of(self, suits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_categories` of every hand, those :attr:`_like` gives copied from it."""
        if self._like is None:
            return self._categories(self.hands, suits)
        rows = np.flatnonzero(self._redo)
        places = self._in_like
        if not len(rows) and np.array_equal(places, np.arange(len(self._like.hands))):
            return self._like.cat  # the same hands with the same chances: shared, not copied
        keys, vals, vals_f = (a[np.maximum(places, 0)] for a in self._like.cat)
        if len(rows):
            keys[rows], vals[rows], vals_f[rows] = self._categories(self.hands[rows], suits)
        return keys, vals, vals_f

    def _categories(
        self, hands: np.ndarray, suits: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each hand's poker awards and their chances over its cards' suits, ``suits[r,
        s]`` cards of rank r being of suit s (as
        :func:`~cardroom.games.finnish.poker_shoe.category_table` gives them)."""
        modulus = self.modulus
        symmetric = bool(np.all(suits == suits[:, :1]))
        n, lanes = len(hands), modulus.lanes
        plain = np.full((n, 4), -1, np.int64)
        sf = np.zeros((n, 4, lanes), np.uint64)
        sf_f = np.zeros((n, 4))
        total = np.zeros((n, lanes), np.uint64)
        total_f = np.zeros(n)
        workers = os.cpu_count() or 1
        no_flush = np.zeros((n, 4, lanes), np.uint64)
        no_flush_f = np.zeros((n, 4))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            cuts = [n * i // (4 * workers) for i in range(4 * workers + 1)]
            outputs = (plain, sf, sf_f, total, total_f)
            tables = (hands, suits, symmetric, modulus.p, modulus.q, modulus.r2)
            jobs = [
                pool.submit(
                    poker_shoe.poker_batch,
                    *tables,
                    first,
                    stop,
                    *outputs,
                    self.bugs,
                    self.five_tops,
                )
                for first, stop in itertools.pairwise(cuts)
            ]
            # meanwhile (the batches release the interpreter): the hands without a flush
            self._no_flush(hands, suits, no_flush, no_flush_f)
            for job in jobs:
                job.result()
        return poker_shoe.category_table(  # type: ignore[no-any-return, unused-ignore]
            hands, plain, sf, sf_f, total, total_f, no_flush, no_flush_f, self.held_key,
            modulus.p, modulus.q, modulus.r2, self.bugs, self.five_tops,
        )  # fmt: skip

    def _no_flush(
        self, hands: np.ndarray, suits: np.ndarray, out: np.ndarray, out_f: np.ndarray
    ) -> None:
        """For each hand of five cards or more with 0-3 Jokers (and no five of a kind),
        its suit assignments without a flush, counted once per pattern of (count, the
        shoe's suits of that rank)."""
        modulus = self.modulus
        n = len(hands)
        # each rank's suits as a class, numbered in the order of the suits' rows; a hand's
        # pattern is its (count, class) codes sorted: (count, suits) pairs in order
        rows = [tuple(row) for row in suits.tolist()]
        ordered = sorted(set(rows))
        class_suits = np.array(ordered, np.int64).reshape(len(ordered), 4)
        classes = np.array([ordered.index(row) for row in rows], np.int64)
        codes = np.where(hands > 0, hands * len(ordered) + classes, 0)
        codes.sort(axis=1)
        pattern_of: dict[tuple[int, ...], int] = {}
        first: list[int] = []  # a hand of each pattern
        inverse = np.empty(n, np.int64)
        for i, row in enumerate(map(tuple, codes.tolist())):
            at = pattern_of.get(row)
            if at is None:
                at = pattern_of[row] = len(first)
                first.append(i)
            inverse[i] = at
        # the numbers of Jokers each hand is asked about
        sizes = hands.sum(axis=1)
        asked = np.stack([sizes + jokers >= 5 for jokers in range(4)], axis=1)
        if self.five_tops:
            tops, aces = hands.max(axis=1), hands[:, 0]
            for top, ace in set(zip(tops.tolist(), aces.tolist(), strict=True)):
                where = (tops == top) & (aces == ace)
                for jokers in range(4):
                    if makes_five(top, ace, jokers, self.bugs):
                        asked[where, jokers] = False
        for jokers in range(4):
            hands_asked = np.flatnonzero(asked[:, jokers])
            patterns = np.unique(inverse[hands_asked])
            found = np.zeros((len(first), modulus.lanes), np.uint64)
            found_f = np.zeros(len(first))
            for at in patterns.tolist():
                row = codes[first[at]]
                row = row[row > 0]
                found[at], found_f[at] = poker_shoe.no_flush_count(
                    row // len(ordered), class_suits[row % len(ordered)], 5 - jokers,
                    modulus.p, modulus.q, modulus.r2,
                )  # fmt: skip
            out[hands_asked, jokers] = found[inverse[hands_asked]]
            out_f[hands_asked, jokers] = found_f[inverse[hands_asked]]

    def group(self, dealer: DealerStart) -> int:
        """The dealer starts' group: those whose first two cards are both Nines, and the
        others (the one thing of the dealer's hand an award asks)."""
        cards = [sample_card(dealer.pair[0]), sample_card(dealer.pair[1])]
        nines = is_nines(cards)
        if nines not in self._groups:
            self._groups.append(nines)
            self._dealer_of_group.append(cards)
        return self._groups.index(nines)

    def tables(self, chosen: Pass) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
        np.ndarray, np.ndarray,
    ]:  # fmt: skip
        known = self._jokers.get(chosen.jokers)
        if known is None:
            known = self._jokers[chosen.jokers] = self.jokers(chosen.jokers)
        nhg, nhg_f = known
        short = self._short.get(chosen.group)
        if short is None:
            short = self._short[chosen.group] = self.short(self._dealer_of_group[chosen.group])
        cat_key, cat_val, cat_f = self.cat
        short_row, short_key, short_val, short_f = short
        return nhg, nhg_f, cat_key, cat_val, cat_f, short_row, short_key, short_val, short_f

    def jokers(self, dealer_jokers: int) -> tuple[np.ndarray, np.ndarray]:
        """``[jp, hits, jt]``: the chance that a hand dealt ``jp`` Jokers that drew
        ``hits`` ordinary cards holds ``jt`` Jokers (the last: that many or more).  After the deal
        the Jokers and ordinary cards left lie in random order, so the Jokers drawn
        before the hand's last ordinary card follow the negative hypergeometric law."""
        kmax = self.kmax
        lanes = self.modulus.lanes
        table = np.zeros((3, kmax + 1, self.held, lanes), np.uint64)
        table_f = np.zeros((3, kmax + 1, self.held))
        for jp in range(3):
            jokers = self.shoe.jokers - jp - dealer_jokers
            ordinary = self.shoe.ordinary - (2 - jp) - (2 - dealer_jokers)
            if jokers < 0 or ordinary < 0:
                continue
            for hits in range(kmax + 1):
                if hits > ordinary:
                    continue
                chances = [Fraction(0)] * self.held
                for j in range(jokers + 1):
                    if hits == 0:
                        p = Fraction(j == 0)
                    else:
                        p = Fraction(
                            comb(j + hits - 1, j) * comb(jokers - j + ordinary - hits, jokers - j),
                            comb(jokers + ordinary, jokers),
                        )
                    chances[min(jp + j, self.held - 1)] += p
                for jt, p in enumerate(chances):
                    if p:
                        table[jp, hits, jt] = self.modulus.residues(p)
                        table_f[jp, hits, jt] = float(p)
        return table, table_f

    def short(self, dealer: list[Card]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Bonuses of hands of two to four cards (``short_row`` per hand, -1 for longer
        ones), against a dealer start with these two cards (made once per pair of
        cards; the hands :attr:`_like` gives are copied from it)."""
        with self._short_lock:  # (the passes ask from several threads)
            known = self._short_of.get(tuple(dealer))
            if known is None:
                known = self._short_of[tuple(dealer)] = self._make_short(dealer)
        return known[0], known[1], known[2], known[3]

    def _make_short(
        self, dealer: list[Card]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        hands = self.hands
        sizes = hands.sum(axis=1)
        rows = np.nonzero(sizes <= 4)[0]
        lanes = self.modulus.lanes
        short_row = np.full(len(hands), -1, np.int64)
        short_row[rows] = np.arange(len(rows))
        keys = np.full((len(rows), 4, self.width), -1, np.int64)
        vals = np.zeros((len(rows), 4, self.width, lanes), np.uint64)
        vals_f = np.zeros((len(rows), 4, self.width))
        if self._like is not None:
            like_row, like_keys, like_vals, like_f = self._like.short(dealer)
            kept = ~self._redo[rows]
            theirs = like_row[self._in_like[rows[kept]]]
            keys[kept], vals[kept], vals_f[kept] = (
                like_keys[theirs], like_vals[theirs], like_f[theirs]
            )  # fmt: skip
        for at, row in enumerate(rows.tolist()):
            if self._like is not None and not self._redo[row]:
                continue
            keys[at], vals[at], vals_f[at] = -1, 0, 0.0
            counts = hands[row].tolist()
            for jokers in range(4):
                if not 2 <= sizes[row] + jokers <= 4:
                    continue
                split: dict[str, Fraction] = {}
                for weight, suits in self.mixture:
                    part = self._short_split(tuple(counts), jokers, tuple(dealer), suits)
                    for key, p in part.items():
                        split[key] = split.get(key, Fraction(0)) + weight * p
                if len(split) > self.width:
                    raise AssertionError("more bonuses for one short hand than awards of a shape")
                for e, (key, p) in enumerate(split.items()):
                    keys[at, jokers, e] = self.keys.index(key)
                    vals[at, jokers, e] = self.modulus.residues(p)
                    vals_f[at, jokers, e] = float(p)
        return short_row, keys, vals, vals_f

    @cache  # noqa: B019 - one object per analysis
    def _short_split(
        self,
        counts: tuple[int, ...],
        jokers: int,
        dealer: tuple[Card, ...],
        suits: tuple[tuple[int, ...], ...],
    ) -> dict[str, Fraction]:
        ranks = [r for r, x in enumerate(counts) for _ in range(x)]
        if len(ranks) + jokers == 4:
            cards = [sample_card(r) for r in ranks] + [JOKER] * jokers
            key = find_bonus(
                cards, list(dealer), nines_by_suit=self.nines_by_suit, added=self.added
            )
            return {} if key is None else {key: Fraction(1)}
        options = []
        for r, x in enumerate(counts):
            if x:
                options.append([(r, split, w) for split, w in _suit_splits(suits[r], x)])
        found: dict[str, int] = {}
        total = 0
        for choice in product(*options):
            cards = [JOKER] * jokers
            weight = 1
            for r, split, w in choice:
                weight *= w
                for s, n in enumerate(split):
                    cards += [Card(RANK_ORDER[r], SUITS[s])] * n
            total += weight
            key = find_bonus(
                cards, list(dealer), nines_by_suit=self.nines_by_suit, added=self.added
            )
            if key is not None:
                found[key] = found.get(key, 0) + weight
        return {key: Fraction(n, total) for key, n in found.items()}


#: splits of a shoe's cards into suits, each with its weight
SuitMixture = Sequence[tuple[Fraction, tuple[tuple[int, ...], ...]]]


def _unknown_card_out(full: SuitMixture, mixture: SuitMixture) -> bool:
    """Is ``mixture`` the shoe of ``full``'s one split with one card of one rank taken
    out, its suit unknown (each suit as likely as the split holds it)?"""
    if len(full) != 1:
        return False
    split = full[0][1]
    ranks = {r for _, suits in mixture for r, row in enumerate(suits) if row != split[r]}
    if len(ranks) != 1:
        return False
    (rank,) = ranks
    row = split[rank]
    expected = []
    for s, n in enumerate(row):
        if n:
            fewer = tuple(c - (t == s) for t, c in enumerate(row))
            suits = tuple(fewer if r == rank else other for r, other in enumerate(split))
            expected.append((Fraction(n, sum(row)), suits))
    return sorted(expected) == sorted((Fraction(w), tuple(map(tuple, s))) for w, s in mixture)


def _canonical(suits: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """The same split with the suits renamed in a fixed way (poker cannot tell)."""
    return min(
        tuple(tuple(row[s] for s in order) for row in suits)
        for order in itertools.permutations(range(4))
    )


def _suit_splits(suits: Sequence[int], x: int) -> list[tuple[tuple[int, ...], int]]:
    """The ways ``x`` cards of a rank (``suits[s]`` of suit s) split over the suits."""
    out = []
    for a in product(*(range(min(x, c) + 1) for c in suits)):
        if sum(a) == x:
            out.append((tuple(a), prod(comb(c, n) for c, n in zip(suits, a, strict=True))))
    return out


# -- the count and the report ------------------------------------------------------------
class FullShoe:
    """The full shoe's sweep and bonus tables, made once (on first use, by whichever
    thread asks first) for its own count and as the pattern of the counts of the shoes
    with a card taken out (the effects of removal): those share its hands and
    sub-multisets, its dealer tables G (plus a difference), and the poker chances of the
    hands that hold no card of the rank taken out (:meth:`Sweep.build`,
    :meth:`Sweep.dealer_table`, :class:`Finnish27Bonus`'s ``like``)."""

    def __init__(self, rules: Finnish27Rules, shoe: ShoeMakeup) -> None:
        self.rules = rules
        self.shoe = shoe
        self._lock = threading.Lock()
        self._made: tuple[Sweep, Finnish27Bonus] | None = None

    def tables(self) -> tuple[Sweep, Finnish27Bonus]:
        with self._lock:
            if self._made is None:
                self._made = _tables(self.rules, self.shoe, None, None, None)
                self._made[0].keep_tables()
            return self._made


def count_finnish27(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    hits: Hits | None = None,
    mixture: SuitMixture | None = None,
    like: FullShoe | None = None,
) -> Counts:
    """Every round of finnish27 dealt off the top of ``shoe``, counted exactly (bonus
    keys on winning hands; ``mixture``: see :class:`Finnish27Bonus`; ``like``, with the
    rules' own play: the full shoe, whose tables the count shares).  Kept on disk
    (:mod:`~cardroom.games.finnish.shoe_cache`): a count made before is read.

    A play that plays every hand of the shoe as the rules' own table does (the best
    table, which may differ from it only on totals no hand reaches) has the rules'
    table's count: that one is read or made (and kept under this play too, so that
    reading it again prepares neither play)."""
    return cached_counts(
        "finnish27 counts", rules, shoe, hits, mixture,
        partial(_count_finnish27, rules, shoe, hits, mixture, like),
    )  # fmt: skip


@lru_cache(maxsize=2)
def _rules_play(rules: Finnish27Rules, shoe: ShoeMakeup) -> Prepared:
    """The count of the rules' own play, prepared (to hold other plays against)."""
    return prepare(finnish27_shape(rules, rules.strategy.hits), shoe)


def _count_finnish27(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    hits: Hits | None,
    mixture: SuitMixture | None,
    like: FullShoe | None = None,
) -> Counts:
    prepared = None
    if hits is not None:
        prepared = prepare(finnish27_shape(rules, hits), shoe)
        if same_rounds(prepared, _rules_play(rules, shoe)):
            return count_finnish27(rules, shoe, None, mixture, like)
    if like is not None and hits is None and like.rules == rules:
        if shoe == like.shoe and mixture is None:
            sweep, bonus = like.tables()
        else:
            sweep, bonus = _tables(rules, shoe, None, mixture, like.tables())
    else:
        sweep, bonus = _tables(rules, shoe, hits, mixture, None, prepared)
    return count_rounds(sweep, bonus, bonus.keys)


def _tables(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    hits: Hits | None,
    mixture: SuitMixture | None,
    like: tuple[Sweep, Finnish27Bonus] | None,
    prepared: Prepared | None = None,
) -> tuple[Sweep, Finnish27Bonus]:
    """The sweep and the bonus's tables of a count (sharing ``like``'s where they can;
    ``prepared``: the count's, where it is made already)."""
    if prepared is None and hits is None and mixture is None and like is None:
        prepared = _rules_play(rules, shoe)  # (kept: another play may be held against it)
    if prepared is None:
        shape = finnish27_shape(rules, hits or rules.strategy.hits)
        prepared = prepare(shape, shoe, like and like[0].prepared)  # (its hands, if the same)
    # the bonus's tables need only the finished hands: they are counted beside the sweep
    # (both release the interpreter for most of their time)
    by_suit = rules.bonus.nines_vs_dealer_by_suit
    with ThreadPoolExecutor(max_workers=1) as side:
        job = side.submit(Finnish27Bonus, prepared, mixture, by_suit, rules.bonus, like and like[1])
        sweep = Sweep.build(prepared, like and like[0])
        bonus = job.result()
    return sweep, bonus


def analyze_finnish27_shoe(
    rules: Finnish27Rules | None = None,
    shoe: ShoeMakeup | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
    hits: Hits | None = None,
    label: str | None = None,
    like: FullShoe | None = None,
) -> GameReport:
    """Exact outcomes and wagers of finnish27 dealt off the top of the rules' shoe (or
    ``shoe``); ``table_minimum`` and ``stake`` weigh the flat 9-9-9 awards, ``hits``
    replaces the player's table (``label`` names it).  ``like``: this shoe's
    :class:`FullShoe`, whose tables the count makes and keeps for the counts that
    follow (the effects of removal) rather than making its own."""
    rules = rules or Finnish27Rules()
    label = label or f"the rules' {rules.table_name}"
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    if hits is None and like is None:  # the PAR sheet asks twice (figures, strategy)
        return _own_table_report(rules, shoe, table_minimum, stake, label)
    return finnish27_shoe_report(rules, shoe, table_minimum, stake, hits, label, None, like)


@lru_cache(maxsize=4)
def _own_table_report(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    table_minimum: Fraction | None,
    stake: Fraction | None,
    label: str,
) -> GameReport:
    return finnish27_shoe_report(rules, shoe, table_minimum, stake, None, label)


def finnish27_shoe_report(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    table_minimum: Fraction | None,
    stake: Fraction | None,
    hits: Hits | None,
    label: str,
    mixture: SuitMixture | None = None,
    like: FullShoe | None = None,
) -> GameReport:
    minimum = Fraction(table_minimum if table_minimum is not None else rules.table.minimum)
    stake = Fraction(stake if stake is not None else minimum)
    if minimum <= 0 or stake <= 0:
        raise ValueError("stake: the table minimum and the stake must be positive")
    counted = count_finnish27(rules, shoe, hits, mixture, like)
    report = finnish27_report(rules, counted.chances(), minimum, stake, label)
    return replace(
        report,
        assumptions=(shoe_model(shoe, counted.longest), *report.assumptions[1:]),
        replacement=False,
        combinations=counted.by_label(),
        total_combinations=counted.total,
    )
