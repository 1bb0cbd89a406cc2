"""R's ``cut()`` in formula terms: a numeric column made a factor of intervals.

``cut(age, c(0, 30, 50, Inf))`` gives the factor R's does: its levels are R's labels
(``"(0,30]"``, ``"(30,50]"``, ``"(50,Inf]"``, the breaks printed with ``dig.lab``
significant digits, more where two would print alike), in the breaks' order; values
outside the breaks are missing. ``right = FALSE`` closes the intervals on the left,
``include.lowest = TRUE`` closes the outer end too, ``labels = FALSE`` gives the
intervals' numbers 1, 2, ... instead of a factor, ``ordered_result = TRUE`` an ordered
factor (gbm then splits it as an ordered predictor).

``cut(age, 4)`` divides the range of the values into 4 equal intervals and moves the
outer breaks out by 0.1% of the range, as R does. Those breaks come from the data,
so they are a formulaic stateful transform's state: found on the training data, then
applied to new data. R's ``predict.gbm`` evaluates the term again on the new data,
whose own range gives other breaks, other labels and so missing values: pygbm keeps
the training breaks (docs/coming_from_r.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from formulaic.utils.stateful_transforms import stateful_transform

__all__ = ["cut", "interval_labels"]

#: how far R moves the outer breaks of ``cut(x, k)`` out, as a share of the range
_OUTER_MARGIN = 1000.0
#: the most significant digits R tries for labels that would otherwise print alike
_MOST_DIGITS = 12


def _printed(breaks: np.ndarray, digits: int) -> list[str]:
    """The breaks as R's ``formatC(breaks, digits, width = 1)`` prints them: C's
    ``%.<digits>g``; infinite ones as ``Inf`` / ``-Inf``, right-justified together."""
    finite = np.isfinite(breaks)
    words = ["Inf" if b > 0 else "-Inf" for b in breaks[~finite]]
    width = max(map(len, words), default=0)
    infinite = iter(w.rjust(width) for w in words)
    return ["%.*g" % (digits, b + 0.0) if ok else next(infinite)   # + 0.0: no "-0"
            for b, ok in zip(breaks, finite)]


def interval_labels(breaks: np.ndarray, right: bool, include_lowest: bool,
                    dig_lab: int) -> list[str]:
    """R's labels of the intervals between sorted ``breaks``: ``"(a,b]"`` (``"[a,b)"``
    when not ``right``), with ``dig_lab`` significant digits, or as many more (up to
    12) as tell neighbouring breaks apart; ``"Range_1"``, ... when none do."""
    for digits in range(dig_lab, max(_MOST_DIGITS, dig_lab) + 1):
        printed = _printed(breaks, digits)
        if all(a != b for a, b in zip(printed[:-1], printed[1:])):
            break
    else:
        return [f"Range_{i + 1}" for i in range(len(breaks) - 1)]
    opening, closing = ("(", "]") if right else ("[", ")")
    labels = [f"{opening}{a},{b}{closing}" for a, b in zip(printed[:-1], printed[1:])]
    if include_lowest and right:
        labels[0] = "[" + labels[0][1:]
    elif include_lowest:
        labels[-1] = labels[-1][:-1] + "]"
    return labels


def _numbers(x) -> pd.Series:
    x = x if isinstance(x, pd.Series) else pd.Series(np.asarray(x))
    if isinstance(x.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(x.dtype) \
            or not pd.api.types.is_numeric_dtype(x.dtype):
        raise TypeError(f"cut() needs a numeric column, got dtype {x.dtype} (R: 'x' must "
                        "be numeric)")
    return x.astype(float)


def _equal_breaks(x: np.ndarray, count) -> np.ndarray:
    """R's breaks of ``cut(x, count)``: ``count`` equal intervals over the range of
    ``x``, the outer breaks moved out by a thousandth of the range (of |x|, or 1, when
    every value is the same)."""
    k = np.floor(float(count))
    if not k >= 2:
        raise ValueError(f"cut(): breaks = {float(count):g} is not a valid number of "
                         "intervals (R: invalid number of intervals); give 2 or more, or "
                         "the breaks themselves")
    seen = x[~np.isnan(x)]
    if seen.size == 0 or not np.isfinite(seen).all():
        raise ValueError("cut(): the data have no finite range to divide into "
                         f"{int(k)} intervals; give the breaks themselves")
    low, high = seen.min(), seen.max()
    spread = high - low
    if spread == 0:
        margin = (abs(low) if low != 0 else 1.0) / _OUTER_MARGIN
        return np.linspace(low - margin, high + margin, int(k) + 1)
    breaks = np.linspace(low, high, int(k) + 1)
    breaks[0], breaks[-1] = low - spread / _OUTER_MARGIN, high + spread / _OUTER_MARGIN
    return breaks


def _given_breaks(breaks) -> np.ndarray:
    values = np.asarray(breaks, dtype=float).ravel()
    values = np.sort(values[~np.isnan(values)])          # R's sort drops NA
    if values.size < 2:
        raise ValueError(f"cut(): breaks {np.ravel(breaks).astype(float).tolist()} give no "
                         "interval; give two or more breaks, or their number")
    if np.any(values[1:] == values[:-1]):
        raise ValueError(f"cut(): the breaks are not unique: {values.tolist()} "
                         "(R: 'breaks' are not unique)")
    return values


def _interval_codes(x: np.ndarray, breaks: np.ndarray, right: bool,
                    include_lowest: bool) -> np.ndarray:
    """The interval (0-based) each value falls in, -1 outside the breaks or missing."""
    above = np.searchsorted(breaks, x, side="left" if right else "right")
    if include_lowest:
        edge = breaks[0] if right else breaks[-1]
        above = np.where(x == edge, 1 if right else len(breaks) - 1, above)
    inside = (above >= 1) & (above <= len(breaks) - 1) & ~np.isnan(x)
    return np.where(inside, above - 1, -1)


def _levels(labels, breaks, right, include_lowest, dig_lab) -> list | None:
    if labels is None:
        return interval_labels(breaks, right, include_lowest, int(dig_lab))
    if labels is False:
        return None
    labels = [str(v) for v in np.atleast_1d(np.asarray(labels, dtype=object))]
    if len(labels) != len(breaks) - 1:
        raise ValueError(f"cut(): {len(labels)} labels for {len(breaks) - 1} intervals "
                         "(R: lengths of 'breaks' and 'labels' differ)")
    return labels


@stateful_transform
def cut(x, breaks, labels=None, include_lowest=False, right=True, dig_lab=3,
        ordered_result=False, _state=None):
    """R's ``cut(x, breaks, labels = NULL, include.lowest = FALSE, right = TRUE,
    dig.lab = 3, ordered_result = FALSE)``; breaks given by their number are found
    on the training data and kept for new data."""
    values = _numbers(x)
    if "breaks" in _state:
        cuts = np.asarray(_state["breaks"], dtype=float)
    elif np.size(breaks) == 1:
        cuts = _equal_breaks(values.to_numpy(), np.ravel(breaks)[0])
        _state["breaks"] = cuts.tolist()
    else:
        cuts = _given_breaks(breaks)
    codes = _interval_codes(values.to_numpy(), cuts, bool(right), bool(include_lowest))
    levels = _levels(labels, cuts, bool(right), bool(include_lowest), dig_lab)
    if levels is None:                                   # labels = FALSE: 1, 2, ...
        return pd.Series(np.where(codes >= 0, codes + 1.0, np.nan), index=values.index)
    unique = list(dict.fromkeys(levels))                 # R merges repeated labels
    position = np.asarray([unique.index(v) for v in levels])
    codes = np.where(codes >= 0, position[np.maximum(codes, 0)], -1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=unique,
                                               ordered=bool(ordered_result)),
                     index=values.index)
