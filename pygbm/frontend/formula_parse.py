"""Formulas with expressions, parsed and evaluated through formulaic.

Terms other than bare column names (``log(x)``, ``I(rm^2)``, ``C(rad)``,
``offset(log(t))``, backticked names) are parsed with formulaic's parser and
evaluated here: bare names straight from the data, calls through formulaic's
evaluator with numpy functions, so no contrasts are applied and no rows are dropped.
Formulas of bare names only are read by :mod:`.plain_formula` instead, which does
not load formulaic.

In terms, R habits work: ``^`` is a power (``I(x^2)``), dotted column names can be
used inside calls (``log(ph.karno)``), ``log(x, base)``; the functions available are
formulaic's (log, exp, I, C, scale, center, ...) plus sqrt, abs, log1p, expm1, sin, cos,
tan, floor, ceiling, sign, ``np`` and ``pd``, and R's own (:mod:`.r_functions`:
``factor``, ``as.factor``, ``ordered``, ``as.numeric``, ``as.integer``, ``as.character``,
``as.logical``, ``is.na``, ``is.finite``, ``is.infinite``, ``pmin``, ``pmax``, ``round``,
``signif``, ``trunc``, ``ifelse``, ``relevel``, ``droplevels``, ``xor``; :mod:`.r_cut`:
``cut``) with R's
constants (``TRUE``, ``FALSE``, ``NA``, ``Inf``, ``NULL``, ...) and R's operators
(:mod:`.r_operators`: ``&``, ``|``, ``!``, ``%in%``, ``%%``, ``%/%``), all with R's
precedence (:mod:`.r_grammar`).  ``C(x)`` or
``factor(x)`` makes a numeric column a factor.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from dataclasses import replace

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

from .._rmath import TRIGONOMETRIC_R, exp_r, expm1_r, log10_r, log1p_r, log2_r, log_r, tan_r
from .encode import as_column, holds_numbers
from .r_cut import cut
from .r_deparse import expression_key, python_expression, r_response, term_labels
from .r_operators import AND_NAME, IN_NAME, NOT_NAME, OR_NAME
from .r_factors import check_na_levels
from .r_grammar import STRING_LITERAL
from .r_functions import (COMPARE_NAME, R_CONSTANTS, R_FUNCTION_NAMES, R_FUNCTIONS,
                          python_names, r_function_names, r_names)
from .r_dates import R_DATE_FUNCTIONS
from .r_summaries import R_SUMMARIES
from .r_text import R_TEXT_FUNCTIONS
from .surv import Surv
from .terms import FormulaTerms, TermSpec, missing_column_error

__all__ = ["FUNCTIONS", "Evaluator", "made_nan", "parse_terms", "refuse_made_nan"]

_OFFSET_CALL = re.compile(r"^\s*offset\s*\(")
_AVAILABLE = "__formulaic_variables_available__"


#: R's ``log(x, base)`` for the bases it computes with their own C functions
_LOG_TO_BASE = {10.0: log10_r, 2.0: log2_r}


def _log(x, base=None):
    """R's ``log(x, base)``: natural log, or log to ``base`` (10 and 2 by their own
    C functions, as R), with the C library's rounding, as R."""
    if base is None:
        return log_r(x)
    own = _LOG_TO_BASE.get(float(base)) if np.ndim(base) == 0 else None
    return own(x) if own is not None else log_r(x) / log_r(base)


def _offset(values):
    """``offset(x)`` inside a formula: the values, as float (numbers only)."""
    col = as_column(values)
    if not holds_numbers(col):  # dates, durations, a Categorical, text "1", complex
        raise TypeError(f"offset() must be numbers, got dtype {col.dtype}")
    return np.asarray(values, dtype=float)


#: functions usable in formula terms, besides formulaic's (log, exp, I, C, scale, ...)
FUNCTIONS = {
    **TRANSFORMS,
    "log": _log, "log2": log2_r, "log10": log10_r, "log1p": log1p_r, "exp": exp_r,
    "expm1": expm1_r, "Surv": Surv, "offset": _offset, "sqrt": np.sqrt, "abs": np.abs,
    "sin": np.sin, "cos": np.cos, "tan": tan_r, **TRIGONOMETRIC_R, "floor": np.floor,
    "ceiling": np.ceil, "ceil": np.ceil, "sign": np.sign, "pd": pd, **R_FUNCTIONS,
    **R_TEXT_FUNCTIONS, **R_DATE_FUNCTIONS,
    "cut": cut, **R_SUMMARIES,
}

