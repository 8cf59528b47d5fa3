"""Exact punto banco analysis by counting ordered card combinations.

The fast path for ``punto-banco``, ``baccarat27`` and any rules variant of the
punto banco engine.  A coup uses at most six cards, so every coup is counted as
an ordered sequence of six cards from the shoe (cards it does not draw count as
any card): from 8 decks that makes 416 x 415 x ... x 411 sequences, the
denominator of the classic published tables.

Totals only depend on the cards' points, so the coup is counted over the ten
point values (a value's count is the sum of its ranks' counts: 16 tens and
pictures per deck, 4 of each other value).  The only wagers that need ranks are
the pairs (the hand's first two cards share a rank: K-K, not K-Q), and their
chance does not depend on the drawing rules, so they are counted by rank apart.
The drawing rules are asked of ``rules.tableau`` itself, so a variant tableau is
analysed as the engine plays it.

Everything is exact: integers and fractions.  :func:`analyze_composition`
starts from any shoe composition (cards per rank, in
:data:`~cardroom.games.walk.RANK_ORDER`), which is how the fast path is checked
against the generic walk over the engine (:func:`cardroom.games.walk.exact`),
and how :func:`effects_of_removal` is computed.

>>> from cardroom.analysis.report import decimal_text
>>> from cardroom.games.baccarat.engine import punto_banco_rules
>>> report = analyze_baccarat(punto_banco_rules(), "punto-banco")
>>> report.combinations["banker"], report.total_combinations
(2292252566437888, 4998398275503360)
>>> decimal_text(report.wagers["banker"].house_edge, 6)
'0.010579'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from cardroom.analysis.report import GameReport, Line, WagerReport
from cardroom.core.cards import JOKER, RANK_ORDER, Card, Rank, Suit
from cardroom.games.baccarat.engine import BaccaratRules, Tableau, card_value
from cardroom.games.baccarat.wagers import WAGERS, CoupFacts

__all__ = [
    "CoupCounts",
    "analyze_baccarat",
    "analyze_composition",
    "coup_counts",
    "effects_of_removal",
    "effects_of_removal_from",
    "expectations",
    "shoe_composition",
]

#: Cards a coup may use: two each, then a third card each.
COUP_CARDS = 6

_CARDS: tuple[Card, ...] = tuple(
    JOKER if rank is Rank.JOKER else Card(rank, Suit.SPADES) for rank in RANK_ORDER
)
#: The points of each rank of :data:`RANK_ORDER`, as the engine counts them.
_VALUES: tuple[int, ...] = tuple(card_value(card) for card in _CARDS)
#: A card of each point value 0-9, to ask the tableau about a player's third card.
_CARD_OF_VALUE: tuple[Card, ...] = tuple(
    next(card for card, value in zip(_CARDS, _VALUES, strict=True) if value == v) for v in range(10)
)

Counts = Mapping[Rank, int] | Sequence[int]


def _falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): ordered ways to draw k distinct cards from n."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def _normalise(counts: Counts) -> tuple[int, ...]:
    if isinstance(counts, Mapping):
        unknown = [rank for rank in counts if rank not in RANK_ORDER]
        if unknown:
            raise ValueError(f"counts: unknown ranks {unknown}")
        result = tuple(counts.get(rank, 0) for rank in RANK_ORDER)
    else:
        result = tuple(counts)
        if len(result) != len(RANK_ORDER):
            raise ValueError(f"counts: one count per rank of RANK_ORDER ({len(RANK_ORDER)})")
    if any(count < 0 for count in result):
        raise ValueError("counts: a rank cannot have fewer than 0 cards")
    if sum(result) < COUP_CARDS:
        raise ValueError(f"counts: a coup may take {COUP_CARDS} cards; the shoe has fewer")
    return result


def shoe_composition(rules: BaccaratRules, decks: int | None = None) -> tuple[int, ...]:
    """A full shoe's cards per rank (in :data:`RANK_ORDER`); ``decks`` overrides the rules."""
    counts = rules.shoe.rank_counts(decks)
    return tuple(counts[rank] for rank in RANK_ORDER)


