"""Pairwise ranking (LambdaMART, :mod:`pygbm.distributions.pairwise`), compiled.

The kernels compute the NumPy distribution's numbers bit for bit, group by
group instead of with whole-array passes: the rows ranked by decreasing noisy
score (ties by position, as ``np.lexsort``), each pair's swap cost |Delta Z|
for the metric (ndcg, conc, map, mrr; the ``max_rank`` cut-off), the lambdas
and their derivatives summed per row pair by pair in R's order (the worse
row, then the better one; ``np.add.at``'s), the terminal values, the IR
measures of the deviance and of the out-of-bag improvement (R's terms
w * measure / max summed group by group left to right, as the distribution;
map's sums over a group's positives in rank order). ``expit`` is
``1 / (1 + exp(-x))`` with the C library's exp, as SciPy's. The tie-breaking
uniforms come in from the fit's noise generator (drawn by
:mod:`.ranking_boosting`), one per row per ranking. ``tests/engine/test_compiled_pairwise.py`` compares every kernel with
the distribution's methods.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ...distributions.pairwise import NOISE
from .arith import sequential_sum

NDCG, CONC, MAP, MRR = range(4)
#: the metrics by name (Pairwise.metric)
METRICS = {"ndcg": NDCG, "conc": CONC, "map": MAP, "mrr": MRR}
#: groups up to this size are ranked by insertion sort, larger ones by a merge sort
INSERTION_MAX = 32


class PairRows(NamedTuple):
    """One part's (training or validation rows') fixed layout, as the kernels
    read it (the arrays of :class:`pygbm.distributions.pairwise._Layout`)."""

    metric: int
    y: np.ndarray               # (n,) labels
    gid: np.ndarray             # (n,) group of each row (int64)
    start: np.ndarray           # (G,) first row of each group
    size: np.ndarray            # (G,) rows of each group
    positive: np.ndarray        # (n,) y > 0
    pair_a: np.ndarray          # the label pairs (y_a > y_b), by group
    pair_b: np.ndarray
    pair_lo: np.ndarray         # (G,) each group's pairs: pair_lo[g] .. pair_hi[g] - 1
    pair_hi: np.ndarray
    max_measure: np.ndarray     # (G,) 0: the group has no pair
    rank_weight: np.ndarray     # R's vecdRankWeight (ndcg)
    n_pos: np.ndarray           # (G,) positives per group (map)
    cutoff: float               # max_rank (inf: none)


class PairScratch(NamedTuple):
    """Per-row and per-pair work arrays of one part (made once per fit)."""

    F: np.ndarray               # link values (f + offset)
    noisy: np.ndarray           # scores ranked
    rank: np.ndarray            # 1-based rank in the group (int64)
    order: np.ndarray           # rows in (group, rank) order
    n_upto: np.ndarray          # map: positives ranked at or above each row
    pos_rank: np.ndarray        # map: group g's positives' ranks, increasing, from start[g]
    acc: np.ndarray             # (2, n): lambda sums, derivative sums
    cost: np.ndarray            # (pairs,) |Delta Z|
    table: np.ndarray           # conc: a group's running sign sums
    active: np.ndarray          # (G,) bool: the groups of a computation
    measure: np.ndarray         # (2, G): IR measures (old, new)
    group_buf: np.ndarray       # (2, G): per-group terms of np.sum


def pair_rows(layout, metric: str) -> PairRows:
    """The kernels' view of a :class:`pygbm.distributions.pairwise._Layout`."""
    runs = layout.runs
    n_groups = int(runs.n_groups)
    pair_gid = np.asarray(layout.pair_gid, dtype=np.int64)
    groups = np.arange(n_groups)
    as_int = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    return PairRows(METRICS[metric], np.ascontiguousarray(layout.y, dtype=np.float64),
                    as_int(runs.gid), as_int(runs.start), as_int(runs.size),
                    np.ascontiguousarray(layout.positive, dtype=np.bool_),
                    as_int(layout.a), as_int(layout.b),
                    as_int(np.searchsorted(pair_gid, groups, side="left")),
                    as_int(np.searchsorted(pair_gid, groups, side="right")),
                    np.ascontiguousarray(layout.max_measure, dtype=np.float64),
                    np.ascontiguousarray(layout.weight, dtype=np.float64),
                    np.ascontiguousarray(layout.n_pos, dtype=np.float64),
                    float(layout.cutoff))


