"""The entry point of ``gbm(..., categorical=...)``: fit the encoder and the schedule."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._checks import int_arg, permutations_arg
from ..draws import child_seed
from .encoder import TargetStatisticsEncoder
from .modes import NATIVE, training_inputs

if TYPE_CHECKING:                 # annotations only
    from ..response import Response
    from .spec import TargetStatisticsSpec

#: the encoder's seed where no predictor is coded (no permutation is drawn)
_UNUSED_SEED = 0


def fit_target_statistics(spec: TargetStatisticsSpec, data, targets: Response,
                          var_monotone, dist, max_bins, rng):
    """Fit the target-statistics coding ``spec`` (:func:`.spec.ts_spec`) on ``data``.

    ``data``: the fit's coded rows (a :class:`pygbm.fitting.CodedData`: ``x``
    of all rows, training rows first, categorical columns holding level codes
    0..K-1, NaN missing; ``n_train``, ``var_names``, ``var_type``;
    ``var_levels``, optional, names the levels in the encoder's tables);
    ``targets``: their response (``y``, the normalised weights ``w`` and
    ``offset`` or None: the statistics are net of it, see
    :func:`pygbm.target_stats.modes.statistic_inputs`). Returns ``(encoder,
    x_engine, var_type_engine, schedule)``: the fitted
    :class:`TargetStatisticsEncoder`, the engine's matrix of all rows
    (validation rows coded by ``encoder.transform``), the engine's ``var_type``
    and ``schedule(iteration) -> TrainingData`` (None when no permutation is
    involved: the training rows of ``x_engine`` are then the encoding every
    iteration uses).
    """
    x = np.asarray(data.x, dtype=float)
    var_names, var_type = data.var_names, np.asarray(data.var_type)
    if x.ndim != 2 or x.shape[1] != len(var_names) or var_type.shape != (x.shape[1],):
        raise ValueError(f"x must be (n, {len(var_names)}) with one var_type per column, got "
                         f"x {x.shape} and var_type {var_type.shape}")
    n_train = int_arg("n_train", data.n_train, 1, x.shape[0])
    n_permutations = permutations_arg("ts_permutations", spec.n_permutations, n_train)
    if np.shape(targets.y)[0] != x.shape[0] or np.shape(targets.w)[0] != x.shape[0]:
        raise ValueError(f"y and w must have one value per row of x ({x.shape[0]})")
    y_tr, w_tr = training_inputs(dist, targets, n_train)
    prior = spec.prior
    if prior is None:
        total = float(np.sum(w_tr))
        prior = float(np.sum(w_tr * y_tr) / total) if total > 0 else float(np.mean(y_tr))
    # no predictor coded: nothing is permuted, and the fit's generator is left as a
    # plain fit uses it (the same fit as categorical="native", as ts_spec warns)
    seed = _UNUSED_SEED if not spec.coded else child_seed(
        rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng))
    var_levels = data.var_levels
    labels = {} if var_levels is None else \
        {j: [str(v) for v in var_levels[j]] for j, m in enumerate(spec.modes) if m != NATIVE}
    enc = TargetStatisticsEncoder(spec.modes, var_names, var_type, prior, spec.prior_weight,
                                  n_permutations, seed, n_train, spec.max_combination, labels)
    enc.fit(x[:n_train], y_tr, w_tr, x.shape[0])
    x_engine, schedule = enc.engine_inputs(x, y_tr, w_tr, var_monotone, max_bins)
    return enc, x_engine, enc.engine_var_type(), schedule
