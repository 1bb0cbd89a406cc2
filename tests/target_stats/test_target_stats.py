"""Target statistics (pygbm.target_stats): hand checks, the leak, the encoder."""

import pickle
import warnings


import numpy as np
import pytest

from pygbm.distributions import get_distribution
from pygbm.fitting import CodedData
from pygbm.response import Response
from pygbm.target_stats import (
    TargetStatisticsEncoder, fit_target_statistics, greedy_statistic, holdout_statistic,
    column_level_codes, loo_statistic, ordered_statistic, resolve_modes, statistic_inputs,
    target_of)
from pygbm.target_stats.spec import ts_spec


def _auc(y, score):
    """Area under the ROC curve (R's gbm.roc.area: ties count one half)."""
    from pygbm.inspect.roc import gbm_roc_area

    return gbm_roc_area(np.asarray(y, dtype=float), np.asarray(score, dtype=float))

BERNOULLI = get_distribution("bernoulli")
GAUSSIAN = get_distribution("gaussian")

# six rows, three levels, a fixed permutation (row at time 0 is row 3, ...)
CODES = np.array([0, 1, 0, 0, 1, 2])
Y = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
ORDER = np.array([3, 0, 5, 1, 2, 4])
PRIOR, A = 0.5, 1.0


def _call(categorical, x, y, w, n_train, var_names, var_type, var_monotone, dist, max_bins,
          rng, offset=None, **options):
    """fit_target_statistics on arrays: the checked spec of ``options`` (ts_spec's
    keywords), the rows as a fit codes them, their response with weights ``w``."""
    spec = ts_spec(categorical, var_names, var_type, **options)
    data = CodedData(x=x, var_names=list(var_names), var_type=np.asarray(var_type),
                     var_levels=None, encoder=None, y=y, n_train=n_train)
    w = np.asarray(w, dtype=float)
    targets = Response(y=np.asarray(y, dtype=float), misc=None, offset=offset, w=w, w_raw=w)
    return fit_target_statistics(spec, data, targets, var_monotone, dist, max_bins, rng)


def _fit(mode, x, y, var_type, n_train=None, w=None, dist=BERNOULLI, seed=0, **kw):
    n = x.shape[0]
    return _call(mode, x, y, np.ones(n) if w is None else w, n if n_train is None else n_train,
                 [f"v{j}" for j in range(x.shape[1])], np.asarray(var_type),
                 np.zeros(x.shape[1], dtype=int), dist, None, np.random.default_rng(seed), **kw)


def _training_column(schedule, x_engine, j=0, iteration=0):
    if schedule is None:
        return x_engine[:, j]
    return schedule.data(schedule.view_of(iteration)).x[:, j]


# ---------------------------------------------------------------- by hand
def test_ordered_statistic_by_hand():
    # time 0: row 3 (level 0) has no history -> prior; time 1: row 0 (level 0)
    # sees row 3 (y=1) -> (1 + .5)/(1 + 1); time 2: row 5 (level 2) -> prior;
    # time 3: row 1 (level 1) -> prior; time 4: row 2 (level 0) sees rows 3, 0
    # -> (1 + 1 + .5)/(2 + 1); time 5: row 4 (level 1) sees row 1 (y=0) -> .5/2
    expected = [1.5 / 2, 0.5, 2.5 / 3, 0.5, 0.5 / 2, 0.5]
    got = ordered_statistic(CODES, Y, np.ones(6), ORDER, PRIOR, A)
    np.testing.assert_allclose(got, expected, rtol=1e-15)


def test_ordered_statistic_with_weights_and_prior_weight():
    w = np.array([2.0, 1.0, 0.5, 3.0, 1.0, 1.0])
    a, p = 2.5, 0.2
    # row 2 (time 4) has history rows 3 (w 3, y 1) and 0 (w 2, y 1)
    got = ordered_statistic(CODES, Y, w, ORDER, p, a)
    assert got[2] == pytest.approx((3 * 1 + 2 * 1 + a * p) / (3 + 2 + a), rel=1e-15)
    assert got[0] == pytest.approx((3 * 1 + a * p) / (3 + a), rel=1e-15)
    assert got[4] == pytest.approx((1 * 0 + a * p) / (1 + a), rel=1e-15)
    assert got[3] == pytest.approx(p, rel=1e-15)


