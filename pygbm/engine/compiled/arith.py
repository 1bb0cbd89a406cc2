"""The arithmetic the compiled kernels share with the NumPy engine, bit for bit.

Where the NumPy engine's numbers come from a NumPy call whose order of
operations matters (a sum, a sort), the compiled engine repeats that order
here: R's split gain as :func:`pygbm.engine.split.improvement` evaluates it,
NumPy's pairwise summation (``np.sum`` of float64: blocks of eight
accumulators below 128 values, halves above), NumPy's stable argsort and
R's Shell sort of tied values (:func:`pygbm._rmath.shell_sort_order`), the
midpoint rule of :func:`pygbm.engine.split.midpoints` and the quantization
of :func:`pygbm.engine.fixed_point.quantize`. ``tests/engine/test_compiled_binned.py``
checks each against its NumPy counterpart.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..fixed_point import MAX_SCALE_BITS

#: NumPy's pairwise summation: sums of fewer values are sequential, up to
#: this many use eight accumulators, longer ones are split in halves
_PW_SEQUENTIAL, _PW_BLOCK, _PW_UNROLL = 8, 128, 8


@njit(cache=True, error_model="numpy")
def split_gain(lw, rw, mw, ls, rs, ms):
    """R's split gain (engine.split.improvement for scalars)."""
    t = ls / lw - rs / rw
    if mw == 0.0:
        return lw * rw * t * t / (lw + rw)
    three = lw * rw * t * t
    t = ls / lw - ms / mw
    three = three + lw * mw * t * t
    t = rs / rw - ms / mw
    three = three + rw * mw * t * t
    return three / (lw + rw + mw)


@njit(cache=True, error_model="numpy")
def shell_order(values):
    """The permutation R's rsort_with_index (Shell sort) gives ``values``."""
    n = values.shape[0]
    ix = np.empty(n, dtype=np.int64)
    shell_order_first(values, n, np.empty(n), ix)
    return ix


@njit(cache=True, error_model="numpy")
def shell_order_first(values, n, x, ix):
    """:func:`shell_order` of ``values[:n]`` into ``ix[:n]``, sorting in
    ``x[:n]`` (the caller's scratch, at least ``n`` long; no views made: each
    would cost its reference counting, per call)."""
    for i in range(n):
        x[i] = values[i]
        ix[i] = i
    h = 1
    while h <= n // 9:
        h = 3 * h + 1
    while h > 0:
        for i in range(h, n):
            v = x[i]
            iv = ix[i]
            j = i
            while j >= h and x[j - h] > v:
                x[j] = x[j - h]
                ix[j] = ix[j - h]
                j -= h
            x[j] = v
            ix[j] = iv
        h //= 3


@njit(cache=True, error_model="numpy")
def _before(a, b):
    """NumPy's sort order of floats: a < b, NaN after everything."""
    return a < b or (np.isnan(b) and not np.isnan(a))


@njit(cache=True, error_model="numpy")
def stable_argsort(values):
    """``np.argsort(values, kind="stable")`` for short arrays (insertion sort)."""
    n = values.shape[0]
    ix = np.arange(n)
    for i in range(1, n):
        iv = ix[i]
        v = values[iv]
        j = i
        while j > 0 and _before(v, values[ix[j - 1]]):
            ix[j] = ix[j - 1]
            j -= 1
        ix[j] = iv
    return ix


@njit(cache=True, error_model="numpy")
def r_order(values):
    """:func:`pygbm._rmath.shell_sort_order`: the stable order when the finite
    values are distinct, R's Shell sort otherwise."""
    n = values.shape[0]
    finite = np.empty(n)
    m = 0
    for i in range(n):
        if np.isfinite(values[i]):
            finite[m] = values[i]
            m += 1
    s = np.sort(finite[:m])
    for i in range(1, m):
        if s[i] == s[i - 1]:
            return shell_order(values)
    return stable_argsort(values)


@njit(cache=True, error_model="numpy")
def _gather(a, rows, absolute, lo, n, buf):
    """``buf[:n]`` = the values ``lo .. lo + n - 1`` summed: ``a[lo:lo + n]``,
    or ``a[rows[lo:lo + n]]`` when ``rows`` is not empty; their absolute
    values if ``absolute``."""
    if rows.shape[0]:
        at = rows[lo:lo + n]
        for i in range(n):
            buf[i] = a[at[i]]
    else:
        src = a[lo:lo + n]
        for i in range(n):
            buf[i] = abs(src[i]) if absolute else src[i]


