"""The binned mode's tree growth as one compiled call (numba).

:func:`grow_binned` grows the tree that the NumPy engine's
:class:`pygbm.engine.grow.TreeGrower` grows with
:class:`pygbm.engine.histogram_search.HistogramSearch` on the same binned
data, bit for bit: the root's histogram counted from the bag, each split's
smaller children counted and the largest one its parent's histogram less
theirs; the search on every node's histogram (:mod:`.binned_search`);
R's arithmetic on the rows where the NumPy search reaches for it
(:mod:`.binned_rows`: ties between predictors, every split with one bucket
per value, and the R sums of the nodes above such a split); best-first
growth with left, right and missing children; every training row routed by
its raw value.

The in-bag rows live in two buffers, each node a segment of one of them in
increasing row order: a split partitions its node's segment of one buffer
stably into the same places of the other (the rows of a node above are the
union of its terminal nodes' segments). The result is the node arrays of
:func:`.exact_tree.grow_exact`, which :class:`.grower.CompiledTree` finishes.
The function takes arrays, scalars and the layout tuple only, so that
compiled code (a whole boosting loop) can call it.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..split import LEFT, MISSING, NEAR_TIE, RIGHT
from .arith import numpy_sum_at
from .binned_r_choice import bag_tolerance, float_bound, r_choice
from .binned_rows import row_record
from .binned_search import categorical_best, continuous_best, record, split_point
from .cegb_penalties import mark, penalties
from .histograms import build_float, build_packed, clear_empty, pack, subtract, unpack
from .tree_arrays import grown_nodes, new_nodes, node_capacity, terminal_capacity

#: (ls, lw, nl, rs, rw, nr, ms, mw, nm): a split's three sides
_N_SUMS = 9


@njit(cache=True, error_model="numpy")
def _bag_rows(inbag, out):
    """The in-bag rows, increasing, into ``out`` (one place more than rows;
    filled without a branch per row: the bag is random); returns how many."""
    q = 0
    for i in range(inbag.shape[0]):
        out[q] = i
        q += inbag[i]
    return q


class BinnedSpace(NamedTuple):
    """The scratch arrays of :func:`grow_binned`, made once per fit
    (:func:`binned_space`) and reused by every tree."""

    bag: np.ndarray             # (n + 1,) the in-bag rows
    buffers: np.ndarray         # (2, n) the nodes' in-bag rows (see the module docstring)
    packed_vals: np.ndarray     # (2, n) their packed values
    node_of: np.ndarray         # (n,) each training row's terminal node
    direction: np.ndarray       # (n,) where the current split sends each row
    pool_packed: np.ndarray     # (terminals, cells) packed histograms
    pool_unit: np.ndarray       # (terminals, cells, 2) float histograms: w*z, count
    pool_weighted: np.ndarray   # (terminals, cells, 3) w*z, w, count
    unpacked: np.ndarray        # (cells, 2) the histogram searched


def binned_space(layout, depth: int) -> BinnedSpace:
    """The scratch arrays of trees of ``depth`` splits grown on ``layout``
    (a :class:`.binned_layout.BinnedLayout`)."""
    n = layout.xt.shape[1]
    cells = layout.n_cells + 1
    max_term = terminal_capacity(int(depth))
    return BinnedSpace(np.empty(n + 1, dtype=np.int32), np.empty((2, n), dtype=np.int32),
                       np.empty((2, n), dtype=np.int64), np.empty(n, dtype=np.int64),
                       np.empty(n, dtype=np.int8),
                       np.empty((max_term, cells), dtype=np.int64),
                       np.empty((max_term, cells, 2)), np.empty((max_term, cells, 3)),
                       np.empty((cells, 2)))


@njit(cache=True, error_model="numpy")
def _root_totals(L, rows, resp, unit):
    """The bag's sums as the NumPy grower adds them: R's order with one
    bucket per value, NumPy's pairwise sum otherwise."""
    wz, w = resp
    if L.exact_bins:
        tz = 0.0
        tw = 0.0
        for k in range(rows.shape[0]):
            tz += wz[rows[k]]
            tw += w[rows[k]]
    else:
        tz = numpy_sum_at(wz, rows)
        tw = float(rows.shape[0]) if unit else numpy_sum_at(w, rows)
    if unit:
        tw = float(rows.shape[0])
    return tz, tw


