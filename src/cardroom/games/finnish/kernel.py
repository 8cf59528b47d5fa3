"""The kernels of the two Finnish 27 games (``finnish27`` and ``21-24-27``).

Every rule a kernel needs comes as a table built from the engine's own functions:
card points, :func:`~cardroom.games.finnish.hands.total_from`, the two-card 27s of
:func:`~cardroom.games.finnish.hands.initial_27`, the player's hit/stand table (the
rules' nine-rule table, or 21-24-27's forced plays and the chosen strategy), the
dealer's limits, each game's ``compare``, and each wager's net result read from
the engine's own ``settle``.  What the kernel re-expresses is the flow of a round
(deal order, initial 27s, hits, the immediate results at 27, unless a 27 waits for
the dealer's, and over 35) and finnish27's bonus patterns, including the poker evaluator's
:func:`~cardroom.games.finnish.poker.held_mask` compiled; the differential tests
play kernel and engine on the same shoes.

A round's *cell* is its outcome and (finnish27) its bonus: ``outcome * bonuses +
bonus`` with outcome 0 player, 1 dealer, 2 push and bonus 0 for none, else 1 + the
key's place in :meth:`BonusTable.labels` (``bonuses`` is one more than their number).
The awards of two and three cards come as tables made from
:mod:`cardroom.games.finnish.bonuses` (every hand by its ranks and, for three cards,
their suits and whether the dealer's first two cards are Nines), so an award added
there is simulated with no change here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from cardroom.core.cards import JOKER, Card, Rank, Suit
from cardroom.core.rules import rules_to_toml
from cardroom.games.base import Action
from cardroom.games.finnish.bonuses import AWARDS, CARD_27_KEYS
from cardroom.games.finnish.finnish27 import (
    BonusTable,
    Finnish27Round,
    Finnish27Rules,
    compare,
    find_bonus,
    pays_joanca,
)
from cardroom.games.finnish.hands import (
    Initial27,
    Total,
    initial_27,
    total_from,
    total_index,
    total_of,
)
from cardroom.games.finnish.poker import PokerCategory, best_held, held_mask, makes_five
from cardroom.games.finnish.twentyone_24_27 import (
    TableStrategy,
    TwentyOne2427Round,
    TwentyOne2427Rules,
)
from cardroom.games.finnish.twentyone_24_27 import compare as compare2124
from cardroom.games.finnish.twentyone_analysis import solve_21_24_27
from cardroom.simulation import ahead, common
from cardroom.simulation.common import (
    JOKER_CODE,
    BatchResult,
    ShoeTables,
    card_of,
    count_round,
    counters,
    new_shoe,
    read_only,
    units,
)
from cardroom.simulation.jit import njit

__all__ = ["Finnish27Kernel", "TwentyOne2427Kernel"]

OUTCOMES = ("player", "dealer", "push")
#: a dealer's first two cards, both Nines (as an award asks)
NINES_DEALER = [Card(Rank.NINE, Suit.SPADES), Card(Rank.NINE, Suit.HEARTS)]
#: the rank index of a Joker (``ranks[card]``), and the total index of a hard 27
JOKER_RANK = 13
WILD_27 = 2 * 27
#: totals are table indices ``value * 2 + soft``; lows up to this are tabled
MAX_LOW = 100
#: a player's hand stops being followed past this low total (never reached in play)
LOW_GUARD = MAX_LOW - 14
#: the kernels read the shoe and their tables at unsigned indices (positions, card codes,
#: totals), which Numba does not test for being negative: a round took about a sixth
#: longer with those tests
_U64 = np.uint64


def _total_table() -> np.ndarray:
    """``[low, has_ace]`` -> total index, from :func:`total_from`."""
    table = np.zeros((MAX_LOW + 1, 2), np.int64)
    for low in range(MAX_LOW + 1):
        for ace in (0, 1):
            table[low, ace] = total_index(total_from(low, bool(ace)))
    return table


def _card_tables() -> tuple[np.ndarray, np.ndarray]:
    """Points (Ace 1, Joker 0) and rank index (0 Ace ... 12 King, 13 Joker) per code."""
    points = np.array([card_of(c).rank.number for c in range(53)], np.int64)
    ranks = np.array([c // 4 for c in range(52)] + [13], np.int64)
    return points, ranks


def _initial_table(counted: frozenset[Initial27], joker_second: bool = False) -> np.ndarray:
    """``[rank, rank]`` -> 0 or the :class:`Initial27` of two cards in that order."""
    table = np.zeros((14, 14), np.int64)
    for a in range(14):
        for b in range(14):
            cards = [_sample(a), _sample(b)]
            kind = initial_27(cards, counted, joker_second)
            table[a, b] = int(kind) if kind else 0
    return table


def _sample(rank_index: int, suit: int = 0) -> Card:
    return JOKER if rank_index == 13 else card_of(rank_index * 4 + suit)


def _dealer_table(hard_below: int, soft_below: int) -> np.ndarray:
    return np.array(
        [
            total_of(i).value < (soft_below if i % 2 else hard_below)
            for i in range(2 * (MAX_LOW + 1))
        ],
        np.bool_,
    )


# -- finnish27 -----------------------------------------------------------------------
@dataclass(frozen=True)
class Finnish27Kernel:
    """A compiled ``finnish27`` for one set of rules (every wager at the table minimum)."""

    rules: Finnish27Rules
    outcome_names: tuple[str, ...] = OUTCOMES
    wager_ids: tuple[str, ...] = ("player", "dealer", "push")

    @cached_property
    def bonus_keys(self) -> tuple[str, ...]:
        """Every award's key, in the order of the cells (the source's, then those added)."""
        return tuple(BonusTable.labels())

    @property
    def bonuses(self) -> int:
        """Cells per outcome: no bonus, then each award."""
        return len(self.bonus_keys) + 1

    @cached_property
    def unit(self) -> int:
        return units([v for row in self.cell_fractions() for v in row])

    def cell_fractions(self) -> list[list[Fraction]]:
        """Each wager's net result per unit staked in each cell, from the engine's settle."""
        stake = self.rules.table.minimum
        rows: list[list[Fraction]] = []
        for wager in self.wager_ids:
            row = []
            for cell in range(3 * self.bonuses):
                outcome, bonus = divmod(cell, self.bonuses)
                rnd = Finnish27Round(self.rules)
                rnd.outcome = OUTCOMES[outcome]
                keys = self.bonus_keys
                rnd.bonus_key = keys[bonus - 1] if bonus and outcome == 0 else None
                row.append(rnd.settle(wager, stake)[0] / stake)
            rows.append(row)
        return rows

    def cell_nets(self) -> np.ndarray:
        return self._nets

    @cached_property
    def _nets(self) -> np.ndarray:
        """The nets by cell, worked out once per kernel (each cell plays the engine's
        settle: milliseconds that a batch would otherwise spend again)."""
        unit = self.unit
        nets = np.array([[int(v * unit) for v in row] for row in self.cell_fractions()], np.int64)
        return read_only(nets)

    def tables(self) -> dict[str, np.ndarray]:
        return _finnish27_tables(self.rules, self.bonus_keys)

    def _build_tables(self) -> dict[str, np.ndarray]:
        rules = self.rules
        points, ranks = _card_tables()
        totals = _total_table()
        size = 2 * (MAX_LOW + 1)
        hits = np.zeros((size, size), np.bool_)  # [dealer initial, player]
        settle = np.zeros((size, size), np.int64)  # [player, dealer] -> outcome
        for d in range(size):
            dealer = total_of(d)
            for p in range(size):
                player = total_of(p)
                if (d % 2 and dealer.value > 27) or (p % 2 and player.value > 27):
                    continue  # a soft total is never over 27
                try:
                    hits[d, p] = rules.strategy.hits(player, dealer)
                except LookupError:
                    hits[d, p] = False  # not a dealer's two-card total
                settle[p, d] = OUTCOMES.index(compare(player, dealer, rules)[0])
        bonus_of = {key: i + 1 for i, key in enumerate(self.bonus_keys)}
        added = frozenset(rules.bonus.added_awards)
        # by the categories a hand holds (bits): its poker award, in the table's order
        poker = np.zeros(1 << len(PokerCategory), np.int64)
        for held in range(len(poker)):
            award = rules.bonus.held_award(held)
            poker[held] = bonus_of[award] if award else 0
        # by the categories a hand holds: the place of its best in the table's order (0:
        # none), to hold the player's against the dealer's where the table asks
        place = np.array(
            [
                rules.bonus.ranking[best_held(held, rules.bonus.ranking)]
                for held in range(len(poker))
            ],
            np.int64,
        )
        # by total index: may a hand of five cards or more of that total earn a poker award
        poker_ok = np.array(
            [rules.bonus.poker_qualifies(total_of(i).value) for i in range(size)], np.bool_
        )
        # by number of cards: the award of a winning 27 of that many cards (0: none)
        card27 = np.zeros(10, np.int64)
        for count, key in CARD_27_KEYS.items():
            if rules.bonus.pays(key):
                card27[count] = bonus_of[key]
        bonus2 = np.zeros((14, 14), np.int64)
        for a in range(14):
            for b in range(14):
                found = find_bonus(
                    [_sample(a), _sample(b)], [], pays_joanca(rules), False,
                    rules.joanca_joker_second, added=added,
                )  # fmt: skip
                bonus2[a, b] = bonus_of[found] if found else 0
        bonus3 = _three_card_table(rules, bonus_of, added)
        return {
            "base": ShoeTables.of(rules.shoe).base,
            "points": points,
            "ranks": ranks,
            "totals": totals,
            "initial": _initial_table(rules.initial_27s, rules.joanca_joker_second),
            "hits": hits,
            "dealer_hits": _dealer_table(
                rules.dealer_hits_hard_below, rules.dealer_hits_soft_below
            ),
            "settle": settle,
            "poker": poker,
            "place": place,
            "poker_ok": poker_ok,
            "card27": card27,
            "bonus2": bonus2,
            "bonus3": bonus3,
        }

    def cell_outcome(self) -> np.ndarray:
        return np.arange(3 * self.bonuses, dtype=np.int64) // self.bonuses

    def run(
        self, state: np.ndarray, rounds: int, session: int = 0, record: bool = False
    ) -> tuple[BatchResult, np.ndarray]:
        t = self.tables()
        net = self.cell_nets()
        rules = self.rules
        shoe = rules.shoe
        cells, sessions, rec_cell = counters(net, rounds, session, record)
        equal27 = OUTCOMES.index(rules.equal_initial_27s)
        played, shoes = ahead.call(
            _play27,
            state, t["base"], t["points"], t["ranks"], t["totals"], t["initial"], t["hits"],
            t["dealer_hits"], t["settle"], t["poker"], t["place"], rules.bonus.poker_margin,
            t["poker_ok"], t["card27"], t["bonus2"], t["bonus3"], self.bonuses, equal27,
            rules.player_initial_27_wins, rules.jokers_wild, rules.charlie, rules.bonus.bugs,
            rules.both_27 == "by_rules", rules.player_loses_over, shoe.burn,
            shoe.burn_by_first_card, shoe.reshuffle_after, shoe.reshuffle_after_rounds, rounds,
            session, net, cells, sessions, record, rec_cell,
        )  # fmt: skip
        result = BatchResult.of_cells(played, shoes, cells, net, self.cell_outcome(), sessions, 3)
        return result, rec_cell


@lru_cache(maxsize=8)
def _finnish27_tables(rules: Finnish27Rules, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The kernel's tables for ``rules`` (built once per process, and kept on disk)."""
    tables = kept_tables(
        "finnish27 kernel tables", rules, repr(keys), Finnish27Kernel(rules)._build_tables
    )
    return {name: read_only(table) for name, table in tables.items()}


