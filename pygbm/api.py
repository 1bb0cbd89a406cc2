"""gbm() and gbm_fit(): R's entry points, R's arguments and defaults (gbm_more,
which continues a fit: :mod:`pygbm.more`).

Each entry point checks its arguments once into :class:`FitOptions`, codes
its data into :class:`CodedData` and calls the fitting function
:func:`pygbm.fitting.fit_coded` (gbm() hands it to the cv folds as well).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from . import cv, frontend
from ._checks import (array_arg, as_generator, bool_arg, complete_group_arg, fraction_arg,
                      int_arg, missing_mask, n_cores_arg, numbers_arg, same_rows_arg,
                      unmasked)
from .call import call_string, given_arguments
from .distributions import get_distribution, guess_distribution
from .costs import cost_spec
from .fitting import CodedData, fit_coded
from .messages import GBMMessage, listed, warn
from .options import fit_options, warn_unused
from .pairwise_rows import pairwise_mf, restore_row_order, sorted_fold_id
from .progress import wanted
from .target_stats.spec import DEFAULT_PERMUTATIONS


# ---------------------------------------------------------------- gbm_fit
#: how gbm_fit's errors name its predictors
_X_WHAT = "x (the predictors)"


def _encode(x, var_names):
    encoder = frontend.PredictorEncoder()
    table = frontend.predictor_table(x, _X_WHAT)       # its type and shape checked first
    if var_names is not None:
        if isinstance(var_names, str) or array_arg("var_names", var_names).ndim != 1:
            raise TypeError(f"var_names must be a list of names, one per column of x, got "
                            f"{var_names!r:.80}")
        var_names = list(var_names)
        if len(var_names) != table.shape[1]:
            raise ValueError(f"var_names must give one name per column of x "
                             f"({table.shape[1]}), got {len(var_names)}")
        dup = [v for i, v in enumerate(var_names) if v in var_names[:i]]
        if dup:
            raise ValueError(f"var_names must be distinct names, got duplicates "
                             f"{list(dict.fromkeys(dup))}")
        if isinstance(x, np.ndarray):       # an array's columns are named by var_names
            table = table.set_axis(var_names, axis=1)
        elif [str(v) for v in var_names] != [str(c) for c in x.columns]:
            # a table's predictors are its columns, by name (predict finds them so): other
            # names would be dropped without a word
            raise ValueError(f"var_names names the columns of an array x; x is a DataFrame "
                             f"whose columns {[str(c) for c in x.columns]} are the "
                             f"predictors' names, got var_names {var_names}: rename the "
                             "columns instead (x.set_axis(var_names, axis=1))")
    coded, names, var_type, var_levels = encoder.fit_transform(table, _X_WHAT)
    return coded, list(names), np.asarray(var_type), var_levels, encoder


def _no_missing_response(y) -> None:
    """gbm_fit's ``y`` has no missing value (NaN, None, pandas' NA): one among
    words, bools or pandas' nullable values was taken for a value of its own (a
    third class, or "not numeric")."""
    missing = int(np.sum(missing_mask(y)))
    if missing:
        raise ValueError(f"y has {missing} missing values; gbm does not allow missing values "
                         "in the response")


def _status_arg(misc) -> np.ndarray:
    """gbm_fit's ``misc``, coxph's event status: numbers, each 0 (censored) or 1
    (event), as R's ``Surv()`` gives gbm.fit; other values (R's 1/2 coding, NaN)
    are refused by name."""
    status = numbers_arg("misc", misc)
    other = np.unique(status[~np.isin(status, (0.0, 1.0))])
    if other.size:
        raise ValueError(f"misc (the event status) must be 0 (censored) or 1 (event), got "
                         f"{other.size} other value(s) such as {listed(other)}; for "
                         "R's 1/2 coding give y=Surv(time, status) (or subtract 1)")
    return status


def _train_rows(train_fraction: float, n: int) -> int:
    """R's ``floor(train_fraction * n)`` training rows; none: a ValueError that
    names train_fraction (not the n_train the user did not give)."""
    n_train = int(np.floor(train_fraction * n))
    if n_train < 1 <= n:
        raise ValueError(f"train_fraction={train_fraction!r} leaves no training row: "
                         f"floor({train_fraction!r} * {n} rows) = 0; give at least 1/{n}")
    return n_train


def _n_train_arg(n_train, train_fraction, n):
    """gbm_fit's training rows: ``n_train`` or ``floor(train_fraction * n)``."""
    if n_train is not None and train_fraction is not None:
        raise ValueError("give n_train or train_fraction, not both")
    if n_train is None:
        train_fraction = 1.0 if train_fraction is None else \
            fraction_arg("train_fraction", train_fraction)
        n_train = _train_rows(train_fraction, n)
    return int_arg("n_train", n_train, 1, n), train_fraction


