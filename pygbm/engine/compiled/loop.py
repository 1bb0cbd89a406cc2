"""R's boosting loop, compiled: many iterations in one call, no Python between trees.

On small data the NumPy engine's cost is its number of calls: a few hundred
rows cost the same per tree as a few thousand, about a millisecond of
bookkeeping (bag, working response, leaf values, errors, R's tree vectors)
around the tree; on large data its whole-array passes over the rows (a
dozen per tree) cost more than the compiled loop's few fused ones.
:func:`boost_exact` runs ``T`` iterations of
:func:`pygbm.engine.boost.run_boosting`'s loop for one output on R's exact
(presorted) search, :func:`boost_binned` on binned data: per iteration the
bag (R's selection rule on the iteration's uniforms), the working response,
the tree (:func:`.exact_tree.grow_exact`, :func:`.binned_tree.grow_binned`; on
the Newton response with Newton splits, :func:`.losses.newton_growth`),
the terminal values, R's Adjust, the out-of-bag improvement, R's eight
vectors, the training and validation updates and errors, every number as
the NumPy loop computes it (:mod:`.losses`; bernoulli's, poisson's and
adaboost's exponential terms of the training rows carried from one iteration
to the next, :mod:`.link_terms`).

The inputs are grouped in named tuples (numba reads their fields): the
distribution (:class:`Loss`), the training rows' targets and the validation
rows' (:class:`.losses.LossRows`, :class:`ValidRows`), the presorted data
(:class:`.exact_tree.ExactData`) or binned layout
(:class:`.binned_layout.BinnedLayout`) and the fit's settings
(:class:`Growth`); the trees come back in a :class:`Forest` of fixed-width
node tables, one row per iteration. A fit with CEGB's costs passes them in
``cegb`` = (penalty tuple of :mod:`.cegb_penalties`, the rows' evaluated
splits, (T, depth, 3) for each tree's splits; None without costs, so that
numba prunes the branch and a fit without costs does not compile it): the trees are grown with the
penalties and every training row marked along its path after its tree, as
the cost tracker does between the NumPy loop's trees. The Python side is
:mod:`.boosting`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .binned_tree import grow_binned, grow_binned_penalised
from .cegb_penalties import tree_read
from .exact_tree import grow_exact, grow_exact_penalised
from .link_terms import leaves, oob_improvement, respond, start_terms, train_deviance
from .losses import deviance, newton_growth
from .tree_arrays import adjust, node_capacity, r_vectors, tree_terminal_nodes


class Loss(NamedTuple):
    """A distribution as the kernels name it (:data:`.losses.KINDS`)."""

    kind: int
    params: np.ndarray
    #: the trees are grown by Newton splits (``splits="newton"``,
    #: :data:`.losses.NEWTON_KINDS`), else on R's working response
    newton: bool


class ValidRows(NamedTuple):
    """The validation rows: predictors by rows and their targets."""

    cols: np.ndarray            # (p, n_valid)
    rows: object                # a losses.LossRows


class Growth(NamedTuple):
    """The fit's settings the loop reads."""

    depth: int                  # interaction_depth
    min_obs: int                # n_minobsinnode
    shrinkage: float
    n_bag: int                  # rows per bag (R's floor(bag_fraction * n_train))
    unit: bool                  # every case weight is 1 (the integer fast path)


class Forest(NamedTuple):
    """``T`` trees (R's eight vectors, padded to the widest tree) and their
    iterations' errors; written by the compiled loops."""

    n_nodes: np.ndarray         # (T,)
    split_var: np.ndarray       # (T, max_nodes), and so on
    code: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing: np.ndarray
    gain: np.ndarray
    weight: np.ndarray
    prediction: np.ndarray
    n_cat: np.ndarray           # (T,) categorical splits per tree
    csplits: np.ndarray         # (T, depth, max(max_levels, 1)) their c_splits rows
    train_error: np.ndarray     # (iterations,): T, or T / K of K-class trees
    valid_error: np.ndarray
    oobag_improve: np.ndarray


