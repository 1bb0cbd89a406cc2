"""R's dates in formula terms: ``as.Date(x, format, tryFormats, origin)``,
``format(d, "%m")``, ``months``, ``weekdays``, ``quarters``, ``julian``.

An R Date is a number of days since 1970-01-01: ``as.numeric(d)`` and ``d - as.Date(
"2020-01-01")`` are days (R's difftime in days), and so here (a term's Date is a pandas
``period[D]`` Series; :func:`date_days` gives its days, which R's arithmetic and
``as.numeric`` read). R gbm refuses a Date as a predictor, as pygbm does: write
``as.numeric(as.Date(x))`` or a part of it (``format(as.Date(x), "%m")``).

Text is read as R's ``strptime`` reads it (R 4.2.2): numbers of one or more digits
(``2020-1-5``), a month's English name or its abbreviation in any case, white space in
the format matching any, the rest of the text after the format ignored (``"2020-01-06
10:30"`` is 2020-01-06); an impossible date (February 30) is NA. Without ``format`` the
first value that is not NA chooses between R's ``tryFormats`` ``"%Y-%m-%d"`` and
``"%Y/%m/%d"``, and none fitting it is R's error. Numbers need ``origin``, as in R 4.2.
Dates and times (pandas datetime64, R's POSIXct) become their date in UTC.
"""

from __future__ import annotations

import datetime
import re

import numpy as np
import pandas as pd

from .encode import r_labels
from .r_factors import is_factor, series

__all__ = ["R_DATE_FUNCTIONS", "date_days", "is_date"]

#: a term's Date: a pandas Period of one day
DATE_DTYPE = pd.PeriodDtype("D")
#: R's default formats of ``as.Date(x)`` for text, tried in turn on its first value
TRY_FORMATS = ("%Y-%m-%d", "%Y/%m/%d")
_EPOCH = datetime.date(1970, 1, 1)
#: what pyarrow's dates are read as, through pyarrow's own seconds (whole seconds
#: hold any date a Date holds; a direct cast went through nanoseconds, 1677-2262)
_ARROW_SECONDS, _DATETIME = "timestamp[s][pyarrow]", "datetime64[s]"
_NAT = np.iinfo(np.int64).min
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
#: a month's name or its abbreviation (longest first, so "june" is not read as "jun")
_MONTH_NAME = "(" + "|".join(sorted(set(_MONTHS) | {m[:3] for m in _MONTHS},
                                    key=len, reverse=True)) + ")"
#: the directives of R's strptime that read a date, as patterns of the value
_DIRECTIVES = {"Y": r"(\d{1,4})", "m": r"(\d{1,2})", "d": r"(\d{1,2})",
               "e": r"\s*(\d{1,2})", "y": r"(\d{1,2})", "j": r"(\d{1,3})",
               "b": _MONTH_NAME, "B": _MONTH_NAME, "h": _MONTH_NAME}
#: R's %y: 00-68 are 2000-2068, 69-99 are 1969-1999
_CENTURY_PIVOT = 69


def is_date(x) -> bool:
    """Whether ``x`` is a term's Date: a column of them, or one
    (``as.Date("2020-01-01")``)."""
    return (isinstance(x, pd.Series) and x.dtype == DATE_DTYPE) or \
        (isinstance(x, pd.Period) and x.freqstr == "D")


def date_days(x):
    """A Date's days since 1970-01-01 (missing: NaN), as R's ``as.numeric(d)``."""
    if isinstance(x, pd.Period):
        return float(x.ordinal)
    ordinals = x.array.asi8
    return pd.Series(np.where(ordinals == _NAT, np.nan, ordinals.astype(float)),
                     index=x.index)


def _dates(days: np.ndarray, index) -> pd.Series:
    """A Date Series of whole ``days`` since 1970-01-01 (NaN: missing)."""
    ordinals = np.where(np.isnan(days), _NAT, np.floor(np.nan_to_num(days))).astype(np.int64)
    return pd.Series(pd.arrays.PeriodArray(ordinals, dtype=DATE_DTYPE), index=index)


def _reader(fmt: str):
    """R's ``strptime(x, fmt)`` for dates, as a function of one text giving its days
    since 1970-01-01 or None."""
    parts, fields, i = [], [], 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "%" and i + 1 < len(fmt):
            code = fmt[i + 1]
            if code == "%":
                parts.append("%")
            elif code in _DIRECTIVES:
                parts.append(_DIRECTIVES[code])
                fields.append(code)
            else:
                raise ValueError(f"as.Date(): format {fmt!r}: %{code} does not read a date "
                                 "here (available: %Y %m %d %e %y %j %b %B %h)")
            i += 2
        else:
            parts.append(r"\s*" if ch.isspace() else re.escape(ch))
            i += 1
    pattern = re.compile(r"\s*" + "".join(parts), re.IGNORECASE)

    def read(text: str):
        m = pattern.match(text)
        if m is None:
            return None
        year, month, day, yday = 1970, 1, 1, None
        for code, value in zip(fields, m.groups()):
            if code in "bBh":
                month = [n[:3] for n in _MONTHS].index(value.lower()[:3]) + 1
            elif code == "y":
                year = int(value) + (1900 if int(value) >= _CENTURY_PIVOT else 2000)
            else:
                number = int(value)
                if code == "Y":
                    year = number
                elif code == "m":
                    month = number
                elif code in "de":
                    day = number
                else:
                    yday = number
        try:
            if yday is None:
                date = datetime.date(year, month, day)
            else:                               # %j: the day of the year
                date = datetime.date(year, 1, 1) + datetime.timedelta(days=yday - 1)
        except (ValueError, OverflowError):     # month 13, February 30, year 0
            return None
        if date.year != year:                   # %j beyond the year's last day
            return None
        return (date - _EPOCH).days
    return read


