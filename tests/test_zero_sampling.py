"""Zero-response subsampling (issue 23): kept rows, weights, the offset
identity, validation and cv rows whole, gbm_more, refusals."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.draws import FOLD_SEED_BOUND

N = 4000
KW = dict(n_trees=30, interaction_depth=2, shrinkage=0.1)


def _frame(seed=0, n=N, kind="bernoulli"):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, 4))
    eta = -3.0 + 2.5 * x[:, 0] + 1.5 * np.sin(3 * x[:, 1])
    if kind == "bernoulli":
        y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    else:
        y = rng.poisson(np.exp(eta)).astype(float)
    df = pd.DataFrame(x, columns=["a", "b", "c", "d"])
    df["y"] = y
    df["expo"] = rng.uniform(0.5, 2.0, size=n)
    df["w"] = rng.uniform(0.5, 1.5, size=n)
    return df


@pytest.fixture(scope="module")
def bern():
    return _frame(0)


@pytest.fixture(scope="module")
def pois():
    return _frame(1, kind="poisson")


def _same_fit(a, b):
    np.testing.assert_array_equal(a.fit, b.fit)
    np.testing.assert_array_equal(a.train_error, b.train_error)
    np.testing.assert_array_equal(a.valid_error, b.valid_error)
    assert a.init_f == b.init_f


@pytest.mark.parametrize("off", [None, 1, 1.0])
def test_off_is_todays_fit_bit_for_bit(bern, off):
    base = pygbm.gbm("y ~ a + b + c + d", bern, distribution="bernoulli", random_state=3,
                     train_fraction=0.8, **KW)
    fit = pygbm.gbm("y ~ a + b + c + d", bern, distribution="bernoulli", random_state=3,
                    train_fraction=0.8, zero_subsample=off, zero_weight="none", **KW)
    _same_fit(base, fit)
    assert fit.zero_sample is None and "Zeros kept" not in repr(fit)


def test_kept_rows_all_nonzeros_zeros_binomial_same_seed_same_rows(bern):
    l = 0.2
    fits = [pygbm.gbm("y ~ a + b", bern, distribution="bernoulli", random_state=s,
                      zero_subsample=l, **KW) for s in (5, 5, 6)]
    zs = fits[0].zero_sample
    y = bern["y"].to_numpy()
    assert zs.n_train_full == N and zs.rate == l and zs.weight == "importance"
    assert np.all(np.isin(np.flatnonzero(y != 0), zs.kept))          # every non-zero
    n0, k0 = int(np.sum(y == 0)), int(zs.kept_zero.sum())
    assert abs(k0 - n0 * l) < 4 * np.sqrt(n0 * l * (1 - l))             # ~ Binomial(n0, l)
    np.testing.assert_array_equal(zs.kept, fits[1].zero_sample.kept)    # same seed
    assert not np.array_equal(zs.kept, fits[2].zero_sample.kept)
    assert fits[0].n_train == zs.n_kept == fits[0].fit.shape[0]
    assert f"{zs.n_kept:,} of {N:,} training rows" in repr(fits[0])
    assert f"{zs.n_kept:,} of {N:,} training rows" in fits[0]._repr_html_()
    assert fits[0].zero_subsample == l and fits[0].zero_weight == "importance"


def test_importance_weights_before_normalisation_and_init_f(bern):
    l = 0.25
    fit = pygbm.gbm("y ~ a + b", bern, distribution="bernoulli", weights="w", random_state=2,
                    zero_subsample=l, **KW)
    zs = fit.zero_sample
    w = bern["w"].to_numpy()[zs.kept]
    expect = np.where(zs.kept_zero, w / l, w)
    np.testing.assert_allclose(fit.data.response.w_raw, expect, rtol=1e-15)
    np.testing.assert_allclose(fit.data.response.w, expect * zs.n_kept / expect.sum(), rtol=1e-12)
    y = bern["y"].to_numpy()[zs.kept]
    ws = fit.data.response.w
    assert fit.init_f == pytest.approx(np.log(np.sum(ws * y) / np.sum(ws * (1 - y))), rel=1e-12)
    # within 3 standard errors of the full-data value (log odds)
    yf, wf = bern["y"].to_numpy(), bern["w"].to_numpy()
    full = np.log(np.sum(wf * yf) / np.sum(wf * (1 - yf)))
    p = np.mean(yf)
    se = np.sqrt(1 / (N * p) + (1 - l) / (l * N * (1 - p)))
    assert abs(fit.init_f - full) < 3 * se


def test_none_mode_leaves_weights(bern):
    fit = pygbm.gbm("y ~ a + b", bern, distribution="bernoulli", random_state=2,
                    zero_subsample=0.3, zero_weight="none", **KW)
    np.testing.assert_array_equal(fit.data.response.w_raw, np.ones(fit.zero_sample.n_kept))


def test_offset_identity_exact(bern):
    l = 0.1
    kw = dict(distribution="bernoulli", random_state=4, zero_subsample=l, train_fraction=0.8,
              **KW)
    none = pygbm.gbm("y ~ a + b + c", bern, zero_weight="none", **kw)
    off = pygbm.gbm("y ~ a + b + c", bern, zero_weight="offset", **kw)
    # the trees are the unweighted fit's bit for bit; the intercept moves by log(l)
    for a, b in zip(none.trees, off.trees):
        np.testing.assert_array_equal(a.split_var, b.split_var)
        np.testing.assert_array_equal(a.split_code_pred, b.split_code_pred)
    assert off.init_f == none.init_f + np.log(l)
    np.testing.assert_array_equal(off.train_error, none.train_error)
    np.testing.assert_allclose(off.predict(bern, 30), none.predict(bern, 30) + np.log(l),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(off.fit, none.fit + np.log(l), rtol=0, atol=1e-12)
    # valid_error is the corrected model's deviance on the (whole) validation rows
    n_tr = int(0.8 * N)
    valid = bern.iloc[n_tr:]
    p = off.predict(valid, 30, type="response")
    yv = valid["y"].to_numpy()
    dev = -2 * np.mean(yv * np.log(p) + (1 - yv) * np.log(1 - p))
    assert off.valid_error[-1] == pytest.approx(dev, rel=1e-10)
    assert off.fit.shape[0] == off.zero_sample.n_kept + (N - n_tr)


def test_validation_rows_never_subsampled(pois):
    fit = pygbm.gbm("y ~ a + b + offset(np.log(expo))", pois, distribution="poisson",
                    random_state=1, zero_subsample=0.2, train_fraction=0.75, **KW)
    n_tr = int(0.75 * N)
    assert fit.zero_sample.n_train_full == n_tr
    assert fit.fit.shape[0] - fit.n_train == N - n_tr
    assert fit.train_fraction == 0.75
    valid = pois.iloc[n_tr:]
    F = np.log(valid["expo"].to_numpy()) + fit.predict(valid, 30)
    yv = valid["y"].to_numpy()
    # R's poisson deviance (no saturated term) of the whole validation set
    assert fit.valid_error[-1] == pytest.approx(-2 * np.mean(yv * F - np.exp(F)), rel=1e-10)


def test_cv_holds_out_every_row_of_a_fold(bern):
    """cv_error from a manual loop: each fold's model subsamples its training
    part and is evaluated on all its held-out rows."""
    fold_id = np.resize([1, 2, 3], N)
    kw = dict(distribution="bernoulli", zero_subsample=0.2, zero_weight="none", **KW)
    fit = pygbm.gbm("y ~ a + b", bern, cv_folds=3, fold_id=fold_id, random_state=9, **kw)
    seeds = np.random.default_rng(9).integers(0, FOLD_SEED_BOUND, size=3)
    x, y = bern[["a", "b"]], bern["y"].to_numpy()
    errs = []
    for k in (1, 2, 3):
        order = np.concatenate([np.flatnonzero(fold_id != k), np.flatnonzero(fold_id == k)])
        m = pygbm.gbm_fit(x.iloc[order], y[order], n_train=int(np.sum(fold_id != k)),
                          bag_fraction=0.5, random_state=int(seeds[k - 1]), **kw)
        assert m.fit.shape[0] - m.n_train == np.sum(fold_id == k)     # held out whole
        errs.append(m.valid_error * np.sum(fold_id == k))
    np.testing.assert_allclose(fit.cv_error, np.sum(errs, axis=0) / N, rtol=1e-12)


def test_cv_importance_with_case_weights_and_exposure(pois):
    """cv with importance weights, case weights and an exposure offset: each
    fold's kept zeros weigh w/l, its held-out rows are evaluated whole with
    their own weights (a manual loop gives the same cv_error; R weighs the
    folds' validation errors by their numbers of rows)."""
    fold_id = np.resize([1, 2, 3], N)
    l = 0.25
    kw = dict(distribution="poisson", zero_subsample=l, zero_weight="importance", **KW)
    fit = pygbm.gbm("y ~ a + b + offset(np.log(expo))", pois, weights="w", cv_folds=3,
                    fold_id=fold_id, random_state=7, **kw)
    seeds = np.random.default_rng(7).integers(0, FOLD_SEED_BOUND, size=3)
    x, y = pois[["a", "b"]], pois["y"].to_numpy()
    w, off = pois["w"].to_numpy(), np.log(pois["expo"].to_numpy())
    errs = []
    for k in (1, 2, 3):
        order = np.concatenate([np.flatnonzero(fold_id != k), np.flatnonzero(fold_id == k)])
        n_tr = int(np.sum(fold_id != k))
        m = pygbm.gbm_fit(x.iloc[order], y[order], offset=off[order], w=w[order], n_train=n_tr,
                          bag_fraction=0.5, random_state=int(seeds[k - 1]), keep_data=True, **kw)
        zs = m.zero_sample
        assert zs.n_train_full == n_tr and m.fit.shape[0] - m.n_train == N - n_tr
        kept_w = w[order][zs.kept]
        np.testing.assert_allclose(m.data.response.w_raw[:zs.n_kept],
                                   np.where(zs.kept_zero, kept_w / l, kept_w), rtol=1e-15)
        np.testing.assert_array_equal(m.data.response.w_raw[zs.n_kept:], w[order][n_tr:])
        errs.append(m.valid_error * np.sum(fold_id == k))      # R: fold sizes in rows
    np.testing.assert_allclose(fit.cv_error, np.sum(errs, axis=0) / N, rtol=1e-12)
    assert 1 <= pygbm.gbm_perf(fit, method="cv", plot_it=False) <= KW["n_trees"]
    assert "Zeros kept at rate 0.25 (zeros weighted 1/0.25)" in repr(fit)


@pytest.mark.parametrize("mode", ["importance", "none"])
def test_gbm_more_continues_on_kept_rows(bern, mode):
    kw = dict(distribution="bernoulli", random_state=5, zero_subsample=0.3, zero_weight=mode,
              train_fraction=0.8, interaction_depth=2, shrinkage=0.1)
    full = pygbm.gbm("y ~ a + b", bern, n_trees=40, **kw)
    more = pygbm.gbm_more(pygbm.gbm("y ~ a + b", bern, n_trees=25, **kw), 15)
    _same_fit(full, more)
    again = pygbm.gbm_more(pygbm.gbm("y ~ a + b", bern, n_trees=25, keep_data=False, **kw), 15,
                           data=bern)
    np.testing.assert_array_equal(again.fit, full.fit)
    assert more.zero_sample is not None and "Zeros kept" in repr(more)


def test_gbm_more_refuses_data_that_are_not_the_kept_rows(bern):
    # with data= the fit's selection is applied by position: shuffled rows (or
    # other responses) took the kept rows' places and importance weights silently
    kw = dict(distribution="bernoulli", random_state=5, zero_subsample=0.3, train_fraction=0.8,
              interaction_depth=2, n_trees=5, keep_data=False)
    fit = pygbm.gbm("y ~ a + b", bern, **kw)
    shuffled = bern.sample(frac=1.0, random_state=1)
    with pytest.raises(ValueError, match=r"data are not the rows the fit was trained on: "
                       r"[0-9,]+ of the [0-9,]+ training rows it kept \(zero_subsample\)"):
        pygbm.gbm_more(fit, 5, data=shuffled)
    flipped = bern.assign(y=1.0 - bern.y)
    with pytest.raises(ValueError, match=f"{fit.zero_sample.n_kept:,} of the "
                                         f"{fit.zero_sample.n_kept:,} training rows it kept"):
        pygbm.gbm_more(fit, 5, data=flipped)
    n_train = fit.zero_sample.n_train_full       # the validation rows are not subsampled
    # but their fitted values continue too: shuffled, each row's valid_error term came
    # from another row's link value (accepted before)
    valid_shuffled = pd.concat([bern.iloc[:n_train], bern.iloc[n_train:].iloc[::-1]])
    with pytest.raises(ValueError, match=r"^data are not the rows the model was fitted on"):
        pygbm.gbm_more(fit, 5, data=valid_shuffled)
    assert pygbm.gbm_more(fit, 5, data=bern).n_trees == 10


@pytest.mark.parametrize("boosting", [dict(), dict(boosting_type="ordered"),
                                      dict(boosting_type="ordered", categorical="ordered_ts")])
def test_gbm_more_offset_mode_continues_the_corrected_model(bern, boosting):
    # ordered boosting's supporting models and the target statistics continue
    # from the unweighted fit's link values too (they had been shifted by log l)
    df = bern.assign(g=pd.Categorical(np.resize(list("pqrstu"), N)))
    kw = dict(distribution="bernoulli", random_state=5, zero_subsample=0.3, train_fraction=0.8,
              zero_weight="offset", interaction_depth=2, shrinkage=0.1, bag_fraction=1,
              **boosting)
    full = pygbm.gbm("y ~ a + b + g", df, n_trees=40, **kw)
    more = pygbm.gbm_more(pygbm.gbm("y ~ a + b + g", df, n_trees=25, **kw), 15)
    np.testing.assert_allclose(more.fit, full.fit, rtol=0, atol=1e-10)
    np.testing.assert_allclose(more.init_f, full.init_f, rtol=0, atol=1e-12)
    np.testing.assert_allclose(more.train_error, full.train_error, rtol=1e-10)
    np.testing.assert_allclose(more.valid_error, full.valid_error, rtol=1e-10)
    np.testing.assert_allclose(more.predict(df), full.predict(df), rtol=0, atol=1e-10)


def test_works_with_exposure_max_bins_ordered_ts_and_gbm_fit(pois):
    df = pois.assign(g=pd.Categorical(np.resize(list("pqrstu"), N)))
    for extra in (dict(max_bins=32), dict(categorical="ordered_ts")):
        fit = pygbm.gbm("y ~ a + b + g + offset(np.log(expo))", df, distribution="poisson",
                        random_state=1, zero_subsample=0.1, weights="w", **KW, **extra)
        assert fit.zero_sample.n_kept < N and np.isfinite(fit.train_error).all()
        assert np.all(np.isfinite(fit.predict(df, 30)))
    m = pygbm.gbm_fit(pois[["a", "b"]], pois["y"], distribution="poisson", zero_subsample=0.5,
                      random_state=1, **KW)
    assert m.zero_sample.n_kept < N and m.train_fraction == 1.0


@pytest.mark.parametrize("dist, kw", [
    ("coxph", {}), ("multinomial", {}),
    ({"name": "pairwise", "group": "grp"}, {}),
])
def test_refused_where_zero_means_nothing(bern, dist, kw):
    with pytest.raises(ValueError, match="zero_subsample: distribution .* has no zero"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = bern.assign(grp=np.repeat(np.arange(N // 10), 10), cls=np.resize([0, 1, 2], N))
            formula = {"coxph": "Surv(expo, y) ~ a", "multinomial": "cls ~ a"}.get(
                dist, "y ~ a") if isinstance(dist, str) else "y ~ a"
            pygbm.gbm(formula, df, distribution=dist, zero_subsample=0.5, n_trees=2)


@pytest.mark.parametrize("value, err", [(0, ValueError), (1.5, ValueError), (-0.1, ValueError),
                                        ("half", TypeError), (True, TypeError),
                                        (np.nan, TypeError)])
def test_bad_rate_names_the_argument(bern, value, err):
    with pytest.raises(err, match="zero_subsample"):
        pygbm.gbm("y ~ a", bern, distribution="bernoulli", zero_subsample=value, n_trees=2)


def test_bad_mode_names_the_argument(bern, pois):
    with pytest.raises(ValueError, match="zero_weight must be one of"):
        pygbm.gbm("y ~ a", bern, distribution="bernoulli", zero_subsample=0.5,
                  zero_weight="calibrate", n_trees=2)
    with pytest.raises(ValueError, match="zero_weight='offset'.*bernoulli"):
        pygbm.gbm("y ~ a", pois, distribution="poisson", zero_subsample=0.5,
                  zero_weight="offset", n_trees=2)
    with pytest.raises(ValueError, match="zero_weight must be one of"):
        pygbm.gbm_fit(bern[["a"]], bern["y"], zero_weight=None, n_trees=2)


@pytest.mark.parametrize("mode", ["importance", "none", "offset"])
def test_a_rate_that_keeps_no_zero_says_so(mode):
    # 40 zeros at a rate of 1e-6: none kept (the fit would see only positives)
    df = _frame(5, n=60).assign(y=np.r_[np.zeros(40), np.ones(20)])
    with pytest.raises(ValueError, match="kept none of the 40 training rows with a zero"):
        pygbm.gbm("y ~ a + b", df, distribution="bernoulli", zero_subsample=1e-6,
                  zero_weight=mode, n_minobsinnode=2, n_trees=3, random_state=1)


def test_importance_weights_on_fewer_kept_zeros_than_other_rows_warn(bern):
    n_one = int(bern["y"].sum())
    rate = 0.5 * n_one / (N - n_one)             # about half as many kept zeros as ones
    kw = dict(distribution="bernoulli", zero_subsample=rate, n_trees=2, random_state=1)
    with pytest.warns(UserWarning, match=rf"kept \d+ of the {N - n_one} training rows with a "
                                         rf"zero response, fewer than the {n_one} other rows"):
        pygbm.gbm("y ~ a", bern, **kw)
    with warnings.catch_warnings():              # unweighted: calibrate() is the remedy
        warnings.simplefilter("error")
        pygbm.gbm("y ~ a", bern, zero_weight="none", **kw)
        pygbm.gbm("y ~ a", bern, **dict(kw, zero_subsample=min(1.0, 4 * rate)))


def test_the_warning_on_few_kept_zeros_never_suggests_a_rate_above_one():
    # 20 zeros against 40 other rows: no keep rate balances them (it said "use a keep
    # rate of at least 2 here", though a rate is at most 1)
    df = _frame(5, n=60).assign(y=np.r_[np.zeros(20), np.ones(40)])
    with pytest.warns(UserWarning, match=r"the 20 zeros are fewer than the other rows even "
                                         r"all kept: leave zero_subsample=None") as caught:
        pygbm.gbm("y ~ a + b", df, distribution="bernoulli", zero_subsample=0.5,
                  n_minobsinnode=2, n_trees=2, random_state=1)
    assert not any("keep rate of at least" in str(w.message) for w in caught)


def test_a_response_without_zeros_warns_that_nothing_is_subsampled(pois):
    df = pois.assign(y=pois["y"] + 1.0)           # counts 1, 2, ...: no zero
    with pytest.warns(UserWarning, match=r"zero_subsample=0.5 has no effect: no training row "
                                         r"has a zero response \(of 4000\)"):
        fit = pygbm.gbm("y ~ a", df, distribution="poisson", zero_subsample=0.5, n_trees=2,
                        random_state=1)
    assert fit.zero_sample.n_kept == N


def test_a_response_of_zeros_only_is_refused_before_the_draw(pois):
    with pytest.raises(ValueError, match="poisson: the response y is 0 on every training row"):
        pygbm.gbm("y ~ a", pois.assign(y=0.0), distribution="poisson", zero_subsample=0.5,
                  n_trees=2)


def test_too_few_kept_rows_say_the_subsample_kept_them():
    # the remedy is a larger keep rate: R's "subsampling rate too large" (bag_fraction)
    # would read as zero_subsample's, the wrong way round
    df = _frame(6, n=60).assign(y=np.r_[np.ones(3), np.zeros(57)])
    with pytest.raises(ValueError, match=r"zero_subsample=0.05 kept \d+ of the 60 training "
                                         r"rows, too few for the leaves: n_train \* "
                                         r"bag_fraction = [\d.]+ must exceed 2 \* "
                                         r"n_minobsinnode \+ 1 = 21 \(raise zero_subsample, "
                                         r"lower n_minobsinnode or raise bag_fraction\)") as err:
        pygbm.gbm("y ~ a", df, distribution="bernoulli", zero_subsample=0.05, n_trees=2,
                  random_state=1)
    assert "subsampling rate too large" not in str(err.value)


@pytest.mark.parametrize("mode", ["importance", "none", "offset"])
def test_brute_force_partial_dependence_averages_over_the_original_rows(mode):
    """Each kept zero stands for 1/l training rows in the average, in every mode
    (under "none" and "offset" the fit's weights do not say so)."""
    rng = np.random.default_rng(4)
    n, rate = 3000, 0.2
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-(2 * d.a + d.b - 3)))).astype(float)
    fit = pygbm.gbm("y ~ a + b", data=d, distribution="bernoulli", zero_subsample=rate,
                    zero_weight=mode, n_trees=40, interaction_depth=2, random_state=3)
    pd_b = pygbm.partial_dependence(fit, "b", method="brute_force", continuous_resolution=5)
    kept = d.iloc[fit.zero_sample.kept]
    w = np.where(kept.y == 0, 1.0 / rate, 1.0)
    for b, value in zip(pd_b["b"], pd_b["y"]):
        link = fit.predict(kept.assign(b=b), type="link")
        assert value == pytest.approx(np.sum(w * link) / np.sum(w), rel=1e-10, abs=1e-12)


def test_gbm_more_with_data_normalises_the_weights_as_the_fit():
    # gbm_more(data=) normalised the weights with np.sum, the fit with R's sum: the
    # weights moved by an ulp, and a laplace leaf's weighted median by 0.02
    rng = np.random.default_rng(12)
    n = 300
    df = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n)})
    df["y"] = np.where(rng.random(n) < 0.6, 0.0, df.x1 + rng.normal(size=n))
    kw = dict(distribution="laplace", interaction_depth=6, n_minobsinnode=1,
              bag_fraction=1.0, zero_subsample=0.3, random_state=12)
    whole = pygbm.gbm("y ~ x1 + x2", df, n_trees=15, **kw)
    first = pygbm.gbm("y ~ x1 + x2", df, n_trees=10, keep_data=False, **kw)
    more = pygbm.gbm_more(first, 5, data=df)
    np.testing.assert_array_equal(more.fit, whole.fit)
    np.testing.assert_array_equal(more.train_error, whole.train_error)
