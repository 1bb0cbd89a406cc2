"""R's functions for formula terms, with R's meaning: ``as.numeric(f)``, ``pmin(x, 10)``,
``ifelse(age > 60, "old", "young")``, comparisons, ... (the factor functions:
:mod:`.r_factors`).

People porting an R analysis write these in their formulas; each returns what R's would,
so the model frame holds what R's does (``factor()`` of numbers sorts its levels as
numbers, of strings in R's collation; ``as.numeric()`` of a factor gives its level
codes, R's well-known gotcha, because that is what the R analysis fitted).

R's dotted names (``as.factor``, ``is.na``) are not Python names (``as`` and ``is`` are
keywords): :func:`python_names` rewrites them in a formula before it is parsed and
:func:`r_names` gives a term's label back as R writes it.
"""

from __future__ import annotations

import datetime
import re

import numpy as np
import pandas as pd

from .encode import r_label, r_labels, r_number
from .r_dates import as_date, date_days, is_date
from .r_factors import R_FACTOR_FUNCTIONS, is_factor, series
from .r_grammar import STRING_LITERAL
from .r_operators import (R_LOGICAL_FUNCTIONS, R_OPERATORS, holds_text, logical,
                          to_python, to_r)
from .r_vectors import R_VECTOR_FUNCTIONS

__all__ = ["COMPARE_NAME", "R_CONSTANTS", "R_FUNCTIONS", "python_names", "r_function_names",
           "r_names"]

#: the name formula terms' comparisons are evaluated under (see :func:`compare`)
COMPARE_NAME = "_r_compare"

#: R's dotted function names and the Python names they are evaluated under
_DOTTED = {"as.factor": "as_factor", "as.ordered": "as_ordered", "as.numeric": "as_numeric",
           "as.double": "as_double", "as.integer": "as_integer",
           "as.character": "as_character", "as.logical": "as_logical", "is.na": "is_na",
           "is.finite": "is_finite", "is.infinite": "is_infinite", "as.Date": "as_Date",
           "is.element": "is_element"}
#: R's dotted argument names (``cut(x, 3, include.lowest = TRUE)``) and their Python names
_DOTTED_ARGUMENTS = {"include.lowest": "include_lowest", "dig.lab": "dig_lab", "na.rm": "na_rm",
                     "lex.order": "lex_order", "ignore.case": "ignore_case",
                     "length.out": "length_out", "rightmost.closed": "rightmost_closed",
                     "all.inside": "all_inside", "left.open": "left_open",
                     "from": "from_", "tryFormats": "try_formats"}
_TO_PYTHON = re.compile(r"(?<![\w.`])(" + "|".join(re.escape(k) for k in _DOTTED) + r")(?=\s*\()")
_TO_R = re.compile(r"(?<![\w.`])(" + "|".join(_DOTTED.values()) + r")(?=\s*\()")
_FROM_PYTHON = {v: k for k, v in _DOTTED.items()}
_ARGUMENT_TO_PYTHON = re.compile(r"(?<![\w.`])(" + "|".join(map(re.escape, _DOTTED_ARGUMENTS))
                                 + r")(?=\s*=(?!=))")
_ARGUMENT_TO_R = re.compile(r"(?<![\w.`])(" + "|".join(_DOTTED_ARGUMENTS.values())
                            + r")(?=\s*=(?!=))")
