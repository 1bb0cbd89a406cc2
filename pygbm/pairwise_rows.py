"""The rows of a pairwise fit (R's ``gbm()`` for ``distribution = "pairwise"``).

The group levels are put in a random order, the rows sorted by group then
decreasing response, the training part ends at a group boundary, case weights
must be constant within a group and are rescaled so the group weights average
1; cv folds are drawn per group. A finished fit's per-row results go back to
the data's row order (:func:`restore_row_order`).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from . import frontend
from ._checks import array_arg, rescaled_weights_arg, unique_labels
from .draws import shuffled

if TYPE_CHECKING:                 # annotations only: pandas is imported on first use
    import pandas as pd


@dataclass
class PairwiseLayout:
    """R's row layout of pairwise data (see :func:`pairwise_layout`)."""

    order: np.ndarray          # R's ord.group: sorted row i is original row order[i]
    group: np.ndarray          # group code 1..G of every sorted row
    levels: np.ndarray         # group labels, in the (random) order of the codes
    n_train: int
    weights: np.ndarray | None  # rescaled case weights, sorted order (None: no weights)


def group_labels(data: pd.DataFrame, columns) -> np.ndarray:
    """R's ``paste(data[, group], sep = ":")``: the group label of every row."""
    cols = [columns] if isinstance(columns, str) else \
        list(columns) if isinstance(columns, Iterable) else []     # a number: refused
    if not cols or not all(isinstance(c, str) for c in cols):
        raise TypeError("the pairwise 'group' must be a column name or a list of column "
                        f"names; got {columns!r}")
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise ValueError(f"Group column does not occur in data: {', '.join(missing)}")
    labels = _pasted(data[cols[0]])
    for c in cols[1:]:
        labels = labels + ":" + _pasted(data[c])
    return labels.astype(str)


def _pasted(column) -> np.ndarray:
    """A group column's values as R's ``paste`` writes them (``as.character``:
    8 for 8.0, TRUE for True); a missing value is "NA", a group of its own, as
    in R."""
    labels, inverse = frontend.labels_inverse(column)
    return np.array(labels + ["NA"], dtype=object)[inverse]   # -1 (missing): "NA"


def r_levels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``factor(labels)`` of the group names: the distinct labels in R's
    string order (the predictors' :meth:`PredictorEncoder._fit_levels`, not code
    points: "1:2" before "10:1", "aa" before "Ab") and each label's code 0..G-1."""
    import pandas as pd        # imported on first use: import pygbm stays fast
    levels, codes = frontend.PredictorEncoder._fit_levels(pd.Series(labels, dtype=object))
    return np.asarray(levels), np.asarray(codes, dtype=np.intp)


def check_group_weights(w, codes) -> None:
    """R: all rows of a group must carry the same weight."""
    import pandas as pd        # imported on first use: import pygbm stays fast
    w = np.asarray(w, dtype=float)
    lo = pd.Series(w).groupby(codes).min().to_numpy()
    hi = pd.Series(w).groupby(codes).max().to_numpy()
    if np.any(lo != hi):
        raise ValueError('for distribution "pairwise", all rows of the same group must have '
                         f'the same weight ({int(np.sum(lo != hi))} group(s) differ)')


def pairwise_layout(labels, y, weights, train_fraction, rng) -> PairwiseLayout:
    """R's gbm() preparation of pairwise data.

    Group levels in a random order (``rng``; R's ``sample(1:nlevels(group))``
    with R's stream), rows sorted by group then by
    decreasing ``y`` (ties keep their order), ``n_train`` = the rows of the
    first ``max(1, round(train_fraction * G))`` groups, weights (if any)
    checked constant within groups and rescaled by ``G / sum(group weights)``.
    """
    import pandas as pd        # imported on first use: import pygbm stays fast
    labels = np.asarray(labels)
    y = np.asarray(y, dtype=float)
    levels, codes = r_levels(labels)
    n_groups = levels.shape[0]
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        check_group_weights(w, codes)
        group_w = pd.Series(w).groupby(codes).min().to_numpy()
        w = rescaled_weights_arg(w, n_groups, group_w,
                                 f"w * G / the sum of the {n_groups} group weights")
    perm = shuffled(rng, n_groups)             # perm[i]: level at position i
    position = np.empty(n_groups, dtype=np.intp)
    position[perm] = np.arange(n_groups)
    code = position[codes] + 1
    order = np.lexsort((-y, code))
    n_groups_train = max(1, int(np.round(train_fraction * n_groups)))
    n_train = int(np.sum(code <= n_groups_train))
    return PairwiseLayout(order=order, group=code[order], levels=levels[perm],
                          n_train=n_train, weights=None if w is None else w[order])


