"""The engine side of feature combinations: one permutation's training data
serving combination columns on the fly, and the searcher that wraps the
engine's own (see :mod:`pygbm.target_stats.combinations`)."""
from __future__ import annotations

from typing import ClassVar

import dataclasses

import numpy as np

from ..engine.data import TrainingData
from ..engine.exact import ExactSearch
from .combinations import CombinationRegistry

#: memory for the training columns of combinations (with their presorted
#: order, about 28 bytes per row) kept per fit; least recently used dropped
CACHE_BUDGET_BYTES = 256 * 2**20
#: bytes per training row of one cached combination column
_CACHED_BYTES_PER_ROW = 28


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

    #: not the presorted rows of R's exact scan (see engine.data.TrainingData)
    presorted: ClassVar[bool] = False


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

    def column_data(self, combo):
        """One-column exact training data of ``combo`` under this permutation."""
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

    def searcher(self, z, w, unit_weights: bool, min_obs: int, adjustment=None):
        return CombinationSearch(self, self.base.searcher(z, w, unit_weights, min_obs,
                                                          adjustment),
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

    @property
    def adjustment(self):
        """The engine searcher's split-gain adjustment: the predictors'
        penalties in the wrapped search; a combination is charged its
        members' (``combination_penalty``, cost-efficient boosting)."""
        return self.inner.adjustment

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
        if combo not in self._searchers:
            self._searchers[combo] = ExactSearch(self.data.column_data(combo), self.z, self.w,
                                                 self.unit, self.min_obs)
        search = self._searchers[combo]
        return search.best(search.root(self._mask), total)

    def best(self, state: _NodeState, total):
        """The wrapped searcher's best split, or a better one on a combination
        (compared by their gains less their penalties, with an adjustment)."""
        best = self.inner.best(state.inner, total)
        if not self.candidates or state.rows.size < 2:
            return best
        reg = self.data.registry
        adjustment = self.adjustment
        chosen = None
        self._mask[state.rows] = True
        try:
            for combo in self.candidates:
                split = self._combo_best(combo, total)
                if split is None:
                    continue
                if adjustment is not None:
                    split = dataclasses.replace(split, penalty=adjustment.combination_penalty(
                        total, state.rows, combo))
                    if not split.score > 0.0:
                        continue
                if best is None or split.score > best.score:
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
