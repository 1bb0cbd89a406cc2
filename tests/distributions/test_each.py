"""Every registered distribution against its own deviance (sklearn ``_loss`` style).

* the working response is proportional to minus the per-row derivative of the
  deviance: ``z_j = c * (-(W / w_j) d deviance / d f_j)`` with ``W`` the
  deviance's normalising weight (all weights; event weights for coxph) and a
  per-distribution constant ``c`` (``GRADIENT_SCALE`` below: 1/2 where R's
  deviance is -2 log-likelihood or squared error, -1 where R's working
  response is the plain derivative (adaboost, huberized));
* ``fit_leaves`` lowers the deviance in every node, and is the exact argmin
  where the estimate is exact (gaussian mean, laplace median, quantile
  quantile, poisson log-ratio);
* ``init_f`` is the argmin of the deviance over constants where R's InitF is
  exact;
* ``bag_improvement`` is the out-of-bag deviance decrease (times ``c``);
* bad responses raise ValueError naming the response ``y``.
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import (FitContext, Leaves, Targets, available_distributions,
                                 get_distribution)

GRADIENT_SCALE = {"gaussian": 0.5, "bernoulli": 0.5, "poisson": 0.5, "coxph": 0.5,
                  "laplace": 1.0, "quantile": 1.0, "tdist": 1.0,
                  "adaboost": -1.0, "huberized": -1.0}
SPECS = {"quantile": {"name": "quantile", "alpha": 0.3}}
#: the fit these single-output checks belong to (R exact math; no state)
CTX = FitContext()
N = 60
N_NODES = 3


def make(name):
    return get_distribution(SPECS.get(name, name))


def data(name, seed=0, offset=True):
    """Random rows suited to the distribution: y, f, offset, w, misc."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=N)
    f = 0.3 * x + 0.1 * rng.normal(size=N)
    o = 0.2 * rng.normal(size=N) if offset else None
    w = rng.uniform(0.5, 2.0, size=N)
    w = w * N / w.sum()
    misc = None
    if name in ("bernoulli", "adaboost", "huberized"):
        y = (rng.uniform(size=N) < 1 / (1 + np.exp(-x))).astype(float)
        f = 0.4 * f
    elif name == "poisson":
        y = rng.poisson(np.exp(0.5 + 0.3 * x)).astype(float)
    elif name == "coxph":
        y = np.sort(rng.exponential(np.exp(-0.5 * x)))[::-1].copy()
        misc = (rng.uniform(size=N) < 0.7).astype(float)
    else:
        y = 2.0 + x + rng.standard_t(4, size=N)
    return y, f, o, w, misc


def deviance_weight(name, w, misc):
    return np.sum(w[misc == 1]) if name == "coxph" else np.sum(w)


# multinomial (K outputs) and pairwise (groups) have their own test modules
@pytest.fixture(params=[n for n in available_distributions()
                        if n not in ("multinomial", "pairwise")])
def name(request):
    return request.param


def test_working_response_is_scaled_negative_derivative(name):
    d = make(name)
    for offset in (False, True):
        if name == "huberized" and offset:
            continue  # R's deviance tests its linear part on f alone (see docstring)
        y, f, o, w, misc = data(name, seed=1, offset=offset)
        inbag = np.ones(N, dtype=bool)
        z = d.negative_gradient(Targets(y, o, w, misc), f, inbag, CTX)
        h = 1e-6
        eye = np.eye(N) * h
        deriv = np.array([(d.deviance(Targets(y, o, w, misc), f + eye[j], CTX)
                           - d.deviance(Targets(y, o, w, misc), f - eye[j], CTX)) / (2 * h)
                          for j in range(N)])
        expected = GRADIENT_SCALE[name] * -(deviance_weight(name, w, misc) / w) * deriv
        assert np.allclose(z, expected, rtol=1e-5, atol=1e-6), name


def _nodes(seed=3):
    rng = np.random.default_rng(seed)
    node = rng.integers(0, N_NODES, size=N)
    inbag = rng.uniform(size=N) < 0.8
    return node, inbag


