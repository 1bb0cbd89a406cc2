"""The boosting loop: R gbm's ``gbm_fit`` iteration, vectorised.

Per iteration: draw the bag, compute the working response (negative
gradient), grow a tree on it, let the distribution estimate the terminal
values, smooth the missing children (R's Adjust), record the out-of-bag
improvement, update the training predictions and deviance, and update the
validation predictions and deviance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..distributions._common import node_ratio
from ..distributions.base import Distribution
from ..distributions.inputs import FitContext, Leaves, Targets
from ._memory import reuse_freed_memory
from .binned import BinnedTrainingData
from .data import TrainingData
from .grow import grow_tree, route
from .tree import ColumnView, Tree


@dataclass
class BoostState:
    """Everything the loop produces; ``gbm_more`` continues from it."""

    init_f: float
    f: np.ndarray                 # link values of all rows (train then valid), no offset
    train_error: list = field(default_factory=list)
    valid_error: list = field(default_factory=list)
    oobag_improve: list = field(default_factory=list)
    trees: list = field(default_factory=list)
    c_splits: list = field(default_factory=list)
    #: ordered target statistics (CatBoost's Plain mode): the training rows'
    #: link values of each structure permutation's supporting model,
    #: (n_views, n_train); None without permutations (see SupportingModels)
    support: np.ndarray | None = None


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

    def training_data(self):
        """The engine's view of the training rows (see :func:`training_data`)."""
        return training_data(self.x[: self.n_train], self.var_type, self.var_monotone,
                             self.max_bins)

    def train_targets(self) -> Targets:
        return self.targets.rows(slice(None, self.n_train))

    def valid_targets(self) -> Targets:
        return self.targets.rows(slice(self.n_train, None))


#: exact mode: the histogram search (one bucket per value) takes over when no
#: continuous predictor has more distinct values than FEW_VALUES or than
#: 1/ROWS_PER_VALUE of the training rows: measured, one bucket per value is
#: faster than the presorted scan up to about n/5 values (Friedman data,
#: 10k and 100k rows), slower beyond
FEW_VALUES, ROWS_PER_VALUE = 255, 8
#: the histogram search's bucket codes are 16-bit
MAX_VALUES = 65535
#: rows looked at first when counting distinct values (most continuous data
#: already shows too many in them)
_PEEK_ROWS = 4096


def training_data(x_train, var_type, var_monotone, max_bins=None):
    """The engine's view of the training rows (exact or binned).

    In the exact mode, data whose continuous predictors all have few
    distinct values (see :func:`few_values_limit`) go to the histogram
    search with one bucket per value: the same splits as R's scan (with
    R's sums and tie-breaking, see engine/binned.py), found faster.
    """
    if max_bins is None:
        limit = few_values_limit(x_train.shape[0])
        if not _few_values(x_train, var_type, limit):
            return TrainingData(x_train, var_type, var_monotone)
        # at most ``limit`` values per predictor: one bucket each (exact_bins)
        return BinnedTrainingData(x_train, var_type, var_monotone, limit)
    return BinnedTrainingData(x_train, var_type, var_monotone, max_bins)


