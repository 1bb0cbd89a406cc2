"""The boosting loop: R gbm's ``gbm_fit`` iteration, vectorised.

Per iteration: draw the bag, compute the working response (negative
gradient), grow a tree on it, let the distribution estimate the terminal
values, smooth the missing children (R's Adjust), record the out-of-bag
improvement, update the training predictions and deviance, and update the
validation predictions and deviance.

Its seams: the row sampler (``BoostProblem.sampler``, :mod:`.sampling`:
each tree's rows and weights), the boosting scheme (``run_boosting(...,
scheme=)``, :mod:`.schemes`: what each iteration's trees are grown and
fitted on) and per-row state carried across trees (``BoostState.rows``, a
:class:`RowState`). The distribution is reached only through its methods,
with the fit's :class:`~pygbm.distributions.inputs.FitContext`; each tree's
arithmetic (working response, terminal values, out-of-bag improvement,
deviances) through ``losses``: the distribution, or on the compiled engine its
kernels (:mod:`.compiled.loss_methods`), the same numbers in one pass each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..distributions._common import node_ratio
from ..distributions.base import Distribution
from ..distributions.inputs import FitContext, Leaves, Targets
from ._memory import reuse_freed_memory
from .adjustment import GainAdjustment
from .factory import TreeStage, training_data
from .grow import GrownTree
from .report import IterationReport
from .sampling import RowSampler, default_sampler
from .schemes import BoostingScheme, PlainBoosting, TreeInputs
from .tree import ColumnView, Tree
from .tree_list import TreeList


class RowState(Protocol):
    """Per-row state carried across trees by the boosting state (e.g. the
    predictors each row's path has used so far, what cost-efficient boosting
    charges for; its split-gain adjustment reads the same object while a
    tree grows); ``gbm_more`` continues it with the state."""

    def tree_added(self, grown: GrownTree, bag: np.ndarray) -> None:
        """A tree was added: ``grown.node_of`` is each training row's terminal
        node, ``bag`` the tree's in-bag rows (boolean mask)."""


@dataclass
class BoostState:
    """Everything the loop produces; ``gbm_more`` continues from it."""

    init_f: float
    f: np.ndarray                 # link values of all rows (train then valid), no offset
    train_error: list = field(default_factory=list)
    valid_error: list = field(default_factory=list)
    oobag_improve: list = field(default_factory=list)
    trees: TreeList = field(default_factory=TreeList)
    c_splits: list = field(default_factory=list)
    #: ordered target statistics (CatBoost's Plain mode): the training rows'
    #: link values of each structure permutation's supporting model,
    #: (n_views, n_train); None without permutations (see
    #: pygbm.target_stats.scheme.SupportingModels); ordered boosting's
    #: supporting models (pygbm.ordered.scheme.OrderedModels)
    support: object | None = None
    #: per-row state told of every tree (None: none kept)
    rows: RowState | None = None


@dataclass
class BoostProblem:
    """The fixed inputs of a fit (R's gbm.fit arguments after checking)."""

    x: np.ndarray                 # (n, p) coded predictors, training rows first
    targets: Targets              # of all rows (normalised weights), training rows first
    n_train: int
    var_type: np.ndarray
    var_monotone: np.ndarray
    distribution: Distribution
    context: FitContext           # what the fit knows beyond the distribution's parameters
    interaction_depth: int
    n_minobsinnode: int
    shrinkage: float
    bag_fraction: float
    max_bins: int | None = None   # None: R's exact search; else binned predictors
    #: an optional split-gain adjustment given to every tree's search
    #: (engine/adjustment.py); None: R's gains
    gain_adjustment: GainAdjustment | None = None
    #: draws each tree's rows and weights (None: R's bag, see sampling.default_sampler)
    sampler: RowSampler | None = None
    #: "numba" (compiled tree stage, :mod:`.compiled`) or "numpy": the same trees
    engine: str = "numpy"

    def training_data(self):
        """The engine's view of the training rows (:func:`.factory.training_data`)."""
        return training_data(self.x[: self.n_train], self.var_type, self.var_monotone,
                             self.max_bins, self.engine)

    def train_targets(self) -> Targets:
        return self.targets.rows(slice(None, self.n_train))

    def valid_targets(self) -> Targets:
        return self.targets.rows(slice(self.n_train, None))


