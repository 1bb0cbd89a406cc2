"""One fit: checked options + coded data -> GBMFit (R's ``gbm.fit`` after its
argument checks).

:func:`fit_coded` is the fitting function every entry point uses: gbm_fit
on its coded table, gbm() on its model frame, each cv fold on its rows. It
goes through small steps with declared inputs: the rows and targets of the
data are checked (:func:`check_rows`, :func:`check_targets`), the rows put
in the order the engine needs (:func:`row_order`: pairwise groups, coxph
times), categorical predictors replaced by target statistics if asked
(:func:`engine_matrix`), the boosting problem set up and run, and the fitted
object built (:func:`build_fit`). :func:`continue_fit` is gbm_more's: the
same problem on the kept rows, continued from the fitted state.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ._checks import (array_arg, as_generator, int_arg, offset_arg, permutations_arg,
                      rescaled_weights_arg, weights_arg)
from ._rmath import r_sum
from .distributions import FitContext
from .draws import child_seed, is_r_stream
from .costs import cost_tracker, engine_columns, warn_no_split
from .engine.boost import BoostProblem, BoostState, run_boosting
from .engine.factory import training_data
from .engine.schemes import PlainBoosting
from .engine.tree_list import TreeList
from .messages import warn
from .model import GBMFit
from .options import FitOptions
from .response import KeptData, Response, rows_digest, take_rows
from .pairwise_rows import check_group_weights, sort_within_groups
from .ordered.scheme import (NativeViews, OrderedBoosting, OrderedModels, OrderedProblem,
                             ScheduleViews)
from .progress import progress_bar, wanted
from .target_stats import fit_target_statistics, training_inputs
from .target_stats.scheme import OrderedPlainBoosting
from .zero_sampling import ZeroSample, draw_zero_sample


@dataclass(frozen=True, eq=False)
class CodedData:
    """The rows of one fit, coded (training rows first): what R's gbm.fit receives."""

    x: np.ndarray                   # (n, p) coded predictors
    var_names: list
    var_type: np.ndarray
    var_levels: list
    encoder: object                 # codes new data as x was coded (PredictorEncoder)
    y: np.ndarray
    n_train: int                    # the first n_train rows train, the rest validate
    #: the fraction recorded on the fit (None: n_train / n)
    train_fraction: float | None = None
    status: np.ndarray | None = None    # coxph: event indicator
    offset: np.ndarray | None = None
    weights: np.ndarray | None = None   # raw case weights (None: all 1)
    weights_name: str = "weights"       # the weights' argument, named by their errors
    group: np.ndarray | None = None     # pairwise: group of every row
    response_name: str = "y"
    y_levels: list | None = None        # levels of a categorical response

    def rows(self, order: np.ndarray, n_train: int) -> CodedData:
        """These data restricted to (and ordered by) ``order``: a cv fold."""
        return dataclasses.replace(
            self, x=self.x[order], y=np.asarray(self.y)[order], n_train=n_train,
            train_fraction=None, status=take_rows(self.status, order),
            offset=take_rows(self.offset, order), weights=take_rows(self.weights, order),
            group=take_rows(self.group, order))


# ---------------------------------------------------------------- checks of the data
def check_rows(data: CodedData, options: FitOptions) -> None:
    """Enough rows, a valid n_train, and bags large enough for the leaves."""
    n = data.x.shape[0]
    if n < 2:
        raise ValueError(f"the data have {n} row(s); gbm needs at least 2")
    n_train = int_arg("n_train", data.n_train, 1, n)
    short = bag_shortfall(n_train, options)
    if short is not None:
        raise ValueError(f"the data set is too small or the subsampling rate too large: "
                         f"{short} (lower n_minobsinnode or raise bag_fraction)")


def bag_shortfall(n_train: int, options: FitOptions) -> str | None:
    """Why bags of ``n_train`` training rows are too small for two leaves of
    ``n_minobsinnode`` rows (R's check); None when they are not."""
    min_obs = options.n_minobsinnode
    if n_train * options.bag_fraction > 2 * min_obs + 1:
        return None
    return (f"n_train * bag_fraction = {n_train * options.bag_fraction:g} must exceed 2 * "
            f"n_minobsinnode + 1 = {2 * min_obs + 1}")


