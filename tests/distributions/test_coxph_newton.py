"""coxph's terminal-node Newton step: R's matrix inverse (LU without pivoting).

The step's numbers against R are checked bit for bit by the R fixtures
(tests/test_conformance_r.py::test_first_trees_bit_for_bit); here the inverse
itself: an inverse, non-finite where R's has a zero pivot, the same bits in
both engines.
"""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.distributions.coxph import _inverse_as_r

SIZES = [1, 2, 3, 5, 8, 15]


def _hessian_like(n, seed):
    """A symmetric negative-definite matrix like the Newton step's."""
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, n))
    return -(m @ m.T + n * np.eye(n))


@pytest.mark.parametrize("n", SIZES)
def test_is_the_inverse(n):
    h = _hessian_like(n, n)
    np.testing.assert_allclose(_inverse_as_r(h) @ h, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(_inverse_as_r(h), np.linalg.inv(h), rtol=1e-10, atol=1e-14)


def test_leaves_its_argument_alone():
    h = _hessian_like(4, 1)
    before = h.copy()
    _inverse_as_r(h)
    np.testing.assert_array_equal(h, before)


@pytest.mark.parametrize("h", [[[0.0, 1.0], [1.0, 0.0]],       # invertible, zero first pivot
                               [[1.0, 2.0], [2.0, 4.0]],       # singular
                               [[0.0]]])
def test_zero_pivot_gives_non_finite_entries(h):
    """Without pivoting a zero pivot divides by zero (R: no error), which the
    Newton step turns into R's rule (that node's value 0)."""
    assert not np.all(np.isfinite(_inverse_as_r(np.asarray(h))))


@pytest.mark.parametrize("n", SIZES)
def test_engines_agree_bit_for_bit(n):
    pytest.importorskip("numba")
    from pygbm.engine.compiled.losses import _inverse_as_r as compiled
    for seed in range(5):
        h = _hessian_like(n, 100 * n + seed)
        np.testing.assert_array_equal(compiled(h), _inverse_as_r(h))
