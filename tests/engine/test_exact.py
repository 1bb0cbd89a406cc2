"""ExactSearch against a literal, one-row-at-a-time simulation of R's node search.

The oracle below scans the node's rows in R's presorted order (missing values
first), with R's running sums, minimum node size, monotone rule and
categorical level ordering, exactly as R gbm's C++ node search is documented
to work. It is slow and obviously sequential; the engine must choose the same
split with the same statistics.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.engine.data import TrainingData
from pygbm.engine.exact import ExactSearch
from pygbm.engine.split import Side, improvement


@pytest.fixture(autouse=True, params=["as-configured", "bounded-4", "bounded-16"])
def search_mode(request, force_bounded_search):
    """Every test of this module runs as configured (these nodes are small:
    the full computation) and with the bounded search forced, in blocks small
    enough for the test nodes to hold many."""
    if request.param != "as-configured":
        force_bounded_search(int(request.param.split("-")[1]))
    return request.param


def r_oracle(x, var_type, mono, z, w, rows, min_obs):
    """Best (gain, var, value-or-left-levels, left, right, missing) by R's scan."""
    wz = w * z
    tot_z = 0.0
    tot_w = 0.0
    for i in rows:                      # R sums the node in row order
        tot_z += wz[i]
        tot_w += w[i]
    n = len(rows)
    best = (0.0, None)
    for v in range(x.shape[1]):
        col = x[rows, v]
        order = sorted(range(n), key=lambda k: (not np.isnan(col[k]), col[k] if not np.isnan(col[k]) else 0, k))
        ls = lw = ms = mw = 0.0
        nl = nm = 0
        rs, rw, nr = tot_z, tot_w, n
        last = -np.inf
        groups = {}
        for k in order:
            i = rows[k]
            xv = col[k]
            if np.isnan(xv):
                ms += wz[i]; mw += w[i]; nm += 1
                rs -= wz[i]; rw -= w[i]; nr -= 1
                continue
            if var_type[v] == 0:
                ok_mono = mono[v] == 0 or mono[v] * (rs * lw - ls * rw) > 0
                if last != xv and nl >= min_obs and nr >= min_obs and ok_mono:
                    g = improvement(lw, rw, mw, ls, rs, ms)
                    if g > best[0]:
                        best = (g, (v, 0.5 * (last + xv), (ls, lw, nl), (rs, rw, nr),
                                    (ms, mw, nm)))
                ls += wz[i]; lw += w[i]; nl += 1
                rs -= wz[i]; rw -= w[i]; nr -= 1
                last = xv
            else:
                s, ww, c = groups.get(int(xv), (0.0, 0.0, 0))
                groups[int(xv)] = (s + wz[i], ww + w[i], c + 1)
        if var_type[v] > 0:
            levels = [lv for lv in range(var_type[v]) if groups.get(lv, (0, 0.0, 0))[1] != 0.0]
            means = {lv: groups[lv][0] / groups[lv][1] for lv in levels}
            levels.sort(key=lambda lv: means[lv])   # tests use distinct means
            for j in range(len(levels) - 1):
                s, ww, c = groups[levels[j]]
                ls += s; lw += ww; nl += c
                rs -= s; rw -= ww; nr -= c
                g = improvement(lw, rw, mw, ls, rs, ms)
                if nl >= min_obs and nr >= min_obs and g > best[0]:
                    best = (g, (v, sorted(levels[: j + 1]), (ls, lw, nl), (rs, rw, nr),
                                (ms, mw, nm)))
    return best


def make_case(seed, n=120, with_nan=True, weights=False, ties=False, categorical=False,
              monotone=False):
    rng = np.random.default_rng(seed)
    p = 4
    x = rng.normal(size=(n, p))
    if ties:
        x[:, 1] = np.round(x[:, 1] * 2)
    if with_nan:
        x[rng.random((n, p)) < 0.1] = np.nan
    var_type = np.zeros(p, dtype=int)
    if categorical:
        x[:, 3] = rng.integers(0, 6, n)
        x[rng.random(n) < 0.05, 3] = np.nan
        var_type[3] = 6
    mono = np.zeros(p, dtype=int)
    if monotone:
        mono[0], mono[2] = 1, -1
    z = x[:, 0] * 1.5 - np.nan_to_num(x[:, 2]) + rng.normal(size=n)
    z = np.nan_to_num(z)
    if categorical:
        z += np.nan_to_num(x[:, 3]) * 0.7
    w = rng.uniform(0.5, 2.0, n) if weights else np.ones(n)
    return x, var_type, mono, z, w


