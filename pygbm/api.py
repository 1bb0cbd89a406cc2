"""gbm(), gbm_fit() and gbm_more(): R's entry points, R's arguments and defaults."""
from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
import pandas as pd

from ._checks import int_arg
from .distributions import get_distribution, guess_distribution
from .engine.boost import BoostProblem, BoostState, run_boosting
from .model import GBMFit

#: R's checkID: interaction.depth must be below 50
MAX_INTERACTION_DEPTH = 49
#: binned mode: at least 2 bins per predictor; at most what uint16 codes hold
MIN_BINS, MAX_BINS = 2, 65535


# ---------------------------------------------------------------- checking
def _fraction_arg(name, value, allow_one=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a number in (0, 1], got {value!r}")
    if not (0 < value <= 1) or (not allow_one and value == 1):
        raise ValueError(f"{name} must be in (0, 1], got {value}")
    return float(value)


def _shrinkage_arg(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or value <= 0:
        raise ValueError(f"shrinkage must be a positive number, got {value!r}")
    if value > 1:
        warnings.warn(f"shrinkage={value} is above 1; values between 0.001 and 0.1 usually "
                      "work best", UserWarning, stacklevel=3)
    return float(value)


def _monotone_arg(var_monotone, p, var_names, var_type):
    if var_monotone is None:
        return np.zeros(p, dtype=np.intp)
    if isinstance(var_monotone, dict):
        unknown = set(var_monotone) - set(var_names)
        if unknown:
            raise ValueError(f"var_monotone names unknown predictors {sorted(unknown)}; "
                             f"predictors are {var_names}")
        var_monotone = [var_monotone.get(v, 0) for v in var_names]
    mono = np.asarray(var_monotone)
    if mono.ndim != 1 or mono.shape[0] != p:
        raise ValueError(f"var_monotone must have one entry per predictor ({p}: "
                         f"{', '.join(var_names)}), got length {mono.size}")
    if not np.all(np.isin(mono, (-1, 0, 1))):
        raise ValueError(f"var_monotone entries must be -1, 0 or 1, got {mono.tolist()}")
    cat = (mono != 0) & (np.asarray(var_type) > 0)
    if cat.any():
        names = [var_names[i] for i in np.flatnonzero(cat)]
        warnings.warn(f"var_monotone is ignored for the unordered categorical predictors "
                      f"{names} (as in R)", UserWarning, stacklevel=3)
    return mono.astype(np.intp)


def _weights_arg(w, n):
    if w is None:
        return np.ones(n)
    w = np.asarray(w, dtype=float)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"weights must have one value per row ({n}), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite numbers (found NaN or inf)")
    if np.any(w < 0):
        raise ValueError(f"weights must be non-negative; {int(np.sum(w < 0))} are negative")
    if not np.any(w > 0):
        raise ValueError("weights must not all be zero")
    return w


def _offset_arg(offset, n):
    if offset is None:
        return None
    offset = np.asarray(offset, dtype=float)
    if offset.ndim != 1 or offset.shape[0] != n:
        raise ValueError(f"offset must have one value per row ({n}), got shape {offset.shape}")
    if not np.all(np.isfinite(offset)):
        raise ValueError("offset must be finite numbers (found NaN or inf)")
    if np.all(offset == 0):
        return None          # R's checkOffset: an all-zero offset is no offset
    return offset


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


# ---------------------------------------------------------------- gbm_fit
def _encode(x, var_names):
    from .frontend import PredictorEncoder

    encoder = PredictorEncoder()
    if isinstance(x, np.ndarray) and var_names is not None:
        x = pd.DataFrame(x, columns=list(var_names))
    coded, names, var_type, var_levels = encoder.fit_transform(x)
    return coded, list(names), np.asarray(var_type), var_levels, encoder


def gbm_fit(x, y, offset=None, misc=None, distribution="bernoulli", w=None,
            var_monotone=None, n_trees=100, interaction_depth=1, n_minobsinnode=10,
            shrinkage=0.001, bag_fraction=0.5, n_train=None, train_fraction=None,
            keep_data=True, verbose=False, var_names=None, response_name="y",
            random_state=None, max_bins=None, group=None):
    """R's ``gbm.fit``: boosting on a predictor table or matrix, no formula.

    ``x`` is a DataFrame (numeric, categorical and ordered columns) or a 2-d
    array; ``y`` the response (for coxph the times, with ``misc`` the 0/1
    event indicator, or a :func:`pygbm.Surv` object). Defaults are R's
    (note ``shrinkage=0.001`` and ``distribution="bernoulli"``, as in R).
    ``group`` (R's ``group``): the group of every row for
    ``distribution="pairwise"``; unlike R, rows need not be sorted (they are
    sorted by group and decreasing ``y`` inside), but the first ``n_train``
    rows must hold whole groups.
    """
    coded, names, var_type, var_levels, encoder = _encode(x, var_names)
    status = None
    if hasattr(y, "time") and hasattr(y, "status"):
        y, status = np.asarray(y.time, dtype=float), np.asarray(y.status, dtype=float)
    elif misc is not None:
        status = np.asarray(misc, dtype=float)
    return _fit_coded(coded, names, var_type, var_levels, encoder, np.asarray(y), status,
                      offset, distribution, w, var_monotone, n_trees, interaction_depth,
                      n_minobsinnode, shrinkage, bag_fraction, n_train, train_fraction,
                      keep_data, verbose, response_name, random_state, max_bins=max_bins,
                      group=group)


def _check_response(y, n, dist):
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} values but x has {n} rows")
    if y.dtype.kind in "fc" and np.isnan(y.astype(float)).any():
        raise ValueError(f"y has {int(np.isnan(y).sum())} missing values; gbm does not allow "
                         "missing values in the response")
    return dist.check_response(y)


