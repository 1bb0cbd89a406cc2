"""Can QWYC's order generalise better to new rows? (issue 24, held-out gates)

Experiments, not features: variants of how ``qwyc(honest=True)`` chooses its order,
on the held-out protocol of ``qwyc_heldout.py`` (Adult, the gbm fitted on a random 70%
of the training rows, order and thresholds optimised on the other 30%, measured on the
test rows; mean trees at matched test disagreement, Pareto fronts interpolated).

* ``qwyc_honest``: ``qwyc(honest=True)``: order by Algorithm 1 on half A, thresholds by
  Algorithm 2 on half B.
* ``order_alpha0`` / ``order_alpha2x``: the order chosen on A with alpha 0 / 2 alpha.
* ``order_all``: the order chosen on all the optimisation rows, thresholds on half B.
* ``windowK_honest`` / ``windowK``: Algorithm 1 choosing each position among only the
  next K trees of the training order (less selection), honest or not.
* ``honest_everyK``: ``qwyc(honest=True, exit_every=K)``: exits after every K-th
  position only (a feature since this measurement); ``gbt_every5`` the training order
  so.
* baselines: the training order with thresholds on all rows (``gbt``) and on half B
  (``gbt_honest``), LightGBM's margin rule (``margin``).

    python benchmarks/qwyc_honest_variants.py [--split-seeds 0 1 2]

Writes ``benchmarks/results/qwyc_honest_variants.md`` (and the points, ``.csv``).
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
import qwyc_adult as qa  # noqa: E402  (puts the repository on sys.path)
from pygbm import gbm  # noqa: E402
from pygbm.early_exit import ordering  # noqa: E402
from pygbm.early_exit.api import _scored  # noqa: E402
from pygbm.early_exit.build import Settings, optimise  # noqa: E402
from pygbm.early_exit.model_scores import ModelScores, decision_threshold  # noqa: E402

FIT_SHARE, HONEST_SEED, N_TREES = 0.7, 1, 500
WINDOWS = (5, 20, 50)
EXIT_EVERY = (3, 5, 10)
RESULTS = qa.ROOT / "benchmarks" / "results"


def variants(rows, cost):
    """name -> (alpha -> schedule)."""
    half = np.random.default_rng(HONEST_SEED).permutation(rows.n)
    a, b = rows.subset(half[: rows.n // 2]), rows.subset(half[rows.n // 2:])

    def honest(order_of):
        return lambda alpha: ordering.place(b.problem(alpha, "both", cost), order_of(alpha))

    def settings(order, honest_, every=1):
        return Settings("both", order, cost, honest_, HONEST_SEED, exit_every=every)

    out = {
        "qwyc_honest": lambda alpha: optimise(rows, alpha, settings("qwyc", True))[0],
        "order_alpha0": honest(lambda alpha: ordering.place(a.problem(0.0, "both", cost)).order),
        "order_alpha2x": honest(
            lambda alpha: ordering.place(a.problem(2 * alpha, "both", cost)).order),
        "order_all": honest(lambda alpha: ordering.place(rows.problem(alpha, "both", cost)).order),
    }
    for k in WINDOWS:
        out[f"window{k}_honest"] = honest(
            lambda alpha, k=k: ordering.place(a.problem(alpha, "both", cost), window=k).order)
        out[f"window{k}"] = lambda alpha, k=k: ordering.place(rows.problem(alpha, "both", cost), window=k)
    for k in EXIT_EVERY:
        out[f"honest_every{k}"] = lambda alpha, k=k: optimise(rows, alpha,
                                                              settings("qwyc", True, k))[0]
    out["gbt"] = lambda alpha: optimise(rows, alpha, settings("gbt", False))[0]
    out["gbt_every5"] = lambda alpha: optimise(rows, alpha, settings("gbt", False, 5))[0]
    out["gbt_honest"] = lambda alpha: optimise(rows, alpha, settings("gbt", True))[0]
    return out


def one_split(split_seed: int):
    """The table of points of one split of the training rows, and its sizes."""
    fit_rows, opt_rows, test = qa.held_out_split(split_seed, FIT_SHARE)
    fit = gbm("over_50k ~ .", fit_rows, **qa.SETTINGS)
    beta = decision_threshold(fit.distribution, None)[1]
    scores = ModelScores(fit, N_TREES)
    rows, new = _scored(scores, fit, opt_rows, beta), _scored(scores, fit, test, beta, "newdata")
    full_new = new.full_decision
    points = []
    for name, schedule_of in variants(rows, np.ones(N_TREES)).items():
        t0 = time.time()
        for alpha in qa.ALPHAS:
            out = new.run(schedule_of(alpha))
            points.append(dict(method=name, alpha=alpha, mean_trees=out.n_trees.mean(),
                               disagreement=out.disagreement(full_new)))
        print(f"split {split_seed}, {name}: {time.time() - t0:.0f} s", flush=True)
    table = pd.concat([pd.DataFrame(points)] + qa.margin_points(fit, opt_rows, test),
                      ignore_index=True)
    table.insert(0, "split_seed", split_seed)
    return table, (len(fit_rows), len(opt_rows), len(test))


def split_lines(table, split_seed, sizes):
    names = [m for m in table["method"].unique() if m not in ("gbt", "margin")]
    lines = [f"## Split seed {split_seed}", "",
             f"The gbm of qwyc_adult.py on {sizes[0]:,} rows, optimised on {sizes[1]:,} "
             f"held-out rows, measured on {sizes[2]:,} test rows.", "",
             "| test disagreement | gbt | margin | " + " | ".join(names) + " |",
             "|---|---|---|" + "---|" * len(names)]
    for d in qa.MATCH_AT:
        vals = {m: qa.trees_at(table, m, d) for m in table["method"].unique()}
        lines.append(f"| {100 * d:.2f}% | {vals['gbt']:.1f} | {vals['margin']:.1f} | " + " | ".join(
            f"{vals[m]:.1f} ({vals[m] / vals['gbt']:.2f} / {vals[m] / vals['margin']:.2f})"
            for m in names) + " |")
    least = {m: table.loc[table["method"] == m, "disagreement"].min() for m in names}
    return lines + ["", "Least test disagreement reached: " + ", ".join(
        f"{m} {100 * v:.2f}%" for m, v in least.items()) + ".", ""]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split-seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    tables, lines = [], []
    for split_seed in args.split_seeds:
        table, sizes = one_split(split_seed)
        tables.append(table)
        lines += split_lines(table, split_seed, sizes)
    pd.concat(tables, ignore_index=True).to_csv(RESULTS / "qwyc_honest_variants.csv",
                                                index=False)
    head = ["# Can QWYC's order generalise better? (benchmarks/qwyc_honest_variants.py)", "",
            f"Adult, split seeds {', '.join(map(str, args.split_seeds))}: a random "
            f"{FIT_SHARE:.0%} of the training rows fit the gbm, the rest are the optimisation "
            "rows. Mean trees at matched test disagreement (Pareto fronts interpolated; nan: "
            "not reached); in brackets ÷ the training order with thresholds on all rows "
            "(gbt) and ÷ the margin rule. Variants: the module's docstring.", ""]
    text = "\n".join(head + lines)
    (RESULTS / "qwyc_honest_variants.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
