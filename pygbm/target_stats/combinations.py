"""CatBoost's feature combinations, made on the fly inside a tree.

With ``ts_max_combination`` = c > 1, once a tree has split on a predictor
coded by ordered target statistics (or on a combination), every later node
of that tree may also split on the combination of the predictors used so far
with each other ordered-TS predictor (up to ``c`` predictors per
combination), as the paper does (section 5, "Feature combinations"). A
combination is a categorical predictor whose levels are the observed tuples
of its members' levels (a missing value being a level of its own); it is
converted to its ordered target statistic under the permutation of the
iteration, like any other ordered-TS predictor.

How it sits in the engine, without changing it: the schedule hands the
engine a :class:`~pygbm.target_stats.combination_search.CombinationData` (the permutation's training data plus a
view that serves combination columns) whose searcher,
:class:`~pygbm.target_stats.combination_search.CombinationSearch`, wraps the engine's own searcher (exact or
binned), tracks the predictors used in the current tree and evaluates the
candidate combinations at each node with the exact search on that one
column. Every combination that may be used has a *slot*, column ``p + slot``
of the engine's matrix (``fit.engine_var_type`` covers the slots), whose
values for the validation rows and new data are the statistics from all
training rows. Slots are given before boosting starts (the engine reads the
validation rows once), all possible combinations when they fit the memory
budget (:data:`SLOT_BUDGET_BYTES`), else the combinations of the most
predictive members first (ranked by the correlation of their ordered
statistic with the target, which does not leak); the training rows' values
are computed on the fly, per permutation, when a tree needs them.
"""
from __future__ import annotations

from itertools import combinations as _subsets
from math import comb

import numpy as np

from .statistics import level_sums, ordered_statistic

#: memory the combination slots of the engine's matrix may take (8 bytes per row and slot)
SLOT_BUDGET_BYTES = 64 * 2**20
#: bounds of the number of slots
MIN_SLOTS, MAX_SLOTS = 8, 256
#: largest combination key (int64)
_KEY_LIMIT = 2**62


def _weighted_corr(a, b, w) -> float:
    """Weighted Pearson correlation (0 when either side is constant)."""
    w = w / w.sum()
    da, db = a - w @ a, b - w @ b
    den = np.sqrt((w @ (da * da)) * (w @ (db * db)))
    return float(w @ (da * db) / den) if den > 0 else 0.0