def _fit_coded(x, var_names, var_type, var_levels, encoder, y, status, offset, distribution,
               w, var_monotone, n_trees, interaction_depth, n_minobsinnode, shrinkage,
               bag_fraction, n_train, train_fraction, keep_data, verbose, response_name,
               random_state, formula=None, call=None, max_bins=None,
               categorical="native", ts_options=None, group=None):
    n, p = x.shape
    if n < 2:
        raise ValueError(f"the data have {n} row(s); gbm needs at least 2")
    dist = get_distribution(distribution)
    n_trees = int_arg("n_trees", n_trees, 1)
    depth = int_arg("interaction_depth", interaction_depth, 1, MAX_INTERACTION_DEPTH)
    min_obs = int_arg("n_minobsinnode", n_minobsinnode, 1)
    shrinkage = _shrinkage_arg(shrinkage)
    bag_fraction = _fraction_arg("bag_fraction", bag_fraction)
    if n_train is not None and train_fraction is not None:
        raise ValueError("give n_train or train_fraction, not both")
    if n_train is None:
        train_fraction = 1.0 if train_fraction is None else \
            _fraction_arg("train_fraction", train_fraction)
        n_train = int(np.floor(train_fraction * n))
    n_train = int_arg("n_train", n_train, 1, n)
    train_fraction = n_train / n if train_fraction is None else train_fraction
    if n_train * bag_fraction <= 2 * min_obs + 1:
        raise ValueError(
            f"the data set is too small or the subsampling rate too large: n_train * "
            f"bag_fraction = {n_train * bag_fraction:g} must exceed 2 * n_minobsinnode + 1 = "
            f"{2 * min_obs + 1} (lower n_minobsinnode or raise bag_fraction)")
    w_raw = _weights_arg(w, n)
    dist.check_weights(w_raw)
    offset = _offset_arg(offset, n)
    mono = _monotone_arg(var_monotone, p, var_names, var_type)
    if max_bins is not None:
        max_bins = int_arg("max_bins", max_bins, MIN_BINS, MAX_BINS)
        dist = copy.copy(dist)           # its exp mode is set once the data are binned
    if dist.survival_response:
        if status is None:
            raise ValueError(f"distribution {dist.name!r} needs a survival response: use "
                             "Surv(time, status) ~ ... in the formula (or misc= with gbm_fit)")
        y = _check_response(y, n, dist)
        status = np.asarray(status, dtype=float)
    else:
        if status is not None:
            raise ValueError(f"a Surv() response needs distribution='coxph', "
                             f"not {dist.name!r}")
        y = _check_response(y, n, dist)
    # R's gbm.fit: weights are rescaled to sum to the number of rows (not for pairwise)
    w_norm = w_raw * n / np.sum(w_raw)

    # R sorts coxph rows by decreasing time, training and validation parts apart
    perm = None
    if getattr(dist, "bag_by_group", False) or group is not None:
        perm, status, w_norm = _group_rows(dist, group, y, n, n_train, w_raw)
    elif dist.needs_time_order:
        perm = np.concatenate([np.argsort(-y[:n_train], kind="stable"),
                               n_train + np.argsort(-y[n_train:], kind="stable")])
    take = (lambda a: a) if perm is None else (lambda a: None if a is None else a[perm])
    rng = _rng(random_state)
    if hasattr(dist, "set_random_state"):
        dist.set_random_state(rng)
    # categorical predictors replaced by target statistics inside the engine
    ts_encoder, schedule = None, None
    x_engine, var_type_engine = take(x), np.asarray(var_type)
    if not (isinstance(categorical, str) and categorical == "native"):
        from .target_stats import fit_target_statistics

        ts_encoder, x_engine, var_type_engine, schedule = fit_target_statistics(
            categorical, x_engine, take(y), take(w_norm), n_train, var_names,
            np.asarray(var_type), mono, dist, max_bins, rng, **(ts_options or {}))
    problem = BoostProblem(x=x_engine, y=take(y), offset=take(offset), misc=take(status),
                           w=take(w_norm), n_train=n_train, var_type=var_type_engine,
                           var_monotone=mono, distribution=dist, interaction_depth=depth,
                           n_minobsinnode=min_obs, shrinkage=shrinkage,
                           bag_fraction=bag_fraction, max_bins=max_bins)
    P = problem
    init_f = dist.init_f(P.y[:n_train], P.part(P.offset, True), P.w[:n_train],
                         P.part(P.misc, True))
    init_f = float(init_f) if np.ndim(init_f) == 0 else np.asarray(init_f, dtype=float)
    n_out = int(getattr(dist, "n_outputs", 1))
    state = BoostState(init_f, np.full(n, init_f) if n_out == 1 else np.tile(init_f, (n, 1)))
    data = None
    if schedule is None:
        data = problem.training_data()
        # binned data with a bucket per distinct value is R's exact search: keep
        # R's arithmetic there; other binned fits are not bit-identical anyway
        dist.r_exact_math = bool(getattr(data, "exact_bins", True))
    run_boosting(problem, state, n_trees, rng, verbose, data=data, schedule=schedule)

    fit_values = state.f.copy()
    if perm is not None:
        fit_values[perm] = state.f
    data = None
    if keep_data:
        data = {"x": x, "y": y, "offset": offset, "misc": status, "w": w_norm, "w_raw": w_raw}
    return GBMFit(
        init_f=init_f, fit=fit_values, train_error=np.asarray(state.train_error),
        valid_error=np.asarray(state.valid_error),
        oobag_improve=np.asarray(state.oobag_improve), trees=state.trees,
        c_splits=state.c_splits, bag_fraction=bag_fraction, distribution=dist,
        interaction_depth=depth, n_minobsinnode=min_obs, n_train=n_train,
        train_fraction=train_fraction, response_name=response_name, shrinkage=shrinkage,
        var_levels=var_levels, var_monotone=mono, var_names=list(var_names),
        var_type=np.asarray(var_type), verbose=verbose, data=data, encoder=encoder,
        formula=formula, call=call, max_bins=max_bins, num_classes=n_out,
        classes=getattr(dist, "classes", None),
        engine_var_type=var_type_engine, ts_encoder=ts_encoder, categorical=categorical,
        ts_options=ts_options, _rng=rng, _perm=perm, _ts_support=state.support,
    )


