"""Ordered boosting as a boosting scheme of the loop (:mod:`pygbm.engine.schemes`):
CatBoost's Ordered mode (Prokhorenkova et al. 2018, section 5, Algorithm 2,
with the log-scale folds of section 5 "Complexity").

Every structure permutation r keeps, per fold k (:mod:`.folds`), a
supporting model of its positions [0, b_{k+1}). An iteration picks a
permutation; the gradients of every fold's model give each row its body or
tail columns, on which the tree is grown by the ordered score
(:mod:`.grow`, :mod:`.search`). The final model's leaf values are fitted as
in plain boosting (the loop's, on the leaf permutation's encoding with
ordered target statistics). Then every supporting model adds the tree: each
leaf's value is estimated by the distribution's own leaf estimator on the
fold's body rows at the fold's model, and added to all the fold's rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..distributions._common import node_ratio
from ..distributions.inputs import Leaves
from ..engine.schemes import TreeInputs
from .folds import fold_boundaries
from .grow import OrderedGrower
from .search import FOLD_COLUMNS

#: sub-stream tags of the native permutations' seed (permutations, per-iteration choice)
_PERMUTATION_STREAM, _CHOICE_STREAM = 11, 12


@dataclass
class OrderedModels:
    """What ``gbm_more`` continues: the seed of the permutations (native
    categoricals; None: the target statistics' encoder owns them) and the
    supporting models' link values, (n_permutations, sum_k b_{k+1}), fold
    after fold in permutation order."""

    seed: int | None
    approx: np.ndarray | None = None


class NativeViews:
    """The rows under ``n_views`` random permutations of their own (one
    encoding: native categoricals), chosen at random per iteration."""

    leaf_data = None

    def __init__(self, data, n_views: int, seed: int):
        self._data, self.n_views, self.seed = data, int(n_views), int(seed)

    def order(self, r: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, _PERMUTATION_STREAM, int(r)])
        return rng.permutation(self._data.n)

    def data(self, r: int):
        return self._data

    def view_of(self, iteration: int) -> int:
        rng = np.random.default_rng([self.seed, _CHOICE_STREAM, int(iteration)])
        return int(rng.integers(self.n_views))


class ScheduleViews:
    """The target statistics' permutations serve the boosting too (the paper's
    Appendix F: sigma_cat = sigma_boost): each permutation's encoding, its
    order, the iteration's choice and the leaf permutation's encoding."""

    def __init__(self, schedule):
        self.schedule = schedule
        self.n_views = schedule.n_views
        self.leaf_data = schedule.leaf_data()

    def order(self, r: int) -> np.ndarray:
        return self.schedule.encoder.permutation(r)

    def data(self, r: int):
        return self.schedule.data(r)

    def view_of(self, iteration: int) -> int:
        return self.schedule.view_of(iteration)


@dataclass(frozen=True, eq=False)
class OrderedProblem:
    """What the scheme needs of the fit: the training targets, the
    distribution and its context, the trees' size and the folds' rule."""

    targets: object
    distribution: object
    context: object
    depth: int
    min_obs: int
    spec: object


class OrderedBoosting:
    """The ordered boosting scheme over ``views`` (:class:`NativeViews` or
    :class:`ScheduleViews`); ``seed`` is kept for ``gbm_more``."""

    def __init__(self, problem: OrderedProblem, views, seed: int | None):
        self.problem, self.views, self.seed = problem, views, seed

    def start(self, state, f_tr: np.ndarray) -> OrderedSupport:
        return OrderedSupport(self, f_tr, state.support)


class OrderedSupport:
    """One run of :class:`OrderedBoosting`: the supporting models per
    permutation and fold (see the module)."""

    def __init__(self, scheme: OrderedBoosting, f_tr: np.ndarray, kept: OrderedModels | None):
        P, views = scheme.problem, scheme.views
        self.P, self.views, self.seed = P, views, scheme.seed
        n = f_tr.shape[0]
        spec = P.spec
        self.bounds = fold_boundaries(n, spec.fold_len_multiplier, spec.min_fold_size)
        ends = self.bounds[1:]
        self.start_of = np.concatenate(([0], np.cumsum(ends)))
        self.orders = [views.order(r) for r in range(views.n_views)]
        self.targets = [[P.targets.rows(o[:m]) for m in ends] for o in self.orders]
        self.bodies = [np.arange(m) < b for b, m in zip(self.bounds[:-1], ends)]
        if kept is None or kept.approx is None:
            self.approx = np.stack([np.concatenate([f_tr.take(o[:m]) for m in ends])
                                    for o in self.orders])
        else:
            self.approx = np.array(kept.approx, dtype=float)
        self.growers: dict = {}

    def _fold(self, r: int, k: int) -> np.ndarray:
        """Fold ``k``'s link values of permutation ``r`` (a view, by position)."""
        return self.approx[r, self.start_of[k]: self.start_of[k + 1]]

    def fold_columns(self, r: int) -> np.ndarray:
        """(n, 4 K): every row's body and tail columns per fold under permutation ``r``."""
        P, order, b = self.P, self.orders[r], self.bounds
        dist, ctx = P.distribution, P.context
        n_folds = b.shape[0] - 1
        cols = np.zeros((order.shape[0], FOLD_COLUMNS * n_folds))
        for k in range(n_folds):
            t, f = self.targets[r][k], self._fold(r, k)
            everything = np.ones(f.shape[0], dtype=bool)
            z = dist.negative_gradient(t, f, everything, ctx)
            gz, gw = dist.growth_response(t, f, z, ctx)
            wz = gw * gz
            body, tail = order[: b[k]], order[b[k]: b[k + 1]]
            c = FOLD_COLUMNS * k
            cols[body, c], cols[body, c + 1] = wz[: b[k]], gw[: b[k]]
            cols[tail, c + 2], cols[tail, c + 3] = wz[b[k]:], gw[b[k]:]
        return cols

    def tree_inputs(self, iteration: int, f_tr: np.ndarray) -> TreeInputs:
        r = self.views.view_of(iteration)
        data = self.views.data(r)
        grower = OrderedGrower(data, self.fold_columns(r), self.P.depth, self.P.min_obs)
        return TreeInputs(data, f_tr, self.views.leaf_data, grower)

    def tree_added(self, grown, inputs: TreeInputs, shrinkage: float) -> None:
        """Every supporting model adds the tree, its leaves estimated on each
        fold's body rows at the fold's model."""
        P = self.P
        dist, ctx = P.distribution, P.context
        n_t = grown.n_terminal
        for r, order in enumerate(self.orders):
            data = self.views.data(r)
            node_of = grown.node_of if data is inputs.data else grown.route(data)
            for k, body in enumerate(self.bodies):
                t, f = self.targets[r][k], self._fold(r, k)
                nodes = node_of.take(order[: f.shape[0]])
                z = dist.negative_gradient(t, f, body, ctx)
                counts = np.bincount(nodes.compress(body), minlength=n_t)
                mean_z = node_ratio(t.w * z, t.w, nodes, n_t, body)
                leaves = Leaves(nodes, n_t, counts, mean_z, P.min_obs)
                values = dist.fit_leaves(t, f, z, leaves, body, ctx)
                f += shrinkage * np.asarray(values).take(nodes)

    def finish(self, state) -> None:
        state.support = OrderedModels(self.seed, self.approx)
