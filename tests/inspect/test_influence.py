"""relative_influence / summary / permutation influence against R gbm 2.1.8.1."""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.inspect.influence import permutation_influence, relative_influence, used_variables
from pygbm.inspect.summary import summary
from rfit import build_fit, load_fixture

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

ALL = ["boston_gaussian", "boston_stumps", "pima2_bernoulli", "lending_bernoulli",
       "lung_coxph", "boston_quantile", "boston_tdist"]
RTOL = 1e-6


@pytest.fixture(scope="module", params=ALL)
def case(request):
    fx = load_fixture(request.param)
    return fx, build_fit(fx)


def test_relative_influence_matches_r(case):
    fx, fit = case
    for ref in fx["ref"]["relative_influence"]:
        got = relative_influence(fit, ref["n_trees"][0], scale=ref["scale"][0],
                                 sort=ref["sort"][0])
        assert isinstance(got, pd.Series)
        assert list(got.index) == ref["names"]      # same order, incl. R's tie order
        np.testing.assert_allclose(got.to_numpy(), ref["values"], rtol=RTOL, atol=1e-12)


def test_quantile_and_tdist_where_r_fails():
    for name in ("boston_quantile", "boston_tdist"):
        fx = load_fixture(name)
        ref = fx["ref"]["relative_influence"][0]
        assert ref["r_error"] == ["the condition has length > 1"]   # R's own function fails
        got = relative_influence(build_fit(fx), 80)
        np.testing.assert_allclose(got.to_numpy(), ref["values"], rtol=RTOL)
        assert got.max() > 0


def test_relative_influence_is_sum_not_mean():
    fit = build_fit(load_fixture("boston_gaussian"))
    total = sum(float(t.error_reduction[t.split_var == 12].sum()) for t in fit.trees)
    assert relative_influence(fit)["lstat"] == pytest.approx(total, rel=1e-12)
    assert relative_influence(fit, 100).sum() == pytest.approx(
        sum(float(t.error_reduction.sum()) for t in fit.trees), rel=1e-12)


def test_relative_influence_scale_and_sort():
    fit = build_fit(load_fixture("boston_gaussian"))
    scaled = relative_influence(fit, 5, scale=True)
    assert scaled.max() == 1.0
    ordered = relative_influence(fit, 5, sort=True)
    assert list(ordered.index[:2]) == ["lstat", "rm"]
    assert (np.diff(ordered.to_numpy()) <= 0).all()


def test_relative_influence_without_a_split_is_float_zeros():
    """No split in the trees: np.bincount of nothing is int64 even with float
    weights, so the influences came back as integers (dtype int64)."""
    df = pd.DataFrame({"y": 1.0, "x": np.random.default_rng(0).normal(size=40)})
    fit = pygbm.gbm("y ~ x", df, distribution="gaussian", n_trees=3, n_minobsinnode=3,
                    random_state=1)
    for scale in (False, True):
        with pytest.warns(UserWarning) if scale else warnings.catch_warnings():
            ri = relative_influence(fit, 3, scale=scale)
        assert ri.dtype == np.float64 and ri.tolist() == [0.0]


def test_relative_influence_errors():
    fit = build_fit(load_fixture("boston_gaussian"))
    with pytest.raises(ValueError, match="n_trees"):
        relative_influence(fit, 0)
    with pytest.raises(ValueError, match="exceeds"):
        relative_influence(fit, 101)
    with pytest.raises(TypeError, match="n_trees"):
        relative_influence(fit, 2.5)
    with pytest.raises(TypeError, match="scale"):
        relative_influence(fit, 10, scale="yes")
    # 0/1 read as FALSE/TRUE, as R and every other boolean argument of pygbm
    np.testing.assert_array_equal(relative_influence(fit, 10, scale=1),
                                  relative_influence(fit, 10, scale=True))


def test_summary_matches_r(case):
    fx, fit = case
    for ref in fx["ref"].get("summary", []):
        table = summary(fit, n_trees=ref["n_trees"][0], plot_it=False).to_frame()
        assert list(table.columns) == ["var", "rel_inf"]
        assert list(table["var"]) == ref["var"]
        np.testing.assert_allclose(table["rel_inf"], ref["rel_inf"], rtol=RTOL, atol=1e-12)
        assert table["rel_inf"].sum() == pytest.approx(100.0)


def test_summary_options():
    fit = build_fit(load_fixture("boston_gaussian"))
    raw = summary(fit, plot_it=False, normalize=False, order=False).to_frame()
    assert list(raw["var"]) == fit.var_names
    np.testing.assert_allclose(raw["rel_inf"], relative_influence(fit, 100))
    with pytest.warns(UserWarning, match="exceeds"):
        capped = summary(fit, n_trees=500, plot_it=False).to_frame()
    np.testing.assert_allclose(capped["rel_inf"], summary(fit, plot_it=False).to_frame()["rel_inf"])
    with pytest.raises(ValueError, match="method"):
        summary(fit, plot_it=False, method="gain")
    with pytest.raises(TypeError, match="plot_it"):
        summary(fit, plot_it=None)
    with pytest.raises(ValueError, match="c_bars"):
        summary(fit, plot_it=False, c_bars=-1)


@pytest.mark.parametrize("name", ["boston_gaussian", "pima2_bernoulli", "lending_bernoulli"])
def test_permutation_like_r(name):
    fx = load_fixture(name)
    fit = build_fit(fx)
    ref = fx["ref"]["permutation"]
    table = summary(fit, plot_it=False, method="permutation", random_state=0).to_frame()
    assert table.shape == (len(fit.var_names), 2)
    assert table["rel_inf"].sum() == pytest.approx(100.0)
    assert (table["rel_inf"] >= 0).all()
    assert table["var"].iloc[0] == ref["var"][0]       # R's top variable (R's run is random)
    # same ranking of the leading variables as R, within a few points
    top = dict(zip(ref["var"], ref["rel_inf"]))
    for var, value in zip(table["var"][:2], table["rel_inf"][:2]):
        assert value == pytest.approx(top[var], abs=5.0)