_ARGUMENT_FROM_PYTHON = {v: k for k, v in _DOTTED_ARGUMENTS.items()}
_SINGLE_QUOTED = re.compile(r"'([^'\"\\]*)'")
#: a string literal or backticked name (kept as they are) or a number in a term's label
_NUMBER_LITERAL = re.compile(rf"(?P<string>{STRING_LITERAL}|`[^`]*`)"
                             r"|(?<![\w.])(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                             r"(?![\w.])")
_NAMED_ARGUMENT = re.compile(r"\s*(?<![=<>!])=(?!=)\s*")


def python_names(formula: str) -> str:
    """``formula`` with R's dotted function and argument names (``as.factor(``,
    ``include.lowest =``) made Python names, R's operators (``&``, ``%in%``) Python's."""
    formula = to_python(_TO_PYTHON.sub(lambda m: _DOTTED[m.group(1)], formula))
    return _ARGUMENT_TO_PYTHON.sub(lambda m: _DOTTED_ARGUMENTS[m.group(1)], formula)


def r_names(label: str) -> str:
    """A term label as R deparses it: R's dotted function names (``as.factor(rad)``),
    R's operators (``a & b``, ``x %in% y``), numbers as R writes them (``2``, not
    ``2.0``), strings in double quotes, spaces around ``=`` of named arguments."""
    label = to_r(_TO_R.sub(lambda m: _FROM_PYTHON[m.group(1)], label))
    label = _ARGUMENT_TO_R.sub(lambda m: _ARGUMENT_FROM_PYTHON[m.group(1)], label)
    label = _NUMBER_LITERAL.sub(lambda m: m.group("string") or r_number(float(m.group("number"))),
                                label)
    label = _SINGLE_QUOTED.sub(lambda m: f'"{m.group(1)}"', label)
    return _NAMED_ARGUMENT.sub(" = ", label)


#: |x| * 10**digits below which :func:`r_round` is R's ``round`` (checked against R
#: 4.2.2 on 132,000 values, digits -2 to 7); above it the digits rounded lie beyond the
#: 15th significant one, and pygbm returns x, as R does for most such values
_R_ROUND_EXACT_BELOW = 8e14


def as_numeric(x):
    """R's ``as.numeric(x)``: a factor's level codes 1, 2, ...; strings that are not
    numbers become missing (R's "NAs introduced by coercion"); dates and times are
    seconds since 1970-01-01 UTC (R's POSIXct), durations seconds, R's Dates
    (``as.Date``; a column of ``datetime.date``, what ``Series.dt.date`` gives, and
    pyarrow's dates) days."""
    if is_date(x):
        return date_days(x)
    x = series(x)
    if x.dtype.type is datetime.date or (
            x.dtype == object and pd.api.types.infer_dtype(x, skipna=True) == "date"):
        return date_days(as_date(x))    # pyarrow's dates, datetime.date objects: R's Dates
    if isinstance(x.dtype, pd.CategoricalDtype):
        codes = x.cat.codes.to_numpy().astype(float) + 1.0
        return pd.Series(np.where(codes > 0, codes, np.nan), index=x.index)
    if pd.api.types.is_bool_dtype(x.dtype):
        return x.astype(float)
    # dates: seconds since 1970 (R's POSIXct), durations: seconds; pd.to_numeric gave the
    # count of the dtype's unit (ns, us or s), so a fit on datetime64[us] read newdata's
    # datetime64[ns] 1000 times too late
    if pd.api.types.is_datetime64_any_dtype(x.dtype):
        epoch = pd.Timestamp(0, tz="UTC") if x.dt.tz is not None else pd.Timestamp(0)
        return (x - epoch) / pd.Timedelta(1, "s")
    if x.dtype.kind == "m":         # NumPy's and pyarrow's durations (not timedelta64)
        return (x / pd.Timedelta(1, "s")).astype(float)
    return pd.to_numeric(x, errors="coerce").astype(float)


def as_integer(x):
    """R's ``as.integer(x)``: :func:`as_numeric` truncated towards zero."""
    return np.trunc(as_numeric(x))


def r_trunc(x):
    """R's ``trunc(x)``: towards zero (missing stays missing)."""
    return np.trunc(np.asarray(x, dtype=float))


def as_character(x):
    """R's ``as.character(x)``: strings (a predictor of strings is a factor in gbm)."""
    x = series(x)
    return pd.Series([np.nan if t is None else t for t in r_labels(x.astype(object))],
                     index=x.index, dtype=object)


def is_na(x):
    """R's ``is.na(x)``: TRUE where ``x`` is missing."""
    return series(x).isna()


def _numbers_or_none(x: pd.Series) -> np.ndarray | None:
    return x.to_numpy(dtype=float, na_value=np.nan) \
        if pd.api.types.is_numeric_dtype(x.dtype) and not pd.api.types.is_bool_dtype(x.dtype) \
        else None


def is_finite(x):
    """R's ``is.finite(x)``: TRUE where a number is neither missing nor infinite;
    FALSE for text and factors (R's answer for them)."""
    x = series(x)
    numbers = _numbers_or_none(x)
    return pd.Series(np.isfinite(numbers) if numbers is not None
                     else pd.api.types.is_bool_dtype(x.dtype) & x.notna().to_numpy(),
                     index=x.index)


def is_infinite(x):
    """R's ``is.infinite(x)``: TRUE where a number is Inf or -Inf."""
    x = series(x)
    numbers = _numbers_or_none(x)
    return pd.Series(np.isinf(numbers) if numbers is not None else np.zeros(len(x), bool),
                     index=x.index)


#: the text R's ``as.logical`` reads as TRUE and as FALSE (any other text is NA)
_TRUE_TEXT = frozenset({"TRUE", "true", "True", "T"})
_FALSE_TEXT = frozenset({"FALSE", "false", "False", "F"})


def as_logical(x):
    """R's ``as.logical(x)``: numbers TRUE unless 0; text (a factor: its labels)
    TRUE for "TRUE", "true", "True", "T", FALSE for their FALSE, missing otherwise;
    missing stays missing."""
    x = series(x)
    if not holds_text(x.dtype):
        values, index = logical(x, "as.logical")
        return pd.Series(values, index=index)
    text = r_labels(x.astype(object))
    return pd.Series(pd.array([True if t in _TRUE_TEXT else False if t in _FALSE_TEXT
                               else pd.NA for t in text], dtype="boolean"), index=x.index)


def pmin(*args, na_rm=False):
    """R's ``pmin(a, b, ..., na.rm = FALSE)``: the elementwise minimum (missing where
    any is; with ``na.rm``, where all are)."""
    reduce = np.fmin.reduce if na_rm else np.minimum.reduce
    return reduce(np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args)))


