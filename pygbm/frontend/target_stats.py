"""Target statistics for categorical predictors (CatBoost's ordered TS).

``gbm(..., categorical="ordered_ts")`` replaces every unordered categorical
predictor, inside the engine, by a *target statistic* (TS): for a row of
level ``l``,

    TS = (sum of w*y over the rows of D_k with level l + a * p)
         / (sum of w  over the rows of D_k with level l + a)

with prior ``p`` (``ts_prior``; default the weighted mean target of the
training rows) and prior weight ``a`` (``ts_prior_weight``, default 1).
With unit case weights the sums of ``w`` are counts, as in the CatBoost
paper (Prokhorenkova et al. 2018, eq. 5). The modes differ by the rows
``D_k`` a training row's statistic is computed from:

* ``"ordered_ts"`` (CatBoost): the rows that precede row k in a random
  permutation ("history"). ``ts_permutations`` permutations are drawn once;
  each boosting iteration grows its tree on the encoding under one of them,
  chosen at random per iteration, from the gradient of that permutation's
  own supporting model, and its leaf values are fitted on one more
  permutation (sigma_0), as in the paper's Plain mode (see
  :class:`pygbm.engine.boost.SupportingModels`). No target leak.
* ``"greedy_ts"``: all training rows, row k included. **Leaks the target**
  (a noise categorical with many rare levels looks predictive).
* ``"loo_ts"``: all training rows but row k. **Leaks the target** too (on a
  constant feature it separates the classes perfectly).
* ``"holdout_ts"``: the training rows are split at random into two halves;
  a row's statistic comes from the other half (the paper's holdout TS, used
  both ways so that no training row is left out of the fit). No leak, but
  each statistic uses only half of the data.

At prediction time (validation rows, ``predict``) every mode uses all
training rows (``D_k`` = the training set); a level never seen in training
gets the prior ``p``; a missing value is a level of its own (``p`` when no
training value was missing). There is no cap on the number of levels.

The target ``y`` is the response itself for every distribution it is
defined for: gaussian, laplace, tdist, quantile (the statistic is a
smoothed level mean of the response, also for the median/quantile losses),
bernoulli, huberized, adaboost (a smoothed level rate of the 0/1 response)
and poisson (a smoothed level mean count; offsets are not used). coxph
(no per-row target without a model), pairwise ranking (grouped responses)
and multi-output distributions are refused with a ``ValueError``.

``ts_max_combination`` > 1 adds CatBoost's feature combinations (see
:mod:`pygbm.frontend.ts_combinations`).
"""
from __future__ import annotations

import numbers
import warnings
from collections import OrderedDict

import numpy as np
import pandas as pd

from .._checks import int_arg

__all__ = ["MODES", "LEAKING_MODES", "TargetStatisticsEncoder", "fit_target_statistics",
           "level_codes", "greedy_statistic", "ordered_statistic", "loo_statistic",
           "holdout_statistic", "level_sums"]

NATIVE = "native"
ORDERED, GREEDY, HOLDOUT, LOO = "ordered_ts", "greedy_ts", "holdout_ts", "loo_ts"
MODES = (NATIVE, ORDERED, GREEDY, HOLDOUT, LOO)
#: statistics that use the row's own target (documented as leaking)
LEAKING_MODES = (GREEDY, LOO)
#: largest feature combination (the paper uses 2 or 3)
MAX_COMBINATION = 3
#: bound of the seeds drawn from the fit's generator
_SEED_BOUND = 2**63 - 1
#: sub-stream tags of the encoder's seed (permutations, per-iteration choice, halves)
_PERMUTATION_STREAM, _CHOICE_STREAM, _HALF_STREAM = 0, 1, 2
#: distributions refused, with the reason
_REFUSED = {
    "coxph": "a Cox model has no per-row target to average without a fitted model "
             "(the survival times are censored)",
    "pairwise": "a ranking response is only meaningful within its group",
    "multinomial": "a multi-class response would need one statistic per class",
}


# ---------------------------------------------------------------- statistics
def level_codes(column: np.ndarray, n_levels: int) -> np.ndarray:
    """Integer level codes of a coded categorical column.

    Codes 0..K-1 are kept, a missing value (NaN) becomes level ``K`` (its own
    level), anything else (a level never seen in training, coded outside
    0..K-1) becomes -1.
    """
    col = np.asarray(column, dtype=float)
    miss = np.isnan(col)
    filled = np.where(miss, -1.0, col)
    ok = (filled >= 0) & (filled < n_levels) & (filled == np.floor(filled))
    codes = np.where(ok, filled, -1).astype(np.intp)
    codes[miss] = n_levels
    return codes


