"""The checked response side of a fit (Response) and its kept training data (KeptData)."""
import numpy as np
import pandas as pd

import pygbm
from pygbm.distributions import Targets
from pygbm.response import KeptData, Response


def _response(n=5, offset=True):
    rng = np.random.default_rng(3)
    w_raw = rng.uniform(0.5, 2.0, n)
    return Response(y=rng.normal(size=n), misc=np.arange(n) % 2,
                    offset=rng.normal(size=n) if offset else None,
                    w=w_raw * n / w_raw.sum(), w_raw=w_raw)


def test_take_reorders_every_field_and_none_keeps_the_rows():
    r = _response()
    perm = np.array([4, 0, 3, 1, 2])
    t = r.take(perm)
    for name in ("y", "misc", "offset", "w", "w_raw"):
        np.testing.assert_array_equal(getattr(t, name), getattr(r, name)[perm])
    assert r.take(None) is r
    assert _response(offset=False).take(perm).offset is None


def test_loss_targets_are_the_distributions_view():
    r = _response()
    t = r.loss_targets()
    assert isinstance(t, Targets)
    assert t.y is r.y and t.offset is r.offset and t.w is r.w and t.misc is r.misc


def test_kept_data_take_moves_predictors_and_response_together():
    r = _response()
    x = np.arange(10.0).reshape(5, 2)
    kept = KeptData(x, r).take(np.array([2, 1]))
    np.testing.assert_array_equal(kept.x, x[[2, 1]])
    np.testing.assert_array_equal(kept.response.y, r.y[[2, 1]])


def test_a_fit_keeps_its_training_data_in_the_data_order():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    d["y"] = d.a + rng.normal(size=60)
    w = rng.uniform(1, 3, 60)
    fit = pygbm.gbm("y ~ a + b", data=d, distribution="gaussian", n_trees=5,
                    weights=w, n_minobsinnode=3)
    assert isinstance(fit.data, KeptData)
    np.testing.assert_array_equal(fit.data.x, d[["a", "b"]].to_numpy())
    np.testing.assert_array_equal(fit.data.response.y, d.y.to_numpy())
    np.testing.assert_array_equal(fit.data.response.w_raw, w)
    np.testing.assert_allclose(fit.data.response.w, w * 60 / w.sum(), rtol=1e-15)
    assert fit.data.response.offset is None
    lean = pygbm.gbm("y ~ a + b", data=d, distribution="gaussian", n_trees=5,
                     n_minobsinnode=3, keep_data=False)
    assert lean.data is None
