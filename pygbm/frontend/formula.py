"""Formula + data -> ModelFrame, with the meaning R's ``gbm()`` gives a formula.

R's gbm builds the model frame with ``na.action = na.pass`` and then takes the
predictors as a model frame of the *term labels*: every term (``x1``, ``log(x2)``,
``I(a * b)``) becomes ONE predictor column named by its label; factors stay factors
(no dummy columns), missing values stay missing, no row is dropped.

The formula is parsed with formulaic, but each term is evaluated here (bare names
straight from the data, calls through formulaic's evaluator with numpy functions),
so no contrasts are applied and no rows are dropped.

In terms, R habits work: ``^`` is a power (``I(x^2)``), dotted column names can be
used inside calls (``log(ph.karno)``), ``log(x, base)``; the functions available are
formulaic's (log, exp, I, C, scale, center, ...) plus sqrt, abs, log1p, expm1, sin, cos,
tan, floor, ceiling, sign, ``np`` and ``pd``.  ``C(x)`` makes a numeric column a factor.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from formulaic import Formula
from formulaic.formula import SimpleFormula
from formulaic.errors import FormulaicError
from formulaic.parser import DefaultFormulaParser
from formulaic.parser.types import Factor
from formulaic.transforms import TRANSFORMS
from formulaic.utils.code import sanitize_variable_names
from formulaic.utils.layered_mapping import LayeredMapping
from formulaic.utils.stateful_transforms import stateful_eval

from ..messages import warn
from .encode import (NUMERIC, R_MAX_CATEGORICAL_LEVELS, PredictorEncoder, _column_kind,
                     _numeric_values)
from .surv import Surv, SurvData

__all__ = ["ModelFrame", "TermSpec", "model_frame", "model_frame_newdata", "offset_newdata"]

_MIN_ROWS = 2
_MAX_LISTED_COLUMNS = 20
_OFFSET_CALL = re.compile(r"^\s*offset\s*\(")
_AVAILABLE = "__formulaic_variables_available__"


def _log(x, base=None):
    """R's ``log(x, base)``: natural log, or log to ``base``."""
    return np.log(x) if base is None else np.log(x) / np.log(base)


def _offset(values):
    """``offset(x)`` inside a formula: the values, as float."""
    return np.asarray(values, dtype=float)


#: functions usable in formula terms, besides formulaic's (log, exp, I, C, scale, ...)
FUNCTIONS = {
    **TRANSFORMS,
    "log": _log, "Surv": Surv, "offset": _offset, "sqrt": np.sqrt, "abs": np.abs, "log1p": np.log1p,
    "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan, "floor": np.floor,
    "ceiling": np.ceil, "ceil": np.ceil, "sign": np.sign, "pd": pd,
}


@dataclass(frozen=True)
class TermSpec:
    """One formula term: its label (the predictor name) and how to evaluate it."""

    label: str
    expr: str
    lookup: bool  # a bare column name
    state: dict = field(default_factory=dict, compare=False)  # stateful transforms (scale, ...)


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


# ------------------------------------------------------------------ evaluation
def _similar(name: str, columns) -> str:
    columns = [str(c) for c in columns]
    close = difflib.get_close_matches(name, columns, n=5, cutoff=0.6)
    close += [c for c in columns if c.lower() == name.lower() and c not in close]
    if close:
        return f"similar columns: {close}"
    shown = columns[:_MAX_LISTED_COLUMNS]
    more = " ..." if len(columns) > len(shown) else ""
    return f"available columns: {shown}{more}"


def _missing_column_error(names, columns, where: str) -> ValueError:
    names = sorted(set(names))
    listing = "; ".join(f"{n!r} ({_similar(n, columns)})" for n in names)
    plural = "s" if len(names) > 1 else ""
    return ValueError(f"formula uses column{plural} not in {where}: {listing}")


