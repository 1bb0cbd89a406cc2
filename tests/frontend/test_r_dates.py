"""R's dates in terms (``pygbm.frontend.r_dates``): expected values are R 4.2.2's."""

import datetime

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import model_frame, model_frame_newdata
from pygbm.frontend.r_dates import as_date, date_days, julian, months, quarters, r_format, \
    weekdays
from pygbm.frontend.r_functions import as_numeric


def _days(x):
    return date_days(as_date(pd.Series(x, dtype=object))).tolist()


def test_text_read_as_r_strptime():
    # R: as.Date(c("2020-01-02", "2020/01/03", NA, "2020-1-5", "2020-01-06 10:30", "x"))
    got = _days(["2020-01-02", "2020/01/03", None, "2020-1-5", "2020-01-06 10:30", "x"])
    assert np.array_equal(got, [18263, np.nan, np.nan, 18266, 18267, np.nan], equal_nan=True)
    # the first value chooses the format: "%Y/%m/%d" here, so the second is NA
    assert np.array_equal(_days(["2020/01/03", "2020-01-02"]), [18264, np.nan],
                          equal_nan=True)
    assert _days_of(pd.Series(["03/02/2020"]), format="%d/%m/%Y") == [18295]
    assert _days(["1969-12-31"]) == [-1]
    assert np.isnan(date_days(as_date(pd.Series(["2020-02-30", "2020-02-28"]),
                                      format="%Y-%m-%d"))[0])
    with pytest.raises(ValueError, match="not in a standard unambiguous format"):
        as_date(pd.Series(["x", "2020-01-02"]))
    with pytest.raises(ValueError, match="'origin' must be supplied"):
        as_date(pd.Series([18000.0]))
    # R: as.Date(18000, origin = "1970-01-01") "2019-04-14"
    assert date_days(as_date(pd.Series([18000.0]), origin="1970-01-01"))[0] == 18000
    with pytest.raises(ValueError, match="fractional days"):
        as_date(pd.Series([18000.5]), origin="1970-01-01")
    # R: as.Date(as.POSIXct("2020-01-02 23:30:00", tz = "UTC")) "2020-01-02"
    assert _days_of(pd.Series(pd.to_datetime(["2020-01-02 23:30:00"]))) == [18263]
    assert _days_of(pd.Series(pd.Categorical(["2020-02-03"]))) == [18295]


def _days_of(x, **options):
    return date_days(as_date(x, **options)).tolist()


def test_parts_of_dates_as_r():
    d = as_date(pd.Series(["2020-01-02", "2021-07-15", None]))
    # R: format(d, "%m"); months(d); weekdays(d); quarters(d); julian(d)
    assert r_format(d, "%m").tolist()[:2] == ["01", "07"]
    assert months(d).tolist()[:2] == ["January", "July"]
    assert weekdays(d).tolist()[:2] == ["Thursday", "Thursday"]
    assert weekdays(d, abbreviate=True)[0] == "Thu"
    assert quarters(d).tolist() == ["Q1", "Q3", "QNA"]
    assert julian(d).tolist()[:2] == [18263, 18823]
    assert r_format(d, "%j %U %u %b %a %y").tolist()[:2] == ["002 00 4 Jan Thu 20",
                                                            "196 28 4 Jul Thu 21"]
    with pytest.raises(TypeError, match=r"months\(\) takes a date"):
        months(pd.Series([1.0]))


def test_dates_in_terms_and_on_new_data():
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"y": rng.normal(size=30),
                      "ds": [f"2020-{m}-{day}" for m, day in zip(rng.integers(1, 13, 30),
                                                                  rng.integers(1, 29, 30))]})
    f = ('y ~ I(as.numeric(as.Date(ds) - as.Date("2020-01-01"))) + factor(months(as.Date(ds)))'
         ' + factor(as.Date(ds) > "2020-06-30")')
    mf = model_frame(f, d)
    days = _days(d.ds) - np.float64(18262)
    np.testing.assert_array_equal(mf.x[:, 0], days)
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, d.iloc[::-1]), mf.x[::-1])
    # R gbm refuses a Date as a predictor; so does pygbm, naming the way out
    with pytest.raises(TypeError, match=r"as.numeric\(as.Date\(x\)\)"):
        model_frame("y ~ as.Date(ds)", d)


def test_as_numeric_of_python_dates_is_days_as_of_r_dates():
    """A column of datetime.date (pandas' ``Series.dt.date``, R's Date) gave NaN in
    every row, refused as "NaN where t is not missing"."""
    stamps = pd.Series(pd.to_datetime(["2020-01-01", "1969-12-31", None, "2021-03-04"]))
    d = pd.DataFrame({"y": [1.0, 2, 3, 4], "t": stamps.dt.date})
    assert d["t"].dtype == object
    mf = model_frame("y ~ as.numeric(t)", d)
    np.testing.assert_array_equal(mf.x[:, 0], [18262, -1, np.nan, 18690])
    np.testing.assert_array_equal(mf.x, model_frame("y ~ as.numeric(as.Date(t))", d).x)

    # as a predictor: refused as a datetime64 column is, naming the way out (it said
    # "mixed or unsupported type (date)" only)
    with pytest.raises(TypeError, match=r"unsupported type \(date\).*as.numeric\(as.Date\(x\)\)"):
        model_frame("y ~ t", d)


def test_pyarrow_dates_and_durations_as_numeric_as_r():
    """pyarrow's date32 (read_csv/read_parquet with dtype_backend="pyarrow") crashed
    (``dt.tz is not supported``); its durations were nanoseconds (R: seconds)."""
    pa = pytest.importorskip("pyarrow")
    days = pd.Series(pd.date_range("1969-12-31", periods=3)).dt.date
    dates = days.astype(pd.ArrowDtype(pa.date32()))
    dates[2] = None
    np.testing.assert_array_equal(as_numeric(dates), [-1, 0, np.nan])
    np.testing.assert_array_equal(date_days(as_date(dates)), [-1, 0, np.nan])
    # beyond 2262 (a cast through nanoseconds: OutOfBoundsDatetime), as R's Dates
    far = pd.Series([datetime.date(2300, 1, 1), datetime.date(1, 1, 1)],
                    dtype=pd.ArrowDtype(pa.date32()))
    np.testing.assert_array_equal(as_numeric(far), [120530, -719162])  # R 4.2.2
    spans = pd.Series(pd.to_timedelta([1, 2, None], unit="D"))
    for dtype in (spans.dtype, pd.ArrowDtype(pa.duration("ns")), pd.ArrowDtype(pa.duration("s"))):
        np.testing.assert_array_equal(as_numeric(spans.astype(dtype)), [86400, 172800, np.nan])
