"""R's exact tree growth as one compiled loop (numba kernels).

The NumPy engine finds R's splits with whole-array passes and a proven error
bound (engine/split.py); a compiled loop can simply do what R does, row by
row: scan each predictor's presorted rows of the node with R's running sums
(missing rows first, left sums from the first non-missing row, right sums the
node total less one row at a time), score every admissible boundary with R's
gain formula and keep the first of the largest, predictor by predictor.
Categorical predictors sum each level over the node's rows in row order,
order the levels by mean with R's Shell sort and score every prefix. The
growth is R's best-first loop: the terminal node with the largest gain is
split into left, right and missing children until ``depth`` splits.

Every number is computed in the order R computes it, so the result is the
NumPy engine's tree bit for bit (``tests/engine/test_compiled.py``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..split import LEFT, MISSING, RIGHT
from .arith import midpoint, shell_order_first, split_gain
from .cegb_penalties import mark, penalties
from .tree_arrays import (carve, carve2, grown_nodes, new_nodes, node_capacity,
                          terminal_capacity)


class ExactData(NamedTuple):
    """The presorted training data as :func:`.exact_tree.grow_exact` reads it."""

    xt: np.ndarray              # (p, n) predictors by rows
    order: np.ndarray           # (continuous predictors, n) sorted rows, missing first
    n_nan: np.ndarray           # missing rows per continuous predictor
    cont_row: np.ndarray        # predictor -> its row of ``order`` (-1: categorical)
    var_type: np.ndarray        # 0 continuous, else the number of levels
    monotone: np.ndarray        # R's var.monotone
    max_levels: int             # the most levels of a categorical predictor (0: none)
    tied: np.ndarray            # per continuous predictor: long runs of tied values


#: a penalised predictor's scan admits the positions whose gain exceeds the best
#: gain less penalty so far plus its penalty, lowered by this share: a rounding
#: allowance (whether it wins is then decided as the NumPy search does, by the
#: gain less the penalty)
PENALTY_SLACK = 1e-12

#: a continuous predictor is scanned as ``tied`` when fewer than this share of
#: its sorted non-missing values differ from the one before: long runs of ties,
#: where a branch on a new value is well predicted and saves the screen
#: (measured on the statisticians' data sets: at 0.5 the branch was
#: mispredicted often enough to cost 10-20% of a tree)
TIED_BELOW = 0.05


def tied_predictors(xt: np.ndarray, order: np.ndarray, n_nan: np.ndarray,
                    cont: np.ndarray) -> np.ndarray:
    """Which continuous predictors (rows of ``order``) have long runs of ties."""
    out = np.zeros(order.shape[0], dtype=np.bool_)
    for c, v in enumerate(cont):
        x = xt[v].take(order[c, n_nan[c]:])
        if x.size > 1:
            out[c] = np.count_nonzero(x[1:] != x[:-1]) < TIED_BELOW * (x.size - 1)
    return out



#: a split's sides as :func:`_keep_sums` stores them: left, right and missing
#: (sum of w z, weight, rows)
SIDE_SUMS = 9
#: a terminal node's candidate split: gain less penalty, gain, penalty, value
#: (floats); node, segment start and end, predictor, levels sent left (ints)
TERM_FLOATS = 4
TERM_INTS = 5


@njit(cache=True, error_model="numpy")
def _keep_sums(out, ls, lw, nl, rs, rw, nr, ms, mw, nm):
    """Store the best split's sides: (ls, lw, nl, rs, rw, nr, ms, mw, nm)."""
    out[0] = ls
    out[1] = lw
    out[2] = nl
    out[3] = rs
    out[4] = rw
    out[5] = nr
    out[6] = ms
    out[7] = mw
    out[8] = nm


