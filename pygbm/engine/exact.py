"""R's exact split search: the best split of a node over every predictor.

For a continuous (or ordered) predictor R scans the node's rows in increasing
order of the predictor, missing values first, and evaluates a split between
every two adjacent distinct values, at their midpoint, when both sides hold
at least ``n_minobsinnode`` rows (and the monotone constraint holds). For a
categorical predictor it orders the levels by their mean working response
and evaluates the prefixes of that order (:mod:`.categorical`).

Everything is computed for all predictors of the node at once, in two steps.
Ranking: with unit weights the working response is quantised to integers once
per tree (:func:`.fixed_point.quantize`), so prefix sums along the presorted
rows are exact and cheap, and every position's gain is computed from them by
the gain kernels (:mod:`.kernels`; in large nodes only where a bound shows
that it may reach the best, :mod:`.bounded`). Deciding: the candidates within
a proven error bound of the best (:class:`.tolerance.Tolerance`) are
re-evaluated with R's own running sums, and R's rule picks among them, so the
split chosen, its statistics and its gain are R's to the last bit, ties
included.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from . import kernels
from .bounded import BoundedGains
from .categorical import CategoricalSearch
from .fixed_point import as_float, quantize
from .kernels import GainBlock
from .split import Response, Side, Split, midpoints
from .tolerance import Tolerance, r_gains, r_sums, record, unit_record

#: predictors x positions whose gains are computed together: a few such
#: float arrays fit in the CPU's level-2 cache
BLOCK_ELEMENTS = 1 << 17
#: nodes of at least this many rows times continuous predictors search them
#: with :class:`.bounded.BoundedGains` when they can; below, the full
#: computation costs less than its bookkeeping (crossovers measured on the
#: benchmark data: 1.2e5 to 1.6e5 for the simplest kernel, 4e4 to 5e4 with
#: missing values)
BOUNDED_MIN_ELEMENTS = 1 << 17
BOUNDED_MIN_ELEMENTS_MISSING_OR_TIED = 3 << 14


class _Offsets(NamedTuple):
    """A split-gain adjustment's penalties of the continuous predictors and
    the largest raw gain of the others (categorical), both in the search's
    scaled units: what the bounded search needs to keep every candidate of
    the penalised comparison (:class:`.bounded.BoundedGains`)."""

    penalty: np.ndarray
    floor: float


class NodeRows(NamedTuple):
    """Search state of a node: its in-bag rows sorted per continuous predictor
    (pc, m), and w*z and w of those rows in the same layout (H is None for
    unit weights). With unit weights G holds the quantized w*z (see
    :func:`.fixed_point.quantize`)."""

    S: np.ndarray
    G: np.ndarray
    H: np.ndarray | None
    X: np.ndarray | None = None   # sorted values of the predictors in ExactLayout.xvars
    nm: np.ndarray | None = None  # missing values of every continuous predictor (first)
    R: np.ndarray | None = None   # in-bag rows in row order (categorical predictors)

    @property
    def m(self) -> int:
        """Number of in-bag rows of the node."""
        return self.R.size if self.R is not None else self.S.shape[1]

    def row_set(self) -> np.ndarray:
        """The node's in-bag rows in no particular order (no sort)."""
        return self.R if self.R is not None else self.S[0]