def test_greedy_loo_holdout_by_hand():
    # level 0: rows 0, 2, 3 with y 1, 0, 1 (sum 2, count 3); level 1: rows 1, 4 (sum 1)
    np.testing.assert_allclose(greedy_statistic(CODES, Y, np.ones(6), PRIOR, A),
                               [2.5 / 4, 1.5 / 3, 2.5 / 4, 2.5 / 4, 1.5 / 3, 1.5 / 2])
    np.testing.assert_allclose(loo_statistic(CODES, Y, np.ones(6), PRIOR, A),
                               [1.5 / 3, 1.5 / 2, 2.5 / 3, 1.5 / 3, 0.5 / 2, 0.5])
    half = np.array([True, True, True, False, False, False])
    # row 0 (half 1) uses half 0's level-0 rows: row 3 (y 1) -> 1.5 / 2
    np.testing.assert_allclose(holdout_statistic(CODES, Y, np.ones(6), half, PRIOR, A),
                               [1.5 / 2, 1.5 / 2, 1.5 / 2, 1.5 / 3, 0.5 / 2, 0.5])


def test_encoder_matches_hand_values_with_its_permutation():
    x = CODES[:, None].astype(float)
    enc, x_engine, vt, schedule = _fit("ordered_ts", x, Y, [3], n_permutations=2)
    assert vt.tolist() == [0]
    for r in range(2):
        order = enc.permutation(r)
        expected = ordered_statistic(CODES, Y, np.ones(6), order, enc.prior, 1.0)
        np.testing.assert_allclose(schedule.data(r).x[:, 0], expected, rtol=1e-15)
    # the prior is the mean target, the prediction-time statistic uses all rows
    assert enc.prior == pytest.approx(4 / 6)
    pred = enc.transform(np.array([[0.0], [1.0], [2.0], [np.nan], [7.0]]))[:, 0]
    p = 4 / 6
    np.testing.assert_allclose(pred, [(2 + p) / 4, (1 + p) / 3, (1 + p) / 2, p, p])


def test_permutation_hand_check_of_one_iteration():
    # the statistic the engine sees at an iteration equals the formula under
    # the permutation that iteration uses
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, 50).astype(float)[:, None]
    y = rng.normal(size=50)
    enc, _, _, schedule = _fit("ordered_ts", x, y, [4], dist=GAUSSIAN, n_permutations=3)
    for it in range(6):
        r = enc.permutation_of_iteration(it)
        order = enc.permutation(r)
        codes = x[:, 0].astype(int)
        direct = np.empty(50)
        for t, row in enumerate(order):          # the definition, one row at a time
            prev = order[:t][codes[order[:t]] == codes[row]]
            direct[row] = (y[prev].sum() + enc.prior) / (prev.size + 1.0)
        np.testing.assert_allclose(schedule.data(schedule.view_of(it)).x[:, 0], direct, rtol=1e-12, atol=1e-14)
    assert len({enc.permutation_of_iteration(it) for it in range(40)}) == 3


# ---------------------------------------------------------------- the leak
def test_noise_categorical_greedy_leaks_ordered_does_not():
    rng = np.random.default_rng(2018)
    n, k = 10_000, 2000
    x = rng.integers(0, k, n).astype(float)[:, None]
    y = rng.integers(0, 2, n).astype(float)
    auc = {}
    for mode in ("greedy_ts", "ordered_ts", "holdout_ts"):
        enc, x_engine, _, schedule = _fit(mode, x, y, [k])
        auc[mode] = _auc(y, _training_column(schedule, x_engine))
    assert auc["greedy_ts"] > 0.7                     # far above 0.5: the leak
    assert abs(auc["ordered_ts"] - 0.5) < 0.03
    assert abs(auc["holdout_ts"] - 0.5) < 0.03


