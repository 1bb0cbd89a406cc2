"""qwyc(): Quit When You Can (Wang, Gupta, You 2018) on a fitted binary gbm."""
from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from .._checks import array_arg, as_generator, choice_arg, finite_number, whole_number
from ..distributions import distributions_with
from ..draws import child_seed
from ..messages import warn
from ..model import TRAINING_ROWS_SHARE, GBMFit
from ..rrandom import RRandom
from .build import ORDERS, THRESHOLD_RULES, Rows, Settings, optimise, report
from .model_scores import ModelScores, decision_threshold
from .predictor import EarlyExitPredictor
from .thresholds import MODES

#: qwyc()'s default disagreement budget (a share of the optimisation rows)
DEFAULT_ALPHA = 0.005
#: the threshold rules that set thresholds on the rows (all but the margin rule)
ALGORITHM2 = "thresholds='qwyc' or 'rate'"
#: rows qwyc(honest=True) needs: one for each half
HONEST_LEAST_ROWS = 2
#: trees an early-exit ensemble needs: rows exit between trees
LEAST_TREES = 2
#: the rule of three: after N rows without a disagreement, the rate can still be about
#: 3/N (95% upper bound); an alpha below it is finer than the rows can resolve
RULE_OF_THREE = 3.0

TRAINING_ROWS_WARNING = (
    "qwyc(): data are the fit's training rows. alpha holds exactly on the rows the "
    "thresholds are set on and only there: on new rows the disagreement with the full "
    "model is several times alpha, more so on rows the trees fit closely. Prefer held-out "
    "rows with honest=True, and measure with validation= (or qwyc_tradeoff).")


def _check_fit(fit):
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a fitted gbm (GBMFit), got {type(fit).__name__}")
    distribution = fit.distribution
    if not distribution.zero_one_response:       # its link gives a binary decision
        raise ValueError(f"qwyc() needs a binary decision: fit's distribution must be one of "
                         f"{', '.join(distributions_with('zero_one_response'))}, got "
                         f"{distribution.name!r} "
                         f"(multi-class and regression are not supported)")


def _check_n_trees(fit, n_trees) -> int:
    """The trees of the ensemble: ``n_trees`` given (from 2 to the trees fitted), or
    the fit's best iteration, which must then be 2 or more: rows exit between trees."""
    if fit.n_trees < LEAST_TREES:
        raise ValueError(f"n_trees: qwyc needs a fit of at least {LEAST_TREES} trees (rows "
                         f"exit between trees), got a fit of {fit.n_trees}")
    if n_trees is None:
        best, rule = fit.best_iteration(quiet=True)
        if best < LEAST_TREES:
            raise ValueError(f"n_trees must be at least {LEAST_TREES} (rows exit between "
                             f"trees); the default n_trees, the fit's best iteration "
                             f"(fit.best_iteration(), by {rule}), is {best}: give n_trees from "
                             f"{LEAST_TREES} to {fit.n_trees}")
        return best
    count = whole_number(n_trees)          # 10.0 too, as gbm() and predict() take it
    if count is None or not LEAST_TREES <= count <= fit.n_trees:
        raise ValueError(f"n_trees must be a whole number from {LEAST_TREES} to the "
                         f"{fit.n_trees} trees fitted, got {n_trees!r}")
    return count


def check_every(name: str, value, n_trees: int) -> int:
    """How often rows may exit (``margin_freq``, ``exit_every``): a whole number from
    1 to ``n_trees - 1`` (from ``n_trees`` on no row could stop before the last tree)."""
    every = whole_number(value)
    if every is None or not 1 <= every < n_trees:
        raise ValueError(f"{name} must be a whole number from 1 to {n_trees - 1} (rows may "
                         f"exit after every {name}-th of the {n_trees} trees), got {value!r}")
    return every


