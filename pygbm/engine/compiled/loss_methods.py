"""The distribution's per-iteration methods on the compiled kernels, for the NumPy loop.

A fit the compiled loop cannot run (a boosting scheme of its own: ordered
target statistics, ordered boosting; a sampler or per-row state of its own)
runs the NumPy loop, which asks the distribution for each tree's working
response, terminal values, out-of-bag improvement and deviances: a few whole
passes over the rows in NumPy per tree, most of a tree's time on large data.
:class:`CompiledLossMethods` answers the same calls with the kernels of
:mod:`.losses`, which compute the NumPy methods' numbers bit for bit (one pass
per call, the C library's exp and log), so that the two engines still agree.
The Newton response of the grower (``growth_response``) stays the
distribution's own.

:func:`.boosting.loss_methods` says which fits: those whose distribution the
compiled loop could run (:func:`.boosting.compiled_loss`).
"""
from __future__ import annotations

import numpy as np

from .losses import bag_improvement, deviance, leaf_values, loss_params, loss_rows, \
    working_response


def _floats(values) -> np.ndarray:
    return np.require(values, dtype=np.float64, requirements=["C"])


def _flags(values) -> np.ndarray:
    return np.require(values, dtype=np.bool_, requirements=["C"])


def _codes(values) -> np.ndarray:
    return np.require(values, dtype=np.int64, requirements=["C"])


class CompiledLossMethods:
    """The methods of ``distribution`` (kernel code ``kind``) that the NumPy
    loop calls per tree, with the distribution's signatures (single output)."""

    def __init__(self, distribution, kind: int):
        self.distribution = distribution
        self.kind = kind
        self.params = loss_params(distribution)

    def negative_gradient(self, t, f, bag, ctx):
        z = np.empty(len(f))
        working_response(self.kind, self.params, loss_rows(t), _floats(f), _flags(bag), z)
        return z

    def growth_response(self, t, f, z, ctx):
        return self.distribution.growth_response(t, f, z, ctx)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        out = np.empty(leaves.n_nodes)
        leaf_values(self.kind, self.params, loss_rows(t), _floats(f), _floats(z),
                    _codes(leaves.node), leaves.n_nodes, _codes(leaves.counts),
                    _floats(leaves.grow_pred), _flags(bag), leaves.min_obs, out)
        return out

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        return float(bag_improvement(self.kind, self.params, loss_rows(t), _floats(f),
                                     _floats(fadj), _flags(bag), float(shrinkage)))

    def deviance(self, t, f, ctx):
        return float(deviance(self.kind, self.params, loss_rows(t), _floats(f)))
