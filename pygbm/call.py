"""R's call string of a fit: the formula, the distribution, the arguments R's
call shows, and the extension arguments given other than their defaults."""
from __future__ import annotations

import functools
import inspect
import sys

import numpy as np

#: arguments shown in the call only when given other than their defaults (R's call
#: shows what was given; these are the ones that change what was fitted), and checked
#: for having an effect (options.warn_unused)
CALL_IF_GIVEN = ("weights", "var_monotone", "n_minobsinnode", "max_bins", "categorical",
                 "ts_permutations", "ts_prior", "ts_prior_weight", "ts_max_combination",
                 "zero_subsample", "zero_weight", "feature_costs", "feature_costs_model",
                 "cost_split", "cegb_tradeoff", "boosting_type", "n_permutations",
                 "fold_len_multiplier", "min_fold_size", "full_history")
#: longest argument value shown in the call (a vector of costs is cut)
CALL_VALUE_CHARS = 60
#: a vector argument (weights, costs) longer than this is shown as its length
CALL_VECTOR_VALUES = 20


def _plain(value):
    """A NumPy scalar as its Python number (the call shows 0.5, not np.float64(0.5))."""
    return value.item() if isinstance(value, np.generic) else value


def _flat(value) -> bool:
    """``value`` is one-dimensional (a ragged nested list is not: np.ndim raises on
    it, and the call is written before the arguments are checked)."""
    try:
        return np.ndim(value) == 1
    except ValueError:
        return False


def call_value(value) -> str:
    """An argument's value in the call: strings in R's double quotes, long values cut,
    on one line (a pandas Series as its values, or by its index's names as a dict)."""
    if isinstance(value, str):
        return f'"{value}"'
    value = _plain(value)
    pd = sys.modules.get("pandas")       # a Series exists only once pandas is imported
    if pd is not None and isinstance(value, pd.Series):
        value = value.tolist() if pd.api.types.is_numeric_dtype(value.index.dtype) else \
            dict(value.items())
    if isinstance(value, dict):
        value = {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (np.ndarray, list, tuple)) and _flat(value):
        value = np.asarray(value).tolist()
        if len(value) > CALL_VECTOR_VALUES:
            return f"<{len(value)} values>"
    text = f"<array {np.shape(value)}>" if isinstance(value, np.ndarray) else repr(value)
    text = " ".join(text.split())                   # one line
    if len(text) <= CALL_VALUE_CHARS:
        return text
    if isinstance(value, dict):                     # whole entries, not a cut name
        shown = []
        for key, item in value.items():
            entry = f"{key!r}: {item!r}"
            if len(", ".join(shown + [entry])) > CALL_VALUE_CHARS - 12:
                break
            shown.append(entry)
        count = f"{len(value)} {'entry' if len(value) == 1 else 'entries'}"
        return "{" + "".join(f"{e}, " for e in shown) + f"... ({count})}}"
    return text[:CALL_VALUE_CHARS - 3] + "..."


def call_string(formula, distribution, kwargs, given):
    """R's call string: the formula, the distribution, ``kwargs`` always and ``given``
    (gbm()'s other arguments given other than their defaults, :func:`given_arguments`)."""
    parts = [f'formula = "{formula}"']
    if distribution is not None:
        parts.append(f"distribution = {call_value(distribution)}")
    parts += [f"{k} = {call_value(v)}" for k, v in [*kwargs.items(), *given.items()]]
    return "gbm(" + ", ".join(parts) + ")"


def given_arguments(function, arguments: dict) -> dict:
    """Those of ``arguments`` (a call's ``locals()`` at its start) named in
    ``CALL_IF_GIVEN`` that differ from ``function``'s defaults."""
    defaults = defaults_of(function)
    return {name: value for name, value in arguments.items() if name in defaults
            and not (value is defaults[name] or (isinstance(value, (str, int, float, bool))
                                                 and type(value) is type(defaults[name])
                                                 and value == defaults[name]))}


@functools.cache
def defaults_of(function) -> dict:
    """``function``'s defaults of the arguments the call shows when given."""
    parameters = inspect.signature(function).parameters
    return {name: parameters[name].default for name in CALL_IF_GIVEN if name in parameters}
