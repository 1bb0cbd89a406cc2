"""LambdaMART ranking (R gbm's ``distribution = "pairwise"``).

The gbm vignette's "Pairwise" section, with R's C++ rules (src/pairwise.cpp):

* rows come sorted by group, then by decreasing label (``misc`` holds the
  group code of every row; gbm()/gbm_fit() sort them);
* pairs: items (i, j) of one group with y_i > y_j; each pair's |Delta Z| is
  the change of the IR measure when i and j swap ranks in the current
  ranking (conc, ndcg: exact; map: exact; mrr: R's approximation), ranks by
  decreasing score with ties broken by noise ``1e-10 * U(-0.5, 0.5)``;
* with rho_ij = 1 / (1 + exp(F_i - F_j)): lambda_i += |dZ| rho, lambda_j -=
  |dZ| rho, gamma_i and gamma_j += |dZ| rho (1 - rho), added pair by pair
  in R's loop order (by the worse item j, then the better item i), so that
  every row's sums have R's last bits (a tie between two splits giving the
  same rows goes R's way); both are divided by the group's max IR measure
  times its number of pairs with |dZ| > 0. Only in-bag groups with positive
  weight and some pair contribute;
* map, in R's arithmetic order: the swap cost is the moved positive's
  precision after less before, plus +-1/rank of each positive ranked between
  the two, one at a time in rank order; the measure sums k / (rank of the
  k-th positive) in rank order;
* terminal nodes: sum(w lambda) / sum(w gamma), 0 when the denominator is 0;
* f0 = 0; deviance = 1 - the weighted mean over groups (weight = the
  group's row weight) of measure / max measure, groups without pairs left
  out, which is what R reports as train/valid error; it and the out-of-bag
  improvement (the weighted mean change of measure / max measure) with R's
  arithmetic: terms w * measure / max, sums group by group;
* the ``max_rank`` cut-off (ndcg, mrr): ranks below it count as 0.
"""
from __future__ import annotations

import numpy as np

from .._checks import finite_number
from .._rmath import sequential_sum
from ..draws import child_seed, is_r_stream, tie_uniforms
from ..messages import warn
from ..ranking import METRICS, group_runs, pairs_within, ranks_within
from ._common import as_numeric_response, expit, full_f, node_sum
from .base import Distribution

#: R's CRanker: scores get dEPS * (U - 0.5) before ranking, to break ties
NOISE = 1e-10
#: cached group layouts kept per fit (training and validation part)
CACHE_SIZE = 4
#: the fit's cache entries: group layouts, the last gradient and its Hessian
_LAYOUTS, _LAST_GRADIENT = "pairwise.layouts", "pairwise.gradient"


class _Layout:
    """What stays fixed for one (y, group) part: groups, label pairs, maxima."""

    def __init__(self, y, misc, metric, max_rank):
        self.y = y
        self.runs = runs = group_runs(misc)
        start, size = runs.start, runs.size
        last = start + size - 1
        if np.any(np.diff(y)[np.diff(runs.gid) == 0] > 0):
            raise ValueError("pairwise: rows must be sorted by group and decreasing label; "
                             "fit with gbm(), or gbm_fit(..., group=...)")
        any_pairs = (size >= 2) & (y[start] > 0) & (y[last] != y[start])
        a, b = pairs_within(runs)
        keep = y[a] > y[b]
        a, b = a[keep], b[keep]
        # R's loop order: by the worse row, then the better one (the rows'
        # lambda sums follow it, see Pairwise._gradient)
        r_order = np.lexsort((a, b))
        self.a, self.b = a[r_order], b[r_order]
        self.pair_gid = runs.gid[self.a]
        max_size = int(size.max()) if size.size else 0
        cut = max_size if max_rank <= 0 else min(max_size, int(max_rank))
        self.cutoff = np.inf if max_rank <= 0 else float(max_rank)
        self.weight = np.zeros(max_size + 1)            # R's vecdRankWeight
        r = np.arange(1, cut + 1)
        self.weight[r] = np.log(2.0) / np.log(r + 1.0)
        self.positive = y > 0
        self.n_pos = np.bincount(runs.gid, weights=self.positive.astype(float),
                                 minlength=runs.n_groups)
        if metric == "ndcg":
            within = np.arange(y.shape[0]) - start[runs.gid] + 1
            best = np.bincount(runs.gid, weights=y * self.weight[within],
                               minlength=runs.n_groups)
        elif metric == "conc":
            best = np.bincount(self.pair_gid, minlength=runs.n_groups).astype(float)
        else:
            best = np.ones(runs.n_groups)
        self.max_measure = np.where(any_pairs, best, 0.0)
        self._table = None

    def table_index(self):
        """Row t, offset r-1 and segment start of the per-row cumulative sign
        table used by the concordance swap cost (built once)."""
        if self._table is None:
            runs = self.runs
            size_row = runs.size[runs.gid]
            t = np.repeat(np.arange(size_row.shape[0]), size_row)
            offset = np.arange(t.shape[0]) - np.repeat(np.cumsum(size_row) - size_row, size_row)
            seg_len = size_row + 1
            self._table = (t, offset, np.cumsum(seg_len) - seg_len, int(seg_len.sum()))
        return self._table


