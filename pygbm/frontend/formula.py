"""Formula + data -> ModelFrame, with the meaning R's ``gbm()`` gives a formula.

R's gbm builds the model frame with ``na.action = na.pass`` and then takes the
predictors as a model frame of the *term labels*: every term (``x1``, ``log(x2)``,
``I(a * b)``) becomes ONE predictor column named by its label; factors stay factors
(no dummy columns), missing values stay missing, no row is dropped.

A formula of bare column names (``y ~ .``, ``y ~ a + b - c``,
``Surv(time, status) ~ .``) is read by :mod:`.plain_formula`; any other formula by
:mod:`.formula_parse`, through formulaic, which is loaded on first need (importing it
costs about 0.4 s, more than R's whole fit of a small data set).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._checks import array_arg, same_rows_arg, unmasked
from ..messages import listed, quiet, warn
from .encode import (NUMERIC, R_MAX_CATEGORICAL_LEVELS, PredictorEncoder, _column_kind,
                     as_column, has_column_names, holds_numbers, numeric_values, refuse_multiindex,
                     table_type)
from .plain_formula import ColumnEvaluator, is_plain_term, plain_terms
from .surv import SurvData
from .terms import TermSpec, missing_column_error, similar_columns

__all__ = ["ModelFrame", "NewResponse", "TermSpec", "model_frame", "model_frame_newdata",
           "offset_newdata", "response_newdata", "weights_newdata"]

_MIN_ROWS = 2


@dataclass
class ModelFrame:
    """What R's gbm() hands to gbm.fit: coded predictors, response, offset, weights."""

    x: np.ndarray
    var_names: list
    var_type: np.ndarray
    var_levels: list
    y: np.ndarray
    response_name: str
    offset: np.ndarray | None
    weights: np.ndarray | None
    encoder: PredictorEncoder
    y_levels: list | None = None
    y_is_categorical: bool = False
    status: np.ndarray | None = None
    is_surv: bool = False
    formula: str = ""


def _as_column(value, label: str, n: int) -> pd.Series:
    """A term's value as one column of length n (categoricals kept as such)."""
    if isinstance(value, SurvData):
        raise ValueError(f"formula term {label!r}: Surv() belongs on the left-hand side")
    if isinstance(value, pd.DataFrame):
        value = value.to_numpy() if value.shape[1] != 1 else value.iloc[:, 0]
    if isinstance(value, Mapping) and len(value) != 1:     # formulaic's bs(): a dict
        raise ValueError(f"formula term {label!r} gives {len(value)} columns; gbm needs "
                         "exactly one column per term (e.g. poly() or bs() are not usable)")
    if isinstance(value, Mapping):
        value = next(iter(value.values()))
    if isinstance(value, pd.Series):
        column = value.reset_index(drop=True)
    elif isinstance(value, pd.Categorical):
        column = pd.Series(value)
    else:
        arr = np.asarray(value)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim == 0:
            raise ValueError(f"formula term {label!r} gives a single value, not one per row")
        if arr.ndim != 1:
            raise ValueError(f"formula term {label!r} gives {arr.shape[1]} columns; gbm needs "
                             "exactly one column per term (e.g. poly() or bs() are not usable)")
        column = pd.Series(arr)
    if len(column) != n:
        raise ValueError(f"formula term {label!r} has {len(column)} values; data has {n} rows")
    return column


def _mapping_frame(mapping: Mapping, name: str) -> pd.DataFrame:
    """A dict of columns as a table: equal-length sequences, or scalars only (one
    row, as R's ``data.frame(list(...))``)."""
    # a Series by position, as any other sequence: pandas would align Series of different
    # indexes, an outer join with more rows than any column given
    values = {k: v.array if isinstance(v, pd.Series) else v for k, v in mapping.items()}
    if values and all(np.ndim(v) == 0 for v in values.values()):
        return pd.DataFrame([values])
    try:
        return pd.DataFrame(values)
    except (ValueError, TypeError) as exc:
        lengths = sorted({len(v) if np.ndim(v) else 1 for v in values.values()})
        raise ValueError(f"{name} given as a dict must map column names to sequences of one "
                         f"length (or all to single values: one row); got lengths {lengths} "
                         f"({exc})") from None