@lru_cache(maxsize=64)
def _totals_table(tableau: Tableau, values: tuple[int, ...]) -> tuple[int, ...]:
    """Ordered six-card combinations per final (player total, banker total).

    ``values`` holds the cards of each point value 0-9.  Entry ``10 * p + b`` of
    the result counts the sequences ending with player ``p`` and banker ``b``.
    Two-card hands are taken as unordered pairs of values (times their 1 or 2
    orders); the weight of a sequence is the product of the falling counts of
    what is left in the shoe as each card is drawn.
    """
    n = sum(values)
    natural = [tableau.is_natural(t) for t in range(10)]
    player_draws = [tableau.player_draws(t) for t in range(10)]
    banker_draws_alone = [tableau.banker_draws(t, None) for t in range(10)]
    banker_draws_on = [
        [tableau.banker_draws(t, _CARD_OF_VALUE[v]) for v in range(10)] for t in range(10)
    ]
    rotate = [[(t + v) % 10 for v in range(10)] for t in range(10)]
    hands = [(a, b, 1 if a == b else 2) for a in range(10) for b in range(a, 10)]
    four = [0] * 100  # coups of four cards (naturals, or both stand)
    five = [0] * 100  # one third card
    six = [0] * 100  # two third cards
    left = list(values)
    for a, b, orders_a in hands:
        weight_a = left[a]
        left[a] -= 1
        weight_a *= left[b]
        left[b] -= 1
        if weight_a > 0:
            player = (a + b) % 10
            for x, y, orders_x in hands:
                weight = weight_a * left[x]
                left[x] -= 1
                weight *= left[y]
                left[y] -= 1
                if weight > 0:
                    weight *= orders_a * orders_x
                    banker = (x + y) % 10
                    if natural[player] or natural[banker]:
                        four[10 * player + banker] += weight
                    elif player_draws[player]:
                        draws_on = banker_draws_on[banker]
                        turn = rotate[banker]
                        for third in range(10):
                            weight_3 = weight * left[third]
                            if not weight_3:
                                continue
                            row = 10 * rotate[player][third]
                            if draws_on[third]:
                                left[third] -= 1
                                for last in range(10):
                                    if left[last]:
                                        six[row + turn[last]] += weight_3 * left[last]
                                left[third] += 1
                            else:
                                five[row + banker] += weight_3
                    elif banker_draws_alone[banker]:
                        row, turn = 10 * player, rotate[banker]
                        for last in range(10):
                            if left[last]:
                                five[row + turn[last]] += weight * left[last]
                    else:
                        four[10 * player + banker] += weight
                left[y] += 1
                left[x] += 1
        left[b] += 1
        left[a] += 1
    by_four, by_five = _falling(n - 4, 2), n - 5
    return tuple(four[i] * by_four + five[i] * by_five + six[i] for i in range(100))


@dataclass(frozen=True)
class CoupCounts:
    """Ordered six-card combinations of one coup from a shoe composition."""

    #: cards in the shoe
    cards: int
    #: entry ``10 * p + b``: combinations ending with player total p, banker total b
    totals: tuple[int, ...]
    #: combinations where a given hand's first two cards share a rank
    pair: int

    @property
    def total(self) -> int:
        """Every ordered sequence of six cards: cards x (cards-1) x ... x (cards-5)."""
        return _falling(self.cards, COUP_CARDS)

    def final(self, player: int, banker: int) -> int:
        return self.totals[10 * player + banker]

    def outcomes(self) -> dict[str, int]:
        """Combinations per outcome: ``player``, ``banker``, ``tie``."""
        result = {"player": 0, "banker": 0, "tie": 0}
        for p in range(10):
            for b in range(10):
                key = "player" if p > b else "banker" if b > p else "tie"
                result[key] += self.final(p, b)
        return result

    def banker_wins_with(self, total: int) -> int:
        """Combinations where the banker wins with a final ``total``."""
        return sum(self.final(p, total) for p in range(total))


def coup_counts(rules: BaccaratRules, counts: Counts) -> CoupCounts:
    """Count one coup's ordered six-card combinations from a shoe of ``counts``."""
    ranks = _normalise(counts)
    n = sum(ranks)
    values = [0] * 10
    for value, count in zip(_VALUES, ranks, strict=True):
        values[value] += count
    table = _totals_table(rules.tableau, tuple(values))
    pairs = sum(count * (count - 1) for count in ranks) * _falling(n - 2, COUP_CARDS - 2)
    return CoupCounts(n, table, pairs)


#: What the counts below hold jointly: the final totals (and so the outcome) of every
#: coup; a hand's pair is counted apart (its chance does not depend on the draws).
TOTAL_FACTS = frozenset({"outcome", "player_total", "banker_total"})


