"""Formula + data -> ModelFrame, with R's gbm model-frame meaning.

* :func:`model_frame` — ``gbm(formula, data, weights)``'s model frame;
* :func:`model_frame_newdata` — the same terms evaluated and coded on new data;
* :class:`PredictorEncoder` — R gbm.fit's coding of a predictors table;
* :func:`Surv` — right-censored survival responses.
"""

from .encode import PredictorEncoder, r_collation_key, r_label, r_quantile7
from .formula import ModelFrame, TermSpec, model_frame, model_frame_newdata, offset_newdata
from .surv import Surv, SurvData

__all__ = [
    "ModelFrame", "PredictorEncoder", "Surv", "SurvData", "TermSpec", "model_frame",
    "model_frame_newdata", "offset_newdata", "r_collation_key", "r_label", "r_quantile7",
]
