"""The fitted target-statistics encoder: per-level sums of the training rows,
the permutations, and the engine's matrix of any rows (pickled with the model)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._checks import int_arg
from ..messages import warn
from .combinations import CombinationRegistry
from .modes import GREEDY, LOO, NATIVE, ORDERED
from .schedule import TargetStatisticsSchedule
from .statistics import (column_level_codes, greedy_statistic, holdout_statistic, level_sums,
                         loo_statistic, ordered_statistic)

if TYPE_CHECKING:                 # annotations only: pandas is imported on first use
    import pandas as pd

#: sub-stream tags of the encoder's seed (permutations, per-iteration choice, halves)
_PERMUTATION_STREAM, _CHOICE_STREAM, _HALF_STREAM = 0, 1, 2


class TargetStatisticsEncoder:
    """Replaces categorical level codes by target statistics (pickleable).

    ``transform(x_coded)`` computes the statistics from all training rows (the
    prediction-time statistic); :meth:`training_matrix` gives the training
    rows' encoding under permutation ``r`` (what the engine grows trees on).

    Attributes: ``modes`` (per predictor), ``ts_columns`` (indices replaced),
    ``n_levels`` (K per predictor), ``prior``, ``prior_weight``,
    ``n_permutations``, ``seed``, ``n_train``, ``sums``/``weights`` (per TS
    column, per level 0..K with K = missing), ``combinations`` (a
    :class:`pygbm.target_stats.combinations.CombinationRegistry` or None).
    """

    def __init__(self, modes, var_names, var_type, prior, prior_weight, n_permutations,
                 seed, n_train, max_combination=1, labels=None):
        self.modes = list(modes)
        #: the level names of each coded predictor (by index; none: codes only)
        self.labels = dict(labels or {})
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
    def ts_names(self) -> tuple[str, ...]:
        """The predictors coded by target statistics (a level never seen in
        training takes the prior)."""
        return tuple(self.var_names[j] for j in self.ts_columns)

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
        return column_level_codes(np.asarray(x)[:, j], int(self.n_levels[j]))

    # ---- fitting
    def fit(self, x_train, y_train, w_train, n_rows: int) -> "TargetStatisticsEncoder":
        """Per-level sums over the training rows (prediction-time statistics)
        and, with ``max_combination`` > 1, the feature combinations of the
        predictors coded by "ordered_ts" (as many slots as the engine's matrix of
        ``n_rows`` rows can hold)."""
        for j in self.ts_columns:
            c = self.codes(x_train, j)
            if np.any(c < 0):
                raise ValueError(f"predictor {self.var_names[j]!r}: training codes must be "
                                 f"0..{self.n_levels[j] - 1} or NaN")
            self.sums[j], self.weights[j] = level_sums(c, y_train, w_train,
                                                       int(self.n_levels[j]) + 1)
        if self.max_combination > 1:
            members = [j for j in self.ts_columns if self.modes[j] == ORDERED]
            if len(members) < 2:
                warn("ts_max_combination > 1 needs at least two predictors coded by "
                     "'ordered_ts'; no combinations are made")
                return self
            self.combinations = CombinationRegistry.create(members, self.max_combination,
                                                           n_rows)
            self.combinations.register_all(self, x_train, y_train, w_train)
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
        """Per level of predictor ``j`` (index or name): its code and name,
        training weight, sum of w*y and the prediction-time statistic (the
        last row is the missing values': code K, name <NA>)."""
        import pandas as pd        # imported on first use: import pygbm stays fast
        j = self._predictor(j)
        if j not in self.sums:
            raise ValueError(f"predictor {self.var_names[j]!r} is not coded by target "
                             "statistics")
        K = int(self.n_levels[j])
        codes = np.arange(K + 1)
        names = self.labels.get(j)
        table = {"code": codes}
        if names is not None and len(names) == K:
            table["level"] = pd.array(names + [None], dtype="string")
        table.update({"weight": self.weights[j], "sum_wy": self.sums[j],
                      "statistic": self.statistic(j, codes)})
        return pd.DataFrame(table)

    def _predictor(self, j) -> int:
        """The index of predictor ``j`` (a name, or an index 0..p-1); an error naming
        ``j`` and the predictors otherwise."""
        if isinstance(j, str):
            if j not in self.var_names:
                raise ValueError(f"j: {j!r} is not a predictor; the predictors are "
                                 f"{', '.join(self.var_names)}")
            return self.var_names.index(j)
        return int_arg("j (a predictor's name or index)", j, 0, self.n_features - 1)

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
                cols[c] = self.statistic(j, column_level_codes(grid[:, c], int(self.n_levels[j])))
        out_idx = list(idx)
        if self.combinations is not None:
            for slot, members in self.combinations.registered():
                if set(members) <= set(idx):
                    codes = [column_level_codes(grid[:, idx.index(m)], int(self.n_levels[m]))
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
