"""cost_tradeoff (pygbm/inspect/cost_tradeoff.py, issue 22): test deviance against the
mean prediction cost over the trees, read from newdata as valid_error reads it (the
formula's response, offset, weights, event status, groups), and its refusals."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from cost_cases import COSTS, LIGHT, NAMES, band_fit, band_frame

from pygbm import gbm, gbm_fit


def test_cost_tradeoff_traces_deviance_against_cost():
    import matplotlib
    matplotlib.use("Agg")
    from pygbm import cost_tradeoff, plot_cost_tradeoff

    train, test = band_frame(800, seed=1), band_frame(400, seed=2)
    fits = [band_fit(train, feature_costs=COSTS, cegb_tradeoff=lam) for lam in (0.0, 0.01)]
    table = cost_tradeoff(fits, test, n_trees=[5, 30])
    assert list(table["model"].unique()) == ["lambda=0", "lambda=0.01"]
    assert list(table.columns) == ["model", "tradeoff", "n_trees", "deviance", "mean_cost",
                                   "feature_cost", "split_cost", "model_cost"]
    last = table[table["n_trees"] == 30]
    # deviance as the fit's own: bernoulli's on the test rows at 30 trees
    f = fits[1].predict(test, n_trees=30)
    y = test["y"].to_numpy()
    want = -2 * np.mean(y * f - np.logaddexp(0, f))
    assert abs(last["deviance"].iloc[1] - want) < 1e-12
    assert last["mean_cost"].iloc[1] < last["mean_cost"].iloc[0]
    assert len(cost_tradeoff({"a": fits[1]}, test)) >= 5       # default counts
    one = cost_tradeoff(fits[1], test, n_trees=[5, 30])         # a single fit: its curve
    assert one.drop(columns="model").equals(
        table[table["model"] == "lambda=0.01"].drop(columns="model").reset_index(drop=True))
    ax = plot_cost_tradeoff(table)
    assert len(ax.lines) == 2
    # two fits of one trade-off (other costs, depths) are two models, not one line
    # zigzagging through both
    deep = band_fit(train, feature_costs=COSTS, cegb_tradeoff=0.01, interaction_depth=6)
    both = cost_tradeoff([fits[0], fits[1], deep], test, n_trees=[5, 30])
    assert list(both["model"].unique()) == ["lambda=0", "lambda=0.01 (fits[1])",
                                            "lambda=0.01 (fits[2])"]
    assert len(plot_cost_tradeoff(both).lines) == 3
    with pytest.raises(ValueError, match=r"^table has no rows"):
        plot_cost_tradeoff(table[table["n_trees"] > 30])
    with pytest.raises(ValueError, match="without costs"):
        cost_tradeoff([band_fit(train, n_trees=2)], test)
    # a set of fits said "fits[0] must be a fitted gbm model ..., got set"
    with pytest.raises(TypeError, match=r"^fits must be a fitted model with costs, or a list "
                                        r"or dict of them, got set$"):
        cost_tradeoff({fits[0]}, test)


def test_cost_tradeoff_evaluates_the_formulas_response_and_offset():
    """A response expression (log(y)) and an offset(): the deviance is the
    fit's own on the new rows (a column named 'log(y)' does not exist)."""
    from pygbm import cost_tradeoff

    rng = np.random.default_rng(4)
    df = band_frame(600, seed=4)
    df["count"] = rng.poisson(np.exp(0.5 * np.nan_to_num(df.c1.to_numpy()))) + 1
    df["t"] = rng.uniform(1.0, 5.0, len(df))
    train, test = df.iloc[:400], df.iloc[400:]
    fit = gbm("log(count) ~ c1 + c2 + e1 + e2", train, distribution="gaussian", n_trees=20,
              feature_costs=COSTS, cegb_tradeoff=LIGHT, random_state=1)
    table = cost_tradeoff([fit], test, n_trees=[20])
    resid = np.log(test["count"].to_numpy()) - fit.predict(test, n_trees=20)
    assert table["deviance"].iloc[0] == pytest.approx(np.mean(resid ** 2), rel=1e-12)
    pois = gbm("count ~ c1 + c2 + e1 + e2 + offset(log(t))", train, distribution="poisson",
               n_trees=20, feature_costs=COSTS, cegb_tradeoff=LIGHT, random_state=1)
    # on the training rows the deviance is the fit's training error, offsets included
    table = cost_tradeoff([pois], train, n_trees=[20])
    assert table["deviance"].iloc[0] == pytest.approx(pois.train_error[-1], rel=1e-12)
    given = cost_tradeoff([pois], train, y=train["count"], n_trees=[20])
    assert given["deviance"].iloc[0] == pytest.approx(pois.train_error[-1], rel=1e-12)
    # newdata without the response: the error names newdata (it said 'data'), for a
    # formula of bare names and for one formulaic parses
    for model, formula in ((pois, "count ~ c1 + c2 + e1 + e2 + offset(log(t))"),
                           (fit, "log(count) ~ c1 + c2 + e1 + e2")):
        assert model.formula == formula
        with pytest.raises(ValueError, match=r"^formula uses column not in newdata: 'count'"):
            cost_tradeoff([model], test.drop(columns="count"), n_trees=[20])


