"""R's row bag (engine/sampling.py SelectionBag): exactly floor(f n) rows,
every row and every pair of rows equally likely, the uniforms of k bags drawn at
once are the stream of k draws, and the compiled selection rule is the Python one."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm import RRandom
from pygbm.distributions import Targets
from pygbm.engine.sampling import SelectionBag, selection_sample

N, BAG_FRACTION = 20, 0.37


def _targets(n=N):
    return Targets(np.zeros(n), None, np.ones(n))


def test_bags_have_r_size_and_every_row_and_pair_is_equally_likely():
    bag = SelectionBag(N, BAG_FRACTION, r_stream=False)
    rng = np.random.default_rng(3)
    draws = np.array([bag.draw(rng, _targets()).inbag for _ in range(20000)])
    k = int(np.floor(BAG_FRACTION * N))
    assert np.all(draws.sum(axis=1) == k)
    p = k / N
    freq = draws.mean(axis=0)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / draws.shape[0]))
    pair = (draws[:, :, None] & draws[:, None, :]).mean(axis=0)[np.triu_indices(N, 1)]
    q = k * (k - 1) / (N * (N - 1))
    assert np.all(np.abs(pair - q) < 5 * np.sqrt(q * (1 - q) / draws.shape[0]))


@pytest.mark.parametrize("r_stream", [False, True])
def test_uniforms_of_many_bags_are_the_stream_of_one_bag_at_a_time(r_stream):
    def rng():
        return RRandom(11) if r_stream else np.random.default_rng(11)

    bag = SelectionBag(N, BAG_FRACTION, r_stream=r_stream)
    at_once = bag.uniforms(rng(), 5)
    one_by_one = rng()
    for row in at_once:
        drawn = bag.draw(one_by_one, _targets()).inbag
        np.testing.assert_array_equal(selection_sample(row, bag.n_bag), drawn)


def test_every_row_in_the_bag_draws_nothing_from_numpys_generator():
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    assert SelectionBag(N, 1.0, r_stream=False).draw(rng, _targets()).inbag is None
    assert rng.bit_generator.state == state


def test_compiled_selection_is_the_python_rule():
    pytest.importorskip("numba")
    from pygbm.engine.compiled.loop import select_bag

    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 50, 333):
        for n_bag in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            u = rng.random(n)
            out = np.empty(n, dtype=bool)
            select_bag(u, n_bag, out)
            np.testing.assert_array_equal(out, selection_sample(u, n_bag))


@pytest.mark.parametrize("r_stream", [False, True])
def test_the_compiled_engines_bag_is_the_numpy_engines(r_stream):
    pytest.importorskip("numba")

    def rng():
        return RRandom(3) if r_stream else np.random.default_rng(3)

    numpy_bag, compiled_bag = (SelectionBag(N, BAG_FRACTION, r_stream, engine=e)
                               for e in ("numpy", "numba"))
    a, b = rng(), rng()
    for _ in range(5):
        np.testing.assert_array_equal(compiled_bag.draw(b, _targets()).inbag,
                                      numpy_bag.draw(a, _targets()).inbag)
