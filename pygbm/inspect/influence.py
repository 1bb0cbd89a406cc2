"""Relative influence of the predictors (R's ``relative.influence`` and
``permutation.test.gbm``; ``summary.gbm`` is in summary.py).

The fitted object is used through the attributes listed in
docs/ARCHITECTURE.md ("The fitted object"): ``trees``, ``var_names``,
``n_trees``, ``train_fraction``, ``cv_error``, ``data``, ``distribution``,
``var_type``, ``c_splits``, ``init_f``, ``num_classes``, ``options``
(``engine``), ``ts_encoder`` and ``engine_var_type``.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .._checks import as_generator, bool_arg, finite_number, fit_arg
from ..distributions._common import full_f
from ..draws import is_r_stream, shuffled
from ..engine.predict import predict_link
from ..engine.tree import NO_NODE
from ..messages import GBMMessage, warn
from ..ranking import perf_pairwise
from .perf import gbm_perf



def class_labels(fit) -> list:
    """Labels of a multi-class fit's classes (``fit.classes``, else 0..K-1)."""
    classes = fit.classes
    return list(classes) if classes is not None else list(range(int(fit.num_classes)))


def class_view(fit, k: int):
    """A single-output view of class ``k`` of a multi-class fit: its trees
    (R's layout: tree ``iteration * K + k``) and its initial value."""
    K = int(fit.num_classes)
    return dataclasses.replace(fit, trees=list(fit.trees[k::K]), num_classes=1,
                               init_f=float(np.asarray(fit.init_f, dtype=float).reshape(-1)[k]))


def check_n_trees(fit, n_trees, *, cap: bool, arg: str = "n_trees", least: int = 1) -> int:
    """Validate ``n_trees`` (a whole number, at least ``least``: 0 where no trees
    mean the initial value); ``None`` means all trees.

    Above ``fit.n_trees``: a warning and the cap when ``cap`` (R's plot.gbm,
    summary.gbm, interact.gbm), else a ``ValueError``.
    """
    total = int(fit.n_trees)
    if n_trees is None:
        return total
    if not finite_number(n_trees) or n_trees != int(n_trees):    # 5.0 is 5, as in R
        kind = "a positive integer" if least == 1 else f"an integer >= {least}"
        raise TypeError(f"{arg} must be {kind} or None, got {n_trees!r}")
    n_trees = int(n_trees)
    if n_trees < least:
        raise ValueError(f"{arg} must be at least {least}, got {n_trees}")
    if n_trees > total:
        if not cap:
            raise ValueError(f"{arg}={n_trees} exceeds the {total} trees of the fit")
        warn(f"{arg}={n_trees} exceeds the number of trees in the model; "
             f"using {total} trees instead")
        n_trees = total
    return n_trees


def _default_n_trees(fit) -> int:
    """R's choice when relative.influence is called without n.trees."""
    method = None
    if fit.train_fraction < 1:
        method = "test"
    elif fit.cv_error is not None:
        method = "cv"
    if method is None:
        return int(fit.n_trees)
    return int(gbm_perf(fit, method=method, plot_it=False))


