"""gbm's random steps, from NumPy's generator (the default) or R's stream.

A fit's ``random_state`` is a NumPy ``Generator`` (or a seed for one) or a
:class:`pygbm.RRandom`. With an ``RRandom`` every random step of gbm takes
R's draws in R's order, so that ``random_state=RRandom(seed)`` gives what
``set.seed(seed); gbm(...)`` gives in R gbm 2.1.8 (``docs/r_random_stream.md``
lists the draws and the experiments that confirm them). The functions here
are the steps drawn outside the boosting loop; the loop's are the row
samplers of :mod:`pygbm.engine.sampling` and pairwise's tie-breaking noise
(:func:`tie_uniforms`). With a Generator each step draws NumPy's numbers
in the same way (the row bag: R's selection rule on ``Generator.random``
uniforms, see :class:`pygbm.engine.sampling.SelectionBag`).
"""
from __future__ import annotations

import numpy as np

from .rrandom import RRandom

#: upper bound of the per-fold seeds drawn from a NumPy generator
FOLD_SEED_BOUND = 2**31 - 1
#: upper bound of the seeds of generators derived from a fit's (ordered boosting's
#: permutations, target statistics' permutations, pairwise's tie-breaking noise)
CHILD_SEED_BOUND = 2**63 - 1
#: R's gbmCrossValModelBuild: seeds <- as.integer(runif(K, -(2^31 - 1), 2^31))
R_FOLD_SEED_MIN, R_FOLD_SEED_MAX = -(2.0**31 - 1), 2.0**31


def is_r_stream(rng) -> bool:
    """True when ``rng`` is R's stream (draws must follow R's order)."""
    return isinstance(rng, RRandom)


def uniforms(rng, shape) -> np.ndarray:
    """Uniforms on [0, 1) of the given shape, in row-major order: R's
    ``unif_rand()`` with R's stream, ``Generator.random`` otherwise (either
    way one draw of ``shape`` is the same stream as its rows drawn one after
    the other)."""
    shape = tuple(int(s) for s in np.atleast_1d(shape))
    if is_r_stream(rng):
        return rng.unif_rand(int(np.prod(shape))).reshape(shape)
    return rng.random(shape)


def shuffled(rng, x) -> np.ndarray:
    """``x`` (an array, or an int n for 0..n-1) in a random order.

    R's stream: R's ``sample(x)``, i.e. ``x[sample.int(length(x))]`` (an int
    n: ``sample(1:n) - 1``); what ``getCVgroup``'s ``sample(rep(1:K, length =
    n))``, pairwise's ``sample(1:nlevels(group))`` and
    ``permutation.test.gbm``'s ``sample(1:nrow(x))`` draw. A Generator:
    ``rng.permutation(x)``.
    """
    if not is_r_stream(rng):
        return rng.permutation(x)
    if isinstance(x, (int, np.integer)):
        return rng.sample_int(int(x)) - 1
    return np.asarray(x)[rng.sample_int(len(x)) - 1]


def child_seed(rng: np.random.Generator) -> int:
    """The seed of a generator derived from ``rng`` (a NumPy Generator), which
    advances by one draw: a step with its own stream of numbers, drawn once per fit."""
    return int(rng.integers(CHILD_SEED_BOUND))


def fold_seeds(rng, n_folds: int) -> list:
    """The random state of each cv fold's fit.

    R's stream: R's ``gbmCrossValModelBuild``, ``seeds <-
    as.integer(runif(K, -(2^31 - 1), 2^31))`` (truncated toward zero), and
    ``gbmDoFold``'s ``set.seed(seeds[k])``: fold k gets ``RRandom(seeds[k])``,
    its own stream, so the folds' results do not depend on where they run.
    A Generator: ``n_folds`` integer seeds below 2^31 - 1.
    """
    if is_r_stream(rng):
        values = rng.runif(n_folds, R_FOLD_SEED_MIN, R_FOLD_SEED_MAX)
        return [RRandom(int(v)) for v in values]       # int(): toward zero, as.integer
    return [int(s) for s in rng.integers(0, FOLD_SEED_BOUND, size=n_folds)]


def tie_uniforms(rng, group_of_row: np.ndarray, ranked: np.ndarray) -> np.ndarray:
    """One uniform per row for pairwise's tie-breaking noise.

    ``group_of_row``: each row's group index (groups contiguous, in row
    order); ``ranked``: per group, whether it is ranked now. R's stream:
    R's ``CRanker::SetGroupScores`` (pairwise.cpp) draws one ``unif_rand``
    per item of each group it ranks, in row order, and nothing for the other
    groups (their rows get 0.5, no noise). A Generator: a uniform for every
    row.
    """
    n = group_of_row.shape[0]
    if not is_r_stream(rng):
        return rng.random(n)
    u = np.full(n, 0.5)
    rows = np.asarray(ranked, dtype=bool)[group_of_row]
    u[rows] = rng.unif_rand(int(np.count_nonzero(rows)))
    return u
