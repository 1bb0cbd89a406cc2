"""gbm(), gbm_fit() and gbm_more(): R's entry points, R's arguments and defaults.

Each entry point checks its arguments once into :class:`FitOptions`, codes
its data into :class:`CodedData` and calls the fitting function
:func:`pygbm.fitting.fit_coded` (gbm() hands it to the cv folds as well).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from . import cv, frontend
from ._checks import as_generator, fraction_arg, int_arg, offset_arg, weights_arg
from .distributions import get_distribution, guess_distribution
from .costs import cost_spec
from .fitting import CodedData, Targets, continue_fit, fit_coded
from .messages import GBMMessage, warn
from .model import GBMFit
from .options import fit_options
from .progress import check_progress, wanted
from .ranking import pairwise_mf, restore_row_order, sorted_fold_id


# ---------------------------------------------------------------- gbm_fit
def _encode(x, var_names):
    import pandas as pd        # imported on first use: import pygbm stays fast
    encoder = frontend.PredictorEncoder()
    if isinstance(x, np.ndarray) and var_names is not None:
        x = pd.DataFrame(x, columns=list(var_names))
    coded, names, var_type, var_levels = encoder.fit_transform(x)
    return coded, list(names), np.asarray(var_type), var_levels, encoder


def _n_train_arg(n_train, train_fraction, n):
    """gbm_fit's training rows: ``n_train`` or ``floor(train_fraction * n)``."""
    if n_train is not None and train_fraction is not None:
        raise ValueError("give n_train or train_fraction, not both")
    if n_train is None:
        train_fraction = 1.0 if train_fraction is None else \
            fraction_arg("train_fraction", train_fraction)
        n_train = int(np.floor(train_fraction * n))
    return int_arg("n_train", n_train, 1, n), train_fraction


def gbm_fit(x, y, offset=None, misc=None, distribution="bernoulli", w=None,
            var_monotone=None, n_trees=100, interaction_depth=1, n_minobsinnode=10,
            shrinkage=0.001, bag_fraction=0.5, n_train=None, train_fraction=None,
            keep_data=True, verbose=False, var_names=None, response_name="y",
            random_state=None, max_bins=None, group=None, engine=None,
            progress=None, zero_subsample=None, zero_weight="importance", feature_costs=None,
            feature_costs_model=None, cost_split=0.0, cegb_tradeoff=1.0):
    """R's ``gbm.fit``: boosting on a predictor table or matrix, no formula.

    ``x`` is a DataFrame (numeric, categorical and ordered columns) or a 2-d
    array; ``y`` the response (for coxph the times, with ``misc`` the 0/1
    event indicator, or a :func:`pygbm.Surv` object). Defaults are R's
    (note ``shrinkage=0.001`` and ``distribution="bernoulli"``, as in R).
    ``group`` (R's ``group``): the group of every row for
    ``distribution="pairwise"``; unlike R, rows need not be sorted (they are
    sorted by group and decreasing ``y`` inside), but the first ``n_train``
    rows must hold whole groups. ``zero_subsample``/``zero_weight``: as
    :func:`gbm`. ``feature_costs``, ``feature_costs_model``, ``cost_split``,
    ``cegb_tradeoff``: cost-efficient boosting, as in :func:`gbm`.
    """
    coded, names, var_type, var_levels, encoder = _encode(x, var_names)
    status = None
    if hasattr(y, "time") and hasattr(y, "status"):     # a Surv object (duck-typed)
        y, status = np.asarray(y.time, dtype=float), np.asarray(y.status, dtype=float)
    elif misc is not None:
        status = np.asarray(misc, dtype=float)
    options = fit_options(distribution, n_trees=n_trees, interaction_depth=interaction_depth,
                          n_minobsinnode=n_minobsinnode, shrinkage=shrinkage,
                          bag_fraction=bag_fraction, var_monotone=var_monotone,
                          var_names=names, var_type=var_type, max_bins=max_bins,
                          keep_data=keep_data, verbose=verbose, engine=engine,
                          progress=progress, zero_subsample=zero_subsample,
                          zero_weight=zero_weight,
                          costs=cost_spec(feature_costs, feature_costs_model, cost_split,
                                          cegb_tradeoff, names, response_name))
    n_train, train_fraction = _n_train_arg(n_train, train_fraction, coded.shape[0])
    data = CodedData(x=coded, var_names=names, var_type=var_type, var_levels=var_levels,
                     encoder=encoder, y=np.asarray(y), n_train=n_train,
                     train_fraction=train_fraction, status=status, offset=offset, weights=w,
                     group=group, response_name=response_name)
    return fit_coded(options, data, random_state)


