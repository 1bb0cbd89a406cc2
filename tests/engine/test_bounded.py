"""The bounded search (engine/bounded.py) against the full computation of
every position's approximate gain, on nodes large enough for many blocks of
the configured size.

What the exact search needs of it: every position whose approximate gain can
be a candidate (at or above the threshold of the top gain) is computed, with
the same value, and no other position is claimed to be above it. The choice
among candidates, with R's arithmetic, is tested in test_exact.py (there with
the bounded search forced on small nodes) and in the R conformance tests.
"""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.engine import bounded
from pygbm.engine.data import TrainingData
from pygbm.engine.exact import ExactSearch
from pygbm.engine.split import Side

#: the bound must leave most blocks out: the point of the bounded search
#: (a few per cent on the benchmark data, up to ~25% here in the "late" nodes
#: of pure noise, where the best splits sit near the ends; a guard against a
#: bound gone loose, not a measure)
MAX_REFINED_FRACTION = 0.4


def _total(z: np.ndarray, inbag: np.ndarray) -> Side:
    """The node's sums (unit weights) of the in-bag rows of ``z``."""
    return Side(float(z[inbag].sum()), float(inbag.sum()), int(inbag.sum()))


def _node(seed, n, p, missing, ties, late):
    """A root node of a random bag: Friedman-like response (``late``: the
    residual noise of a late boosting iteration, little signal left)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, p))
    if ties:
        x[:, ::2] = np.round(x[:, ::2] * 300)         # a few hundred values: ties
    signal = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3]
    z = (0.05 * signal if late else signal - signal.mean()) + rng.normal(size=n)
    if missing:
        x[rng.random((n, p)) < 0.1] = np.nan
        x[rng.random(n) < 0.97, p - 1] = np.nan       # a predictor almost all missing
    data = TrainingData(x, np.zeros(p, dtype=int), np.zeros(p, dtype=int))
    return data, z, rng.random(n) < 0.5


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("late", [False, True])
@pytest.mark.parametrize("min_obs", [10, 700])
def test_bounded_gains_keep_every_candidate(missing, ties, late, min_obs, force_bounded_search):
    force_bounded_search(bounded.BLOCK)
    data, z, inbag = _node(7, 6000, 12, missing, ties, late)
    search = ExactSearch(data, z, np.ones(z.size), True, min_obs)
    state = search.root(inbag)
    m = state.m
    full_best, full_row, partial = search._continuous(state, _total(z, inbag), bounded=False)
    assert not partial
    found = search._bounded_gains(state)
    assert found.ok
    cut = search.tolerance.cut(m, float(full_best.max()))
    for c in range(full_best.size):
        want, got = full_row(c), found.row(c)
        above = want >= cut
        np.testing.assert_array_equal(got >= cut, above, err_msg=f"predictor {c}")
        np.testing.assert_allclose(got[above], want[above], rtol=1e-12)
        if full_best[c] >= cut:
            assert found.best[c] == pytest.approx(full_best[c], rel=1e-12)
        else:
            assert found.best[c] < cut
    refined = 0 if found.refined is None else found.refined[0].size
    assert refined <= MAX_REFINED_FRACTION * full_best.size * ((m - 1) // bounded.BLOCK)


def test_no_positive_gain_at_block_ends_means_full_search(force_bounded_search):
    """A response constant in the node: no gain anywhere; the bounded search
    says so (``ok`` False) and the node is searched in full (no split)."""
    force_bounded_search(bounded.BLOCK)
    data, _, inbag = _node(3, 3000, 4, False, False, False)
    z = np.full(3000, 0.25)
    search = ExactSearch(data, z, np.ones(z.size), True, 10)
    state = search.root(inbag)
    found = search._bounded_gains(state)
    assert not found.ok
    assert not found.best.any()


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("scale", [0.0, 0.5, 0.98])
def test_penalised_bounded_gains_keep_every_penalised_candidate(missing, ties, scale,
                                                                 force_bounded_search):
    """With a split-gain adjustment (cost-efficient boosting) gains are
    compared less their predictor's penalty: every position of predictor c
    whose gain reaches the threshold of the top penalised gain plus c's
    penalty is computed, with the full computation's value. ``scale``: the
    penalties as a fraction of each predictor's best gain, in a random
    order (0.98: nearly every gain penalised away)."""
    force_bounded_search(bounded.BLOCK)
    data, z, inbag = _node(11, 6000, 12, missing, ties, False)
    search = ExactSearch(data, z, np.ones(z.size), True, 10)
    state = search.root(inbag)
    m = state.m
    full_best, full_row, _ = search._continuous(state, _total(z, inbag), bounded=False)
    rng = np.random.default_rng(5)
    offset = scale * full_best * rng.permutation(np.linspace(0.5, 1.0, full_best.size))
    from pygbm.engine.exact import _Offsets
    found = search._bounded_gains(state, _Offsets(offset, 0.0))
    assert found.ok
    top = float((full_best - offset).max())
    cut = search.tolerance.cut(m, top, float(full_best.max())) + offset
    for c in range(full_best.size):
        want, got = full_row(c), found.row(c)
        above = want >= cut[c]
        assert above.any() == (full_best[c] >= cut[c])
        np.testing.assert_allclose(got[above], want[above], rtol=1e-12)
        assert np.all(got[~above] < cut[c])             # never claimed above
        if full_best[c] >= cut[c]:
            assert found.best[c] == pytest.approx(full_best[c], rel=1e-12)
