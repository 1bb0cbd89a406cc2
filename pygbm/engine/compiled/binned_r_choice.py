"""R's split of a binned node with one bucket per value, compiled
(engine.histogram_search's ``_r_choice`` and engine.row_sums' ``best_of``).

With one bucket per value the fit must be R's: every predictor whose
histogram gain is within the error bound of floating sums
(:class:`pygbm.engine.tolerance.FloatTolerance`, :func:`float_bound`) of the
top is scanned in R's arithmetic on the node's rows, every admissible
position, and every predictor when no gain stands out of that bound (a pure
node, whose true gains are all 0: R's rounding noise decides). R's rule
picks: the largest gain, the first predictor, the first position. ``rows``
are a node's in-bag rows in increasing order; ``resp`` is (w*z, w) of the
training rows; ``total`` the node's sums as R has them (w*z, w, count).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..tolerance import float_gain_bound
from .arith import midpoint, split_gain
from .binned_rows import level_sums, sorted_rows


@njit(cache=True, error_model="numpy")
def bag_tolerance(L, bag, resp, unit):
    """The tolerance of a tree on the bag ``bag`` (FloatTolerance.of_bag's
    fields): (rows, buckets, sum |w z|, sum w (0: unit weights), largest |z|,
    smallest positive w)."""
    wz, w = resp
    abs_sum = 0.0
    w_sum = 0.0
    zmax = 0.0
    w_min = np.inf
    for k in range(bag.shape[0]):
        r = bag[k]
        abs_sum += abs(wz[r])
        if unit:
            zmax = max(zmax, abs(wz[r]))
        elif w[r] > 0.0:
            w_sum += w[r]
            zmax = max(zmax, abs(wz[r]) / w[r])
            w_min = min(w_min, w[r])
    if unit or not w_min < np.inf:
        w_min = 1.0
    widest = L.width
    for i in range(L.cat.shape[0]):
        widest = max(widest, L.var_type[L.cat[i]] + 1)
    return (float(bag.shape[0]), float(widest), abs_sum, w_sum, zmax, w_min)


#: the NumPy engine's bound arithmetic, compiled as it is written
_gain_bound = njit(cache=True, error_model="numpy", inline="always")(float_gain_bound)


@njit(cache=True, error_model="numpy")
def float_bound(tol, level, top):
    """FloatTolerance.bound: twice a bound on |histogram gain - R's gain| in
    a node ``level`` splits deep whose top gain is ``top`` (``tol``:
    :func:`bag_tolerance`'s fields)."""
    n, width, abs_sum, w_sum, zmax, w_min = tol
    return _gain_bound(n, width, abs_sum, w_sum, zmax, w_min, level, top)


@njit(cache=True, error_model="numpy")
def _keep(out, left, right, missing):
    """Store a candidate's three sides in ``out``: (ls, lw, nl, rs, rw, nr)
    and the missing group (ms, mw, nm)."""
    out[0], out[1], out[2] = left
    out[3], out[4], out[5] = right
    out[6], out[7], out[8] = missing


@njit(cache=True, error_model="numpy")
def _continuous_scan(L, rows, v, node, best, out):
    """R's scan of continuous ``v`` over the node's rows (``node`` = (total,
    resp, unit, min_obs)): the first position whose gain is above ``best``
    and the largest so far. Returns (gain, split point, found); ``out`` gets
    the sums of the split found (missing side: the node's total when no row
    is missing)."""
    total, resp, unit, min_obs = node
    wz, w = resp
    tot_z, tot_w, tot_n = total
    srt, nm = sorted_rows(L, rows, v)
    m = srt.shape[0]
    ms = 0.0
    mw = 0.0
    rs = tot_z
    rw = tot_w
    for k in range(nm):
        ms += wz[srt[k]]
        mw += w[srt[k]]
        rs -= wz[srt[k]]
        rw -= w[srt[k]]
    if unit:
        mw = float(nm)
    missing = (ms, mw, nm) if nm else (tot_z, tot_w, 0)
    mv = L.mono[v]
    ls = 0.0
    lw = 0.0
    value = 0.0
    found = False
    for k in range(nm, m - 1):
        i = srt[k]
        ls += wz[i]
        rs -= wz[i]
        if unit:
            lw = float(k + 1 - nm)
            rw = tot_w - (k + 1)
        else:
            lw += w[i]
            rw -= w[i]
        if (k + 1 - nm < min_obs or m - 1 - k < min_obs
                or not L.xt[v, i] != L.xt[v, srt[k + 1]]):
            continue
        if mv != 0 and not mv * (rs * lw - ls * rw) > 0:
            continue
        g = split_gain(lw, rw, mw, ls, rs, ms)
        if g > best:
            best = g
            found = True
            value = midpoint(L.xt[v, i], L.xt[v, srt[k + 1]])
            nl = k + 1 - nm
            _keep(out, (ls, lw, nl), (rs, rw, tot_n - nm - nl), missing)
    return best, value, found


@njit(cache=True, error_model="numpy")
def _categorical_scan(L, rows, v, levels, node, best, out):
    """R's scan of the prefixes of the level order ``levels`` of categorical
    ``v`` (see :func:`_continuous_scan`). Returns (gain, levels sent left
    (0: none found))."""
    total, resp, unit, min_obs = node
    tot_z, tot_w, tot_n = total
    K = L.var_type[v]
    gs, gw, gn, (ms, mw, nm), (start_z, start_w) = level_sums(L, rows, v, total, resp, unit)
    n_levels = 0
    for lev in range(K):
        n_levels += gw[lev] != 0.0
    ls = 0.0
    lw = 0.0
    n_left = 0
    rs = start_z
    rw = start_w
    n_sel = 0
    for j in range(n_levels - 1):
        lev = levels[j]
        ls += gs[lev]
        lw += gw[lev]
        n_left += gn[lev]
        rs -= gs[lev]
        rw -= gw[lev]
        if n_left < min_obs or tot_n - nm - n_left < min_obs:
            continue
        g = split_gain(lw, rw, mw, ls, rs, ms)
        if g > best:
            best = g
            n_sel = j + 1
            missing = (ms, mw, nm) if nm else (tot_z, tot_w, 0)
            _keep(out, (ls, lw, n_left), (rs, rw, tot_n - nm - n_left), missing)
    return best, n_sel


@njit(cache=True, error_model="numpy")
def r_choice(L, rows, node, scan, out):
    """R's split of the node ``rows`` among the predictors ``scan`` (flags,
    in predictor order; ``scan[1]`` the level orders of the categoricals);
    ``node`` = (total: R's sums (w*z, w, count), resp, unit, min_obs). R's
    rule: the largest gain, the first predictor. Returns (gain, predictor
    (-1: no positive gain), split point, levels sent left); ``out`` gets
    its sums (ls, lw, nl, rs, rw, nr, ms, mw, nm)."""
    flags, orders = scan
    best = 0.0
    var = -1
    value = 0.0
    n_lev = 0
    for v in range(flags.shape[0]):
        if not flags[v]:
            continue
        if L.var_type[v] == 0:
            best, x, found = _continuous_scan(L, rows, v, node, best, out)
            if found:
                var, value, n_lev = v, x, 0
        else:
            best, n_sel = _categorical_scan(L, rows, v, orders[np.searchsorted(L.cat, v)],
                                            node, best, out)
            if n_sel:
                var, value, n_lev = v, float(n_sel - 1), n_sel
    return best, var, value, n_lev
