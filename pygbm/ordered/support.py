"""Ordered boosting's supporting models (the NumPy reference; the compiled
kernels of :mod:`.compiled.support` compute the same numbers).

Every structure permutation keeps, per fold k (:mod:`.folds`), the link
values of a model of the positions [0, b_{k+1}): ``approx[r]`` holds them
fold after fold (``FoldSegments``). Per tree, the permutation the tree is
grown on gives each row its working responses of every fold
(:meth:`SupportingModels.gradients`); once grown, the tree is added to
every model: each leaf's value is the distribution's own estimate on the
fold's *body* rows at the fold's model, added to all the fold's rows (from
two running sums, :mod:`.leaf_terms`, for the five distributions whose
estimates are ratios of sums: ``fit_leaves``' value bit for bit; laplace,
quantile and tdist call their ``fit_leaves``). A leaf with fewer body rows
than ``n_minobsinnode`` adds nothing: R estimates no terminal node from
fewer rows (its trees make no such node), and the model of the body rows
would not have one; an estimate from a handful of rows (a Newton step of
one bernoulli row can be 100) is noise that the tail's gradients would then
chase. A leaf without body rows is the case ``n_minobsinnode = 1`` (no
information; R's poisson would give -19 there). With ``full_history`` a row
of the tail takes instead the estimate over all the rows before it in its
leaf (the body and the earlier tail rows), from running sums
(:mod:`.leaf_terms`): CatBoost's ``approx_on_full_history``, under the same
rule.

The models' arithmetic uses the C library's ``exp`` (``r_exact_math``)
whatever the fit's, so that compiled kernels reproduce it bit for bit.
Bernoulli, poisson and adaboost models keep exp(sign F) of every position
beside F (``exp_approx``, :mod:`.leaf_terms`) and multiply it by exp(sign x)
when a tree adds x: an exponential per leaf and fold instead of one per
position (the kept value differs from exp(sign F) by rounding only).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._rmath import exp_r
from ..distributions._common import node_ratio
from ..distributions.inputs import Leaves
from .columns import FoldColumns, fold_columns, tail_folds
from .leaf_terms import (POISSON, code_of, exp_of, exp_sign, growth_response, leaf_values,
                         row_terms, working_response)


@dataclass(frozen=True, eq=False)
class FoldSegments:
    """The folds' positions laid out fold after fold: ``bounds`` (b_0 ..
    b_K), each position's fold (``fold``) and whether it is in its fold's
    body (``body``)."""

    bounds: np.ndarray
    fold: np.ndarray
    body: np.ndarray
    position: np.ndarray

    @classmethod
    def of(cls, bounds: np.ndarray) -> FoldSegments:
        ends = bounds[1:]
        fold = np.repeat(np.arange(ends.shape[0]), ends)
        position = np.concatenate([np.arange(m) for m in ends])
        return cls(bounds, fold, position < bounds[fold], position)

    @property
    def n_folds(self) -> int:
        return self.bounds.shape[0] - 1

    @property
    def size(self) -> int:
        return self.fold.shape[0]


@dataclass(frozen=True, eq=False)
class PermutationRows:
    """One permutation's rows: its order (row at each position), the row of
    every fold position (``rows``), their targets, each row's tail fold and
    the sign of each position's exponential (None: none, :func:`.leaf_terms.exp_sign`)."""

    order: np.ndarray
    rows: np.ndarray
    targets: object
    tail_fold: np.ndarray
    sign: np.ndarray | None