def level_sums(codes, y, w, n_codes: int):
    """Per-level sums of ``w*y`` and of ``w`` (codes must be in 0..n_codes-1)."""
    s = np.bincount(codes, weights=w * y, minlength=n_codes)
    n = np.bincount(codes, weights=w, minlength=n_codes)
    return s, n


def greedy_statistic(codes, y, w, prior: float, prior_weight: float) -> np.ndarray:
    """Greedy TS: every row's level statistic over all rows, itself included."""
    k = int(codes.max()) + 1 if codes.size else 0
    s, n = level_sums(codes, y, w, k)
    return (s[codes] + prior_weight * prior) / (n[codes] + prior_weight)


def loo_statistic(codes, y, w, prior: float, prior_weight: float) -> np.ndarray:
    """Leave-one-out TS: the level statistic over all rows but the row itself."""
    k = int(codes.max()) + 1 if codes.size else 0
    s, n = level_sums(codes, y, w, k)
    return (s[codes] - w * y + prior_weight * prior) / (n[codes] - w + prior_weight)


def holdout_statistic(codes, y, w, half: np.ndarray, prior: float,
                      prior_weight: float) -> np.ndarray:
    """Holdout TS: a row of half 0 (``half`` False) gets the statistic of its
    level over half 1, and the other way round."""
    k = int(codes.max()) + 1 if codes.size else 0
    half = np.asarray(half, dtype=bool)
    s1, n1 = level_sums(codes[half], y[half], w[half], k)
    s0, n0 = level_sums(codes[~half], y[~half], w[~half], k)
    s = np.where(half, s0[codes], s1[codes])
    n = np.where(half, n0[codes], n1[codes])
    return (s + prior_weight * prior) / (n + prior_weight)


def ordered_statistic(codes, y, w, order, prior: float, prior_weight: float) -> np.ndarray:
    """Ordered TS under a permutation: ``order[t]`` is the row at "time" t;
    a row's statistic uses the rows of its level that come before it.

    Rows are grouped by level, each group in permutation order; exclusive
    running sums within the groups give the history of every row at once.
    """
    codes = np.asarray(codes)
    order = np.asarray(order)
    n = codes.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    c = codes[order]
    idx = np.argsort(c, kind="stable")
    rows = order[idx]
    cs = c[idx]
    wy = (w * y)[rows]
    ww = np.asarray(w, dtype=float)[rows]
    before_y = np.cumsum(wy) - wy                  # exclusive running sums
    before_w = np.cumsum(ww) - ww
    start = np.flatnonzero(np.concatenate(([True], cs[1:] != cs[:-1])))
    length = np.diff(np.append(start, n))
    hist_y = before_y - np.repeat(before_y[start], length)
    hist_w = before_w - np.repeat(before_w[start], length)
    hist_w[np.abs(hist_w) < 1e-12 * max(1.0, float(ww.sum()))] = 0.0   # rounding of cumsums
    out[rows] = (hist_y + prior_weight * prior) / (hist_w + prior_weight)
    return out


# ---------------------------------------------------------------- options
def _check_number(name, value, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return float(value)


def resolve_modes(categorical, var_names, var_type) -> list[str]:
    """The mode of every predictor ("native" for numeric/ordered ones)."""
    var_type = np.asarray(var_type)
    p = len(var_names)
    if isinstance(categorical, str):
        if categorical not in MODES:
            raise ValueError(f"categorical must be one of {MODES} or a dict "
                             f"{{column name: mode}}, got {categorical!r}")
        return [categorical if var_type[j] > 0 else NATIVE for j in range(p)]
    if not isinstance(categorical, dict):
        raise TypeError(f"categorical must be a string {MODES} or a dict {{column name: "
                        f"mode}}, got {type(categorical).__name__}")
    names = [str(v) for v in var_names]
    modes = [NATIVE] * p
    for name, mode in categorical.items():
        if str(name) not in names:
            raise ValueError(f"categorical names {name!r}, which is not a predictor; "
                             f"predictors are {names}")
        if not isinstance(mode, str) or mode not in MODES:
            raise ValueError(f"categorical[{name!r}] must be one of {MODES}, got {mode!r}")
        j = names.index(str(name))
        if var_type[j] <= 0 and mode != NATIVE:
            raise ValueError(f"categorical[{name!r}] = {mode!r}: {name!r} is not an unordered "
                             "categorical predictor (numeric and ordered predictors are used "
                             "as numbers)")
        modes[j] = mode
    return modes


def target_of(dist, y) -> np.ndarray:
    """The per-row target the statistics average (the response; see the
    module docstring), or a ``ValueError`` for the refused distributions."""
    name = str(getattr(dist, "name", dist))
    reason = _REFUSED.get(name)
    if reason is None and getattr(dist, "survival_response", False):
        reason = _REFUSED["coxph"]
    if reason is None and getattr(dist, "bag_by_group", False):
        reason = _REFUSED["pairwise"]
    if reason is None and int(getattr(dist, "n_outputs", 1)) > 1:
        reason = _REFUSED["multinomial"]
    if reason is not None:
        raise ValueError(f"categorical target statistics are not available for distribution "
                         f"{name!r}: {reason}; use categorical='native'")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"categorical target statistics need a 1-d response, got shape "
                         f"{y.shape}")
    return y.astype(float)