# ---------------------------------------------------------------- gbm
def _call_string(formula, distribution, kwargs):
    parts = [f'formula = "{formula}"']
    if distribution is not None:
        parts.append(f"distribution = {distribution!r}")
    parts += [f"{k} = {v!r}" for k, v in kwargs.items()]
    return "gbm(" + ", ".join(parts) + ")"


def gbm(formula, data, distribution=None, weights=None, var_monotone=None, n_trees=100,
        interaction_depth=1, n_minobsinnode=10, shrinkage=0.1, bag_fraction=0.5,
        train_fraction=1.0, cv_folds=0, keep_data=True, verbose=False,
        class_stratify_cv=None, n_cores=None, random_state=None, fold_id=None,
        max_bins=None, categorical="native", ts_permutations=4, ts_prior=None,
        ts_prior_weight=1.0, ts_max_combination=1, engine=None,
        progress=None, zero_subsample=None, zero_weight="importance", feature_costs=None,
        feature_costs_model=None, cost_split=0.0, cegb_tradeoff=1.0):
    """Fit a generalized boosted model from a formula (R's ``gbm()``).

    Parameters are R's, in snake_case, with R's defaults; see R's ``?gbm``.
    ``distribution``: a name ("gaussian", "bernoulli", ...), R's list form as a
    dict (``{"name": "quantile", "alpha": 0.25}``) or a distribution instance;
    None guesses as R does (a categorical response with more than two levels:
    "multinomial"; ``fit.classes`` holds the class labels). Ranking:
    ``{"name": "pairwise", "group": "query", "metric": "ndcg", "max_rank": 10}``
    (groups kept whole in the train/validation split and the cv folds; a
    ``fold_id`` then gives one fold per row of ``data``).
    ``weights``: a column name or an array.
    ``random_state`` seeds the bagging (and the cv folds): an int, a NumPy
    Generator, or ``pygbm.RRandom(seed)``, R's stream after ``set.seed(seed)``,
    with which the bags, folds and fold seeds are R's draws in R's order (R's
    numbers for the same ``set.seed``; see :mod:`pygbm.draws`). ``fold_id`` gives
    cv folds explicitly (one fold number per training row). ``max_bins``
    (e.g. 255) switches to the fast binned mode: predictors are bucketed once
    by quantiles (categoricals stay native, missing values get their own
    bucket); it is close to, but not bit-identical with, R's exact search
    (the default, ``max_bins=None``). ``categorical="ordered_ts"`` (or a
    dict per column) replaces categorical predictors inside the engine by
    CatBoost-style ordered target statistics (``ts_*`` options; see
    :mod:`pygbm.target_stats`); "native" is R's behaviour.
    ``engine``: "numba" (compiled loops, the default when numba can be
    imported) or "numpy" (the reference implementation); both give the same
    fit bit for bit.
    ``zero_subsample`` (a keep rate l in (0, 1]; None or 1: off) keeps every
    training row with a non-zero response and each zero row with probability
    l, drawn once per fit from ``random_state`` (validation rows and the cv
    folds' held-out rows are never subsampled); ``zero_weight``:
    "importance" (kept zeros weighted 1/l), "none" (unweighted: follow with
    :func:`pygbm.calibrate`) or "offset" (bernoulli: the unweighted fit with
    its intercept corrected by log(l), exact). See :mod:`pygbm.zero_sampling`.
    Cost-efficient boosting (CEGB, Peter et al. 2017; docs/cegb.md):
    ``feature_costs`` (a dict by predictor name, unlisted 0, or one value per
    predictor) is the cost of reading a predictor for one row, paid the first
    time any tree reads it for that row; ``feature_costs_model`` the same
    forms, paid once when the model first uses the predictor; ``cost_split``
    the cost of one split per row evaluating it; ``cegb_tradeoff`` (λ)
    multiplies them all. Candidate splits are compared by their gain less λ
    times their new cost; trees may stop before ``interaction_depth`` splits.
    ``fit.predict_cost(newdata)`` gives each row's prediction cost. With no
    costs the fit is R's, unchanged. Costs are searched by the NumPy engine
    (the compiled one has no cost hook).
    """
    native = isinstance(categorical, str) and categorical == "native"
    # R's 1024-level cap applies to native categoricals; target statistics have none
    mf = frontend.model_frame(formula, data, weights) if native else \
        frontend.model_frame(formula, data, weights, max_levels=None)
    if distribution is None:
        n_levels = len(mf.y_levels) if mf.y_levels is not None else None
        distribution = guess_distribution(mf.y, is_surv=mf.is_surv,
                                          is_categorical=mf.y_is_categorical,
                                          n_levels=n_levels)
        warn(f"Distribution not specified, assuming {distribution} ...", GBMMessage)
    n = mf.x.shape[0]
    train_fraction = fraction_arg("train_fraction", train_fraction)
    n_train = int(np.floor(train_fraction * n))
    call = _call_string(formula, distribution, dict(
        n_trees=n_trees, interaction_depth=interaction_depth, shrinkage=shrinkage,
        bag_fraction=bag_fraction, train_fraction=train_fraction, cv_folds=cv_folds))
    rng = as_generator(random_state)
    dist = get_distribution(distribution)
    options = fit_options(
        dist, n_trees=n_trees, interaction_depth=interaction_depth,
        n_minobsinnode=n_minobsinnode, shrinkage=shrinkage, bag_fraction=bag_fraction,
        var_monotone=var_monotone, var_names=mf.var_names, var_type=mf.var_type,
        max_bins=max_bins, categorical=categorical,
        ts_options=dict(n_permutations=ts_permutations, prior=ts_prior,
                        prior_weight=ts_prior_weight, max_combination=ts_max_combination),
        keep_data=keep_data, verbose=verbose, progress=progress, formula=formula, call=call,
        engine=engine, zero_subsample=zero_subsample, zero_weight=zero_weight,
        costs=cost_spec(feature_costs, feature_costs_model, cost_split, cegb_tradeoff,
                        mf.var_names, mf.response_name))
    layout, group = None, None
    if dist.bag_by_group:
        mf, layout = pairwise_mf(mf, data, dist, train_fraction, rng)
        n_train, group = layout.n_train, layout.group
        if fold_id is not None:
            fold_id = sorted_fold_id(fold_id, layout)
    coded = CodedData(x=mf.x, var_names=mf.var_names, var_type=mf.var_type,
                      var_levels=mf.var_levels, encoder=mf.encoder, y=mf.y, n_train=n_train,
                      train_fraction=train_fraction, status=mf.status, offset=mf.offset,
                      weights=mf.weights, group=group, response_name=mf.response_name,
                      y_levels=mf.y_levels)
    main_fit = functools.partial(fit_coded, options, coded, rng)

    result = None
    cv_folds = int_arg("cv_folds", cv_folds, 0)
    if cv_folds > 1 or fold_id is not None:
        # the folds draw their seeds from rng first; the main fit continues it
        fold_fit = functools.partial(
            fit_coded, options.replace(keep_data=False, verbose=False, progress=False,
                                       formula=None, call=None))
        spec = cv.CVSpec(cv_folds, fold_id, class_stratify_cv, n_cores,
                         progress=wanted(options.progress, options.verbose))
        result, fit = cv.cross_validate(coded, fold_fit, spec, dist.name, rng,
                                        main_fit=main_fit)
    else:
        fit = main_fit()
    if result is not None:
        fit = dataclasses.replace(fit, cv_error=result.error, cv_fitted=result.fitted,
                                  cv_folds=result.n_folds, fold_id=result.fold_id)
    if layout is not None:
        fit = restore_row_order(fit, layout)
    return fit