class GrowthSpace(NamedTuple):
    """The scratch arrays of :func:`grow_exact`, made once per fit
    (:func:`growth_space`) and reused by every tree."""

    S: np.ndarray               # (continuous predictors, n) the in-bag rows, sorted
    R: np.ndarray               # (n,) the in-bag rows in row order (categoricals)
    tmp: np.ndarray             # (n,) partition scratch
    direction: np.ndarray       # (n,) where the current split sends each row
    node_of: np.ndarray         # (n,) each training row's terminal node
    level_sums: np.ndarray      # (widest factor,) a categorical scan's sums by level
    level_w: np.ndarray
    level_n: np.ndarray         # int64
    level_mean: np.ndarray      # the levels' means, the key of R's level order
    level_sorted: np.ndarray    # the sort's copy of the means
    level_order: np.ndarray     # int64: the levels in R's order
    trial_sums: np.ndarray      # (9,) a predictor's best split's sums, until it wins
    trial_levels: np.ndarray    # (widest factor,) int64: its levels sent left


def growth_space(data: ExactData) -> GrowthSpace:
    """The scratch arrays of trees grown on ``data``."""
    p, n = data.xt.shape
    pc = data.order.shape[0]
    needs_rows = bool(np.any(data.var_type > 0)) or pc == 0
    return GrowthSpace(np.empty((pc, n), dtype=np.int32),
                       np.empty(n if needs_rows else 0, dtype=np.int32),
                       np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int8),
                       np.empty(n, dtype=np.int64), *_level_space(max(int(data.max_levels), 1)))


def _level_space(width: int) -> tuple:
    """The categorical scan's per-level scratch and a predictor's best split
    (see :class:`GrowthSpace`)."""
    return (np.empty(width), np.empty(width), np.empty(width, dtype=np.int64),
            np.empty(width), np.empty(width), np.empty(width, dtype=np.int64),
            np.empty(SIDE_SUMS), np.empty(width, dtype=np.int64))


#: the screen of a candidate's gain (see :func:`_may_beat`): the rounding of
#: the sums' cross differences, in units of their magnitude (a few ulps,
#: generously), and the relative margin kept below the best gain
SCREEN_ULPS = 8.0 * 2.0 ** -53
SCREEN_KEEP = 1.0 - 1e-9
#: with unit weights one bound serves every position of a node: |ls| rw +
#: |rs| lw (and the missing side's cross terms) is below SCREEN_SPAN times
#: the node's sum of |w z| times its count, with SCREEN_SLACK for the
#: rounding of those sums themselves
SCREEN_SPAN = 4.0
SCREEN_SLACK = 1.0 + 1e-6


@njit(cache=True, error_model="numpy", inline="always")
def _may_beat(best, lw, rw, mw, ls, rs, ms):
    """False only when R's gain of these sums is certainly below ``best``.

    The gain lw rw (ls/lw - rs/rw)^2 / (lw + rw) is (ls rw - rs lw)^2 /
    (lw rw (lw + rw)) exactly; computed without divisions, the cross
    difference is within a few ulps of |ls| rw + |rs| lw of the exact one, and
    R's computed gain within the same of the exact gain, so a bound of R's
    gain costs a few multiplications where the gain costs three divisions.
    Likewise with a missing side (three cross differences). NaN or a zero
    weight never screens a candidate out."""
    if mw == 0.0:
        d = ls * rw - rs * lw
        e = abs(d) + SCREEN_ULPS * (abs(ls) * rw + abs(rs) * lw)
        return not (e * e < best * (lw * rw * (lw + rw)) * SCREEN_KEEP)
    d1 = ls * rw - rs * lw
    d2 = ls * mw - ms * lw
    d3 = rs * mw - ms * rw
    e1 = abs(d1) + SCREEN_ULPS * (abs(ls) * rw + abs(rs) * lw)
    e2 = abs(d2) + SCREEN_ULPS * (abs(ls) * mw + abs(ms) * lw)
    e3 = abs(d3) + SCREEN_ULPS * (abs(rs) * mw + abs(ms) * rw)
    bound = mw * e1 * e1 + rw * e2 * e2 + lw * e3 * e3
    return not (bound < best * (lw * rw * mw * (lw + rw + mw)) * SCREEN_KEEP)


