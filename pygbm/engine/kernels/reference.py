"""The NumPy kernels: the reference implementation of every hot loop.

Each function is what one engine stage computes over whole arrays: the gains
of the exact search at every position of a block of continuous predictors
(several layouts, see below), R's monotone filter, the histogram scatter-add
of the binned search, and the routing of rows to a split's children (the
prediction kernel, ``terminal_nodes``, is engine/tree.py's). A
compiled implementation provides the same functions with the same outputs
(:class:`.interface.Kernels`); ``tests/engine/test_kernels.py`` checks this
one against the formulas written out position by position.

Gains are R's split gain (:func:`..split.improvement`) or an algebraic
rewriting of it on prefix sums (exact integers scaled by ``scale`` with unit
weights: gains in units of ``scale**2``); positions R does not consider (too
few rows on a side, against the monotone constraint) get gain 0.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ..bounded import missing_terms
from ..fixed_point import MAGIC, MAGIC_BITS
from ..split import MISSING, improvement
from ..tree import terminal_nodes
from .interface import GainBlock, HistogramScratch, Kernels


@functools.cache
def scipy_kernels():
    """SciPy's compiled sparse-times-dense kernels (csc_matvec, csc_matvecs): a
    scatter-add of several columns at once, imported on the first histogram
    (``import pygbm`` does not load SciPy). SciPy is a dependency; the import
    path is private, so (None, None), the NumPy bincount loop of
    :func:`histogram`, stands in if it ever moves."""
    try:
        from scipy.sparse._sparsetools import csc_matvec, csc_matvecs
    except ImportError:  # pragma: no cover
        return None, None
    return csc_matvec, csc_matvecs


def packed_histograms() -> bool:
    """Whether :func:`histogram` can sum one packed int64 column (SciPy's kernel)."""
    return scipy_kernels()[1] is not None


def squared_deviation(ls, shift, weight, out=None):
    """``(ls - shift)**2 * weight`` in three whole-array passes (``out`` may
    be ``ls``): the unit-weight gain from the prefix sums."""
    out = np.subtract(ls, shift, out=out)
    np.multiply(out, out, out=out)
    np.multiply(out, weight, out=out)
    return out


def simple_terms(m: int, total: float, min_obs: int):
    """What :func:`gain_simple` needs of a node of ``m`` rows whose
    quantized w*z sum to ``total`` (the same for every block of its
    predictors): the admissible positions lo..hi (left = rows 0..k,
    ``n_minobsinnode`` on each side) and, per position, total * lw / m and
    m / (lw rw). None when no position is admissible."""
    mo = min_obs
    lo, hi = max(mo - 1, 0), m - 1 - mo
    if hi < lo:
        return None
    k = np.arange(lo, hi + 1, dtype=float)
    lw, rw = k + 1.0, m - 1.0 - k
    return lo, hi, total * (lw / m), m / (lw * rw)


def counts_halves(counts: np.ndarray, m: int) -> np.ndarray:
    """k + 1 (the left count with no missing row) at every position of a
    node of ``m`` rows, in the two-half layout of :func:`gain_plain`."""
    half = m // 2
    k1 = np.empty((half, 2))
    k1[:, 0] = counts[:half]
    k1[:, 1] = counts[half:2 * half]
    return k1


def zero_right_short(a: np.ndarray, m: int, min_obs: int):
    """Zero the positions (two-half layout, last two axes of ``a``) whose
    right side has fewer than ``n_minobsinnode`` rows (at least 1)."""
    half = m // 2
    for col in (0, 1):
        # position p = col * half + row; rw = m - 1 - p >= mo  <=>  p <= m - 1 - mo
        a[..., min(max(m - max(min_obs, 1) - col * half, 0), half):, col] = 0.0


def plain_terms(m: int, total: float, min_obs: int, counts: np.ndarray):
    """What :func:`gain_plain` needs of a node of ``m`` rows whose
    quantized w*z sum to ``total``, per position in its layout (see
    there): ``MAGIC + total * lw / m`` and ``m / (lw rw)``, the latter 0
    where a side has fewer than ``n_minobsinnode`` rows (and at the
    position with every row on the left, when m is even)."""
    half = m // 2
    lw = counts_halves(counts, m)
    weight = np.subtract(m, lw)                   # rw
    if 2 * half == m:
        weight[-1, 1] = 1.0                       # rw = 0: zeroed below
    weight *= lw
    np.divide(m, weight, out=weight)
    # too few rows on the left: the first positions (p < mo - 1)
    mo = max(min_obs, 1)
    weight[:min(mo - 1, half), 0] = 0.0
    weight[:min(max(mo - 1 - half, 0), half), 1] = 0.0
    zero_right_short(weight, m, min_obs)
    shift = np.multiply(lw, total / m, out=lw)
    shift += MAGIC
    return shift, weight


def prefix_halves(Gb: np.ndarray) -> np.ndarray:
    """Prefix sums of the rows of ``Gb`` (predictors, m) as the bits of
    ``MAGIC + ls`` (see :func:`as_float`), in the two-half layout
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
    start[:, 0] = MAGIC_BITS
    np.einsum("ij->i", Gb[:, :half], out=start[:, 1])
    start[:, 1] += MAGIC_BITS
    halves[:, :, 0] += start
    buf = np.empty((pc, half, 2), dtype=np.int64)
    np.cumsum(halves, axis=2, out=buf.transpose(0, 2, 1))
    halves[:, :, 0] -= start
    return buf


def gain_plain(Gb: np.ndarray, terms) -> np.ndarray:
    """Approximate gain of every position of a block of predictors with
    unit weights and no missing value, tie or constraint, in the
    two-half layout of :func:`prefix_halves`: the kernel of most nodes,
    in the fewest whole-array passes.

    Subtracting ``MAGIC + shift`` (rounded to an integer, as doubles near
    MAGIC are) from ``MAGIC + ls`` gives ``ls - shift`` within half a
    unit: within the error bound every quantized sum has anyway
    (``Tolerance``). Positions R does not consider have gain 0
    (weight 0 in ``terms``, from :func:`plain_terms`).
    """
    shift, weight = terms
    gain = prefix_halves(Gb).view(np.float64)
    np.subtract(gain, shift, out=gain)
    np.multiply(gain, gain, out=gain)
    np.multiply(gain, weight, out=gain)
    return gain


def gain_missing(Gb: np.ndarray, nm: np.ndarray, total: float, min_obs: int,
                 counts: np.ndarray) -> np.ndarray:
    """:func:`gain_plain` for predictors with missing values (``nm`` per
    predictor, first in their order): R's three-group gain, in the
    two-half layout.

    As in :func:`gain_unit_missing`, the gain at position k is the
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
    k1 = counts_halves(counts, m)
    gain = prefix_halves(Gb).view(np.float64)
    work = np.multiply(beta[per], k1)
    work += (MAGIC + alpha)[per]                         # MAGIC + alpha + beta (k + 1)
    gain -= work
    gain *= gain
    lw = np.subtract(k1, nm[per], out=work)
    short = lw < max(min_obs, 1)                     # too few rows on the left
    lw *= m - k1                                          # lw rw
    with np.errstate(divide="ignore", invalid="ignore"):
        gain /= lw
    gain *= n[per]
    gain += const[per]
    np.copyto(gain, 0.0, where=short)
    zero_right_short(gain, m, min_obs)
    return gain


def gain_simple(block: GainBlock, rows: np.ndarray, terms, gain: np.ndarray):
    """Unit weights, no missing value in the node: vectors over positions.
    (``block.ls`` holds the prefix sums of the quantized w*z, as floats.)"""
    ls = block.ls
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
        squared_deviation(ls[:, lo:hi + 1], shift, weight, out=gain[:, lo:hi + 1])
    else:
        gain[rows, lo:hi + 1] = squared_deviation(ls[rows, lo:hi + 1], shift, weight)


def gain_unit_missing(block: GainBlock, rows: np.ndarray, min_obs: int, gain: np.ndarray):
    """Unit weights, missing values in front: R's three-group gain.

    For a predictor with ``nm`` missing rows the three-group gain is the
    two-group gain of its non-missing rows plus a constant
    (T'^2/(m - nm) + S_M^2/nm - S^2/m, T' the non-missing sum). At
    position k the non-missing left count is lw = k + 1 - nm and the right
    count m - 1 - k, the same for every predictor, so the two-group gain
    (L - T' lw / n)^2 n / (lw rw), L the non-missing left sum and
    n = m - nm, takes a few whole-array operations.
    """
    ls, nm, mo = block.ls, block.nm, min_obs
    m = ls.shape[1]
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


class WeightedSums(NamedTuple):
    """R's running sums at every position of some predictor rows of a
    weighted block (see :func:`weighted_sums`), (rows, m - 1) each but the
    missing group's (rows,)."""

    ls: np.ndarray
    lw: np.ndarray
    rs: np.ndarray
    rw: np.ndarray
    ms: np.ndarray
    mw: np.ndarray


def _running_minus_rows(start: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """Per row, ``start - parts[0]``, ``start - parts[0] - parts[1]``, ... one
    subtraction at a time (R's order: a cumulative sum of the negated parts
    after the start, which rounds the same), the first m - 1."""
    buf = np.empty(parts.shape)
    buf[:, 0] = start
    np.negative(parts[:, :-1], out=buf[:, 1:])
    return buf.cumsum(axis=1, out=buf)[:, 1:]


def weighted_sums(block: GainBlock, rows: np.ndarray) -> WeightedSums:
    """R's sums along the predictor rows ``rows`` of a weighted block (``H``
    given), as R's scan has them at every position k (left = rows nm..k):
    left sums accumulated from the first non-missing row, right sums the
    node's total (``block.total``) less every row up to k one at a time, and
    the missing rows' sums accumulated in order; gains from them are R's to
    the last bit."""
    _, Gc, Hc, nm, total = block
    g, h, nmr = Gc[rows], Hc[rows], nm[rows]
    if nmr.any():
        front = np.arange(g.shape[1])[None, :] < nmr[:, None]
        lead_g, lead_h = np.where(front, g, 0.0), np.where(front, h, 0.0)
        ms, mw = lead_g.cumsum(axis=1)[:, -1], lead_h.cumsum(axis=1)[:, -1]
        ls = np.subtract(g, lead_g).cumsum(axis=1)      # 0 on the missing rows
        lw = np.subtract(h, lead_h).cumsum(axis=1)
    else:                                # the block's prefix sums are R's left sums
        ms = mw = np.zeros(rows.size)
        ls, lw = block.ls[rows], h.cumsum(axis=1)
    if total is None:                    # each row's own sums, in order
        tz, tw = g.cumsum(axis=1)[:, -1], h.cumsum(axis=1)[:, -1]
    else:
        tz, tw = total
    return WeightedSums(ls[:, :-1], lw[:, :-1], _running_minus_rows(tz, g),
                        _running_minus_rows(tw, h), ms, mw)


def gain_general(block: GainBlock, rows: np.ndarray, min_obs: int, gain: np.ndarray):
    """Weights: R's three-group gain from R's own running sums
    (:func:`weighted_sums`), row by row arrays: R's gains to the last bit."""
    mo = min_obs
    m = block.G.shape[1]
    k = np.arange(m - 1)
    nmr = block.nm[rows]
    s = weighted_sums(block, rows)
    n_left = k[None, :] - nmr[:, None] + 1
    n_right = (m - 1 - k)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        gr = improvement(s.lw, s.rw, s.mw[:, None], s.ls, s.rs, s.ms[:, None])
    ok = (n_left >= mo) & (n_right >= mo) & (gr > 0.0)
    gain[rows] = np.where(ok, gr, 0.0)


def monotone(block: GainBlock, mono: np.ndarray, unit: bool, gain: np.ndarray):
    """R's constraint: monotone * (right_sum * left_w - left_sum * right_w) > 0."""
    ls, Gc, Hc, nm, _ = block
    rows = np.flatnonzero(mono != 0)
    sign = mono[rows][:, None]
    if not unit:                         # R's own sums: R's decision
        s = weighted_sums(block, rows)
        gain[rows] *= sign * (s.rs * s.lw - s.ls * s.rw) > 0
        return
    m = ls.shape[1]
    k = np.arange(m - 1)
    # missing rows sit in front: their sums belong to neither side
    front = np.arange(m)[None, :] < nm[rows][:, None]
    lfull = np.where(front, 0.0, Gc[rows]).cumsum(axis=1) if front.any() \
        else ls[rows]
    lsk, tot = lfull[:, :-1], lfull[:, -1:]
    lw = (k[None, :] - nm[rows][:, None] + 1).astype(float)
    rw = (m - 1 - k)[None, :].astype(float)
    rs = tot - lsk
    # integer sums: keep the positions that may pass (each sum is off by
    # at most m / 2 units, the products by m**2 / 2); the candidates are
    # checked exactly in R's re-evaluation
    slack = float(m) * m
    keep = sign * (rs * lw - lsk * rw) > -slack
    gain[rows] *= keep


def histogram(codes: np.ndarray, cols: np.ndarray, rows: np.ndarray, n_cells: int,
              scratch: HistogramScratch) -> np.ndarray:
    """Per-cell sums of the columns ``cols`` (n,) or (n, k) over ``rows``: row
    ``r`` adds ``cols[r]`` to each cell of ``codes[r]`` (one flat cell index
    per predictor). Returns (n_cells + 1,) or (n_cells + 1, k), the last cell
    a spare one that stays empty. All predictors at once: a sparse (one-hot)
    matrix times the rows' columns, SciPy's kernel, in chunks of the
    scratch buffers' length."""
    k = 1 if cols.ndim == 1 else cols.shape[1]
    out = np.zeros((n_cells + 1,) + cols.shape[1:], dtype=cols.dtype)
    p = codes.shape[1]
    chunk = scratch.codes.shape[0]
    csc_matvec, csc_matvecs = scipy_kernels()
    for start in range(0, rows.shape[0], chunk):
        r = rows[start:start + chunk]
        m = r.shape[0]
        # np.take into kept buffers: far faster than fancy indexing of rows
        c = codes.take(r, axis=0, out=scratch.codes[:m], mode="clip")
        vals = cols.take(r, axis=0, out=scratch.cols[:m], mode="clip")
        if csc_matvecs is None:             # NumPy fallback (never packed)
            flat = c.reshape(-1)
            for j in range(k):
                out[:, j] += np.bincount(flat, np.repeat(vals[:, j], p),
                                         minlength=n_cells + 1)
        elif k == 1:    # the packed column: the one-vector kernel (faster than k = 1)
            csc_matvec(n_cells, m, scratch.indptr[:m + 1], c.reshape(-1),
                        scratch.ones[:m * p], vals, out)
        else:
            csc_matvecs(n_cells, m, k, scratch.indptr[:m + 1], c.reshape(-1),
                         scratch.ones[:m * p], vals.reshape(-1), out.reshape(-1))
    return out


def route(x: np.ndarray, value: float, goes_right: np.ndarray | None) -> np.ndarray:
    """LEFT / RIGHT / MISSING (int8) of rows whose split predictor has values
    ``x``: continuous (``goes_right`` None), ``x >= value`` goes right;
    categorical, level code ``c`` goes ``goes_right[c]`` (its last entry, for
    NaN, is 0); NaN goes to the missing child."""
    nan = np.isnan(x)
    if goes_right is None:
        d = np.greater_equal(x, value).view(np.int8)     # NaN: False (0)
    else:
        codes = np.where(nan, -1, x).astype(np.intp)
        d = goes_right.take(codes)
    d += MISSING * nan.view(np.int8)               # NaN rows got 0 above
    return d


KERNELS = Kernels(
    name="numpy", plain_terms=plain_terms, gain_plain=gain_plain, gain_missing=gain_missing,
    simple_terms=simple_terms, gain_simple=gain_simple, gain_unit_missing=gain_unit_missing,
    gain_general=gain_general, monotone=monotone, histogram=histogram, route=route,
    terminal_nodes=terminal_nodes)
