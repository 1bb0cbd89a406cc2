"""distribution = "multinomial": Friedman's K-class boosting, done right.

Checked here: the softmax gradient and deviance, the Newton terminal-node
step, probabilities that sum to 1 with class labels, a 2-class multinomial
equal to bernoulli's fit, the same per-iteration loss as scikit-learn's
GradientBoostingClassifier (same algorithm, no subsampling), stratified cv,
relative influence and partial dependence per class and overall, and the bad
inputs. The test log loss against scikit-learn and LightGBM on the full
letter data is measured by benchmarks/multiclass_letter.py.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import FitContext, Leaves, Targets
from pygbm.distributions.multinomial import MAX_STEP, Multinomial, softmax

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def letter():
    d = pd.read_csv(DATA / "letter.csv")
    return d.iloc[:1600].reset_index(drop=True), d.iloc[1600:2200].reset_index(drop=True)


@pytest.fixture(scope="module")
def small_fit(letter):
    train, _ = letter
    sub = train[train.lettr.isin(list("ABCDE"))].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = pygbm.gbm("lettr ~ .", sub, n_trees=15, interaction_depth=3, shrinkage=0.2,
                        bag_fraction=0.5, cv_folds=3, random_state=2)
    return fit, sub


# ----------------------------------------------------------------- the distribution
def test_response_coding():
    d = Multinomial()
    y = np.array(["b", "a", "c", "a"])
    codes = d.check_response(y)
    ctx = FitContext(classes=d.response_classes(y))
    assert codes.tolist() == [1, 0, 2, 0] and ctx.n_outputs == 3
    assert list(ctx.classes) == ["a", "b", "c"]
    y = pd.Series(pd.Categorical(["x", "y"], categories=["z", "y", "x"]))
    assert d.check_response(y).tolist() == [1, 0]
    assert list(d.response_classes(y)) == ["y", "x"]   # unused levels dropped, level order kept
    # codes of a factor response: the classes are its labels
    assert list(d.response_classes(np.array([2, 0, 2]), ["u", "v", "w"])) == ["u", "w"]
    assert vars(d) == {"splits": "gradient"}           # the instance keeps no fit state
    with pytest.raises(ValueError, match="at least 2 classes"):
        Multinomial().check_response(np.array(["a", "a"]))
    with pytest.raises(ValueError, match="missing"):
        Multinomial().check_response(np.array([1.0, np.nan, 2.0]))


def test_an_integer_response_is_labelled_by_integers_in_gbm_as_in_gbm_fit():
    """gbm() reads an integer response as floats: its classes were 1.0, 2.0, 3.0
    (the columns of predict, partial_dependence and relative_influence), where
    gbm_fit on the same response and R's as.factor label them 1, 2, 3."""
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"a": rng.normal(size=90), "k": np.repeat([1, 2, 3], 30)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = pygbm.gbm("k ~ a", d, distribution="multinomial", n_trees=3, n_minobsinnode=5)
        by_array = pygbm.gbm_fit(d[["a"]], d["k"], distribution="multinomial", n_trees=3,
                                 n_minobsinnode=5)
    assert fit.classes.dtype == by_array.classes.dtype == np.int64
    assert list(fit.predict(d.head(1), n_trees=3).columns) == [1, 2, 3]
    assert list(Multinomial().response_classes(np.array([2.5, 1.0]))) == [1.0, 2.5]


def _started(rng, n, K):
    """A multinomial with random classes, link values and weights, after
    ``start_iteration``: (distribution, targets, F, fit context)."""
    d = Multinomial()
    codes = rng.integers(0, K, n)
    y = d.check_response(codes)
    ctx = FitContext(classes=d.response_classes(codes))
    F = rng.normal(size=(n, K))
    t = Targets(y, None, rng.uniform(0.5, 2, n))
    d.start_iteration(t, F, ctx)
    return d, t, F, ctx