def test_cost_tradeoff_codes_a_text_y_by_the_fits_levels():
    # y= as text was coded by sorted text, the reverse of the fit's (good = 0, bad = 1):
    # the deviance was of the flipped response
    from pygbm import cost_tradeoff

    df = band_frame(600, seed=6)
    df["y"] = pd.Categorical(np.where(df["y"] == 1, "bad", "good"), categories=["good", "bad"])
    train, test = df.iloc[:400], df.iloc[400:]
    with pytest.warns(UserWarning, match="'good' = 0, 'bad' = 1"):
        fit = band_fit(train, n_trees=10, feature_costs=COSTS, cegb_tradeoff=0.01)
    want = cost_tradeoff(fit, test, n_trees=[10])
    got = cost_tradeoff(fit, test.drop(columns="y"), y=test["y"].astype(str).to_numpy(),
                        n_trees=[10])
    pd.testing.assert_frame_equal(got, want)


def test_cost_tradeoff_coxph_reads_the_event_status_of_newdata():
    # coxph's deviance needs each row's event: cost_tradeoff crashed with "coxph needs
    # the event indicator (misc = status 0/1)"
    from pygbm import Surv, cost_tradeoff

    rng = np.random.default_rng(6)
    df = band_frame(500, seed=6)
    df["time"] = rng.exponential(np.exp(-np.nan_to_num(df.c1.to_numpy())))
    df["status"] = (rng.random(len(df)) < 0.7).astype(int)
    fit = gbm("Surv(time, status) ~ c1 + c2 + e1 + e2", df, distribution="coxph",
              n_trees=20, train_fraction=0.7, feature_costs=COSTS, cegb_tradeoff=LIGHT,
              random_state=1)
    test = df.iloc[fit.n_train:]
    table = cost_tradeoff(fit, test, n_trees=[5, 20])
    np.testing.assert_allclose(table["deviance"], fit.valid_error[[4, 19]], rtol=1e-12)
    given = cost_tradeoff(fit, test, y=Surv(test["time"], test["status"]), n_trees=[5, 20])
    np.testing.assert_allclose(given["deviance"], table["deviance"], rtol=1e-12)
    with pytest.raises(ValueError, match=r"y must be the survival times and event status of "
                                         r"newdata for distribution 'coxph'"):
        cost_tradeoff(fit, test, y=test["time"], n_trees=[5])
    # a Surv of newdata's rows in another order was read by position without a word
    shuffled = test.sample(frac=1, random_state=1)
    with pytest.raises(ValueError, match=r"^y is a Surv response built from pandas Series "
                                         r"whose index differs from newdata's index"):
        cost_tradeoff(fit, test, y=Surv(shuffled["time"], shuffled["status"]), n_trees=[5])