def test_leave_one_out_separates_a_constant_feature():
    rng = np.random.default_rng(7)
    n = 10_000
    x = np.zeros((n, 1))
    y = rng.integers(0, 2, n).astype(float)
    enc, x_engine, _, schedule = _fit("loo_ts", x, y, [1])
    loo = _training_column(schedule, x_engine)
    assert loo[y == 1].max() < loo[y == 0].min()       # one threshold separates the classes
    assert _auc(y, loo) == 0.0
    enc, x_engine, _, schedule = _fit("ordered_ts", x, y, [1])
    ordered = _training_column(schedule, x_engine)
    assert not ordered[y == 1].max() < ordered[y == 0].min()
    assert abs(_auc(y, ordered) - 0.5) < 0.03


# ---------------------------------------------------------------- coding
def test_column_level_codes_missing_and_unseen():
    got = column_level_codes(np.array([0, 2, np.nan, 3, -1, 1.5]), 3)
    assert got.tolist() == [0, 2, 3, -1, -1, -1]


def test_missing_is_its_own_level_and_validation_rows_use_training_rows():
    x = np.array([[0], [np.nan], [0], [np.nan], [1], [0], [np.nan], [5]], dtype=float)
    y = np.array([1, 0, 1, 0, 1, 0, 1, 1], dtype=float)
    enc, x_engine, _, _ = _fit("greedy_ts", x, y, [6], n_train=5)
    p = 3 / 5
    # training: level 0 rows 0, 2 (y 1, 1); missing rows 1, 3 (y 0, 0); level 1 row 4
    np.testing.assert_allclose(x_engine[:5, 0], [(2 + p) / 3, p / 3, (2 + p) / 3, p / 3,
                                                 (1 + p) / 2])
    # validation rows: statistics of the training rows only; level 5 unseen -> prior
    np.testing.assert_allclose(x_engine[5:, 0], [(2 + p) / 3, p / 3, p])


def test_numeric_columns_untouched_and_dict_modes():
    rng = np.random.default_rng(3)
    x = np.column_stack([rng.normal(size=40), rng.integers(0, 3, 40), rng.integers(0, 4, 40)])
    y = rng.normal(size=40)
    enc, x_engine, vt, schedule = _call(
        {"b": "greedy_ts"}, x, y, np.ones(40), 40, ["a", "b", "c"], np.array([0, 3, 4]),
        np.zeros(3, dtype=int), GAUSSIAN, None, np.random.default_rng(0))
    assert vt.tolist() == [0, 0, 4]                      # c stays native
    np.testing.assert_array_equal(x_engine[:, [0, 2]], x[:, [0, 2]])
    assert schedule is None                              # nothing depends on a permutation
    assert enc.ts_columns == [1]


@pytest.mark.parametrize("categorical, match", [
    ("ordered", "categorical must be one of"),
    ({"zz": "ordered_ts"}, "not a predictor"),
    ({"a": "ordered_ts"}, "not an unordered categorical"),
    ({"b": "cat"}, r"categorical\['b'\] must be one of"),
])
def test_bad_categorical_argument(categorical, match):
    with pytest.raises(ValueError, match=match):
        resolve_modes(categorical, ["a", "b"], [0, 3])


def test_a_categorical_key_of_a_column_a_term_reads_is_told_the_term():
    # categorical={"District": ...} for the formula term C(District) was told only
    # "not a predictor" (feature_costs' check names the term)
    with pytest.raises(ValueError, match=r"categorical names 'b', which is not a predictor; "
                       r"predictors are \['a', 'C\(b\)'\] \('b' enters the model through "
                       r"'C\(b\)': name the predictor as the formula does\)"):
        resolve_modes({"b": "ordered_ts"}, ["a", "C(b)"], [0, 3])
    with pytest.raises(ValueError, match=r"predictors are \['a', 'C\(b\)'\]$"):
        resolve_modes({"bb": "ordered_ts"}, ["a", "C(b)"], [0, 3])


def test_bad_categorical_type():
    with pytest.raises(TypeError, match="categorical must be"):
        resolve_modes(["ordered_ts"], ["a"], [3])


