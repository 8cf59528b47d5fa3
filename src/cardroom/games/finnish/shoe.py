"""Exact analysis of the Finnish 27 games as they are dealt: off the top of the real
shoe, without replacement.

``finnish27`` and ``21-24-27`` are dealt from a shoe of 324 cards (6 decks of 54).
:mod:`cardroom.games.finnish.analysis` analyses them with cards drawn *with replacement*
(every rank always has its share of the full shoe), which is exact for that model
but not for the game: in the real shoe each card dealt changes the chances of the
next, and repeated ranks and suits are rarer.  This module counts every round of
the real shoe exactly (:mod:`cardroom.games.finnish.shoe_count` explains how): every
outcome's chance, every wager's lines (the bonus of finnish27 with its suits), all
as fractions, with the number of ordered card sequences behind each outcome.

**One source of rules.**  Totals come from :func:`~cardroom.games.finnish.hands.total_from`,
the initial 27s from :func:`~cardroom.games.finnish.hands.initial_27`, a deal with a 27 is
settled by the engine's own round, the player's play from the rules' table (or
forced plays and strategy), the comparison of final hands from each game's
``compare`` and the bonuses from :func:`~cardroom.games.finnish.finnish27.find_bonus` and the
poker evaluator.  What the count re-expresses is the order of a round (the deal,
the player's hand, the dealer's draw) and the dealer's drawing limits; the tests
check every line against the generic walk of the engine itself
(:mod:`cardroom.games.walk`, which deals without replacement) on reduced shoes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache
from itertools import product
from math import comb, prod
from typing import Any

import numpy as np

from cardroom.analysis.report import GameReport
from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank
from cardroom.games.base import Action
from cardroom.games.finnish import poker_shoe
from cardroom.games.finnish import shoe_kernel as kernel
from cardroom.games.finnish.analysis import (
    Hits,
    StrategyComparison,
    StrategyRow,
    finnish27_comparison,
    finnish27_report,
    summarise,
    twentyone_report,
)
from cardroom.games.finnish.finnish27 import (
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    compare,
    find_bonus,
)
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
from cardroom.games.finnish.poker import PokerCategory, makes_five
from cardroom.games.finnish.shoe_count import (
    COUNTED_CARDS,
    JOKERS_HELD,
    SUITS,
    Counts,
    DealerHands,
    DealerStart,
    GameShape,
    HandTable,
    OutcomeSpec,
    Pass,
    PlayerHands,
    Prepared,
    ShoeMakeup,
    Sweep,
    _total_indices,
    count_rounds,
    deals,
    finished_hands,
    mont_tables,
    no_card_awards,
    ordinary_counts,
    prepare,
    sample_card,
    totals_of,
    totals_where,
)
from cardroom.games.finnish.shoe_count import (
    falling as _falling,
)
from cardroom.games.finnish.twentyone_24_27 import (
    BASIC_STRATEGY,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124

FIVE_OF_A_KIND = PokerCategory.FIVE_OF_A_KIND
FLUSH = PokerCategory.FLUSH
STRAIGHT_FLUSH = PokerCategory.STRAIGHT_FLUSH

__all__ = [
    "ShoeMakeup",
    "analyze_finnish27_shoe",
    "count_finnish27",
    "finnish27_comparison_shoe",
    "finnish27_shape",
    "shoe_model",
]

BONUS_KEYS: tuple[str, ...] = tuple(BonusTable.LABELS)


def shoe_model(shoe: ShoeMakeup, longest: int | None = None) -> str:
    """The assumption line of a finite-shoe report."""
    text = f"dealt off the top of a full shoe of {shoe.cards} cards, without replacement"
    if longest is not None:
        text += (
            f" (combinations: ordered sequences of the first {longest} cards, enough for any round)"
        )
    return text


# -- finnish27 ---------------------------------------------------------------------------
def finnish27_shape(rules: Finnish27Rules, hits: Hits) -> GameShape:
    """finnish27's rules as the count reads them, from the engine's own functions."""
    if rules.bonus.poker_against_dealer != "ignored":
        raise ValueError(
            "poker_against_dealer: the real shoe's count keeps no table of both hands' "
            "cards together, so it cannot hold the player's poker hand against the "
            "dealer's; the analysis with cards drawn with replacement (analyze --infinite) "
            "counts it"
        )

    def initial(pair: tuple[int, int]) -> bool:
        cards = [sample_card(pair[0]), sample_card(pair[1])]
        return initial_27(cards, rules.initial_27s, rules.joanca_joker_second) is not None

    def settle_deal(player: tuple[int, int], dealer: tuple[int, int]) -> tuple[str, str | None]:
        return _settle_deal27(rules, player, dealer)

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


#: short hands whose bonus may depend on the dealer's cards (9-9-9 against his 9-9):
#: dealer starts are grouped by what find_bonus answers for them
_PROBES: tuple[tuple[Card, ...], ...] = tuple(
    tuple(Card.parse(code) for code in hand.split())
    for hand in ("9s 9h 9d", "9s 9s 9s", "8s 9s Ts", "8h 9c Td", "As Ks", "Jo Jo")
)


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
    but for the names of the suits, which poker does not read.
    """

    def __init__(
        self,
        prepared: Prepared,
        mixture: SuitMixture | None = None,
        nines_by_suit: bool = False,
        poker: BonusTable | None = None,
    ) -> None:
        #: the finished player hands, in the order of the sweep's (its ``player.counts``)
        self.hands = hands = finished_hands(prepared)
        #: the most ordinary cards a finished hand holds (the sweep's ``kmax``)
        self.kmax = int(hands.sum(axis=1).max(initial=2))
        #: three Nines of one suit against the dealer's 9-9 have their own award
        self.nines_by_suit = nines_by_suit
        #: the poker awards: the least category paid, and the hands that qualify
        poker = poker or BonusTable()
        self.poker_ok = totals_where(lambda total: poker.poker_qualifies(total.value))
        self.card27 = no_card_awards()
        #: the Jokers are bugs in the poker award (four of them make five of a kind only
        #: with an Ace: five do always)
        self.bugs = poker.bugs
        #: by the poker categories a hand holds (bits): its award in the table's order
        #: (its place in BONUS_KEYS), or -1
        self.held_key = np.array(
            [
                -1 if (award := poker.held_award(held)) is None else BONUS_KEYS.index(award)
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
                    self.card27[ti, cards] = BONUS_KEYS.index(key)
        self.modulus = modulus = prepared.modulus
        self.shoe = shoe = prepared.shoe
        self.mixture = list(mixture or [(Fraction(1), shoe.suits)])
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
            keys, vals, vals_f = self._categories(hands, np.array(split, np.int64))
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
        self.categories = len(BONUS_KEYS)
        self._groups: list[tuple[str | None, ...]] = []
        self._dealer_of_group: list[list[Card]] = []
        self._short: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        #: :meth:`jokers` by the dealer's Jokers (passes with as many share it)
        self._jokers: dict[int, tuple[np.ndarray, np.ndarray]] = {}

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
        cards = [sample_card(dealer.pair[0]), sample_card(dealer.pair[1])]
        answers = tuple(
            find_bonus(list(probe), cards, nines_by_suit=self.nines_by_suit) for probe in _PROBES
        )
        if answers not in self._groups:
            self._groups.append(answers)
            self._dealer_of_group.append(cards)
        return self._groups.index(answers)

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
        ones), against a dealer start with these two cards."""
        hands = self.hands
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
                split: dict[str, Fraction] = {}
                for weight, suits in self.mixture:
                    part = self._short_split(tuple(counts), jokers, tuple(dealer), suits)
                    for key, p in part.items():
                        split[key] = split.get(key, Fraction(0)) + weight * p
                if len(split) > 4:
                    raise AssertionError("more than four bonuses for one short hand")
                for e, (key, p) in enumerate(split.items()):
                    keys[at, jokers, e] = BONUS_KEYS.index(key)
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
            key = find_bonus(cards, list(dealer), nines_by_suit=self.nines_by_suit)
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
            key = find_bonus(cards, list(dealer), nines_by_suit=self.nines_by_suit)
            if key is not None:
                found[key] = found.get(key, 0) + weight
        return {key: Fraction(n, total) for key, n in found.items()}


#: splits of a shoe's cards into suits, each with its weight
SuitMixture = Sequence[tuple[Fraction, tuple[tuple[int, ...], ...]]]


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


def count_finnish27(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    hits: Hits | None = None,
    mixture: SuitMixture | None = None,
) -> Counts:
    """Every round of finnish27 dealt off the top of ``shoe``, counted exactly (bonus
    keys on winning hands; ``mixture``: see :class:`Finnish27Bonus`)."""
    prepared = prepare(finnish27_shape(rules, hits or rules.strategy.hits), shoe)
    # the bonus's tables need only the finished hands: they are counted beside the sweep
    # (both release the interpreter for most of their time)
    by_suit = rules.bonus.nines_vs_dealer_by_suit
    with ThreadPoolExecutor(max_workers=1) as side:
        job = side.submit(Finnish27Bonus, prepared, mixture, by_suit, rules.bonus)
        sweep = Sweep.build(prepared)
        bonus = job.result()
    return count_rounds(sweep, bonus, BONUS_KEYS)


def analyze_finnish27_shoe(
    rules: Finnish27Rules | None = None,
    shoe: ShoeMakeup | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
    hits: Hits | None = None,
    label: str | None = None,
) -> GameReport:
    """Exact outcomes and wagers of finnish27 dealt off the top of the rules' shoe (or
    ``shoe``); ``table_minimum`` and ``stake`` weigh the flat 9-9-9 awards, ``hits``
    replaces the player's table (``label`` names it)."""
    rules = rules or Finnish27Rules()
    label = label or f"the rules' {rules.table_name}"
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    if hits is None:  # the rules' own table: the PAR sheet asks twice (figures, strategy)
        return _own_table_report(rules, shoe, table_minimum, stake, label)
    return _finnish27_report(rules, shoe, table_minimum, stake, hits, label)


