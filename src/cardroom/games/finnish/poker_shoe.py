"""Chances of each poker category for known ranks dealt from a finite shoe.

finnish27's poker bonus looks at the best five cards of a winning hand of five
or more (Jokers wild).  In the real shoe the suits of a hand's cards are not
independent: the ``x`` cards of one rank are ``x`` of that rank's cards in the shoe,
every set of them equally likely (``c_s`` of them of suit ``s``), so the suits of
one rank follow a multivariate hypergeometric law, and different ranks are
independent given the ranks.  (The dealer's cards take some of each rank's cards
too, but which ones is exchangeable: the player's ``x`` cards of a rank are still
a uniformly random ``x`` of all its cards.)  So, as in
:mod:`cardroom.games.finnish.poker_odds`, only five of a kind, straight flush and
flush depend on the suits, and the rest on the ranks alone:

* **five of a kind**: the largest group of a rank plus the Jokers reaches five;
* **flush** (or better): some suit holds ``need = 5 - jokers`` cards.  The hands
  where none does are counted by a dynamic programme over the ranks whose state is
  each suit's count so far (capped below ``need``); it depends only on the
  multiset of the ranks' counts (with their suit split), so it is worked out once
  per such pattern;
* **straight flush**: some suit holds ``need`` distinct ranks inside a five-rank
  window (the Ace low and high).  Inclusion-exclusion over sets of suits: for a
  set S, every suit of S having one is counted by a dynamic programme over the
  ranks from the low Ace to the high Ace whose state is each suit's presence in the
  last four ranks; a rank's ``x`` cards hit exactly the suits T of S in
  ``sum_{U <= T} (-1)**|T - U| C(c(U) + c(not S), x)`` ways.  With two or three
  Jokers (``need`` 3 or 2) a straight flush is common and that sum slow: the sets
  without one are counted instead, by a programme over the ranks whose state is each
  suit's last four ranks with fewer than ``need`` of them held (and, where the suits
  are alike, only the multiset of the four suits' states);
* the other categories a hand holds depend on its ranks alone
  (:func:`cardroom.games.finnish.poker.held_mask`, compiled as the simulator uses it);
  a hand is, of the categories it holds with the suits' flush or straight flush or
  neither, the one the table's order places highest.

Counts are of sets of physical cards (``prod_r C(n_r, x_r)`` in all), as residues
modulo the primes of a :class:`~cardroom.analysis.modular.Modulus` (they do not
fit in 64 bits) and as floats.  The tests compare them with every suit
assignment through the game's own evaluator.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardroom.analysis.modular import add_mod, mont_mul, sub_mod
from cardroom.games.finnish.kernel import five_of_a_kind, poker_held
from cardroom.games.finnish.poker import PokerCategory
from cardroom.games.finnish.poker_counts import ace_start, multiset_index, suit_step

__all__ = ["FIVE", "FLUSH", "STRAIGHT_FLUSH", "add_weighted", "no_flush_count", "poker_batch"]

FIVE = int(PokerCategory.FIVE_OF_A_KIND)
STRAIGHT_FLUSH = int(PokerCategory.STRAIGHT_FLUSH)
FLUSH = int(PokerCategory.FLUSH)
RANKS = 13
_U64 = np.uint64
#: the largest count of one rank's cards the tables take (sixteen decks)
MAX_RANK_CARDS = 64
_DONE = 16  # a suit's state once it holds a straight flush
_BASE = 17  # states per suit


@njit(cache=True, nogil=True)
def _pascal(size: int) -> np.ndarray:
    table = np.zeros((size + 1, size + 1), np.int64)
    for n in range(size + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


@njit(inline="always")
def _mont_of(value: np.int64, lane: int, p: np.ndarray, q: np.ndarray, r2: np.ndarray) -> np.uint64:
    """Montgomery form of a signed machine integer."""
    if value >= 0:
        return mont_mul(_U64(value), r2[lane], p[lane], q[lane])
    return sub_mod(_U64(0), mont_mul(_U64(-value), r2[lane], p[lane], q[lane]), p[lane])


@njit(cache=True, nogil=True)
def no_flush_count(
    xs: np.ndarray, cs: np.ndarray, need: int, p: np.ndarray, q: np.ndarray, r2: np.ndarray
) -> tuple[np.ndarray, float]:
    """Sets of cards (``xs[i]`` of a rank with ``cs[i, s]`` cards of suit s) with no
    suit holding ``need`` cards: plain residues and the float.  (Every weight is
    positive, so a state whose float is 0 has never been reached.)"""
    lanes = p.shape[0]
    binom = _pascal(MAX_RANK_CARDS)
    size = need**4
    cur = np.zeros((size, lanes), np.uint64)
    cur_f = np.zeros(size)
    for lane in range(lanes):
        cur[0, lane] = mont_mul(_U64(1), r2[lane], p[lane], q[lane])
    cur_f[0] = 1.0
    nxt = np.zeros((size, lanes), np.uint64)
    nxt_f = np.zeros(size)
    a = np.zeros(4, np.int64)
    wm = np.zeros(lanes, np.uint64)
    for i in range(xs.shape[0]):
        x = xs[i]
        nxt[:] = 0
        nxt_f[:] = 0.0
        for a0 in range(min(x, need - 1, cs[i, 0]) + 1):
            for a1 in range(min(x - a0, need - 1, cs[i, 1]) + 1):
                for a2 in range(min(x - a0 - a1, need - 1, cs[i, 2]) + 1):
                    a3 = x - a0 - a1 - a2
                    if a3 > need - 1 or a3 > cs[i, 3]:
                        continue
                    a[0], a[1], a[2], a[3] = a0, a1, a2, a3
                    w = np.int64(1)
                    for s in range(4):
                        w *= binom[cs[i, s], a[s]]
                    for lane in range(lanes):
                        wm[lane] = mont_mul(_U64(w), r2[lane], p[lane], q[lane])
                    for state in range(size):
                        if cur_f[state] == 0.0:
                            continue
                        rest = state
                        new = 0
                        unit = 1
                        fits = True
                        for s in range(4):
                            count = rest % need + a[s]
                            rest //= need
                            if count >= need:
                                fits = False
                            new += count * unit
                            unit *= need
                        if not fits:
                            continue
                        for lane in range(lanes):
                            term = mont_mul(cur[state, lane], wm[lane], p[lane], q[lane])
                            nxt[new, lane] = add_mod(nxt[new, lane], term, p[lane])
                        nxt_f[new] += cur_f[state] * w
        cur, nxt = nxt, cur
        cur_f, nxt_f = nxt_f, cur_f
    total = np.zeros(lanes, np.uint64)
    total_f = 0.0
    for state in range(size):
        for lane in range(lanes):
            plain = mont_mul(cur[state, lane], _U64(1), p[lane], q[lane])
            total[lane] = add_mod(total[lane], plain, p[lane])
        total_f += cur_f[state]
    return total, total_f


@njit(inline="always")
def _step(state: int, present: int, k: int, need: int) -> int:
    """Each of ``k`` suits' presence in the last four ranks, moved on by one rank
    (``present``: bit i if the rank is in suit i); a suit with ``need`` of five is done."""
    new = 0
    unit = 1
    for i in range(k):
        field = state % _BASE
        state //= _BASE
        if field != _DONE:
            history = ((field << 1) | ((present >> i) & 1)) & 31
            bits = 0
            h = history
            while h:
                h &= h - 1
                bits += 1
            field = _DONE if bits >= need else history & 15
        new += field * unit
        unit *= _BASE
    return new


@njit(cache=True, nogil=True)
def _suited_ways(
    x: int, c: np.ndarray, suits: np.ndarray, k: int, binom: np.ndarray, out: np.ndarray
) -> None:
    """``out[T]``: sets of ``x`` of a rank's cards (``c[s]`` of suit s) hitting exactly
    the suits ``suits[i]`` for the bits i of T among the k suits of ``suits``."""
    outside = 0
    for s in range(4):
        inside = False
        for i in range(k):
            if suits[i] == s:
                inside = True
        if not inside:
            outside += c[s]
    for t in range(1 << k):
        total = np.int64(0)
        u = t
        while True:
            cards = outside
            size_u = 0
            for i in range(k):
                if (u >> i) & 1:
                    cards += c[suits[i]]
                    size_u += 1
            size_t = 0
            for i in range(k):
                if (t >> i) & 1:
                    size_t += 1
            term = binom[cards, x] if x <= cards else np.int64(0)
            total += -term if (size_t - size_u) % 2 else term
            if u == 0:
                break
            u = (u - 1) & t
        out[t] = total


@njit(cache=True, nogil=True)
def _all_suits_count(
    xs: np.ndarray, cv: np.ndarray, suits: np.ndarray, k: int, need: int, binom: np.ndarray,
    cur: np.ndarray, cur_f: np.ndarray, nxt: np.ndarray, nxt_f: np.ndarray,
    active: np.ndarray, nactive: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray,
    total: np.ndarray,
) -> float:  # fmt: skip
    """Sets of cards where each of the ``k`` suits ``suits`` holds a straight flush
    (``xs``: cards per rank, Ace first; ``cv``: cards of each suit per rank): plain
    residues added into ``total``; returns the float.  ``cur``/``nxt`` are zeroed
    state arrays (17**k states) and stay zeroed."""
    lanes = p.shape[0]
    ways = np.zeros((RANKS, 1 << k), np.int64)
    for r in range(RANKS):
        _suited_ways(xs[r], cv[r], suits, k, binom, ways[r])
    done_all = 0
    unit = 1
    for _ in range(k):
        done_all += _DONE * unit
        unit *= _BASE
    total_f = 0.0
    wm = np.zeros(lanes, np.uint64)
    for ace in range(1 << k):
        if ways[0, ace] == 0:
            continue
        # the low Ace
        start = _step(0, ace, k, need)
        for lane in range(lanes):
            cur[start, lane] = mont_mul(_U64(ways[0, ace]), r2[lane], p[lane], q[lane])
        cur_f[start] = np.float64(ways[0, ace])
        nactive[0] = 1
        active[0, 0] = start
        side = 0
        for value in range(2, 15):
            r = value - 1 if value < 14 else 0
            other = 1 - side
            nactive[other] = 0
            for a in range(nactive[side]):
                state = active[side, a]
                for t in range(1 << k):
                    if value == 14:
                        if t != ace:
                            continue
                        w = np.int64(1)
                    else:
                        w = ways[r, t]
                        if w == 0:
                            continue
                    new = _step(state, t, k, need)
                    if nxt_f[new] == 0.0:
                        active[other, nactive[other]] = new
                        nactive[other] += 1
                    for lane in range(lanes):
                        wm[lane] = mont_mul(_U64(w), r2[lane], p[lane], q[lane])
                        term = mont_mul(cur[state, lane], wm[lane], p[lane], q[lane])
                        nxt[new, lane] = add_mod(nxt[new, lane], term, p[lane])
                    nxt_f[new] += cur_f[state] * w
            for a in range(nactive[side]):
                state = active[side, a]
                cur[state] = 0
                cur_f[state] = 0.0
            cur, nxt = nxt, cur
            cur_f, nxt_f = nxt_f, cur_f
            side = other
        for a in range(nactive[side]):
            state = active[side, a]
            if state == done_all:
                for lane in range(lanes):
                    plain = mont_mul(cur[state, lane], _U64(1), p[lane], q[lane])
                    total[lane] = add_mod(total[lane], plain, p[lane])
                total_f += cur_f[state]
            cur[state] = 0
            cur_f[state] = 0.0
    return total_f


@njit(cache=True, nogil=True)
def _straight_flush(
    xs: np.ndarray, cv: np.ndarray, need: int, symmetric: bool, binom: np.ndarray,
    cur: np.ndarray, cur_f: np.ndarray, nxt: np.ndarray, nxt_f: np.ndarray,
    active: np.ndarray, nactive: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray,
    result: np.ndarray, every: np.ndarray, every_f: float,
) -> float:  # fmt: skip
    """Sets of cards (``xs``: per rank, Ace first) in which some suit holds ``need``
    distinct ranks of a five-rank window: plain residues into ``result`` (zeroed
    first), and the float.  ``symmetric``: every rank has as many cards of each suit
    (the sets of k suits then all count alike); ``every``/``every_f``: all sets of
    these cards (plain residues, float).  The other arrays are scratch space (see
    :func:`_all_suits_count`).  Where ``need`` is 4 or 5, by inclusion-exclusion over
    sets of suits; where it is 2 or 3, as all sets less those without one
    (:func:`_no_straight_flush`), which is then many times faster."""
    lanes = p.shape[0]
    result[:] = 0
    present = np.zeros(15, np.int64)
    for r in range(RANKS):
        if xs[r]:
            present[r + 1 if r else 14] = 1
    present[1] = present[14]
    feasible = False
    for top in range(5, 15):
        seen = 0
        for v in range(top - 4, top + 1):
            seen += present[v]
        if seen >= need:
            feasible = True
    if not feasible:
        return 0.0
    if need <= 3:
        # with two Jokers or three, a straight flush is common: the sets without one
        # are counted directly (few states), and taken from all sets
        scratch = (cur, cur_f, nxt, nxt_f, active, nactive, p, q, r2, result)
        if symmetric:
            none_f = _no_straight_flush_symmetric(xs, cv, need, binom, *scratch)
        else:
            none_f = _no_straight_flush(xs, cv, need, binom, *scratch)
        for lane in range(lanes):
            result[lane] = sub_mod(every[lane], result[lane], p[lane])
        return every_f - none_f
    suits = np.zeros(4, np.int64)
    part = np.zeros(lanes, np.uint64)
    result_f = 0.0
    for subset in range(1, 16):
        k = 0
        for s in range(4):
            if (subset >> s) & 1:
                suits[k] = s
                k += 1
        if symmetric and subset != (1 << k) - 1:
            continue
        cover = 0
        for r in range(RANKS):
            cover += min(xs[r], k)
        if cover < k * need:
            continue
        part[:] = 0
        part_f = _all_suits_count(xs, cv, suits, k, need, binom, cur, cur_f, nxt, nxt_f,
                                  active, nactive, p, q, r2, part)  # fmt: skip
        times = 1
        if symmetric:
            for i in range(k):
                times = times * (4 - i) // (i + 1)
        for lane in range(lanes):
            term = part[lane]
            for _ in range(times):
                if k % 2:
                    result[lane] = add_mod(result[lane], term, p[lane])
                else:
                    result[lane] = sub_mod(result[lane], term, p[lane])
        result_f += (1 if k % 2 else -1) * times * part_f
    return result_f


@njit(cache=True, nogil=True)
def _no_straight_flush(
    xs: np.ndarray, cv: np.ndarray, need: int, binom: np.ndarray, cur: np.ndarray,
    cur_f: np.ndarray, nxt: np.ndarray, nxt_f: np.ndarray, active: np.ndarray,
    nactive: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray, result: np.ndarray,
) -> float:  # fmt: skip
    """Sets of cards (``xs``: per rank, Ace first; ``cv``: cards of each suit per rank)
    in which no suit holds ``need`` ranks of a five-rank window: plain residues into
    ``result`` (zeroed first), and the float.

    A dynamic programme over the ranks from the low Ace to the high Ace (the Ace's
    suits chosen once, for both ends) whose state is, for each suit, which of the last
    four ranks it holds (4 bits a suit): a state with ``need`` in a window is dropped,
    so few are ever reached.  ``cur``/``nxt`` are zeroed arrays of ``16**4`` states
    and stay zeroed."""
    lanes = p.shape[0]
    result[:] = 0
    ways = np.zeros((RANKS, 16), np.int64)
    every = np.arange(4)
    for r in range(RANKS):
        _suited_ways(xs[r], cv[r], every, 4, binom, ways[r])
    result_f = 0.0
    wm = np.zeros(lanes, np.uint64)
    for ace in range(16):
        if ways[0, ace] == 0:
            continue
        # the low Ace: each suit's history holds the Ace's bit
        start = 0
        for s in range(4):
            start |= ((ace >> s) & 1) << (4 * s)
        for lane in range(lanes):
            cur[start, lane] = mont_mul(_U64(ways[0, ace]), r2[lane], p[lane], q[lane])
        cur_f[start] = np.float64(ways[0, ace])
        nactive[0] = 1
        active[0, 0] = start
        side = 0
        for value in range(2, 15):
            r = value - 1 if value < 14 else 0
            other = 1 - side
            nactive[other] = 0
            for t in range(16):
                if value == 14:
                    if t != ace:
                        continue
                    w = np.int64(1)
                else:
                    w = ways[r, t]
                    if w == 0:
                        continue
                for lane in range(lanes):
                    wm[lane] = mont_mul(_U64(w), r2[lane], p[lane], q[lane])
                for a in range(nactive[side]):
                    state = active[side, a]
                    new = 0
                    fits = True
                    for s in range(4):
                        window = ((state >> (4 * s)) & 15) << 1 | ((t >> s) & 1)
                        bits = 0
                        h = window
                        while h:
                            h &= h - 1
                            bits += 1
                        if bits >= need:
                            fits = False
                            break
                        new |= (window & 15) << (4 * s)
                    if not fits:
                        continue
                    if nxt_f[new] == 0.0:
                        active[other, nactive[other]] = new
                        nactive[other] += 1
                    for lane in range(lanes):
                        term = mont_mul(cur[state, lane], wm[lane], p[lane], q[lane])
                        nxt[new, lane] = add_mod(nxt[new, lane], term, p[lane])
                    nxt_f[new] += cur_f[state] * w
            for a in range(nactive[side]):
                state = active[side, a]
                cur[state] = 0
                cur_f[state] = 0.0
            cur, nxt = nxt, cur
            cur_f, nxt_f = nxt_f, cur_f
            side = other
        for a in range(nactive[side]):
            state = active[side, a]
            for lane in range(lanes):
                plain = mont_mul(cur[state, lane], _U64(1), p[lane], q[lane])
                result[lane] = add_mod(result[lane], plain, p[lane])
            result_f += cur_f[state]
            cur[state] = 0
            cur_f[state] = 0.0
    return result_f


@njit(cache=True, nogil=True)
def _no_straight_flush_symmetric(
    xs: np.ndarray, cv: np.ndarray, need: int, binom: np.ndarray, cur: np.ndarray,
    cur_f: np.ndarray, nxt: np.ndarray, nxt_f: np.ndarray, active: np.ndarray,
    nactive: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray, result: np.ndarray,
) -> float:  # fmt: skip
    """:func:`_no_straight_flush` for a shoe whose every rank has as many cards of each
    suit: the suits are then alike, and a state is the *multiset* of the four suits'
    codes (which of the last four ranks each holds, and whether it holds the Ace),
    some twenty times fewer states.  One programme serves every choice of the Ace's
    suits, which each suit's code remembers for the high Ace."""
    lanes = p.shape[0]
    result[:] = 0
    ways = np.zeros((RANKS, 16), np.int64)
    every = np.arange(4)
    for r in range(RANKS):
        _suited_ways(xs[r], cv[r], every, 4, binom, ways[r])
    wm = np.zeros(lanes, np.uint64)
    nactive[0] = 0
    for ace in range(16):
        if ways[0, ace] == 0:
            continue
        packed = ace_start(ace)
        at = multiset_index(packed)
        if cur_f[at] == 0.0:
            active[0, nactive[0]] = packed
            nactive[0] += 1
        for lane in range(lanes):
            term = mont_mul(_U64(ways[0, ace]), r2[lane], p[lane], q[lane])
            cur[at, lane] = add_mod(cur[at, lane], term, p[lane])
        cur_f[at] += np.float64(ways[0, ace])
    side = 0
    for value in range(2, 15):
        r = value - 1 if value < 14 else 0
        other = 1 - side
        nactive[other] = 0
        w = np.int64(1)
        for t in range(16):
            if value < 14:
                w = ways[r, t]
                if w == 0:
                    continue
                for lane in range(lanes):
                    wm[lane] = mont_mul(_U64(w), r2[lane], p[lane], q[lane])
            elif t:
                break  # the high Ace: each suit holds it as it held the low one
            for a in range(nactive[side]):
                packed = active[side, a]
                at = multiset_index(packed)
                new = suit_step(packed, t, value == 14, need)
                if new < 0:
                    continue
                to = multiset_index(new)
                if nxt_f[to] == 0.0:
                    active[other, nactive[other]] = new
                    nactive[other] += 1
                if value < 14:
                    for lane in range(lanes):
                        term = mont_mul(cur[at, lane], wm[lane], p[lane], q[lane])
                        nxt[to, lane] = add_mod(nxt[to, lane], term, p[lane])
                    nxt_f[to] += cur_f[at] * w
                else:
                    for lane in range(lanes):
                        nxt[to, lane] = add_mod(nxt[to, lane], cur[at, lane], p[lane])
                    nxt_f[to] += cur_f[at]
        for a in range(nactive[side]):
            at = multiset_index(active[side, a])
            cur[at] = 0
            cur_f[at] = 0.0
        cur, nxt = nxt, cur
        cur_f, nxt_f = nxt_f, cur_f
        side = other
    result_f = 0.0
    for a in range(nactive[side]):
        at = multiset_index(active[side, a])
        for lane in range(lanes):
            plain = mont_mul(cur[at, lane], _U64(1), p[lane], q[lane])
            result[lane] = add_mod(result[lane], plain, p[lane])
        result_f += cur_f[at]
        cur[at] = 0
        cur_f[at] = 0.0
    return result_f