def _prepare_data(data) -> pd.DataFrame:
    if isinstance(data, Mapping) and not isinstance(data, pd.DataFrame):
        data = _mapping_frame(data, "data")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {table_type(data)}")
    if data.shape[0] < _MIN_ROWS:
        raise ValueError(f"data has {data.shape[0]} row(s); gbm needs at least {_MIN_ROWS} "
                         "(in practice many more)")
    if data.shape[1] == 0:
        raise ValueError("data has no columns")
    refuse_multiindex(data, "data")
    if not all(isinstance(c, str) for c in data.columns):
        data = data.rename(columns=str)     # so 1 and "1" are one name, as in a formula
    if data.columns.duplicated().any():
        raise ValueError(f"data has duplicated column names: "
                         f"{list(dict.fromkeys(data.columns[data.columns.duplicated()]))}")
    return data.reset_index(drop=True)


def _weights(weights, data: pd.DataFrame) -> np.ndarray | None:
    if weights is None:
        return None
    given = None
    if isinstance(weights, str):
        if weights not in data.columns:
            raise ValueError(f"weights: column {weights!r} is not in data "
                             f"({similar_columns(weights, data.columns)})")
        given, weights = f"column {weights!r}", data[weights]
    weights = unmasked(weights)         # masked: missing, refused below
    values = as_column(weights)
    if not holds_numbers(values):    # R: "'weights' must be a numeric vector"
        raise TypeError(f"weights must be numeric (a column name or an array of numbers), got "
                        f"{given or type(weights).__name__} of dtype {values.dtype}")
    try:
        w = (weights.to_numpy(dtype=float, na_value=np.nan) if isinstance(weights, pd.Series)
             else np.asarray(weights, dtype=float))
    except (TypeError, ValueError):
        given = given or type(weights).__name__
        dtype = weights.dtype if isinstance(weights, pd.Series) else np.asarray(weights).dtype
        raise TypeError(f"weights must be numeric (a column name or an array of numbers), got "
                        f"{given} of dtype {dtype}") from None
    if w.ndim != 1:     # gbm_fit's words (a length alone misleads: (n, 1) has n values)
        raise ValueError(f"weights must be one number per row ({data.shape[0]}), got shape "
                         f"{w.shape}")
    if w.shape[0] != data.shape[0]:
        raise ValueError(f"weights has length {w.size}; data has {data.shape[0]} rows")
    if np.isnan(w).any():
        raise ValueError(f"weights has {int(np.isnan(w).sum())} missing values")
    if (w < 0).any():
        raise ValueError(f"weights has {int((w < 0).sum())} negative values; weights must be >= 0")
    if not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("weights must be finite and not all zero")
    return w


#: the levels of a logical response (R: 0/1)
LOGICAL_LEVELS = ("FALSE", "TRUE")


def _numbers_expected(what: str, new_levels) -> ValueError:
    """The error for a categorical response of new rows where the fit's response was
    numbers (coding its labels by their own sorted order would be silently wrong)."""
    return ValueError(f"{what} is categorical (levels {listed(new_levels)}), but the "
                      "fit's response was numbers: give the response as the fit had it")


