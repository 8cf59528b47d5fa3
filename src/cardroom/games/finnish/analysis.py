"""Exact analysis of the two Finnish 27 games, with cards drawn with replacement.

**The model.**  Every card is drawn from the full shoe *with replacement*: each
rank comes with its share of the shoe (6 decks of 54: 2/27 for each of the 13
ranks, 1/27 for the Joker) whatever was dealt before, and each suit is equally
likely.  This is the "infinite shoe" of blackjack analysis.  Under it a hand's
future depends only on its total, so the analysis is an exact recursion over
totals, in fractions (a few seconds; finnish27's poker bonus, which needs the
ranks of long hands, takes longer, see below).  It is *not* the finite
324-card shoe: removing dealt cards shifts the odds slightly (the difference to
the published 6-deck figures is in the second decimal of a percent).  The real
shoe is counted by :mod:`cardroom.games.finnish.shoe`, the default of
``cardroom analyze``; this model is ``--infinite``.

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

**Where each part is.**  This module holds finnish27's analysis (:func:`analyze_finnish27`,
its report and its best hit/stand table) and the effects of removal of either game.
What both games share (the odds of a card, the dealer's draw, the two-card starts) is in
:mod:`~cardroom.games.finnish.replacement`; finnish27's walk of the hands rank by rank
in :mod:`~cardroom.games.finnish.rank_walk`; 21-24-27's analysis and solver in
:mod:`~cardroom.games.finnish.twentyone_analysis` (:func:`analyze_21_24_27` and
:func:`solve_21_24_27` are importable from here too); the tables of targets and the
strategy comparisons in :mod:`~cardroom.games.finnish.comparison`.

>>> from cardroom.analysis.report import decimal_text
>>> report = analyze_21_24_27()
>>> decimal_text(report.wagers["player"].house_edge, 6)
'0.010188'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import cache
from itertools import product

from cardroom.analysis.report import GameReport, Line, WagerReport
from cardroom.core.cards import JOKER, RANK_ORDER, Rank
from cardroom.core.money import format_odds
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.finnish27 import (
    POKER_CATEGORY,
    BonusTable,
    Finnish27Rules,
    find_bonus,
    pays_joanca,
)
from cardroom.games.finnish.finnish27 import compare as compare27
from cardroom.games.finnish.hands import TARGET, Total, dealer_limit, total_from
from cardroom.games.finnish.options import fee_assumption, fee_of, fee_scale
from cardroom.games.finnish.poker import PokerRules
from cardroom.games.finnish.rank_walk import (
    Finishes,
    finishes_by_cards_in_lanes,
    finishes_in_lanes,
)
from cardroom.games.finnish.replacement import (
    MODEL,
    SUITS,
    DealerDraw,
    DrawOdds,
    Hits,
    Start,
    by_total,
    card_of,
    geometric,
    merged_start,
    showdowns,
    two_card_starts,
)
from cardroom.games.finnish.twentyone_analysis import analyze_21_24_27, solve_21_24_27

__all__ = [
    "analyze_21_24_27",
    "analyze_finnish27",
    "best_finnish27_table",
    "effects_of_removal",
    "finnish27_report",
    "solve_21_24_27",
    "table_hits",
]


# -- finnish27's bonus on a hand of four cards or fewer -------------------------
#: a dealer's first two cards, both Nines
NINES = (Rank.NINE, Rank.NINE)


@cache
def _bonus_split(
    ranks: tuple[Rank, ...],
    dealer_nines: bool,
    joanca: bool = False,
    nines_by_suit: bool = False,
    added: frozenset[str] = frozenset(),
) -> dict[str | None, Fraction]:
    """The chance of each bonus of a winning hand of these ranks, over its cards' suits,
    against a dealer whose first two cards are both Nines or not (the one thing of the
    dealer's hand an award asks: :class:`~cardroom.games.finnish.bonuses.Hand`)."""
    dealer = [card_of(Rank.NINE), card_of(Rank.NINE)] if dealer_nines else []
    options = [
        [JOKER] if rank is Rank.JOKER else [card_of(rank, s) for s in range(len(SUITS))]
        for rank in ranks
    ]
    counts: dict[str | None, int] = {}
    for cards in product(*options):
        key = find_bonus(list(cards), dealer, joanca, nines_by_suit, added=added)
        counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    return {key: Fraction(n, total) for key, n in counts.items()}


# -- the dealer's hands, where the poker award is held against them -------------
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
    starts: Iterable[Start], walked: Iterable[Finishes], poker: PokerRules
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


# -- finnish27 ------------------------------------------------------------------
def _against(play: Hits, dealer: Total) -> Callable[[Total], bool]:
    def hits(total: Total) -> bool:
        return play(total, dealer)

    return hits


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
    starts = two_card_starts(odds, rules.initial_27s, rules.joanca_joker_second)

    # (outcome, bonus key or None) -> chance
    results: dict[tuple[str, str | None], Fraction] = {}

    def add(outcome: str, bonus: str | None, p: Fraction) -> None:
        if p:
            results[(outcome, bonus)] = results.get((outcome, bonus), Fraction(0)) + p

    joanca, by_suit = pays_joanca(rules), rules.bonus.nines_vs_dealer_by_suit
    added = frozenset(rules.bonus.added_awards)
    dealers = by_total(starts)
    dealer_ranks: dict[Start, dict[tuple[Rank, Rank], Fraction]] = {}
    for start, p in starts.items():
        merged = dealer_ranks.setdefault(merged_start(start), {})
        merged[start.ranks] = (
            merged.get(start.ranks, Fraction(0)) + p / dealers[merged_start(start)]
        )

    def short_wins(
        ranks: tuple[Rank, ...], dealer: Start, p: Fraction, initial: bool = False
    ) -> None:
        # only an initial 27 is a Joanca (a Joker first may be a total of two cards)
        splits = {
            nines: _bonus_split(ranks, nines, joanca and initial, by_suit, added)
            for nines in (False, True)
        }
        if all(split.keys() == {None} for split in splits.values()):
            add("player", None, p)  # no bonus whatever the dealer's cards (their chances add to 1)
            return
        for pair, w in dealer_ranks[dealer].items():
            for key, q in splits[pair == NINES].items():
                add("player", key, p * w * q)

    against_dealer = showdowns(
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
        merged: {s: p / dealers[merged] for s, p in starts.items() if merged_start(s) == merged}
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
        finishes: Finishes,
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
        walked = finishes_by_cards_in_lanes(odds, lanes, rules.charlie, rules.jokers_wild, poker)
        theirs = (
            finishes_in_lanes(
                odds, dealer_lanes, False, rules.jokers_wild, poker, bare=len(dealer_lanes)
            )
            if dealer_lanes
            else []
        )
    else:
        walked = finishes_in_lanes(
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


# -- finnish27's report ---------------------------------------------------------
def finnish27_report(
    rules: Finnish27Rules,
    results: Mapping[tuple[str, str | None], Fraction],
    minimum: Fraction,
    stake: Fraction,
    label: str,
) -> GameReport:
    """finnish27's report from the chance of each (outcome, bonus key or None): the
    lines of every wager (also read by the finite-shoe analysis,
    :mod:`cardroom.games.finnish.shoe_finnish27`, which replaces the model line)."""
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
    for key in BonusTable.labels():
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
    labels = BonusTable.labels()
    return "flat awards (" + ", ".join(labels[key] for key in bonus.flat) + ")"


# -- finnish27's best table -----------------------------------------------------
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
    for start in two_card_starts(odds, rules.initial_27s, rules.joanca_joker_second):
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
                    hit *= geometric(odds.joker)
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

    This is the first-order effect a card counter uses in this model; the real
    shoe's effects are :mod:`cardroom.games.finnish.shoe`'s.
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
