"""The compiled pass of 21-24-27's composition-dependent play, for its report alone.

:func:`~cardroom.games.finnish.shoe_kernel.decide_pass` works out, against one dealer
start, every state's exact chances of each result, the best play and every table of
thresholds.  The report of composition-dependent play needs less, and
:func:`composition_pass` does only that:

1. each state's value of standing in floats, added up exactly as ``decide_pass`` adds
   it, so the floats and the decisions are the same (those within ``eps`` are flagged
   and settled in exact arithmetic by the caller, from :func:`flagged_values`: the
   exact values of the flagged states alone, worked out on the states they need);
2. the play followed forward from the player's starts: every way from a start to a
   state has the same chance, so a state's chance is that of its cards times the
   number of ways (weighed by the starts), one addition per draw;
3. only for the states the play reaches and stands on, the exact chance of each
   result, weighed by each state's chance *before* the dealer's side is read: the
   states of one size whose totals read his cumulative finals alike (the same
   breakpoints) go together, so ``sum_x reach(x) sum_I c(X, I) H(I)`` is
   ``sum_I W(I) H(I)`` with ``W(I) = sum_x reach(x) c(X, I)``; the dealer's table is
   read once per sub-multiset of a group instead of once per state that holds it.

The chances come out as the same residues (exact arithmetic in another order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardroom.analysis.modular import add_mod, add_wide, mont_mul, redc, sub_mod
from cardroom.games.finnish.shoe_kernel import (
    FREE,
    MUST_HIT,
    MUST_STAND,
    OVER,
    RANKS,
    add_by_coefficients,
    add_by_coefficients_f,
    choose_play,
    g_places,
)

__all__ = ["composition_pass", "flagged_values"]

_U64 = np.uint64
#: weights below this are multiplied into 128-bit sums (2**32 x 2**63 per term)
_SMALL = 1 << 32


@njit(cache=True, nogil=True)
def _fold_floats(
    loc: int, size: int, g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray,
    g_f: np.ndarray, invfall_f: np.ndarray, hcum_f: np.ndarray,
) -> None:  # fmt: skip
    """Row ``loc`` of the dealer's cumulative finals in floats for a player hand of
    ``size`` cards (as ``shoe_kernel._fold`` makes it, without a wild Joker), up to
    the last final a result is read at (``hcum_f``'s columns; the finals past it are
    the dealer's busts, which the chance of his start stands for)."""
    nv = hcum_f.shape[1]
    hcum_f[loc] = 0.0
    for e in range(g_ptr[loc], g_ptr[loc + 1]):
        if g_final[e] < nv:
            hcum_f[loc, g_final[e]] += g_f[e] * invfall_f[size, g_m[e]] * 1.0
    for v in range(1, nv):
        hcum_f[loc, v] += hcum_f[loc, v - 1]


@njit(cache=True, nogil=True)
def _fold_exact(
    loc: int, size: int, g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray,
    g_vals: np.ndarray, invfall: np.ndarray, hcum: np.ndarray, p: np.ndarray, q: np.ndarray,
) -> None:  # fmt: skip
    """The same row in Montgomery lanes."""
    lanes = p.shape[0]
    nv = hcum.shape[1]
    hcum[loc] = 0
    for e in range(g_ptr[loc], g_ptr[loc + 1]):
        m = g_m[e]
        v = g_final[e]
        if v >= nv:
            continue
        for lane in range(lanes):
            term = mont_mul(g_vals[e, lane], invfall[size, m, lane], p[lane], q[lane])
            hcum[loc, v, lane] = add_mod(hcum[loc, v, lane], term, p[lane])
    for v in range(1, nv):
        for lane in range(lanes):
            hcum[loc, v, lane] = add_mod(hcum[loc, v, lane], hcum[loc, v - 1, lane], p[lane])


@njit(inline="always")
def _read_finals(nb: np.ndarray, bp: np.ndarray, nf: int) -> int:
    """How many of the dealer's finals (in order) a result is read at: up to the last
    breakpoint of any total (at least one)."""
    top = 1
    for ti in range(nb.shape[0]):
        for j in range(nb[ti]):
            top = max(top, bp[ti, j] + 1)
    return min(top, nf)


@njit(cache=True, nogil=True)
def composition_pass(
    u_counts: np.ndarray, u_size: np.ndarray, u_total: np.ndarray, u_row: np.ndarray,
    u_child: np.ndarray, sub_ptr: np.ndarray, sub_id: np.ndarray, sub_c: np.ndarray,
    big_c: np.ndarray, big_f: np.ndarray, nu: int, nb: np.ndarray, bp: np.ndarray,
    coef: np.ndarray, g_ids: np.ndarray, g_ptr: np.ndarray, g_final: np.ndarray,
    g_m: np.ndarray, g_vals: np.ndarray, g_f: np.ndarray, nf: int, kind: np.ndarray,
    invfall: np.ndarray, invfall_f: np.ndarray, shoe: np.ndarray, left0: int,
    forced: np.ndarray, over: int, pays_f: np.ndarray, st_x: np.ndarray, st_w: np.ndarray,
    st_wf: np.ndarray, override: np.ndarray, eps: float, mont_int: np.ndarray,
    inv_int: np.ndarray, p: np.ndarray, q: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """21-24-27 against one dealer start, composition-dependent play: the arguments
    are ``decide_pass``'s (less those of the tables of thresholds and of the exact
    values of close decisions), and ``kind[ti]``, the same number for totals that read
    the dealer's finals alike (the same breakpoints and coefficients), whose standing
    states are taken together.

    Returns the channels' chances (plain lanes, as ``decide_pass``'s first result),
    each state's decision (1 hit) and the flagged states (within ``eps`` and not
    overridden: the caller settles them exactly with ``decide_pass`` and comes back
    with ``override``).
    """
    lanes = p.shape[0]
    n = u_counts.shape[0]
    channels = coef.shape[1]
    last = coef.shape[2] - 1
    nloc = g_ids.shape[0]
    where = g_places(g_ids, nu)
    nbmax = bp.shape[1]
    top = _read_finals(nb, bp, nf)
    # 1. the value of standing, in floats, as decide_pass adds it up
    hcum_f = np.empty((nloc, top), np.float64)
    stamp_f = np.full(nloc, -1, np.int64)
    cum_f = np.zeros(nbmax, np.float64)
    res_f = np.zeros(channels, np.float64)
    stand_ev_f = np.zeros(n, np.float64)
    # each state's sub-multisets that the dealer's table has, kept for step 4
    room = 0
    for x in range(n):
        if forced[u_total[x]] not in (MUST_HIT, OVER):
            room += sub_ptr[u_row[x] + 1] - sub_ptr[u_row[x]]
    found_ptr = np.zeros(n + 1, np.int64)
    found_loc = np.empty(room, np.int64)
    found_c = np.empty(room, np.int64)
    nfound = 0
    for x in range(n):
        found_ptr[x] = nfound
        ti = u_total[x]
        code = forced[ti]
        if code == MUST_HIT:
            continue
        if code == OVER:
            ev = 0.0
            for o in range(channels):
                ev += (1.0 if o == over else 0.0) * pays_f[o]
            stand_ev_f[x] = ev
            continue
        size = u_size[x]
        row = u_row[x]
        k = nb[ti]
        cum_f[:k] = 0.0
        for e in range(sub_ptr[row], sub_ptr[row + 1]):
            loc = where[sub_id[e]]
            if loc < 0:
                continue
            if stamp_f[loc] != size:
                _fold_floats(loc, size, g_ptr, g_final, g_m, g_f, invfall_f, hcum_f)
                stamp_f[loc] = size
            c = sub_c[e]
            found_loc[nfound] = loc
            found_c[nfound] = c
            nfound += 1
            if c >= 0 and c < _SMALL:
                for j in range(k):
                    cum_f[j] += c * hcum_f[loc, bp[ti, j]]
            else:
                weight_f = np.float64(c) if c >= 0 else big_f[-c - 1]
                for j in range(k):
                    cum_f[j] += weight_f * hcum_f[loc, bp[ti, j]]
        for o in range(channels):
            res_f[o] = coef[ti, o, last] * 1.0
            add_by_coefficients_f(res_f, o, coef, ti, k, cum_f)
        rest_f = res_f[channels - 1]
        ev = 0.0
        for o in range(channels - 1):
            rest_f -= res_f[o]
            ev += res_f[o] * pays_f[o]
        stand_ev_f[x] = ev + rest_f * pays_f[channels - 1]
    found_ptr[n] = nfound
    # 2. composition-dependent play, backward in floats
    value_f = np.zeros(n, np.float64)
    decision = np.zeros(n, np.int8)
    flagged = np.zeros(n, np.int64)
    nflags = 0
    for x in range(n - 1, -1, -1):
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND):
            value_f[x] = stand_ev_f[x]
            continue
        left = left0 - u_size[x]
        hit_f = 0.0
        if left > 0:
            for r in range(RANKS):
                c = u_child[x, r]
                cards = shoe[r] - u_counts[x, r]
                if c < 0 or cards <= 0:
                    continue
                hit_f += cards / left * value_f[c]
        choose, close = choose_play(code, override[x], hit_f, stand_ev_f[x], eps)
        if close:
            flagged[nflags] = x
            nflags += 1
        decision[x] = choose
        value_f[x] = hit_f if choose else stand_ev_f[x]
    # 3. the play followed forward.  A draw's chance is (cards of its rank left) /
    # (cards left), so every way from a start S to a state X has the same chance,
    # prod_r (n_r - s_r)_(x_r - s_r) / (L - |S|)_(|X| - |S|) = P(X) / P(S) with
    # P(X) = prod_r (n_r)_(x_r) / (L)_|X|: X's chance is P(X) A(X), where A(X) adds
    # w_S / P(S) over the ways from each start, an addition per draw (Montgomery lanes)
    big = 0
    for x in range(n):
        for r in range(RANKS):
            big = max(big, u_counts[x, r])
    top = 0
    for x in range(n):
        top = max(top, u_size[x])
    fall = np.zeros((RANKS, big + 1, lanes), np.uint64)  # (n_r)_k
    for r in range(RANKS):
        fall[r, 0] = mont_int[1]
        for t in range(big):
            factor = max(shoe[r] - t, 0)
            for lane in range(lanes):
                fall[r, t + 1, lane] = mont_mul(fall[r, t, lane], mont_int[factor, lane],
                                                p[lane], q[lane])  # fmt: skip
    inv_fall = np.zeros((top + 1, lanes), np.uint64)  # 1 / (L)_s
    inv_fall[0] = inv_int[1]
    for t in range(top):
        if left0 - t >= 1:
            for lane in range(lanes):
                inv_fall[t + 1, lane] = mont_mul(inv_fall[t, lane], inv_int[left0 - t, lane],
                                                 p[lane], q[lane])  # fmt: skip
    ways = np.zeros((n, lanes), np.uint64)  # A
    reached = np.zeros(n, np.bool_)
    for i in range(st_x.shape[0]):
        if st_wf[i] == 0.0:
            continue
        x = st_x[i]
        reached[x] = True
        # w_S (L)_|S| / prod_r (n_r)_(s_r)
        for lane in range(lanes):
            value = st_w[i, lane]
            for t in range(u_size[x]):
                value = mont_mul(value, mont_int[left0 - t, lane], p[lane], q[lane])
            for r in range(RANKS):
                for t in range(u_counts[x, r]):
                    value = mont_mul(value, inv_int[shoe[r] - t, lane], p[lane], q[lane])
            ways[x, lane] = add_mod(ways[x, lane], value, p[lane])
    lines = np.zeros((channels, lanes), np.uint64)
    reach = np.zeros((n, lanes), np.uint64)  # X's chance, where the play stands
    standing = np.zeros(n, np.int64)
    nstanding = 0
    one = _U64(1)
    busts = np.zeros(lanes, np.uint64)  # the chance of going over 27 (Montgomery)
    value = np.zeros(lanes, np.uint64)
    for x in range(n):
        if not reached[x]:
            continue
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND) or (code == FREE and decision[x] == 0):
            # (the lanes side by side: each a chain of products)
            for lane in range(lanes):
                value[lane] = mont_mul(ways[x, lane], inv_fall[u_size[x], lane], p[lane], q[lane])
            for r in range(RANKS):
                held = u_counts[x, r]
                if held:
                    for lane in range(lanes):
                        value[lane] = mont_mul(value[lane], fall[r, held, lane], p[lane], q[lane])
            if code == OVER:
                for lane in range(lanes):
                    busts[lane] = add_mod(busts[lane], value[lane], p[lane])
            else:
                reach[x] = value
                standing[nstanding] = x
                nstanding += 1
            continue
        if left0 - u_size[x] <= 0:
            continue  # the shoe is empty: the round cannot end (the caller's sum shows it)
        for r in range(RANKS):
            c = u_child[x, r]
            if c < 0 or shoe[r] - u_counts[x, r] <= 0:
                continue
            reached[c] = True
            for lane in range(lanes):
                ways[c, lane] = add_mod(ways[c, lane], ways[x, lane], p[lane])
    # 4. the standing states by size and kind of total: per group, W(I) = sum_x reach(x) c(X, I)
    # (128 bits, reduced once), then read against the dealer's cumulative finals
    standing = standing[:nstanding]
    group_of = np.empty(nstanding, np.int64)
    for i in range(nstanding):
        x = standing[i]
        group_of[i] = u_size[x] * (forced.shape[0] + 1) + kind[u_total[x]]
    order = np.argsort(group_of, kind="mergesort")
    hcum = np.empty((nloc, _read_finals(nb, bp, nf), lanes), np.uint64)
    stamp = np.full(nloc, -1, np.int64)
    w_low = np.zeros((nloc, lanes), np.uint64)
    w_high = np.zeros((nloc, lanes), np.uint64)
    seen = np.full(nloc, -1, np.int64)
    touched = np.empty(nloc, np.int64)
    mass = np.zeros(lanes, np.uint64)  # sum of reach (Montgomery) over the group
    acc = np.zeros((channels, lanes), np.uint64)  # sum_x reach(x) res_x[o], plain
    cum = np.zeros((nbmax, lanes), np.uint64)
    begin = 0
    while begin < nstanding:
        group = group_of[order[begin]]
        end = begin
        while end < nstanding and group_of[order[end]] == group:
            end += 1
        x0 = standing[order[begin]]
        size = u_size[x0]
        ti = u_total[x0]
        k = nb[ti]
        ntouched = 0
        mass[:] = 0
        for at in range(begin, end):
            x = standing[order[at]]
            for lane in range(lanes):
                mass[lane] = add_mod(mass[lane], reach[x, lane], p[lane])
            for e in range(found_ptr[x], found_ptr[x + 1]):
                loc = found_loc[e]
                if seen[loc] != group:
                    seen[loc] = group
                    touched[ntouched] = loc
                    ntouched += 1
                    w_low[loc] = 0
                    w_high[loc] = 0
                c = found_c[e]
                if c >= 0 and c < _SMALL:
                    cu = _U64(c)
                    for lane in range(lanes):
                        add_wide(w_low, w_high, loc, lane, cu, reach[x, lane])
                else:
                    for lane in range(lanes):
                        weight = _U64(c) if c >= 0 else big_c[-c - 1, lane]
                        term = mont_mul(weight, reach[x, lane], p[lane], q[lane])
                        w_high[loc, lane] = add_mod(w_high[loc, lane] % p[lane], term, p[lane])
        cum[:k] = 0
        for t in range(ntouched):
            loc = touched[t]
            if stamp[loc] != size:
                _fold_exact(loc, size, g_ptr, g_final, g_m, g_vals, invfall, hcum, p, q)
                stamp[loc] = size
            for lane in range(lanes):
                w = redc(w_low[loc, lane], w_high[loc, lane] % p[lane], p[lane], q[lane])
                for j in range(k):
                    term = mont_mul(w, hcum[loc, bp[ti, j], lane], p[lane], q[lane])
                    cum[j, lane] = add_mod(cum[j, lane], term, p[lane])
        for o in range(channels):
            constant = coef[ti, o, last]
            for lane in range(lanes):
                plain = mont_mul(mass[lane], one, p[lane], q[lane])
                if constant == 1:
                    acc[o, lane] = add_mod(acc[o, lane], plain, p[lane])
                elif constant == -1:
                    acc[o, lane] = sub_mod(acc[o, lane], plain, p[lane])
            add_by_coefficients(acc, o, coef, ti, k, cum, p)
        begin = end
    for lane in range(lanes):
        lines[over, lane] = mont_mul(one, busts[lane], p[lane], q[lane])
    # the last row says the dealer finished; what the channels leave of it is the rest
    for lane in range(lanes):
        rest = acc[channels - 1, lane]
        for o in range(channels - 1):
            lines[o, lane] = add_mod(lines[o, lane], acc[o, lane], p[lane])
            rest = sub_mod(rest, acc[o, lane], p[lane])
        lines[channels - 1, lane] = add_mod(lines[channels - 1, lane], rest, p[lane])
    return lines, decision, flagged[:nflags].copy()


