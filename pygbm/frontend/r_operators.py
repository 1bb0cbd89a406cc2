"""R's logical and special operators in formula terms: ``factor(age > 50 & sex == "m")``,
``!is.na(x)``, ``x %in% c(1, 2)``, ``x %% 2``, ``x %/% 2``.

Python spells them otherwise, and ranks ``&`` and ``|`` above comparisons: read as
Python, ``age > 50 & sex == "m"`` is ``age > (50 & sex) == "m"``. Inside a term's
parentheses, :func:`to_python` writes R's ``&``, ``|`` and ``!`` as Python's ``and``,
``or`` and ``not`` (which rank as R's do, below comparisons), ``%in%`` as ``@``, ``%%``
as ``%`` and ``%/%`` as ``//``; the evaluator calls :func:`r_and`, :func:`r_or`,
:func:`r_not` and :func:`r_in` for the first four, with R's missing values (``NA &
FALSE`` is FALSE, ``NA | TRUE`` is TRUE, otherwise NA). :func:`to_r` writes the
operators of Python's text back as R's (term labels come from the typed text:
:mod:`.r_deparse`). Outside parentheses ``|`` and ``%in%`` are formula operators, which
gbm formulas do not use; they are left as they are; other ``%op%`` operators are refused.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .encode import r_label

__all__ = ["AND_NAME", "IN_NAME", "NOT_NAME", "OR_NAME", "R_OPERATORS", "STRING_LITERAL",
           "to_python", "to_r"]

#: the names R's operators are evaluated under
AND_NAME, OR_NAME, NOT_NAME, IN_NAME = "_r_and", "_r_or", "_r_not", "_r_in"
#: R's operators and how Python writes them, longest first
_TO_PYTHON = (("%in%", " @ "), ("%/%", " // "), ("%%", " % "), ("&", " and "),
              ("|", " or "))
#: an R operator of the form %...% (%o%, %*%, a user's own)
_SPECIAL = re.compile(r"%[^%\s]+%")
#: R's operators on one value only (R >= 4.3 refuses them on a column; 4.2 warns and
#: takes its first value)
_SCALAR = ("&&", "||")
_QUOTES = "'\"`"
_OPENING, _CLOSING = "([", ")]"
#: a string literal in single or double quotes (R's and Python's)
STRING_LITERAL = r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"'
#: R's ``!`` before a parenthesis
_NOT_BRACKETED = re.compile(r"!\s*\(")
#: a string literal (kept) or one of Python's spellings of R's operators
_PYTHON_OPERATOR = re.compile(rf"(?P<string>{STRING_LITERAL})"
                              r"|\s+(?P<spaced>and|or|@)\s+|\s*(?P<tight>//|%)\s*"
                              rf"|\b(?P<word>not)\s+|\b(?P<call>{NOT_NAME})\(")
_TO_R = {"and": " & ", "or": " | ", "@": " %in% ", "not": "!", "//": "%/%", "%": "%%",
         NOT_NAME: "!("}


def to_python(formula: str) -> str:
    """``formula`` with R's operators inside parentheses written as Python's (not
    within quotes or backticks)."""
    out, depth, quote, i = [], 0, None, 0
    while i < len(formula):
        ch = formula[i]
        if quote is not None:
            step = 2 if ch == "\\" else 1
            out.append(formula[i:i + step])
            quote = None if ch == quote else quote
            i += step
            continue
        if ch in _QUOTES:
            quote = ch
        depth += (ch in _OPENING) - (ch in _CLOSING)
        if depth > 0 and formula.startswith(_SCALAR, i):
            raise ValueError(f"formula {formula!r}: {formula[i:i + 2]!r} compares one value "
                             f"only (R 4.2 takes a column's first value, R 4.3 refuses); "
                             f"write {formula[i]!r} for the rows' values")
        written = next(((r, py) for r, py in _TO_PYTHON if formula.startswith(r, i)), None) \
            if depth > 0 else None
        if depth > 0 and written is None and (other := _SPECIAL.match(formula, i)):
            raise ValueError(f"formula {formula!r}: R's operator {other.group()} is not "
                             "available in formulas (R's %in%, %% and %/% are); compute "
                             "the column in the data frame first")
        if written is None and depth > 0 and ch == "!" and not formula.startswith("!=", i):
            # !(...) a call, whose parentheses a label keeps as R's deparse does
            bracketed = _NOT_BRACKETED.match(formula, i)
            written = (bracketed.group(0), f"{NOT_NAME}(") if bracketed else ("!", " not ")
            depth += bool(bracketed)
        out.append(written[1] if written else ch)
        i += len(written[0]) if written else 1
    return "".join(out)


def to_r(label: str) -> str:
    """Python's code with R's operators as R writes them: ``a > 1 & b``, ``!x``,
    ``x %in% c(1, 2)``, ``x%%2``, ``x%/%2``."""
    def written(m):
        if m.group("string"):
            return m.group("string")
        return _TO_R[next(v for k, v in m.groupdict().items() if v and k != "string")]
    return _PYTHON_OPERATOR.sub(written, label)


def _values(x):
    """``x`` as an array of one or more values, and the index of a Series ``x``."""
    if isinstance(x, pd.Series):
        return x.array, x.index
    return pd.array(np.atleast_1d(np.asarray(x))), None


def _logical(x, op: str):
    """``x`` as R's logical vector: pandas' nullable booleans, numbers TRUE unless 0,
    missing values missing."""
    values, index = _values(x)
    if isinstance(values.dtype, pd.BooleanDtype):
        return values, index
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.astype("boolean"), index
    if isinstance(values.dtype, pd.CategoricalDtype) \
            or not pd.api.types.is_numeric_dtype(values.dtype):
        raise TypeError(f"R's {op} takes TRUE/FALSE values or numbers, got dtype "
                        f"{values.dtype} (R: operations are possible only for numeric, "
                        "logical or complex types)")
    numbers = values.to_numpy(dtype=float, na_value=np.nan)
    out = pd.array(numbers != 0, dtype="boolean")
    out[np.isnan(numbers)] = pd.NA
    return out, index


def _combined(left, right, op: str, how) -> pd.Series:
    (a, index_a), (b, index_b) = _logical(left, op), _logical(right, op)
    index = index_a if index_a is not None else index_b
    if len(a) == 1 and len(b) != 1:
        a = a[0]
    elif len(b) == 1 and len(a) != 1:
        b = b[0]
    return pd.Series(how(a, b), index=index)


def r_and(left, right) -> pd.Series:
    """R's ``left & right``, row by row: FALSE where either is FALSE, else NA where
    either is missing."""
    return _combined(left, right, "&", lambda a, b: a & b)


def r_or(left, right) -> pd.Series:
    """R's ``left | right``, row by row: TRUE where either is TRUE, else NA where
    either is missing."""
    return _combined(left, right, "|", lambda a, b: a | b)


def r_not(x) -> pd.Series:
    """R's ``!x``: missing stays missing."""
    values, index = _logical(x, "!")
    return pd.Series(~values, index=index)


def r_in(x, table) -> pd.Series:
    """R's ``x %in% table``: TRUE where a value of ``x`` is in ``table``, never
    missing (a missing value is in a table holding NA). Numbers and text compare as
    R's ``match`` does, by their text (``factor(c("1", "2")) %in% 1``)."""
    values, index = _values(x)
    table = np.atleast_1d(np.asarray(table, dtype=object))
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in table)
    if numeric:
        numbers, table = values.to_numpy(dtype=float, na_value=np.nan), table.astype(float)
        found = np.isin(numbers, table) | (np.isnan(numbers) & np.isnan(table).any())
    else:
        keys = {None if pd.isna(v) else r_label(v) for v in table}
        found = np.array([(None if pd.isna(v) else r_label(v)) in keys
                          for v in np.asarray(values, dtype=object)], dtype=bool)
    return pd.Series(pd.array(found, dtype="boolean"), index=index)


#: the functions R's operators are evaluated under, by their names
R_OPERATORS = {AND_NAME: r_and, OR_NAME: r_or, NOT_NAME: r_not, IN_NAME: r_in}