@njit(cache=True, error_model="numpy")
def _partition(src, dst, lo, hi, direction, n_bag, packed):
    """The rows ``lo:hi`` of buffer ``src`` = (rows, packed values) split
    stably into left, right, missing segments at the same places of buffer
    ``dst`` (``n_bag``: how many go each way); returns the segment ends
    (left, right)."""
    rows, vals = src
    out_rows, out_vals = dst
    at_left = lo
    at_right = lo + n_bag[LEFT]
    at_missing = at_right + n_bag[RIGHT]
    ends = (at_right, at_missing)
    for k in range(lo, hi):
        d = direction[rows[k]]
        # the row's place without a branch (directions are random)
        at = at_left if d == LEFT else (at_right if d == RIGHT else at_missing)
        out_rows[at] = rows[k]
        if packed:
            out_vals[at] = vals[k]
        at_left += d == LEFT
        at_right += d == RIGHT
        at_missing += d == MISSING
    return ends


@njit(cache=True, error_model="numpy")
def _route(L, node_of, inbag, direction, t, split, terminals, n_bag):
    """Every training row of terminal ``t``: its direction under ``split`` =
    (predictor, split point, levels sent left, their number) (raw value
    ``x >= value`` right; a level left when sent left; NaN missing), its new
    terminal (``terminals``: right, missing; left keeps ``t``) and, for the
    in-bag rows, how many go each way (``n_bag``).

    One pass over all rows without a branch on their data or their node (the
    rows of ``t`` are scattered): every row's direction is computed, the
    other rows' are written too (nobody reads them) and their terminal is
    kept."""
    v, value, left_levels, n_lev = split
    t_right, t_missing = terminals
    K = L.var_type[v]
    goes_right = _goes_right(L, v, left_levels, n_lev)
    xv_row = L.xt[v]
    n_in = 0
    n_right = 0
    n_missing = 0
    for i in range(node_of.shape[0]):
        xv = xv_row[i]
        missing = np.isnan(xv)
        if K == 0:
            d = RIGHT if xv >= value else LEFT
        else:
            d = goes_right[0 if missing else int(xv)]
        d = MISSING if missing else d
        direction[i] = d
        at = node_of[i] == t
        b = np.int64(inbag[i] and at)
        n_in += b
        n_right += b * (d == RIGHT)
        n_missing += b * (d == MISSING)
        moved = t_right if d == RIGHT else (t_missing if d == MISSING else t)
        node_of[i] = moved if at else node_of[i]
    n_bag[LEFT] = n_in - n_right - n_missing
    n_bag[RIGHT] = n_right
    n_bag[MISSING] = n_missing


@njit(cache=True, error_model="numpy")
def _goes_right(L, v, left_levels, n_lev):
    """Per level of categorical ``v``: RIGHT, or LEFT when sent left."""
    goes_right = np.ones(max(L.var_type[v], 1), dtype=np.int8)
    for q in range(n_lev):
        goes_right[left_levels[q]] = LEFT
    return goes_right


@njit(cache=True, error_model="numpy")
def _histogram_best(L, H, unit, counted, rows, resp, min_obs, gains, pos, orders, room):
    """Every predictor's best gain and position on the node's histogram
    (into ``gains``, ``pos`` and the categoricals' level ``orders``; ``room``:
    see :func:`.binned_search.continuous_best`)."""
    pc = L.cont.shape[0]
    pcat = L.cat.shape[0]
    g = np.empty(max(pc, pcat))
    b = np.empty(max(pc, pcat), dtype=np.int64)
    if pc:
        continuous_best(L, H, unit, min_obs, g, b, room)
        for i in range(pc):
            gains[L.cont[i]] = g[i]
            pos[L.cont[i]] = b[i]
    if pcat:
        categorical_best(L, H, unit, counted, rows, resp, min_obs, g, b, orders)
        for i in range(pcat):
            gains[L.cat[i]] = g[i]
            pos[L.cat[i]] = b[i]


