"""Partial dependence (plot_gbm(return_grid=True)) against R's plot.gbm grids,
brute-force partial dependence and ICE curves."""
import re

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.engine.tree import predict_trees
from pygbm.inspect.partial_dependence import (expand_grid, partial_dependence, plot_gbm,
                                              weighted_traversal)
from rfit import build_fit, load_fixture

ALL = ["boston_gaussian", "boston_stumps", "pima2_bernoulli", "lending_bernoulli",
       "lung_coxph", "boston_quantile", "boston_tdist"]
RTOL = 1e-6


def _i_var(ref):
    v = ref["i_var"]
    return v if isinstance(v[0], str) else [int(i) - 1 for i in v]   # R's are 1-based


@pytest.mark.parametrize("name", ALL)
def test_grids_match_r(name):
    fx = load_fixture(name)
    fit = build_fit(fx)
    for ref in fx["ref"]["grids"]:
        grid = plot_gbm(fit, _i_var(ref), n_trees=ref["n_trees"][0],
                        continuous_resolution=ref["continuous_resolution"][0],
                        return_grid=True, type=ref["type"][0])
        assert list(grid.columns) == ref["columns"]
        assert grid.attrs["method"] == "weighted_traversal"
        for col in ref["columns"][:-1]:
            values = ref["grid"][col]
            if isinstance(values[0], str):
                assert isinstance(grid[col].dtype, pd.CategoricalDtype)
                assert list(grid[col].astype(str)) == values
                idx = fit.var_names.index(col)
                assert list(grid[col].cat.categories) == list(fit.var_levels[idx])
            else:
                np.testing.assert_allclose(grid[col].to_numpy(), values, rtol=1e-15)
        np.testing.assert_allclose(grid["y"].to_numpy(), ref["grid"]["y"], rtol=RTOL)


def test_grid_is_r_seq_and_expand_grid_order():
    fit = build_fit(load_fixture("boston_gaussian"))
    g = partial_dependence(fit, ["lstat", "rm"], continuous_resolution=5)
    lo, hi = fit.var_levels[12][0], fit.var_levels[12][-1]
    np.testing.assert_array_equal(g["lstat"][:5], np.linspace(lo, hi, 5))
    assert g["lstat"].iloc[0] == lo and g["lstat"].iloc[4] == hi
    assert (g["rm"][:5] == g["rm"].iloc[0]).all()        # first variable varies fastest
    np.testing.assert_array_equal(expand_grid([np.arange(2), np.arange(3)]),
                                  [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]])


def test_by_position_and_name_agree():
    fit = build_fit(load_fixture("boston_gaussian"))
    a = partial_dependence(fit, [12, 5], continuous_resolution=9)
    b = partial_dependence(fit, ["lstat", "rm"], continuous_resolution=9)
    pd.testing.assert_frame_equal(a, b)


def test_response_scale_is_inverse_link():
    fit = build_fit(load_fixture("pima2_bernoulli"))
    link = partial_dependence(fit, "glucose", continuous_resolution=11)
    resp = partial_dependence(fit, "glucose", continuous_resolution=11, type="response")
    np.testing.assert_allclose(resp["y"], 1 / (1 + np.exp(-link["y"])))
    assert resp.attrs["type"] == "response"


