"""R's logical and special operators in formula terms: ``factor(age > 50 & sex == "m")``,
``!is.na(x)``, ``x %in% c(1, 2)``, ``x %% 2``, ``x %/% 2``.

Python spells them otherwise and ranks them otherwise: read as Python, ``age > 50 &
sex == "m"`` is ``age > (50 & sex) == "m"`` and ``x^2 + 1`` is ``x^(2 + 1)``. Inside a
term's parentheses, :func:`to_python` writes the expression as Python code with R's
precedence made explicit (:mod:`.r_grammar`): ``&``, ``|``, ``!`` as ``and``, ``or``,
``not``, ``%in%`` as ``@``, ``%%`` as ``%``, ``%/%`` as ``//``, ``^`` and ``a:b`` as
calls of :func:`pygbm._rmath.pow_r` and :func:`r_sequence`, the operands of arithmetic
through :func:`r_numeric` (TRUE/FALSE as 1/0); the evaluator calls :func:`r_and`, :func:`r_or`, :func:`r_not` and :func:`r_in` for the
first four, with R's missing values (``NA & FALSE`` is FALSE, ``NA | TRUE`` is TRUE,
otherwise NA). :func:`to_r` writes the operators of Python's text back as R's (term
labels come from the typed text: :mod:`.r_deparse`). Outside parentheses ``|`` and
``%in%`` are formula operators, which gbm formulas do not use; they are left as they
are; other ``%op%`` operators are refused.
"""

from __future__ import annotations

import ast
import re

import numpy as np
import pandas as pd

from .encode import r_labels
from .r_dates import date_days, is_date
from .._rmath import pow_r
from .r_grammar import (NUMERIC_NAME, POWER_NAME, SEQUENCE_NAME, STRING_LITERAL,
                        RSyntaxError, nesting, python_code, token_matches)

__all__ = ["AND_NAME", "IN_NAME", "NOT_NAME", "OR_NAME", "R_LOGICAL_FUNCTIONS", "R_OPERATORS",
           "holds_text", "logical", "to_python", "to_r"]

#: the names R's operators are evaluated under
AND_NAME, OR_NAME, NOT_NAME, IN_NAME = "_r_and", "_r_or", "_r_not", "_r_in"
#: Python's spelling of one of R's operators (a string literal kept as it is)
_PYTHON_OPERATOR = re.compile(rf"(?P<string>{STRING_LITERAL})"
                              r"|\s+(?P<spaced>and|or|@)\s+|\s*(?P<tight>//|%)\s*"
                              r"|\s*(?P<power>\*\*)\s*|\b(?P<word>not)\s+")
_TO_R = {"and": " & ", "or": " | ", "@": " %in% ", "not": "!", "//": "%/%", "%": "%%",
         "**": "^"}


#: the tokens a call's opening parenthesis follows (a function's name)
_CALLABLE = frozenset({"name", "backticked"})


def to_python(formula: str) -> str:
    """``formula`` with the expressions inside its calls' parentheses written as
    Python code with R's precedence and Python's operators
    (:func:`~.r_grammar.python_code`); text outside them (the formula's own ``+``,
    ``-``, ``~``, and its groups: ``(a + b) - b`` is ``a``, as in R) is kept. A region
    R's grammar does not read (Python's ``a if c else b``, slices) is refused, naming
    it."""
    matches = token_matches(formula)
    if matches is None:
        return formula
    out, kept, i = [], 0, 0
    while i < len(matches):
        m = matches[i]
        called = i > 0 and matches[i - 1].lastgroup in _CALLABLE
        if nesting(m.lastgroup, m.group()) <= 0 or not called:
            i += 1          # a formula's group: its calls are regions of their own
            continue
        depth, j = 0, i
        while j < len(matches):
            depth += nesting(matches[j].lastgroup, matches[j].group())
            if depth == 0:
                break
            j += 1
        if j == len(matches):                          # unbalanced: the parser says so
            return formula
        tokens = [(t.lastgroup, t.group()) for t in matches[i + 1:j + 1]]
        try:
            code = python_code(tokens, matches[j].group(), formula)
        except RSyntaxError as exc:
            raise ValueError(f"formula {formula!r}: {formula[m.start():matches[j].end()]!r} "
                             f"is not an R expression ({exc})") from None
        out.append(formula[kept:m.end()] + code + matches[j].group())
        kept, i = matches[j].end(), j + 1
    return "".join(out) + formula[kept:]


#: the calls :func:`to_python` writes for R's operators, found in code read back
_WRITTEN_CALLS = re.compile(rf"\b(?:{NUMERIC_NAME}|{POWER_NAME}|{SEQUENCE_NAME})\(")


class _OperatorsBack(ast.NodeTransformer):
    """The calls :func:`to_python` writes, as the operators they stand for:
    ``_r_numeric(x)`` as ``x``, ``_r_power(a, b)`` as ``a ** b`` (R's ``^``),
    ``_r_sequence(a, b)`` as ``a:b``."""

    def visit_Call(self, node):  # noqa: N802 (ast API)
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == NUMERIC_NAME and len(node.args) == 1:
            return node.args[0]
        if name == POWER_NAME and len(node.args) == 2:
            return ast.BinOp(node.args[0], ast.Pow(), node.args[1])
        if name == SEQUENCE_NAME and len(node.args) == 2:     # no Python operator: as text
            return ast.Name(f"{ast.unparse(node.args[0])}:{ast.unparse(node.args[1])}")
        return node