@pytest.mark.parametrize("kw, exc, match", [
    ({"n_permutations": 0}, ValueError, "ts_permutations"),
    ({"n_permutations": 1.5}, TypeError, "ts_permutations"),
    ({"prior_weight": 0}, ValueError, "ts_prior_weight"),
    ({"prior": "mean"}, TypeError, "ts_prior"),
    ({"max_combination": 4}, ValueError, "ts_max_combination"),
])
def test_bad_options(kw, exc, match):
    x = CODES[:, None].astype(float)
    with pytest.raises(exc, match=match):
        _fit("ordered_ts", x, Y, [3], **kw)


@pytest.mark.parametrize("name", ["coxph"])
def test_refused_distributions(name):
    with pytest.raises(ValueError, match="not available for distribution 'coxph'.*native"):
        target_of(get_distribution(name), np.arange(5.0))


@pytest.mark.parametrize("distribution, formula", [
    ("coxph", "Surv(t, s) ~ f + x"),
    ("multinomial", "k ~ f + x"),
])
@pytest.mark.parametrize("cv_folds", [0, 3])
def test_refused_before_any_fit(distribution, formula, cv_folds):
    """The refusal is an argument error: raised by gbm()'s checks, not by the first
    cv fold (whose message said "cv fold 1 (trained on ...)" as if the fold failed)."""
    import pandas as pd

    import pygbm

    rng = np.random.default_rng(0)
    n = 60
    data = pd.DataFrame({"t": rng.exponential(size=n), "s": rng.integers(0, 2, n),
                         "k": pd.Categorical(rng.choice(list("xyz"), n)),
                         "f": pd.Categorical(rng.choice(list("abc"), n)),
                         "x": rng.normal(size=n)})
    with pytest.raises(ValueError, match=rf"^categorical target statistics are not available "
                                         rf"for distribution '{distribution}'"):
        pygbm.gbm(formula, data, distribution=distribution, categorical={"f": "ordered_ts"},
                  cv_folds=cv_folds, n_trees=2)
    # every predictor native: nothing to refuse, and the native fit, also with R's stream
    native = pygbm.gbm(formula, data, distribution=distribution, n_trees=2,
                       random_state=pygbm.RRandom(1))
    named = pygbm.gbm(formula, data, distribution=distribution, categorical={"f": "native"},
                      n_trees=2, random_state=pygbm.RRandom(1))
    np.testing.assert_array_equal(named.predict(data, n_trees=2), native.predict(data, n_trees=2))


def test_user_prior_and_weight():
    x = CODES[:, None].astype(float)
    enc, *_ = _fit("greedy_ts", x, Y, [3], prior=0.1, prior_weight=4.0)
    assert enc.prior == 0.1 and enc.prior_weight == 4.0
    assert enc.transform(np.array([[2.0]]))[0, 0] == pytest.approx((1 + 0.4) / (1 + 4))


def test_no_categorical_predictor_warns():
    x = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.warns(UserWarning, match="no effect"):
        enc, x_engine, vt, schedule = _fit("ordered_ts", x, x[:, 0], [0, 0], dist=GAUSSIAN)
    assert schedule is None and vt.tolist() == [0, 0]
    np.testing.assert_array_equal(x_engine, x)


def test_no_categorical_predictor_fits_as_native():
    """"has no effect" holds: no seed is drawn from the fit's generator (the
    permutations' seed moved every bag after it, so the fit differed)."""
    import pandas as pd

    import pygbm

    rng = np.random.default_rng(5)
    data = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    data["y"] = (data.a + rng.normal(size=200) > 0).astype(float)
    kw = dict(distribution="bernoulli", n_trees=10, random_state=0, cv_folds=2)
    native = pygbm.gbm("y ~ .", data, **kw)
    with pytest.warns(UserWarning, match="no effect"):
        ts = pygbm.gbm("y ~ .", data, categorical="ordered_ts", **kw)
    np.testing.assert_array_equal(ts.fit, native.fit)
    np.testing.assert_array_equal(ts.cv_error, native.cv_error)


def test_encoder_pickles_and_transforms_the_same():
    rng = np.random.default_rng(11)
    x = np.column_stack([rng.integers(0, 30, 300), rng.integers(0, 5, 300)]).astype(float)
    x[rng.random(300) < 0.1, 0] = np.nan
    y = rng.integers(0, 2, 300).astype(float)
    enc, *_ = _fit("ordered_ts", x, y, [30, 5], max_combination=2)
    again = pickle.loads(pickle.dumps(enc))
    assert isinstance(again, TargetStatisticsEncoder)
    np.testing.assert_array_equal(again.transform(x), enc.transform(x))
    assert again.permutation(1).tolist() == enc.permutation(1).tolist()