def check_margin(name: str, margin) -> float:
    """A margin of the margin rule (``thresholds='margin'``): a positive finite number."""
    if isinstance(margin, np.generic):
        margin = margin.item()                 # an element of an array: -1, not np.int64(-1)
    if not finite_number(margin) or margin <= 0:
        raise ValueError(f"{name} must be a positive number (the margin rule stops a row "
                         f"once 2|score - beta| exceeds it), got {margin!r}")
    return float(margin)


def _check_fraction(name, value, low_open=False):
    if isinstance(value, np.generic):
        value = value.item()                   # an element of an array: 0, not np.int64(0)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
        and (0 < value < 1 if low_open else 0 <= value < 1)
    if not ok:
        interval = "(0, 1)" if low_open else "[0, 1)"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")
    return float(value)


def _check_order(order, n_trees: int):
    if isinstance(order, str):
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(map(repr, ORDERS))} or a "
                             f"permutation of the tree indices, got {order!r}")
        return order
    explicit = array_arg("order", order)
    if explicit.dtype.kind == "f" and np.all(np.isfinite(explicit)) \
            and np.all(explicit == np.round(explicit)):
        explicit = explicit.astype(np.intp)     # whole-valued floats: R's numerics
    if explicit.ndim != 1 or not np.issubdtype(explicit.dtype, np.integer) \
            or not np.array_equal(np.sort(explicit), np.arange(n_trees)):
        raise ValueError(f"order must be a permutation of 0..{n_trees - 1} (0-based tree "
                         f"indices) when given explicitly, got {_describe(explicit)}")
    return explicit.astype(np.intp)


def _check_cost(cost, scores: ModelScores, view) -> np.ndarray:
    if cost is None:
        return np.ones(scores.n_trees)
    if isinstance(cost, str):
        if cost != "path":
            raise ValueError(f"cost must be None, 'path' or an array of {scores.n_trees} "
                             f"positive numbers, got {cost!r}")
        return np.maximum(scores.path_cost(view), 1.0)
    try:
        values = np.asarray(cost, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"cost must be None, 'path' or an array of {scores.n_trees} positive "
                         f"numbers, got {cost!r:.80}") from None
    if values.shape != (scores.n_trees,) or not np.all(np.isfinite(values)) \
            or np.any(values <= 0):
        raise ValueError(f"cost must hold {scores.n_trees} positive finite numbers (one per "
                         f"tree), got {_describe(values)}")
    with np.errstate(over="ignore"):
        total = np.sum(values)
    if not np.isfinite(total):       # the speed-up and the mean cost per row are sums
        raise ValueError(f"cost must have a finite total (the cost of the whole ensemble), "
                         f"got {_describe(values)} whose sum overflows; give the costs in "
                         f"a larger unit (only their ratios matter)")
    return values


def _describe(values: np.ndarray) -> str:
    """What an array argument holds, for an error message: its shape, dtype and range."""
    if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iuf":
        return f"shape {values.shape} of dtype {values.dtype}"
    return (f"{values.size} values of dtype {values.dtype} from {values.min():g} to "
            f"{values.max():g} ({np.unique(values).size} distinct)")


def _check_honest(honest) -> None:
    if not isinstance(honest, bool):
        raise ValueError(f"honest must be True or False, got {honest!r:.80}")


def _seed(random_state) -> int:
    """One seed for the random order and the honest split, the same at every
    point of a trade-off: a whole number as given, else drawn from the
    generator (None: a fresh one). R's stream has no part here."""
    if isinstance(random_state, RRandom):
        raise ValueError("random_state must be None, a non-negative whole number or a numpy "
                         "Generator: R's stream (RRandom) has no meaning for qwyc, which R "
                         "gbm does not have")
    generator = as_generator(random_state)     # checks it
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    return child_seed(generator)


def check_row_count(n: int, name: str, least: int = 1) -> None:
    """``name`` (a table of rows) has at least ``least`` rows."""
    if n < least:
        raise ValueError(f"{name} must have at least {least} row{'s' if least > 1 else ''}, "
                         f"got {n}")


