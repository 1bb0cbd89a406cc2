"""Cost-efficient boosting through gbm()/gbm_fit()/gbm_more()/cv: arguments
and their errors, the marks continued by gbm_more, predict_cost against the
engine's accounting, the print and summary reports."""
from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from cost_cases import COSTS, NAMES, band_fit, band_frame

from pygbm import gbm, gbm_fit, gbm_more


def test_no_costs_is_the_fit_without_them():
    df = band_frame()
    a = band_fit(df)
    b = band_fit(df, feature_costs=None, cost_split=0.0, cegb_tradeoff=1.0)
    np.testing.assert_array_equal(a.fit, b.fit)
    assert a.cost_tracker is None and b.options.costs is None
    # costs with lambda = 0: R's fit, the costs kept for reporting
    c = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.0)
    np.testing.assert_array_equal(a.fit, c.fit)
    assert c.cost_tracker is None
    assert c.predict_cost(df)["total"].mean() > 0


def test_costs_lower_the_prediction_cost():
    df = band_frame()
    plain = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.0)
    cheap = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.01)
    assert cheap.predict_cost(df)["total"].mean() < 0.7 * plain.predict_cost(df)["total"].mean()


def test_gbm_more_continues_the_marks():
    df = band_frame()
    kw = dict(feature_costs=COSTS, feature_costs_model={"e2": 30.0}, cost_split=0.01,
              cegb_tradeoff=0.01)
    whole = band_fit(df, n_trees=40, **kw)
    first = band_fit(df, n_trees=20, **kw)
    again = pickle.loads(pickle.dumps(first))    # before gbm_more moves first's generator
    more = gbm_more(first, 20)
    np.testing.assert_array_equal(more.fit, whole.fit)
    for s, t in zip(more.trees, whole.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)
    np.testing.assert_array_equal(more.cost_tracker.used_rows, whole.cost_tracker.used_rows)
    assert len(first.cost_tracker.splits) == 20          # the first fit keeps its own
    np.testing.assert_array_equal(gbm_more(again, 20).fit, whole.fit)


@pytest.mark.parametrize("bag", [1.0, 0.5])
def test_predict_cost_on_the_training_rows_is_the_trackers_accounting(bag):
    df = band_frame()
    fit = band_fit(df, bag_fraction=bag, feature_costs=COSTS, feature_costs_model={"c2": 7.0},
               cost_split=0.5, cegb_tradeoff=0.005)
    table = fit.predict_cost(df)
    feature, split, model = fit.cost_tracker.training_costs()
    np.testing.assert_allclose(table["feature_cost"], feature)
    np.testing.assert_allclose(table["split_cost"], split)
    assert np.all(table["model_cost"] == model)
    np.testing.assert_allclose(table["total"], feature + split + model)
    tables = fit.predict_cost(df, n_trees=[0, 5, fit.n_trees])
    assert set(tables) == {0, 5, fit.n_trees}
    assert tables[0]["total"].sum() == 0.0
    pd.testing.assert_frame_equal(tables[fit.n_trees], table)
    assert (tables[5]["total"] <= table["total"]).all()
    # counts above the trees fitted: keyed as asked, each the table of all the trees
    with pytest.warns(UserWarning, match="n_trees exceeded"):
        above = fit.predict_cost(df, n_trees=[5, fit.n_trees + 10, fit.n_trees + 20])
    assert list(above) == [5, fit.n_trees + 10, fit.n_trees + 20]
    pd.testing.assert_frame_equal(above[fit.n_trees + 20], table)


def test_print_and_summary_report_the_cost():
    df = band_frame()
    fit = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.01)
    text = repr(fit)
    assert "Mean prediction cost per training row" in text and "Share of the cost" in text
    mean = fit.predict_cost(df)["total"].mean()
    assert f"{mean:.4g}" in text
    s = fit.summary(plot_it=False)
    frame = s.cost_frame()
    assert list(frame.columns) == ["cost_share"]
    assert abs(frame["cost_share"].sum() - 100.0) < 1e-9
    assert "cost" in str(s)
    assert "cost" not in repr(band_fit(df))