def test_level_table_and_influence_folding():
    x = CODES[:, None].astype(float)
    enc, *_ = _fit("greedy_ts", x, Y, [3])
    table = enc.level_table("v0")
    assert table["weight"].tolist() == [3.0, 2.0, 1.0, 0.0]     # last row: missing
    np.testing.assert_allclose(table["statistic"], enc.transform(
        np.array([[0.0], [1.0], [2.0], [np.nan]]))[:, 0])
    np.testing.assert_array_equal(enc.fold_influence([2.0]), [2.0])


@pytest.mark.parametrize("j, exc, match", [
    ("nope", ValueError, r"j: 'nope' is not a predictor; the predictors are v0"),
    (3, ValueError, r"j \(a predictor's name or index\) must be between 0 and 0, got 3"),
    (None, TypeError, r"j \(a predictor's name or index\) must be a whole number, got None"),
])
def test_level_table_names_a_bad_predictor(j, exc, match):
    # an unknown name gave Python's "'nope' is not in list", an index out of range
    # "list index out of range"
    x = CODES[:, None].astype(float)
    enc, *_ = _fit("greedy_ts", x, Y, [3])
    with pytest.raises(exc, match=match):
        enc.level_table(j)
    assert enc.level_table(0).equals(enc.level_table("v0"))


def test_schedule_caches_one_data_per_permutation():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 10, 200).astype(float)[:, None]
    y = rng.integers(0, 2, 200).astype(float)
    enc, _, _, schedule = _fit("ordered_ts", x, y, [10], n_permutations=2)
    seen = {id(schedule.data(schedule.view_of(it))) for it in range(30)}
    assert len(seen) == 2


def test_binned_schedule_when_available():
    pytest.importorskip("pygbm.engine.binned")
    rng = np.random.default_rng(1)
    x = rng.integers(0, 10, 200).astype(float)[:, None]
    y = rng.integers(0, 2, 200).astype(float)
    enc, x_engine, vt, schedule = _call(
        "ordered_ts", x, y, np.ones(200), 200, ["v"], np.array([10]), np.zeros(1, dtype=int),
        BERNOULLI, 16, np.random.default_rng(0))
    data = schedule.data(schedule.view_of(0))
    assert type(data).__name__ == "BinnedTrainingData"
    np.testing.assert_allclose(data.xt[0], ordered_statistic(
        x[:, 0].astype(int), y, np.ones(200), enc.permutation(enc.permutation_of_iteration(0)),
        enc.prior, 1.0))


