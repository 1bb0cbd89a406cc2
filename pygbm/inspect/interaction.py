"""Friedman's H statistic of interaction strength (R's ``interact.gbm``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import fit_arg
from .._rmath import r_sum
from ..messages import warn
from ..frontend import (labels_inverse, numeric_values, refuse_numbers_for_levels,
                        unseen_levels, warn_unseen_levels)
from .influence import check_n_trees, class_labels, class_view, used_variables
from .partial_dependence import (averaged_predictions, crosses_combinations, is_categorical,
                                 resolve_vars, weighted_traversal)


def _code_categorical(column: pd.Series, levels, var: str, prior: bool) -> np.ndarray:
    """Codes of ``column`` (the predictor ``var``) among the fit's ``levels``;
    missing -> NaN; an unknown label, with predict's warning, -> NaN (the trees'
    missing values), or the code after the levels where the predictor is coded by
    target statistics (``prior``), which give it their prior, as in predict (NaN
    would take the missing values' statistic); numbers none of which is a level
    are refused (codes, not labels). Values are labelled as the fit's encoder
    labels them (``r_label``, R's as.character: a bool is "TRUE"/"FALSE", a 0/1
    integer "0"/"1")."""
    levels = [str(s) for s in levels]
    labels, codes = labels_inverse(column)              # distinct values only
    refuse_numbers_for_levels(column, labels, var, levels, "data")
    lookup = {lab: float(i) for i, lab in enumerate(levels)}
    unseen = [lab for lab in labels if lab not in lookup]
    if unseen:
        part = [unseen_levels(var, unseen)]
        warn_unseen_levels("data", [] if prior else part, part if prior else [])
    new_code = float(len(levels)) if prior else np.nan
    mapped = np.array([lookup.get(lab, new_code) for lab in labels] + [np.nan])
    return mapped[codes]          # code -1 (missing) picks the trailing NaN


def code_columns(fit, data, idx: list[int]) -> np.ndarray:
    """The ``idx`` columns of ``data`` coded as the fit codes predictors.

    ``data`` is a pandas DataFrame with the predictor columns (by name;
    categorical columns may hold the level labels) or an already coded
    matrix with all the fit's columns.
    """
    if isinstance(data, pd.DataFrame):
        return _code_frame(fit, data, idx)
    return _code_matrix(fit, data, idx)


def _code_frame(fit, data: pd.DataFrame, idx: list[int]) -> np.ndarray:
    """:func:`code_columns` of a DataFrame: the columns by name, levels by label."""
    names = list(fit.var_names)
    # columns by their names as text, as the fit's encoder finds them (gbm_fit
    # names a table's integer column 0 "0")
    position = {str(c): i for i, c in enumerate(data.columns)}
    missing = [names[j] for j in idx if names[j] not in position]
    if missing:
        terms = [m for m in missing if "(" in m]     # a term such as log(x2)
        hint = (f" (a predictor is its formula term: give data a column named "
                f"{terms[0]!r} holding the term's values)" if terms else "")
        raise ValueError(f"data lacks the columns {missing}{hint}")
    labels = [str(c) for c in data.columns]
    twice = [names[j] for j in idx if labels.count(names[j]) > 1]
    if twice:           # the last of them would be read without a word
        raise ValueError(f"data has duplicated column names: {twice}")
    prior = () if fit.ts_encoder is None else fit.ts_encoder.ts_names
    cols = []
    for j in idx:
        col = data.iloc[:, position[names[j]]]
        if is_categorical(fit, j):
            cols.append(_code_categorical(col, fit.var_levels[j], names[j],
                                          names[j] in prior))
        else:           # read as predict reads it: numbers in text are refused
            cols.append(numeric_values(col, names[j], "in data"))
    return np.column_stack(cols)


def _code_matrix(fit, data, idx: list[int]) -> np.ndarray:
    """:func:`code_columns` of a coded matrix: its codes checked; the code after the
    levels of an unordered predictor that the trees split on by level (not coded by
    target statistics, whose prior it is) made missing, with predict's warning
    (predict's trees send it to the missing child, and a DataFrame's unknown label
    is missing here)."""
    names = list(fit.var_names)
    arr = np.asarray(data)
    if arr.ndim != 2 or arr.shape[1] != len(names) or arr.dtype.kind not in "biuf":
        raise TypeError("data must be a pandas DataFrame with the predictor columns or a "
                        f"coded numeric matrix with {len(names)} columns")
    coded = arr[:, idx].astype(float)
    prior = () if fit.ts_encoder is None else fit.ts_encoder.ts_names
    unseen = []
    for c, j in enumerate(idx):
        if is_categorical(fit, j):
            n_levels = len(fit.var_levels[j])
            unordered = int(np.asarray(fit.var_type)[j]) > 0    # ordered: coded as numbers
            _check_codes(coded[:, c], names[j], n_levels, unordered or names[j] in prior)
            new = coded[:, c] == n_levels
            if unordered and names[j] not in prior and new.any():
                coded[new, c] = np.nan
                unseen.append(f"column {names[j]!r} of the coded matrix: code {n_levels}")
    warn_unseen_levels("data", unseen)
    return coded


def _check_codes(codes: np.ndarray, name: str, n_levels: int, unseen: bool) -> None:
    """The column ``name`` of a coded matrix holds level codes as the fit's encoder
    gives them: whole numbers 0..n_levels-1 or NaN (missing), and where ``unseen``
    (an unordered predictor) n_levels too, a level the fit never saw (the target
    statistics' prior; for the trees' own categorical splits :func:`code_columns`
    makes it missing, as ``predict`` treats it); else a ValueError naming ``data``
    and the column."""
    top = n_levels if unseen else n_levels - 1
    known = np.isnan(codes) | ((codes == np.round(codes)) & (codes >= 0) & (codes <= top))
    if not known.all():
        also = f"; {n_levels}: a level the fit never saw" if unseen else ""
        raise ValueError(f"data: column {name!r} of the coded matrix must hold the level "
                         f"codes 0..{n_levels - 1} (or NaN{also}), got {int((~known).sum())} "
                         f"other value(s) such as {float(codes[~known][0])!r}")


def _weighted_mean(x, w) -> float:
    """R's ``weighted.mean(x, w, na.rm = TRUE)``, with R's summation, so that
    even rounding-level results (a constant partial dependence) agree."""
    ok = ~np.isnan(x)
    x, w = x[ok], w[ok]
    prod = x * w
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(r_sum(prod[w != 0])) / np.float64(r_sum(w)))


def interact_gbm(fit, data, i_var, n_trees=None) -> float:
    """Friedman's H statistic for the variables ``i_var`` (R's ``interact.gbm``).

    Parameters
    ----------
    fit : GBMFit
        The fitted model (R: ``x``), with ``interaction_depth`` at least
        ``len(i_var)``.
    data : pandas.DataFrame or numpy.ndarray
        The rows over which H is computed (R: ``data``; usually the training
        data): a DataFrame with the predictor columns, or a coded matrix with
        all the fit's columns (a factor's level codes 0 to ``len(levels) - 1``
        or NaN; an unordered factor's ``len(levels)``: a level the fit never
        saw, see the Notes).
    i_var : list of str or int
        Two or more variables, by name or by 0-based position in
        ``fit.var_names`` (R: ``i.var``, 1-based there).
    n_trees : int, optional
        Trees used (R: ``n.trees``); default all. More than the fit has:
        a warning, and all are used, as in R.

    Returns
    -------
    float or pandas.Series
        H, between 0 (no interaction) and 1; NaN when the ratio exceeds 1 or
        is 0/0. Multi-class fits: a Series of H, one per class (indexed by
        class label), as R's ``interact.gbm``.

    Notes
    -----
    For every non-empty subset S of ``i_var``, the partial dependence f_S
    (weighted tree traversal) is computed at the distinct observed
    combinations of the S columns of ``data`` and centred by its mean
    weighted by how often each combination occurs. With the full set F,
    ``H^2 = mean_w[(sum_S (-1)^(|F|-|S|) f_S)^2] / mean_w[f_F^2]`` over the
    distinct combinations of F, and the result is sqrt(H^2). Sums are R's
    (sequential, extended precision), so the result is R's to the last
    digit. When no tree splits on any of ``i_var``, f_F is constant and H is
    NaN directly (R computes 0/0 or a ratio of rounding errors).

    A categorical column of ``data`` is matched to the fit's levels by label.
    R's ``interact.gbm`` uses the integer codes of the data's factor instead,
    so R's H is wrong when the data's factor has other levels than the fit's
    (an unused level the fit dropped, another order); with the same levels
    the two agree. A level the fit never saw is missing, with a warning, as
    ``predict``'s trees take it: a label not among the fit's, or
    in a coded matrix the code after the fit's levels (``len(var_levels)``;
    a predictor coded by target statistics gets their prior, as in
    ``predict``). R's H there is not reproducible (it reads past the end
    of the split's levels).

    Examples
    --------
    >>> h = pygbm.interact_gbm(fit, boston, ["lstat", "rm"])
    >>> 0 <= h <= 1
    True
    """
    fit_arg(fit)
    if fit.num_classes > 1:     # R: one H per class (n_trees checked once: one warning)
        n_trees = check_n_trees(fit, n_trees, cap=True)
        return pd.Series([interact_gbm(class_view(fit, c), data, i_var, n_trees)
                          for c in range(int(fit.num_classes))],
                         index=pd.Index(class_labels(fit), name="class"), name="H")
    idx = resolve_vars(fit, i_var)
    k = len(idx)
    if k < 2:
        raise ValueError("i_var must name at least two variables for an interaction")
    if int(fit.interaction_depth) < k:
        raise ValueError(f"interaction_depth ({fit.interaction_depth}) of the fit is lower "
                         f"than the number of variables in i_var ({k})")
    n_trees = check_n_trees(fit, n_trees, cap=True)
    coded = code_columns(fit, data, idx)
    if coded.shape[0] == 0:
        raise ValueError("data has no rows")
    names = [fit.var_names[j] for j in idx]
    if not np.isin(idx, used_variables(fit, n_trees)).any():
        # f_F is constant: H is 0/0 (R gets NaN or a ratio of rounding errors)
        warn(f"interact_gbm: H is NaN: no tree of the first {n_trees} splits on {names}, "
             "so their joint partial dependence is constant (0/0)")
        return float("nan")
    keys = np.column_stack([pd.factorize(coded[:, c], use_na_sentinel=False)[0]
                            for c in range(k)])
    # subsets in R's order: expand.grid(rep(list(c(FALSE, TRUE)), k))[-1, ]
    subsets = [[c for c in range(k) if (r >> c) & 1] for r in range(1, 2 ** k)]
    # one estimator for every subset: the tree weights' (R's), or where the trees
    # split on combinations of these with other predictors, which the tree weights
    # cannot average over, the training rows' (brute force) throughout
    partial = weighted_traversal
    if any(crosses_combinations(fit, [idx[c] for c in s]) for s in subsets):
        warn(f"interact_gbm: the trees split on combinations of {names} with other "
             "predictors, which the tree weights cannot average over: the partial "
             "dependences are averaged over the training rows (brute force) instead")
        partial = averaged_predictions
    tables = []
    for s in subsets:
        _, first, inverse, counts = np.unique(keys[:, s], axis=0, return_index=True,
                                              return_inverse=True, return_counts=True)
        f = partial(fit, coded[first][:, s], [idx[c] for c in s], n_trees)
        counts = counts.astype(float)
        f = f - _weighted_mean(f, counts)
        sign = 1.0 if len(s) % 2 == k % 2 else -1.0
        tables.append((inverse.ravel(), first, counts, f, sign))
    _, first_full, counts_full, f_full, _ = tables[-1]
    h = f_full.copy()
    for inverse, _, _, f, sign in tables[:-1]:
        h += sign * f[inverse[first_full]]
    top = _weighted_mean(h ** 2, counts_full)
    bottom = _weighted_mean(f_full ** 2, counts_full)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.float64(top) / np.float64(bottom)
    if not ratio <= 1:       # above 1, or 0/0
        why = ("their joint partial dependence is constant over the rows of data "
               f"({first_full.shape[0]} distinct combination(s) of them): 0/0"
               if not bottom > 0 else
               f"the interaction part exceeds the joint effect (ratio {float(ratio):.4g})")
        warn(f"interact_gbm: H is NaN for {names}: {why}")
        return float("nan")
    return float(np.sqrt(ratio))
