"""R's ``loess`` for one predictor, as ``gbm.perf(method = "OOB")`` uses it.

R's ``stats::loess`` (Cleveland, Grosse and Shyu's netlib code) fits, at each point
of a set of *vertices*, a local polynomial by weighted least squares: the
``nf = floor(n * span + 1e-5)`` nearest observations get tricube weights
``(1 - (d / d_max) ** 3) ** 3`` (``d_max`` the distance of the ``nf``-th nearest,
multiplied by ``sqrt(span)`` when ``span > 1``), the others weight 0.

* ``surface = "interpolate"`` (R's default): the vertices are the corners of a
  k-d tree.  In one dimension the tree splits the (0.5 % enlarged) range of ``x``
  at medians of the sorted data until a cell holds at most
  ``fc = floor(n * span * cell)`` observations; the local fit gives a value and a
  slope at every vertex, and the surface in a cell is the cubic Hermite
  polynomial through its two vertices.
* ``surface = "direct"``: the local fit is done at every evaluation point.

The least-squares problem is solved as R does: columns scaled to unit length,
QR, SVD of R, and a pseudo-inverse that drops singular values below
``100 * eps * sigma_max``.  Only ``family = "gaussian"`` (no robustness
iterations) and one numeric predictor are implemented; that is all ``gbm.perf``
needs.  Everything is vectorised over vertices (chunked to bound memory).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._checks import choice_arg
from ..messages import warn

#: R's loess.control() defaults
DEFAULT_CELL = 0.2
DEFAULT_SPAN = 0.75
#: relative enlargement of the bounding box of x (netlib ehg126)
BOX_MARGIN = 0.005
#: singular values below PINV_FACTOR * eps * sigma_max are dropped (netlib ehg127)
PINV_FACTOR = 100.0
#: rows (vertices x neighbours) handled per vectorised chunk
CHUNK_ROWS = 2_000_000
#: R 4.x takes nf = floor(n * span + 1e-5) neighbours (checked against R 4.2.2)
NF_FUZZ = 1e-5
#: R's minimum k-d tree size: nvmax = ncmax = max(MIN_KD_SIZE, n)
MIN_KD_SIZE = 200
#: R's enp.target -> span rule (White book p.321): span = SPAN_PER_ENP * tau / enp
SPAN_PER_ENP = 1.2


def span_from_enp(enp_target: float, degree: int = 2) -> float:
    """R's span for ``loess(..., enp.target=)`` with one predictor.

    ``tau`` is the number of local parameters (1, 2 or 3 for degree 0, 1, 2);
    R computes ``span <- 1.2 * tau / enp.target`` in that order.
    """
    if degree not in (0, 1, 2):
        raise ValueError(f"degree must be 0, 1 or 2; got {degree!r}")
    if not np.isfinite(enp_target) or enp_target <= 0:
        raise ValueError(f"enp_target must be a positive number; got {enp_target!r}")
    tau = float((1, 2, 3)[degree])
    return SPAN_PER_ENP * tau / float(enp_target)


@dataclass
class KDTree1D:
    """The k-d tree of an interpolating loess fit in one dimension.

    ``vertices`` are sorted; ``values`` and ``slopes`` are the local fit and its
    derivative at each vertex; ``n_cells`` counts all cells (R's ``length(kd$xi)``).
    """

    vertices: np.ndarray
    values: np.ndarray = field(default=None)
    slopes: np.ndarray = field(default=None)
    n_cells: int = 1

    def evaluate(self, z: np.ndarray) -> np.ndarray:
        """Cubic Hermite interpolation in the leaf cell holding each ``z``.

        A point equal to a split value belongs to the lower cell (R: ``z <= xi``
        goes to the low son).  Points outside the bounding box give NaN.
        """
        z = np.asarray(z, dtype=float)
        v = self.vertices
        cell = np.clip(np.searchsorted(v[1:-1], z, side="left"), 0, len(v) - 2)
        v0, v1 = v[cell], v[cell + 1]
        width = v1 - v0
        h = (z - v0) / width
        phi0 = (1 - h) ** 2 * (1 + 2 * h)
        phi1 = h ** 2 * (3 - 2 * h)
        psi0 = h * (1 - h) ** 2
        psi1 = h ** 2 * (h - 1)
        out = (phi0 * self.values[cell] + phi1 * self.values[cell + 1]
               + (psi0 * self.slopes[cell] + psi1 * self.slopes[cell + 1]) * width)
        return np.where((z >= v[0]) & (z <= v[-1]), out, np.nan)


@dataclass
class LoessFit:
    """Result of :func:`loess`: ``fitted`` in the input order, the ``span`` used,
    ``degree``, ``surface`` and (for ``surface="interpolate"``) the ``kd`` tree."""

    fitted: np.ndarray
    span: float
    degree: int
    surface: str
    kd: KDTree1D | None = None
    n_pseudoinverse: int = 0


def _check_inputs(x, y, weights, span, degree, surface, cell):
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or y.ndim != 1 or len(x) != len(y):
        raise ValueError("x and y must be 1-d arrays of the same length; "
                         f"got shapes {x.shape} and {y.shape}")
    if len(x) == 0:
        raise ValueError("x must have at least one observation")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite (no NaN or inf)")
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != y.shape or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite, non-negative and one per observation")
    if not (isinstance(span, (int, float, np.number)) and np.isfinite(span) and span > 0):
        raise ValueError(f"span must be a positive number; got {span!r}")
    if degree not in (0, 1, 2):
        raise ValueError(f"degree must be 0, 1 or 2; got {degree!r}")
    choice_arg("surface", surface, ("interpolate", "direct"))
    if not (np.isfinite(cell) and cell > 0):
        raise ValueError(f"cell must be a positive number; got {cell!r}")
    return x, y, w


def _window_starts(xs: np.ndarray, q: np.ndarray, nf: int) -> np.ndarray:
    """Start (0-based) of the ``nf`` consecutive sorted points nearest to each ``q``.

    Moving the window from ``s`` to ``s + 1`` helps when ``xs[s + nf]`` is nearer
    than ``xs[s]``; that test is monotone in ``s``, so a vectorised bisection
    over all ``q`` at once finds the first start where it fails.
    """
    n = len(xs)
    lo = np.zeros(len(q), dtype=np.int64)
    hi = np.full(len(q), n - nf, dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        active = lo < hi
        safe = np.minimum(mid, n - nf - 1)
        move = ((xs[safe + nf] - q) ** 2 < (xs[safe] - q) ** 2) & active
        lo = np.where(move, mid + 1, lo)
        hi = np.where(active & ~move, mid, hi)
    return lo


def _local_fits(xs, ys, ws, q, nf, span, degree):
    """Local polynomial value and slope at each point of ``q`` (netlib ehg127).

    Returns ``(value, slope, n_pseudoinverse)``.
    """
    k = degree + 1
    n_q = len(q)
    value = np.empty(n_q)
    slope = np.zeros(n_q)
    n_pinv = 0
    eps = np.finfo(float).eps
    chunk = max(1, CHUNK_ROWS // max(nf, 1))
    powers = np.arange(k)
    for start in range(0, n_q, chunk):
        qc = q[start:start + chunk]
        s = _window_starts(xs, qc, nf)
        idx = s[:, None] + np.arange(nf)[None, :]
        dx = xs[idx] - qc[:, None]
        dist = dx ** 2
        rho = dist.max(axis=1) * max(1.0, span)
        if np.any(rho <= 0):
            raise ValueError("zero-width neighbourhood: span too small for the ties in x")
        u = np.sqrt(dist / rho[:, None])
        w = np.sqrt(ws[idx] * (1 - u ** 3) ** 3)
        design = w[:, :, None] * dx[:, :, None] ** powers[None, None, :]
        eta = w * ys[idx]
        colnorm = np.sqrt((design ** 2).sum(axis=1))
        colnorm = np.where(colnorm > 0, colnorm, 1.0)
        design = design / colnorm[:, None, :]
        qmat, rmat = np.linalg.qr(design)
        qty = np.einsum("cik,ci->ck", qmat, eta)
        if rmat.shape[1] < k:  # fewer neighbours than parameters
            pad = k - rmat.shape[1]
            rmat = np.concatenate([rmat, np.zeros((len(qc), pad, k))], axis=1)
            qty = np.concatenate([qty, np.zeros((len(qc), pad))], axis=1)
        umat, sigma, vt = np.linalg.svd(rmat)
        tol = sigma[:, :1] * (PINV_FACTOR * eps)
        keep = sigma > tol
        n_pinv += int(np.sum(~keep[:, -1]))
        gamma = np.where(keep, np.einsum("cij,ci->cj", umat, qty) / np.where(keep, sigma, 1.0), 0.0)
        coef = np.einsum("cji,cj->ci", vt, gamma) / colnorm
        value[start:start + chunk] = coef[:, 0]
        if k > 1:
            slope[start:start + chunk] = coef[:, 1]
    return value, slope, n_pinv


def _build_kd(xs: np.ndarray, fc: int, n_max: int):
    """Split points of R's 1-d k-d tree (netlib ehg126/ehg124), breadth first.

    Returns ``(bounding box, sorted split points, number of cells)``.  Loops over
    cells, never over observations.
    """
    n = len(xs)
    lo_x, hi_x = xs[0], xs[-1]
    margin = BOX_MARGIN * max(hi_x - lo_x, 1e-10 * max(abs(lo_x), abs(hi_x)) + 1e-30)
    box = (lo_x - margin, hi_x + margin)
    untied = np.flatnonzero(xs[:-1] != xs[1:]) + 1  # 1-based p with xs[p] != xs[p+1]
    cells = [(1, n, box[0], box[1])]               # 1-based (l, u, lower, upper)
    splits = []
    n_vert, p = 2, 0
    while p < len(cells):
        l, u, vlo, vhi = cells[p]
        p += 1
        if u - l + 1 <= fc or n_max < len(cells) + 2 or n_max < n_vert + 1:
            continue
        m = (l + u) // 2
        reach = u - m  # offsets 0, +1, -1, +2, ... tried while |offset| < reach
        lo_i = np.searchsorted(untied, m - reach + 1, side="left")
        hi_i = np.searchsorted(untied, m + reach - 1, side="right")
        cand = untied[lo_i:hi_i]
        if len(cand):
            off = cand - m
            m = int(cand[np.lexsort((off < 0, np.abs(off)))[0]])
        xi = xs[m - 1]
        if xi == vlo or xi == vhi:
            continue
        splits.append(xi)
        n_vert += 1
        cells.append((l, m, vlo, xi))
        cells.append((m + 1, u, xi, vhi))
    return box, np.sort(np.asarray(splits, dtype=float)), len(cells)


def loess(x, y, weights=None, span: float | None = None, enp_target: float | None = None,
          degree: int = 2, surface: str = "interpolate", cell: float = DEFAULT_CELL) -> LoessFit:
    """Fit R's ``loess(y ~ x, weights, span | enp.target, degree, family = "gaussian")``.

    Parameters mirror R: ``span`` (default 0.75) or ``enp_target`` (R's
    ``span = 1.2 * tau / enp.target``), ``degree`` 0/1/2, ``surface``
    ``"interpolate"`` (k-d tree + cubic Hermite interpolation, R's default) or
    ``"direct"``, and ``cell`` (cells hold at most ``floor(n * span * cell)``
    points).  Returns a :class:`LoessFit` whose ``fitted`` are R's
    ``fitted(loess(...))``.  Like R, a local fit with fewer neighbours than
    parameters uses a pseudo-inverse (a ``UserWarning`` is issued).
    """
    if span is not None and enp_target is not None:
        warn("both 'span' and 'enp_target' specified: 'span' will be used")
    if span is None:
        span = DEFAULT_SPAN if enp_target is None else span_from_enp(enp_target, degree)
    x, y, w = _check_inputs(x, y, weights, span, degree, surface, cell)
    n = len(x)
    nf = min(n, math.floor(n * span + NF_FUZZ))
    if nf <= 0:
        raise ValueError(f"span is too small: floor(n * span) = 0 with n = {n}, span = {span}")
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], y[order], w[order]
    if surface == "direct":
        value, _, n_pinv = _local_fits(xs, ys, ws, x, nf, span, degree)
        fit = LoessFit(fitted=value, span=float(span), degree=degree, surface=surface,
                       n_pseudoinverse=n_pinv)
    else:
        fc = math.floor(n * (span * cell))
        box, splits, n_cells = _build_kd(xs, fc, max(MIN_KD_SIZE, n))
        vertices = np.concatenate([[box[0]], splits, [box[1]]])
        value, slope, n_pinv = _local_fits(xs, ys, ws, vertices, nf, span, degree)
        kd = KDTree1D(vertices=vertices, values=value, slopes=slope, n_cells=n_cells)
        fit = LoessFit(fitted=kd.evaluate(x), span=float(span), degree=degree,
                       surface=surface, kd=kd, n_pseudoinverse=n_pinv)
    if fit.n_pseudoinverse:
        warn(f"loess: pseudoinverse used at {fit.n_pseudoinverse} local fit(s) "
             "(span too small: fewer neighbours than parameters)")
    return fit