def _group_rows(dist, group, y, n, n_train, w_raw):
    """Pairwise: (row order, group codes, weights). Rows go by group then
    decreasing y (training and validation apart); weights are used as given
    (R's gbm.fit does not rescale them for pairwise) and must be constant
    within a group."""
    from .ranking import check_group_weights, sort_within_groups

    if not getattr(dist, "bag_by_group", False):
        raise ValueError(f"group is only used by distribution 'pairwise', not {dist.name!r}")
    if group is None:
        raise ValueError("For pairwise regression, distribution must name the group "
                         "column(s), e.g. {'name': 'pairwise', 'group': 'query', 'metric': "
                         "'ndcg'} (gbm_fit: pass group=)")
    group = np.asarray(group)
    if group.ndim != 1 or group.shape[0] != n:
        raise ValueError(f"group must give one value per row ({n}); got shape {group.shape}")
    perm, codes = sort_within_groups(group, y, n_train)
    check_group_weights(w_raw, codes)
    return perm, codes, w_raw


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
        ts_prior_weight=1.0, ts_max_combination=1):
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
    ``random_state`` seeds the bagging (and the cv folds). ``fold_id`` gives
    cv folds explicitly (one fold number per training row). ``max_bins``
    (e.g. 255) switches to the fast binned mode: predictors are bucketed once
    by quantiles (categoricals stay native, missing values get their own
    bucket); it is close to, but not bit-identical with, R's exact search
    (the default, ``max_bins=None``). ``categorical="ordered_ts"`` (or a
    dict per column) replaces categorical predictors inside the engine by
    CatBoost-style ordered target statistics (``ts_*`` options; see
    :mod:`pygbm.target_stats`); "native" is R's behaviour.
    """
    from .frontend import model_frame

    native = isinstance(categorical, str) and categorical == "native"
    # R's 1024-level cap applies to native categoricals; target statistics have none
    mf = model_frame(formula, data, weights) if native else \
        model_frame(formula, data, weights, max_levels=None)
    if distribution is None:
        n_levels = len(mf.y_levels) if mf.y_levels is not None else None
        distribution = guess_distribution(mf.y, is_surv=mf.is_surv,
                                          is_categorical=mf.y_is_categorical,
                                          n_levels=n_levels)
        warnings.warn(f"Distribution not specified, assuming {distribution} ...",
                      UserWarning, stacklevel=2)
    n = mf.x.shape[0]
    train_fraction = _fraction_arg("train_fraction", train_fraction)
    n_train = int(np.floor(train_fraction * n))
    call = _call_string(formula, distribution, dict(
        n_trees=n_trees, interaction_depth=interaction_depth, shrinkage=shrinkage,
        bag_fraction=bag_fraction, train_fraction=train_fraction, cv_folds=cv_folds))
    common = dict(
        var_monotone=var_monotone, n_trees=n_trees, interaction_depth=interaction_depth,
        n_minobsinnode=n_minobsinnode, shrinkage=shrinkage, bag_fraction=bag_fraction,
        max_bins=max_bins, categorical=categorical,
        ts_options=dict(n_permutations=ts_permutations, prior=ts_prior,
                        prior_weight=ts_prior_weight, max_combination=ts_max_combination))
    rng = _rng(random_state)
    layout, group = None, None
    dist_obj = get_distribution(distribution)
    if dist_obj.name == "multinomial" and mf.y_levels is not None:
        dist_obj.labels = list(mf.y_levels)      # classes named by the factor's levels
        distribution = dist_obj
    if getattr(dist_obj, "bag_by_group", False):
        from .ranking import pairwise_mf, sorted_fold_id

        distribution = dist_obj      # one instance for cv and fit (R warns once)
        mf, layout = pairwise_mf(mf, data, distribution, train_fraction, rng)
        n_train, group = layout.n_train, layout.group
        if fold_id is not None:
            fold_id = sorted_fold_id(fold_id, layout)
    def main_fit():
        return _fit_coded(mf.x, mf.var_names, mf.var_type, mf.var_levels, mf.encoder, mf.y,
                          mf.status, mf.offset, distribution, mf.weights,
                          n_train=n_train, train_fraction=None, keep_data=keep_data,
                          verbose=verbose, response_name=mf.response_name, random_state=rng,
                          formula=formula, call=call, group=group, **common)

    cv = None
    cv_folds = int_arg("cv_folds", cv_folds, 0)
    if cv_folds > 1 or fold_id is not None:
        from .cv import cross_validate

        # the folds draw their seeds from rng first; the main fit continues it
        cv, fit = cross_validate(mf, distribution, n_train, cv_folds, fold_id,
                                 class_stratify_cv, n_cores, rng, common, group=group,
                                 main_fit=main_fit)
    else:
        fit = main_fit()
    fit.train_fraction = train_fraction
    fit.y_levels = mf.y_levels
    if cv is not None:
        fit.cv_error, fit.cv_fitted, fit.cv_folds, fit.fold_id = \
            cv.error, cv.fitted, cv.n_folds, cv.fold_id
    if layout is not None:
        from .ranking import restore_row_order

        restore_row_order(fit, layout)
    return fit


# ---------------------------------------------------------------- gbm_more
def gbm_more(fit: GBMFit, n_new_trees=100, data=None, weights=None, offset=None,
             verbose=None, random_state=None):
    """Add ``n_new_trees`` trees to a fitted model (R's ``gbm.more``).

    Uses the kept training data unless ``data`` (a DataFrame with the
    formula's columns) is given, in which case it must be the same rows.
    """
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a GBMFit, got {type(fit).__name__}")
    n_new_trees = int_arg("n_new_trees", n_new_trees, 1)
    if data is None:
        if not fit.data:
            raise ValueError("gbm_more needs data: the model was fitted with keep_data=False")
        d = fit.data
        x, y, off, status, w_norm = d["x"], d["y"], d["offset"], d["misc"], d["w"]
    else:
        if fit.formula is None:
            raise ValueError("data= is only supported for models fitted with a formula")
        from .frontend import model_frame

        mf = model_frame(fit.formula, data, weights)
        x = _recode(fit, data)
        y, off, status = mf.y, mf.offset, mf.status
        if getattr(fit.distribution, "bag_by_group", False):   # pairwise: the kept groups
            status = fit.data["misc"] if fit.data else None
            if status is None or status.shape[0] != x.shape[0]:
                raise ValueError("gbm_more(data=...) for pairwise needs the kept training "
                                 "data (keep_data=True) and the same rows")
        w_raw = _weights_arg(mf.weights, x.shape[0])
        w_norm = w_raw * x.shape[0] / np.sum(w_raw)
        if not np.allclose(y, fit.data["y"] if fit.data else y):
            warnings.warn("gbm_more: data differ from the training data", UserWarning,
                          stacklevel=2)
    if offset is not None:
        off = _offset_arg(offset, x.shape[0])
    n = x.shape[0]
    if n != fit.fit.shape[0]:
        raise ValueError(f"data have {n} rows but the model was fitted on {fit.fit.shape[0]}")
    perm = fit._perm
    take = (lambda a: a) if perm is None else (lambda a: None if a is None else a[perm])
    x_engine, schedule = take(x), None
    if fit.ts_encoder is not None:
        # the same permutations and statistics as the first fit
        x_engine, schedule = fit.ts_encoder.engine_inputs(
            take(x), take(y), take(w_norm), fit.var_monotone, getattr(fit, "max_bins", None))
    problem = BoostProblem(x=x_engine, y=take(y), offset=take(off), misc=take(status),
                           w=take(w_norm), n_train=fit.n_train, var_type=fit.engine_var_type,
                           var_monotone=fit.var_monotone, distribution=fit.distribution,
                           interaction_depth=fit.interaction_depth,
                           n_minobsinnode=fit.n_minobsinnode, shrinkage=fit.shrinkage,
                           bag_fraction=fit.bag_fraction,
                           max_bins=getattr(fit, "max_bins", None))
    state = BoostState(fit.init_f, take(fit.fit).copy(), list(fit.train_error),
                       list(fit.valid_error), list(fit.oobag_improve), list(fit.trees),
                       list(fit.c_splits), fit._ts_support)
    rng = fit._rng if random_state is None else _rng(random_state)
    run_boosting(problem, state, n_new_trees, rng, fit.verbose if verbose is None else verbose,
                 schedule=schedule)
    fit_values = state.f.copy()
    if perm is not None:
        fit_values[perm] = state.f
    new = GBMFit(**{**fit.__dict__})
    new.fit = fit_values
    new.train_error = np.asarray(state.train_error)
    new.valid_error = np.asarray(state.valid_error)
    new.oobag_improve = np.asarray(state.oobag_improve)
    new.trees, new.c_splits = state.trees, state.c_splits
    new._ts_support = state.support
    new.cv_error = None          # cv errors describe the old number of trees
    new.cv_fitted = None
    return new


def _recode(fit, data):
    from .frontend import model_frame_newdata

    return model_frame_newdata(fit.encoder, data)
