"""Second-order ("Newton") splits, an option of the distributions with a Hessian.

R gbm grows every tree by least squares on the working response ``z`` with the
case weights ``w`` (Friedman's gradient boosting) and takes Newton steps only in
its leaves. With ``splits="newton"`` a tree is grown instead on the Newton
response ``z / h`` with weights ``w h`` (``h`` the second derivative of the
row's loss, halved as ``z`` is), the split criterion of LightGBM and XGBoost (and
CatBoost's NewtonL2 / NewtonCosine scores; its CPU default, Cosine, is first
order as R's): a node's weighted mean response is then its Newton step, and a
split's gain is ``(sum w z)^2 / sum w h`` per child. Leaves are fitted as before.
Ordered boosting (:mod:`pygbm.ordered`) then scores each fold's leaf Newton steps
against the tail's ``w z`` and ``w h``. Not R's algorithm: with it fits no longer
match R gbm (``"gradient"``, the default, does).
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

#: how trees choose their splits: R's least squares on the working response, or
#: least squares on the Newton response (second-order splits)
SPLITS = ("gradient", "newton")
#: the smallest Hessian a row keeps (a row predicted with certainty has h = 0,
#: and its Newton response z / h would be infinite)
MIN_HESSIAN = 1e-150


class NewtonSplits(ABC):
    """Mixin of a distribution that offers ``splits="newton"`` (put it before
    :class:`~.base.Distribution` among the bases): the ``splits`` parameter, and
    :meth:`growth_response` from the subclass's :meth:`hessian` (abstract: a
    class without one cannot be made)."""

    def __init__(self, splits="gradient", **params):
        super().__init__(**params)
        if not isinstance(splits, str) or splits not in SPLITS:
            raise ValueError(f"{self.name}: splits must be one of {SPLITS}, got {splits!r}")
        self.splits = splits

    def params(self) -> dict:
        own = {} if self.splits == "gradient" else {"splits": self.splits}
        return {**super().params(), **own}

    @property
    def display_name(self) -> str:
        name = super().display_name
        return name if self.splits == "gradient" else f"{name} (Newton splits)"

    @property
    def gradient_splits(self) -> bool:
        return self.splits == "gradient"

    @abstractmethod
    def hessian(self, t, f, z, ctx, **cls) -> np.ndarray:
        """Each row's second derivative of its loss at ``f`` (halved as the
        working response ``z`` is), which the Newton response divides by."""

    def growth_response(self, t, f, z, ctx, **cls):
        """R's ``(z, w)``, or with Newton splits ``(z / h, w h)``."""
        if self.splits == "gradient":
            return z, t.w
        h = np.maximum(self.hessian(t, f, z, ctx, **cls), MIN_HESSIAN)
        return np.asarray(z, dtype=float) / h, np.asarray(t.w, dtype=float) * h