def _check_response(y, n, dist, name: str):
    """The response checked by the distribution; ``name`` is the response's
    name (the formula's left-hand side; gbm_fit's ``response_name``), which
    the errors give where the distribution's message says ``y``."""
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} values but x has {n} rows")
    if y.dtype.kind in "fc" and np.isnan(y.astype(float)).any():
        raise ValueError(f"the response {name} has {int(np.isnan(y).sum())} missing values; "
                         "gbm does not allow missing values in the response")
    try:
        return dist.check_response(y)
    except (ValueError, TypeError) as exc:
        if name == "y":
            raise
        raise type(exc)(f"{exc} (y: the response {name})") from None


def check_targets(data: CodedData, dist) -> Response:
    """Weights, offset and response checked; weights rescaled to sum to the
    number of rows as R's gbm.fit rescales them (``w * n / sum(w)``, R's
    ``sum()`` adding in long double: the weights' last bits, which decide ties
    between splits, are R's)."""
    n = data.x.shape[0]
    w_raw = weights_arg(data.weights, n, name=data.weights_name)
    dist.check_weights(w_raw)
    if not np.any(w_raw[:data.n_train] > 0):     # R: an initial value of 0/0
        raise ValueError(f"{data.weights_name} must give some training row weight: all "
                         f"{data.n_train} "
                         f"training rows (before the validation rows) have weight 0")
    n_valid = n - data.n_train
    if n_valid and not np.any(w_raw[data.n_train:] > 0):   # valid_error: 0/0
        raise ValueError(f"{data.weights_name} must give some validation row weight: all "
                         f"{n_valid} "
                         f"validation rows (after the first {data.n_train} rows, see "
                         "train_fraction) have weight 0, so their deviance, valid_error, "
                         "would be 0/0")
    offset = offset_arg(data.offset, n)
    status = data.status
    if dist.survival_response:
        if status is None:
            raise ValueError(f"distribution {dist.name!r} needs a survival response: use "
                             "Surv(time, status) ~ ... in the formula (or misc= with gbm_fit)")
        y = _check_response(data.y, n, dist, data.response_name)
        status = np.asarray(status, dtype=float)
        if status.ndim != 1 or status.shape[0] != n:
            raise ValueError(f"misc (the event status) must have one value per row ({n}), "
                             f"got shape {status.shape}")
        if not np.any(status[:data.n_train] != 0):
            raise ValueError(f"{dist.name}: every training observation is censored (status "
                             "all 0): there is no event to fit")
        if not np.any((status[:data.n_train] != 0) & (w_raw[:data.n_train] > 0)):
            raise ValueError(f"{data.weights_name}: every training event (status 1) has "
                             f"weight 0, so "
                             f"{dist.name}'s partial likelihood has no term to fit (R's fit is "
                             "NaN): give some events weight")
    else:
        if status is not None:
            raise ValueError(f"a Surv() response (or gbm_fit's misc, the event status) "
                             f"needs distribution='coxph', not {dist.name!r}")
        y = _check_response(data.y, n, dist, data.response_name)
        dist.check_initial_value(y[:data.n_train], w_raw[:data.n_train])
    if dist.bag_by_group or data.group is not None:   # weights used as given
        with np.errstate(over="ignore", invalid="ignore"):
            w = w_raw * n / r_sum(w_raw)
    else:
        w = rescaled_weights_arg(w_raw, n, w_raw, f"w * n / sum(w), n = {n},")
    return Response(y=y, misc=status, offset=offset, w=w, w_raw=w_raw)


# ---------------------------------------------------------------- row order
def row_order(data: CodedData, targets: Response, dist) -> tuple[np.ndarray | None, Response]:
    """The engine's row order (None: as given) and the targets for it, before
    reordering: pairwise rows by group then decreasing y (misc = group codes,
    weights as given), coxph rows by decreasing time; training and
    validation rows apart, as R sorts them."""
    n_train = data.n_train
    if dist.bag_by_group or data.group is not None:
        perm, codes = _group_rows(data.group, targets, n_train, dist)
        return perm, dataclasses.replace(targets, misc=codes, w=targets.w_raw)
    if dist.needs_time_order:
        y = targets.y
        perm = np.concatenate([np.argsort(-y[:n_train], kind="stable"),
                               n_train + np.argsort(-y[n_train:], kind="stable")])
        return perm, targets
    return None, targets


