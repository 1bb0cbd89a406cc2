"""Argument checks shared by the front end and the fitting functions: clear
errors that name the argument and what was expected."""
from __future__ import annotations

import math
import numbers
import re
import sys

import numpy as np

from .engine.compiled import NUMBA_MISSING_NOTE, available
from ._rmath import r_sum
from .messages import warn
from .rrandom import RRandom


#: R's largest integer: counts R holds as integers (n.trees) cannot exceed it
R_INT_MAX = 2 ** 31 - 1


def terms_reading(key, labels) -> list:
    """The term labels among ``labels`` that read the column ``key`` (``log(x1)``,
    ``I(x2^2)``, ``offset(log(t))``; as a column, not a function's name): what an
    argument keyed by a predictor's name is told when it names such a column."""
    if not isinstance(key, str) or not key.isidentifier():
        return []
    word = re.compile(rf"(?<![\w.]){re.escape(key)}(?![\w.(])")
    return [label for label in labels if word.search(label)]


def finite_number(value) -> bool:
    """Whether ``value`` is one finite real number (a bool is not: True is not 1.0 here;
    a whole number is, even a Python int beyond what NumPy's isfinite takes, and so
    is a Fraction)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    if isinstance(value, numbers.Integral):
        return True
    try:
        return math.isfinite(value)     # any real: a float, NumPy's, a Fraction
    except OverflowError:               # a Fraction beyond a float's range
        return False


#: the longest value an error message shows (:func:`shown`)
SHOWN_CHARS = 80


def shown(value) -> str:
    """``value`` as an error message shows a value: its repr on one line, cut to
    :data:`SHOWN_CHARS` (a pandas Series or an array printed whole took a dozen
    lines and did not say what it was)."""
    if hasattr(value, "shape") and np.ndim(value) > 0:     # an array, a Series, a table
        return f"{type(value).__name__} of shape {np.shape(value)}"
    text = " ".join(repr(value).split())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def whole_number(value) -> int | None:
    """``value`` as an int when it is a whole number (an int, or a float such as 10.0:
    R's numerics, as :func:`int_arg` takes them), else None."""
    if not finite_number(value) or value != int(value):
        return None
    return int(value)


def int_arg(name, value, low, high=None):
    """``value`` as an int in [low, high]; TypeError/ValueError naming ``name``."""
    count = whole_number(value)
    if count is None:
        raise TypeError(f"{name} must be a whole number, got {shown(value)}")
    if count < low or (high is not None and count > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        given = count if isinstance(value, numbers.Integral) else repr(value)
        raise ValueError(f"{name} must be {bound}, got {given}")
    return count


#: permutations x training rows a fit may hold: the target statistics and the
#: supporting models of ordered boosting keep a table of values of each
#: permutation's rows (2**28 float64 values: 2 GiB per table)
MAX_PERMUTATION_VALUES = 2 ** 28


def permutations_arg(name, value, n_rows: int) -> int:
    """``value`` permutations (>= 1) of ``n_rows`` training rows, within
    :data:`MAX_PERMUTATION_VALUES`; errors naming ``name``."""
    value = int_arg(name, value, 1)
    if value * n_rows > MAX_PERMUTATION_VALUES:
        raise ValueError(f"{name}={value} permutations of the {n_rows} training rows would "
                         f"hold {value * n_rows:,} values per table, above the "
                         f"{MAX_PERMUTATION_VALUES:,} (2 GiB) a fit may hold: use at most "
                         f"{MAX_PERMUTATION_VALUES // n_rows:,} (CatBoost's default is 4)")
    return value


def choice_arg(name: str, value, choices, also: str = "") -> str:
    """``value``, one of the strings ``choices``, or a ValueError naming ``name``
    (``also``: what else the argument takes, said after the choices). Anything
    but a string (an array, a Series) is refused before it is compared."""
    if not (isinstance(value, str) and value in choices):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}{also}, "
                         f"got {value!r:.80}")
    return value


