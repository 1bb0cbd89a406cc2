"""Formula + data -> ModelFrame, with R's gbm model-frame meaning.

* :func:`model_frame` — ``gbm(formula, data, weights)``'s model frame;
* :func:`model_frame_newdata` — the same terms evaluated and coded on new data;
* :class:`PredictorEncoder` — R gbm.fit's coding of a predictors table;
* :func:`Surv` — right-censored survival responses.
"""

import importlib

from .encode import PredictorEncoder, r_collation_key, r_label, r_quantile7
from .surv import Surv, SurvData

#: the names of formula.py, which imports formulaic (about 0.1 s): loaded on
#: first use, so that ``import pygbm`` stays fast (issue 21)
_FORMULA_NAMES = frozenset({"ModelFrame", "TermSpec", "model_frame", "model_frame_newdata",
                            "offset_newdata"})

__all__ = [
    "ModelFrame", "PredictorEncoder", "Surv", "SurvData", "TermSpec", "model_frame",
    "model_frame_newdata", "offset_newdata", "r_collation_key", "r_label", "r_quantile7",
]


def __getattr__(name):
    if name in _FORMULA_NAMES:
        return getattr(importlib.import_module(".formula", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