def test_no_trees_give_the_initial_value_across_the_grid_as_r():
    # R's plot.gbm(n.trees = 0) runs no tree: initF at every grid point, through the
    # inverse link with type = "response" (gbm 2.1.8: plot(fit, 1, n.trees = 0,
    # return.grid = TRUE)); pygbm refused 0 ("n_trees must be at least 1")
    fit = build_fit(load_fixture("pima2_bernoulli"))
    init = float(fit.init_f)
    for kw in ({}, {"method": "brute_force"}, {"ice": True, "ice_rows": 5, "random_state": 1}):
        link = partial_dependence(fit, "glucose", n_trees=0, continuous_resolution=7, **kw)
        resp = partial_dependence(fit, "glucose", n_trees=0, continuous_resolution=7,
                                  type="response", **kw)
        # R's weighted traversal exactly; brute force's weighted mean to rounding
        np.testing.assert_allclose(link["y"], init, rtol=0 if not kw else 1e-14)
        np.testing.assert_allclose(resp["y"], 1 / (1 + np.exp(-init)), rtol=1e-14)
        assert link.attrs["n_trees"] == 0
    two = plot_gbm(fit, ["glucose", "mass"], n_trees=0, continuous_resolution=4,
                   return_grid=True)
    np.testing.assert_array_equal(two["y"], init)
    # a multi-class fit: each class's initial value (their softmax on the response scale)
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"a": rng.normal(size=150), "c": rng.choice(list("pqr"), 150)})
    multi = pygbm.gbm("c ~ a", d, distribution="multinomial", n_trees=5, random_state=1)
    grid = partial_dependence(multi, "a", n_trees=0, continuous_resolution=3, type="response")
    init_k = np.asarray(multi.init_f, dtype=float)
    np.testing.assert_allclose(grid[["p", "q", "r"]].to_numpy(),
                               np.tile(np.exp(init_k) / np.exp(init_k).sum(), (3, 1)),
                               rtol=1e-14)
    with pytest.raises(ValueError, match=r"^n_trees must be at least 0, got -1$"):
        partial_dependence(fit, "glucose", n_trees=-1)
    with pytest.raises(TypeError, match=r"^n_trees must be an integer >= 0 or None, got 0\.5$"):
        partial_dependence(fit, "glucose", n_trees=0.5)


def _reference_pd(tree, values):
    """Recursive statement of the rules (for 1 grid point): follow splits on
    the grid variables (NaN -> missing child), average other splits by the
    children's weights, never visiting their missing child."""
    def walk(node):
        var = tree.split_var[node]
        if var == -1:
            return tree.split_code_pred[node]
        if var in values:
            x = values[var]
            if np.isnan(x):
                return walk(tree.missing[node])
            return walk(tree.left[node] if x < tree.split_code_pred[node] else tree.right[node])
        lft, rgt = tree.left[node], tree.right[node]
        wl, wr = tree.weight[lft], tree.weight[rgt]
        return (wl * walk(lft) + wr * walk(rgt)) / (wl + wr)
    return walk(0)


def test_missing_branch_and_weights_rules():
    fit = build_fit(load_fixture("pima2_bernoulli"))       # continuous, with NaN
    idx = [1, 4]                                            # glucose, insulin
    points = np.array([[np.nan, np.nan], [120.0, np.nan], [np.nan, 90.0], [150.0, 300.0]])
    got = weighted_traversal(fit, points, idx, 30)
    for k, point in enumerate(points):
        expected = fit.init_f + sum(_reference_pd(t, dict(zip(idx, point)))
                                    for t in fit.trees[:30])
        assert got[k] == pytest.approx(expected, rel=1e-12)
    # the missing children of the grid variables are really used
    assert abs(got[0] - got[3]) > 1e-3


def test_brute_force_equals_traversal_for_stumps():
    fit = build_fit(load_fixture("boston_stumps"))      # no missing values in boston
    for var in ("lstat", "chas", "rm"):
        a = partial_dependence(fit, var, continuous_resolution=25)
        b = partial_dependence(fit, var, continuous_resolution=25, method="brute_force")
        assert b.attrs["method"] == "brute_force"
        np.testing.assert_allclose(b["y"], a["y"], rtol=1e-10)


def test_brute_force_is_average_prediction():
    fit = build_fit(load_fixture("pima2_bernoulli"))
    g = partial_dependence(fit, ["glucose", "mass"], continuous_resolution=4,
                           method="brute_force", n_trees=40)
    x = fit.data.x
    for k in (0, 7, 15):
        xm = x.copy()
        xm[:, 1], xm[:, 5] = g["glucose"].iloc[k], g["mass"].iloc[k]
        pred = predict_trees(fit.trees, xm, fit.var_type, fit.c_splits, fit.init_f, [40])
        assert g["y"].iloc[k] == pytest.approx(pred.mean(), rel=1e-12)


