"""Best split of one node over every predictor, as R gbm searches it.

For a continuous (or ordered) predictor R scans the node's rows in increasing
order of the predictor, missing values first, and evaluates a split between
every two adjacent distinct values, at their midpoint, when both sides hold
at least ``n_minobsinnode`` rows (and the monotone constraint holds). For a
categorical predictor it orders the levels by their mean working response and
evaluates the prefixes of that order. The gain of a split is the weighted
between-group sum of squares of the left, right and missing groups
(``improvement`` below, R's ``CNode::Improvement``).

Everything is computed for all predictors of the node at once, in two steps.
Ranking: with unit weights the working response is quantised to integers once
per tree (:func:`quantize`), so prefix sums along the presorted rows are exact
and cheap, and every position's gain is computed from them (in large nodes
only where a bound shows that it may reach the best, see :mod:`.bounded`).
Deciding: the candidates within a proven error bound of the best
(:meth:`ExactSearch._tolerance`) are re-evaluated with R's own running sums,
and R's rule picks among them, so the split chosen, its statistics and its
gain are R's to the last bit, ties included.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._rmath import running_minus, sequential_minus, sequential_sum, shell_sort_order
from .bounded import BoundedGains, missing_terms
from .data import TrainingData

#: relative distance below which two candidates' gains are re-evaluated with
#: R's exact (sequential) arithmetic to break the tie as R does
NEAR_TIE = 1e-9
#: the integer working response w*z is scaled so that the sum of its absolute
#: values stays below 2**SUM_BITS: every prefix sum is then an integer that a
#: double represents exactly and that :func:`_as_float` converts exactly
#: (|sum| < 2**51 needed; SUM_BITS leaves room for the rounding of each row)
SUM_BITS = 50
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
#: largest power of two used as the scale (tiny responses)
MAX_SCALE_BITS = 400
#: double precision unit roundoff
EPS = np.finfo(float).eps


@dataclass
class Side:
    """Sufficient statistics of one child: sum of w*z, sum of w, row count."""

    sum_z: float
    w: float
    n: int


@dataclass
class Split:
    """The best split found for a node."""

    improvement: float
    var: int
    value: float                    # split point (continuous)
    left_levels: np.ndarray | None  # level codes sent left (categorical)
    left: Side
    right: Side
    missing: Side                   # the parent's statistics when no row is missing
    missing_empty: bool


def improvement(lw, rw, mw, ls, rs, ms):
    """R's split gain from the left/right/missing weights and sums (vectorised).

    ``mw`` and ``ms`` are scalars or arrays; where ``mw == 0`` the two-group
    formula is used, as in R.
    """
    t = ls / lw - rs / rw
    two = lw * rw * t * t / (lw + rw)
    if isinstance(mw, float):           # one split (scalars): no array machinery
        if mw == 0.0:
            return two
    elif np.all(np.asarray(mw) == 0.0):
        return two
    three = lw * rw * t * t
    t = ls / lw - ms / mw
    three = three + lw * mw * t * t
    t = rs / rw - ms / mw
    three = three + rw * mw * t * t
    three = three / (lw + rw + mw)
    if isinstance(mw, float):
        return three
    return np.where(np.asarray(mw) == 0.0, two, three)


#: 2**52 + 2**51: doubles from 2**52 to 2**53 are the integers, one apart, so
#: MAGIC + k (|k| < 2**51) is exact and its bits are MAGIC's bits plus k
_MAGIC = 2.0 ** 52 + 2.0 ** 51
_MAGIC_BITS = np.array(_MAGIC).view(np.int64)


def _as_float(ints: np.ndarray) -> np.ndarray:
    """int64 values below 2**51 in magnitude as float64, exactly, in place
    (the returned array shares ``ints``' memory). Two fast whole-array passes
    instead of NumPy's int-to-float cast, which costs several times more."""
    np.add(ints, _MAGIC_BITS, out=ints)
    out = ints.view(np.float64)
    np.subtract(out, _MAGIC, out=out)
    return out


def _squared_deviation(ls, shift, weight, out=None):
    """``(ls - shift)**2 * weight`` in three whole-array passes (``out`` may
    be ``ls``): the unit-weight gain from the prefix sums."""
    out = np.subtract(ls, shift, out=out)
    np.multiply(out, out, out=out)
    np.multiply(out, weight, out=out)
    return out


def quantize(wz: np.ndarray, bits: int = SUM_BITS) -> tuple[np.ndarray, float]:
    """w*z as int64 multiples of ``1 / scale`` (``scale`` a power of two, the
    largest with sum(|w*z|) * scale <= 2**bits).

    Integer prefix sums are exact, several times faster than floating ones,
    exactly representable as doubles, and differences of them are exact too;
    every sum of ``k`` rows is within ``k / (2 * scale)`` of the true sum.
    Gains computed from them only rank
    the candidates: the best ones are re-evaluated with R's arithmetic.
    """
    total = float(np.abs(wz).sum())
    if not total > 0.0 or not np.isfinite(total):
        return np.zeros(wz.shape, dtype=np.int64), 1.0
    # (capped so that gains, scaled by scale**2, stay far from overflow)
    scale = 2.0 ** min(np.floor(bits - np.log2(total)), MAX_SCALE_BITS)
    return np.rint(wz * scale).astype(np.int64), float(scale)


class NodeRows(NamedTuple):
    """Search state of a node: its in-bag rows sorted per continuous predictor
    (pc, m), and w*z and w of those rows in the same layout (H is None for
    unit weights). With unit weights G holds the quantized w*z (see
    :func:`quantize`)."""

    S: np.ndarray
    G: np.ndarray
    H: np.ndarray | None
    X: np.ndarray | None = None   # sorted values of the predictors in ExactSearch.xvars
    nm: np.ndarray | None = None  # missing values of every continuous predictor (first)
    R: np.ndarray | None = None   # in-bag rows in row order (categorical predictors)

    @property
    def m(self) -> int:
        """Number of in-bag rows of the node."""
        return self.R.size if self.R is not None else self.S.shape[1]


class CategoricalBest(NamedTuple):
    """R's search over every categorical predictor of a node, kept for the
    chosen one: per predictor (rows) and prefix of its level order (columns)."""

    gain: np.ndarray        # (nc,) best gain per predictor (0: none)
    pos: np.ndarray         # (nc,) its prefix length - 1
    order: np.ndarray       # (nc, K) level orders (padded with empty levels)
    ls: np.ndarray          # left sums (w*z, w, rows) per prefix
    lw: np.ndarray
    ln: np.ndarray
    rs: np.ndarray          # right sums per prefix, R's running subtraction
    rw: np.ndarray
    ms: np.ndarray          # missing group per predictor: sum w*z, w, rows
    mw: np.ndarray
    mn: np.ndarray


class _Layout(NamedTuple):
    """What the exact search needs to know of the predictors, the same for
    every tree of a fit (computed once per :class:`TrainingData`)."""

    xvars: np.ndarray     # continuous predictors whose sorted values the nodes carry
    xrow: np.ndarray      # (p,) row of a predictor in NodeRows.X, -1 if none
    look: np.ndarray      # rows (of the continuous block) with tied values
    mono: np.ndarray      # monotone constraint per continuous predictor
    mono_any: bool
    cont_row: np.ndarray  # (p,) row of a predictor in NodeRows.S, -1 if categorical
    cont_xrow: np.ndarray  # (continuous,) its row in NodeRows.X, -1 if none
    counts: np.ndarray    # 1.0, 2.0, ..., n: row counts as floats


def _layout(data: TrainingData) -> _Layout:
    if data._exact_layout is not None:
        return data._exact_layout
    cont = data.cont
    # continuous predictors whose sorted values the search reads, carried
    # along the nodes: those with tied values (missing values need only
    # their count per node, which comes first)
    xvars = cont[data.has_ties[cont]]
    xrow = np.full(data.p, -1)
    xrow[xvars] = np.arange(xvars.size)
    look = np.flatnonzero(data.has_ties[cont])
    mono = data.var_monotone[cont]
    cont_row = np.full(data.p, -1)
    cont_row[cont] = np.arange(cont.size)
    lay = _Layout(xvars, xrow, look, mono, bool(mono.any()), cont_row, xrow[cont],
                  np.arange(1.0, data.n + 1.0))
    data._exact_layout = lay
    return lay


class ExactSearch:
    """R's exact split search for the nodes of one tree (fixed z, w and bag).

    The search state of a node is a :class:`NodeRows`: its in-bag rows sorted
    per continuous predictor (a (pc, m) array) with their w*z (and w) in the
    same layout, and its in-bag rows in row order for the categorical ones.
    The grower calls :meth:`root`, :meth:`best` and
    :meth:`children`; another search (e.g. on binned predictors) only has to
    offer the same three methods and say, in ``r_arithmetic``, whether the
    node sums must be R's to the last bit.
    """

    #: the node sums are R's to the last bit (R's order of additions)
    r_arithmetic = True

    def __init__(self, data: TrainingData, z: np.ndarray, w: np.ndarray,
                 unit_weights: bool, min_obs: int):
        self.data = data
        self.wz = w * z
        self.w = w
        self.unit = unit_weights
        self.min_obs = int(min_obs)
        self.cont = data.cont
        self.cat = data.cat
        self._cat_index = np.arange(data.cat.size)[:, None]   # rows of (nc, levels) arrays
        self._direction = np.empty(data.n, dtype=np.int8)
        # unit weights: the nodes carry w*z as integers (exact, fast prefix sums)
        if unit_weights:
            self._g, self.scale = quantize(self.wz)
            self.zmax = float(np.abs(self.wz).max()) if self.wz.size else 0.0
        else:
            self._g, self.scale = self.wz, 1.0
        lay = _layout(data)
        self.xvars, self._xrow, self._look = lay.xvars, lay.xrow, lay.look
        self._mono, self._mono_any, self._cont_row = lay.mono, lay.mono_any, lay.cont_row
        self._cont_xrow, self._counts = lay.cont_xrow, lay.counts
        # the two-half kernels (_gain_plain, _gain_missing)
        self._halves = unit_weights and not lay.look.size and not lay.mono_any
        # unit weights and no monotone constraint: large nodes may be bounded
        self._boundable = unit_weights and not lay.mono_any

    def root(self, inbag: np.ndarray) -> NodeRows:
        bag = None if inbag.all() else inbag
        S, nm, X = self.data.bag_order(bag, self.xvars if self.xvars.size else None)
        R = inbag.nonzero()[0] if self.cat.size else None
        return NodeRows(S, self._g.take(S), None if self.unit else self.w.take(S), X,
                        nm, R)

    def sorted_values(self, state: NodeRows, v: int, end: int | None = None) -> np.ndarray:
        """Continuous predictor ``v``'s values in the node, in its sorted order
        (the first ``end``)."""
        r = self._xrow[v]
        if r >= 0:
            return state.X[r, :end]
        return self.data.xt[v].take(state.S[self._cont_row[v], :end])

    def _float_g(self, state: NodeRows, v: int, end: int | None = None) -> np.ndarray:
        """w*z of the node's rows in continuous predictor ``v``'s order, as
        floats (the first ``end``)."""
        c = self._cont_row[v]
        return self.wz.take(state.S[c, :end]) if self.unit else state.G[c, :end]

    def children(self, state: NodeRows, rows: np.ndarray, d: np.ndarray, split: Split):
        """Each child's sorted rows (and their w*z, w), keeping every predictor's
        order: sequential compressions of the parent's rows and values."""
        self._direction[rows] = d
        S = state.S
        pc = S.shape[0]
        D = self._direction.take(S).ravel()
        DX = D.reshape(pc, -1)[self._look].ravel() if state.X is not None else None
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
                state.X.ravel().compress(DX == side).reshape(self.xvars.size, -1),
                nm,
                None if DR is None else state.R.compress(DR == side)))
        return tuple(out)

    # ------------------------------------------------------------------
    def best(self, state: NodeRows, total: Side, bounded: bool = True) -> Split | None:
        """Best split of the node whose in-bag rows, sorted per predictor, are ``state.S``.

        Every candidate's gain is first computed for all predictors at once
        (from integer prefix sums with unit weights); the candidates within
        the error bound of the best (:meth:`_tolerance`) are then evaluated
        with R's sequential arithmetic, and R's rule picks among them: the
        largest gain, ties to the first predictor and the first position.
        """
        G, H = state.G, state.H
        m = state.m
        if m < 2:
            return None
        data = self.data
        best_gain = np.zeros(data.p)
        if self.cont.size:
            cont_best, gain_row, partial = self._continuous(state, G, H, bounded)
            best_gain[self.cont] = cont_best / (self.scale * self.scale)
        if self.cat.size:
            cats = self._categoricals(state, total)
            best_gain[self.cat] = cats.gain
        while True:
            top = best_gain.max()
            if not top > 0.0:
                return None
            # (gain 0 marks positions R does not consider: never candidates)
            threshold = max(top - self._tolerance(m, top), np.nextafter(0.0, 1.0))
            best, rejected = None, False
            for v in (best_gain >= threshold).nonzero()[0]:
                c = int(self._cont_row[v])
                if c < 0:                         # categorical: R's sums already
                    split = self._record_categorical(cats, v, total)
                else:
                    row = gain_row(c)
                    pos = (row >= threshold * self.scale * self.scale).nonzero()[0]
                    if pos.size == 1 and H is None and not data.var_monotone[v]:
                        # the usual case, kept to a few operations
                        split = self._unit_split(state, v, int(pos[0]), total)
                        if split.improvement > 0.0:       # valid with R's sums too
                            if best is None or split.improvement > best.improvement:
                                best = split
                            continue
                        exact = np.array([split.improvement])
                    else:
                        # the rows up to the last candidate (and one more value)
                        end = int(pos[-1]) + 1
                        x = self.sorted_values(state, v, end + 1)
                        g = self._float_g(state, v, end)
                        h = None if H is None else H[c, :end]
                        sums = self._exact_sums(x, g, h, total, int(state.nm[c]))
                        split, exact = None, self._exact_gains(v, sums, pos)
                    bad = ~(exact > 0.0)
                    if bad.any() and partial:     # the rows are known near the top only
                        return self.best(state, total, bounded=False)
                    if bad.any():             # approximately valid, not exactly
                        row[pos[bad]] = 0.0
                        best_gain[v] = row.max() / (self.scale * self.scale)
                        rejected = True
                    if bad.all():
                        continue
                    if split is None:
                        k = int(pos[np.argmax(np.where(bad, -np.inf, exact))])
                        split = self._record(v, x, total, k, sums)
                if best is None or split.improvement > best.improvement:
                    best = split
            if best is not None and not rejected:
                return best

    def _tolerance(self, m: int, top: float) -> float:
        """Twice a bound on |approximate gain - R's gain| near the top gain ``top``.

        Every gain is a between-group sum of squares, sum_g S_g^2 / W_g - S^2 / W,
        over the left, right and missing groups and the node. With unit
        weights each quantized sum S is off by at most eps_q = m / scale, so a
        term moves by at most 2 |S_g / W_g| eps_q + eps_q^2 / W_g <=
        2 zmax eps_q + eps_q^2 (four terms). The floating-point evaluation of
        the formula (ours and R's) adds rounding of the order of eps m zmax
        (sqrt(2 top) + zmax) and eps top. Weighted nodes use floating sums
        whose only difference to R's is rounding: NEAR_TIE relative.
        """
        if not self.unit:
            return NEAR_TIE * top
        eps_q = m / self.scale
        zmax = self.zmax
        bound = (4.0 * (2.0 * zmax * eps_q + eps_q * eps_q)
                 + 8.0 * EPS * m * zmax * (np.sqrt(2.0 * top) + zmax) + 16.0 * EPS * top)
        return max(2.0 * bound, NEAR_TIE * top)

    # ------------------------------------------------------------------
    @staticmethod
    def _missing_sums(g, h, nm: int) -> tuple[float, float]:
        """Sum of w*z and weight of the ``nm`` missing rows (they come first),
        added in R's order."""
        if nm == 0:
            return 0.0, 0.0
        ms = sequential_sum(g[:nm])
        mw = float(nm) if h is None else sequential_sum(h[:nm])
        return ms, mw

    def _continuous(self, state, G, H, bounded: bool):
        """Approximate gains of the continuous predictors, in blocks small
        enough for the working arrays to stay in the CPU cache
        (:data:`BLOCK_ELEMENTS`), or bounded (see :meth:`best`).

        Returns the largest gain of every continuous predictor (scaled units),
        a function giving one predictor's row of gains, and whether those
        rows are partial (bounded: only the positions that may be candidates).
        """
        pc, m = self.cont.size, G.shape[1]
        if bounded and self._boundable and pc * m >= (
                BOUNDED_MIN_ELEMENTS_MISSING_OR_TIED if self._look.size or state.nm.any()
                else BOUNDED_MIN_ELEMENTS):
            found = self._bounded_gains(state)
            if found.ok:
                return found.best, found.row, True
        best = np.empty(pc)
        n_blocks = -(-pc * m // BLOCK_ELEMENTS)
        size = -(-pc // n_blocks)
        blocks = []
        if self._halves:                    # unit weights, no tie or constraint
            total, terms = float(G[0].sum()), None
            for start in range(0, pc, size):
                block = slice(start, min(start + size, pc))
                nm = state.nm[block]
                if nm.any():
                    gains = self._gain_missing(G[block], nm, total)
                else:
                    terms = self._plain_terms(m, total) if terms is None else terms
                    gains = self._gain_plain(G[block], terms)
                best[block] = gains.reshape(gains.shape[0], -1).max(axis=1)
                blocks.append(gains)
            rows = {}                       # a row in position order, made once:
                                            # best() zeroes the rejected positions
            def row(c):
                if c not in rows:
                    rows[c] = blocks[c // size][c % size].T.ravel()[:m - 1]
                return rows[c]
            return best, row, False
        terms = self._simple_terms(m, float(G[0].sum())) if H is None else None
        for start in range(0, pc, size):
            block = slice(start, min(start + size, pc))
            gains = self._gain_block(state, G, H, block, terms)
            best[block] = gains.max(axis=1)
            blocks.append(gains)
        return best, lambda c: blocks[c // size][c % size], False

    def _bounded_gains(self, state: NodeRows) -> BoundedGains:
        """The node's continuous predictors searched by :class:`.bounded.BoundedGains`."""
        m = state.m
        return BoundedGains(state.G, state.nm, self.min_obs, self._cont_xrow, state.X,
                            lambda lower: self._cut(m, lower))

    def _cut(self, m: int, lower: float) -> float:
        """The threshold (scaled units) of :meth:`best` were the top gain
        ``lower`` (scaled): every candidate's approximate gain is above it
        when ``lower`` is at most the top gain, since ``t - tolerance(t)``
        grows with t wherever it is positive (the tolerance grows like
        sqrt(t) and EPS t)."""
        s2 = self.scale * self.scale
        return (lower / s2 - self._tolerance(m, lower / s2)) * s2

    def _gain_block(self, state, G, H, block: slice, terms):
        """Approximate gain of every position of the continuous predictors
        ``self.cont[block]``, (block size, m - 1).

        Gains are R's formula evaluated on prefix sums (integers scaled by
        ``self.scale`` with unit weights, so the gains are scaled by
        ``scale**2``); the right-hand sums are the node total minus the left
        ones. Positions R does not consider (too few rows on a side, between
        tied values, against a monotone constraint) have gain 0.
        """
        Gc = G[block]
        Hc = None if H is None else H[block]
        pc, m = Gc.shape
        ls = Gc.cumsum(axis=1)
        if self.unit:
            ls = _as_float(ls)
        nm = state.nm[block]
        # predictors with tied values: only positions between distinct values
        inside = (self._look >= block.start) & (self._look < block.stop)
        look = self._look[inside] - block.start
        X = state.X[inside.nonzero()[0]] if look.size else None
        mono = self._mono[block]
        mono = mono if self._mono_any and mono.any() else None
        gain = np.empty((pc, m - 1))        # every kernel fills its rows
        if Hc is None:
            simple = nm == 0
            rows = simple.nonzero()[0]
            if rows.size:
                self._gain_simple(ls, rows, gain, terms)
            rows = (~simple).nonzero()[0]
            if rows.size:
                self._gain_unit_missing(ls, nm, rows, m, gain)
        else:
            self._gain_general(ls, Gc, Hc, nm, np.arange(pc), gain)
        if look.size:                                 # only between distinct values
            gain[look] *= X[:, 1:] != X[:, :-1]
        if mono is not None:
            self._monotone(ls, Gc, Hc, nm, mono, gain)
        return gain

    def _simple_terms(self, m: int, total: float):
        """What :meth:`_gain_simple` needs of a node of ``m`` rows whose
        quantized w*z sum to ``total`` (the same for every block of its
        predictors): the admissible positions lo..hi (left = rows 0..k,
        ``n_minobsinnode`` on each side) and, per position, total * lw / m and
        m / (lw rw). None when no position is admissible."""
        mo = self.min_obs
        lo, hi = max(mo - 1, 0), m - 1 - mo
        if hi < lo:
            return None
        k = np.arange(lo, hi + 1, dtype=float)
        lw, rw = k + 1.0, m - 1.0 - k
        return lo, hi, total * (lw / m), m / (lw * rw)

    def _counts_halves(self, m: int) -> np.ndarray:
        """k + 1 (the left count with no missing row) at every position of a
        node of ``m`` rows, in the two-half layout of :meth:`_gain_plain`."""
        half = m // 2
        k1 = np.empty((half, 2))
        k1[:, 0] = self._counts[:half]
        k1[:, 1] = self._counts[half:2 * half]
        return k1

    def _zero_right_short(self, a: np.ndarray, m: int):
        """Zero the positions (two-half layout, last two axes of ``a``) whose
        right side has fewer than ``n_minobsinnode`` rows (at least 1)."""
        half = m // 2
        for col in (0, 1):
            # position p = col * half + row; rw = m - 1 - p >= mo  <=>  p <= m - 1 - mo
            a[..., min(max(m - max(self.min_obs, 1) - col * half, 0), half):, col] = 0.0

    def _plain_terms(self, m: int, total: float):
        """What :meth:`_gain_plain` needs of a node of ``m`` rows whose
        quantized w*z sum to ``total``, per position in its layout (see
        there): ``MAGIC + total * lw / m`` and ``m / (lw rw)``, the latter 0
        where a side has fewer than ``n_minobsinnode`` rows (and at the
        position with every row on the left, when m is even)."""
        half = m // 2
        lw = self._counts_halves(m)
        weight = np.subtract(m, lw)                   # rw
        if 2 * half == m:
            weight[-1, 1] = 1.0                       # rw = 0: zeroed below
        weight *= lw
        np.divide(m, weight, out=weight)
        # too few rows on the left: the first positions (p < mo - 1)
        mo = max(self.min_obs, 1)
        weight[:min(mo - 1, half), 0] = 0.0
        weight[:min(max(mo - 1 - half, 0), half), 1] = 0.0
        self._zero_right_short(weight, m)
        shift = np.multiply(lw, total / m, out=lw)
        shift += _MAGIC
        return shift, weight

    @staticmethod
    def _prefix_halves(Gb: np.ndarray) -> np.ndarray:
        """Prefix sums of the rows of ``Gb`` (predictors, m) as the bits of
        ``MAGIC + ls`` (see :func:`_as_float`), in the two-half layout
        (predictors, m // 2, 2): position ``h * (m // 2) + i`` at ``[i, h]``.

        A cumulative sum is one long chain of dependent additions; here each
        predictor's two halves run side by side (the second half starts from
        the first half's total), about twice as fast. When m is odd the last
        position (every row on the left, never a split) is left out. ``Gb``
        is restored before returning.
        """
        pc, m = Gb.shape
        half = m // 2
        halves = Gb[:, :2 * half].reshape(pc, 2, half)
        start = np.empty((pc, 2), dtype=np.int64)    # added to each half's first row
        start[:, 0] = _MAGIC_BITS
        np.einsum("ij->i", Gb[:, :half], out=start[:, 1])
        start[:, 1] += _MAGIC_BITS
        halves[:, :, 0] += start
        buf = np.empty((pc, half, 2), dtype=np.int64)
        np.cumsum(halves, axis=2, out=buf.transpose(0, 2, 1))
        halves[:, :, 0] -= start
        return buf

    def _gain_plain(self, Gb, terms):
        """Approximate gain of every position of a block of predictors with
        unit weights and no missing value, tie or constraint, in the
        two-half layout of :meth:`_prefix_halves`: the kernel of most nodes,
        in the fewest whole-array passes.

        Subtracting ``MAGIC + shift`` (rounded to an integer, as doubles near
        MAGIC are) from ``MAGIC + ls`` gives ``ls - shift`` within half a
        unit: within the error bound every quantized sum has anyway
        (:meth:`_tolerance`). Positions R does not consider have gain 0
        (weight 0 in ``terms``, from :meth:`_plain_terms`).
        """
        shift, weight = terms
        gain = self._prefix_halves(Gb).view(np.float64)
        np.subtract(gain, shift, out=gain)
        np.multiply(gain, gain, out=gain)
        np.multiply(gain, weight, out=gain)
        return gain

    def _gain_missing(self, Gb, nm, total: float):
        """:meth:`_gain_plain` for predictors with missing values (``nm`` per
        predictor, first in their order): R's three-group gain, in the
        two-half layout.

        As in :meth:`_gain_unit_missing`, the gain at position k is the
        two-group gain of the non-missing rows plus the between-group gain of
        non-missing against missing: ``d**2 n / (lw rw) + const`` with
        n = m - nm, lw = k + 1 - nm, rw = m - 1 - k and
        ``d = ls - alpha - beta (k + 1)``, beta = T'/n the non-missing mean,
        alpha = ms - beta nm (ms the missing rows' sum, T' = total - ms): the
        per-predictor terms of :func:`.bounded.missing_terms`, which the
        bounded search shares.
        """
        m = Gb.shape[1]
        n, beta, alpha, const, _ = missing_terms(Gb, nm, total)
        per = (slice(None), None, None)                       # per predictor
        k1 = self._counts_halves(m)
        gain = self._prefix_halves(Gb).view(np.float64)
        work = np.multiply(beta[per], k1)
        work += (_MAGIC + alpha)[per]                         # MAGIC + alpha + beta (k + 1)
        gain -= work
        gain *= gain
        lw = np.subtract(k1, nm[per], out=work)
        short = lw < max(self.min_obs, 1)                     # too few rows on the left
        lw *= m - k1                                          # lw rw
        with np.errstate(divide="ignore", invalid="ignore"):
            gain /= lw
        gain *= n[per]
        gain += const[per]
        np.copyto(gain, 0.0, where=short)
        self._zero_right_short(gain, m)
        return gain

    def _gain_simple(self, ls, rows, gain, terms):
        """Unit weights, no missing value in the node: vectors over positions.
        (``ls`` holds the prefix sums of the quantized w*z, as floats.)"""
        m = ls.shape[1]
        full = rows.size == ls.shape[0]
        at = slice(None) if full else rows
        if terms is None:
            gain[at] = 0.0
            return
        # gain = (left - total lw/m)^2 m / (lw rw); the node total is the same
        # (exact) number on every predictor's row
        lo, hi, shift, weight = terms
        if lo > 0 or hi < m - 2:                      # outside: too few rows on a side
            gain[at, :lo] = 0.0
            gain[at, hi + 1:] = 0.0
        if full:
            _squared_deviation(ls[:, lo:hi + 1], shift, weight, out=gain[:, lo:hi + 1])
        else:
            gain[rows, lo:hi + 1] = _squared_deviation(ls[rows, lo:hi + 1], shift, weight)

    def _gain_unit_missing(self, ls, nm, rows, m, gain):
        """Unit weights, missing values in front: R's three-group gain.

        For a predictor with ``nm`` missing rows the three-group gain is the
        two-group gain of its non-missing rows plus a constant
        (T'^2/(m - nm) + S_M^2/nm - S^2/m, T' the non-missing sum). At
        position k the non-missing left count is lw = k + 1 - nm and the right
        count m - 1 - k, the same for every predictor, so the two-group gain
        (L - T' lw / n)^2 n / (lw rw), L the non-missing left sum and
        n = m - nm, takes a few whole-array operations.
        """
        mo = self.min_obs
        nmr = nm[rows]
        lsr = ls if rows.size == ls.shape[0] else ls[rows]
        # (lsr may hold the integer prefix sums: exact as doubles)
        ms = lsr[np.arange(rows.size), nmr - 1].astype(float)    # sum over the missing rows
        node_sum = float(lsr[0, -1])                             # the same on every row
        t_nm = node_sum - ms                                     # non-missing sum
        n_obs = (m - nmr).astype(float)                          # non-missing rows
        k1 = np.arange(1.0, m)                                   # k + 1
        lw = k1[None, :] - nmr[:, None]                          # left count (<= 0: no split)
        out = gain if rows.size == gain.shape[0] else np.empty((rows.size, m - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            np.subtract(lsr[:, :-1], ms[:, None], out=out)       # L
            out -= lw * (t_nm / n_obs)[:, None]
            out *= out
            out /= lw
            out *= (1.0 / (m - k1))[None, :]                     # 1 / rw
            out *= n_obs[:, None]
            # plus the between-group gain of non-missing vs missing (>= 0)
            const = t_nm * t_nm / n_obs + ms * ms / nmr - node_sum * node_sum / m
        out += const[:, None]
        # admissible positions: both children hold >= n_minobsinnode rows, i.e.
        # nm + mo - 1 <= k <= m - 1 - mo (a window per predictor)
        out[:, max(m - mo, 0):] = 0.0
        for r, first in enumerate((nmr + max(mo, 1) - 1).tolist()):   # lw >= 1
            out[r, :first] = 0.0
        out[n_obs <= 0] = 0.0
        if out is not gain:
            gain[rows] = out

    def _gain_general(self, ls, Gc, Hc, nm, rows, gain):
        """Weights or missing values: R's three-group formula, row by row arrays."""
        mo = self.min_obs
        m = ls.shape[1]
        k = np.arange(m - 1)
        nmr = nm[rows]
        # the missing rows lead every predictor's sorted rows
        nanr = np.arange(m)[None, :] < nmr[:, None] if nmr.any() else None
        g = Gc[rows]
        lsr = np.where(nanr, 0.0, g).cumsum(axis=1) if nanr is not None else ls[rows]
        if Hc is None:
            lw = (k[None, :] - nmr[:, None] + 1).astype(float)
            hl_tot = (m - nmr).astype(float)[:, None]
            mw = nmr.astype(float)
        else:
            h = Hc[rows]
            hl = np.where(nanr, 0.0, h).cumsum(axis=1) if nanr is not None \
                else h.cumsum(axis=1)
            lw = hl[:, :-1]
            hl_tot = hl[:, -1:]
            mw = np.sum(np.where(nanr, h, 0.0), axis=1) if nanr is not None \
                else np.zeros(rows.size)
        ms = np.sum(np.where(nanr, g, 0.0), axis=1) if nanr is not None else np.zeros(rows.size)
        lsk = lsr[:, :-1]
        rs = lsr[:, -1:] - lsk
        rw = hl_tot - lw
        n_left = k[None, :] - nmr[:, None] + 1
        n_right = (m - 1 - k)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            gr = improvement(lw, rw, mw[:, None], lsk, rs, ms[:, None])
        ok = (n_left >= mo) & (n_right >= mo) & (gr > 0.0)
        gain[rows] = np.where(ok, gr, 0.0)

    def _monotone(self, ls, Gc, Hc, nm, mono, gain):
        """R's constraint: monotone * (right_sum * left_w - left_sum * right_w) > 0."""
        rows = np.flatnonzero(mono != 0)
        m = ls.shape[1]
        k = np.arange(m - 1)
        # missing rows sit in front: their sums belong to neither side
        front = np.arange(m)[None, :] < nm[rows][:, None]
        lfull = np.where(front, 0.0, Gc[rows]).cumsum(axis=1) if front.any() \
            else ls[rows]
        lsk, tot = lfull[:, :-1], lfull[:, -1:]
        if Hc is None:
            lw = (k[None, :] - nm[rows][:, None] + 1).astype(float)
            rw = (m - 1 - k)[None, :].astype(float)
        else:
            hl = np.where(front, 0.0, Hc[rows]).cumsum(axis=1)
            lw, rw = hl[:, :-1], hl[:, -1:] - hl[:, :-1]
        rs = tot - lsk
        # integer sums: keep the positions that may pass (each sum is off by
        # at most m / 2 units, the products by m**2 / 2); the candidates are
        # checked exactly in _exact_gains
        slack = float(m) * m if self.unit else 0.0
        keep = mono[rows][:, None] * (rs * lw - lsk * rw) > -slack
        gain[rows] *= keep

    def _categoricals(self, state: NodeRows, total: Side) -> CategoricalBest:
        """R's search over every categorical predictor of the node at once.

        R adds every row to its level's sums in the predictor's sorted order,
        i.e. level by level and within a level in row order; a weighted count
        (``np.bincount``, sequential per cell) over the node's rows in row
        order gives the very same sums, for all categorical predictors in one
        pass (see ``TrainingData.category_cells``). Levels are ordered by mean
        working response (R's Shell sort where means tie), and every prefix
        but the last of the non-empty levels is a candidate: left sums
        accumulated level by level, right sums the node's total (less the
        missing rows, one at a time) less each level in turn, as R computes
        them.
        """
        data, R = self.data, state.R
        nc, width = self.cat.size, data.cell_width
        cells = data.category_cells.take(R, axis=1).ravel()
        size = nc * width
        g = self.wz.take(R)
        h = None if self.unit else self.w.take(R)
        each = np.empty((nc, R.size))               # a row's value for each predictor
        # sums of w*z, w and rows per cell: (3, nc, width), missing cells last
        sums = np.empty((3, size))
        each[:] = g
        sums[0] = np.bincount(cells, each.ravel(), minlength=size)
        sums[2] = np.bincount(cells, minlength=size)
        if h is None:
            sums[1] = sums[2]
        else:
            each[:] = h
            sums[1] = np.bincount(cells, each.ravel(), minlength=size)
        sums = sums.reshape(3, nc, width)
        ms, mw, mn = sums[0, :, -1], sums[1, :, -1], sums[2, :, -1].astype(np.intp)
        gs, gw = sums[0, :, :-1], sums[1, :, :-1]
        finite = gw != 0.0
        means = np.full(gs.shape, np.inf)
        np.divide(gs, gw, out=means, where=finite)
        order = np.argsort(means, axis=1, kind="stable")
        at = (self._cat_index, order)               # each predictor's levels in order
        sm = means[at]
        tied = (sm[:, 1:] == sm[:, :-1]) & np.isfinite(sm[:, 1:])
        for i in np.flatnonzero(tied.any(axis=1)).tolist():
            K = int(data.var_type[self.cat[i]])
            order[i, :K] = shell_sort_order(means[i, :K])
        levels = sums[:, :, :-1][(slice(None),) + at]
        ls, lw, ln = levels.cumsum(axis=2)
        # the right side: the node's total less the missing rows (one at a
        # time, in row order), then less each level in turn
        right = np.empty((2, nc, width))
        right[0, :, 0], right[1, :, 0] = total.sum_z, total.w
        for i in np.flatnonzero(mn).tolist():
            missing = cells[i * R.size:(i + 1) * R.size] == (i + 1) * width - 1
            right[0, i, 0] = sequential_minus(total.sum_z, g[missing])
            right[1, i, 0] = (total.w - mn[i] if h is None
                              else sequential_minus(total.w, h[missing]))
        np.negative(levels[:2], out=right[:, :, 1:])
        rs, rw = right.cumsum(axis=2)[:, :, 1:]
        rn = (total.n - mn)[:, None] - ln
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = improvement(lw, rw, mw[:, None], ls, rs, ms[:, None])
        prefix = np.arange(width - 1) < (finite.sum(axis=1) - 1)[:, None]
        ok = prefix & (ln >= self.min_obs) & (rn >= self.min_obs) & (gain > 0.0)
        gain = np.where(ok, gain, 0.0)
        pos = np.argmax(gain, axis=1)
        return CategoricalBest(gain[np.arange(nc), pos], pos, order, ls, lw, ln, rs, rw,
                               ms, mw, mn)

    def _record_categorical(self, cats: CategoricalBest, v: int, total: Side) -> Split:
        """The chosen split of categorical predictor ``v`` from the node's search."""
        i = int(np.searchsorted(self.cat, v))
        k = int(cats.pos[i])
        ls, lw, n_left = float(cats.ls[i, k]), float(cats.lw[i, k]), int(cats.ln[i, k])
        rs, rw = float(cats.rs[i, k]), float(cats.rw[i, k])
        nm, ms, mw = int(cats.mn[i]), float(cats.ms[i]), float(cats.mw[i])
        missing = Side(ms, mw, nm) if nm else Side(total.sum_z, total.w, 0)
        gain = improvement(lw, rw, mw, ls, rs, ms)
        return Split(float(gain), int(v), float(k), np.sort(cats.order[i, :k + 1]),
                     Side(ls, lw, n_left), Side(rs, rw, int(total.n - nm - n_left)),
                     missing, nm == 0)

    # ------------------------------------------------------------------
    def _exact_sums(self, x, g, h, total, nm):
        """R's running sums along the sorted rows ``g`` (a prefix of the node's).

        Returns (nm, ms, mw, left_z, left_w, right_z, right_w): the missing
        group's count and sums, and, per position k (left = rows nm..k), the
        left sums accumulated from the first non-missing row (index k - nm)
        and the right sums as the node total minus every row up to k, one row
        at a time (index k).
        """
        ms, mw = self._missing_sums(g, h, nm)
        end = g.size
        left_z = g[nm:].cumsum()
        right_z = running_minus(total.sum_z, g)
        if h is None:
            left_w = np.arange(1, end - nm + 1, dtype=float)
            right_w = total.w - np.arange(1, end + 1, dtype=float)
        else:
            left_w = h[nm:].cumsum()
            right_w = running_minus(total.w, h)
        return nm, ms, mw, left_z, left_w, right_z, right_w

    def _unit_split(self, state: NodeRows, v: int, k: int, total: Side) -> Split:
        """The split of continuous predictor ``v`` after sorted position ``k``,
        unit weights, with R's sums (what :meth:`_record` computes, in fewer
        operations)."""
        c = int(self._cont_row[v])
        S_v = state.S[c]
        g = self.wz.take(S_v[:k + 1])
        r = self._xrow[v]
        if r >= 0:
            x_k, x_next = state.X[r, k], state.X[r, k + 1]
        else:
            xv = self.data.xt[v]
            x_k, x_next = xv[S_v[k]], xv[S_v[k + 1]]
        nm = int(state.nm[c])
        rs = sequential_minus(total.sum_z, g)             # node total minus each row
        ls = sequential_sum(g[nm:])
        lw, rw = float(k + 1 - nm), total.w - (k + 1)
        ms, mw = self._missing_sums(g, None, nm)
        missing = Side(ms, mw, nm) if nm else Side(total.sum_z, total.w, 0)
        gain = improvement(lw, rw, mw, ls, rs, ms)
        return Split(float(gain), int(v), float(0.5 * (x_k + x_next)), None,
                     Side(ls, lw, k + 1 - nm), Side(rs, rw, total.n - (k + 1)),
                     missing, nm == 0)

    def _exact_gains(self, v, sums, pos):
        """R's gain of continuous predictor ``v`` at the positions ``pos`` (each
        already admissible by size and ties) from its :meth:`_exact_sums`;
        0 where the monotone rule fails."""
        nm, ms, mw, left_z, left_w, right_z, right_w = sums
        ls, lw = left_z[pos - nm], left_w[pos - nm]
        rs, rw = right_z[pos], right_w[pos]
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.asarray(improvement(lw, rw, mw, ls, rs, ms), dtype=float)
        mono = int(self.data.var_monotone[v])
        if mono:
            gain = np.where(mono * (rs * lw - ls * rw) > 0, gain, 0.0)
        return gain

    def _record(self, v, x, total, pos, sums) -> Split:
        """Statistics of the chosen split of continuous predictor ``v`` after
        sorted position ``pos``, from its :meth:`_exact_sums` ``sums``."""
        k = int(pos)
        nm, ms, mw, left_z, left_w, right_z, right_w = sums
        value = 0.5 * (x[k] + x[k + 1])
        ls, lw = float(left_z[k - nm]), float(left_w[k - nm])
        rs, rw = float(right_z[k]), float(right_w[k])
        n_left = k + 1 - nm
        n_right = total.n - nm - n_left
        if nm:
            missing = Side(ms, mw, nm)
        else:
            missing = Side(total.sum_z, total.w, 0)
        gain = improvement(lw, rw, mw, ls, rs, ms)
        return Split(float(gain), int(v), float(value), None,
                     Side(ls, lw, int(n_left)), Side(rs, rw, int(n_right)),
                     missing, nm == 0)