#: prefix of the name a called formula function is evaluated under, so that a data
#: column of the same name (``c``, ``sign``, ``round``) does not hide the function in
#: call position (R looks a called name up among functions only)
_CALL_PREFIX = "_pygbm_fn_"
#: the functions renamed so: all but formulaic's ``Q("x")``, which names a column.
#: The stateful transforms (``scale(x)``, ``mean(x)``) are renamed too: their state is
#: keyed by the renamed call's text, the same when the fit evaluates a term and when
#: new data do
_CALLED = {_CALL_PREFIX + name: f for name, f in FUNCTIONS.items() if name != "Q"}


#: NumPy's words for arrays of lengths that do not match (R would recycle)
_BROADCAST = "could not be broadcast"


class Evaluator:
    """Evaluates term expressions on one data frame, R-style (``^`` is power,
    ``log(ph.karno)`` reads the column ``ph.karno``)."""

    class _CaretToPower(ast.NodeTransformer):
        def visit_BinOp(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            if isinstance(node.op, ast.BitXor):
                node.op = ast.Pow()
            return node

    class _RComparisons(ast.NodeTransformer):
        """``a > b`` evaluated as R does: missing where a or b is missing."""
        SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                   ast.NotEq: "!="}

        def visit_Compare(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            symbol = self.SYMBOLS.get(type(node.ops[0]))
            if len(node.ops) != 1 or symbol is None:
                return node
            return ast.Call(func=ast.Name(id=COMPARE_NAME, ctx=ast.Load()),
                            args=[node.left, ast.Constant(symbol), node.comparators[0]],
                            keywords=[])

    class _ROperators(ast.NodeTransformer):
        """R's ``&``, ``|``, ``!`` and ``%in%`` (written ``and``, ``or``, ``not`` and ``@``
        by :func:`~.r_operators.to_python`) evaluated as R does, row by row."""
        BOOLEAN = {ast.And: AND_NAME, ast.Or: OR_NAME}

        @staticmethod
        def _call(name, *args):
            return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args),
                            keywords=[])

        def visit_BoolOp(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            result = node.values[0]
            for value in node.values[1:]:
                result = self._call(self.BOOLEAN[type(node.op)], result, value)
            return result

        def visit_UnaryOp(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            return self._call(NOT_NAME, node.operand) if isinstance(node.op, ast.Not) \
                else node

        def visit_BinOp(self, node):  # noqa: N802 (ast API)
            self.generic_visit(node)
            return self._call(IN_NAME, node.left, node.right) \
                if isinstance(node.op, ast.MatMult) else node

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
        tree = ast.fix_missing_locations(
            self._ROperators().visit(self._RComparisons().visit(tree)))
        calls = {node.func.id for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        if functions := sorted(n for n in calls if n not in FUNCTIONS):
            raise _unavailable(f"formula term {r_names(expr)!r}", functions)
        check_na_levels(tree, r_names(expr))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and _CALL_PREFIX + node.func.id in _CALLED:
                node.func.id = _CALL_PREFIX + node.func.id
        names = {node.id for node in ast.walk(tree)
                 if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        unknown = [aliases.get(n, n) for n in names if n not in env]
        unknown += [n for n in _quoted_columns(tree) if n not in env]
        return ast.unparse(tree), unknown

    def _env(self) -> LayeredMapping:
        """The names a term sees: its data's columns (the layer formulaic's ``Q()``
        reads, named "data") and the formula functions."""
        return LayeredMapping({}, LayeredMapping(dict(self.data.items()), name="data"),
                              R_CONSTANTS, FUNCTIONS, _CALLED)

    def check(self, expr: str) -> list[str]:
        """Column names ``expr`` needs that the data lacks."""
        env = self._env()
        try:
            return self._prepare(expr, env)[1]
        except SyntaxError as exc:
            raise ValueError(f"formula term {expr!r} is not a valid expression: {exc}") from None

    def variables(self, expr: str) -> list[str]:
        """Data columns ``expr`` reads."""
        names = self._prepare(expr, LayeredMapping({}))[1]   # a column named "c" too
        return [name for name in names if name in self.columns]

    def evaluate(self, term: TermSpec):
        """The value of a term on the data (Series, ndarray, SurvData, ...)."""
        if term.lookup:
            if term.expr not in self.columns:
                raise missing_column_error([term.expr], self.columns, self.where)
            return self.data[term.expr]
        env = self._env()
        code, unknown = self._prepare(term.expr, env)
        if unknown:
            raise missing_column_error(unknown, self.columns, self.where)
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # R: silent
                return _unwrapped(stateful_eval(code, env, None, term.state, None))
        except (ValueError, TypeError) as exc:
            if _BROADCAST in str(exc):
                raise ValueError(f"formula term {term.label!r}: a vector of another length "
                                 "than the rows meets a column (R recycles the shorter one "
                                 "along the rows); give one value or one per row") from None
            kind = TypeError if isinstance(exc, TypeError) else ValueError  # NumPy's own
            raise kind(f"formula term {term.label!r}: {exc}") from None     # take other args
        except Exception as exc:  # noqa: BLE001 - report any evaluation failure clearly
            raise ValueError(f"could not evaluate formula term {term.label!r} on {self.where}: "
                             f"{type(exc).__name__}: {exc}") from None


def _quoted_columns(tree) -> list[str]:
    """The column names quoted by formulaic's ``Q("name")`` calls in ``tree``."""
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Q" and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)]


def _unwrapped(value):
    """A term's value without formulaic's wrapper; ``C(x)`` made a categorical."""
    meta = getattr(value, "__formulaic_metadata__", None)
    if meta is None:
        return value
    value = value.__wrapped__
    if meta.kind is Factor.Kind.CATEGORICAL and not isinstance(
            getattr(value, "dtype", None), pd.CategoricalDtype):
        value = pd.Series(pd.Categorical(np.asarray(value, dtype=object)
                                         if pd.api.types.is_string_dtype(np.asarray(value))
                                         else value))
    return value


def _plain(exc: Exception) -> str:
    """formulaic's message without its terminal colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", str(exc))


#: formulaic's message for a comparison outside a function call, which R's grammar
#: reads as a term (``y ~ a + (b > 0)``) but formulaic's does not
_COMPARISON = re.compile(r"Unknown operator '[=!<>]+'")


#: a call of an R function whose dotted name starts with a Python keyword
#: (``as.vector(``, ``is.numeric(``), which Python cannot parse
_KEYWORD_CALL = re.compile(rf"(?<![\w.`])((?:{'|'.join(keyword.kwlist)})\.[\w.]+)\s*\(")
#: a Python keyword that R reads as a name (a column ``class``, ``in``, ``lambda``):
#: formulaic's parser cannot read it in a function call or an expression, backticked
#: or not (True, False and None are Python values, which it reads)
_KEYWORD_NAME = re.compile(r"(?<![\w.%])(?:" + "|".join(
    k for k in keyword.kwlist if k not in ("True", "False", "None")) + r")(?![\w.%])")
_STRING = re.compile(STRING_LITERAL)
#: a backticked name (its text in the group)
_BACKTICKED = re.compile(r"`([^`]*)`")


#: the R functions an error lists as available, by their R names
_AVAILABLE_FUNCTIONS = R_FUNCTION_NAMES + r_function_names({**R_TEXT_FUNCTIONS,
                                                             **R_DATE_FUNCTIONS})


def _unavailable(what: str, functions) -> ValueError:
    """The error for ``what`` (a formula, a term) calling functions formulas do not have."""
    return ValueError(
        f"{what} calls {', '.join(map(repr, functions))}, which is not "
        f"available in formulas (available: R's {', '.join(_AVAILABLE_FUNCTIONS)}, cut, I, log, "
        "exp, sqrt, abs, ..., and numpy as np.<name>); compute the column in the data "
        "frame first")


def _keywords_in_calls(formula: str) -> list[str]:
    """The Python keywords ``formula`` reads as names inside parentheses (a call or a
    grouping), where formulaic cannot parse them: not in strings, not as a part of a
    backticked name (`in stock`), not bare (``y ~ class`` is read), so that another
    error of the formula (an unclosed parenthesis) is not blamed on them."""
    text = _STRING.sub("''", formula)
    text = _BACKTICKED.sub(lambda m: m[0] if _KEYWORD_NAME.fullmatch(m[1]) else "``", text)
    found = set()
    for match in _KEYWORD_NAME.finditer(text):
        before = text[:match.start()]
        if before.count("(") > before.count(")"):
            found.add(match[0])
    return sorted(found)


def _parse_error(formula: str, exc: Exception) -> ValueError:
    """The error of a formula formulaic could not parse, with a way out where there is one."""
    if called := sorted({c for c in _KEYWORD_CALL.findall(formula)
                         if c not in _AVAILABLE_FUNCTIONS}):
        return _unavailable(f"formula {formula!r}", called)
    if names := _keywords_in_calls(formula):
        return ValueError(
            f"formula {formula!r} could not be parsed: {', '.join(map(repr, names))} "
            "is a Python keyword, which formulaic's parser cannot read in a function call or "
            "an expression, backticked or not (a bare column is read): rename the "
            f"column first, e.g. data.rename(columns={{{names[0]!r}: {names[0] + '_'!r}}})")
    message = _plain(exc)
    hint = (" (a comparison is a term only inside a function call: write I(b > 0) or "
            "as.numeric(f == 'a'))" if _COMPARISON.search(message) else "")
    return ValueError(f"formula {formula!r} could not be parsed{hint}: {message}")


#: formulas whose parse is kept for the next call (formulaic takes about 1 ms a parse, a
#: notebook refits the same formula often: another n_trees, shrinkage, distribution)
PARSE_CACHE_SIZE = 64


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse(formula: str, available: tuple[str, ...]):
    """formulaic's parse of ``formula`` with the data's columns ``available``
    (kept: the parsed formula is only read)."""
    try:
        parsed = Formula.from_spec(python_names(formula), ordering="none",
                                   context={_AVAILABLE: available})
    except (FormulaicError, SyntaxError) as exc:
        raise _parse_error(formula, exc) from None
    parts = [getattr(parsed, "lhs", None), getattr(parsed, "rhs", parsed)]
    if any(part is not None and not isinstance(part, SimpleFormula) for part in parts):
        raise ValueError(f"formula {formula!r}: multi-part formulas ('|') are not supported; "
                         "write 'response ~ predictors'")
    return parsed


def _term_spec(term, formula: str, labels: dict[str, str]) -> TermSpec:
    """The term's spec; its label R's deparse of the term as typed (``labels``, by
    :func:`~.r_deparse.expression_key`), else of formulaic's expression."""
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
    label = fac.expr if lookup else \
        labels.get(expression_key(fac.expr)) or _r_deparse_style(fac.expr)
    return TermSpec(label=label, expr=fac.expr, lookup=lookup)


def _r_deparse_style(expr: str) -> str:
    """Label as R deparses it: ``I(rm^2)``, ``I(a/b)`` (formulaic writes ``rm ^ 2``),
    no backticks around syntactic names such as ``meal.cal``."""
    expr = r_names(re.sub(r"`([A-Za-z.][\w.]*)`", r"\1", expr))
    return re.sub(r"\s*\^\s*", "^", re.sub(r"\s+/\s+", "/", expr))


def _is_intercept(term) -> bool:
    return all(f.eval_method is Factor.EvalMethod.LITERAL and f.expr in ("1", "0")
               for f in term.factors)


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _named_columns(formula: str) -> tuple[str, ...]:
    """Bare names in the formula (including ones removed by ``-``): all must exist."""
    try:
        tokens = DefaultFormulaParser().get_tokens(python_names(formula))
    except (FormulaicError, SyntaxError) as exc:
        raise _parse_error(formula, exc) from None
    return tuple(t.token for t in tokens if t.kind.value == "name")


#: a backticked name in a formula (R's quoting of a non-syntactic name)
_BACKTICKED = re.compile(r"`((?:[^`\\]|\\.)*)`")


def _refuse_unreadable_backticks(formula: str) -> None:
    """formulaic reads `` `1` `` as the intercept and drops `` `` ``: a column named
    "1" would be left out without a word; R refuses an empty name."""
    for name in _BACKTICKED.findall(formula):
        if name == "":
            raise ValueError(f"formula {formula!r}: `` (an empty name) names no column "
                             "(R: attempt to use zero-length variable name)")
        if name == "1":
            raise ValueError(f"formula {formula!r}: `1` is read as the intercept, not as "
                             "the column '1' (formulaic's parser): rename the column, or "
                             "write Q(\"1\")")


def parse_terms(formula: str, evaluator: Evaluator) -> FormulaTerms:
    """The terms of ``formula`` on the evaluator's data, checked against its columns
    (a left-hand side with operators is one expression, as R reads it:
    :func:`~.r_deparse.r_response`)."""
    _refuse_unreadable_backticks(formula)
    formula, response_label = r_response(formula)
    columns = evaluator.columns
    unknown = [c for c in _named_columns(formula) if c not in columns]
    if unknown:
        raise missing_column_error(unknown, columns, evaluator.where)
    first = _parse(formula, ())
    lhs = getattr(first, "lhs", None)
    if lhs is None or len(lhs) == 0:
        raise ValueError(f"formula {formula!r} has no response: write 'response ~ predictors'")
    if len(lhs) != 1 or len(list(lhs)[0].factors) != 1:
        raise ValueError(f"formula {formula!r}: the left-hand side must be one response "
                         "(a column, an expression such as log(y), or Surv(time, status))")
    labels = term_labels(formula)
    offsets = tuple(_term_spec(t, formula, labels) for t in first.rhs
                    if not _is_intercept(t) and _OFFSET_CALL.match(str(t)))
    offset_columns = {name for term in offsets for name in evaluator.variables(term.expr)}
    parsed = _parse(formula, tuple(columns))
    response = _term_spec(list(parsed.lhs)[0], formula, labels)
    if response_label is not None:
        response = replace(response, label=response_label)
    predictors = tuple(_term_spec(t, formula, labels) for t in parsed.rhs
                       if not (_is_intercept(t) or _OFFSET_CALL.match(str(t))))
    for spec in (response, *offsets, *predictors):
        if not spec.lookup and (missing := evaluator.check(spec.expr)):
            raise missing_column_error(missing, columns, evaluator.where)
    return FormulaTerms(response=response, predictors=predictors, offsets=offsets,
                        offset_columns=frozenset(offset_columns))


#: functions whose missing values are R's NA by definition, not NaN from numbers:
#: ``cut()`` outside the breaks, ``factor(x, levels)`` outside the levels (and so
#: ``as.numeric()`` of either), ``as.logical()`` of text that is not TRUE or FALSE
_MISSING_BY_DESIGN = frozenset({"cut", "factor", "as_factor", "ordered", "as_ordered",
                                "as_logical", "rev", "sort", "as_Date"})
#: R's missing value written in a term (``ifelse(age > 50, NA, age)``)
_R_MISSING = "NA"


def _missing_by_design(expr: str, columns) -> bool:
    """Whether the missing values of ``expr`` may be R's NA by design: it calls one
    of :data:`_MISSING_BY_DESIGN` or writes ``NA`` (not a column of that name)."""
    node = python_expression(expr)
    if node is None:
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id in _MISSING_BY_DESIGN for n in ast.walk(node)) \
        or _R_MISSING not in columns and any(
            isinstance(n, ast.Name) and n.id == _R_MISSING for n in ast.walk(node))


def made_nan(frame: pd.DataFrame, predictors, evaluator: Evaluator):
    """``(label, rows, inputs)`` of each transform term of ``frame`` that gives NaN
    in ``rows`` rows where its ``inputs`` (the columns it reads) are not missing
    (``np.log(x)`` of a negative x, ``as.numeric()`` of words)."""
    for spec in predictors:
        column = frame[spec.label]
        if spec.lookup or not pd.api.types.is_numeric_dtype(column.dtype) \
                or _missing_by_design(spec.expr, evaluator.columns):
            continue
        nan = column.isna().to_numpy()
        if not nan.any():
            continue
        inputs = evaluator.variables(spec.expr)
        given = ~evaluator.data[inputs].isna().any(axis=1).to_numpy() if inputs else \
            np.ones(len(column), dtype=bool)
        made = int((nan & given).sum())
        if made:
            yield spec.label, made, inputs


def refuse_made_nan(frame: pd.DataFrame, predictors, evaluator: Evaluator) -> None:
    """R's "NaN found in predictor variables": a transform (``np.log(x)`` of a
    negative x) that gives NaN where its inputs are not missing is refused."""
    for label, made, inputs in made_nan(frame, predictors, evaluator):
        raise ValueError(f"formula term {label!r} gives NaN for {made} rows where "
                         f"{', '.join(inputs)} is not missing (e.g. the log of a negative "
                         "number); R: NaN found in predictor variables")