def test_ice_curves():
    fit = build_fit(load_fixture("boston_gaussian"))
    ice = partial_dependence(fit, "rm", continuous_resolution=10, ice=True)
    assert ice.attrs["method"] == "ice"
    assert list(ice.columns) == ["rm", "row", "y"]
    assert len(ice) == 10 * 506 and ice["row"].nunique() == 506
    bf = partial_dependence(fit, "rm", continuous_resolution=10, method="brute_force")
    mean_curve = ice.groupby("rm")["y"].mean().to_numpy()
    np.testing.assert_allclose(mean_curve, bf["y"].to_numpy(), rtol=1e-12)
    # one curve = the predictions of that row over the grid
    row = ice[ice["row"] == 17]
    xm = np.repeat(fit.data.x[[17]], 10, axis=0)
    xm[:, 5] = row["rm"].to_numpy()
    pred = predict_trees(fit.trees, xm, fit.var_type, fit.c_splits, fit.init_f, [100])[:, 0]
    np.testing.assert_allclose(row["y"].to_numpy(), pred)
    sub = partial_dependence(fit, "chas", ice=True, ice_rows=30, random_state=1)
    assert sub["row"].nunique() == 30 and len(sub) == 60
    assert isinstance(sub["chas"].dtype, pd.CategoricalDtype)


def test_errors_and_warnings():
    fit = build_fit(load_fixture("boston_gaussian"))
    with pytest.raises(ValueError, match="not in the fit"):
        partial_dependence(fit, "nope")
    with pytest.raises(ValueError, match="0-based"):
        partial_dependence(fit, 13)
    with pytest.raises(ValueError, match="0-based"):
        partial_dependence(fit, -1)
    with pytest.raises(TypeError, match="mix"):
        partial_dependence(fit, ["lstat", 3])
    # R truncates i.var = 1.5 to 1; pygbm names the argument (was: "'float' object is
    # not iterable", found with R's ?gbm example, tests/test_r_help_examples.py)
    for bad in (1.5, np.float64(2.0), None):
        with pytest.raises(TypeError, match=r"i_var must be a variable name, a 0-based"):
            partial_dependence(fit, bad)
    with pytest.raises(TypeError, match="mix"):
        partial_dependence(fit, [1.0, 2.0])
    with pytest.raises(ValueError, match="twice"):
        partial_dependence(fit, ["lstat", "lstat"])
    with pytest.raises(ValueError, match="type"):
        partial_dependence(fit, "lstat", type="probability")
    with pytest.raises(ValueError, match="method"):
        partial_dependence(fit, "lstat", method="fast")
    with pytest.raises(ValueError, match="continuous_resolution"):
        partial_dependence(fit, "lstat", continuous_resolution=0)
    with pytest.raises(TypeError, match="return_grid"):
        plot_gbm(fit, "lstat", return_grid="yes")
    with pytest.raises(ValueError, match="ice_rows"):
        partial_dependence(fit, "lstat", ice=True, ice_rows=0)
    with pytest.raises(ValueError, match="one variable"):
        plot_gbm(fit, ["lstat", "rm"], ice=True)
    with pytest.warns(UserWarning, match="exceeds"):
        g = partial_dependence(fit, "lstat", n_trees=1000, continuous_resolution=3)
    assert g.attrs["n_trees"] == 100
    with pytest.warns(UserWarning, match="up to 3"):
        g = plot_gbm(fit, ["lstat", "rm", "dis", "nox"], continuous_resolution=3)
    assert list(g.columns) == ["lstat", "rm", "dis", "nox", "y"] and len(g) == 81
    no_data = type(fit)(**{**vars(fit), "data": None})
    with pytest.raises(ValueError, match="keep_data"):
        partial_dependence(no_data, "lstat", method="brute_force")