def pair_scratch(P: PairRows) -> PairScratch:
    """The work arrays of the part ``P``."""
    n, n_groups = P.y.shape[0], P.start.shape[0]
    max_size = int(P.size.max()) if n_groups else 0
    table = np.zeros((max_size * (max_size + 1) if P.metric == CONC else 0), dtype=np.int64)
    return PairScratch(np.empty(n), np.empty(n), np.zeros(n, dtype=np.int64),
                       np.zeros(n, dtype=np.int64), np.empty(n), np.empty(n),
                       np.empty((2, n)), np.empty(P.pair_a.shape[0]), table,
                       np.zeros(n_groups, dtype=np.bool_), np.empty((2, n_groups)),
                       np.empty((2, n_groups)))


# ----------------------------------------------------------------- ranking
@njit(cache=True, error_model="numpy")
def link_values(f, offset, out):
    """``f + offset`` (NumPy's full_f; an empty offset: none)."""
    if offset.shape[0]:
        for i in range(f.shape[0]):
            out[i] = f[i] + offset[i]
    else:
        out[:] = f


@njit(cache=True, error_model="numpy")
def rank_scores(P, S, u):
    """Rank every group's rows by decreasing ``S.noisy`` after adding the
    tie-breaking noise ``NOISE * (u - 0.5)`` to ``S.F``: ``S.rank`` (1-based)
    and ``S.order``, as ``pygbm.ranking.ranks_within`` (a stable sort); for
    map also the positives' counts and ranks (``Pairwise._positives``)."""
    n = S.F.shape[0]
    for i in range(n):
        S.noisy[i] = S.F[i] + NOISE * (u[i] - 0.5)
    _rank(S.noisy, P, S.rank, S.order)
    if P.metric == MAP:
        _positives(P, S)


@njit(cache=True, error_model="numpy")
def _rank(scores, P, rank, order):
    for g in range(P.start.shape[0]):
        s0, m = P.start[g], P.size[g]
        if m <= INSERTION_MAX:
            for i in range(m):
                r = s0 + i
                v = scores[r]
                j = i
                while j > 0 and v > scores[order[s0 + j - 1]]:
                    order[s0 + j] = order[s0 + j - 1]
                    j -= 1
                order[s0 + j] = r
        else:
            keys = np.empty(m)
            for i in range(m):
                keys[i] = -scores[s0 + i]
            ix = np.argsort(keys, kind="mergesort")
            for i in range(m):
                order[s0 + i] = s0 + ix[i]
        for i in range(m):
            rank[order[s0 + i]] = i + 1


@njit(cache=True, error_model="numpy")
def _positives(P, S):
    """Per row the positives ranked at or above it (``S.n_upto``), and each
    group's positives' ranks in increasing order (``S.pos_rank[start[g] + k]``,
    k = 0 .. n_pos[g] - 1), as ``Pairwise._positives``."""
    for g in range(P.start.shape[0]):
        lo = P.start[g]
        count = 0
        for q in range(P.size[g]):
            row = S.order[lo + q]
            if P.positive[row]:
                S.pos_rank[lo + count] = q + 1
                count += 1
            S.n_upto[row] = count


@njit(cache=True, error_model="numpy", inline="always")
def _top_positive(positive, rank, lo, m):
    """The best rank of a positive among the rows lo .. lo + m - 1 (m + 1: none)."""
    top = float(m + 1)
    for r in range(lo, lo + m):
        if positive[r] and rank[r] < top:
            top = float(rank[r])
    return top


@njit(cache=True, error_model="numpy", inline="always")
def _cut_value(r, cutoff):
    return 0.0 if r > cutoff else 1.0 / r