# ---------------------------------------------------------------- encoder
class TargetStatisticsEncoder:
    """Replaces categorical level codes by target statistics (pickleable).

    ``transform(x_coded)`` computes the statistics from all training rows (the
    prediction-time statistic); :meth:`training_matrix` gives the training
    rows' encoding under permutation ``r`` (what the engine grows trees on).

    Attributes: ``modes`` (per predictor), ``ts_columns`` (indices replaced),
    ``n_levels`` (K per predictor), ``prior``, ``prior_weight``,
    ``n_permutations``, ``seed``, ``n_train``, ``sums``/``weights`` (per TS
    column, per level 0..K with K = missing), ``combinations`` (a
    :class:`pygbm.frontend.ts_combinations.CombinationRegistry` or None).
    """

    def __init__(self, modes, var_names, var_type, prior, prior_weight, n_permutations,
                 seed, n_train, max_combination=1):
        self.modes = list(modes)
        self.var_names = list(var_names)
        self.var_type = np.asarray(var_type).copy()
        self.n_levels = np.maximum(self.var_type, 0).astype(np.intp)
        self.ts_columns = [j for j, m in enumerate(self.modes) if m != NATIVE]
        self.prior = float(prior)
        self.prior_weight = float(prior_weight)
        self.n_permutations = int(n_permutations)
        self.seed = int(seed)
        self.n_train = int(n_train)
        self.max_combination = int(max_combination)
        self.sums: dict[int, np.ndarray] = {}
        self.weights: dict[int, np.ndarray] = {}
        self.combinations = None

    # ---- structure
    @property
    def n_features(self) -> int:
        return len(self.modes)

    @property
    def n_engine_columns(self) -> int:
        """Columns of the engine's matrix: the predictors, then combination slots."""
        extra = 0 if self.combinations is None else self.combinations.n_slots
        return self.n_features + extra

    @property
    def has_ordered(self) -> bool:
        return any(self.modes[j] == ORDERED for j in self.ts_columns)

    def engine_var_type(self) -> np.ndarray:
        """``var_type`` as the engine sees it: 0 for TS columns and combination slots."""
        vt = np.zeros(self.n_engine_columns, dtype=np.intp)
        vt[: self.n_features] = self.var_type
        vt[self.ts_columns] = 0
        return vt

    def codes(self, x, j) -> np.ndarray:
        """Level codes of predictor ``j`` (NaN -> K, unseen -> -1)."""
        return level_codes(np.asarray(x)[:, j], int(self.n_levels[j]))

    # ---- fitting
    def fit(self, x_train, y_train, w_train) -> "TargetStatisticsEncoder":
        """Per-level sums over the training rows (prediction-time statistics)."""
        for j in self.ts_columns:
            c = self.codes(x_train, j)
            if np.any(c < 0):
                raise ValueError(f"predictor {self.var_names[j]!r}: training codes must be "
                                 f"0..{self.n_levels[j] - 1} or NaN")
            self.sums[j], self.weights[j] = level_sums(c, y_train, w_train,
                                                       int(self.n_levels[j]) + 1)
        return self

    def permutation(self, r: int) -> np.ndarray:
        """Training-row order of permutation ``r`` (``order[t]`` = row at time t)."""
        rng = np.random.default_rng([self.seed, _PERMUTATION_STREAM, int(r)])
        return rng.permutation(self.n_train)

    def permutation_of_iteration(self, iteration: int) -> int:
        """Permutation used by boosting iteration ``iteration`` (0-based): drawn
        at random per iteration, as the paper does, reproducibly (``gbm_more``
        continues the same sequence)."""
        if not self.has_ordered or self.n_permutations == 1:
            return 0
        rng = np.random.default_rng([self.seed, _CHOICE_STREAM, int(iteration)])
        return int(rng.integers(self.n_permutations))

    def holdout_half(self) -> np.ndarray:
        rng = np.random.default_rng([self.seed, _HALF_STREAM])
        return rng.permutation(self.n_train) < self.n_train // 2

    def training_column(self, j, x_train, y_train, w_train, r: int) -> np.ndarray:
        """Training rows' statistic of predictor ``j`` under permutation ``r``."""
        c = self.codes(x_train, j)
        mode, p, a = self.modes[j], self.prior, self.prior_weight
        if mode == ORDERED:
            return ordered_statistic(c, y_train, w_train, self.permutation(r), p, a)
        if mode == GREEDY:
            return greedy_statistic(c, y_train, w_train, p, a)
        if mode == LOO:
            return loo_statistic(c, y_train, w_train, p, a)
        return holdout_statistic(c, y_train, w_train, self.holdout_half(), p, a)

    def training_matrix(self, x_train, y_train, w_train, r: int) -> np.ndarray:
        """The training rows as the engine sees them under permutation ``r``
        (combination slots are not included: they are made on the fly)."""
        out = np.array(x_train, dtype=float, copy=True)
        for j in self.ts_columns:
            out[:, j] = self.training_column(j, x_train, y_train, w_train, r)
        return out

    # ---- prediction
    def statistic(self, j, codes) -> np.ndarray:
        """Prediction-time statistic of predictor ``j`` for level codes ``codes``
        (-1 = unseen -> prior)."""
        s, n = self.sums[j], self.weights[j]
        safe = np.maximum(codes, 0)
        value = (s[safe] + self.prior_weight * self.prior) / (n[safe] + self.prior_weight)
        return np.where(codes >= 0, value, self.prior)

    def transform(self, x_coded) -> np.ndarray:
        """Coded predictors (all columns) -> the engine's matrix: statistics from
        all training rows in place of the TS columns, then the combination slots."""
        x = np.asarray(x_coded, dtype=float)
        if x.ndim != 2 or x.shape[1] != self.n_features:
            raise ValueError(f"x must have {self.n_features} columns "
                             f"({', '.join(self.var_names)}), got shape {x.shape}")
        out = np.empty((x.shape[0], self.n_engine_columns))
        out[:, : self.n_features] = x
        for j in self.ts_columns:
            out[:, j] = self.statistic(j, self.codes(x, j))
        if self.combinations is not None:
            self.combinations.fill(self, x, out)
        return out

    # ---- inspection helpers (for inspect/: influence, partial dependence)
    def level_table(self, j) -> pd.DataFrame:
        """Per level of predictor ``j`` (index or name): training weight, sum of
        w*y and the prediction-time statistic (the last row is 'missing')."""
        if isinstance(j, str):
            j = self.var_names.index(j)
        if j not in self.sums:
            raise ValueError(f"predictor {self.var_names[j]!r} is not coded by target "
                             "statistics")
        K = int(self.n_levels[j])
        codes = np.arange(K + 1)
        return pd.DataFrame({"code": codes, "weight": self.weights[j], "sum_wy": self.sums[j],
                             "statistic": self.statistic(j, codes)})

    def originals_of(self, engine_column: int) -> tuple[int, ...]:
        """Original predictors behind an engine column (one, or a combination's)."""
        if engine_column < self.n_features:
            return (int(engine_column),)
        return self.combinations.members(engine_column - self.n_features)

    def fold_influence(self, engine_influence) -> np.ndarray:
        """Per-engine-column influences -> per original predictor: a
        combination's influence is shared equally by its members."""
        inf = np.asarray(engine_influence, dtype=float)
        out = np.zeros(self.n_features)
        out[: min(inf.size, self.n_features)] = inf[: self.n_features]
        for e in range(self.n_features, inf.size):
            if inf[e] != 0.0:
                members = self.originals_of(e)
                out[list(members)] += inf[e] / len(members)
        return out

    def engine_columns_of(self, idx) -> list[int]:
        """Engine columns that depend on any of the original predictors ``idx``."""
        idx = {int(v) for v in np.atleast_1d(idx)}
        cols = sorted(idx)
        for e in range(self.n_features, self.n_engine_columns):
            if self.combinations.is_registered(e - self.n_features) \
                    and idx & set(self.originals_of(e)):
                cols.append(e)
        return cols

    def partial_combinations(self, idx) -> list[int]:
        """Engine columns of registered combinations that involve some, but not
        all, of the predictors ``idx`` (a weighted-traversal partial dependence
        cannot follow them: use brute force when this is not empty)."""
        idx = {int(v) for v in np.atleast_1d(idx)}
        return [e for e in self.engine_columns_of(sorted(idx)) if e >= self.n_features
                and not set(self.originals_of(e)) <= idx]

    def grid_to_engine(self, grid, idx):
        """A partial-dependence grid on original predictors ``idx`` (coded level
        codes / values, one column per predictor) -> ``(engine_grid,
        engine_idx)``: the TS columns mapped to their statistics, plus every
        registered combination whose members are all in ``idx``."""
        grid = np.asarray(grid, dtype=float)
        idx = [int(v) for v in idx]
        cols = [grid[:, c].copy() for c in range(len(idx))]
        for c, j in enumerate(idx):
            if j in self.sums:
                cols[c] = self.statistic(j, level_codes(grid[:, c], int(self.n_levels[j])))
        out_idx = list(idx)
        if self.combinations is not None:
            for slot, members in self.combinations.registered():
                if set(members) <= set(idx):
                    codes = [level_codes(grid[:, idx.index(m)], int(self.n_levels[m]))
                             for m in members]
                    cols.append(self.combinations.statistic_of_codes(slot, codes, self))
                    out_idx.append(self.n_features + slot)
        return np.column_stack(cols) if cols else grid, out_idx

    def engine_inputs(self, x_coded, y, w, var_monotone, max_bins=None):
        """``(x_engine, schedule)`` for continuing a fit (``gbm_more``): the same
        permutations and statistics, on the kept training data ``x_coded`` (all
        rows, training first), ``y`` and normalised ``w``."""
        x_coded = np.asarray(x_coded, dtype=float)
        x_engine = self.transform(x_coded)
        schedule = TargetStatisticsSchedule(self, x_coded, np.asarray(y, dtype=float),
                                            np.asarray(w, dtype=float), var_monotone,
                                            max_bins, x_engine)
        if schedule.is_static:
            x_engine[: self.n_train] = schedule.static_matrix()
            return x_engine, None
        x_engine[: self.n_train, : self.n_features] = schedule.matrix(0)
        return x_engine, schedule

    def __repr__(self) -> str:
        ts = ", ".join(f"{self.var_names[j]}: {self.modes[j]}" for j in self.ts_columns)
        return (f"TargetStatisticsEncoder({ts}; prior={self.prior:.6g}, "
                f"prior_weight={self.prior_weight:g}, permutations={self.n_permutations}, "
                f"max_combination={self.max_combination})")


