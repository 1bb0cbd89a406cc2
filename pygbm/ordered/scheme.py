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

from ..engine.schemes import TreeInputs
from .folds import check_fold_table, fold_boundaries
from .grow import OrderedGrower
from .support import SupportingModels

#: sub-stream tags of the native permutations' seed (permutations, per-iteration choice)
_PERMUTATION_STREAM, _CHOICE_STREAM = 11, 12


@dataclass
class OrderedModels:
    """What ``gbm_more`` continues: the seed of the permutations (native
    categoricals; None: the target statistics' encoder owns them), the
    supporting models' link values, (n_permutations, sum_k b_{k+1}), fold
    after fold in permutation order, and their exponentials as kept
    (:mod:`.support`; None: the distribution has none, or a fit pickled
    before they were kept, whose models start again from the link values)."""

    seed: int | None
    approx: np.ndarray | None = None
    exp_approx: np.ndarray | None = None


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
    distribution and its context, the trees' size, the folds' rule and the
    engine ("numba": compiled growers and supporting models; "numpy": the
    reference, the same numbers)."""

    targets: object
    distribution: object
    context: object
    depth: int
    min_obs: int
    spec: object
    engine: str = "numpy"


class OrderedBoosting:
    """The ordered boosting scheme over ``views`` (:class:`NativeViews` or
    :class:`ScheduleViews`); ``seed`` is kept for ``gbm_more``."""

    def __init__(self, problem: OrderedProblem, views, seed: int | None):
        self.problem, self.views, self.seed = problem, views, seed

    def start(self, state, f_tr: np.ndarray) -> OrderedSupport:
        return OrderedSupport(self, f_tr, state.support)


class OrderedSupport:
    """One run of :class:`OrderedBoosting`: the supporting models per
    permutation and fold (:mod:`.support`), a grower per tree."""

    def __init__(self, scheme: OrderedBoosting, f_tr: np.ndarray, kept: OrderedModels | None):
        P, views = scheme.problem, scheme.views
        self.P, self.views, self.seed = P, views, scheme.seed
        n = f_tr.shape[0]
        spec = P.spec
        self.bounds = fold_boundaries(n, spec.fold_len_multiplier, spec.min_fold_size)
        check_fold_table(self.bounds, views.n_views, spec.fold_len_multiplier,
                         spec.min_fold_size)
        orders = [views.order(r) for r in range(views.n_views)]
        exp_approx = None
        if kept is None or kept.approx is None:
            ends = self.bounds[1:]
            approx = np.stack([np.concatenate([f_tr.take(o[:m]) for m in ends])
                               for o in orders])
        else:
            approx = np.array(kept.approx, dtype=float)
            if kept.exp_approx is not None:
                exp_approx = np.array(kept.exp_approx, dtype=float)
        self.compiled = P.engine == "numba"
        self._arrays: dict = {}         # the compiled grower's view of each data
        if self.compiled:
            # numba is imported with the compiled engine, on a fit's first use
            from .compiled.support import CompiledSupportingModels

            self.models = CompiledSupportingModels(P, orders, self.bounds, approx, exp_approx)
        else:
            self.models = SupportingModels(P, orders, self.bounds, approx, exp_approx)

    def tree_inputs(self, iteration: int, f_tr: np.ndarray) -> TreeInputs:
        r = self.views.view_of(iteration)
        data = self.views.data(r)
        folds = self.models.fold_columns(r)
        if self.compiled:
            from .compiled.grower import BinnedArrays, CompiledOrderedGrower

            if id(data) not in self._arrays:        # the data are kept by the views
                self._arrays[id(data)] = BinnedArrays.of(data)
            grower = CompiledOrderedGrower(data, self._arrays[id(data)], folds, self.P.depth,
                                           self.P.min_obs)
        else:
            grower = OrderedGrower(data, folds, self.P.depth, self.P.min_obs)
        return TreeInputs(data, f_tr, self.views.leaf_data, grower)

    def tree_added(self, grown, inputs: TreeInputs, shrinkage: float) -> None:
        """Every supporting model adds the tree (:meth:`.support.SupportingModels.add_tree`),
        each permutation routing the rows by its own encoding."""
        for r in range(self.views.n_views):
            data = self.views.data(r)
            node_of = grown.node_of if data is inputs.data else grown.route(data)
            self.models.add_tree(r, np.asarray(node_of), grown.n_terminal, shrinkage)

    def finish(self, state) -> None:
        state.support = OrderedModels(self.seed, self.models.approx, self.models.exp_approx)