class SupportingModels:
    """The supporting models of ``orders`` (one permutation each) for the
    training ``targets``, distribution ``dist`` and fit context ``ctx``;
    ``approx`` (n_permutations, segments.size) their link values and
    ``exp_approx`` their exponentials as kept (None: computed from ``approx``)."""

    def __init__(self, problem, orders: list, bounds: np.ndarray, approx: np.ndarray,
                 exp_approx: np.ndarray | None = None):
        self.dist = problem.distribution
        self.ctx = dataclasses.replace(problem.context, r_exact_math=True)
        self.min_obs = problem.min_obs
        #: the fewest body rows a leaf's estimate is made from (R's n_minobsinnode)
        self.min_rows = max(1, int(problem.min_obs))
        self.full_history = problem.spec.full_history
        self.segments = FoldSegments.of(bounds)
        self.perms = []
        for order in orders:
            rows = order[self.segments.position]
            targets = problem.targets.rows(rows)
            self.perms.append(PermutationRows(order, rows, targets, tail_folds(order, bounds),
                                              exp_sign(self.dist, targets.y)))
        #: the fold columns pack w*z with a row count: unit weights and R's splits
        #: (Newton splits weigh each row by w h)
        self.unit = bool(np.all(problem.targets.w == 1.0)) and self.dist.gradient_splits
        self.approx = approx
        if self.perms[0].sign is None:
            self.exp_approx = None
        elif exp_approx is None:
            self.exp_approx = np.stack([exp_of(self.dist, p.targets, approx[r])
                                        for r, p in enumerate(self.perms)])
        else:
            self.exp_approx = exp_approx

    def exp(self, r: int) -> np.ndarray | None:
        """Permutation ``r``'s kept exponentials (None: none)."""
        return None if self.exp_approx is None else self.exp_approx[r]

    def fold(self, r: int, k: int) -> np.ndarray:
        """Fold ``k``'s link values of permutation ``r``, by position (a view)."""
        start = int(np.searchsorted(self.segments.fold, k))
        return self.approx[r, start:start + int(self.segments.bounds[k + 1])]

    def gradients(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """The weighted growth response and its weight at every fold position
        of permutation ``r`` at its fold's model: w*z and w (R's splits), or
        (w h)(z / h) and w h (Newton splits)."""
        t, f, e = self.perms[r].targets, self.approx[r], self.exp(r)
        z = working_response(self.dist, t, f, e, self.ctx)
        gz, gw = growth_response(self.dist, t, f, e, z, self.ctx)
        return gw * gz, gw

    def fold_columns(self, r: int) -> FoldColumns:
        """Permutation ``r``'s :class:`~.columns.FoldColumns` for the next tree."""
        wz, w = self.gradients(r)
        p = self.perms[r]
        return fold_columns(wz, None if self.unit else w, p.order, self.segments.bounds,
                            p.tail_fold)

    def add_tree(self, r: int, node_of: np.ndarray, n_t: int, shrinkage: float) -> None:
        """Add a tree to permutation ``r``'s models: ``node_of`` the terminal
        node of every training row under its encoding, ``n_t`` nodes."""
        p, seg = self.perms[r], self.segments
        f, t = self.approx[r], p.targets
        nodes = node_of.take(p.rows) + seg.fold * n_t
        n_nodes = seg.n_folds * n_t
        if code_of(self.dist) is None:          # medians, M-estimates: the distribution's own
            body = seg.body
            counts = np.bincount(nodes.compress(body), minlength=n_nodes)
            z = self.dist.negative_gradient(t, f, body, self.ctx)
            mean_z = node_ratio(t.w * z, t.w, nodes, n_nodes, body)
            values = self.dist.fit_leaves(t, f, z, Leaves(nodes, n_nodes, counts, mean_z,
                                                          self.min_obs), body, self.ctx)
            step = np.where(counts >= self.min_rows, values, 0.0).take(nodes)
        else:
            step = self._sum_values(t, f, self.exp(r), nodes, n_nodes)
        x = shrinkage * step
        f += x
        if p.sign is not None:
            self.exp_approx[r] *= exp_r(p.sign * x)

    def _sum_values(self, t, f, e, nodes, n_nodes) -> np.ndarray:
        """Each position's leaf value from the running-sum estimators: the
        leaf's body estimate; with ``full_history`` a tail row takes the
        estimate over the rows before it in its leaf (0 from fewer than
        ``min_rows`` rows)."""
        seg = self.segments
        num, den = row_terms(self.dist, t, f, e)
        body = seg.body
        b_num = np.bincount(nodes.compress(body), num.compress(body), n_nodes)
        b_den = np.bincount(nodes.compress(body), den.compress(body), n_nodes)
        b_cnt = np.bincount(nodes.compress(body), minlength=n_nodes)
        f_range = self._f_range(t, f, nodes, n_nodes)
        leaf_value = leaf_values(self.dist, b_num, b_den, f_range)
        value = np.where(b_cnt >= self.min_rows, leaf_value, 0.0)
        if not self.full_history:
            return value.take(nodes)
        # running sums from the body's, tail row after tail row, leaf by leaf
        tail = np.flatnonzero(~body)
        by_leaf = tail[np.argsort(nodes.take(tail), kind="stable")]
        leaf = nodes.take(by_leaf)
        first = np.flatnonzero(np.concatenate(([True], leaf[1:] != leaf[:-1])))
        p_num, p_den, p_cnt = np.empty(tail.size), np.empty(tail.size), np.empty(tail.size)
        for a, b in zip(first, np.append(first[1:], tail.size)):
            node, rows = leaf[a], by_leaf[a:b]
            p_num[a:b] = np.cumsum(np.concatenate(([b_num[node]], num.take(rows[:-1]))))
            p_den[a:b] = np.cumsum(np.concatenate(([b_den[node]], den.take(rows[:-1]))))
            p_cnt[a:b] = b_cnt[node] + np.arange(b - a)
        out = np.empty(seg.size)
        out[body] = value.take(nodes.compress(body))
        ranges = None if f_range is None else (f_range[0].take(leaf), f_range[1].take(leaf))
        tail_value = leaf_values(self.dist, p_num, p_den, ranges)
        out[by_leaf] = np.where(p_cnt >= self.min_rows, tail_value, 0.0)
        return out

    def _f_range(self, t, f, nodes, n_nodes):
        """Poisson's clipping range per leaf (min f, max f over the fold's
        rows in it), None when it does not clip (an offset, or not poisson)."""
        if code_of(self.dist) != POISSON or t.offset is not None:
            return None
        lo, hi = np.full(n_nodes, np.inf), np.full(n_nodes, -np.inf)
        np.minimum.at(lo, nodes, f)
        np.maximum.at(hi, nodes, f)
        return lo, hi