def few_values_limit(n_train: int) -> int:
    """Most distinct values per continuous predictor for the histogram search."""
    return min(max(FEW_VALUES, n_train // ROWS_PER_VALUE), MAX_VALUES)


def _few_values(x: np.ndarray, var_type: np.ndarray, limit: int) -> bool:
    """Whether every continuous column of ``x`` has at most ``limit`` distinct values."""
    cont = np.flatnonzero(np.asarray(var_type) == 0)
    for peek in (True, False):
        for j in cont:
            col = x[:_PEEK_ROWS, j] if peek else x[:, j]
            col = col[~np.isnan(col)]
            if np.unique(col).size > limit:
                return False
    return True


def bag_size(n_train: int, bag_fraction: float) -> int:
    """R's ``(unsigned long)(bag.fraction * nTrain)``."""
    return int(np.floor(bag_fraction * n_train))


def draw_bag(rng: np.random.Generator, n_train: int, n_bag: int) -> np.ndarray | None:
    """A bag of ``n_bag`` training rows drawn without replacement (None = all)."""
    if n_bag >= n_train:
        return None
    inbag = np.zeros(n_train, dtype=bool)
    inbag[rng.choice(n_train, size=n_bag, replace=False)] = True
    return inbag


def draw_group_bag(rng: np.random.Generator, groups: np.ndarray,
                   bag_fraction: float) -> np.ndarray | None:
    """Whole groups in the bag (ranking): ``floor(bag_fraction * n_groups)``
    groups, at least one, as R bags pairwise data."""
    codes, inverse = np.unique(groups, return_inverse=True)
    n_bag = max(1, int(np.floor(bag_fraction * codes.size)))
    if n_bag >= codes.size:
        return None
    chosen = np.zeros(codes.size, dtype=bool)
    chosen[rng.choice(codes.size, size=n_bag, replace=False)] = True
    return chosen[inverse]


def run_boosting(problem: BoostProblem, state: BoostState, n_trees: int,
                 rng: np.random.Generator, verbose: bool = False,
                 data: TrainingData | None = None, schedule=None) -> BoostState:
    """Add ``n_trees`` iterations to ``state`` (in place) and return it.

    ``schedule``, when given, re-encodes the training rows per iteration
    (ordered target statistics): see :class:`SupportingModels` for what it
    provides. The validation rows always use ``problem.x``.
    """
    with reuse_freed_memory():
        return _run(problem, state, n_trees, rng, verbose, data, schedule)


class SupportingModels:
    """CatBoost's Plain boosting mode with ordered target statistics
    (Prokhorenkova et al. 2018, section 5, "Building a tree" and "Choosing
    leaf values").

    The schedule encodes the training rows under ``n_views`` structure
    permutations and one leaf permutation (``view_of(iteration)``,
    ``data(view)``, ``leaf_data()``). Each structure permutation has its own
    supporting model of the training rows (``f``, one row per view): an
    iteration grows its tree on one permutation's encoding, from the gradient
    of that permutation's model, so that the residuals agree with the
    statistics the tree sees. The leaf values are then estimated on the rows
    as the leaf permutation's encoding routes them, against the fit's own
    training predictions (the model of the leaf permutation), and the tree
    is added to every supporting model, each routing the rows by its own
    encoding.
    """

    def __init__(self, schedule, f_tr: np.ndarray, support: np.ndarray | None):
        if f_tr.ndim != 1:
            raise ValueError("target statistics support single-output distributions only")
        self.schedule = schedule
        self.f = (np.tile(f_tr, (schedule.n_views, 1)) if support is None
                  else np.array(support, dtype=float))
        self.leaf_data = schedule.leaf_data()

    def add(self, grown, view: int, shrinkage: float) -> None:
        """Add the fitted tree to every model; ``view`` is the permutation it
        was grown on (whose routing the tree already has)."""
        preds = grown.terminal_preds()
        for v in range(self.f.shape[0]):
            node_of = grown.node_of if v == view else route(grown, self.schedule.data(v))
            self.f[v] += shrinkage * preds.take(node_of)


def _leaf_inputs(grown, leaf_data, dist, t, f_tr, bag, ctx, min_obs, cls):
    """Where the training rows fall when ``leaf_data`` routes them, with the
    working response at ``f_tr``, in-bag counts and mean working response
    per terminal node."""
    node_of = route(grown, leaf_data)
    z = dist.negative_gradient(t, f_tr, bag, ctx, **cls)
    n_t = grown.n_terminal
    counts = np.bincount(node_of.compress(bag), minlength=n_t)
    mean_z = node_ratio(t.w * z, t.w, node_of, n_t, bag)
    return Leaves(node_of, n_t, counts, mean_z, min_obs), z


def _one_tree(P, dist, data, t, f_tr, bag, unit, state, k, f_grow=None, leaf_data=None):
    """Grow and fit one tree on class ``k`` (None: single output); returns the
    tree, the grown tree, its training step ``fadj`` and its out-of-bag
    improvement.

    The tree is grown from the gradient at ``f_grow`` (default ``f_tr``); its
    terminal values are fitted against ``f_tr`` on the rows as ``leaf_data``
    routes them (default: as grown). ``fadj`` is that routing's step.
    """
    cls = {} if k is None else {"k": k}
    ctx = P.context
    f_grow = f_tr if f_grow is None else f_grow
    z = dist.negative_gradient(t, f_grow, bag, ctx, **cls)
    gz, gw = dist.growth_response(t, f_grow, z, ctx, **cls)
    gunit = unit and gw is t.w
    searcher = data.searcher(gz, gw, gunit, P.n_minobsinnode)
    grown = grow_tree(data, searcher, gz, gw, bag, P.interaction_depth, gunit)
    if leaf_data is None:
        leaves = Leaves(grown.node_of, grown.n_terminal, grown.terminal_counts(),
                        grown.terminal_preds(), P.n_minobsinnode)
    else:
        leaves, z = _leaf_inputs(grown, leaf_data, dist, t, f_tr, bag, ctx, P.n_minobsinnode,
                                 cls)
    values = dist.fit_leaves(t, f_tr, z, leaves, bag, ctx, **cls)
    grown.set_terminal_preds(values)
    grown.adjust(P.n_minobsinnode)
    fadj = grown.terminal_preds()[leaves.node]
    oob = dist.bag_improvement(t, f_tr, fadj, bag, P.shrinkage, ctx, **cls)
    tree: Tree = grown.to_r_tree(P.shrinkage, P.var_type, state.c_splits)
    return tree, grown, fadj, oob


def _run(P, state, n_trees, rng, verbose, data, schedule):
    dist = P.distribution
    n_train = P.n_train
    if data is None and schedule is None:
        data = P.training_data()
    t, t_va, ctx = P.train_targets(), P.valid_targets(), P.context
    f_tr = state.f[:n_train]            # views: updated in place
    support = None if schedule is None else SupportingModels(schedule, f_tr, state.support)
    x_va = P.x[n_train:]
    n_valid = x_va.shape[0]
    view_va = ColumnView(x_va, P.var_type) if n_valid else None
    f_va = state.f[n_train:]
    n_out = ctx.n_outputs
    classes = [None] if n_out == 1 else list(range(n_out))
    unit = bool(np.all(t.w == 1.0))
    n_bag = bag_size(n_train, P.bag_fraction)
    by_group = dist.bag_by_group
    all_rows = np.ones(n_train, dtype=bool)
    if verbose:
        print("Iter   TrainDeviance   ValidDeviance   StepSize   Improve")
    start = len(state.trees) // n_out
    for it in range(n_trees):
        view, f_grow, leaf_data = None, None, None
        if support is not None:
            view = schedule.view_of(start + it)
            data, f_grow, leaf_data = schedule.data(view), support.f[view], support.leaf_data
        if n_out > 1:
            dist.start_iteration(t, f_tr, ctx)
        oob = 0.0
        for k in classes:
            # one bag per tree as R; a multi-output iteration shares one bag
            # (Friedman's K-class algorithm, as scikit-learn and LightGBM)
            if k is None or k == 0:
                inbag = (draw_group_bag(rng, t.misc, P.bag_fraction) if by_group
                         else draw_bag(rng, n_train, n_bag))
            bag = all_rows if inbag is None else inbag
            tree, grown, fadj, tree_oob = _one_tree(P, dist, data, t, f_tr, bag, unit,
                                                    state, k, f_grow, leaf_data)
            oob += tree_oob
            if support is not None:
                support.add(grown, view, P.shrinkage)
            if k is None:
                f_tr += P.shrinkage * fadj
            else:
                f_tr[:, k] += P.shrinkage * fadj
            if n_valid:
                step = tree.predict_view(view_va, state.c_splits)
                if k is None:
                    f_va += step
                else:
                    f_va[:, k] += step
            state.trees.append(tree)
        train_err = dist.deviance(t, f_tr, ctx)
        valid_err = dist.deviance(t_va, f_va, ctx) if n_valid else np.nan
        state.train_error.append(float(train_err))
        state.valid_error.append(float(valid_err))
        state.oobag_improve.append(float(oob))
        n_done = start + it + 1
        if verbose and (it < 10 or n_done % 20 == 0 or it == n_trees - 1):
            print(f"{n_done:6d} {train_err:13.4f} {valid_err:15.4f} {P.shrinkage:10.4f} "
                  f"{oob:9.4f}")
    if support is not None:
        state.support = support.f
    return state