def _group_rows(group, targets: Response, n_train, dist):
    """Pairwise: (row order, group codes). Weights are used as given (R's
    gbm.fit does not rescale them for pairwise) and must be constant within
    a group."""
    if not dist.bag_by_group:
        raise ValueError(f"group is only used by distribution 'pairwise', not {dist.name!r}")
    if group is None:
        raise ValueError("For pairwise regression, distribution must name the group "
                         "column(s), e.g. {'name': 'pairwise', 'group': 'query', 'metric': "
                         "'ndcg'} (gbm_fit: pass group=)")
    group = array_arg("group", group)
    n = targets.y.shape[0]
    if group.ndim != 1 or group.shape[0] != n:
        raise ValueError(f"group must give one value per row ({n}); got shape {group.shape}")
    perm, codes = sort_within_groups(group, targets.y, n_train)
    check_group_weights(targets.w_raw, codes)
    return perm, codes


def restore_order(values: np.ndarray, perm) -> np.ndarray:
    """Per-row results of the engine's row order back in the data's order."""
    out = values.copy()
    if perm is not None:
        out[perm] = values
    return out


# ---------------------------------------------------------------- the engine
def check_stream(options: FitOptions, rng) -> None:
    """R's stream reproduces R's draws; R has no target statistics, no
    zero-response subsampling and no ordered boosting."""
    if not is_r_stream(rng):
        return
    if options.target_stats is not None or options.zero_subsample is not None:
        raise ValueError("random_state=RRandom(...) draws R's random numbers, and R gbm has "
                         "no target statistics or zero subsampling: use categorical='native' "
                         "and no zero_subsample with it, or a NumPy random_state")
    if options.ordered is not None:
        raise ValueError("random_state=RRandom(...) draws R's random numbers, and R gbm has "
                         "no ordered boosting: use a NumPy random_state with "
                         "boosting_type='ordered'")


@dataclass(frozen=True, eq=False)
class EngineInputs:
    """The predictors as the engine sees them (target statistics in place of
    categoricals), in the engine's row order."""

    x: np.ndarray
    var_type: np.ndarray
    ts_encoder: object = None       # TargetStatisticsEncoder, or None ("native")
    schedule: object = None         # per-iteration training data, or None


def engine_matrix(data: CodedData, targets: Response, options: FitOptions, dist,
                  rng) -> EngineInputs:
    """Fit the target statistics of ``options.target_stats`` (none for "native")."""
    if options.target_stats is None:
        return EngineInputs(data.x, np.asarray(data.var_type))
    ts_encoder, x_engine, var_type_engine, schedule = fit_target_statistics(
        options.target_stats, data, targets, tree_monotone(options, dist), dist,
        options.max_bins, rng)
    return EngineInputs(x_engine, var_type_engine, ts_encoder, schedule)


def tree_monotone(options: FitOptions, dist) -> np.ndarray:
    """``var_monotone`` as the trees apply it, to the working response: turned by
    the distribution's ``z_sign``, so that +1 makes the fitted link increase with
    the predictor for every distribution. R 2.1.8 applies it to adaboost's and
    huberized's working responses as they are (the loss's derivative, not its
    negative), so that there its +1 gives a decreasing fit: an R bug, fixed
    (docs/coming_from_r.md)."""
    return options.var_monotone * int(dist.z_sign)


def library_math(training, dist) -> bool:
    """Whether the fit's exp and log are the C library's (``FitContext.r_exact_math``).

    R's exact search needs them for R's bits. A binned fit is not bit-identical
    to R, but the compiled loop, whose kernels call the C library's functions,
    runs every binned fit of one output bagged row by row; the NumPy loop
    computes as they do, so that the two engines agree bit for bit. Only the
    binned fits the compiled loop never runs (several outputs, groups bagged
    whole: multinomial, pairwise) take NumPy's faster SIMD functions.
    ``training`` None: ordered target statistics, whose views keep R's arithmetic.
    """
    if training is None or training.r_arithmetic:
        return True
    return not (dist.multi_output or dist.bag_by_group)


def boost_problem(x, targets: Response, n_train, var_type, options: FitOptions,
                  dist, context: FitContext, adjustment=None) -> BoostProblem:
    """The engine's fixed inputs of a fit (rows in the engine's order);
    ``adjustment``: the split-gain adjustment (a CEGB cost tracker) or None."""
    return BoostProblem(x=x, targets=targets.loss_targets(),
                        n_train=n_train, var_type=var_type,
                        var_monotone=tree_monotone(options, dist), distribution=dist,
                        context=context,
                        interaction_depth=options.interaction_depth,
                        n_minobsinnode=options.n_minobsinnode, shrinkage=options.shrinkage,
                        bag_fraction=options.bag_fraction, max_bins=options.max_bins,
                        gain_adjustment=adjustment, engine=options.engine)


