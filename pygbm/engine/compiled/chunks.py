"""The compiled boosting loops' Python side in common: their rows and settings,
their chunks' size, the loop over them, and their trees back into the fit's
state (:mod:`.boosting`, :mod:`.ranking_boosting`, :mod:`.multiclass_boosting`)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..tree import ColumnView
from ..tree_list import PaddedTrees
from .loop import Forest, Growth, ValidRows
from .losses import loss_rows

#: a chunk's random draws (iterations x values per iteration) stay under this many
CHUNK_ELEMENTS = 1 << 20
#: and a chunk has at most this many iterations (the progress bar's step)
MAX_CHUNK_TREES = 250


def loop_inputs(problem):
    """A fit's training rows (a :class:`.losses.LossRows`), validation rows
    (:class:`.loop.ValidRows`) and settings (:class:`.loop.Growth`, the bag's
    size still 0) as the compiled loops read them; ``problem`` a
    :class:`pygbm.engine.boost.BoostProblem`."""
    train, valid = problem.train_targets(), problem.valid_targets()
    x_va = problem.x[problem.n_train:]
    growth = Growth(int(problem.interaction_depth), int(problem.n_minobsinnode),
                    float(problem.shrinkage), 0, bool(np.all(train.w == 1.0)))
    return (loss_rows(train),
            ValidRows(ColumnView(x_va, problem.var_type).cols, loss_rows(valid)), growth)


def run_chunks(state, n_trees: int, values_per_iteration: int, var_type: np.ndarray,
               report, run_chunk: Callable[[int], Forest]) -> None:
    """Add ``n_trees`` iterations to ``state`` in chunks: ``run_chunk(count)``
    runs ``count`` iterations in one compiled call and returns their
    :class:`.loop.Forest`; a chunk's random draws (``values_per_iteration`` per
    iteration) stay under :data:`CHUNK_ELEMENTS`. The trees are kept
    (:func:`keep_forest`) and R's iteration table and the progress bar (``report``,
    an :class:`pygbm.engine.report.IterationReport`) hear of every chunk."""
    report.header()
    n_before = len(state.train_error)
    per_chunk = max(1, min(MAX_CHUNK_TREES, CHUNK_ELEMENTS // max(values_per_iteration, 1)))
    done = 0
    while done < n_trees:
        count = min(per_chunk, n_trees - done)
        out = run_chunk(count)
        keep_forest(state, out, var_type)
        report.iterations(done, n_before + done, out.train_error, out.valid_error,
                          out.oobag_improve)
        report.advance(count)
        done += count


def bag_uniforms(sampler, rng, count: int, n_rows: int) -> np.ndarray:
    """The uniforms of ``count`` iterations' bags (R's bag: a
    :class:`pygbm.engine.sampling.SelectionBag`); (0, n_rows) when every row is
    in every bag."""
    u = sampler.uniforms(rng, count)
    return np.zeros((0, n_rows)) if u is None else u


def keep_forest(state, out: Forest, var_type: np.ndarray) -> None:
    """A chunk's trees (kept in its arrays), categorical splits and errors into
    ``state`` (a :class:`pygbm.engine.boost.BoostState`); ``var_type`` the
    trees' predictor types."""
    state.trees.add_padded(PaddedTrees(out.n_nodes, (
        out.split_var, out.code, out.left, out.right, out.missing, out.gain, out.weight,
        out.prediction)))
    state.train_error.extend(out.train_error.tolist())
    state.valid_error.extend(out.valid_error.tolist())
    state.oobag_improve.extend(out.oobag_improve.tolist())
    with_cat = np.flatnonzero(out.n_cat)
    if with_cat.size == 0:
        return
    # the categorical splits of those trees, tree by tree and in node order
    # (R's order of c.splits): (tree, row of its csplits table, levels)
    split_var = out.split_var[with_cat]
    used = np.arange(split_var.shape[1]) < out.n_nodes[with_cat, None]
    levels = np.where(used & (split_var >= 0), var_type[np.maximum(split_var, 0)], 0)
    tree, _ = np.nonzero(levels > 0)
    n_levels = levels[levels > 0]
    first = np.searchsorted(tree, tree)          # each tree's first split of the list
    row = np.arange(tree.size) - first
    tables = out.csplits[with_cat].astype(np.intp)
    state.c_splits.extend(tables[t, r, :n] for t, r, n in
                          zip(tree.tolist(), row.tolist(), n_levels.tolist()))