def test_combination_registry_keys_and_statistics():
    rng = np.random.default_rng(4)
    n = 400
    x = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n),
                         rng.integers(0, 5, n)]).astype(float)
    y = rng.integers(0, 2, n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc, x_engine, vt, schedule = _fit("ordered_ts", x, y, [4, 3, 5], max_combination=3)
    reg = enc.combinations
    assert reg.n_slots == 4                     # 3 pairs + 1 triple, all given a slot
    assert reg.combos == [(0, 1), (0, 2), (1, 2), (0, 1, 2)]
    assert vt.shape == (3 + 4,) and not vt.any()
    slot = reg.slot_of((0, 2))
    # prediction-time statistic of the pair = greedy statistic of the joint level
    joint = x[:, 0] * 5 + x[:, 2]
    expected = greedy_statistic(joint.astype(int), y, np.ones(n), enc.prior, 1.0)
    got = enc.transform(x)[:, 3 + slot]
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    np.testing.assert_allclose(x_engine[:, 3 + slot], expected, rtol=1e-13)
    # an unseen pair gets the prior
    new = enc.transform(np.array([[0.0, 0.0, 9.0]]))
    assert new[0, 3 + slot] == pytest.approx(enc.prior)
    # training column under a permutation = ordered statistic of the joint level
    col = reg.ordered_column((0, 2), enc, x, y, np.ones(n), 1)
    _, inv = np.unique(joint, return_inverse=True)
    np.testing.assert_allclose(col, ordered_statistic(inv, y, np.ones(n), enc.permutation(1),
                                                      enc.prior, 1.0))
    assert reg.extensions((0,)) == [(0, 1), (0, 2)]
    assert reg.extensions((0, 1)) == [(0, 1, 2)]
    assert enc.originals_of(3 + slot) == (0, 2)
    np.testing.assert_allclose(enc.fold_influence([1, 0, 0, 0, 4.0]), [3.0, 0.0, 2.0])
    assert enc.partial_combinations([0]) == [3, 4, 6]
    assert enc.partial_combinations([0, 2]) == [3, 5, 6]


def test_combination_slots_beyond_the_budget_rank_members(monkeypatch):
    import pygbm.target_stats.combinations as tc

    monkeypatch.setattr(tc, "SLOT_BUDGET_BYTES", 0)         # -> MIN_SLOTS slots
    rng = np.random.default_rng(9)
    n, m = 3000, 6
    x = rng.integers(0, 6, (n, m)).astype(float)
    effect = rng.normal(size=6)
    logit = 2 * effect[x[:, 4].astype(int)] + 1.5 * effect[x[:, 1].astype(int)]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    enc, x_engine, vt, schedule = _fit("ordered_ts", x, y, [6] * m, max_combination=2)
    reg = enc.combinations
    assert reg.n_slots == tc.MIN_SLOTS < 15
    assert reg.combos[0] == (1, 4)                  # the two predictive members first
    assert all(4 in c or 1 in c for c in reg.combos)


# ----------------------------------------------------------------- offsets
POISSON = get_distribution("poisson")


def test_without_an_offset_the_statistic_averages_the_response():
    y, w = np.array([0.0, 2.0, 5.0]), np.array([1.0, 2.0, 1.0])
    for dist in (POISSON, GAUSSIAN, BERNOULLI):
        value, weight = statistic_inputs(dist, y if dist is not BERNOULLI else y > 1, w)
        np.testing.assert_array_equal(weight, w)
    np.testing.assert_array_equal(statistic_inputs(POISSON, y, w)[0], y)


def test_a_poisson_offset_gives_the_levels_rate_per_unit_of_exposure():
    # two levels; exposures 1, 3 and 10, 30: the counts mostly measure exposure
    codes = np.array([0.0, 0.0, 1.0, 1.0])
    exposure = np.array([1.0, 3.0, 10.0, 30.0])
    y = np.array([1.0, 5.0, 4.0, 12.0])
    w = np.array([1.0, 1.0, 2.0, 1.0])
    value, weight = statistic_inputs(POISSON, y, w, np.log(exposure))
    mean_exposure = np.sum(w * exposure) / np.sum(w)
    np.testing.assert_allclose(weight, w * exposure / mean_exposure)
    np.testing.assert_allclose(value, y / exposure)
    enc, *_ = _fit("greedy_ts", codes[:, None], y, [2], w=w, dist=POISSON,
                   offset=np.log(exposure))
    rate = np.array([6.0 / 4.0, 20.0 / 50.0])                   # sum(w y) / sum(w E)
    prior = 26.0 / 54.0
    a = mean_exposure                                           # one row of mean exposure
    expected = (rate * np.array([4.0, 50.0]) + a * prior) / (np.array([4.0, 50.0]) + a)
    np.testing.assert_allclose(enc.prior, prior)
    np.testing.assert_allclose(enc.transform(np.array([[0.0], [1.0]]))[:, 0], expected)


@pytest.mark.parametrize("zero_one", ["bernoulli", "adaboost", "huberized"])
def test_an_identity_link_offset_is_subtracted_and_a_0_1_responses_offset_unused(zero_one):
    # huberized's response scale is its link ("identity"), but its response is 0/1:
    # the statistic is a level rate, which y - offset was not
    y, w, offset = np.array([1.0, 0.0, 1.0]), np.ones(3), np.array([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(statistic_inputs(GAUSSIAN, y, w, offset)[0], y - offset)
    value, weight = statistic_inputs(get_distribution(zero_one), y, w, offset)
    np.testing.assert_array_equal(value, y)
    np.testing.assert_array_equal(weight, w)


def _weighted_frame(n=400, seed=4):
    import pandas as pd

    rng = np.random.default_rng(seed)
    g = rng.choice(list("abcdef"), n)
    x = rng.normal(size=n)
    exposure = rng.uniform(0.5, 2.0, n)
    return pd.DataFrame({"g": g, "x": x, "w": rng.uniform(0.5, 2.0, n), "e": np.log(exposure),
                         "y": (rng.random(n) < 0.3 + 0.1 * (g == "a")).astype(float),
                         "count": rng.poisson(exposure * (1 + (g == "b")))})


@pytest.mark.parametrize("call", [
    dict(formula="y ~ g + x", distribution="bernoulli", weights="w", changed="w"),
    dict(formula="count ~ g + x + offset(e)", distribution="poisson", changed="e"),
])
def test_validation_rows_weights_and_offsets_do_not_move_the_statistics(call):
    # the statistics read the training rows only: the validation rows' responses never
    # moved them, and now neither do their weights (the statistics' weights were R's
    # normalisation over all rows) nor their exposures (the mean exposure)
    from pygbm import gbm

    call = dict(call)
    changed = call.pop("changed")
    df = _weighted_frame()
    other = df.copy()
    valid = np.arange(len(df)) >= len(df) // 2
    other.loc[valid, changed] = other.loc[valid, changed] * 10 + (changed == "e") * 2
    kw = dict(n_trees=5, interaction_depth=2, categorical="ordered_ts", train_fraction=0.5,
              random_state=1, **call)
    a, b = gbm(data=df, **kw), gbm(data=other, **kw)
    n = a.n_train
    # (to rounding: the weights are normalised over all rows, then over the training rows)
    np.testing.assert_allclose(a.ts_encoder.transform(a.data.x[:n]),
                               b.ts_encoder.transform(b.data.x[:n]), rtol=1e-13)
    np.testing.assert_allclose(a.fit[:n], b.fit[:n], rtol=1e-10)


def test_a_rows_own_response_never_enters_its_ordered_statistic():
    # exclusive running sums: not even the last bits of a row's statistic move with its
    # own response (a cumsum less the row left it there, with weights in most rows)
    rng = np.random.default_rng(5)
    n = 300
    codes, w = rng.integers(0, 4, n), rng.uniform(0.1, 3.0, n)
    y, order = rng.normal(size=n), rng.permutation(n)
    base = ordered_statistic(codes, y, w, order, 0.0, 1.0)
    for row in rng.choice(n, 40, replace=False):
        other = y.copy()
        other[row] += 7.3
        assert ordered_statistic(codes, other, w, order, 0.0, 1.0)[row] == base[row]


def test_an_offset_without_a_finite_exposure_is_refused():
    with pytest.raises(ValueError, match="offset"):
        statistic_inputs(POISSON, np.array([1.0, 2.0]), np.ones(2), np.array([0.0, 800.0]))


def test_gbm_more_continues_a_poisson_fit_with_exposure_exactly():
    import pandas as pd

    from pygbm import gbm, gbm_more

    rng = np.random.default_rng(5)
    n = 600
    df = pd.DataFrame({"g": pd.Categorical(rng.choice(list("abcdefgh"), n)),
                       "x": rng.normal(size=n), "e": rng.uniform(0.1, 10.0, n)})
    df["y"] = rng.poisson(df.e * np.exp(0.3 * df.x + (df.g == "a")))
    kw = dict(distribution="poisson", categorical="ordered_ts", interaction_depth=2,
              train_fraction=0.8, random_state=1)
    formula = "y ~ g + x + offset(log(e))"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = gbm(formula, df, n_trees=30, **kw)
        more = gbm_more(gbm(formula, df, n_trees=20, **kw), 10)
    np.testing.assert_allclose(more.valid_error, whole.valid_error, rtol=1e-12)
    np.testing.assert_allclose(more.fit, whole.fit, rtol=1e-12)
    # the statistic is the level's rate per unit of exposure, not its mean count
    table = whole.ts_encoder.level_table("g")
    train = df.iloc[: whole.n_train]
    rate_a = train.y[train.g == "a"].sum() / train.e[train.g == "a"].sum()
    assert table.statistic.iloc[0] == pytest.approx(rate_a, rel=0.05)


def test_permutations_share_the_buckets_of_the_columns_they_encode_alike():
    # the binned mode buckets every permutation's training rows; only the ordered
    # statistics differ between them, the other columns are bucketed once
    rng = np.random.default_rng(8)
    n = 2000
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 8, n), rng.integers(0, 4, n)])
    y = (rng.random(n) < 0.3 + 0.05 * (x[:, 1] < 3)).astype(float)
    names = ["num", "ord", "greedy"]
    _, _, _, schedule = _call(
        {"ord": "ordered_ts", "greedy": "greedy_ts"}, x, y, np.ones(n), n, names,
        np.array([0, 8, 4]), np.zeros(3, dtype=int), BERNOULLI, 64,
        np.random.default_rng(1), n_permutations=3)
    views = [schedule.data(r) for r in range(schedule.n_views + 1)]
    assert schedule.shared_bins.columns == frozenset({0, 2})
    for j in (0, 2):
        assert all(v.cuts[list(v.cont).index(j)] is views[0].cuts[list(views[0].cont).index(j)]
                   for v in views)
    assert not np.array_equal(views[0].xt[1], views[1].xt[1])


