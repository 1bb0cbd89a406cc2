"""The multinomial's boosting loop, compiled: many iterations of K class trees
in one call (:func:`boost_multiclass`), no Python between trees.

Per iteration, as :func:`pygbm.engine.boost.run_boosting`'s loop runs a
multi-output fit: one bag (R's selection rule on the iteration's uniforms),
the iteration's probabilities, then for every class ``k`` in turn its
working response, its tree (:func:`.exact_tree.grow_exact`; on the Newton
response with the multinomial's Newton splits), the Newton
steps, R's Adjust, R's eight vectors and the class's training and
validation link values; after the K trees the iteration's out-of-bag
improvement (its K steps together) and the training and validation
deviances. Every number as the NumPy loop computes
it (:mod:`.multinomial`). The Python side is
:class:`.multiclass_boosting.MulticlassLoop`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .exact_tree import grow_exact
from .loop import work_arrays, record_tree, select_bag, set_leaves, update_links
from .multinomial import (bag_improvement, deviance, leaf_values, newton_response, softmax_into,
                          working_response)


@njit(cache=True, error_model="numpy", nogil=True)
def boost_multiclass(train, data, space, valid, growth, newton, uniforms, f_tr, f_va,
                     n_csplits, out):
    """Run ``out``'s iterations (``out.train_error.shape[0]`` of them, K trees
    each: iteration ``t``'s class ``k`` is tree ``t * K + k``) from the
    training and validation link values ``f_tr`` (K, n_train) and ``f_va``
    (K, n_valid), updated in place; ``newton``: the trees are grown on the
    Newton response (the multinomial's ``splits="newton"``); the rest as
    :func:`.loop.boost_exact`. Returns the number of categorical splits
    after them."""
    K = f_tr.shape[0]
    n_valid = f_va.shape[1]
    z, wz, inbag, fadj, _ = work_arrays(f_tr[0])
    gw = train.w.copy() if newton else train.w
    unit = growth.unit and not newton
    p = np.empty_like(f_tr)
    steps = np.empty_like(f_tr)          # the iteration's class steps (before shrinkage)
    for t in range(out.train_error.shape[0]):
        if uniforms.shape[0]:
            select_bag(uniforms[t], growth.n_bag, inbag)
        softmax_into(train, f_tr, p)
        for k in range(K):
            working_response(train, p[k], k, z, wz)
            if newton:
                newton_response(train, p[k], z, gw, wz)
            grown = grow_exact(data, space, wz, gw, inbag, unit, growth.min_obs, growth.depth)
            values = np.empty(grown.terminals.shape[0])
            leaf_values(train, z, p[k], grown.node_of, inbag, K, values)
            set_leaves(grown, values, growth.min_obs, fadj)
            steps[k] = fadj
            tree = record_tree(grown, data.var_type, growth.shrinkage, n_csplits, out,
                               t * K + k)
            update_links(tree, data.var_type, valid.cols, n_csplits, growth.shrinkage, fadj,
                         (f_tr[k], f_va[k]))
            n_csplits += out.n_cat[t * K + k]
        out.oobag_improve[t] = bag_improvement(train, p, steps, inbag, growth.shrinkage)
        out.train_error[t] = deviance(train, f_tr)
        out.valid_error[t] = deviance(valid.rows, f_va) if n_valid else np.nan
    return n_csplits