def pmax(*args, na_rm=False):
    """R's ``pmax(a, b, ..., na.rm = FALSE)``: the elementwise maximum (missing where
    any is; with ``na.rm``, where all are)."""
    reduce = np.fmax.reduce if na_rm else np.maximum.reduce
    return reduce(np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args)))


def _whole_digits(digits) -> int:
    """A number of digits as R's round and signif take it: the nearest whole
    number, halves up (``2.5`` is 3, ``-1.5`` is -1; Python's int() truncated)."""
    return int(np.floor(float(digits) + 0.5))


def r_round(x, digits=0):
    """R's ``round(x, digits)``: to whole numbers, halves to even (IEC 60559); to other
    digits, as R 4 rounds: of the two candidates with ``digits`` decimals around x, the
    nearer to x as a double, the even one when both are as near (``round(0.15, 1)`` is
    0.1, ``round(0.65, 1)`` is 0.7, where scaling by 10 first gives 0.2 and 0.6)."""
    x, digits = np.asarray(x, dtype=float), _whole_digits(digits)
    if digits == 0:
        return np.round(x)
    scale = 10.0 ** digits
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = x * scale
        below, above = np.floor(scaled) / scale, np.ceil(scaled) / scale
        even = np.where(np.floor(scaled) % 2 == 0, below, above)
        nearer = np.where(x - below < above - x, below,
                          np.where(above - x < x - below, above, even))
        return np.where(np.abs(scaled) < _R_ROUND_EXACT_BELOW, nearer, x)


#: R's ``signif`` rounds to at most this many significant digits (more: x as it is)
_SIGNIF_MAX_DIGITS = 22
#: the largest power of ten :func:`signif` scales by: beyond it (values below about
#: 1e-293, subnormals) x is left as it is, where R splits the scale in two
_MAX_TEN_POWER = 330


