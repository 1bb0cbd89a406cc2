"""Right-censored survival responses: ``Surv(time, event)`` as in R's survival package.

``Surv`` works both in Python code and inside formulas
(``"Surv(time, status) ~ age + sex"``).  Only right censoring is supported, which
is all R's gbm (``distribution = "coxph"``) accepts.

The status coding follows ``survival::Surv``:

* logical (bool) event: ``True`` = event (death), ``False`` = censored;
* numeric event coded 0/1: 1 = event, 0 = censored;
* numeric event coded 1/2 (as in ``survival::lung``): 2 = event, 1 = censored
  (used when the largest observed value is 2);
* missing values (NaN/None/pd.NA) stay missing (NaN).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import array_arg, same_rows_arg
from ..messages import listed
from .encode import holds_numbers

__all__ = ["Surv", "SurvData"]

_EVENT_CODED_1_2_MAX = 2.0  # largest status value in the 1 = censored / 2 = dead coding


def _as_float_vector(values, name: str) -> np.ndarray:
    """Convert a 1-d numeric input (list, ndarray, Series) to float, missing -> NaN."""
    if isinstance(values, SurvData):
        raise TypeError(f"Surv(): `{name}` must be a numeric vector, not a Surv object")
    if values is None:          # R: "Time variable is not numeric" (not one missing time)
        raise TypeError(f"Surv(): `{name}` must be a numeric vector, got None")
    if isinstance(values, (pd.Series, pd.Index)):
        # numbers in an object column too, as a predictor's; not complex numbers (NumPy
        # dropped the imaginary part with a warning)
        if not holds_numbers(pd.Series(values)):
            raise TypeError(
                f"Surv(): `{name}` must be numeric, got column dtype {values.dtype}"
            )
        if values.dtype == object:
            values = pd.Series(values).map(lambda v: np.nan if pd.isna(v) else float(v))
        return values.to_numpy(dtype=float, na_value=np.nan)
    arr = array_arg(f"Surv(): `{name}`", values)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"Surv(): `{name}` must be one-dimensional, got shape {arr.shape}")
    if arr.dtype == object:
        try:
            return pd.to_numeric(pd.Series(arr), errors="raise").to_numpy(
                dtype=float, na_value=np.nan
            )
        except (TypeError, ValueError) as exc:
            raise TypeError(f"Surv(): `{name}` must be numeric ({exc})") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"Surv(): `{name}` must be numeric, got dtype {arr.dtype}")
    return arr.astype(float)


def _is_boolean_input(values) -> bool:
    dtype = getattr(values, "dtype", None)
    if dtype is None:
        values = np.asarray(values)
        dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return True
    if dtype == object:
        non_missing = [v for v in np.asarray(values).ravel() if not pd.isna(v)]
        return bool(non_missing) and all(isinstance(v, (bool, np.bool_)) for v in non_missing)
    return False


def _status_from_event(event) -> np.ndarray:
    """R's Surv() status coding: logical, 0/1 or 1/2 (2 = event)."""
    if isinstance(getattr(event, "dtype", None), pd.CategoricalDtype):
        raise ValueError(
            "Surv(): a categorical `event` means multi-state survival data in R; "
            "gbm handles only right-censored data: give event as 0/1, 1/2 or True/False"
        )
    if _is_boolean_input(event):
        status = pd.Series(np.asarray(event, dtype=object)).map(
            lambda v: np.nan if pd.isna(v) else float(bool(v))
        )
        return status.to_numpy(dtype=float)
    status = _as_float_vector(event, "event")
    original = status[~np.isnan(status)]
    shift = 1.0 if original.size and original.max() == _EVENT_CODED_1_2_MAX else 0.0
    status = status - shift
    bad = ~np.isin(original - shift, (0.0, 1.0))
    if bad.any():
        raise ValueError(
            "Surv(): `event` must be coded 0/1 (1 = event), 1/2 (2 = event) or "
            f"True/False; found other values: {listed(np.unique(original[bad]))}"
        )
    return status


