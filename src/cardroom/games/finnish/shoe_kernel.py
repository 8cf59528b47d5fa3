"""Compiled kernels of the exact finite-shoe analysis of the Finnish games.

See :mod:`cardroom.games.finnish.shoe` for the method; this module holds the
loops that Numba compiles.

* :func:`hand_states` plays a hand from its starts by a hit/stand table keyed on
  the hand's low total and whether it holds an Ace, over multisets of ranks (a
  hand's cards in any order that its rules would have drawn): every multiset
  reached, whether it hits, and in how many card orders it is reached.
* :func:`sub_multisets` lists, for each finished player hand, its sub-multisets
  and the falling-factorial weight the dealer's expansion needs.
* :func:`dealer_terms` expands one dealer start's draws over those sub-multisets
  (the term ``G`` of the method), and :func:`player_outcomes` adds up, for each
  finished player hand, the chance of each result against that dealer start.

Multisets of the thirteen ordinary ranks (Ace first) are ``int8`` count rows and,
for sorting and lookup, mixed-radix ``int64`` keys (digit ``r`` is the count of rank
``r``, in base ``caps[r] + 1``).  Exact quantities are residue "lanes" modulo the
primes of a :class:`~cardroom.analysis.modular.Modulus` in Montgomery form, plus
one float lane for the decisions of 21-24-27 and for a plausibility check.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardroom.analysis.modular import add_mod, add_wide, mont_mul, redc, sub_mod
from cardroom.games.finnish.kernel import poker_held
from cardroom.games.finnish.poker_shoe import FLUSH, STRAIGHT_FLUSH

RANKS = 13
_U64 = np.uint64
#: weights below this are multiplied into 128-bit sums (2**32 x 2**63 per term)
_SMALL = 1 << 32


# -- hands over multisets ------------------------------------------------------------
@njit(cache=True, nogil=True)
def hand_states(
    start_keys: np.ndarray, start_counts: np.ndarray, start_w: np.ndarray,
    low0: int, ace0: bool, hits: np.ndarray, caps: np.ndarray, radix: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Every multiset a hand reaches from its starts, level by level (cards held).

    ``start_counts[i]`` is a start (a row of counts, ``start_keys[i]`` its key) reached
    in ``start_w[i, c]`` ways for each column ``c``; ``low0``/``ace0`` are added to
    every state's low total / Ace (the dealer's two cards when the multisets are his
    draws).  ``hits[low, ace]`` says whether a state draws again.  A drawing state
    passes its ways to each state with one more card of a rank below its cap: the
    ways of a multiset are the orders in which the rules draw its cards.

    Returns keys, counts, ways and a flag per state (1: draws, 0: stands), in order
    of cards held, then key.
    """
    columns = start_w.shape[1]
    sizes = np.zeros(start_counts.shape[0], np.int64)
    for i in range(start_counts.shape[0]):
        for r in range(RANKS):
            sizes[i] += start_counts[i, r]
    level = sizes[0]
    top = sizes[0]
    for i in range(sizes.shape[0]):
        level = min(level, sizes[i])
        top = max(top, sizes[i])
    capacity = 1024
    out_keys = np.empty(capacity, np.int64)
    out_counts = np.empty((capacity, RANKS), np.int8)
    out_w = np.empty((capacity, columns), np.int64)
    out_hit = np.empty(capacity, np.int8)
    used = 0
    # the current level: rows [first, used) of the output, before merging: a scratch
    # list of (key, counts, ways) of the children of the previous level
    cand_keys = np.empty(0, np.int64)
    cand_counts = np.empty((0, RANKS), np.int8)
    cand_w = np.empty((0, columns), np.int64)
    while cand_keys.shape[0] or level <= top:
        picked = 0
        for i in range(sizes.shape[0]):
            if sizes[i] == level:
                picked += 1
        pick = np.empty(picked, np.int64)
        picked = 0
        for i in range(sizes.shape[0]):
            if sizes[i] == level:
                pick[picked] = i
                picked += 1
        n = cand_keys.shape[0] + pick.shape[0]
        keys = np.empty(n, np.int64)
        counts = np.empty((n, RANKS), np.int8)
        weights = np.empty((n, columns), np.int64)
        for i in range(cand_keys.shape[0]):
            keys[i] = cand_keys[i]
            counts[i] = cand_counts[i]
            weights[i] = cand_w[i]
        for i in range(pick.shape[0]):
            keys[cand_keys.shape[0] + i] = start_keys[pick[i]]
            counts[cand_keys.shape[0] + i] = start_counts[pick[i]]
            weights[cand_keys.shape[0] + i] = start_w[pick[i]]
        order = np.argsort(keys)
        first = used
        children = 0
        last = np.int64(-1)
        for t in range(n):
            j = order[t]
            if used == first or keys[j] != last:
                if used == capacity:
                    capacity *= 2
                    grown_keys = np.empty(capacity, np.int64)
                    grown_counts = np.empty((capacity, RANKS), np.int8)
                    grown_w = np.empty((capacity, columns), np.int64)
                    grown_hit = np.empty(capacity, np.int8)
                    for u in range(used):
                        grown_keys[u] = out_keys[u]
                        grown_counts[u] = out_counts[u]
                        grown_w[u] = out_w[u]
                        grown_hit[u] = out_hit[u]
                    out_keys = grown_keys
                    out_counts = grown_counts
                    out_w = grown_w
                    out_hit = grown_hit
                last = keys[j]
                out_keys[used] = last
                out_counts[used] = counts[j]
                out_w[used] = 0
                used += 1
            for c in range(columns):
                total = out_w[used - 1, c] + weights[j, c]
                if total < out_w[used - 1, c]:
                    raise OverflowError("hand_states: a count of card orders overflows 64 bits")
                out_w[used - 1, c] = total
        for i in range(first, used):
            low = low0
            for r in range(RANKS):
                low += out_counts[i, r] * (r + 1)
            ace = 1 if ace0 or out_counts[i, 0] > 0 else 0
            if low >= hits.shape[0]:
                raise ValueError("hand_states: a hand hits beyond the table of totals")
            out_hit[i] = 1 if hits[low, ace] else 0
            if out_hit[i]:
                for r in range(RANKS):
                    if out_counts[i, r] < caps[r]:
                        children += 1
        cand_keys = np.empty(children, np.int64)
        cand_counts = np.empty((children, RANKS), np.int8)
        cand_w = np.empty((children, columns), np.int64)
        j = 0
        for i in range(first, used):
            if not out_hit[i]:
                continue
            for r in range(RANKS):
                if out_counts[i, r] < caps[r]:
                    cand_keys[j] = out_keys[i] + radix[r]
                    cand_counts[j] = out_counts[i]
                    cand_counts[j, r] += 1
                    cand_w[j] = out_w[i]
                    j += 1
        level += 1
    return out_keys[:used], out_counts[:used], out_w[:used], out_hit[:used]


# -- a hash table of int64 keys (open addressing, linear probing) ---------------------
_GOLDEN = _U64(0x9E3779B97F4A7C15)


@njit(inline="always")
def _slot(keys: np.ndarray, key: np.int64) -> int:
    """Where ``key`` is in the table ``keys`` (empty slots hold -1), or the empty slot
    where it would go."""
    bits: int = keys.shape[0] - 1
    h = int((_U64(key) * _GOLDEN) >> _U64(40)) & bits
    while keys[h] != key and keys[h] != -1:
        h = (h + 1) & bits
    return h