def fraction_arg(name, value, allow_one=True):
    """``value`` as a float in (0, 1] ((0, 1) without ``allow_one``)."""
    if not finite_number(value):
        raise TypeError(f"{name} must be a number in (0, 1], got {shown(value)}")
    if not (0 < value <= 1) or (not allow_one and value == 1):
        raise ValueError(f"{name} must be in (0, 1], got {value}")
    return float(value)


def shrinkage_arg(value):
    """A positive float; above 1 is allowed with a warning."""
    if not finite_number(value) or value <= 0:
        raise ValueError(f"shrinkage must be a positive number, got {shown(value)}")
    if value > 1:
        warn(f"shrinkage={value} is above 1; values between 0.001 and 0.1 usually "
             "work best")
    return float(value)


def engine_arg(engine) -> str:
    """The fit's engine: "numba" (compiled) or "numpy" (the reference); None
    is "numba" when numba can be imported, else "numpy" with a note once."""
    if engine is None:
        if available():
            return "numba"
        if not _NOTED:
            _NOTED.append(True)
            warn(NUMBA_MISSING_NOTE)
        return "numpy"
    choice_arg("engine", engine, ENGINES, " or None")
    if engine == "numba" and not available():
        raise ValueError("engine='numba' needs numba, which cannot be imported here; "
                         "use engine='numpy' (the same results) or install numba")
    return engine


#: the engines a fit can run on (same numbers; see pygbm.engine.compiled)
ENGINES = ("numba", "numpy")
#: the note that numba is missing is given once per process
_NOTED: list = []


def _labelled_series(values) -> bool:
    """``values`` is a pandas Series labelled by names (not by positions 0, 1, ...)."""
    pandas = sys.modules.get("pandas")      # a Series exists only once pandas is imported
    return (pandas is not None and isinstance(values, pandas.Series)
            and not pandas.api.types.is_integer_dtype(values.index.dtype))


def same_rows_arg(name: str, value, rows, rows_name: str) -> None:
    """Per-row values are read by position, as R reads them: ``value`` (the
    argument ``name``) a pandas Series or DataFrame whose index differs from the
    index of ``rows`` (the table, or the other Series of the call, named
    ``rows_name``) is refused by a ValueError, since pandas pairs such values
    with rows by label; so is a Surv response whose ``index`` (that of the
    Series it was built from) differs. Anything else (an array, a list, a Series
    of the same index, ``rows`` without an index, or of another length, which the
    argument's own check refuses) passes."""
    pandas = sys.modules.get("pandas")      # a Series exists only once pandas is imported
    if pandas is None:
        return
    framed = (pandas.Series, pandas.DataFrame)
    index = getattr(value, "index", None)   # a Series', a DataFrame's, a Surv's (or None)
    if not (isinstance(index, pandas.Index) and isinstance(rows, framed)) \
            or len(value) != len(rows) or index.equals(rows.index):
        return
    try:
        other = index.difference(rows.index, sort=False)
    except TypeError:       # labels that cannot be compared
        other = None
    if other is not None and len(other):
        label = other[0].item() if isinstance(other[0], np.generic) else other[0]
        how = f"{len(other)} label(s) not in it, such as {label!r:.40}"
    elif other is not None and index.is_unique and rows.index.is_unique:
        how = "its labels in another order"
    else:
        how = "the rows in another order, or other rows"
    if isinstance(value, framed):
        what = f"a pandas {type(value).__name__}"
        fix = (f"give {name}.to_numpy() if they are in {rows_name}'s row order, or "
               f"{name}.reindex({rows_name}.index) to align them by label")
    else:                                   # a Surv response: its Series' index
        what = "a Surv response built from pandas Series"
        fix = (f"build it from their .to_numpy() if they are in {rows_name}'s row order, "
               f"or from them reindexed by {rows_name}.index to align them by label")
    raise ValueError(f"{name} is {what} whose index differs from {rows_name}'s index "
                     f"({how}): pygbm reads per-row values by position, as R does; {fix}")