class _Evaluator:
    """Evaluates term expressions on one data frame, R-style (``^`` is power,
    ``log(ph.karno)`` reads the column ``ph.karno``)."""

    class _CaretToPower(ast.NodeTransformer):
        def visit_BinOp(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            if isinstance(node.op, ast.BitXor):
                node.op = ast.Pow()
            return node

    def __init__(self, data: pd.DataFrame, where: str):
        self.data = data
        self.where = where
        self.columns = [str(c) for c in data.columns]
        self._dotted = sorted((c for c in self.columns if "." in c and "`" not in c),
                              key=len, reverse=True)

    def _prepare(self, expr: str, env) -> tuple[str, list[str]]:
        for col in self._dotted:  # R names with dots: backtick them for Python
            expr = re.sub(rf"(?<![\w.`]){re.escape(col)}(?![\w.`])", f"`{col}`", expr)
        aliases: dict[str, str] = {}
        code = sanitize_variable_names(expr, env, aliases)
        tree = self._CaretToPower().visit(ast.parse(code, mode="eval"))
        names = {node.id for node in ast.walk(tree)
                 if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        unknown = [aliases.get(n, n) for n in names if n not in env]
        return ast.unparse(tree), unknown

    def check(self, expr: str) -> list[str]:
        """Column names ``expr`` needs that the data lacks."""
        env = LayeredMapping({}, dict(self.data.items()), FUNCTIONS)
        try:
            return self._prepare(expr, env)[1]
        except SyntaxError as exc:
            raise ValueError(f"formula term {expr!r} is not a valid expression: {exc}") from None

    def variables(self, expr: str) -> list[str]:
        """Data columns ``expr`` reads."""
        names = self._prepare(expr, LayeredMapping({}, FUNCTIONS))[1]
        return [name for name in names if name in self.columns]

    def evaluate(self, term: TermSpec):
        """The value of a term on the data (Series, ndarray, SurvData, ...)."""
        if term.lookup:
            if term.expr not in self.columns:
                raise _missing_column_error([term.expr], self.columns, self.where)
            return self.data[term.expr]
        env = LayeredMapping({}, dict(self.data.items()), FUNCTIONS)
        code, unknown = self._prepare(term.expr, env)
        if unknown:
            raise _missing_column_error(unknown, self.columns, self.where)
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                return stateful_eval(code, env, None, term.state, None)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"formula term {term.label!r}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - report any evaluation failure clearly
            raise ValueError(f"could not evaluate formula term {term.label!r} on {self.where}: "
                             f"{type(exc).__name__}: {exc}") from None


def _as_column(value, label: str, n: int) -> pd.Series:
    """A term's value as one column of length n (categoricals kept as such)."""
    if isinstance(value, SurvData):
        raise ValueError(f"formula term {label!r}: Surv() belongs on the left-hand side")
    meta = getattr(value, "__formulaic_metadata__", None)
    if meta is not None:
        value = value.__wrapped__
        if meta.kind is Factor.Kind.CATEGORICAL and not isinstance(
                getattr(value, "dtype", None), pd.CategoricalDtype):
            value = pd.Series(pd.Categorical(np.asarray(value, dtype=object)
                                             if pd.api.types.is_string_dtype(np.asarray(value))
                                             else value))
    if isinstance(value, pd.DataFrame):
        value = value.to_numpy() if value.shape[1] != 1 else value.iloc[:, 0]
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


# ------------------------------------------------------------------ parsing
def _plain(exc: Exception) -> str:
    """formulaic's message without its terminal colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", str(exc))


def _parse(formula: str, available: list[str]):
    try:
        parsed = Formula.from_spec(formula, ordering="none", context={_AVAILABLE: available})
    except (FormulaicError, SyntaxError) as exc:
        raise ValueError(f"formula {formula!r} could not be parsed: {_plain(exc)}") from None
    parts = [getattr(parsed, "lhs", None), getattr(parsed, "rhs", parsed)]
    if any(part is not None and not isinstance(part, SimpleFormula) for part in parts):
        raise ValueError(f"formula {formula!r}: multi-part formulas ('|') are not supported; "
                         "write 'response ~ predictors'")
    return parsed


def _term_spec(term, formula: str) -> TermSpec:
    factors = list(term.factors)
    if len(factors) > 1:
        raise ValueError(
            f"formula {formula!r}: term {str(term)!r} is an interaction; gbm finds "
            "interactions between predictors itself (use interaction_depth > 1): list "
            "each predictor once, e.g. 'y ~ a + b'")
    fac = factors[0]
    if fac.eval_method is Factor.EvalMethod.LITERAL:
        raise ValueError(f"formula {formula!r}: constant term {fac.expr!r} is not a predictor")
    lookup = fac.eval_method is Factor.EvalMethod.LOOKUP
    return TermSpec(label=fac.expr if lookup else _r_deparse_style(fac.expr), expr=fac.expr,
                    lookup=lookup)


def _r_deparse_style(expr: str) -> str:
    """Label as R deparses it: ``I(rm^2)``, ``I(a/b)`` (formulaic writes ``rm ^ 2``),
    no backticks around syntactic names such as ``meal.cal``."""
    expr = re.sub(r"`([A-Za-z.][\w.]*)`", r"\1", expr)
    return re.sub(r"\s*\^\s*", "^", re.sub(r"\s+/\s+", "/", expr))


def _is_intercept(term) -> bool:
    return all(f.eval_method is Factor.EvalMethod.LITERAL and f.expr in ("1", "0")
               for f in term.factors)


def _named_columns(formula: str) -> list[str]:
    """Bare names in the formula (including ones removed by ``-``): all must exist."""
    try:
        tokens = DefaultFormulaParser().get_tokens(formula)
    except (FormulaicError, SyntaxError) as exc:
        raise ValueError(f"formula {formula!r} could not be parsed: {_plain(exc)}") from None
    return [t.token for t in tokens if t.kind.value == "name"]


def _prepare_data(data) -> pd.DataFrame:
    if isinstance(data, Mapping) and not isinstance(data, pd.DataFrame):
        data = pd.DataFrame(dict(data))
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if data.shape[0] < _MIN_ROWS:
        raise ValueError(f"data has {data.shape[0]} row(s); gbm needs at least {_MIN_ROWS} "
                         "(in practice many more)")
    if data.shape[1] == 0:
        raise ValueError("data has no columns")
    if data.columns.duplicated().any():
        raise ValueError(f"data has duplicated column names: "
                         f"{list(data.columns[data.columns.duplicated()])}")
    if not all(isinstance(c, str) for c in data.columns):
        data = data.rename(columns=str)
    return data.reset_index(drop=True)


def _weights(weights, data: pd.DataFrame) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in data.columns:
            raise ValueError(f"weights: column {weights!r} is not in data "
                             f"({_similar(weights, data.columns)})")
        weights = data[weights]
    try:
        w = (weights.to_numpy(dtype=float, na_value=np.nan) if isinstance(weights, pd.Series)
             else np.asarray(weights, dtype=float))
    except (TypeError, ValueError):
        raise TypeError("weights must be numeric (a column name or an array of numbers)") from None
    if w.ndim != 1 or w.shape[0] != data.shape[0]:
        raise ValueError(f"weights has length {w.size} (shape {w.shape}); data has "
                         f"{data.shape[0]} rows")
    if np.isnan(w).any():
        raise ValueError(f"weights has {int(np.isnan(w).sum())} missing values")
    if (w < 0).any():
        raise ValueError(f"weights has {int((w < 0).sum())} negative values; weights must be >= 0")
    if not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("weights must be finite and not all zero")
    return w


def _response(value, name: str, n: int):
    """(y, y_levels, y_is_categorical, status) from the evaluated left-hand side."""
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
            levels = ["FALSE", "TRUE"]
            y = col.map(lambda v: np.nan if pd.isna(v) else float(bool(v))).to_numpy(dtype=float)
        elif kind == NUMERIC:
            levels, y = None, _numeric_values(col, name, "(the response)")
        else:  # factor response: codes of its levels, the second level is 1
            levels, codes = PredictorEncoder._fit_levels(col)
            y = np.where(codes >= 0, codes, np.nan).astype(float)
    if missing:
        raise ValueError(f"the response {name} has {missing} missing values; gbm does not "
                         "allow missing values in the response")
    return y, levels, levels is not None, status


def _refuse_made_nan(frame: pd.DataFrame, predictors, evaluator: _Evaluator) -> None:
    """R's "NaN found in predictor variables": a transform (``np.log(x)`` of a
    negative x) that gives NaN where its inputs are not missing is refused."""
    for spec in predictors:
        column = frame[spec.label]
        if spec.lookup or not pd.api.types.is_numeric_dtype(column.dtype):
            continue
        nan = column.isna().to_numpy()
        if not nan.any():
            continue
        inputs = evaluator.variables(spec.expr)
        given = ~evaluator.data[inputs].isna().any(axis=1).to_numpy() if inputs else \
            np.ones(len(column), dtype=bool)
        made = int((nan & given).sum())
        if made:
            raise ValueError(f"formula term {spec.label!r} gives NaN for {made} rows where "
                             f"{', '.join(inputs)} is not missing (e.g. the log of a negative "
                             "number); R: NaN found in predictor variables")


def _offset_value(terms, evaluator: _Evaluator, n: int) -> np.ndarray | None:
    if not terms:
        return None
    total = np.zeros(n)
    for term in terms:  # several offset() terms add up, as in R's model.offset
        col = _as_column(evaluator.evaluate(term), term.label, n)
        if not pd.api.types.is_numeric_dtype(col.dtype):
            raise TypeError(f"{term.label} must be numeric, got dtype {col.dtype}")
        total += col.to_numpy(dtype=float, na_value=np.nan)
    if np.isnan(total).any():
        raise ValueError(f"the offset has {int(np.isnan(total).sum())} missing values")
    return total


# ------------------------------------------------------------------ public API
def model_frame(formula: str, data, weights=None,
                max_levels=R_MAX_CATEGORICAL_LEVELS) -> ModelFrame:
    """Build the model frame R's ``gbm(formula, data, weights)`` builds.

    Parameters
    ----------
    formula : str, e.g. ``"y ~ ."``, ``"y ~ . - c"``, ``"y ~ a + log(b) + offset(log(t))"``,
        ``"Surv(time, status) ~ ."``.  ``.`` means all columns of ``data`` (in their order)
        except the response's, the weights column (when named) and those inside ``offset()``.
    data : pandas DataFrame.
    weights : None, a column name of ``data``, or an array of n non-negative numbers.

    Returns
    -------
    ModelFrame; ``encoder`` codes new data the same way (see :func:`model_frame_newdata`).
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ x1 + x2', got "
                        f"{type(formula).__name__}")
    if "~" not in formula:
        raise ValueError(f"formula {formula!r} has no '~': write 'response ~ predictors'")
    data = _prepare_data(data)
    n, columns = data.shape[0], list(data.columns)
    w = _weights(weights, data)
    evaluator = _Evaluator(data, "data")

    unknown = [c for c in _named_columns(formula) if c not in columns]
    if unknown:
        raise _missing_column_error(unknown, columns, "data")

    first = _parse(formula, [])
    lhs = getattr(first, "lhs", None)
    if lhs is None or len(lhs) == 0:
        raise ValueError(f"formula {formula!r} has no response: write 'response ~ predictors'")
    if len(lhs) != 1 or len(list(lhs)[0].factors) != 1:
        raise ValueError(f"formula {formula!r}: the left-hand side must be one response "
                         "(a column, an expression such as log(y), or Surv(time, status))")
    offsets = [_term_spec(t, formula) for t in first.rhs
               if not _is_intercept(t) and _OFFSET_CALL.match(str(t))]
    # R's meaning of '.': every column but the response's, so a weights column or a
    # column used inside offset() is a predictor too (R gbm does the same); say so
    shadowed = {weights} if isinstance(weights, str) else set()
    for term in offsets:
        shadowed.update(evaluator.variables(term.expr))
    parsed = _parse(formula, columns)

    response_term = _term_spec(list(parsed.lhs)[0], formula)
    predictors = []
    for term in parsed.rhs:
        if _is_intercept(term) or _OFFSET_CALL.match(str(term)):
            continue
        spec = _term_spec(term, formula)
        if spec.label == response_term.label:
            warn(f"the response {spec.label} appeared on the right-hand side and was "
                 "dropped")
            continue
        predictors.append(spec)
    if not predictors:
        raise ValueError(f"formula {formula!r} has no predictors")
    used = sorted(shadowed & {p.label for p in predictors})
    if used and "." in _rhs_text(formula):
        warn(f"'.' includes {used} as predictor(s) although they are used as "
             f"weights/offset; this is R's meaning of '.'; write '- {used[0]}' "
             "to leave a column out")
    for spec in [response_term, *offsets, *predictors]:
        if not spec.lookup and (missing := evaluator.check(spec.expr)):
            raise _missing_column_error(missing, columns, "data")

    y, y_levels, y_is_cat, status = _response(evaluator.evaluate(response_term),
                                              response_term.label, n)
    offset = _offset_value(offsets, evaluator, n)
    frame = pd.DataFrame({spec.label: _as_column(evaluator.evaluate(spec), spec.label, n)
                          for spec in predictors})
    _refuse_made_nan(frame, predictors, evaluator)
    encoder = PredictorEncoder(max_levels=max_levels)
    x, var_names, var_type, var_levels = encoder.fit_transform(frame)
    encoder.terms, encoder.offset_terms = predictors, offsets
    return ModelFrame(x=x, var_names=var_names, var_type=var_type, var_levels=var_levels,
                      y=y, response_name=response_term.label, offset=offset, weights=w,
                      encoder=encoder, y_levels=y_levels, y_is_categorical=y_is_cat,
                      status=status, is_surv=status is not None, formula=formula)