def _integer_power(base: float, n: int) -> float:
    """``base ** n`` for a whole ``n >= 0`` as R's integer powers are formed, by
    repeated squaring in doubles: ``10 ** 23`` is then 1e23 (the nearer double),
    where the C library's ``pow`` gives the one above."""
    result = 1.0
    while n:
        if n & 1:
            result *= base
        n >>= 1
        if n:
            base *= base
    return result


#: ten to the powers 0 .. _MAX_TEN_POWER as R's signif scales by them
_TEN_POWERS = np.array([_integer_power(10.0, k) for k in range(_MAX_TEN_POWER + 1)])


def signif(x, digits=6):
    """R's ``signif(x, digits)``: ``x`` to ``digits`` significant digits (at least 1),
    by scaling with a power of ten and rounding halves to even, as R does (it differs
    from ``round``'s rule: ``signif(0.65, 1)`` is 0.6, ``round(0.65, 1)`` 0.7; checked
    against R 4.2.2 on 40,000 values, digits 0 to 30)."""
    x, digits = np.asarray(x, dtype=float), max(_whole_digits(digits), 1)
    if digits > _SIGNIF_MAX_DIGITS:
        return x
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rounded_here = np.isfinite(x) & (x != 0)
        shift = digits - 1 - np.floor(np.log10(np.abs(np.where(rounded_here, x, 1.0))))
        scale = _TEN_POWERS[np.minimum(np.abs(shift), _MAX_TEN_POWER).astype(np.intp)]
        rounded = np.where(shift >= 0, np.round(x * scale) / scale, np.round(x / scale) * scale)
    return np.where(rounded_here & np.isfinite(rounded), rounded, x)


def _ifelse_values(v, n: int):
    """One side of :func:`ifelse` as R's ifelse assigns it: a factor's level codes (R's
    gotcha: ``ifelse(test, f, "none")`` holds 1, 2, ... as text), recycled to ``n``."""
    if is_factor(v):
        v = as_numeric(v)
    values = np.asarray(v, dtype=object).ravel()
    if values.size == 0 or n % values.size:
        raise ValueError(f"ifelse(): yes and no must have one value or one per row, got "
                         f"{values.size} for {n} rows")
    return np.resize(values, n)


def ifelse(test, yes, no):
    """R's ``ifelse(test, yes, no)``: ``yes`` where ``test`` is TRUE, ``no`` where it
    is FALSE, missing where it is missing. As in R, the result is text when a side that
    is used holds text (numbers then written as R writes them, ``4`` not ``4.0``), and
    a factor side gives its level codes."""
    test = series(test)
    missing = test.isna().to_numpy()
    chosen_yes = test.fillna(False).to_numpy(dtype=bool)
    chosen_no = ~chosen_yes & ~missing
    n = test.shape[0]
    yes_values, no_values = _ifelse_values(yes, n), _ifelse_values(no, n)
    out = np.full(n, None, dtype=object)
    out[chosen_yes], out[chosen_no] = yes_values[chosen_yes], no_values[chosen_no]
    if _holds_text(out[chosen_yes | chosen_no]):   # R: a side of text makes the result text
        return as_character(pd.Series(out, index=test.index))
    return pd.Series(out, index=test.index).infer_objects()


_COMPARISONS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                "==": np.equal, "!=": np.not_equal}


#: the comparisons that order their sides
_ORDERING = frozenset({"<", "<=", ">", ">="})


def _level_positions(left, right, op: str):
    """The sides of an ordering comparison with an ordered factor as positions among
    its levels, as R compares them (a value that is not a level: missing). R's
    unordered factors have no order (R: NA for every row, with a warning): refused."""
    factor = left if is_factor(left) else right
    if not factor.cat.ordered:
        raise TypeError(f"'{op}' is not meaningful for an unordered factor (R: NA for every "
                        "row, with a warning); compare its text, as.character(x), or make "
                        "it ordered(x, levels = c(...))")
    labels = [r_label(v) for v in factor.cat.categories]

    def positions(v):
        if is_factor(v):
            if [r_label(c) for c in v.cat.categories] != labels:
                raise TypeError(f"'{op}' compares two ordered factors with other levels")
            return pd.Series(np.where(v.cat.codes >= 0, v.cat.codes, np.nan), index=v.index)
        found = [labels.index(t) if t in labels else np.nan for t in r_labels(np.atleast_1d(
            np.asarray(v, dtype=object)))]
        return np.asarray(found, dtype=float) if np.ndim(v) else float(found[0])
    return positions(left), positions(right)