# ---------------------------------------------------------------- schedule
class TargetStatisticsSchedule:
    """The training rows encoded under every permutation, for the boosting
    loop's supporting models (:class:`pygbm.engine.boost.SupportingModels`):
    ``n_views`` structure permutations (``view_of(iteration)`` picks one per
    iteration), plus the leaf permutation the leaf values are fitted on
    (the paper's sigma_0, permutation index ``n_views``). Each permutation's
    data is built once."""

    def __init__(self, encoder: TargetStatisticsEncoder, x_coded, y, w, var_monotone,
                 max_bins, x_engine):
        n = encoder.n_train
        self.encoder = encoder
        self.x_coded = x_coded                 # all rows (training first), coded
        self.x_train = x_coded[:n]
        self.y_train = np.asarray(y, dtype=float)[:n]
        self.w_train = np.asarray(w, dtype=float)[:n]
        self.var_monotone = np.asarray(var_monotone)
        self.max_bins = max_bins
        self.x_engine = x_engine               # the engine's matrix (validation rows used)
        self._cache: dict = {}
        self._matrices: dict = {}
        #: training columns of feature combinations, (permutation, members) -> data
        self.combination_cache: OrderedDict = OrderedDict()

    @property
    def is_static(self) -> bool:
        """No permutation involved: one encoding serves every iteration."""
        return not self.encoder.has_ordered and self.encoder.combinations is None

    def matrix(self, r: int) -> np.ndarray:
        """Training rows encoded under permutation ``r`` (kept until its data is built)."""
        if r not in self._matrices:
            self._matrices[r] = self.encoder.training_matrix(self.x_train, self.y_train,
                                                             self.w_train, r)
        return self._matrices[r]

    def static_matrix(self) -> np.ndarray:
        return self.matrix(0)

    def _base_data(self, x):
        var_type = self.encoder.engine_var_type()[: self.encoder.n_features]
        if self.max_bins is None:
            from ..engine.data import TrainingData

            return TrainingData(x, var_type, self.var_monotone)
        from ..engine.binned import BinnedTrainingData

        return BinnedTrainingData(x, var_type, self.var_monotone, self.max_bins)

    def data(self, r: int):
        """The engine's training data under permutation ``r`` (cached)."""
        if r not in self._cache:
            base = self._base_data(self.matrix(r))
            self._matrices.pop(r, None)
            if self.encoder.combinations is not None:
                from .ts_combinations import CombinationData

                base = CombinationData(base, self, r)
            self._cache[r] = base
        return self._cache[r]

    @property
    def n_views(self) -> int:
        """Structure permutations (``ts_permutations``)."""
        return self.encoder.n_permutations

    def view_of(self, iteration: int) -> int:
        """Structure permutation of boosting iteration ``iteration``."""
        return self.encoder.permutation_of_iteration(iteration)

    def leaf_data(self):
        """The training rows under the leaf permutation (sigma_0)."""
        return self.data(self.n_views)


