"""The compiled pairwise loop's Python side: the random draws of a chunk of
iterations, and its trees back into the fit's state.

:class:`RankingLoop` runs a pairwise fit that :func:`.boosting.compiled_loop`
accepts in chunks of :func:`.ranking_loop.boost_pairwise`. Before each chunk
it makes the chunk's draws in the NumPy loop's order: per iteration the bag
(the fit's group sampler, :func:`pygbm.engine.sampling.default_sampler`), then
the tie-breaking uniforms of the working response's ranking, the out-of-bag
improvement's, the training deviance's and the validation deviance's
(:func:`pygbm.draws.tie_uniforms`, each ranking the groups the NumPy method
ranks). With NumPy's generator the noise generator is the fit's own (not the
bags'), and every ranking draws one uniform per row, so the chunk's uniforms
are one draw; with R's stream bags and noise share the stream and are drawn
iteration by iteration.
"""
from __future__ import annotations

import numpy as np

from ...draws import is_r_stream, tie_uniforms
from ..report import IterationReport
from ..sampling import default_sampler
from .chunks import loop_inputs, run_chunks
from .grower import CompiledGrower
from .loop import empty_forest
from .pairwise import PairRows, pair_rows, pair_scratch
from .ranking_loop import Ranking, RankingDraws, boost_pairwise

#: the distributions this loop runs, by registry name
RANKING = ("pairwise",)
#: the rankings of one iteration over the training rows (gradient, OOB, deviance)
TRAIN_RANKINGS = 3


class RankingLoop:
    """Runs a pairwise fit's iterations in compiled chunks."""

    def __init__(self, problem, data):
        self.problem = problem
        dist, ctx = problem.distribution, problem.context
        grower = CompiledGrower(data, problem.interaction_depth, problem.n_minobsinnode)
        self.data, self.space = grower.inputs, grower.space
        train, valid = problem.train_targets(), problem.valid_targets()
        self.train_layout = dist.layout(train, ctx)
        self.valid_layout = dist.layout(valid, ctx) if valid.y.shape[0] else None
        train_rows = pair_rows(self.train_layout, dist.metric)
        valid_rows = (empty_pair_rows(train_rows.metric) if self.valid_layout is None
                      else pair_rows(self.valid_layout, dist.metric))
        self.ranking = Ranking(train_rows, pair_scratch(train_rows), valid_rows,
                               pair_scratch(valid_rows))
        self.train, self.valid, self.growth = loop_inputs(problem)

    def run(self, state, n_trees: int, rng, report: IterationReport):
        """Add ``n_trees`` iterations to ``state`` (in place) and return it."""
        P = self.problem
        sampler = default_sampler(P.train_targets(), P.bag_fraction, True, rng)
        f_tr, f_va = state.f[:P.n_train], state.f[P.n_train:]
        n_noise = TRAIN_RANKINGS * P.n_train + f_va.shape[0]

        def chunk(count: int):
            draws = self._draws(sampler, rng, count, n_noise)
            out = empty_forest(count, self.growth.depth, self.data.max_levels)
            boost_pairwise(self.ranking, self.train, self.data, self.space, self.valid,
                           self.growth, draws, f_tr, f_va, len(state.c_splits), out)
            return out

        run_chunks(state, n_trees, n_noise, self.data.var_type, report, chunk)
        return state

    def _draws(self, sampler, rng, count: int, n_noise: int) -> RankingDraws:
        """The bags and rankings' uniforms of ``count`` iterations, in the NumPy
        loop's order of draws."""
        P = self.problem
        t = P.train_targets()
        noise_rng = P.context.noise_rng
        r_stream = is_r_stream(noise_rng)
        inbag = np.ones((count, P.n_train), dtype=np.bool_)
        noise = np.empty((count, n_noise)) if r_stream else None
        for k in range(count):
            drawn = sampler.draw(rng, t)
            if drawn.inbag is not None:
                inbag[k] = drawn.inbag
            if r_stream:
                noise[k] = self._rankings_uniforms(noise_rng, inbag[k])
        if not r_stream:
            # one uniform per row for every ranking: the chunk's in one draw
            noise = noise_rng.random((count, n_noise))
        return RankingDraws(inbag, noise)

    def _rankings_uniforms(self, noise_rng, bag):
        """One iteration's tie-breaking uniforms, each ranking drawing for the
        groups its NumPy method ranks (Pairwise._gradient, bag_improvement,
        deviance)."""
        L, w = self.train_layout, self.train.w
        runs = L.runs
        pairs = L.max_measure > 0
        in_bag = bag[runs.start]
        parts = [tie_uniforms(noise_rng, runs.gid, pairs & (w[runs.start] > 0) & in_bag),
                 tie_uniforms(noise_rng, runs.gid, pairs & ~in_bag),
                 tie_uniforms(noise_rng, runs.gid, pairs)]
        if self.valid_layout is not None:
            V = self.valid_layout
            parts.append(tie_uniforms(noise_rng, V.runs.gid, V.max_measure > 0))
        return np.concatenate(parts)


def empty_pair_rows(metric: int) -> PairRows:
    """The layout of no rows (a fit without validation rows)."""
    ints, floats = np.zeros(0, dtype=np.int64), np.zeros(0)
    return PairRows(metric, floats, ints, ints, ints, np.zeros(0, dtype=np.bool_), ints, ints,
                    ints, ints, floats, np.zeros(1), floats, np.inf)
