"""The compiled predictor (engine/compiled/predict.py) against the NumPy one,
bit for bit: missing values, categoricals with unseen levels, several tree
counts in any order, several outputs, and every fit's predict."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

import pygbm  # noqa: E402
from pygbm.engine.compiled.predict import ROW_BLOCK  # noqa: E402
from pygbm.engine.predict import predict_link  # noqa: E402

#: new rows: within one block of the compiled walk, and across blocks with a
#: partial last one
NEW_ROWS = [300, 2 * ROW_BLOCK + 37]


def _data(n, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                       "c": pd.Categorical(rng.choice(list("pqrst"), n)),
                       "d": rng.integers(0, 4, n).astype(float)})
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    df["y"] = np.nan_to_num(df["a"]) + (df["c"] == "q") * 2 + df["d"] + rng.normal(size=n)
    return df


@pytest.mark.parametrize("n_new", NEW_ROWS)
@pytest.mark.parametrize("counts", [[50], [0, 13, 50], [40, 7, 40, 1]])
def test_compiled_predictions_are_numpys(counts, n_new):
    fit = pygbm.gbm("y ~ .", _data(400, 1), distribution="gaussian", n_trees=50,
                    interaction_depth=3, shrinkage=0.1, random_state=1)
    new = _data(n_new, 2)
    levels = np.where(np.arange(n_new) % 7 == 0, "z", new["c"].astype(str))
    levels[np.arange(n_new) % 11 == 0] = None            # missing level
    new["c"] = pd.Categorical(levels)
    x = fit.to_engine(fit._design(new))
    args = (fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f, counts)
    np.testing.assert_array_equal(predict_link(*args, engine="numba"),
                                  predict_link(*args, engine="numpy"))


@pytest.mark.parametrize("n_rows", NEW_ROWS)
def test_compiled_multiclass_predictions_are_numpys(n_rows):
    df = _data(n_rows, 3)
    df["k"] = pd.Categorical(np.digitize(df["y"], [-0.5, 1.5]).astype(str))
    fit = pygbm.gbm("k ~ a + b + c + d", df, distribution="multinomial", n_trees=20,
                    interaction_depth=2, shrinkage=0.1, random_state=1)
    x = fit.to_engine(fit._design(df))
    args = (fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f, [5, 20])
    kw = dict(n_outputs=fit.num_classes)
    np.testing.assert_array_equal(predict_link(*args, engine="numba", **kw),
                                  predict_link(*args, engine="numpy", **kw))


def test_predict_and_cv_are_the_same_under_both_engines():
    df = _data(300, 4)
    kw = dict(distribution="gaussian", n_trees=60, cv_folds=3, random_state=2, n_cores=1)
    a = pygbm.gbm("y ~ .", df, engine="numba", **kw)
    b = pygbm.gbm("y ~ .", df, engine="numpy", **kw)
    np.testing.assert_array_equal(a.cv_fitted, b.cv_fitted)
    np.testing.assert_array_equal(a.predict(df, n_trees=[10, 60]),
                                  b.predict(df, n_trees=[10, 60]))