def gbm_fit(x, y, offset=None, misc=None, distribution="bernoulli", w=None,
            var_monotone=None, n_trees=100, interaction_depth=1, n_minobsinnode=10,
            shrinkage=0.001, bag_fraction=0.5, n_train=None, train_fraction=None,
            keep_data=True, verbose=False, var_names=None, response_name="y",
            random_state=None, max_bins=None, group=None, engine=None,
            progress=None, zero_subsample=None, zero_weight="importance", feature_costs=None,
            feature_costs_model=None, cost_split=0.0, cegb_tradeoff=1.0,
            boosting_type="plain", n_permutations=4, fold_len_multiplier=2.0,
            min_fold_size=None, full_history=False):
    """R's ``gbm.fit``: boosting on a predictor table or matrix, no formula.

    Parameters
    ----------
    x : pandas.DataFrame or numpy.ndarray
        The predictors (R: ``x``): numeric, categorical and ordered columns, or
        a 2-d array.
    y : array-like or Surv
        The response (R: ``y``); for coxph the times (with ``misc``) or a
        :func:`Surv` object. Read by position, as R: a pandas Series whose
        index differs from a DataFrame ``x``'s is refused, and so is a Surv
        built from such Series (so are ``offset``, ``misc``, ``w`` and
        ``group`` then; give ``.to_numpy()``).
    offset : array-like, optional
        Offset per row (R: ``offset``), by position (see ``y``).
    misc : array-like, optional
        coxph's 0/1 event indicator (R: ``misc``).
    distribution : str, dict or Distribution, default "bernoulli"
        The loss, as in :func:`gbm` (R's gbm.fit's default; unlike :func:`gbm`,
        ``gbm_fit`` does not guess it from the response).
    w : array-like, optional
        Row weights (R: ``w``), by position (see ``y``), rescaled to sum to
        the number of rows as in :func:`gbm` (pairwise: used as given, as R's
        ``gbm.fit``).
    var_monotone : sequence of {-1, 0, 1} or dict, optional
        Monotone constraint per predictor (R: ``var.monotone``), or a dict (or a
        pandas Series labelled by names) by predictor name (unlisted: 0).
    n_trees : int, default 100
        Boosting iterations (R: ``n.trees``).
    interaction_depth : int, default 1
        Splits per tree (R: ``interaction.depth``).
    n_minobsinnode : int, default 10
        Fewest training rows in a terminal node (R: ``n.minobsinnode``).
    shrinkage : float, default 0.001
        Learning rate (R: ``shrinkage``; R's gbm.fit default).
    bag_fraction : float, default 0.5
        Share of the training rows drawn for each tree (R: ``bag.fraction``).
    n_train : int, optional
        The first ``n_train`` rows train, the rest validate (R: ``nTrain``).
    train_fraction : float, optional
        Or the share of training rows (R: ``train.fraction``); default all.
    keep_data : bool, default True
        Keep the training data in the fit (R: ``keep.data``).
    verbose : bool, default False
        Print R's iteration table (R: ``verbose``, whose default is TRUE in
        ``gbm.fit``: a notebook would fill with the table).
    var_names : sequence of str, optional
        Predictor names of an array ``x`` (R: ``var.names``); a DataFrame's
        predictors are its columns (other names are refused).
    response_name : str, default "y"
        The response's name (R: ``response.name``).
    random_state : int, numpy.random.Generator or RRandom, optional
        Seeds the bagging.
    max_bins : int, optional
        Fast binned mode (see :func:`gbm`).
    group : array-like, optional
        The group of every row for ``distribution="pairwise"`` (R: ``group``);
        unlike R, rows need not be sorted, but the first ``n_train`` rows must
        hold whole groups.
    engine : {"numba", "numpy"}, optional
        The engine's loops (see :func:`gbm`).
    progress : bool, optional
        A progress bar (see :func:`gbm`).
    zero_subsample : float, optional
        Zero-response subsampling (see :func:`gbm`).
    zero_weight : {"importance", "none", "offset"}, default "importance"
        How kept zeros count (see :func:`gbm`).
    feature_costs : dict or sequence of float, optional
        Cost-efficient boosting (see :func:`gbm`).
    feature_costs_model : dict or sequence of float, optional
        Model-level feature costs (see :func:`gbm`).
    cost_split : float, default 0.0
        Cost of one split per row (see :func:`gbm`).
    cegb_tradeoff : float, default 1.0
        λ, multiplying all costs (see :func:`gbm`).
    boosting_type : {"plain", "ordered"}, default "plain"
        Ordered boosting (see :func:`gbm`).
    n_permutations : int, default 4
        Ordered boosting's permutations (see :func:`gbm`).
    fold_len_multiplier : float, default 2.0
        Growth of ordered boosting's folds (see :func:`gbm`).
    min_fold_size : int, optional
        Ordered boosting's first fold (see :func:`gbm`).
    full_history : bool, default False
        Ordered boosting's supporting values from all earlier rows (see :func:`gbm`).

    Returns
    -------
    GBMFit
        The fitted model.

    Examples
    --------
    >>> import numpy as np, pygbm
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 3))
    >>> fit = pygbm.gbm_fit(x, x[:, 0] + rng.normal(size=200), distribution="gaussian",
    ...                     n_trees=50, shrinkage=0.1)
    """
    given = given_arguments(gbm_fit, locals())
    if not isinstance(response_name, str):
        raise TypeError(f"response_name must be a string (the response's name), got "
                        f"{type(response_name).__name__}")
    coded, names, var_type, var_levels, encoder = _encode(x, var_names)
    for name, value in (("y", y), ("offset", offset), ("misc", misc), ("w", w), ("group", group)):
        same_rows_arg(name, value, x, "x")
    # masked entries missing (np.asarray reads the values beneath the mask)
    y, offset, misc, w, group = (unmasked(v) for v in (y, offset, misc, w, group))
    status = None
    if isinstance(y, frontend.SurvData):
        if misc is not None:        # it would be ignored without a word
            raise ValueError("misc (the event status) was given with a Surv response y, "
                             "which holds the status: give one of them")
        missing = int(y.isna().sum())
        if missing:                 # a missing status too (the times are checked below)
            raise ValueError(f"y (a Surv response) has {missing} row(s) with a missing time "
                             "or status; gbm does not allow missing values in the response")
        y, status = np.asarray(y.time, dtype=float), np.asarray(y.status, dtype=float)
    elif misc is not None:
        status = _status_arg(misc)
    if group is not None:
        complete_group_arg(group)
    if array_arg("y", y).ndim != 1:
        raise ValueError(f"y must be one response per row of x ({coded.shape[0]}), got "
                         f"{type(y).__name__} of shape {np.shape(y)}")
    _no_missing_response(y)
    options = fit_options(distribution, n_trees=n_trees, interaction_depth=interaction_depth,
                          n_minobsinnode=n_minobsinnode, shrinkage=shrinkage,
                          bag_fraction=bag_fraction, var_monotone=var_monotone,
                          var_names=names, var_type=var_type, max_bins=max_bins,
                          keep_data=keep_data, verbose=verbose, engine=engine,
                          progress=progress, zero_subsample=zero_subsample,
                          zero_weight=zero_weight,
                          costs=cost_spec(feature_costs, feature_costs_model, cost_split,
                                          cegb_tradeoff, names, response_name),
                          boosting=dict(boosting_type=boosting_type,
                                        n_permutations=n_permutations,
                                        fold_len_multiplier=fold_len_multiplier,
                                        min_fold_size=min_fold_size,
                                        full_history=full_history))
    warn_unused(given)                         # after the checks: only valid arguments
    n_train, train_fraction = _n_train_arg(n_train, train_fraction, coded.shape[0])
    # y read as gbm()'s model frame reads it: a text or categorical y coded as R's
    # factor (a Categorical's order of categories, not np.asarray's sorted strings),
    # refused by a distribution of numbers (R's gbm.fit would fit its codes)
    y, y_levels = frontend.factor_response(y, response_name)
    _check_factor_response(y_levels, response_name, options.distribution)
    _warn_offset_without_effect(offset, options.distribution)
    if isinstance(distribution, str) and distribution == _GBM_FIT_DEFAULT:
        _default_distribution_fits(options.distribution, y)
    data = CodedData(x=coded, var_names=names, var_type=var_type, var_levels=var_levels,
                     encoder=encoder, y=np.asarray(y), n_train=n_train,
                     train_fraction=train_fraction, status=status, offset=offset, weights=w,
                     weights_name="w", group=group, response_name=response_name,
                     y_levels=y_levels)
    return fit_coded(options, data, random_state)


