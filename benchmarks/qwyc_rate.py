"""QWYC's thresholds with alpha spent by rate against Algorithm 2's greedy spending
(``qwyc(thresholds="rate")``; issue 24).

Adult, the gbm of ``qwyc_adult.py`` fitted on a random 70% of the training rows:

* held out: order and thresholds optimised on the other 30% (the training order with
  thresholds on all of them; QWYC with ``honest=True``, also with ``exit_every=5``, and
  without), measured on the 16,281 test rows;
* the paper's protocol on the same gbm: optimised on the rows the trees were fitted on.

Mean trees at matched test disagreement (Pareto fronts over alpha, interpolated as in
``qwyc_adult.py``), greedy ("qwyc") and by rate ("rate") for each method, and LightGBM's
margin rule as the baseline.

    python benchmarks/qwyc_rate.py [--split-seeds 0 1 2]

Writes ``benchmarks/results/qwyc_rate.md`` (and the points, ``.csv``).
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qwyc_adult as qa  # noqa: E402  (puts the repository on sys.path)
from pygbm import gbm  # noqa: E402
from pygbm.early_exit.api import _scored  # noqa: E402
from pygbm.early_exit.build import Settings, optimise  # noqa: E402
from pygbm.early_exit.model_scores import ModelScores, decision_threshold  # noqa: E402

FIT_SHARE, HONEST_SEED, N_TREES = 0.7, 1, 500
RULES = ("qwyc", "rate")
#: (name, order, honest, exit_every, protocol): "held out" optimises on the held-out
#: rows, "paper" on the rows the trees were fitted on
METHODS = (("gbt", "gbt", False, 1, "held out"), ("qwyc_honest", "qwyc", True, 1, "held out"),
           ("qwyc_honest_every5", "qwyc", True, 5, "held out"),
           ("qwyc", "qwyc", False, 1, "held out"), ("paper_gbt", "gbt", False, 1, "paper"),
           ("paper_qwyc", "qwyc", False, 1, "paper"))
#: the methods compared with the baselines (the issue's held-out gates)
HONEST = ("qwyc_honest", "qwyc_honest_every5")
RESULTS = qa.ROOT / "benchmarks" / "results"


def one_split(split_seed: int) -> pd.DataFrame:
    fit_rows, opt_rows, test = qa.held_out_split(split_seed, FIT_SHARE)
    fit = gbm("over_50k ~ .", fit_rows, **qa.SETTINGS)
    beta = decision_threshold(fit.distribution, None)[1]
    scores = ModelScores(fit, N_TREES)
    rows = {"held out": _scored(scores, fit, opt_rows, beta),
            "paper": _scored(scores, fit, fit_rows, beta)}
    new = _scored(scores, fit, test, beta, "newdata")
    cost = np.ones(N_TREES)
    points = []
    for name, order, honest, every, protocol in METHODS:
        for rule in RULES:
            t0 = time.time()
            for alpha in qa.ALPHAS_COARSE:
                settings = Settings("both", order, cost, honest, HONEST_SEED, rule,
                                    exit_every=every)
                out = new.run(optimise(rows[protocol], alpha, settings)[0])
                points.append(dict(method=f"{name}_{rule}", alpha=alpha,
                                   mean_trees=float(out.n_trees.mean()),
                                   disagreement=out.disagreement(new.full_decision)))
            print(f"split {split_seed}, {name} {rule}: {time.time() - t0:.0f} s", flush=True)
    table = pd.concat([pd.DataFrame(points)] + qa.margin_points(fit, opt_rows, test),
                      ignore_index=True)
    table.insert(0, "split_seed", split_seed)
    return table


def split_lines(table: pd.DataFrame, split_seed: int) -> list[str]:
    at = {m: [qa.trees_at(table, m, d) for d in qa.MATCH_AT] for m in table["method"].unique()}
    lines = [f"## Split seed {split_seed}", "",
             "| method | " + " | ".join(f"{100 * d:.2f}%" for d in qa.MATCH_AT) + " |",
             "|---|" + "---|" * len(qa.MATCH_AT)]
    for name, *_ in METHODS:
        for rule in RULES:
            key = f"{name}_{rule}"
            cells = [f"{t:.1f}" if rule == "qwyc" else f"{t:.1f} ({t / g:.2f})"
                     for t, g in zip(at[key], at[f"{name}_qwyc"])]
            lines.append(f"| {name}, {rule} | " + " | ".join(cells) + " |")
    lines.append("| margin rule | " + " | ".join(f"{t:.1f}" for t in at["margin"]) + " |")
    lines += ["", "QWYC with `honest=True` (and `exit_every=5`) against the baselines (÷ the "
              "training order with Algorithm 2's thresholds on all the held-out rows, the "
              "issue's gate 0.6; ÷ the training order spending by rate; ÷ the margin rule, "
              "gate 0.5):", ""]
    for name, rule in itertools.product(HONEST, RULES):
        h = at[f"{name}_{rule}"]
        lines.append(f"* {name}, {rule}: " + ", ".join(
            f"{100 * d:.2f}%: {t / g:.2f} / {t / r:.2f} / {t / m:.2f}" for d, t, g, r, m in zip(
                qa.MATCH_AT, h, at["gbt_qwyc"], at["gbt_rate"], at["margin"])))
    lines.append("")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split-seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    tables, lines = [], []
    for split_seed in args.split_seeds:
        table = one_split(split_seed)
        tables.append(table)
        lines += split_lines(table, split_seed)
    pd.concat(tables, ignore_index=True).to_csv(RESULTS / "qwyc_rate.csv", index=False)
    head = ["# QWYC's thresholds spent by rate (benchmarks/qwyc_rate.py)", "",
            f"Adult, split seeds {', '.join(map(str, args.split_seeds))}: the gbm of "
            f"qwyc_adult.py on a random {FIT_SHARE:.0%} of the training rows. Mean trees on "
            "the 16,281 test rows at matched test disagreement (Pareto fronts over alpha, "
            "interpolated; nan: not reached). `gbt`, `qwyc_honest`, `qwyc`: optimised on the "
            "other 30% of the training rows (`qwyc_honest`: `honest=True`; `_every5`: with "
            "`exit_every=5`); `paper_*`: on the "
            "rows the trees were fitted on. `qwyc`: Algorithm 2's greedy spending of alpha; "
            "`rate`: spent by rate (in brackets ÷ the same method's greedy spending).", ""]
    (RESULTS / "qwyc_rate.md").write_text("\n".join(head + lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