@njit(cache=True, error_model="numpy")
def group_measures(P, S, use, out):
    """``out[g]``: the (unnormalised) IR measure of every group ``g`` with
    ``use[g]`` under ``S``'s ranking (Pairwise._measure). One call per
    ranking: a kernel call passes every array of P and S."""
    rank, y, start, size = S.rank, P.y, P.start, P.size
    for g in range(start.shape[0]):
        if not use[g]:
            continue
        lo, m = start[g], size[g]
        if P.metric == NDCG:
            total = 0.0
            for r in range(lo, lo + m):
                total += y[r] * P.rank_weight[rank[r]]
            out[g] = total
        elif P.metric == CONC:
            good = 0.0
            for p in range(P.pair_lo[g], P.pair_hi[g]):
                if rank[P.pair_a[p]] < rank[P.pair_b[p]]:
                    good += 1.0
            out[g] = good
        elif P.metric == MRR:
            top = _top_positive(P.positive, rank, lo, m)
            limit = min(float(m), P.cutoff)
            out[g] = 1.0 / top if top <= limit else 0.0
        else:
            # R's sum over the positives in rank order
            total = 0.0
            n_pos = int(P.n_pos[g])
            for k in range(n_pos):
                total += (k + 1.0) / S.pos_rank[lo + k]
            out[g] = total / P.n_pos[g] if n_pos > 0 else 0.0


# ----------------------------------------------------------------- working response
@njit(cache=True, error_model="numpy", inline="always")
def _conc_table(y, order, lo, m, table):
    """Row t's running sums of sign(y[row at rank q] - y[t]), q = 1..m, in
    ``table[(t - lo) * (m + 1) + q]`` (0 at q = 0), for the group's rows t."""
    for tl in range(m):
        base = tl * (m + 1)
        table[base] = 0
        yt = y[lo + tl]
        for q in range(m):
            d = y[order[lo + q]] - yt
            table[base + q + 1] = table[base + q] + (1 if d > 0 else (-1 if d < 0 else 0))


@njit(cache=True, error_model="numpy")
def pair_costs(P, S, active, cost):
    """``cost[p]``: |Delta Z| of every pair p (a better, b worse) of the groups
    with ``active[g]`` under ``S``'s ranking (Pairwise._swap_cost)."""
    rank, y, a_of, b_of = S.rank, P.y, P.pair_a, P.pair_b
    metric, cutoff, table = P.metric, P.cutoff, S.table
    for g in range(P.start.shape[0]):
        if not active[g]:
            continue
        lo, m = P.start[g], P.size[g]
        if metric == CONC:
            _conc_table(y, S.order, lo, m, table)
        top = _top_positive(P.positive, rank, lo, m) if metric == MRR else 0.0
        for p in range(P.pair_lo[g], P.pair_hi[g]):
            a, b = a_of[p], b_of[p]
            ra, rb = rank[a], rank[b]
            if metric == NDCG:
                cost[p] = abs((P.rank_weight[ra] - P.rank_weight[rb]) * (y[a] - y[b]))
            elif metric == MRR:
                if rb < top or ra == top:
                    cost[p] = abs(_cut_value(rb, cutoff) - _cut_value(top, cutoff))
                else:
                    cost[p] = 0.0
            elif metric == MAP:
                # R's order: the moved positive's precision after less
                # before, then the positives ranked between, one by one
                A, B = S.n_upto[a], S.n_upto[b]
                if rb > ra:
                    d = B / rb - A / ra
                    for k in range(int(A), int(B)):
                        d += -1.0 / S.pos_rank[lo + k]
                else:
                    d = (B + 1.0) / rb - A / ra
                    for k in range(int(B), int(A) - 1):
                        d += 1.0 / S.pos_rank[lo + k]
                cost[p] = abs(d) / P.n_pos[g]
            else:
                # the pair itself plus sign terms for the rows ranked between them
                down = ra > rb
                upper, lower = (b, a) if down else (a, b)
                r_up, r_low = min(ra, rb), max(ra, rb)
                bu, bl = (upper - lo) * (m + 1), (lower - lo) * (m + 1)
                inner = ((table[bu + r_low - 1] - table[bu + r_up])
                         - (table[bl + r_low - 1] - table[bl + r_up]))
                cost[p] = float(abs((1 if down else -1) + inner))