def test_permutation_details():
    fit = build_fit(load_fixture("boston_gaussian"))
    a = permutation_influence(fit, 5, random_state=3)
    b = permutation_influence(fit, 5, random_state=3)
    pd.testing.assert_series_equal(a, b)
    unused = np.setdiff1d(np.arange(13), used_variables(fit, 5))
    assert (a.iloc[unused] == 0).all() and (a.drop(a.index[unused]) > 0).all()
    lung = build_fit(load_fixture("lung_coxph"))
    with pytest.raises(ValueError, match="coxph"):
        permutation_influence(lung)
    fit.data = None
    with pytest.raises(ValueError, match="keep_data"):
        permutation_influence(fit)


# ---------------------------------------------------------------- target statistics
#: rows of the frame below
TS_ROWS = 400
#: trees of its fits
TS_TREES = 10
#: the permutation's seed
TS_SEED = 5


def _ts_frame() -> pd.DataFrame:
    """Two factors whose interaction drives y (a combination of them pays) and
    a weak numeric predictor."""
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"g": rng.choice(list("abcd"), TS_ROWS), "h": rng.choice(list("pqr"), TS_ROWS),
                      "x": rng.normal(size=TS_ROWS)})
    signal = (d.g.isin(["a", "b"]) ^ (d.h == "p")) * 2.0 + 0.3 * d.x
    d["y"] = (signal + rng.normal(size=TS_ROWS) > 1).astype(int)
    return d


def _ts_fit(frame, **kw):
    return pygbm.gbm("y ~ g + h + x", frame, distribution="bernoulli", n_trees=TS_TREES,
                     interaction_depth=3, random_state=1, categorical="ordered_ts", **kw)


def _permuted_by_hand(fit, frame, n_trees) -> pd.Series:
    """R's meaning: each predictor's values permuted in the data (one permutation
    of the rows), the rows predicted as predict(newdata) predicts them, the
    increase of the deviance."""
    perm = np.random.default_rng(TS_SEED).permutation(len(frame))
    targets = fit.data.response.loss_targets()
    x = frame.drop(columns="y")

    def loss(rows):
        return fit.distribution.deviance(targets, fit.predict(rows, n_trees=n_trees),
                                         fit.context)

    base = loss(x)
    out = {}
    for v in fit.var_names:
        shuffled = x.copy()
        shuffled[v] = x[v].to_numpy()[perm]
        out[v] = loss(shuffled) - base
    return pd.Series(out)


@pytest.mark.parametrize("kw", [{}, {"max_bins": 16}, {"boosting_type": "ordered"},
                                {"boosting_type": "ordered", "max_bins": 16},
                                {"ts_max_combination": 2},
                                {"ts_max_combination": 2, "max_bins": 16}])
def test_permutation_with_target_statistics_permutes_the_predictor(kw):
    # the levels are permuted and encoded by the fit as predict() encodes them
    # (the stored codes were read as the trees' statistics: an IndexError in
    # split_directions, or an influence of 0 for the factor that drives y)
    frame = _ts_frame()
    fit = _ts_fit(frame, **kw)
    got = permutation_influence(fit, random_state=np.random.default_rng(TS_SEED))
    np.testing.assert_array_equal(got.to_numpy(),
                                  _permuted_by_hand(fit, frame, TS_TREES).to_numpy())
    assert got["g"] > 0 and got["h"] > 0
    table = summary(fit, plot_it=False, method="permutation", random_state=TS_SEED).to_frame()
    assert table["rel_inf"].sum() == pytest.approx(100.0)


def test_permutation_engines_agree_with_target_statistics():
    frame = _ts_frame()
    got = [permutation_influence(_ts_fit(frame, ts_max_combination=2, engine=engine),
                                 random_state=TS_SEED) for engine in ("numpy", "numba")]
    pd.testing.assert_series_equal(got[0], got[1])


def test_a_predictor_read_through_a_combination_is_used():
    frame = _ts_frame()
    fit = _ts_fit(frame, ts_max_combination=2)
    p = len(fit.var_names)
    columns = set(fit.trees[0].split_var.tolist()) - {-1}
    # the first tree reads h only through the combination (g, h)
    assert 1 not in columns and any(fit.ts_encoder.originals_of(c) == (0, 1)
                                    for c in columns if c >= p)
    assert used_variables(fit, 1).tolist() == [0, 1, 2]
    got = permutation_influence(fit, 1, random_state=np.random.default_rng(TS_SEED))
    np.testing.assert_array_equal(got.to_numpy(), _permuted_by_hand(fit, frame, 1).to_numpy())
    assert got["h"] > 0


def test_permutation_leaves_a_pairwise_fit_generator_untouched():
    # pairwise deviances break ties with noise: drawn from a copy of the fit's
    # generator, which gbm_more continues (the influence had advanced it)
    tm = pd.read_csv(DATA_DIR / "travel_mode.csv").assign(
        choice=lambda d: (d["choice"] == "yes").astype(int))
    fit = pygbm.gbm("choice ~ wait + travel + gcost + income", tm, n_trees=10, random_state=1,
                    distribution=dict(name="pairwise", group="individual", metric="ndcg"))
    noise = fit.context.noise_rng.bit_generator.state
    first = pygbm.permutation_influence(fit, random_state=1)
    assert fit.context.noise_rng.bit_generator.state == noise
    pd.testing.assert_series_equal(pygbm.permutation_influence(fit, random_state=1), first)