def sort_within_groups(group, y, n_train):
    """Row order (training and validation parts apart) putting each group's
    rows together (groups in order of first appearance) by decreasing ``y``;
    None when the rows are in that order already. Also the group codes
    (1, 2, ... by first appearance) in the original row order.

    A group with rows on both sides of ``n_train`` is an error.
    """
    group = array_arg("group", group)
    if group.ndim != 1:
        raise ValueError(f"group must be one-dimensional; got shape {group.shape}")
    _, first, inverse = unique_labels("group", group, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    appearance = np.empty(first.shape[0], dtype=np.intp)
    appearance[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    code = appearance[inverse] + 1
    if n_train < group.shape[0]:
        both = np.intersect1d(code[:n_train], code[n_train:])
        if both.size:
            raise ValueError(f"pairwise: the training part must hold whole groups, but "
                             f"{both.size} group(s) have rows on both sides of n_train = "
                             f"{n_train}")
    y = np.asarray(y, dtype=float)
    parts = []
    for lo, hi in ((0, n_train), (n_train, group.shape[0])):
        parts.append(lo + np.lexsort((-y[lo:hi], code[lo:hi])))
    perm = np.concatenate(parts)
    if np.array_equal(perm, np.arange(perm.shape[0])):
        perm = None
    return perm, code.astype(float)


def group_folds(group_train, n_groups, n_folds, rng) -> np.ndarray:
    """R's pairwise cv folds: ``sample(rep(1:K, length = G))`` over the G
    groups, then each training row gets its group's fold."""
    s = shuffled(rng, np.resize(np.arange(1, n_folds + 1), n_groups))
    return s[np.asarray(group_train, dtype=np.intp) - 1]


def check_folds_keep_groups(fold_id, group_train) -> None:
    """A ValueError when a group's rows fall into different folds."""
    import pandas as pd        # imported on first use: import pygbm stays fast
    n_per = pd.Series(np.asarray(fold_id)).groupby(np.asarray(group_train)).nunique()
    if (n_per > 1).any():
        raise ValueError(f"fold_id splits {int((n_per > 1).sum())} group(s) across folds; "
                         "pairwise cv folds must keep each group whole")


def pairwise_mf(mf, data, dist, train_fraction, rng):
    """R's gbm() for pairwise: the model frame with its rows in R's order
    (see :func:`pairwise_layout`) and the layout."""
    import pandas as pd        # imported on first use: import pygbm stays fast
    if dist.group is None:
        raise ValueError("For pairwise regression, distribution must be a dict of the form "
                         "{'name': 'pairwise', 'group': ['date', 'session'], 'metric': "
                         "'ndcg'} naming the group column(s) of data")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"pairwise needs data as a pandas DataFrame holding the group "
                        f"column(s); got {type(data).__name__}")
    labels = group_labels(data, dist.group)
    if labels.shape[0] != mf.x.shape[0]:
        raise ValueError(f"the group column has {labels.shape[0]} rows but the model frame "
                         f"{mf.x.shape[0]}")
    layout = pairwise_layout(labels, mf.y, mf.weights, train_fraction, rng)
    o = layout.order
    sorted_mf = replace(mf, x=mf.x[o], y=np.asarray(mf.y)[o],
                        offset=None if mf.offset is None else np.asarray(mf.offset)[o],
                        weights=layout.weights, status=None)
    return sorted_mf, layout


def sorted_fold_id(fold_id, layout: PairwiseLayout) -> np.ndarray:
    """A user's fold_id (one per row of data, original order) for the
    training rows of the sorted pairwise data."""
    fold_id = np.asarray(fold_id)
    n = layout.order.shape[0]
    if fold_id.ndim != 1 or fold_id.shape[0] != n:
        raise ValueError(f"for pairwise, fold_id must give one fold per row of data ({n}); "
                         f"got shape {fold_id.shape}")
    return fold_id[layout.order][: layout.n_train]


def restore_row_order(fit, layout: PairwiseLayout):
    """A pairwise fit with its per-row results back in the data's row order
    (R: ``fit[order(ord.group)]``); kept data too, so predict() and
    gbm_more() see the original rows. Sets ``ord_group`` (R's
    ``ord.group``, 0-based) and ``group_levels``. ``cv_fitted`` and
    ``fold_id`` get one entry per row (NaN / 0 for validation rows)."""
    order = layout.order
    n = order.shape[0]
    inv = np.empty(n, dtype=np.intp)
    inv[order] = np.arange(n)
    data = None if fit.data is None else fit.data.take(inv)
    train_rows = order[: layout.n_train]
    cv_fitted, fold_id = fit.cv_fitted, fit.fold_id
    if cv_fitted is not None:
        cv_fitted = np.full(n, np.nan)
        cv_fitted[train_rows] = fit.cv_fitted
    if fold_id is not None:
        fold_id = np.zeros(n, dtype=int)
        fold_id[train_rows] = fit.fold_id
    row_order = order if fit.row_order is None else order[fit.row_order]
    return replace(fit, fit=np.asarray(fit.fit)[inv], data=data, row_order=row_order,
                   ord_group=order, group_levels=layout.levels, cv_fitted=cv_fitted,
                   fold_id=fold_id)