@njit(cache=True, nogil=True)
def hash_index(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A table from each key of ``sorted_keys`` to its place there."""
    size = 1 << 4
    while size < 2 * sorted_keys.shape[0]:
        size <<= 1
    keys = np.full(size, -1, np.int64)
    vals = np.full(size, -1, np.int64)
    for i in range(sorted_keys.shape[0]):
        h = _slot(keys, sorted_keys[i])
        keys[h] = sorted_keys[i]
        vals[h] = i
    return keys, vals


@njit(inline="always")
def add_by_coefficients(
    out: np.ndarray, o: int, coef: np.ndarray, ti: int, k: int, cum: np.ndarray, p: np.ndarray
) -> None:
    """``out[o] += sum_j coef[ti, o, j] cum[j]`` over the first ``k`` breakpoints, lane by
    lane modulo ``p`` (each coefficient 1, -1 or 0): a result channel read off the
    dealer's cumulative finals at a total's breakpoints."""
    for j in range(k):
        a = coef[ti, o, j]
        if a == 1:
            for lane in range(p.shape[0]):
                out[o, lane] = add_mod(out[o, lane], cum[j, lane], p[lane])
        elif a == -1:
            for lane in range(p.shape[0]):
                out[o, lane] = sub_mod(out[o, lane], cum[j, lane], p[lane])


@njit(inline="always")
def add_by_coefficients_f(
    out_f: np.ndarray, o: int, coef: np.ndarray, ti: int, k: int, cum_f: np.ndarray
) -> None:
    """:func:`add_by_coefficients` in floating point (the terms added in order of j)."""
    for j in range(k):
        a = coef[ti, o, j]
        if a == 1:
            out_f[o] += cum_f[j]
        elif a == -1:
            out_f[o] -= cum_f[j]


@njit(inline="always")
def g_places(g_ids: np.ndarray, nu: int) -> np.ndarray:
    """``where[i]``: the row of G (a pass's dealer table) of the sub-multiset at place
    ``i`` of the dealer's universe of ``nu``, -1 where G has none (``g_ids``: G's
    places, row by row)."""
    where = np.full(nu, -1, np.int64)
    for loc in range(g_ids.shape[0]):
        where[g_ids[loc]] = loc
    return where


@njit(inline="always")
def _find(keys: np.ndarray, vals: np.ndarray, key: np.int64) -> int:
    h = _slot(keys, key)
    return int(vals[h]) if keys[h] == key else -1


@njit(cache=True, nogil=True)
def sub_universe(counts: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """The sorted keys of every sub-multiset of every row of ``counts``."""
    size = 1 << 16
    keys = np.full(size, -1, np.int64)
    used = 0
    digit = np.zeros(RANKS, np.int64)
    for i in range(counts.shape[0]):
        digit[:] = 0
        key = np.int64(0)
        while True:
            h = _slot(keys, key)
            if keys[h] == -1:
                keys[h] = key
                used += 1
                if 2 * used > size:
                    old = keys
                    size <<= 1
                    keys = np.full(size, -1, np.int64)
                    for k in old:
                        if k != -1:
                            keys[_slot(keys, k)] = k
            r = 0
            while r < RANKS:
                if digit[r] < counts[i, r]:
                    digit[r] += 1
                    key += radix[r]
                    break
                key -= digit[r] * radix[r]
                digit[r] = 0
                r += 1
            if r == RANKS:
                break
    out = np.empty(used, np.int64)
    j = 0
    for k in keys:
        if k != -1:
            out[j] = k
            j += 1
    return np.sort(out)


@njit(cache=True, nogil=True)
def sub_multisets(
    counts: np.ndarray, radix: np.ndarray, tkeys: np.ndarray, tvals: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row of ``counts`` (a multiset X), its sub-multisets I that are in the
    table (``tkeys``/``tvals`` from :func:`hash_index`; a set closed under taking
    sub-multisets, so the search stops at the first I outside it), with their places
    and ``c(X, I) = prod_r (x_r)_(i_r)`` (a product of falling factorials; -1 where it
    does not fit in 62 bits, for the caller to give exactly).

    Returns ``ptr`` (row i's entries are ``ptr[i]:ptr[i + 1]``), places and weights.
    """
    n = counts.shape[0]
    digit = np.zeros(RANKS, np.int64)
    support = np.zeros(RANKS, np.int64)
    ptr = np.zeros(n + 1, np.int64)
    size = 1 << 16
    ids = np.empty(size, np.int64)
    weights = np.empty(size, np.int64)
    j = 0
    for i in range(n):
        k = 0
        for r in range(RANKS):
            if counts[i, r]:
                support[k] = r
                k += 1
        digit[:] = 0
        key = np.int64(0)
        while True:
            at = _find(tkeys, tvals, key)
            moved = False
            if at >= 0:
                if j == size:
                    size <<= 1
                    grown_ids = np.empty(size, np.int64)
                    grown_weights = np.empty(size, np.int64)
                    for u in range(j):
                        grown_ids[u] = ids[u]
                        grown_weights[u] = weights[u]
                    ids = grown_ids
                    weights = grown_weights
                w = np.int64(1)
                for t in range(k):
                    r = support[t]
                    x = np.int64(counts[i, r])
                    for u in range(digit[t]):
                        factor = x - u
                        if w < 0 or w > (np.int64(1) << 62) // factor:
                            w = np.int64(-1)
                        else:
                            w *= factor
                ids[j] = at
                weights[j] = w
                j += 1
                # try one more of the first rank
                t = 0
            else:
                # this I is out, and so is every I with more of this rank: carry on
                # from the next rank (digit 0 is the one just raised, or a carry)
                t = 0
                while t < k and digit[t] == 0:
                    t += 1
                if t == k:
                    break
                key -= digit[t] * radix[support[t]]
                digit[t] = 0
                t += 1
            while t < k:
                r = support[t]
                if digit[t] < counts[i, r]:
                    digit[t] += 1
                    key += radix[r]
                    moved = True
                    break
                key -= digit[t] * radix[r]
                digit[t] = 0
                t += 1
            if not moved:
                break
        ptr[i + 1] = j
    return ptr, ids[:j].copy(), weights[:j].copy()


@njit(cache=True, nogil=True)
def mark_sub_multisets(
    sub_ptr: np.ndarray, sub_id: np.ndarray, rows: np.ndarray, size: int
) -> np.ndarray:
    """Which places (of ``size``) are a sub-multiset of one of ``rows`` (their entries
    ``sub_id[sub_ptr[row]:sub_ptr[row + 1]]``, as :func:`sub_multisets` gives them)."""
    marked = np.zeros(size, np.bool_)
    for row in rows:
        for e in range(sub_ptr[row], sub_ptr[row + 1]):
            marked[sub_id[e]] = True
    return marked


@njit(cache=True, nogil=True)
def dealer_terms(
    d_counts: np.ndarray, d_ways: np.ndarray, d_final: np.ndarray, d_hits: np.ndarray,
    radix: np.ndarray, tkeys: np.ndarray, tvals: np.ndarray, wanted: np.ndarray,
    tab: np.ndarray, tab_f: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray,
    nf: int, short: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The dealer's whole hands, expanded over the player's sub-multisets: the term G.

    ``d_counts[k]`` is a dealer hand (his two cards and his draws, Jokers left out),
    reached in ``d_ways[k]`` ways (card orders, times the deal's orders and Jokers),
    ending on final ``d_final[k]`` (below ``nf``) after ``d_hits[k]`` drawn cards.  For
    every sub-multiset I of it that is in the table (``tkeys``/``tvals``: a place) and
    ``wanted`` there (the player's hands have it; both sets are closed under taking
    sub-multisets, so the search stops at the first I outside them), the term
    ``(-1)**|I| ways prod_r tab[r, i_r, d_r]`` is added to entry (I, final, hits) of
    G, where ``tab[r, i, d] = C(d, i) (n_r - i)_(d - i)`` (Montgomery lanes; ``tab_f``
    the same in floats) for the shoe's ``n_r`` cards of rank r.

    ``short``: a rank whose ``tab[short, d, d]`` is 0 (a difference of two shoes' tables
    in that rank: both are 1 there), so that the sub-multisets holding all of a hand's
    cards of that rank, whose terms are 0, are not taken (-1: none).

    Returns the distinct I (places), ``ptr`` into the entries (sorted by I, then final,
    then hits), and each entry's final, drawn cards, lanes and float.
    """
    lanes = p.shape[0]
    n = d_counts.shape[0]
    size = 1 << 15
    vals = np.zeros((size, lanes), np.uint64)
    vals_f = np.zeros(size, np.float64)
    order_key = np.empty(size, np.int64)
    used = 0
    # the hands taken by (final, hits), in their order within each (so every entry adds
    # its terms in the same order): an entry is then found by its I alone, the group's
    # entry of place ``at`` being ``slot[at]`` where ``stamp[at]`` is the group's number
    groups = d_final.astype(np.int64) * 64 + d_hits
    rows = np.argsort(groups, kind="mergesort")
    places = 0
    for u in range(tvals.shape[0]):
        places = max(places, tvals[u] + 1)
    stamp = np.full(places, -1, np.int64)
    slot = np.zeros(places, np.int64)
    digit = np.zeros(RANKS, np.int64)
    support = np.zeros(RANKS, np.int64)
    # part[t]: the product over support places t.. (Montgomery lanes), part[k]: ways
    part = np.zeros((RANKS + 1, lanes), np.uint64)
    part_f = np.zeros(RANKS + 1, np.float64)
    for step in range(n):
        row = rows[step]
        group = groups[row]
        k = 0
        for r in range(RANKS):
            if d_counts[row, r]:
                support[k] = r
                k += 1
        for lane in range(lanes):
            part[k, lane] = mont_mul(_U64(d_ways[row]), r2[lane], p[lane], q[lane])
        part_f[k] = np.float64(d_ways[row])
        digit[:] = 0
        key = np.int64(0)
        fresh = k  # places below this need their partial products recomputed
        taken = 0
        while True:
            at = _find(tkeys, tvals, key)
            moved = False
            if at >= 0 and wanted[at]:
                for t in range(fresh - 1, -1, -1):
                    r = support[t]
                    d = d_counts[row, r]
                    for lane in range(lanes):
                        part[t, lane] = mont_mul(part[t + 1, lane], tab[r, digit[t], d, lane],
                                                 p[lane], q[lane])  # fmt: skip
                    part_f[t] = part_f[t + 1] * tab_f[r, digit[t], d]
                fresh = 0
                if stamp[at] != group:
                    if used == size:
                        # grow the entry arrays
                        size <<= 1
                        grown = np.zeros((size, lanes), np.uint64)
                        grown_f = np.zeros(size, np.float64)
                        grown_k = np.empty(size, np.int64)
                        for u in range(used):
                            grown[u] = vals[u]
                            grown_f[u] = vals_f[u]
                            grown_k[u] = order_key[u]
                        vals = grown
                        vals_f = grown_f
                        order_key = grown_k
                    stamp[at] = group
                    slot[at] = used
                    order_key[used] = (at * nf + d_final[row]) * 64 + d_hits[row]
                    used += 1
                e = slot[at]
                if taken % 2:
                    for lane in range(lanes):
                        vals[e, lane] = sub_mod(vals[e, lane], part[0, lane], p[lane])
                    vals_f[e] -= part_f[0]
                else:
                    for lane in range(lanes):
                        vals[e, lane] = add_mod(vals[e, lane], part[0, lane], p[lane])
                    vals_f[e] += part_f[0]
                t = 0
            else:
                t = 0
                while t < k and digit[t] == 0:
                    t += 1
                if t == k:
                    break
                key -= digit[t] * radix[support[t]]
                taken -= digit[t]
                digit[t] = 0
                t += 1
            while t < k:
                r = support[t]
                if digit[t] < d_counts[row, r] - (r == short):
                    digit[t] += 1
                    taken += 1
                    key += radix[r]
                    moved = True
                    break
                key -= digit[t] * radix[r]
                taken -= digit[t]
                digit[t] = 0
                t += 1
            if not moved:
                break
            fresh = max(fresh, t + 1)
    order = np.argsort(order_key[:used])
    out_final = np.empty(used, np.int64)
    out_m = np.empty(used, np.int64)
    out_vals = np.empty((used, lanes), np.uint64)
    out_f = np.empty(used, np.float64)
    out_ids = np.empty(used, np.int64)
    ptr = np.zeros(used + 1, np.int64)
    groups = -1
    last_id = np.int64(-1)
    for t in range(used):
        x = order[t]
        composite = order_key[x]
        ident = composite // 64 // nf
        out_final[t] = (composite // 64) % nf
        out_m[t] = composite % 64
        out_vals[t] = vals[x]
        out_f[t] = vals_f[x]
        if ident != last_id:
            groups += 1
            last_id = ident
            out_ids[groups] = ident
            ptr[groups] = t
    ptr[groups + 1] = used
    return (
        out_ids[: groups + 1], ptr[: groups + 2], out_final, out_m, out_vals, out_f,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def add_terms(
    g_ids: np.ndarray, g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray,
    g_vals: np.ndarray, g_f: np.ndarray, d_ids: np.ndarray, d_ptr: np.ndarray,
    d_final: np.ndarray, d_m: np.ndarray, d_vals: np.ndarray, d_f: np.ndarray, p: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, bool]:  # fmt: skip
    """G plus a difference D (both as :func:`dealer_terms` gives them: entries sorted by
    I, then final, then drawn cards), where every entry of D is one of G's: G's values
    with D's added (lanes modulo ``p``), and whether every entry of D was found."""
    lanes = p.shape[0]
    vals = g_vals.copy()
    vals_f = g_f.copy()
    loc = 0
    for t in range(d_ids.shape[0]):
        ident = d_ids[t]
        while loc < g_ids.shape[0] and g_ids[loc] < ident:
            loc += 1
        if loc == g_ids.shape[0] or g_ids[loc] != ident:
            return vals, vals_f, False
        e = g_ptr[loc]
        stop = g_ptr[loc + 1]
        for u in range(d_ptr[t], d_ptr[t + 1]):
            while e < stop and (g_final[e] < d_final[u] or (
                    g_final[e] == d_final[u] and g_m[e] < d_m[u])):  # fmt: skip
                e += 1
            if e == stop or g_final[e] != d_final[u] or g_m[e] != d_m[u]:
                return vals, vals_f, False
            for lane in range(lanes):
                vals[e, lane] = add_mod(vals[e, lane], d_vals[u, lane], p[lane])
            vals_f[e] += d_f[u]
    return vals, vals_f, True


@njit(cache=True, nogil=True)
def shoe_tables(
    n: np.ndarray, cap: int, mont_int: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a shoe of ``n[r]`` cards of each rank: ``fall[r, x] = (n_r)_x`` and
    ``tab[r, i, d] = C(d, i) (n_r - i)_(d - i)`` for counts up to ``cap``, as
    Montgomery lanes and floats (``mont_int[v]`` is the Montgomery form of v)."""
    lanes = p.shape[0]
    fall = np.zeros((RANKS, cap + 1, lanes), np.uint64)
    fall_f = np.zeros((RANKS, cap + 1), np.float64)
    tab = np.zeros((RANKS, cap + 1, cap + 1, lanes), np.uint64)
    tab_f = np.zeros((RANKS, cap + 1, cap + 1), np.float64)
    for r in range(RANKS):
        for i in range(cap + 1):
            # acc = (n_r - i)_dd as dd grows
            acc = mont_int[1].copy()
            acc_f = 1.0
            for dd in range(cap + 1 - i):
                d = i + dd
                binom = 1.0
                for t in range(i):
                    binom = binom * (d - t) / (t + 1)
                b = _U64(round(binom))
                for lane in range(lanes):
                    bm = mont_mul(b, r2[lane], p[lane], q[lane])
                    tab[r, i, d, lane] = mont_mul(acc[lane], bm, p[lane], q[lane])
                tab_f[r, i, d] = binom * acc_f
                if i == 0:
                    fall[r, dd] = acc
                    fall_f[r, dd] = acc_f
                factor = n[r] - i - dd
                if factor <= 0:
                    acc[:] = 0
                    acc_f = 0.0
                else:
                    for lane in range(lanes):
                        acc[lane] = mont_mul(acc[lane], mont_int[factor, lane], p[lane], q[lane])
                    acc_f *= factor
    return fall, fall_f, tab, tab_f


@njit(inline="always")
def _inverse_falling(start: int, count: int, inv_int: np.ndarray, out: np.ndarray,
                     p: np.ndarray, q: np.ndarray) -> float:  # fmt: skip
    """``out = 1 / (start)_count`` (Montgomery lanes); returns the float.  The caller
    makes sure ``start - count + 1 >= 1``."""
    lanes = p.shape[0]
    out[:] = inv_int[1]
    value = 1.0
    for t in range(count):
        for lane in range(lanes):
            out[lane] = mont_mul(out[lane], inv_int[start - t, lane], p[lane], q[lane])
        value /= start - t
    return value


@njit(cache=True, nogil=True)
def pass_tables(
    jd: int, cards: int, jokers: int, shoe_cards: int, kmax: int, mmax: int,
    mont_int: np.ndarray, inv_int: np.ndarray, p: np.ndarray, q: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The factors of one pass (dealer starts holding ``jd`` Jokers): ``jpk[jp, size]``,
    the player's ``(J - jd)_jp / (shoe)_4 / (ordinary left)_hits`` for a hand of
    ``size`` ordinary cards with ``jp`` Jokers dealt to it (``jpk_ok`` where it can
    be), and the dealer's ``invfall[size, m] = 1 / (ordinary left)_m`` (0 where the
    cards cannot be)."""
    lanes = p.shape[0]
    d0 = 2 - jd
    scratch = np.zeros(lanes, np.uint64)
    invfall = np.zeros((kmax + 1, mmax + 1, lanes), np.uint64)
    invfall_f = np.zeros((kmax + 1, mmax + 1), np.float64)
    for size in range(kmax + 1):
        left = cards - d0 - size
        for m in range(mmax + 1):
            if left - m + 1 >= 1:
                invfall_f[size, m] = _inverse_falling(left, m, inv_int, scratch, p, q)
                invfall[size, m] = scratch
    deal = np.zeros(lanes, np.uint64)
    deal_f = _inverse_falling(shoe_cards, 4, inv_int, deal, p, q)
    jpk = np.zeros((3, kmax + 1, lanes), np.uint64)
    jpk_f = np.zeros((3, kmax + 1), np.float64)
    jpk_ok = np.zeros((3, kmax + 1), np.bool_)
    for jp in range(3):
        if jp > jokers - jd:
            continue
        joker_f = 1.0
        jm = deal.copy()
        for t in range(jp):
            joker_f *= jokers - jd - t
            for lane in range(lanes):
                jm[lane] = mont_mul(jm[lane], mont_int[jokers - jd - t, lane], p[lane], q[lane])
        avail = cards - (2 - jp) - d0
        for size in range(2 - jp, kmax + 1):
            hits = size - (2 - jp)
            if avail - hits + 1 < 1:
                continue
            inv_f = _inverse_falling(avail, hits, inv_int, scratch, p, q)
            for lane in range(lanes):
                jpk[jp, size, lane] = mont_mul(jm[lane], scratch[lane], p[lane], q[lane])
            jpk_f[jp, size] = deal_f * joker_f * inv_f
            jpk_ok[jp, size] = True
    return invfall, invfall_f, jpk, jpk_f, jpk_ok, deal


@njit(cache=True, nogil=True)
def _fold(
    loc: int, size: int, g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray,
    g_vals: np.ndarray, g_f: np.ndarray, invfall: np.ndarray, invfall_f: np.ndarray,
    hcum: np.ndarray, hcum_f: np.ndarray, jf: int, jl: np.ndarray, jl_f: float,
    p: np.ndarray, q: np.ndarray,
) -> None:  # fmt: skip
    """Row ``loc`` of the dealer's cumulative finals for a player hand of ``size``
    cards: ``hcum[loc, v] = sum over finals <= v of G(I, final, m) / (left)_m``; the
    final ``jf`` (a 27 a wild Joker made; -1: none) is also weighed by the Jokers left
    to make it, ``jl`` (Montgomery lanes; ``jl_f`` as a float)."""
    lanes = p.shape[0]
    nv = hcum.shape[1]
    hcum[loc] = 0
    hcum_f[loc] = 0.0
    for e in range(g_ptr[loc], g_ptr[loc + 1]):
        m = g_m[e]
        v = g_final[e]
        for lane in range(lanes):
            term = mont_mul(g_vals[e, lane], invfall[size, m, lane], p[lane], q[lane])
            if v == jf:
                term = mont_mul(term, jl[lane], p[lane], q[lane])
            hcum[loc, v, lane] = add_mod(hcum[loc, v, lane], term, p[lane])
        hcum_f[loc, v] += g_f[e] * invfall_f[size, m] * (jl_f if v == jf else 1.0)
    for v in range(1, nv):
        for lane in range(lanes):
            hcum[loc, v, lane] = add_mod(hcum[loc, v, lane], hcum[loc, v - 1, lane], p[lane])
        hcum_f[loc, v] += hcum_f[loc, v - 1]


@njit(cache=True, nogil=True)
def _against_dealer(
    x: int, size: int, ti: int, sub_ptr: np.ndarray, sub_id: np.ndarray, sub_c: np.ndarray,
    big_c: np.ndarray, big_f: np.ndarray, where: np.ndarray, stamp: np.ndarray,
    g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray, g_vals: np.ndarray,
    g_f: np.ndarray, invfall: np.ndarray, invfall_f: np.ndarray, hcum: np.ndarray,
    hcum_f: np.ndarray, nb: np.ndarray, bp: np.ndarray, coef: np.ndarray, start: np.ndarray,
    start_f: float, out: np.ndarray, out_f: np.ndarray, cum: np.ndarray, high: np.ndarray,
    cum_f: np.ndarray, key: int, jf: int, jl: np.ndarray, jl_f: float, p: np.ndarray,
    q: np.ndarray, counts: np.ndarray, g_digits: np.ndarray,
) -> None:  # fmt: skip
    """The chance (plain residues and floats) of each result channel, and of the
    dealer finishing at all (the last row), jointly with the dealer's starts of the
    pass, when the player stands on hand ``x``: ``out[o]``.  ``coef[ti, o]`` reads
    them off the dealer's cumulative finals at the total's breakpoints
    ``bp[ti, :nb[ti]]``; its last column counts the chance of the dealer's starts
    (``start``), which is where the cumulative finals end when no breakpoint is there.
    The folds of the dealer's finals (:func:`_fold`: ``size``, ``jf``, ``jl``) are kept
    per sub-multiset under ``key`` and made again for another key.

    Where G has a few sub-multisets of two cards or fewer (``g_digits``, each one's
    counts per rank; no rows elsewhere: a dealer who stands on his two cards), those
    that are the hand's (``counts``) are taken one by one, with ``c(X, I)`` worked out
    here, instead of looking up each of the hand's sub-multisets: the same terms.
    """
    lanes = p.shape[0]
    k = nb[ti]
    cum[:k] = 0
    high[:k] = 0
    cum_f[:k] = 0.0
    few = g_digits.shape[0]
    first, stop = (0, few) if few else (sub_ptr[x], sub_ptr[x + 1])
    for e in range(first, stop):
        if few:
            loc = e
            c = np.int64(1)
            for r in range(RANKS):
                for u in range(g_digits[loc, r]):
                    c *= max(counts[r] - u, 0)
            if c == 0:
                continue
        else:
            loc = where[sub_id[e]]
            if loc < 0:
                continue
            c = sub_c[e]
        if stamp[loc] != key:
            _fold(loc, size, g_ptr, g_final, g_m, g_vals, g_f, invfall, invfall_f,
                  hcum, hcum_f, jf, jl, jl_f, p, q)  # fmt: skip
            stamp[loc] = key
        if c >= 0 and c < _SMALL:
            # c times a Montgomery form, summed exactly in 128 bits; reduced once below
            cu = _U64(c)
            for j in range(k):
                v = bp[ti, j]
                for lane in range(lanes):
                    add_wide(cum, high, j, lane, cu, hcum[loc, v, lane])
                cum_f[j] += c * hcum_f[loc, v]
        else:
            # a weight past 32 bits: its product with the Montgomery form, reduced (a
            # plain residue), goes to the high word, which the reduction below divides
            # by 2**64 again
            weight_f = np.float64(c) if c >= 0 else big_f[-c - 1]
            for j in range(k):
                v = bp[ti, j]
                for lane in range(lanes):
                    weight = _U64(c) if c >= 0 else big_c[-c - 1, lane]
                    term = mont_mul(weight, hcum[loc, v, lane], p[lane], q[lane])
                    high[j, lane] = add_mod(high[j, lane] % p[lane], term, p[lane])
                cum_f[j] += weight_f * hcum_f[loc, v]
    for j in range(k):
        for lane in range(lanes):
            cum[j, lane] = redc(cum[j, lane], high[j, lane] % p[lane], p[lane], q[lane])
    last = coef.shape[2] - 1
    for o in range(coef.shape[1]):
        constant = coef[ti, o, last]
        for lane in range(lanes):
            if constant == 1:
                out[o, lane] = start[lane]
            elif constant == -1:
                out[o, lane] = sub_mod(_U64(0), start[lane], p[lane])
            else:
                out[o, lane] = 0
        out_f[o] = constant * start_f
        add_by_coefficients(out, o, coef, ti, k, cum, p)
        add_by_coefficients_f(out_f, o, coef, ti, k, cum_f)


@njit(cache=True, nogil=True)
def _cards_product(
    x: int, x_counts: np.ndarray, fall: np.ndarray, fall_f: np.ndarray, out: np.ndarray,
    p: np.ndarray, q: np.ndarray, r2: np.ndarray,
) -> float:  # fmt: skip
    """``prod_r (n_r)_(x_r)``, the shoe's ordinary cards that can be hand ``x``'s
    (Montgomery lanes into ``out``; returns the float)."""
    lanes = p.shape[0]
    for lane in range(lanes):
        value = mont_mul(_U64(1), r2[lane], p[lane], q[lane])
        for r in range(RANKS):
            c = x_counts[x, r]
            if c:
                value = mont_mul(value, fall[r, c, lane], p[lane], q[lane])
        out[lane] = value
    value_f = 1.0
    for r in range(RANKS):
        c = x_counts[x, r]
        if c:
            value_f *= fall_f[r, c]
    return value_f


@njit(cache=True, nogil=True)
def _hand_weights(
    x: int, size: int, drawn: int, x_ways: np.ndarray, cards: np.ndarray, cards_f: float,
    jpk: np.ndarray, jpk_f: np.ndarray, jpk_ok: np.ndarray, w: np.ndarray, w_f: np.ndarray,
    live: np.ndarray, p: np.ndarray, q: np.ndarray, r2: np.ndarray,
) -> bool:  # fmt: skip
    """``w[jp]``: the chance (Montgomery lanes; ``w_f`` floats) of the player's first
    two cards holding ``jp`` Jokers and the hand ending as ``x`` (with ``drawn``
    Jokers drawn after the deal, where they are followed), the dealer's cards aside,
    from its cards' product ``cards`` (:func:`_cards_product`); ``live[jp]`` whether
    there is such a hand.  False when there is none."""
    lanes = p.shape[0]
    any_hand = False
    for jp in range(3):
        w[jp] = 0
        w_f[jp] = 0.0
        live[jp] = False
        ways = x_ways[x, jp]
        if ways == 0 or not jpk_ok[jp, size, drawn]:
            continue
        live[jp] = True
        any_hand = True
        for lane in range(lanes):
            value = mont_mul(_U64(ways), r2[lane], p[lane], q[lane])
            value = mont_mul(value, jpk[jp, size, drawn, lane], p[lane], q[lane])
            w[jp, lane] = mont_mul(value, cards[lane], p[lane], q[lane])
        w_f[jp] = ways * jpk_f[jp, size, drawn] * cards_f
    return any_hand


@njit(cache=True, nogil=True)
def _start_mass(
    x: int, x_counts: np.ndarray, shoe: np.ndarray, s_rank: np.ndarray, s_count: np.ndarray,
    s_w: np.ndarray, s_w_f: np.ndarray, mont_int: np.ndarray, out: np.ndarray,
    p: np.ndarray, q: np.ndarray,
) -> float:  # fmt: skip
    """The chance (plain lanes into ``out``; returns the float) that the dealer's two
    cards are one of the pass's starts, given the player's hand ``x`` is out of the
    shoe: ``sum_s w_s prod_r (n_r - x_r)_(d_r)`` over each start's ordinary ranks."""
    lanes = p.shape[0]
    out[:] = 0
    total_f = 0.0
    for s in range(s_rank.shape[0]):
        term_f = s_w_f[s]
        for lane in range(lanes):
            value = s_w[s, lane]
            for t in range(2):
                r = s_rank[s, t]
                if r < 0:
                    continue
                left = shoe[r] - x_counts[x, r]
                for u in range(s_count[s, t]):
                    factor = left - u if left - u > 0 else 0
                    value = mont_mul(value, mont_int[factor, lane], p[lane], q[lane])
            out[lane] = add_mod(out[lane], mont_mul(value, _U64(1), p[lane], q[lane]), p[lane])
        for t in range(2):
            r = s_rank[s, t]
            if r < 0:
                continue
            left = shoe[r] - x_counts[x, r]
            for u in range(s_count[s, t]):
                term_f *= max(left - u, 0)
        total_f += term_f
    return total_f


@njit(inline="always")
def _held_with_jokers(
    counts: np.ndarray, x: int, jokers: int, bug: bool, values: np.ndarray, no_suits: np.ndarray
) -> int:
    """The poker categories hand ``x`` holds with four ``jokers`` or more (bits): its
    groups and straights by its ranks, and a flush and a straight flush, which four
    Jokers make with any card.  ``values`` (15) and ``no_suits`` (4 zeros) are scratch."""
    values[:] = 0
    values[14] = counts[x, 0]
    for r in range(1, counts.shape[1]):
        values[r + 1] = counts[x, r]
    return poker_held(values, no_suits, no_suits, jokers, bug) | 1 << FLUSH | 1 << STRAIGHT_FLUSH


@njit(cache=True, nogil=True)
def hands_pass(
    x_counts: np.ndarray, x_size: np.ndarray, x_total: np.ndarray, x_ways: np.ndarray,
    x_row: np.ndarray, x_drawn: np.ndarray, x_wins: np.ndarray, explicit: bool,
    sub_ptr: np.ndarray, sub_id: np.ndarray, sub_c: np.ndarray, big_c: np.ndarray,
    big_f: np.ndarray, nu: int, immediate: np.ndarray, nb: np.ndarray,
    bp: np.ndarray, coef: np.ndarray, nhg: np.ndarray, nhg_f: np.ndarray, cat_key: np.ndarray,
    cat_val: np.ndarray, cat_f: np.ndarray, short_row: np.ndarray, short_key: np.ndarray,
    short_val: np.ndarray, short_f: np.ndarray, held_key: np.ndarray, poker_ok: np.ndarray,
    card27: np.ndarray, bug: bool, ncat: int, g_ids: np.ndarray, g_ptr: np.ndarray,
    g_final: np.ndarray, g_m: np.ndarray, g_vals: np.ndarray, g_f: np.ndarray, nf: int,
    s_rank: np.ndarray, s_count: np.ndarray, s_w: np.ndarray, s_w_f: np.ndarray,
    shoe: np.ndarray, fall: np.ndarray, fall_f: np.ndarray, invfall: np.ndarray,
    invfall_f: np.ndarray, jpk: np.ndarray, jpk_f: np.ndarray, jpk_ok: np.ndarray,
    jf: int, jl: np.ndarray, jl_f: np.ndarray, mont_int: np.ndarray, p: np.ndarray,
    q: np.ndarray, r2: np.ndarray, first: int, stop: int, g_digits: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Every finished player hand of one hit/stand table against the dealer's starts
    of one pass (their whole hands added up in G): the chance of each result channel
    (plain residues and floats; the last one is what the others leave) and of each
    bonus category on a hand that wins in channel 0, summed over the hands
    ``first:stop`` (callers split the hands between threads: the kernel releases the
    interpreter's lock).

    ``immediate[ti]`` is the channel of a hand of total ``ti`` that the dealer does not
    play against, or -1.  A winning hand's bonus (``ncat`` > 0): with ``jp``
    Jokers among its first two cards and ``hits`` ordinary cards drawn, it holds
    ``jt`` Jokers in all with chance ``nhg[jp, hits, jt]`` (the last: that many or
    more).  A hand of ``size + jt`` cards that ``card27[ti, size + jt]`` pays by its
    number of cards takes that award; else with four Jokers or more (bugs with ``bug``)
    its bonus is ``held_key`` of the categories it holds (bits; -1: none); else its
    bonuses are
    ``cat_key/cat_val/cat_f[row, jt]`` (hands of five cards or more: each hand's place
    ``x_row`` among all hands), or
    ``short_*[short_row[row], jt]`` for shorter ones (-1: none).  A hand of five
    cards or more earns its poker bonus only where ``poker_ok[ti]`` (by its total).

    Where the Jokers a hand draws after the deal are followed (``explicit``: wild
    Jokers or a Charlie), hand ``x`` holds ``x_drawn[x]`` of them besides its ordinary
    cards (``jpk[jp, size, drawn]`` weighs them), and so ``jp + x_drawn[x]`` in all;
    elsewhere ``x_drawn`` is 0 and ``nhg`` puts them back with their chance.  A hand
    with ``x_wins[x]`` (a Charlie) wins at once, before the dealer plays.  With wild
    Jokers (``jf``, the dealer's final a Joker made, is not -1) the dealer's finals
    are folded for the player's cards with his Jokers, and with the Jokers left,
    ``jl[drawn]``.

    ``g_digits``: G's sub-multisets as counts per rank, where they are few and of two
    cards or fewer (no rows elsewhere; see :func:`_against_dealer`).
    """
    lanes = p.shape[0]
    nloc = g_ids.shape[0]
    finished = coef.shape[1] - 1
    chunk = 0
    out = np.zeros((1, finished + 1, lanes), np.uint64)
    out_f = np.zeros((1, finished + 1), np.float64)
    bonus = np.zeros((1, max(ncat, 1), lanes), np.uint64)
    bonus_f = np.zeros((1, max(ncat, 1)), np.float64)
    nbmax = bp.shape[1]
    where = g_places(g_ids, nu)
    hcum = np.zeros((nloc, nf, lanes), np.uint64)
    hcum_f = np.zeros((nloc, nf), np.float64)
    stamp = np.full(nloc, -1, np.int64)
    w = np.zeros((3, lanes), np.uint64)
    w_f = np.zeros(3, np.float64)
    live = np.zeros(3, np.bool_)
    res = np.zeros((finished + 1, lanes), np.uint64)
    res_f = np.zeros(finished + 1, np.float64)
    cum = np.zeros((nbmax, lanes), np.uint64)
    high = np.zeros((nbmax, lanes), np.uint64)
    cum_f = np.zeros(nbmax, np.float64)
    total = np.zeros(lanes, np.uint64)
    start = np.zeros(lanes, np.uint64)
    won = np.zeros(lanes, np.uint64)
    chance = np.zeros(lanes, np.uint64)
    values = np.zeros(15, np.int64)
    no_suits = np.zeros(4, np.int64)
    # hands of the same ordinary cards side by side (a Charlie's rows, one per number of
    # Jokers drawn) share the dealer's start mass and, meeting him alike, his results
    last_row = -1
    last_met = -1
    start_f = 0.0
    cards = np.zeros(lanes, np.uint64)
    cards_f = 0.0
    for x in range(first, stop):
        size = x_size[x]
        drawn = x_drawn[x]
        if x_row[x] != last_row:
            cards_f = _cards_product(x, x_counts, fall, fall_f, cards, p, q, r2)
            start_f = _start_mass(x, x_counts, shoe, s_rank, s_count, s_w, s_w_f, mont_int,
                                  start, p, q)  # fmt: skip
            last_row = x_row[x]
            last_met = -1
        if not _hand_weights(x, size, drawn, x_ways, cards, cards_f, jpk, jpk_f, jpk_ok, w,
                             w_f, live, p, q, r2):  # fmt: skip
            continue
        ti = x_total[x]
        now = 0 if x_wins[x] else immediate[ti]
        if now >= 0:
            res[:] = 0
            res_f[:] = 0.0
            res[finished] = start
            res_f[finished] = start_f
            if now < finished:
                res[now] = start
                res_f[now] = start_f
            last_met = -1
        else:
            # with wild Jokers the dealer draws after the player's Jokers too (one at
            # most); elsewhere he passes them through
            wild = 1 if jf >= 0 else 0
            held = size + drawn * wild
            key = 4 * held + drawn * wild
            met = key * 1024 + ti
            if met != last_met:
                _against_dealer(
                    x_row[x], held, ti, sub_ptr, sub_id, sub_c, big_c, big_f, where, stamp,
                    g_ptr, g_final, g_m, g_vals, g_f, invfall, invfall_f, hcum, hcum_f, nb,
                    bp, coef, start, start_f, res, res_f, cum, high, cum_f, key, jf,
                    jl[drawn * wild], jl_f[drawn * wild], p, q, x_counts[x], g_digits,
                )  # fmt: skip
                last_met = met
        for lane in range(lanes):
            total[lane] = 0
            for jp in range(3):
                total[lane] = add_mod(total[lane], w[jp, lane], p[lane])
        total_f = w_f[0] + w_f[1] + w_f[2]
        for lane in range(lanes):
            rest = mont_mul(res[finished, lane], total[lane], p[lane], q[lane])
            for o in range(finished):
                part = mont_mul(res[o, lane], total[lane], p[lane], q[lane])
                out[chunk, o, lane] = add_mod(out[chunk, o, lane], part, p[lane])
                rest = sub_mod(rest, part, p[lane])
            out[chunk, finished, lane] = add_mod(out[chunk, finished, lane], rest, p[lane])
        rest_f = res_f[finished]
        for o in range(finished):
            out_f[chunk, o] += res_f[o] * total_f
            rest_f -= res_f[o]
        out_f[chunk, finished] += rest_f * total_f
        if ncat == 0 or (now >= 0 and now != 0):
            continue
        row = x_row[x]
        for jp in range(3):
            if not live[jp]:
                continue
            hits = size - (2 - jp)
            for lane in range(lanes):
                won[lane] = mont_mul(res[0, lane], w[jp, lane], p[lane], q[lane])
            won_f = res_f[0] * w_f[jp]
            held_last = nhg.shape[2] - 1
            for jt in range(jp, held_last + 1):
                if explicit:
                    # the hand holds its Jokers for sure (the last column: or more)
                    if jt != min(jp + drawn, held_last):
                        continue
                    chance[:] = won
                    chance_f = won_f
                else:
                    if nhg_f[jp, hits, jt] == 0.0:
                        continue
                    for lane in range(lanes):
                        chance[lane] = mont_mul(won[lane], nhg[jp, hits, jt, lane], p[lane],
                                                q[lane])  # fmt: skip
                    chance_f = won_f * nhg_f[jp, hits, jt]
                if size + jt < card27.shape[1] and card27[ti, size + jt] >= 0:
                    key = card27[ti, size + jt]  # paid by its number of cards
                    for lane in range(lanes):
                        bonus[chunk, key, lane] = add_mod(
                            bonus[chunk, key, lane], chance[lane], p[lane]
                        )
                    bonus_f[chunk, key] += chance_f
                    continue
                if jt >= 4:
                    # four Jokers or more: the ranks decide (the last jt counts more
                    # Jokers too, which change nothing the ranks do not)
                    if not poker_ok[ti]:
                        continue
                    key = held_key[_held_with_jokers(x_counts, x, jt, bug, values, no_suits)]
                    if key < 0:
                        continue
                    for lane in range(lanes):
                        bonus[chunk, key, lane] = add_mod(
                            bonus[chunk, key, lane], chance[lane], p[lane]
                        )
                    bonus_f[chunk, key] += chance_f
                    continue
                if size + jt >= 5:
                    if not poker_ok[ti]:
                        continue
                    keys = cat_key[row, jt]
                    vals = cat_val[row, jt]
                    vals_f = cat_f[row, jt]
                else:
                    at = short_row[row]
                    if at < 0:
                        continue
                    keys = short_key[at, jt]
                    vals = short_val[at, jt]
                    vals_f = short_f[at, jt]
                for e in range(keys.shape[0]):
                    key = keys[e]
                    if key < 0:
                        continue
                    for lane in range(lanes):
                        term = mont_mul(chance[lane], vals[e, lane], p[lane], q[lane])
                        bonus[chunk, key, lane] = add_mod(bonus[chunk, key, lane], term, p[lane])
                    bonus_f[chunk, key] += chance_f * vals_f[e]
    return out, out_f, bonus, bonus_f


# -- decisions: 21-24-27 ---------------------------------------------------------------------
#: what the rules make of a total: the player chooses, must hit, must stand, is over
FREE, MUST_HIT, MUST_STAND, OVER = 0, 1, 2, 3


@njit(inline="always")
def choose_play(
    code: int, override: int, hit_f: float, stand_f: float, eps: float
) -> tuple[int, bool]:
    """Hit (1) or stand (0) at a state that may draw (``code`` FREE or MUST_HIT), by its
    values in floats; ``override`` (1 or 0; -1: none) sets a free state's play.  And
    whether a free state's two values are within ``eps``, for the caller to decide it
    exactly."""
    if code != FREE:
        return 1, False
    if override >= 0:
        return override, False
    return (1 if hit_f > stand_f else 0), abs(hit_f - stand_f) <= eps


@njit(cache=True, nogil=True)
def decide_pass(
    u_counts: np.ndarray, u_size: np.ndarray, u_total: np.ndarray, u_row: np.ndarray,
    u_child: np.ndarray, sub_ptr: np.ndarray, sub_id: np.ndarray, sub_c: np.ndarray,
    big_c: np.ndarray, big_f: np.ndarray, nu: int, nb: np.ndarray, bp: np.ndarray,
    coef: np.ndarray, g_ids: np.ndarray, g_ptr: np.ndarray, g_final: np.ndarray,
    g_m: np.ndarray, g_vals: np.ndarray, g_f: np.ndarray, nf: int, invfall: np.ndarray,
    invfall_f: np.ndarray, shoe: np.ndarray, left0: int, forced: np.ndarray, over: int,
    pays: np.ndarray, pays_f: np.ndarray, st_x: np.ndarray, st_w: np.ndarray,
    st_wf: np.ndarray, hvals: np.ndarray, svals: np.ndarray, override: np.ndarray,
    eps: float, exact: bool, mont_int: np.ndarray, inv_int: np.ndarray, p: np.ndarray,
    q: np.ndarray, r2: np.ndarray,
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]:  # fmt: skip
    """21-24-27 against one dealer start: the best play on the exact cards seen, and
    every total-dependent table of thresholds, over every state of the player's hand.

    The states (``u_*``, in order of cards held) are every multiset the player can
    hold hitting wherever the rules let him; ``u_child[x, r]`` is the state one card of
    rank r later.  ``shoe[r]`` are the ordinary cards of each rank the dealer's start
    leaves (``left0`` in all).  ``forced[ti]`` is what the rules make of a total (FREE,
    MUST_HIT, MUST_STAND, OVER); a hand over 27 settles in channel ``over``.  The
    dealer's chances against a standing hand come from his table G (his draws only:
    the start's cards are out of ``shoe``), read as in :func:`hands_pass`; ``pays`` is
    each channel's net (Montgomery lanes, and ``pays_f``).

    Composition-dependent play: from the most cards down, each free state hits if
    hitting is worth more (floats), unless ``override[x]`` says otherwise (0 stand,
    1 hit); where the two are within ``eps`` the state is *flagged*, with both exact
    values when ``exact`` (Montgomery lanes: the caller decides those exactly and calls
    again; without ``exact`` the values are not worked out, and flags come alone).  The
    play is then followed forward from the player's starts (``st_x`` with their
    chances ``st_w``) to the chance of each channel (plain lanes, and floats).

    Tables: hard free totals hit below ``hvals[h]``, soft ones below ``svals[s]``; the
    expected net of every pair (h, s), weighed by the starts, in floats.

    Returns the channels' chances (lanes, floats), the table grid, each state's
    decision (1 hit), the flagged states, and their values of hitting and of standing.
    """
    lanes = p.shape[0]
    n = u_counts.shape[0]
    channels = coef.shape[1]
    nloc = g_ids.shape[0]
    where = g_places(g_ids, nu)
    hcum = np.zeros((nloc, nf, lanes), np.uint64)
    hcum_f = np.zeros((nloc, nf), np.float64)
    stamp = np.full(nloc, -1, np.int64)
    nbmax = bp.shape[1]
    cum = np.zeros((nbmax, lanes), np.uint64)
    high = np.zeros((nbmax, lanes), np.uint64)
    cum_f = np.zeros(nbmax, np.float64)
    one = np.ones(lanes, np.uint64)
    # the chance of each channel when standing (plain lanes), and its expected net
    stand = np.zeros((n, channels, lanes), np.uint64)
    stand_f = np.zeros((n, channels), np.float64)
    stand_ev = np.zeros((n, lanes), np.uint64)
    stand_ev_f = np.zeros(n, np.float64)
    res = np.zeros((channels, lanes), np.uint64)
    res_f = np.zeros(channels, np.float64)
    no_counts = np.zeros(RANKS, np.int64)
    no_digits = np.zeros((0, RANKS), np.int64)
    for x in range(n):
        ti = u_total[x]
        code = forced[ti]
        if code == MUST_HIT:
            continue
        if code == OVER:
            for lane in range(lanes):
                stand[x, over, lane] = 1
            stand_f[x, over] = 1.0
        else:
            _against_dealer(
                u_row[x], u_size[x], ti, sub_ptr, sub_id, sub_c, big_c, big_f, where, stamp,
                g_ptr, g_final, g_m, g_vals, g_f, invfall, invfall_f, hcum, hcum_f, nb, bp,
                coef, one, 1.0, res, res_f, cum, high, cum_f, u_size[x], -1, one, 1.0, p, q,
                no_counts, no_digits,
            )  # fmt: skip
            # the last row says the dealer finished; what the channels leave of it is
            # the rest (the dealer's win)
            for lane in range(lanes):
                rest = res[channels - 1, lane]
                for o in range(channels - 1):
                    stand[x, o, lane] = res[o, lane]
                    rest = sub_mod(rest, res[o, lane], p[lane])
                stand[x, channels - 1, lane] = rest
            rest_f = res_f[channels - 1]
            for o in range(channels - 1):
                stand_f[x, o] = res_f[o]
                rest_f -= res_f[o]
            stand_f[x, channels - 1] = rest_f
        for lane in range(lanes):
            net = _U64(0)
            for o in range(channels):
                net = add_mod(
                    net, mont_mul(stand[x, o, lane], pays[o, lane], p[lane], q[lane]), p[lane]
                )
            stand_ev[x, lane] = mont_mul(net, r2[lane], p[lane], q[lane])
        ev = 0.0
        for o in range(channels):
            ev += stand_f[x, o] * pays_f[o]
        stand_ev_f[x] = ev
    # composition-dependent play, backward (values: Montgomery lanes and floats)
    value = np.zeros((n, lanes), np.uint64)
    value_f = np.zeros(n, np.float64)
    decision = np.zeros(n, np.int8)
    flagged = np.zeros(n, np.int64)
    flag_hit = np.zeros((n, lanes), np.uint64)
    flag_stand = np.zeros((n, lanes), np.uint64)
    nflags = 0
    hit = np.zeros(lanes, np.uint64)
    scale = np.zeros(lanes, np.uint64)
    for x in range(n - 1, -1, -1):
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND):
            value[x] = stand_ev[x]
            value_f[x] = stand_ev_f[x]
            continue
        left = left0 - u_size[x]
        hit[:] = 0
        hit_f = 0.0
        if left > 0:
            for lane in range(lanes):
                scale[lane] = inv_int[left, lane]
            for r in range(RANKS):
                c = u_child[x, r]
                cards = shoe[r] - u_counts[x, r]
                if c < 0 or cards <= 0:
                    continue
                if exact:
                    for lane in range(lanes):
                        w = mont_mul(mont_int[cards, lane], scale[lane], p[lane], q[lane])
                        hit[lane] = add_mod(
                            hit[lane], mont_mul(w, value[c, lane], p[lane], q[lane]), p[lane]
                        )
                hit_f += cards / left * value_f[c]
        choose, close = choose_play(code, override[x], hit_f, stand_ev_f[x], eps)
        if close:
            flagged[nflags] = x
            flag_hit[nflags] = hit
            flag_stand[nflags] = stand_ev[x]
            nflags += 1
        decision[x] = choose
        if choose:
            value[x] = hit
            value_f[x] = hit_f
        else:
            value[x] = stand_ev[x]
            value_f[x] = stand_ev_f[x]
    # every table of thresholds, backward in floats
    nh = hvals.shape[0]
    ns = svals.shape[0]
    table = np.zeros((n, nh * ns), np.float64)
    hits = np.zeros(nh * ns, np.float64)
    for x in range(n - 1, -1, -1):
        ti = u_total[x]
        code = forced[ti]
        if code in (OVER, MUST_STAND):
            table[x] = stand_ev_f[x]
            continue
        left = left0 - u_size[x]
        hits[:] = 0.0
        if left > 0:
            for r in range(RANKS):
                c = u_child[x, r]
                cards = shoe[r] - u_counts[x, r]
                if c < 0 or cards <= 0:
                    continue
                w = cards / left
                for k in range(nh * ns):
                    hits[k] += w * table[c, k]
        if code == MUST_HIT:
            table[x] = hits
            continue
        total = ti // 2
        soft = ti % 2 == 1
        for h in range(nh):
            for s in range(ns):
                k = h * ns + s
                draws = total < (svals[s] if soft else hvals[h])
                table[x, k] = hits[k] if draws else stand_ev_f[x]
    grid = np.zeros(nh * ns, np.float64)
    for i in range(st_x.shape[0]):
        for k in range(nh * ns):
            grid[k] += st_wf[i] * table[st_x[i], k]
    # the play followed forward: each state's chance (Montgomery lanes, floats)
    reach = np.zeros((n, lanes), np.uint64)
    reach_f = np.zeros(n, np.float64)
    for i in range(st_x.shape[0]):
        x = st_x[i]
        for lane in range(lanes):
            reach[x, lane] = add_mod(reach[x, lane], st_w[i, lane], p[lane])
        reach_f[x] += st_wf[i]
    lines = np.zeros((channels, lanes), np.uint64)
    lines_f = np.zeros(channels, np.float64)
    for x in range(n):
        if reach_f[x] == 0.0:
            continue
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND) or (code == FREE and decision[x] == 0):
            for o in range(channels):
                for lane in range(lanes):
                    term = mont_mul(stand[x, o, lane], reach[x, lane], p[lane], q[lane])
                    lines[o, lane] = add_mod(lines[o, lane], term, p[lane])
                lines_f[o] += stand_f[x, o] * reach_f[x]
            continue
        left = left0 - u_size[x]
        if left <= 0:
            continue  # the shoe is empty: the round cannot end (the caller's sum shows it)
        for lane in range(lanes):
            scale[lane] = mont_mul(reach[x, lane], inv_int[left, lane], p[lane], q[lane])
        for r in range(RANKS):
            c = u_child[x, r]
            cards = shoe[r] - u_counts[x, r]
            if c < 0 or cards <= 0:
                continue
            for lane in range(lanes):
                term = mont_mul(scale[lane], mont_int[cards, lane], p[lane], q[lane])
                reach[c, lane] = add_mod(reach[c, lane], term, p[lane])
            reach_f[c] += reach_f[x] * cards / left
    return (
        lines, lines_f, grid, decision, flagged[:nflags].copy(), flag_hit[:nflags].copy(),
        flag_stand[:nflags].copy(),
    )  # fmt: skip