def _rhs_text(formula: str) -> str:
    return formula.split("~", 1)[1]


def _newdata_frame(newdata) -> pd.DataFrame:
    if isinstance(newdata, Mapping) and not isinstance(newdata, pd.DataFrame):
        newdata = pd.DataFrame(dict(newdata))
    if not isinstance(newdata, pd.DataFrame):
        raise TypeError(f"newdata must be a pandas DataFrame, got {type(newdata).__name__}")
    if not all(isinstance(c, str) for c in newdata.columns):
        newdata = newdata.rename(columns=str)
    return newdata.reset_index(drop=True)


def model_frame_newdata(encoder: PredictorEncoder, newdata) -> np.ndarray:
    """Evaluate the training formula's terms on ``newdata`` and code them.

    Returns the float64 (n, p) matrix ``encoder`` codes (as R's predict.gbm builds
    ``model.frame(terms(reformulate(var.names)), newdata, na.action = na.pass)``).
    Without formula terms (encoder fitted on a table), the columns are taken by name.
    """
    if not isinstance(encoder, PredictorEncoder):
        raise TypeError(f"encoder must be a PredictorEncoder, got {type(encoder).__name__}")
    if encoder.terms is None:
        return encoder.transform(newdata)
    newdata = _newdata_frame(newdata)
    evaluator = _Evaluator(newdata, "newdata")
    n = newdata.shape[0]
    frame = pd.DataFrame({t.label: _as_column(evaluator.evaluate(t), t.label, n)
                          for t in encoder.terms}, index=pd.RangeIndex(n))
    return encoder.transform(frame)


def offset_newdata(encoder: PredictorEncoder, newdata) -> np.ndarray | None:
    """The formula's ``offset()`` terms evaluated on ``newdata`` (None without offsets).

    R's predict.gbm ignores offsets; this is for callers that want them.
    """
    if not getattr(encoder, "offset_terms", None):
        return None
    newdata = _newdata_frame(newdata)
    return _offset_value(encoder.offset_terms, _Evaluator(newdata, "newdata"), newdata.shape[0])