@njit(cache=True, nogil=True)
def poker_batch(
    hands: np.ndarray, cv: np.ndarray, symmetric: bool, p: np.ndarray, q: np.ndarray,
    r2: np.ndarray, first: int, stop: int, plain: np.ndarray, sf: np.ndarray,
    sf_f: np.ndarray, total: np.ndarray, total_f: np.ndarray, bug: bool = False,
    five_tops: bool = True,
) -> None:  # fmt: skip
    """For hands ``first:stop`` (cards per rank, Ace first) and 0-3 Jokers with each:
    into ``plain`` the categories it holds whatever its suits (bits, as
    :func:`~cardroom.games.finnish.poker.held_mask`), into ``sf``/``sf_f`` the sets of
    cards that make a straight flush (plain residues, floats), into
    ``total``/``total_f`` all sets of its cards (``prod_r C(n_r, x_r)``).  Entries for
    fewer than five cards are left as they are (callers fill ``plain`` with -1).  With
    ``bug`` the Jokers are bugs (five of a kind only of Aces).  Where ``five_tops``
    (five of a kind outranks the flush and the straight flush) a hand of five of a kind
    skips its suits.  Threads may share the outputs for disjoint ranges: the kernel
    releases the interpreter's lock."""
    lanes = p.shape[0]
    binom = _pascal(MAX_RANK_CARDS)
    size = _BASE**4
    cur = np.zeros((size, lanes), np.uint64)
    cur_f = np.zeros(size)
    nxt = np.zeros((size, lanes), np.uint64)
    nxt_f = np.zeros(size)
    active = np.zeros((2, size), np.int64)
    nactive = np.zeros(2, np.int64)
    counts = np.zeros(15, np.int64)
    no_suits = np.zeros(4, np.int64)
    result = np.zeros(lanes, np.uint64)
    xs = np.zeros(RANKS, np.int64)
    for i in range(first, stop):
        cards = 0
        top = 0
        counts[:] = 0
        for r in range(RANKS):
            xs[r] = hands[i, r]
            cards += xs[r]
            top = max(top, xs[r])
            counts[14 if r == 0 else r + 1] = xs[r]
        value_f = 1.0
        for lane in range(lanes):
            total[i, lane] = mont_mul(_U64(1), r2[lane], p[lane], q[lane])
        for r in range(RANKS):
            all_cards = cv[r, 0] + cv[r, 1] + cv[r, 2] + cv[r, 3]
            w = binom[all_cards, xs[r]]
            value_f *= w
            for lane in range(lanes):
                wm = mont_mul(_U64(w), r2[lane], p[lane], q[lane])
                total[i, lane] = mont_mul(total[i, lane], wm, p[lane], q[lane])
        for lane in range(lanes):
            total[i, lane] = mont_mul(total[i, lane], _U64(1), p[lane], q[lane])
        total_f[i] = value_f
        for jokers in range(4):
            if cards + jokers < 5:
                continue
            plain[i, jokers] = poker_held(counts, no_suits, no_suits, jokers, bug)
            if five_tops and five_of_a_kind(top, xs[0], jokers, bug):
                continue
            sf_f[i, jokers] = _straight_flush(
                xs, cv, 5 - jokers, symmetric, binom, cur, cur_f, nxt, nxt_f, active,
                nactive, p, q, r2, result, total[i], total_f[i],
            )  # fmt: skip
            sf[i, jokers] = result


