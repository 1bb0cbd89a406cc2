"""Why ordered boosting gains more on all of Adult than on its subsets (issue 25): the
test log loss along the trees, plain against ordered, on one split of the protocol of
``ordered_boosting.py`` (seed 0, all training rows; bernoulli, depth 6, shrinkage 0.05,
bag 0.5, ``max_bins=255``, trees chosen on the last fifth of the training rows).

    PYTHONPATH=. python benchmarks/ordered_boosting_curves.py [--n-trees 3000]

Writes ``benchmarks/results/ordered_boosting_curves.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ordered_boosting as ob  # noqa: E402
import pygbm  # noqa: E402

SEED, CURVE_STEP = 0, 200
VARIANTS = (("plain, ordered_ts (the protocol)", {}),
            ("plain, native categoricals", {"categorical": "native"}),
            ("ordered, ordered_ts (the protocol)", {"boosting_type": "ordered"}))


def curve(label, rows, test, n_trees, extra):
    kw = dict(distribution="bernoulli", n_trees=n_trees, interaction_depth=ob.DEPTH,
              shrinkage=0.05, bag_fraction=ob.BAG_FRACTION, train_fraction=1 - ob.VALID_FRACTION,
              categorical="ordered_ts", max_bins=ob.MAX_BINS, random_state=SEED,
              keep_data=False)
    t0 = time.process_time()
    fit = pygbm.gbm(f"{ob.RESPONSE} ~ .", rows, **{**kw, **extra})
    cpu = time.process_time() - t0
    y = test[ob.RESPONSE].to_numpy()
    best = int(np.argmin(fit.valid_error)) + 1
    steps = list(range(CURVE_STEP, n_trees + 1, CURVE_STEP))
    losses = [ob.log_loss(y, fit.predict(test, n_trees=k, type="response")) for k in steps]
    chosen = ob.log_loss(y, fit.predict(test, n_trees=best, type="response"))
    return f"| {label} | {best} | {chosen:.4f} | " + " | ".join(f"{v:.4f}" for v in losses) + \
        f" | {cpu:.0f} |", steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-trees", type=int, default=3000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    train, test = ob.adult()
    rows = ob.subset(train, 1.0, SEED)
    lines, steps = [], None
    for label, extra in VARIANTS:
        line, steps = curve(label, rows, test, args.n_trees, extra)
        lines.append(line)
        print(line, flush=True)
    head = ("| fit | trees chosen on the validation fifth | test log loss there | "
            + " | ".join(f"{k} trees" for k in steps) + " | CPU s |")
    text = "\n".join([
        "# Plain and ordered boosting along the trees on all of Adult "
        "(benchmarks/ordered_boosting_curves.py)", "",
        f"Seed {SEED}, all {len(rows):,} training rows (the last fifth for validation), "
        f"test log loss on the {len(test):,} test rows; load {os.getloadavg()[0]:.1f}.", "",
        head, "|" + "---|" * (4 + len(steps)), *lines, ""])
    (ob.OUT / "ordered_boosting_curves.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
