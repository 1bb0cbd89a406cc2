"""R's arithmetic, in one place: what pygbm computes as R computes it, bit for bit.

R gbm's C++ code adds rows one at a time, left to right, and calls the C
library's ``exp`` and ``log``; R's own ``sum()`` accumulates in long double;
R orders tied values with its Shell sort. NumPy does otherwise (pairwise sums,
SIMD ``exp``, other sorts), which changes the last bits, and R's choices
between equally good splits depend on those bits. Every module that must
reproduce R's numbers uses the functions here (the engine's split search and
grower, the distributions' initial values and leaf estimates, the
interaction statistic).

* :func:`sequential_sum`, :func:`sequential_minus`, :func:`running_minus`:
  the left fold, in double (R's C loops) or long double (R's ``sum()``,
  :func:`r_sum`).
* :func:`exp_r`, :func:`expm1_r`, :func:`log_r`, :func:`log1p_r`, :func:`log2_r`,
  :func:`log10_r`, :func:`pow_r`, :func:`tan_r`: the C library's functions (formula terms use them,
  so ``log(x)`` and ``x^3`` in a term are R's to the last bit).
* :func:`shell_sort_order`: R's ``rsort_with_index`` (how R orders ties).
"""
from __future__ import annotations

import math

import numpy as np


def sequential_minus(total: float, parts, dtype=np.float64) -> float:
    """``total - parts[0] - parts[1] - ...`` subtracted one at a time, left to
    right, in ``dtype``: R's order, so R's rounding. ``np.subtract.reduce`` is
    that left fold (``tests/test_rmath.py`` checks it) and, unlike a
    cumulative sum, writes no intermediate result: a few times faster."""
    buf = np.empty(len(parts) + 1, dtype=dtype)
    buf[0] = total
    buf[1:] = parts
    return float(np.subtract.reduce(buf))


def sequential_sum(values, start: float = 0.0, dtype=np.float64) -> float:
    """``start + values[0] + values[1] + ...`` added one at a time, left to
    right, in ``dtype`` (R's order; NumPy's sum adds pairwise): the negated
    left fold ``-start - values[0] - ...``, rounding being symmetric (``0.0 -``
    makes an exact zero +0, as R's sum gives it)."""
    return 0.0 - sequential_minus(-start, values, dtype)


def r_sum(values) -> float:
    """R's ``sum()`` (the R function, not gbm's C loops): a left fold in long
    double, rounded to double at the end."""
    return sequential_sum(values, 0.0, np.longdouble)


def running_minus(total: float, parts: np.ndarray) -> np.ndarray:
    """``total - parts[0]``, ``total - parts[0] - parts[1]``, ... (R's order of
    subtractions, so the same rounding)."""
    buf = np.empty(parts.size + 1)
    buf[0] = total
    np.negative(parts, out=buf[1:])
    return buf.cumsum(out=buf)[1:]


# numpy's own SIMD exp (AVX-512) differs from the C library's by one unit in
# the last place for about 5% of inputs; numpy's complex exp calls the C
# library's exp, and exp(x + 0i) = exp(x) exactly, so it gives R's bits.

def exp_r(x):
    """exp with the C library's rounding (bit-identical to R's exp)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):        # exp of a large link is inf, silently, as in R
        return np.exp(x.astype(np.complex128)).real


def _c_library_log(fn, x, pole: float):
    """``fn`` (``math.log`` or ``math.log1p``: the C library's) elementwise;
    arrays: -inf at ``pole``, NaN below it or at NaN, as numpy's functions."""
    if np.ndim(x) == 0:                     # the same values (Python's math raises)
        x = float(x)
        return fn(x) if x > pole else (-math.inf if x == pole else math.nan)
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, np.nan)
    ok = x > pole
    values = x[ok].tolist()
    out[ok] = np.fromiter(map(fn, values), dtype=float, count=len(values))
    out[x == pole] = -np.inf
    return out


def log_r(x):
    """log with the C library's rounding (numpy's SIMD log differs from it in
    the last place for a fraction of inputs; Python's ``math.log`` is the C
    library's). Arrays: -inf at 0, NaN below 0 or at NaN, as numpy's log."""
    return _c_library_log(math.log, x, 0.0)


