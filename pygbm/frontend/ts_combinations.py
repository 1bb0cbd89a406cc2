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
engine a :class:`CombinationData` (the permutation's training data plus a
view that serves combination columns) whose searcher,
:class:`CombinationSearch`, wraps the engine's own searcher (exact or
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

import dataclasses
from itertools import combinations as _subsets
from math import comb

import numpy as np

from .target_stats import level_sums, ordered_statistic

#: memory the combination slots of the engine's matrix may take (8 bytes per row and slot)
SLOT_BUDGET_BYTES = 64 * 2**20
#: bounds of the number of slots
MIN_SLOTS, MAX_SLOTS = 8, 256
#: memory for the training columns of combinations (with their presorted
#: order, about 28 bytes per row) kept per fit; least recently used dropped
CACHE_BUDGET_BYTES = 256 * 2**20
#: bytes per training row of one cached combination column
_CACHED_BYTES_PER_ROW = 28
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


class _Columns:
    """``data.xt`` of a :class:`CombinationData`: predictor rows from the base
    data, combination slots computed under the data's permutation."""

    def __init__(self, owner: "CombinationData"):
        self._owner = owner

    def __getitem__(self, key):
        var, rows = key if isinstance(key, tuple) else (key, slice(None))
        owner = self._owner
        var = int(var)
        if var < owner.p:
            return owner.base.xt[var, rows]
        combo = owner.registry.members(var - owner.p)
        return owner.column_data(combo).xt[0, rows]

    @property
    def shape(self):
        return (self._owner.p + self._owner.registry.n_slots, self._owner.n)


class CombinationData:
    """One permutation's training data, with combination columns on the fly."""

    def __init__(self, base, schedule, r: int):
        self.base = base
        self.schedule = schedule
        self.r = int(r)
        self.encoder = schedule.encoder
        self.registry: CombinationRegistry = schedule.encoder.combinations
        self.xt = _Columns(self)

    @property
    def n(self) -> int:
        return self.base.n

    @property
    def p(self) -> int:
        return self.encoder.n_features

    @property
    def var_type(self) -> np.ndarray:
        return self.encoder.engine_var_type()

    def __getattr__(self, name):                 # everything else: the base data's
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def column_data(self, combo):
        """One-column exact training data of ``combo`` under this permutation."""
        from ..engine.data import TrainingData

        cache = self.schedule.combination_cache
        key = (self.r, tuple(combo))
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        s = self.schedule
        col = self.registry.ordered_column(combo, self.encoder, s.x_train, s.y_train,
                                           s.w_train, self.r)
        data = TrainingData(col[:, None], np.zeros(1, dtype=np.intp), np.zeros(1, dtype=np.intp))
        cache[key] = data
        keep = max(1, CACHE_BUDGET_BYTES // (_CACHED_BYTES_PER_ROW * max(self.n, 1)))
        while len(cache) > keep:
            cache.popitem(last=False)
        return data

    def searcher(self, z, w, unit_weights: bool, min_obs: int):
        return CombinationSearch(self, self.base.searcher(z, w, unit_weights, min_obs),
                                 z, w, unit_weights, min_obs)


@dataclasses.dataclass
class _NodeState:
    inner: object             # the wrapped searcher's state
    rows: np.ndarray          # in-bag training rows of the node


class CombinationSearch:
    """The engine's searcher plus the combinations of the predictors used so
    far in the tree (one instance per tree: ``root``, ``best``, ``children``)."""

    def __init__(self, data: CombinationData, inner, z, w, unit_weights, min_obs):
        self.data = data
        self.inner = inner
        self.z, self.w = z, w
        self.unit = bool(unit_weights)
        self.min_obs = int(min_obs)
        self.candidates: list[tuple[int, ...]] = []
        self._searchers: dict = {}
        self._direction = np.empty(data.n, dtype=np.int8)
        self._mask = np.zeros(data.n, dtype=bool)

    @property
    def r_arithmetic(self) -> bool:
        """As the engine's searcher (see ExactSearch)."""
        return self.inner.r_arithmetic

    def root(self, inbag: np.ndarray) -> _NodeState:
        return _NodeState(self.inner.root(inbag), np.flatnonzero(inbag))

    def _note_used(self, var: int) -> None:
        reg = self.data.registry
        p = self.data.p
        if var < p:
            if var not in reg.eligible:
                return
            used = (int(var),)
        else:
            used = reg.members(var - p)
        for combo in reg.extensions(used):          # only combinations with a slot
            if combo not in self.candidates and reg.slot_of(combo) is not None:
                self.candidates.append(combo)

    def _combo_best(self, combo, total):
        """Best split of the node (its in-bag rows are ``self._mask``) on the
        combination's column, through the exact search's own protocol."""
        from ..engine.split import ExactSearch

        if combo not in self._searchers:
            self._searchers[combo] = ExactSearch(self.data.column_data(combo), self.z, self.w,
                                                 self.unit, self.min_obs)
        search = self._searchers[combo]
        return search.best(search.root(self._mask), total)

    def best(self, state: _NodeState, total):
        """The wrapped searcher's best split, or a better one on a combination."""
        best = self.inner.best(state.inner, total)
        if not self.candidates or state.rows.size < 2:
            return best
        reg = self.data.registry
        chosen = None
        self._mask[state.rows] = True
        try:
            for combo in self.candidates:
                split = self._combo_best(combo, total)
                if split is not None and (best is None or split.improvement > best.improvement):
                    best, chosen = split, combo
        finally:
            self._mask[state.rows] = False
        if chosen is not None:
            best = dataclasses.replace(best, var=self.data.p + reg.slot_of(chosen))
        return best

    def children(self, state: _NodeState, rows: np.ndarray, d: np.ndarray, split):
        """The children's states (the wrapped searcher's and their in-bag rows);
        the split's predictor joins the tree's used predictors."""
        self._note_used(int(split.var))
        inner = self.inner.children(state.inner, rows, d, split)
        self._direction[rows] = d
        D = self._direction[state.rows]
        return tuple(_NodeState(k, state.rows[D == side]) for side, k in enumerate(inner))