def run_boosting(problem: BoostProblem, state: BoostState, n_trees: int,
                 rng: np.random.Generator, verbose: bool = False,
                 scheme: BoostingScheme | None = None, progress=None) -> BoostState:
    """Add ``n_trees`` iterations to ``state`` (in place) and return it.

    ``progress``: a hook told of every finished iteration (``update(1)``; a
    :mod:`pygbm.progress` bar), or None.

    ``scheme`` says what each iteration's trees are grown and fitted on
    (:mod:`.schemes`; None: R's, :class:`.schemes.PlainBoosting` on
    ``problem.training_data()``). The validation rows always use
    ``problem.x``.
    """
    if scheme is None:
        scheme = PlainBoosting(problem.training_data())
    report = IterationReport(verbose, progress, problem.shrinkage, n_trees)
    losses = problem.distribution
    with reuse_freed_memory():
        if problem.engine == "numba":
            # numba is imported with the compiled loop, on a fit's first use
            from .compiled.boosting import compiled_loop, loss_methods

            loop = compiled_loop(problem, state, scheme)
            if loop is not None:
                return loop.run(state, n_trees, rng, report)
            losses = loss_methods(problem)
        return _run(problem, losses, state, n_trees, rng, report, scheme)


@dataclass(frozen=True, eq=False)
class _TreeRows:
    """One iteration's rows: the targets with the bag's weights, the in-bag
    mask, and whether those weights are all 1 (the integer fast path)."""

    t: Targets
    bag: np.ndarray
    unit: bool


def _leaf_inputs(P, losses, grown, leaf_data, rows, f_tr, cls):
    """Where the training rows fall when ``leaf_data`` routes them, with the
    working response at ``f_tr``, in-bag counts and mean working response
    per terminal node."""
    t, bag = rows.t, rows.bag
    node_of = grown.route(leaf_data)
    z = losses.negative_gradient(t, f_tr, bag, P.context, **cls)
    n_t = grown.n_terminal
    counts = np.bincount(node_of.compress(bag), minlength=n_t)
    mean_z = node_ratio(t.w * z, t.w, node_of, n_t, bag)
    return Leaves(node_of, n_t, counts, mean_z, P.n_minobsinnode), z


def _one_tree(P: BoostProblem, losses, stage: TreeStage, inputs: TreeInputs,
              rows: _TreeRows, f_tr, state, k):
    """Grow and fit one tree on class ``k`` (None: single output); returns the
    tree, the grown tree, its training step ``fadj`` and its out-of-bag
    improvement (None for a class tree: a multi-output distribution's is the
    iteration's, of its K steps together).

    The tree is grown on ``inputs.data`` from the gradient at
    ``inputs.f_grow``; its terminal values are fitted against ``f_tr`` on the
    rows as ``inputs.leaf_data`` routes them (None: as grown). ``fadj`` is
    that routing's step.
    """
    cls = {} if k is None else {"k": k}
    ctx, t, bag = P.context, rows.t, rows.bag
    z = losses.negative_gradient(t, inputs.f_grow, bag, ctx, **cls)
    gz, gw = losses.growth_response(t, inputs.f_grow, z, ctx, **cls)
    gunit = rows.unit and gw is t.w
    grower = stage.grower(inputs.data) if inputs.grower is None else inputs.grower
    grown = grower.grow(gz, gw, bag, gunit)
    if inputs.leaf_data is None:
        leaves = Leaves(grown.node_of, grown.n_terminal, grown.terminal_counts(),
                        grown.terminal_preds(), P.n_minobsinnode)
    else:
        leaves, z = _leaf_inputs(P, losses, grown, inputs.leaf_data, rows, f_tr, cls)
    values = losses.fit_leaves(t, f_tr, z, leaves, bag, ctx, **cls)
    if inputs.leaf_data is not None:
        # routed by another encoding, a leaf can receive fewer in-bag rows than
        # n_minobsinnode, or none: it takes no step (R's rules would estimate it
        # from those rows, poisson's log(0) = -19 where their counts are all 0)
        values = np.where(leaves.counts >= P.n_minobsinnode, values, 0.0)
    grown.set_terminal_preds(values)
    grown.adjust(P.n_minobsinnode)
    fadj = grown.terminal_preds()[leaves.node]
    oob = None if k is not None else losses.bag_improvement(t, f_tr, fadj, bag, P.shrinkage, ctx)
    tree: Tree = grown.to_r_tree(P.shrinkage, P.var_type, state.c_splits)
    return tree, grown, fadj, oob