class Pairwise(Distribution):
    """LambdaMART with R's IR measures (see the module docstring).

    Parameters (R's ``distribution`` list): ``group`` (column name(s) of the
    data holding the group, used by :func:`pygbm.gbm`), ``metric`` ("ndcg"
    by default, with R's warning; "conc", "map", "mrr"), ``max_rank``
    (cut-off rank for ndcg and mrr; 0 = none; R's ``max.rank`` is accepted).
    """

    name = "pairwise"
    response_link = "logistic"
    bag_by_group = True

    def __init__(self, group=None, metric=None, max_rank=0, **other):
        if "max.rank" in other:
            max_rank = other.pop("max.rank")
        if other:
            raise ValueError(f"distribution 'pairwise' takes group, metric and max_rank; got "
                             f"{sorted(other)}")
        if metric is None:
            warn("No metric specified, using 'ndcg'")
            metric = "ndcg"
        if not isinstance(metric, str) or metric.lower() not in METRICS:
            raise ValueError(f"Metric {metric!r} is not supported, use either 'conc', 'ndcg', "
                             "'map', or 'mrr'")
        metric = metric.lower()
        if not finite_number(max_rank) or max_rank != int(max_rank) or max_rank < 0:
            raise ValueError(f"max_rank must be a whole number >= 0 (0: no cut-off); got "
                             f"{max_rank!r}")
        max_rank = int(max_rank)
        if max_rank > 0 and metric not in ("ndcg", "mrr"):
            raise ValueError(f"max_rank cannot be specified for metric {metric!r}, only for "
                             "'ndcg' and 'mrr'")
        self.group = group
        self.metric = metric
        self.max_rank = max_rank

    def params(self):
        return {"group": self.group, "metric": self.metric, "max_rank": self.max_rank}

    @property
    def display_name(self) -> str:
        """R's print.gbm name: ``pairwise (metric=ndcg, max.rank=5)``."""
        if self.max_rank > 0:
            return f"pairwise (metric={self.metric}, max.rank={self.max_rank})"
        return f"pairwise (metric={self.metric})"

    def noise_generator(self, rng):
        """The tie-breaking noise's generator, seeded from the fit's; with R's
        stream (:class:`pygbm.RRandom`) the fit's stream itself, as R's
        ``CRanker::SetGroupScores`` draws from the one global stream, between
        the bags (see :meth:`_noisy`)."""
        if is_r_stream(rng):
            return rng
        return np.random.default_rng(child_seed(rng))

    # ------------------------------------------------------------------ checks
    def check_response(self, y):
        y = as_numeric_response(y, self.name)
        if np.any(y < 0):
            raise ValueError("targets for 'pairwise' should be non-negative")
        if self.metric in ("map", "mrr") and not np.all(np.isin(y, (0.0, 1.0))):
            raise ValueError(f"metric {self.metric!r} requires the response to be 0 or 1; got "
                             f"{np.unique(y).size} distinct values")
        return y

    # ------------------------------------------------------------------ internals
    def layout(self, t, ctx) -> _Layout:
        """The fixed layout of the rows ``t`` (kept in the fit's cache): groups,
        label pairs, rank weights, maxima (what the compiled loop reads too).

        Parameters
        ----------
        t : Targets
            The rows (``misc``: each row's group).
        ctx : FitContext
            The fit's context (its cache keeps the layout).

        Returns
        -------
        _Layout
            The layout of ``t``.
        """
        y, misc = t.y, t.misc
        if misc is None:
            raise ValueError("distribution 'pairwise' needs the group of every row")
        cached = ctx.cache.get(_LAYOUTS, [])
        for entry in cached:
            if entry[0] is y and entry[1] is misc:
                return entry[2]
        layout = _Layout(np.asarray(y, dtype=float), np.asarray(misc), self.metric,
                         self.max_rank)
        ctx.cache[_LAYOUTS] = ([(y, misc, layout)] + cached)[:CACHE_SIZE]
        return layout

    @staticmethod
    def _noisy(F, ctx, runs, ranked):
        """The scores with R's tie-breaking noise, for a ranking of the groups
        ``ranked`` (a mask over ``runs``' groups). R's stream draws only for
        those, as R's ranker does (pairwise.cpp): the in-bag training groups
        with a positive weight and some pair (the gradient), the out-of-bag
        training groups with pairs (the out-of-bag improvement), every group
        with pairs (the deviances); see :func:`pygbm.draws.tie_uniforms`."""
        return F + NOISE * (tie_uniforms(ctx.noise_rng, runs.gid, ranked) - 0.5)

    def _measure(self, L: _Layout, rank, order) -> np.ndarray:
        """The (unnormalised) IR measure of every group under ``rank``."""
        runs, y = L.runs, L.y
        n_groups = runs.n_groups
        if self.metric == "ndcg":
            return np.bincount(runs.gid, weights=y * L.weight[rank], minlength=n_groups)
        if self.metric == "conc":
            good = (rank[L.a] < rank[L.b]).astype(float)
            return np.bincount(L.pair_gid, weights=good, minlength=n_groups)
        if self.metric == "mrr":
            top = self._top_positive(L, rank)
            limit = np.minimum(runs.size, L.cutoff)
            return np.where(top <= limit, 1.0 / top, 0.0)
        n_upto, pos_rank = self._positives(L, order, rank)
        # R's sum over the positives in rank order: (k + 1) / (rank of the k-th)
        k = np.arange(n_upto.shape[0]) - runs.start[runs.gid]
        terms = np.where(k < L.n_pos[runs.gid], (k + 1.0) / pos_rank, 0.0)
        total = np.bincount(runs.gid, weights=terms, minlength=n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(L.n_pos > 0, total / L.n_pos, 0.0)

    @staticmethod
    def _top_positive(L, rank):
        top = (L.runs.size + 1).astype(float)
        np.minimum.at(top, L.runs.gid[L.positive], rank[L.positive].astype(float))
        return top

    @staticmethod
    def _positives(L, order, rank):
        """Per row the positives ranked at or above it (a float count), and
        the ranks of each group's positives in increasing order: group g's
        k-th (0-based) at ``start[g] + k`` (1.0 in the unused places)."""
        runs = L.runs
        pos_sorted = L.positive[order].astype(np.int64)
        c = np.cumsum(pos_sorted)
        before = np.repeat(c[runs.start] - pos_sorted[runs.start], runs.size)
        n_upto = np.empty(order.shape[0])
        n_upto[order] = c - before
        pos_rank = np.ones(order.shape[0])
        p = np.flatnonzero(L.positive)
        pos_rank[runs.start[runs.gid[p]] + n_upto[p].astype(np.int64) - 1] = rank[p]
        return n_upto, pos_rank

    def _swap_cost(self, L: _Layout, rank, order, a, b) -> np.ndarray:
        """|Delta Z| of the pairs (a better, b worse) under the current ranks."""
        ra, rb = rank[a], rank[b]
        y = L.y
        if self.metric == "ndcg":
            return np.abs((L.weight[ra] - L.weight[rb]) * (y[a] - y[b]))
        if self.metric == "mrr":
            top = self._top_positive(L, rank)[L.runs.gid[a]]
            value = lambda r: np.where(r > L.cutoff, 0.0, 1.0 / r)  # noqa: E731
            hit = (rb < top) | (ra == top)
            return np.abs(np.where(hit, value(rb) - value(top), 0.0))
        if self.metric == "map":
            return self._map_cost(L, order, rank, ra, rb, a, b)
        return self._conc_cost(L, order, ra, rb, a, b)

    def _map_cost(self, L, order, rank, ra, rb, a, b):
        """R's change of average precision when a (positive) and b swap: the
        moved positive's precision after less before, then the precisions
        of the positives ranked between them, one by one in rank order
        (each gains or loses 1 / its rank), over the group's positives."""
        n_upto, pos_rank = self._positives(L, order, rank)
        A, B = n_upto[a], n_upto[b]
        down = rb > ra
        diff = np.where(down, B / rb, (B + 1.0) / rb) - A / ra
        sign = np.where(down, -1.0, 1.0)
        # the between positives' places in pos_rank: A .. B-1 (down), B .. A-2 (up)
        base = L.runs.start[L.runs.gid[a]]
        first = np.where(down, A, B).astype(np.int64) + base
        count = np.where(down, B - A, A - 1.0 - B).astype(np.int64)
        live = np.flatnonzero(count > 0)
        step = 0
        while live.size:
            diff[live] += sign[live] / pos_rank[first[live] + step]
            step += 1
            live = live[count[live] > step]
        return np.abs(diff) / L.n_pos[L.runs.gid[a]]

    @staticmethod
    def _conc_cost(L, order, ra, rb, a, b):
        """Change in the number of concordant pairs when a and b swap ranks:
        the pair itself plus sign terms for the items ranked between them."""
        runs, y = L.runs, L.y
        t, offset, seg_start, total = L.table_index()
        partner = order[runs.start[runs.gid[t]] + offset]      # row at rank offset + 1
        table = np.zeros(total + 1, dtype=np.int64)
        table[seg_start[t] + offset + 1] = np.sign(y[partner] - y[t]).astype(np.int64)
        cs = np.cumsum(table)

        def between(rows, lo, hi):   # sum of signs over ranks lo+1 .. hi
            return cs[seg_start[rows] + hi] - cs[seg_start[rows] + lo]

        down = ra > rb
        upper, lower = np.where(down, b, a), np.where(down, a, b)
        r_up, r_low = np.minimum(ra, rb), np.maximum(ra, rb)
        inner = between(upper, r_up, r_low - 1) - between(lower, r_up, r_low - 1)
        return np.abs(np.where(down, 1, -1) + inner).astype(float)

    def _gradient(self, t, f, bag, ctx):
        L = self.layout(t, ctx)
        F = full_f(f, t.offset)
        w = np.asarray(t.w, dtype=float)
        runs = L.runs
        n = F.shape[0]
        active = (L.max_measure > 0) & (w[runs.start] > 0)
        if bag is not None:
            active &= np.asarray(bag, dtype=bool)[runs.start]
        sel = active[L.pair_gid]
        a, b, gid = L.a[sel], L.b[sel], L.pair_gid[sel]
        rank, order = ranks_within(self._noisy(F, ctx, runs, active), runs)
        cost = self._swap_cost(L, rank, order, a, b)
        used = cost > 0
        a, b, gid, cost = a[used], b[used], gid[used], cost[used]
        rho = expit(F[b] - F[a])                    # 1 / (1 + exp(F_a - F_b))
        lam = cost * rho
        deriv = lam * (1.0 - rho)
        # R's sums: pair by pair in the layout's (R's) order, + lambda to the
        # better row and - lambda to the worse; np.add.at adds in that order
        rows = np.empty(2 * a.shape[0], dtype=np.intp)
        rows[0::2], rows[1::2] = a, b
        both = np.empty(2 * a.shape[0])
        both[0::2], both[1::2] = lam, -lam
        z = np.zeros(n)
        np.add.at(z, rows, both)
        both[1::2] = both[0::2] = deriv
        h = np.zeros(n)
        np.add.at(h, rows, both)
        n_pairs = np.bincount(gid, minlength=runs.n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            norm = np.where(n_pairs > 0, 1.0 / (L.max_measure * n_pairs), 0.0)
        z *= norm[runs.gid]
        h *= norm[runs.gid]
        return z, h

    # ------------------------------------------------------------------ the table
    def init_f(self, t, ctx):
        return 0.0

    def deviance(self, t, f, ctx):
        L = self.layout(t, ctx)
        F = full_f(f, t.offset)
        use = L.max_measure > 0
        rank, order = ranks_within(self._noisy(F, ctx, L.runs, use), L.runs)
        wg = np.asarray(t.w, dtype=float)[L.runs.start][use]
        # R's terms, w * measure / max measure (in that order), and R's sums,
        # group by group in the rows' order: the measures are ratios of small
        # integers, so iterations tie often and gbm_perf's which.min depends
        # on the last bits (NumPy's pairwise sum rounds differently)
        terms = wg * self._measure(L, rank, order)[use] / L.max_measure[use]
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(1.0 - sequential_sum(terms) / sequential_sum(wg))

    def negative_gradient(self, t, f, bag, ctx):
        z, h = self._gradient(t, f, bag, ctx)
        ctx.cache[_LAST_GRADIENT] = (z, h)
        return z

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        last = ctx.cache.get(_LAST_GRADIENT)
        if last is not None and last[0] is z:
            h = last[1]
        else:
            _, h = self._gradient(t, f, bag, ctx)
        w = np.asarray(t.w, dtype=float)
        node, n_nodes = leaves.node, leaves.n_nodes
        num = node_sum(w * np.asarray(z, dtype=float), node, n_nodes, bag)
        den = node_sum(w * h, node, n_nodes, bag)
        out = np.zeros(n_nodes)
        ok = den > 0
        out[ok] = num[ok] / den[ok]
        return out

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        L = self.layout(t, ctx)
        runs = L.runs
        use = (L.max_measure > 0) & ~np.asarray(bag, dtype=bool)[runs.start]
        noisy = self._noisy(full_f(f, t.offset), ctx, runs, use)
        old = self._measure(L, *ranks_within(noisy, runs))
        new_scores = noisy + shrinkage * np.asarray(fadj, dtype=float)
        new = self._measure(L, *ranks_within(new_scores, runs))
        wg = np.asarray(t.w, dtype=float)[runs.start][use]
        # R's terms, w * (new - old) / max measure, summed group by group
        terms = wg * (new[use] - old[use]) / L.max_measure[use]
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(np.float64(sequential_sum(terms)) / np.float64(sequential_sum(wg)))