def _scored(scores: ModelScores, fit, data, beta, name: str = "data", offset=None,
            offset_name: str = "offset") -> Rows:
    """The rows of ``data`` (at least one) scored by every tree, from their offsets
    ``offset`` (the argument ``offset_name``; see :meth:`ModelScores.coded`)."""
    view, g0 = scores.coded(fit, data, offset, name=name, offset_name=offset_name)
    check_row_count(g0.shape[0], name)
    return Rows(scores.matrix(view), g0, beta)


def qwyc(fit, data=None, n_trees=None, alpha=DEFAULT_ALPHA, threshold=None, mode="both",
         order="qwyc", cost=None, honest=False, validation=None, max_disagreement=None,
         random_state=None, thresholds="qwyc", margin=None,
         margin_freq=1, exit_every=1, offset=None,
         validation_offset=None) -> EarlyExitPredictor:
    """Early-exit prediction for a binary gbm: an evaluation order of the trees and
    per-position exit thresholds (QWYC, Wang, Gupta and You 2018).

    A row stops after r trees when its partial score (``init_f`` + offset + the
    first r trees of the order) is below ``lower_[r]`` (decided negative) or above
    ``upper_[r]`` (positive). The order (``order="qwyc"``: Algorithm 1, greedy by
    cost per row stopped) and the thresholds (Algorithm 2) are chosen so that on
    the optimisation rows at most floor(alpha N) rows get a decision different
    from the full model's, at the least mean number of trees. No labels are needed.

    **alpha holds on the optimisation rows only.** On new rows the disagreement is
    typically several times alpha (on Adult 2-10x); rows the trees were trained on
    are the worst choice (a warning says so). ``honest=True`` chooses the order on
    one half of ``data`` and the thresholds on the other (cuts the test
    disagreement several-fold, at more trees); ``validation=`` measures the
    disagreement on held-out rows, and ``alpha="auto"`` with ``max_disagreement=``
    searches the largest alpha whose validation disagreement stays within it.
    ``summary()`` also gives a leave-one-out estimate of the disagreement on
    new rows, from the optimisation rows alone.

    Parameters
    ----------
    fit : GBMFit
        A fitted binary gbm: distribution bernoulli, adaboost or huberized.
    data : pandas.DataFrame or numpy.ndarray, optional
        The rows to optimise on (a matrix for ``gbm_fit`` models); no labels
        needed. Default None: the fit's kept training rows (the worst
        choice, see above).
    n_trees : int, optional
        The trees of the ensemble, 2 to ``fit.n_trees``; default None:
        ``fit.best_iteration()`` (the number ``predict`` uses).
    alpha : float or "auto", default 0.005
        The largest share of ``data`` whose early decision may differ from
        the full model's, in [0, 1); "auto" needs ``validation`` and
        ``max_disagreement``.
    threshold : float, optional
        The decision on the response scale (positive iff response >= it);
        default None: 0.5 (bernoulli, adaboost), 0 (huberized, whose
        response is the link).
    mode : {"both", "negative", "positive"}, default "both"
        Which early exits are allowed ("negative": early negatives only, a
        filter-and-score cascade).
    order : {"qwyc", "gbt", "random"} or array-like of int, default "qwyc"
        The evaluation order: Algorithm 1's greedy order, the training
        order, a random one, or a permutation of 0..n_trees-1 (whole
        numbers, as ints or floats).
    cost : None, "path" or array-like of float, default None
        The cost of each tree: 1 each (None), the mean number of split
        nodes a tree evaluates on ``data`` ("path"), or given.
    honest : bool, default False
        Choose the order on one half of ``data`` (Algorithm 1) and the
        thresholds on the other (Algorithm 2); alpha then holds on the
        second half. With a fixed order (``order`` "gbt", "random" or given)
        there is no order to choose and the first half is left unused: the
        thresholds are set on the same half as QWYC's would be, which makes
        the two comparable; ``honest=False`` sets them on all of ``data``.
    validation : pandas.DataFrame, optional
        Rows on which to report the disagreement and the mean trees
        (``summary()``, ``report_``).
    max_disagreement : float, optional
        With ``alpha="auto"``: the largest disagreement allowed on the
        ``validation`` rows, in (0, 1). The alpha is found by doubling and
        bisecting the budget of rows, as if the disagreement grew with alpha;
        on new rows it does so only roughly, so the alpha found keeps the
        target but need not be the largest that does.
    random_state : int or numpy.random.Generator, optional
        Seeds the random order and the honest split.
    thresholds : {"qwyc", "rate", "margin"}, default "qwyc"
        Algorithm 2's thresholds (the paper's: each position spends what
        it can of the disagreement budget, the first ones spend it all);
        "rate": Algorithm 2's cuts with the budget spent only where a
        disagreement stops at least a rate of rows, the least rate that
        keeps alpha (not in the paper; on Adult's test rows 0.46-1.01 of
        the greedy spending's trees at the same disagreement, the fewest
        for the training order; docs/qwyc.md); or LightGBM's
        ``pred_early_stop`` rule (stop once 2|score - beta| > ``margin``,
        checked after every ``margin_freq``-th tree, in the order given by
        ``order``; "qwyc", which needs Algorithm 2's thresholds, gives the
        training order there).
    margin : float, optional
        The margin of ``thresholds="margin"`` (required there; LightGBM's
        ``pred_early_stop_margin``).
    margin_freq : int, default 1
        With ``thresholds="margin"``: check after every ``margin_freq``-th
        tree (LightGBM's ``pred_early_stop_freq``, whose default is 10).
    exit_every : int, default 1
        With ``thresholds="qwyc"`` or ``"rate"``: rows may exit
        after every ``exit_every``-th tree of the order only (and after the
        last); no thresholds in between. Fewer exit points spend alpha on
        fewer thresholds, each set on more rows, so the disagreement on new
        rows stays closer to alpha (on Adult's held-out rows with
        ``honest=True``, 5 needed 6-17% fewer trees at matched test
        disagreement), but no row stops before the ``exit_every``-th tree
        (where the first tree decides most rows, as with a rare response,
        5 needed 3-5 times the trees; docs/qwyc.md). 1 is the paper's rule.
    offset : array-like of float, optional
        The offset of each row of ``data`` (link scale), as
        ``EarlyExitPredictor.predict(newdata, offset=)``: required for a
        model fitted with an ``offset`` argument (``gbm_fit``); a formula's
        ``offset()`` terms are found in ``data``. With ``data`` None: the
        kept training offsets.
    validation_offset : array-like of float, optional
        The offset of each row of ``validation``, as ``offset`` for
        ``data``.

    Returns
    -------
    EarlyExitPredictor
        With ``predict``, ``outcome`` and ``summary``; it holds the trees,
        not the data.

    Notes
    -----
    Not in R. The algorithms are reconstructed from the paper; see the
    design note "Early-exit prediction" (docs/qwyc.md) for what is measured
    and how alpha behaves on new rows.

    Examples
    --------
    >>> pima = pd.read_csv("data/pima2.csv")
    >>> train, held_out = pima.iloc[:500], pima.iloc[500:]
    >>> bfit = pygbm.gbm("diabetes ~ .", data=train, distribution="bernoulli",
    ...                  n_trees=100, interaction_depth=2, random_state=1)
    >>> early = pygbm.qwyc(bfit, held_out, n_trees=100, alpha=0.02, random_state=1)
    >>> early.fit_disagreement_ <= 0.02
    True
    >>> pred = early.predict(held_out)          # decision, n_trees, score, exit
    """
    _check_fit(fit)
    n_trees = _check_n_trees(fit, n_trees)
    choice_arg("mode", mode, MODES)
    choice_arg("thresholds", thresholds, THRESHOLD_RULES)
    if thresholds == "margin":
        check_margin("margin", margin)
    elif margin is not None:
        raise ValueError(f"margin is used with thresholds='margin' only (got margin={margin!r} "
                         f"with thresholds={thresholds!r})")
    margin_freq = check_every("margin_freq", margin_freq, n_trees)
    exit_every = check_every("exit_every", exit_every, n_trees)
    if thresholds != "margin" and margin_freq != 1:    # it would be ignored
        raise ValueError(f"margin_freq is for thresholds='margin' (got margin_freq="
                         f"{margin_freq!r} with thresholds={thresholds!r}; for "
                         f"{ALGORITHM2} rows may exit every k-th tree with exit_every=k)")
    if thresholds == "margin" and exit_every != 1:
        raise ValueError(f"exit_every is for {ALGORITHM2} (got exit_every="
                         f"{exit_every!r} with thresholds='margin', whose check frequency is "
                         f"margin_freq)")
    if thresholds == "margin" and (isinstance(alpha, str) or alpha != DEFAULT_ALPHA):
        raise ValueError(f"alpha is for {ALGORITHM2} (got alpha={alpha!r} with "
                         f"thresholds='margin', whose rule is set by margin alone)")
    if thresholds == "margin" and honest is True:
        raise ValueError(f"honest=True is for {ALGORITHM2} (the margin rule sets "
                         "no thresholds on the rows, so there is nothing to split them for)")
    _check_honest(honest)
    auto = isinstance(alpha, str)
    if auto:
        if alpha != "auto":
            raise ValueError(f"alpha must be a number in [0, 1) or 'auto', got {alpha!r}")
        if validation is None:
            raise ValueError("validation is required with alpha='auto' (the rows on which "
                             "the disagreement is measured)")
        max_disagreement = _check_fraction("max_disagreement", max_disagreement, low_open=True)
    else:
        alpha = _check_fraction("alpha", alpha)
        if max_disagreement is not None:
            raise ValueError("max_disagreement is used with alpha='auto' only")
    decision = decision_threshold(fit.distribution, threshold)
    scores = ModelScores(fit, n_trees)
    order = _check_order(order, n_trees)
    seed = _seed(random_state)

    if validation is None and validation_offset is not None:
        raise ValueError("validation_offset is the offset of the validation rows: give "
                         "validation too (or leave validation_offset None)")
    x = None if data is None else fit._design(data, "data")   # coded once: scores, check
    view, g0 = scores.coded(fit, data, offset, x=x, name="data")
    check_row_count(g0.shape[0], "data (honest=True halves them)" if honest else "data",
                    HONEST_LEAST_ROWS if honest else 1)
    rows = Rows(scores.matrix(view), g0, decision[1])
    settings = Settings(mode, order, _check_cost(cost, scores, view), honest, seed,
                        thresholds, 0.0 if margin is None else float(margin), margin_freq,
                        exit_every)
    training = fit._training_share(x) > TRAINING_ROWS_SHARE
    if training:
        warn(TRAINING_ROWS_WARNING)
    elif not auto and thresholds != "margin" and validation is None:
        _warn_unresolvable(alpha, settings.threshold_row_count(rows.n), honest)
    held_out = None if validation is None else _scored(scores, fit, validation, decision[1],
                                                       "validation", validation_offset,
                                                       "validation_offset")

    if auto:
        alpha = _auto_alpha(rows, held_out, settings, max_disagreement)
    schedule, threshold_rows = optimise(rows, alpha, settings)
    on_validation = None if held_out is None else held_out.run(schedule)
    if auto and on_validation.disagreement(held_out.full_decision) <= max_disagreement:
        _warn_unresolvable_target(max_disagreement, held_out.n, alpha)
    elif auto:          # not even alpha = 0 keeps the target (the search's last resort)
        warn(f"qwyc(): even alpha = 0 disagrees with the full model on "
                      f"{100 * on_validation.disagreement(held_out.full_decision):.2f}% of the "
                      f"validation rows, above max_disagreement = {max_disagreement:g}; try "
                      + ("" if honest else "honest=True, ")
                      + "more optimisation rows, or fewer trees")
    rep = report(schedule, threshold_rows, alpha, settings, training)
    if held_out is not None:
        rep = dataclasses.replace(
            rep, validation_rows=held_out.n,
            validation_disagreement=on_validation.disagreement(held_out.full_decision),
            validation_mean_trees=float(on_validation.n_trees.mean()))
    return EarlyExitPredictor(scores, schedule, decision, settings.cost, rep)