def _read_text(texts: list, fmt, try_formats) -> np.ndarray:
    """Days of each text (None: missing) in ``fmt``, or in the first of ``try_formats``
    that reads the first text that is not missing (R's ``charToDate``)."""
    if fmt is None:
        first = next((t for t in texts if t is not None), None)
        if first is None:
            return np.full(len(texts), np.nan)
        fmt = next((f for f in np.atleast_1d(try_formats) if _reader(str(f))(first) is not None),
                   None)
        if fmt is None:
            raise ValueError(f"as.Date(): character string is not in a standard unambiguous "
                             f"format (R's error; the first value {first!r}); give format =, "
                             "e.g. \"%d/%m/%Y\"")
    read = _reader(str(np.ravel(fmt)[0]) if np.ndim(fmt) else str(fmt))
    days = [None if t is None else read(t) for t in texts]
    return np.array([np.nan if d is None else d for d in days], dtype=float)


def as_date(x, format=None, try_formats=TRY_FORMATS, origin=None):  # noqa: A002 (R's name)
    """R's ``as.Date(x, format, tryFormats, origin)``: text (a factor's labels) as R's
    strptime reads it, numbers as days after ``origin`` (R 4.2 asks for it), dates and
    times as their day in UTC; a Date as it is."""
    if is_date(x):
        return x
    if np.ndim(x) == 0:                         # one date, not a column of them
        one = as_date(pd.Series([x]), format, try_formats, origin)[0]
        return np.nan if pd.isna(one) else one
    x = series(x)
    if x.dtype.type is datetime.date:           # pyarrow's date32/date64 (no .dt.tz)
        x = x.astype(_ARROW_SECONDS).astype(_DATETIME)
    if pd.api.types.is_datetime64_any_dtype(x.dtype):
        utc = x.dt.tz_convert("UTC").dt.tz_localize(None) if x.dt.tz is not None else x
        # the epoch in the column's unit: a nanosecond one overflowed beyond 1677-2262
        epoch = pd.Timestamp(0).as_unit(np.datetime_data(utc.dtype)[0])
        days = ((utc - epoch) / pd.Timedelta(1, "D")).to_numpy(dtype=float)
        return _dates(days, x.index)
    if (pd.api.types.is_numeric_dtype(x.dtype) and not is_factor(x)) \
            or pd.api.types.is_bool_dtype(x.dtype):
        origin = format if origin is None else origin   # R: numbers' 2nd argument
        if origin is None:
            raise ValueError("as.Date(): 'origin' must be supplied (R's error for numbers); "
                             'write as.Date(x, origin = "1970-01-01")')
        days = x.to_numpy(dtype=float, na_value=np.nan)
        if np.any(days[np.isfinite(days)] % 1):
            raise ValueError("as.Date(): fractional days, which an R Date keeps (as.numeric "
                             "gives them back) and pygbm's Dates do not: round them first, "
                             "as.Date(round(x), origin = ...)")
        return _dates(days + date_days(as_date(origin)), x.index)
    texts = r_labels(x.astype(object))
    return _dates(_read_text(texts, format, try_formats), x.index)


def _text(x, fmt: str, function: str):
    """The text of each date of ``x`` in ``fmt`` (missing stays missing)."""
    if not is_date(x):
        raise TypeError(f"{function}() takes a date here (as.Date(x)), got "
                        f"{series(x).dtype if np.ndim(x) else repr(x)}")
    if isinstance(x, pd.Period):
        return x.to_timestamp().strftime(fmt)
    return pd.Series([np.nan if pd.isna(p) else p.to_timestamp().strftime(fmt) for p in x],
                     index=x.index, dtype=object)


def r_format(x, format="%Y-%m-%d"):  # noqa: A002 (R's name)
    """R's ``format(d, "%m")`` of a Date: its text in the format (C library's
    strftime, English names)."""
    return _text(x, str(format), "format")


def months(x, abbreviate=False):
    """R's ``months(d)``: the month's English name (abbreviated: "Jan")."""
    return _text(x, "%b" if abbreviate else "%B", "months")


def weekdays(x, abbreviate=False):
    """R's ``weekdays(d)``: the day's English name (abbreviated: "Mon")."""
    return _text(x, "%a" if abbreviate else "%A", "weekdays")


def quarters(x):
    """R's ``quarters(d)``: "Q1" to "Q4" ("QNA" for a missing date, as R writes it)."""
    def quarter(month):
        return "QNA" if pd.isna(month) else f"Q{(int(month) - 1) // 3 + 1}"
    month = _text(x, "%m", "quarters")
    return quarter(month) if isinstance(month, str) else month.map(quarter)


def julian(x, origin=None):
    """R's ``julian(d, origin = as.Date("1970-01-01"))``: days since ``origin``."""
    if not is_date(x):
        raise TypeError(f"julian() takes a date here (as.Date(x)), got dtype {series(x).dtype}")
    return date_days(x) - (0.0 if origin is None else date_days(as_date(origin)))


#: the date functions formulas call, by their Python names
R_DATE_FUNCTIONS = {"as_Date": as_date, "format": r_format, "months": months,
                    "weekdays": weekdays, "quarters": quarters, "julian": julian}