def _response(value, name: str, n: int, missing_ok: bool = False):
    """(y, y_levels, y_is_categorical, status) from the evaluated left-hand side;
    ``missing_ok``: missing values are NaN in ``y`` (else refused, as R's gbm)."""
    if isinstance(value, SurvData):
        if len(value) != n:
            raise ValueError(f"the response {name} has {len(value)} rows; data has {n}")
        missing = int(value.isna().sum())
        y, levels, status = value.time.copy(), None, value.status.copy()
    else:
        col = _as_column(value, name, n)
        missing, status = int(col.isna().sum()), None
        is_bool = pd.api.types.is_bool_dtype(col.dtype) or (
            col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "boolean")
        kind = NUMERIC if is_bool else _column_kind(col, name, role="the response")
        if is_bool:  # R: a logical response is 0/1
            levels = list(LOGICAL_LEVELS)
            y = col.map(lambda v: np.nan if pd.isna(v) else float(bool(v))).to_numpy(dtype=float)
        elif kind == NUMERIC:
            levels, y = None, numeric_values(col, name, "(the response)")
        else:  # factor response: codes of its levels, the second level is 1
            levels, codes = PredictorEncoder._fit_levels(col)
            y = np.where(codes >= 0, codes, np.nan).astype(float)
    if missing and not missing_ok:
        raise ValueError(f"the response {name} has {missing} missing values; gbm does not "
                         "allow missing values in the response")
    if levels is None and np.isinf(y).any():    # named here: the distribution says "y"
        raise ValueError(f"the response {name} has {int(np.isinf(y).sum())} infinite "
                         "value(s); remove those rows first")
    return y, levels, levels is not None, status


def factor_response(y, name: str):
    """gbm_fit's response ``y`` read as :func:`model_frame` reads gbm()'s:
    ``(y, levels)``. A type gbm cannot use (dates, times, complex numbers, mixed
    objects) is refused naming the response; numbers held as objects become
    floats. A text or categorical response is coded as R's factor (a
    Categorical's order of its categories, else R's collation; codes 0..K-1 as
    floats, NaN where missing), with its levels (the caller refuses them for a
    distribution of numbers, as gbm() does); for any other response (numbers,
    logical, Surv, not one column) ``levels`` is None."""
    if isinstance(y, SurvData) or array_arg(name, y).ndim != 1:
        return y, None
    col = y if isinstance(y, pd.Series) else pd.Series(y)
    is_bool = pd.api.types.is_bool_dtype(col.dtype) or (
        col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "boolean")
    if is_bool:
        return y, None
    if _column_kind(col, name, role="the response") == NUMERIC:
        return (numeric_values(col, name, "(the response)") if col.dtype == object
                else y), None
    levels, codes = PredictorEncoder._fit_levels(col)
    return np.where(codes >= 0, codes, np.nan).astype(float), levels


def _offset_value(terms, evaluator, n: int, name: str = "data") -> np.ndarray | None:
    """The sum of the ``offset()`` terms on the ``n`` rows of the table the caller
    calls ``name`` (None without terms); a missing value is refused, naming it."""
    if not terms:
        return None
    total = np.zeros(n)
    for term in terms:  # several offset() terms add up, as in R's model.offset
        col = _as_column(evaluator.evaluate(term), term.label, n)
        if not pd.api.types.is_numeric_dtype(col.dtype):
            raise TypeError(f"{term.label} must be numeric, got dtype {col.dtype}")
        total += col.to_numpy(dtype=float, na_value=np.nan)
    if np.isnan(total).any():
        raise ValueError(f"the offset has {int(np.isnan(total).sum())} missing values (in "
                         f"{name})")
    return total


def _check_formula(formula) -> None:
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ x1 + x2', got "
                        f"{type(formula).__name__}")
    if "~" not in formula:
        raise ValueError(f"formula {formula!r} has no '~': write 'response ~ predictors'")


def _parse_on(formula: str, data: pd.DataFrame, where: str):
    """``(terms, evaluator)`` of ``formula`` on the table ``data`` (called
    ``where`` in errors): formulaic only where a term needs it."""
    terms = plain_terms(formula, list(data.columns), where)
    if terms is None:
        evaluator = _formula_parse().Evaluator(data, where)
        return _formula_parse().parse_terms(formula, evaluator), evaluator
    return terms, ColumnEvaluator(data, where)