class ExactSearch:
    """R's exact split search for the nodes of one tree (fixed z, w and bag).

    The search state of a node is a :class:`NodeRows`: its in-bag rows sorted
    per continuous predictor (a (pc, m) array) with their w*z (and w) in the
    same layout, and its in-bag rows in row order for the categorical ones.
    The grower calls :meth:`root`, :meth:`best` and
    :meth:`children`; another search (e.g. on binned predictors) only has to
    offer the same three methods, say in ``r_arithmetic`` whether the node
    sums must be R's to the last bit, and hold its ``adjustment``.

    ``data`` is a :class:`.data.TrainingData`; ``adjustment`` an optional
    split-gain adjustment (:mod:`.adjustment`): its penalties are subtracted
    from each predictor's gains before the best split is chosen.
    """

    #: the node sums are R's to the last bit (R's order of additions)
    r_arithmetic = True

    def __init__(self, data, z: np.ndarray, w: np.ndarray, unit_weights: bool,
                 min_obs: int, adjustment=None):
        self.data = data
        self.adjustment = adjustment
        self.wz = w * z
        self.w = w
        self.unit = unit_weights
        self.min_obs = int(min_obs)
        self.cont = data.cont
        self.cat = data.cat
        self._kernels = kernels.active()
        self._cats = CategoricalSearch(data, Response(self.wz, w, unit_weights), min_obs) \
            if data.cat.size else None
        self._direction = np.empty(data.n, dtype=np.int8)
        # unit weights: the nodes carry w*z as integers (exact, fast prefix sums)
        if unit_weights:
            self._g, self.scale = quantize(self.wz)
            zmax = float(np.abs(self.wz).max()) if self.wz.size else 0.0
        else:
            self._g, self.scale, zmax = self.wz, 1.0, 0.0
        self.tolerance = Tolerance(unit_weights, self.scale, zmax)
        lay = self.layout = data.layout
        # the two-half kernels (gain_plain, gain_missing)
        self._halves = unit_weights and not lay.look.size and not lay.mono_any
        # unit weights and no monotone constraint: large nodes may be bounded
        # (with an adjustment, against the penalised gains: see BoundedGains)
        self._boundable = unit_weights and not lay.mono_any

    def root(self, inbag: np.ndarray) -> NodeRows:
        bag = None if inbag.all() else inbag
        xvars = self.layout.xvars
        S, nm, X = self.data.bag_order(bag, xvars if xvars.size else None)
        R = inbag.nonzero()[0] if self.cat.size else None
        return NodeRows(S, self._g.take(S), None if self.unit else self.w.take(S), X,
                        nm, R)

    def sorted_values(self, state: NodeRows, v: int, end: int | None = None) -> np.ndarray:
        """Continuous predictor ``v``'s values in the node, in its sorted order
        (the first ``end``)."""
        r = self.layout.xrow[v]
        if r >= 0:
            return state.X[r, :end]
        return self.data.xt[v].take(state.S[self.layout.cont_row[v], :end])

    def _float_g(self, state: NodeRows, v: int, end: int | None = None) -> np.ndarray:
        """w*z of the node's rows in continuous predictor ``v``'s order, as
        floats (the first ``end``)."""
        c = self.layout.cont_row[v]
        return self.wz.take(state.S[c, :end]) if self.unit else state.G[c, :end]

    def children(self, state: NodeRows, rows: np.ndarray, d: np.ndarray, split: Split):
        """Each child's sorted rows (and their w*z, w), keeping every predictor's
        order: sequential compressions of the parent's rows and values."""
        self._direction[rows] = d
        S = state.S
        pc = S.shape[0]
        D = self._direction.take(S).ravel()
        DX = D.reshape(pc, -1)[self.layout.look].ravel() if state.X is not None else None
        DR = self._direction.take(state.R) if state.R is not None else None
        # missing values per predictor and side: they lead every predictor's rows
        lead = int(state.nm.max()) if state.nm.size else 0
        if lead:
            first = D.reshape(pc, -1)[:, :lead]
            in_lead = np.arange(lead)[None, :] < state.nm[:, None]
        # no missing row in the node: D holds 0 and 1 only, a boolean mask of
        # the right side as it is (one whole-array comparison fewer)
        right = D.view(bool) if not split.missing.n else None
        out = []
        for side, n_side in ((0, split.left.n), (1, split.right.n), (2, split.missing.n)):
            if not n_side:
                empty = [None if a is None else a[..., :0] for a in state]
                empty[4] = np.zeros(pc, dtype=np.intp)
                out.append(NodeRows(*empty))
                continue
            # the positions of the side's rows, then the rows and their w*z
            # (and w) at those positions: cheaper than compressing each
            if right is None:
                at = (D == side).nonzero()[0]
            else:
                at = (right if side else np.logical_not(right)).nonzero()[0]
            S_side = S.ravel().take(at).reshape(pc, -1) if pc else S[:, :n_side]
            nm = (np.count_nonzero((first == side) & in_lead, axis=1) if lead
                  else np.zeros(pc, dtype=np.intp))
            out.append(NodeRows(
                S_side, state.G.ravel().take(at).reshape(S_side.shape),
                None if state.H is None else state.H.ravel().take(at).reshape(S_side.shape),
                None if DX is None else
                state.X.ravel().compress(DX == side).reshape(self.layout.xvars.size, -1),
                nm,
                None if DR is None else state.R.compress(DR == side)))
        return tuple(out)

    # ------------------------------------------------------------------
    def best(self, state: NodeRows, total: Side, bounded: bool = True) -> Split | None:
        """Best split of the node whose in-bag rows, sorted per predictor, are ``state.S``.

        Every candidate's gain is first computed for all predictors at once
        (from integer prefix sums with unit weights); the candidates within
        the error bound of the best (:class:`.tolerance.Tolerance`) are then
        evaluated with R's sequential arithmetic, and R's rule picks among
        them: the largest gain, ties to the first predictor and the first
        position. With an adjustment, each predictor's gains are compared
        less its penalty (the split keeps R's gain as its improvement).
        """
        H = state.H
        m = state.m
        if m < 2 * max(self.min_obs, 1):      # n_minobsinnode rows on each side: none
            return None
        data = self.data
        s2 = self.scale * self.scale
        best_gain = np.zeros(data.p)
        penalty = None
        if self.adjustment is not None:
            penalty = np.asarray(self.adjustment.penalties(total, state.row_set()), dtype=float)
        if self.cat.size:
            cats = self._cats.best(state.R, total)
            best_gain[self.cat] = cats.gain
        if self.cont.size:
            offsets = None if penalty is None else \
                _Offsets(penalty[self.cont] * s2, float(best_gain.max()) * s2)
            cont_best, gain_row, partial = self._continuous(state, total, bounded, offsets)
            best_gain[self.cont] = cont_best / s2
        if penalty is not None:
            # the bound is for gains up to the largest raw one
            raw_top = best_gain.max()
            best_gain -= penalty
        while True:
            top = best_gain.max()
            bound = self.tolerance.bound(m, top if penalty is None else raw_top)
            if self.unit and not top - bound > 0.0:
                # no approximate gain stands out of the rounding (a pure node:
                # every true gain is 0): R's rounding noise decides
                return self._noise(state, total, penalty,
                                   cats if self.cat.size else None) \
                    if top + bound > 0.0 else None
            if not top > 0.0:
                return None
            # (gain 0 marks positions R does not consider: never candidates)
            threshold = max(top - bound, np.nextafter(0.0, 1.0))
            best, rejected = None, False
            for v in (best_gain >= threshold).nonzero()[0]:
                c = int(self.layout.cont_row[v])
                pen = 0.0 if penalty is None else float(penalty[v])
                if c < 0:                         # categorical: R's sums already
                    split = self._cats.record(cats, v, total)
                else:
                    row = gain_row(c)
                    pos = (row >= (threshold + pen) * s2).nonzero()[0]
                    if pos.size == 1 and H is None and not data.var_monotone[v]:
                        # the usual case, kept to a few operations
                        split = self._unit_split(state, v, int(pos[0]), total)
                        if split.improvement > 0.0:       # valid with R's sums too
                            best = self._better(best, split, pen)
                            continue
                        exact = np.array([split.improvement])
                    else:
                        # the rows up to the last candidate (and one more value)
                        end = int(pos[-1]) + 1
                        x = self.sorted_values(state, v, end + 1)
                        g = self._float_g(state, v, end)
                        h = None if H is None else H[c, :end]
                        sums = r_sums(g, h, total, int(state.nm[c]))
                        split, exact = None, r_gains(sums, pos, int(data.var_monotone[v]))
                    bad = ~(exact > 0.0)
                    if bad.any() and partial:     # the rows are known near the top only
                        return self.best(state, total, bounded=False)
                    if bad.any():             # approximately valid, not exactly
                        row[pos[bad]] = 0.0
                        best_gain[v] = row.max() / s2 - pen
                        rejected = True
                    if bad.all():
                        continue
                    if split is None:
                        k = int(pos[np.argmax(np.where(bad, -np.inf, exact))])
                        split = record(v, x, total, k, sums)
                best = self._better(best, split, pen)
            if best is not None and not rejected:
                return best if best.score > 0.0 else None

    def _noise(self, state: NodeRows, total: Side, penalty: np.ndarray | None,
               cats) -> Split | None:
        """R's scan of the node, every admissible position of every predictor
        in R's arithmetic: for a node whose approximate gains are all within
        their error bound of 0 (a pure node's true gains are all 0, R's are
        rounding noise), where the ranking cannot narrow the candidates."""
        best = None
        data = self.data
        for v in range(data.p):
            pen = 0.0 if penalty is None else float(penalty[v])
            c = int(self.layout.cont_row[v])
            if c < 0:                               # categorical: R's gains already
                i = int(np.searchsorted(self.cat, v))
                if cats.gain[i] > 0.0:
                    best = self._better(best, self._cats.record(cats, v, total), pen)
                continue
            pos = self._admissible(state, v)
            if not pos.size:
                continue
            end = int(pos[-1]) + 1
            h = None if state.H is None else state.H[c, :end]
            sums = r_sums(self._float_g(state, v, end), h, total, int(state.nm[c]))
            exact = r_gains(sums, pos, int(data.var_monotone[v]))
            exact = np.where(exact > 0.0, exact, 0.0)   # (NaN: never R's best)
            k = int(np.argmax(exact))                   # R's first of the largest
            if exact[k] > 0.0:
                split = record(v, self.sorted_values(state, v, end + 1), total,
                               int(pos[k]), sums)
                best = self._better(best, split, pen)
        return best if best is not None and best.score > 0.0 else None

    def _admissible(self, state: NodeRows, v: int) -> np.ndarray:
        """The sorted positions of continuous predictor ``v`` that R scores:
        ``n_minobsinnode`` rows on each side (at least one on the left, the
        missing rows apart) and distinct values on the two sides."""
        c = int(self.layout.cont_row[v])
        m, mo = state.m, self.min_obs
        k = np.arange(int(state.nm[c]) + max(mo, 1) - 1, min(m - 1 - mo, m - 2) + 1)
        if k.size and self.layout.xrow[v] >= 0:      # the predictor has tied values
            x = self.sorted_values(state, v)
            k = k[x[k] != x[k + 1]]
        return k

    @staticmethod
    def _better(best: Split | None, split: Split, penalty: float) -> Split:
        """R's rule between the best so far and a later candidate: the later
        one only if strictly better (by its gain less its ``penalty``)."""
        if penalty:
            split = dataclasses.replace(split, penalty=penalty)
        if best is None or split.score > best.score:
            return split
        return best

    def _unit_split(self, state: NodeRows, v: int, k: int, total: Side) -> Split:
        """The split of continuous predictor ``v`` after sorted position ``k``,
        unit weights, with R's sums."""
        c = int(self.layout.cont_row[v])
        S_v = state.S[c]
        r = self.layout.xrow[v]
        if r >= 0:
            x_k, x_next = state.X[r, k], state.X[r, k + 1]
        else:
            xv = self.data.xt[v]
            x_k, x_next = xv[S_v[k]], xv[S_v[k + 1]]
        return unit_record(v, self.wz.take(S_v[:k + 1]), int(state.nm[c]), total,
                           float(midpoints(x_k, x_next)))

    def _continuous(self, state: NodeRows, total: Side, bounded: bool,
                    offsets: _Offsets | None = None):
        """Approximate gains of the continuous predictors of the node whose
        sums are ``total``, in blocks small enough for the working arrays to
        stay in the CPU cache (:data:`BLOCK_ELEMENTS`), or bounded (see
        :meth:`best`; ``offsets``: the penalties the gains will be compared
        less, see :class:`.bounded.BoundedGains`). With weights they are R's
        gains (the kernels start R's running sums from ``total``).

        Returns the largest gain of every continuous predictor (scaled units),
        a function giving one predictor's row of gains, and whether those
        rows are partial (bounded: only the positions that may be candidates).
        """
        G, H = state.G, state.H
        pc, m = self.cont.size, G.shape[1]
        K = self._kernels
        if bounded and self._boundable and pc * m >= (
                BOUNDED_MIN_ELEMENTS_MISSING_OR_TIED
                if self.layout.look.size or state.nm.any() else BOUNDED_MIN_ELEMENTS):
            found = self._bounded_gains(state, offsets)
            if found.ok:
                return found.best, found.row, True
        best = np.empty(pc)
        n_blocks = -(-pc * m // BLOCK_ELEMENTS)
        size = -(-pc // n_blocks)
        blocks = []
        if self._halves:                    # unit weights, no tie or constraint
            total, terms = float(G[0].sum()), None
            counts = self.layout.counts
            for start in range(0, pc, size):
                block = slice(start, min(start + size, pc))
                nm = state.nm[block]
                if nm.any():
                    gains = K.gain_missing(G[block], nm, total, self.min_obs, counts)
                else:
                    terms = K.plain_terms(m, total, self.min_obs, counts) \
                        if terms is None else terms
                    gains = K.gain_plain(G[block], terms)
                best[block] = gains.reshape(gains.shape[0], -1).max(axis=1)
                blocks.append(gains)
            rows = {}                       # a row in position order, made once:
                                            # best() zeroes the rejected positions
            def row(c):
                if c not in rows:
                    rows[c] = blocks[c // size][c % size].T.ravel()[:m - 1]
                return rows[c]
            return best, row, False
        terms = K.simple_terms(m, float(G[0].sum()), self.min_obs) if H is None else None
        for start in range(0, pc, size):
            block = slice(start, min(start + size, pc))
            gains = self._gain_block(state, (total.sum_z, total.w), block, terms)
            best[block] = gains.max(axis=1)
            blocks.append(gains)
        return best, lambda c: blocks[c // size][c % size], False

    def _bounded_gains(self, state: NodeRows, offsets: _Offsets | None = None) -> BoundedGains:
        """The node's continuous predictors searched by :class:`.bounded.BoundedGains`."""
        m = state.m
        cut_of = lambda lower, upper: self.tolerance.cut(m, lower, upper)   # noqa: E731
        if offsets is None:
            return BoundedGains(state.G, state.nm, self.min_obs, self.layout.cont_xrow,
                                state.X, cut_of)
        return BoundedGains(state.G, state.nm, self.min_obs, self.layout.cont_xrow, state.X,
                            cut_of, offsets.penalty, offsets.floor)

    def _gain_block(self, state: NodeRows, total: tuple[float, float], block: slice, terms):
        """Approximate gain of every position of the continuous predictors
        ``self.cont[block]``, (block size, m - 1).

        Gains are R's formula evaluated on prefix sums: with unit weights
        integers scaled by ``self.scale`` (so the gains are scaled by
        ``scale**2``), the right-hand sums the node total minus the left
        ones; with weights R's own running sums from the node's sums
        ``total`` (R's gains). Positions R does not consider (too few rows on
        a side, between tied values, against a monotone constraint) have
        gain 0.
        """
        K, lay = self._kernels, self.layout
        G, H = state.G, state.H
        Gc = G[block]
        Hc = None if H is None else H[block]
        pc, m = Gc.shape
        ls = Gc.cumsum(axis=1)
        if self.unit:
            ls = as_float(ls)
        nm = state.nm[block]
        gb = GainBlock(ls, Gc, Hc, nm, None if self.unit else total)
        # predictors with tied values: only positions between distinct values
        inside = (lay.look >= block.start) & (lay.look < block.stop)
        look = lay.look[inside] - block.start
        X = state.X[inside.nonzero()[0]] if look.size else None
        mono = lay.mono[block]
        mono = mono if lay.mono_any and mono.any() else None
        gain = np.empty((pc, m - 1))        # every kernel fills its rows
        if Hc is None:
            simple = nm == 0
            rows = simple.nonzero()[0]
            if rows.size:
                K.gain_simple(gb, rows, terms, gain)
            rows = (~simple).nonzero()[0]
            if rows.size:
                K.gain_unit_missing(gb, rows, self.min_obs, gain)
        else:
            K.gain_general(gb, np.arange(pc), self.min_obs, gain)
        if look.size:                                 # only between distinct values
            gain[look] *= X[:, 1:] != X[:, :-1]
        if mono is not None:
            K.monotone(gb, mono, self.unit, gain)
        return gain