def empty_forest(n_trees: int, depth: int, max_levels: int,
                 n_iterations: int | None = None) -> Forest:
    """The output tables of ``n_trees`` trees grown in ``n_iterations``
    iterations (None: one tree each; the multi-class loop grows K)."""
    m = node_capacity(int(depth))
    n_it = n_trees if n_iterations is None else n_iterations
    ints = [np.full((n_trees, m), -1, dtype=np.int64) for _ in range(4)]
    floats = [np.zeros((n_trees, m)) for _ in range(4)]
    return Forest(np.zeros(n_trees, dtype=np.int64), ints[0], floats[0], ints[1], ints[2],
                  ints[3], floats[1], floats[2], floats[3],
                  np.zeros(n_trees, dtype=np.int64),
                  np.zeros((n_trees, max(int(depth), 1), max(int(max_levels), 1)),
                           dtype=np.int64),
                  np.zeros(n_it), np.zeros(n_it), np.zeros(n_it))


@njit(cache=True, error_model="numpy")
def select_bag(u, n_bag, inbag):
    """R's selection rule (pygbm.engine.sampling.selection_sample) into ``inbag``.

    R takes row ``i`` when ``taken <= n_bag - 1 - floor(u[i] * (n - i))``; the
    floor is an exact integer below 2**53, so that is the integer test
    ``floor(...) + taken <= n_bag - 1``, decided without a branch (the draws
    are random) and without converting the running count to a double (a
    chain of dependent conversions row after row)."""
    n = u.shape[0]
    last = n_bag - 1
    taken = 0
    for i in range(n):
        if taken == n_bag:
            inbag[i:] = False
            return
        if n - i == n_bag - taken:
            inbag[i:] = True
            return
        take = np.int64(math.floor(u[i] * float(n - i))) + taken <= last
        inbag[i] = take
        taken += take


@njit(cache=True, error_model="numpy", nogil=True)
def boost_exact(loss, train, data, space, valid, growth, uniforms, f_tr, f_va, n_csplits,
                out, cegb):
    """Run ``out``'s ``T`` iterations (see the module docstring) from the
    training and validation link values ``f_tr`` and ``f_va`` (updated in
    place), growing in the scratch arrays ``space``
    (:func:`.exact_tree.growth_space`); ``uniforms`` (T, n_train) the bags'
    uniforms ((0, n_train): every row in every bag), ``n_csplits`` the
    model's categorical splits so far, ``cegb`` the costs (see the module
    docstring; None: none). Returns the number of categorical splits
    after them."""
    work = work_arrays(f_tr)
    z, wz, inbag, fadj, gw = work
    w, unit = (gw, False) if loss.newton else (train.w, growth.unit)
    links = (f_tr, f_va)
    carried = start_terms(loss.kind, train, f_tr)
    for t in range(out.n_nodes.shape[0]):
        _respond(loss, train, growth, uniforms, t, f_tr, carried, work)
        if cegb is not None:     # (no costs: the branch is not even compiled)
            grown, node_pen = grow_exact_penalised(data, space, wz, w, inbag, unit,
                                                   growth.min_obs, growth.depth, cegb[0])
            tree_read(cegb, grown, node_pen, t)
        else:
            grown = grow_exact(data, space, wz, w, inbag, unit, growth.min_obs, growth.depth)
        # the iteration after its tree (here, not in a helper taking the loop's
        # tuples: a compiled call costs reference counting per array it is given,
        # per tree; the helpers get the arrays they read)
        counts, grow_pred = leaf_inputs(grown.pred, grown.node_n, grown.terminals)
        values = np.empty(counts.shape[0])
        leaves(loss.kind, loss.params, train, f_tr, z, grown.node_of, counts.shape[0], counts,
               grow_pred, inbag, growth.min_obs, carried, values)
        set_leaves(grown, values, growth.min_obs, fadj)
        out.oobag_improve[t] = oob_improvement(loss.kind, loss.params, train, f_tr, fadj,
                                               inbag, growth.shrinkage, carried)
        tree = record_tree(grown, data.var_type, growth.shrinkage, n_csplits, out, t)
        update_links(tree, data.var_type, valid.cols, n_csplits, growth.shrinkage, fadj,
                     links)
        out.train_error[t] = train_deviance(loss.kind, loss.params, train, f_tr, carried)
        out.valid_error[t] = (deviance(loss.kind, loss.params, valid.rows, f_va)
                              if f_va.shape[0] else np.nan)
        n_csplits += out.n_cat[t]
    return n_csplits