@njit(cache=True, nogil=True)
def add_weighted(
    acc: np.ndarray, vals: np.ndarray, weight: np.ndarray, p: np.ndarray, q: np.ndarray
) -> None:
    """``acc += weight * vals`` lane by lane (Montgomery forms; the last axis is the
    lanes): chances of several splits of the suits added by their weights."""
    lanes = p.shape[0]
    flat_acc = acc.reshape(-1, lanes)
    flat_vals = vals.reshape(-1, lanes)
    for i in range(flat_acc.shape[0]):
        for lane in range(lanes):
            term = mont_mul(flat_vals[i, lane], weight[lane], p[lane], q[lane])
            flat_acc[i, lane] = add_mod(flat_acc[i, lane], term, p[lane])


@njit(inline="always")
def _mont_inverse(
    a: np.uint64, lane: int, p: np.ndarray, q: np.ndarray, r2: np.ndarray
) -> np.uint64:
    """Montgomery form of ``a**-1 mod p`` for a plain residue ``a`` (not 0): Fermat."""
    base = mont_mul(a, r2[lane], p[lane], q[lane])
    result = mont_mul(_U64(1), r2[lane], p[lane], q[lane])
    e = p[lane] - _U64(2)
    while e:
        if e & _U64(1):
            result = mont_mul(result, base, p[lane], q[lane])
        base = mont_mul(base, base, p[lane], q[lane])
        e >>= _U64(1)
    return result