def test_gradient_is_minus_half_the_deviance_derivative():
    rng = np.random.default_rng(0)
    n, K = 30, 4
    d, t, F, ctx = _started(rng, n, K)
    eps = 1e-6
    for k in range(K):
        z = d.negative_gradient(t, F, None, ctx, k=k)
        for i in (0, 7, 19):
            Fp, Fm = F.copy(), F.copy()
            Fp[i, k] += eps
            Fm[i, k] -= eps
            one = lambda G: d.deviance(t.rows(slice(i, i + 1)), G[i:i + 1], ctx)  # noqa
            assert z[i] == pytest.approx(-0.5 * (one(Fp) - one(Fm)) / (2 * eps), rel=1e-6)


def test_newton_leaves_and_oob_improvement():
    rng = np.random.default_rng(1)
    n, K = 40, 3
    d, t, F, ctx = _started(rng, n, K)
    y, w = t.y, t.w
    p = softmax(F)
    node = rng.integers(0, 3, n)
    inbag = rng.random(n) < 0.6
    z = d.negative_gradient(t, F, inbag, ctx, k=1)
    leaves = d.fit_leaves(t, F, z, Leaves(node, 3, None, None, 1), inbag, ctx, k=1)
    for j in range(3):
        m = (node == j) & inbag
        want = (K - 1) / K * np.sum(w[m] * z[m]) / np.sum(w[m] * p[m, 1] * (1 - p[m, 1]))
        assert leaves[j] == pytest.approx(np.clip(want, -MAX_STEP, MAX_STEP))
    # the iteration's improvement: its K steps together (here one step per class),
    # the exact change of the out-of-bag log-likelihood
    steps = rng.normal(size=(n, K))
    steps[:, 1] = leaves[node]
    gain = d.bag_improvement(t, F, steps, inbag, 0.1, ctx)
    F2 = F + 0.1 * steps
    ll = lambda G: np.log(softmax(G)[np.arange(n), y.astype(int)])  # noqa: E731
    oob = ~inbag
    assert gain == pytest.approx(np.sum(w[oob] * (ll(F2) - ll(F))[oob]) / np.sum(w[oob]),
                                 rel=1e-12)


def test_two_classes_out_of_bag_improvement_is_bernoullis():
    # the classes' gains summed counted half the joint curvature for K = 2, so the
    # improvement exceeded bernoulli's and gbm_perf(method="OOB") could differ; the
    # iteration's two mirrored steps +-a are bernoulli's step 2a on F_1 - F_0
    from pygbm.distributions import get_distribution

    rng = np.random.default_rng(4)
    n = 50
    d, t, F, ctx = _started(rng, n, 2)
    inbag = rng.random(n) < 0.5
    a = rng.normal(size=n) * 3
    gain = d.bag_improvement(t, F, np.column_stack([-a, a]), inbag, 0.1, ctx)
    bern = get_distribution("bernoulli")
    want = bern.bag_improvement(Targets(t.y, None, t.w), F[:, 1] - F[:, 0], 2 * a, inbag,
                                0.1, ctx)
    assert gain == pytest.approx(want, rel=1e-12)


def test_init_f_is_centred_log_share():
    d = Multinomial()
    codes = np.array([0, 0, 1, 2, 2, 2])
    ctx = FitContext(classes=d.response_classes(codes))
    f0 = d.init_f(Targets(d.check_response(codes), None, np.ones(6)), ctx)
    assert np.isclose(f0.sum(), 0) and np.allclose(softmax(f0[None, :])[0], [2 / 6, 1 / 6, 3 / 6])


# ----------------------------------------------------------------- fits
def test_probabilities_sum_to_one_with_labels(small_fit):
    fit, sub = small_fit
    assert fit.num_classes == 5 and list(fit.classes) == list("ABCDE")
    prob = fit.predict(sub.head(20), n_trees=15, type="response")
    assert isinstance(prob, pd.DataFrame) and list(prob.columns) == list("ABCDE")
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, rtol=1e-12)
    link = fit.predict(sub.head(20), n_trees=15)
    np.testing.assert_allclose(prob, softmax(link.to_numpy()))
    many = fit.predict(sub.head(20), n_trees=[5, 15], type="response")
    assert many.shape == (20, 5, 2)
    np.testing.assert_allclose(many[:, :, 1], prob)
    np.testing.assert_allclose(fit.fit, fit.predict(None, n_trees=15).to_numpy(), atol=1e-12)
    accuracy = np.mean(prob.to_numpy().argmax(axis=1) == sub.lettr.head(20).map("ABCDE".index))
    assert accuracy > 0.8
    assert "5 classes (5 trees per iteration): A, B, C, D, E" in repr(fit)
    assert len(fit.trees) == 15 * 5 and fit.n_trees == 15