def monotone_arg(var_monotone, var_names, var_type):
    """One of -1, 0, 1 per predictor (a dict, or a Series labelled by names, names
    some predictors; None: all 0)."""
    p = len(var_names)
    if var_monotone is None:
        return np.zeros(p, dtype=np.intp)
    if _labelled_series(var_monotone):      # by its labels: by position, a Series in
        var_monotone = var_monotone.to_dict()   # another order misplaced the signs
    if isinstance(var_monotone, dict):
        unknown = set(var_monotone) - set(var_names)
        if unknown:
            raise ValueError(f"var_monotone names unknown predictors {sorted(unknown)}; "
                             f"predictors are {var_names}")
        var_monotone = [var_monotone.get(v, 0) for v in var_names]
    mono = array_arg("var_monotone", var_monotone)
    if mono.ndim != 1 or mono.shape[0] != p:
        raise ValueError(f"var_monotone must have one entry per predictor ({p}: "
                         f"{', '.join(var_names)}), got length {mono.size}")
    if not np.all(np.isin(mono, (-1, 0, 1))):
        raise ValueError(f"var_monotone entries must be -1, 0 or 1, got {mono.tolist()}")
    cat = (mono != 0) & (np.asarray(var_type) > 0)
    if cat.any():
        names = [var_names[i] for i in np.flatnonzero(cat)]
        warn(f"var_monotone is ignored for the unordered categorical predictors "
             f"{names} (as in R)")
    return mono.astype(np.intp)


#: dtype kinds NumPy would cast to floats although they are not numbers (text
#: aside, "1" read as 1): dates and durations (read in their unit), complex
#: numbers (the imaginary part dropped); R's is.numeric is false for all of them
_NOT_NUMBER_KINDS = {"M": "dates", "m": "durations", "c": "complex numbers"}


def _not_numbers(values) -> str | None:
    """What ``values`` hold if NumPy would read them as floats although they are
    not numbers (text such as "2", dates, durations, complex numbers, a pandas
    Categorical, whose labels are not its values); None for numbers and bools."""
    dtype = getattr(values, "dtype", None)
    if getattr(dtype, "name", None) == "category":
        return "a Categorical (labels, not numbers)"
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):     # ragged: numbers_arg's cast reports it
        return None
    flat = arr.ravel()
    if arr.dtype.kind in "US" and flat.size:
        return _some_values(values, flat.size, str(flat[0]))
    if arr.dtype.kind in _NOT_NUMBER_KINDS:
        first = f" such as {str(flat[0]):.40}" if flat.size else ""
        return f"{_NOT_NUMBER_KINDS[arr.dtype.kind]}{first} (dtype {arr.dtype})"
    if arr.dtype.kind == "O":
        for v in flat:
            if isinstance(v, (str, bytes)):
                return _some_values(values, flat.size, str(v))
            if isinstance(v, (complex, np.complexfloating)):
                return f"complex numbers such as {v!r:.40}"
    return None


def _some_values(values, size: int, example) -> str:
    """``values`` for an error: their type and size, and a value that is not a number."""
    return f"{type(values).__name__} of {size} values with non-numbers such as {example!r:.40}"


def unmasked(values):
    """A NumPy masked array's masked entries as NaN, missing values as pandas
    reads them (``np.asarray`` reads the values hidden beneath the mask, which
    were then used silently); anything else as it is."""
    if not isinstance(values, np.ma.MaskedArray):
        return values
    if not np.ma.is_masked(values):                 # nothing masked: the values, their dtype
        return np.ma.getdata(values)
    numbers = values.dtype.kind in "biuf"           # bools, integers, floats
    return values.astype(float if numbers else object).filled(np.nan)


def numbers_arg(name: str, values) -> np.ndarray:
    """``values`` as a float array, or a ValueError naming ``name`` (also for text,
    dates, durations, complex numbers and Categoricals, which NumPy would cast;
    a masked array's masked entries are NaN)."""
    if values is None:
        raise ValueError(f"{name} must be numbers, got None")
    values = unmasked(values)
    held = _not_numbers(values)
    if held is not None:
        raise ValueError(f"{name} must be numbers, got {held}")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {_non_numbers(values)}") from None