class SurvData:
    """A right-censored survival response: event/censoring ``time`` and 0/1 ``status``.

    Attributes
    ----------
    time : float ndarray, the follow-up times (NaN = missing).
    status : float ndarray, 1 = event observed, 0 = censored (NaN = missing).
    type : always ``"right"``.
    index : pandas Index or None, the index of the pandas Series the response was
        built from (``time``'s, else ``event``'s); None when built from arrays.
        By it ``gbm_fit`` refuses a response whose rows are in another order than
        its table's, as it refuses a Series indexed unlike the table.

    ``np.asarray(surv)`` gives R's two-column matrix ``cbind(time, status)``;
    ``len()``, slicing and boolean/integer indexing work row-wise.
    """

    type = "right"

    def __init__(self, time: np.ndarray, status: np.ndarray, index: pd.Index | None = None):
        self.time = np.asarray(time, dtype=float)
        self.status = np.asarray(status, dtype=float)
        if self.time.shape != self.status.shape or self.time.ndim != 1:
            raise ValueError(
                "Surv(): time and status are different lengths "
                f"({self.time.shape[0]} and {self.status.shape[0]})"
            )
        if index is not None and len(index) != self.time.shape[0]:
            raise ValueError(f"SurvData: index has {len(index)} labels for "
                             f"{self.time.shape[0]} rows")
        self.index = index

    def __len__(self) -> int:
        return self.time.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), 2)

    def __getitem__(self, rows) -> "SurvData":
        return SurvData(self.time[rows], self.status[rows],
                        None if self.index is None else self.index[rows])

    def __array__(self, dtype=None, copy=None):
        out = np.column_stack([self.time, self.status])
        return out if dtype is None else out.astype(dtype)

    def isna(self) -> np.ndarray:
        """Rows whose time or status is missing."""
        return np.isnan(self.time) | np.isnan(self.status)

    def __repr__(self) -> str:
        shown = [
            f"{t:g}" + ("" if s == 1 else "+" if s == 0 else "?")
            for t, s in zip(self.time[:8], self.status[:8])
        ]
        more = " ..." if len(self) > 8 else ""
        return f"Surv([{', '.join(shown)}{more}], n={len(self)})"


def Surv(time, event=None, *args, type: str = "right") -> SurvData:  # noqa: N802 (R's name)
    """Build a right-censored survival response, as R's ``survival::Surv(time, event)``.

    Parameters
    ----------
    time : array-like of float
        Follow-up times (R: ``time``); NaN is missing.
    event : array-like, optional
        The status indicator (R: ``event``): 0/1 (1 = event), 1/2 (2 =
        event, e.g. ``lung$status``) or bool (True = event). Default None:
        every time is an event (status 1).
    *args
        Refused: R's three-argument form (start, stop, event) describes
        counting-process data, which gbm does not handle.
    type : {"right"}, default "right"
        The censoring (R: ``type``); only right censoring is supported, as
        in R's gbm.

    Returns
    -------
    SurvData
        ``time`` and 0/1 ``status`` float arrays (NaN = missing), and the
        ``index`` of the pandas Series given (None without one).

    Notes
    -----
    In a formula (``"Surv(time, status) ~ ."``) the columns are looked up in
    the data, as in R; called directly it builds the response for
    :func:`gbm_fit`. Types other than "right" and counting-process data
    raise an error here, when the response is built.

    Examples
    --------
    >>> y = pygbm.Surv([5.0, 8.0, 12.0], [1, 0, 1])
    >>> y
    Surv([5, 8+, 12], n=3)
    """
    if args:
        raise ValueError(
            "Surv(): three arguments (start, stop, event) describe counting-process "
            "data; gbm handles only right-censored data: Surv(time, event)"
        )
    if not (isinstance(type, str) and type == "right"):     # an array: not compared
        shown = repr(type) if isinstance(type, str) else f"a {type.__class__.__name__}"
        raise ValueError(
            f"Surv(): type={shown:.80} is not supported; gbm handles only right-censored "
            "data (type='right')"
        )
    same_rows_arg("event", event, time, "time")
    time_arr = _as_float_vector(time, "time")
    if event is None:
        status = np.ones_like(time_arr)
        status[np.isnan(time_arr)] = np.nan
    else:
        status = _status_from_event(event)
    if status.shape != time_arr.shape:
        raise ValueError(
            "Surv(): time and status are different lengths "
            f"({time_arr.shape[0]} and {status.shape[0]})"
        )
    # the rows' labels, by which gbm_fit knows the response to be in its table's order
    labelled = [v for v in (time, event) if isinstance(v, pd.Series)]
    return SurvData(time_arr, status, labelled[0].index if labelled else None)
