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

import numpy as np
from numba import njit

from ..split import LEFT, MISSING, RIGHT
from .arith import shell_order, split_gain


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


@njit(cache=True, error_model="numpy")
def _search(xt, cont_row, var_type, mono, wz, w, unit, min_obs, S, nm, R, tot_z, tot_w,
            tot_n, out_sums, levels_out):
    """Best split of one node. Returns (gain, var, value, n_left_levels);
    ``out_sums`` gets (ls, lw, nl, rs, rw, nr, ms, mw, nmiss) and
    ``levels_out`` the levels sent left (categorical)."""
    p = xt.shape[0]
    best = 0.0
    best_var = -1
    best_value = 0.0
    best_nlev = 0
    m = tot_n
    for v in range(p):
        if var_type[v] == 0:
            c = cont_row[v]
            k_nm = nm[c]
            ms = 0.0
            mw = 0.0
            rs = tot_z
            rw = tot_w
            for k in range(k_nm):
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
            for k in range(k_nm, m):
                i = S[c, k]
                xv = xt[v, i]
                if last != xv and nl >= min_obs and nr >= min_obs:
                    ok = True
                    if mv != 0:
                        ok = mv * (rs * lw - ls * rw) > 0
                    if ok:
                        g = split_gain(lw, rw, mw, ls, rs, ms)
                        if g > best:
                            best = g
                            best_var = v
                            best_value = 0.5 * (last + xv)
                            best_nlev = 0
                            _keep_sums(out_sums, ls, lw, nl, rs, rw, nr, ms, mw, k_nm)
                zi = wz[i]
                if nl == 0:
                    ls = zi
                else:
                    ls += zi
                rs -= zi
                if unit:                  # 1.0 at a time: the counts, exactly
                    lw += 1.0
                    rw -= 1.0
                else:
                    lw += w[i]
                    rw -= w[i]
                nl += 1
                nr -= 1
                last = xv
        else:
            K = var_type[v]
            gs = np.zeros(K)
            gw = np.zeros(K)
            gn = np.zeros(K, dtype=np.int64)
            ms = 0.0
            mw = 0.0
            rs = tot_z
            rw = tot_w
            k_nm = 0
            for r in range(R.shape[0]):
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
                    gs[lev] += wz[i]
                    gw[lev] += w[i]
                    gn[lev] += 1
            means = np.empty(K)
            n_finite = 0
            for lev in range(K):
                if gw[lev] != 0.0:
                    means[lev] = gs[lev] / gw[lev]
                    n_finite += 1
                else:
                    means[lev] = np.inf
            order = shell_order(means)
            ls = 0.0
            lw = 0.0
            nl = 0
            for j in range(n_finite - 1):
                lev = order[j]
                if j == 0:
                    ls = gs[lev]
                    lw = gw[lev]
                else:
                    ls += gs[lev]
                    lw += gw[lev]
                nl += gn[lev]
                rs -= gs[lev]
                rw -= gw[lev]
                nr = m - k_nm - nl
                if nl >= min_obs and nr >= min_obs:
                    g = split_gain(lw, rw, mw, ls, rs, ms)
                    if g > best:
                        best = g
                        best_var = v
                        best_value = float(j)
                        best_nlev = j + 1
                        for q in range(j + 1):
                            levels_out[q] = order[q]
                        _keep_sums(out_sums, ls, lw, nl, rs, rw, nr, ms, mw, k_nm)
    return best, best_var, best_value, best_nlev


