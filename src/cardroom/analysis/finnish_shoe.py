"""Exact analysis of the Finnish 27 games as they are dealt: off the top of the real
shoe, without replacement.

``finnish27`` and ``21-24-27`` are dealt from a shoe of 324 cards (6 decks of 54).
:mod:`cardroom.analysis.finnish` analyses them with cards drawn *with replacement*
(every rank always has its share of the full shoe), which is exact for that model
but not for the game: in the real shoe each card dealt changes the chances of the
next, and repeated ranks and suits are rarer.  This module counts every round of
the real shoe exactly (:mod:`cardroom.analysis.shoe_count` explains how): every
outcome's chance, every wager's lines (the bonus of finnish27 with its suits), all
as fractions, with the number of ordered card sequences behind each outcome.

**One source of rules.**  Totals come from :func:`~cardroom.games.hands.total_from`,
the initial 27s from :func:`~cardroom.games.hands.initial_27`, a deal with a 27 is
settled by the engine's own round, the player's play from the rules' table (or
forced plays and strategy), the comparison of final hands from each game's
``compare`` and the bonuses from :func:`~cardroom.games.finnish27.find_bonus` and the
poker evaluator.  What the count re-expresses is the order of a round (the deal,
the player's hand, the dealer's draw) and the dealer's drawing limits; the tests
check every line against the generic walk of the engine itself
(:mod:`cardroom.analysis.walk`, which deals without replacement) on reduced shoes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from fractions import Fraction
from functools import cache, lru_cache
from itertools import product
from math import comb, prod
from typing import Any

import numpy as np

from cardroom.analysis import poker_shoe
from cardroom.analysis.report import GameReport
from cardroom.analysis.shoe_count import (
    SUITS,
    Counts,
    DealerStart,
    GameShape,
    Pass,
    ShoeMakeup,
    Sweep,
    count_rounds,
    prepare,
    sample_card,
)
from cardroom.analysis.walk import RANK_ORDER
from cardroom.cards import JOKER, Card
from cardroom.games.finnish27 import (
    POKER_BONUS,
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    compare,
    find_bonus,
)
from cardroom.games.hands import TARGET, Total, initial_27
from cardroom.games.poker import PokerCategory

__all__ = [
    "ShoeMakeup",
    "analyze_finnish27_shoe",
    "count_finnish27",
    "finnish27_shape",
    "shoe_model",
]

Hits = Callable[[Total, Total], bool]

BONUS_KEYS: tuple[str, ...] = tuple(BonusTable.LABELS)


def shoe_model(shoe: ShoeMakeup, longest: int) -> str:
    """The assumption line of a finite-shoe report."""
    return (
        f"dealt off the top of a full shoe of {shoe.cards} cards, without replacement "
        f"(combinations: ordered sequences of the first {longest} cards, enough for any "
        "round)"
    )


# -- finnish27 ---------------------------------------------------------------------------
def finnish27_shape(rules: Finnish27Rules, hits: Hits) -> GameShape:
    """finnish27's rules as the count reads them, from the engine's own functions."""

    def initial(pair: tuple[int, int]) -> bool:
        cards = [sample_card(pair[0]), sample_card(pair[1])]
        return initial_27(cards, rules.jokers_make_27) is not None

    def settle_deal(player: tuple[int, int], dealer: tuple[int, int]) -> tuple[str, str | None]:
        return _settle_deal27(rules, player, dealer)

    def dealer_draws(total: Total) -> bool:
        limit = rules.dealer_hits_soft_below if total.soft else rules.dealer_hits_hard_below
        return total.value < limit

    def immediate(total: Total) -> str | None:
        if total.value == TARGET:
            return "player"
        if total.value > rules.player_loses_over:
            return "dealer"
        return None

    return GameShape(
        initial, settle_deal, hits, dealer_draws, immediate,
        lambda player, dealer: compare(player, dealer, rules)[0],
        (("player", "player"), ("push", "push"), ("dealer", "dealer")),
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


#: short hands whose bonus may depend on the dealer's cards (9-9-9 against his 9-9):
#: dealer starts are grouped by what find_bonus answers for them
_PROBES: tuple[tuple[Card, ...], ...] = tuple(
    tuple(Card.parse(code) for code in hand.split())
    for hand in ("9s 9h 9d", "9s 9s 9s", "8s 9s Ts", "8h 9c Td", "As Ks", "Jo Jo")
)


class Finnish27Bonus:
    """The chance of each bonus of a winning finnish27 hand, as the kernel reads it.

    A hand of five cards or more takes its poker category's bonus, with the suits
    of its ordinary cards counted from the shoe (:mod:`cardroom.analysis.poker_shoe`);
    a shorter one the bonus :func:`~cardroom.games.finnish27.find_bonus` gives it on
    each assignment of suits, weighed by its chance (hands of four cards get one
    assignment: find_bonus pays them nothing whatever their suits).  The Jokers a
    hand drew are put back with their chance (:meth:`jokers`).
    """

    def __init__(self, sweep: Sweep) -> None:
        self.sweep = sweep
        prepared = sweep.prepared
        self.modulus = modulus = prepared.modulus
        self.shoe = shoe = prepared.shoe
        hands = sweep.player.counts
        suits = np.array(shoe.suits, np.int64)
        symmetric = bool(np.all(suits == suits[:, :1]))
        n, lanes = len(hands), modulus.lanes
        plain = np.full((n, 4), -1, np.int64)
        sf = np.zeros((n, 4, lanes), np.uint64)
        sf_f = np.zeros((n, 4))
        total = np.zeros((n, lanes), np.uint64)
        total_f = np.zeros(n)
        workers = os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=workers) as pool:
            cuts = [n * i // (4 * workers) for i in range(4 * workers + 1)]
            outputs = (plain, sf, sf_f, total, total_f)
            tables = (hands, suits, symmetric, modulus.p, modulus.q, modulus.r2)
            jobs = [
                pool.submit(poker_shoe.poker_batch, *tables, first, stop, *outputs)
                for first, stop in itertools.pairwise(cuts)
            ]
            for job in jobs:
                job.result()
        no_flush = np.zeros((len(hands), 4, modulus.lanes), np.uint64)
        no_flush_f = np.zeros((len(hands), 4))
        patterns: dict[tuple[Any, ...], tuple[np.ndarray, float]] = {}
        sizes = hands.sum(axis=1)
        tops = hands.max(axis=1)
        for i, row in enumerate(hands.tolist()):
            held = [(x, tuple(suits[r])) for r, x in enumerate(row) if x]
            pattern = tuple(sorted(held))
            for jokers in range(4):
                if sizes[i] + jokers < 5 or tops[i] + jokers >= 5:
                    continue
                seen = (pattern, jokers)
                known = patterns.get(seen)
                if known is None:
                    known = patterns[seen] = poker_shoe.no_flush_count(
                        np.array([x for x, _ in pattern], np.int64),
                        np.array([c for _, c in pattern], np.int64).reshape(len(pattern), 4),
                        5 - jokers, modulus.p, modulus.q, modulus.r2,
                    )  # fmt: skip
                no_flush[i, jokers], no_flush_f[i, jokers] = known
        key_of = np.full(len(PokerCategory), -1, np.int64)
        for category, key in POKER_BONUS.items():
            key_of[int(category)] = BONUS_KEYS.index(key)
        self.cat = poker_shoe.category_table(
            hands, plain, sf, sf_f, total, total_f, no_flush, no_flush_f, key_of,
            modulus.p, modulus.q, modulus.r2,
        )  # fmt: skip
        self.five = BONUS_KEYS.index(POKER_BONUS[PokerCategory.FIVE_OF_A_KIND])
        self.categories = len(BONUS_KEYS)
        self._groups: list[tuple[str | None, ...]] = []
        self._dealer_of_group: list[list[Card]] = []
        self._short: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def group(self, dealer: DealerStart) -> int:
        cards = [sample_card(dealer.pair[0]), sample_card(dealer.pair[1])]
        answers = tuple(find_bonus(list(probe), cards) for probe in _PROBES)
        if answers not in self._groups:
            self._groups.append(answers)
            self._dealer_of_group.append(cards)
        return self._groups.index(answers)

    def tables(self, chosen: Pass) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
        np.ndarray, np.ndarray,
    ]:  # fmt: skip
        nhg, nhg_f = self.jokers(chosen.jokers)
        short = self._short.get(chosen.group)
        if short is None:
            short = self._short[chosen.group] = self.short(self._dealer_of_group[chosen.group])
        cat_key, cat_val, cat_f = self.cat
        short_row, short_key, short_val, short_f = short
        return nhg, nhg_f, cat_key, cat_val, cat_f, short_row, short_key, short_val, short_f

    def jokers(self, dealer_jokers: int) -> tuple[np.ndarray, np.ndarray]:
        """``[jp, hits, jt]``: the chance that a hand dealt ``jp`` Jokers that drew
        ``hits`` ordinary cards holds ``jt`` Jokers (4: four or more).  After the deal
        the Jokers and ordinary cards left lie in random order, so the Jokers drawn
        before the hand's last ordinary card follow the negative hypergeometric law."""
        kmax = self.sweep.kmax
        lanes = self.modulus.lanes
        table = np.zeros((3, kmax + 1, 5, lanes), np.uint64)
        table_f = np.zeros((3, kmax + 1, 5))
        for jp in range(3):
            jokers = self.shoe.jokers - jp - dealer_jokers
            ordinary = self.shoe.ordinary - (2 - jp) - (2 - dealer_jokers)
            if jokers < 0 or ordinary < 0:
                continue
            for hits in range(kmax + 1):
                if hits > ordinary:
                    continue
                chances = [Fraction(0)] * 5
                for j in range(jokers + 1):
                    if hits == 0:
                        p = Fraction(j == 0)
                    else:
                        p = Fraction(
                            comb(j + hits - 1, j) * comb(jokers - j + ordinary - hits, jokers - j),
                            comb(jokers + ordinary, jokers),
                        )
                    chances[min(jp + j, 4)] += p
                for jt, p in enumerate(chances):
                    if p:
                        table[jp, hits, jt] = self.modulus.residues(p)
                        table_f[jp, hits, jt] = float(p)
        return table, table_f

    def short(self, dealer: list[Card]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Bonuses of hands of two to four cards (``short_row`` per hand, -1 for longer
        ones), against a dealer start with these two cards."""
        hands = self.sweep.player.counts
        sizes = hands.sum(axis=1)
        rows = np.nonzero(sizes <= 4)[0]
        lanes = self.modulus.lanes
        short_row = np.full(len(hands), -1, np.int64)
        keys = np.full((len(rows), 4, 4), -1, np.int64)
        vals = np.zeros((len(rows), 4, 4, lanes), np.uint64)
        vals_f = np.zeros((len(rows), 4, 4))
        for at, row in enumerate(rows.tolist()):
            short_row[row] = at
            counts = hands[row].tolist()
            for jokers in range(4):
                if not 2 <= sizes[row] + jokers <= 4:
                    continue
                split = self._short_split(tuple(counts), jokers, tuple(dealer))
                if len(split) > 4:
                    raise AssertionError("more than four bonuses for one short hand")
                for e, (key, p) in enumerate(split.items()):
                    keys[at, jokers, e] = BONUS_KEYS.index(key)
                    vals[at, jokers, e] = self.modulus.residues(p)
                    vals_f[at, jokers, e] = float(p)
        return short_row, keys, vals, vals_f

    @cache  # noqa: B019 - one object per analysis
    def _short_split(
        self, counts: tuple[int, ...], jokers: int, dealer: tuple[Card, ...]
    ) -> dict[str, Fraction]:
        ranks = [r for r, x in enumerate(counts) for _ in range(x)]
        if len(ranks) + jokers == 4:
            cards = [sample_card(r) for r in ranks] + [JOKER] * jokers
            key = find_bonus(cards, list(dealer))
            return {} if key is None else {key: Fraction(1)}
        options = []
        for r, x in enumerate(counts):
            if x:
                options.append([(r, split, w) for split, w in _suit_splits(self.shoe.suits[r], x)])
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
            key = find_bonus(cards, list(dealer))
            if key is not None:
                found[key] = found.get(key, 0) + weight
        return {key: Fraction(n, total) for key, n in found.items()}


def _suit_splits(suits: Sequence[int], x: int) -> list[tuple[tuple[int, ...], int]]:
    """The ways ``x`` cards of a rank (``suits[s]`` of suit s) split over the suits."""
    out = []
    for a in product(*(range(min(x, c) + 1) for c in suits)):
        if sum(a) == x:
            out.append((tuple(a), prod(comb(c, n) for c, n in zip(suits, a, strict=True))))
    return out


def count_finnish27(rules: Finnish27Rules, shoe: ShoeMakeup, hits: Hits | None = None) -> Counts:
    """Every round of finnish27 dealt off the top of ``shoe``, counted exactly (bonus
    keys on winning hands)."""
    prepared = prepare(finnish27_shape(rules, hits or rules.strategy.hits), shoe)
    sweep = Sweep.build(prepared)
    return count_rounds(sweep, Finnish27Bonus(sweep), BONUS_KEYS)


def analyze_finnish27_shoe(
    rules: Finnish27Rules | None = None,
    shoe: ShoeMakeup | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
    hits: Hits | None = None,
    label: str = "the rules' nine-rule table",
) -> GameReport:
    """Exact outcomes and wagers of finnish27 dealt off the top of the rules' shoe (or
    ``shoe``); ``table_minimum`` and ``stake`` weigh the flat 9-9-9 awards, ``hits``
    replaces the player's table."""
    from cardroom.analysis.finnish import finnish27_report

    rules = rules or Finnish27Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    minimum = Fraction(table_minimum if table_minimum is not None else rules.table.minimum)
    stake = Fraction(stake if stake is not None else minimum)
    if minimum <= 0 or stake <= 0:
        raise ValueError("stake: the table minimum and the stake must be positive")
    counted = count_finnish27(rules, shoe, hits)
    report = finnish27_report(rules, counted.chances(), minimum, stake, label)
    return replace(
        report,
        assumptions=(shoe_model(shoe, counted.longest), *report.assumptions[1:]),
        combinations=counted.by_label(),
        total_combinations=counted.total,
    )
