"""QWYC's walks of the fit's flat forest (its NumPy tail, its compiled kernels)
against the predictor seam."""
import numpy as np
import pandas as pd
import pytest

from pygbm import gbm
from pygbm.early_exit.forest import compiled_kernels, flat_scores
from pygbm.early_exit.model_scores import ModelScores
from pygbm.engine.forest import FlatForest


def test_flat_forest_scores_are_the_seams_bit_for_bit():
    rng = np.random.default_rng(11)
    n = 800
    df = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                       "c": rng.choice(list("abcdefg"), size=n),
                       "o": pd.Categorical(rng.choice(["lo", "mid", "hi"], size=n),
                                           categories=["lo", "mid", "hi"], ordered=True)})
    df.loc[rng.random(n) < 0.1, "x1"] = np.nan
    df.loc[rng.random(n) < 0.1, "c"] = None
    eta = df["x0"] + np.nan_to_num(df["x1"]) * (df["c"] == "a") + (df["o"] == "hi")
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    fit = gbm("y ~ .", df, distribution="bernoulli", n_trees=30, interaction_depth=6,
              shrinkage=0.1, bag_fraction=1)
    scores = ModelScores(fit, 30)
    new = df.copy()
    new["c"] = rng.choice(list("abcdefgz"), size=n)          # "z": a level never seen
    new.loc[rng.random(n) < 0.2, "x0"] = np.nan
    view, _ = scores.coded(fit, new)
    p = scores.predictor
    forest = FlatForest.of(p.trees, p.c_splits, p.var_type)
    c = list(fit.var_names).index("c")
    assert p.var_type[c] > 0
    view.cols[c, ::13] = 7.0 + np.arange(view.cols[c, ::13].size) % 3   # codes past every level
    rows = np.sort(rng.choice(n, size=97, replace=False))
    trees = rng.permutation(30)[:17]
    assert forest.categorical.any() and np.isnan(view.cols).any()
    got = flat_scores(forest, view, rows, trees)
    for j, t in enumerate(trees):
        np.testing.assert_array_equal(got[:, j], p.tree_score(int(t), view, rows))
    kernels = compiled_kernels()
    if kernels is not None:                  # the compiled walk: every tree, every row
        matrix = kernels.score_matrix(forest, np.ascontiguousarray(view.cols.T))
        for t in range(30):
            np.testing.assert_array_equal(matrix[t], p.tree_score(t, view))


@pytest.mark.filterwarnings("ignore:newdata has levels not seen")
def test_compiled_and_numpy_paths_predict_the_same(monkeypatch):
    import pygbm.early_exit.predictor as predictor
    from pygbm import qwyc
    if compiled_kernels() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(5)
    n = 3000
    df = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                       "c": rng.choice(list("abcde"), size=n)})
    df.loc[rng.random(n) < 0.05, "x1"] = np.nan
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-df["x0"] - (df["c"] == "a")))).astype(int)
    fit = gbm("y ~ .", df.iloc[:1500], distribution="bernoulli", n_trees=60,
              interaction_depth=4, shrinkage=0.1, bag_fraction=1)
    ee = qwyc(fit, df.iloc[1500:], alpha=0.01)
    new = df.copy()
    new["c"] = rng.choice(list("abcdez"), size=n)             # "z": a level never seen
    first = ee.predict(new, type="link")                     # compiled, row by row
    monkeypatch.setattr(predictor, "SEAM_MIN_ROWS", 700)     # seam, then blocks
    monkeypatch.setattr(predictor, "compiled_kernels", lambda: None)
    pd.testing.assert_frame_equal(first, ee.predict(new, type="link"))
    df = new
    link = fit.predict(df, n_trees=60)
    np.testing.assert_array_equal(first["decision"][first["exit"] == "full"],
                                  (link >= 0)[first["exit"] == "full"])
