"""Cost-efficient gradient boosting (CEGB, Peter et al. 2017) in the engine.

A :class:`CostTracker` is both the split-gain adjustment of every tree
(:mod:`.adjustment`) and the per-row state carried across trees
(``BoostState.rows``). It charges a candidate split of node ``t`` on
predictor ``v``

    λ · ( α·W_t + γ_v·[v not yet used by the model]
              + β_v·Σ_{i in t} w_i·[row i has not yet read v] )

(W_t the case weight of the node's in-bag rows, w_i the rows' case weights,
normalised as R normalises them: with unit weights these are row counts,
LightGBM's units; not the grower's node weight, Σ w·h with Newton splits),
which the searches subtract from each predictor's gains. What it keeps:

* ``used_rows``: which predictors each training row has read (its path in
  some tree went through a split on them), packed 8 predictors per byte.
  While a tree grows, the in-bag rows of a split node are marked (every row
  routed to the node, the missing child's included: they read the value to
  find it missing). When the tree is finished **every** training row is
  marked along its path, out-of-bag rows included, as the authors' code does
  (their LightGBM fork replays each tree on all training rows); LightGBM's
  own ``cegb_*`` marks only the in-bag rows of the split leaves.
* ``used_model``: the predictors any split of the model has used; the first
  split on ``v`` pays γ_v, and the grower then searches the other terminal
  nodes again (their penalties for ``v`` dropped by λγ_v).
* the penalty of every split made, per tree, in the order the splits were
  made (the stored improvement stays R's gain; the penalised gain is the
  improvement less the penalty).

A column of the engine's matrix may be computed from several predictors
(a target-statistics feature combination, ``ts_max_combination`` > 1): its
:class:`Columns` say which. A split on such a column reads every member for
every row of the node, so it is charged each member's costs (β_m for the
rows that have not read m, γ_m if m is new to the model) and α once, and it
marks every member.

Costs do not change leaf values. Without costs no tracker exists and the
engine runs R's code path.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .split import Side, Split

#: predictors per byte of the packed feature-use bits
_BITS = 8
#: the bits of every byte value, (256, 8): which of a byte's 8 predictors are
#: NOT yet read (a byte histogram of a node's rows times this is the node's
#: unread count of each predictor)
_UNREAD = 1 - np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
_BYTE_VALUES = 256


@dataclass(frozen=True, eq=False)
class CostSpec:
    """The costs of a fit (checked): β per row and predictor (``feature``),
    γ per model and predictor (``model``), α per split and row (``split``),
    and the trade-off λ that multiplies them all."""

    feature: np.ndarray
    model: np.ndarray
    split: float
    tradeoff: float

    @property
    def p(self) -> int:
        return int(self.feature.shape[0])


class Columns:
    """Which predictors each column of the engine's matrix reads: column
    ``j < p`` is predictor ``j``; column ``p + s`` is the feature combination
    of slot ``s``, which reads its members (``combinations[s]``, predictor
    indices)."""

    def __init__(self, p: int, combinations=()):
        self.p = int(p)
        self.combinations = tuple(tuple(int(m) for m in c) for c in combinations)

    def __call__(self, column: int) -> tuple[int, ...]:
        """The predictors that column ``column`` reads."""
        column = int(column)
        return (column,) if column < self.p else self.combinations[column - self.p]


def path_masks(n_nodes: int, columns: Columns, children: Callable, var_of: Callable):
    """For every node of a tree: the predictors read between the root and it
    ((n_nodes, p) bool; a combination's split reads its members) and the
    number of splits on the way ((n_nodes,) int).

    ``children(k)`` gives a split node's (left, right, missing) children
    (None for a terminal node), ``var_of(k)`` its column of the engine's
    matrix, ``columns`` what each column reads.
    """
    mask = np.zeros((n_nodes, columns.p), dtype=bool)
    depth = np.zeros(n_nodes, dtype=np.intp)
    stack = [0]
    while stack:
        k = stack.pop()
        kids = children(k)
        if kids is None:
            continue
        read = list(columns(var_of(k)))
        for c in kids:
            mask[c] = mask[k]
            mask[c, read] = True
            depth[c] = depth[k] + 1
            stack.append(c)
    return mask, depth


def grown_paths(grown, columns: Columns):
    """The predictors read on the path to each terminal node of a grown tree
    (:class:`.grow.GrownTree` or the compiled engine's tree), (n_terminal, p),
    and the splits on it."""
    mask, depth = path_masks(grown.n_nodes, columns, grown.children, grown.split_var)
    return mask[grown.terminals], depth[grown.terminals]


class CostTracker:
    """The feature-use state and the penalties of a CEGB fit (see the module).

    ``weights``: the training rows' case weights (None: all 1, the penalties
    then count rows exactly); ``columns``: what each column of the engine's
    matrix reads (None: the predictors themselves, no combination).
    """

    def __init__(self, spec: CostSpec, n_train: int, weights: np.ndarray | None,
                 columns: Columns | None = None):
        p = spec.p
        self.spec = spec
        self.columns = Columns(p) if columns is None else columns
        #: one row of bytes per 8 predictors, one byte per training row
        self.used_rows = np.zeros((-(-p // _BITS), n_train), dtype=np.uint8)
        self.used_model = np.zeros(p, dtype=bool)
        #: splits each training row's paths have evaluated (all trees so far)
        self.evaluated = np.zeros(n_train, dtype=np.int64)
        #: per tree: (column of the engine's matrix, improvement, penalty) of
        #: each split, in the order made
        self.splits: list[np.ndarray] = []
        self._current: list = []
        self._weights = weights
        lam = spec.tradeoff
        self._split = lam * spec.split
        self._model = lam * spec.model
        self._feature = lam * spec.feature
        self._lazy = bool(np.any(spec.feature > 0))

    # ------------------------------------------------------------- state
    def read(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), p) uint8: 1 where the row has read the predictor."""
        return np.unpackbits(self.used_rows[:, rows].T, axis=1, count=self.spec.p,
                             bitorder="little")

    def read_all(self) -> np.ndarray:
        """(n_train, p) bool: what every training row has read."""
        return self.read(np.arange(self.used_rows.shape[1])).astype(bool)

    def _unread(self, rows: np.ndarray) -> np.ndarray:
        """(p,) the rows' weight (count with unit weights) not yet having read
        each predictor: a histogram of each byte's values over the rows."""
        w = None if self._weights is None else self._weights.take(rows)
        out = np.concatenate([
            np.bincount(byte.take(rows), weights=w, minlength=_BYTE_VALUES) @ _UNREAD
            for byte in self.used_rows])
        return out[: self.spec.p]

    def _mark(self, rows, v: int) -> None:
        self.used_rows[v // _BITS, rows] |= np.uint8(1 << (v % _BITS))

    def training_costs(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The training rows' costs so far (engine row order): feature cost
        per row, split cost per row, and the model cost."""
        spec = self.spec
        feature = self.read_all() @ spec.feature
        return feature, spec.split * self.evaluated, float(spec.model @ self.used_model)

    def compiled_state(self) -> tuple | None:
        """The state and the penalties as the compiled binned grower takes
        them (:mod:`.compiled.cegb_penalties`; the state arrays are this
        tracker's own, updated in place), or None where only the NumPy
        search applies them: case weights (the compiled count is of rows),
        feature combinations."""
        if self._weights is not None or self.columns.combinations:
            return None
        return (self.used_rows, self.used_model, np.asarray(self._model, dtype=float),
                np.asarray(self._feature, dtype=float), float(self._split), self._lazy)

    def splits_made(self, columns: np.ndarray, improvements: np.ndarray,
                    penalties: np.ndarray) -> None:
        """A compiled grower's splits of the current tree, in the order made
        (what :meth:`on_split` records of the NumPy grower's)."""
        self._current.extend(zip(columns.tolist(), improvements.tolist(),
                                 penalties.tolist()))

    def trees_grown(self, splits: np.ndarray, n_splits: np.ndarray) -> None:
        """The compiled loop's trees: each one's splits (``splits[t, :n_splits[t]]``:
        predictor, R's gain, penalty, in the order made); the loop has marked
        the rows itself."""
        for table, n in zip(splits, n_splits.tolist()):
            self.splits.append(table[:n].copy())

    def copy(self) -> CostTracker:
        """An independent copy (gbm_more continues a copy: the first fit keeps its own)."""
        other = copy.copy(self)
        other.used_rows = self.used_rows.copy()
        other.used_model = self.used_model.copy()
        other.evaluated = self.evaluated.copy()
        other.splits = list(self.splits)     # (columns: immutable, shared)
        other._current = []
        return other

    # ------------------------------------------------ the adjustment seam
    def _weight(self, rows: np.ndarray) -> float:
        """W, the case weight of the rows (their count with unit weights): not the
        grower's node weight, which is Σ w h with Newton splits."""
        return float(rows.shape[0]) if self._weights is None else \
            float(self._weights.take(rows).sum())

    def penalties(self, node: Side, rows: np.ndarray) -> np.ndarray:
        """λ(α·W + γ_v·[v new to the model] + β_v·(weight of rows not having read v)),
        W the case weight of the node's in-bag rows ``rows``."""
        pen = self._model * ~self.used_model
        if self._lazy:
            pen = pen + self._feature * self._unread(rows)
        if self._split:
            pen = pen + self._split * self._weight(rows)
        return pen

    def combination_penalty(self, node: Side, rows: np.ndarray, members) -> float:
        """The penalty of a split on a column computed from the predictors
        ``members`` (a feature combination): α·W once, and for each member
        γ_m if it is new to the model and β_m times the weight of the rows
        that have not read it (``rows``: the node's in-bag rows, any order)."""
        m = list(members)
        pen = float(self._model[m] @ ~self.used_model[m])
        if self._lazy:
            pen += float(self._feature[m] @ self._unread(rows)[m])
        if self._split:
            pen += self._split * self._weight(rows)
        return pen

    def on_split(self, node: Side, split: Split, rows: np.ndarray) -> bool:
        """Mark the node's in-bag rows as having read the split's predictors
        (a combination's members); True when the model pays some γ_v now
        (the other nodes are searched again)."""
        self._current.append((split.var, split.improvement, split.penalty))
        paid = False
        for v in self.columns(split.var):
            self._mark(rows, v)
            if not self.used_model[v]:
                self.used_model[v] = True
                paid = paid or bool(self._model[v] > 0)
        return paid

    # --------------------------------------------------- the row-state seam
    def tree_added(self, grown, bag: np.ndarray) -> None:
        """Mark every training row (in and out of the bag) along its path."""
        self.splits.append(np.array(self._current, dtype=float).reshape(-1, 3))
        self._current = []
        if grown.n_terminal == 1:
            return
        paths, depth = grown_paths(grown, self.columns)
        self.evaluated += depth[grown.node_of]
        # each terminal node's bits, packed as used_rows packs them
        packed = np.packbits(paths, axis=1, bitorder="little")
        for b, byte in enumerate(self.used_rows):
            byte |= packed[:, b].take(grown.node_of)