def relative_influence(fit, n_trees=None, scale=False, sort=False, per_class=False):
    """Friedman's relative influence of every predictor (R's ``relative.influence``).

    The influence of a predictor is the sum of the improvements (the
    trees' ``ErrorReduction``) of all splits on it over the first
    ``n_trees`` trees, not divided by the number of trees, as R.

    Parameters
    ----------
    fit : GBMFit
        A fitted model (R: ``object``).
    n_trees : int, optional
        Number of trees (R: ``n.trees``). Default None: R's choice, the best
        iteration on the validation set when ``train_fraction < 1``, else
        the cross-validation best when cv was run, else all trees; pygbm
        then says so, as R does ("n_trees not given. Using N trees.", a
        :class:`pygbm.GBMMessage`).
    scale : bool, default False
        Divide by the largest influence (R: ``scale.``).
    sort : bool, default False
        Sort decreasingly (R: ``sort.``; R's ``rev(sort(.))``, so ties come
        in reverse variable order).
    per_class : bool, default False
        Multi-class fits: one column per class (the trees of that class)
        instead of the overall influence (all trees, as R). Not in R.

    Returns
    -------
    pandas.Series
        Indexed by predictor name (R: a named vector), unnormalised; a
        DataFrame with one column per class when ``per_class``.

    Notes
    -----
    R's function fails for distributions whose object carries a parameter
    (quantile, tdist) when ``n.trees`` is missing; pygbm's works for every
    distribution. For a fit with ordered target statistics, a combination
    column's influence is shared among its member predictors. Use
    :func:`summary` for the normalised table (percent) and the chart.

    Examples
    --------
    >>> ri = pygbm.relative_influence(fit, n_trees=100, sort=True)
    >>> ri.index[0]
    'lstat'
    >>> round(float((ri / ri.sum()).sum()), 12)
    1.0
    """
    fit_arg(fit)
    scale, sort = bool_arg(scale, "scale"), bool_arg(sort, "sort")
    if bool_arg(per_class, "per_class"):
        if int(fit.num_classes) == 1:
            raise ValueError("per_class=True needs a multi-class (multinomial) fit")
        if n_trees is None:
            n_trees = _default_n_trees(fit)
            warn(f"n_trees not given. Using {n_trees} trees.", GBMMessage)  # R's message
        else:
            n_trees = check_n_trees(fit, n_trees, cap=False)
        cols = {c: relative_influence(class_view(fit, k), n_trees, scale=scale)
                for k, c in enumerate(class_labels(fit))}
        out = pd.DataFrame(cols)
        out.columns.name = "class"
        if sort:
            order = np.argsort(out.sum(axis=1).to_numpy(), kind="stable")[::-1]
            out = out.iloc[order]
        return out
    if n_trees is None:
        n_trees = _default_n_trees(fit)
        warn(f"n_trees not given. Using {n_trees} trees.", GBMMessage)    # R's message
    else:
        n_trees = check_n_trees(fit, n_trees, cap=False)
    n_used = n_trees * int(fit.num_classes)
    var_names = list(fit.var_names)
    p = len(var_names)
    trees = fit.trees[:n_used]
    if trees:
        split_var = np.concatenate([np.asarray(t.split_var) for t in trees])
        reduction = np.concatenate([np.asarray(t.error_reduction, dtype=float) for t in trees])
        keep = split_var != NO_NODE
        ts = fit.ts_encoder
        width = max(p, int(split_var[keep].max()) + 1) if keep.any() else p
        # float even without a split (bincount of nothing is int64, weights or not)
        rel_inf = np.bincount(split_var[keep].astype(np.intp), weights=reduction[keep],
                              minlength=width).astype(float)
        # target statistics: a combination column's influence goes to its members
        rel_inf = ts.fold_influence(rel_inf) if ts is not None else rel_inf[:p]
    else:
        rel_inf = np.zeros(p)
    out = pd.Series(rel_inf, index=pd.Index(var_names, name="var"), name="rel_inf")
    if scale:
        out = _scaled(out, n_trees)
    if sort:
        order = np.argsort(out.to_numpy(), kind="stable")[::-1]
        out = out.iloc[order]
    return out


def _scaled(rel_inf: pd.Series, n_trees: int) -> pd.Series:
    """``rel_inf`` divided by its largest value (R's ``scale.``); all zero (no split
    reduced the loss) stays zero, with a warning, as :func:`summary` does."""
    top = rel_inf.max()
    if top > 0:
        return rel_inf / top
    warn(f"no split in the first {n_trees} trees reduces the loss (every predictor's "
         "influence is 0): scale=True leaves the influences 0, where R's "
         "relative.influence divides 0 by 0 (NaN)")
    return rel_inf


def used_variables(fit, n_trees: int) -> np.ndarray:
    """Sorted 0-based indices of the predictors split on in the first ``n_trees``
    trees; with ordered target statistics a split on a feature combination
    uses each of its members."""
    used = [np.asarray(t.split_var) for t in fit.trees[:n_trees * int(fit.num_classes)]]
    if not used:
        return np.zeros(0, dtype=np.intp)
    allv = np.unique(np.concatenate(used))
    columns = allv[allv != NO_NODE].astype(np.intp)
    ts = fit.ts_encoder
    if ts is None:
        return columns
    # engine columns -> the predictors they read (a combination: its members)
    members = [m for c in columns.tolist() for m in ts.originals_of(c)]
    return np.unique(np.asarray(members, dtype=np.intp))