#: gbm_fit's default distribution (R's gbm.fit's)
_GBM_FIT_DEFAULT = "bernoulli"


def _default_distribution_fits(dist, y) -> None:
    """gbm_fit's default distribution (R's gbm.fit's, bernoulli), which a user of
    gbm() (which guesses one) may not expect: a response it refuses is refused with
    that said (whether the default was left or 'bernoulli' passed: both read true)."""
    try:
        dist.check_response(np.asarray(y))
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{exc}. distribution={_GBM_FIT_DEFAULT!r} is gbm_fit's default, "
                        "as R's gbm.fit's: pass distribution= for another response (e.g. "
                        "'gaussian')") from None


# ---------------------------------------------------------------- gbm


def _check_two_classes(y_levels, response_name, dist):
    """A two-class distribution's text/categorical response needs two levels (its
    codes were refused as the numbers 0.0, 1.0, 2.0, not by their labels)."""
    if y_levels is None or dist.multi_output or len(y_levels) == 2:
        return
    levels = list(y_levels)
    raise ValueError(f"distribution {dist.name!r} needs a response of two classes; the "
                     f"response {response_name} has {len(levels)} (levels {listed(levels)})"
                     + (": use distribution='multinomial'" if len(levels) > 2 else ""))


def _warn_offset_without_effect(offset, dist) -> None:
    """A multi-class fit's offset (one value per row) is added to every class's
    link, which the softmax cancels: it changes nothing (beyond the last bits), and
    would look used."""
    if dist.multi_output and offset is not None and np.any(np.asarray(offset) != 0):
        warn(f"the offset has no effect under distribution {dist.name!r}: a row's offset "
             "is added to every class's link, and the class probabilities (a softmax) do "
             "not change (but for rounding)")


