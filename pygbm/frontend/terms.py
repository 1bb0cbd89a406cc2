"""What a parsed gbm formula hands to the model frame: its terms, and the error
for a formula naming columns the data lacks.

Both parsers (:mod:`.plain_formula` for formulas of bare column names,
:mod:`.formula_parse` for everything else, through formulaic) return a
:class:`FormulaTerms`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

__all__ = ["FormulaTerms", "MissingColumnError", "TermSpec", "missing_column_error",
           "similar_columns"]

_MAX_LISTED_COLUMNS = 20
#: difflib's similarity at which a column is offered as "did you mean"
_SIMILARITY_CUTOFF = 0.6
_MAX_SUGGESTIONS = 5
#: a name a formula reads as one name (R's syntactic names, and Python's)
_SYNTACTIC_NAME = re.compile(r"[A-Za-z._][A-Za-z0-9._]*")
#: the words of a column name, split at other characters
_NAME_WORDS = re.compile(r"[A-Za-z0-9._]+")


@dataclass(frozen=True)
class TermSpec:
    """One formula term: its label (the predictor name) and how to evaluate it."""

    label: str
    expr: str
    lookup: bool  # a bare column name
    state: dict = field(default_factory=dict, compare=False)  # stateful transforms (scale, ...)


@dataclass(frozen=True)
class FormulaTerms:
    """A formula's terms in R's order: the response, the predictors (the response
    included where the formula names it on the right: the model frame drops it with
    a warning, as R does), the ``offset()`` terms and the columns those read."""

    response: TermSpec
    predictors: tuple[TermSpec, ...]
    offsets: tuple[TermSpec, ...] = ()
    offset_columns: frozenset = frozenset()


def similar_columns(name: str, columns) -> str:
    """The columns a misspelt ``name`` may have meant, or the columns there are."""
    columns = [str(c) for c in columns]
    close = difflib.get_close_matches(name, columns, n=_MAX_SUGGESTIONS,
                                      cutoff=_SIMILARITY_CUTOFF)
    close += [c for c in columns if c.lower() == name.lower() and c not in close]
    if close:
        return f"similar columns: {close}"
    shown = columns[:_MAX_LISTED_COLUMNS]
    more = " ..." if len(columns) > len(shown) else ""
    return f"available columns: {shown}{more}"


class MissingColumnError(ValueError):
    """A formula uses columns that the table does not have."""


def needs_backticks(name: str, columns) -> list[str]:
    """The columns whose names hold characters a formula reads as operators or
    spaces (R's non-syntactic names, such as "x-1" or "blood pressure") and which
    have ``name`` as one of their words: a formula names them in backticks."""
    return [c for c in map(str, columns)
            if not _SYNTACTIC_NAME.fullmatch(c) and name in _NAME_WORDS.findall(c)]


def missing_column_error(names, columns, where: str) -> MissingColumnError:
    """The error for a formula that uses ``names`` which ``where`` does not have:
    for each name the columns it may have meant (misspelt, or a column whose name
    a formula must quote in backticks); the columns there are, once, when none."""
    names = sorted(set(names))
    parts, unhinted = [], 0
    for n in names:
        quoted, similar = needs_backticks(n, columns), similar_columns(n, columns)
        if quoted:
            parts.append(f"{n!r} (a formula names the column {quoted[0]!r} in backticks: "
                         f"`{quoted[0]}`)")
        elif similar.startswith("similar"):
            parts.append(f"{n!r} ({similar})")
        else:
            parts.append(repr(n))
            unhinted += 1
    plural = "s" if len(names) > 1 else ""
    message = f"formula uses column{plural} not in {where}: {'; '.join(parts)}"
    if unhinted:                        # the columns there are, once
        available = similar_columns("", columns)
        message += f" ({available})" if len(names) == 1 else f"; {available}"
    return MissingColumnError(message)