@lru_cache(maxsize=4)
def _own_table_report(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    table_minimum: Fraction | None,
    stake: Fraction | None,
    label: str,
) -> GameReport:
    return _finnish27_report(rules, shoe, table_minimum, stake, None, label)


def _finnish27_report(
    rules: Finnish27Rules,
    shoe: ShoeMakeup,
    table_minimum: Fraction | None,
    stake: Fraction | None,
    hits: Hits | None,
    label: str,
    mixture: SuitMixture | None = None,
) -> GameReport:
    minimum = Fraction(table_minimum if table_minimum is not None else rules.table.minimum)
    stake = Fraction(stake if stake is not None else minimum)
    if minimum <= 0 or stake <= 0:
        raise ValueError("stake: the table minimum and the stake must be positive")
    counted = count_finnish27(rules, shoe, hits, mixture)
    report = finnish27_report(rules, counted.chances(), minimum, stake, label)
    return replace(
        report,
        assumptions=(shoe_model(shoe, counted.longest), *report.assumptions[1:]),
        replacement=False,
        combinations=counted.by_label(),
        total_combinations=counted.total,
    )


# -- 21-24-27 ------------------------------------------------------------------------------
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


def _twentyone_counts(rules: TwentyOne2427Rules, shoe: ShoeMakeup, play: Hits) -> Counts:
    prepared = prepare(twentyone_shape(rules, play), shoe)
    return count_rounds(Sweep.build(prepared))