# ---------------------------------------------------------------- gbm_more
def _new_rows(fit, data, weights):
    """gbm_more(data=...): the coded predictors and the targets of ``data``
    (the same rows as the first fit's)."""
    if fit.formula is None:
        raise ValueError("data= is only supported for models fitted with a formula")
    mf = frontend.model_frame(fit.formula, data, weights)
    x = frontend.model_frame_newdata(fit.encoder, data)
    y, off, status = mf.y, mf.offset, mf.status
    if fit.distribution.bag_by_group:                  # pairwise: the kept groups
        status = fit.data["misc"] if fit.data else None
        if status is None or status.shape[0] != x.shape[0]:
            raise ValueError("gbm_more(data=...) for pairwise needs the kept training "
                             "data (keep_data=True) and the same rows")
    w_raw = weights_arg(mf.weights, x.shape[0])
    sample = fit.zero_sample
    if sample is not None:          # the first fit's rows: kept training rows, validation
        x, y, off, status = (sample.select(a) for a in (x, y, off, status))
        w_raw = sample.raw_weights(sample.select(w_raw))
    w_norm = w_raw * x.shape[0] / np.sum(w_raw)
    if not np.allclose(y, fit.data["y"] if fit.data else y):
        warn("gbm_more: data differ from the training data")
    return x, Targets(y=y, misc=status, offset=off, w=w_norm, w_raw=w_raw)