def _run(P: BoostProblem, losses, state: BoostState, n_trees, rng, report: IterationReport,
         scheme: BoostingScheme):
    dist, ctx, n_train = P.distribution, P.context, P.n_train
    t, t_va = P.train_targets(), P.valid_targets()
    f_tr = state.f[:n_train]            # views: updated in place
    run = scheme.start(state, f_tr)
    x_va = P.x[n_train:]
    n_valid = x_va.shape[0]
    view_va = ColumnView(x_va, P.var_type) if n_valid else None
    stage = TreeStage(P.engine, P.interaction_depth, P.n_minobsinnode, P.gain_adjustment)
    f_va = state.f[n_train:]
    n_out = ctx.n_outputs
    classes = [None] if n_out == 1 else list(range(n_out))
    sampler = P.sampler or default_sampler(t, P.bag_fraction, dist.bag_by_group, rng,
                                           P.engine)
    unit_case_weights = bool(np.all(t.w == 1.0))
    all_rows = np.ones(n_train, dtype=bool)
    report.header()
    start = len(state.trees) // n_out
    for it in range(n_trees):
        inputs = run.tree_inputs(start + it, f_tr)
        if n_out > 1:
            dist.start_iteration(t, f_tr, ctx)
        # one bag per iteration: one per tree as R; a multi-output iteration
        # shares one bag (Friedman's K-class algorithm, as scikit-learn and LightGBM)
        drawn = sampler.draw(rng, t)
        bag = all_rows if drawn.inbag is None else drawn.inbag
        rows = _TreeRows(t, bag, unit_case_weights)
        if drawn.weights is not None:      # the integer fast path is decided per tree
            t_tree = t.with_weights(t.w * drawn.weights)
            rows = _TreeRows(t_tree, bag, bool(np.all(t_tree.w == 1.0)))
        steps = None if n_out == 1 else np.empty_like(f_tr)
        for k in classes:
            tree, grown, fadj, oob = _one_tree(P, losses, stage, inputs, rows, f_tr, state, k)
            if k is not None:
                steps[:, k] = fadj
            run.tree_added(grown, inputs, P.shrinkage)
            if state.rows is not None:
                state.rows.tree_added(grown, bag)
            if k is None:
                f_tr += P.shrinkage * fadj
            else:
                f_tr[:, k] += P.shrinkage * fadj
            if n_valid:
                step = stage.step(tree, view_va, state.c_splits)
                if k is None:
                    f_va += step
                else:
                    f_va[:, k] += step
            state.trees.append(tree)
        if steps is not None:       # the iteration's probabilities are still the cached ones
            oob = losses.bag_improvement(rows.t, f_tr, steps, bag, P.shrinkage, ctx)
        train_err = losses.deviance(t, f_tr, ctx)
        valid_err = losses.deviance(t_va, f_va, ctx) if n_valid else np.nan
        state.train_error.append(float(train_err))
        state.valid_error.append(float(valid_err))
        state.oobag_improve.append(float(oob))
        report.iteration(it, start + it + 1, train_err, valid_err, oob)
        report.advance(1)
    run.finish(state)
    return state