def test_brute_force_averages_the_training_rows_of_a_pairwise_fit():
    # pairwise groups in train_fraction's split: the training rows are whole groups,
    # not the data's first rows (interleaved groups put validation rows among them)
    rng = np.random.default_rng(5)
    n = 240
    d = pd.DataFrame({"g": np.tile(np.arange(24), 10), "x": rng.normal(size=n),
                      "z": rng.normal(size=n)})
    d["y"] = (d.x + 0.5 * rng.normal(size=n) > 0).astype(float)
    fit = pygbm.gbm("y ~ x + z", d, distribution=dict(name="pairwise", group="g"),
                    n_trees=20, interaction_depth=2, train_fraction=0.5, random_state=1)
    train = np.sort(fit.row_order[: fit.n_train])
    assert not np.array_equal(train, np.arange(fit.n_train))
    ice = pygbm.partial_dependence(fit, "x", ice=True, continuous_resolution=5)
    assert ice["row"].nunique() == fit.n_train
    pd_ = pygbm.partial_dependence(fit, "x", method="brute_force", continuous_resolution=5)
    rows = d.iloc[train]
    for value, yhat in zip(pd_["x"], pd_["y"]):
        assert yhat == pytest.approx(fit.predict(rows.assign(x=value), n_trees=20).mean())


def test_a_predictor_named_y_or_row_keeps_its_grid_column():
    """The value column ``y`` (and ICE's ``row``, a multinomial's class columns)
    overwrote a chosen predictor of the same name: the grid was lost and
    plot_gbm failed ("the frame has 0" variables)."""
    import matplotlib
    matplotlib.use("Agg")
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"y": rng.normal(size=200), "row": rng.normal(size=200)})
    d["target"] = 2 * d["y"] + d["row"] + rng.normal(size=200)
    fit = pygbm.gbm("target ~ y + row", d, distribution="gaussian", n_trees=10, random_state=1)
    grid = partial_dependence(fit, "y", continuous_resolution=3)
    assert list(grid.columns) == ["y", "y_"] and grid.attrs["y_column"] == "y_"
    np.testing.assert_allclose(grid["y"], np.linspace(d["y"].min(), d["y"].max(), 3))
    ice = partial_dependence(fit, "row", continuous_resolution=2, ice=True, ice_rows=2,
                             random_state=1)
    assert list(ice.columns) == ["row", "row_", "y"] and ice.attrs["row_column"] == "row_"
    np.testing.assert_allclose(ice["row"].iloc[:2], [d["row"].min(), d["row"].max()])
    assert plot_gbm(fit, "y").get_xlabel() == "y"
    assert plot_gbm(fit, "row", ice=True, ice_rows=5).get_xlabel() == "row"
    d["cls"] = np.repeat(["a", "row", "b", "c"], 50)
    multi = pygbm.gbm("cls ~ a + row", d.rename(columns={"y": "a"}),
                      distribution="multinomial", n_trees=5, random_state=1)
    curves = partial_dependence(multi, "a", continuous_resolution=2, ice=True, ice_rows=2,
                                random_state=1)
    assert list(curves.columns) == ["a", "row", "a_", "b", "c", "row_"]   # classes sorted
    assert curves["row"].isin(range(200)).all()           # the training rows, not class row


def test_continuous_resolution_is_a_whole_number():
    """continuous_resolution=10.0 was refused while n_trees=5.0 is taken (as in R):
    both take a whole-number float now; a fraction is refused, named."""
    fit = build_fit(load_fixture("boston_gaussian"))
    pd.testing.assert_frame_equal(partial_dependence(fit, "lstat", continuous_resolution=10.0),
                                  partial_dependence(fit, "lstat", continuous_resolution=10))
    grid = plot_gbm(fit, "lstat", continuous_resolution=np.float64(4.0), return_grid=True)
    assert len(grid) == 4
    for bad in (7.5, True, "10", float("nan")):
        with pytest.raises(TypeError, match=r"continuous_resolution must be a whole number, "
                                            rf"got {re.escape(repr(bad))}"):
            partial_dependence(fit, "lstat", continuous_resolution=bad)
    with pytest.raises(ValueError, match=r"continuous_resolution must be between 1 and "
                                         r"10000000, got 0"):
        partial_dependence(fit, "lstat", continuous_resolution=0.0)