def _start(problem: BoostProblem, dist, tracker) -> BoostState:
    init_f = dist.init_f(problem.train_targets(), problem.context)
    init_f = float(init_f) if np.ndim(init_f) == 0 else np.asarray(init_f, dtype=float)
    if not np.all(np.isfinite(init_f)):      # else a fit of NaN, with NumPy's warnings only
        raise ValueError(f"the initial value is not finite ({init_f}): the offset or the "
                         f"response is too extreme for {dist.name}'s link (e.g. an offset "
                         "whose exp underflows or overflows); rescale it")
    return BoostState(init_f, _initial_f(problem, init_f, problem.x.shape[0]), rows=tracker)


def _initial_f(problem: BoostProblem, init_f, n: int) -> np.ndarray:
    """Every row's link at the initial value (one column per class for a
    multi-output distribution)."""
    return np.full(n, init_f) if problem.context.n_outputs == 1 else np.tile(init_f, (n, 1))


def _start_deviance(problem: BoostProblem, dist, init_f) -> float:
    """The training deviance at the initial value, before any tree (read only
    when a fit's first deviance is infinite: a pairwise deviance draws its
    tie-breaking noise, which would move the fit's stream)."""
    with np.errstate(all="ignore"):
        return float(dist.deviance(problem.train_targets(),
                                   _initial_f(problem, init_f, problem.n_train),
                                   problem.context))


def subsample_zeros(data: CodedData, options: FitOptions, rng) -> tuple[ZeroSample, CodedData]:
    """Zero-response subsampling (:mod:`pygbm.zero_sampling`): the kept
    training rows, drawn first from ``rng``, and the data restricted to them
    (validation rows whole), before R's weight normalisation."""
    y_train = check_targets(data, options.distribution).y[:data.n_train]
    sample = draw_zero_sample(y_train, options, rng)
    return sample, sample.apply(data)


def ordered_scheme(problem: BoostProblem, options: FitOptions, training, schedule,
                   seed) -> OrderedBoosting:
    """Ordered boosting's scheme: on the target statistics' permutations
    (``schedule``) or, native categoricals, on permutations of ``seed``."""
    views = ScheduleViews(schedule) if schedule is not None else NativeViews(
        training, permutations_arg("n_permutations", options.ordered.n_permutations,
                                   training.n), seed)
    return OrderedBoosting(OrderedProblem(problem.train_targets(), problem.distribution,
                                          problem.context, options.interaction_depth,
                                          options.n_minobsinnode, options.ordered,
                                          options.engine),
                           views, seed)


# ---------------------------------------------------------------- the fitting function
def fit_coded(options: FitOptions, data: CodedData, random_state=None) -> GBMFit:
    """Fit ``options.n_trees`` iterations on ``data`` (R's gbm.fit).

    ``random_state``: a seed or a Generator (used as is, so the caller's
    generator continues), or R's stream (:class:`pygbm.RRandom`, continued
    likewise: the bags and pairwise's tie-breaking noise are R's draws, see
    :mod:`pygbm.draws`).
    """
    check_rows(data, options)
    dist = options.distribution        # stateless: what the fit learns is its context
    rng = as_generator(random_state)
    check_stream(options, rng)
    sample = None
    if options.zero_subsample is not None:
        sample, data = subsample_zeros(data, options, rng)
        short = bag_shortfall(data.n_train, options)
        if short is not None:       # the keep rate made the rows too few: say so
            raise ValueError(f"zero_subsample={sample.rate:g} kept {sample.n_kept} of the "
                             f"{sample.n_train_full} training rows, too few for the leaves: "
                             f"{short} (raise zero_subsample, lower n_minobsinnode or "
                             f"raise bag_fraction)")
        check_rows(data, options)
    targets = check_targets(data, dist)
    classes = dist.response_classes(np.asarray(data.y), data.y_levels)
    perm, targets = row_order(data, targets, dist)
    engine_targets = targets.take(perm)
    noise_rng = dist.noise_generator(rng)
    rows = data if perm is None else dataclasses.replace(data, x=data.x[perm])
    engine = engine_matrix(rows, engine_targets, options, dist, rng)
    training = None
    if engine.schedule is None:
        training = training_data(engine.x[:data.n_train], engine.var_type,
                                 tree_monotone(options, dist), options.max_bins, options.engine)
    context = FitContext(classes=classes, noise_rng=noise_rng,
                         r_exact_math=library_math(training, dist))
    tracker = cost_tracker(options.costs, engine_columns(data.x.shape[1], engine.ts_encoder),
                           data.n_train, engine_targets.w[:data.n_train])
    problem = boost_problem(engine.x, engine_targets, data.n_train, engine.var_type, options,
                            dist, context, tracker)
    state = _start(problem, dist, tracker)
    if sample is not None:
        state = sample.start(state, data.n_train)
    if options.ordered is None:
        scheme = PlainBoosting(training) if engine.schedule is None else \
            OrderedPlainBoosting(engine.schedule)
    else:
        seed = None if engine.schedule is not None else child_seed(rng)
        scheme = ordered_scheme(problem, options, training, engine.schedule, seed)
        state.support = OrderedModels(seed)
    with progress_bar(wanted(options.progress, options.verbose), options.n_trees, "gbm",
                      "iteration") as bar:
        run_boosting(problem, state, options.n_trees, rng, options.verbose, scheme, bar)
    if sample is not None:
        state = sample.finish(state, data.n_train)
    fit = build_fit(data, options, problem, targets, state, engine, rng, perm, sample)
    warn_no_split(fit)
    start_error = 0.0
    if fit.train_error.size and fit.train_error[0] == np.inf:   # overflowing from the start?
        start_error = _start_deviance(problem, dist, fit.init_f)
    check_deviance(fit.train_error, fit.trees, 0, start_error)
    return fit