@njit(cache=True, error_model="numpy", nogil=True)
def boost_binned(loss, train, layout, space, valid, growth, uniforms, f_tr, f_va, n_csplits,
                 out, cegb):
    """:func:`boost_exact` on binned data: the trees grown by
    :func:`.binned_tree.grow_binned` on ``layout`` (a
    :class:`.binned_layout.BinnedLayout`) in its scratch arrays ``space``
    (:func:`.binned_tree.binned_space`).

    The loop is :func:`boost_exact`'s written again around the other grower: one
    loop taking the grower as an argument is compiled, but numba cannot cache it
    (its cache is keyed on argument types, and a function's type does not pickle),
    and a loop compiled afresh in every process costs half a minute."""
    work = work_arrays(f_tr)
    z, wz, inbag, fadj, gw = work
    w, unit = (gw, False) if loss.newton else (train.w, growth.unit)
    links = (f_tr, f_va)
    carried = start_terms(loss.kind, train, f_tr)
    for t in range(out.n_nodes.shape[0]):
        _respond(loss, train, growth, uniforms, t, f_tr, carried, work)
        if cegb is not None:     # (no costs: the branch is not even compiled)
            grown, node_pen = grow_binned_penalised(layout, space, wz, w, inbag, unit,
                                                    growth.min_obs, growth.depth, cegb[0])
            tree_read(cegb, grown, node_pen, t)
        else:
            grown = grow_binned(layout, space, wz, w, inbag, unit, growth.min_obs,
                                growth.depth)
        counts, grow_pred = leaf_inputs(grown.pred, grown.node_n, grown.terminals)
        values = np.empty(counts.shape[0])
        leaves(loss.kind, loss.params, train, f_tr, z, grown.node_of, counts.shape[0], counts,
               grow_pred, inbag, growth.min_obs, carried, values)
        set_leaves(grown, values, growth.min_obs, fadj)
        out.oobag_improve[t] = oob_improvement(loss.kind, loss.params, train, f_tr, fadj,
                                               inbag, growth.shrinkage, carried)
        tree = record_tree(grown, layout.var_type, growth.shrinkage, n_csplits, out, t)
        update_links(tree, layout.var_type, valid.cols, n_csplits, growth.shrinkage, fadj,
                     links)
        out.train_error[t] = train_deviance(loss.kind, loss.params, train, f_tr, carried)
        out.valid_error[t] = (deviance(loss.kind, loss.params, valid.rows, f_va)
                              if f_va.shape[0] else np.nan)
        n_csplits += out.n_cat[t]
    return n_csplits


@njit(cache=True, error_model="numpy")
def work_arrays(f_tr):
    """The loop's per-row scratch: working response, the grower's weighted
    response, the bag, the step, Newton splits' growth weights."""
    n = f_tr.shape[0]
    return np.empty(n), np.empty(n), np.ones(n, dtype=np.bool_), np.empty(n), np.empty(n)


@njit(cache=True, error_model="numpy")
def _respond(loss, train, growth, uniforms, t, f_tr, carried, work):
    """Iteration ``t``'s bag (every row without uniforms) and working response
    (z and the grower's w*z into ``work``; with Newton splits their weights too;
    ``carried`` the rows' terms of :mod:`.link_terms`)."""
    z, wz, inbag, _, gw = work
    if uniforms.shape[0]:
        select_bag(uniforms[t], growth.n_bag, inbag)
    respond(loss.kind, loss.params, train, f_tr, carried, inbag, z)
    if loss.newton:
        newton_growth(loss.kind, train, f_tr, z, gw, wz)
        return
    w = train.w
    for i in range(z.shape[0]):
        wz[i] = w[i] * z[i]