CASES = [
    dict(), dict(with_nan=False), dict(weights=True), dict(ties=True),
    dict(categorical=True), dict(monotone=True),
    dict(weights=True, ties=True, categorical=True, monotone=True),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c) or "plain")
def test_root_split_matches_r_scan(case, seed):
    x, var_type, mono, z, w = make_case(seed, **case)
    min_obs = 7
    data = TrainingData(x, var_type, mono)
    unit = bool(np.all(w == 1))
    search = ExactSearch(data, z, w, unit, min_obs)
    rows = np.arange(x.shape[0])
    total = Side(float(np.cumsum(w * z)[-1]), float(np.cumsum(w)[-1]), len(rows))
    got = search.best(search.root(np.ones(len(rows), dtype=bool)), total)
    gain, want = r_oracle(x, var_type, mono, z, w, rows, min_obs)
    if want is None:
        assert got is None
        return
    v, value, left, right, missing = want
    assert got.var == v
    if var_type[v] == 0:
        assert got.value == value
    else:
        assert sorted(got.left_levels.tolist()) == value
    assert got.improvement == pytest.approx(gain, rel=1e-12)
    assert (got.left.n, got.right.n) == (left[2], right[2])
    np.testing.assert_allclose([got.left.sum_z, got.left.w, got.right.sum_z, got.right.w],
                               [left[0], left[1], right[0], right[1]], rtol=1e-12)
    if missing[2]:
        assert got.missing.n == missing[2]
        np.testing.assert_allclose([got.missing.sum_z, got.missing.w], missing[:2],
                                   rtol=1e-12)
    else:
        # no missing row: the missing child starts with the parent's statistics
        assert (got.missing.n, got.missing.w) == (0, total.w)


def test_node_subset_and_bag():
    x, var_type, mono, z, w = make_case(11, n=200, categorical=True)
    data = TrainingData(x, var_type, mono)
    rng = np.random.default_rng(3)
    inbag = rng.random(200) < 0.6
    search = ExactSearch(data, z, w, True, 5)
    rows = np.flatnonzero(inbag)
    total = Side(float(np.cumsum(z[rows])[-1]), float(rows.size), rows.size)
    got = search.best(search.root(inbag), total)
    gain, want = r_oracle(x, var_type, mono, z, w, list(rows), 5)
    assert got.var == want[0]
    assert got.improvement == pytest.approx(gain, rel=1e-12)


def test_no_valid_split_when_node_too_small():
    x, var_type, mono, z, w = make_case(0, n=20, with_nan=False)
    data = TrainingData(x, var_type, mono)
    search = ExactSearch(data, z, w, True, 10)
    total = Side(float(z.sum()), 20.0, 20)
    # 10 + 10 is the only admissible split size, so at most one position per predictor
    got = search.best(search.root(np.ones(20, dtype=bool)), total)
    assert got is None or (got.left.n == 10 and got.right.n == 10)
    search = ExactSearch(data, z, w, True, 11)
    assert search.best(search.root(np.ones(20, dtype=bool)), total) is None


def test_improvement_formula_two_and_three_groups():
    # between-group sum of squares: sum_g S_g^2 / W_g - S^2 / W
    lw, rw, mw, ls, rs, ms = 3.0, 5.0, 2.0, 6.0, -5.0, 4.0
    S, W = ls + rs + ms, lw + rw + mw
    assert improvement(lw, rw, mw, ls, rs, ms) == pytest.approx(
        ls**2 / lw + rs**2 / rw + ms**2 / mw - S**2 / W)
    assert improvement(lw, rw, 0.0, ls, rs, 0.0) == pytest.approx(
        ls**2 / lw + rs**2 / rw - (ls + rs) ** 2 / (lw + rw))


