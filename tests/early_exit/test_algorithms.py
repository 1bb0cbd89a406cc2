"""QWYC's Algorithms 1 and 2 on score matrices (no fit needed)."""
import itertools
import math

import numpy as np
import pytest

from pygbm.early_exit import ordering
from pygbm.early_exit.build import Rows, Settings, optimise
from pygbm.early_exit.outcome import EXIT_NEGATIVE, EXIT_POSITIVE
from pygbm.early_exit.forest import compiled_kernels
from pygbm.early_exit.ordering import Problem, place
from pygbm.early_exit.thresholds import MODES, disagreement_budget, exits, position_thresholds

from ._rows import synthetic_rows


@pytest.mark.parametrize("order", ["qwyc", "gbt", "random", "explicit"])
@pytest.mark.parametrize("mode", ["both", "negative", "positive"])
def test_disagreement_at_most_floor_alpha_n(order, mode):
    for seed, alpha in [(0, 0.0), (1, 0.01), (2, 0.05), (3, 0.123), (4, 0.3)]:
        rows = synthetic_rows(seed)
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


@pytest.mark.parametrize("order", ["qwyc", "gbt"])
@pytest.mark.parametrize("every", [2, 3, 5])
def test_exit_every_allows_exits_at_its_positions_only(order, every):
    """exit_every: no thresholds between the exit positions, the budget still
    holds, and a fixed order's thresholds there are Algorithm 2's on the rows
    still active."""
    for seed, alpha in [(0, 0.0), (1, 0.02), (2, 0.1)]:
        rows = synthetic_rows(seed)
        schedule, used = optimise(rows, alpha, Settings("both", order, np.ones(12), False, seed,
                                                        exit_every=every))
        closed = (np.arange(1, 12) % every) != 0
        assert np.all(np.isneginf(schedule.lower[:-1][closed]))
        assert np.all(np.isposinf(schedule.upper[:-1][closed]))
        out = used.run(schedule)
        assert np.all((out.n_trees % every == 0) | (out.n_trees == 12))
        wrong = int(np.sum(out.decision != used.full_decision))
        assert wrong <= math.floor(alpha * rows.n)
        if order == "gbt":          # the same thresholds as Algorithm 2 at each exit position
            g, active = rows.g0.copy(), np.ones(rows.n, dtype=bool)
            budget, positive = disagreement_budget(alpha, rows.n), used.full_decision
            for position in range(1, 12):
                g = g + rows.scores[position - 1]           # summed as the schedule sums
                if position % every:
                    continue
                lower, upper = position_thresholds(g[active][:, None], positive[active],
                                                   budget, "both")
                assert (lower[0], upper[0]) == (schedule.lower[position - 1],
                                                schedule.upper[position - 1])
                negative, pos_exit = exits(g[active], lower[0], upper[0])
                budget -= int((negative & positive[active]).sum()
                              + (pos_exit & ~positive[active]).sum())
                active[np.flatnonzero(active)[negative | pos_exit]] = False


def test_exit_every_one_is_the_paper_rule():
    rows = synthetic_rows(5)
    for order in ("qwyc", "gbt"):
        default = optimise(rows, 0.03, Settings("both", order, np.ones(12), True, 5))[0]
        one = optimise(rows, 0.03, Settings("both", order, np.ones(12), True, 5,
                                            exit_every=1))[0]
        for a, b in zip((default.order, default.lower, default.upper),
                        (one.order, one.lower, one.upper)):
            np.testing.assert_array_equal(a, b)


def test_budget_reads_alpha_as_written():
    assert disagreement_budget(0.005, 1000) == 5
    assert disagreement_budget(0.07, 100) == 7          # 0.07 * 100 = 7.000000000000001
    assert disagreement_budget(0.29, 100) == 29         # 0.29 * 100 = 28.999999999999996
    assert disagreement_budget(0.0, 10 ** 6) == 0


def _brute_force(g, positive, budget, mode):
    """The best pair of cuts by trying every one: the i lowest rows exit negative,
    the j highest positive (cuts between distinct scores, i + j <= n), at most
    ``budget`` disagreements; the most rows stopped, then the fewest
    disagreements, then the most negative exits. Returns the two exit sets."""
    s, n = np.sort(g), g.size
    cuts_ = [k for k in range(n + 1) if k in (0, n) or s[k - 1] < s[k]]
    none = np.zeros(n, dtype=bool)
    best = None
    for i in (cuts_ if mode != "positive" else [0]):
        low = none if i == 0 else g < (s[i] if i < n else np.inf)
        for j in ([n - k for k in cuts_] if mode != "negative" else [0]):
            if i + j > n:
                continue
            high = none if j == 0 else (g >= s[n - j]) & ~low
            bad = int(np.sum(low & positive) + np.sum(high & ~positive))
            key = (i + j, -bad, i)
            if bad <= budget and (best is None or key > best[0]):
                best = (key, low, high)
    return best[1], best[2]


def _algorithm2(g, positive, budget, mode, kernels):
    """(lower, upper) by the NumPy reference or the compiled search (one
    candidate tree whose scores are ``g``, from partial scores 0)."""
    if kernels is None:
        lower, upper = position_thresholds(g[:, None], positive, budget, mode)
        return lower[0], upper[0]
    rows = np.arange(g.size)
    _, lower, upper = kernels.best_candidate(
        g[None, :].copy(), (rows[positive], np.zeros(positive.sum())),
        (rows[~positive], np.zeros((~positive).sum())), budget, MODES.index(mode),
        np.ones(1), np.zeros(1, dtype=np.intp))
    return lower, upper


