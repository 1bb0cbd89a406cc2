"""The response side of a fit's rows once checked (:class:`Response`), and
what a fit keeps of its training data (:class:`KeptData`, R's ``keep.data``;
without it, :func:`rows_digest`, by which gbm_more knows the rows again).

:func:`pygbm.fitting.check_targets` makes a :class:`Response`: the response,
the event status or group codes, the offset, the raw case weights and the
weights normalised as R's ``gbm.fit`` does, in one row order. A fit's
``data`` field is a :class:`KeptData`: the coded predictors and that
response in the data's row order, which gbm_more continues on and which
``predict()`` without new data, permutation influence, partial dependence,
QWYC and the cost reports read.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .distributions import Targets


def take_rows(a, rows):
    """``a``'s rows ``rows`` (None, for an optional per-row array not given, stays None)."""
    return None if a is None else np.asarray(a)[rows]


@dataclass(frozen=True, eq=False)
class Response:
    """The checked response side of a fit's rows, in one row order."""

    y: np.ndarray
    misc: np.ndarray | None         # coxph status or pairwise group codes
    offset: np.ndarray | None
    w: np.ndarray                   # normalised weights (what the engine uses)
    w_raw: np.ndarray               # the case weights as given (all 1 when none were)

    def take(self, perm) -> Response:
        """These rows in the order ``perm`` (None: as they are)."""
        if perm is None:
            return self
        return Response(self.y[perm], take_rows(self.misc, perm),
                        take_rows(self.offset, perm), self.w[perm], self.w_raw[perm])

    def loss_targets(self) -> Targets:
        """What the distribution's methods receive of these rows."""
        return Targets(self.y, self.offset, self.w, self.misc)


@dataclass(frozen=True, eq=False)
class KeptData:
    """The training data a fit keeps (``keep_data=True``), in the data's row
    order: ``x`` the coded predictors (n, p), ``response`` their response."""

    x: np.ndarray
    response: Response

    def take(self, perm) -> KeptData:
        """These rows in the order ``perm``."""
        return KeptData(self.x[perm], self.response.take(perm))


def _row_columns(x, y, offset, status) -> tuple:
    """What identifies rows (:func:`rows_digest`, :func:`same_rows`) as float arrays:
    coded predictors, response, offset (none: zeros, as R's) and event status or
    group codes (none: empty)."""
    y = np.asarray(y, dtype=np.float64)
    offset = np.zeros(y.shape[0]) if offset is None else offset
    status = np.empty(0) if status is None else status
    return tuple(np.ascontiguousarray(a, dtype=np.float64) for a in (x, y, offset, status))


def rows_digest(x, y, offset=None, status=None) -> str:
    """SHA-256 of rows' coded predictors ``x``, response ``y``, ``offset`` and
    event ``status`` (or pairwise's group codes), in their order: what a fit that
    did not keep its data keeps, so that ``gbm_more(data=...)`` knows its rows
    again (other rows, the same in another order, or another offset would
    continue the trees on values that are not theirs)."""
    h = hashlib.sha256()
    for values in _row_columns(x, y, offset, status):
        h.update(_canonical(values).tobytes())
    return h.hexdigest()


def _canonical(values: np.ndarray) -> np.ndarray:
    """``values`` with one bit pattern per value, as :func:`same_rows` compares kept
    rows (equal values, NaN equal to NaN): -0.0 as 0.0, every NaN as NumPy's NaN."""
    return np.where(np.isnan(values), np.nan, values + 0.0)


def same_rows(kept: KeptData | None, digest: str | None, x, y, offset=None,
              status=None) -> bool:
    """Whether ``x``, ``y``, ``offset`` and ``status`` are the rows of a fit, in
    their order: its kept data's (``kept``), else those of its :func:`rows_digest`
    (``digest``; None: unknown, taken as the same)."""
    if kept is None:
        return digest is None or rows_digest(x, y, offset, status) == digest
    ours = _row_columns(x, y, offset, status)
    theirs = _row_columns(kept.x, kept.response.y, kept.response.offset, kept.response.misc)
    return all(a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
               for a, b in zip(ours, theirs))