def test_improvement_of_a_side_of_weight_0_is_nan_as_r():
    # R's 0 / 0 for a side holding rows of weight 0 only: NaN, never the best split;
    # the scalar path raised Python's ZeroDivisionError (the NumPy engine's fits)
    assert np.isnan(improvement(0.0, 5.0, 0.0, 0.0, -5.0, 0.0))
    assert np.isnan(improvement(3.0, 0.0, 2.0, 6.0, 0.0, 4.0))
    gains = improvement(np.array([0.0, 3.0]), np.array([5.0, 5.0]), 0.0,
                        np.array([0.0, 6.0]), np.array([-5.0, -5.0]), 0.0)
    assert np.isnan(gains[0]) and np.isfinite(gains[1])


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_only_split_with_a_side_of_weight_0_is_not_made_as_r(engine):
    # the one split point of x leaves rows of weight 0 only on its left: R 2.1.8.1
    # makes no split (train.error 1.0333... every iteration); the NumPy engine raised
    # ZeroDivisionError
    d = pd.DataFrame({"x": [0.0] * 6 + [1.0] * 6,
                      "y": [0.3, -1.2, 0.8, 2.0, -0.4, 1.1, 0.5, 1.9, -0.7, 0.2, 1.4, -0.9],
                      "w": [0.0] * 6 + [1.0] * 6})
    fit = pygbm.gbm("y ~ x", data=d, weights="w", distribution="gaussian", n_trees=3,
                    n_minobsinnode=2, bag_fraction=1, engine=engine)
    assert np.allclose(fit.train_error, 1.0333333333333334, rtol=1e-14)
    assert pygbm.pretty_gbm_tree(fit, 1).shape[0] == 1


