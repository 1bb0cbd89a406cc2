"""CatBoost's Plain boosting mode with ordered target statistics, as a
boosting scheme of the loop (:mod:`pygbm.engine.schemes`)."""
from __future__ import annotations

import numpy as np

from ..engine.schemes import TreeInputs


class OrderedPlainBoosting:
    """The boosting scheme of ordered target statistics: each run keeps the
    :class:`SupportingModels` of the schedule's permutations, continued from
    the loop's state (``state.support``) by ``gbm_more``."""

    def __init__(self, schedule):
        self.schedule = schedule

    def start(self, state, f_tr: np.ndarray) -> SupportingModels:
        return SupportingModels(self.schedule, f_tr, state.support)


class SupportingModels:
    """CatBoost's Plain boosting mode with ordered target statistics
    (Prokhorenkova et al. 2018, section 5, "Building a tree" and "Choosing
    leaf values").

    The schedule (:class:`.schedule.TargetStatisticsSchedule`) encodes the
    training rows under ``n_views`` structure permutations and one leaf
    permutation (``view_of(iteration)``, ``data(view)``, ``leaf_data()``).
    Each structure permutation has its own supporting model of the training
    rows (``f``, one row per view): an iteration grows its tree on one
    permutation's encoding, from the gradient of that permutation's model,
    so that the residuals agree with the statistics the tree sees. The leaf
    values are then estimated on the rows as the leaf permutation's encoding
    routes them, against the fit's own training predictions (the model of
    the leaf permutation), and the tree is added to every supporting model,
    each routing the rows by its own encoding.
    """

    def __init__(self, schedule, f_tr: np.ndarray, support: np.ndarray | None):
        if f_tr.ndim != 1:
            raise ValueError("target statistics support single-output distributions only")
        self.schedule = schedule
        self.f = (np.tile(f_tr, (schedule.n_views, 1)) if support is None
                  else np.array(support, dtype=float))
        self.leaf_data = schedule.leaf_data()

    def tree_inputs(self, iteration: int, f_tr: np.ndarray) -> TreeInputs:
        view = self.schedule.view_of(iteration)
        return TreeInputs(self.schedule.data(view), self.f[view], self.leaf_data)

    def tree_added(self, grown, inputs: TreeInputs, shrinkage: float) -> None:
        """Add the fitted tree to every model; the permutation it was grown
        on (``inputs.data``) already has the tree's routing."""
        preds = grown.terminal_preds()
        for v in range(self.f.shape[0]):
            data = self.schedule.data(v)
            node_of = grown.node_of if data is inputs.data else grown.route(data)
            self.f[v] += shrinkage * preds.take(node_of)

    def finish(self, state) -> None:
        state.support = self.f