# ------------------------------------------------------------------ public API
def model_frame(formula: str, data, weights=None,
                max_levels=R_MAX_CATEGORICAL_LEVELS, again: bool = False) -> ModelFrame:
    """Build the model frame R's ``gbm(formula, data, weights)`` builds.

    Parameters
    ----------
    formula : str, e.g. ``"y ~ ."``, ``"y ~ . - c"``, ``"y ~ a + log(b) + offset(log(t))"``,
        ``"Surv(time, status) ~ ."``.  ``.`` means all columns of ``data`` (in their order)
        except the response's: a weights column or a column inside ``offset()`` too, with
        a warning (R's meaning).
    data : pandas DataFrame.
    weights : None, a column name of ``data``, or an array of n non-negative numbers.
    again : the rows of a fit given again (``gbm_more(data=)``): the warnings about
        the formula and the predictors' values, which the fit gave on the same rows,
        are not given again (the one about a weights column, this call's, is).

    Returns
    -------
    ModelFrame; ``encoder`` codes new data the same way (see :func:`model_frame_newdata`).
    """
    _check_formula(formula)
    same_rows_arg("weights", weights, data, "data")   # before the index is reset
    data = _prepare_data(data)
    n = data.shape[0]
    w = _weights(weights, data)
    terms, evaluator = _parse_on(formula, data, "data")

    response_term, offsets = terms.response, list(terms.offsets)
    predictors = []
    for spec in terms.predictors:
        if spec.label == response_term.label:
            if not again:
                warn(f"the response {spec.label} appeared on the right-hand side and was "
                     "dropped")
            continue
        predictors.append(spec)
    if not predictors:
        raise ValueError(f"formula {formula!r} has no predictors")
    # R's meaning of '.': every column but the response's, so a weights column or a
    # column used inside offset() is a predictor too (R gbm does the same); say so
    shadowed = ({weights} if isinstance(weights, str) else set()) | \
        (set() if again else terms.offset_columns)
    used = sorted(shadowed & {p.label for p in predictors})
    if used and "." in _rhs_text(formula):
        warn(f"'.' includes {used} as predictor(s) although they are used as "
             f"weights/offset; this is R's meaning of '.'; write '- {used[0]}' "
             "to leave a column out")

    y, y_levels, y_is_cat, status = _response(evaluator.evaluate(response_term),
                                              response_term.label, n)
    offset = _offset_value(offsets, evaluator, n)
    frame = pd.DataFrame({spec.label: _as_column(evaluator.evaluate(spec), spec.label, n)
                          for spec in predictors})
    if not all(spec.lookup for spec in predictors):
        _formula_parse().refuse_made_nan(frame, predictors, evaluator)
    encoder = PredictorEncoder(max_levels=max_levels, terms=predictors, offset_terms=offsets)
    with quiet() if again else contextlib.nullcontext():   # numbers as text, no variation
        x, var_names, var_type, var_levels = encoder.fit_transform(frame)
    return ModelFrame(x=x, var_names=var_names, var_type=var_type, var_levels=var_levels,
                      y=y, response_name=response_term.label, offset=offset, weights=w,
                      encoder=encoder, y_levels=y_levels, y_is_categorical=y_is_cat,
                      status=status, is_surv=status is not None, formula=formula)


def _formula_parse():
    """The formulaic-backed parser and evaluator, imported on first need (see the
    module's docstring: formulaic's import is the cost this avoids)."""
    return importlib.import_module(".formula_parse", __package__)


def _evaluator(terms, data: pd.DataFrame, where: str):
    """An evaluator for ``terms`` on ``data``: formulaic's only where a term needs it."""
    if all(is_plain_term(term) for term in terms):
        return ColumnEvaluator(data, where)
    return _formula_parse().Evaluator(data, where)


def _absent_columns(terms, evaluator) -> list[str]:
    """The columns ``terms`` read that the evaluator's table lacks, all of them (R's
    predict names the first one only; one error naming each is one fix of newdata,
    not one per rerun)."""
    absent = [t.expr for t in terms if t.lookup and t.expr not in evaluator.columns]
    if isinstance(evaluator, ColumnEvaluator):   # its other terms: Surv, offsets
        return absent
    return absent + [c for t in terms if not t.lookup for c in evaluator.check(t.expr)]


