"""calibrate() (pygbm/calibration/fitting.py and model.py, issue 23) on fits:
end to end, offsets and exposure, weights, subsampled zeros, text responses, the
training-rows warnings, bad arguments, the reliability plot."""
from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.calibration import control_points


def test_calibrate_fit_end_to_end(rare):
    train, cal = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("y ~ a + b + c", train, distribution="bernoulli", n_trees=40,
                    interaction_depth=2, zero_subsample=0.1, zero_weight="none", random_state=1)
    c = pygbm.calibrate(fit, cal, n_trees=40)
    raw = fit.predict(cal, 40, type="response")
    cx, cy, cw, rows = control_points(raw, cal["y"].to_numpy(), np.ones(3000), 20)
    np.testing.assert_allclose(c.phi, cx, rtol=1e-12)
    np.testing.assert_allclose(c.response, cy, rtol=1e-12)
    assert c.control_points.shape == (20, 4) and c.ends == "flat" and c.rate is None
    out = c.predict(cal)
    np.testing.assert_allclose(out, np.interp(raw, cx, cy), rtol=1e-12)
    np.testing.assert_allclose(c.predict(cal, type="link"), np.log(out / (1 - out)))
    # the unweighted fit overestimates; the calibrated one is about right in the large
    assert raw.mean() > 2 * cal["y"].mean()
    assert pygbm.calibration_report(cal["y"], out)["in_the_large"] == pytest.approx(1, abs=0.02)
    # subsampled=True uses the fit's rate
    assert pygbm.calibrate(fit, cal, n_trees=40, subsampled=True).rate == 0.1
    # the repr is one line (not the fit's print and every array)
    assert repr(c) == "CalibratedGBM(bernoulli fit, 40 trees, 20 control points, flat ends)"
    assert repr(pygbm.calibrate(fit, cal, n_trees=40, subsampled=True)).endswith(
        ", zeros kept at rate 0.1)")
    # a notebook shows a small table: the fit, the control points, the sample
    html = pygbm.calibrate(fit, cal, n_trees=40, subsampled=True)._repr_html_()
    assert "<th>Control points</th><td>20 (mean prediction" in html
    assert f"<th>Calibration rows</th><td>{len(cal)}</td>" in html
    assert "<th>Zeros counted</th><td>1/0.1 each" in html


def test_text_response_of_a_fit_on_numbers_is_refused(rare):
    """A fit on a 0/1 response, calibrated or measured on rows whose response is
    text: the text's own sorted levels would code it silently (every "yes" a 0);
    refused, naming the response. A logical response is the fit's 0/1."""
    train, cal = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("y ~ a + b + c", train, distribution="bernoulli", n_trees=10,
                    random_state=1)
    text = cal.assign(y=np.where(cal["y"] == 1, "yes", "no"))
    with pytest.raises(ValueError, match=r"the response y of data is categorical \(levels "
                       r"\['no', 'yes'\]\), but the fit's response was numbers"):
        pygbm.calibrate(fit, text, n_trees=10)
    with pytest.raises(ValueError, match=r"^y is categorical"):
        pygbm.calibrate(fit, cal, y=text["y"], n_trees=10)
    costed = pygbm.gbm("y ~ a + b + c", train, distribution="bernoulli", n_trees=10,
                       random_state=1, feature_costs={"a": 1.0}, cegb_tradeoff=0.0)
    with pytest.raises(ValueError, match="fit's response was numbers"):
        pygbm.cost_tradeoff(costed, text, n_trees=[10])
    logical = pygbm.calibrate(fit, cal.assign(y=cal["y"] == 1), n_trees=10)
    np.testing.assert_array_equal(logical.response,
                                  pygbm.calibrate(fit, cal, n_trees=10).response)


def test_calibrate_poisson_on_the_expected_count(rare):
    train, cal = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("k ~ a + b + offset(np.log(expo))", train, distribution="poisson",
                    n_trees=30, zero_subsample=0.3, zero_weight="none", random_state=2)
    c = pygbm.calibrate(fit, cal, n_trees=30, ends="langford")
    raw = cal["expo"].to_numpy() * np.exp(fit.predict(cal, 30))
    np.testing.assert_allclose(c.raw(cal), raw, rtol=1e-12)
    np.testing.assert_allclose(c.knots_x[[0, -1]], [raw.min(), raw.max()], rtol=1e-12)
    assert c.knots_y[-1] == cal["k"].max()
    np.testing.assert_allclose(c.predict(cal, offset=np.zeros(3000)),
                               c.calibrate_values(np.exp(fit.predict(cal, 30))))


