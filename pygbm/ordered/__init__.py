"""CatBoost's ordered boosting (``gbm(..., boosting_type="ordered")``):
folds (:mod:`.folds`), the ordered split score (:mod:`.search`), best-first
growth on it (:mod:`.grow`) and the boosting scheme with its supporting
models (:mod:`.scheme`). It runs on the histogram search; R's bit-exactness
is not a goal there."""
from .spec import OrderedSpec, ordered_spec

__all__ = ["OrderedSpec", "ordered_spec"]