def _rhs_text(formula: str) -> str:
    return formula.split("~", 1)[1]


def _newdata_frame(newdata, name: str) -> pd.DataFrame:
    """``newdata`` (the argument ``name`` in errors) as a table with string column names."""
    if isinstance(newdata, Mapping) and not isinstance(newdata, pd.DataFrame):
        newdata = _mapping_frame(newdata, name)
    if not isinstance(newdata, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {table_type(newdata)}")
    refuse_multiindex(newdata, name)
    if not all(isinstance(c, str) for c in newdata.columns):
        newdata = newdata.rename(columns=str)
    if newdata.columns.duplicated().any():   # a term would read two columns
        raise ValueError(f"{name} has duplicated column names: "
                         f"{list(dict.fromkeys(newdata.columns[newdata.columns.duplicated()]))}")
    return newdata.reset_index(drop=True)


class NewResponse(NamedTuple):
    """The response of new rows (:func:`response_newdata`)."""

    y: np.ndarray                     # the response (a survival response: the times)
    offset: np.ndarray | None         # the formula's offset() terms (None: none)
    status: np.ndarray | None         # a survival response's event status (else None)


def _recode_levels(y: np.ndarray, new_levels: list, levels, what: str) -> np.ndarray:
    """Codes ``y`` of ``new_levels`` (the levels of the new rows' own response) as
    codes of ``levels`` (the fit's), so that a sample holding one level only is coded
    as the fit coded that level; errors call the response ``what``."""
    index = {level: code for code, level in enumerate(levels)}
    unknown = [level for level in new_levels if level not in index]
    if unknown:
        raise ValueError(f"{what} has level(s) {listed(unknown)} that the fit's response did "
                         f"not have (its levels: {listed(levels)})")
    remap = np.array([index[level] for level in new_levels], dtype=float)
    known = ~np.isnan(y)                      # NaN: a missing response (missing_ok)
    coded = np.full(y.shape, np.nan)
    coded[known] = remap[y[known].astype(np.intp)]
    return coded


def response_values(y, levels, name: str = "y", missing_ok: bool = False):
    """A response given as values for new rows (the argument ``name``: calibrate's
    and cost_tradeoff's ``y=``) coded as the fit coded its own: a text or
    categorical ``y`` by the fit's ``levels`` (``fit.y_levels``), not by the levels
    the values happen to have (sorted text, or a sample of one class), refused
    by a fit without levels (its response was numbers); ``y`` as given otherwise
    (numbers, logical). ``missing_ok``: a missing value is NaN (else refused)."""
    codes, new_levels = factor_response(y, name)
    if new_levels is None:
        return y
    if levels is None:
        raise _numbers_expected(name, new_levels)
    missing = int(np.isnan(codes).sum())
    if missing and not missing_ok:
        raise ValueError(f"{name} has {missing} missing values")
    return _recode_levels(codes, list(new_levels), levels, name)


def response_newdata(formula: str, newdata, name: str = "newdata",
                     levels=None, missing_ok: bool = False) -> NewResponse:
    """The formula's response and ``offset()`` terms evaluated on ``newdata``
    (a test set that has the response): ``(y, offset or None, status or None)``, as
    :func:`model_frame` makes them, for deviances on new rows (the predictors are not
    evaluated, nor checked as training data). ``levels``: the fit's levels of a
    categorical response (``fit.y_levels``), by which a text response is coded (not
    by the levels the new rows happen to have); None: the fit's response was
    numbers, and a categorical one is refused (a logical one is 0/1).
    ``missing_ok``: a missing response is NaN in ``y`` (else refused). Errors call
    the table ``name``, the caller's argument."""
    _check_formula(formula)
    newdata = _newdata_frame(newdata, name)
    terms, evaluator = _parse_on(formula, newdata, name)
    n = newdata.shape[0]
    label = terms.response.label
    y, new_levels, _, status = _response(evaluator.evaluate(terms.response), label, n,
                                         missing_ok)
    y = coded_like_fit(y, new_levels, levels, f"the response {label} of {name}")
    return NewResponse(y, _offset_value(list(terms.offsets), evaluator, n, name), status)


def coded_like_fit(y: np.ndarray, new_levels, levels, what: str) -> np.ndarray:
    """A response of new rows, coded by ``new_levels`` (the levels its values have, or
    None: numbers), as codes of the fit's ``levels`` (``fit.y_levels``; None: the fit's
    response was numbers, and a categorical one is refused, a logical one is 0/1).
    Errors call the response ``what``."""
    if levels is None and new_levels is not None and tuple(new_levels) != LOGICAL_LEVELS:
        raise _numbers_expected(what, new_levels)
    if levels is not None and new_levels is not None:
        return _recode_levels(y, new_levels, levels, what)
    return y


def weights_newdata(weights, newdata, name: str = "newdata"):
    """Case weights of new rows as given: ``weights`` itself, or the column of
    ``newdata`` (the caller's argument ``name``) it names; the caller checks the
    numbers."""
    if not isinstance(weights, str):
        same_rows_arg("weights", weights, newdata, name)
        return weights
    if not has_column_names(newdata):
        raise TypeError(f"weights={weights!r:.80} names a column of {name}, but {name} is a "
                        f"{type(newdata).__name__}, without column names: give the weights "
                        "as numbers, one per row")
    newdata = _newdata_frame(newdata, name)
    if weights not in newdata.columns:
        raise ValueError(f"weights: column {weights!r} is not in {name} "
                         f"({similar_columns(weights, newdata.columns)})")
    return newdata[weights].to_numpy()


def model_frame_newdata(encoder: PredictorEncoder, newdata,
                        name: str = "newdata", prior=()) -> np.ndarray:
    """Evaluate the training formula's terms on ``newdata`` and code them.

    Returns the float64 (n, p) matrix ``encoder`` codes (as R's predict.gbm builds
    ``model.frame(terms(reformulate(var.names)), newdata, na.action = na.pass)``).
    Without formula terms (encoder fitted on a table), the columns are taken by name.
    Errors call the table ``name``, the caller's argument; ``prior`` names the
    predictors coded by target statistics (see :meth:`PredictorEncoder.transform`).
    """
    if not isinstance(encoder, PredictorEncoder):
        raise TypeError(f"encoder must be a PredictorEncoder, got {type(encoder).__name__}")
    if encoder.terms is None:
        return encoder.transform(newdata, name, prior)
    newdata = _newdata_frame(newdata, name)
    evaluator = _evaluator(encoder.terms, newdata, name)
    if absent := _absent_columns(encoder.terms, evaluator):
        raise missing_column_error(absent, evaluator.columns, name)
    n = newdata.shape[0]
    frame = pd.DataFrame({t.label: _as_column(evaluator.evaluate(t), t.label, n)
                          for t in encoder.terms}, index=pd.RangeIndex(n))
    if not all(t.lookup for t in encoder.terms):    # R warns too ("NaNs produced")
        made = [f"{label!r} in {rows} row(s)" for label, rows, _ in
                _formula_parse().made_nan(frame, encoder.terms, evaluator)]
        if made:
            warn(f"{name}: formula terms give NaN where the columns they read are not "
                 f"missing, treated as missing: {'; '.join(made)}")
    return encoder.transform(frame, name, prior)


def offset_newdata(encoder: PredictorEncoder, newdata, name: str = "newdata") -> np.ndarray | None:
    """The formula's ``offset()`` terms evaluated on ``newdata`` (None without offsets).

    R's predict.gbm ignores offsets; this is for callers that want them. Errors
    call the table ``name``, the caller's argument.
    """
    if not encoder.offset_terms:
        return None
    newdata = _newdata_frame(newdata, name)
    evaluator = _evaluator(encoder.offset_terms, newdata, name)
    return _offset_value(encoder.offset_terms, evaluator, newdata.shape[0], name)