def _fit_with_missing_level():
    """A gaussian fit with a target-statistics predictor ``s`` whose missing values
    have a response far from the rest (so the missing values' statistic is far from
    the prior) and a native factor ``c``."""
    import pandas as pd

    import pygbm

    rng = np.random.default_rng(3)
    n = 300
    data = pd.DataFrame({"s": rng.choice(["a", "b", "c"], n), "c": rng.choice(["u", "v"], n),
                         "x": rng.normal(size=n)})
    data.loc[:59, "s"] = None
    data["y"] = data.x + np.where(data.s.isna(), 10.0, 0.0) + rng.normal(size=n)
    fit = pygbm.gbm("y ~ s + c + x", data, distribution="gaussian", n_trees=20,
                    interaction_depth=2, random_state=1, categorical={"s": "ordered_ts"})
    return fit, data


def test_unseen_level_of_a_target_statistic_is_said_to_take_the_prior():
    """predict gives a level never seen in training the prior (docs/ordered_target_statistics.md),
    not the missing values' statistic: the warning said "treated as missing"."""
    fit, data = _fit_with_missing_level()
    new = data.iloc[[100, 100, 100]].assign(s=["zz", None, "a"], c=["w", "u", "u"])
    with pytest.warns(UserWarning, match=r"newdata has levels not seen in training, treated "
                      r"as missing: c: \['w'\]; and given the target statistics' prior "
                      r"\(categorical=\): s: \['zz'\]"):
        link = fit.predict(new, n_trees=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = fit.ts_encoder.transform(fit._design(new))
    assert engine[0, 0] == fit.ts_encoder.prior != engine[1, 0]
    assert link[0] != link[1]


def test_interact_gbm_gives_an_unseen_level_of_a_target_statistic_the_prior_as_predict():
    """interact_gbm coded an unseen label NaN, so a target statistic took the
    missing values' statistic where predict takes the prior."""
    import pygbm

    fit, data = _fit_with_missing_level()
    rows = data.iloc[60:160].copy()
    unseen = rows.assign(s=np.where(np.arange(100) % 2 == 0, "zz", rows.s))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coded = fit._design(unseen)    # the prior's code: after the training levels
    assert (coded[::2, 0] == fit.ts_encoder.n_levels[0]).all()
    with pytest.warns(UserWarning, match=r"data has levels not seen in training, given the "
                      r"target statistics' prior \(categorical=\): s: \['zz'\]"):
        h = pygbm.interact_gbm(fit, unseen, ["s", "x"], n_trees=20)
    assert h == pygbm.interact_gbm(fit, coded, ["s", "x"], n_trees=20)
    missing = rows.assign(s=np.where(np.arange(100) % 2 == 0, None, rows.s))
    assert h != pygbm.interact_gbm(fit, missing, ["s", "x"], n_trees=20)