def test_calibrate_weights_exposure_and_subsampled_zeros(rare):
    """Case weights, an exposure offset and a zero-subsampled calibration
    sample together: each row counts its weight, a zero its weight / l, and
    phi is the row's expected count."""
    train, cal = rare.iloc[:3000], rare.iloc[3000:]
    l = 0.3
    fit = pygbm.gbm("k ~ a + b + offset(np.log(expo))", train, distribution="poisson",
                    weights="w", n_trees=30, zero_subsample=l, random_state=2)
    keep = (cal["k"] != 0) | (np.random.default_rng(3).uniform(size=3000) < l)
    sample = cal[keep.to_numpy()]
    c = pygbm.calibrate(fit, sample, n_trees=30, bins=5, weights="w", subsampled=True)
    phi = sample["expo"].to_numpy() * np.exp(fit.predict(sample, 30))
    k, w = sample["k"].to_numpy(float), sample["w"].to_numpy()
    cx, cy, cw, rows = control_points(phi, k, np.where(k == 0, w / l, w), 5)
    np.testing.assert_allclose(c.phi, cx, rtol=1e-12)
    np.testing.assert_allclose(c.response, cy, rtol=1e-12)
    np.testing.assert_allclose(c.weight, cw, rtol=1e-12)
    assert c.rate == l and rows.sum() == keep.sum()
    # the weighted control points differ from the unweighted ones
    assert not np.allclose(pygbm.calibrate(fit, sample, n_trees=30, bins=5).response, cy)


def test_calibrate_warns_of_certain_control_points(rare):
    """A bin whose rows are all positives (or all zeros) makes the calibrated
    probability exactly 1 (or 0) there: calibrate says so."""
    fit = pygbm.gbm("y ~ a", rare, distribution="bernoulli", n_trees=10, random_state=1)
    sample = rare.iloc[:400].copy()
    phi = fit.predict(sample, 10)
    sample["y"] = (phi > np.median(phi)).astype(float)  # the lower bins hold no positive
    with pytest.warns(UserWarning, match=r"control points have a mean response of exactly "
                                         r"0 or 1.*fewer bins"):
        c = pygbm.calibrate(fit, sample, n_trees=10, bins=10)
    assert np.any(c.response == 0)
    counts = pygbm.gbm("k ~ a + offset(np.log(expo))", rare, distribution="poisson",
                       n_trees=10, random_state=1)
    with pytest.warns(UserWarning, match=r"mean response of exactly 0 \("):
        pygbm.calibrate(counts, rare.assign(k=0).iloc[:100], n_trees=10, bins=2)


def test_adaboost_expected_response_is_calibrated_as_a_probability(rare):
    # adaboost's expected response is 1/(1+exp(-2f)): Langford's ends are (0, 0) and
    # (1, 1), a bin of zeros warns, and type="link" is f's scale (it was refused, the
    # ends were the sample's and no warning came)
    train, held = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("y ~ a + b", train, distribution="adaboost", n_trees=10, random_state=1)
    cal = pygbm.calibrate(fit, held, n_trees=10, bins=5, ends="langford")
    assert cal.knots_x[0] == 0.0 and cal.knots_x[-1] == 1.0
    assert cal.knots_y[0] == 0.0 and cal.knots_y[-1] == 1.0
    p = cal.predict(held.iloc[:50])
    np.testing.assert_allclose(fit.distribution.inverse_link(
        cal.predict(held.iloc[:50], type="link")), p, rtol=1e-12)
    with pytest.warns(UserWarning, match=r"mean response of exactly 0 or 1 \("):
        pygbm.calibrate(fit, held.assign(y=0.0).iloc[:100], n_trees=10, bins=2)