@njit(cache=True, error_model="numpy", inline="always")
def _screen_unit(thr, eps, lw, rw, mw, ls, rs, ms):
    """:func:`_may_beat` for a node with unit weights, cheaper: ``eps`` bounds
    every position's rounding term at once (:data:`SCREEN_ULPS` times a
    bound of |ls| rw + |rs| lw over the node) and ``thr`` is the best gain
    times the gain's constant factors (the node's count, and ``mw`` with a
    missing side) and :data:`SCREEN_KEEP`."""
    e1 = abs(ls * rw - rs * lw) + eps
    if mw == 0.0:
        return not (e1 * e1 < thr * (lw * rw))
    e2 = abs(ls * mw - ms * lw) + eps
    e3 = abs(rs * mw - ms * rw) + eps
    return not (mw * e1 * e1 + rw * e2 * e2 + lw * e3 * e3 < thr * (lw * rw))


@njit(cache=True, error_model="numpy", inline="always")
def _screen_threshold(best, n_rows, mw, weight):
    """``thr`` of :func:`_screen_unit` for the best gain so far."""
    if mw == 0.0:
        return best * float(n_rows) * SCREEN_KEEP
    return best * mw * weight * SCREEN_KEEP


@njit(cache=True, error_model="numpy")
def _scan_unit(xt, v, S, c, wz, lo, hi, min_obs, mono, tied, side, weight, eps, best,
               out_sums):
    """R's scan of predictor ``v`` (continuous: its rows ``S[c, lo:hi]`` in
    its order, values ``xt[v]``) of a node with unit weights (R's
    weight sums are then the counts, exactly): the running sums in R's order
    (``ls`` from the first row, ``rs`` the node total less one row at a
    time); the screen (:func:`_screen_unit`) at every new value (``tied``: the
    predictor has long runs of tied values, skipped by a branch; else the
    screen is computed at every position, without a branch, as a mispredicted
    branch costs more) and R's gain only where it cannot rule the candidate
    out, keeping the first of the largest. ``weight`` is the node's count,
    ``eps`` its rounding bound, ``side`` = (rs, mw, ms, k_nm): the right
    sum before the first row and the missing side's sums and count. Returns
    (gain, split value, found); ``out_sums`` gets the best candidate's nine
    sums. (The 2-D arrays and their row numbers, not row views: a view per
    predictor and node costs reference counting, measured as much of a tiny
    fit's time.)"""
    rs, mw, ms, k_nm = side
    n_rows = hi - lo
    found = False
    value = 0.0
    if n_rows == 0:
        return best, value, found
    thr = _screen_threshold(best, n_rows, mw, weight)
    i = S[c, lo]
    last = xt[v, i]
    ls = wz[i]
    rs -= wz[i]
    if tied:                 # long runs of ties: skipped by a (predictable) branch
        for j in range(1, n_rows):
            i = S[c, lo + j]
            xv = xt[v, i]
            if last != xv and j >= min_obs and n_rows - j >= min_obs:
                lw = float(j)
                rw = float(n_rows - j)
                if (_screen_unit(thr, eps, lw, rw, mw, ls, rs, ms)
                        and (mono == 0 or mono * (rs * lw - ls * rw) > 0)):
                    g = split_gain(lw, rw, mw, ls, rs, ms)
                    if g > best:
                        best = g
                        thr = _screen_threshold(best, n_rows, mw, weight)
                        value = midpoint(last, xv)
                        found = True
                        _keep_sums(out_sums, ls, lw, j, rs, rw, n_rows - j, ms, mw, k_nm)
            zi = wz[i]
            ls += zi
            rs -= zi
            last = xv
        return best, value, found
    for j in range(1, n_rows):     # few ties: the screen everywhere, no branch
        i = S[c, lo + j]
        xv = xt[v, i]
        lw = float(j)
        rw = float(n_rows - j)
        cand = ((last != xv) & (j >= min_obs) & (n_rows - j >= min_obs)
                & _screen_unit(thr, eps, lw, rw, mw, ls, rs, ms))
        if cand and (mono == 0 or mono * (rs * lw - ls * rw) > 0):
            g = split_gain(lw, rw, mw, ls, rs, ms)
            if g > best:
                best = g
                thr = _screen_threshold(best, n_rows, mw, weight)
                value = midpoint(last, xv)
                found = True
                _keep_sums(out_sums, ls, lw, j, rs, rw, n_rows - j, ms, mw, k_nm)
        zi = wz[i]
        ls += zi
        rs -= zi
        last = xv
    return best, value, found


