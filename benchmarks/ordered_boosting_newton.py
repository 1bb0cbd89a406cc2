"""Is R's first-order split criterion why plain boosting overfits all of Adult? (issue 25)

R gbm grows a bernoulli tree on the working response z = y - p with the case weights
(the split gain of least squares on z); its leaves are Newton steps. LightGBM, XGBoost
and CatBoost choose splits by the Newton gain too: z / h with weights w h, h = p (1 - p).
pygbm's ``{"name": "bernoulli", "splits": "newton"}`` grows the trees that way (it began
as this experiment's subclass). The script compares plain (R's splits), plain (Newton
splits) and ordered boosting on the protocol of ``ordered_boosting.py`` (bernoulli,
ordered_ts, depth 6, shrinkage 0.05, bag 0.5, max_bins 255, at most 1000 trees chosen on
the last fifth, test log loss), on the compiled engine (both engines give the same fits).

    PYTHONPATH=. python benchmarks/ordered_boosting_newton.py [--seeds 0 1 2]

Writes ``benchmarks/results/ordered_boosting_newton.md`` (and ``.csv``).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ordered_boosting as ob  # noqa: E402
import pygbm  # noqa: E402

#: the distribution with Newton splits (not R's criterion)
NEWTON = {"name": "bernoulli", "splits": "newton"}
FRACTIONS = (1.0, 0.1)


VARIANTS = (("plain, R's splits", "bernoulli", "plain"),
            ("plain, Newton splits", NEWTON, "plain"),
            ("ordered", "bernoulli", "ordered"))


def one_fit(rows, test, distribution, boosting_type, seed, n_trees):
    t0 = time.process_time()
    fit = pygbm.gbm(f"{ob.RESPONSE} ~ .", rows, distribution=distribution, n_trees=n_trees,
                    interaction_depth=ob.DEPTH, shrinkage=0.05, bag_fraction=ob.BAG_FRACTION,
                    train_fraction=1 - ob.VALID_FRACTION, categorical="ordered_ts",
                    max_bins=ob.MAX_BINS, boosting_type=boosting_type, random_state=seed,
                    keep_data=False, progress=False)
    best = int(np.argmin(fit.valid_error)) + 1
    loss = ob.log_loss(test[ob.RESPONSE].to_numpy(),
                       fit.predict(test, n_trees=best, type="response"))
    return best, loss, time.process_time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--n-trees", type=int, default=1000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    train, test = ob.adult()
    points = []
    for fraction in FRACTIONS:
        for seed in args.seeds:
            rows = ob.subset(train, fraction, seed)
            for label, distribution, boosting_type in VARIANTS:
                best, loss, cpu = one_fit(rows, test, distribution, boosting_type, seed,
                                          args.n_trees)
                points.append(dict(fraction=fraction, seed=seed, variant=label, trees=best,
                                   logloss=loss, cpu=cpu))
                print(points[-1], flush=True)
    table = pd.DataFrame(points)
    table.to_csv(ob.OUT / "ordered_boosting_newton.csv", index=False)
    text = report(table, args.seeds)
    (ob.OUT / "ordered_boosting_newton.md").write_text(text)
    print(text)


def report(table: pd.DataFrame, seeds) -> str:
    """The results page: test log loss per split and the relative changes."""
    wide = table.pivot_table(index=["fraction", "seed"], columns="variant", values="logloss")
    r, newton, ordered = (wide[v[0]] for v in VARIANTS)
    changes = pd.DataFrame({"ordered vs R's splits": 100 * (ordered / r - 1),
                            "ordered vs Newton splits": 100 * (ordered / newton - 1),
                            "Newton vs R's splits": 100 * (newton / r - 1)})
    shown = pd.concat([wide[[v[0] for v in VARIANTS]].round(4), changes.round(2)], axis=1)
    lines = ["# Plain boosting with R's and with Newton splits, and ordered boosting (Adult)", "",
             "benchmarks/ordered_boosting_newton.py: the protocol of ordered_boosting.py, "
             f"seeds {', '.join(map(str, seeds))}; test log loss at the trees the "
             "validation fifth chose; relative changes in %.", "",
             shown.reset_index().to_markdown(index=False), "",
             "Trees chosen: " + "; ".join(
                 f"{label} {table.loc[table.variant == label, 'trees'].tolist()}"
                 for label, _, _ in VARIANTS)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