def check_deviance(train_error, trees, n_before: int, start_error: float = 0.0) -> None:
    """Say why the training deviance stops being a number, if it does: a bag
    without weight (an error: every later prediction is NaN, as R's), a
    response too large for it (``start_error``, the deviance at the initial
    value, is already infinite), or the Newton steps of a nearly singular leaf
    (a warning: e.g. coxph with shrinkage 1, leaf values of 1e5 and a deviance
    of -inf; R aborts there), whose later numbers are not usable and nothing
    else would say so. ``trees``: the fit's, ``n_before``: iterations a
    continued fit had."""
    errors = np.asarray(train_error, dtype=float)
    bad = np.flatnonzero(~np.isfinite(errors[n_before:]))
    if not bad.size:
        return
    first = n_before + int(bad[0])
    per_iteration = len(trees) // errors.shape[0]
    if any(trees[first * per_iteration + k].weight[0] == 0.0 for k in range(per_iteration)):
        raise ValueError(f"weights: the bag of iteration {first + 1} holds no row of positive "
                         "weight, so its tree's values are 0/0 and every prediction from "
                         "there on is NaN (as R's): raise bag_fraction or give more rows "
                         "weight")
    if first == 0 and np.isnan(errors[0]):     # undefined from the start, not diverged
        warn("the training deviance is NaN from the first iteration: it is undefined on "
             "these training rows (pairwise: no group with two relevance levels)")
        return
    if first == 0 and start_error == np.inf:   # too large from the start, not diverged
        warn("the training deviance is infinite from the initial value on: it overflows "
             "the doubles on this response's (or offset's) scale (R's too); the trees are "
             "fitted, but rescale the response (or the offset) to read the deviance and "
             "what depends on it (gbm_perf, cv_error)")
        return
    warn(f"the training deviance is not finite from iteration {first + 1} on: the boosting "
         "diverged (its leaf values grew without bound); use a smaller shrinkage or a larger "
         "n_minobsinnode, or predict with fewer trees")


def formula_offset(encoder) -> bool:
    """Whether ``encoder`` (a :class:`pygbm.frontend.PredictorEncoder`) finds
    the offset of new rows in them (a formula's ``offset()`` terms)."""
    return bool(encoder.offset_terms)