def to_r(label: str) -> str:
    """Python's code with R's operators as R writes them: ``a > 1 & b``, ``!x``,
    ``x %in% c(1, 2)``, ``x%%2``, ``x%/%2``, ``x^2``, ``1:3`` (the calls
    :func:`to_python` writes for some of them included)."""
    if _WRITTEN_CALLS.search(label):
        try:
            label = ast.unparse(_OperatorsBack().visit(ast.parse(label, mode="eval")))
        except SyntaxError:                       # backticked names: left as they are
            pass

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


def holds_text(dtype) -> bool:
    """Whether values of ``dtype`` are text or levels to R, not TRUE/FALSE or numbers."""
    return isinstance(dtype, pd.CategoricalDtype) or not (
        pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))


def logical(x, op: str):
    """``x`` as R's logical vector: pandas' nullable booleans, numbers TRUE unless 0,
    missing values missing; and the index of a Series ``x``. Text is refused, naming
    R's ``op``."""
    values, index = _values(x)
    if isinstance(values.dtype, pd.BooleanDtype):
        return values, index
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.astype("boolean"), index
    if holds_text(values.dtype):
        raise TypeError(f"R's {op} takes TRUE/FALSE values or numbers, got dtype "
                        f"{values.dtype} (R: operations are possible only for numeric, "
                        "logical or complex types)")
    numbers = values.to_numpy(dtype=float, na_value=np.nan)
    out = pd.array(numbers != 0, dtype="boolean")
    out[np.isnan(numbers)] = pd.NA
    return out, index


def _combined(left, right, op: str, how) -> pd.Series:
    (a, index_a), (b, index_b) = logical(left, op), logical(right, op)
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


def r_xor(left, right) -> pd.Series:
    """R's ``xor(left, right)``, row by row: TRUE where exactly one is TRUE, missing
    where either is missing."""
    return _combined(left, right, "xor", lambda a, b: (a | b) & ~(a & b))


def r_not(x) -> pd.Series:
    """R's ``!x``: missing stays missing."""
    values, index = logical(x, "!")
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
        keys = set(r_labels(table))
        found = np.array([t in keys for t in r_labels(np.asarray(values, dtype=object))],
                         dtype=bool)
    return pd.Series(pd.array(found, dtype="boolean"), index=index)


#: how far short of a whole step R's ``:`` still counts one (``1:(3 - 1e-8)`` is 1 2 3,
#: ``1:(3 - 1e-6)`` is 1 2): single precision's epsilon
_SEQUENCE_TOLERANCE = float(np.finfo(np.float32).eps)


def r_sequence(start, end) -> np.ndarray:
    """R's ``start:end`` of two numbers: from ``start`` in steps of 1 towards ``end``
    (``1:3``, ``3:1``, ``1.5:3`` is 1.5 2.5)."""
    a, b = (np.asarray(v) for v in (start, end))
    if a.size != 1 or b.size != 1 or not all(np.issubdtype(v.dtype, np.number)
                                             for v in (a, b)):
        raise ValueError(f"R's ':' makes a sequence of two numbers here, got {start!r} "
                         f"and {end!r}")
    a, b = float(a.reshape(())), float(b.reshape(()))
    if not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"R's ':' needs finite numbers, got {a} and {b}")
    step = 1.0 if b >= a else -1.0
    return a + step * np.arange(int(np.floor(abs(b - a) + _SEQUENCE_TOLERANCE)) + 1)


def r_numeric(x):
    """An operand of R's arithmetic: TRUE/FALSE as 1/0 and a missing one as NaN
    (pandas' ``+`` of booleans is ``or``, its ``-`` is ``not``); a Date as its days
    (``d - as.Date("2020-01-01")`` is days, R's difftime); anything else as it is."""
    if isinstance(x, pd.Series) and pd.api.types.is_bool_dtype(x.dtype):
        return pd.Series(x.to_numpy(dtype=float, na_value=np.nan), index=x.index)
    if is_date(x):                              # R's Date: days since 1970-01-01
        return date_days(x)
    if isinstance(x, (bool, np.bool_)) or isinstance(x, np.ndarray) and x.dtype == bool:
        return np.asarray(x, dtype=float)
    return x


#: the functions R's operators are evaluated under, by their names
R_OPERATORS = {AND_NAME: r_and, OR_NAME: r_or, NOT_NAME: r_not, IN_NAME: r_in,
               SEQUENCE_NAME: r_sequence, POWER_NAME: pow_r, NUMERIC_NAME: r_numeric}
#: R's logical functions, by their names (``is.element(x, y)`` is R's ``x %in% y``)
R_LOGICAL_FUNCTIONS = {"xor": r_xor, "is_element": r_in}