@njit(cache=True, error_model="numpy")
def _top(gains):
    """The best predictor (first of the largest gain) and how many are within
    NEAR_TIE of it."""
    v = 0
    for u in range(1, gains.shape[0]):
        if gains[u] > gains[v]:
            v = u
    tied = 0
    if gains[v] > 0.0:
        floor = gains[v] * (1.0 - NEAR_TIE)
        for u in range(gains.shape[0]):
            if gains[u] >= floor:
                tied += 1
    return v, tied


@njit(cache=True, error_model="numpy")
def _sorted_position(L, H, v, b):
    """Position in R's scan (missing rows first) of the last row of bucket
    ``b`` of continuous ``v`` in the node."""
    ccol = H.shape[1] - 1
    first = L.offset[v]
    n = H[first + L.width - 1, ccol]
    for c in range(b + 1):
        n += H[first + c, ccol]
    return int(n) - 1


@njit(cache=True, error_model="numpy")
def _rows_of(nd, seg, terminals, buffers):
    """The in-bag rows of node ``nd``, increasing: its segment is the union
    of the segments of the terminal nodes below it, each in the buffer its
    parent's split wrote (``terminals`` = (terminal nodes, their number,
    each node's buffer); ``buffers`` (2, n_bag) rows)."""
    term_node, n_term, node_buf = terminals
    lo, hi = seg[nd, 0], seg[nd, 1]
    out = np.empty(hi - lo, dtype=buffers.dtype)
    for u in range(n_term):
        x = term_node[u]
        a, b = seg[x, 0], seg[x, 1]
        if a >= lo and b <= hi:
            out[a - lo:b - lo] = buffers[node_buf[x], a:b]
    return np.sort(out)


@njit(cache=True, error_model="numpy")
def _ensure_r_total(L, nd, rows_of, resp, unit, nodes):
    """Node ``nd``'s sums in R's arithmetic: each split above it without
    them re-evaluated on its rows (``rows_of`` = (segments, terminals,
    buffers) of :func:`_rows_of`), from the nearest node that has them."""
    node_n, node_var, node_kids, node_nlev, node_order, parent, r_tot, r_ok = nodes
    seg, terminals, buffers = rows_of
    chain = np.empty(node_n.shape[0], dtype=np.int64)
    m = 0
    x = nd
    while not r_ok[x]:
        chain[m] = x
        m += 1
        x = parent[x]
    sums = np.empty(_N_SUMS)
    for q in range(m - 1, -1, -1):
        up = parent[chain[q]]
        if r_ok[chain[q]]:
            continue
        prow = _rows_of(up, seg, terminals, buffers)
        v = node_var[up]
        if L.var_type[v] == 0:
            at = node_n[node_kids[up, MISSING]] + node_n[node_kids[up, LEFT]] - 1
        else:
            at = node_nlev[up] - 1
        total = (r_tot[up, 0], r_tot[up, 1], np.int64(r_tot[up, 2]))
        row_record(L, prow, v, at, node_order[up], total, resp, unit, sums)
        for side in range(3):
            kid = node_kids[up, side]
            r_tot[kid, 0] = sums[3 * side]
            r_tot[kid, 1] = sums[3 * side + 1]
            r_tot[kid, 2] = sums[3 * side + 2]
            r_ok[kid] = True


