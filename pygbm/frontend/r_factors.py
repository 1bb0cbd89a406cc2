"""R's factor functions in formula terms: ``factor(x, levels, labels, exclude,
ordered)``, ``as.factor``, ``ordered``, ``as.ordered``, ``addNA``, ``relevel``,
``droplevels``, with R's meaning (levels of numbers in numeric order, of text in R's
collation; a factor of a factor keeps its used levels and stays ordered when it is;
``as.factor`` keeps a factor as it is).

R's NA level (``addNA(x)``, an ``exclude`` without NA) is coded by R gbm as missing, as
NA, and so here: :func:`check_na_levels` refuses it where another function would read
it (R's values would differ from pygbm's missing ones).
"""

from __future__ import annotations

import ast
import itertools

import numpy as np
import pandas as pd

from .encode import r_collation_key, r_label

__all__ = ["R_FACTOR_FUNCTIONS", "check_na_levels", "is_factor", "series"]


def series(x) -> pd.Series:
    """``x`` as a pandas Series (an array's values, a Series as it is)."""
    return x if isinstance(x, pd.Series) else pd.Series(np.asarray(x))


def _labelled(categorical: pd.Categorical, labels) -> pd.Categorical:
    """R's ``labels`` of ``factor()``: the levels renamed in order (repeated labels
    merge their levels; one label for several levels is numbered, ``L1``, ``L2``)."""
    labels = [r_label(v) for v in np.atleast_1d(labels)]
    n = len(categorical.categories)
    if len(labels) == 1 and n > 1:
        labels = [f"{labels[0]}{i}" for i in range(1, n + 1)]
    if len(labels) != n:
        raise ValueError(f"invalid 'labels'; length {len(labels)} should be 1 or {n} "
                         "(the number of levels), as R says")
    merged = list(dict.fromkeys(labels))
    codes = np.array([merged.index(label) for label in labels] + [-1])[categorical.codes]
    return pd.Categorical.from_codes(codes, categories=merged, ordered=categorical.ordered)


def is_factor(x) -> bool:
    """Whether ``x`` is a factor (a categorical Series)."""
    return isinstance(x, pd.Series) and isinstance(x.dtype, pd.CategoricalDtype)


def _is_ordered_factor(x) -> bool:
    return is_factor(x) and bool(x.cat.ordered)


def _excluded(levels: list, exclude) -> list:
    """The levels without those ``exclude`` names (R's ``exclude``, compared as R's
    text: ``exclude = 2`` drops the level ``2`` of a numeric ``x``); a missing value in
    ``exclude`` (R's default ``NA``) or ``NULL`` drops none. R gbm codes a factor's NA
    level (``exclude = NULL``) as missing, as it codes NA, so keeping it changes nothing
    here."""
    if exclude is None:
        return levels
    drop = {r_label(v) for v in np.atleast_1d(np.asarray(exclude, dtype=object))
            if not pd.isna(v)}
    return [level for level in levels if r_label(level) not in drop]


def _categorical(x, levels, ordered: bool, labels=None, exclude=None) -> pd.Series:
    """R's ``factor(x, levels, labels, exclude)``: levels given, or the observed values
    in R's order (a factor's observed levels in its order: R drops the unused ones);
    ``exclude`` drops levels; renamed by ``labels``."""
    x = series(x)
    if levels is not None:      # R: a missing value among them is excluded (exclude = NA)
        levels = [v for v in np.atleast_1d(levels) if not pd.isna(v)]
    elif is_factor(x):
        levels = list(x.cat.remove_unused_categories().cat.categories)
    else:
        present = pd.unique(x.dropna())
        if pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype):
            levels = sorted(present)
        else:
            levels = sorted(present, key=lambda v: r_collation_key(r_label(v)))
    levels = _excluded(levels, exclude)
    values = x.astype(object) if is_factor(x) else x
    values = values.where(values.isin(levels))  # R: values outside the levels are missing
    categorical = pd.Categorical(values, categories=levels, ordered=ordered)
    if labels is not None:
        categorical = _labelled(categorical, labels)
    return pd.Series(categorical, index=x.index)