def vector_arg(name: str, values) -> np.ndarray:
    """``values`` as a float vector (:func:`numbers_arg`; a one-column or one-row
    table flattened, as R's ``as.vector``); an array of more than one row and
    column is refused naming ``name`` (flattened, it would pair values with the
    wrong rows)."""
    arr = numbers_arg(name, values)
    if sum(size > 1 for size in arr.shape) > 1:
        raise ValueError(f"{name} must be a vector (one number per row), got an array of "
                         f"shape {arr.shape}")
    return arr.ravel()


def _non_numbers(values) -> str:
    """What ``values`` (not convertible to floats) are, for an error: a scalar's
    repr, or an array's size and its first value that is not a number (not the
    repr of a whole column)."""
    flat = np.asarray(values, dtype=object)
    if flat.ndim == 0:
        return f"{values!r:.80}"
    flat = flat.ravel()
    for v in flat:
        try:
            float(v)
        except (TypeError, ValueError):
            return _some_values(values, flat.size, v)
    return f"{type(values).__name__} of {flat.size} values"


def finite_arg(name: str, values: np.ndarray) -> None:
    """A ValueError naming ``name`` and counting its NaN and infinite values."""
    bad = ~np.isfinite(values)
    if np.any(bad):
        raise ValueError(f"{name} must be finite numbers, got {int(np.isnan(values).sum())} "
                         f"NaN and {int(np.isinf(values).sum())} infinite value(s)")


def per_row_arg(name: str, values, n: int, table: str | None = None) -> np.ndarray:
    """``values``: one finite number per row of the ``n`` rows (of the table the
    caller's argument ``table`` holds), or a ValueError naming ``name``."""
    values = numbers_arg(name, values)
    if values.shape != (n,):
        rows = f"per row of {table} ({n})" if table else f"per row ({n})"
        raise ValueError(f"{name} must be one number {rows}, got shape {values.shape}")
    finite_arg(name, values)
    return values


def response_arg(distribution, y, table: str = "data") -> np.ndarray:
    """``y``: one response per row of the table ``table``, checked by the
    distribution (``check_response``), as floats."""
    if isinstance(y, str):      # as fold_id: a column's name is not looked up
        raise ValueError(f"y must be one response per row of {table}, got the single value "
                         f"{y!r:.80}; a name is not looked up in {table} (give the values)")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one response per row of {table}, got shape {y.shape}")
    return np.asarray(distribution.check_response(y), dtype=float)


def missing_mask(values) -> np.ndarray:
    """Which of ``values`` are missing (None, NaN or pandas' NA), whatever their dtype."""
    import pandas as pd        # imported on first use: import pygbm stays fast
    return np.asarray(pd.isna(np.asarray(values, dtype=object)), dtype=bool)


def array_arg(name: str, values) -> np.ndarray:
    """``np.asarray(values)``; a ragged nested list (NumPy's "inhomogeneous shape")
    refused naming the argument."""
    try:
        return np.asarray(values)
    except ValueError:
        raise ValueError(f"{name} must be a flat sequence of values; got a ragged nested "
                         "list") from None


def unique_labels(name: str, values: np.ndarray, **unique_options):
    """``np.unique`` of the labels ``values`` (the argument ``name``); labels of
    types that do not sort together (numbers and text in one object array) refused
    naming the argument."""
    try:
        return np.unique(values, **unique_options)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.ravel(values)})
        raise TypeError(f"{name} holds labels of mixed types ({', '.join(kinds)}), which do "
                        f"not sort together: give labels of one type (e.g. "
                        f"{name}.astype(str))") from None


def complete_group_arg(group) -> None:
    """A pairwise ``group`` without missing values (R passes them on as
    numbers, undefined there; a NaN would be a group of its own)."""
    missing = int(np.sum(missing_mask(group)))
    if missing:
        raise ValueError(f"group must not have missing values (None or NaN); got {missing} "
                         f"of {np.size(group)}")