def test_two_classes_agree_with_bernoulli():
    d = pd.read_csv(DATA / "pima2.csv")
    x, y = d.drop(columns="diabetes"), d.diabetes.to_numpy()
    kw = dict(n_trees=40, interaction_depth=3, shrinkage=0.1, bag_fraction=1, n_train=600)
    b = pygbm.gbm_fit(x, y, distribution="bernoulli", **kw)
    m = pygbm.gbm_fit(x, np.where(y == 1, "pos", "neg"), distribution="multinomial", **kw)
    np.testing.assert_allclose(m.fit[:, 1] - m.fit[:, 0], b.fit, atol=1e-10)
    np.testing.assert_allclose(m.train_error, b.train_error, rtol=1e-10)
    np.testing.assert_allclose(m.valid_error, b.valid_error, rtol=1e-10)
    np.testing.assert_allclose(m.predict(x, n_trees=40, type="response")["pos"],
                               b.predict(x, n_trees=40, type="response"), atol=1e-12)


def test_two_classes_are_not_said_to_be_coded_0_1():
    """A two-class multinomial models both classes: gbm() said "coded 'neg' = 0, 'pos' = 1
    (the second level is modelled)", bernoulli's message; it still says so for bernoulli."""
    import warnings

    d = pd.read_csv(DATA / "pima2.csv").head(200)
    d["outcome"] = np.where(d.pop("diabetes") == 1, "pos", "neg")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = pygbm.gbm("outcome ~ glucose + age", d, distribution="multinomial", n_trees=2)
    assert list(fit.classes) == ["neg", "pos"]
    with pytest.warns(pygbm.GBMMessage, match=r"coded 'neg' = 0, 'pos' = 1 \(the second"):
        pygbm.gbm("outcome ~ glucose + age", d, distribution="bernoulli", n_trees=2)


def test_same_loss_path_as_sklearn(letter):
    sklearn = pytest.importorskip("sklearn.ensemble")
    train, _ = letter
    x, y = train.drop(columns="lettr"), train.lettr.to_numpy()
    sk = sklearn.GradientBoostingClassifier(n_estimators=10, learning_rate=0.2,
                                            max_leaf_nodes=4, min_samples_leaf=10,
                                            random_state=0).fit(x.to_numpy(float), y)
    fit = pygbm.gbm_fit(x, y, distribution="multinomial", n_trees=10, interaction_depth=3,
                        shrinkage=0.2, bag_fraction=1, n_minobsinnode=10)
    # scikit-learn reports the mean -log p; the deviance is twice that. Same trees:
    # they agree to rounding (~1e-15)
    np.testing.assert_allclose(fit.train_error, 2 * sk.train_score_, rtol=1e-8)
    prob = fit.predict(x, n_trees=10, type="response")
    np.testing.assert_allclose(prob[list(sk.classes_)], sk.predict_proba(x.to_numpy(float)),
                               atol=1e-10)


def test_guessed_for_a_categorical_response(letter):
    train, _ = letter
    sub = train[train.lettr.isin(list("XYZ"))]
    with pytest.warns(UserWarning, match="assuming multinomial"):
        fit = pygbm.gbm("lettr ~ x.box + y.box + width", sub, n_trees=2)
    assert fit.distribution.name == "multinomial" and list(fit.classes) == ["X", "Y", "Z"]


