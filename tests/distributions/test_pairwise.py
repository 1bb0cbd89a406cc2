"""distribution = "pairwise" (LambdaMART) against R gbm 2.1.8, and its rules.

R reference: tests/r_reference_pairwise/pairwise.json, written by
tests/r_reference_pairwise/make_fixtures.R with R's gbm() on
data/travel_mode.csv (210 groups of 4, group = individual) and on a simulated
set with 300 groups of 2..12 items (sim_groups.csv), every metric, cut-off
ranks, group weights, a validation part, bag_fraction = 1.

Ties: R breaks tied scores with noise from its own generator, which cannot be
reproduced, so every reference fit carries a continuous offset distinct
within each group: no two items of a group ever tie, the noise never decides a
rank, and the fits are compared exactly (1e-6 relative; they agree to ~1e-13):
the training IR measure (R's train.error) at every iteration, the validation
one, and the predictions after 1, 10 and 40 trees.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import FitContext, Leaves, Targets, get_distribution
from pygbm.distributions.pairwise import Pairwise
from pygbm.pairwise_rows import group_labels, r_levels
from pygbm.ranking import group_runs, ir_measure_conc, ir_measure_map, ir_measure_ndcg

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "r_reference_pairwise"
RTOL = 1e-6
RHS = {"travel_mode": "wait + vcost + travel + gcost + income + size + mode + offset(o)",
       "sim_groups": "x1 + x2 + x3 + x4 + offset(o)"}
FIXTURE = json.loads((REF / "pairwise.json").read_text())


def _data(name):
    if name == "travel_mode":
        d = pd.read_csv(ROOT / "data" / "travel_mode.csv")
        d["y"] = (d.choice == "yes").astype(float)
        d["g"] = d.individual.astype(str)
        d["o"] = FIXTURE["stamp"]["travel_offset"]
        return d
    return pd.read_csv(REF / "sim_groups.csv")


@pytest.fixture(scope="module")
def travel():
    return _data("travel_mode")


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_fit_matches_r(name):
    c = FIXTURE["cases"][name]
    ds = _data(c["data"]).iloc[c["rows"]].reset_index(drop=True)    # R's sorted rows
    dist = {"name": "pairwise", "group": "g", "metric": c["metric"],
            "max_rank": c["max_rank"]}
    kw = dict(n_trees=c["n_trees"], interaction_depth=c["interaction_depth"],
              shrinkage=c["shrinkage"], n_minobsinnode=c["n_minobsinnode"], bag_fraction=1.0)
    preds = [v.strip() for v in RHS[c["data"]].split("+")[:-1]]
    if c["train_fraction"] == 1:
        # gbm() with its own (random) group order: the order does not matter here
        fit = pygbm.gbm(f'{c["label"]} ~ {RHS[c["data"]]}', ds, distribution=dist,
                        weights="w" if c["weighted"] else None, random_state=3, **kw)
        newdata = ds.iloc[c["pred_rows"]]
    else:
        # R's group order decides the split: the rows as R sorted them, gbm_fit
        del dist["group"]
        fit = pygbm.gbm_fit(ds[preds], ds[c["label"]].to_numpy(float),
                            offset=ds.o.to_numpy(), distribution=dist, group=ds.g.to_numpy(),
                            n_train=c["n_train"], random_state=3, **kw)
        newdata = ds.iloc[c["pred_rows"]][preds]
        assert _rel(fit.valid_error, c["valid_error"]) < RTOL
    assert fit.init_f == c["init_f"] == 0
    assert _rel(fit.train_error, c["train_error"]) < RTOL
    pred = fit.predict(newdata, n_trees=c["pred_trees"])
    assert _rel(pred, c["pred"]) < RTOL


PERF_TIES = json.loads((REF / "perf_ties.json").read_text())


def _travel_fit(c, engine, **extra):
    """pygbm's fit of an R fixture's travel_mode case ``c`` (its label ``y``, and
    ``w`` as group weights when the case has them): group = individual,
    random_state = RRandom(the case's seed), bag.fraction 1 unless the case says."""
    d = pd.read_csv(ROOT / "data" / "travel_mode.csv")
    d["y"] = np.asarray(c["y"], dtype=float)
    if "w" in c:
        d["w"] = np.asarray(c["w"], dtype=float)
        extra["weights"] = "w"
    return pygbm.gbm(f'y ~ {c["rhs"]}', d,
                     distribution={"name": "pairwise", "metric": c["metric"],
                                   "group": "individual", **extra.pop("dist", {})},
                     n_trees=c["n_trees"], interaction_depth=c["interaction_depth"],
                     shrinkage=c["shrinkage"], n_minobsinnode=c["n_minobsinnode"],
                     bag_fraction=c.get("bag_fraction", 1.0),
                     train_fraction=c["train_fraction"],
                     random_state=pygbm.RRandom(c["fit_seed"]), engine=engine, **extra)


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("name", sorted(PERF_TIES["cases"]))
def test_errors_have_rs_bits_and_gbm_perf_picks_rs_iteration(name, engine):
    """The deviance sums the groups' measures left to right, as R: its train
    and validation errors to the last bit (perf_ties.json, sprintf("%a")), so
    which.min picks R's iteration where two iterations tie up to rounding
    (NumPy's pairwise sum picked 37, 40 and 40 where R picks 50, 51 and 36)."""
    c = PERF_TIES["cases"][name]
    assert PERF_TIES["stamp"]["gbm_version"] == "2.1.8.1"
    fit = _travel_fit(c, engine)
    assert fit.train_error.tolist() == [float.fromhex(v) for v in c["train_error"]]
    assert fit.valid_error.tolist() == [float.fromhex(v) for v in c["valid_error"]]
    assert pygbm.gbm_perf(fit, method="test", plot_it=False) == c["best_test"]


SPLIT_TIES = json.loads((REF / "split_ties.json").read_text())
TREE_COLUMNS = ("SplitVar", "SplitCodePred", "LeftNode", "RightNode", "MissingNode",
                "ErrorReduction", "Weight", "Prediction")


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("name", sorted(SPLIT_TIES["cases"]))
def test_trees_have_rs_bits_where_two_splits_give_the_same_rows(name, engine):
    """wait == 0 exactly when mode == "car" (travel_mode): the two splits tie up
    to rounding, so which one a tree takes depends on the working response's
    last bits. The lambdas are summed per row pair by pair in R's order (the
    worse row, then the better), map's swap cost adds the precisions between
    the two items one by one and its measure sums over the positives in rank
    order, as R: every tree, c.splits and error to the last bit
    (split_ties.json, make_split_ties_fixture.R). Before, graded ndcg / conc
    and map took the other split of a tie in some trees."""
    c = SPLIT_TIES["cases"][name]
    assert SPLIT_TIES["stamp"]["gbm_version"] == "2.1.8.1"
    fit = _travel_fit(c, engine, dist={"max_rank": c["max_rank"]})
    for i, tree in enumerate(c["trees"], start=1):
        got = pygbm.pretty_gbm_tree(fit, i_tree=i)
        for col in TREE_COLUMNS:
            want = [float.fromhex(v) if isinstance(v, str) else float(v) for v in tree[col]]
            assert got[col].astype(float).tolist() == want, (i, col)
    assert [list(map(int, s)) for s in fit.c_splits] == c["c_splits"]
    assert fit.train_error.tolist() == [float.fromhex(v) for v in c["train_error"]]
    assert fit.valid_error.tolist() == [float.fromhex(v) for v in c["valid_error"]]


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("name", sorted(SPLIT_TIES["bagged"]))
def test_weighted_errors_and_oob_improvement_have_rs_bits(name, engine):
    """With group weights R's deviance terms are w * measure / max and its
    out-of-bag improvement's w * (new - old) / max, both summed group by
    group (pygbm had w * (measure / max), and NumPy's pairwise sum for the
    improvement): train.error, valid.error and oobag.improve to the last bit
    (split_ties.json's weighted fits with bag.fraction = 0.5)."""
    c = SPLIT_TIES["bagged"][name]
    fit = _travel_fit(c, engine)
    assert fit.train_error.tolist() == [float.fromhex(v) for v in c["train_error"]]
    assert fit.valid_error.tolist() == [float.fromhex(v) for v in c["valid_error"]]
    assert np.asarray(fit.oobag_improve).tolist() == [float.fromhex(v)
                                                      for v in c["oobag_improve"]]


GROUP_ORDER = json.loads((REF / "group_order.json").read_text())


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("case", GROUP_ORDER["cases"], ids=lambda c: "+".join(c["group"]))
def test_groups_of_several_columns_text_or_missing_values_in_rs_order(case, engine):
    """gbm() orders the groups as R's factor() orders their pasted names (R's
    string order, not the characters' codes: "1:2" before "10:1", "aa" before
    "Ab"; a missing value the group "NA"; 8 not "8.0") before shuffling them, so
    which groups train, and every error, are R's (group_order.json, written by
    make_group_order_fixture.R; the order by code points gave other errors)."""
    c, meta = case, GROUP_ORDER
    assert meta["stamp"]["gbm_version"] == "2.1.8.1"
    d = pd.read_csv(REF / "group_order.csv")
    labels = group_labels(d, c["group"])
    levels, codes = r_levels(labels)
    assert levels.tolist() == c["levels"]
    assert (levels[codes] == labels).all()
    fit = pygbm.gbm("y ~ x", d, distribution={"name": "pairwise", "group": c["group"],
                                              "metric": "ndcg"},
                    n_trees=meta["n_trees"], interaction_depth=meta["interaction_depth"],
                    shrinkage=meta["shrinkage"], n_minobsinnode=meta["n_minobsinnode"],
                    bag_fraction=1.0, train_fraction=meta["train_fraction"],
                    random_state=pygbm.RRandom(meta["fit_seed"]), engine=engine)
    assert fit.n_train == c["n_train"]
    np.testing.assert_allclose(fit.train_error, [float.fromhex(v) for v in c["train_error"]],
                               rtol=RTOL)
    np.testing.assert_allclose(fit.valid_error, [float.fromhex(v) for v in c["valid_error"]],
                               rtol=RTOL)


def test_r_reference_covers_the_issue():
    cases = FIXTURE["cases"].values()
    assert {c["metric"] for c in cases} == {"conc", "ndcg", "map", "mrr"}
    assert {c["data"] for c in cases} == {"travel_mode", "sim_groups"}
    assert any(c["weighted"] for c in cases) and any(c["max_rank"] > 0 for c in cases)
    assert sum(c["train_fraction"] < 1 for c in cases) == 2
    sizes = group_runs(pd.read_csv(REF / "sim_groups.csv").g.to_numpy()).size
    assert sizes.size == 300 and sizes.min() == 2 and sizes.max() == 12


# --------------------------------------------------------------------- the measure
def _group_data(seed, n_groups=40, graded=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 9, n_groups)
    g = np.repeat(np.arange(1, n_groups + 1), sizes).astype(float)
    y = rng.integers(0, 4 if graded else 2, g.size).astype(float)
    order = np.lexsort((-y, g))
    return y[order], g[order], rng.normal(size=g.size)


def _context():
    """A fit's context with R's default tie-breaking noise generator."""
    return FitContext(noise_rng=np.random.default_rng(0))


def _brute_swap(dist, y, g, f):
    """|change of the measure| when each better/worse pair swaps ranks, by
    recomputing the measure after the swap."""
    L = dist.layout(Targets(y, None, np.ones_like(y), g), FitContext())
    from pygbm.ranking import ranks_within

    rank, order = ranks_within(f, L.runs)
    base = dist._measure(L, rank, order)
    out = []
    for a, b in zip(L.a, L.b):
        r2 = rank.copy()
        r2[a], r2[b] = rank[b], rank[a]
        o2 = np.lexsort((r2, L.runs.gid))
        out.append(abs(dist._measure(L, r2, o2)[L.runs.gid[a]] - base[L.runs.gid[a]]))
    return L, rank, order, np.array(out)


@pytest.mark.parametrize("metric,max_rank,graded", [("ndcg", 0, True), ("ndcg", 3, True),
                                                   ("conc", 0, True), ("conc", 0, False),
                                                   ("map", 0, False)])
def test_swap_cost_is_the_change_of_the_measure(metric, max_rank, graded):
    """R's |Delta Z| (src/pairwise.cpp) is exact for conc, ndcg and map."""
    y, g, f = _group_data(1, n_groups=25, graded=graded)
    dist = Pairwise(metric=metric, max_rank=max_rank)
    L, rank, order, brute = _brute_swap(dist, y, g, f)
    got = dist._swap_cost(L, rank, order, L.a, L.b)
    np.testing.assert_allclose(got, brute, rtol=1e-12, atol=1e-12)


def test_mrr_swap_cost_rule():
    """R's MRR |Delta Z|: only pairs whose negative item is above the top
    positive, or whose positive item is the top one, count: 1/r_neg - 1/r_top."""
    y = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    g = np.ones(5)
    f = np.array([0.1, 0.5, 0.9, 0.3, 0.0])   # ranks: 4, 2, 1, 3, 5; top positive: 2
    dist = Pairwise(metric="mrr")
    L = dist.layout(Targets(y, None, np.ones_like(y), g), FitContext())
    from pygbm.ranking import ranks_within

    rank, order = ranks_within(f, L.runs)
    got = dict(zip(zip(L.a, L.b), dist._swap_cost(L, rank, order, L.a, L.b)))
    assert got[(1, 2)] == pytest.approx(1 - 1 / 2)       # negative above the top
    assert got[(0, 2)] == pytest.approx(1 - 1 / 2)
    assert got[(1, 3)] == pytest.approx(1 / 2 - 1 / 3)   # the top positive moves down
    assert got[(0, 3)] == 0.0 and got[(0, 4)] == 0.0
    cut = Pairwise(metric="mrr", max_rank=2)
    L2 = cut.layout(Targets(y, None, np.ones_like(y), g), FitContext())
    got2 = dict(zip(zip(L2.a, L2.b), cut._swap_cost(L2, rank, order, L2.a, L2.b)))
    assert got2[(1, 3)] == pytest.approx(1 / 2)          # rank 3 is below the cut-off


@pytest.mark.parametrize("metric,func,graded", [("ndcg", ir_measure_ndcg, True),
                                                ("conc", ir_measure_conc, True),
                                                ("map", ir_measure_map, False)])
def test_deviance_is_one_minus_mean_ir_measure(metric, func, graded):
    y, g, f = _group_data(2, graded=graded)
    dist = Pairwise(metric=metric)
    per_group = func(y, f, group=g).to_numpy()
    ok = per_group >= 0
    assert dist.deviance(Targets(y, None, np.ones_like(y), g), f, _context()) == pytest.approx(
        1 - per_group[ok].mean(), rel=1e-12)


def test_lambda_gradients():
    y, g, f = _group_data(3)
    dist = Pairwise(metric="ndcg")
    runs = group_runs(g)
    inbag = np.isin(g, np.arange(1, 21))            # the first 20 groups
    t, ctx = Targets(y, None, np.ones_like(y), g), _context()
    z = dist.negative_gradient(t, f, inbag, ctx)
    _, h = dist._gradient(t, f, inbag, _context())
    assert np.allclose(np.add.reduceat(z, runs.start), 0.0)    # lambdas cancel in a group
    assert np.all(h >= 0) and np.all(z[~inbag] == 0) and np.all(h[~inbag] == 0)
    # pushing up the better items: positive lambda for the best of every group with pairs
    best = runs.start[(y[runs.start] > y[runs.start + runs.size - 1]) & inbag[runs.start]]
    assert np.all(z[best] > 0)
    # Newton leaf: sum(w z) / sum(w h)
    node = (f > 0).astype(int)
    leaves = dist.fit_leaves(t, f, z, Leaves(node, 2, None, None, 1), inbag, ctx)
    for k in range(2):
        m = (node == k) & inbag
        assert leaves[k] == pytest.approx(z[m].sum() / h[m].sum())


# --------------------------------------------------------------------- gbm() behaviour
FORMULA = "y ~ wait + vcost + travel + gcost + income + size + mode + offset(o)"


def _fit(travel, **kw):
    args = dict(distribution={"name": "pairwise", "group": "g", "metric": "ndcg"},
                n_trees=20, interaction_depth=2, bag_fraction=1.0, random_state=1)
    args.update(kw)
    return pygbm.gbm(FORMULA, travel, **args)


def test_split_and_folds_keep_groups_whole(travel):
    fit = _fit(travel, train_fraction=0.7, cv_folds=3, bag_fraction=0.5)
    groups = travel.g.to_numpy()
    train = np.zeros(len(groups), dtype=bool)
    train[fit.ord_group[:fit.n_train]] = True
    assert not set(groups[train]) & set(groups[~train])
    assert len(set(groups[train])) == round(0.7 * 210)
    folds = pd.Series(fit.fold_id[train]).groupby(groups[train]).nunique()
    assert (folds == 1).all() and set(fit.fold_id[train]) == {1, 2, 3}
    assert np.all(fit.fold_id[~train] == 0) and np.isnan(fit.cv_fitted[~train]).all()
    assert np.isfinite(fit.cv_error).all() and np.isfinite(fit.valid_error).all()
    assert np.isfinite(fit.oobag_improve).all()


def test_bags_hold_whole_groups(travel, monkeypatch):
    seen = []
    original = Pairwise.negative_gradient

    def spy(self, t, f, bag, ctx):
        runs = group_runs(t.misc)
        seen.append(np.add.reduceat(bag.astype(int), runs.start) % runs.size)
        return original(self, t, f, bag, ctx)

    monkeypatch.setattr(Pairwise, "negative_gradient", spy)
    # the NumPy loop calls the method (the compiled loop, the same bags, does not)
    _fit(travel, bag_fraction=0.5, n_trees=5, engine="numpy")
    assert len(seen) == 5 and all(np.all(s == 0) for s in seen)


def test_fit_in_original_row_order_and_gbm_more(travel):
    shuffled = travel.sample(frac=1.0, random_state=4).reset_index(drop=True)
    fit40 = _fit(shuffled, n_trees=40)
    fit20 = pygbm.gbm_more(_fit(shuffled, n_trees=20), 20)
    np.testing.assert_allclose(fit20.train_error, fit40.train_error, rtol=1e-10)
    np.testing.assert_allclose(fit20.fit, fit40.fit, rtol=1e-10, atol=1e-12)
    # fit holds the rows in data order: the predictions plus the offset
    pred = fit40.predict(shuffled, n_trees=40)
    np.testing.assert_allclose(fit40.fit, pred, atol=1e-12)
    prob = fit40.predict(shuffled, n_trees=40, type="response")
    np.testing.assert_allclose(prob, 1 / (1 + np.exp(-pred)))


def test_print_names_metric(travel):
    fit = _fit(travel, distribution={"name": "pairwise", "group": "g", "metric": "mrr",
                                     "max_rank": 2}, n_trees=3)
    assert "pairwise (metric=mrr, max.rank=2) loss function" in repr(fit)


def test_group_weights_must_be_constant(travel):
    w = np.ones(len(travel))
    w[0] = 2.0
    with pytest.raises(ValueError, match="same weight"):
        _fit(travel, weights=w)


# --------------------------------------------------------------------- bad input
def test_pairwise_without_group(travel):
    with pytest.raises(ValueError, match="group"):
        _fit(travel, distribution={"name": "pairwise", "metric": "ndcg"})
    with pytest.raises(ValueError, match="group"):
        pygbm.gbm_fit(travel[["wait", "vcost"]], travel.y.to_numpy(),
                      distribution={"name": "pairwise", "metric": "ndcg"}, n_trees=2)
    with pytest.raises(ValueError, match="does not occur in data: nope"):
        _fit(travel, distribution={"name": "pairwise", "group": "nope", "metric": "ndcg"})


@pytest.mark.parametrize("metric", ["map", "mrr"])
def test_map_mrr_need_binary_labels(travel, metric):
    graded = travel.assign(y=travel.y * 2 + (travel.wait > 30))
    with pytest.raises(ValueError, match=f"{metric}.*0 or 1"):
        _fit(graded, distribution={"name": "pairwise", "group": "g", "metric": metric})


def test_parameter_checks():
    with pytest.warns(UserWarning, match="No metric specified, using 'ndcg'"):
        assert get_distribution({"name": "pairwise", "group": "g"}).metric == "ndcg"
    with pytest.raises(ValueError, match="not supported"):
        Pairwise(metric="dcg")
    with pytest.raises(ValueError, match="max_rank cannot be specified"):
        Pairwise(metric="conc", max_rank=3)
    with pytest.raises(ValueError, match="max_rank"):
        Pairwise(metric="ndcg", max_rank=-1)
    assert Pairwise(metric="ndcg", **{"max.rank": 4}).max_rank == 4
    with pytest.raises(ValueError, match="non-negative"):
        Pairwise(metric="ndcg").check_response(np.array([1.0, -1.0]))


def test_gbm_fit_groups_must_not_straddle_n_train(travel):
    with pytest.raises(ValueError, match="whole groups"):
        pygbm.gbm_fit(travel[["wait", "vcost"]], travel.y.to_numpy(),
                      distribution={"name": "pairwise", "metric": "ndcg"},
                      group=travel.g.to_numpy(), n_train=402, n_trees=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="only used by distribution 'pairwise'"):
            pygbm.gbm_fit(travel[["wait", "vcost"]], travel.y.to_numpy(),
                          distribution="bernoulli", group=travel.g.to_numpy(), n_trees=2)


def test_cv_folds_without_a_group_are_fitted_as_r_fits_them():
    # 3 groups dealt over 5 folds: R fits all 5 (a fold without rows trains on every
    # row, draws its seed and adds 0 to cv.error) and reports cv.folds 5; pygbm dropped
    # the empty folds, drew fewer seeds, and its main fit left R's stream. R 4.2.2,
    # gbm 2.1.8.1: set.seed(1); d <- data.frame(g = rep(1:3, each = 30), x = runif(90),
    # z = runif(90)); d$y <- round(d$x + runif(90), 1), written by write.csv and read
    # back; set.seed(2); gbm(y ~ x + z, d, list(name = "pairwise", metric = "ndcg",
    # group = "g"), n.trees = 3, shrinkage = 0.1, bag.fraction = 1, cv.folds = 5,
    # n.minobsinnode = 2)
    from pygbm.frontend.r_functions import r_round

    r = pygbm.RRandom(1)
    x, z, u = r.runif(90), r.runif(90), r.runif(90)
    csv = np.vectorize(lambda v: float(f"{v:.15g}"))          # write.csv's 15 digits
    d = pd.DataFrame({"g": np.repeat([1, 2, 3], 30), "x": csv(x), "z": csv(z),
                      "y": np.asarray(r_round(x + u, 1), dtype=float)})
    m = pygbm.gbm("y ~ x + z", d, distribution={"name": "pairwise", "metric": "ndcg",
                                                "group": "g"},
                  n_trees=3, shrinkage=0.1, bag_fraction=1, cv_folds=5, n_minobsinnode=2,
                  random_state=pygbm.RRandom(2))
    assert m.cv_folds == 5
    np.testing.assert_allclose(m.train_error, [0.0748937562411157, 0.0653435506536842,
                                               0.0849055585838162], rtol=1e-12)
    np.testing.assert_allclose(m.cv_error, [0.0902261184011380, 0.0809435129647962,
                                            0.0665708874152386], rtol=1e-12)


def test_permutation_influence_with_rs_stream_is_rs():
    # R's permutation.test.gbm: gbm.loss calls perf.pairwise, whose tie-breaking runif
    # is drawn from the one stream after the permutation's sample(), less train.error at
    # n.trees; pygbm drew the noise from a copy of the fit's generator (0.0906, 0.0200).
    # R 4.2.2, gbm 2.1.8.1: set.seed(1); n <- 400; d <- data.frame(g = rep(1:20, each =
    # 20), x1 = runif(n), x2 = runif(n)); d$y <- round(2 * d$x1 + d$x2 + runif(n)),
    # written by write.csv and read back; set.seed(3); m <- gbm(y ~ x1 + x2, d,
    # list(name = "pairwise", metric = "ndcg", group = "g"), n.trees = 20,
    # shrinkage = 0.1, interaction.depth = 2, bag.fraction = 1); set.seed(99);
    # permutation.test.gbm(m, 20)
    from pygbm.frontend.r_functions import r_round

    r = pygbm.RRandom(1)
    x1, x2, u = r.runif(400), r.runif(400), r.runif(400)
    csv = np.vectorize(lambda v: float(f"{v:.15g}"))          # write.csv's 15 digits
    d = pd.DataFrame({"g": np.repeat(np.arange(1, 21), 20), "x1": csv(x1), "x2": csv(x2),
                      "y": np.asarray(r_round(2 * x1 + x2 + u, 0), dtype=float)})
    m = pygbm.gbm("y ~ x1 + x2", d, distribution={"name": "pairwise", "metric": "ndcg",
                                                  "group": "g"},
                  n_trees=20, shrinkage=0.1, interaction_depth=2, bag_fraction=1,
                  random_state=pygbm.RRandom(3))
    got = pygbm.permutation_influence(m, 20, random_state=pygbm.RRandom(99))
    np.testing.assert_allclose(got.to_numpy(), [0.0875189850741468, 0.0154750588173819],
                               rtol=1e-12)