@njit(cache=True, nogil=True)
def flagged_values(
    u_counts: np.ndarray, u_size: np.ndarray, u_total: np.ndarray, u_row: np.ndarray,
    u_child: np.ndarray, sub_ptr: np.ndarray, sub_id: np.ndarray, sub_c: np.ndarray,
    big_c: np.ndarray, nu: int, nb: np.ndarray, bp: np.ndarray, coef: np.ndarray,
    g_ids: np.ndarray, g_ptr: np.ndarray, g_final: np.ndarray, g_m: np.ndarray,
    g_vals: np.ndarray, nf: int, invfall: np.ndarray, shoe: np.ndarray, left0: int,
    forced: np.ndarray, over: int, pays: np.ndarray, decision: np.ndarray,
    flagged: np.ndarray, mont_int: np.ndarray, inv_int: np.ndarray, p: np.ndarray,
    q: np.ndarray, r2: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The exact values (Montgomery lanes) of hitting and of standing on each flagged
    state, the play's other decisions as ``decision`` says: what ``decide_pass`` gives
    with ``exact``, worked out only where the flagged states' values need it (the
    states their draws reach, and the play goes on from)."""
    lanes = p.shape[0]
    n = u_counts.shape[0]
    channels = coef.shape[1]
    last = coef.shape[2] - 1
    nloc = g_ids.shape[0]
    where = g_places(g_ids, nu)
    is_flag = np.zeros(n, np.bool_)
    for i in range(flagged.shape[0]):
        is_flag[flagged[i]] = True
    # the states whose values the flagged ones need (the states come in order of
    # cards held: a state's draws come after it)
    needed = is_flag.copy()
    for x in range(n):
        if not needed[x]:
            continue
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND) or (decision[x] == 0 and not is_flag[x]):
            continue
        if left0 - u_size[x] <= 0:
            continue
        for r in range(RANKS):
            c = u_child[x, r]
            if c >= 0 and shoe[r] - u_counts[x, r] > 0:
                needed[c] = True
    hcum = np.empty((nloc, _read_finals(nb, bp, nf), lanes), np.uint64)
    stamp = np.full(nloc, -1, np.int64)
    nbmax = bp.shape[1]
    cum = np.zeros((nbmax, lanes), np.uint64)
    high = np.zeros((nbmax, lanes), np.uint64)
    res = np.zeros((channels, lanes), np.uint64)
    stand_ev = np.zeros((n, lanes), np.uint64)
    for x in range(n):
        if not needed[x]:
            continue
        ti = u_total[x]
        code = forced[ti]
        if code == MUST_HIT:
            continue
        if code == OVER:
            for lane in range(lanes):
                net = mont_mul(_U64(1), pays[over, lane], p[lane], q[lane])
                stand_ev[x, lane] = mont_mul(net, r2[lane], p[lane], q[lane])
            continue
        size = u_size[x]
        row = u_row[x]
        k = nb[ti]
        cum[:k] = 0
        high[:k] = 0
        for e in range(sub_ptr[row], sub_ptr[row + 1]):
            loc = where[sub_id[e]]
            if loc < 0:
                continue
            if stamp[loc] != size:
                _fold_exact(loc, size, g_ptr, g_final, g_m, g_vals, invfall, hcum, p, q)
                stamp[loc] = size
            c = sub_c[e]
            if c >= 0 and c < _SMALL:
                cu = _U64(c)
                for j in range(k):
                    v = bp[ti, j]
                    for lane in range(lanes):
                        add_wide(cum, high, j, lane, cu, hcum[loc, v, lane])
            else:
                for j in range(k):
                    v = bp[ti, j]
                    for lane in range(lanes):
                        weight = _U64(c) if c >= 0 else big_c[-c - 1, lane]
                        term = mont_mul(weight, hcum[loc, v, lane], p[lane], q[lane])
                        high[j, lane] = add_mod(high[j, lane] % p[lane], term, p[lane])
        for j in range(k):
            for lane in range(lanes):
                cum[j, lane] = redc(cum[j, lane], high[j, lane] % p[lane], p[lane], q[lane])
        for o in range(channels):
            constant = coef[ti, o, last]
            for lane in range(lanes):
                if constant == 1:
                    res[o, lane] = 1
                elif constant == -1:
                    res[o, lane] = sub_mod(_U64(0), _U64(1), p[lane])
                else:
                    res[o, lane] = 0
            add_by_coefficients(res, o, coef, ti, k, cum, p)
        for lane in range(lanes):
            rest = res[channels - 1, lane]
            net = _U64(0)
            for o in range(channels - 1):
                rest = sub_mod(rest, res[o, lane], p[lane])
                term = mont_mul(res[o, lane], pays[o, lane], p[lane], q[lane])
                net = add_mod(net, term, p[lane])
            term = mont_mul(rest, pays[channels - 1, lane], p[lane], q[lane])
            net = add_mod(net, term, p[lane])
            stand_ev[x, lane] = mont_mul(net, r2[lane], p[lane], q[lane])
    # the values, backward
    value = np.zeros((n, lanes), np.uint64)
    hit = np.zeros(lanes, np.uint64)
    flag_hit = np.zeros((flagged.shape[0], lanes), np.uint64)
    flag_stand = np.zeros((flagged.shape[0], lanes), np.uint64)
    place = np.full(n, -1, np.int64)
    for i in range(flagged.shape[0]):
        place[flagged[i]] = i
    for x in range(n - 1, -1, -1):
        if not needed[x]:
            continue
        code = forced[u_total[x]]
        if code in (OVER, MUST_STAND):
            value[x] = stand_ev[x]
            continue
        hit[:] = 0
        left = left0 - u_size[x]
        if left > 0 and (decision[x] == 1 or is_flag[x]):
            for r in range(RANKS):
                c = u_child[x, r]
                cards = shoe[r] - u_counts[x, r]
                if c < 0 or cards <= 0:
                    continue
                for lane in range(lanes):
                    w = mont_mul(mont_int[cards, lane], inv_int[left, lane], p[lane], q[lane])
                    term = mont_mul(w, value[c, lane], p[lane], q[lane])
                    hit[lane] = add_mod(hit[lane], term, p[lane])
        if is_flag[x]:
            flag_hit[place[x]] = hit
            flag_stand[place[x]] = stand_ev[x]
        if decision[x] == 1:
            value[x] = hit
        else:
            value[x] = stand_ev[x]
    return flag_hit, flag_stand
