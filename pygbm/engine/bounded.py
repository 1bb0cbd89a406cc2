"""Bounded exact search: the gains of a large node's continuous predictors,
computed in full only where they can reach the best.

The exact search (:mod:`.exact`) ranks every position of every continuous
predictor by an approximate gain from integer prefix sums, then re-evaluates
the candidates within a proven error bound of the best with R's arithmetic.
For that it only needs every position whose approximate gain reaches the
threshold ``top - tolerance``; the others only have to be known to be below
it. Here the positions are cut into blocks of :data:`BLOCK` and:

1. the prefix sums at the block ends come from the block sums (one pass over
   the node that vectorises, where a cumulative sum does not) and give the
   approximate gains there: their maximum is a lower bound of the top gain;
2. inside a block the centred left sum ``d`` (below) moves by at most one
   row's ``|w z - mean|`` per position, so its magnitude, and with the
   largest weight of the block's positions the gain, is bounded from the two
   block ends;
3. only the blocks whose bound reaches the threshold of that lower bound get
   every position's gain (a few per cent of them on the benchmarks).

Every position that the full computation makes a candidate is computed here
too, with the same approximate gain (the same formula, rounded in another
order), so R's split is found among the candidates just the same. Unit
weights only (with weights the sums are not integers); missing and tied
values are handled; monotone constraints are not (the caller checks).

The gain at position k (left = sorted rows 0..k, the ``nm`` missing rows
first) is the two-group gain of the non-missing rows plus a constant, the
gain of non-missing against missing (see ``kernels.reference.gain_unit_missing``):
``d**2 n / (lw rw) + const`` with lw = k + 1 - nm, rw = m - 1 - k, n = m - nm
and ``d = L - t lw / n = ls - alpha - beta (k + 1)``, L (t) the non-missing
left (total) sum, ls the prefix sum, beta = t / n, alpha = ms - beta nm.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

#: positions per block: the bound loosens with the block, the coarse pass
#: shrinks with it
BLOCK = 64
#: relative margin on the bounds for the rounding of the gains' evaluation
#: (a few units of 2**-52; far below the search's tolerance of 1e-9 relative)
BOUND_MARGIN = 1e-12
#: index of every predictor row as a column (a view, where a gather would copy)
ALL = (slice(None), None)
#: absolute margin (quantized units) on |d| at the block ends for their rounding
ANCHOR_MARGIN = 4.0


class MissingTerms(NamedTuple):
    """Per predictor of a node whose ``nm`` missing rows come first: what its
    three-group gain ``d**2 n / (lw rw) + const`` needs (see the module's
    docstring)."""

    n: np.ndarray          # non-missing rows, m - nm
    beta: np.ndarray       # non-missing mean t / n (0 if no such row)
    alpha: np.ndarray      # ms - beta nm
    const: np.ndarray      # gain of non-missing against missing (0 if a group is empty)
    const_err: np.ndarray  # a bound on the rounding of const


def missing_terms(G: np.ndarray, nm: np.ndarray, total: float) -> MissingTerms:
    """:class:`MissingTerms` of the node's quantized w*z ``G`` (predictors, m),
    sorted per predictor with the ``nm`` missing rows first, summing to
    ``total``."""
    m = G.shape[1]
    lead = int(nm.max(initial=0))
    front = np.arange(lead)[None, :] < nm[:, None]
    ms = np.where(front, G[:, :lead], 0).sum(axis=1).astype(float)
    n = (m - nm).astype(float)
    t = total - ms
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = np.where(n > 0, t / n, 0.0)
        parts = (t * t / n, ms * ms / nm, total * total / m)
        const = parts[0] + parts[1] - parts[2]
    has = (nm > 0) & (n > 0)
    # the constant's rounding: a few ulps of its largest part
    return MissingTerms(n, beta, ms - beta * nm, np.where(has, const, 0.0),
                        np.where(has, 8.0 * np.finfo(float).eps * sum(parts), 0.0))


class BoundedGains:
    """Approximate gains of the continuous predictors of one node, evaluated
    at the block ends and inside the blocks that may hold a candidate.

    ``G``: the node's quantized w*z, (predictors, m), sorted per predictor
    with the missing rows first (``nm`` per predictor); ``X``: the sorted
    values of the predictors with ties, or None, and ``xrow`` the row of X of
    each row of G (-1: no tie);
    ``cut_of(lower, upper)``: the threshold below which a gain is not a
    candidate, given a lower bound of the top gain and an upper bound of the
    gains whose rounding the threshold allows for (the threshold must not
    decrease with ``lower`` nor increase with ``upper``).
    ``offset`` (a split-gain adjustment's penalties, scaled units, one per
    predictor; None: none): gains are compared less their predictor's
    offset, so predictor ``c``'s candidates are its gains at or above the
    threshold of the top *penalised* gain plus ``offset[c]``;
    ``upper_floor``: the largest gain of the node's other (categorical)
    predictors, which the threshold's rounding must also allow for.

    After construction: ``ok`` (False: no positive gain at a block end, use
    the full search), ``best`` (the largest gain per predictor) and
    :meth:`row`.
    """

    def __init__(self, G: np.ndarray, nm: np.ndarray, min_obs: int,
                 xrow: np.ndarray, X: np.ndarray | None,
                 cut_of: Callable[[float, float], float],
                 offset: np.ndarray | None = None, upper_floor: float = 0.0):
        pc, m = G.shape
        self.m = m
        self._terms(G, nm, min_obs)
        self._X = X
        self._xrow = xrow
        nb = (m - 1) // BLOCK                       # full blocks of positions 0..m-2
        t0 = self.t0 = nb * BLOCK
        blocks = G[:, :t0].reshape(pc, nb, BLOCK)
        ends = np.einsum("ijk->ij", blocks).cumsum(axis=1)     # ls at the block ends
        e = np.arange(BLOCK - 1, t0, BLOCK)[None, :]
        d_end = self._centred(ALL, e, ends)
        self.end_gain = self._gains(ALL, e, d_end)
        # the positions after the last full block: computed in full
        start = ends[:, -1:] if nb else 0
        tail = np.arange(t0, m - 1)[None, :]
        self.tail_gain = self._gains(
            ALL, tail, self._centred(ALL, tail, start + G[:, t0:m - 1].cumsum(axis=1)))
        self.best = np.maximum(self.end_gain.max(axis=1, initial=0.0),
                               self.tail_gain.max(axis=1, initial=0.0))
        lower = float(self.best.max(initial=0.0))
        self.ok = lower > 0.0
        self.refined = None
        if not self.ok or not nb:
            return
        # two bounds per block: every block's from the largest |G| of the
        # node; for the blocks that pass, a tighter one from their sum of |G|
        row0 = G[0]                                 # the node's rows (any order)
        zq = float(max(row0.max(), -row0.min()))
        move, w = self._bound_terms(e, d_end)
        coarse = self._bound(move + BLOCK * zq, w, ALL)
        if offset is None:
            cut = cut_of(lower, lower)
            cut_at = lambda rows: cut                       # noqa: E731
        else:
            cut = self._penalised_cut(cut_of, offset, coarse, upper_floor)
            cut_at = lambda rows: cut[rows, 0]              # noqa: E731
        ci, bj = (coarse >= cut).nonzero()
        inside = blocks[ci, bj]
        move = move[ci, bj] + np.abs(inside).sum(axis=1)
        keep = (self._bound(move, w[ci, bj], ci) >= cut_at(ci)).nonzero()[0]
        if keep.size:
            ci, bj, inside = ci[keep], bj[keep], inside[keep]
            start = np.where(bj > 0, ends[ci, bj - 1], 0)     # ls before each block
            ls = start[:, None] + inside.cumsum(axis=1)
            pos = bj[:, None] * BLOCK + np.arange(BLOCK)
            r = ci[:, None]
            gain = self._gains(r, pos, self._centred(r, pos, ls))
            np.maximum.at(self.best, ci, gain.max(axis=1))
            self.refined = (ci, pos, gain)

    def _penalised_cut(self, cut_of, offset, coarse, upper_floor) -> np.ndarray:
        """Per predictor (a column), the threshold of its gains when gains are
        compared less ``offset``: the top penalised gain is at least the
        largest penalised gain at the block ends (or 0: a search without a
        positive penalised gain finds nothing), and no gain exceeds the
        blocks' coarse bounds, the exact gains or ``upper_floor``; the
        rounding allowance is that of the largest possible gain."""
        lower = max(float((self.best - offset).max(initial=0.0)), 0.0)
        upper = max(float(coarse.max(initial=0.0)), float(self.best.max(initial=0.0)),
                    float(upper_floor))
        return (cut_of(lower, upper) + offset)[:, None]

    def _terms(self, G, nm, min_obs):
        """Per predictor: alpha, beta, n, the constant (and its rounding) and
        the first admissible position (see the module's docstring). Without
        missing values they are the same for every predictor: scalars
        (``uniform``), which spares the per-predictor gathers."""
        m = self.m
        total = float(G[0].sum())                   # exact: sums of integers
        lead = int(nm.max(initial=0))
        self.last = m - 1 - min_obs                 # rw >= min_obs
        self.uniform = not lead
        if not lead:                                # no missing value: n = m
            self.nm, self.alpha, self.beta, self.n = 0, 0.0, total / m, float(m)
            self.const = self.const_err = None
            self.first = max(min_obs, 1) - 1
            return
        self.nm = nm
        self.n, self.beta, self.alpha, self.const, self.const_err = missing_terms(G, nm, total)
        self.first = np.where(self.n > 0, nm + max(min_obs, 1) - 1, m)   # lw >= 1, min_obs

    def _of(self, a, r):
        """Per-predictor quantity ``a`` at the predictor rows ``r`` (a scalar
        when the node is ``uniform``)."""
        return a if self.uniform else a[r]

    def _centred(self, r, k, ls):
        """d at positions ``k`` of the predictor rows ``r`` (broadcast) from
        their prefix sums ``ls``."""
        d = ls - self._of(self.beta, r) * (k + 1)
        if not self.uniform:
            d -= self.alpha[r]
        return d

    def _weight(self, r, k):
        """n / (lw rw) where the split is admissible by size, else 0."""
        first, nm = self._of(self.first, r), self._of(self.nm, r)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = self._of(self.n, r) / ((k + 1 - nm) * (self.m - 1 - k))
        w[(k < first) | (k > self.last)] = 0.0
        return w

    def _gains(self, r, k, d):
        """Approximate gains (scaled units) at positions ``k`` of rows ``r``."""
        w = self._weight(r, k)
        gain = w * d
        gain *= d
        if self.const is not None:
            gain += np.where(w > 0.0, self.const[r], 0.0)
        if self._X is not None:                     # only between distinct values
            xr = self._xrow[r]
            shape = np.broadcast_shapes(xr.shape, k.shape)
            tied = np.broadcast_to(xr >= 0, shape)
            if tied.any():
                xi = np.broadcast_to(np.maximum(xr, 0), shape)
                kk = np.broadcast_to(k, shape)
                gain[tied & (self._X[xi, kk] == self._X[xi, kk + 1])] = 0.0
        return gain

    def _bound_terms(self, e, d_end):
        """What bounds a block's gains, per predictor and block: |d| at the
        block's two ends plus the moves of d = G - beta they allow, without
        the moves of G (to be added: at most the block's sum of |G|); and n
        over the smallest lw and rw of the block's admissible positions (0:
        none), at least n / (lw rw) of each."""
        move = np.empty_like(d_end)                 # |d| before each block (k = jB - 1)
        move[:, :1] = np.abs(self._of(self.alpha, ALL))     # k = -1: ls = 0
        np.abs(d_end[:, :-1], out=move[:, 1:])
        move += np.abs(d_end)
        move += BLOCK * np.abs(self._of(self.beta, ALL)) + 2.0 * ANCHOR_MARGIN
        lo = np.maximum(e - (BLOCK - 1), self._of(self.first, ALL))
        hi = np.minimum(e, self.last)
        with np.errstate(divide="ignore"):
            w = self._of(self.n, ALL) / ((lo + 1 - self._of(self.nm, ALL)) * (self.m - 1 - hi))
        w = np.broadcast_to(w, move.shape)
        w = np.where(lo > hi, 0.0, w)               # no admissible position
        return move, w

    def _bound(self, move, w, r):
        """An upper bound of the gains of blocks (predictor rows ``r``) from
        their :meth:`_bound_terms` with the moves of G added: from its two
        ends, |d| at a position is at most half their |d| and moves."""
        bound = 0.5 * move
        bound *= bound
        bound *= w
        bound *= 1.0 + BOUND_MARGIN
        if self.const is not None:
            bound += np.where(w > 0.0, (self.const + self.const_err)[r], 0.0)
        return bound

    def row(self, c: int) -> np.ndarray:
        """Predictor ``c``'s gains at every position (m - 1): computed where
        they may be candidates, 0 elsewhere (below the threshold)."""
        out = np.zeros(self.m - 1)
        out[BLOCK - 1:self.t0:BLOCK] = self.end_gain[c]
        if self.refined is not None:
            ci, pos, gain = self.refined
            mine = ci == c
            out[pos[mine]] = gain[mine]
        out[self.t0:] = self.tail_gain[c]
        return out