def test_stratified_cv(small_fit):
    fit, sub = small_fit
    assert fit.cv_fitted.shape == (len(sub), 5) and np.isfinite(fit.cv_error).all()
    counts = pd.crosstab(fit.fold_id, sub.lettr)
    assert counts.shape == (3, 5) and (counts.max() - counts.min()).max() <= 1
    assert fit.cv_error[-1] < fit.cv_error[0]


def test_relative_influence_per_class_and_overall(small_fit):
    fit, _ = small_fit
    per = fit.relative_influence(n_trees=15, per_class=True)
    overall = fit.relative_influence(n_trees=15)
    assert list(per.columns) == list("ABCDE")
    np.testing.assert_allclose(per.sum(axis=1), overall)
    a_trees = fit.trees[0::5]
    a = np.zeros(len(fit.var_names))
    for t in a_trees:
        np.add.at(a, t.split_var[t.split_var >= 0], t.error_reduction[t.split_var >= 0])
    np.testing.assert_allclose(per["A"], a)
    with pytest.raises(ValueError, match="multi-class"):
        pygbm.relative_influence(_single(), per_class=True)


def _single():
    d = pd.read_csv(DATA / "pima2.csv")
    return pygbm.gbm_fit(d[["glucose", "age"]], d.diabetes.to_numpy(), n_trees=2)


def test_partial_dependence_per_class(small_fit):
    fit, sub = small_fit
    pd_link = pygbm.partial_dependence(fit, "x.box", continuous_resolution=7)
    assert list(pd_link.columns) == ["x.box"] + list("ABCDE")
    pd_prob = pygbm.partial_dependence(fit, "x.box", continuous_resolution=7, type="response")
    np.testing.assert_allclose(pd_prob[list("ABCDE")].sum(axis=1), 1.0)
    np.testing.assert_allclose(pd_prob[list("ABCDE")], softmax(pd_link[list("ABCDE")].to_numpy()))
    one = pygbm.partial_dependence(fit, "x.box", continuous_resolution=7, class_="C")
    np.testing.assert_allclose(one["y"], pd_link["C"])
    # brute force for class C = weighted mean of its link predictions with x.box set
    brute = pygbm.partial_dependence(fit, "x.box", continuous_resolution=3, class_="C",
                                     method="brute_force")
    x = sub.drop(columns="lettr")
    for value, got in zip(brute["x.box"], brute["y"]):
        link = fit.predict(x.assign(**{"x.box": value}), n_trees=15)["C"]
        assert got == pytest.approx(link.mean(), rel=1e-10)
    ice = pygbm.partial_dependence(fit, "x.box", continuous_resolution=3, ice=True,
                                   ice_rows=4, type="response", random_state=0)
    np.testing.assert_allclose(ice[list("ABCDE")].sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="class_ must be one of"):
        pygbm.partial_dependence(fit, "x.box", class_="Q")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # one variable: one curve per class (R 2.1.8 joins them into one line), the class's
    # partial dependence each
    ax = pygbm.plot_gbm(fit, "x.box", continuous_resolution=7)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list("ABCDE")
    for line, label in zip(ax.get_lines(), "ABCDE"):
        np.testing.assert_array_equal(line.get_ydata(), pd_link[label])
    # two variables: a panel per class, on one colour scale
    panels = pygbm.plot_gbm(fit, ["x.box", "y.box"], continuous_resolution=3)
    assert [ax.get_title() for ax in panels] == [f"class {c}" for c in "ABCDE"]
    grid = pygbm.partial_dependence(fit, ["x.box", "y.box"], continuous_resolution=3)
    meshes = [ax.collections[0] for ax in panels]
    np.testing.assert_array_equal(np.sort(meshes[2].get_array().ravel()), np.sort(grid["C"]))
    assert len({(m.norm.vmin, m.norm.vmax) for m in meshes}) == 1
    # ICE curves: a panel per class, each with its class's curves and their mean
    panels = pygbm.plot_gbm(fit, "x.box", ice=True, ice_rows=4, continuous_resolution=3,
                            random_state=0)
    assert [ax.get_title() for ax in panels] == [f"class {c}" for c in "ABCDE"]
    curves = pygbm.partial_dependence(fit, "x.box", ice=True, ice_rows=4,
                                      continuous_resolution=3, random_state=0)
    np.testing.assert_array_equal(panels[1].get_lines()[-1].get_ydata(),
                                  curves["B"].to_numpy().reshape(4, 3).mean(axis=0))
    # three variables: one class at a time
    with pytest.raises(ValueError, match=r"for one or two variables; for three variables "
                                         r"give class_= \(one of \['A'"):
        pygbm.plot_gbm(fit, ["x.box", "y.box", "width"])
    pygbm.plot_gbm(fit, ["x.box", "y.box"], class_="C", continuous_resolution=3)
    plt.close("all")