@njit(cache=True, error_model="numpy")
def _block_sum(b, n):
    """NumPy's sum of ``b[:n]``, n <= _PW_BLOCK: sequential below
    _PW_SEQUENTIAL values, else eight accumulators."""
    if n < _PW_SEQUENTIAL:
        res = 0.0
        for i in range(n):
            res += b[i]
        return res
    r0, r1, r2, r3 = b[0], b[1], b[2], b[3]
    r4, r5, r6, r7 = b[4], b[5], b[6], b[7]
    i = _PW_UNROLL
    stop = n - n % _PW_UNROLL
    while i < stop:
        r0 += b[i]
        r1 += b[i + 1]
        r2 += b[i + 2]
        r3 += b[i + 3]
        r4 += b[i + 4]
        r5 += b[i + 5]
        r6 += b[i + 6]
        r7 += b[i + 7]
        i += _PW_UNROLL
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += b[i]
        i += 1
    return res


#: deepest halving of a pairwise sum (2**64 values)
_PW_MAX_DEPTH = 64


@njit(cache=True, error_model="numpy")
def _pairwise(a, rows, absolute, lo, n):
    """NumPy's pairwise sum of the values ``lo .. lo + n - 1`` (see _gather):
    the halving recursion of NumPy, written with an explicit stack (numba's
    cache does not load recursive functions)."""
    f_lo = np.empty(_PW_MAX_DEPTH, dtype=np.int64)
    f_n = np.empty(_PW_MAX_DEPTH, dtype=np.int64)
    f_phase = np.empty(_PW_MAX_DEPTH, dtype=np.int64)
    partial = np.empty(_PW_MAX_DEPTH + 1)
    buf = np.empty(_PW_BLOCK)
    top = 0
    n_partial = 0
    f_lo[0], f_n[0], f_phase[0] = lo, n, 0
    while top >= 0:
        flo, fn = f_lo[top], f_n[top]
        if fn <= _PW_BLOCK:
            if rows.shape[0] or absolute:
                _gather(a, rows, absolute, flo, fn, buf)
                partial[n_partial] = _block_sum(buf, fn)
            else:
                partial[n_partial] = _block_sum(a[flo:flo + fn], fn)
            n_partial += 1
            top -= 1
            continue
        n2 = fn // 2
        n2 -= n2 % _PW_UNROLL
        phase = f_phase[top]
        f_phase[top] = phase + 1
        if phase == 0:                 # the first half
            top += 1
            f_lo[top], f_n[top], f_phase[top] = flo, n2, 0
        elif phase == 1:               # the second half
            top += 1
            f_lo[top], f_n[top], f_phase[top] = flo + n2, fn - n2, 0
        else:                          # both done: first + second
            n_partial -= 1
            partial[n_partial - 1] = partial[n_partial - 1] + partial[n_partial]
            top -= 1
    return partial[0]


@njit(cache=True, error_model="numpy")
def numpy_sum(a):
    """``float(a.sum())`` of a 1-d float64 array, NumPy's way (pairwise).
    Up to one block of values it is :func:`_pairwise`'s single block, summed
    without its stacks (five arrays made per call: a small fit sums a few
    times per tree)."""
    n = a.shape[0]
    if n <= _PW_BLOCK:
        return 0.0 + _block_sum(a, n)
    return 0.0 + _pairwise(a, np.empty(0, dtype=np.int64), False, 0, n)


@njit(cache=True, error_model="numpy")
def numpy_sum_at(a, rows):
    """``float(a[rows].sum())`` (``rows`` not empty), NumPy's way."""
    return 0.0 + _pairwise(a, rows, False, 0, rows.shape[0])


@njit(cache=True, error_model="numpy")
def sequential_sum(a):
    """``a[0] + a[1] + ...`` left to right (R's order; _rmath.sequential_sum)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(cache=True, error_model="numpy")
def midpoint(lo, hi):
    """The split point between ``lo`` < ``hi`` (engine.split.midpoints)."""
    mid = 0.5 * (lo + hi)
    return mid if mid > lo else hi


@njit(cache=True, error_model="numpy")
def quantize_scale(wz, bits):
    """The scale of :func:`pygbm.engine.fixed_point.quantize` for ``wz`` and
    whether the quantized values are ``rint(wz * scale)`` (False: all 0, a
    zero or non-finite total; the scale is then 1)."""
    total = 0.0 + _pairwise(wz, np.empty(0, dtype=np.int64), True, 0, wz.shape[0])
    if not total > 0.0 or not np.isfinite(total):
        return 1.0, False
    return 2.0 ** min(np.floor(bits - np.log2(total)), float(MAX_SCALE_BITS)), True