def test_cost_tradeoff_weights_the_deviance_and_costs_as_valid_error_does():
    # the deviance of a weighted fit was its newdata's unweighted one, though the
    # table said "as fit.valid_error" (which the fit's weights weight)
    from pygbm import cost_tradeoff

    df = band_frame(600, seed=3)
    df["w"] = np.linspace(0.2, 3.0, len(df))
    fit = gbm("y ~ c1 + c2 + e1 + e2", df, distribution="bernoulli", n_trees=20,
              weights="w", train_fraction=0.7, feature_costs=COSTS, cegb_tradeoff=LIGHT,
              random_state=1)
    test = df.iloc[fit.n_train:]
    table = cost_tradeoff(fit, test, n_trees=[5, 20], weights="w")
    np.testing.assert_allclose(table["deviance"], fit.valid_error[[4, 19]], rtol=1e-12)
    as_array = cost_tradeoff(fit, test, n_trees=[5, 20], weights=test["w"].to_numpy())
    pd.testing.assert_frame_equal(as_array, table)
    cost = fit.predict_cost(test, n_trees=20)["total"]
    assert table["mean_cost"].iloc[1] == pytest.approx(np.average(cost, weights=test["w"]))
    unweighted = cost_tradeoff(fit, test, n_trees=[5, 20])
    assert unweighted["mean_cost"].iloc[1] == pytest.approx(cost.mean())
    assert not np.allclose(unweighted["deviance"], fit.valid_error[[4, 19]])
    with pytest.raises(ValueError, match=r"weights: column 'v' is not in newdata"):
        cost_tradeoff(fit, test, weights="v")


def _ranking_frame(n_groups=60, size=8, seed=5):
    rng = np.random.default_rng(seed)
    n = n_groups * size
    df = pd.DataFrame({"q": np.repeat(np.arange(n_groups), size), "c1": rng.normal(size=n),
                       "e1": rng.normal(size=n)})
    df["y"] = np.clip(np.round(df.c1 + 0.5 * rng.normal(size=n) + 1), 0, 3)
    return df


def test_cost_tradeoff_pairwise_reads_the_groups_of_newdata():
    # pairwise's deviance needs the group of every row, the rows sorted by group and
    # decreasing response: cost_tradeoff crashed ("needs the group of every row")
    from pygbm import cost_tradeoff

    df = _ranking_frame()
    fit = gbm("y ~ c1 + e1", df, distribution={"name": "pairwise", "group": "q",
                                                "metric": "ndcg"},
              n_trees=40, interaction_depth=3, train_fraction=0.7, random_state=1,
              feature_costs={"c1": 1.0, "e1": 5.0}, cegb_tradeoff=0.0)
    n_train_groups = int(np.round(0.7 * 60))
    test = df[df["q"].astype(str).isin(fit.group_levels[n_train_groups:])]
    noise = fit.context.noise_rng.bit_generator.state
    # at 40 trees no two rows of a group tie, so the tie-breaking noise has no effect
    table = cost_tradeoff(fit, test, n_trees=[40])
    assert table["deviance"].iloc[0] == pytest.approx(fit.valid_error[39], rel=1e-12)
    shuffled = cost_tradeoff(fit, test.sample(frac=1.0, random_state=2), n_trees=[40])
    assert shuffled["deviance"].iloc[0] == pytest.approx(fit.valid_error[39], rel=1e-12)
    # the fit's noise generator (which gbm_more continues) is not drawn from
    assert fit.context.noise_rng.bit_generator.state == noise
    with pytest.raises(ValueError, match=r"distribution 'pairwise' needs the group of every "
                                         r"row of newdata: newdata must be a DataFrame with "
                                         r"the group column\(s\) \['q'\]"):
        cost_tradeoff(fit, test.drop(columns="q"), y=test["y"], n_trees=[40])


def test_cost_tradeoff_needs_the_offset_of_a_model_fitted_with_one():
    from pygbm import cost_tradeoff

    df = band_frame(600, seed=7)
    x, off = df[NAMES].to_numpy(), np.random.default_rng(7).normal(0, 1, len(df))
    fit = gbm_fit(x[:400], df["y"][:400], offset=off[:400], distribution="bernoulli",
                  n_trees=10, feature_costs=[1.0, 1.0, 50.0, 50.0], cegb_tradeoff=LIGHT,
                  random_state=1)
    with pytest.raises(ValueError, match="^offset is required: the model was fitted with an "
                                         "offset argument"):
        cost_tradeoff(fit, x[400:], y=df["y"][400:], n_trees=[10])
    table = cost_tradeoff(fit, x[400:], y=df["y"][400:], n_trees=[10], offset=off[400:])
    f = fit.predict(x[400:], n_trees=10) + off[400:]
    y = df["y"][400:].to_numpy()
    assert table["deviance"].iloc[0] == pytest.approx(-2 * np.mean(y * f - np.logaddexp(0, f)),
                                                      rel=1e-12)
    with pytest.raises(ValueError, match=r"y must be one response per row of newdata \(200\)"):
        cost_tradeoff(fit, x[400:], y=y[:5], n_trees=[10], offset=off[400:])