def test_interaction_per_class(small_fit):
    fit, sub = small_fit
    h = pygbm.interact_gbm(fit, sub, ["x.box", "y.box"])
    assert list(h.index) == list("ABCDE") and ((h.fillna(0) >= 0) & (h.fillna(0) <= 1)).all()
    with warnings.catch_warnings(record=True) as caught:     # once, not once per class
        warnings.simplefilter("always")
        capped = pygbm.interact_gbm(fit, sub, ["x.box", "y.box"], n_trees=10 ** 6)
    assert sum("exceeds the number of trees" in str(w.message) for w in caught) == 1
    np.testing.assert_array_equal(capped.fillna(-1), h.fillna(-1))


def test_gbm_more_and_permutation_influence(small_fit):
    fit, sub = small_fit
    more = pygbm.gbm_more(fit, 5, random_state=1)
    assert more.n_trees == 20 and more.fit.shape == (len(sub), 5)
    perm = pygbm.permutation_influence(fit, n_trees=15, random_state=0)
    assert perm.shape == (len(fit.var_names),) and perm.max() > 0


# ----------------------------------------------------------------- bad input
def test_class_absent_from_a_training_fold(letter):
    train, _ = letter
    sub = train[train.lettr.isin(list("ABC"))].reset_index(drop=True)
    fold_id = np.where(sub.lettr == "C", 1, np.arange(len(sub)) % 2 + 2)
    with pytest.raises(ValueError, match="class 'C' has no training rows in cv fold 1"):
        pygbm.gbm("lettr ~ x.box + y.box", sub, distribution="multinomial", n_trees=2,
                  fold_id=fold_id)


def test_class_absent_from_the_training_part(letter):
    train, _ = letter
    sub = train[train.lettr.isin(list("ABC"))].sort_values("lettr").reset_index(drop=True)
    with pytest.raises(ValueError, match="class.*C.*no rows.*training"):
        pygbm.gbm("lettr ~ x.box + y.box", sub, distribution="multinomial", n_trees=2,
                  train_fraction=0.6)


def test_runaway_newton_steps_are_capped(monkeypatch):
    """A node of confidently wrong rows (p ~ 0 for their true class) sends the
    single Newton step (K-1)/K * sum z / sum p(1-p) towards 1/p ~ 1e14; the cap
    keeps it at MAX_STEP. Whole fits stay sane with it."""
    from pygbm.distributions import multinomial

    dist = pygbm.get_distribution("multinomial")
    codes = np.array([0, 1, 2] * 4)
    t = Targets(dist.check_response(codes), None, np.ones(12))
    ctx = FitContext(classes=dist.response_classes(codes))
    f = np.zeros((12, 3))
    f[:, 1] = 32.0                      # every row: class 1 almost surely (p0 ~ 1e-14)
    node = np.zeros(12, dtype=np.intp)
    inbag = np.ones(12, dtype=bool)
    dist.start_iteration(t, f, ctx)
    z = dist.negative_gradient(t, f, inbag, ctx, k=0)
    leaves = Leaves(node, 1, np.array([12]), np.array([z.mean()]), 5)
    capped = dist.fit_leaves(t, f, z, leaves, inbag, ctx, k=0)
    assert capped[0] == MAX_STEP
    monkeypatch.setattr(multinomial, "MAX_STEP", np.inf)
    assert dist.fit_leaves(t, f, z, leaves, inbag, ctx, k=0)[0] > 1e6
    monkeypatch.undo()
    data = pd.read_csv(DATA / "letter.csv").iloc[:3000]
    fit = pygbm.gbm("lettr ~ .", data, distribution="multinomial", n_trees=7,
                    interaction_depth=3, shrinkage=0.2, bag_fraction=0.5, cv_folds=3,
                    train_fraction=0.8, random_state=1)
    assert np.all(fit.cv_error < 5)
    leaves = np.concatenate([t.split_code_pred[t.split_var < 0] for t in fit.trees])
    assert np.abs(leaves).max() <= MAX_STEP * fit.shrinkage + 1e-12