def _holds_text(values: np.ndarray) -> bool:
    return values.dtype.kind in "US" or (
        values.dtype.kind == "O" and any(isinstance(v, str) for v in values.ravel()))


def _as_text(values: np.ndarray) -> np.ndarray:
    """Values as R's ``as.character()`` writes them (missing ones as "", which the
    comparison's missing mask covers)."""
    text = as_character(np.ravel(values)).fillna("")
    return text.to_numpy(dtype=object).reshape(np.shape(values))


def _date_operand(v):
    """One side of a comparison with a Date, as days: a Date's, text's as a Date's."""
    if is_date(v) or isinstance(v, str) or (isinstance(v, pd.Series) and holds_text(v.dtype)):
        return date_days(as_date(v))
    return v


def compare(left, op: str, right):
    """A comparison as R makes it: missing where either side is missing (Python's
    ``NaN > 10`` is False, R's ``NA > 10`` is NA). Formula terms' comparisons are
    rewritten to call this (:class:`~.formula_parse.Evaluator`)."""
    index = next((v.index for v in (left, right) if isinstance(v, pd.Series)), None)
    if is_date(left) or is_date(right):        # R: text compared with a Date is a date
        left, right = (_date_operand(v) for v in (left, right))
    if op in _ORDERING and any(is_factor(v) for v in (left, right)):
        left, right = _level_positions(left, right, op)
    lhs, rhs = (v.astype(object).to_numpy() if is_factor(v) else np.asarray(v)
                for v in (left, right))
    missing = np.asarray(pd.isna(lhs)) | np.asarray(pd.isna(rhs))
    if _holds_text(lhs) or _holds_text(rhs):    # R compares as text: rad == "24"
        lhs, rhs = _as_text(lhs), _as_text(rhs)
    with np.errstate(invalid="ignore"):
        values = np.asarray(_COMPARISONS[op](lhs, rhs), dtype=bool)
    result = pd.array(values, dtype="boolean")      # values and missing: one shape
    result[missing] = pd.NA
    return pd.Series(result, index=index)


#: R's constants, for arguments such as ``cut(x, c(0, 10, Inf))`` or ``labels = FALSE``
#: (a data column of the same name comes first, as in R's model frame)
R_CONSTANTS = {"TRUE": True, "FALSE": False, "T": True, "F": False, "NULL": None,
               "NA": np.nan, "NaN": np.nan, "Inf": np.inf, "pi": np.pi}

#: R's functions available in formula terms, by their Python name
R_FUNCTIONS = {
    COMPARE_NAME: compare,
    **R_FACTOR_FUNCTIONS,
    "as_numeric": as_numeric, "as_double": as_numeric, "as_integer": as_integer,
    "as_character": as_character, "is_na": is_na, "pmin": pmin, "pmax": pmax,
    "round": r_round, "signif": signif, "trunc": r_trunc, "ifelse": ifelse,
    "as_logical": as_logical, **R_VECTOR_FUNCTIONS,
    "is_finite": is_finite, "is_infinite": is_infinite, **R_LOGICAL_FUNCTIONS, **R_OPERATORS,
}
def r_function_names(functions) -> tuple:
    """The R names of formula functions given by their Python names (``as_Date`` is
    ``as.Date``)."""
    return tuple(_FROM_PYTHON.get(name, name) for name in functions)


#: the R functions formulas take, by their R names (what an error lists as available)
R_FUNCTION_NAMES = r_function_names(name for name in R_FUNCTIONS
                                    if name != COMPARE_NAME and name not in R_OPERATORS)