def kept_tables(
    kind: str,
    rules: Finnish27Rules | TwentyOne2427Rules,
    extra: str,
    build: Callable[[], dict[str, np.ndarray]],
) -> dict[str, np.ndarray]:
    """``build()``'s tables, kept in the disk cache of exact results
    (:func:`cardroom.analysis.cache.cached_json`, keyed by the rules as TOML, ``extra`` and
    the code): building them asks the engine tens of thousands of questions (a tenth of a
    second before a run's workers start), reading them a few thousandths.  Each table is
    kept as its type, its shape and its entries that are not zero, and made again exactly.
    """
    from cardroom.analysis.cache import cached_json  # lazy: the cache (platformdirs)

    def encode(tables: dict[str, np.ndarray]) -> dict[str, Any]:
        kept = {}
        for name, table in tables.items():
            where = np.flatnonzero(table)
            values = table.ravel()[where]
            kept[name] = [table.dtype.str, list(table.shape), where.tolist(), values.tolist()]
        return kept

    def decode(data: dict[str, Any]) -> dict[str, np.ndarray]:
        tables = {}
        for name, (dtype, shape, where, values) in data.items():
            table = np.zeros(tuple(shape), np.dtype(dtype))
            table.ravel()[np.array(where, np.int64)] = np.array(values, table.dtype)
            tables[name] = table
        return tables

    parts = [rules_to_toml(rules), extra, _simulation_digest()]
    return cached_json(kind, parts, build, encode, decode)