def _twentyone_from_counts(
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
    counted = _twentyone_counts(rules, shoe, hits or BASIC_STRATEGY.hits)
    return _twentyone_from_counts(rules, shoe, counted, label)


_FORCED_CODE = {Action.HIT: kernel.MUST_HIT, Action.STAND: kernel.MUST_STAND, None: kernel.FREE}


def _forced_codes(rules: TwentyOne2427Rules, dealer: Total, size: int) -> np.ndarray:
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
    size = int(_total_indices().max()) + 1
    codes_of = {d.total: _forced_codes(rules, d.total, size) for d in prepared.dealers}
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
        where = np.full(int(_total_indices().max()) + 1, -1, np.int64)
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
    composition = _twentyone_from_counts(
        rules, shoe, counted, "composition-dependent play (the exact cards seen)"
    )
    best = _best_table(rules, shoe, grids, given)
    return TwentyOneSolution(best, composition, grids, decisions, prepared.tables)


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
    size = int(_total_indices().max()) + 1
    for dealer, (hvals, svals, grid) in sorted(grids.items(), key=_by_dealer):
        codes = _forced_codes(rules, dealer, size)
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

        report = _twentyone_from_counts(rules, shoe, _twentyone_counts(rules, shoe, play), "")
        values[(hard, soft)] = report.wagers["player"].expected
    top = max(values.values())
    return [c for c, v in values.items() if v == top]


# -- strategy comparison ---------------------------------------------------------------------
@dataclass(frozen=True)
class ShoeStrategyComparison(StrategyComparison):
    """:class:`~cardroom.games.finnish.analysis.StrategyComparison` for the finite shoe."""

    reports: dict[str, GameReport] = field(default_factory=dict, compare=False)


def strategy_comparison_shoe(
    rules: TwentyOne2427Rules | None = None, shoe: ShoeMakeup | None = None
) -> ShoeStrategyComparison:
    """21-24-27 in the real shoe: the source's table beside the best table of its kind,
    and the house edge of each and of composition-dependent play."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    solution = solve_21_24_27_shoe(rules, shoe)
    basic = analyze_21_24_27_shoe(rules, shoe)
    same = all(
        BASIC_STRATEGY.row_for(dealer) == solution.best_table.row_for(dealer)
        for dealer in solution.grids
    )
    best = (
        basic
        if same
        else analyze_21_24_27_shoe(
            rules, shoe, solution.best_table.hits, "the best total-dependent table"
        )
    )
    size = int(_total_indices().max()) + 1
    rows = []
    for dealer in sorted(solution.grids, key=lambda t: (t.soft, t.value)):
        codes = _forced_codes(rules, dealer, size)
        free = [total_of(ti) for ti in range(size) if codes[ti] == kernel.FREE]
        given = {t: BASIC_STRATEGY.hits(t, dealer) for t in free}
        mine = {t: solution.best_table.hits(t, dealer) for t in free}
        rows.append(
            StrategyRow(
                dealer, summarise(dealer, given), summarise(dealer, mine),
                tuple(t for t in free if given[t] != mine[t]),
            )
        )  # fmt: skip
    edges = {
        "source's basic strategy": basic,
        "best total-dependent table": best,
        "composition-dependent play": solution.composition,
    }
    notes = (
        "only the free decisions are shown: the rules make the others",
        "best total-dependent table: per dealer two-card total, the targets (hit free hard "
        "totals below one, soft below another) worth most in this shoe",
        "composition-dependent play: each free decision made on the exact cards seen "
        "(the player's and the dealer's two)",
    )
    house_edges = {
        name: {w: r.house_edge for w, r in report.wagers.items()} for name, report in edges.items()
    }
    return ShoeStrategyComparison(
        "21-24-27", "the source's basic strategy", "best total-dependent table",
        tuple(rows), house_edges, notes, basic.model, edges,
    )  # fmt: skip


def finnish27_comparison_shoe(
    rules: Finnish27Rules | None = None, shoe: ShoeMakeup | None = None
) -> ShoeStrategyComparison:
    """finnish27 in the real shoe: the rules' table beside the best table for the player
    wager (found with cards drawn with replacement, from totals alone), both tables'
    edges counted off the top of the real shoe (the rules' table's are the analysis's)."""
    rules = rules or Finnish27Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    reports: dict[str, GameReport] = {}

    def count(hits: Hits | None, label: str | None) -> GameReport:
        report = analyze_finnish27_shoe(rules, shoe, hits=hits, label=label)
        reports[label or rules.table_name] = report
        return report

    base = finnish27_comparison(rules, count)
    model = next(iter(reports.values())).model  # (the rules' table's: the analysis's words)
    return ShoeStrategyComparison(
        base.game, base.given_name, base.best_name, base.rows, base.house_edges,
        base.notes, model, reports,
    )  # fmt: skip


# -- effects of removal ---------------------------------------------------------------------
Effects = dict[str, dict[Rank, Fraction]]


def _effects(
    shoe: ShoeMakeup, analyze: Callable[[ShoeMakeup, SuitMixture | None], GameReport]
) -> Effects:
    """Wager -> rank -> the change in its expected net result per unit staked when one
    card of that rank, of a suit unknown (each as likely as the shoe holds), leaves the
    shoe before the round.  An unseen card taken out changes nothing on average, so
    the effects weighed by the ranks' counts add up to 0: checked here, exactly."""
    base = analyze(shoe, None)
    effects: Effects = {wager: {} for wager in base.wagers}
    for index, rank in enumerate(RANK_ORDER):
        count = shoe.counts[index]
        if not count:
            continue
        fewer = shoe.without(rank)
        mixture: SuitMixture | None = None
        if rank is not Rank.JOKER:
            mixture = [
                (Fraction(n, count), shoe.without(rank, suit).suits)
                for suit, n in zip(SUITS, shoe.suits[index], strict=True)
                if n
            ]
        after = analyze(fewer, mixture)
        for wager, report in base.wagers.items():
            effects[wager][rank] = after.wagers[wager].expected - report.expected
    for wager, per_rank in effects.items():
        weighed = sum(
            (shoe.counts[RANK_ORDER.index(rank)] * e for rank, e in per_rank.items()),
            Fraction(0),
        )
        if weighed:
            raise ArithmeticError(f"effects of removal on {wager} do not add up to 0")
    return effects


def finnish27_effects_of_removal(
    rules: Finnish27Rules | None = None,
    shoe: ShoeMakeup | None = None,
    table_minimum: Fraction | None = None,
    stake: Fraction | None = None,
) -> Effects:
    """finnish27's exact effects of removal in the real shoe (see :func:`_effects`):
    fifteen analyses, one per rank (a few minutes)."""
    rules = rules or Finnish27Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)

    def analyze(fewer: ShoeMakeup, mixture: SuitMixture | None) -> GameReport:
        return _finnish27_report(rules, fewer, table_minimum, stake, None, "", mixture)

    return _effects(shoe, analyze)


def twentyone_effects_of_removal(
    rules: TwentyOne2427Rules | None = None,
    shoe: ShoeMakeup | None = None,
    hits: Hits | None = None,
) -> Effects:
    """21-24-27's exact effects of removal in the real shoe, the player keeping one
    total-dependent table (by default the source's) whatever card is out."""
    rules = rules or TwentyOne2427Rules()
    shoe = shoe or ShoeMakeup.of_rules(rules.shoe)
    play = hits or BASIC_STRATEGY.hits

    def analyze(fewer: ShoeMakeup, mixture: SuitMixture | None) -> GameReport:
        return _twentyone_from_counts(rules, fewer, _twentyone_counts(rules, fewer, play), "")

    return _effects(shoe, analyze)