@njit(cache=True, error_model="numpy")
def _tie_break(L, H, rows, resp, unit, total, found, out):
    """As R: of the predictors within NEAR_TIE of the best, the first whose
    split is strictly better in R's arithmetic on the node's rows, less its
    penalty. ``found`` = (gains less penalties, positions, level orders,
    best predictor, penalties); ``out`` = (sums, left level order): filled;
    returns (gain, var, split point, levels sent left, gain less penalty)."""
    gains, pos, orders, best_v, pen = found
    sums, order = out
    trial = np.empty(_N_SUMS)
    floor = gains[best_v] * (1.0 - NEAR_TIE)
    best_g = 0.0
    best_score = 0.0
    var = -1
    value = 0.0
    n_lev = 0
    for v in range(gains.shape[0]):
        if not gains[v] >= floor:
            continue
        if L.var_type[v] == 0:
            at = _sorted_position(L, H, v, pos[v])
            levels = order[:0]
        else:
            at = pos[v]
            levels = orders[np.searchsorted(L.cat, v)]
        g, x = row_record(L, rows, v, at, levels, total, resp, unit, trial)
        score = g - pen[v]
        if var < 0 or score > best_score:
            best_g = g
            best_score = score
            var = v
            value = x
            sums[:] = trial
            # a continuous winner sends no levels (one that beats a categorical
            # candidate must not keep its count: routing would write past the
            # one-entry level table of a continuous predictor)
            n_lev = 0
            if L.var_type[v] > 0:
                n_lev = at + 1
                order[:] = levels
    if L.var_type[var] == 0:
        value = split_point(L, H, var, pos[var])       # the bucket rule's point
    return best_g, var, value, n_lev, best_score


@njit(cache=True, error_model="numpy")
def _exact_choice(L, rows, resp, unit, min_obs, node, found, out):
    """R's split of a node with one bucket per value (see
    :mod:`.binned_r_choice`): ``node`` = (total: R's sums, level, tolerance,
    whether to scan every predictor when R refuses the top ones: unpenalised),
    ``found`` = (gains, positions, level orders, best predictor) of the
    histogram; ``out`` = (sums, left level order): filled. Returns (gain,
    predictor (-1: no split), split point, levels sent left)."""
    total, level, tol, retry = node
    gains, pos, orders, best_v = found
    sums, order = out
    top = gains[best_v]
    bound = float_bound(tol, level, top)
    if not top + bound > 0.0:
        return 0.0, -1, 0.0, 0
    flags = np.empty(gains.shape[0], dtype=np.bool_)
    for u in range(gains.shape[0]):
        flags[u] = gains[u] >= top - bound if top - bound > 0.0 else True
    g, var, value, n_lev = r_choice(L, rows, (total, resp, unit, min_obs), (flags, orders),
                                    sums)
    if retry and top - bound > 0.0 and (var < 0 or not g >= top - bound):
        # R's check of a monotone constraint failed the top candidates that the
        # histogram's sums let pass: R takes the best of the others, which may lie
        # below the bound (HistogramSearch._r_choice)
        flags[:] = True
        g, var, value, n_lev = r_choice(L, rows, (total, resp, unit, min_obs),
                                        (flags, orders), sums)
    if var >= 0 and n_lev:
        order[:] = orders[np.searchsorted(L.cat, var)]
    return g, var, value, n_lev


@njit(cache=True, error_model="numpy")
def grow_binned(L, space, wz, w, inbag, unit, min_obs, depth):
    """The binned tree of at most ``depth`` splits (see :func:`_grow`), R's
    gains unpenalised."""
    return _grow(L, space, wz, w, inbag, unit, min_obs, depth, None, np.zeros(0))


@njit(cache=True, error_model="numpy")
def grow_binned_penalised(L, space, wz, w, inbag, unit, min_obs, depth, costs):
    """:func:`grow_binned` with CEGB's penalties (``costs``, see
    :mod:`.cegb_penalties`): candidates and nodes compared by the gain less
    the penalty, no split without a positive one, the rows of each split
    marked as having read its predictor, and every terminal node searched
    again when the model first pays a predictor's cost. Returns the node
    arrays and each node's penalty (0 for terminal nodes). Not for a layout
    of one bucket per value, where R's arithmetic chooses (the NumPy search
    applies the penalties there: ``factory.compiled_costs``)."""
    node_pen = np.zeros(node_capacity(depth))
    arrays = _grow(L, space, wz, w, inbag, unit, min_obs, depth, costs, node_pen)
    return arrays, node_pen[:arrays.pred.shape[0]]