@njit(cache=True, error_model="numpy", inline="always")
def _floor(best_score, pen):
    """The gain a predictor with penalty ``pen`` must exceed to be a candidate
    (the best so far itself without a penalty, R's running best)."""
    if pen == 0.0:
        return best_score
    floor = best_score + pen
    return floor - abs(floor) * PENALTY_SLACK


@njit(cache=True, error_model="numpy")
def _search(data, space, wz, w, unit, min_obs, term_nm, t, lo, hi, tot_z, tot_w, pen,
            out_sums, levels_out):
    """Best split of one node: its in-bag rows are ``S[c, lo:hi]`` in each
    continuous predictor's order (``term_nm[t, c]`` missing first) and ``R[lo:hi]``
    in row order, with totals ``tot_z``, ``tot_w``; each predictor's best
    split is compared by its gain less its penalty ``pen`` (zeros: R's
    search). Returns (gain, var, value, n_left_levels, gain less penalty);
    ``out_sums`` gets (ls, lw, nl, rs, rw, nr, ms, mw, nmiss) and
    ``levels_out`` the levels sent left (categorical)."""
    xt, cont_row, var_type, mono = data.xt, data.cont_row, data.var_type, data.monotone
    tied = data.tied
    S, R = space.S, space.R
    level_sums, level_w, level_n = space.level_sums, space.level_w, space.level_n
    level_mean, level_sorted, level_order = (space.level_mean, space.level_sorted,
                                             space.level_order)
    p = xt.shape[0]
    eps = 0.0
    if unit:                 # the rounding bound of the node's unit-weight screens
        rows = S[0] if S.shape[0] else R
        size = 0.0
        for k in range(lo, hi):
            size += abs(wz[rows[k]])
        eps = SCREEN_ULPS * SCREEN_SPAN * size * tot_w * SCREEN_SLACK
    best_score = 0.0
    best_gain = 0.0
    best_var = -1
    best_value = 0.0
    best_nlev = 0
    trial = space.trial_sums
    trial_levels = space.trial_levels
    m = hi - lo
    for v in range(p):
        best = _floor(best_score, pen[v])      # this predictor's candidates exceed it
        found = False
        value = 0.0
        nlev = 0
        if var_type[v] == 0:
            c = cont_row[v]
            k_nm = term_nm[t, c]
            ms = 0.0
            mw = 0.0
            rs = tot_z
            rw = tot_w
            for k in range(lo, lo + k_nm):
                i = S[c, k]
                ms += wz[i]
                mw += w[i]
                rs -= wz[i]
                rw -= w[i]
            ls = 0.0
            lw = 0.0
            nl = 0
            nr = m - k_nm
            last = -np.inf
            mv = mono[v]
            if unit:
                best, value, found = _scan_unit(xt, v, S, c, wz, lo + k_nm, hi, min_obs, mv,
                                                tied[c], (rs, mw, ms, k_nm), tot_w, eps,
                                                best, trial)
                k_end = lo + k_nm                   # scanned: no weighted scan
            else:
                k_end = hi
            for k in range(lo + k_nm, k_end):
                i = S[c, k]
                xv = xt[v, i]
                if (last != xv and nl >= min_obs and nr >= min_obs
                        and _may_beat(best, lw, rw, mw, ls, rs, ms)):
                    ok = True
                    if mv != 0:
                        ok = mv * (rs * lw - ls * rw) > 0
                    if ok:
                        g = split_gain(lw, rw, mw, ls, rs, ms)
                        if g > best:
                            best = g
                            found = True
                            value = midpoint(last, xv)
                            _keep_sums(trial, ls, lw, nl, rs, rw, nr, ms, mw, k_nm)
                zi = wz[i]
                if nl == 0:
                    ls = zi
                else:
                    ls += zi
                rs -= zi
                lw += w[i]
                rw -= w[i]
                nl += 1
                nr -= 1
                last = xv
        else:
            K = var_type[v]
            # (the scratch arrays by index up to K, not views of them: a view
            # costs reference counting, per predictor and node)
            for lev in range(K):
                level_sums[lev] = 0.0
                level_w[lev] = 0.0
                level_n[lev] = 0
            ms = 0.0
            mw = 0.0
            rs = tot_z
            rw = tot_w
            k_nm = 0
            for r in range(lo, hi):
                i = R[r]
                xv = xt[v, i]
                if np.isnan(xv):
                    ms += wz[i]
                    mw += w[i]
                    rs -= wz[i]
                    rw -= w[i]
                    k_nm += 1
                else:
                    lev = int(xv)
                    level_sums[lev] += wz[i]
                    level_w[lev] += w[i]
                    level_n[lev] += 1
            n_finite = 0
            for lev in range(K):
                if level_w[lev] != 0.0:
                    level_mean[lev] = level_sums[lev] / level_w[lev]
                    n_finite += 1
                else:
                    level_mean[lev] = np.inf
            shell_order_first(level_mean, K, level_sorted, level_order)
            ls = 0.0
            lw = 0.0
            nl = 0
            for j in range(n_finite - 1):
                lev = level_order[j]
                if j == 0:
                    ls = level_sums[lev]
                    lw = level_w[lev]
                else:
                    ls += level_sums[lev]
                    lw += level_w[lev]
                nl += level_n[lev]
                rs -= level_sums[lev]
                rw -= level_w[lev]
                nr = m - k_nm - nl
                if nl >= min_obs and nr >= min_obs:
                    g = split_gain(lw, rw, mw, ls, rs, ms)
                    if g > best:
                        best = g
                        found = True
                        value = float(j)
                        nlev = j + 1
                        for q in range(j + 1):
                            trial_levels[q] = level_order[q]
                        _keep_sums(trial, ls, lw, nl, rs, rw, nr, ms, mw, k_nm)
        # R's rule across predictors: a later one only if strictly better (by
        # its gain less its penalty)
        if found and best - pen[v] > best_score:
            best_score = best - pen[v]
            best_gain = best
            best_var = v
            best_value = value
            best_nlev = nlev
            out_sums[:] = trial
            levels_out[:nlev] = trial_levels[:nlev]
    return best_gain, best_var, best_value, best_nlev, best_score


