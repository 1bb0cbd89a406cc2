"""Is qwyc's margin rule LightGBM's pred_early_stop? A black-box check (issue 24).

    python benchmarks/lightgbm_pred_early_stop.py

LightGBM documents pred_early_stop_freq ("the frequency of checking
early-stopping prediction", default 10) and pred_early_stop_margin ("the
threshold of margin", default 10) but not the binary rule itself. This script
trains a LightGBM binary model, asks LightGBM for early-stopped raw scores at
several (freq, margin) and replays pygbm's margin schedule
(pygbm.early_exit.build.margin_schedule, beta 0) on the model's own per-tree
raw scores: the exit scores must agree (to rounding: LightGBM sums the trees
itself) for every row. Prints the largest difference per setting.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pygbm.early_exit.build import margin_schedule          # noqa: E402
from pygbm.early_exit.evaluate import matrix_scores, run_schedule   # noqa: E402

N_TREES = 200
SETTINGS = ((1, 1.0), (1, 3.0), (10, 1.0), (10, 2.5), (7, 0.6), (10, 10.0))


def main():
    import lightgbm as lgb
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 5))
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] + 0.5 * rng.normal(size=3000) > 0.3).astype(int)
    booster = lgb.train({"objective": "binary", "learning_rate": 0.05, "num_leaves": 8,
                         "verbose": -1}, lgb.Dataset(x, y), num_boost_round=N_TREES)
    new = rng.normal(size=(2000, 5))
    partial = np.stack([booster.predict(new, num_iteration=k, raw_score=True)
                        for k in range(1, N_TREES + 1)])            # (trees, rows)
    per_tree = np.diff(partial, axis=0, prepend=0.0)
    print(f"LightGBM {lgb.__version__}: binary model, {N_TREES} trees, {len(new)} rows")
    worst = 0.0
    for freq, margin in SETTINGS:
        got = booster.predict(new, raw_score=True, pred_early_stop=True,
                              pred_early_stop_freq=freq, pred_early_stop_margin=margin)
        out = run_schedule(margin_schedule(N_TREES, 0.0, margin, freq=freq),
                           np.zeros(len(new)), matrix_scores(per_tree), 0.0)
        diff = float(np.max(np.abs(out.score - got)))
        worst = max(worst, diff)
        print(f"  freq {freq:2d}, margin {margin:4.1f}: {np.mean(out.n_trees < N_TREES):6.1%} "
              f"rows stop early; largest |pygbm - LightGBM| exit score {diff:.2e}")
    print("agree" if worst < 1e-9 else "DISAGREE")


if __name__ == "__main__":
    main()