def permutation_influence(fit, n_trees=None, random_state=None) -> pd.Series:
    """Permutation influence of every predictor (R's ``permutation.test.gbm``).

    Each predictor used by the first ``n_trees`` trees in turn has its
    column permuted (one random permutation of the kept rows, the same for
    every predictor); its influence is the increase of the training loss
    (the distribution's deviance) over the loss of the unpermuted
    predictions on the same rows. Predictors never used get 0. This is
    ``summary(fit, method="permutation")`` before normalisation.

    Parameters
    ----------
    fit : GBMFit
        A fitted model with its training data (``keep_data=True``, the
        default; R: ``object``).
    n_trees : int, optional
        Number of trees (R: ``n.trees``, required there); default None: all.
    random_state : int, numpy.random.Generator or RRandom, optional
        The permutation's seed; a :class:`pygbm.RRandom` draws R's
        ``sample(1:nrow(x))``. Default None: a fresh random permutation.
        Not in R (R uses its global stream).

    Returns
    -------
    pandas.Series
        The increase of the training loss per predictor, indexed by
        predictor name (``rel_inf``), unnormalised.

    Raises
    ------
    ValueError
        When the fit kept no data (as R) or the distribution is coxph.

    Notes
    -----
    The losses are over all kept rows (training and validation), permuted by
    one ``sample(1:nrow(x))``, as R's. R's baseline, though, is
    ``train.error[n.trees]``, the loss on the training rows only; pygbm's is
    the loss of the unpermuted predictions on the same rows as the permuted
    ones. With ``train_fraction=1`` (bagged or not) the two are the same
    number and pygbm gives R's influences; with ``train_fraction < 1`` R's are
    pygbm's plus one constant, the loss on all kept rows minus
    ``train.error[n.trees]`` (``tests/test_r_help_examples.py``). R supports
    only gaussian, bernoulli, laplace, adaboost and poisson; pygbm every
    distribution with a deviance (not coxph, whose loss needs the time order,
    as in R). As R, it uses the kept rows, not out-of-bag rows (Breiman's
    forests use those).

    The permuted rows are predicted as ``predict`` predicts the training
    rows: with target statistics (``categorical="ordered_ts"`` etc.) a
    categorical predictor's levels are permuted and then encoded by the
    fit's statistics of all training rows, and every feature combination
    with the predictor among its members is made from the permuted levels,
    so a predictor used only through a combination has an influence too.

    Examples
    --------
    >>> pi = pygbm.permutation_influence(fit, n_trees=100, random_state=1)
    >>> pi.idxmax()
    'lstat'
    """
    fit_arg(fit)
    n_trees = check_n_trees(fit, n_trees, cap=False)
    K = int(fit.num_classes)
    data = fit.data
    if data is None:
        raise ValueError("the permutation method needs the training data: fit the model "
                         "with keep_data=True")
    dist = fit.distribution
    if dist.needs_time_order:
        raise ValueError("the permutation method is not available for coxph (as in R)")
    if fit.row_order is not None and dist.bag_by_group:
        data = data.take(fit.row_order)   # pairwise: the deviance needs the fit's group order
    x = np.array(data.x, dtype=float)  # a copy: columns are permuted in place
    targets = data.response.loss_targets()
    n = x.shape[0]
    perm = shuffled(as_generator(random_state), n)
    # the rows are predicted as predict() predicts them: with target statistics
    # the coded predictors are encoded by the fit (the statistics of all training
    # rows, every feature combination made from its members' permuted values)
    # and the trees read them with the engine's var_type
    ts = fit.ts_encoder
    var_type = fit.var_type if ts is None else fit.engine_var_type

    context = fit.context.detached()      # the fit's own generator untouched
    # pairwise with R's stream: R's gbm.loss calls perf.pairwise, whose tie-breaking
    # runif comes from the one stream after the permutation's sample(), and subtracts
    # train.error at n.trees (the measure of the training rows as the fit saw them)
    r_pairwise = dist.bag_by_group and is_r_stream(random_state)

    def link(xm):
        xe = xm if ts is None else ts.transform(xm)
        return predict_link(fit.trees, xe, var_type, fit.c_splits, fit.init_f, [n_trees],
                            n_outputs=K, engine=fit.options.engine)[..., 0]

    def loss(xm):
        if r_pairwise:
            f = full_f(link(xm), targets.offset)
            return 1.0 - perf_pairwise(targets.y, f, targets.misc, dist.metric, targets.w,
                                       dist.max_rank, random_state=random_state)
        return float(dist.deviance(targets, link(xm), context))

    baseline = float(fit.train_error[n_trees - 1]) if r_pairwise else loss(x)
    rel_inf = np.zeros(len(fit.var_names))
    for v in used_variables(fit, n_trees):
        original = x[:, v].copy()
        x[:, v] = original[perm]
        rel_inf[v] = loss(x) - baseline
        x[:, v] = original
    return pd.Series(rel_inf, index=pd.Index(list(fit.var_names), name="var"), name="rel_inf")
