"""R's text functions in formula terms, with R's meaning: ``paste``, ``paste0``,
``nchar``, ``toupper``, ``tolower``, ``substr``, ``grepl``, ``sub``, ``gsub``,
``startsWith``, ``endsWith``.

A factor is read as its labels and numbers as R writes them (``as.character``); a
missing value stays missing, but for ``paste`` (R writes "NA") and ``grepl`` (FALSE, as
R). The regular expressions are R's, run by Python's ``re`` (:mod:`.r_regex`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .encode import r_labels
from .r_factors import is_factor
from .r_functions import as_character
from .r_regex import compile_pattern, substitute
from .r_vectors import one_number

__all__ = ["R_TEXT_FUNCTIONS"]


def _pasted(v, n: int) -> list:
    """One argument of :func:`paste` as R pastes it: each value's text (a factor's
    labels, numbers as R writes them, NA as "NA"), recycled to ``n``."""
    values = np.atleast_1d(np.asarray(v.astype(object) if is_factor(v) else v, dtype=object))
    if values.size not in (1, n):
        raise ValueError(f"paste(): each argument must have one value or one per row, got "
                         f"{values.size} for {n} rows")
    text = ["NA" if t is None else t for t in r_labels(values)]
    return text * n if len(text) == 1 else text


def paste(*args, sep=" ", collapse=None):
    """R's ``paste(..., sep = " ")``: the arguments' text joined row by row (R writes
    a missing value as "NA"); ``collapse``, which makes one value, is refused."""
    if collapse is not None:
        raise ValueError("paste(collapse = ) makes one value; a term needs one per row")
    if not args:
        raise ValueError("paste() needs at least one argument")
    index = next((a.index for a in args if isinstance(a, pd.Series)), None)
    n = max(np.size(a) for a in args)
    columns = [_pasted(a, n) for a in args]
    return pd.Series([sep.join(row) for row in zip(*columns)], index=index, dtype=object)


def paste0(*args, collapse=None):
    """R's ``paste0(...)``: :func:`paste` with no separator."""
    return paste(*args, sep="", collapse=collapse)


def nchar(x):
    """R's ``nchar(x)``: the number of characters of each value's text (numbers as R
    writes them: ``nchar(1e5)`` is 5); missing where it is missing. A factor is refused,
    as R refuses it ("'nchar()' requires a character vector")."""
    if is_factor(x):
        raise TypeError("'nchar()' requires a character vector (R's error for a factor); "
                        "write nchar(as.character(f))")
    return as_character(x).str.len().astype(float)


def toupper(x):
    """R's ``toupper(x)``: the text in upper case (a factor's labels; missing stays)."""
    return as_character(x).str.upper()


def tolower(x):
    """R's ``tolower(x)``: the text in lower case (a factor's labels; missing stays)."""
    return as_character(x).str.lower()


def substr(x, start, stop):
    """R's ``substr(x, start, stop)``: characters ``start`` to ``stop`` (1-based, both
    included; a start below 1 is 1, a stop before the start gives "")."""
    first, last = (int(one_number(b, "substr", name))
                   for b, name in ((start, "start"), (stop, "stop")))
    return as_character(x).str.slice(max(first, 1) - 1, max(last, 0))


def _texts(x) -> tuple[list, pd.Index | None]:
    """``x``'s values as R's text (None where missing) and its index."""
    text = as_character(x)
    return [None if pd.isna(t) else t for t in text], text.index


def grepl(pattern, x, ignore_case=False, perl=False, fixed=False):
    """R's ``grepl(pattern, x, ignore.case, perl, fixed)``: TRUE where the text
    matches (a missing value: FALSE, as R)."""
    compiled = compile_pattern(pattern, "grepl", ignore_case, perl, fixed)
    texts, index = _texts(x)
    return pd.Series([t is not None and compiled.search(t) is not None for t in texts],
                     index=index)


def sub(pattern, replacement, x, ignore_case=False, perl=False, fixed=False):
    """R's ``sub(pattern, replacement, x, ...)``: the first match replaced (a factor's
    labels: the result is text, as R's)."""
    texts, index = _texts(x)
    return pd.Series(substitute(pattern, replacement, texts, "sub", False, ignore_case,
                                perl, fixed), index=index, dtype=object)


def gsub(pattern, replacement, x, ignore_case=False, perl=False, fixed=False):
    """R's ``gsub(pattern, replacement, x, ...)``: every match replaced."""
    texts, index = _texts(x)
    return pd.Series(substitute(pattern, replacement, texts, "gsub", True, ignore_case,
                                perl, fixed), index=index, dtype=object)


def _affix_test(function: str, x, affix, test):
    if is_factor(x) or not _holds_strings(x):
        raise TypeError(f"{function}(): non-character object(s) (R's error: x must be "
                        f"text, not a factor or numbers); write {function}("
                        "as.character(x), ...)")
    if not isinstance(affix, str):
        raise TypeError(f"{function}(): the {'prefix' if 'starts' in function else 'suffix'}"
                        f" must be one string, got {affix!r}")
    texts, index = _texts(x)
    return pd.Series(pd.array([pd.NA if t is None else test(t, affix) for t in texts],
                              dtype="boolean"), index=index)


def _holds_strings(x) -> bool:
    values = np.asarray(x, dtype=object).ravel()
    return all(isinstance(v, str) or pd.isna(v) for v in values)


def starts_with(x, prefix):
    """R's ``startsWith(x, prefix)``: TRUE where the text starts with ``prefix``
    (missing stays missing; a factor or numbers are refused, as R refuses them)."""
    return _affix_test("startsWith", x, prefix, str.startswith)


def ends_with(x, suffix):
    """R's ``endsWith(x, suffix)``: TRUE where the text ends with ``suffix``."""
    return _affix_test("endsWith", x, suffix, str.endswith)


#: the text functions formulas call, by their Python names
R_TEXT_FUNCTIONS = {"paste": paste, "paste0": paste0, "nchar": nchar, "toupper": toupper,
                    "tolower": tolower, "substr": substr, "grepl": grepl, "sub": sub,
                    "gsub": gsub, "startsWith": starts_with, "endsWith": ends_with}