def factor(x, levels=None, labels=None, exclude=np.nan, ordered=None):
    """R's ``factor(x, levels, labels, exclude, ordered)``: a factor, ordered when
    ``ordered`` is TRUE or, by default, when ``x`` is an ordered factor (as in R);
    values outside ``levels`` become missing, ``labels`` rename the levels, ``exclude``
    leaves levels out (their rows missing)."""
    if ordered is None:
        ordered = _is_ordered_factor(x)
    return _categorical(x, levels, bool(ordered), labels, exclude)


def as_factor(x):
    """R's ``as.factor(x)``: a factor as it is (all its levels; an ordered one stays
    ordered), anything else as :func:`factor` makes it."""
    return x if is_factor(x) else factor(x)


def ordered(x, levels=None, labels=None, exclude=np.nan):
    """R's ``ordered(x, levels, labels, exclude)``: an ordered factor (R gbm splits it
    as an ordered predictor)."""
    return _categorical(x, levels, True, labels, exclude)


def as_ordered(x):
    """R's ``as.ordered(x)``: an ordered factor as it is, anything else as
    :func:`ordered` makes it."""
    return x if _is_ordered_factor(x) else ordered(x)


def add_na(x, ifany=False):
    """R's ``addNA(x)``: ``x`` as a factor with an NA level; R gbm codes that level as
    missing, as it codes NA, so the predictor is :func:`as_factor`'s."""
    return as_factor(x)


#: the factor functions that keep a factor's levels as they are, an NA level included
_KEEP_LEVELS = frozenset({"as_factor", "as_ordered", "addNA", "droplevels", "relevel"})
#: the calls that make levels anew, dropping an NA level unless told ``exclude = NULL``
_NEW_LEVELS = frozenset({"factor", "ordered"})