def test_gbm_fit_takes_costs_by_vector():
    df = band_frame()
    x = df[NAMES]
    a = gbm_fit(x, df["y"], n_trees=10, interaction_depth=3, shrinkage=0.1, random_state=1,
                feature_costs=[1, 1, 50, 50], cegb_tradeoff=0.01, engine="numpy")
    b = gbm_fit(x, df["y"], n_trees=10, interaction_depth=3, shrinkage=0.1, random_state=1,
                feature_costs=COSTS, cegb_tradeoff=0.01, engine="numpy")
    np.testing.assert_array_equal(a.fit, b.fit)


def test_costs_that_stop_every_split_warn():
    """Costs in rows and the default cegb_tradeoff=1: no split pays for itself and
    the fit is the constant model, which only '0 had non-zero influence' hinted."""
    df = band_frame(600)
    x = df[NAMES]
    kw = dict(n_trees=5, interaction_depth=3, shrinkage=0.1, random_state=1)
    with pytest.warns(UserWarning, match=r"^no tree made a split: with feature costs a split "
                                         r"is made only where its gain exceeds cegb_tradeoff "
                                         r"\(1\) times its cost"):
        fit = gbm_fit(x, df["y"], feature_costs=[1, 1, 50, 50], **kw)
    assert all(tree.n_nodes == 1 for tree in fit.trees)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grown = gbm_fit(x, df["y"], feature_costs=[1, 1, 50, 50], cegb_tradeoff=0.01, **kw)
    assert any(tree.n_nodes > 1 for tree in grown.trees)


def test_cv_folds_use_the_costs():
    df = band_frame(600)
    kw = dict(n_trees=10, cv_folds=3, n_cores=1)
    plain = band_fit(df, **kw)
    costly = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.05, **kw)
    assert not np.array_equal(plain.cv_error, costly.cv_error)


@pytest.mark.parametrize("kw,match", [
    (dict(feature_costs={"c1": -1.0}), "feature_costs: the cost of 'c1'"),
    (dict(feature_costs={"c1": np.nan}), "feature_costs"),
    (dict(feature_costs_model={"e1": np.inf}), "feature_costs_model"),
    (dict(feature_costs={"zz": 1.0}), "feature_costs: 'zz' is not a predictor; the "
                                      "predictors are c1, c2, e1, e2"),
    (dict(feature_costs={"y": 1.0}), "feature_costs: 'y' is the response"),
    (dict(feature_costs=[1.0, 2.0]), "feature_costs must be a dict"),
    (dict(cost_split=-0.5), "cost_split"),
    (dict(feature_costs=COSTS, cegb_tradeoff=-1.0), "cegb_tradeoff"),
    (dict(cegb_tradeoff=np.nan), "cegb_tradeoff"),
    (dict(feature_costs=COSTS, cegb_tradeoff=None), "cegb_tradeoff: the trade-off must be"),
    (dict(cost_split=np.array([1.0, 2.0])), "cost_split: the cost of a split"),
    (dict(feature_costs=5.0), "feature_costs must be a dict .* got 5.0"),
    (dict(feature_costs=pd.Series({"c1": 1.0, "zz": 2.0})), "'zz' is not a predictor"),
    # the last of the repeated names was taken silently
    (dict(feature_costs=pd.Series([1.0, 2.0], index=["c1", "c1"])),
     "feature_costs: the Series names 'c1' more than once"),
    (dict(feature_costs={"e1": 1e300}, cegb_tradeoff=1e3),
     "cegb_tradeoff x feature_costs is too large"),
])
def test_bad_costs_name_the_argument(kw, match):
    with pytest.raises(ValueError, match=match):
        band_fit(band_frame(200), n_trees=2, **kw)


def test_costs_keyed_by_an_integer_column_say_the_names_are_strings():
    """A table's integer columns are the predictors '0', '1', ...: the key 0 said
    "0 is not a predictor; the predictors are 0, 1, 2, 3"; a Series indexed 0 and 2
    was read as a vector of 2 costs."""
    df = band_frame(200)
    x = df[NAMES].set_axis(range(4), axis=1)
    kw = dict(n_trees=2, shrinkage=0.1, cegb_tradeoff=0.01)
    for costs in ({0: 5.0}, pd.Series({0: 5.0, 2: 1.0})):
        with pytest.raises(ValueError, match=r"^feature_costs: 0 is not a predictor; the "
                                             r"predictors are 0, 1, 2, 3 \(predictors are "
                                             r"named by strings: key the cost by '0'\)$"):
            gbm_fit(x, df["y"], feature_costs=costs, **kw)
    fit = gbm_fit(x, df["y"], feature_costs=pd.Series({"0": 5.0, "2": 1.0}), **kw)
    np.testing.assert_array_equal(fit.costs.feature, [5.0, 0.0, 1.0, 0.0])