@njit(cache=True, error_model="numpy")
def _grow(L, space, wz, w, inbag, unit, min_obs, depth, costs, node_pen):
    """The binned tree of at most ``depth`` splits on the working response
    (``wz`` = w*z and ``w`` of the training rows) from the in-bag rows
    ``inbag`` (see the module docstring), in the scratch arrays ``space`` (a
    :class:`BinnedSpace`). ``L``: a :class:`.binned_layout.BinnedLayout`;
    ``unit``: every weight is 1.

    Returns the tree's :class:`.tree_arrays.GrownNodes`, as
    :func:`.exact_tree.grow_exact` does (every training row's terminal index
    is ``space.node_of``: the next tree overwrites it). With penalties (``costs``) each split
    node's penalty goes to ``node_pen``.
    """
    p = L.var_type.shape[0]
    resp = (wz, w)
    packed = unit and L.packable and not L.exact_bins
    n_bag = _bag_rows(inbag, space.bag)
    bag = space.bag[:n_bag]
    # two buffers of the in-bag rows (and their packed values): a split
    # partitions its node's segment of one into the same places of the other
    buffers = space.buffers
    buffers[0, :n_bag] = bag
    packed_vals = space.packed_vals
    bits, scale = 1, 1.0
    if packed:
        bits, scale = pack(wz, bag, packed_vals[0])
    tot_z, tot_w = _root_totals(L, bag, resp, unit)
    tol = bag_tolerance(L, bag, resp, unit)

    lev_w = max(L.cat_cells.shape[1], 1)
    max_nodes = node_capacity(depth)
    (node_z, node_w, node_n, node_var, node_value, node_gain, node_kids, node_nlev,
     node_levels) = new_nodes(max_nodes, lev_w)
    node_order = np.zeros((max_nodes, lev_w), dtype=np.int64)
    seg = np.zeros((max_nodes, 2), dtype=np.int64)      # the node's rows: lo:hi
    node_buf = np.zeros(max_nodes, dtype=np.int64)      # ... of this buffer
    parent = np.full(max_nodes, -1, dtype=np.int64)
    r_tot = np.zeros((max_nodes, 3))                    # R's sums (w*z, w, count)
    r_ok = np.zeros(max_nodes, dtype=np.bool_)
    node_level = np.zeros(max_nodes, dtype=np.int64)   # splits above the node
    nodes = (node_n, node_var, node_kids, node_nlev, node_order, parent, r_tot, r_ok)
    node_z[0] = tot_z
    node_w[0] = tot_w
    node_n[0] = n_bag
    seg[0, 1] = n_bag
    r_tot[0, 0] = tot_z
    r_tot[0, 1] = tot_w
    r_tot[0, 2] = n_bag
    r_ok[0] = True
    n_nodes = 1

    max_term = terminal_capacity(depth)
    term_node = np.zeros(max_term, dtype=np.int64)
    searched = np.zeros(max_term, dtype=np.bool_)
    counted = np.ones(max_term, dtype=np.bool_)         # histogram counted from rows
    slot = np.zeros(max_term, dtype=np.int64)           # its place in the pool
    t_gain = np.zeros(max_term)                         # less the penalty
    t_raw = np.zeros(max_term)                          # R's gain
    t_pen = np.zeros(max_term)
    t_var = np.full(max_term, -1, dtype=np.int64)
    t_value = np.zeros(max_term)
    t_nlev = np.zeros(max_term, dtype=np.int64)
    t_sums = np.zeros((max_term, _N_SUMS))
    t_levels = np.zeros((max_term, lev_w), dtype=np.int64)
    t_order = np.zeros((max_term, lev_w), dtype=np.int64)
    t_exact = np.zeros(max_term, dtype=np.bool_)       # split made in R's arithmetic
    n_term = 1

    pool_packed = space.pool_packed
    pool_float = space.pool_unit if unit else space.pool_weighted
    H_unpacked = space.unpacked
    if packed:
        build_packed(L, buffers[0], packed_vals[0], 0, n_bag, pool_packed[0])
    else:
        build_float(L, buffers[0], 0, n_bag, wz, w, pool_float[0])

    gains = np.zeros(p)
    raw = np.zeros(p)
    pen = np.zeros(p)
    pos = np.zeros(p, dtype=np.int64)
    orders = np.zeros((L.cat.shape[0], lev_w), dtype=np.int64)
    node_of = space.node_of
    node_of[:] = 0
    direction = space.direction
    n_bag_kids = np.zeros(3, dtype=np.int64)
    built = np.zeros(3, dtype=np.int64)

    for n_split in range(depth):
        for t in range(n_term):
            if searched[t]:
                continue
            searched[t] = True
            t_gain[t] = 0.0
            t_raw[t] = 0.0
            t_pen[t] = 0.0
            t_var[t] = -1
            nd = term_node[t]
            lo, hi = seg[nd, 0], seg[nd, 1]
            if node_n[nd] <= 0 or hi - lo < 2 * max(min_obs, 1):   # too few rows to split
                continue
            if packed:
                unpack(pool_packed[slot[t]], bits, scale, H_unpacked)
                H = H_unpacked
            else:
                H = pool_float[slot[t]]
            node_rows = buffers[node_buf[nd], lo:hi]
            # one bucket per value, unpenalised: R's sums decide a monotone check
            # within rounding of 0 (HistogramSearch._continuous)
            room_level = node_level[nd] if L.exact_bins and costs is None else -1
            _histogram_best(L, H, unit, counted[t], node_rows, resp, min_obs, gains, pos,
                            orders, (tol, room_level))
            if costs is not None:
                penalties(costs, node_rows, pen)
                for u in range(p):
                    raw[u] = gains[u]
                    gains[u] = raw[u] - pen[u]
            v, tied = _top(gains)
            score = 0.0
            if L.exact_bins:
                total = (r_tot[nd, 0], r_tot[nd, 1], np.int64(r_tot[nd, 2]))
                g, v, value, n_lev = _exact_choice(
                    L, node_rows, resp, unit, min_obs,
                    (total, node_level[nd], tol, costs is None),
                    (gains, pos, orders, v), (t_sums[t], t_order[t]))
                if v < 0:
                    continue
                score = g
                t_exact[t] = True
            elif not gains[v] > 0.0:
                continue
            elif tied > 1:
                _ensure_r_total(L, nd, (seg, (term_node, n_term, node_buf), buffers), resp,
                                unit, nodes)
                total = (r_tot[nd, 0], r_tot[nd, 1], np.int64(r_tot[nd, 2]))
                g, v, value, n_lev, score = _tie_break(
                    L, H, node_rows, resp, unit, total, (gains, pos, orders, v, pen),
                    (t_sums[t], t_order[t]))
                if costs is not None and not score > 0.0:
                    continue
                t_exact[t] = True
            else:
                total = (node_z[nd], node_w[nd], node_n[nd])
                if L.var_type[v] > 0:
                    t_order[t, :] = orders[np.searchsorted(L.cat, v)]
                g = gains[v]
                if costs is not None:
                    g = raw[v]
                score = gains[v]
                value, n_lev = record(L, H, unit, v, pos[v], t_order[t], total, t_sums[t],
                                      t_levels[t])
                t_exact[t] = False
            t_gain[t] = score
            t_raw[t] = g
            t_pen[t] = pen[v]                    # (0 without costs)
            t_var[t] = v
            t_value[t] = value
            t_nlev[t] = n_lev
            if t_exact[t] and n_lev:
                t_levels[t, :n_lev] = np.sort(t_order[t, :n_lev])

        t = 0
        for u in range(1, n_term):
            if t_gain[u] > t_gain[t]:
                t = u
        if not t_gain[t] > 0.0:
            break
        nd = term_node[t]
        v = t_var[t]
        n_lev = t_nlev[t]
        node_var[nd] = v
        node_value[nd] = t_value[t]
        node_gain[nd] = t_raw[t]
        if costs is not None:
            node_pen[nd] = t_pen[t]
            lo, hi = seg[nd, 0], seg[nd, 1]
            if mark(costs, buffers[node_buf[nd], lo:hi], v):
                searched[:n_term] = False       # the other nodes' penalties changed
        node_nlev[nd] = n_lev
        node_levels[nd, :n_lev] = t_levels[t, :n_lev]
        node_order[nd, :] = t_order[t]
        s = t_sums[t]
        for side in range(3):
            kid = n_nodes
            node_z[kid] = s[3 * side]
            node_w[kid] = s[3 * side + 1]
            node_n[kid] = np.int64(s[3 * side + 2])
            node_kids[nd, side] = kid
            parent[kid] = nd
            node_level[kid] = node_level[nd] + 1
            if t_exact[t]:
                r_tot[kid, 0] = s[3 * side]
                r_tot[kid, 1] = s[3 * side + 1]
                r_tot[kid, 2] = s[3 * side + 2]
                r_ok[kid] = True
            n_nodes += 1
        kids = node_kids[nd]
        t_right = n_term
        t_missing = n_term + 1
        term_node[t] = kids[LEFT]
        term_node[t_right] = kids[RIGHT]
        term_node[t_missing] = kids[MISSING]
        n_term += 2
        split = (v, t_value[t], t_levels[t], n_lev)
        searched[t] = False
        searched[t_right] = False
        searched[t_missing] = False
        _route(L, node_of, inbag, direction, t, split, (t_right, t_missing), n_bag_kids)
        if n_split + 1 == depth:
            break
        lo, hi = seg[nd, 0], seg[nd, 1]
        src = node_buf[nd]
        dst = 1 - src
        end_l, end_r = _partition((buffers[src], packed_vals[src]),
                                  (buffers[dst], packed_vals[dst]), lo, hi, direction,
                                  n_bag_kids, packed)
        # the children's rows and histograms
        bounds = (lo, end_l, end_r, hi)
        terms = (t, t_right, t_missing)
        big = 0
        for side in range(3):
            seg[kids[side], 0] = bounds[side]
            seg[kids[side], 1] = bounds[side + 1]
            node_buf[kids[side]] = dst
            if bounds[side + 1] - bounds[side] > bounds[big + 1] - bounds[big]:
                big = side
        parent_slot = slot[t]
        fresh = n_term - 2
        n_built = 0
        for side in range(3):
            u = terms[side]
            counted[u] = side != big
            if side == big:
                slot[u] = parent_slot
                continue
            slot[u] = fresh
            fresh += 1
            a, b = bounds[side], bounds[side + 1]
            if b > a:
                if packed:
                    build_packed(L, buffers[dst], packed_vals[dst], a, b, pool_packed[slot[u]])
                else:
                    build_float(L, buffers[dst], a, b, wz, w, pool_float[slot[u]])
                built[n_built] = slot[u]
                n_built += 1
        for q in range(n_built):
            if packed:
                subtract(pool_packed[parent_slot], pool_packed[built[q]])
            else:
                subtract(pool_float[parent_slot], pool_float[built[q]])
        if not packed:
            clear_empty(pool_float[parent_slot])

    return grown_nodes(n_nodes, node_z, node_w, node_n, node_var, node_value, node_gain,
                       node_kids, node_nlev, node_levels, term_node[:n_term], node_of)
