"""QWYC's Algorithms 1 and 2 on score matrices (no fit needed)."""
import itertools
import math

import numpy as np
import pytest

from pygbm.early_exit.build import Rows, Settings, optimise
from pygbm.early_exit.evaluate import EXIT_NEGATIVE, EXIT_POSITIVE
from pygbm.early_exit.ordering import Problem, place
from pygbm.early_exit.thresholds import disagreement_budget, position_thresholds


def _rows(seed, n=300, T=12):
    rng = np.random.default_rng(seed)
    # trees of unequal strength, discrete leaf values (ties), a shared signal
    signal = rng.normal(size=n)
    F = np.round(0.3 * signal[:, None] * rng.uniform(0.2, 1.5, T)
                 + 0.4 * rng.normal(size=(n, T)), 1)
    return Rows(F, np.full(n, -0.3), 0.0)


@pytest.mark.parametrize("order", ["qwyc", "gbt", "random", "explicit"])
@pytest.mark.parametrize("mode", ["both", "negative", "positive"])
def test_disagreement_at_most_floor_alpha_n(order, mode):
    for seed, alpha in [(0, 0.0), (1, 0.01), (2, 0.05), (3, 0.123), (4, 0.3)]:
        rows = _rows(seed)
        chosen = np.random.default_rng(seed).permutation(12) if order == "explicit" else order
        settings = Settings(mode, chosen, np.ones(12), False, seed)
        schedule, used = optimise(rows, alpha, settings)
        out = used.run(schedule)
        wrong = int(np.sum(out.decision != used.full_decision))
        assert wrong <= math.floor(alpha * rows.n)
        if alpha == 0:
            assert wrong == 0
        if mode == "negative":
            assert not np.any(out.exit == EXIT_POSITIVE)
        if mode == "positive":
            assert not np.any(out.exit == EXIT_NEGATIVE)
        assert schedule.lower[-1] == schedule.upper[-1] == 0.0
        assert np.all(schedule.lower <= schedule.upper)
        assert sorted(schedule.order) == list(range(12))


def test_budget_reads_alpha_as_written():
    assert disagreement_budget(0.005, 1000) == 5
    assert disagreement_budget(0.07, 100) == 7          # 0.07 * 100 = 7.000000000000001
    assert disagreement_budget(0.29, 100) == 29         # 0.29 * 100 = 28.999999999999996
    assert disagreement_budget(0.0, 10 ** 6) == 0


def _brute_force(g, positive, budget, mode):
    """The stop sets by trying every threshold at the scores (and beyond them)."""
    candidates = np.concatenate([np.unique(g), [np.inf]])
    none = np.zeros(g.size, dtype=bool)

    def widest(scores, bad, allowed, budget):
        best = none
        for v in candidates if scores is g else np.concatenate([np.unique(scores), [np.inf]]):
            stop = allowed & (scores < v)
            if np.sum(stop & bad) <= budget and stop.sum() > best.sum():
                best = stop
        return best

    negative = none
    if mode != "positive":
        negative = widest(g, positive, np.ones(g.size, dtype=bool), budget)
    budget -= int(np.sum(negative & positive))
    positive_exit = none
    if mode != "negative":
        positive_exit = widest(-g, ~positive, ~negative, budget)
    return negative, positive_exit


@pytest.mark.parametrize("mode", ["both", "negative", "positive"])
def test_algorithm2_against_brute_force(mode):
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 41))
        g = np.round(rng.normal(size=n), int(rng.integers(0, 3)))     # ties at 0-2 decimals
        positive = rng.random(n) < rng.uniform(0.1, 0.9)
        budget = int(rng.integers(0, 6))
        lower, upper = position_thresholds(g[:, None], positive, budget, mode)
        negative = g < lower[0]
        positive_exit = (g > upper[0]) & ~negative
        want_negative, want_positive = _brute_force(g, positive, budget, mode)
        np.testing.assert_array_equal(negative, want_negative)
        np.testing.assert_array_equal(positive_exit, want_positive)
        # the thresholds lie in the open interval between the last row stopped
        # and the first row kept (or beyond every row)
        if negative.any() and (~negative).any():
            assert g[negative].max() < lower[0] <= g[~negative].min()


def _pipeline_example():
    """The shape of the paper's Appendix A.1 (a problem in Pipeline): each model
    votes +-10 on the examples it can stop and 0 elsewhere, so the set of
    examples a model lets stop (alpha = 0) is the same at every position."""
    sets = [{0, 1}, {2, 3, 4, 5, 6}, {0, 1, 2, 3, 7, 8}]       # example 9: never stopped
    n = 10
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    F = np.zeros((n, 3))
    for t, members in enumerate(sets):
        F[sorted(members), t] = 10 * sign[sorted(members)]
    return Problem(F, np.zeros(n), 0.0, 0, "both", np.ones(3))


def test_appendix_a1_pipeline_example():
    problem = _pipeline_example()

    def total_trees(schedule):
        rows = Rows(problem.F, problem.g0, problem.beta)
        return int(rows.run(schedule).n_trees.sum())

    costs = {perm: total_trees(place(problem, np.array(perm)))
             for perm in itertools.permutations(range(3))}
    greedy = place(problem)
    assert list(greedy.order) == [2, 1, 0]
    assert total_trees(greedy) == min(costs.values())     # the optimal order
    assert costs[(0, 1, 2)] > total_trees(greedy) + 5      # training order


def test_costs_weigh_the_choice():
    problem = _pipeline_example()
    expensive = Problem(problem.F, problem.g0, 0.0, 0, "both", np.array([1.0, 1.0, 100.0]))
    assert place(expensive).order[0] == 1      # J = 1/5 beats 100/6