def weights_arg(w, n: int, name: str = "weights") -> np.ndarray:
    """Case weights (the argument ``name``): one finite, non-negative number
    per row, not all zero (None: all 1)."""
    if w is None:
        return np.ones(n)
    w = per_row_arg(name, w, n)
    if np.any(w < 0) or not np.any(w > 0):
        raise ValueError(f"{name} must be >= 0 and not all zero, got {int(np.sum(w < 0))} "
                         f"negative value(s) (min {w.min():g}) and "
                         f"{int(np.sum(w > 0))} positive")
    return w


def rescaled_weights_arg(w_raw: np.ndarray, count: int, summed: np.ndarray,
                         rule: str) -> np.ndarray:
    """Case weights rescaled as R does, ``w_raw * count / sum(summed)`` (the sum in
    long double); refused, with ``rule`` (how they were rescaled) in the message,
    when that overflows (R: a sum of Inf, and a NaN fit)."""
    with np.errstate(over="ignore", invalid="ignore"):
        w = w_raw * count / r_sum(summed)
    if not np.all(np.isfinite(w)):
        raise ValueError(f"weights are too large to normalise as R does ({rule} overflows; "
                         f"largest weight {np.max(w_raw):g}): rescale them, e.g. divide by "
                         "their largest")
    return w


def offset_arg(offset, n: int) -> np.ndarray | None:
    """Offsets: one finite number per row; None for none (or all zero, R's
    checkOffset: an all-zero offset is no offset)."""
    if offset is None:
        return None
    offset = per_row_arg("offset", offset, n)
    return None if np.all(offset == 0) else offset


def as_generator(random_state):
    """A numpy Generator (given, or seeded by ``random_state``), or R's stream
    (a :class:`pygbm.RRandom`, used as is: the fit continues it)."""
    if isinstance(random_state, (np.random.Generator, RRandom)):
        return random_state
    if random_state is not None and not isinstance(random_state, np.random.SeedSequence):
        if isinstance(random_state, (bool, np.bool_)) \
                or not isinstance(random_state, numbers.Integral):
            raise TypeError(f"random_state must be None, a non-negative whole number, a "
                            f"numpy Generator or pygbm.RRandom, got {random_state!r}")
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
    return np.random.default_rng(random_state)


def n_cores_arg(n_cores):
    """cv's worker processes: None or a whole number >= 1."""
    return None if n_cores is None else int_arg("n_cores", n_cores, 1)


def bool_arg(value, name) -> bool:
    """``value`` if it is True or False (or 0/1), else a ``TypeError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                               and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {shown(value)}")


def table_arg(name: str, value, columns, made_by: str):
    """``value`` if it is a pandas DataFrame with ``columns`` (the table
    ``made_by`` returns, e.g. "qwyc_tradeoff()"), else a TypeError or ValueError
    naming ``name``."""
    import pandas as pd        # imported on first use: import pygbm stays fast

    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be the DataFrame {made_by} returns, got "
                        f"{type(value).__name__}")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ValueError(f"{name} must be the DataFrame {made_by} returns (columns "
                         f"{', '.join(map(repr, columns))}); it lacks {missing}")
    return value


#: what every reader of a fit uses: the toolbox works on any object with the
#: fitted object's fields (GBMFit, or a stand-in built from an R fit);
#: train_error tells a fit from a summary of one (an InfluenceSummary also has
#: n_trees and distribution)
FIT_FIELDS = ("n_trees", "distribution", "train_error")


def fit_arg(fit, name: str = "fit"):
    """``fit`` if it has a fitted model's fields (:data:`FIT_FIELDS`), else a
    ``TypeError`` naming ``name``."""
    if not all(hasattr(fit, field) for field in FIT_FIELDS):
        raise TypeError(f"{name} must be a fitted gbm model (what gbm() or gbm_fit() "
                        f"returns), got {type(fit).__name__}")
    return fit