@njit(cache=True, error_model="numpy")
def _partition(S, nm, R, direction):
    """The node's rows split among the three children in one pass: each
    child's sorted rows (every predictor's order kept) with each predictor's
    leading missing count, and its rows in row order."""
    pc = S.shape[0]
    m = S.shape[1]
    count = np.zeros(3, dtype=np.int64)
    if pc:
        for k in range(m):
            count[direction[S[0, k]]] += 1
    else:
        for r in range(R.shape[0]):
            count[direction[R[r]]] += 1
    S_l = np.empty((pc, count[LEFT]), dtype=np.int64)
    S_r = np.empty((pc, count[RIGHT]), dtype=np.int64)
    S_m = np.empty((pc, count[MISSING]), dtype=np.int64)
    nm_out = np.zeros((3, pc), dtype=np.int64)
    for c in range(pc):
        q0 = 0
        q1 = 0
        q2 = 0
        lead = nm[c]
        for k in range(m):
            i = S[c, k]
            d = direction[i]
            if d == LEFT:
                S_l[c, q0] = i
                q0 += 1
            elif d == RIGHT:
                S_r[c, q1] = i
                q1 += 1
            else:
                S_m[c, q2] = i
                q2 += 1
            if k < lead:
                nm_out[d, c] += 1
    n_r = np.zeros(3, dtype=np.int64)
    for r in range(R.shape[0]):
        n_r[direction[R[r]]] += 1
    R_l = np.empty(n_r[LEFT], dtype=np.int64)
    R_r = np.empty(n_r[RIGHT], dtype=np.int64)
    R_m = np.empty(n_r[MISSING], dtype=np.int64)
    q = np.zeros(3, dtype=np.int64)
    for r in range(R.shape[0]):
        i = R[r]
        d = direction[i]
        if d == LEFT:
            R_l[q[0]] = i
        elif d == RIGHT:
            R_r[q[1]] = i
        else:
            R_m[q[2]] = i
        q[d] += 1
    return S_l, S_r, S_m, nm_out, R_l, R_r, R_m