def _warn_unresolvable(alpha: float, n_threshold_rows: int, honest: bool) -> None:
    """Warn when ``alpha`` is finer than the rows the thresholds are set on (half of
    ``data`` when ``honest``) can resolve (the rule of three): the thresholds then fit
    those rows, not the model."""
    if 0 < alpha < RULE_OF_THREE / n_threshold_rows:
        least = int(np.ceil(RULE_OF_THREE / alpha)) * (2 if honest else 1)
        warn(f"qwyc(): alpha = {alpha:g} is finer than {n_threshold_rows} threshold rows can "
             f"resolve (about 3/N = {RULE_OF_THREE / n_threshold_rows:.2%}, the rule of "
             f"three): on new rows expect far more disagreement than alpha; optimise on at "
             f"least {least} rows, or measure with validation=")


def _warn_unresolvable_target(target: float, n_validation: int, alpha: float) -> None:
    """Warn when ``max_disagreement`` is finer than the validation rows can resolve (the
    rule of three, as :func:`_warn_unresolvable` for alpha): the search then keeps the
    target on those rows only, and may have found an alpha that keeps it nowhere else
    (with 2 validation rows and a target of 1%, alpha 0.999: 16% disagreement on the
    optimisation rows)."""
    if target < RULE_OF_THREE / n_validation:
        warn(f"qwyc(): max_disagreement = {target:g} is finer than {n_validation} validation "
             f"rows can resolve (about 3/N = {RULE_OF_THREE / n_validation:.2%}, the rule of "
             f"three): alpha = {alpha:.4g} keeps it on those rows, but on new rows expect "
             f"far more disagreement; validate on at least "
             f"{int(np.ceil(RULE_OF_THREE / target))} rows")