def _leaves(d, y, f, o, w, misc, node, inbag, min_obs=1):
    z = d.negative_gradient(Targets(y, o, w, misc), f, inbag, CTX)
    node_n = np.bincount(node[inbag], minlength=N_NODES)
    wz = np.bincount(node[inbag], weights=(w * z)[inbag], minlength=N_NODES)
    ws = np.bincount(node[inbag], weights=w[inbag], minlength=N_NODES)
    grow = wz / ws
    leaves = Leaves(node, N_NODES, node_n, grow, min_obs)
    return d.fit_leaves(Targets(y, o, w, misc), f, z, leaves, inbag, CTX), grow, node_n


def _node_dev(d, y, f, o, w, misc, rows):
    return d.deviance(Targets(y, o, w, misc).rows(rows), f[rows], CTX)


def test_fit_leaves_lowers_node_deviance(name):
    d = make(name)
    # R's huberized leaf estimate ignores the offset, so test it without one
    y, f, o, w, misc = data(name, seed=2, offset=name != "huberized")
    node, inbag = _nodes()
    leaves, grow, _ = _leaves(d, y, f, o, w, misc, node, inbag)
    if name == "coxph":   # one joint Newton step: the total in-bag deviance drops
        rows = inbag
        before = _node_dev(d, y, f, o, w, misc, rows)
        after = _node_dev(d, y, f + leaves[node], o, w, misc, rows)
        assert after < before
        return
    # R's huberized estimate sum(w g) / sum(w h) is about twice a Newton step
    # on the quadratic part (it can overshoot); half of it lowers the deviance
    step = 0.5 if name == "huberized" else 1.0
    for k in range(N_NODES):
        rows = inbag & (node == k)
        before = _node_dev(d, y, f, o, w, misc, rows)
        after = _node_dev(d, y, f + step * leaves[k], o, w, misc, rows)
        assert after < before, (name, k)


EXACT = ("gaussian", "laplace", "quantile", "poisson")


@pytest.mark.parametrize("dname", EXACT)
def test_fit_leaves_exact_argmin(dname):
    d = make(dname)
    y, f, o, w, misc = data(dname, seed=4)
    node, inbag = _nodes(5)
    leaves, grow, _ = _leaves(d, y, f, o, w, misc, node, inbag)
    for k in range(N_NODES):
        rows = inbag & (node == k)
        dev = lambda c: _node_dev(d, y, f + c, o, w, misc, rows)  # noqa: E731
        best = dev(leaves[k])
        for delta in (1e-3, 1e-2, 0.1, 1.0):
            assert best <= dev(leaves[k] + delta) + 1e-12
            assert best <= dev(leaves[k] - delta) + 1e-12
    if dname == "poisson":   # stationarity: sum w (y - exp(F + c)) = 0 per node
        F = f + o
        for k in range(N_NODES):
            rows = inbag & (node == k)
            assert abs(np.sum(w[rows] * (y[rows] - np.exp(F[rows] + leaves[k])))) < 1e-9


def test_min_obs_rule(name):
    """R's node-size rule: laplace/quantile/tdist keep the growing-time mean
    below n.minobsinnode, coxph gives such nodes 0, gaussian never refits,
    the others always refit."""
    d = make(name)
    y, f, o, w, misc = data(name, seed=6)
    node, inbag = _nodes(7)
    big = int(np.bincount(node[inbag]).max()) + 1
    leaves, grow, _ = _leaves(d, y, f, o, w, misc, node, inbag, min_obs=big)
    refit, _, _ = _leaves(d, y, f, o, w, misc, node, inbag, min_obs=1)
    if name in ("laplace", "quantile", "tdist", "gaussian"):
        assert np.array_equal(leaves, grow)
    elif name == "coxph":
        assert np.array_equal(leaves, np.zeros(N_NODES))
        assert refit[-1] == 0.0 and np.all(refit[:-1] != 0)   # last node fixed at 0
    else:
        assert np.array_equal(leaves, refit)


def test_init_f_is_argmin_where_exact(name):
    d = make(name)
    for offset in (False, True):
        y, f, o, w, misc = data(name, seed=8, offset=offset)
        f0 = d.init_f(Targets(y, o, w, misc), CTX)
        dev = lambda c: d.deviance(Targets(y, o, w, misc), np.full(N, c), CTX)  # noqa: E731
        if name in ("huberized", "tdist") or (name == "bernoulli" and offset):
            # R's InitF is not the argmin here (a class-weight ratio / a
            # scaled M-estimate / R's Newton steps with a signed stop); it still beats 0 or is close
            assert np.isfinite(f0)
            continue
        if name == "coxph":
            assert f0 == 0.0 and np.isclose(dev(0.0), dev(1.7))   # shift-invariant
            continue
        for delta in (1e-4, 1e-2, 0.5):
            assert dev(f0) <= dev(f0 + delta) + 1e-12
            assert dev(f0) <= dev(f0 - delta) + 1e-12


