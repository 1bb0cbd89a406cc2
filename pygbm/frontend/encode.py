"""Coding of predictors as R's ``gbm.fit`` does it (see docs/ARCHITECTURE.md).

* numeric column: used as is (float, NaN = missing), ``var_type`` 0,
  ``var_levels`` = the 11 quantiles at 0, .1, ..., 1 (R's type 7, NaN removed);
* ordered categorical: codes 0..L-1 of its observed levels, ``var_type`` 0
  (treated as continuous), ``var_levels`` = the level labels;
* unordered categorical (pandas Categorical, string/object, bool): codes 0..K-1 of
  the observed levels, ``var_type`` = K (max code + 1), ``var_levels`` = labels.
  Strings are sorted as R's ``factor()`` sorts them (ICU root collation, R's default
  here); a Categorical keeps its category order; bool levels are "FALSE", "TRUE".

Missing values (NaN, None, pd.NA) are missing (NaN in the coded matrix).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..messages import listed, warn

__all__ = ["PredictorEncoder", "r_quantile7", "r_label", "r_collation_key", "QUANTILE_PROBS",
           "as_column", "has_column_names", "holds_numbers", "refuse_numbers_for_levels",
           "row_labels", "table_type"]

R_MAX_CATEGORICAL_LEVELS = 1024  # gbm.fit's limit for an unordered factor
QUANTILE_PROBS = np.arange(11) / 10  # R's (0:10)/10
NUMERIC, ORDERED, CATEGORICAL = "numeric", "ordered", "categorical"
_R_FLOAT_DIGITS = 15  # as.character() of a double uses 15 significant digits
_UNSEEN_SHOWN = 10  # unseen levels a warning lists per predictor
# ICU root collation order of ASCII punctuation/symbols (what R's sort() gives here)
_ICU_ASCII_PUNCT = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PUNCT_RANK = {c: i for i, c in enumerate(_ICU_ASCII_PUNCT)}
_GROUP_SYMBOL, _GROUP_DIGIT, _GROUP_LETTER = 0, 1, 2
#: what pandas' infer_dtype calls an object column of dates, times or durations
#: (datetime.date from Series.dt.date, datetime.datetime, Timedelta, Period)
_TIMELIKE_INFERRED = ("date", "datetime", "datetime64", "time", "timedelta", "timedelta64",
                      "period")
#: dtype kinds of dates, times and durations: NumPy's and pyarrow's (a pyarrow duration
#: is not a timedelta64 dtype to pandas)
_TIME_KINDS = ("M", "m")
_DATES_HINT = (" (convert dates/times to numbers, e.g. days since a reference date: "
               "as.numeric(as.Date(x)) in a formula, as R gbm, which refuses dates too)")


# --------------------------------------------------------------------- helpers
def r_quantile7(values: np.ndarray, probs: np.ndarray = QUANTILE_PROBS) -> np.ndarray:
    """R's ``quantile(x, probs, na.rm = TRUE)`` with the default type 7, bit for bit.

    Only the order statistics the quantiles read are put in place (a partial
    sort: the same values as a full sort, several times faster on large data).
    """
    values = np.asarray(values, dtype=float)
    n = values.size - int(np.count_nonzero(np.isnan(values)))
    if n == 0:
        return np.full(len(probs), np.nan)
    index = 1 + max(n - 1, 0) * np.asarray(probs, dtype=float)
    lo = np.floor(index).astype(np.intp)
    hi = np.ceil(index).astype(np.intp)
    xs = np.partition(values, np.unique(np.concatenate((lo, hi))) - 1)   # NaN last
    qs = xs[lo - 1]
    upper = xs[hi - 1]
    interp = (index > lo) & (upper != qs)
    h = index - lo
    with np.errstate(invalid="ignore"):     # 0 * inf where not interpolated (unused)
        qs = np.where(interp, (1 - h) * qs + h * upper, qs)
    return qs


def r_number(value: float) -> str:
    """A double as R writes it (``as.character``, ``deparse``): at most 15 significant
    digits, fixed notation unless scientific is shorter (``2``, ``0.5``, ``123456``,
    ``1e+05``, ``1e-04``, ``100000.5``)."""
    if value == 0 or not np.isfinite(value):
        return "0" if value == 0 else "NaN" if np.isnan(value) else \
            ("Inf" if value > 0 else "-Inf")
    digits = next(n for n in range(1, _R_FLOAT_DIGITS + 1)
                  if float(f"{value:.{n}g}") == float(f"{value:.{_R_FLOAT_DIGITS}g}"))
    scientific = f"{value:.{digits - 1}e}"
    exponent = int(scientific.split("e")[1])
    fixed = f"{value:.{max(0, digits - 1 - exponent)}f}"
    return fixed if len(fixed) <= len(scientific) else scientific


def r_label(value) -> str:
    """A level label as R's ``as.character()`` writes it (TRUE/FALSE; an integer's
    digits; a double as :func:`r_number` writes it: 1 not 1.0, 1e+05 not 100000)."""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return r_number(float(value))
    return str(value)


def _label_number(label):
    """The number a level label writes as R writes numbers (``as.character`` of an
    integer, "100000", or of a double, "1e+05", "0.5"), or None: text, which
    "01234" or "1.50" is (R does not write numbers so), or not a finite number."""
    try:
        value = float(label)
    except (TypeError, ValueError):
        return None
    if not np.isfinite(value):
        return None
    integer = value.is_integer() and abs(value) < 2 ** 53 and label == str(int(value))
    return value if integer or label == r_number(value) else None


def _codes_by_number(lookup: dict) -> dict:
    """The codes of the training labels that write numbers, by their numbers: a level
    of ``factor(k)`` is the same level whether pandas read ``k`` as integers ("100000")
    or, with a missing value in the column, as floats ("1e+05"); R's read.csv keeps
    both integers, so R matches them by label."""
    out = {}
    for label, code in lookup.items():
        value = _label_number(label)
        if value is not None:
            out.setdefault(value, code)
    return out


def r_collation_key(text: str):
    """Sort key reproducing R's string order (ICU root collation, R's default here).

    Primary: punctuation < digits < letters, letters case- and accent-blind;
    secondary: accents; tertiary: lower case before upper case.  Exact for ASCII
    text; other symbols are placed among punctuation by code point.
    """
    primary, secondary, tertiary = [], [], []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and primary:
            secondary[-1] += ch
            continue
        if ch in _PUNCT_RANK:
            primary.append((_GROUP_SYMBOL, _PUNCT_RANK[ch]))
        elif ch.isdigit():
            primary.append((_GROUP_DIGIT, ord(ch)))
        elif ch.isalpha():
            primary.append((_GROUP_LETTER, ord(ch.lower())))
        else:
            primary.append((_GROUP_SYMBOL, len(_PUNCT_RANK) + ord(ch)))
        secondary.append("")
        tertiary.append(int(ch != ch.lower()))
    return (tuple(primary), tuple(secondary), tuple(tertiary))


def _column_kind(col: pd.Series, name: str, role: str = "predictor column") -> str:
    """numeric / ordered / categorical (bool and strings are categorical)."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return ORDERED if dtype.ordered else CATEGORICAL
    if pd.api.types.is_bool_dtype(dtype):
        return CATEGORICAL
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return NUMERIC
    if pd.api.types.is_string_dtype(dtype) and dtype != object:
        return CATEGORICAL
    if dtype == object:
        inferred = pd.api.types.infer_dtype(col, skipna=True)
        if inferred in ("string", "boolean"):
            return CATEGORICAL
        if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
            return NUMERIC
        if inferred == "empty":
            return NUMERIC  # all missing: reported as such by the caller
        raise TypeError(
            f"{role} {name!r} holds values of mixed or unsupported type "
            f"({inferred}); expected numbers, strings, bools or a pandas Categorical"
            + (_DATES_HINT if inferred in _TIMELIKE_INFERRED else "")
        )
    timelike = dtype.kind in _TIME_KINDS or isinstance(dtype, pd.PeriodDtype)
    raise TypeError(
        f"{role} {name!r} has dtype {dtype}, which gbm cannot use; expected "
        "numeric, bool, string or categorical" + (_DATES_HINT if timelike else "")
    )