def log1p_r(x):
    """log1p with the C library's rounding (numpy's may be SIMD, and differs in
    the last place for some inputs). Arrays: -inf at -1, NaN below -1 or at NaN."""
    return _c_library_log(math.log1p, x, -1.0)


def log10_r(x):
    """log10 with the C library's rounding (R's ``log10``, and ``log(x, 10)``)."""
    return _c_library_log(math.log10, x, 0.0)


def log2_r(x):
    """log2 with the C library's rounding (R's ``log2``, and ``log(x, 2)``)."""
    return _c_library_log(math.log2, x, 0.0)


def _c_library(fn, numpy_fn, *args) -> np.ndarray:
    """``fn`` (a C library function of Python's ``math``) elementwise over the
    broadcast ``args``, where NumPy's ``numpy_fn`` (its special values: NaN, inf,
    overflow, domain errors, as R has them) gives a finite value from finite
    arguments; NumPy's value elsewhere."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args))
    with np.errstate(all="ignore"):
        out = np.array(numpy_fn(*arrays), dtype=float)
    ok = np.isfinite(out)
    for a in arrays:
        ok &= np.isfinite(a)
    if out.ndim == 0:
        return fn(*(float(a) for a in arrays)) if ok else out
    try:
        out[ok] = np.fromiter(map(fn, *(a[ok].tolist() for a in arrays)), dtype=float,
                              count=int(ok.sum()))
    except (OverflowError, ValueError):       # at the edge of NumPy's finite range
        pass
    return out


def tan_r(x):
    """tan with the C library's rounding (NumPy's differs in the last place for
    about one value in 200; its sin and cos agree with R's)."""
    return _c_library(math.tan, np.tan, x)


def expm1_r(x):
    """expm1 with the C library's rounding (NumPy's differs in the last place)."""
    return _c_library(math.expm1, np.expm1, x)


def _c_elementwise(fn, numpy_fn):
    """R's function of one argument that is the C library's ``fn`` (R calls it),
    elementwise."""
    def apply(x):
        return _c_library(fn, numpy_fn, x)
    apply.__name__ = f"{fn.__name__}_r"
    apply.__doc__ = (f"R's ``{fn.__name__}``: the C library's rounding (NumPy's may differ "
                     "in the last place), NumPy's special values.")
    return apply


def atan2_r(y, x):
    """R's ``atan2(y, x)``: the C library's (NumPy's may differ in the last place)."""
    return _c_library(math.atan2, np.arctan2, y, x)


#: R's inverse and hyperbolic trigonometric functions and ``atan2``, the C library's
TRIGONOMETRIC_R = {
    **{name: _c_elementwise(getattr(math, name), numpy_fn) for name, numpy_fn in (
        ("asin", np.arcsin), ("acos", np.arccos), ("atan", np.arctan), ("sinh", np.sinh),
        ("cosh", np.cosh), ("tanh", np.tanh), ("asinh", np.arcsinh), ("acosh", np.arccosh),
        ("atanh", np.arctanh))},
    "atan2": atan2_r}


#: the exponent R's ``^`` computes as a product (``x^2`` is ``x * x``; checked
#: against R 4.2.2 on 50,000 values: the C library's ``pow(x, 2)`` differs in the last
#: bit for one in a thousand)
_SQUARE = 2.0


def pow_r(x, y):
    """R's ``x^y``: ``x * x`` for ``y = 2``, else the C library's ``pow`` (NumPy's
    SIMD power differs from it in the last place for some inputs), with R's special
    values (``NA^0`` is 1, ``1^NA`` is 1, a negative number to a fractional power
    NaN)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    out = np.multiply(x, x, out=np.empty(x.shape))
    other = y != _SQUARE                  # x^2, the common case, needs no call per value
    if other.any():
        out[other] = _c_library(math.pow, np.power, x[other], y[other])
    return out


def shell_sort_order(values: np.ndarray) -> np.ndarray:
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
