"""qwyc() on fitted models: the predictor seam, pickling, options, errors."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from pygbm import EarlyExitPredictor, RRandom, gbm, gbm_fit, qwyc, qwyc_tradeoff
from pygbm.early_exit.ordering import Schedule

N_TREES = 40


def _data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    c = rng.choice(list("abcd"), size=n)
    eta = 1.5 * x[:, 0] - x[:, 1] + 0.8 * (c == "a") + 0.5 * x[:, 2] * x[:, 3]
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return pd.DataFrame({"y": y, "x0": x[:, 0], "x1": x[:, 1], "x2": x[:, 2], "x3": x[:, 3],
                         "c": c, "t": rng.uniform(0.5, 2, n)})


@pytest.fixture(scope="module")
def setting():
    train, held, test = _data(600, 1), _data(500, 2), _data(400, 3)
    fit = gbm("y ~ x0 + x1 + x2 + x3 + c", train, distribution="bernoulli", n_trees=N_TREES,
              interaction_depth=3, shrinkage=0.1, bag_fraction=1)
    return fit, train, held, test


def _full_decision(fit, data):
    return fit.predict(data, n_trees=N_TREES) >= 0


@pytest.mark.parametrize("order", ["qwyc", "gbt", "random"])
def test_alpha_holds_on_the_optimisation_rows_through_predict(setting, order):
    fit, _, held, _ = setting
    for alpha in (0.0, 0.01, 0.05):
        ee = qwyc(fit, held, alpha=alpha, order=order, random_state=0)
        res = ee.predict(held)
        wrong = int(np.sum(res["decision"].to_numpy() != _full_decision(fit, held)))
        assert wrong <= int(np.floor(alpha * len(held) + 1e-9))
        assert ee.fit_disagreement_ == wrong / len(held)
        assert ee.fit_mean_trees_ == res["n_trees"].mean()
        if alpha == 0:
            assert wrong == 0


def test_infinite_thresholds_reproduce_predict(setting):
    fit, _, _, test = setting
    ee = qwyc(fit, test, alpha=0.0)
    order = np.arange(N_TREES)
    lower, upper = np.full(N_TREES, -np.inf), np.full(N_TREES, np.inf)
    lower[-1] = upper[-1] = 0.0
    everything = EarlyExitPredictor(ee._model, Schedule(order, lower, upper),
                                    (ee.threshold, ee.beta), ee.cost_, ee.report_)
    res = everything.predict(test, type="link")
    link = fit.predict(test, n_trees=N_TREES)
    np.testing.assert_array_equal(res["score"].to_numpy(), link)          # bit for bit
    np.testing.assert_array_equal(res["decision"].to_numpy(), link >= 0)
    assert np.all(res["n_trees"] == N_TREES) and np.all(res["exit"] == "full")
    prob = everything.predict(test, type="response")["score"].to_numpy()
    np.testing.assert_allclose(prob, fit.predict(test, n_trees=N_TREES, type="response"))


@pytest.mark.parametrize("distribution", ["bernoulli", "adaboost"])
def test_a_row_whose_response_is_the_threshold_is_positive(setting, distribution):
    # positive iff response >= threshold, the response as predict computes it: beta was
    # the link of the threshold, which rounds, and a row whose response equalled the
    # threshold (a threshold read off the rows' responses) was decided negative
    _, train, _, test = setting
    fit = gbm("y ~ x0 + x1 + x2 + x3 + c", train, distribution=distribution, n_trees=10,
              interaction_depth=3, shrinkage=0.1, bag_fraction=1)
    response = fit.predict(test, n_trees=10, type="response")
    for threshold in np.sort(response)[::40]:
        ee = qwyc(fit, test, n_trees=10, alpha=0.0, order="gbt", threshold=threshold)
        decision = ee.predict(test)["decision"].to_numpy()
        np.testing.assert_array_equal(decision, response >= threshold)
    assert qwyc(fit, test, n_trees=10, threshold=1 - 1e-10).beta \
        < float(fit.distribution.link(1 - 1e-10)) - 1e-7      # the response is flat there
    # the default's beta is a few ulps below 0; the summary shows the link of 0.5, 0
    ee = qwyc(fit, test, n_trees=10)
    assert -1e-15 < ee.beta < 0
    assert "decision at 0.5 (link 0)" in str(ee.summary())


def test_pickled_predictor_is_identical_and_holds_no_data(setting):
    fit, train, held, test = setting
    ee = qwyc(fit, held, alpha=0.02)
    blob = pickle.dumps(ee)
    again = pickle.loads(blob)
    pd.testing.assert_frame_equal(ee.predict(test), again.predict(test))
    assert len(blob) < len(pickle.dumps(fit))
    assert again._model.model.data is None
    np.testing.assert_array_equal(again.order_, ee.order_)


def test_modes_and_exit_kinds(setting):
    fit, _, held, test = setting
    neg = qwyc(fit, held, alpha=0.02, mode="negative").predict(test)
    pos = qwyc(fit, held, alpha=0.02, mode="positive").predict(test)
    assert not (neg["exit"] == "pos").any() and (neg["exit"] == "neg").any()
    assert not (pos["exit"] == "neg").any() and (pos["exit"] == "pos").any()
    both = qwyc(fit, held, alpha=0.02).predict(test)
    assert set(both["exit"]) <= {"neg", "pos", "full"}
    assert np.all(both["decision"][both["exit"] == "pos"] == 1)
    assert np.all(both["decision"][both["exit"] == "neg"] == 0)
    assert both["n_trees"].between(1, N_TREES).all()


def test_thresholds_and_summary(setting):
    fit, _, held, _ = setting
    ee = qwyc(fit, held, alpha=0.01)
    assert ee.lower_[-1] == ee.upper_[-1] == ee.beta
    assert -1e-15 < ee.beta <= 0.0      # logit(0.5), less the links whose response rounds to 0.5
    crossed = np.flatnonzero(ee.lower_ > ee.upper_)    # only where every row left stops
    assert crossed.size == 0 or np.all(ee.predict(held)["n_trees"] <= crossed[0] + 1)
    assert sorted(ee.order_) == list(range(N_TREES))
    s = ee.summary()
    table = s.to_frame()
    assert len(table) == N_TREES
    assert table["exit_neg"].sum() + table["exit_pos"].sum() <= len(held)
    text = repr(s)
    assert "mean trees" in text and "alpha" in text and "several times" in text
    html = s._repr_html_()                     # a notebook shows the same report as a table
    assert f"<th>mean trees evaluated</th><td>{ee.report_.mean_trees:.2f} of {N_TREES}" in html
    assert "several times alpha" in html
    assert s.speedup > 1


def test_summary_counts_one_disagreement_in_the_singular(setting):
    fit, _, held, _ = setting
    one = qwyc(fit, held, alpha=1.5 / len(held))        # floor(alpha N) = 1
    assert one.report_.budget == 1
    assert "(at most 1 disagreement)" in repr(one.summary())
    two = qwyc(fit, held, alpha=2.5 / len(held))
    assert "(at most 2 disagreements)" in repr(two.summary())


def test_margin_rule_baseline(setting):
    fit, _, held, test = setting
    ee = qwyc(fit, held, thresholds="margin", margin=1.0)
    np.testing.assert_array_equal(ee.order_, np.arange(N_TREES))
    assert np.all(ee.upper_[:-1] - ee.lower_[:-1] == 1.0)
    res = ee.predict(test)
    early = res[res["exit"] != "full"]
    assert np.all(2 * np.abs(early["score"]) > 1.0)        # LightGBM's 2|g - beta| > margin
    wide = qwyc(fit, held, thresholds="margin", margin=50.0).predict(test)
    assert np.all(wide["exit"] == "full")
    report = repr(ee.summary())                  # the rule's margin, no alpha it never used
    assert "margin: 1 (stop once 2|score - beta| > margin)" in report
    assert "alpha" not in report and "margin=1:" in repr(ee)
    # the default order "qwyc" has no Algorithm 1 here: the training order, said so
    assert "pred_early_stop, gbt order)" in report and repr(ee).startswith(
        "EarlyExitPredictor(gbt order,")
    shuffled = qwyc(fit, held, thresholds="margin", margin=1.0, order="random",
                    random_state=2)
    assert "random order" in repr(shuffled) and "random order" in repr(shuffled.summary())


@pytest.mark.parametrize("freq", [1, 3, 10])
def test_margin_rule_checks_every_freq_trees_as_lightgbm(setting, freq):
    """LightGBM's binary pred_early_stop (checked against LightGBM 4.7 by
    benchmarks/lightgbm_pred_early_stop.py): the first multiple of freq trees
    where 2|partial score| > margin, else the full score."""
    fit, _, held, test = setting
    margin = 1.2
    res = qwyc(fit, held, thresholds="margin", margin=margin, margin_freq=freq).predict(
        test, type="link")
    partial = np.column_stack([fit.predict(test, n_trees=k) for k in range(1, N_TREES + 1)])
    want_trees = np.full(len(test), N_TREES)
    for i in range(len(test)):
        for k in range(freq, N_TREES, freq):
            if 2 * abs(partial[i, k - 1]) > margin:
                want_trees[i] = k
                break
    np.testing.assert_array_equal(res["n_trees"].to_numpy(), want_trees)
    stopped = want_trees < N_TREES
    np.testing.assert_allclose(res["score"][stopped],
                               partial[stopped, want_trees[stopped] - 1], rtol=0, atol=1e-12)


def test_exit_every_through_qwyc_and_tradeoff(setting):
    fit, _, held, test = setting
    ee = qwyc(fit, held, alpha=0.02, exit_every=4, honest=True, random_state=3)
    res = ee.predict(test)
    assert np.all((res["n_trees"] % 4 == 0) | (res["n_trees"] == N_TREES))
    assert ee.report_.exit_every == 4
    assert "exits: only after trees 4, 8, 12, ... of the order" in repr(ee.summary())
    assert "exits" not in repr(qwyc(fit, held, alpha=0.02).summary())
    # positions past the last tree are not named (it listed 29, 58, 87 of 30 trees)
    late = qwyc(fit, held, alpha=0.02, exit_every=N_TREES - 1).summary()
    assert f"exits: only after tree {N_TREES - 1} of the order and the last" in repr(late)
    three = qwyc(fit, held, alpha=0.02, exit_every=13).summary()         # 13, 26, 39 of 40
    assert "exits: only after trees 13, 26, 39 of the order and the last" in repr(three)
    curves = qwyc_tradeoff(fit, held, test, alphas=[0.0, 0.02], methods=("qwyc", "gbt"),
                           exit_every=4, n_trees=N_TREES)
    one = qwyc(fit, held, alpha=0.02, order="gbt", exit_every=4, n_trees=N_TREES)
    row = curves[(curves.method == "gbt") & (curves.alpha == 0.02)].iloc[0]
    assert row["mean_trees"] == one.predict(test)["n_trees"].mean()


def test_default_rows_are_the_training_rows_not_the_validation_rows():
    """data=None is the fit's kept training rows, as documented: with train_fraction
    < 1 the kept data hold the validation rows too, which are not the fit's."""
    data = _data(500, 4)
    fit = gbm("y ~ x0 + x1 + x2 + x3 + c", data, distribution="bernoulli", n_trees=10,
              interaction_depth=2, train_fraction=0.7, random_state=2)
    with pytest.warns(UserWarning, match="training rows"):
        ee = qwyc(fit, alpha=0.02)
    assert ee.report_.n_rows == 350
    res = ee.predict(data.iloc[:350])
    assert ee.fit_disagreement_ == np.mean(res["decision"].to_numpy()
                                           != _full_decision(fit, data.iloc[:350]))


