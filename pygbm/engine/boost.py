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

from ._memory import reuse_freed_memory
from .data import TrainingData
from .grow import grow_tree
from .tree import Tree


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


@dataclass
class BoostProblem:
    """The fixed inputs of a fit (R's gbm.fit arguments after checking)."""

    x: np.ndarray                 # (n, p) coded predictors, training rows first
    y: np.ndarray
    offset: np.ndarray | None
    misc: np.ndarray | None
    w: np.ndarray                 # normalised weights
    n_train: int
    var_type: np.ndarray
    var_monotone: np.ndarray
    distribution: object
    interaction_depth: int
    n_minobsinnode: int
    shrinkage: float
    bag_fraction: float

    def part(self, a, train: bool):
        if a is None:
            return None
        return a[: self.n_train] if train else a[self.n_train:]


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


def run_boosting(problem: BoostProblem, state: BoostState, n_trees: int,
                 rng: np.random.Generator, verbose: bool = False,
                 data: TrainingData | None = None) -> BoostState:
    """Add ``n_trees`` trees to ``state`` (in place) and return it."""
    with reuse_freed_memory():
        return _run(problem, state, n_trees, rng, verbose, data)


def _run(problem, state, n_trees, rng, verbose, data):
    P = problem
    dist = P.distribution
    n_train = P.n_train
    if data is None:
        data = TrainingData(P.x[:n_train], P.var_type, P.var_monotone)
    y_tr, y_va = P.part(P.y, True), P.part(P.y, False)
    o_tr, o_va = P.part(P.offset, True), P.part(P.offset, False)
    m_tr, m_va = P.part(P.misc, True), P.part(P.misc, False)
    w_tr, w_va = P.w[:n_train], P.w[n_train:]
    x_va = P.x[n_train:]
    n_valid = x_va.shape[0]
    f = state.f
    f_tr = f[:n_train]            # views: updated in place
    f_va = f[n_train:]
    unit = bool(np.all(w_tr == 1.0))
    n_bag = bag_size(n_train, P.bag_fraction)
    all_rows = np.ones(n_train, dtype=bool)
    if verbose:
        print("Iter   TrainDeviance   ValidDeviance   StepSize   Improve")
    start = len(state.trees)
    for it in range(n_trees):
        inbag = draw_bag(rng, n_train, n_bag)
        bag = all_rows if inbag is None else inbag
        z = dist.negative_gradient(y_tr, f_tr, o_tr, w_tr, m_tr, bag)
        grown = grow_tree(data, z, w_tr, bag, P.interaction_depth, P.n_minobsinnode,
                          unit, data.bag_order(inbag))
        values = dist.fit_leaves(y_tr, f_tr, o_tr, w_tr, m_tr, z, grown.node_of,
                                 grown.n_terminal, bag, grown.terminal_counts(),
                                 grown.terminal_preds(), P.n_minobsinnode)
        grown.set_terminal_preds(values)
        grown.adjust(P.n_minobsinnode)
        fadj = grown.terminal_preds()[grown.node_of]
        oob = dist.bag_improvement(y_tr, f_tr, o_tr, w_tr, m_tr, fadj, bag, P.shrinkage)
        f_tr += P.shrinkage * fadj
        train_err = dist.deviance(y_tr, f_tr, o_tr, w_tr, m_tr)
        tree: Tree = grown.to_r_tree(P.shrinkage, P.var_type, state.c_splits)
        if n_valid:
            f_va += tree.predict(x_va, P.var_type, state.c_splits)
            valid_err = dist.deviance(y_va, f_va, o_va, w_va, m_va)
        else:
            valid_err = np.nan
        state.trees.append(tree)
        state.train_error.append(float(train_err))
        state.valid_error.append(float(valid_err))
        state.oobag_improve.append(float(oob))
        k = start + it + 1
        if verbose and (it < 10 or k % 20 == 0 or it == n_trees - 1):
            print(f"{k:6d} {train_err:13.4f} {valid_err:15.4f} {P.shrinkage:10.4f} {oob:9.4f}")
    return state
