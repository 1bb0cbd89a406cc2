"""Formulas of bare column names, parsed without formulaic.

Most gbm formulas are ``y ~ .``, ``y ~ a + b``, ``y ~ . - c`` or
``Surv(time, status) ~ .``, and count models add an exposure,
``+ offset(log(t))``. For them the model frame needs no expression evaluation
beyond that logarithm, so this parser reads them directly and a first fit does
not pay for loading formulaic (about 0.4 s, more than R spends on a small fit).
It gives the terms formulaic's parser gives (tests compare the two on many
formulas); anything else (other calls, interactions, backticks, a ``-`` before a
``+``) is left to :mod:`.formula_parse`.

Grammar: ``response ~ item (+ item)* (- item)*``; the response is a name or
``Surv(name, name)``; an item is a name, ``.``, ``0``, ``1``, ``offset(name)`` or
``offset(log(name))`` (``.`` only after ``+``; an offset added anywhere, once); a
name is R's syntactic name, not a Python keyword.
"""

from __future__ import annotations

import keyword
import re

import numpy as np

from .encode import holds_numbers
from .surv import Surv
from .terms import FormulaTerms, TermSpec, missing_column_error

__all__ = ["ColumnEvaluator", "is_plain_term", "plain_terms"]

_NAME = r"(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*"
_NAME_RE = re.compile(_NAME)
_SURV_RE = re.compile(rf"Surv\(\s*({_NAME})\s*,\s*({_NAME})\s*\)")
_SIGN_RE = re.compile(r"([+-])")
#: ``offset(name)`` or ``offset(log(name))``, spaced as the formula likes
_OFFSET_RE = re.compile(rf"offset\(\s*(?:(log)\(\s*({_NAME})\s*\)|({_NAME}))\s*\)")
_DOT = "."
_INTERCEPT_ITEMS = ("0", "1")
#: names formulaic reads as Python values rather than columns
_PYTHON_WORDS = frozenset(keyword.kwlist) | {"True", "False", "None"}


def _is_name(text: str) -> bool:
    return bool(_NAME_RE.fullmatch(text)) and text != _DOT and text not in _PYTHON_WORDS


def _surv_label(time: str, status: str) -> str:
    return f"Surv({time}, {status})"


def _response(lhs: str) -> tuple[TermSpec, tuple[str, ...]] | None:
    """The response term and the columns it reads, or None when not plain."""
    if _is_name(lhs):
        return TermSpec(label=lhs, expr=lhs, lookup=True), (lhs,)
    match = _SURV_RE.fullmatch(lhs)
    if match is None or not all(_is_name(name) for name in match.groups()):
        return None
    label = _surv_label(*match.groups())
    return TermSpec(label=label, expr=label, lookup=False), match.groups()


def _offset_term(item: str) -> tuple[TermSpec, str] | None:
    """The term of an ``offset(name)`` or ``offset(log(name))`` item (its label
    and expression written as formulaic writes them) and the column it reads;
    None for any other item."""
    match = _OFFSET_RE.fullmatch(item)
    if match is None:
        return None
    log, logged, bare = match.groups()
    name = logged if log else bare
    if not _is_name(name):
        return None
    expr = f"offset(log({name}))" if log else f"offset({name})"
    return TermSpec(label=expr, expr=expr, lookup=False), name


def _items(rhs: str) -> list[tuple[str, str]] | None:
    """(sign, item) pairs of the right-hand side, or None when not plain."""
    pieces = _SIGN_RE.split(rhs)
    items = [("+", pieces[0].strip())]
    items += [(pieces[i], pieces[i + 1].strip()) for i in range(1, len(pieces), 2)]
    removing = False
    offsets = [item for _, item in items if _offset_term(item) is not None]
    if len({_offset_term(item)[0] for item in offsets}) < len(offsets):
        return None                 # an offset twice: formulaic's to judge
    for sign, item in items:
        if item in offsets:         # added anywhere (they choose no predictor)
            if sign == "-":
                return None
            continue
        removing = removing or sign == "-"
        if (removing and sign == "+") or (sign == "-" and item == _DOT):
            return None
        if not (item in (_DOT, *_INTERCEPT_ITEMS) or _is_name(item)):
            return None
    return items


def plain_terms(formula: str, columns: list[str], where: str = "data") -> FormulaTerms | None:
    """The terms of a formula of bare names on ``columns``; None for other formulas.

    Raises the model frame's error when the formula names columns that are missing
    (calling the table ``where``, the caller's argument).
    """
    lhs, _, rhs = formula.partition("~")
    response = _response(lhs.strip())
    items = _items(rhs) if response is not None and "~" not in rhs else None
    if items is None:
        return None
    response_term, response_columns = response
    offsets = [term for _, item in items if (term := _offset_term(item)) is not None]
    named = [*response_columns, *(item for _, item in items if _is_name(item)),
             *(name for _, name in offsets)]
    if unknown := [name for name in named if name not in columns]:
        raise missing_column_error(unknown, columns, where)
    chosen: list[str] = []
    for sign, item in items:
        if item in _INTERCEPT_ITEMS or _offset_term(item) is not None:
            continue
        if sign == "-":
            chosen = [name for name in chosen if name != item]
        elif item == _DOT:    # all columns not on the left, in the data's order
            chosen += [c for c in columns if c not in response_columns and c not in chosen]
        elif item not in chosen:
            chosen.append(item)
    return FormulaTerms(response=response_term,
                        predictors=tuple(TermSpec(label=c, expr=c, lookup=True)
                                         for c in chosen),
                        offsets=tuple(term for term, _ in offsets),
                        offset_columns=frozenset(name for _, name in offsets))


def is_plain_term(term: TermSpec) -> bool:
    """Whether :class:`ColumnEvaluator` evaluates ``term`` (a column, ``Surv`` or
    an offset)."""
    return (term.lookup or _SURV_RE.fullmatch(term.expr) is not None
            or _offset_term(term.expr) is not None)


class ColumnEvaluator:
    """Evaluates plain terms on one data frame: a column, ``Surv`` of two, or
    an offset (a column as float, or its natural logarithm)."""

    def __init__(self, data, where: str):
        self.data = data
        self.where = where
        self.columns = [str(c) for c in data.columns]

    def _column(self, name: str):
        if name not in self.columns:
            raise missing_column_error([name], self.columns, self.where)
        return self.data[name]

    def evaluate(self, term: TermSpec):
        """The value of a plain term on the data (a Series, SurvData or, for an
        offset, a float array)."""
        if term.lookup:
            return self._column(term.expr)
        offset = _offset_term(term.expr)
        if offset is not None:
            return self._offset(term.label, offset[1], log=term.expr.startswith("offset(log("))
        time, status = _SURV_RE.fullmatch(term.expr).groups()
        return Surv(self._column(time), self._column(status))

    def _offset(self, label: str, name: str, log: bool) -> np.ndarray:
        """An offset's values as formulaic's evaluation gives them (the log of a
        zero is -inf, of a negative number NaN, without a warning)."""
        column = self._column(name)
        if not holds_numbers(column):   # dates, durations, a Categorical, text "1"
            raise TypeError(f"formula term {label!r}: column {name!r} must be numeric, "
                            f"got dtype {column.dtype}")
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.asarray(np.log(column) if log else column, dtype=float)
        except (ValueError, TypeError):
            raise TypeError(f"formula term {label!r}: column {name!r} must be numeric, "
                            f"got dtype {column.dtype}") from None