def test_ice_rows_without_ice_warns_that_it_is_ignored():
    """partial_dependence(ice_rows=5) without ice=True averaged every row, silently."""
    fit = build_fit(load_fixture("boston_gaussian"))
    with pytest.warns(UserWarning, match=r"ice_rows applies to ICE curves \(ice=True\) only"):
        grid = partial_dependence(fit, "lstat", continuous_resolution=3, ice_rows=5)
    assert list(grid.columns) == ["lstat", "y"]


#: R 4.2.2: sprintf("%a", seq(-1.7e308, 1.6e308, length = 7)), where to - from overflows
R_SEQ_OVERFLOW = ["-0x1.e42d130773b76p+1023", "-0x1.4787e739bf384p+1023",
                  "-0x1.55c576d815726p+1022", "-0x1.c7b1f3cac744p+1018",
                  "0x1.1ccf385ebc8ap+1022", "0x1.2b0cc7fd12c42p+1023",
                  "0x1.c7b1f3cac7433p+1023"]


def test_grid_of_a_range_beyond_the_doubles_is_r_seq():
    """A predictor from -1.7e308 to 1.6e308: max - min overflows; R's seq then
    spaces the points of from/4 to to/4 (the grid was NaN, with NumPy's warnings)."""
    rng = np.random.default_rng(0)
    x = np.concatenate([[-1.7e308, 1.6e308], rng.uniform(-1, 1, 58) * 1e308])
    d = pd.DataFrame({"x": x, "y": (x > 0) + rng.normal(size=60)})
    with np.errstate(all="raise"):
        fit = pygbm.gbm("y ~ x", d, distribution="gaussian", n_trees=5, n_minobsinnode=5,
                        random_state=1)
        grid = partial_dependence(fit, "x", continuous_resolution=7)
    np.testing.assert_array_equal(grid["x"].to_numpy(),
                                  [float.fromhex(v) for v in R_SEQ_OVERFLOW])
    assert np.all(np.isfinite(grid.iloc[:, -1]))


def _fit_with(x, rng):
    d = pd.DataFrame({"x": x, "z": rng.normal(size=x.size)})
    d["y"] = np.nan_to_num(x, posinf=3, neginf=-3) + d.z + rng.normal(size=x.size)
    return pygbm.gbm("y ~ x + z", d, distribution="gaussian", n_trees=10,
                     interaction_depth=2, random_state=1)


@pytest.mark.parametrize("inf", [np.inf, -np.inf])
def test_grid_of_a_predictor_with_infinite_values_spans_its_finite_quantiles(inf):
    """A predictor with Inf (or -Inf) values: the grid was NaN and inf points (the
    NaN one the missing branch), with NumPy's RuntimeWarning only; R stops ("'to'
    must be a finite number"). Now the grid spans the finite stored quantiles, with
    a warning naming the predictor; none finite: an error naming it."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    x[:3] = inf
    fit = _fit_with(x, rng)
    levels = np.asarray(fit.var_levels[0], dtype=float)
    assert np.isinf(levels).any()
    finite = levels[np.isfinite(levels)]
    with np.errstate(all="raise"):
        with pytest.warns(UserWarning, match=r"predictor 'x' has infinite values, which are "
                          r"outside the grid"):
            grid = partial_dependence(fit, "x", continuous_resolution=5)
    np.testing.assert_array_equal(grid["x"], np.linspace(finite.min(), finite.max(), 5))
    assert np.isfinite(grid["y"]).all()
    with pytest.warns(UserWarning, match="infinite values"):
        ice = partial_dependence(fit, "x", continuous_resolution=5, ice=True, ice_rows=3,
                                 random_state=1)
    assert np.isfinite(ice["x"]).all()
    no_finite = type(fit)(**{**vars(fit), "var_levels": [np.full(11, inf)] +
                             list(fit.var_levels[1:])})
    with pytest.raises(ValueError, match=r"the predictor 'x' has no finite value"):
        partial_dependence(no_finite, "x")