def _check_factor_response(y_levels, response_name: str, dist) -> None:
    """A text/categorical response (its ``y_levels``; None: numbers): refused for
    distributions of numbers (R's gbm would fit its codes); for a two-class
    distribution the 0/1 coding is said (a multinomial fit models every class,
    whatever their number). A logical response is 0/1 without a word."""
    if y_levels is None or tuple(y_levels) == frontend.LOGICAL_LEVELS:
        return
    if not dist.class_response:
        raise ValueError(f"the response {response_name} is text/categorical (levels "
                         f"{listed(y_levels)}); distribution {dist.name!r} needs "
                         "numbers: convert it (e.g. pd.to_numeric) or use a class distribution")
    _check_two_classes(y_levels, response_name, dist)
    if len(y_levels) == 2 and not dist.multi_output:
        warn(f"the response {response_name} is coded {y_levels[0]!r} = 0, "
             f"{y_levels[1]!r} = 1 (the second level is modelled)", GBMMessage)


def _permutations_arg(n_permutations, ts_permutations):
    """``n_permutations``, or its alias ``ts_permutations`` (not both, differing),
    a whole number >= 1 (an error names the one given)."""
    if n_permutations is None:
        return DEFAULT_PERMUTATIONS if ts_permutations is None else \
            int_arg("ts_permutations", ts_permutations, 1)
    if ts_permutations is not None and ts_permutations != n_permutations:
        raise ValueError(f"n_permutations={n_permutations!r} and its alias "
                         f"ts_permutations={ts_permutations!r} differ: give one")
    return int_arg("n_permutations", n_permutations, 1)


