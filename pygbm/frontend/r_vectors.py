"""R's vector functions in term arguments, with R's numbers: ``c``, ``seq``
(``cut(x, seq(0, 100, by = 10))``), ``findInterval``, ``sort``, ``rev``
(``factor(g, levels = rev(sort(unique(g))))``), and ``rowSums``/``rowMeans`` of
``cbind(a, b, ...)`` (a score over several columns).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .encode import r_collation_key, r_labels
from .r_factors import is_factor, series
from .r_operators import holds_text

__all__ = ["R_VECTOR_FUNCTIONS", "one_number"]


def c(*values):
    """R's ``c(...)``, for arguments such as ``factor(x, levels = c(1, 2, 3))``."""
    return np.concatenate([np.atleast_1d(np.asarray(v, dtype=object)) for v in values]) \
        if values else np.array([], dtype=object)


def one_number(value, function: str, argument: str, finite: bool = True) -> float:
    """``function``'s ``argument`` as one number, refused naming both unless it is one
    (and finite, or with ``finite=False`` at least not missing)."""
    number = np.ravel(np.asarray(value, dtype=float)) if value is not None else np.array([])
    if number.size != 1 or np.isnan(number[0]) or (finite and np.isinf(number[0])):
        raise ValueError(f"{function}(): '{argument}' must be one "
                         f"{'finite ' if finite else ''}number, got {value!r}")
    return float(number[0])


#: R's tolerance in ``seq(from, to, by)``'s count of steps, ``as.integer(n + 1e-10)``
_SEQ_FUZZ = 1e-10


#: R's ``seq(from, to, by)`` gives ``from`` alone when ``to`` is this close, relatively
_SEQ_SAME = 100 * np.finfo(float).eps


def seq(from_=None, to=None, by=None, length_out=None):
    """R's ``seq(from, to)``, ``seq(from, to, by)``, ``seq(from, to, length.out)`` and
    ``seq(n)`` (``1:n``), as R computes them: ``from + (0:n) * by`` (its last step
    within ``to``), or with ``length.out`` ``from + i * by`` ending at ``to`` exactly."""
    if to is None and by is None and length_out is None:
        n = one_number(from_, "seq", "from")
        return np.arange(1.0, math.floor(n) + 1) if n >= 1 \
            else np.arange(1.0, math.ceil(n) - 1, -1)
    if from_ is None or to is None:
        raise ValueError("seq(): give from and to (with by or length.out, or neither)")
    first, last = one_number(from_, "seq", "from"), one_number(to, "seq", "to")
    if length_out is not None:
        if by is not None:
            raise ValueError("seq(): too many arguments (from, to, by and length.out)")
        n = one_number(length_out, "seq", "length.out")
        if n < 0:
            raise ValueError(f"seq(): 'length.out' must be a non-negative number, got {n:g}")
        n = math.ceil(n)
        if n <= 1:
            return np.array([first] if n else [])
        step = (last - first) / (n - 1)
        return np.concatenate([[first], first + np.arange(1, n - 1) * step, [last]])
    step = one_number(by, "seq", "by") if by is not None else (1.0 if last >= first else -1.0)
    if abs(last - first) <= _SEQ_SAME * max(abs(first), abs(last)):
        return np.array([first])
    if step == 0 or (last - first) / step < 0:
        raise ValueError("seq(): wrong sign in 'by' argument (R's error)")
    values = first + np.arange(int((last - first) / step + _SEQ_FUZZ) + 1) * step
    return np.minimum(values, last) if step > 0 else np.maximum(values, last)


def find_interval(x, vec, rightmost_closed=False, all_inside=False, left_open=False):
    """R's ``findInterval(x, vec, rightmost.closed, all.inside, left.open)``: the
    number of breaks at or below each value (below, with ``left.open``); missing stays
    missing."""
    breaks = np.ravel(np.asarray(vec, dtype=float))
    if np.isnan(breaks).any() or np.any(np.diff(breaks) < 0):
        raise ValueError("findInterval(): 'vec' must be sorted non-decreasingly and not "
                         "contain NAs (R's error)")
    values = np.asarray(x, dtype=float)
    found = np.searchsorted(breaks, values, side="left" if left_open else "right")
    found = found.astype(float)
    n = breaks.size
    if rightmost_closed and n:
        if left_open:
            found[values == breaks[0]] = 1
        else:
            found[values == breaks[-1]] = n - 1
    if all_inside:
        found = np.clip(found, 1, n - 1)
    found[np.isnan(values)] = np.nan
    return found