def test_cost_tradeoff_of_a_multinomial_fit_needs_no_offset():
    # a multinomial fit's offset has no effect (the softmax cancels it; gbm_fit warns),
    # but its new rows' offsets were required ("the model was fitted with an offset
    # argument"), and then changed nothing
    from pygbm import cost_tradeoff

    df = band_frame(300, seed=8)
    rng = np.random.default_rng(8)
    x, off = df[NAMES], rng.normal(0, 1, len(df))
    y = np.array(["p", "q", "r"])[rng.integers(0, 3, len(df))]
    kw = dict(distribution="multinomial", n_trees=5, feature_costs=COSTS, cegb_tradeoff=LIGHT,
              random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the offset has no effect
        fit = gbm_fit(x[:200], y[:200], offset=off[:200], **kw)
    plain = gbm_fit(x[:200], y[:200], **kw)
    test = x.iloc[200:]
    table = cost_tradeoff(fit, test, y=y[200:], n_trees=[5])
    np.testing.assert_allclose(table["deviance"],
                               cost_tradeoff(plain, test, y=y[200:], n_trees=[5])["deviance"],
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"^offset was given, but an offset has no effect "
                                         r"under distribution 'multinomial'"):
        cost_tradeoff(fit, test, y=y[200:], n_trees=[5], offset=off[200:])


def test_cost_tradeoff_refuses_fits_whose_deviances_differ_in_kind():
    """Deviances of two distributions (or two quantiles) are on different scales;
    Newton splits measure the same deviance as R's."""
    from pygbm import cost_tradeoff

    train, test = band_frame(400, seed=1), band_frame(200, seed=2)
    bern = band_fit(train, feature_costs=COSTS, n_trees=5)
    ada = band_fit(train, feature_costs=COSTS, n_trees=5, distribution="adaboost")
    newton = band_fit(train, feature_costs=COSTS, n_trees=5,
                  distribution={"name": "bernoulli", "splits": "newton"})
    with pytest.raises(ValueError, match=r"fits\[1\] is a adaboost fit and fits\[0\] a "
                                         r"bernoulli fit: their deviances are not comparable"):
        cost_tradeoff([bern, ada], test)
    assert len(cost_tradeoff({"r": bern, "newton": newton}, test, n_trees=[5])) == 2
    quantiles = {a: band_fit(train, feature_costs=COSTS, n_trees=5,
                         distribution={"name": "quantile", "alpha": a}) for a in (0.2, 0.8)}
    with pytest.raises(ValueError, match=r"quantile \(alpha=0\.8\) fit and fits\[0\.2\] a "
                                         r"quantile \(alpha=0\.2\) fit"):
        cost_tradeoff(quantiles, test)
    # one distribution, two responses (a found case: medv and log(medv) in one table)
    gauss = band_fit(train, feature_costs=COSTS, n_trees=5, distribution="gaussian")
    scaled = gbm("I(10 * y) ~ .", train, distribution="gaussian", n_trees=5,
                 feature_costs=COSTS, random_state=3)
    with pytest.raises(ValueError, match=r"fits\['scaled'\] models I\(10 \* y\) and "
                                         r"fits\['raw'\] y: their deviances are not"):
        cost_tradeoff({"raw": gauss, "scaled": scaled}, test)


def test_cost_tradeoff_adds_the_offset_without_predicts_warning():
    """cost_tradeoff adds a formula's offset() terms itself: R's predict warning that
    the offset is not added does not belong to it."""
    from pygbm import cost_tradeoff

    rng = np.random.default_rng(0)
    n = 400
    d = pd.DataFrame({"a": rng.normal(size=n), "e": rng.uniform(1, 3, n)})
    d["y"] = rng.poisson(np.exp(0.3 * d.a) * d.e).astype(float)
    fit = gbm("y ~ a + offset(log(e))", d, distribution="poisson", n_trees=10,
              feature_costs={"a": 1.0}, cegb_tradeoff=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = cost_tradeoff(fit, d, n_trees=[5])
    with pytest.warns(UserWarning, match="does not add the offset"):
        f = fit.predict(d, n_trees=5)
    mu = np.exp(f + np.log(d.e.to_numpy()))
    y = d.y.to_numpy()
    want = -2 * np.mean(y * np.log(mu) - mu)
    assert table["deviance"].iloc[0] == pytest.approx(want, rel=1e-12)
