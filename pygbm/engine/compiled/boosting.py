"""The compiled boosting loop's Python side: which fits it runs, and their trees
back into the fit's state.

:func:`compiled_loop` says whether a ``run_boosting`` call can run in
:func:`.loop.boost_exact` or :func:`.loop.boost_binned`: the compiled
engine, R's plain boosting on presorted data small enough for the compiled
grower or on binned data, one output, one of the package's own distribution
classes (:func:`pygbm.distributions.is_builtin`: a subclass may change its
methods, which the kernels would not see) with compiled kernels
(:data:`.losses.KINDS`; Newton splits, ``splits="newton"``, of
:data:`.losses.NEWTON_KINDS`; pairwise ranking in R's exact mode runs
:mod:`.ranking_boosting`'s loop, the multinomial on presorted data
:mod:`.multiclass_boosting`'s) whose arithmetic is the fit's (the kernels' exp and
log are the C library's, as a new fit's of one output,
:func:`pygbm.fitting.library_math`; a binned fit pickled before that rule
(NumPy's exp and log) and continued by ``gbm_more`` runs here only with the
distributions that call neither, :data:`.losses.NO_EXP_LOG`), R's bag, and
none of the loop's seams in use (a split-gain adjustment, per-row state, a sampler of one's own, another
scheme), which need Python between trees, except CEGB's cost tracker as both
(the adjustment and the row state) where the compiled growers apply it
(:func:`pygbm.engine.factory.compiled_costs`): the loop then
grows with its penalties and marks the rows itself. Otherwise the NumPy loop runs
(with the compiled growers where they apply); both give the same fit bit
for bit.

:class:`CompiledLoop` draws the bags' uniforms of a chunk of iterations
from the fit's stream (the same draws, in the same order, as one bag per
iteration), runs the chunk in one compiled call and keeps its tables as the
state's trees (a :class:`pygbm.engine.tree_list.PaddedTrees` block: no per-tree
objects), categorical splits and errors; R's iteration table and the progress
bar hear of every chunk.

:func:`loss_methods` gives the NumPy loop of the other fits the same kernels for
each tree's arithmetic (:mod:`.loss_methods`).
"""
from __future__ import annotations

import numpy as np

from ...distributions import is_builtin
from ..binned import BinnedTrainingData
from ..factory import compiled_costs, compiled_exact
from ..report import IterationReport
from ..sampling import SelectionBag, default_sampler
from ..schemes import PlainBoosting
from .grower import CompiledBinnedGrower, CompiledGrower
from .losses import NEWTON_KINDS, NO_EXP_LOG, kind_of, loss_params
from .loss_methods import CompiledLossMethods
from .chunks import bag_uniforms, loop_inputs, run_chunks
from .loop import Loss, boost_binned, boost_exact, empty_forest
from .multiclass_boosting import MulticlassLoop, runs_multiclass
from .ranking_boosting import RANKING, RankingLoop


def compiled_loop(problem, state, scheme) -> CompiledLoop | RankingLoop | MulticlassLoop | None:
    """The compiled loop of this ``run_boosting`` call, or None when the fit
    needs the NumPy loop (see the module docstring)."""
    data = scheme.data if isinstance(scheme, PlainBoosting) else None
    costs = problem.gain_adjustment
    if (data is None or problem.engine != "numba"
            or problem.sampler is not None or state.rows is not costs
            or not is_builtin(problem.distribution)):
        return None
    if costs is not None and not compiled_costs(costs, data):
        return None
    if problem.context.n_outputs != 1:
        if (costs is None and runs_multiclass(problem.distribution)
                and problem.context.r_exact_math and compiled_exact(data, None)):
            return MulticlassLoop(problem, data)
        return None
    if problem.distribution.name in RANKING:
        if costs is None and problem.context.r_exact_math and compiled_exact(data, None):
            return RankingLoop(problem, data)
        return None
    kind = compiled_loss(problem)
    if kind is None or not (problem.distribution.gradient_splits or kind in NEWTON_KINDS):
        return None
    if not (compiled_exact(data, None) or isinstance(data, BinnedTrainingData)):
        return None
    return CompiledLoop(problem, data, kind)


def compiled_loss(problem) -> int | None:
    """The kernel code (:data:`.losses.KINDS`) of the fit's distribution when
    the kernels compute its numbers as its methods do: the package's own class,
    one output, rows bagged one by one, exp and log the C library's (or not
    called); else None."""
    dist, ctx = problem.distribution, problem.context
    kind = kind_of(dist)
    if (problem.engine != "numba" or not is_builtin(dist) or ctx.n_outputs != 1
            or kind is None or dist.bag_by_group
            or not (ctx.r_exact_math or kind in NO_EXP_LOG)):
        return None
    return kind


def loss_methods(problem):
    """What the NumPy loop asks each tree's arithmetic of: the compiled
    kernels (:class:`.loss_methods.CompiledLossMethods`) where they compute the
    distribution's numbers, else the distribution itself."""
    kind = compiled_loss(problem)
    return problem.distribution if kind is None else \
        CompiledLossMethods(problem.distribution, kind)


class CompiledLoop:
    """Runs a fit's iterations in compiled chunks (:func:`.loop.boost_exact`
    on presorted data, :func:`.loop.boost_binned` on binned data)."""

    def __init__(self, problem, data, kind: int):
        self.problem = problem
        depth, min_obs = problem.interaction_depth, problem.n_minobsinnode
        if isinstance(data, BinnedTrainingData):
            grower = CompiledBinnedGrower(data, depth, min_obs)
            self.data, self.boost = grower.layout, boost_binned
        else:
            grower = CompiledGrower(data, depth, min_obs)
            self.data, self.boost = grower.inputs, boost_exact
        #: CEGB's cost tracker (None: no costs)
        self.costs = problem.gain_adjustment
        self.var_type = grower.var_type
        self.max_levels = int(self.var_type.max(initial=0))
        self.space = grower.space
        self.train, self.valid, self.growth = loop_inputs(problem)
        self.loss = Loss(kind, loss_params(problem.distribution),
                         not problem.distribution.gradient_splits)

    def run(self, state, n_trees: int, rng, report: IterationReport):
        """Add ``n_trees`` iterations to ``state`` (in place) and return it."""
        P = self.problem
        sampler: SelectionBag = default_sampler(P.train_targets(), P.bag_fraction, False, rng)
        growth = self.growth._replace(n_bag=sampler.n_bag)
        f_tr, f_va = state.f[:P.n_train], state.f[P.n_train:]

        def chunk(count: int):
            out = empty_forest(count, growth.depth, self.max_levels)
            cegb = loop_costs(self.costs, count, growth.depth)
            self.boost(self.loss, self.train, self.data, self.space, self.valid, growth,
                       bag_uniforms(sampler, rng, count, P.n_train), f_tr, f_va,
                       len(state.c_splits), out, cegb)
            if self.costs is not None:
                self.costs.trees_grown(cegb[2], (out.n_nodes - 1) // 3)
            return out

        run_chunks(state, n_trees, P.n_train, self.var_type, report, chunk)
        return state


def loop_costs(costs, count: int, depth: int) -> tuple | None:
    """The loop's ``cegb`` tuple (:mod:`.loop`) for ``count`` iterations: the
    tracker's penalties and state, and room for each tree's splits; None
    without costs (``costs`` None)."""
    if costs is None:
        return None
    return costs.compiled_state(), costs.evaluated, np.zeros((count, max(depth, 1), 3))
