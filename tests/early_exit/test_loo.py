"""The leave-one-out count of a schedule: an estimate of the disagreement on new rows."""
import numpy as np
import pytest

from pygbm.early_exit.build import Settings, optimise
from pygbm.early_exit.loo import charge, loo_count
from pygbm.early_exit.ordering import Schedule
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


@pytest.mark.parametrize("rule", ["qwyc", "rate"])
@pytest.mark.parametrize("mode", MODES)
def test_the_count_holds_every_disagreement(rule, mode):
    """Every row whose early decision differs from the full model's is counted, so
    the count is at least the disagreements; thresholds in use add their edge rows
    (for some alpha the count exceeds the disagreements)."""
    above = 0
    for seed, alpha in [(0, 0.0), (1, 0.01), (2, 0.05), (3, 0.123), (4, 0.3)]:
        rows = synthetic_rows(seed)
        for order, honest in [("qwyc", False), ("gbt", False), ("qwyc", True)]:
            schedule, used = optimise(rows, alpha, Settings(mode, order, np.ones(12), honest,
                                                            seed, rule))
            count = loo_count(used.scores, used.g0, used.full_decision, schedule)
            wrong = int(np.sum(used.run(schedule).decision != used.full_decision))
            assert wrong <= count <= used.n
            above += count > wrong
    assert above > 0


def test_no_threshold_in_use_counts_nothing():
    """Thresholds at infinity until the last position (the full model): nothing exits
    and no edge row is counted."""
    rows = synthetic_rows(5)
    n_trees = rows.scores.shape[0]
    lower, upper = np.full(n_trees, -np.inf), np.full(n_trees, np.inf)
    lower[-1] = upper[-1] = rows.beta
    schedule = Schedule(np.arange(n_trees), lower, upper)
    assert loo_count(rows.scores, rows.g0, rows.full_decision, schedule) == 0
    assert rows.loo_disagreement(schedule) == 0.0