@njit(cache=True, error_model="numpy")
def pairwise_gradient(P, S, f, offset, w, inbag, u, z, h):
    """Pairwise._gradient: the working response ``z`` and its derivative
    ``h`` at ``f`` (+ ``offset``) for the in-bag groups with a positive
    weight and some pair; ``u`` the ranking's tie-breaking uniforms."""
    n = f.shape[0]
    link_values(f, offset, S.F)
    rank_scores(P, S, u)
    F, acc, cost = S.F, S.acc, S.cost
    n_groups = P.start.shape[0]
    active = S.active
    for g in range(n_groups):
        s0 = P.start[g]
        active[g] = P.max_measure[g] > 0 and w[s0] > 0 and inbag[s0]
    pair_costs(P, S, active, cost)
    acc[:, :] = 0.0
    n_pairs = S.group_buf[0]
    for g in range(n_groups):
        n_pairs[g] = 0.0
        if not active[g]:
            continue
        used = 0
        for p in range(P.pair_lo[g], P.pair_hi[g]):
            if cost[p] > 0:
                a, b = P.pair_a[p], P.pair_b[p]
                rho = 1.0 / (1.0 + math.exp(-(F[b] - F[a])))
                lam = cost[p] * rho
                deriv = lam * (1.0 - rho)
                # R's sums: pair by pair in the layout's (R's) order
                acc[0, a] += lam
                acc[0, b] -= lam
                acc[1, a] += deriv
                acc[1, b] += deriv
                used += 1
        n_pairs[g] = used
    for i in range(n):
        g = P.gid[i]
        norm = 1.0 / (P.max_measure[g] * n_pairs[g]) if n_pairs[g] > 0 else 0.0
        z[i] = acc[0, i] * norm
        h[i] = acc[1, i] * norm


@njit(cache=True, error_model="numpy")
def pairwise_leaves(w, z, h, node_of, n_nodes, inbag, values):
    """Pairwise.fit_leaves: sum(w z) / sum(w h) per terminal node over the
    in-bag rows in row order, 0 where the denominator is not positive."""
    num = np.zeros(n_nodes)
    den = np.zeros(n_nodes)
    for i in range(node_of.shape[0]):
        if inbag[i]:
            num[node_of[i]] += w[i] * z[i]
            den[node_of[i]] += w[i] * h[i]
    for k in range(n_nodes):
        values[k] = num[k] / den[k] if den[k] > 0 else 0.0


# ----------------------------------------------------------------- errors
@njit(cache=True, error_model="numpy")
def pairwise_deviance(P, S, f, offset, w, u):
    """Pairwise.deviance: 1 - the weighted mean of measure / max measure over
    the groups with pairs."""
    link_values(f, offset, S.F)
    rank_scores(P, S, u)
    use, measure = S.active, S.measure[0]
    for g in range(P.start.shape[0]):
        use[g] = P.max_measure[g] > 0
    group_measures(P, S, use, measure)
    return 1.0 - _group_mean(P, S, use, w, measure)


@njit(cache=True, error_model="numpy")
def pairwise_bag_improvement(P, S, f, offset, w, inbag, u, fadj, shrinkage):
    """Pairwise.bag_improvement: the weighted mean change of measure / max
    measure over the out-of-bag groups with pairs when ``shrinkage * fadj``
    is added to the noisy scores."""
    link_values(f, offset, S.F)
    rank_scores(P, S, u)
    use, old, new = S.active, S.measure[0], S.measure[1]
    for g in range(P.start.shape[0]):
        use[g] = P.max_measure[g] > 0 and not inbag[P.start[g]]
    group_measures(P, S, use, old)
    for i in range(S.F.shape[0]):
        S.noisy[i] = S.noisy[i] + shrinkage * fadj[i]
    _rank(S.noisy, P, S.rank, S.order)
    if P.metric == MAP:
        _positives(P, S)
    group_measures(P, S, use, new)
    for g in range(P.start.shape[0]):
        if use[g]:
            new[g] = new[g] - old[g]
    return _group_mean(P, S, use, w, new)


@njit(cache=True, error_model="numpy")
def _group_mean(P, S, use, w, per_group):
    """The mean of ``per_group[g] / max measure`` over the groups in ``use``,
    weighted by each group's first row's weight, with R's arithmetic (the
    distribution's): terms ``w * per_group / max``, sums left to right."""
    wg, terms = S.group_buf[0], S.group_buf[1]
    k = 0
    for g in range(P.start.shape[0]):
        if use[g]:
            wg[k] = w[P.start[g]]
            terms[k] = wg[k] * per_group[g] / P.max_measure[g]
            k += 1
    return sequential_sum(terms[:k]) / sequential_sum(wg[:k])