@njit(cache=True, error_model="numpy", inline="always")
def _node_rows(space, lo, hi):
    """The in-bag rows of a node's segment (in some predictor's order)."""
    rows = space.S[0] if space.S.shape[0] else space.R
    return rows[lo:hi]


@njit(cache=True, error_model="numpy", inline="always")
def _scatter(src, r, dst, lo, hi, direction, f0, f1, f2):
    """Rows ``src[r, lo:hi]`` into ``dst`` at the three children's next places
    (``f0``, ``f1``, ``f2``); returns the places after them. The places live
    in registers and are chosen without a branch on the direction."""
    for k in range(lo, hi):
        i = src[r, k]
        d = direction[i]
        pos = f0 if d == LEFT else (f1 if d == RIGHT else f2)
        dst[pos] = i
        f0 += d == LEFT
        f1 += d == RIGHT
        f2 += d == MISSING
    return f0, f1, f2


@njit(cache=True, error_model="numpy")
def _routed_counts(rows, direction, counts):
    """How many of the node's in-bag ``rows`` the routing sends to each child:
    the sizes of the children's segments are the rows routed to them (which
    the search's counts equal, split values being :func:`.arith.midpoint`'s;
    counted, so that no rounding can make the partition write past them)."""
    counts[LEFT] = 0
    counts[RIGHT] = 0
    counts[MISSING] = 0
    for i in rows:
        counts[direction[i]] += 1