@njit(cache=True, nogil=True)
def category_table(
    hands: np.ndarray, plain: np.ndarray, sf: np.ndarray, sf_f: np.ndarray,
    total: np.ndarray, total_f: np.ndarray, no_flush: np.ndarray, no_flush_f: np.ndarray,
    key_of: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray, bug: bool = False,
    five_tops: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per hand and 0-3 Jokers (five cards or more): up to four (key, chance) pairs,
    ``key_of[held]`` naming the bonus of a hand holding the categories ``held`` (bits;
    -1: none).  Chances are Montgomery lanes and floats; unused places hold key -1.
    With ``bug`` only Aces and Jokers make five of a kind; ``five_tops`` as for
    :func:`poker_batch`."""
    lanes = p.shape[0]
    n = hands.shape[0]
    keys = np.full((n, 4, 4), -1, np.int64)
    vals = np.zeros((n, 4, 4, lanes), np.uint64)
    vals_f = np.zeros((n, 4, 4))
    inverse = np.zeros(lanes, np.uint64)
    for i in range(n):
        cards = 0
        top = 0
        for r in range(RANKS):
            cards += hands[i, r]
            if hands[i, r] > top:
                top = hands[i, r]
        for lane in range(lanes):
            inverse[lane] = _mont_inverse(total[i, lane], lane, p, q, r2)
        for jokers in range(4):
            if cards + jokers < 5:
                continue
            if five_tops and five_of_a_kind(top, hands[i, 0], jokers, bug):
                keys[i, jokers, 0] = key_of[plain[i, jokers]]
                for lane in range(lanes):
                    vals[i, jokers, 0, lane] = mont_mul(_U64(1), r2[lane], p[lane], q[lane])
                vals_f[i, jokers, 0] = 1.0
                continue
            e = 0
            for which in range(3):
                held = plain[i, jokers]
                if which == 0:
                    held |= 1 << STRAIGHT_FLUSH | 1 << FLUSH
                elif which == 1:
                    held |= 1 << FLUSH
                if key_of[held] < 0:
                    continue
                for lane in range(lanes):
                    if which == 0:
                        count = sf[i, jokers, lane]
                    elif which == 1:
                        count = sub_mod(
                            sub_mod(total[i, lane], no_flush[i, jokers, lane], p[lane]),
                            sf[i, jokers, lane], p[lane],
                        )  # fmt: skip
                    else:
                        count = no_flush[i, jokers, lane]
                    vals[i, jokers, e, lane] = mont_mul(count, inverse[lane], p[lane], q[lane])
                    # a plain count times a Montgomery inverse: the plain chance; back
                    # to a Montgomery form
                    vals[i, jokers, e, lane] = mont_mul(
                        vals[i, jokers, e, lane], r2[lane], p[lane], q[lane]
                    )
                if which == 0:
                    count_f = sf_f[i, jokers]
                elif which == 1:
                    count_f = total_f[i] - no_flush_f[i, jokers] - sf_f[i, jokers]
                else:
                    count_f = no_flush_f[i, jokers]
                vals_f[i, jokers, e] = count_f / total_f[i]
                keys[i, jokers, e] = key_of[held]
                e += 1
    return keys, vals, vals_f