def test_training_rows_warn_and_held_out_rows_do_not(setting):
    fit, train, held, _ = setting
    with pytest.warns(UserWarning, match="training rows"):
        qwyc(fit, alpha=0.01)
    with pytest.warns(UserWarning, match="training rows"):
        qwyc(fit, train, alpha=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qwyc(fit, held, alpha=0.01)


def test_validation_rows_of_train_fraction_are_held_out():
    """With train_fraction < 1 the rows after the first n_train of the training
    frame are R's validation set, which the trees never saw: qwyc() on them does
    not warn that they are training rows (it did: every kept row counted)."""
    frame = pd.concat([_data(600, 1), _data(600, 2)], ignore_index=True)
    fit = gbm("y ~ x0 + x1 + x2 + x3 + c", frame, distribution="bernoulli", n_trees=N_TREES,
              train_fraction=0.5, bag_fraction=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qwyc(fit, frame.iloc[600:], alpha=0.01, n_trees=N_TREES)
    with pytest.warns(UserWarning, match="data are the fit's training rows"):
        qwyc(fit, frame.iloc[:600], alpha=0.01, n_trees=N_TREES)


def test_alpha_finer_than_the_rows_can_resolve_warns(setting):
    fit, _, held, test = setting                       # 500 held-out rows: 3/N = 0.6%
    with pytest.warns(UserWarning, match=r"alpha = 0.005 is finer than 500 threshold rows "
                                         r"can resolve \(about 3/N = 0.60%.*at least 600 rows"):
        qwyc(fit, held, alpha=0.005)
    with pytest.warns(UserWarning, match=r"finer than 250 threshold rows.*at least 600 rows"):
        qwyc(fit, held, alpha=0.01, honest=True)       # the thresholds see half the rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qwyc(fit, held, alpha=0.01)                    # 0.6% <= alpha
        qwyc(fit, held, alpha=0.0)                     # no disagreement asked for
        qwyc(fit, held, alpha=0.005, validation=test)  # measured on held-out rows anyway
        qwyc(fit, held, thresholds="margin", margin=1.0)


def test_honest_validation_and_auto_alpha(setting):
    fit, _, held, test = setting
    ee = qwyc(fit, held, alpha=0.02, honest=True, validation=test, random_state=3)
    r = ee.report_
    assert r.n_rows == len(held) - len(held) // 2 and r.honest
    assert r.disagreement <= np.floor(0.02 * r.n_rows) / r.n_rows
    res = ee.predict(test)
    assert r.validation_disagreement == np.mean(res["decision"] != _full_decision(fit, test))
    assert r.validation_mean_trees == res["n_trees"].mean()
    auto = qwyc(fit, held, alpha="auto", max_disagreement=0.06, validation=test, honest=True,
                random_state=3)
    assert auto.report_.validation_disagreement <= 0.06
    assert 0 < auto.alpha < 0.06
    larger = qwyc(fit, held, alpha=auto.alpha + 2 / auto.report_.n_rows, validation=test,
                  honest=True, random_state=3)
    assert larger.report_.validation_disagreement >= auto.report_.validation_disagreement
    with pytest.warns(UserWarning, match="even alpha = 0"):
        qwyc(fit, held, alpha="auto", max_disagreement=0.001, validation=test)


def test_auto_alpha_is_the_largest_when_validation_rows_disagree_less(setting):
    # validation rows the model is sure of disagree less than the optimisation rows:
    # the largest alpha within the target lies above the target itself
    fit, _, held, test = setting
    link = fit.predict(test, n_trees=N_TREES)
    sure = test[np.abs(link) > np.quantile(np.abs(link), 0.5)]
    auto = qwyc(fit, held, alpha="auto", max_disagreement=0.01, validation=sure)
    assert auto.report_.validation_disagreement <= 0.01
    assert auto.alpha > 0.01
    n = auto.report_.n_rows
    assert np.floor(auto.alpha * n) == auto.alpha * n - 0.5     # a whole budget of rows
    larger = qwyc(fit, held, alpha=auto.alpha + 1 / n, validation=sure)
    assert larger.report_.validation_disagreement > 0.01


def test_auto_alpha_on_too_few_validation_rows_warns(setting):
    # 2 validation rows cannot tell a target of 1%: they agreed at every budget, and
    # alpha = "auto" silently took alpha 0.999, which disagreed on 16% of the held rows
    fit, _, held, test = setting
    with pytest.warns(UserWarning, match=r"max_disagreement = 0.01 is finer than 2 "
                      r"validation rows can resolve .* at least 300 rows"):
        qwyc(fit, held, alpha="auto", max_disagreement=0.01, validation=test.iloc[:2])
    # where not even alpha = 0 keeps the target, that alone is said (the rule of three's
    # warning said too that alpha kept it on those rows)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        qwyc(fit, held, alpha="auto", max_disagreement=0.01, validation=test.iloc[58:60])
    assert [str(w.message)[:37] for w in said] == ["qwyc(): even alpha = 0 disagrees with"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qwyc(fit, held, alpha="auto", max_disagreement=0.05, validation=test)   # 400 rows


def test_offset_is_part_of_the_score():
    train, held = _data(500, 4), _data(300, 5)
    fit = gbm("y ~ x0 + x1 + offset(np.log(t))", train, distribution="bernoulli",
              n_trees=20, interaction_depth=2, shrinkage=0.1, bag_fraction=1)
    ee = qwyc(fit, held, alpha=0.0)
    res = ee.predict(held, type="link")
    full = fit.predict(held, n_trees=20) + np.log(held["t"].to_numpy())
    assert np.all(res["decision"].to_numpy() == (full >= 0))
    ran = res["exit"] == "full"
    np.testing.assert_allclose(res["score"][ran], full[ran], rtol=0, atol=1e-12)
    # a missing offset names the table it is in (it said 'the offset has 2 missing
    # values' whether in data, validation or newdata)
    gaps = held.assign(t=np.where(np.arange(len(held)) < 2, np.nan, held["t"]))
    with pytest.raises(ValueError, match=r"^the offset has 2 missing values \(in validation\)"):
        qwyc(fit, held, alpha=0.0, validation=gaps)
    with pytest.raises(ValueError, match=r"^the offset has 2 missing values \(in data\)"):
        qwyc(fit, gaps, alpha=0.0)
    with pytest.raises(ValueError, match=r"^the offset has 2 missing values \(in newdata\)"):
        ee.predict(gaps)


def test_matrix_offset_given_to_qwyc_and_required():
    # a gbm_fit model with an offset: qwyc tuned its thresholds on scores without the
    # offset (1 mean tree reported, 20 when predicting with the offsets)
    from pygbm import gbm_fit
    rows = _data(900, 8)
    x = rows[["x0", "x1", "x2", "x3"]].to_numpy()
    off = np.random.default_rng(0).normal(0, 1.5, len(rows))
    fit = gbm_fit(x[:400], rows.y[:400], offset=off[:400], distribution="bernoulli",
                  n_trees=N_TREES, interaction_depth=2, random_state=1)
    assert fit.matrix_offset
    opt, o_opt, val, o_val = x[400:700], off[400:700], x[700:], off[700:]
    for call in (lambda: qwyc(fit, opt), lambda: qwyc_tradeoff(fit, opt, val, offset=o_opt)):
        with pytest.raises(ValueError, match=r"^(newdata_)?offset is required: the model was "
                                             r"fitted with an offset argument"):
            call()
    with pytest.raises(ValueError, match="^validation_offset is required"):
        qwyc(fit, opt, offset=o_opt, validation=val)
    with pytest.raises(ValueError, match="validation_offset is the offset of the validation"):
        qwyc(fit, opt, offset=o_opt, validation_offset=o_val)
    with pytest.raises(ValueError, match=r"offset must be one number per row of data \(300\)"):
        qwyc(fit, opt, offset=o_val)
    ee = qwyc(fit, opt, alpha=0.01, order="gbt", offset=o_opt, validation=val,
              validation_offset=o_val)
    res = ee.predict(opt, offset=o_opt)
    assert ee.fit_mean_trees_ == res["n_trees"].mean()
    full = fit.predict(opt, n_trees=N_TREES) + o_opt >= 0
    assert ee.fit_disagreement_ == np.mean(res["decision"].to_numpy() != full)
    assert ee.report_.validation_mean_trees == ee.predict(val, offset=o_val)["n_trees"].mean()
    with pytest.raises(ValueError, match="^offset is required.*rows of newdata"):
        ee.predict(val)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        curves = qwyc_tradeoff(fit, opt, val, alphas=[0.01], methods=["gbt"], offset=o_opt,
                               newdata_offset=o_val)
    # a matrix has no response column: no accuracy, and nothing to warn about (it
    # warned with NumPy's IndexError text, "only integers, slices (`:`), ...")
    assert not [w for w in said if "no accuracy" in str(w.message)]
    assert curves["accuracy"].isna().all()
    assert curves["fit_mean_trees"].iloc[0] == ee.fit_mean_trees_
    assert curves["mean_trees"].iloc[0] == ee.report_.validation_mean_trees
    with pytest.warns(UserWarning, match="training rows"):    # the kept offsets
        kept = qwyc(fit, alpha=0.0)
    np.testing.assert_array_equal(kept.predict(x[:400], offset=off[:400])["decision"],
                                  (fit.predict(x[:400], n_trees=N_TREES) + off[:400] >= 0))
    # known without the kept data
    lean = gbm_fit(x[:400], rows.y[:400], offset=off[:400], distribution="bernoulli",
                   n_trees=5, keep_data=False)
    with pytest.raises(ValueError, match="^offset is required"):
        qwyc(lean, opt)
    plain = gbm_fit(x[:400], rows.y[:400], distribution="bernoulli", n_trees=5)
    assert not plain.matrix_offset
    assert not gbm("y ~ x0 + offset(np.log(t))", rows, distribution="bernoulli",
                   n_trees=2).matrix_offset


def test_huge_costs_give_the_unit_costs_speed_up(setting):
    # only the costs' ratios matter; the mean cost per row summed costs near the
    # largest float over the rows and overflowed (speed-up 0)
    fit, _, held, _ = setting
    unit = qwyc(fit, held, alpha=0.01)
    huge = qwyc(fit, held, alpha=0.01, cost=np.full(N_TREES, 1e306))
    np.testing.assert_array_equal(huge.order_, unit.order_)
    assert huge.summary().speedup == pytest.approx(unit.summary().speedup, rel=1e-12)
    assert np.isfinite(huge.report_.mean_cost)


def test_path_cost_and_explicit_order(setting):
    fit, _, held, _ = setting
    ee = qwyc(fit, held, alpha=0.01, cost="path")
    assert ee.cost_.shape == (N_TREES,) and np.all((ee.cost_ >= 1) & (ee.cost_ <= 3))
    order = np.arange(N_TREES)[::-1]
    np.testing.assert_array_equal(qwyc(fit, held, order=order).order_, order)


def test_other_distributions():
    data = _data(300, 6)
    for dist in ("adaboost", "huberized"):
        fit = gbm("y ~ x0 + x1", data, distribution=dist, n_trees=15, shrinkage=0.1,
                  bag_fraction=1)
        with pytest.warns(UserWarning):
            ee = qwyc(fit, alpha=0.0)
        full = fit.predict(data, n_trees=15) >= 0
        np.testing.assert_array_equal(ee.predict(data)["decision"].to_numpy(), full)
    with pytest.raises(ValueError, match="distribution must be one of"):
        qwyc(gbm("x0 ~ x1", data, distribution="gaussian", n_trees=5), data)


@pytest.mark.parametrize("kwargs, message", [
    (dict(alpha=1.5), "alpha must be"), (dict(alpha=-0.1), "alpha must be"),
    (dict(alpha="x"), "alpha must be"), (dict(alpha="auto"), "validation is required"),
    (dict(alpha=0.01, max_disagreement=0.1), "max_disagreement"),
    (dict(mode="up"), "mode must be"), (dict(order="best"), "order must be"),
    (dict(order=[0, 1, 2]), "order must be a permutation"),
    (dict(cost="time"), "cost must be"), (dict(cost=np.ones(3)), "cost must hold"),
    (dict(cost=-np.ones(N_TREES)), "cost must hold"), (dict(n_trees=0), "n_trees must be"),
    (dict(n_trees=N_TREES + 1), "n_trees must be"), (dict(threshold=1.5), "threshold must be"),
    (dict(thresholds="fan"), "thresholds must be"), (dict(thresholds="margin"), "margin must"),
    (dict(thresholds="margin", margin=1.0, margin_freq=0), "margin_freq must be"),
    (dict(margin_freq=2.5), "margin_freq must be"),
    (dict(exit_every=0), "exit_every must be"), (dict(exit_every=True), "exit_every must be"),
    (dict(exit_every=N_TREES), "exit_every must be a whole number from 1 to 39"),
    (dict(thresholds="margin", margin=1.0, margin_freq=N_TREES), "margin_freq must be"),
    (dict(thresholds="margin", margin=1.0, exit_every=2), "exit_every is for"),
    # ignored silently by the margin rule
    (dict(thresholds="margin", margin=1.0, alpha=0.2), "alpha is for thresholds='qwyc'"),
    (dict(thresholds="margin", margin=1.0, alpha="auto", max_disagreement=0.1),
     "alpha is for thresholds='qwyc'"),
    (dict(thresholds="margin", margin=1.0, honest=True), "honest=True is for"),
    (dict(honest=1), "honest must be"), (dict(random_state=-1), "random_state must be"),
    (dict(random_state=RRandom(1)), "R's stream"),
    (dict(order=[0, 0] + list(range(2, N_TREES))),
     r"order must be a permutation.*got 40 values .* \(39 distinct\)"),
    (dict(cost=["a"] * N_TREES), "cost must be None, 'path' or an array"),
    (dict(cost=np.r_[-1.0, np.ones(N_TREES - 1)]), "cost must hold.*from -1 to 1"),
    (dict(cost=np.full(N_TREES, 1e308)), r"cost must have a finite total .*1e\+308 .*"
                                          r"sum overflows"),   # was: speed-up nanx
    (dict(threshold=np.nan), "threshold must be"), (dict(threshold="0.3"), "threshold must be"),
])
def test_bad_arguments_name_the_argument(setting, kwargs, message):
    fit, _, held, _ = setting
    with pytest.raises(ValueError, match=message):
        qwyc(fit, held, **kwargs)


def test_random_state_of_another_type_is_refused_as_gbm_refuses_it(setting):
    fit, _, held, _ = setting
    for wrong in ("a", True, 1.5):
        with pytest.raises(TypeError, match="random_state must be None, a non-negative whole"):
            qwyc(fit, held, random_state=wrong)


def test_whole_valued_floats_are_counts_as_in_gbm(setting):
    """n_trees=20.0 (R's numerics), exit_every and margin_freq likewise: qwyc() refused
    them as 'must be a whole number ..., got 20.0', where gbm() and predict() take them."""
    fit, _, held, test = setting
    as_int = qwyc(fit, held, n_trees=20, alpha=0.01, exit_every=2)
    as_float = qwyc(fit, held, n_trees=20.0, alpha=0.01, exit_every=np.float64(2.0))
    assert as_float.n_trees == 20 and as_float.report_.exit_every == 2
    assert as_float.predict(test).equals(as_int.predict(test))
    margin = qwyc(fit, held, n_trees=20.0, thresholds="margin", margin=1.0, margin_freq=4.0)
    assert margin.report_.exit_every == 4
    curves = qwyc_tradeoff(fit, held, test, alphas=(0.01,), methods=("gbt",), n_trees=20.0)
    assert curves.iloc[-1]["mean_trees"] == 20
    backwards = np.arange(N_TREES)[::-1]
    np.testing.assert_array_equal(qwyc(fit, held, order=backwards.astype(float)).order_,
                                  qwyc(fit, held, order=backwards).order_)
    with pytest.raises(ValueError, match="order must be a permutation"):
        qwyc(fit, held, order=backwards + 0.5)
    for bad in (20.5, np.inf, "20", True):
        with pytest.raises(ValueError, match=r"^n_trees must be a whole number from 2 to the "
                                             rf"{N_TREES} trees fitted, got"):
            qwyc(fit, held, n_trees=bad)


def test_best_iteration_of_one_tree_blames_n_trees():
    # the default n_trees is the best iteration; at 1 the refusal blamed margin_freq,
    # which was never given
    data = _data(300, 7)
    fit = gbm("y ~ x0 + x1 + x2 + x3 + c", data, distribution="bernoulli", n_trees=10,
              shrinkage=1.0, interaction_depth=8, n_minobsinnode=1, train_fraction=0.5,
              random_state=0)
    assert fit.best_iteration(quiet=True) == (1, "test")
    match = (r"n_trees must be at least 2 .*the default n_trees, the fit's best iteration "
             r"\(fit.best_iteration\(\), by test\), is 1: give n_trees from 2 to 10")
    with pytest.raises(ValueError, match=match):
        qwyc(fit, data)
    with pytest.raises(ValueError, match=match):
        qwyc_tradeoff(fit, data, data)
    assert qwyc(fit, data, n_trees=2, alpha=0.0).n_trees == 2
    one = gbm("y ~ x0 + x1", data, distribution="bernoulli", n_trees=1)
    with pytest.raises(ValueError, match="n_trees: qwyc needs a fit of at least 2 trees.*"
                                         "got a fit of 1"):
        qwyc(one, data, n_trees=1)


def test_empty_rows_are_refused(setting):
    fit, _, held, test = setting
    with pytest.raises(ValueError, match="data must have at least 1 row, got 0"):
        qwyc(fit, held.iloc[:0])
    with pytest.raises(ValueError, match=r"data \(honest=True halves them\) must have at "
                                         "least 2 rows, got 1"):
        qwyc(fit, held.iloc[:1], honest=True)
    with pytest.raises(ValueError, match="validation must have at least 1 row, got 0"):
        qwyc(fit, held, validation=test.iloc[:0])
    with pytest.raises(ValueError, match="newdata must have at least 1 row, got 0"):
        qwyc_tradeoff(fit, held, test.iloc[:0])
    assert qwyc(fit, held.iloc[:1], alpha=0.0).report_.n_rows == 1


def test_threshold_of_any_real_type_and_the_link_scale_checked(setting):
    fit, _, held, _ = setting
    same = qwyc(fit, held, alpha=0.0, threshold=np.float32(0.25))
    assert same.threshold == pytest.approx(0.25) and same.beta < 0
    hub = gbm("y ~ x0 + x1", _data(300, 4), distribution="huberized", n_trees=5,
              bag_fraction=1)
    for bad in (np.nan, np.inf, "a"):   # NaN decided every row negative; text: NumPy's error
        with pytest.raises(ValueError, match="threshold must be a finite number on the link"):
            qwyc(hub, held, threshold=bad)


def test_predict_offset_and_newdata_checked(setting):
    fit, _, held, _ = setting
    ee = qwyc(fit, held, alpha=0.0)
    # the fit has no offset: any offset is refused (the checks of an offset's values,
    # for a fit with one: tests/calibration/test_calibrate.py)
    for bad in [np.zeros(3), ["a"] * 500, np.full(500, np.nan), np.ones(500)]:
        with pytest.raises(ValueError, match="offset was given, but the model was fitted "
                                             "without an offset"):
            ee.predict(held, offset=bad)
    with pytest.raises(ValueError, match="newdata is required"):
        ee.predict(None)


@pytest.mark.parametrize("margins, match", [
    ([-1.0], r"^margins must be a positive number \(the margin rule stops a row once "
             r"2\|score - beta\| exceeds it\), got -1.0$"),  # every row stopped at once
    ([np.nan], "margins must be a positive number.*got nan"),  # no row ever stopped
    (["a"], "margins must be a positive number.*got 'a'"),
    ([], "margins is empty")])
def test_tradeoff_margins_checked(setting, margins, match):
    fit, _, held, test = setting
    with pytest.raises(ValueError, match=match):
        qwyc_tradeoff(fit, held, test, margins=margins)


@pytest.mark.parametrize("mode, kept", [("negative", {"neg", "full"}),
                                         ("positive", {"pos", "full"})])
def test_margin_rule_keeps_the_mode(setting, mode, kept):
    # the margin rule let rows exit on both sides whatever the mode
    fit, _, held, test = setting
    res = qwyc(fit, held, thresholds="margin", margin=1.0, mode=mode).predict(test)
    assert set(res["exit"]) <= kept and set(res["exit"]) != {"full"}
    both = qwyc(fit, held, thresholds="margin", margin=1.0).predict(test)
    early = both["exit"] == mode[:3]
    np.testing.assert_array_equal(res["n_trees"][early], both["n_trees"][early])


def test_tables_missing_a_column_are_named_by_their_argument(setting):
    fit, _, held, test = setting
    with pytest.raises(ValueError, match="^formula uses column not in validation: 'x1'"):
        qwyc(fit, held, validation=test.drop(columns="x1"))
    with pytest.raises(ValueError, match="^formula uses column not in data: 'x1'"):
        qwyc(fit, held.drop(columns="x1"))
    with pytest.raises(TypeError, match="^validation must be a pandas DataFrame"):
        qwyc(fit, held, validation=test[["x0", "x1"]].to_numpy())
    with pytest.raises(ValueError, match="^formula uses column not in data: 'x2'"):
        qwyc_tradeoff(fit, held.drop(columns="x2"), test)
    with pytest.raises(ValueError, match="^formula uses column not in newdata: 'x2'"):
        qwyc_tradeoff(fit, held, test.drop(columns="x2"))


def test_predict_keeps_the_index_of_newdata(setting):
    """predict's table has the rows' index, so that it aligns with newdata (a
    held-out slice with index 300.. gave a 0..n-1 index: assign/join gave NaN)."""
    fit, _, held, _ = setting
    ee = qwyc(fit, held, alpha=0.01)
    part = held.iloc[300:]
    res = ee.predict(part)
    assert res.index.equals(part.index)
    joined = part.assign(early=res["decision"])
    assert joined["early"].notna().all()
    np.testing.assert_array_equal(joined["early"].to_numpy(), res["decision"].to_numpy())
    as_dict = ee.predict({c: part[c].to_numpy() for c in part.columns})
    assert as_dict.index.equals(pd.RangeIndex(len(part)))


def test_bad_fit_and_predict_type(setting):
    fit, _, held, _ = setting
    with pytest.raises(TypeError, match="fit must be a fitted gbm"):
        qwyc("model", held)
    with pytest.raises(ValueError, match="type must be"):
        qwyc(fit, held).predict(held, type="probability")


def test_tradeoff_accuracy_of_a_response_expression():
    """The accuracy on newdata comes from the formula's response evaluated on
    it (here an expression, which no column of newdata is named after)."""
    train, held, test = (_data(n, seed).assign(g=lambda d: np.where(d.y == 1, "yes", "no"))
                         for n, seed in ((600, 1), (500, 2), (400, 3)))
    fit = gbm('I(g == "yes") ~ x0 + x1 + x2 + x3 + c', train, distribution="bernoulli",
              n_trees=30, interaction_depth=3, bag_fraction=1)
    tab = qwyc_tradeoff(fit, held, test, alphas=(0, 0.01), methods=("qwyc",))
    full = tab.iloc[-1]
    assert full["accuracy"] == pytest.approx(np.mean((fit.predict(test) >= 0) == (test.y == 1)))


def test_tradeoff_accuracy_on_the_rows_whose_response_is_known(setting):
    """A newdata response with missing values gives the accuracy of the rows
    where it is known (it was NaN on every row), for a 0/1 and a text response."""
    fit, _, held, test = setting
    part = test.assign(y=np.where(np.arange(len(test)) < 5, np.nan, test.y))
    full = qwyc_tradeoff(fit, held, part, alphas=(0.01,), methods=("qwyc",)).iloc[-1]
    known = part.iloc[5:]
    assert full["accuracy"] == pytest.approx(np.mean(_full_decision(fit, known) == known.y))
    with pytest.warns(UserWarning, match="coded 'no' = 0, 'yes' = 1"):
        text_fit = gbm("g ~ x0 + x1 + x2 + x3 + c", _data(600, 1).assign(
            g=lambda d: np.where(d.y == 1, "yes", "no")), distribution="bernoulli",
            n_trees=N_TREES, bag_fraction=1)
    text = part.assign(g=np.where(part.y.isna(), None, np.where(part.y == 1, "yes", "no")))
    tab = qwyc_tradeoff(text_fit, held, text, alphas=(0.01,), methods=("qwyc",))
    assert tab["accuracy"].notna().all()
    assert tab.iloc[-1]["accuracy"] == pytest.approx(
        np.mean(_full_decision(text_fit, known) == known.y))
    unlabelled = qwyc_tradeoff(fit, held, test.assign(y=np.nan), alphas=(0.01,),
                               methods=("qwyc",))
    assert unlabelled["accuracy"].isna().all()


def test_tradeoff_says_why_there_is_no_accuracy(setting):
    """A response that is there but is not the fit's gives NaN accuracy with a
    warning (it was silent); newdata without the response gives NaN quietly; a
    gbm_fit model's text response is coded by the fit's levels."""
    fit, train, held, test = setting
    with pytest.warns(UserWarning, match=r"no accuracy .*not the fit's 0/1 response .*\[2\.0"):
        tab = qwyc_tradeoff(fit, held, test.assign(y=test.y + 1), alphas=(0.01,),
                            methods=("gbt",))
    assert tab["accuracy"].isna().all()
    text = train.assign(g=np.where(train.y == 1, "yes", "no"))
    with pytest.warns(UserWarning, match="coded"):
        text_fit = gbm("g ~ x0 + x1", text, distribution="bernoulli", n_trees=10,
                       bag_fraction=1)
    odd = test.assign(g=np.where(test.y == 1, "yes", "maybe"))
    with pytest.warns(UserWarning, match=r"no accuracy .*level\(s\) \['maybe'\]"):
        qwyc_tradeoff(text_fit, held, odd, alphas=(0.01,), methods=("gbt",))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tab = qwyc_tradeoff(fit, held, test.drop(columns="y"), alphas=(0.01,),
                            methods=("gbt",))
    assert tab["accuracy"].isna().all()
    x = ["x0", "x1"]
    raw = gbm_fit(text[x], text["g"], distribution="bernoulli", n_trees=10, shrinkage=0.1,
                  bag_fraction=1)
    new = test.assign(g=np.where(test.y == 1, "yes", "no"))
    tab = qwyc_tradeoff(raw, held[x], new, alphas=(0.01,), methods=("gbt",))
    decision = raw.predict(new[x], n_trees=10) >= 0
    assert tab.iloc[-1]["accuracy"] == pytest.approx(np.mean(decision == (new.g == "yes")))


def test_tradeoff_table_and_plot(setting):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fit, _, held, test = setting
    tab = qwyc_tradeoff(fit, held, test, alphas=(0, 0.01, 0.05), margins=(0.5, 2.0),
                        plot_it=True)
    assert list(tab["method"]) == ["qwyc"] * 3 + ["gbt"] * 3 + ["margin"] * 2 + ["full"]
    qw = tab[tab["method"] == "qwyc"]
    assert np.all(qw["fit_disagreement"] <= np.floor(qw["alpha"] * len(held)) / len(held))
    assert tab["accuracy"].notna().all()
    assert tab.iloc[-1]["mean_trees"] == N_TREES
    plt.close("all")
    with pytest.raises(ValueError, match="methods must be"):
        qwyc_tradeoff(fit, held, test, methods=("fan",))


def test_thresholds_spent_by_rate_through_qwyc_and_tradeoff(setting):
    """thresholds="rate": the budget holds on the optimisation rows through predict,
    the order is Algorithm 1's, the summary says how alpha was spent, and the
    trade-off curves take the same option."""
    fit, _, held, test = setting
    greedy = qwyc(fit, held, alpha=0.02, random_state=0)
    ee = qwyc(fit, held, alpha=0.02, thresholds="rate", random_state=0)
    wrong = int(np.sum(ee.predict(held)["decision"].to_numpy() != _full_decision(fit, held)))
    assert wrong <= int(np.floor(0.02 * len(held)))
    np.testing.assert_array_equal(ee.order_, greedy.order_)
    assert "spent by rate" in repr(ee.summary()) and "spent by rate" in repr(ee)
    assert "spent by rate" not in repr(greedy.summary())
    again = pickle.loads(pickle.dumps(ee))
    pd.testing.assert_frame_equal(again.predict(test), ee.predict(test))
    curves = qwyc_tradeoff(fit, held, test, alphas=[0.0, 0.02], methods=("gbt",),
                           thresholds="rate")
    assert curves["method"].tolist() == ["gbt", "gbt", "full"]
    assert np.all(curves["fit_disagreement"] <= 0.02)
    with pytest.raises(ValueError, match="thresholds must be one of 'qwyc', 'rate'"):
        qwyc_tradeoff(fit, held, test, thresholds="margin")


def test_the_leave_one_out_estimate_in_the_report_summary_and_curves(setting):
    """The leave-one-out count is reported for Algorithm 2's thresholds (at least the
    disagreements on the optimisation rows), shown by summary(), kept by pickling,
    and given by the trade-off curves (NaN for the margin rule)."""
    fit, _, held, test = setting
    for thresholds in ("qwyc", "rate"):
        ee = qwyc(fit, held, alpha=0.02, thresholds=thresholds, random_state=0)
        assert ee.report_.disagreement <= ee.report_.loo_disagreement <= 1
        assert "leave-one-out estimate for new rows" in repr(ee.summary())
    again = pickle.loads(pickle.dumps(ee))
    assert again.report_.loo_disagreement == ee.report_.loo_disagreement
    margin = qwyc(fit, held, thresholds="margin", margin=1.0)
    assert margin.report_.loo_disagreement is None
    assert "leave-one-out" not in repr(margin.summary())
    curves = qwyc_tradeoff(fit, held, test, alphas=[0.0, 0.02], methods=("gbt", "qwyc"))
    points = curves[curves["method"] != "full"]
    assert np.all(points["fit_disagreement"] <= points["fit_loo_disagreement"])
    margins = qwyc_tradeoff(fit, held, test, methods=("margin",), margins=[1.0])
    assert np.isnan(margins["fit_loo_disagreement"].iloc[0])     # the margin rule: none


def test_tradeoff_default_margins_are_distinct():
    # a stump of a binary predictor scores every row one of two values: the default
    # margins (quantiles of |score - beta|) repeated, and so did the table's points
    train, test = _data(400, 7), _data(300, 8)
    for frame in (train, test):
        frame["s"] = (frame.x0 > 0).astype(int)
    fit = gbm("y ~ s", train, distribution="bernoulli", n_trees=5, shrinkage=0.1,
              bag_fraction=1)
    tab = qwyc_tradeoff(fit, train, test, alphas=(0.01,), methods=("margin",))
    margins = tab.loc[tab["method"] == "margin", "margin"]
    assert 1 <= len(margins) <= 2 and margins.is_unique