def test_a_text_response_given_as_y_is_coded_by_the_fits_levels(rare):
    # the fit models 'bad' (its levels: good, bad); y= as text or a Categorical was
    # coded by sorted text (bad = 0): every control point's response was 1 - the truth
    df = rare.assign(Class=pd.Categorical(np.where(rare["y"] == 1, "bad", "good"),
                                          categories=["good", "bad"]))
    train, held = df.iloc[:3000], df.iloc[3000:]
    fit = pygbm.gbm("Class ~ a + b", train, distribution="bernoulli", n_trees=10,
                    random_state=1)
    assert fit.y_levels == ["good", "bad"]
    want = pygbm.calibrate(fit, held, n_trees=10, bins=5).response
    for y in (held["Class"], held["Class"].astype(str).to_numpy(), list(held["Class"])):
        got = pygbm.calibrate(fit, held.drop(columns="Class"), n_trees=10, bins=5, y=y)
        np.testing.assert_array_equal(got.response, want)
    with pytest.warns(UserWarning, match="mean response of exactly 0 or 1"):   # one class
        one = pygbm.calibrate(fit, held.iloc[:10], n_trees=10, bins=2, y=["bad"] * 10)
    np.testing.assert_array_equal(one.response, [1.0, 1.0])
    with pytest.raises(ValueError, match=r"^y has level\(s\) \['maybe'\] that the fit's "
                                         r"response did not have \(its levels: \['good', "
                                         r"'bad'\]\)"):
        pygbm.calibrate(fit, held.iloc[:3], n_trees=10, y=["good", "bad", "maybe"])