@njit(cache=True, error_model="numpy")
def _partition(space, lo, hi, term_nm, t, counts, nm_children):
    """Split the node's segment ``lo:hi`` of ``space.S`` (every predictor's
    order, ``term_nm[t, c]`` missing rows first) and of ``space.R`` (row
    order) among its children in place, as ``space.direction`` sends the
    rows: left, right, then missing rows (``counts`` of each), each in its
    parent's order; each child's leading missing rows per predictor into
    ``nm_children`` (3, pc). Rows are addressed as ``S[c, k]``, without a
    view per predictor (reference counting, see :func:`_scan_unit`)."""
    S, R, tmp, direction = space.S, space.R, space.tmp, space.direction
    s1 = counts[LEFT]
    s2 = s1 + counts[RIGHT]
    for c in range(S.shape[0]):
        lead = lo + term_nm[t, c]
        f0, f1, f2 = _scatter(S, c, tmp, lo, lead, direction, 0, s1, s2)
        nm_children[LEFT, c] = f0
        nm_children[RIGHT, c] = f1 - s1
        nm_children[MISSING, c] = f2 - s2
        _scatter(S, c, tmp, lead, hi, direction, f0, f1, f2)
        for k in range(lo, hi):
            S[c, k] = tmp[k - lo]
    if R.shape[0]:
        R2 = R.reshape((1, R.shape[0]))
        _scatter(R2, 0, tmp, lo, hi, direction, 0, s1, s2)
        for k in range(lo, hi):
            R[k] = tmp[k - lo]


@njit(cache=True, error_model="numpy")
def _sorted_levels(t_levels, t, nlev, node_levels, nd):
    """``t_levels[t, :nlev]`` in increasing order into ``node_levels[nd]``
    (distinct level numbers: any sort gives the same; an insertion sort in
    place, without the copy and views of ``np.sort``)."""
    for j in range(nlev):
        lev = t_levels[t, j]
        q = j
        while q > 0 and node_levels[nd, q - 1] > lev:
            node_levels[nd, q] = node_levels[nd, q - 1]
            q -= 1
        node_levels[nd, q] = lev


@njit(cache=True, error_model="numpy")
def grow_exact(data, space, wz, w, inbag, unit, min_obs, depth):
    """R's best-first tree of at most ``depth`` splits (see :func:`_grow`)."""
    return _grow(data, space, wz, w, inbag, unit, min_obs, depth, None, np.zeros(0))


@njit(cache=True, error_model="numpy")
def grow_exact_penalised(data, space, wz, w, inbag, unit, min_obs, depth, costs):
    """:func:`grow_exact` with CEGB's penalties (``costs``, see
    :mod:`.cegb_penalties`): predictors and nodes compared by the gain less
    the penalty, no split without a positive one, the rows of each split
    marked as having read its predictor, and every terminal node searched
    again when the model first pays a predictor's cost. Returns the node
    arrays and each node's penalty (0 for terminal nodes)."""
    node_pen = np.zeros(node_capacity(depth))
    arrays = _grow(data, space, wz, w, inbag, unit, min_obs, depth, costs, node_pen)
    return arrays, node_pen[:arrays.pred.shape[0]]