def as_column(values) -> pd.Series:
    """``values`` (a Series, or any sequence or array, flattened) as one column;
    rows of unequal length as one object cell, which holds no numbers."""
    if isinstance(values, pd.Series):
        return values
    try:
        return pd.Series(np.asarray(values).ravel())
    except ValueError:          # NumPy's "inhomogeneous shape"
        return pd.Series([values], dtype=object)


def _numbers_as_text(col: pd.Series) -> bool:
    """A text column (not a Categorical, not bools) every value of which reads as a
    number ("3.5", "12"): fitted as levels, one per value, which new rows rarely
    share (silently missing there)."""
    if isinstance(col.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(col.dtype):
        return False
    present = col.dropna()
    if present.empty or pd.api.types.infer_dtype(present, skipna=True) != "string":
        return False
    # as floats: pyarrow's doubles keep the NaN of a word as a value, not as missing
    numbers = pd.to_numeric(present, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    return not np.isnan(numbers).any()


def holds_numbers(values) -> bool:
    """Whether ``values`` (:func:`as_column`) hold numbers (bools and numbers in an
    object column too): not text, not a Categorical, not dates or durations, not
    complex numbers."""
    col = as_column(values)
    dtype = col.dtype
    ok = (
        not isinstance(dtype, pd.CategoricalDtype)
        and (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
        and not pd.api.types.is_complex_dtype(dtype)
    )
    if not ok and dtype == object:
        ok = pd.api.types.infer_dtype(col, skipna=True) in (
            "integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty")
    return ok


def numeric_values(col: pd.Series, name: str, context: str) -> np.ndarray:
    """A numeric (or bool / numbers-in-object) column as float with NaN for missing."""
    dtype = col.dtype
    if not holds_numbers(col):
        raise TypeError(
            f"column {name!r} {context} must be numeric (it was numeric in the training "
            f"data), got dtype {dtype}; convert it with pd.to_numeric"
        )
    if dtype == object:
        col = col.map(lambda v: np.nan if pd.isna(v) else float(v))
    return col.to_numpy(dtype=float, na_value=np.nan)


def refuse_numbers_for_levels(col: pd.Series, labels: list, var: str, levels,
                              name: str) -> None:
    """A TypeError when ``col`` (the predictor ``var`` of the table ``name``, its
    distinct labels ``labels``) holds numbers none of which is one of the training
    ``levels`` of a categorical predictor: level codes given for labels (R's
    predict.gbm would read them as codes), not new levels to treat as missing."""
    dtype = col.dtype
    numbers = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype) \
        and not isinstance(dtype, pd.CategoricalDtype)
    if numbers and labels and not set(labels) & set(levels):
        raise TypeError(f"column {var!r} in {name} holds numbers, but {var!r} was categorical "
                        f"in the training data (levels {listed(levels)}): give its level labels "
                        "(numbers are not read as level codes)")


def unseen_levels(var: str, new: list) -> str:
    """The predictor ``var``'s part of :func:`warn_unseen_levels`'s message."""
    return f"{var}: {listed(new, _UNSEEN_SHOWN)}"


def warn_unseen_levels(name: str, parts: list[str], prior_parts: list[str] = ()) -> None:
    """One warning for the table ``name``'s levels never seen in training
    (``parts``: :func:`unseen_levels` of each predictor that has some, treated as
    missing; ``prior_parts``: those of predictors coded by target statistics,
    which give such a level the prior, not the missing values' statistic)."""
    said = []
    if parts:
        said.append("treated as missing: " + "; ".join(parts))
    if prior_parts:
        said.append("given the target statistics' prior (categorical=): " + "; ".join(prior_parts))
    if said:
        warn(f"{name} has levels not seen in training, " + "; and ".join(said))


def row_labels(newdata):
    """The row labels a result on ``newdata`` keeps (R's row names): a DataFrame's
    index; None (0..n-1) for other tables."""
    return newdata.index if isinstance(newdata, pd.DataFrame) else None


def has_column_names(data) -> bool:
    """Whether ``data`` is a table with column names (a DataFrame, or a mapping of
    column names to values), whose columns can be taken by name; a numpy matrix
    is not."""
    return isinstance(data, (pd.DataFrame, Mapping))


def table_type(data) -> str:
    """``data``'s type for an error saying a pandas DataFrame was expected: another
    library's table is named with its module ("polars.dataframe.frame.DataFrame",
    not a bare "DataFrame") and how to convert it, where it says."""
    kind = type(data)
    if isinstance(data, pd.Series):          # one row taken out of a frame, most likely
        return "Series (a row of a DataFrame as a frame: df.iloc[[i]] or s.to_frame().T)"
    if kind.__module__.split(".")[0] in ("builtins", "numpy", "pandas"):
        return kind.__name__
    hint = " (convert it with .to_pandas())" if hasattr(data, "to_pandas") else ""
    return f"{kind.__module__}.{kind.__qualname__}{hint}"


def r_labels(values) -> list:
    """:func:`r_label` of each value (None where it is missing), each distinct value
    written once."""
    written: dict = {}
    out = []
    for v in np.asarray(values, dtype=object).ravel():
        if pd.isna(v):
            out.append(None)
            continue
        key = (type(v), v)
        if key not in written:
            written[key] = r_label(v)
        out.append(written[key])
    return out


def labels_inverse(col: pd.Series):
    """Distinct non-missing labels of a column and each row's index into them (-1 = missing)."""
    inverse, uniques = pd.factorize(col, use_na_sentinel=True)
    values = np.asarray(uniques, dtype=object)
    return r_labels(values), np.asarray(inverse, dtype=np.intp)


def refuse_multiindex(frame: pd.DataFrame, what: str) -> None:
    """A table whose columns are a MultiIndex (names of several levels, from
    pd.concat with keys, a pivot or a groupby) has no single name per column
    that a formula or a fit could use: refused, naming ``what``."""
    if isinstance(frame.columns, pd.MultiIndex):
        raise ValueError(f"{what} has MultiIndex columns ({frame.columns.nlevels} levels, "
                         f"such as {frame.columns[0]!r}); gbm needs one name per column: "
                         "flatten them first (e.g. columns = ['_'.join(map(str, c)) for c in "
                         "columns], or drop a level)")


def predictor_table(data, what: str) -> pd.DataFrame:
    """``data`` (a DataFrame, or a 2-d array whose columns are named X1, X2, ...)
    as a table of predictors with one distinct name per column; anything else is
    refused naming ``what``."""
    if isinstance(data, pd.DataFrame):
        frame = data
    elif isinstance(data, np.ndarray):
        if data.ndim != 2:
            raise ValueError(f"{what} must be 2-dimensional (rows x predictors), "
                             f"got shape {data.shape}")
        frame = pd.DataFrame(data, columns=[f"X{j + 1}" for j in range(data.shape[1])])
    else:
        raise TypeError(f"{what} must be a pandas DataFrame or a 2-d numpy array, "
                        f"got {table_type(data)}")
    refuse_multiindex(frame, what)
    names = pd.Index([str(c) for c in frame.columns])  # the names predictors are given
    if names.duplicated().any():
        dup = list(dict.fromkeys(names[names.duplicated()]))
        raise ValueError(f"{what} has duplicated column names: {dup}")
    return frame


# --------------------------------------------------------------------- encoder
class PredictorEncoder:
    """Codes a predictors table as R's gbm.fit and codes new data the same way.

    After ``fit``: ``var_names`` (list of str), ``var_type`` (int ndarray),
    ``var_levels`` (list: float ndarray of 11 quantiles, or list of str labels),
    ``kinds`` ("numeric" / "ordered" / "categorical" per predictor).
    ``terms`` / ``offset_terms``: the formula's predictor and ``offset()`` terms
    (given by :func:`pygbm.frontend.model_frame`), which
    :func:`pygbm.frontend.model_frame_newdata` evaluates on new data; None for an
    encoder of a table (new data are then taken by column name).
    """

    def __init__(self, max_levels: int | None = R_MAX_CATEGORICAL_LEVELS, terms=None,
                 offset_terms=()):
        #: R gbm's cap on the levels of an unordered categorical (None: no cap,
        #: for predictors coded by target statistics)
        self.max_levels = max_levels
        #: the formula's predictor terms (TermSpec), None without a formula
        self.terms = None if terms is None else tuple(terms)
        #: the formula's offset() terms (TermSpec), empty without offsets
        self.offset_terms = tuple(offset_terms)
        self.var_names: list[str] | None = None
        self.var_type: np.ndarray | None = None
        self.var_levels: list | None = None
        self.kinds: list[str] | None = None
        self._codes: list[dict | None] = []

    # ---- fitting
    def fit(self, data) -> "PredictorEncoder":
        """Learn the coding from ``data`` (DataFrame, or 2-d ndarray named X1..Xp)."""
        self.fit_transform(data)
        return self

    def fit_transform(self, data, what: str = "predictors"):
        """Fit on ``data`` and return ``(x, var_names, var_type, var_levels)``.

        ``x`` is the float64 (n, p) matrix gbm.fit works on (NaN = missing);
        ``what`` names ``data`` in errors (the caller's argument).
        """
        frame = predictor_table(data, what)
        if frame.shape[1] == 0:
            raise ValueError(f"{what}: there are no predictor columns")
        if frame.shape[0] == 0:
            raise ValueError(f"{what} has 0 rows; gbm needs at least 2 (in practice many more)")
        n, p = frame.shape
        x = np.empty((n, p), dtype=float)
        names, types, levels, kinds, codes = [], np.zeros(p, dtype=np.int64), [], [], []
        for j, name in enumerate(frame.columns):
            col = frame.iloc[:, j]
            label = str(name)
            kind = _column_kind(col, label)
            if kind == NUMERIC:
                x[:, j] = numeric_values(col, label, "in the training data")
                if np.isnan(x[:, j]).all():
                    raise ValueError(f"variable {j + 1}: {label} has only missing values.")
                levels.append(r_quantile7(x[:, j]))
                codes.append(None)
            else:
                labels, inverse = self._fit_levels(col)
                if not labels:
                    raise ValueError(f"variable {j + 1}: {label} has only missing values.")
                if _numbers_as_text(col):
                    warn(f"variable {j + 1}: {label} holds numbers as text; it is fitted as a "
                         f"categorical predictor of {len(labels)} levels (R refuses text "
                         "predictors): convert it with pd.to_numeric for a numeric "
                         "predictor, or to a pd.Categorical if the levels are meant")
                cap = self.max_levels
                if kind == CATEGORICAL and cap is not None and len(labels) > cap:
                    raise ValueError(
                        f"variable {j + 1}: {label} has {len(labels)} levels; R's gbm "
                        f"handles at most {R_MAX_CATEGORICAL_LEVELS} levels in an unordered "
                        "categorical predictor. Convert it to an ordered Categorical or to "
                        "numeric codes, merge rare levels, or use target statistics "
                        '(categorical="ordered_ts"), which have no level cap'
                    )
                x[:, j] = np.where(inverse >= 0, inverse, np.nan)
                levels.append(labels)
                codes.append({lab: i for i, lab in enumerate(labels)})
                if kind == CATEGORICAL:
                    types[j] = len(labels)
            if np.unique(np.asarray(levels[-1])).size == 1:
                warn(f"variable {j + 1}: {label} has no variation.")
            names.append(label)
            kinds.append(kind)
        self.var_names, self.var_type, self.var_levels = names, types, levels
        self.kinds, self._codes = kinds, codes
        return x, list(names), types.copy(), list(levels)

    @staticmethod
    def _fit_levels(col: pd.Series):
        """Observed levels (R's ``levels(factor(x))``) and each row's code (-1 = missing)."""
        if isinstance(col.dtype, pd.CategoricalDtype):  # keep the category order
            cat_codes = col.cat.codes.to_numpy()
            present = np.unique(cat_codes[cat_codes >= 0])
            remap = np.full(len(col.cat.categories), -1, dtype=np.intp)
            remap[present] = np.arange(present.size)
            labels = [r_label(v) for v in np.asarray(col.cat.categories[present], dtype=object)]
            codes = np.full(cat_codes.shape, -1, dtype=np.intp)   # a factor of no levels too
            codes[cat_codes >= 0] = remap[cat_codes[cat_codes >= 0]]
            return labels, codes
        labels, inverse = labels_inverse(col)
        order = sorted(range(len(labels)), key=lambda i: r_collation_key(labels[i]))
        rank = np.empty(len(labels), dtype=np.intp)
        rank[np.asarray(order, dtype=np.intp)] = np.arange(len(labels))
        return [labels[i] for i in order], np.where(inverse >= 0, rank[np.maximum(inverse, 0)], -1)

    # ---- new data
    def transform(self, newdata, name: str = "newdata", prior=()) -> np.ndarray:
        """Code ``newdata`` with the training coding; returns a float64 (n, p) matrix.

        Columns are matched by name (a 2-d ndarray is taken positionally). Categorical
        levels are matched by label; levels never seen in training are coded after the
        training levels (unordered; the trees treat them as missing, as R does, and
        target statistics give them their prior) or as missing (ordered), with one
        UserWarning, which says so of the predictors named in ``prior`` (those coded
        by target statistics). Errors and the warning call the table ``name``, the
        caller's argument.
        """
        if self.var_names is None:
            raise RuntimeError("PredictorEncoder.transform() called before fit()")
        frame = self._select(newdata, name)
        n, p = frame.shape[0], len(self.var_names)
        x = np.empty((n, p), dtype=float)
        unseen, unseen_prior = [], []
        for j, var in enumerate(self.var_names):
            col = frame.iloc[:, j]
            if self.kinds[j] == NUMERIC:
                x[:, j] = numeric_values(col, var, f"in {name}")
                continue
            labels, inverse = labels_inverse(col)
            refuse_numbers_for_levels(col, labels, var, self.var_levels[j], name)
            lookup = self._codes[j]
            codes = [lookup.get(lab, -1) for lab in labels]
            if min(codes, default=0) < 0:      # a label not found: match it by its number
                by_number = _codes_by_number(lookup)
                codes = [c if c >= 0 else by_number.get(_label_number(lab), -1)
                         for lab, c in zip(labels, codes)]
            code_of_label = np.array(codes + [-1], dtype=float)
            new = [lab for lab, code in zip(labels, codes) if code < 0]
            if new:
                (unseen_prior if var in prior else unseen).append(unseen_levels(var, new))
            coded = code_of_label[inverse]  # inverse == -1 picks the trailing -1
            missing = inverse < 0
            x[:, j] = np.where(coded >= 0, coded, np.nan)
            if self.kinds[j] == CATEGORICAL:
                # a level never seen in training: the code after the training
                # levels (trees send it to the missing child, as R; target
                # statistics give it the prior) -- missing values stay NaN
                x[(coded < 0) & ~missing, j] = float(len(lookup))
        warn_unseen_levels(name, unseen, unseen_prior)
        return x

    def _select(self, newdata, name: str) -> pd.DataFrame:
        if isinstance(newdata, np.ndarray):
            frame = predictor_table(newdata, name)
            if frame.shape[1] != len(self.var_names):
                raise ValueError(
                    f"{name} has {frame.shape[1]} columns; the model has "
                    f"{len(self.var_names)} predictors: {self.var_names}")
            return frame
        frame = predictor_table(newdata, name)
        columns = [str(c) for c in frame.columns]
        missing = [var for var in self.var_names if var not in columns]
        if missing:
            raise ValueError(f"{name} lacks the predictor columns {missing} used in training")
        position = {c: i for i, c in enumerate(columns)}
        return frame.iloc[:, [position[name] for name in self.var_names]]

