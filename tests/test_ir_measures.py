"""IR measures (pygbm.ranking) against R gbm 2.1.8's ir.measure.* and perf.pairwise.

Fixtures: tests/r_reference_pairwise/ir_measures.json, written by
tests/r_reference_pairwise/make_fixtures.R: 60 short score vectors (lengths
1..12, scores rounded so that many tie, a third drawn from {0, 1, 2}), graded
labels 0..3 (every 7th vector constant) and their 0/1 version, a cut-off rank
per vector; R's value of every measure. perf.pairwise is checked on scores
without ties (its noise then decides nothing).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pygbm.ranking import (
    ir_measure_auc, ir_measure_conc, ir_measure_map, ir_measure_mrr, ir_measure_ndcg,
    perf_pairwise,
)

FIXTURE = Path(__file__).parent / "r_reference_pairwise" / "ir_measures.json"
RTOL = 1e-12
FUNCS = {"conc": (ir_measure_conc, "grade"), "ndcg": (ir_measure_ndcg, "grade"),
         "mrr": (ir_measure_mrr, "click"), "map": (ir_measure_map, "click"),
         "auc": (ir_measure_auc, "click")}


@pytest.fixture(scope="module")
def fx():
    return json.loads(FIXTURE.read_text())


def _vec(v, key):
    return np.atleast_1d(np.asarray(v[key], dtype=float))


def test_fixture_has_ties_and_undefined_groups(fx):
    vectors = fx["vectors"]
    assert len(vectors) == 60
    assert sum(len(np.unique(_vec(v, "f"))) < len(_vec(v, "f")) for v in vectors) >= 30
    assert sum(v["ndcg"] == -1 for v in vectors) >= 5
    assert sum(v["mrr"] == -1 for v in vectors) >= 10
    assert {v["max_rank"] for v in vectors} >= {1, 2, 3}


@pytest.mark.parametrize("metric", sorted(FUNCS))
def test_each_vector_matches_r(fx, metric):
    func, label = FUNCS[metric]
    for v in fx["vectors"]:
        got = func(_vec(v, label), _vec(v, "f"), v["max_rank"])
        assert isinstance(got, float)
        assert got == pytest.approx(v[metric], rel=RTOL, abs=1e-14), (metric, v)


@pytest.mark.parametrize("metric", ["conc", "ndcg", "mrr", "map", "auc"])
def test_all_vectors_at_once_by_group(fx, metric):
    """Grouped computation (one call, vectorised over groups) = R per group."""
    func, label = FUNCS[metric]
    vectors = fx["vectors"]
    if metric in ("mrr", "ndcg"):   # one cut-off for all groups: use the vectors with 3
        vectors = [v for v in vectors if v["max_rank"] == 3]
        assert len(vectors) >= 5
    group = np.concatenate([[f"g{i:02d}"] * len(_vec(v, "f")) for i, v in enumerate(vectors)])
    y = np.concatenate([_vec(v, label) for v in vectors])
    f = np.concatenate([_vec(v, "f") for v in vectors])
    # interleave the groups at random (groups need not be contiguous), keeping each
    # group's internal order (tied scores are broken by position)
    n = group.shape[0]
    slots = group[np.random.default_rng(1).permutation(n)]
    rows = np.empty(n, dtype=np.intp)
    rows[np.lexsort((np.arange(n), slots))] = np.lexsort((np.arange(n), group))
    assert not np.array_equal(rows, np.arange(n))
    got = func(y[rows], f[rows], 3, group=group[rows])
    assert isinstance(got, pd.Series)
    want = [v[metric] for v in vectors]
    np.testing.assert_allclose(got.to_numpy(), want, rtol=RTOL, atol=1e-14)


def test_hand_computed_values():
    y = np.array([3.0, 0.0, 2.0, 1.0])
    f = np.array([0.1, 0.9, 0.5, 0.3])          # ranking: item1, item2, item3, item0
    dcg = 0 / 1 + 2 / np.log2(3) + 1 / 2 + 3 / np.log2(5)
    ideal = 3 / 1 + 2 / np.log2(3) + 1 / 2 + 0
    assert ir_measure_ndcg(y, f) == pytest.approx(dcg / ideal)
    assert ir_measure_ndcg(y, f, max_rank=2) == pytest.approx((2 / np.log2(3)) /
                                                              (3 + 2 / np.log2(3)))
    # labels in score order 0, 2, 1, 3: only (2, 1) is concordant, of 6 pairs
    assert ir_measure_conc(y, f) == pytest.approx(1 / 6)
    click = np.array([1.0, 0.0, 1.0, 0.0])
    assert ir_measure_mrr(click, f) == pytest.approx(1 / 2)
    assert ir_measure_mrr(click, f, max_rank=1) == 0.0
    assert ir_measure_map(click, f) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert ir_measure_auc(click, f) == pytest.approx((2 - 1.5) / 2)   # ranks 1 and 3
    # undefined groups: R's -1
    assert ir_measure_mrr(np.ones(3), f[:3]) == -1
    assert ir_measure_ndcg(np.array([2.0]), np.array([0.0])) == -1
    assert ir_measure_conc(np.array([1.0, 1.0]), np.array([0.0, 1.0])) == -1


def test_perf_pairwise_matches_r(fx):
    p = fx["perf"]
    cases = {"ndcg": ("ndcg", "grade", {}),
             "ndcg_rank3_w": ("ndcg", "grade", {"w": p["w"], "max_rank": 3}),
             "conc": ("conc", "grade", {}), "conc_binary": ("conc", "click", {}),
             "map": ("map", "click", {}), "mrr_rank2": ("mrr", "click", {"max_rank": 2})}
    for key, (metric, label, kw) in cases.items():
        got = perf_pairwise(p[label], p["f"], p["group"], metric, random_state=0, **kw)
        assert got == pytest.approx(p[key], rel=1e-12), key


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        ir_measure_ndcg([1, 0], [0.5])
    with pytest.raises(ValueError, match="missing"):
        ir_measure_map([1, 0], [np.nan, 1])
    with pytest.raises(ValueError, match="group"):
        ir_measure_conc([1, 0, 1], [1, 2, 3], group=[1, 1])
    with pytest.raises(ValueError, match="max_rank"):
        ir_measure_mrr([1, 0], [1, 2], max_rank=1.5)
    with pytest.raises(ValueError, match="metric"):
        perf_pairwise([1, 0], [1, 2], [1, 1], metric="dcg")
    # text: numpy's "could not convert string to float: np.str_('a')" named no argument
    with pytest.raises(ValueError, match=r"^y must be numbers, got .*'a'"):
        ir_measure_auc(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match=r"^f must be numbers"):
        ir_measure_ndcg([1, 0], ["high", "low"])
    with pytest.raises(ValueError, match=r"^y must be numbers"):
        perf_pairwise(["a", "b"], [1, 2], [1, 1])


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
def test_live_r_random_vectors():
    rng = np.random.default_rng(5)
    f = np.round(rng.normal(size=9), 1)
    y = rng.integers(0, 3, size=9).astype(float)
    click = (y > 0).astype(float)
    vec = lambda a: "c(" + ",".join(repr(float(v)) for v in a) + ")"  # noqa: E731
    code = (f"f <- {vec(f)}; y <- {vec(y)}; b <- {vec(click)};"
            "cat(sprintf('%.17g', c(gbm:::ir.measure.conc(list(y, f)),"
            "gbm:::ir.measure.ndcg(list(y, f), 4), gbm:::ir.measure.mrr(list(b, f), 2),"
            "gbm:::ir.measure.map(list(b, f)))), sep='\\n')")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    r = [float(v) for v in out.stdout.split()]
    got = [ir_measure_conc(y, f), ir_measure_ndcg(y, f, 4), ir_measure_mrr(click, f, 2),
           ir_measure_map(click, f)]
    np.testing.assert_allclose(got, r, rtol=1e-12)


def test_perf_pairwise_refuses_no_group_and_gives_nan_when_nothing_is_defined():
    with pytest.raises(ValueError, match="group"):
        perf_pairwise([1, 0], [1, 2], None)
    with pytest.raises(TypeError, match="random_state"):
        perf_pairwise([1, 0], [1, 2], [1, 1], random_state="seed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no NumPy "mean of empty slice" warning
        assert np.isnan(perf_pairwise([1, 1, 0, 0], [1, 2, 3, 4], [1, 1, 2, 2], "map"))


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
def test_perf_pairwise_with_r_stream_breaks_ties_as_r():
    """With RRandom(s), the tie-breaking noise is R's runif after set.seed(s):
    tied scores get R's order and R's value."""
    from pygbm import RRandom

    y = [2.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    f = [0.3, 0.3, 0.3, 0.1, 0.1, 0.1, 0.2, 0.2]           # ties in every group
    g = [1, 1, 1, 2, 2, 2, 3, 3]
    vec = lambda a: "c(" + ",".join(repr(float(v)) for v in a) + ")"  # noqa: E731
    code = (f"y <- {vec(y)}; f <- {vec(f)}; g <- {vec(g)}; out <- c();"
            "for (s in 1:5) { set.seed(s); out <- c(out, gbm:::perf.pairwise(y, f, g, 'ndcg', "
            "max.rank = 2)) }; cat(sprintf('%.17g', out), sep='\\n')")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    r = [float(v) for v in out.stdout.split()]
    got = [perf_pairwise(y, f, g, "ndcg", max_rank=2, random_state=RRandom(s))
           for s in range(1, 6)]
    np.testing.assert_allclose(got, r, rtol=1e-12)
    assert len(set(np.round(r, 12))) > 1          # the seeds do break the ties differently