def gbm_more(fit: GBMFit, n_new_trees=100, data=None, weights=None, offset=None,
             verbose=None, random_state=None, progress=None):
    """Add ``n_new_trees`` trees to a fitted model (R's ``gbm.more``).

    Uses the kept training data unless ``data`` (a DataFrame with the
    formula's columns) is given, in which case it must be the same rows.
    A zero-subsampled fit continues on its kept rows with its weights
    (``data``, ``weights`` and ``offset`` are then the original rows, before
    subsampling). ``random_state`` (None: the fit's own generator or R stream,
    continued, as R's ``gbm.more`` continues R's global stream).
    """
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a GBMFit, got {type(fit).__name__}")
    n_new_trees = int_arg("n_new_trees", n_new_trees, 1)
    if data is None:
        if not fit.data:
            raise ValueError("gbm_more needs data: the model was fitted with keep_data=False")
        d = fit.data
        x = d["x"]
        targets = Targets(y=d["y"], misc=d["misc"], offset=d["offset"], w=d["w"],
                          w_raw=d["w_raw"])
    else:
        x, targets = _new_rows(fit, data, weights)
    sample = fit.zero_sample
    if offset is not None:
        offset = offset_arg(offset, x.shape[0] if sample is None else
                            x.shape[0] - sample.n_kept + sample.n_train_full)
        targets = dataclasses.replace(targets, offset=offset if sample is None else
                                      sample.select(offset))
    n = x.shape[0]
    if n != fit.fit.shape[0]:
        raise ValueError(f"data have {n} rows but the model was fitted on {fit.fit.shape[0]}")
    if sample is not None:
        targets = dataclasses.replace(targets,
                                      offset=sample.continuing_offset(targets.offset, n))
    rng = fit.rng if random_state is None else as_generator(random_state)
    report = (fit.verbose if verbose is None else verbose, check_progress(progress))
    return continue_fit(fit, x, targets, n_new_trees, report, rng)