def gbm(formula, data, distribution=None, weights=None, var_monotone=None, n_trees=100,
        interaction_depth=1, n_minobsinnode=10, shrinkage=0.1, bag_fraction=0.5,
        train_fraction=1.0, cv_folds=0, keep_data=True, verbose=False,
        class_stratify_cv=None, n_cores=None, random_state=None, fold_id=None,
        max_bins=None, categorical="native", ts_permutations=None, ts_prior=None,
        ts_prior_weight=1.0, ts_max_combination=1, engine=None,
        progress=None, zero_subsample=None, zero_weight="importance", feature_costs=None,
        feature_costs_model=None, cost_split=0.0, cegb_tradeoff=1.0,
        boosting_type="plain", n_permutations=None, fold_len_multiplier=2.0,
        min_fold_size=None, full_history=False):
    """Fit a generalized boosted model from a formula (R's ``gbm()``).

    Parameters
    ----------
    formula : str
        R's model formula (R: ``formula``): ``"y ~ ."``, ``"y ~ a + log(b) - c"``,
        ``"y ~ . - t + offset(log(t))"``, ``"Surv(time, status) ~ ."``.
    data : pandas.DataFrame
        The columns the formula names (R: ``data``). Categorical, string and
        boolean columns are native categorical predictors; NaN is missing.
    distribution : str, dict or Distribution, optional
        The loss (R: ``distribution``): a name ("gaussian", "bernoulli", ...;
        see :func:`available_distributions`), R's list form as a dict
        (``{"name": "quantile", "alpha": 0.25}``; ranking:
        ``{"name": "pairwise", "group": "query", "metric": "ndcg"}``; second-order
        splits, not R's: ``{"name": "bernoulli", "splits": "newton"}``, also
        poisson and multinomial) or an instance. Default None: guessed as R
        does, with R's message.
    weights : str or array-like, optional
        Row weights: a column name or one value per row (R: ``weights``),
        finite, at least 0 and not all 0. As R, the fit rescales them to sum
        to the number of rows (``w * n / sum(w)``), so only their ratios
        matter, and ``n_minobsinnode`` counts rows, not weight. Values are read
        by position, as R: a pandas Series whose index differs from ``data``'s
        is refused (so is ``fold_id`` then); give ``weights.to_numpy()``.
    var_monotone : sequence of {-1, 0, 1} or dict, optional
        Monotone constraint per predictor (R: ``var.monotone``), or a dict (or a
        pandas Series labelled by names) by predictor name (unlisted: 0): +1 the fit increases with it, -1
        decreases (as R, checked at each split; for adaboost and huberized R's
        constraint is reversed, pygbm's is not); default none. Unordered
        categoricals ignore it (a warning says so). For multinomial it holds
        for each class's link, which constrains no probability (the softmax
        ignores what all links share): a class's probability can still fall
        where its link rises.
    n_trees : int, default 100
        Boosting iterations (R: ``n.trees``).
    interaction_depth : int, default 1
        Splits per tree (R: ``interaction.depth``).
    n_minobsinnode : int, default 10
        Fewest training rows in a terminal node (R: ``n.minobsinnode``).
    shrinkage : float, default 0.1
        Learning rate (R: ``shrinkage``).
    bag_fraction : float, default 0.5
        Share of the training rows drawn for each tree (R: ``bag.fraction``).
    train_fraction : float, default 1.0
        The first ``floor(train_fraction * n)`` rows train, the rest are the
        validation set (R: ``train.fraction``).
    cv_folds : int, default 0
        Cross-validation folds; above 1, ``fit.cv_error`` is filled (R: ``cv.folds``).
    keep_data : bool, default True
        Keep the training data in the fit (R: ``keep.data``).
    verbose : bool, default False
        Print R's iteration table (R: ``verbose``).
    class_stratify_cv : bool, optional
        Stratify the cv folds by class (R: ``class.stratify.cv``); default: for
        multinomial only.
    n_cores : int, optional
        Cores for the cv folds (R: ``n.cores``); None (the default) uses every
        core, as R's default. The compiled engine runs the folds in threads,
        the NumPy engine in worker processes. The result does not depend on
        it.
    random_state : int, numpy.random.Generator or RRandom, optional
        Seeds the bagging and the cv folds. ``pygbm.RRandom(seed)`` is R's
        stream after ``set.seed(seed)``: the bags, folds and fold seeds are
        then R's draws in R's order (R's numbers for the same ``set.seed``;
        see :mod:`pygbm.draws`).
    fold_id : array-like of int, optional
        The cv fold of every training row (1..K), instead of random folds
        (``cv_folds``, if given, must be K; ``class_stratify_cv=True`` is
        ignored, with a warning).
    max_bins : int, optional
        Fast binned mode with at most this many buckets per predictor (e.g.
        255); default None: R's exact search.
    categorical : str or dict, default "native"
        "native" (R's categoricals) or "ordered_ts" (CatBoost's ordered target
        statistics), for all categoricals or per column as a dict.
    ts_permutations : int, optional
        Permutations of the ordered target statistics: an alias of
        ``n_permutations`` (default 4).
    ts_prior : float, optional
        Their prior (default: the weighted mean response; with an offset, the
        mean of what the statistics average: the rate per unit of exposure for
        poisson, ``y - offset`` for the identity-link losses).
    ts_prior_weight : float, default 1.0
        Weight of the prior.
    ts_max_combination : int, default 1
        Largest feature combination of categoricals (1: none).
    engine : {"numba", "numpy"}, optional
        The engine's loops: compiled (the default when numba imports) or NumPy;
        the same fit bit for bit.
    progress : bool, optional
        A progress bar: None (default) where someone watches (a terminal or a
        notebook, not CI) and only once the fit has run a few seconds; True
        always; False never. With ``verbose=True`` R's iteration table takes
        the bar's place (no bar, whatever ``progress``).
    zero_subsample : float, optional
        Keep rate l in (0, 1] of the training rows with a zero response: every
        non-zero row is kept and each zero row with probability l, drawn once
        per fit from ``random_state`` (validation rows and the cv folds'
        held-out rows are never subsampled); None or 1: off. Not in R.
    zero_weight : {"importance", "none", "offset"}, default "importance"
        How kept zeros count: weighted 1/l, unweighted (follow with
        :func:`pygbm.calibrate`) or, for bernoulli, unweighted with the
        intercept corrected by log(l) (exact). See :mod:`pygbm.zero_sampling`.
        With importance weights, deep trees and many-level factors, R's split
        search fits the subsample's noise (flights, l = 0.1: +9% test deviance);
        Newton splits (``{"name": "bernoulli", "splits": "newton"}``) with
        ``categorical="ordered_ts"`` lost +0.7% there (docs/zero_subsampling.md).
    feature_costs : dict or sequence of float, optional
        Cost-efficient boosting (CEGB, Peter et al. 2017; docs/cegb.md): the
        cost of reading a predictor for one row (a dict by predictor name,
        unlisted 0, or one value per predictor), paid the first time any tree
        reads it for that row. Not in R.
    feature_costs_model : dict or sequence of float, optional
        The same forms, paid once when the model first uses the predictor.
    cost_split : float, default 0.0
        The cost of one split per row evaluating it.
    cegb_tradeoff : float, default 1.0
        λ, multiplying all costs: candidate splits are compared by their gain
        less λ times their new cost; trees may stop before
        ``interaction_depth`` splits. With no costs the fit is R's, unchanged;
        with costs both engines give the same fit (the compiled one applies
        them in its own growers, except with case weights or feature
        combinations). ``fit.predict_cost(newdata)`` gives each row's
        prediction cost. With a bernoulli or poisson response, Newton splits
        (``{"name": "bernoulli", "splits": "newton"}``) penalise the gain the
        paper and LightGBM penalise, and gave the better cost-accuracy fronts
        in docs/cegb.md's measurements.
    boosting_type : {"plain", "ordered"}, default "plain"
        "ordered": CatBoost's ordered boosting (Prokhorenkova et al. 2018,
        :mod:`pygbm.ordered`, docs/ordered_boosting.md): each tree grown from
        gradients of supporting models that never saw the row, its leaves
        fitted as plain. It runs on the histogram search (``max_bins`` 255
        unless given), where R's bit-exactness is not a goal; multinomial,
        pairwise and coxph are refused. With Newton splits (``{"name":
        "bernoulli", "splits": "newton"}``, poisson too) the ordered score is
        formed from Newton statistics (CatBoost's NewtonCosine). "plain" is
        R's boosting. Not in R. Not better on every data set: on small ones it was level with or worse
        than plain boosting, as CatBoost's is (docs/ordered_boosting.md);
        compare both on held-out rows.
    n_permutations : int, optional
        Random permutations of the training rows (CatBoost's
        ``permutation_count``; default 4); with ``categorical="ordered_ts"``
        they serve the target statistics too (``ts_permutations``: alias).
    fold_len_multiplier : float, default 2.0
        Ordered boosting: each body/tail fold is this many times the last (> 1).
    min_fold_size : int, optional
        Ordered boosting: the first fold's rows; default CatBoost's rule (1 up
        to 500 rows, else min(100, n / 50)).
    full_history : bool, default False
        CatBoost's ``approx_on_full_history``: ordered boosting gives every row
        of a fold's tail the leaf values of all the rows before it (not only
        the fold's body); slower. Not for laplace, quantile and tdist (their
        leaf values are medians and M-estimates).

    Returns
    -------
    GBMFit
        The fitted model (R's ``gbm`` object).

    Notes
    -----
    The numbers are R's (``bag_fraction=1`` fits agree with R gbm 2.1.8 to
    about 1e-14). Bagged fits and cv folds with an integer or a NumPy
    ``random_state`` (the default) match R statistically, not draw for draw;
    with ``random_state=pygbm.RRandom(seed)`` they take R's draws and give R's
    numbers (not yet pairwise with ``bag_fraction < 1``). Unlike R, relative
    influence works for every distribution, cv folds use their own rows'
    weights, quantile regression takes weights and the multinomial is
    Friedman's K-class algorithm.

    Examples
    --------
    >>> import pandas as pd, pygbm
    >>> boston = pd.read_csv("data/boston.csv")
    >>> fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=100,
    ...                 cv_folds=3, random_state=1)
    >>> best = pygbm.gbm_perf(fit, method="cv", plot_it=False)
    """
    given = given_arguments(gbm, locals())
    n_permutations = _permutations_arg(n_permutations, ts_permutations)
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
    cv_folds, n_cores = int_arg("cv_folds", cv_folds, 0), n_cores_arg(n_cores)
    if class_stratify_cv is not None:
        class_stratify_cv = bool_arg(class_stratify_cv, "class_stratify_cv")
    n_train = _train_rows(train_fraction, n)
    if fold_id is not None and hasattr(data, "iloc"):     # one fold per training row
        same_rows_arg("fold_id", fold_id, data.iloc[:n_train], f"data.iloc[:{n_train}]")
    call = call_string(formula, distribution, dict(
        n_trees=n_trees, interaction_depth=interaction_depth, shrinkage=shrinkage,
        bag_fraction=bag_fraction, train_fraction=train_fraction, cv_folds=cv_folds),
        given)
    rng = as_generator(random_state)
    dist = get_distribution(distribution)
    _check_factor_response(mf.y_levels, mf.response_name, dist)
    _warn_offset_without_effect(mf.offset, dist)
    options = fit_options(
        dist, n_trees=n_trees, interaction_depth=interaction_depth,
        n_minobsinnode=n_minobsinnode, shrinkage=shrinkage, bag_fraction=bag_fraction,
        var_monotone=var_monotone, var_names=mf.var_names, var_type=mf.var_type,
        max_bins=max_bins, categorical=categorical,
        ts_options=dict(n_permutations=n_permutations, prior=ts_prior,
                        prior_weight=ts_prior_weight, max_combination=ts_max_combination),
        keep_data=keep_data, verbose=verbose, progress=progress, formula=formula, call=call,
        engine=engine, zero_subsample=zero_subsample, zero_weight=zero_weight,
        costs=cost_spec(feature_costs, feature_costs_model, cost_split, cegb_tradeoff,
                        mf.var_names, mf.response_name,
                        [t.label for t in mf.encoder.offset_terms]),
        boosting=dict(boosting_type=boosting_type, n_permutations=n_permutations,
                      fold_len_multiplier=fold_len_multiplier, min_fold_size=min_fold_size,
                      full_history=full_history, max_combination=ts_max_combination))
    warn_unused(given)                         # after the checks: only valid arguments
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
    if cv_folds > 1 or fold_id is not None:
        # the folds draw their seeds from rng first; the main fit continues it
        fold_fit = functools.partial(
            fit_coded, options.replace(keep_data=False, digest_rows=False, verbose=False,
                                       progress=False, formula=None, call=None))
        spec = cv.CVSpec(cv_folds, fold_id, class_stratify_cv, n_cores,
                         progress=wanted(options.progress, options.verbose),
                         threads=options.engine == "numba")
        result, fit = cv.cross_validate(coded, fold_fit, spec, dist, rng,
                                        main_fit=main_fit)
    else:
        fit = main_fit()
    if result is not None:
        fit = dataclasses.replace(fit, cv_error=result.error, cv_fitted=result.fitted,
                                  cv_folds=result.n_folds, fold_id=result.fold_id)
    if layout is not None:
        fit = restore_row_order(fit, layout)
    return fit
