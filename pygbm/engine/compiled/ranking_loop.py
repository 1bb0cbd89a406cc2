"""R's boosting loop for pairwise ranking, compiled: many iterations in one call.

:func:`boost_pairwise` runs ``T`` iterations of
:func:`pygbm.engine.boost.run_boosting`'s loop for the pairwise distribution
on R's exact (presorted) search, as :func:`.loop.boost_exact` does for the
single-output distributions: per iteration the working response and its
derivative (:func:`.pairwise.pairwise_gradient`), the tree, the terminal
values, R's Adjust, the out-of-bag improvement, R's eight vectors, the
training and validation updates and errors. The random draws are made
before the call, in the NumPy loop's order (:mod:`.ranking_boosting`): each
iteration's bag of whole groups and the tie-breaking uniforms of its four
rankings (working response, out-of-bag improvement, training and validation
deviance).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .exact_tree import grow_exact
from .loop import record_tree, set_leaves, update_links
from .pairwise import (pairwise_bag_improvement, pairwise_deviance, pairwise_gradient,
                       pairwise_leaves)


class Ranking(NamedTuple):
    """The pairwise layouts and work arrays of the training and validation rows
    (:class:`.pairwise.PairRows`, :class:`.pairwise.PairScratch`)."""

    train: object
    train_scratch: object
    valid: object
    valid_scratch: object


class RankingDraws(NamedTuple):
    """A chunk's random draws: the bags and the rankings' uniforms."""

    inbag: np.ndarray           # (T, n_train) bool
    noise: np.ndarray           # (T, 3 n_train + n_valid): gradient, OOB, train, valid


@njit(cache=True, error_model="numpy", nogil=True)
def boost_pairwise(ranking, train, data, space, valid, growth, draws, f_tr, f_va, n_csplits,
                   out):
    """Run ``out``'s ``T`` iterations (see the module docstring) from the
    link values ``f_tr`` and ``f_va`` (updated in place); ``train`` and
    ``valid.rows`` the rows' targets (:class:`.losses.LossRows`), ``space``
    the grower's scratch, ``n_csplits`` the model's categorical splits so
    far. Returns the number of categorical splits after them."""
    n = f_tr.shape[0]
    n_valid = f_va.shape[0]
    z = np.empty(n)
    h = np.empty(n)
    wz = np.empty(n)
    fadj = np.empty(n)
    w = train.w
    P, S = ranking.train, ranking.train_scratch
    for t in range(out.n_nodes.shape[0]):
        inbag = draws.inbag[t]
        u = draws.noise[t]
        pairwise_gradient(P, S, f_tr, train.offset, w, inbag, u[:n], z, h)
        for i in range(n):
            wz[i] = w[i] * z[i]
        grown = grow_exact(data, space, wz, w, inbag, growth.unit, growth.min_obs,
                           growth.depth)
        n_term = grown.terminals.shape[0]
        values = np.empty(n_term)
        pairwise_leaves(w, z, h, grown.node_of, n_term, inbag, values)
        set_leaves(grown, values, growth.min_obs, fadj)
        out.oobag_improve[t] = pairwise_bag_improvement(P, S, f_tr, train.offset, w, inbag,
                                                        u[n:2 * n], fadj, growth.shrinkage)
        tree = record_tree(grown, data.var_type, growth.shrinkage, n_csplits, out, t)
        update_links(tree, data.var_type, valid.cols, n_csplits, growth.shrinkage, fadj,
                     (f_tr, f_va))
        n_csplits += out.n_cat[t]
        out.train_error[t] = pairwise_deviance(P, S, f_tr, train.offset, w, u[2 * n:3 * n])
        out.valid_error[t] = (pairwise_deviance(ranking.valid, ranking.valid_scratch, f_va,
                                                valid.rows.offset, valid.rows.w, u[3 * n:])
                              if n_valid else np.nan)
    return n_csplits