def build_fit(data: CodedData, options: FitOptions, problem: BoostProblem, targets: Response,
              state: BoostState, inputs: EngineInputs, rng, perm,
              zero_sample: ZeroSample | None = None) -> GBMFit:
    """The fitted object of a finished fit (per-row values in the data's order)."""
    n = data.x.shape[0]
    kept = None
    if options.keep_data:
        kept = KeptData(data.x, targets)
    train_fraction = data.n_train / n if data.train_fraction is None else data.train_fraction
    return GBMFit(
        options=options, distribution=problem.distribution, context=problem.context,
        init_f=state.init_f, trees=state.trees,
        c_splits=state.c_splits, num_classes=problem.context.n_outputs,
        classes=problem.context.classes, train_error=np.asarray(state.train_error),
        valid_error=np.asarray(state.valid_error),
        oobag_improve=np.asarray(state.oobag_improve), fit=restore_order(state.f, perm),
        n_train=data.n_train, train_fraction=train_fraction,
        response_name=data.response_name, var_names=list(data.var_names),
        var_type=np.asarray(data.var_type), var_levels=data.var_levels,
        encoder=data.encoder, data=kept, y_levels=data.y_levels,
        engine_var_type=inputs.var_type, ts_encoder=inputs.ts_encoder, rng=rng,
        row_order=perm, ts_support=state.support, zero_sample=zero_sample,
        cost_tracker=state.rows,
        # a multi-class offset has no effect (the softmax cancels it): new rows need none
        matrix_offset=targets.offset is not None and not formula_offset(data.encoder)
        and not problem.distribution.multi_output,
        rows_digest=None if kept is not None or not options.digest_rows else rows_digest(
            data.x, targets.y, targets.offset, targets.misc),
        weighted=_given_weights(targets, zero_sample))


def _given_weights(targets: Response, zero_sample: ZeroSample | None) -> bool:
    """Whether a fit's rows had case weights: whether its weights as normalised (R's
    ``w * n / sum(w)``) differ from those of no weights, zero subsampling's
    importance factors apart (equal weights normalise to 1: none, when exactly)."""
    ones = np.ones_like(targets.w_raw)
    unweighted = ones if zero_sample is None else zero_sample.raw_weights(ones)
    n = unweighted.shape[0]
    return not np.array_equal(targets.w, unweighted * n / r_sum(unweighted))


def continue_fit(fit: GBMFit, x, targets: Response, n_trees, report, rng) -> GBMFit:
    """gbm_more: ``n_trees`` more iterations of ``fit`` on its rows ``x`` and
    ``targets`` (the data's order), the engine set up as the first fit's;
    ``report``: (verbose, progress) as gbm_more was asked."""
    check_stream(fit.options, rng)     # gbm_more(random_state=RRandom(...)), as gbm refuses it
    perm = fit.row_order
    engine_targets = targets.take(perm)
    x_engine = x if perm is None else x[perm]
    schedule = None
    if fit.ts_encoder is not None:
        # the same permutations and statistics as the first fit
        value, weight = training_inputs(fit.distribution, engine_targets, fit.n_train)
        x_engine, schedule = fit.ts_encoder.engine_inputs(
            x_engine, value, weight, fit.var_monotone, fit.max_bins)
    context = fit.context
    if is_r_stream(rng) and context.noise_rng is not None:
        # R's one global stream: the new trees' noise comes from the stream they bag from
        context = dataclasses.replace(context, noise_rng=fit.distribution.noise_generator(rng))
    # the feature-use marks continue (a copy: the first fit keeps its own)
    tracker = None if fit.cost_tracker is None else fit.cost_tracker.copy()
    problem = boost_problem(x_engine, engine_targets, fit.n_train, fit.engine_var_type,
                            fit.options, fit.distribution, context, tracker)
    f = fit.fit if perm is None else fit.fit[perm]
    state = BoostState(fit.init_f, f.copy(), list(fit.train_error), list(fit.valid_error),
                       list(fit.oobag_improve), TreeList.of(fit.trees), list(fit.c_splits),
                       fit.ts_support, tracker)
    sample = fit.zero_sample
    if sample is not None:
        state = sample.resume(state, fit.n_train)
    if fit.options.ordered is not None:
        training = None if schedule is not None else problem.training_data()
        scheme = ordered_scheme(problem, fit.options, training, schedule, fit.ts_support.seed)
    else:
        scheme = None if schedule is None else OrderedPlainBoosting(schedule)
    verbose, progress = report
    with progress_bar(wanted(progress, verbose), n_trees, "gbm_more", "iteration") as bar:
        run_boosting(problem, state, n_trees, rng, verbose, scheme, bar)
    check_deviance(state.train_error, state.trees, fit.n_trees)
    if sample is not None:
        state = sample.finish(state, fit.n_train)
    return dataclasses.replace(
        fit, fit=restore_order(state.f, perm), train_error=np.asarray(state.train_error),
        valid_error=np.asarray(state.valid_error),
        oobag_improve=np.asarray(state.oobag_improve), trees=state.trees,
        c_splits=state.c_splits, ts_support=state.support, cost_tracker=state.rows,
        cv_fitted=None)
    # as R's gbm.more: cv_error stays the first fit's (its n_trees), cv_fitted goes