@njit(cache=True, error_model="numpy")
def leaf_inputs(pred, node_n, terms):
    """The in-bag rows and the grower's prediction of every terminal node
    (``terms``) of a grown tree (its node arrays ``pred`` and ``node_n``)."""
    n_term = terms.shape[0]
    counts = np.empty(n_term, dtype=np.int64)
    grow_pred = np.empty(n_term)
    for k in range(n_term):
        counts[k] = node_n[terms[k]]
        grow_pred[k] = pred[terms[k]]
    return counts, grow_pred


# ----------------------------------------------------------------- steps shared with
# the ranking loop (.ranking_loop)


@njit(cache=True, error_model="numpy")
def set_leaves(grown, values, min_obs, fadj):
    """The terminal ``values`` into the tree, R's Adjust, and each training
    row's step ``fadj``."""
    pred, terms, node_of = grown.pred, grown.terminals, grown.node_of
    for k in range(terms.shape[0]):
        pred[terms[k]] = values[k]
    adjust(pred, grown.node_w, grown.node_n, grown.node_var, grown.node_kids, min_obs)
    for i in range(fadj.shape[0]):
        fadj[i] = pred[terms[node_of[i]]]


@njit(cache=True, error_model="numpy")
def record_tree(grown, var_type, shrinkage, n_csplits, out, t):
    """Tree ``t``'s R vectors and categorical splits into ``out``; returns
    its vectors (split_var, code, kids) and its c_splits table."""
    # (its rows copied element by element: a row view costs reference counting)
    split_var, code, kids, gain, weight, prediction, csplits = r_vectors(
        grown.pred, grown.node_w, grown.node_var, grown.node_value, grown.node_gain,
        grown.node_kids, grown.node_nlev, grown.node_levels, var_type, shrinkage, n_csplits)
    m = split_var.shape[0]
    out.n_nodes[t] = m
    for q in range(m):
        out.split_var[t, q] = split_var[q]
        out.code[t, q] = code[q]
        out.left[t, q] = kids[0, q]
        out.right[t, q] = kids[1, q]
        out.missing[t, q] = kids[2, q]
        out.gain[t, q] = gain[q]
        out.weight[t, q] = weight[q]
        out.prediction[t, q] = prediction[q]
    n_cat = csplits.shape[0]
    out.n_cat[t] = n_cat
    if n_cat:
        out.csplits[t, :n_cat, :csplits.shape[1]] = csplits
    return split_var, code, kids, csplits


@njit(cache=True, error_model="numpy")
def update_links(tree, var_type, valid_cols, n_csplits, shrinkage, fadj, links):
    """The training link values plus ``shrinkage * fadj`` and the validation
    rows' plus the tree's predictions (``record_tree``'s vectors); ``links``
    = (f_tr, f_va), in place."""
    f_tr, f_va = links
    for i in range(f_tr.shape[0]):
        f_tr[i] += shrinkage * fadj[i]
    if f_va.shape[0] == 0:
        return
    split_var, code, kids, csplits = tree
    m = split_var.shape[0]
    cat_row_of = np.zeros(m, dtype=np.int64)
    for q in range(m):
        if split_var[q] >= 0 and var_type[split_var[q]] > 0:
            cat_row_of[q] = int(code[q]) - n_csplits
    table = csplits if csplits.shape[0] else np.zeros((1, 1), dtype=np.int64)
    nodes = tree_terminal_nodes(split_var, code, kids[0], kids[1], kids[2],
                                valid_cols, var_type, table, cat_row_of)
    for i in range(f_va.shape[0]):
        f_va[i] += code[nodes[i]]
