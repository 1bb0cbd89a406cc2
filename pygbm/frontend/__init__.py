"""Formula + data -> ModelFrame, with R's gbm model-frame meaning.

* :func:`model_frame` — ``gbm(formula, data, weights)``'s model frame;
* :func:`model_frame_newdata` — the same terms evaluated and coded on new data;
* :func:`factor_response` — gbm_fit's text or categorical response coded as R's factor;
* :func:`response_newdata` — the response and offsets of new data (a test set;
  :func:`coded_like_fit`: a new response coded by the fit's levels);
  :func:`response_values` — a response of new rows given as values, coded by the
  fit's levels;
  :func:`weights_newdata` — their case weights (a column name or numbers);
* :class:`PredictorEncoder` — R gbm.fit's coding of a predictors table
  (:func:`numeric_values`: its reading of a continuous predictor's column;
  :func:`labels_inverse`: a column's distinct values as R's labels;
  :func:`has_column_names`: whether a table's columns can be taken by name);
* :func:`Surv` — right-censored survival responses.
"""

import importlib

#: each name's module, imported on first use: the front end needs pandas (and
#: formula_parse.py formulaic), which ``import pygbm`` does not load (issue 21)
_MODULES = {
    "PredictorEncoder": ".encode", "r_collation_key": ".encode", "r_label": ".encode",
    "r_quantile7": ".encode", "numeric_values": ".encode", "Surv": ".surv", "SurvData": ".surv",
    "ModelFrame": ".formula", "TermSpec": ".terms", "model_frame": ".formula",
    "model_frame_newdata": ".formula", "offset_newdata": ".formula",
    "response_newdata": ".formula", "weights_newdata": ".formula", "NewResponse": ".formula",
    "factor_response": ".formula", "refuse_numbers_for_levels": ".encode",
    "unseen_levels": ".encode", "warn_unseen_levels": ".encode",
    "MissingColumnError": ".terms", "response_values": ".formula", "row_labels": ".encode",
    "labels_inverse": ".encode", "LOGICAL_LEVELS": ".formula", "coded_like_fit": ".formula",
    "predictor_table": ".encode", "has_column_names": ".encode",
}

__all__ = [
    "LOGICAL_LEVELS", "MissingColumnError", "ModelFrame", "NewResponse", "PredictorEncoder",
    "Surv", "SurvData", "TermSpec", "coded_like_fit", "factor_response", "has_column_names",
    "labels_inverse", "model_frame",
    "model_frame_newdata", "numeric_values", "offset_newdata", "predictor_table",
    "r_collation_key",
    "r_label", "r_quantile7", "refuse_numbers_for_levels", "response_newdata",
    "response_values", "row_labels", "unseen_levels", "warn_unseen_levels",
    "weights_newdata",
]


def __getattr__(name):
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