@njit(cache=True, error_model="numpy")
def grow_exact(xt, order, n_nan, cont_row, var_type, mono, wz, w, inbag, unit, min_obs,
               depth, max_levels):
    """R's best-first tree of at most ``depth`` splits (see the module docstring).

    Returns the nodes (sums, weights, counts, split variable, value, gain,
    children, levels sent left) in creation order, the terminal nodes in R's
    terminal order and every training row's terminal index.
    """
    p, n = xt.shape
    pc = order.shape[0]
    has_cat = False
    for v in range(p):
        if var_type[v] > 0:
            has_cat = True
    n_bag = 0
    for i in range(n):
        if inbag[i]:
            n_bag += 1
    S0 = np.empty((pc, n_bag), dtype=np.int64)
    nm0 = np.zeros(pc, dtype=np.int64)
    for c in range(pc):
        q = 0
        for k in range(n):
            i = order[c, k]
            if inbag[i]:
                S0[c, q] = i
                q += 1
                if k < n_nan[c]:
                    nm0[c] += 1
    R0 = np.empty(n_bag if (has_cat or pc == 0) else 0, dtype=np.int64)
    tot_z = 0.0
    tot_w = 0.0
    q = 0
    for i in range(n):
        if inbag[i]:
            tot_z += wz[i]
            tot_w += w[i]
            if R0.shape[0]:
                R0[q] = i
                q += 1
    if unit:
        tot_w = float(n_bag)

    max_nodes = 1 + 3 * depth
    node_z = np.zeros(max_nodes)
    node_w = np.zeros(max_nodes)
    node_n = np.zeros(max_nodes, dtype=np.int64)
    node_var = np.full(max_nodes, -1, dtype=np.int64)
    node_value = np.zeros(max_nodes)
    node_gain = np.zeros(max_nodes)
    node_kids = np.full((max_nodes, 3), -1, dtype=np.int64)
    node_nlev = np.zeros(max_nodes, dtype=np.int64)
    node_levels = np.zeros((max_nodes, max(max_levels, 1)), dtype=np.int64)
    node_z[0] = tot_z
    node_w[0] = tot_w
    node_n[0] = n_bag
    n_nodes = 1

    max_term = 1 + 2 * depth
    term_node = np.zeros(max_term, dtype=np.int64)
    searched = np.zeros(max_term, dtype=np.bool_)
    t_gain = np.zeros(max_term)
    t_var = np.full(max_term, -1, dtype=np.int64)
    t_value = np.zeros(max_term)
    t_nlev = np.zeros(max_term, dtype=np.int64)
    t_sums = np.zeros((max_term, 9))
    t_levels = np.zeros((max_term, max(max_levels, 1)), dtype=np.int64)
    n_term = 1
    states_S = [S0]
    states_nm = [nm0]
    states_R = [R0]
    node_of = np.zeros(n, dtype=np.int64)
    direction = np.zeros(n, dtype=np.int8)
    sums = np.zeros(9)
    levels = np.zeros(max(max_levels, 1), dtype=np.int64)

    for n_split in range(depth):
        for t in range(n_term):
            if searched[t]:
                continue
            searched[t] = True
            nd = term_node[t]
            t_gain[t] = 0.0
            t_var[t] = -1
            if node_n[nd] >= 2:
                g, v, value, nlev = _search(xt, cont_row, var_type, mono, wz, w, unit, min_obs,
                                            states_S[t], states_nm[t], states_R[t],
                                            node_z[nd], node_w[nd], node_n[nd], sums,
                                            levels)
                if v >= 0:
                    t_gain[t] = g
                    t_var[t] = v
                    t_value[t] = value
                    t_nlev[t] = nlev
                    t_sums[t, :] = sums
                    t_levels[t, :nlev] = levels[:nlev]
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
        node_gain[nd] = t_gain[t]
        nlev = t_nlev[t]
        node_nlev[nd] = nlev
        node_levels[nd, :nlev] = np.sort(t_levels[t, :nlev])
        s = t_sums[t]
        ids = np.empty(3, dtype=np.int64)
        for side in range(3):
            if side == LEFT:
                sz, sw, sn = s[0], s[1], int(s[2])
            elif side == RIGHT:
                sz, sw, sn = s[3], s[4], int(s[5])
            elif s[8] > 0:
                sz, sw, sn = s[6], s[7], int(s[8])
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
        goes_right = np.ones(max(var_type[v], 1), dtype=np.int8)
        for q in range(nlev):
            goes_right[node_levels[nd, q]] = 0
        for i in range(n):
            if node_of[i] != t:
                continue
            xv = xt[v, i]
            if np.isnan(xv):
                d = MISSING
            elif var_type[v] == 0:
                d = RIGHT if xv >= t_value[t] else LEFT
            else:
                d = goes_right[int(xv)]
            direction[i] = d
            if d == RIGHT:
                node_of[i] = t_right
            elif d == MISSING:
                node_of[i] = t_missing
        if n_split + 1 < depth:
            S_l, S_r, S_m, nm_c, R_l, R_r, R_m = _partition(states_S[t], states_nm[t],
                                                            states_R[t], direction)
            states_S[t] = S_l
            states_nm[t] = nm_c[LEFT]
            states_R[t] = R_l
            states_S.append(S_r)
            states_nm.append(nm_c[RIGHT])
            states_R.append(R_r)
            states_S.append(S_m)
            states_nm.append(nm_c[MISSING])
            states_R.append(R_m)
        else:
            for side in range(2):
                states_S.append(states_S[t])
                states_nm.append(states_nm[t])
                states_R.append(states_R[t])
        searched[t] = False
        searched[t_right] = False
        searched[t_missing] = False
    # each node's mean working response (a node without weight, from zero
    # case weights, has no information: 0; the root keeps the plain ratio)
    node_pred = np.empty(n_nodes)
    for k in range(n_nodes):
        node_pred[k] = node_z[k] / node_w[k] if (k == 0 or node_w[k] > 0) else 0.0
    return (node_pred, node_z[:n_nodes], node_w[:n_nodes], node_n[:n_nodes], node_var[:n_nodes],
            node_value[:n_nodes], node_gain[:n_nodes], node_kids[:n_nodes],
            node_nlev[:n_nodes], node_levels[:n_nodes], term_node[:n_term], node_of)

