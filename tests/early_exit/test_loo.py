"""Thresholds whose budget holds on a leave-one-out count (qwyc(thresholds="loo"))."""
import math

import numpy as np
import pytest

from pygbm.early_exit.build import Settings, optimise
from pygbm.early_exit.loo import charge, loo_count, place_by_loo, side_cut
from pygbm.early_exit.outcome import EXIT_POSITIVE
from pygbm.early_exit.rate import rate_schedule
from pygbm.early_exit.thresholds import MODES, position_thresholds

from ._rows import synthetic_rows


def _charged(g, positive, lower, upper, counted=None):
    counted = np.zeros(g.size, dtype=bool) if counted is None else counted.copy()
    charge(counted, np.arange(g.size), g, positive, lower, upper)
    return counted


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_the_count_is_what_leaving_each_row_out_does(side):
    """One position, Algorithm 2 at budget 0 on one side in use (a finite threshold):
    a row is counted exactly when the thresholds set without it would let it exit
    wrongly (scores with ties, which a threshold never splits). A side not in use
    counts nothing."""
    rng = np.random.default_rng(3)
    mode = "negative" if side == "lower" else "positive"
    for _ in range(300):
        n = int(rng.integers(2, 14))
        g = np.round(rng.normal(size=n), 1)
        positive = rng.random(n) < 0.5
        lower, upper = (t[0] for t in position_thresholds(g[:, None], positive, 0, mode))
        counted = _charged(g, positive, lower, upper)
        if not np.isfinite(lower if side == "lower" else upper):
            assert not counted.any()
            continue
        for x in range(n):
            rest = np.arange(n) != x
            low_x, up_x = (t[0] for t in position_thresholds(g[rest, None], positive[rest], 0,
                                                             mode))
            wrong = (g[x] < low_x) if positive[x] else (g[x] > up_x and g[x] >= low_x)
            assert counted[x] == wrong, (g, positive, x)


def _value(g, bad, counted, cut_value, rate):
    """Rows stopped below ``cut_value`` less ``rate`` per row newly counted."""
    lower = cut_value
    after = _charged(g, bad, lower, np.inf, counted)
    return int(np.sum(g < lower)) - rate * int(np.sum(after & ~counted))


def test_side_cut_against_every_threshold():
    """side_cut stops the rows of most value (rows stopped less rate per row newly
    counted, as charge() counts them), or none when nothing is worth it."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.integers(1, 12))
        g = np.sort(np.round(rng.normal(size=n), 1))
        bad = rng.random(n) < 0.4
        counted = bad & (rng.random(n) < 0.3)
        rate = float(rng.choice([0.6, 1.0, 2.0, 3.5, 13.0]))
        i = side_cut(g, bad, counted, rate)
        chosen = -np.inf if i == 0 else (np.inf if i == n else (g[i - 1] + g[i]) / 2)
        if 0 < i < n:
            assert g[i - 1] < g[i]                       # a cut never splits a tie
        best = max(_value(g, bad, counted, c, rate)
                   for c in np.concatenate([[-np.inf], np.unique(g) + 0.05]))
        got = 0.0 if i == 0 else _value(g, bad, counted, chosen, rate)
        assert got == pytest.approx(max(best, 0.0)), (g, bad, counted, rate, i)


@pytest.mark.parametrize("order", ["qwyc", "gbt", "random", "explicit"])
@pytest.mark.parametrize("mode", MODES)
def test_the_count_holds_within_the_budget(order, mode):
    """On the rows the thresholds are set on, the leave-one-out count (and so the
    disagreements it includes) is at most floor(alpha N), honest or not; a
    replay of the schedule counts what the optimisation counted."""
    for seed, alpha in [(0, 0.0), (1, 0.01), (2, 0.05), (3, 0.123), (4, 0.3)]:
        rows = synthetic_rows(seed)
        chosen = np.random.default_rng(seed).permutation(12) if order == "explicit" else order
        for honest in (False, True):
            settings = Settings(mode, chosen, np.ones(12), honest, seed, "loo")
            schedule, used = optimise(rows, alpha, settings)
            assert used.n == rows.n                      # all rows, honest or not
            budget = math.floor(alpha * used.n)
            count = loo_count(used.problem(alpha, mode, np.ones(12)), schedule)
            assert count <= budget
            out = used.run(schedule)
            assert int(np.sum(out.decision != used.full_decision)) <= count
            if mode == "negative":
                assert not np.any(out.exit == EXIT_POSITIVE)


def test_place_by_loo_counts_as_the_replay():
    rows = synthetic_rows(5)
    problem = rows.problem(0.1, "both", np.ones(12))
    for rate in (0.6, 2.0, 7.0, 40.0):
        schedule, count = place_by_loo(problem, np.arange(12), rate)
        assert count == loo_count(problem, schedule)


def test_a_higher_rate_counts_no_more_and_alpha_zero_counts_nothing():
    rows = synthetic_rows(6)
    problem = rows.problem(0.2, "both", np.ones(12))
    counts = [place_by_loo(problem, np.arange(12), rate)[1] for rate in (0.6, 1.5, 4.0, 20.0)]
    assert counts == sorted(counts, reverse=True) and counts[0] > 0
    zero = rate_schedule(rows.problem(0.0, "both", np.ones(12)), np.arange(12), loo=True)
    assert loo_count(rows.problem(0.0, "both", np.ones(12)), zero) == 0
    out = rows.run(zero)
    assert np.all(out.decision == rows.full_decision)


def test_the_same_seed_gives_the_same_schedule():
    rows = synthetic_rows(7)
    settings = Settings("both", "qwyc", np.ones(12), True, 3, "loo")
    a, b = optimise(rows, 0.05, settings)[0], optimise(rows, 0.05, settings)[0]
    for field in ("order", "lower", "upper"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