def _tie_heavy_case(seed, n, mirror):
    """Two-valued responses (bernoulli-like residuals), discrete predictors and,
    with ``mirror``, a predictor that is another one reversed: many candidates
    whose gains are equal in exact arithmetic, so only R's rounding decides."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 12, size=(n, 4)).astype(float)
    x[:, 2] = rng.normal(size=n)
    if mirror:
        x[:, 3] = -x[:, 2]
    x[rng.random((n, 4)) < 0.08] = np.nan
    y = rng.random(n) < 0.4
    z = np.where(y, 0.6, -0.4)
    return x, z


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mirror", [False, True])
def test_near_ties_resolved_as_r_scan(seed, mirror):
    """The integer prefix sums only rank candidates; R's arithmetic decides
    between those within the error bound: same predictor, point and gain
    bits as the one-row-at-a-time scan."""
    x, z = _tie_heavy_case(seed, 150 + 40 * seed, mirror)
    p = x.shape[1]
    var_type, mono = np.zeros(p, dtype=int), np.zeros(p, dtype=int)
    w = np.ones(z.size)
    data = TrainingData(x, var_type, mono)
    rng = np.random.default_rng(seed + 100)
    inbag = rng.random(z.size) < 0.7
    rows = np.flatnonzero(inbag)
    total = Side(float(np.cumsum(z[rows])[-1]), float(rows.size), rows.size)
    search = ExactSearch(data, z, w, True, 5)
    got = search.best(search.root(inbag), total)
    gain, want = r_oracle(x, var_type, mono, z, w, list(rows), 5)
    if want is None:
        assert got is None
        return
    assert (got.var, got.value) == (want[0], want[1])
    assert got.improvement == gain
    assert (got.left.sum_z, got.right.sum_z) == (want[2][0], want[3][0])


def _categorical_case(seed, n, with_continuous):
    """Categorical predictors of 3, 7 and 12 levels (missing values in one,
    an empty level in another), with or without continuous ones."""
    rng = np.random.default_rng(seed)
    cols, var_type = [], []
    for K, nan in ((3, False), (7, True), (12, False)):
        c = rng.integers(0, K, n).astype(float)
        if K == 12:
            c[c == 5] = 4                      # level 5 never occurs
        if nan:
            c[rng.random(n) < 0.1] = np.nan
        cols.append(c)
        var_type.append(K)
    if with_continuous:
        cols.insert(1, rng.normal(size=n))
        var_type.insert(1, 0)
    x = np.column_stack(cols)
    var_type = np.array(var_type)
    effect = rng.normal(size=(x.shape[1], 13))
    z = rng.normal(size=n)
    for j in range(x.shape[1]):
        if var_type[j]:
            z += effect[j, np.nan_to_num(x[:, j], nan=12).astype(int)]
    return x, var_type, z


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_continuous", [False, True])
@pytest.mark.parametrize("weights", [False, True])
def test_several_categoricals_match_r_scan(seed, with_continuous, weights):
    """All categorical predictors are searched at once from per-level sums in
    row order: same split, sums and gain as R's scan, also when no
    continuous predictor is left to sort."""
    x, var_type, z = _categorical_case(seed, 150 + 30 * seed, with_continuous)
    rng = np.random.default_rng(seed + 50)
    w = rng.uniform(0.5, 2.0, z.size) if weights else np.ones(z.size)
    mono = np.zeros(x.shape[1], dtype=int)
    data = TrainingData(x, var_type, mono)
    inbag = rng.random(z.size) < 0.7
    rows = np.flatnonzero(inbag)
    search = ExactSearch(data, z, w, not weights, 5)
    total = Side(float(np.cumsum((w * z)[rows])[-1]), float(np.cumsum(w[rows])[-1]),
                 rows.size)
    got = search.best(search.root(inbag), total)
    gain, want = r_oracle(x, var_type, mono, z, w, list(rows), 5)
    assert got.var == want[0]
    assert got.improvement == gain
    if var_type[got.var]:
        assert got.left_levels.tolist() == want[1]
    assert (got.left.sum_z, got.left.w, got.left.n) == want[2]
    assert (got.right.sum_z, got.right.w, got.right.n) == want[3]
    if want[4][2]:
        assert (got.missing.sum_z, got.missing.w, got.missing.n) == want[4]


def assert_tree_is_r_scan(x, var_type, mono, z, w, inbag, depth, min_obs=5):
    """Grow a tree on the bag and route the bag down it: every split must be
    the oracle's on its node's rows (R's node totals come from the parent's
    running sums: gains agree to rounding). Returns the number of splits."""
    from pygbm.engine.grow import grow_tree

    data = TrainingData(x, var_type, mono)
    tree = grow_tree(data, data.searcher(z, w, True, min_obs), z, w, inbag, depth, True)
    n_checked = 0
    stack = [(0, np.flatnonzero(inbag))]
    while stack:
        node_id, rows = stack.pop()
        node = tree.nodes[node_id]
        assert node.n == rows.size
        if node.is_terminal:
            continue
        s = node.split
        gain, want = r_oracle(x, var_type, mono, z, w, list(rows), min_obs)
        xv = x[rows, s.var]
        nan = np.isnan(xv)
        if s.left_levels is None:
            assert s.var == want[0] and s.value == want[1]
            left = (xv < s.value) & ~nan
        else:
            assert s.var == want[0] and s.left_levels.tolist() == want[1]
            left = np.isin(xv, s.left_levels) & ~nan
        assert s.improvement == pytest.approx(gain, rel=1e-12)
        n_checked += 1
        for child, sel in zip(node.children, (left, ~left & ~nan, nan)):
            stack.append((child, rows[sel]))
    return n_checked


@pytest.mark.parametrize("seed", range(4))
def test_tree_on_categoricals_only_matches_r_scan_node_by_node(seed):
    """Children of a split carry their in-bag rows in row order (no continuous
    predictor at all): every node's search is R's."""
    x, var_type, z = _categorical_case(seed, 400, False)
    w = np.ones(z.size)
    mono = np.zeros(x.shape[1], dtype=int)
    inbag = np.random.default_rng(seed).random(z.size) < 0.6
    assert assert_tree_is_r_scan(x, var_type, mono, z, w, inbag, 4) == 4


@pytest.mark.parametrize("with_nan", [False, True])
def test_tree_on_continuous_predictors_matches_r_scan_node_by_node(with_nan):
    """Children of a split keep every predictor's sorted in-bag rows, whether
    or not the node has missing rows (two ways of partitioning them): every
    node's search is R's."""
    x, var_type, mono, z, w = make_case(5, n=300, with_nan=with_nan, ties=True)
    inbag = np.random.default_rng(8).random(z.size) < 0.7
    assert assert_tree_is_r_scan(x, var_type, mono, z, w, inbag, 5) == 5


@pytest.mark.parametrize("seed", [1, 2, 4, 5])
def test_gains_at_rounding_level_match_r_scan(seed, search_mode, monkeypatch):
    """A response constant but for a few ulps: every approximate gain is
    within its error bound of 0 (positive at positions where R's are not),
    so every admissible position is scored in R's arithmetic at once (no
    candidate rejected, no second search of the node): R's split."""
    rng = np.random.default_rng(seed)
    n, p = 200, 3
    x = rng.normal(size=(n, p))
    z = 0.1 + 1e-14 * rng.integers(-3, 4, n)
    var_type, mono, w = np.zeros(p, dtype=int), np.zeros(p, dtype=int), np.ones(n)
    searched = []
    full_search = ExactSearch.best

    def best(self, state, total, bounded=True):
        searched.append(bounded)
        return full_search(self, state, total, bounded)

    monkeypatch.setattr(ExactSearch, "best", best)
    search = ExactSearch(TrainingData(x, var_type, mono), z, w, True, 5)
    total = Side(float(np.cumsum(z)[-1]), float(n), n)
    got = search.best(search.root(np.ones(n, dtype=bool)), total)
    gain, want = r_oracle(x, var_type, mono, z, w, list(range(n)), 5)
    assert got is not None and want is not None
    assert (got.var, got.value, got.improvement) == (want[0], want[1], gain)
    assert searched == [True]

