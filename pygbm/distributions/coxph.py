"""Cox proportional hazards (R gbm's ``distribution = "coxph"``).

``y`` is the survival time, ``misc`` the event indicator (1 = event,
0 = censored).  R's gbm.fit sorts the rows by decreasing time (a stable
``order(-time)``) and every sum below runs over the rows in that order, so
the risk set of row ``i`` is the rows at or before ``i`` (tied times are
ordered by their original position).  Each method sorts its rows that way
first when they are not already sorted, so any caller gets R's numbers;
per-row outputs are returned in the caller's order.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._rmath import sequential_minus, sequential_sum
from ..messages import listed
from ._common import as_numeric_response, check_finite, full_f
from .base import Distribution


def time_order(time):
    """Permutation putting rows in R's order (stable decreasing time), or None if already so."""
    time = np.asarray(time, dtype=float)
    if time.size < 2 or np.all(time[:-1] >= time[1:]):
        return None
    return np.argsort(-time, kind="stable")


def _take(a, order):
    if a is None or order is None:
        return a
    return np.asarray(a)[order]


def _time_status(y, misc):
    """Time vector and status: ``y`` is the time (``misc`` the status) or an
    (n, 2) array ``(time, status)`` as ``np.asarray(Surv(...))`` gives."""
    y = np.asarray(y, dtype=float)
    if y.ndim == 2 and y.shape[1] == 2:
        return y[:, 0], y[:, 1]
    return y, misc


def _status(misc, n):
    if misc is None:
        raise ValueError("coxph needs the event indicator (misc = status 0/1)")
    d = np.asarray(misc, dtype=float)
    if d.shape != (n,):
        raise ValueError(f"coxph: the status vector (misc) has shape {d.shape}; expected ({n},)")
    return d


class _TimeOrdered(NamedTuple):
    """A response's rows in R's order (:func:`time_order`): the permutation (None:
    the rows were in order), their event status and their weights."""

    order: np.ndarray | None
    status: np.ndarray
    w: np.ndarray

    def take(self, a, dtype=float):
        """Per-row ``a`` (a bag, node indices, ...) in this order, as ``dtype``."""
        return np.asarray(_take(a, self.order), dtype=dtype)

    def link(self, f, offset):
        """The link values f + offset in this order."""
        return full_f(_take(f, self.order), _take(offset, self.order))

    def restore(self, z):
        """Per-row values in this order back in the caller's order."""
        if self.order is None:
            return z
        out = np.empty_like(z)
        out[self.order] = z
        return out


def _time_ordered(t) -> _TimeOrdered:
    """The rows of the response ``t`` in R's order."""
    y, misc = _time_status(t.y, t.misc)
    o = time_order(y)
    return _TimeOrdered(o, _status(_take(misc, o), np.asarray(y).shape[0]),
                        np.asarray(_take(t.w, o), dtype=float))


def _events(d, w):
    """The rows whose event counts: status 1 and a positive weight. A zero-weight
    event adds 0 to every sum, but R adds it as ``0 * log(0)`` (NaN) where its risk
    set is empty (every row at or before it has weight 0), and R's whole fit is NaN
    and 0 then; pygbm leaves it out."""
    return (d == 1.0) & (w > 0.0)


def _column_sums(m):
    """Each column's sum, added row by row from the first (R's order)."""
    if m.shape[0] == 0:
        return np.zeros(m.shape[1])
    return np.cumsum(m, axis=0)[-1]


def _dot(x, y) -> float:
    """``x[0] * y[0] + x[1] * y[1] + ...`` added left to right from 0 (R's loops)."""
    return sequential_sum(np.multiply(x, y))