def _offset_case(seed, low, high, prevalence, n=40):
    """Offsets (3 decimals, so that R reads the same numbers) and 0/1 responses."""
    rng = np.random.default_rng(seed)
    offset = np.round(rng.uniform(low, high, n), 3)
    y = (rng.uniform(size=n) < prevalence).astype(float)
    return y, offset


#: R 2.1.8's bernoulli initF with an offset (gbm.fit on _offset_case, R 4.2.2,
#: gbm 2.1.8.1): R's Newton iterations go on while the step is above 1e-4, a
#: signed test. None: R's iterations overshoot (7.79 then -69.9: R's initF is
#: -62.07, worse than 0), and pygbm takes the exact maximiser instead.
BERNOULLI_OFFSET_INIT_R = {
    # steps 0.0477, -0.00013: the first step is positive, so R takes a second
    "positive_then_negative": ((1, -0.5, 0.0, 0.6), 0.047572265366153041),
    # step -1.07: a first step that is not positive ends the iterations
    "negative": ((2, 0.0, 0.5, 0.4), -1.0725778155799435),
    # step -10.25 from large offsets: R stops there, better than 0 (R's value)
    "large_negative": ((4, 2.0, 3.0, 0.3), -10.254734593048255),
    "overshoot": ((3, -3.0, -2.0, 0.7), None),
}


@pytest.mark.parametrize("case", sorted(BERNOULLI_OFFSET_INIT_R))
def test_bernoulli_offset_init_is_rs(case):
    """R's initF with an offset: Newton steps from 0 while the step is above
    1e-4 (not |step|, not a truncated |step|: pygbm stopped once |step| < 1
    and was off by the second step where the first one was positive)."""
    args, r_init = BERNOULLI_OFFSET_INIT_R[case]
    y, o = _offset_case(*args)
    w = np.ones_like(y)
    f0 = make("bernoulli").init_f(Targets(y, o, w, None), CTX)
    if r_init is not None:
        assert f0 == pytest.approx(r_init, rel=1e-13)
    else:
        p = 1 / (1 + np.exp(-(o + f0)))
        assert abs(np.sum(w * (y - p))) < 1e-9


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not available")
def test_bernoulli_offset_init_live_r():
    """The same cases' initF from a live R."""
    cases = [c for c in sorted(BERNOULLI_OFFSET_INIT_R) if BERNOULLI_OFFSET_INIT_R[c][1]]
    data = [_offset_case(*BERNOULLI_OFFSET_INIT_R[c][0]) for c in cases]
    script = "suppressMessages(library(gbm))\n" + "".join(
        f"y <- c({', '.join(f'{v:g}' for v in y)}); o <- c({', '.join(f'{v:.3f}' for v in o)})\n"
        "fit <- gbm.fit(data.frame(x = seq_along(y)), y, offset = o, distribution = "
        "'bernoulli', n.trees = 1, bag.fraction = 1, verbose = FALSE)\n"
        "cat(sprintf('%.17g', fit$initF), '\\n')\n" for y, o in data)
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    for (y, o), r_init in zip(data, out):
        f0 = make("bernoulli").init_f(Targets(y, o, np.ones_like(y), None), CTX)
        assert f0 == pytest.approx(float(r_init), rel=1e-13)


def test_bernoulli_offset_init_where_r_newton_diverges():
    """A large offset: R's first Newton step is about -20, its second overshoots
    until every p rounds to 1 and the next step divides by 0 (a ZeroDivisionError
    here before); the initial value solves the score equation instead."""
    d = make("bernoulli")
    rng = np.random.default_rng(4)
    o = rng.uniform(3.0, 4.5, 300)
    y = (rng.uniform(size=300) < 0.35).astype(float)
    w = np.ones(300)
    f0 = d.init_f(Targets(y, o, w, None), CTX)
    p = 1 / (1 + np.exp(-(o + f0)))
    assert np.isfinite(f0)
    assert abs(np.sum(w * (y - p))) < 1e-9
    with pytest.raises(ValueError, match="every response .* is 1"):
        d.init_f(Targets(np.ones(300), o + 40.0, w, None), CTX)