def _wager_lines(rules: BaccaratRules, coup: CoupCounts, wager_id: str) -> WagerReport:
    """The wager's lines, each with its exact probability, from its own description."""
    wager = WAGERS[wager_id]
    lines = wager.lines_for(rules)
    counts = [0] * len(lines)
    if wager.reads <= TOTAL_FACTS:
        for player in range(10):
            for banker in range(10):
                outcome = "player" if player > banker else "banker" if banker > player else "tie"
                facts = CoupFacts(outcome, player, banker)
                line = next(i for i, line in enumerate(lines) if line.holds(facts))
                counts[line] += coup.final(player, banker)
    elif len(wager.reads) == 1 and wager.reads <= {"player_pair", "banker_pair"}:
        hand = next(iter(wager.reads)).removesuffix("_pair")
        for paired, ways in ((True, coup.pair), (False, coup.total - coup.pair)):
            facts = CoupFacts("tie", 0, 0, paired and hand == "player", paired and hand == "banker")
            counts[next(i for i, line in enumerate(lines) if line.holds(facts))] += ways
    else:
        raise ValueError(
            f"wager: {wager_id} reads {', '.join(sorted(wager.reads))} together, which the "
            "exact count does not hold (a pair is counted apart from the totals)"
        )
    report_lines = tuple(
        Line(line.label, Fraction(count, coup.total), line.net)
        for line, count in zip(lines, counts, strict=True)
    )
    return WagerReport(wager_id, report_lines, (wager.analysis_note(rules),))


def analyze_composition(
    rules: BaccaratRules, counts: Counts, game: str = "punto-banco"
) -> GameReport:
    """The exact analysis of one coup from a shoe holding ``counts`` (cards per rank)."""
    coup = coup_counts(rules, counts)
    outcomes = coup.outcomes()
    total = coup.total
    wagers = {wager: _wager_lines(rules, coup, wager) for wager in rules.wager_ids}
    assumptions = (
        f"a coup from a shoe of {coup.cards} cards, as the engine plays it with these rules "
        "(the tableau as given); burnt cards are unseen and change nothing",
        "combinations: ordered sequences of the six cards a coup may use (cards it does not "
        f"draw count as any card): {total} in all",
        "pairs: the hand's first two cards share a rank (K-K, not K-Q)",
    )
    return GameReport(
        game=game,
        outcomes={k: Fraction(v, total) for k, v in outcomes.items()},
        wagers=wagers,
        assumptions=assumptions,
        combinations=outcomes,
        total_combinations=total,
    )


def analyze_baccarat(rules: BaccaratRules, game: str, decks: int | None = None) -> GameReport:
    """The exact analysis of ``game`` (its label) under ``rules`` from a full shoe.

    ``decks`` overrides ``rules.shoe.decks``.
    """
    counts = shoe_composition(rules, decks)
    report = analyze_composition(rules, counts, game)
    decks = rules.shoe.decks if decks is None else decks
    plural = "deck" if decks == 1 else "decks"
    jokers = counts[RANK_ORDER.index(Rank.JOKER)]
    shoe = f"{decks} {plural} of 52 cards"
    if not rules.shoe.whole_decks:
        shoe = f"{sum(counts) - jokers} cards of the ranks the rules give"
    shoe += f" and {jokers} Jokers (0 points)" if jokers else ""
    first = f"the first coup from a full shoe: {shoe}; burnt cards are unseen and change nothing"
    return GameReport(
        game=report.game,
        outcomes=report.outcomes,
        wagers=report.wagers,
        assumptions=(first, *report.assumptions[1:]),
        combinations=report.combinations,
        total_combinations=report.total_combinations,
    )


def expectations(rules: BaccaratRules, counts: Counts) -> dict[str, Fraction]:
    """Each wager's expected net result per unit staked, from a shoe of ``counts``."""
    coup = coup_counts(rules, counts)
    return {wager: _wager_lines(rules, coup, wager).expected for wager in rules.wager_ids}


def effects_of_removal_from(
    rules: BaccaratRules, counts: Counts
) -> dict[str, dict[Rank, Fraction]]:
    """For each wager, the exact change in its expectation per unit staked when one
    card of each rank (of those in the shoe) is taken out of a shoe of ``counts``.

    Since the first coup after an unseen burn card plays like the first coup of the
    shoe, the effects weighted by the ranks' counts add up to exactly 0.
    """
    ranks = _normalise(counts)
    base = expectations(rules, ranks)
    result: dict[str, dict[Rank, Fraction]] = {wager: {} for wager in rules.wager_ids}
    for index, rank in enumerate(RANK_ORDER):
        if not ranks[index]:
            continue
        fewer = (*ranks[:index], ranks[index] - 1, *ranks[index + 1 :])
        after = expectations(rules, fewer)
        for wager in rules.wager_ids:
            result[wager][rank] = after[wager] - base[wager]
    return result


def effects_of_removal(
    rules: BaccaratRules, game: str = "punto-banco", decks: int | None = None
) -> dict[str, dict[Rank, Fraction]]:
    """Effects of removal from ``game``'s full shoe (``decks`` overrides the rules):
    wager -> rank -> change in expected net result per unit staked when one card of
    that rank is taken out.  ``game`` only names the game; ``rules`` decide.
    """
    del game  # the rules decide everything; the name is for symmetry with analyze_baccarat
    return effects_of_removal_from(rules, shoe_composition(rules, decks))