@njit(cache=True, error_model="numpy")
def _grow(data, space, wz, w, inbag, unit, min_obs, depth, costs, node_pen):
    """R's best-first tree of at most ``depth`` splits (see the module docstring)
    on ``data`` (an :class:`ExactData`) from the in-bag rows' ``w * z`` and
    ``w`` (``unit``: every weight is 1), in the scratch arrays ``space`` (a
    :class:`GrowthSpace`).

    Returns the tree's :class:`.tree_arrays.GrownNodes` (every training
    row's terminal index is ``space.node_of``: the next tree overwrites it).
    With penalties (``costs``) each split
    node's penalty goes to ``node_pen``.

    The in-bag rows are kept in one table (every continuous predictor's
    sorted rows, and the rows in row order when categorical predictors need
    them); a terminal node owns a segment of it, which a split divides in
    place among the children.
    """
    xt, order, n_nan, var_type = data.xt, data.order, data.n_nan, data.var_type
    max_levels = data.max_levels
    p, n = xt.shape
    pc = order.shape[0]
    max_term = terminal_capacity(depth)
    width = max(max_levels, 1)
    cols = max(pc, 1)
    # the terminal nodes' tables and the growth's small scratch, cut from
    # three allocations (see tree_arrays.carve)
    floats = np.zeros(p + SIDE_SUMS + max_term * (TERM_FLOATS + SIDE_SUMS))
    pen, at = carve(floats, 0, p)
    sums, at = carve(floats, at, SIDE_SUMS)
    t_gain, at = carve(floats, at, max_term)            # less the penalty
    t_raw, at = carve(floats, at, max_term)             # R's gain
    t_pen, at = carve(floats, at, max_term)
    t_value, at = carve(floats, at, max_term)
    t_sums, at = carve2(floats, at, max_term, SIDE_SUMS)
    ints = np.zeros(max_term * (TERM_INTS + cols + width) + 3 * cols + 3 * 3 + 2 * width,
                    dtype=np.int64)         # (3 children: counts, goes, ids)
    term_nm, at = carve2(ints, 0, max_term, cols)
    term_node, at = carve(ints, at, max_term)
    term_lo, at = carve(ints, at, max_term)
    term_hi, at = carve(ints, at, max_term)
    t_var, at = carve(ints, at, max_term)
    t_nlev, at = carve(ints, at, max_term)
    t_levels, at = carve2(ints, at, max_term, width)
    levels, at = carve(ints, at, width)
    nm_children, at = carve2(ints, at, 3, cols)
    counts, at = carve(ints, at, 3)
    goes, at = carve(ints, at, 3)
    ids, at = carve(ints, at, 3)
    goes_right, at = carve(ints, at, width)
    t_var[:] = -1
    searched = np.zeros(max_term, dtype=np.bool_)
    n_bag = 0
    for i in range(n):
        n_bag += inbag[i]
    S, R = space.S, space.R
    for c in range(pc):               # every predictor's in-bag rows, in its order
        q = 0                         # (written at q, kept by moving q: no branch)
        for k in range(n_nan[c]):
            i = order[c, k]
            S[c, q] = i
            q += inbag[i]
        term_nm[0, c] = q
        for k in range(n_nan[c], n):
            i = order[c, k]
            S[c, q] = i
            q += inbag[i]
    tot_z = 0.0
    tot_w = 0.0
    q = 0
    for i in range(n):
        if inbag[i]:
            tot_z += wz[i]
            tot_w += w[i]
            if R.shape[0]:
                R[q] = i
                q += 1
    if unit:
        tot_w = float(n_bag)

    max_nodes = node_capacity(depth)
    (node_z, node_w, node_n, node_var, node_value, node_gain, node_kids, node_nlev,
     node_levels) = new_nodes(max_nodes, width)
    node_z[0] = tot_z
    node_w[0] = tot_w
    node_n[0] = n_bag
    n_nodes = 1

    term_hi[0] = n_bag
    n_term = 1
    node_of = space.node_of
    node_of[:] = 0
    direction = space.direction

    for n_split in range(depth):
        for t in range(n_term):
            if searched[t]:
                continue
            searched[t] = True
            nd = term_node[t]
            t_gain[t] = 0.0
            t_var[t] = -1
            if node_n[nd] >= 2:
                if costs is not None:
                    penalties(costs, _node_rows(space, term_lo[t], term_hi[t]), pen)
                g, v, value, nlev, score = _search(data, space, wz, w, unit, min_obs, term_nm,
                                                   t, term_lo[t], term_hi[t], node_z[nd],
                                                   node_w[nd], pen, sums, levels)
                if v >= 0:
                    t_gain[t] = score
                    t_raw[t] = g
                    t_pen[t] = pen[v]
                    t_var[t] = v
                    t_value[t] = value
                    t_nlev[t] = nlev
                    for k in range(SIDE_SUMS):
                        t_sums[t, k] = sums[k]
                    for k in range(nlev):
                        t_levels[t, k] = levels[k]
        t = 0
        for u in range(1, n_term):
            if t_gain[u] > t_gain[t]:
                t = u
        if not t_gain[t] > 0.0:
            break
        nd = term_node[t]
        v = t_var[t]
        node_var[nd] = v
        node_value[nd] = t_value[t]
        node_gain[nd] = t_raw[t]
        if costs is not None:
            node_pen[nd] = t_pen[t]
            if mark(costs, _node_rows(space, term_lo[t], term_hi[t]), v):
                searched[:n_term] = False       # the other nodes' penalties changed
        nlev = t_nlev[t]
        node_nlev[nd] = nlev
        _sorted_levels(t_levels, t, nlev, node_levels, nd)
        for side in range(3):
            if side == LEFT:
                sz, sw, sn = t_sums[t, 0], t_sums[t, 1], int(t_sums[t, 2])
            elif side == RIGHT:
                sz, sw, sn = t_sums[t, 3], t_sums[t, 4], int(t_sums[t, 5])
            elif t_sums[t, 8] > 0:
                sz, sw, sn = t_sums[t, 6], t_sums[t, 7], int(t_sums[t, 8])
            else:                       # no missing row: the parent's statistics
                sz, sw, sn = node_z[nd], node_w[nd], 0
            node_z[n_nodes] = sz
            node_w[n_nodes] = sw
            node_n[n_nodes] = sn
            node_kids[nd, side] = n_nodes
            ids[side] = n_nodes
            n_nodes += 1
        t_right = n_term
        t_missing = n_term + 1
        term_node[t] = ids[LEFT]
        term_node[t_right] = ids[RIGHT]
        term_node[t_missing] = ids[MISSING]
        n_term += 2
        # route the node's training rows (in and out of the bag)
        goes_right[:] = 1
        for q in range(nlev):
            goes_right[node_levels[nd, q]] = 0
        goes[LEFT] = t
        goes[RIGHT] = t_right
        goes[MISSING] = t_missing
        split_value = t_value[t]
        categorical = var_type[v] > 0
        for i in range(n):
            xv = xt[v, i]
            if np.isnan(xv):
                d = MISSING
            elif categorical:
                d = goes_right[int(xv)]
            else:
                d = RIGHT if xv >= split_value else LEFT
            here = node_of[i] == t
            direction[i] = d
            node_of[i] = goes[d] if here else node_of[i]
        if n_split + 1 < depth:
            lo, hi = term_lo[t], term_hi[t]
            _routed_counts(_node_rows(space, lo, hi), direction, counts)
            _partition(space, lo, hi, term_nm, t, counts, nm_children)
            term_lo[t_right] = lo + counts[LEFT]
            term_hi[t] = lo + counts[LEFT]
            term_lo[t_missing] = term_lo[t_right] + counts[RIGHT]
            term_hi[t_right] = term_lo[t_missing]
            term_hi[t_missing] = hi
            for c in range(pc):
                term_nm[t, c] = nm_children[LEFT, c]
                term_nm[t_right, c] = nm_children[RIGHT, c]
                term_nm[t_missing, c] = nm_children[MISSING, c]
        searched[t] = False
        searched[t_right] = False
        searched[t_missing] = False
    return grown_nodes(n_nodes, node_z, node_w, node_n, node_var, node_value, node_gain,
                       node_kids, node_nlev, node_levels, term_node[:n_term], node_of)
