"""Newton (second-order) splits, ``splits="newton"``: the growth response, the
option's checks, and fits (the split they choose, both engines the same)."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import FitContext, Targets, get_distribution
from pygbm.distributions._newton import MIN_HESSIAN
from pygbm.engine.compiled import available

NEWTON = ("bernoulli", "poisson")


def _targets(name, n=50, seed=0):
    rng = np.random.default_rng(seed)
    f = rng.normal(scale=2.0, size=n)
    y = (rng.random(n) < 0.3).astype(float) if name == "bernoulli" \
        else rng.poisson(2.0, size=n).astype(float)
    return Targets(y, rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)), f


@pytest.mark.parametrize("name", NEWTON)
def test_growth_response_is_the_newton_response(name):
    t, f = _targets(name)
    ctx = FitContext()
    dist = get_distribution({"name": name, "splits": "newton"})
    z = dist.negative_gradient(t, f, np.ones(f.shape[0], bool), ctx)
    F = f + t.offset
    mean = 1.0 / (1.0 + np.exp(-F)) if name == "bernoulli" else np.exp(F)
    h = mean * (1.0 - mean) if name == "bernoulli" else mean
    gz, gw = dist.growth_response(t, f, z, ctx)
    np.testing.assert_allclose(gw, t.w * h, rtol=1e-12)
    np.testing.assert_allclose(gz, z / h, rtol=1e-12)
    # R's splits: the working response and the very weights array (the engine's
    # integer fast path needs it)
    plain = get_distribution(name)
    gz, gw = plain.growth_response(t, f, z, ctx)
    assert gz is z and gw is t.w


def test_bernoulli_hessian_keeps_its_precision_near_certainty():
    dist = get_distribution({"name": "bernoulli", "splits": "newton"})
    f = np.array([40.0, -40.0, 800.0])
    t = Targets(np.array([1.0, 0.0, 1.0]), None, np.ones(3))
    h = dist.hessian(t, f, None, FitContext())
    # 1 - p would round to 0 at F = 40; exp(-40) is the Hessian to 1e-17
    np.testing.assert_allclose(h[:2], np.exp(-40.0), rtol=1e-12)
    assert h[2] == 0.0                       # overflowed: floored in growth_response
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no overflow warning
        z = dist.negative_gradient(t, f, np.ones(3, bool), FitContext())
        gz, gw = dist.growth_response(t, f, z, FitContext())
    assert gw[2] == MIN_HESSIAN and np.isfinite(gz).all()


@pytest.mark.parametrize("name", NEWTON + ("multinomial",))
def test_the_option_is_named_and_checked(name):
    plain, newton = get_distribution(name), get_distribution({"name": name,
                                                              "splits": "newton"})
    assert plain.params() == {} and plain.gradient_splits          # R's list, unchanged
    assert newton.params() == {"splits": "newton"} and not newton.gradient_splits
    assert newton.spec() == {"name": name, "splits": "newton"}
    assert newton.display_name == f"{name} (Newton splits)"
    assert newton != plain and newton == get_distribution(newton.spec())
    with pytest.raises(ValueError, match=r"splits must be one of .*got 'second'"):
        get_distribution({"name": name, "splits": "second"})


def test_distributions_without_the_option_refuse_it():
    with pytest.raises(ValueError, match="takes no parameters"):
        get_distribution({"name": "gaussian", "splits": "newton"})


def test_the_first_split_maximises_the_newton_gain():
    # an offset makes the rows' Hessians differ in the first tree: R's criterion and
    # Newton's then disagree, and the fit must take Newton's best split
    rng = np.random.default_rng(3)
    n = 400
    x = rng.uniform(size=n)
    offset = np.where(x < 0.5, 4.0, 0.0) + rng.normal(scale=0.1, size=n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-offset - np.sin(6 * x)))).astype(float)
    fits = {s: pygbm.gbm_fit(x[:, None], y, offset=offset, n_trees=1, interaction_depth=1,
                             n_minobsinnode=5, bag_fraction=1.0, shrinkage=1.0,
                             distribution={"name": "bernoulli", "splits": s}, progress=False)
            for s in ("gradient", "newton")}
    newton = fits["newton"]
    F = newton.init_f + offset
    p = 1.0 / (1.0 + np.exp(-F))
    wz, wh = y - p, p * (1.0 - p)
    order = np.argsort(x)
    xs, cz, ch = x[order], np.cumsum(wz[order]), np.cumsum(wh[order])
    k = np.arange(5, n - 5 + 1)                              # n_minobsinnode rows a side
    k = k[xs[k - 1] < xs[k]]
    gain = cz[k - 1] ** 2 / ch[k - 1] + (cz[-1] - cz[k - 1]) ** 2 / (ch[-1] - ch[k - 1])
    best = k[np.argmax(gain)]
    threshold = 0.5 * (xs[best - 1] + xs[best])
    assert newton.trees[0].split_code_pred[0] == pytest.approx(threshold, rel=1e-12)
    assert fits["gradient"].trees[0].split_code_pred[0] != pytest.approx(threshold, rel=1e-6)


@pytest.mark.skipif(not available(), reason="numba is not installed")
@pytest.mark.parametrize("name, max_bins, costs, loop", [
    ("bernoulli", None, None, "boost_exact"), ("poisson", None, None, "boost_exact"),
    ("bernoulli", None, {"a": 1.0, "c": 3.0}, "boost_exact"),
    ("bernoulli", 5000, None, "boost_binned"),       # a bucket per value: R's exp
    ("poisson", 64, None, "boost_binned")])          # binned: the C library's exp too
def test_both_engines_give_the_same_fit(monkeypatch, name, max_bins, costs, loop):
    from pygbm.engine.compiled import boosting

    calls = []
    for kernel in ("boost_exact", "boost_binned"):
        def counting(*args, _kernel=kernel, _original=getattr(boosting, kernel)):
            calls.append(_kernel)
            return _original(*args)
        monkeypatch.setattr(boosting, kernel, counting)
    rng = np.random.default_rng(1)
    n = 600
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(list("pqrs"), size=n),
                      "c": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                      "e": rng.uniform(1.0, 3.0, size=n)})
    link = d.a - 1.0 + (d.b == "q") + np.log(d.e)
    d["y"] = ((rng.random(n) < 1 / (1 + np.exp(-link))) if name == "bernoulli"
              else rng.poisson(np.exp(link))).astype(float)
    formula = "y ~ a + b + c + offset(log(e))"
    settings = dict(n_trees=40, interaction_depth=3, shrinkage=0.1, train_fraction=0.8,
                    max_bins=max_bins, random_state=7, feature_costs=costs,
                    cegb_tradeoff=0.05 if costs else 1.0, progress=False)
    fits = [pygbm.gbm(formula, d, distribution={"name": name, "splits": "newton"},
                      engine=engine, **settings)
            for engine in ("numpy", "numba")]
    assert set(calls) == ({loop} if loop else set())
    a, b = fits
    np.testing.assert_array_equal(a.train_error, b.train_error)
    np.testing.assert_array_equal(a.valid_error, b.valid_error)
    np.testing.assert_array_equal(a.oobag_improve, b.oobag_improve)
    np.testing.assert_array_equal(a.predict(d, n_trees=40), b.predict(d, n_trees=40))
    plain = pygbm.gbm(formula, d, distribution=name, **settings)
    assert not np.array_equal(plain.train_error, a.train_error)


def test_the_option_is_kept_by_gbm_more_and_pickling():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(300, 2))
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * x[:, 0]))).astype(float)
    fit = pygbm.gbm_fit(x, y, distribution={"name": "bernoulli", "splits": "newton"},
                        n_trees=20, random_state=1, progress=False)
    again = pickle.loads(pickle.dumps(fit))
    assert again.distribution == fit.distribution
    np.testing.assert_array_equal(again.predict(x, n_trees=20), fit.predict(x, n_trees=20))
    more = pygbm.gbm_more(fit, 10)
    assert more.distribution.splits == "newton"
    whole = pygbm.gbm_fit(x, y, distribution={"name": "bernoulli", "splits": "newton"},
                          n_trees=30, random_state=1, progress=False)
    np.testing.assert_array_equal(more.predict(x, n_trees=30), whole.predict(x, n_trees=30))
    assert "bernoulli (Newton splits) loss function" in repr(fit)
    assert "bernoulli (Newton splits)" in str(fit.summary(plot_it=False))
    assert "bernoulli (Newton splits)" in fit._repr_html_()


@pytest.mark.parametrize("name", NEWTON)
def test_ordered_boosting_scores_newton_columns(name):
    """Ordered boosting with Newton splits: each fold position's columns are
    w z and w h at its fold's model (a leaf's body average is its Newton
    step, scored against the tail's gradients: the cosine score on Newton
    statistics), unpacked even with unit weights; the trees differ from
    the ordered ones of R's splits."""
    from pygbm.ordered.folds import fold_boundaries
    from pygbm.ordered.scheme import OrderedProblem
    from pygbm.ordered.spec import OrderedSpec
    from pygbm.ordered.support import SupportingModels

    n = 700
    rng = np.random.default_rng(3)
    y = (rng.random(n) < 0.3).astype(float) if name == "bernoulli" \
        else rng.poisson(2.0, size=n).astype(float)
    t = Targets(y, None, np.ones(n))
    dist = get_distribution({"name": name, "splits": "newton"})
    ctx = FitContext(r_exact_math=True)
    bounds = fold_boundaries(n)
    order = rng.permutation(n)
    approx = rng.normal(scale=0.5, size=(1, int(bounds[1:].sum())))
    models = SupportingModels(OrderedProblem(t, dist, ctx, 3, 5, OrderedSpec(1)), [order],
                              bounds, approx)
    cols = models.fold_columns(0)
    assert cols.width == 2
    k = bounds.shape[0] - 2                    # the last fold: every row, by position
    f = models.fold(0, k)
    tk = t.rows(order)
    z = dist.negative_gradient(tk, f, None, ctx)
    h = np.maximum(dist.hessian(tk, f, z, ctx), MIN_HESSIAN)
    np.testing.assert_allclose(cols.values[order, 2 * k] * cols.unit[k, 0], t.w * z,
                               rtol=1e-12, atol=1e-12 * np.abs(z).max())
    np.testing.assert_allclose(cols.values[order, 2 * k + 1] * cols.unit[k, 1], h,
                               rtol=1e-12, atol=1e-12 * h.max())

    a = rng.normal(size=n)
    eta = 1.5 * a if name == "bernoulli" else 0.5 * a
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float) if name == "bernoulli" \
        else rng.poisson(np.exp(eta)).astype(float)
    d = pd.DataFrame({"a": a, "b": rng.normal(size=n), "y": y})
    fits = [pygbm.gbm("y ~ a + b", d, distribution={"name": name, "splits": splits},
                      boosting_type="ordered", n_trees=10, interaction_depth=3,
                      random_state=1, progress=False)
            for splits in ("gradient", "newton")]
    assert fits[1].distribution.splits == "newton"
    assert not np.array_equal(fits[0].fit, fits[1].fit)


def test_a_distribution_with_the_option_needs_a_hessian():
    from pygbm.distributions._newton import NewtonSplits
    from pygbm.distributions.gaussian import Gaussian

    class NoHessian(NewtonSplits, Gaussian):
        pass

    with pytest.raises(TypeError, match="abstract method.*hessian"):
        NoHessian()