def _sorted_order(values: np.ndarray, text: bool) -> np.ndarray:
    if text:
        return np.array(sorted(range(values.size),
                               key=lambda i: r_collation_key(values[i])), dtype=np.intp)
    return np.argsort(values, kind="stable")


def r_sort(x, decreasing=False):
    """R's ``sort(x, decreasing = FALSE)``: the values without the missing ones, in
    order (numbers as numbers, text in R's collation, a factor by its levels)."""
    x = series(x).dropna()
    if is_factor(x):
        order = np.argsort(x.cat.codes.to_numpy(), kind="stable")
    else:
        values = x.to_numpy()
        text = holds_text(x.dtype)
        order = _sorted_order(np.asarray(r_labels(values) if text else values), text)
    order = order[::-1] if decreasing else order
    return x.to_numpy(dtype=object if is_factor(x) else None)[order]


def rev(x):
    """R's ``rev(x)``: the values in reverse order (a column's rows too, as R)."""
    if isinstance(x, pd.Series):
        return pd.Series(x.to_numpy()[::-1] if not is_factor(x) else x.array[::-1],
                         index=x.index)
    return np.asarray(x)[::-1]


def cbind(*columns):
    """R's ``cbind(a, b, ...)`` of columns, for :func:`row_sums` and :func:`row_means`:
    a matrix of their numbers, one row per row (TRUE/FALSE as 1/0, a factor refused)."""
    if not columns:
        raise ValueError("cbind() needs at least one column")
    if any(is_factor(c) or (isinstance(c, pd.Series) and holds_text(c.dtype))
           for c in columns):
        raise TypeError("cbind() here binds numbers (for rowSums and rowMeans); a factor "
                        "or text would be R's codes or text: as.numeric(f) says which")
    arrays = [np.asarray(series(c).to_numpy(dtype=float, na_value=np.nan))
              if isinstance(c, pd.Series) else np.asarray(c, dtype=float) for c in columns]
    return np.column_stack(np.broadcast_arrays(*arrays))


def _row_matrix(x, function: str) -> np.ndarray:
    matrix = np.asarray(x, dtype=float)
    if matrix.ndim != 2:
        raise TypeError(f"{function}() takes the columns of cbind(a, b, ...), got one "
                        "vector")
    return matrix


def _row_total(matrix: np.ndarray, na_rm: bool) -> np.ndarray:
    """Each row's sum, added column by column in long double, as R adds them."""
    total = np.zeros(matrix.shape[0], dtype=np.longdouble)
    for column in (np.where(np.isnan(matrix), 0.0, matrix) if na_rm else matrix).T:
        total += column
    return total


def row_sums(x, na_rm=False):
    """R's ``rowSums(cbind(a, b), na.rm = FALSE)``: each row's sum; missing where a
    value is (with ``na.rm``, the sum of the others, 0 for none)."""
    return _row_total(_row_matrix(x, "rowSums"), na_rm).astype(float)


def row_means(x, na_rm=False):
    """R's ``rowMeans(cbind(a, b), na.rm = FALSE)``: each row's long-double sum over
    its count (with ``na.rm``, of the values not missing; NaN for none)."""
    matrix = _row_matrix(x, "rowMeans")
    count = (~np.isnan(matrix)).sum(axis=1) if na_rm else np.full(matrix.shape[0],
                                                                   matrix.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (_row_total(matrix, na_rm) / count.astype(np.longdouble)).astype(float)


#: the vector functions formulas call, by their Python names
R_VECTOR_FUNCTIONS = {"c": c, "seq": seq, "findInterval": find_interval, "sort": r_sort,
                      "rev": rev, "cbind": cbind, "rowSums": row_sums, "rowMeans": row_means}
