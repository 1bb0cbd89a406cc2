"""Best split of one node over every predictor, as R gbm searches it.

For a continuous (or ordered) predictor R scans the node's rows in increasing
order of the predictor, missing values first, and evaluates a split between
every two adjacent distinct values, at their midpoint, when both sides hold
at least ``n_minobsinnode`` rows (and the monotone constraint holds). For a
categorical predictor it orders the levels by their mean working response and
evaluates the prefixes of that order. The gain of a split is the weighted
between-group sum of squares of the left, right and missing groups
(``improvement`` below, R's ``CNode::Improvement``).

Everything is computed for all predictors of the node at once: cumulative sums
along the presorted rows give every candidate's left and right sums in one
pass. The running sums are formed in the same order and with the same
operations as R's scan, so the gains are the same floating-point numbers and
ties between candidates are broken as R breaks them (the first one wins).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .data import TrainingData

#: relative distance below which two predictors' gains are re-evaluated with
#: R's exact (sequential) arithmetic to break the tie as R does
NEAR_TIE = 1e-9


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
    if np.all(np.asarray(mw) == 0.0):
        return two
    three = lw * rw * t * t
    t = ls / lw - ms / mw
    three = three + lw * mw * t * t
    t = rs / rw - ms / mw
    three = three + rw * mw * t * t
    three = three / (lw + rw + mw)
    return np.where(np.asarray(mw) == 0.0, two, three)


def _running_rest(total, parts):
    """``total - parts[0] - parts[1] - ...`` accumulated left to right, per row.

    Column k holds the rest after subtracting parts[:, :k+1], computed with the
    same sequence of subtractions as R's scan (so the same rounding).
    """
    lead = np.broadcast_to(np.reshape(total, (-1, 1)), (parts.shape[0], 1))
    return np.cumsum(np.concatenate((lead, -parts), axis=1), axis=1)[:, 1:]


def _r_shell_sort_order(values: np.ndarray) -> np.ndarray:
    """The permutation R's ``rsort_with_index`` (a Shell sort) produces.

    Stable sorting gives the same result unless there are ties; ties are
    resolved as R's gap sequence resolves them.
    """
    idx = np.arange(values.shape[0])
    finite = values[np.isfinite(values)]
    if np.unique(finite).shape[0] == finite.shape[0]:
        return np.argsort(values, kind="stable")
    x = values.tolist()
    ix = idx.tolist()
    n = len(x)
    h = 1
    while h <= n // 9:
        h = 3 * h + 1
    while h > 0:
        for i in range(h, n):
            v, iv = x[i], ix[i]
            j = i
            while j >= h and x[j - h] > v:
                x[j], ix[j] = x[j - h], ix[j - h]
                j -= h
            x[j], ix[j] = v, iv
        h //= 3
    return np.asarray(ix)


class NodeRows(NamedTuple):
    """Search state of a node: its in-bag rows sorted per predictor (p, m), and
    w*z and w of those rows in the same layout (H is None for unit weights)."""

    S: np.ndarray
    G: np.ndarray
    H: np.ndarray | None
    X: np.ndarray | None = None   # sorted values of the predictors in ExactSearch.xvars


class ExactSearch:
    """R's exact split search for the nodes of one tree (fixed z, w and bag).

    The search state of a node is a :class:`NodeRows`: its in-bag rows sorted
    per predictor (a (p, m) array) with their w*z (and w) in the same layout. The grower calls :meth:`root`, :meth:`best` and
    :meth:`children`; another search (e.g. on binned predictors) only has to
    offer the same three methods.
    """

    def __init__(self, data: TrainingData, z: np.ndarray, w: np.ndarray,
                 unit_weights: bool, min_obs: int):
        self.data = data
        self.wz = w * z
        self.w = w
        self.unit = unit_weights
        self.min_obs = int(min_obs)
        self.cont = np.flatnonzero(data.var_type == 0)
        self.cat = np.flatnonzero(data.var_type > 0)
        self._direction = np.empty(data.n, dtype=np.int8)
        # predictors whose sorted values the search reads: categoricals, and
        # continuous ones with missing or tied values; carried along the nodes
        needs = (data.var_type > 0) | data.has_nan | data.has_ties
        self.xvars = np.flatnonzero(needs)
        self._xrow = np.full(data.p, -1)
        self._xrow[self.xvars] = np.arange(self.xvars.size)
        # per-tree constants of the continuous search
        self._whole = self.cont.size == data.p
        self._look = np.flatnonzero(data.has_nan[self.cont] | data.has_ties[self.cont])
        self._look_x = self._xrow[self.cont[self._look]]
        self._mono = data.var_monotone[self.cont]
        self._mono_any = bool(self._mono.any())

    def root(self, inbag: np.ndarray) -> NodeRows:
        S = self.data.bag_order(None if inbag.all() else inbag)
        X = (np.take_along_axis(self.data.xt[self.xvars], S[self.xvars], axis=1)
             if self.xvars.size else None)
        return NodeRows(S, np.take(self.wz, S), None if self.unit else np.take(self.w, S), X)

    def sorted_values(self, state: NodeRows, v: int) -> np.ndarray:
        """Predictor ``v``'s values in the node, in its sorted order."""
        r = self._xrow[v]
        if r >= 0:
            return state.X[r]
        return self.data.xt[v, state.S[v]]

    def children(self, state: NodeRows, rows: np.ndarray, d: np.ndarray, split: Split):
        """Each child's sorted rows (and their w*z, w), keeping every predictor's
        order: sequential compressions of the parent's arrays, no new gathers."""
        self._direction[rows] = d
        S = state.S
        D = np.take(self._direction, S).ravel()
        p = S.shape[0]
        DX = D.reshape(p, -1)[self.xvars].ravel() if state.X is not None else None
        out = []
        for side, n_side in ((0, split.left.n), (1, split.right.n), (2, split.missing.n)):
            if not n_side:
                out.append(NodeRows(*(None if a is None else a[:, :0] for a in state)))
                continue
            keep = D == side
            out.append(NodeRows(
                np.compress(keep, S.ravel()).reshape(p, -1),
                np.compress(keep, state.G.ravel()).reshape(p, -1),
                None if state.H is None else np.compress(keep, state.H.ravel()).reshape(p, -1),
                None if DX is None else
                np.compress(DX == side, state.X.ravel()).reshape(self.xvars.size, -1)))
        return tuple(out)

    # ------------------------------------------------------------------
    def best(self, state: NodeRows, total: Side) -> Split | None:
        """Best split of the node whose in-bag rows, sorted per predictor, are ``state.S``."""
        S, G, H, _ = state
        m = S.shape[1]
        if m < 2:
            return None
        data = self.data
        best_gain = np.zeros(data.p)
        best_pos = np.full(data.p, -1, dtype=np.intp)
        extra = {}
        if self.cont.size:
            self._continuous(state, G, H, total, best_gain, best_pos)
        for v in self.cat:
            extra[v] = self._categorical(v, self.sorted_values(state, v), G[v],
                                         None if H is None else H[v],
                                         total, best_gain, best_pos)
        top = best_gain.max()
        if not top > 0.0:
            return None
        # Predictors within rounding of the best are compared with R's exact
        # arithmetic (a split on another predictor can give the same partition;
        # R keeps the first predictor whose gain is strictly larger).
        best = None
        for v in np.flatnonzero(best_gain >= top * (1.0 - NEAR_TIE)):
            split = self._record(v, self.sorted_values(state, v), G[v],
                                 None if H is None else H[v],
                                 total, best_pos[v], extra.get(v))
            if best is None or split.improvement > best.improvement:
                best = split
        return best

    # ------------------------------------------------------------------
    @staticmethod
    def _missing_stats(x, g, h):
        """Count, sum of w*z and weight of the missing rows (they come first)."""
        nm = int(np.count_nonzero(np.isnan(x)))
        if nm == 0:
            return 0, 0.0, 0.0
        ms = float(np.cumsum(g[:nm])[-1])
        mw = float(nm) if h is None else float(np.cumsum(h[:nm])[-1])
        return nm, ms, mw

    @staticmethod
    def _after_missing(g, h, nm, total):
        """Right-hand sums after R has moved the missing rows out of them."""
        if nm == 0:
            return total.sum_z, total.w
        z = _running_rest(total.sum_z, g[None, :nm])[0, -1]
        w = total.w - nm if h is None else _running_rest(total.w, h[None, :nm])[0, -1]
        return z, w

    def _continuous(self, state, G, H, total, best_gain, best_pos):
        """Best position per continuous predictor (all of them at once).

        Gains are R's formula evaluated on cumulative sums; the right-hand
        sums are the node total minus the left ones (R subtracts row by row,
        which can differ in the last bit; the chosen split's statistics are
        recomputed exactly in :meth:`_record`).
        """
        cont = self.cont
        whole = self._whole
        Gc = G if whole else G[cont]
        pc, m = Gc.shape
        ls = np.cumsum(Gc, axis=1)
        nm = np.zeros(pc, dtype=np.intp)
        # predictors whose sorted values are needed: missing or tied values
        look = self._look
        X = None
        if look.size:
            X = state.X[self._look_x]
            nm[look] = np.isnan(X).sum(axis=1)
        gain = np.zeros((pc, m - 1))
        if H is None:
            simple = nm == 0
            rows = np.flatnonzero(simple)
            if rows.size:
                self._gain_simple(ls, rows, m, gain)
            rows = np.flatnonzero(~simple)
            if rows.size:
                self._gain_unit_missing(ls, nm, rows, m, total, gain)
        else:
            self._gain_general(ls, Gc, H if whole else H[cont], X, look, nm,
                               np.arange(pc), gain)
        if X is not None:
            gain[look] *= X[:, 1:] != X[:, :-1]       # only between distinct values
        if self._mono_any:
            self._monotone(ls, Gc, H if (H is None or whole) else H[cont], nm, self._mono, gain)
        pos = np.argmax(gain, axis=1)
        best_gain[cont] = gain[np.arange(pc), pos]
        best_pos[cont] = pos

    def _gain_simple(self, ls, rows, m, gain):
        """Unit weights, no missing value in the node: vectors over positions."""
        mo = self.min_obs
        lo, hi = max(mo - 1, 0), m - 1 - mo           # positions k: left = 0..k
        if hi < lo:
            return
        k = np.arange(lo, hi + 1, dtype=float)
        lw, rw = k + 1.0, m - 1.0 - k
        lsk = ls[rows, lo:hi + 1] if rows.size < ls.shape[0] else ls[:, lo:hi + 1]
        tot = ls[rows, -1:] if rows.size < ls.shape[0] else ls[:, -1:]
        # left mean - right mean = ls/lw - (tot - ls)/rw
        d = lsk * (1.0 / lw + 1.0 / rw)
        d -= tot * (1.0 / rw)
        d *= d
        d *= lw * rw / (lw + rw)
        if rows.size < ls.shape[0]:
            gain[rows, lo:hi + 1] = d
        else:
            gain[:, lo:hi + 1] = d

    def _gain_unit_missing(self, ls, nm, rows, m, total, gain):
        """Unit weights, missing values in front: R's three-group gain.

        For a predictor with ``nm`` missing rows the three-group gain is the
        two-group gain of its non-missing rows plus a constant
        (T'^2/(m - nm) + S_M^2/nm - S^2/m, T' the non-missing sum), so both are
        computed with whole-array operations on the original positions.
        """
        mo = self.min_obs
        k = np.arange(m - 1, dtype=float)
        nmr = nm[rows]
        lsr = ls if rows.size == ls.shape[0] else ls[rows]
        r_idx = np.arange(rows.size)
        ms = lsr[r_idx, nmr - 1]                                 # sum over the missing rows
        t_nm = lsr[:, -1] - ms                                   # non-missing sum
        n_obs = (m - nmr).astype(float)                          # non-missing rows
        lw = k[None, :] - (nmr - 1.0)[:, None]                   # left count (<= 0: no split)
        with np.errstate(divide="ignore", invalid="ignore"):
            # two-group gain of the non-missing rows: (left - T' lw/n)^2 n / (lw rw)
            c = lsr[:, :-1] - ms[:, None]
            c -= (t_nm / n_obs)[:, None] * lw
            c *= c
            lw *= n_obs[:, None] - lw                            # lw * rw, in place
            lw /= n_obs[:, None]
            c /= lw
            # plus the between-group gain of non-missing vs missing (>= 0)
            const = t_nm * t_nm / n_obs + ms * ms / nmr - total.sum_z * total.sum_z / m
        c += const[:, None]
        # admissible positions: both children hold >= n_minobsinnode rows, i.e.
        # nm + mo - 1 <= k <= m - 1 - mo (a window per predictor)
        c[:, max(m - mo, 0):] = 0.0
        for r, first in enumerate((nmr + mo - 1).tolist()):
            c[r, :max(first, 0)] = 0.0
        c[n_obs <= 0] = 0.0
        gain[rows] = c

    def _gain_general(self, ls, Gc, Hc, X, look, nm, rows, gain):
        """Weights or missing values: R's three-group formula, row by row arrays."""
        mo = self.min_obs
        m = ls.shape[1]
        k = np.arange(m - 1)
        nmr = nm[rows]
        if X is not None and nmr.any():
            where = np.searchsorted(look, rows)
            has = nmr > 0
            nanr = np.zeros((rows.size, m), dtype=bool)
            nanr[has] = np.isnan(X[where[has]])
        else:
            nanr = None
        g = Gc[rows]
        lsr = np.cumsum(np.where(nanr, 0.0, g), axis=1) if nanr is not None else ls[rows]
        if Hc is None:
            lw = (k[None, :] - nmr[:, None] + 1).astype(float)
            hl_tot = (m - nmr).astype(float)[:, None]
            mw = nmr.astype(float)
        else:
            h = Hc[rows]
            hl = np.cumsum(np.where(nanr, 0.0, h), axis=1) if nanr is not None \
                else np.cumsum(h, axis=1)
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
        lfull = np.cumsum(np.where(front, 0.0, Gc[rows]), axis=1) if front.any() \
            else ls[rows]
        lsk, tot = lfull[:, :-1], lfull[:, -1:]
        if Hc is None:
            lw = (k[None, :] - nm[rows][:, None] + 1).astype(float)
            rw = (m - 1 - k)[None, :].astype(float)
        else:
            hl = np.cumsum(np.where(front, 0.0, Hc[rows]), axis=1)
            lw, rw = hl[:, :-1], hl[:, -1:] - hl[:, :-1]
        rs = tot - lsk
        keep = mono[rows][:, None] * (rs * lw - lsk * rw) > 0
        gain[rows] *= keep

    def _categorical(self, v, x, g, h, total, best_gain, best_pos):
        nm, ms, mw = self._missing_stats(x, g, h)
        K = int(self.data.var_type[v])
        codes = x[nm:].astype(np.intp)
        gs = np.bincount(codes, weights=g[nm:], minlength=K)
        gn = np.bincount(codes, minlength=K)
        gw = gn.astype(float) if h is None else np.bincount(codes, weights=h[nm:], minlength=K)
        finite = gw != 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            means = np.where(finite, gs / np.where(finite, gw, 1.0), np.inf)
        order = _r_shell_sort_order(means)
        n_finite = int(finite.sum())
        if n_finite < 2:
            return None
        sel = order[: n_finite - 1]
        ls = np.cumsum(gs[sel])
        lw = np.cumsum(gw[sel])
        n_left = np.cumsum(gn[sel])
        start_z, start_w = self._after_missing(g, h, nm, total)
        rs = _running_rest(start_z, gs[sel][None, :])[0]
        rw = _running_rest(start_w, gw[sel][None, :])[0]
        n_right = total.n - nm - n_left
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = improvement(lw, rw, mw, ls, rs, ms)
        ok = (n_left >= self.min_obs) & (n_right >= self.min_obs) & (gain > 0.0)
        gain = np.where(ok, gain, 0.0)
        i = int(np.argmax(gain))
        best_gain[v] = gain[i]
        best_pos[v] = i
        return order

    # ------------------------------------------------------------------
    def _record(self, v, x, g, h, total, pos, order) -> Split:
        """Statistics of the chosen split (recomputed exactly for one predictor)."""
        nm, ms, mw = self._missing_stats(x, g, h)
        if order is None:
            k = int(pos)
            left = slice(nm, k + 1)
            value = 0.5 * (x[k] + x[k + 1])
            ls = float(np.cumsum(g[left])[-1])
            lw = float(k + 1 - nm) if h is None else float(np.cumsum(h[left])[-1])
            n_left = k + 1 - nm
            rs = float(_running_rest(total.sum_z, g[None, : k + 1])[0, -1])
            rw = float(total.w - (k + 1)) if h is None else \
                float(_running_rest(total.w, h[None, : k + 1])[0, -1])
            left_levels = None
        else:
            codes = x[nm:].astype(np.intp)
            K = int(self.data.var_type[v])
            gs = np.bincount(codes, weights=g[nm:], minlength=K)
            gn = np.bincount(codes, minlength=K)
            gw = gn.astype(float) if h is None else np.bincount(codes, weights=h[nm:], minlength=K)
            sel = order[: int(pos) + 1]
            ls = float(np.cumsum(gs[sel])[-1])
            lw = float(np.cumsum(gw[sel])[-1])
            n_left = int(gn[sel].sum())
            start_z, start_w = self._after_missing(g, h, nm, total)
            rs = float(_running_rest(start_z, gs[sel][None, :])[0, -1])
            rw = float(_running_rest(start_w, gw[sel][None, :])[0, -1])
            value = float(pos)
            left_levels = np.sort(sel)
        n_right = total.n - nm - n_left
        if nm:
            missing = Side(ms, mw, nm)
        else:
            missing = Side(total.sum_z, total.w, 0)
        gain = improvement(lw, rw, mw, ls, rs, ms)
        return Split(float(gain), int(v), float(value), left_levels,
                     Side(ls, lw, int(n_left)), Side(rs, rw, int(n_right)),
                     missing, nm == 0)