@pytest.mark.parametrize("implementation", ["numpy", "compiled"])
@pytest.mark.parametrize("mode", ["both", "negative", "positive"])
def test_algorithm2_against_brute_force(mode, implementation):
    kernels = compiled_kernels() if implementation == "compiled" else None
    if implementation == "compiled" and kernels is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(7)
    for _ in range(400):
        n = int(rng.integers(1, 41))
        g = np.round(rng.normal(size=n), int(rng.integers(0, 3)))     # ties at 0-2 decimals
        positive = rng.random(n) < rng.uniform(0.05, 0.95)
        budget = int(rng.integers(0, 8))
        lower, upper = _algorithm2(g, positive, budget, mode, kernels)
        negative, positive_exit = exits(g, lower, upper)
        want_negative, want_positive = _brute_force(g, positive, budget, mode)
        np.testing.assert_array_equal(negative, want_negative)
        np.testing.assert_array_equal(positive_exit, want_positive)
        assert lower <= upper or negative.sum() + positive_exit.sum() == n
        # the thresholds lie in the open interval between the last row stopped
        # and the first row kept (or beyond every row)
        if negative.any() and (~negative).any():
            assert g[negative].max() < lower <= g[~negative].min()
        if positive_exit.any() and (~positive_exit & ~negative).any():
            assert g[~positive_exit & ~negative].max() <= upper < g[positive_exit].min()


def test_compiled_and_numpy_algorithms_agree(monkeypatch):
    """Both searches of Algorithm 1 give the same schedule, position by position."""
    if compiled_kernels() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(3)
    for seed, alpha, mode in [(0, 0.0, "both"), (1, 0.02, "both"), (2, 0.1, "negative"),
                              (3, 0.05, "positive"), (4, 0.4, "both")]:
        rows = synthetic_rows(seed, n=int(rng.integers(50, 400)), T=12)
        problem = Problem(rows.scores, rows.g0, 0.0, disagreement_budget(alpha, rows.n), mode,
                          rng.uniform(0.5, 2.0, 12))
        compiled = place(problem)
        with monkeypatch.context() as m:
            m.setattr(ordering, "compiled_kernels", lambda: None)
            reference = place(problem)
        np.testing.assert_array_equal(compiled.order, reference.order)
        np.testing.assert_array_equal(compiled.lower, reference.lower)
        np.testing.assert_array_equal(compiled.upper, reference.upper)


def _pipeline_example():
    """The shape of the paper's Appendix A.1 (a problem in Pipeline): each model
    votes +-10 on the examples it can stop and 0 elsewhere, so the set of
    examples a model lets stop (alpha = 0) is the same at every position."""
    sets = [{0, 1}, {2, 3, 4, 5, 6}, {0, 1, 2, 3, 7, 8}]       # example 9: never stopped
    n = 10
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    scores = np.zeros((3, n))
    for t, members in enumerate(sets):
        scores[t, sorted(members)] = 10 * sign[sorted(members)]
    return Problem(scores, np.zeros(n), 0.0, 0, "both", np.ones(3))


def test_appendix_a1_pipeline_example():
    problem = _pipeline_example()

    def total_trees(schedule):
        rows = Rows(problem.scores, problem.g0, problem.beta)
        return int(rows.run(schedule).n_trees.sum())

    costs = {perm: total_trees(place(problem, np.array(perm)))
             for perm in itertools.permutations(range(3))}
    greedy = place(problem)
    assert list(greedy.order) == [2, 1, 0]
    assert total_trees(greedy) == min(costs.values())     # the optimal order
    assert costs[(0, 1, 2)] > total_trees(greedy) + 5      # training order


def test_costs_weigh_the_choice():
    problem = _pipeline_example()
    expensive = Problem(problem.scores, problem.g0, 0.0, 0, "both", np.array([1.0, 1.0, 100.0]))
    assert place(expensive).order[0] == 1      # J = 1/5 beats 100/6


@pytest.mark.parametrize("implementation", ["numpy", "compiled"])
def test_cuts_that_stop_every_row_at_adjacent_doubles_stop_them(implementation):
    # the lowest three rows exit negative and the highest positive, the two middle
    # scores adjacent doubles: no threshold lies strictly between them, so lower is
    # the upper row's score and upper the lower row's (the negative exit is tested
    # first); lifting upper to lower kept the top row in, one stop short of the
    # cuts Algorithm 1 had counted
    kernels = compiled_kernels() if implementation == "compiled" else None
    if implementation == "compiled" and kernels is None:
        pytest.skip("numba is not installed")
    a = 0.9
    g = np.array([-1.0, -0.3, np.nextafter(a, -1.0), a])
    positive = np.array([False, False, False, True])
    lower, upper = _algorithm2(g, positive, 0, "both", kernels)
    negative, positive_exit = exits(g, lower, upper)
    np.testing.assert_array_equal(negative, [True, True, True, False])
    np.testing.assert_array_equal(positive_exit, [False, False, False, True])
    assert (lower, upper) == (a, np.nextafter(a, -1.0))