def _is_na(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "NA"


def _keeps_na(call: ast.Call) -> bool:
    """Whether a ``factor()``/``ordered()`` call keeps NA as a level: R does unless
    ``exclude`` (by default ``NA``) names NA (``exclude = NULL``, ``exclude = "b"`` keep
    it; ``exclude = c("b", NA)`` does not)."""
    exclude = next((k.value for k in call.keywords if k.arg == "exclude"), None)
    if exclude is None or _is_na(exclude):
        return False
    return not (isinstance(exclude, ast.Call) and isinstance(exclude.func, ast.Name)
                and exclude.func.id == "c" and any(_is_na(a) for a in exclude.args))


def check_na_levels(tree: ast.AST, term: str) -> None:
    """Refuse a factor's NA level where its rows would differ from R's. R keeps NA as a
    level (``factor(x, exclude = NULL)``, any ``exclude`` without NA, ``addNA(x)``) and
    R gbm codes that level as missing, as NA; pygbm's factor has NA rows. As a
    predictor, or passed through the factor functions, the two are the same; read by
    anything else (its codes in ``as.numeric``, ``is.na``, a comparison, renamed by
    ``labels``) they differ.
    ``tree``: the term's Python code, functions by their Python names."""
    def refuse():
        raise ValueError(
            f"formula term {term!r}: a factor's NA level (addNA, or factor() with an exclude "
            "without NA) is taken as a predictor only, where R gbm codes it as missing; read "
            "by another function (its codes, is.na, a comparison, labels) pygbm would differ "
            "from R: compute the column in the data frame first")

    def walk(node, read):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _KEEP_LEVELS | _NEW_LEVELS:
            name = node.func.id
            keeps_na = name == "addNA" or (name in _NEW_LEVELS and _keeps_na(node))
            if keeps_na and (read or any(k.arg == "labels" for k in node.keywords)):
                refuse()
            if name in _NEW_LEVELS and not keeps_na:
                read = False        # the NA level of what it reads is dropped here
        elif not isinstance(node, (ast.Expression, ast.keyword)):
            read = True
        for child in ast.iter_child_nodes(node):
            walk(child, read)
    walk(tree, False)


def _unordered_factor(x, function: str) -> pd.Series:
    x = series(x)
    if not is_factor(x) or x.cat.ordered:
        kind = "an ordered factor" if is_factor(x) else f"dtype {x.dtype}"
        raise TypeError(f"{function}() takes an (unordered) factor, got {kind}; make one "
                        "with factor(x)")
    return x


def relevel(x, ref):
    """R's ``relevel(f, ref)``: the factor with level ``ref`` (a label, or a 1-based
    position) first."""
    x = _unordered_factor(x, "relevel")
    levels = list(x.cat.categories)
    if np.ndim(ref) != 0 and np.size(ref) != 1:
        raise ValueError(f"relevel(): ref must be one level, got {list(np.ravel(ref))}")
    ref = np.ravel(ref)[0]
    ref = ref.item() if isinstance(ref, np.generic) else ref
    if isinstance(ref, str):
        labels = [r_label(v) for v in levels]
        if ref not in labels:
            raise ValueError(f"relevel(): ref = {ref!r} is not a level; the levels are "
                             f"{labels}")
        first = labels.index(ref)
    else:
        if not 1 <= ref <= len(levels) or ref != int(ref):
            raise ValueError(f"relevel(): ref = {ref!r} must be a level's position, 1 to "
                             f"{len(levels)}, or its label")
        first = int(ref) - 1
    order = [levels[first]] + levels[:first] + levels[first + 1:]
    return x.cat.reorder_categories(order)


def droplevels(x):
    """R's ``droplevels(f)``: the factor without the levels no row has."""
    x = series(x)
    if not is_factor(x):
        raise TypeError(f"droplevels() takes a factor, got dtype {x.dtype}")
    return x.cat.remove_unused_categories()


def interaction(*factors, sep=".", drop=False, lex_order=False):
    """R's ``interaction(f1, f2, ..., sep = ".", drop = FALSE, lex.order = FALSE)``: the
    factor of the combinations of the arguments' levels (each made a factor as
    ``as.factor`` makes it), labelled ``a.x``; every combination a level, the first
    argument's varying fastest (slowest with ``lex.order = TRUE``), the unused ones
    left out with ``drop = TRUE``; missing where an argument is."""
    if not factors:
        raise ValueError("interaction() needs at least one factor")
    parts = [as_factor(f) for f in factors]
    n = len(parts[0])
    if any(len(p) != n for p in parts):
        raise ValueError("interaction(): the factors must have one value per row each")
    labels = [[r_label(c) for c in p.cat.categories] for p in parts]
    # the slowest-varying factor first: the first (lex.order) or the last
    slowest_first = list(range(len(parts))) if lex_order else list(range(len(parts)))[::-1]
    code = np.zeros(n, dtype=np.int64)
    for k in slowest_first:
        code = code * len(labels[k]) + parts[k].cat.codes.to_numpy()
    missing = np.any(np.stack([p.cat.codes.to_numpy() < 0 for p in parts]), axis=0)
    code = np.where(missing, -1, code)
    combined = []
    for combination in itertools.product(*(labels[k] for k in slowest_first)):
        written = combination if lex_order else combination[::-1]
        combined.append(sep.join(written))
    result = pd.Categorical.from_codes(code, categories=combined)
    if drop:
        result = result.remove_unused_categories()
    return pd.Series(result, index=parts[0].index)



#: the factor functions formulas call, by their Python names
R_FACTOR_FUNCTIONS = {"factor": factor, "as_factor": as_factor, "ordered": ordered,
                      "as_ordered": as_ordered, "addNA": add_na, "relevel": relevel,
                      "droplevels": droplevels, "interaction": interaction}
