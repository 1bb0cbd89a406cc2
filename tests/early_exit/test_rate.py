"""Algorithm 2's cuts with the budget spent by rate (qwyc(thresholds="rate"))."""
import math

import numpy as np
import pytest

from pygbm.early_exit import ordering
from pygbm.early_exit.build import Settings, optimise
from pygbm.early_exit.outcome import EXIT_NEGATIVE, EXIT_POSITIVE
from pygbm.early_exit.rate import place_by_rate, rate_schedule
from pygbm.early_exit.thresholds import MODES, exits, rate_cuts, thresholds_of_cuts

from ._rows import synthetic_rows


def _value(g, positive, lower, upper, rate):
    negative, pos_exit = exits(g, lower, upper)
    bad = int(np.sum(negative & positive) + np.sum(pos_exit & ~positive))
    return int(np.sum(negative | pos_exit)) - rate * bad, bad


@pytest.mark.parametrize("mode", MODES)
def test_rate_cuts_against_brute_force(mode):
    """The cuts maximise rows stopped less rate per disagreement within the budget,
    over every pair of thresholds (scores with ties)."""
    rng = np.random.default_rng(7)
    for _ in range(400):
        n = int(rng.integers(1, 12))
        g = np.round(rng.normal(size=n), 1)
        positive = rng.random(n) < 0.5
        budget = int(rng.integers(0, 4))
        rate = float(rng.choice([0.6, 1.0, 1.5, 2.0, 3.0, 13.0]))
        i, j, s = rate_cuts(g, positive, budget, mode, rate)
        lower, upper = (t[0] for t in thresholds_of_cuts(i, j, s))
        value, bad = _value(g, positive, lower, upper, rate)
        assert bad <= budget and i[0] + j[0] == _value(g, positive, lower, upper, 0.0)[0]
        cuts = np.concatenate([[-np.inf], np.unique(g) + 0.05])
        best = -np.inf
        for low in cuts if mode != "positive" else [-np.inf]:
            for high in np.append(cuts, np.inf) if mode != "negative" else [np.inf]:
                v, b = _value(g, positive, low, max(low, high), rate)
                if b <= budget:
                    best = max(best, v)
        assert value == pytest.approx(best)


@pytest.mark.parametrize("order", ["qwyc", "gbt", "random", "explicit"])
@pytest.mark.parametrize("mode", MODES)
def test_budget_holds_on_the_thresholdsynthetic_rows(order, mode):
    for seed, alpha in [(0, 0.0), (1, 0.01), (2, 0.05), (3, 0.123), (4, 0.3)]:
        rows = synthetic_rows(seed)
        chosen = np.random.default_rng(seed).permutation(12) if order == "explicit" else order
        for honest in (False, True):
            schedule, used = optimise(rows, alpha, Settings(mode, chosen, np.ones(12), honest,
                                                            seed, "rate"))
            out = used.run(schedule)
            wrong = int(np.sum(out.decision != used.full_decision))
            assert wrong <= math.floor(alpha * used.n)
            if mode == "negative":
                assert not np.any(out.exit == EXIT_POSITIVE)
            if mode == "positive":
                assert not np.any(out.exit == EXIT_NEGATIVE)
            # the thresholds cross only where the two cuts stop every row left
            crossed = np.flatnonzero(schedule.lower > schedule.upper)
            assert crossed.size == 0 or np.all(out.n_trees <= crossed[0] + 1)
            assert sorted(schedule.order) == list(range(12))


@pytest.mark.parametrize("honest", [False, True])
def test_alpha_zero_is_algorithm_2s(honest):
    """With no budget the rate spends nothing: Algorithm 2's schedule at alpha 0."""
    for seed in range(4):
        rows = synthetic_rows(seed)
        for order in ("qwyc", "gbt"):
            greedy = optimise(rows, 0.0, Settings("both", order, np.ones(12), honest, seed))[0]
            rate = optimise(rows, 0.0, Settings("both", order, np.ones(12), honest, seed,
                                                "rate"))[0]
            for field in ("order", "lower", "upper"):
                np.testing.assert_array_equal(getattr(rate, field), getattr(greedy, field))


def test_the_order_is_algorithm_1s():
    """thresholds="rate" keeps Algorithm 1's order and changes only the thresholds."""
    rows = synthetic_rows(5)
    greedy = optimise(rows, 0.05, Settings("both", "qwyc", np.ones(12), False, 5))[0]
    rate = optimise(rows, 0.05, Settings("both", "qwyc", np.ones(12), False, 5, "rate"))[0]
    np.testing.assert_array_equal(rate.order, greedy.order)


def test_rate_spends_where_rows_stop_and_keeps_the_budget():
    """A higher rate never spends more; the chosen schedule spends within the budget
    and at least as many rows stop as with Algorithm 2's greedy spending here."""
    rows = synthetic_rows(11, n=2000, T=30)
    problem = rows.problem(0.02, "both", np.ones(30))
    order = np.arange(30)
    spent = []
    for rate in (1.0, 3.0, 10.0, 30.0, 100.0):
        out = rows.run(place_by_rate(problem, order, rate))
        spent.append(int(np.sum(out.decision != rows.full_decision)))
    assert spent == sorted(spent, reverse=True)
    by_rate = rows.run(rate_schedule(problem, order))
    greedy = rows.run(ordering.place(problem, order))
    assert np.sum(by_rate.decision != rows.full_decision) <= problem.budget
    assert by_rate.n_trees.mean() <= greedy.n_trees.mean()


def test_exit_every_with_rate():
    rows = synthetic_rows(2)
    schedule, _ = optimise(rows, 0.05, Settings("both", "gbt", np.ones(12), False, 2, "rate",
                                                exit_every=3))
    closed = (np.arange(1, 12) % 3) != 0
    assert np.all(np.isneginf(schedule.lower[:-1][closed]))
    assert np.all(np.isposinf(schedule.upper[:-1][closed]))