def _inverse_as_r(h):
    """The inverse of ``h`` computed as R gbm's matrix class computes it, so
    with its rounding: ``h = L U`` without pivoting (``U`` with a unit
    diagonal, both kept in one array), then ``L`` and ``U`` inverted in place,
    then the product ``U^-1 L^-1``; every sum added left to right.

    A zero pivot yields non-finite entries instead of an error, which the
    caller turns into R's "not invertible -> 0" rule.
    """
    a = np.array(h, dtype=float)
    n = a.shape[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a[0, 1:] = a[0, 1:] / a[0, 0]
        for i in range(1, n):
            for j in range(i, n):                        # column i of L
                a[j, i] = a[j, i] - _dot(a[j, :i], a[:i, i])
            for j in range(i + 1, n):                    # row i of U
                a[i, j] = (a[i, j] - _dot(a[i, :i], a[:i, j])) / a[i, i]
        for i in range(n):                               # L^-1, a column at a time
            a[i, i] = 1.0 / a[i, i]
            for j in range(i + 1, n):
                a[j, i] = sequential_minus(0.0, np.multiply(a[j, i:j], a[i:j, i])) / a[j, j]
        for i in range(n):                               # U^-1, a row at a time
            for j in range(i + 1, n):
                u = a[i, i:j].copy()
                u[0] = 1.0                               # U's unit diagonal
                a[i, j] = -_dot(a[i:j, j], u)
        inv = np.empty_like(a)                           # U^-1 L^-1
        for j in range(n):
            for i in range(n):
                k = max(i, j)
                u = a[j, k:].copy()
                if k == j:
                    u[0] = 1.0                           # U^-1's unit diagonal
                inv[j, i] = _dot(u, a[k:, i])
    return inv


class CoxPH(Distribution):
    """Cox partial likelihood (Breslow-type sums in R's row order).

    * deviance: ``-2 * sum_{events} w (F - log(R_i)) / sum_{events} w`` with
      ``R_i = sum_{j <= i} w_j exp(F_j)``
    * working response: ``z_i = d_i - exp(F_i) * sum_{events k >= i} w_k / R_k``
      (in-bag rows only in the sums); ``w_i z_i`` is minus the derivative of
      the negative log partial likelihood in ``F_i``, i.e.
      ``z_i = -(W / (2 w_i)) d deviance / d f_i`` with ``W`` the event weight.
    * initial value: 0.
    * terminal nodes: one Newton step on the partial likelihood in the
      terminal-node values, using the in-bag rows of nodes with at least
      ``min_obs`` in-bag rows; the last such node (in node order) is fixed at
      0 for identifiability, and the other nodes get 0.  Node order matters:
      it must be R's terminal-node order (when terminal node ``k`` splits,
      its left child keeps ``k``, the right child gets the next free index
      and the missing child the one after).
    * events of weight 0 are left out of every sum (R's fit is NaN and 0 when
      such an event has an empty risk set: :func:`_events`).
    * out-of-bag improvement: R 2.1.8 never sets ``F`` in its BagImprovement
      loop, so it uses ``F = 0`` (ignoring f and the offset):
      ``sum_{oob events} w (s_i - log(sum_{oob j<=i} w_j e^{s_j})
      + log(sum_{oob j<=i} w_j)) / sum_{oob events} w``, ``s = shrinkage * fadj``.
      Reproduced (checked against R with an offset).
    """

    name = "coxph"
    needs_time_order = True
    survival_response = True

    def check_response(self, y):
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 2:
            arr = np.asarray(arr, dtype=float)
            check_finite(arr[:, 0], self.name, "survival time")
            st = arr[:, 1]
            check_finite(st, self.name, "event status")
            if not np.all(np.isin(st, (0.0, 1.0))):
                raise ValueError(
                    "coxph needs the event status of the response y coded 0/1 "
                    f"(0 = censored, 1 = event); got values {listed(np.unique(st))}"
                )
        elif arr.ndim == 1:
            arr = as_numeric_response(arr, self.name)
        else:
            raise ValueError(
                "coxph needs a survival response y: an (n, 2) array of (time, status) "
                f"or a Surv object; got shape {arr.shape}"
            )
        # negative times (log-times, times from a reference date) are R's too: the
        # partial likelihood reads only their order
        return arr

    # -- the vignette's table -------------------------------------------------
    def init_f(self, t, ctx):
        return 0.0

    def deviance(self, t, f, ctx):
        sorted_rows = _time_ordered(t)
        d, w, F = sorted_rows.status, sorted_rows.w, sorted_rows.link(f, t.offset)
        risk = np.cumsum(w * ctx.model_exp(F))
        ev = _events(d, w)
        dl = np.sum(w[ev] * (F[ev] - ctx.model_log(risk[ev])))
        with np.errstate(divide="ignore", invalid="ignore"):  # no event: NaN, as R
            return float(np.float64(-2.0 * dl) / np.float64(np.sum(w[ev])))

    def negative_gradient(self, t, f, bag, ctx):
        sorted_rows = _time_ordered(t)
        d, w, F = sorted_rows.status, sorted_rows.w, sorted_rows.link(f, t.offset)
        b = sorted_rows.take(bag, bool)
        ef = ctx.model_exp(F)
        risk = np.cumsum(np.where(b, w * ef, 0.0))
        use = b & _events(d, w)
        contrib = np.zeros_like(F)
        contrib[use] = w[use] / risk[use]
        tot = np.cumsum(contrib[::-1])[::-1]
        return sorted_rows.restore(d - ef * tot)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        n_nodes, node_n, min_obs = leaves.n_nodes, leaves.counts, leaves.min_obs
        sorted_rows = _time_ordered(t)
        d, w, F = sorted_rows.status, sorted_rows.w, sorted_rows.link(f, t.offset)
        b, node = sorted_rows.take(bag, bool), sorted_rows.take(leaves.node, np.intp)
        out = np.zeros(n_nodes)
        eligible = np.asarray(node_n)[:n_nodes] >= min_obs
        k2node = np.flatnonzero(eligible)
        K = k2node.size
        if K < 2:
            return out
        rows = b & eligible[node]
        e = np.where(rows, w * ctx.model_exp(F), 0.0)
        risk = np.cumsum(e)
        ev = rows & _events(d, w)
        we = w[ev][:, None]
        # each free node's (all but the last eligible one) running in-bag risk
        # at the events, and the whole risk set's; R's Newton step below adds
        # every term over the events in their (time) order, as R writes them
        share = np.empty((int(ev.sum()), K - 1))
        for k in range(K - 1):
            share[:, k] = np.cumsum(np.where(node == k2node[k], e, 0.0))[ev]
        risk_ev = risk[ev][:, None]
        q = share / risk_ev
        member = (node[ev][:, None] == k2node[None, :K - 1]).astype(float)
        g = _column_sums(we * (member - q))
        wq = we * share / risk_ev                       # (w P_k) / R
        h = np.empty((K - 1, K - 1))
        for k in range(K - 1):
            h[k, :k] = _column_sums(wq[:, [k]] * share[:, :k] / risk_ev)
            h[:k, k] = h[k, :k]
        h[np.diag_indices(K - 1)] = 0.0 - _column_sums(wq * (1.0 - q))
        hinv = _inverse_as_r(h)
        # R's update loop, column by column: a non-finite inverse entry zeroes
        # its node and skips the nodes after it in that column
        pred = np.zeros(K - 1)
        finite = np.isfinite(hinv)
        for m in range(K - 1):
            for k in range(K - 1):
                if not finite[k, m]:
                    pred[k] = 0.0
                    break
                pred[k] -= hinv[k, m] * g[m]
        out[k2node[:K - 1]] = pred
        return out

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        sorted_rows = _time_ordered(t)
        d, w = sorted_rows.status, sorted_rows.w
        F = np.zeros_like(w)  # R's BagImprovement leaves F at 0
        oob = ~sorted_rows.take(bag, bool)
        step = shrinkage * sorted_rows.take(fadj)
        num = np.cumsum(np.where(oob, w * ctx.model_exp(F + step), 0.0))
        den = np.cumsum(np.where(oob, w * ctx.model_exp(F), 0.0))
        ev = oob & _events(d, w)
        gain = np.sum(w[ev] * (step[ev] - ctx.model_log(num[ev]) + ctx.model_log(den[ev])))
        with np.errstate(divide="ignore", invalid="ignore"):  # no oob row: NaN, as R
            return float(np.float64(gain) / np.float64(np.sum(w[ev])))
