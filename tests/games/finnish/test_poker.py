"""Tests for the poker evaluator in :mod:`cardroom.games.finnish.poker`.

Three kinds of test:

* hand-written examples of every category, with and without Jokers, for hands
  of 5 to 15 cards and hands holding duplicate cards from a multi-deck shoe;
* a brute-force comparison with an independent reference written here: every
  Joker is replaced by every one of the 52 cards, every five-card subset of
  every such hand is classified by a plain five-card classifier, and the best
  result must equal the evaluator's, on 100,000 random shoe hands enriched
  with Jokers (plus a set of bigger hands);
* Hypothesis properties (adding a card or turning a card into a Joker never
  lowers the category; card order does not matter).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations, product
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.core.cards import JOKER, RANKS, Card, Deck, Suit, parse_cards
from cardroom.games.finnish.poker import PokerCategory, PokerHand, best_category, best_hand

C = PokerCategory

# ---------------------------------------------------------------------------
# 1. Hand-written examples
# ---------------------------------------------------------------------------

EXAMPLES = [
    # -- no Jokers, five cards
    pytest.param("As Kd 9c 7h 3s", C.HIGH_CARD, (14, 13, 9, 7, 3), id="high-card"),
    pytest.param("Qs Kd Ac 2h 3s", C.HIGH_CARD, (14, 13, 12, 3, 2), id="no-wrap-around"),
    pytest.param("As Ad 9c 7h 3s", C.PAIR, (14, 14, 9, 7, 3), id="pair"),
    pytest.param("As Ad 9c 9h 3s", C.TWO_PAIR, (14, 14, 9, 9, 3), id="two-pair"),
    pytest.param("7s 7d 7c Kh 2s", C.THREE_OF_A_KIND, (7, 7, 7, 13, 2), id="trips"),
    pytest.param("9s Td Jc Qh Ks", C.STRAIGHT, (13, 12, 11, 10, 9), id="straight"),
    pytest.param("Ts Jd Qc Kh As", C.STRAIGHT, (14, 13, 12, 11, 10), id="straight-ace-high"),
    pytest.param("As 2d 3c 4h 5s", C.STRAIGHT, (5, 4, 3, 2, 1), id="wheel"),
    pytest.param("Ks Kd Kc 2h 2s", C.FULL_HOUSE, (13, 13, 13, 2, 2), id="full-house"),
    pytest.param("9s 9d 9c 9h Ks", C.FOUR_OF_A_KIND, (9, 9, 9, 9, 13), id="quads"),
    pytest.param("2h 5h 9h Jh Kh", C.FLUSH, (13, 11, 9, 5, 2), id="flush"),
    pytest.param("Qs Ks As 2s 3s", C.FLUSH, (14, 13, 12, 3, 2), id="wrap-around-is-only-flush"),
    pytest.param("5d 6d 7d 8d 9d", C.STRAIGHT_FLUSH, (9, 8, 7, 6, 5), id="straight-flush"),
    pytest.param("Ac Kc Qc Jc Tc", C.STRAIGHT_FLUSH, (14, 13, 12, 11, 10), id="royal-flush"),
    pytest.param("Ac 2c 3c 4c 5c", C.STRAIGHT_FLUSH, (5, 4, 3, 2, 1), id="steel-wheel"),
    # -- duplicates from a multi-deck shoe
    pytest.param("9s 9s 9h 9d 9c", C.FIVE_OF_A_KIND, (9, 9, 9, 9, 9), id="five-of-a-kind"),
    pytest.param("7h 7h 7h 7h 7h", C.FIVE_OF_A_KIND, (7,) * 5, id="five-identical-cards"),
    pytest.param("7h 7h 7h 7h 2h", C.FLUSH, (7, 7, 7, 7, 2), id="flush-beats-quads-dup"),
    pytest.param("As As Ks Qs 2s", C.FLUSH, (14, 14, 13, 12, 2), id="flush-with-a-pair-dup"),
    pytest.param("Kd Kd Kd 4c 4c", C.FULL_HOUSE, (13, 13, 13, 4, 4), id="full-house-dup"),
    pytest.param("8h 8h 9h Th Jh Qh", C.STRAIGHT_FLUSH, (12, 11, 10, 9, 8), id="sf-dup-6"),
    # -- Jokers, five cards
    pytest.param("As Jo 9c 7h 3d", C.PAIR, (14, 14, 9, 7, 3), id="joker-pair"),
    pytest.param("As Ah Jo Kd 2c", C.THREE_OF_A_KIND, (14, 14, 14, 13, 2), id="joker-trips"),
    pytest.param("Jo Jo 4s 9d Kc", C.THREE_OF_A_KIND, (13, 13, 13, 9, 4), id="2-jokers-trips"),
    pytest.param("Jo 2d 3c 4h 5s", C.STRAIGHT, (6, 5, 4, 3, 2), id="joker-straight-end"),
    pytest.param("9s Td Jo Qh Kc", C.STRAIGHT, (13, 12, 11, 10, 9), id="joker-straight-gap"),
    pytest.param("Jo Jo 4s 7d 8c", C.STRAIGHT, (8, 7, 6, 5, 4), id="2-jokers-straight"),
    pytest.param("Jo As 2d 3c 4h", C.STRAIGHT, (5, 4, 3, 2, 1), id="joker-wheel"),
    pytest.param("Ks Kd 2c 2h Jo", C.FULL_HOUSE, (13, 13, 13, 2, 2), id="joker-full-house"),
    pytest.param("9s 9d 9c Jo Ks", C.FOUR_OF_A_KIND, (9, 9, 9, 9, 13), id="joker-quads"),
    pytest.param("9s 9d Jo Jo 4c", C.FOUR_OF_A_KIND, (9, 9, 9, 9, 4), id="2-jokers-quads"),
    pytest.param("Jo Jo Jo 2c 7d", C.FOUR_OF_A_KIND, (7, 7, 7, 7, 2), id="3-jokers-quads"),
    pytest.param("2h 5h 9h Jh Jo", C.FLUSH, (14, 11, 9, 5, 2), id="joker-flush"),
    pytest.param("Ah 5h 9h Jo Jo", C.FLUSH, (14, 14, 14, 9, 5), id="2-jokers-flush"),
    pytest.param("Jo Jo 5h 6h 7h", C.STRAIGHT_FLUSH, (9, 8, 7, 6, 5), id="2-jokers-sf"),
    pytest.param("Jo As 2s 3s 4s", C.STRAIGHT_FLUSH, (5, 4, 3, 2, 1), id="joker-steel-wheel"),
    pytest.param("Jo Ks Qs Js Ts", C.STRAIGHT_FLUSH, (14, 13, 12, 11, 10), id="joker-royal"),
    pytest.param("9s 9s 9h 9d Jo", C.FIVE_OF_A_KIND, (9, 9, 9, 9, 9), id="joker-five"),
    pytest.param("Jo Jo Jo Jo 2c", C.FIVE_OF_A_KIND, (2, 2, 2, 2, 2), id="4-jokers-five"),
    pytest.param("Jo Jo Jo Jo Jo", C.FIVE_OF_A_KIND, (14,) * 5, id="all-jokers"),
    # -- six and seven cards
    pytest.param("As Ks Qs Js Ts 9s", C.STRAIGHT_FLUSH, (14, 13, 12, 11, 10), id="6-royal"),
    pytest.param("2c 3d 4h 5s 6c Kd", C.STRAIGHT, (6, 5, 4, 3, 2), id="6-straight"),
    pytest.param("2c 3d 4h 5s 6c Kd Kh", C.STRAIGHT, (6, 5, 4, 3, 2), id="7-straight-not-pair"),
    pytest.param("8s 8d 8c 4h 4s 4d Ac", C.FULL_HOUSE, (8, 8, 8, 4, 4), id="7-two-trips"),
    pytest.param("As Ad Ks Kd 2c 2h 3s", C.TWO_PAIR, (14, 14, 13, 13, 3), id="7-three-pairs"),
    pytest.param("As Ad Ks Kd Qc 2c 2h", C.TWO_PAIR, (14, 14, 13, 13, 12), id="7-three-pairs-b"),
    pytest.param("9s 9d 9c 9h 2h 5h Kh", C.FOUR_OF_A_KIND, (9, 9, 9, 9, 13), id="7-quads"),
    pytest.param("9s 9d Jo 8h 7h 6h 5h", C.STRAIGHT_FLUSH, (9, 8, 7, 6, 5), id="7-sf-over-quads"),
    pytest.param("Jo 8h 7h 6s 2h 7c 7d", C.FOUR_OF_A_KIND, (7, 7, 7, 7, 8), id="7-jo-quads"),
    pytest.param("Jo 8h 7h 6h 2h 7c 3d", C.FLUSH, (14, 8, 7, 6, 2), id="7-jo-flush"),
    pytest.param("Jo Jo Ts 9s 2d 2c 3h", C.FOUR_OF_A_KIND, (2, 2, 2, 2, 10), id="7-jo-jo-quads"),
    pytest.param("Jo Jo Ts 9s 2d 2c 4h", C.FOUR_OF_A_KIND, (2, 2, 2, 2, 10), id="7-2jo"),
    pytest.param("Jo Qd Qc 5h 5s 9c 2d", C.FULL_HOUSE, (12, 12, 12, 5, 5), id="7-jo-fh"),
    pytest.param("Jo Ad Kc 5h 5s 9c 2d", C.THREE_OF_A_KIND, (5, 5, 5, 14, 13), id="7-jo-trips"),
    # -- eight, ten and fifteen cards
    pytest.param("9s 9d 9c 9h 2h 5h Kh Qh", C.FLUSH, (13, 12, 9, 5, 2), id="8-flush-over-quads"),
    pytest.param(
        "2c 2d 5h 7s 9c Jd Kh Ks Ac Jo", C.FULL_HOUSE, (13, 13, 13, 2, 2), id="10-jo-full-house"
    ),
    pytest.param("2c 3c 4c 5c 7d 8d 9d Th Jh Qs", C.STRAIGHT, (12, 11, 10, 9, 8), id="10-straight"),
    pytest.param("Qs Qs Qh Qd Qc 2c 3d 4h 5s 6c", C.FIVE_OF_A_KIND, (12,) * 5, id="10-five-dup"),
    pytest.param("2c 4d 6h 8s Tc Qd Kh 3s 5c 7d", C.STRAIGHT, (8, 7, 6, 5, 4), id="10-straight-b"),
    pytest.param(
        "2c 4d 6h 8s Tc Qd Kh 9s As Jd", C.STRAIGHT, (14, 13, 12, 11, 10), id="10-broadway"
    ),
    pytest.param(
        "2c 2d 6h 6s Tc Td Kh 9s 3s Jd", C.TWO_PAIR, (10, 10, 6, 6, 13), id="10-three-pair"
    ),
    pytest.param(
        "Jo Jo Qh Kh Ah 2c 3d 4s 5c 6d 7s 8c 9d Ts Jc",
        C.STRAIGHT_FLUSH,
        (14, 13, 12, 11, 10),
        id="15-2jo-royal",
    ),
    pytest.param(
        "As Kd Qc Jh Ts 9d 8c 7h 6s 5d 4c 3h 2s 2d 2c",
        C.STRAIGHT,
        (14, 13, 12, 11, 10),
        id="15-broadway-over-trips",
    ),
]


@pytest.mark.parametrize(("codes", "category", "ranks"), EXAMPLES)
def test_example(codes: str, category: PokerCategory, ranks: tuple[int, ...]) -> None:
    cards = parse_cards(codes)
    assert best_category(cards) is category
    assert best_hand(cards) == PokerHand(category, ranks)


@pytest.mark.parametrize(("codes", "category", "ranks"), EXAMPLES)
def test_example_agrees_with_reference(
    codes: str, category: PokerCategory, ranks: tuple[int, ...]
) -> None:
    """The examples are also a check on the brute-force reference below."""
    [score] = reference_scores([hand_ids(parse_cards(codes))])
    assert decode(score) == PokerHand(category, ranks)


def test_every_category_has_an_example() -> None:
    seen = {param.values[1] for param in EXAMPLES}
    assert seen == set(PokerCategory)
    with_joker = {param.values[1] for param in EXAMPLES if "Jo" in str(param.values[0])}
    assert with_joker >= set(PokerCategory) - {C.HIGH_CARD, C.TWO_PAIR}  # these need no Joker


def test_labels() -> None:
    assert [c.label for c in PokerCategory] == [
        "High card",
        "Pair",
        "Two pair",
        "Three of a kind",
        "Straight",
        "Full house",
        "Four of a kind",
        "Flush",
        "Straight flush",
        "Five of a kind",
    ]
    assert best_hand(parse_cards("Jo Jo 2c 2d 2h")).label == "Five of a kind"


def test_category_order_is_the_games_own() -> None:
    assert C.FOUR_OF_A_KIND < C.FLUSH < C.STRAIGHT_FLUSH < C.FIVE_OF_A_KIND
    assert C.STRAIGHT < C.FULL_HOUSE < C.FOUR_OF_A_KIND


def test_hands_order_by_category_then_ranks() -> None:
    hands = [best_hand(parse_cards(codes)) for codes in ("As 2d 3c 4h 5s", "2s 3d 4c 5h 6s")]
    assert max(hands).ranks == (6, 5, 4, 3, 2)
    pair_aces = best_hand(parse_cards("As Ad 4c 3h 2s"))
    pair_kings = best_hand(parse_cards("Ks Kd Qc Jh 9s"))
    quads = best_hand(parse_cards("2s 2d 2c 2h 3s"))
    flush = best_hand(parse_cards("2s 3s 4s 5s 7s"))
    assert pair_kings < pair_aces < quads < flush
    assert max([quads, flush, pair_aces]) is flush


@pytest.mark.parametrize("codes", ["", "As Kd Qh Jc", "Jo Jo Jo Jo"])
def test_fewer_than_five_cards_is_an_error(codes: str) -> None:
    with pytest.raises(ValueError, match="at least 5 cards"):
        best_category(parse_cards(codes))
    with pytest.raises(ValueError, match="at least 5 cards"):
        best_hand(parse_cards(codes))


# ---------------------------------------------------------------------------
# 2. Brute force against an independent, deliberately naive reference
# ---------------------------------------------------------------------------
#
# Card ids: 0-51 are suit * 13 + rank index (Ace 0 ... King 12); 52 is a Joker.

JOKER_ID = 52
SUITS = list(Suit)
ID_OF_CARD = {
    Card(rank, suit): s * 13 + r for s, suit in enumerate(SUITS) for r, rank in enumerate(RANKS)
} | {JOKER: JOKER_ID}
CARD_OF_ID = {i: card for card, i in ID_OF_CARD.items()}
SCORE_BASE = 15  # tie-break values are at most 14


def hand_ids(cards: Iterable[Card]) -> list[int]:
    return [ID_OF_CARD[card] for card in cards]


def encode(category: int, ranks: Sequence[int]) -> int:
    """One integer per hand, ordered like (category, ranks)."""
    score = category
    for rank in ranks:
        score = score * SCORE_BASE + rank
    return score


def decode(score: int) -> PokerHand:
    ranks = []
    for _ in range(5):
        score, rank = divmod(score, SCORE_BASE)
        ranks.append(rank)
    return PokerHand(PokerCategory(score), tuple(reversed(ranks)))


@cache
def classify_five(ranks: tuple[int, ...], flush: bool) -> int:
    """Plain five-card poker: ``ranks`` are five rank indices (Ace 0 ... King 12).

    Returns the encoded (category, tie-break ranks).  Written from the rules,
    independently of the module under test.
    """
    values = sorted((14 if r == 0 else r + 1 for r in ranks), reverse=True)
    counts = Counter(values)
    shape = sorted(counts.values(), reverse=True)
    # Bigger groups first, then higher ranks.
    grouped = sorted(values, key=lambda v: (counts[v], v), reverse=True)
    straight_high = 0
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_high = values[0]
        elif values == [14, 5, 4, 3, 2]:
            straight_high = 5
    straight = [straight_high - i for i in range(5)]
    if shape == [5]:
        return encode(C.FIVE_OF_A_KIND, values)
    if straight_high and flush:
        return encode(C.STRAIGHT_FLUSH, straight)
    if flush:
        return encode(C.FLUSH, values)
    if shape == [4, 1]:
        return encode(C.FOUR_OF_A_KIND, grouped)
    if shape == [3, 2]:
        return encode(C.FULL_HOUSE, grouped)
    if straight_high:
        return encode(C.STRAIGHT, straight)
    if shape == [3, 1, 1]:
        return encode(C.THREE_OF_A_KIND, grouped)
    if shape == [2, 2, 1]:
        return encode(C.TWO_PAIR, grouped)
    if shape == [2, 1, 1, 1]:
        return encode(C.PAIR, grouped)
    return encode(C.HIGH_CARD, values)


def score_five(ids: Sequence[int]) -> int:
    """Score of five real cards given by id."""
    return classify_five(tuple(sorted(i % 13 for i in ids)), len({i // 13 for i in ids}) == 1)


def naive_best_score(ids: Sequence[int]) -> int:
    """The naive reference, literally: every card for every Joker (ordered), then
    every five of the resulting cards."""
    real = [i for i in ids if i != JOKER_ID]
    jokers = len(ids) - len(real)
    best = -1
    for substitutes in product(range(52), repeat=jokers):
        for five in combinations(real + list(substitutes), 5):
            best = max(best, score_five(five))
    return best


# The same enumeration made fast enough for 100,000 hands, still exhaustive:
#
# * Loop order is swapped: for every five-card subset of the hand, with k of
#   its cards Jokers, try every substitute for those k Jokers (the hand's other
#   Jokers do not affect that subset).  The k Jokers are interchangeable, so
#   the substitutes are the unordered choices of k cards out of 52, repeats
#   allowed.  The maximum over everything is unchanged.
# * The value for a (real cards of the subset, k) pair is memoised.
# * Those values are computed with NumPy, all substitutes at once.  A five-card
#   combination is looked up in a table of ``classify_five`` over every rank
#   multiset and flush flag.  The multiset is addressed by its rank counts
#   packed in base 6; to keep the table small the count vector is split into
#   Ace-7 and 8-King halves, each mapped to a compact index.  The packed
#   counts (and the suit) add up over cards, so the real cards and the
#   substitutes are packed separately and only added per combination.

IntArray = npt.NDArray[np.integer[Any]]  # int32 codes, int8 card ids
SPLIT = 7  # ranks Ace..7 go in the low half, 8..King in the high half
NO_CARDS = 4  # "suit" of an empty part: fits any flush
MIXED = -1  # suit of a part holding more than one suit
ROWS_PER_CHUNK = 1 << 21


class Reference:
    def __init__(self) -> None:
        weight_low = [6**r if r < SPLIT else 0 for r in range(13)]
        weight_high = [6 ** (r - SPLIT) if r >= SPLIT else 0 for r in range(13)]
        low_codes: dict[int, int] = {}
        high_codes: dict[int, int] = {}
        entries: list[tuple[int, int, int, int]] = []
        for ranks in _multisets(13, 5):
            low = low_codes.setdefault(sum(weight_low[r] for r in ranks), len(low_codes))
            high = high_codes.setdefault(sum(weight_high[r] for r in ranks), len(high_codes))
            for flush in (0, 1):
                entries.append((flush, low, high, classify_five(ranks, bool(flush))))
        self.low_index = np.full(6**SPLIT, -1, dtype=np.int32)
        self.low_index[list(low_codes)] = list(low_codes.values())
        self.high_index = np.full(6 ** (13 - SPLIT), -1, dtype=np.int32)
        self.high_index[list(high_codes)] = list(high_codes.values())
        self.n_low, self.n_high = len(low_codes), len(high_codes)
        self.table = np.full(2 * self.n_low * self.n_high, -1, dtype=np.int32)
        for flush, low, high, score in entries:
            self.table[(flush * self.n_low + low) * self.n_high + high] = score
        ids = np.arange(52)
        self.card_low = np.array(weight_low, dtype=np.int32)[ids % 13]
        self.card_high = np.array(weight_high, dtype=np.int32)[ids % 13]
        self.card_suit = (ids // 13).astype(np.int8)
        self.memo: dict[tuple[tuple[int, ...], int], int] = {}
        self.substitutes: dict[int, tuple[IntArray, IntArray, IntArray]] = {}

    def pack(self, parts: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """Packed low counts, high counts and common suit of each row of card ids."""
        if parts.shape[1] == 0:
            zero = np.zeros(len(parts), dtype=np.int32)
            return zero, zero, zero + NO_CARDS
        suits = self.card_suit[parts]
        suit = np.where((suits == suits[:, :1]).all(axis=1), suits[:, 0], MIXED)
        low = self.card_low[parts].sum(axis=1, dtype=np.int32)
        return low, self.card_high[parts].sum(axis=1, dtype=np.int32), suit

    def substitutes_for(self, k: int) -> tuple[IntArray, IntArray, IntArray]:
        if k not in self.substitutes:
            self.substitutes[k] = self.pack(_multiset_array(52, k))
        return self.substitutes[k]

    def best_with_wild(self, parts: list[tuple[int, ...]], k: int) -> IntArray:
        """For each tuple of 5 - k real cards, the best score over every choice of
        substitutes for the k Jokers."""
        sub_low, sub_high, sub_suit = self.substitutes_for(k)
        real = np.array(parts, dtype=np.int8).reshape(len(parts), 5 - k)
        out = np.empty(len(parts), dtype=np.int32)
        step = max(1, ROWS_PER_CHUNK // len(sub_low))
        for start in range(0, len(parts), step):
            low, high, suit = self.pack(real[start : start + step])
            low_index = self.low_index[low[:, None] + sub_low[None, :]]
            high_index = self.high_index[high[:, None] + sub_high[None, :]]
            suit_r, suit_s = suit[:, None], sub_suit[None, :]
            flush = (
                (suit_r != MIXED)
                & (suit_s != MIXED)
                & ((suit_r == suit_s) | (suit_r == NO_CARDS) | (suit_s == NO_CARDS))
            )
            index = (flush * self.n_low + low_index) * self.n_high + high_index
            out[start : start + step] = self.table[index].max(axis=1)
        return out

    def scores(self, hands: Sequence[Sequence[int]]) -> list[int]:
        """Best encoded score of each hand (card ids, 52 for a Joker)."""
        wanted: list[set[tuple[int, ...]]] = [set() for _ in range(6)]
        plans: list[list[tuple[tuple[int, ...], int]]] = []
        for ids in hands:
            real = sorted(i for i in ids if i != JOKER_ID)
            jokers = len(ids) - len(real)
            # Every five-card subset, grouped by how many Jokers (k) it holds.
            plan = [
                (part, k)
                for k in range(min(jokers, 5) + 1)
                for part in set(combinations(real, 5 - k))
            ]
            for part, k in plan:
                if (part, k) not in self.memo:
                    wanted[k].add(part)
            plans.append(plan)
        for k, parts in enumerate(wanted):
            if parts:
                ordered = sorted(parts)
                values = self.best_with_wild(ordered, k)
                self.memo.update(
                    ((part, k), int(v)) for part, v in zip(ordered, values, strict=True)
                )
        return [max(self.memo[key] for key in plan) for plan in plans]


def _multisets(n: int, k: int) -> list[tuple[int, ...]]:
    """Sorted k-tuples from range(n), repeats allowed (small cases only)."""
    if k == 0:
        return [()]
    return [(*rest, x) for rest in _multisets(n, k - 1) for x in range(rest[-1] if rest else 0, n)]


def _multiset_array(n: int, k: int) -> IntArray:
    """Every sorted k-tuple from range(n), repeats allowed, as rows (vectorised)."""
    rows = np.zeros((1, 0), dtype=np.int8)
    for _ in range(k):
        first = rows[:, -1].astype(np.int32) if rows.shape[1] else np.zeros(1, dtype=np.int32)
        repeats = n - first
        starts = np.repeat(np.cumsum(repeats) - repeats, repeats)
        new = np.repeat(first, repeats) + np.arange(len(starts), dtype=np.int32) - starts
        rows = np.column_stack([np.repeat(rows, repeats, axis=0), new.astype(np.int8)])
    return rows


_REFERENCE: list[Reference] = []


def reference_scores(hands: Sequence[Sequence[int]]) -> list[int]:
    if not _REFERENCE:
        _REFERENCE.append(Reference())
    return _REFERENCE[0].scores(hands)


SHOE = Deck.shoe(6, 2)  # 324 cards
SHOE_IDS = np.array(hand_ids(SHOE))


def random_hands(seed: int, count: int, sizes: range, jokers: Sequence[int]) -> list[list[int]]:
    """Hands from the six-deck shoe: hand i first gets ``jokers[i % len(jokers)]``
    Jokers, the rest of its cards are drawn at random from the rest of the shoe."""
    rng = np.random.default_rng(seed)
    where_jokers = np.flatnonzero(SHOE_IDS == JOKER_ID)
    pools = {f: np.delete(SHOE_IDS, where_jokers[:f]) for f in jokers}
    hands: list[list[int]] = []
    for i in range(count):
        forced = jokers[i % len(jokers)]
        size = max(int(rng.integers(sizes.start, sizes.stop)), forced)
        pool = pools[forced]
        drawn = pool[rng.choice(len(pool), size - forced, replace=False)]
        hands.append([JOKER_ID] * forced + drawn.tolist())
    return hands


def test_reference_self_check() -> None:
    """The fast reference against the literal one, the shoe generator itself, and
    the packed table against ``classify_five``."""
    assert _multisets(52, 2) == [tuple(row) for row in _multiset_array(52, 2).tolist()]
    assert len(_multiset_array(52, 3)) == 24804
    few = [h for h in random_hands(7, 300, range(5, 8), range(2)) if h.count(JOKER_ID) < 2]
    two = [h for h in random_hands(8, 30, range(5, 7), [2]) if h.count(JOKER_ID) == 2]
    hands = few[:250] + two[:12]
    assert len(hands) == 262
    assert reference_scores(hands) == [naive_best_score(h) for h in hands]
    assert Counter(SHOE_IDS.tolist()) == {**{i: 6 for i in range(52)}, JOKER_ID: 12}


@pytest.fixture(scope="module")
def shoe_hands() -> tuple[list[list[int]], list[int]]:
    """50,000 hands of 5-7 cards: a third with no forced Joker, a third with one,
    a third with two (more can come from the shoe), and their reference scores."""
    hands = random_hands(20240611, 50_000, range(5, 8), range(3))
    return hands, reference_scores(hands)


def test_sample_is_enriched_with_jokers(shoe_hands: tuple[list[list[int]], list[int]]) -> None:
    hands, scores = shoe_hands
    jokers = Counter(min(h.count(JOKER_ID), 3) for h in hands)
    assert min(jokers[0], jokers[1], jokers[2]) > 12_500 and jokers[3] > 500, jokers
    assert Counter(len(h) for h in hands).keys() == {5, 6, 7}
    categories = Counter(s // SCORE_BASE**5 for s in scores)
    assert all(categories[c] > 100 for c in PokerCategory), categories


def test_best_category_matches_brute_force(
    shoe_hands: tuple[list[list[int]], list[int]],
) -> None:
    hands, scores = shoe_hands
    wrong = []
    for ids, score in zip(hands, scores, strict=True):
        cards = [CARD_OF_ID[i] for i in ids]
        if best_category(cards) != score // SCORE_BASE**5:
            wrong.append((" ".join(c.code for c in cards), decode(score).category.name))
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


def test_best_hand_matches_brute_force(
    shoe_hands: tuple[list[list[int]], list[int]],
) -> None:
    hands, scores = shoe_hands
    wrong = []
    for ids, score in zip(hands, scores, strict=True):
        cards = [CARD_OF_ID[i] for i in ids]
        if best_hand(cards) != decode(score):
            wrong.append((" ".join(c.code for c in cards), decode(score), best_hand(cards)))
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


def test_big_hands_match_brute_force() -> None:
    """Hands of 8 to 15 cards with up to three forced Jokers."""
    hands = random_hands(99, 4_000, range(8, 11), range(4)) + random_hands(
        100, 400, range(11, 16), range(3)
    )
    wrong = []
    for ids, score in zip(hands, reference_scores(hands), strict=True):
        cards = [CARD_OF_ID[i] for i in ids]
        if best_hand(cards) != decode(score):
            wrong.append((" ".join(c.code for c in cards), decode(score), best_hand(cards)))
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


# ---------------------------------------------------------------------------
# 3. Properties
# ---------------------------------------------------------------------------

any_card = st.sampled_from(Deck.standard(jokers=4))  # 52 cards and 4 Jokers
hands = st.lists(any_card, min_size=5, max_size=12)


@settings(max_examples=300)
@given(hands, any_card)
def test_adding_a_card_never_lowers_the_category(hand: list[Card], extra: Card) -> None:
    assert best_category([*hand, extra]) >= best_category(hand)
    assert best_hand([*hand, extra]) >= best_hand(hand)


@settings(max_examples=300)
@given(hands, st.data())
def test_a_joker_is_never_worse_than_the_card_it_replaces(
    hand: list[Card], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(hand) - 1))
    wild = [*hand[:i], JOKER, *hand[i + 1 :]]
    assert best_category(wild) >= best_category(hand)
    assert best_hand(wild) >= best_hand(hand)


@settings(max_examples=300)
@given(hands, st.randoms(use_true_random=False))
def test_card_order_does_not_matter(hand: list[Card], rnd: Random) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert best_hand(shuffled) == best_hand(hand)
    assert best_hand(tuple(reversed(hand))) == best_hand(hand)