def _auto_alpha(rows: Rows, held_out: Rows, settings: Settings, target: float) -> float:
    """An alpha (a whole budget of rows) whose disagreement on the held-out rows is at
    most ``target``. The budget is searched from ``target`` of the threshold rows,
    doubled while the held-out rows still agree (they may disagree less than the
    optimisation rows), then bisected: the largest such alpha if the disagreement grew
    with alpha, which on held-out rows holds only roughly (from one budget to the next
    it can fall by a few rows), so a larger budget may keep the target too. Scanning
    every budget would run Algorithm 1 once per budget, bisection a few times."""
    n_threshold_rows = settings.threshold_row_count(rows.n)
    full = held_out.full_decision

    def alpha_of(k):            # floor(alpha N) = k exactly
        return (k + 0.5) / n_threshold_rows

    def within(k):
        schedule = optimise(rows, alpha_of(k), settings)[0]
        return held_out.run(schedule).disagreement(full) <= target

    most = n_threshold_rows - 1                 # alpha_of(most) < 1
    low, high = 0, min(most, int(np.floor(target * n_threshold_rows)) + 1)
    while within(high):
        if high == most:
            return alpha_of(most) if most > 0 else 0.0
        low, high = high, min(most, 2 * high)
    while high - low > 1:                       # within(low), not within(high)
        middle = (low + high) // 2
        low, high = (middle, high) if within(middle) else (low, middle)
    return alpha_of(low) if low > 0 else 0.0