def test_calibrate_warns_on_the_fits_training_rows(rare):
    train, held = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("y ~ a + b", train, distribution="bernoulli", n_trees=10, random_state=1)
    with pytest.warns(UserWarning, match=r"calibrate\(\): data are the fit's training rows"):
        pygbm.calibrate(fit, train.iloc[:1000], n_trees=10, bins=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.calibrate(fit, held, n_trees=10, bins=5)        # held-out rows: no warning


def test_training_rows_check_takes_out_the_chance_of_equal_values():
    # rows are matched by value: with few distinct values (categorical predictors)
    # new rows equal training rows by chance, and that is not "the training rows"
    rng = np.random.default_rng(3)
    n = 4000
    cats = pd.DataFrame({"a": rng.choice(list("abc"), n), "b": rng.choice(list("xyz"), n)})
    cats["y"] = (rng.random(n) < np.where(cats.a == "a", 0.3, 0.1)).astype(int)
    fit = pygbm.gbm("y ~ a + b", cats.iloc[:3000], distribution="bernoulli", n_trees=10,
                    random_state=1)
    assert fit._training_share(fit._design(cats.iloc[3000:])) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.calibrate(fit, cats.iloc[3000:], n_trees=10, bins=5)
    # one number among the predictors: half the training rows repeat another's
    # values, and held-out rows match at about that rate; the training rows all match
    mixed = cats.assign(c=np.where(rng.random(n) < 0.5, 0.0, rng.normal(size=n)))
    fit = pygbm.gbm("y ~ a + b + c", mixed.iloc[:3000], distribution="bernoulli",
                    n_trees=10, random_state=1)
    assert fit._training_share(fit._design(mixed.iloc[3000:])) < 0.1
    assert fit._training_share(fit._design(mixed.iloc[:1000])) == 1.0
    with pytest.warns(UserWarning, match=r"calibrate\(\): data are the fit's training rows"):
        pygbm.calibrate(fit, mixed.iloc[:1000], n_trees=10, bins=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.calibrate(fit, mixed.iloc[3000:], n_trees=10, bins=5)


def test_calibrate_on_the_validation_rows_of_train_fraction_does_not_warn(rare):
    # the kept data hold the validation rows too: they are held out, not training rows
    fit = pygbm.gbm("y ~ a + b", rare, distribution="bernoulli", n_trees=10, random_state=1,
                    train_fraction=0.75, zero_subsample=0.5)
    n_train = int(0.75 * rare.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.calibrate(fit, rare.iloc[n_train:], n_trees=10, bins=5)
    assert fit._training_share(fit._design(rare.iloc[n_train:])) == 0.0
    with pytest.warns(UserWarning, match=r"calibrate\(\): data are the fit's training rows"):
        pygbm.calibrate(fit, rare.iloc[fit.zero_sample.kept], n_trees=10, bins=5)


def test_calibrate_warns_on_the_training_data_of_a_zero_subsampled_fit(rare):
    # the fit kept every non-zero training row and few zeros: its original training
    # data matched its kept rows in too few rows to warn, though every non-zero of
    # the calibration sample had been fitted
    train, held = rare.iloc[:4000], rare.iloc[4000:]
    fit = pygbm.gbm("y ~ a + b", train, distribution="bernoulli", n_trees=10, random_state=1,
                    zero_subsample=0.1, zero_weight="none")
    assert fit._training_share(fit._design(train)) <= 0.5
    with pytest.warns(UserWarning, match=r"calibrate\(\): the rows of data with a non-zero "
                                         r"response are the fit's training rows"):
        pygbm.calibrate(fit, train, n_trees=10, bins=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.calibrate(fit, held, n_trees=10, bins=5)        # held-out rows: no warning


def test_calibrate_gbm_fit_needs_y_and_bad_arguments(rare):
    x = rare[["a", "b"]]
    fit = pygbm.gbm_fit(x, rare["y"], n_trees=5, shrinkage=0.1)
    with pytest.raises(ValueError, match="give y="):
        pygbm.calibrate(fit, x, n_trees=5)
    c = pygbm.calibrate(fit, x, n_trees=5, y=rare["y"], bins=4)
    assert 1 <= c.phi.size <= 4         # 5 trees tie many predictions: a bin holds a tie whole
    for bad, match in [(dict(bins=0), "bins"), (dict(ends="linear"), "ends"),
                       (dict(subsampled=True), "not zero-subsampled"),
                       (dict(subsampled=2.0), r"^subsampled must be True, False or the "
                                              r"keep rate .* in \(0, 1\], got 2.0")]:
        with pytest.raises(ValueError, match=match):
            pygbm.calibrate(fit, x, n_trees=5, y=rare["y"], **bad)
    with pytest.raises(TypeError, match="fit must be a GBMFit"):
        pygbm.calibrate("fit", x)


@pytest.mark.parametrize("value", [0, -0.5, 1.5, np.nan, np.inf, "half", [0.5]])
def test_calibrate_subsampled_names_itself(rare, value):
    # 0 said "zero_subsample must be ...", nan raised a TypeError
    fit = pygbm.gbm("y ~ a", rare.iloc[:3000], distribution="bernoulli", n_trees=5,
                    zero_subsample=0.3, zero_weight="none", random_state=1)
    with pytest.raises(ValueError, match=r"^subsampled must be True, False or the keep rate "
                                         r"of the calibration sample's zeros in \(0, 1\], "
                                         rf"got {re.escape(repr(value))}$"):
        pygbm.calibrate(fit, rare.iloc[3000:], n_trees=5, subsampled=value)
    assert pygbm.calibrate(fit, rare.iloc[3000:], n_trees=5, subsampled=1).rate is None
    assert pygbm.calibrate(fit, rare.iloc[3000:], n_trees=5, subsampled=np.True_).rate == 0.3


def test_calibrate_bad_offset_and_weights_name_themselves(rare):
    x = rare[["a", "b"]]
    n = x.shape[0]
    # (an offset of zeros is no offset, as R's gbm.fit has it)
    fit = pygbm.gbm_fit(x, rare["y"], offset=np.full(n, 0.1), n_trees=5, shrinkage=0.1)
    for bad, match in [(dict(offset=["a"] * n), "offset must be numbers"),
                       (dict(offset=np.zeros(3)), r"offset must be one number per row"),
                       (dict(offset=np.full(n, np.nan)), f"offset must be finite.*{n} NaN"),
                       (dict(offset=np.full(n, 0.1), weights=["a"] * n),
                        "weights must be numbers")]:
        with pytest.raises(ValueError, match=match):
            pygbm.calibrate(fit, x, n_trees=5, y=rare["y"], **bad)


def test_calibrate_refuses_an_offset_for_a_model_fitted_without_one(rare):
    # its scores have no offset: one given was added to them without a word
    x = rare[["a", "b"]]
    fit = pygbm.gbm_fit(x, rare["y"], n_trees=5, shrinkage=0.1)
    with pytest.raises(ValueError, match=r"^offset was given, but the model was fitted "
                                         r"without an offset"):
        pygbm.calibrate(fit, x, n_trees=5, y=rare["y"], offset=np.zeros(x.shape[0]))


def test_calibrate_needs_the_offset_of_a_model_fitted_with_one(rare):
    # a gbm_fit model with an offset argument: calibrate computed phi without it
    x, off = rare[["a", "b"]].to_numpy(), np.log(rare["expo"].to_numpy())
    fit = pygbm.gbm_fit(x[:3000], rare["k"][:3000], offset=off[:3000], distribution="poisson",
                        n_trees=5)
    cal, y = x[3000:], rare["k"][3000:]
    with pytest.raises(ValueError, match=r"^offset is required: the model was fitted with an "
                                         r"offset argument.*rows of data"):
        pygbm.calibrate(fit, cal, n_trees=5, y=y)
    c = pygbm.calibrate(fit, cal, n_trees=5, y=y, offset=off[3000:], bins=4)
    np.testing.assert_allclose(c.raw(cal, offset=off[3000:]),
                               np.exp(fit.predict(cal, 5) + off[3000:]), rtol=1e-12)
    with pytest.raises(ValueError, match="^offset is required.*rows of newdata"):
        c.predict(cal)


@contextlib.contextmanager
def _warnings_are_errors():
    """Warnings as errors, but for the (true) one on control points of mean 0 or 1."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="calibrate: .* control points ha(s|ve) a mean")
        yield


def test_calibrate_reads_the_sample_as_new_rows(rare):
    # calibrate ran the training model-frame checks on the calibration sample: a
    # predictor all missing there failed, small samples warned "has no variation", one
    # row was "at least 2", a weights column warned "'.' includes ['w']"
    cols = ["a", "b", "c", "y"]
    fit = pygbm.gbm("y ~ .", rare[cols].iloc[:3000], distribution="bernoulli", n_trees=10,
                    random_state=1)
    cal = rare.iloc[3000:]
    with _warnings_are_errors():
        blind = cal[cols].assign(c=np.nan)          # e.g. a site that never measures c
        c = pygbm.calibrate(fit, blind, n_trees=10, bins=5)
        phi = fit.predict(blind, 10, type="response")
        cx, cy, _, _ = control_points(phi, blind["y"].to_numpy(), np.ones(len(blind)), 5)
        np.testing.assert_allclose(c.phi, cx, rtol=1e-12)
        np.testing.assert_allclose(c.response, cy, rtol=1e-12)
        assert pygbm.calibrate(fit, cal[cols].iloc[:3], n_trees=10).rows.sum() == 3
        one = pygbm.calibrate(fit, cal[cols].iloc[:1], n_trees=10)
        assert one.control_points.shape[0] == 1
        weighted = pygbm.calibrate(fit, cal[cols + ["w"]], n_trees=10, bins=5, weights="w")
        _, cy, cw, _ = control_points(fit.predict(cal, 10, type="response"),
                                      cal["y"].to_numpy(), cal["w"].to_numpy(), 5)
        np.testing.assert_allclose(weighted.response, cy, rtol=1e-12)
        np.testing.assert_allclose(weighted.weight, cw, rtol=1e-12)
    with pytest.raises(ValueError, match="^data must have at least 1 row, got 0"):
        pygbm.calibrate(fit, cal[cols].iloc[:0], n_trees=10)
    with pytest.raises(ValueError, match=r"^y must be one response per row of data \(3\), "
                                         r"got 2"):
        pygbm.calibrate(fit, cal[cols].iloc[:3], n_trees=10, y=[0, 1])
    with pytest.raises(ValueError, match="^weights: column 'v' is not in data"):
        pygbm.calibrate(fit, cal[cols], n_trees=10, weights="v")


def test_calibrate_codes_a_text_response_by_the_fits_levels(rare):
    # a sample holding one level of a text response was coded by its own levels
    text = rare[["a", "b"]].assign(y=np.where(rare["y"] == 1, "yes", "no"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the response's coding, said once
        fit = pygbm.gbm("y ~ a + b", text.iloc[:3000], distribution="bernoulli", n_trees=5,
                        random_state=1)
    positives = text.iloc[3000:][text["y"].iloc[3000:] == "yes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # a control point of mean 1: true here
        c = pygbm.calibrate(fit, positives, n_trees=5, bins=1)
    np.testing.assert_array_equal(c.response, [1.0])


def test_reliability_plot(rare):
    import matplotlib
    matplotlib.use("Agg")
    fit = pygbm.gbm("y ~ a", rare, distribution="bernoulli", n_trees=10, random_state=1)
    ax = pygbm.calibrate(fit, rare, n_trees=10, bins=5).plot()
    assert len(ax.collections) == 1 and len(ax.lines) == 2
    assert ax.lines[0].get_xdata()[0] == 0.0            # the diagonal from 0
    # a gaussian fit's negative responses: the diagonal spans the knots (it ran from 0
    # to the largest knot, missing every control point)
    neg = rare.assign(g=rare["a"] - 5.0)
    gfit = pygbm.gbm("g ~ a", neg, distribution="gaussian", n_trees=10, random_state=1)
    cal = pygbm.calibrate(gfit, neg, n_trees=10, bins=5)
    diagonal = cal.plot().lines[0].get_xdata()
    assert diagonal[0] <= cal.knots_x.min() and diagonal[-1] >= cal.knots_x.max()


def test_calibrate_caps_n_trees_above_the_fit_as_predict_does():
    import warnings as _w

    rng = np.random.default_rng(2)
    df = pd.DataFrame({"x": rng.normal(size=400)})
    df["y"] = (rng.random(400) < 1 / (1 + np.exp(-df.x))).astype(int)
    fit = pygbm.gbm("y ~ x", df, distribution="bernoulli", n_trees=20, random_state=1)
    with pytest.warns(UserWarning, match="n_trees exceeded"):
        cal = pygbm.calibrate(fit, df, n_trees=100, bins=5)
    assert cal.n_trees == 20
    with _w.catch_warnings():
        _w.simplefilter("ignore")
        np.testing.assert_array_equal(cal.predict(df), pygbm.calibrate(fit, df, n_trees=20,
                                                                      bins=5).predict(df))


def test_calibrate_errors_call_the_table_data(rare):
    # the front end's messages named every table "newdata"; calibrate's argument is data
    fit = pygbm.gbm("y ~ a + b", rare, distribution="bernoulli", n_trees=5, random_state=1)
    with pytest.raises(ValueError, match="^formula uses column not in data: 'b'"):
        pygbm.calibrate(fit, rare.drop(columns="b"), n_trees=5, y=rare["y"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # calibrated on the training rows
        model = pygbm.calibrate(fit, rare, n_trees=5, bins=5)
    with pytest.raises(ValueError, match="^formula uses column not in newdata: 'b'"):
        model.predict(rare.drop(columns="b"))


def test_predict_at_other_trees_than_the_maps_warns(rare):
    # the map was fitted on one count's predictions: another count's are not calibrated
    fit = pygbm.gbm("y ~ a + b", rare, distribution="bernoulli", n_trees=30, random_state=1)
    cal = pygbm.calibrate(fit, rare, n_trees=20, bins=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        at_20 = cal.predict(rare, n_trees=20)
        np.testing.assert_array_equal(at_20, cal.predict(rare))
    with pytest.warns(UserWarning, match=r"fitted on the predictions of 20 trees; "
                                         r"n_trees=\[10, 20\] gives"):
        both = cal.predict(rare, n_trees=[10, 20])
    assert both.shape == (len(rare), 2)
    np.testing.assert_array_equal(both[:, 1], at_20)
    capped = pygbm.calibrate(fit, rare, n_trees=30, bins=5)
    with pytest.warns(UserWarning) as record:
        capped.predict(rare, n_trees=50)              # predict's cap, not another count
    messages = [str(r.message) for r in record]
    assert any("n_trees exceeded" in m for m in messages)
    assert not any("calibration map" in m for m in messages)


def test_predict_of_several_counts_of_trees_adds_the_offset_to_each(rare):
    # a column per count, as fit.predict gives: the offsets were added along the wrong
    # axis (a broadcast error, or wrong numbers when the rows were as many as the counts)
    train, cal = rare.iloc[:3000], rare.iloc[3000:]
    fit = pygbm.gbm("k ~ a + b + offset(np.log(expo))", train, distribution="poisson",
                    n_trees=30, zero_subsample=0.3, zero_weight="none", random_state=2)
    c = pygbm.calibrate(fit, cal, n_trees=30)
    for rows in (cal.iloc[:2], cal.iloc[:7]):
        both = c.predict(rows, n_trees=[10, 30])
        assert both.shape == (len(rows), 2)
        np.testing.assert_array_equal(both[:, 0], c.predict(rows, n_trees=10))
        np.testing.assert_array_equal(both[:, 1], c.predict(rows, n_trees=30))
        np.testing.assert_array_equal(c.raw(rows, n_trees=[10, 30])[:, 1],
                                      c.raw(rows, n_trees=30))