# ---------------------------------------------------------------- entry point
def fit_target_statistics(categorical, x, y, w, n_train, var_names, var_type, var_monotone,
                          dist, max_bins, rng, n_permutations=4, prior=None,
                          prior_weight=1.0, max_combination=1):
    """Fit the target-statistics coding of ``gbm(..., categorical=...)``.

    ``x``: coded matrix of all rows (training rows first; categorical columns
    hold level codes 0..K-1, NaN missing); ``y``, ``w`` (normalised weights)
    for all rows. Returns ``(encoder, x_engine, var_type_engine, schedule)``:
    the fitted :class:`TargetStatisticsEncoder`, the engine's matrix of all
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
    n_permutations = int_arg("ts_permutations", n_permutations, 1)
    prior_weight = _check_number("ts_prior_weight", prior_weight, positive=True)
    max_combination = int_arg("ts_max_combination", max_combination, 1, MAX_COMBINATION)
    n_train = int_arg("n_train", n_train, 1, x.shape[0])
    target = target_of(dist, y)
    w = np.asarray(w, dtype=float)
    if target.shape[0] != x.shape[0] or w.shape[0] != x.shape[0]:
        raise ValueError(f"y and w must have one value per row of x ({x.shape[0]})")
    y_tr, w_tr = target[:n_train], w[:n_train]
    if prior is None:
        total = float(np.sum(w_tr))
        prior = float(np.sum(w_tr * y_tr) / total) if total > 0 else float(np.mean(y_tr))
    else:
        prior = _check_number("ts_prior", prior)
    if not any(m != NATIVE for m in modes):
        if not (isinstance(categorical, dict) or categorical == NATIVE):
            warnings.warn(f"categorical={categorical!r} has no effect: there is no unordered "
                          "categorical predictor", UserWarning, stacklevel=3)
    seed = int(rng.integers(_SEED_BOUND)) if isinstance(rng, np.random.Generator) \
        else int(np.random.default_rng(rng).integers(_SEED_BOUND))
    enc = TargetStatisticsEncoder(modes, var_names, var_type, prior, prior_weight,
                                  n_permutations, seed, n_train, max_combination)
    enc.fit(x[:n_train], y_tr, w_tr)
    if max_combination > 1:
        from .ts_combinations import CombinationRegistry

        members = [j for j in enc.ts_columns if enc.modes[j] == ORDERED]
        if len(members) >= 2:
            enc.combinations = CombinationRegistry.create(members, max_combination, x.shape[0])
            enc.combinations.register_all(enc, x[:n_train], y_tr, w_tr)
        else:
            warnings.warn("ts_max_combination > 1 needs at least two predictors coded by "
                          "'ordered_ts'; no combinations are made", UserWarning, stacklevel=3)
    x_engine, schedule = enc.engine_inputs(x, target, w, var_monotone, max_bins)
    return enc, x_engine, enc.engine_var_type(), schedule
