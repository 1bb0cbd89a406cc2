"""The compiled multi-class loop's Python side: which fits it runs, and a
chunk of iterations' trees back into the fit's state.

:class:`MulticlassLoop` runs a multinomial fit (gradient or Newton splits,
R's exact arithmetic, presorted data small enough for the compiled grower: what
:func:`.boosting.compiled_loop` checks) in chunks of
:func:`.multiclass_loop.boost_multiclass`: the chunk's bag uniforms drawn
from the fit's stream as the NumPy loop draws one bag per iteration, the
link values handed over class by class (K, n) and written back after every
chunk, the chunk's K trees per iteration kept in their arrays.
"""
from __future__ import annotations

import numpy as np

from ..report import IterationReport
from ..sampling import default_sampler
from .chunks import bag_uniforms, loop_inputs, run_chunks
from .grower import CompiledGrower
from .loop import empty_forest
from .multiclass_loop import boost_multiclass

#: the multi-output distributions this loop runs
MULTICLASS = ("multinomial",)


def runs_multiclass(distribution) -> bool:
    """Whether the loop runs this distribution's fits (the multinomial, with
    either of its splits)."""
    return distribution.name in MULTICLASS


class MulticlassLoop:
    """Runs a multinomial fit's iterations in compiled chunks."""

    def __init__(self, problem, data):
        self.problem = problem
        grower = CompiledGrower(data, problem.interaction_depth, problem.n_minobsinnode)
        self.data, self.space = grower.inputs, grower.space
        self.train, self.valid, self.growth = loop_inputs(problem)
        self.newton = not problem.distribution.gradient_splits

    def run(self, state, n_trees: int, rng, report: IterationReport):
        """Add ``n_trees`` iterations (K trees each) to ``state`` (in place)
        and return it."""
        P = self.problem
        sampler = default_sampler(P.train_targets(), P.bag_fraction, False, rng)
        growth = self.growth._replace(n_bag=sampler.n_bag)
        n_classes = state.f.shape[1]
        # class by class: one contiguous row per class (written back per chunk)
        f_tr = np.ascontiguousarray(state.f[:P.n_train].T)
        f_va = np.ascontiguousarray(state.f[P.n_train:].T)

        def chunk(count: int):
            out = empty_forest(count * n_classes, growth.depth, self.data.max_levels, count)
            boost_multiclass(self.train, self.data, self.space, self.valid, growth,
                             self.newton, bag_uniforms(sampler, rng, count, P.n_train), f_tr,
                             f_va, len(state.c_splits), out)
            state.f[:P.n_train] = f_tr.T
            state.f[P.n_train:] = f_va.T
            return out

        run_chunks(state, n_trees, P.n_train, self.data.var_type, report, chunk)
        return state
