"""The entry point of ``gbm(..., categorical=...)``: fit the encoder and the schedule."""
from __future__ import annotations


import numpy as np

from .._checks import int_arg, permutations_arg
from ..draws import child_seed
from ..messages import warn
from .combinations import CombinationRegistry
from .encoder import TargetStatisticsEncoder
from .modes import MAX_COMBINATION, NATIVE, ORDERED, check_number, resolve_modes, statistic_inputs

#: the encoder's seed where no predictor is coded (no permutation is drawn)
_UNUSED_SEED = 0


def fit_target_statistics(categorical, x, y, w, n_train, var_names, var_type, var_monotone,
                          dist, max_bins, rng, n_permutations=4, prior=None,
                          prior_weight=1.0, max_combination=1, offset=None, var_levels=None):
    """Fit the target-statistics coding of ``gbm(..., categorical=...)``.

    ``x``: coded matrix of all rows (training rows first; categorical columns
    hold level codes 0..K-1, NaN missing); ``y``, ``w`` (normalised weights)
    for all rows; ``offset`` (all rows) or None: the statistics are net of it
    (:func:`pygbm.target_stats.modes.statistic_inputs`); ``var_levels`` (the
    fit's, optional) names the levels in the encoder's tables. Returns ``(encoder,
    x_engine, var_type_engine, schedule)``: the fitted
    :class:`TargetStatisticsEncoder`, the engine's matrix of all
    rows (validation rows coded by ``encoder.transform``), the engine's
    ``var_type`` and ``schedule(iteration) -> TrainingData`` (None when no
    permutation is involved: the training rows of ``x_engine`` are then the
    encoding every iteration uses).
    """
    x = np.asarray(x, dtype=float)
    var_type = np.asarray(var_type)
    if x.ndim != 2 or x.shape[1] != len(var_names) or var_type.shape != (x.shape[1],):
        raise ValueError(f"x must be (n, {len(var_names)}) with one var_type per column, got "
                         f"x {x.shape} and var_type {var_type.shape}")
    modes = resolve_modes(categorical, var_names, var_type)
    n_train = int_arg("n_train", n_train, 1, x.shape[0])
    n_permutations = permutations_arg("ts_permutations", n_permutations, n_train)
    prior_weight = check_number("ts_prior_weight", prior_weight, positive=True)
    max_combination = int_arg("ts_max_combination", max_combination, 1, MAX_COMBINATION)
    target, w = statistic_inputs(dist, y, w, offset)
    if target.shape[0] != x.shape[0] or w.shape[0] != x.shape[0]:
        raise ValueError(f"y and w must have one value per row of x ({x.shape[0]})")
    y_tr, w_tr = target[:n_train], w[:n_train]
    if prior is None:
        total = float(np.sum(w_tr))
        prior = float(np.sum(w_tr * y_tr) / total) if total > 0 else float(np.mean(y_tr))
    else:
        prior = check_number("ts_prior", prior)
    coded = any(m != NATIVE for m in modes)
    if not coded and not (isinstance(categorical, dict) or categorical == NATIVE):
        warn(f"categorical={categorical!r} has no effect: there is no unordered "
             "categorical predictor")
    # no predictor coded: nothing is permuted, and the fit's generator is left as a
    # plain fit uses it (the same fit as categorical="native", as the warning says)
    seed = _UNUSED_SEED if not coded else child_seed(
        rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng))
    labels = {} if var_levels is None else \
        {j: [str(v) for v in var_levels[j]] for j, m in enumerate(modes) if m != NATIVE}
    enc = TargetStatisticsEncoder(modes, var_names, var_type, prior, prior_weight,
                                  n_permutations, seed, n_train, max_combination, labels)
    enc.fit(x[:n_train], y_tr, w_tr)
    if max_combination > 1:
        members = [j for j in enc.ts_columns if enc.modes[j] == ORDERED]
        if len(members) >= 2:
            enc.combinations = CombinationRegistry.create(members, max_combination, x.shape[0])
            enc.combinations.register_all(enc, x[:n_train], y_tr, w_tr)
        else:
            warn("ts_max_combination > 1 needs at least two predictors coded by "
                 "'ordered_ts'; no combinations are made")
    x_engine, schedule = enc.engine_inputs(x, target, w, var_monotone, max_bins)
    return enc, x_engine, enc.engine_var_type(), schedule