@cache
def _simulation_digest() -> str:
    """A digest of the simulator's own source (the card codes the tables are indexed by):
    the cache's key has the core's, the games' and the analysis' already."""
    digest = hashlib.sha256()
    for path in sorted(Path(common.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: :func:`cardroom.games.finnish.poker.makes_five`, compiled
five_of_a_kind = njit(inline="always")(makes_five)


#: :func:`cardroom.games.finnish.poker.held_mask`, compiled: the categories some five of
#: the cards show, as bits
poker_held = njit(inline="always")(held_mask)


def _three_card_table(
    rules: Finnish27Rules, bonus_of: Mapping[str, int], added: frozenset[str]
) -> np.ndarray:
    """``[rank, rank, rank, suits, dealer's Nines]`` -> the bonus index of a winning
    hand of three cards (0: none), from the awards of :mod:`~cardroom.games.finnish.bonuses`:
    rank indices as :data:`ranks` (13: a Joker), suits as ``16 s0 + 4 s1 + s2``, and
    1 where the dealer's first two cards are both Nines.  Only the hands of a shape some
    award is for are asked."""
    table = np.zeros((14, 14, 14, 64, 2), np.int64)
    shapes = {award.shape for award in AWARDS if award.cards == 3}
    for a, b, c in product(range(14), repeat=3):
        if tuple(sorted(_sample(i).rank.number for i in (a, b, c))) not in shapes:
            continue
        for suits in range(64):
            cards = [_sample(a, suits // 16), _sample(b, suits // 4 % 4), _sample(c, suits % 4)]
            for nines in (0, 1):
                found = find_bonus(
                    cards, NINES_DEALER if nines else [],
                    nines_by_suit=rules.bonus.nines_vs_dealer_by_suit, added=added,
                )  # fmt: skip
                table[a, b, c, suits, nines] = bonus_of[found] if found else 0
    return table


@njit(inline="always")
def hand_held(
    hand: np.ndarray, n: int, counts: np.ndarray, suit_len: np.ndarray, suit_mask: np.ndarray,
    bug: bool = False,
) -> int:  # fmt: skip
    """The poker categories the first ``n`` card codes of ``hand`` hold, as bits (the
    three arrays are scratch space: cards per poker value, cards and values held per
    suit)."""
    counts[:] = 0
    suit_len[:] = 0
    suit_mask[:] = 0
    jokers = 0
    for i in range(n):
        code = hand[i]
        if code == JOKER_CODE:
            jokers += 1
            continue
        value = 14 if code // 4 == 0 else code // 4 + 1
        counts[value] += 1
        suit_len[code % 4] += 1
        suit_mask[code % 4] |= 1 << value
    return poker_held(counts, suit_len, suit_mask, jokers, bug)


@njit(cache=True)
def _play27(
    state: np.ndarray, base: np.ndarray, points: np.ndarray, ranks: np.ndarray,
    totals: np.ndarray, initial: np.ndarray, hits: np.ndarray, dealer_hits: np.ndarray,
    settle: np.ndarray, poker: np.ndarray, place: np.ndarray, margin: int,
    poker_ok: np.ndarray, card27: np.ndarray,
    bonus2: np.ndarray, bonus3: np.ndarray, bonuses: int, equal27: int, player27_wins: bool,
    wild: bool,
    charlie: int, bug: bool, win27: bool,
    loses_over: int, burn: int, burn_by_first_card: bool, reshuffle_after: int,
    round_limit: int, rounds: int, session: int, net: np.ndarray, cells: np.ndarray,
    sessions: np.ndarray, record: bool, rec_cell: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    size = base.shape[0]
    cards = base.copy()
    hand = np.zeros(size, np.int8)
    dealer_hand = np.zeros(size, np.int8)
    counts = np.zeros(15, np.int64)
    suit_len = np.zeros(4, np.int64)
    suit_mask = np.zeros(4, np.int64)
    pos = size
    shoes = 0
    played = 0
    in_shoe = 0  # rounds begun from this shuffle
    while played < rounds:
        if shoes == 0 or pos >= reshuffle_after or (round_limit and in_shoe >= round_limit):
            pos = new_shoe(state, cards, burn, burn_by_first_card)
            shoes += 1
            in_shoe = 0
        if pos + 4 > size:
            break
        in_shoe += 1
        p1, d1, p2, d2 = (
            cards[_U64(pos)],
            cards[_U64(pos + 1)],
            cards[_U64(pos + 2)],
            cards[_U64(pos + 3)],
        )
        pos += 4
        hand[0] = p1
        hand[1] = p2
        n = 2
        dealer_hand[0] = d1
        dealer_hand[1] = d2
        dn = 2
        pk = initial[_U64(ranks[_U64(p1)]), _U64(ranks[_U64(p2)])]
        dk = initial[_U64(ranks[_U64(d1)]), _U64(ranks[_U64(d2)])]
        outcome = -1
        if pk or dk:
            if pk and dk:
                outcome = 0 if player27_wins or pk > dk else (equal27 if pk == dk else 1)
            else:
                outcome = 0 if pk else 1
        else:
            low = points[_U64(p1)] + points[_U64(p2)]
            ace = ranks[_U64(p1)] == 0 or ranks[_U64(p2)] == 0
            dlow = points[_U64(d1)] + points[_U64(d2)]
            dace = ranks[_U64(d1)] == 0 or ranks[_U64(d2)] == 0
            dealer_initial = totals[_U64(dlow), _U64(dace)]
            player = totals[_U64(low), _U64(ace)]
            while hits[_U64(dealer_initial), _U64(player)]:
                if pos >= size or low > LOW_GUARD:
                    break
                card = cards[_U64(pos)]
                pos += 1
                hand[n] = card
                n += 1
                if wild and ranks[_U64(card)] == JOKER_RANK:
                    player = WILD_27  # a Joker wild: 27, and the hand stops
                    break
                low += points[_U64(card)]
                ace = ace or ranks[_U64(card)] == 0
                player = totals[_U64(low), _U64(ace)]
                if n == charlie:
                    break  # a Charlie if 27 or less, over 27 if not
            value = player // 2
            charlied = n == charlie and value <= 27
            if hits[_U64(dealer_initial), _U64(player)] and not charlied:
                break  # the shoe ran out mid-round (never with the real rules)
            if charlied or (value == 27 and win27):
                outcome = 0
            elif value > loses_over:
                outcome = 1
            else:
                dealer = dealer_initial
                while dealer_hits[_U64(dealer)]:
                    if pos >= size:
                        break
                    card = cards[_U64(pos)]
                    pos += 1
                    dealer_hand[dn] = card
                    dn += 1
                    if wild and ranks[_U64(card)] == JOKER_RANK:
                        dealer = WILD_27
                        break
                    dlow += points[_U64(card)]
                    dace = dace or ranks[_U64(card)] == 0
                    dealer = totals[_U64(dlow), _U64(dace)]
                if dealer_hits[_U64(dealer)]:
                    break
                outcome = settle[_U64(player), _U64(dealer)]
        bonus = 0
        if outcome == 0:
            if n == 2:
                bonus = bonus2[_U64(ranks[_U64(p1)]), _U64(ranks[_U64(p2)])]
            elif n < card27.shape[0] and card27[n] and player // 2 == 27:
                bonus = card27[n]  # a 27 of six to nine cards, paid by its number of cards
            elif n == 3:
                suits = hand[0] % 4 * 16 + hand[1] % 4 * 4 + hand[2] % 4
                nines = int(ranks[_U64(d1)] == 8 and ranks[_U64(d2)] == 8)
                bonus = bonus3[ranks[hand[0]], ranks[hand[1]], ranks[hand[2]], suits, nines]
            elif n >= 5 and poker_ok[player]:
                held = hand_held(hand, n, counts, suit_len, suit_mask, bug)
                bonus = poker[held]
                if bonus and dn >= 5:
                    theirs = hand_held(dealer_hand, dn, counts, suit_len, suit_mask, bug)
                    if place[held] - place[theirs] < margin:
                        bonus = 0
        cell = outcome * bonuses + bonus
        if session or record:
            count_round(cell, played, cells, session, sessions, net, record, rec_cell)
        else:  # (a plain run: the count alone, which compiles to a faster round)
            cells[_U64(cell)] += 1
        played += 1
    return played, shoes


# -- 21-24-27 ------------------------------------------------------------------------
@dataclass(frozen=True)
class TwentyOne2427Kernel:
    """A compiled ``21-24-27`` with the player's decisions from a table."""

    rules: TwentyOne2427Rules
    decisions: np.ndarray  # [dealer initial, player] -> hit (forced plays included)
    strategy: str
    outcome_names: tuple[str, ...] = OUTCOMES
    wager_ids: tuple[str, ...] = ("player",)

    @classmethod
    def build(cls, rules: TwentyOne2427Rules, strategy: str = "basic") -> TwentyOne2427Kernel:
        """The decisions of ``strategy`` ("basic": the source's table; "optimal": the
        solved one), with the rules' forced plays where they apply."""
        if strategy not in ("basic", "optimal"):
            raise ValueError(f"strategy: basic or optimal, not {strategy!r}")

        def decide() -> dict[str, np.ndarray]:
            if strategy == "basic":
                table = TableStrategy()

                def hits(player: Total, dealer: Total) -> bool:
                    return table.decide(player, dealer) is Action.HIT
            else:
                hits = solve_21_24_27(rules).hits
            size = 2 * (MAX_LOW + 1)
            decisions = np.zeros((size, size), np.bool_)
            for d in range(size):
                dealer = total_of(d)
                for p in range(size):
                    player = total_of(p)
                    if player.value > 27 or (d % 2 and dealer.value > 27):
                        continue  # a bust hand decides nothing; no soft total is over 27
                    try:
                        action, _ = rules.forced.forced(player, dealer)
                        if action is None:
                            decisions[d, p] = hits(player, dealer)
                        else:
                            decisions[d, p] = action is Action.HIT
                    except LookupError:
                        continue  # not a dealer's two-card total
            return {"decisions": decisions}

        kept = kept_tables("21-24-27 kernel decisions", rules, strategy, decide)
        return cls(rules, kept["decisions"], strategy)

    @cached_property
    def unit(self) -> int:
        return units([v for row in self.cell_fractions() for v in row])

    def cell_nets(self) -> np.ndarray:
        return self._nets

    @cached_property
    def _nets(self) -> np.ndarray:
        unit = self.unit
        return read_only(np.array([[int(v * unit) for v in self.cell_fractions()[0]]], np.int64))

    @cached_property
    def _tables(self) -> tuple[np.ndarray, ...]:
        """The kernel's tables but the decisions, built once per kernel rather than per
        batch (and kept on disk: :func:`kept_tables`)."""
        rules = self.rules
        kept = kept_tables("21-24-27 kernel tables", rules, "", lambda: _tables_2124(rules))
        return tuple(read_only(kept[name]) for name in TABLES_2124)

    def cell_fractions(self) -> list[list[Fraction]]:
        stake = self.rules.table.minimum
        row = []
        for outcome in OUTCOMES:
            rnd = TwentyOne2427Round(self.rules)
            rnd.outcome = outcome
            row.append(rnd.settle("player", stake)[0] / stake)
        return [row]

    def cell_outcome(self) -> np.ndarray:
        return np.arange(3, dtype=np.int64)

    def run(
        self, state: np.ndarray, rounds: int, session: int = 0, record: bool = False
    ) -> tuple[BatchResult, np.ndarray]:
        rules = self.rules
        net = self.cell_nets()
        base, points, ranks, totals, initial, dealer_hits, settle = self._tables
        both27 = OUTCOMES.index(rules.both_initial_27s)
        shoe = rules.shoe
        cells, sessions, rec_cell = counters(net, rounds, session, record)
        played, shoes = ahead.call(
            _play2124,
            state, base, points, ranks, totals, initial, self.decisions, dealer_hits,
            settle, both27, shoe.burn, shoe.burn_by_first_card, shoe.reshuffle_after,
            shoe.reshuffle_after_rounds,
            rounds, session, net, cells, sessions, record, rec_cell,
        )  # fmt: skip
        result = BatchResult.of_cells(played, shoes, cells, net, self.cell_outcome(), sessions, 3)
        return result, rec_cell


#: the names of 21-24-27's tables, in the order the kernel takes them
TABLES_2124 = ("base", "points", "ranks", "totals", "initial", "dealer_hits", "settle")


def _tables_2124(rules: TwentyOne2427Rules) -> dict[str, np.ndarray]:
    """21-24-27's tables but the decisions, by name."""
    points, ranks = _card_tables()
    tables = (
        ShoeTables.of(rules.shoe).base, points, ranks, _total_table(),
        _initial_table(rules.initial_27s, rules.joanca_joker_second),
        _dealer_table(rules.dealer_hits_hard_below, rules.dealer_hits_soft_below),
        _settle_2124(rules),
    )  # fmt: skip
    return dict(zip(TABLES_2124, tables, strict=True))


@lru_cache(maxsize=8)
def _settle_2124(rules: TwentyOne2427Rules) -> np.ndarray:
    """``[player, dealer]`` -> outcome index, from the game's ``compare``."""
    size = 2 * (MAX_LOW + 1)
    settle = np.zeros((size, size), np.int64)
    for p in range(size):
        for d in range(size):
            player, dealer = total_of(p), total_of(d)
            settle[p, d] = OUTCOMES.index(compare2124(player, dealer, rules)[0])
    return settle


# The deal, the player's draw and the dealer's draw are written out in each kernel
# rather than shared through compiled helpers: helpers returning tuples measured
# about half the speed here.
@njit(cache=True)
def _play2124(
    state: np.ndarray, base: np.ndarray, points: np.ndarray, ranks: np.ndarray,
    totals: np.ndarray, initial: np.ndarray, decisions: np.ndarray,
    dealer_hits: np.ndarray, settle: np.ndarray, both27: int, burn: int,
    burn_by_first_card: bool, reshuffle_after: int, round_limit: int, rounds: int,
    session: int, net: np.ndarray, cells: np.ndarray, sessions: np.ndarray, record: bool,
    rec_cell: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    size = base.shape[0]
    cards = base.copy()
    pos = size
    shoes = 0
    played = 0
    in_shoe = 0  # rounds begun from this shuffle
    while played < rounds:
        if shoes == 0 or pos >= reshuffle_after or (round_limit and in_shoe >= round_limit):
            pos = new_shoe(state, cards, burn, burn_by_first_card)
            shoes += 1
            in_shoe = 0
        if pos + 4 > size:
            break
        in_shoe += 1
        p1, d1, p2, d2 = (
            cards[_U64(pos)],
            cards[_U64(pos + 1)],
            cards[_U64(pos + 2)],
            cards[_U64(pos + 3)],
        )
        pos += 4
        pk = initial[_U64(ranks[_U64(p1)]), _U64(ranks[_U64(p2)])]
        dk = initial[_U64(ranks[_U64(d1)]), _U64(ranks[_U64(d2)])]
        outcome = -1
        if pk and dk:
            outcome = both27
        elif pk:
            outcome = 0
        elif dk:
            outcome = 1
        else:
            low = points[_U64(p1)] + points[_U64(p2)]
            ace = ranks[_U64(p1)] == 0 or ranks[_U64(p2)] == 0
            dlow = points[_U64(d1)] + points[_U64(d2)]
            dace = ranks[_U64(d1)] == 0 or ranks[_U64(d2)] == 0
            dealer_initial = totals[_U64(dlow), _U64(dace)]
            player = totals[_U64(low), _U64(ace)]
            while player // 2 <= 27 and decisions[_U64(dealer_initial), _U64(player)]:
                if pos >= size:
                    break
                card = cards[_U64(pos)]
                pos += 1
                low += points[_U64(card)]
                ace = ace or ranks[_U64(card)] == 0
                player = totals[_U64(low), _U64(ace)]
            if player // 2 <= 27 and decisions[_U64(dealer_initial), _U64(player)]:
                break  # the shoe ran out mid-round (never with the real rules)
            if player // 2 > 27:
                outcome = 1
            else:
                dealer = dealer_initial
                while dealer_hits[_U64(dealer)]:
                    if pos >= size:
                        break
                    card = cards[_U64(pos)]
                    pos += 1
                    dlow += points[_U64(card)]
                    dace = dace or ranks[_U64(card)] == 0
                    dealer = totals[_U64(dlow), _U64(dace)]
                if dealer_hits[_U64(dealer)]:
                    break
                outcome = settle[_U64(player), _U64(dealer)]
        if session or record:
            count_round(outcome, played, cells, session, sessions, net, record, rec_cell)
        else:  # (a plain run: the count alone, which compiles to a faster round)
            cells[_U64(outcome)] += 1
        played += 1
    return played, shoes
