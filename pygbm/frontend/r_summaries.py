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

The numbers are R's to the last bit (checked against R 4.2.2 on 300 random vectors):
``mean`` is a long-double mean corrected by a second long-double pass over the
deviations, ``var`` the long-double sum of squared deviations from that mean over
n - 1, ``sd`` its square root, ``quantile`` R's default type 7 as ``?quantile``
defines it, ``(1 - h) x[j] + h x[j + 1]``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from formulaic.utils.stateful_transforms import stateful_transform

from .r_factors import is_factor, series
from .r_operators import r_numeric

__all__ = ["R_SUMMARIES"]

_LONG = np.longdouble
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


@stateful_transform
def mean(x, na_rm=False, _state=None):
    """R's ``mean(x, na.rm = FALSE)`` of the training data (NaN for no values)."""
    return _kept(_state, lambda: _statistic(x, na_rm, "mean", _long_mean, math.nan))


@stateful_transform
def median(x, na_rm=False, _state=None):
    """R's ``median(x, na.rm = FALSE)`` of the training data."""
    return _kept(_state, lambda: _statistic(x, na_rm, "median", np.median, math.nan))


@stateful_transform
def var(x, na_rm=False, _state=None):
    """R's ``var(x, na.rm = FALSE)`` of the training data (n - 1 in the denominator)."""
    return _kept(_state, lambda: _statistic(x, na_rm, "var", _variance, math.nan))


@stateful_transform
def sd(x, na_rm=False, _state=None):
    """R's ``sd(x, na.rm = FALSE)`` of the training data."""
    return _kept(_state, lambda: _statistic(x, na_rm, "sd",
                                            lambda v: math.sqrt(_variance(v)), math.nan))


@stateful_transform
def r_min(x, na_rm=False, _state=None):
    """R's ``min(x, na.rm = FALSE)`` of the training data (Inf for no values, as R)."""
    return _kept(_state, lambda: _statistic(x, na_rm, "min", np.min, math.inf))


@stateful_transform
def r_max(x, na_rm=False, _state=None):
    """R's ``max(x, na.rm = FALSE)`` of the training data (-Inf for no values, as R)."""
    return _kept(_state, lambda: _statistic(x, na_rm, "max", np.max, -math.inf))


def _type7(values: np.ndarray, p: float) -> float:
    """R's default quantile (type 7): ``(1 - h) x[j] + h x[j + 1]`` of the sorted
    values at ``(n - 1) p`` (0-based ``j``, fraction ``h``)."""
    ordered = np.sort(values)
    index = (ordered.size - 1) * p
    j, upper = math.floor(index), math.ceil(index)
    h = index - j
    if h == 0 or ordered[upper] == ordered[j]:
        return float(ordered[j])
    return float((1 - h) * ordered[j] + h * ordered[upper])


@stateful_transform
def quantile(x, probs, na_rm=False, _state=None):
    """R's ``quantile(x, probs, na.rm = FALSE)`` (type 7) of the training data: one
    number for one probability (a term compares or bounds with it), several for
    several (``cut(x, quantile(x, c(0, 0.5, 1)))``'s breaks)."""
    def compute():
        p = np.ravel(np.asarray(probs, dtype=float))
        if p.size == 0 or not np.all((p >= 0) & (p <= 1)):
            raise ValueError(f"quantile(): probs must be probabilities in [0, 1], got "
                             f"{probs!r}")
        values = _numbers(x, na_rm, "quantile")
        if values is None:
            raise ValueError("quantile(): missing values and NaN's not allowed if 'na.rm' "
                             "is FALSE (R's error); write na.rm = TRUE")
        found = [_type7(values, float(q)) if values.size else math.nan for q in p]
        return found[0] if p.size == 1 else np.array(found)
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