@pytest.mark.parametrize("formula, key, predictor", [
    ("y ~ np.exp(c1) + c2", "c1", "'np.exp(c1)'"), ("y ~ c1 + I(c2 ** 2)", "c2", "'I(c2^2)'")])
def test_a_cost_keyed_by_a_transformed_column_names_its_predictor(formula, key, predictor):
    with pytest.raises(ValueError, match=rf"feature_costs: '{key}' is not a predictor.* "
                                         rf"\('{key}' enters the model through "
                                         rf"{re.escape(predictor)}: key the cost by"):
        gbm(formula, band_frame(200), distribution="bernoulli", n_trees=2,
            feature_costs={key: 1.0})


def test_a_cost_keyed_by_an_offset_column_says_no_tree_reads_it():
    df = band_frame(200).assign(t=lambda d: 1.0 + np.arange(d.shape[0]) % 3)
    with pytest.raises(ValueError, match=r"feature_costs_model: 't' is not a predictor.* "
                                         r"\('t' enters the model only through the offset "
                                         r"'offset\(np.log\(t\)\)', which no tree reads"):
        gbm("y ~ c1 + c2 + offset(np.log(t))", df, distribution="bernoulli", n_trees=2,
            feature_costs_model={"t": 1.0})


def test_costs_by_name_in_a_series_or_by_position():
    """A pandas Series indexed by predictor name is costs by name (in any
    order, as a dict); one with the default integer index is a vector."""
    df = band_frame(300)
    kw = dict(n_trees=5, cegb_tradeoff=0.01)
    want = band_fit(df, feature_costs={"e2": 50.0, "c1": 1.0}, **kw)
    for costs in (pd.Series({"e2": 50.0, "c1": 1.0}), pd.Series([1.0, 0.0, 0.0, 50.0]),
                  (1, 0, 0, 50)):
        got = band_fit(df, feature_costs=costs, **kw)
        np.testing.assert_array_equal(got.costs.feature, want.costs.feature)
        np.testing.assert_array_equal(got.fit, want.fit)


def test_predict_cost_needs_costs():
    df = band_frame(200)
    with pytest.raises(ValueError, match="without costs"):
        band_fit(df, n_trees=2).predict_cost(df)


def test_predict_cost_keeps_the_row_labels_of_newdata():
    # the table's index was 0..n-1 whatever newdata's, so rows did not line up with it
    df = band_frame(200)
    fit = band_fit(df, n_trees=5, feature_costs=COSTS, cegb_tradeoff=0.01)
    rows = df.iloc[:4].set_index(pd.Index(["a", "b", "c", "d"]))
    table = fit.predict_cost(rows)
    assert list(table.index) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(table.to_numpy(), fit.predict_cost(df.iloc[:4]).to_numpy())
    assert all(list(t.index) == list("abcd") for t in fit.predict_cost(rows, [2, 5]).values())


