"""R's summary statistics in formula terms: ``ifelse(x > median(x), 1, 0)``,
``I(x - mean(x))``, ``x / max(x)``, ``quantile(x, 0.9)``, ``sd``, ``var``, ``min``; and
the training data's values and levels, ``unique(g)``, ``levels(f)``, ``nlevels(f)``
(``factor(g, levels = unique(g))``).

Each is a value of the training data: a formulaic stateful transform's state, found
when the model frame is built and kept for new data, as ``scale(x)`` keeps the
training mean and sd. R's ``predict.gbm`` evaluates the term again on the new rows
(their own median), so pygbm's predictions differ from R's there, on purpose
(``docs/coming_from_r.md``). Missing values as in R: the statistic is missing when
``x`` has any, unless ``na.rm = TRUE``; ``quantile`` refuses them then, as R does.

The numbers are R's to the last bit (checked against R 4.2.2 on 300 random vectors;
``quantile``'s types on 400 vectors, 9 probabilities each): ``mean`` is a long-double
mean corrected by a second long-double pass over the deviations (with ``trim``, of the
values left after cutting ``floor(n trim)`` at each end, summed in sorted order where R
sums them in the order its partial sort leaves: the same to about one unit in the last
place), ``var`` the long-double sum of
squared deviations from that mean over n - 1, ``sd`` its square root, ``quantile`` the
type ``?quantile`` defines, ``(1 - g) x[j] + g x[j + 1]`` at the position solving the
type's ``p(k)`` (R's default type 7 by :func:`~.encode.r_quantile7`, the one the fit's
``var.levels`` use too). R's arguments come in R's order: ``mean(x, 0.1)`` is a trimmed
mean, ``min(x, y)`` the least of both; ``var(x, y)``, R's covariance, is refused.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from formulaic.utils.stateful_transforms import stateful_transform

from .encode import r_quantile7
from .r_factors import is_factor, series
from .r_operators import r_numeric
from .r_vectors import one_number

__all__ = ["R_SUMMARIES"]

_LONG = np.longdouble
#: R's mean(x, trim): from this trim on, the median
_HALF = 0.5
#: the key of a summary's value in its stateful transform's state
_VALUE = "value"


def _numbers(x, na_rm: bool, function: str) -> np.ndarray | None:
    """``x`` as numbers, its missing values dropped with ``na_rm``; None when one is
    missing (R's statistic is then NA)."""
    x = r_numeric(x)                        # TRUE/FALSE as 1/0, as R's summaries take them
    if isinstance(x, pd.Series) and not pd.api.types.is_numeric_dtype(x.dtype):
        raise TypeError(f"{function}() takes numbers, got dtype {x.dtype}")
    values = np.asarray(x, dtype=float).ravel()
    missing = np.isnan(values)
    if missing.any() and not na_rm:
        return None
    return values[~missing]


def _long_mean(values: np.ndarray) -> np.longdouble:
    """R's mean: the long-double sum over n, corrected by the long-double mean of the
    deviations from it."""
    n = _LONG(values.size)
    first = np.cumsum(values.astype(_LONG))[-1] / n
    return first + np.cumsum(values.astype(_LONG) - first)[-1] / n


def _kept(_state: dict, compute):
    """The value kept in ``_state``, or ``compute()``'s (then kept)."""
    if _VALUE not in _state:
        _state[_VALUE] = compute()
    return _state[_VALUE]


def _statistic(x, na_rm, function: str, of_values, empty: float):
    values = _numbers(x, na_rm, function)
    if values is None:
        return math.nan
    return empty if values.size == 0 else float(of_values(values))


def _variance(values: np.ndarray) -> float:
    if values.size < 2:
        return math.nan
    deviations = values.astype(_LONG) - _long_mean(values)
    return float(np.cumsum(deviations * deviations)[-1] / _LONG(values.size - 1))


def _trimmed_mean(values: np.ndarray, trim: float) -> float:
    """R's ``mean(x, trim)``: the mean of the values left after ``floor(n trim)`` at each
    end (of the sorted values) are cut; the median from a trim of 0.5 on."""
    if trim >= _HALF:
        return float(np.median(values))
    cut = math.floor(values.size * trim)
    return float(_long_mean(np.sort(values)[cut:values.size - cut]))


@stateful_transform
def mean(x, trim=0, na_rm=False, _state=None):
    """R's ``mean(x, trim = 0, na.rm = FALSE)`` of the training data (NaN for no
    values): with ``trim``, the mean after ``floor(n trim)`` values are cut from each end
    (R's second argument is ``trim``, not ``na.rm``)."""
    trim = one_number(trim, "mean", "trim", finite=False)         # R: a trim of 0 or less cuts nothing
    return _kept(_state, lambda: _statistic(
        x, na_rm, "mean", lambda v: _trimmed_mean(v, trim) if trim > 0 else _long_mean(v),
        math.nan))


@stateful_transform
def median(x, na_rm=False, _state=None):
    """R's ``median(x, na.rm = FALSE)`` of the training data."""
    return _kept(_state, lambda: _statistic(x, na_rm, "median", np.median, math.nan))


def _no_second_variable(y, function: str) -> None:
    if y is not None:
        raise ValueError(f"{function}(x, y) of two variables (R's covariance of x and y) is "
                         f"not available; {function}(x) of one is (na.rm by name: "
                         f"{function}(x, na.rm = TRUE))")


@stateful_transform
def var(x, y=None, na_rm=False, _state=None):
    """R's ``var(x, na.rm = FALSE)`` of the training data (n - 1 in the denominator);
    R's second argument is another variable (``var(x, y)``, a covariance): refused."""
    _no_second_variable(y, "var")
    return _kept(_state, lambda: _statistic(x, na_rm, "var", _variance, math.nan))


@stateful_transform
def sd(x, na_rm=False, _state=None):
    """R's ``sd(x, na.rm = FALSE)`` of the training data."""
    return _kept(_state, lambda: _statistic(x, na_rm, "sd",
                                            lambda v: math.sqrt(_variance(v)), math.nan))


def _pooled(args) -> pd.Series:
    """R's ``min(...)``/``max(...)``: every argument's values as one vector (TRUE/FALSE
    as 1/0)."""
    if len(args) == 1:
        return args[0]
    return pd.concat([r_numeric(series(np.atleast_1d(a))).reset_index(drop=True)
                      for a in args], ignore_index=True)


@stateful_transform
def r_min(x, *more, na_rm=False, _state=None):
    """R's ``min(..., na.rm = FALSE)`` of the training data: the least of all the
    arguments' values (Inf for no values, as R)."""
    return _kept(_state, lambda: _statistic(_pooled((x, *more)), na_rm, "min",
                                            np.min, math.inf))


@stateful_transform
def r_max(x, *more, na_rm=False, _state=None):
    """R's ``max(..., na.rm = FALSE)`` of the training data: the largest of all the
    arguments' values (-Inf for no values, as R)."""
    return _kept(_state, lambda: _statistic(_pooled((x, *more)), na_rm, "max",
                                            np.max, -math.inf))


#: ``(alpha, beta)`` of ``?quantile``'s continuous types 4-9 (but R's default 7:
#: :func:`~.encode.r_quantile7`): the sorted values' k-th is the quantile of probability
#: ``(k - alpha) / (n + 1 - alpha - beta)``
_CONTINUOUS = {4: (0.0, 1.0), 5: (0.5, 0.5), 6: (0.0, 0.0), 8: (1 / 3, 1 / 3),
               9: (3 / 8, 3 / 8)}
#: ``m`` of the discontinuous types 1-3 (``j = floor(np + m)``)
_DISCONTINUOUS_M = {1: 0.0, 2: 0.0, 3: -0.5}
#: R's allowance in ``floor(np + m)`` for the rounding of ``np + m``
_QUANTILE_FUZZ = 4 * np.finfo(float).eps


def _sample_quantile(ordered: np.ndarray, p: float, qtype: int) -> float:
    """Quantile ``qtype`` (1-6, 8, 9, ``?quantile``, Hyndman and Fan) of sorted values:
    ``(1 - g) x[j] + g x[j + 1]`` (1-based; below 1 the first value, above n the
    last) at the position ``k`` solving the type's ``p(k)``, ``j = floor(k)``, ``g`` its
    fraction (types 1-3: the type's rule), computed as R's numbers are."""
    n = ordered.size
    if qtype in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[qtype]
        position = alpha + p * (n + 1 - alpha - beta)
    else:
        position = n * p + _DISCONTINUOUS_M[qtype]
    j = math.floor(position + _QUANTILE_FUZZ)
    g = position - j
    if abs(g) < _QUANTILE_FUZZ:
        g = 0.0
    if qtype in _DISCONTINUOUS_M:
        g = {1: float(g > 0), 2: 1.0 if g > 0 else 0.5,
             3: 0.0 if g == 0 and j % 2 == 0 else 1.0}[qtype]
    low, high = ordered[min(max(j, 1), n) - 1], ordered[min(max(j + 1, 1), n) - 1]
    if g <= 0 or low == high:      # (a g of -4 eps: the position's rounding below j)
        return float(low)
    if g >= 1:
        return float(high)
    return float((1 - g) * low + g * high)


@stateful_transform
def quantile(x, probs, na_rm=False, names=True, type=7, _state=None):  # noqa: A002 (R's)
    """R's ``quantile(x, probs, na.rm = FALSE, names, type = 7)`` of the training data
    (``type`` 1 to 9, R's default 7): one number for one probability (a term compares
    or bounds with it), several for several (``cut(x, quantile(x, c(0, 0.5, 1)))``'s
    breaks)."""
    def compute():
        p = np.ravel(np.asarray(probs, dtype=float))
        if p.size == 0 or not np.all((p >= 0) & (p <= 1)):
            raise ValueError(f"quantile(): probs must be probabilities in [0, 1], got "
                             f"{probs!r}")
        qtype = one_number(type, "quantile", "type")
        if qtype not in range(1, 10):
            raise ValueError(f"quantile(): 'type' must be 1 to 9, got {type!r}")
        values = _numbers(x, na_rm, "quantile")
        if values is None:
            raise ValueError("quantile(): missing values and NaN's not allowed if 'na.rm' "
                             "is FALSE (R's error); write na.rm = TRUE")
        if qtype == 7 or not values.size:
            found = r_quantile7(values, p)
        else:
            ordered = np.sort(values)
            found = np.array([_sample_quantile(ordered, float(q), int(qtype)) for q in p])
        return float(found[0]) if p.size == 1 else found
    return _kept(_state, compute)


@stateful_transform
def unique(x, _state=None):
    """R's ``unique(x)`` of the training data: each value once, in the order of its
    first row (a missing value too; a factor's values, for ``factor(x, levels =
    unique(x))``)."""
    def compute():
        values = x.astype(object) if is_factor(x) else series(x)
        return np.asarray(pd.unique(values.to_numpy()), dtype=object)
    return _kept(_state, compute)


@stateful_transform
def levels(x, _state=None):
    """R's ``levels(f)`` of the training data: a factor's levels, in its order. Text
    has none in R (``levels`` gives NULL, so ``factor(g, levels = levels(g))`` would be
    all missing): refused, naming ``levels(factor(g))``."""
    def compute():
        if not is_factor(x):
            raise TypeError(f"levels() takes a factor, got dtype {series(x).dtype} (R gives "
                            "NULL for text and numbers: no levels); write levels(factor(x))")
        return np.asarray(x.cat.categories, dtype=object)
    return _kept(_state, compute)


@stateful_transform
def nlevels(x, _state=None):
    """R's ``nlevels(f)`` of the training data: the number of a factor's levels (0 for
    anything else, as R)."""
    return _kept(_state, lambda: float(len(x.cat.categories)) if is_factor(x) else 0.0)


#: the summaries, by the names formulas call them under
R_SUMMARIES = {"mean": mean, "median": median, "var": var, "sd": sd, "min": r_min,
               "max": r_max, "quantile": quantile, "unique": unique, "levels": levels,
               "nlevels": nlevels}