@pytest.mark.parametrize("r_exact", [True, False])
def test_partition_gives_softmax_and_log_sum_exp(r_exact):
    """The fit's softmax and log-sum-exp (multinomial.partition, added class by
    class with the fit's exp) agree with SciPy's to rounding, with the C
    library's exp in R's exact mode (the compiled loop's) and NumPy's otherwise."""
    from scipy.special import logsumexp as scipy_logsumexp
    from scipy.special import softmax as scipy_softmax

    from pygbm._rmath import exp_r
    from pygbm.distributions.multinomial import partition

    ctx = FitContext(r_exact_math=r_exact)
    rng = np.random.default_rng(7)
    for scale in (0.01, 1.0, 30.0, 800.0):
        F = rng.normal(scale=scale, size=(50, 5))
        F[::7, 2] = F[::7, 0]                        # ties at the largest value
        M, e, S = partition(F, ctx.model_exp)
        np.testing.assert_allclose(e / S[:, None], scipy_softmax(F, axis=1), rtol=1e-13,
                                   atol=1e-300)
        np.testing.assert_allclose(M + np.log(S), scipy_logsumexp(F, axis=1), rtol=1e-14)
        want = exp_r(F - F.max(axis=1, keepdims=True)) if r_exact else None
        if want is not None:
            np.testing.assert_array_equal(e, want)
            np.testing.assert_array_equal(S, ((((want[:, 0] + want[:, 1]) + want[:, 2])
                                                + want[:, 3]) + want[:, 4]))


@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_gbm_more_codes_the_response_of_data_by_the_fits_levels(engine):
    # data given again as text, or as categories in another order, were coded by
    # their own levels: the classes swapped silently (a bernoulli fit too), and a
    # class the fit never had read past the link array in the compiled engine
    rng = np.random.default_rng(3)
    x = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y = np.where(x.a > 0.5, "hi", np.where(x.a < -0.5, "lo", "mid"))
    first = x.assign(y=pd.Categorical(y, categories=["mid", "lo", "hi"]))
    kw = dict(distribution="multinomial", keep_data=False, bag_fraction=1.0, engine=engine)
    whole = pygbm.gbm("y ~ a + b", first, n_trees=20, **kw)
    fit = pygbm.gbm("y ~ a + b", first, n_trees=10, **kw)
    for again in (x.assign(y=y.astype(object)), x.assign(y=pd.Categorical(y))):
        more = pygbm.gbm_more(fit, 10, data=again)
        np.testing.assert_array_equal(more.train_error, whole.train_error)
    other = y.astype(object)
    other[:10] = "zzz"
    with pytest.raises(ValueError, match=r"the response of data has level\(s\) \['zzz'\]"):
        pygbm.gbm_more(fit, 3, data=x.assign(y=other))
    yes_no = x.assign(y=pd.Categorical(np.where(x.a > 0, "yes", "no"), categories=["yes", "no"]))
    b = pygbm.gbm("y ~ a + b", yes_no, distribution="bernoulli", n_trees=10, keep_data=False,
                  bag_fraction=1.0, engine=engine)
    b_whole = pygbm.gbm("y ~ a + b", yes_no, distribution="bernoulli", n_trees=20,
                        keep_data=False, bag_fraction=1.0, engine=engine)
    text = yes_no.assign(y=yes_no.y.astype(str))
    np.testing.assert_array_equal(pygbm.gbm_more(b, 10, data=text).train_error,
                                  b_whole.train_error)