BAG_SCALE = {"gaussian": 1.0, "laplace": 1.0, "quantile": 1.0, "tdist": 1.0,
             "adaboost": 1.0, "bernoulli": 0.5, "poisson": 0.5, "coxph": 0.5}


@pytest.mark.parametrize("dname", sorted(BAG_SCALE))
def test_bag_improvement_is_oob_deviance_decrease(dname):
    d = make(dname)
    offset = dname != "coxph"   # R's coxph BagImprovement uses F = 0 (see coxph.py)
    y, f, o, w, misc = data(dname, seed=10, offset=offset)
    if dname == "coxph":
        f = np.zeros(N)
    node, inbag = _nodes(11)
    fadj = np.array([0.3, -0.2, 0.1])[node]
    shrink = 0.5
    imp = d.bag_improvement(Targets(y, o, w, misc), f, fadj, inbag, shrink, CTX)
    oob = ~inbag
    before = _node_dev(d, y, f, o, w, misc, oob)
    after = _node_dev(d, y, f + shrink * fadj, o, w, misc, oob)
    assert imp == pytest.approx(BAG_SCALE[dname] * (before - after), rel=1e-10, abs=1e-12)


def test_huberized_bag_improvement_r_denominator():
    """R 2.1.8 leaves the quadratic-part rows out of the denominator: with
    every out-of-bag row in the quadratic part the improvement is inf."""
    d = make("huberized")
    y, f, o, w, misc = data("huberized", seed=12, offset=False)
    f = np.full(N, 0.2)                       # all margins in (-1, 1)
    node, inbag = _nodes(13)
    fadj = np.array([0.3, -0.2, 0.1])[node]
    imp = d.bag_improvement(Targets(y, None, w), f, fadj, inbag, 1.0, CTX)
    assert np.isinf(imp)
    f = f.copy()
    f[::3] = np.where(y[::3] == 1, -2.0, 2.0)  # some rows in the linear part
    imp = d.bag_improvement(Targets(y, None, w), f, fadj, inbag, 1.0, CTX)
    assert np.isfinite(imp)


@pytest.mark.parametrize("dname, y, match", [
    ("bernoulli", [0, 1, 2], r"bernoulli needs a response y in \[0, 1\].*from 0\.0 to 2\.0"),
    ("bernoulli", [0.5, -0.1], r"bernoulli needs a response y in \[0, 1\].*from -0\.1 to 0\.5"),
    ("bernoulli", ["a", "b", "c"], r"bernoulli needs a response y coded 0/1.*3 distinct"),
    ("adaboost", [0.0, 0.5, 1.0], r"adaboost needs a response y coded 0/1"),
    ("huberized", ["a", "b", "c"], r"huberized needs a response y.*3 distinct"),
    ("poisson", [1.0, -1.0, 3.0], r"poisson needs a non-negative.*response y"),
    ("poisson", [1.0, 1.5, 3.0], r"poisson needs an integer.*response y"),
    ("gaussian", [1.0, np.nan], r"response y has 1 missing"),
    ("laplace", [1.0, np.inf], r"response y has 1 infinite"),
    ("quantile", ["a", "b"], r"numeric response y"),
    ("coxph", [[1.0, 1.0], [2.0, 2.0]], r"event status of the response y coded 0/1"),
    ("coxph", [[np.nan, 1.0], [2.0, 0.0]], r"survival time has 1 missing"),
    ("gaussian", [[1.0, 2.0]], r"one-dimensional response y"),
])
def test_bad_responses_name_y(dname, y, match):
    with pytest.raises(ValueError, match=match):
        make(dname).check_response(np.array(y, dtype=object if isinstance(y[0], str) else None))


def test_good_responses_are_coded():
    b = make("bernoulli")
    assert b.check_response(np.array([True, False])).tolist() == [1.0, 0.0]
    assert b.check_response(np.array(["no", "yes", "no"])).tolist() == [0.0, 1.0, 0.0]
    import pandas as pd
    c = pd.Categorical(["pos", "neg"], categories=["pos", "neg"])
    assert b.check_response(c).tolist() == [0.0, 1.0]     # first level = 0, as R
    assert make("poisson").check_response([0, 2, 5]).tolist() == [0.0, 2.0, 5.0]
    s = make("coxph").check_response(np.array([[5.0, 1], [3.0, 0]]))
    assert s.shape == (2, 2)