class CombinationRegistry:
    """The combinations that have a slot, with their training level tables
    (pickled with the fitted encoder)."""

    def __init__(self, eligible, max_combination, n_slots):
        self.eligible = [int(j) for j in eligible]
        self.max_combination = int(max_combination)
        self.n_slots = int(n_slots)
        self.combos: list[tuple[int, ...]] = []        # slot -> member predictors
        self._slot: dict[tuple[int, ...], int] = {}
        self.tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # keys, sums, weights

    @classmethod
    def create(cls, eligible, max_combination, n_rows):
        """A registry whose slot count fits :data:`SLOT_BUDGET_BYTES` for ``n_rows`` rows."""
        m = len(eligible)
        possible = sum(comb(m, k) for k in range(2, max_combination + 1))
        budget = int(np.clip(SLOT_BUDGET_BYTES // (8 * max(n_rows, 1)), MIN_SLOTS, MAX_SLOTS))
        return cls(eligible, max_combination, min(possible, budget))

    # ---- lookup
    @property
    def full(self) -> bool:
        return len(self.combos) >= self.n_slots

    def slot_of(self, combo) -> int | None:
        return self._slot.get(tuple(combo))

    def is_registered(self, slot: int) -> bool:
        return 0 <= slot < len(self.combos)

    def members(self, slot: int) -> tuple[int, ...]:
        if not self.is_registered(slot):
            raise ValueError(f"combination slot {slot} is not in use")
        return self.combos[slot]

    def registered(self):
        """(slot, members) of every registered combination."""
        return list(enumerate(self.combos))

    # ---- keys and statistics
    @staticmethod
    def keys(encoder, x, combo) -> np.ndarray:
        """One int64 key per row for the tuple of the members' levels (-1 when
        a member's level was never seen in training)."""
        key = np.zeros(np.asarray(x).shape[0], dtype=np.int64)
        unseen = np.zeros(key.shape[0], dtype=bool)
        span = 1
        for j in combo:
            radix = int(encoder.n_levels[j]) + 1          # levels + missing
            span *= radix
            if span >= _KEY_LIMIT:
                raise ValueError("ts_max_combination: the combined predictors have too many "
                                 "levels to combine")
            c = encoder.codes(x, j)
            unseen |= c < 0
            key = key * radix + np.maximum(c, 0)
        key[unseen] = -1
        return key

    def register(self, combo, encoder, x_train, y_train, w_train) -> int | None:
        """The slot of ``combo`` (a new one when free; None when all are taken)."""
        combo = tuple(combo)
        if combo in self._slot:
            return self._slot[combo]
        if self.full:
            return None
        keys = self.keys(encoder, x_train, combo)
        uniq, inverse = np.unique(keys, return_inverse=True)
        s, n = level_sums(inverse.ravel(), y_train, w_train, uniq.shape[0])
        self._slot[combo] = len(self.combos)
        self.combos.append(combo)
        self.tables.append((uniq, s, n))
        return self._slot[combo]

    def register_all(self, encoder, x_train, y_train, w_train) -> None:
        """Give slots to all possible combinations, or when there are more than
        slots, to those of the most predictive members first: members ranked by
        the correlation of their ordered statistic (permutation 0) with the
        target; pairs before triples."""
        possible = self.all_possible()
        if len(possible) > self.n_slots:
            score = {}
            for j in self.eligible:
                col = encoder.training_column(j, x_train, y_train, w_train, 0)
                score[j] = abs(_weighted_corr(col, y_train, w_train))
            rank = {j: r for r, j in enumerate(sorted(self.eligible, key=lambda j: -score[j]))}
            possible.sort(key=lambda c: (len(c), sorted(rank[j] for j in c)))
        for combo in possible[: self.n_slots]:
            self.register(combo, encoder, x_train, y_train, w_train)

    def statistic_of_keys(self, slot: int, keys, encoder) -> np.ndarray:
        """Prediction-time statistic (all training rows) of combination ``slot``."""
        uniq, s, n = self.tables[slot]
        pos = np.minimum(np.searchsorted(uniq, keys), uniq.shape[0] - 1)
        found = (uniq[pos] == keys) & (keys >= 0)
        a, p = encoder.prior_weight, encoder.prior
        return np.where(found, (s[pos] + a * p) / (n[pos] + a), p)

    def statistic_of_codes(self, slot: int, codes, encoder) -> np.ndarray:
        """As :meth:`statistic_of_keys` from the members' level codes (a list
        of arrays, one per member; -1 = unseen)."""
        combo = self.combos[slot]
        key = np.zeros(np.asarray(codes[0]).shape[0], dtype=np.int64)
        unseen = np.zeros(key.shape[0], dtype=bool)
        for j, c in zip(combo, codes):
            c = np.asarray(c)
            unseen |= c < 0
            key = key * (int(encoder.n_levels[j]) + 1) + np.maximum(c, 0)
        key[unseen] = -1
        return self.statistic_of_keys(slot, key, encoder)

    def fill(self, encoder, x, out) -> None:
        """Write the slots' columns of the engine's matrix ``out`` for rows ``x``."""
        p = encoder.n_features
        out[:, p:] = np.nan
        for slot, combo in self.registered():
            out[:, p + slot] = self.statistic_of_keys(slot, self.keys(encoder, x, combo),
                                                      encoder)

    def ordered_column(self, combo, encoder, x_train, y_train, w_train, r) -> np.ndarray:
        """Training rows' ordered statistic of ``combo`` under permutation ``r``."""
        keys = self.keys(encoder, x_train, combo)
        _, inverse = np.unique(keys, return_inverse=True)
        return ordered_statistic(inverse.ravel(), y_train, w_train, encoder.permutation(r),
                                 encoder.prior, encoder.prior_weight)

    def extensions(self, used: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Combinations of the feature set ``used`` with each other eligible predictor."""
        if len(used) >= self.max_combination:
            return []
        return [tuple(sorted(set(used) | {j})) for j in self.eligible if j not in used]

    def all_possible(self) -> list[tuple[int, ...]]:
        return [c for k in range(2, self.max_combination + 1)
                for c in _subsets(self.eligible, k)]