def _pairs_frame(n=1500, seed=0):
    """Two categoricals whose levels' parity decides y (neither alone says
    anything: a combination does) and a continuous noise predictor."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 6, n), rng.integers(0, 6, n)
    y = (((a + b) % 2 == 0) ^ (rng.random(n) < 0.05)).astype(float)
    return pd.DataFrame({"a": pd.Categorical(a), "b": pd.Categorical(b),
                         "c": rng.normal(size=n), "y": y})


def _ts_fit(df, costs, lam, n_trees=30):
    return gbm("y ~ .", df, distribution="bernoulli", n_trees=n_trees, interaction_depth=3,
               categorical="ordered_ts", ts_max_combination=2, random_state=1,
               feature_costs=costs, cegb_tradeoff=lam)


def _split_columns(fit, n_trees=None):
    return np.concatenate([t.split_var[t.split_var >= 0] for t in fit.trees[:n_trees]])


def _reads_by_hand(fit, engine_rows):
    """A row-by-row walk of the first ``len(engine_rows)`` trees of a fit with
    continuous engine columns: tree ``t`` routes the rows ``engine_rows[t]``
    (the engine's matrix). Returns which predictors each row has read (a
    combination: its members) and the splits it has evaluated."""
    p = len(fit.var_names)
    members = fit.ts_encoder.originals_of if fit.ts_encoder is not None else (lambda v: (v,))
    n = engine_rows[0].shape[0] if len(engine_rows) else 0
    read = np.zeros((n, p), dtype=bool)
    evaluated = np.zeros(n, dtype=int)
    for t, x in zip(fit.trees, engine_rows):
        for i in range(n):
            k = 0
            while t.split_var[k] >= 0:
                v = int(t.split_var[k])
                read[i, list(members(v))] = True
                evaluated[i] += 1
                xv = x[i, v]
                k = t.missing[k] if np.isnan(xv) else \
                    t.left[k] if xv < t.split_code_pred[k] else t.right[k]
    return read, evaluated


def _shares_by_hand(fit, read, evaluated, n_trees):
    """The cost table (percent by predictor, then the splits') and the mean cost
    per row of rows that have read ``read`` and evaluated ``evaluated``."""
    spec = fit.costs
    members = fit.ts_encoder.originals_of if fit.ts_encoder is not None else (lambda v: (v,))
    used = np.zeros(len(fit.var_names), dtype=bool)
    for v in np.unique(_split_columns(fit, n_trees)):
        used[list(members(v))] = True
    per_var = read.mean(axis=0) * spec.feature + spec.model * used
    split = spec.split * evaluated.mean()
    total = per_var.sum() + split
    return np.append(per_var, split) * 100.0 / total, total


def test_summary_cost_table_is_of_its_trees():
    """summary(n_trees=k): the training rows' cost under the first k trees, as
    predict_cost(n_trees=k) gives it (it was the cost of all the trees)."""
    df = band_frame()
    fit = band_fit(df, feature_costs=COSTS, feature_costs_model={"c2": 7.0}, cost_split=0.5,
               cegb_tradeoff=0.005)
    x = fit.to_engine(fit._design(df))
    tables = {}
    for k in (1, 5, fit.n_trees):
        s = fit.summary(n_trees=k, plot_it=False)
        frame = s.cost_frame()
        want, mean = _shares_by_hand(fit, *_reads_by_hand(fit, [x] * k), k)
        got = frame["cost_share"].reindex(fit.var_names + ["(splits)"]).to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert s.mean_cost == pytest.approx(mean, rel=1e-12)
        assert s.mean_cost == pytest.approx(fit.predict_cost(df, n_trees=k)["total"].mean(),
                                            rel=1e-12)
        tables[k] = got
    assert not np.allclose(tables[1], tables[fit.n_trees])     # the first tree reads less
    # without the training rows: all the trees from the engine's marks, fewer not at all
    bare = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.005, keep_data=False)
    assert abs(bare.summary(plot_it=False).cost_frame()["cost_share"].sum() - 100) < 1e-9
    with pytest.raises(ValueError, match=r"no cost table: .* under 5 trees needs the "
                                         r"training data, which were not kept \(keep_data"):
        bare.summary(n_trees=5, plot_it=False).cost_frame()
    # print(summary) and the notebook's table say so too (they showed no cost at all)
    note = ("Share of the mean prediction cost per row: not computed (the training rows' "
            "prediction cost under 5 trees needs the training data, which were not kept "
            "(keep_data=False)).")
    assert str(bare.summary(n_trees=5, plot_it=False)).endswith(note)
    assert note in bare.summary(n_trees=5, plot_it=False)._repr_html_()
    assert "not computed" not in str(band_fit(df, n_trees=2).summary(plot_it=False))
    with pytest.raises(ValueError, match="fitted without costs"):
        band_fit(df, n_trees=2).summary(plot_it=False).cost_frame()


def test_cost_report_is_of_the_training_rows():
    """Without the engine's marks (cegb_tradeoff=0) the report walks the kept
    rows: the training rows, not the validation rows."""
    df = band_frame()
    fit = band_fit(df, feature_costs=COSTS, cegb_tradeoff=0.0, train_fraction=0.5)
    assert fit.cost_tracker is None
    mean = fit.predict_cost(df.iloc[:fit.n_train])["total"].mean()
    assert mean != pytest.approx(fit.predict_cost(df)["total"].mean())
    assert fit.summary(plot_it=False).mean_cost == pytest.approx(mean, rel=1e-12)
    assert f"Mean prediction cost per training row: {mean:.4g} " in repr(fit)


@pytest.mark.parametrize("zero_weight", ["none", "importance"])
def test_cost_report_of_a_zero_subsampled_fit_counts_a_kept_zero_one_over_l(zero_weight):
    """The fit keeps only the kept training rows; zeros and non-zeros take other
    paths, so the report weights each kept zero 1/l: an estimate of the mean over
    all the training rows (it was the kept rows' plain mean)."""
    df = band_frame()
    rate = 0.3
    fit = band_fit(df, feature_costs=COSTS, cost_split=0.1, cegb_tradeoff=0.01,
               zero_subsample=rate, zero_weight=zero_weight, train_fraction=0.8)
    sample = fit.zero_sample
    kept = df.iloc[sample.kept]
    w = np.where(sample.kept_zero, 1 / rate, 1.0)
    for k in (fit.n_trees, 5):            # the engine's marks, and the walk of the rows
        table = fit.predict_cost(kept, n_trees=k)
        s = fit.summary(n_trees=k, plot_it=False)
        assert s.mean_cost == pytest.approx(np.average(table["total"], weights=w),
                                            rel=1e-12)
        assert s.mean_cost != pytest.approx(table["total"].mean(), rel=1e-3)
    mean = np.average(fit.predict_cost(kept)["total"], weights=w)
    assert f"Mean prediction cost per training row: {mean:.4g} " in repr(fit)


def test_costs_with_target_statistics_combinations():
    """A combination of ordered target statistics (column p + slot) reads its
    members: its splits are charged their costs (an expensive member keeps
    the combination out as it keeps the member out), and a row whose path
    crosses one pays every member once (predict_cost, against a row-by-row
    walk of the trees)."""
    df = _pairs_frame()
    p = 3
    fit = _ts_fit(df, {"a": 1.0, "b": 2.0, "c": 0.5}, 1e-4)
    cols = _split_columns(fit)
    assert (cols >= p).any()                               # combinations are used
    assert not fit.engine_var_type.any()                   # all continuous to the trees
    read, _ = _reads_by_hand(fit, [fit.to_engine(fit._design(df))] * fit.n_trees)
    np.testing.assert_allclose(fit.predict_cost(df)["feature_cost"], read @ fit.costs.feature)
    # b expensive: neither b nor the combination of a and b (column 3) is split on
    dear = _ts_fit(df, {"a": 1.0, "b": 1e4, "c": 0.5}, 1e-3)
    assert np.isin(_split_columns(dear), [0, 2]).any()         # trees split, on a and c
    assert not np.isin(_split_columns(dear), [1, 3]).any()
    assert dear.summary(plot_it=False).cost_frame().loc["b", "cost_share"] == 0.0
    # gbm_more continues the marks of the members
    more = gbm_more(fit, 5)
    assert more.cost_tracker.used_rows.shape == fit.cost_tracker.used_rows.shape
    assert (more.cost_tracker.read_all() >= fit.cost_tracker.read_all()).all()


def _levels_frame(n=800, seed=0):
    """Factors of 4 to 12 levels (three of them drive y) and a continuous
    predictor: ordered target statistics of many values per level."""
    rng = np.random.default_rng(seed)
    cols, effects = {}, []
    for j, k in enumerate([12, 12, 8, 8, 4]):
        level = rng.integers(0, k, n)
        cols[f"f{j}"] = pd.Categorical(level)
        effects.append(rng.normal(size=k)[level])
    cols["x"] = rng.normal(size=n)
    eta = effects[0] + 0.8 * effects[1] + 0.5 * effects[2] + 0.5 * cols["x"]
    cols["y"] = (eta + rng.normal(size=n) > 0).astype(float)
    return pd.DataFrame(cols)


LEVEL_COSTS = {"f0": 1.0, "f1": 5.0, "f2": 20.0, "f3": 5.0, "f4": 1.0, "x": 1.0}


def _training_paths(fit):
    """The training rows' engine matrix of every tree as the engine grew it:
    the ordered statistics of the iteration's permutation (combination slots
    too)."""
    d = fit.data
    _, schedule = fit.ts_encoder.engine_inputs(d.x, d.response.y, d.response.w,
                                               fit.var_monotone, fit.max_bins)
    width = len(fit.engine_var_type)
    views = {}
    for i in range(fit.n_trees):
        r = schedule.view_of(i)
        if r not in views:
            xt = schedule.data(r).xt
            views[r] = np.column_stack([xt[j] for j in range(width)])
    return [views[schedule.view_of(i)] for i in range(fit.n_trees)]


def test_cost_report_of_target_statistics_is_the_prediction_cost():
    """With ordered target statistics print and summary report the training
    rows' cost as predict_cost gives it (the rows routed by the statistics of
    all training rows); the engine's marks are the rows' paths under the
    ordered statistics each tree was grown on, another number (docs/cegb.md)."""
    df = _levels_frame()
    first = gbm("y ~ .", df, distribution="bernoulli", n_trees=20, interaction_depth=3,
                categorical="ordered_ts", ts_max_combination=2, random_state=1,
                feature_costs=LEVEL_COSTS, cegb_tradeoff=1e-3)
    for fit in (first, gbm_more(first, 10)):
        x = fit.to_engine(fit._design(df))
        read, evaluated = _reads_by_hand(fit, [x] * fit.n_trees)
        want, mean = _shares_by_hand(fit, read, evaluated, fit.n_trees)
        assert mean == pytest.approx(fit.predict_cost(df)["total"].mean(), rel=1e-12)
        s = fit.summary(plot_it=False)
        assert s.mean_cost == pytest.approx(mean, rel=1e-12)
        assert f"Mean prediction cost per training row: {s.mean_cost:.4g} " in repr(fit)
        got = s.cost_frame()["cost_share"].reindex(fit.var_names).to_numpy()
        np.testing.assert_allclose(got, want[:-1], rtol=1e-12, atol=1e-12)
        # the engine's marks: every training row along its path under the
        # ordered statistics of the tree's permutation, gbm_more's trees included
        marks = fit.cost_tracker.read_all()
        grown, _ = _reads_by_hand(fit, _training_paths(fit))
        np.testing.assert_array_equal(marks, grown)
        assert not np.array_equal(marks, read)
    bare = gbm("y ~ .", df, distribution="bernoulli", n_trees=5, interaction_depth=3,
               categorical="ordered_ts", random_state=1, feature_costs=LEVEL_COSTS,
               cegb_tradeoff=1e-3, keep_data=False)
    assert "Mean prediction cost per training row: not computed (the training rows' " \
           "prediction cost under 5 trees needs the training data, which were not kept " \
           "(keep_data=False))." in repr(bare)
    with pytest.raises(ValueError, match="keep_data=False"):
        bare.summary(plot_it=False).cost_frame()




@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("max_bins", [None, 32])
@pytest.mark.parametrize("splits", ["gradient", "newton"])
def test_split_cost_counts_the_node_rows_whatever_the_split_criterion(splits, max_bins, engine):
    # alpha is charged per in-bag row of the node (the paper's |I_p| alpha, LightGBM's
    # num_data_in_leaf), not per unit of the weights the tree is grown with, which
    # are w h with Newton splits (they charged lambda alpha sum p (1 - p) before)
    df = band_frame()
    lam, alpha, bag = 1e-3, 2.0, 0.5
    fit = band_fit(df, distribution={"name": "bernoulli", "splits": splits}, n_trees=3,
                   bag_fraction=bag, max_bins=max_bins, engine=engine, cost_split=alpha,
                   cegb_tradeoff=lam)
    in_bag = int(np.floor(bag * fit.n_train))
    for made in fit.cost_tracker.splits:
        rows = made[:, 2] / (lam * alpha)
        assert rows[0] == pytest.approx(in_bag, rel=1e-12)      # the root: every bag row
        np.testing.assert_allclose(rows, np.round(rows), rtol=1e-12)
        assert np.all(rows[1:] < in_bag)