def test_quantile_accepts_unequal_weights():
    """R refuses unequal weights for quantile (it lacks a weighted quantile);
    pygbm has one, so every distribution accepts them."""
    for name in ("quantile", "gaussian", "laplace", "tdist"):
        make(name).check_weights(np.array([1.0, 2.0, 1.0]))
    q = make("quantile")
    y = np.array([1.0, 2.0, 3.0, 4.0])
    # the weighted quantile moves towards the heavy rows
    light = q.init_f(Targets(y, None, np.ones(4)), CTX)
    heavy = q.init_f(Targets(y, None, np.array([1.0, 1.0, 1.0, 10.0])), CTX)
    assert heavy > light


def test_oob_average_weights_out_of_bag_rows_only():
    """R's BagImprovement average over the out-of-bag rows; in-bag values do
    not enter it, not even when they are not finite; NaN without such rows."""
    from pygbm.distributions._common import oob_average

    rng = np.random.default_rng(0)
    values, w = rng.normal(size=200), rng.uniform(0.5, 2.0, 200)
    inbag = rng.random(200) < 0.5
    want = np.sum((w * values)[~inbag]) / np.sum(w[~inbag])
    assert oob_average(values, w, inbag) == pytest.approx(want, rel=1e-13)
    spoiled = values.copy()
    spoiled[np.flatnonzero(inbag)[:3]] = [np.inf, -np.inf, np.nan]
    assert oob_average(spoiled, w, inbag) == pytest.approx(want, rel=1e-13)
    assert np.isnan(oob_average(values, w, np.ones(200, dtype=bool)))


def _coxph_zero_weight_latest_events():
    """60 rows whose three latest times are events of weight 0 (status s), and
    the same rows with those three censored (s0)."""
    rng = np.random.default_rng(5)
    n = 60
    df = pd.DataFrame({"x": np.round(rng.normal(size=n), 3),
                       "t": np.round(rng.exponential(size=n), 3) + 0.001 * np.arange(n)})
    df["s"] = (rng.uniform(size=n) < 0.7).astype(int)
    latest = np.argsort(-df.t.to_numpy())[:3]
    df["w"] = 1.0
    df.loc[latest, ["w", "s"]] = [0.0, 1]
    df["s0"] = df.s
    df.loc[latest, "s0"] = 0
    return df


#: R 2.1.8.1's train.error for the censored version (s0) of those rows; with the
#: zero-weight events (s) R's risk sets at them are empty and its whole fit is
#: NaN (train.error) and 0 (every prediction)
COXPH_ZERO_WEIGHT_R_TRAIN_ERROR = [6.0839209313199323, 6.0800017623081386,
                                   6.0758152574195758]


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_coxph_zero_weight_events_count_as_censored(engine):
    """An event of weight 0 adds nothing: the fit is the one where it is
    censored (R's, whose numbers are below), not R's NaN."""
    df = _coxph_zero_weight_latest_events()
    fits = [pygbm.gbm(f"Surv(t, {s}) ~ x", data=df, distribution="coxph", weights="w",
                      n_trees=3, bag_fraction=1, n_minobsinnode=5, engine=engine)
            for s in ("s", "s0")]
    assert np.allclose(fits[0].train_error, COXPH_ZERO_WEIGHT_R_TRAIN_ERROR, rtol=1e-12)
    assert np.array_equal(fits[0].train_error, fits[1].train_error)
    assert np.array_equal(fits[0].predict(df, n_trees=3), fits[1].predict(df, n_trees=3))


def test_coxph_takes_negative_times_as_r():
    # refused before ("non-negative survival times"); R's gbm fits them (log-times,
    # days from a reference date): the partial likelihood reads only their order, so
    # log-times give the fit of the times, bit for bit
    rng = np.random.default_rng(2)
    x = rng.normal(size=(200, 2))
    t = rng.exponential(size=200) * np.exp(-x[:, 0])
    s = (rng.random(200) < 0.7).astype(float)
    kw = dict(distribution="coxph", n_trees=10, shrinkage=0.1, bag_fraction=1)
    fit = pygbm.gbm_fit(x, pygbm.Surv(np.log(t), s), **kw)
    assert np.log(t).min() < 0
    np.testing.assert_array_equal(fit.fit, pygbm.gbm_fit(x, pygbm.Surv(t, s), **kw).fit)
