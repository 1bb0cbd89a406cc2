"""The carried link terms (engine/compiled/link_terms.py) against the kernels of
engine/compiled/losses.py, bit for bit, over several iterations of random steps:
every method of an iteration (working response, terminal values, out-of-bag
improvement, deviance) as the compiled loop calls it, with and without offsets
(which are not carried), unit and unequal weights, bags, ties and zeros of f."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("numba")

from pygbm.distributions import Targets, get_distribution  # noqa: E402
from pygbm.engine.compiled import link_terms, losses  # noqa: E402

#: the distributions whose terms are carried, and two that are not
NAMES = ("bernoulli", "poisson", "adaboost", "gaussian", "tdist")
CARRIED = {"bernoulli", "poisson", "adaboost"}
N_NODES = 4
ITERATIONS = 4
SHRINKAGE = 0.3


def _targets(name, rng, n, offset, weighted):
    if name == "poisson":
        y = rng.poisson(1.2, n).astype(float)
    elif name in ("bernoulli", "adaboost"):
        y = (rng.random(n) < 0.3).astype(float)
    else:
        y = rng.normal(size=n)
    w = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
    off = rng.normal(size=n) * 0.3 if offset else None
    return Targets(y, off, w, None)


CASES = [(name, seed, offset, weighted) for name in NAMES for seed in (3, 4)
         for offset in (False, True) for weighted in (False, True)]


@pytest.mark.parametrize("case", CASES, ids=[
    f"{c[0]}-{c[1]}-{'offset' if c[2] else 'no_offset'}-{'w' if c[3] else 'unit'}"
    for c in CASES])
def test_carried_terms_are_the_losses_kernels(case):
    name, seed, offset, weighted = case
    rng = np.random.default_rng(seed)
    n = 301
    dist = get_distribution({"name": "tdist", "df": 4.0} if name == "tdist" else name)
    rows = losses.loss_rows(_targets(name, rng, n, offset, weighted))
    kind, params = losses.kind_of(dist), losses.loss_params(dist)
    f = rng.normal(size=n)
    f[rng.random(n) < 0.1] = 0.0                   # exact zeros and ties
    carried = link_terms.start_terms(kind, rows, f)
    assert (carried[0].shape[0] == n) == (name in CARRIED and not offset)
    f_ref = f.copy()
    for _ in range(ITERATIONS):
        bag = rng.random(n) < 0.5
        node = rng.integers(0, N_NODES, n)
        counts = np.bincount(node[bag], minlength=N_NODES)
        grow_pred = rng.normal(size=N_NODES)

        z, z_ref = np.empty(n), np.empty(n)
        link_terms.respond(kind, params, rows, f, carried, bag, z)
        losses.working_response(kind, params, rows, f_ref, bag, z_ref)
        np.testing.assert_array_equal(z, z_ref)

        out, out_ref = np.empty(N_NODES), np.empty(N_NODES)
        link_terms.leaves(kind, params, rows, f, z, node, N_NODES, counts, grow_pred, bag, 5,
                          carried, out)
        losses.leaf_values(kind, params, rows, f_ref, z_ref, node, N_NODES, counts, grow_pred,
                           bag, 5, out_ref)
        np.testing.assert_array_equal(out, out_ref)

        fadj = out[node]
        improve = link_terms.oob_improvement(kind, params, rows, f, fadj, bag, SHRINKAGE,
                                             carried)
        improve_ref = losses.bag_improvement(kind, params, rows, f_ref, fadj, bag, SHRINKAGE)
        assert improve == improve_ref

        f += SHRINKAGE * fadj                      # the loop's update of the links
        f_ref += SHRINKAGE * fadj
        dev = link_terms.train_deviance(kind, params, rows, f, carried)
        assert dev == losses.deviance(kind, params, rows, f_ref)
        assert np.isfinite(dev)


def test_terms_follow_the_links_after_iterations():
    """After each deviance the current terms (and bernoulli's exp(-F)) are those of the
    updated links, on both sides of F = 0."""
    rng = np.random.default_rng(7)
    n = 50
    y = (rng.random(n) < 0.5).astype(float)
    rows = losses.loss_rows(Targets(y, None, np.ones(n), None))
    f = rng.normal(size=n)
    carried = link_terms.start_terms(losses.BERNOULLI, rows, f)
    fadj = rng.normal(size=n)
    bag = np.zeros(n, dtype=bool)
    link_terms.oob_improvement(losses.BERNOULLI, np.zeros(0), rows, f, fadj, bag, 0.5,
                               carried)
    f += 0.5 * fadj
    link_terms.train_deviance(losses.BERNOULLI, np.zeros(0), rows, f, carried)
    np.testing.assert_array_equal(carried[0], np.logaddexp(0.0, f))
    np.testing.assert_array_equal(carried[2], [math.exp(-v) for v in f])   # C library's exp
