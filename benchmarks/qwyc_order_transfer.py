"""Does QWYC's order carry over to new rows? (issue 24, held-out gates)

An order is judged apart from its thresholds: each order's thresholds are set by
Algorithm 2 on the test rows themselves, at alpha, so every order has exactly the
test disagreement floor(alpha N)/N and the mean trees say how good the order is on
those rows. The orders: the training order; Algorithm 1's order chosen (at the same
alpha) on half of the optimisation rows (what ``honest=True`` uses), on all of them,
on the fit's training rows (the paper's protocol), and on the test rows themselves
(in-sample: what an order can do on the rows it was chosen on).

For contrast, the paper's protocol on the same gbm: the training order and QWYC with
order and thresholds both set on the training rows, mean trees on the test rows at
matched test disagreement (curves over alpha, as in ``qwyc_adult.py``).

The gbm of ``qwyc_adult.py`` fitted on a random 70% of Adult's training rows, the other
30% the optimisation rows, the 16,281 test rows; split seeds as given.

    python benchmarks/qwyc_order_transfer.py [--split-seeds 0 1 2]

Writes ``benchmarks/results/qwyc_order_transfer.md``.
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
from pygbm.early_exit.model_scores import ModelScores, decision_threshold  # noqa: E402

FIT_SHARE, HONEST_SEED, N_TREES = 0.7, 1, 500
ALPHAS = (0.005, 0.01, 0.02)
ORDERS = ("training order", "QWYC on half the optimisation rows", "QWYC on the optimisation rows",
          "QWYC on the training rows", "QWYC on the test rows (in-sample)")
RESULTS = qa.ROOT / "benchmarks" / "results"


def paper_protocol(trained, new, cost) -> dict:
    """Order and thresholds on the training rows: method -> mean trees on the test rows
    at each of ALPHAS as test disagreement (Pareto fronts interpolated)."""
    points = []
    for alpha in qa.ALPHAS_COARSE:
        for method, order in (("gbt", np.arange(N_TREES)), ("qwyc", None)):
            result = new.run(ordering.place(trained.problem(alpha, "both", cost), order))
            points.append(dict(method=method, mean_trees=float(result.n_trees.mean()),
                               disagreement=result.disagreement(new.full_decision)))
    table = pd.DataFrame(points)
    return {m: [qa.trees_at(table, m, d) for d in ALPHAS] for m in ("gbt", "qwyc")}


def one_split(split_seed: int) -> tuple[dict, dict]:
    """order name -> mean trees on the test rows at each alpha (thresholds set there),
    and the paper protocol's mean trees at those test disagreements."""
    fit_rows, opt_rows, test = qa.held_out_split(split_seed, FIT_SHARE)
    fit = gbm("over_50k ~ .", fit_rows, **qa.SETTINGS)
    beta = decision_threshold(fit.distribution, None)[1]
    scores = ModelScores(fit, N_TREES)
    opt = _scored(scores, fit, opt_rows, beta)
    trained = _scored(scores, fit, fit_rows, beta)
    new = _scored(scores, fit, test, beta, "newdata")
    half = opt.subset(np.random.default_rng(HONEST_SEED).permutation(opt.n)[: opt.n // 2])
    cost = np.ones(N_TREES)
    chosen_on = dict(zip(ORDERS[1:], (half, opt, trained, new)))
    out = {name: [] for name in ORDERS}
    for alpha in ALPHAS:
        t0 = time.time()
        for name in ORDERS:
            rows = chosen_on.get(name)
            order = np.arange(N_TREES) if rows is None else \
                ordering.place(rows.problem(alpha, "both", cost)).order
            result = new.run(ordering.place(new.problem(alpha, "both", cost), order))
            out[name].append(float(result.n_trees.mean()))
        print(f"split {split_seed}, alpha {alpha}: {time.time() - t0:.0f} s", flush=True)
    return out, paper_protocol(trained, new, cost)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split-seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    lines = ["# Does QWYC's order carry over to new rows? (benchmarks/qwyc_order_transfer.py)", "",
             f"Adult: the gbm of qwyc_adult.py fitted on a random {FIT_SHARE:.0%} of the training "
             "rows, the rest the optimisation rows, the 16,281 test rows. Every order gets its "
             "thresholds by Algorithm 2 **on the test rows**, at alpha: its test disagreement is "
             "then exactly floor(alpha N)/N, and its mean trees there measure the order alone. "
             "Orders chosen by Algorithm 1 at the same alpha; in brackets ÷ the training order.",
             "", "| split | order | " + " | ".join(f"alpha {a:g}" for a in ALPHAS) + " |",
             "|---|---|" + "---|" * len(ALPHAS)]
    paper = []
    for split_seed in args.split_seeds:
        trees, protocol = one_split(split_seed)
        base = trees[ORDERS[0]]
        for name in ORDERS:
            lines.append(f"| {split_seed} | {name} | " + " | ".join(
                f"{t:.1f}" if name == ORDERS[0] else f"{t:.1f} ({t / b:.2f})"
                for t, b in zip(trees[name], base)) + " |")
        paper += [f"| {split_seed} | training order | " + " | ".join(
            f"{g:.1f} ({g / b:.2f})" for g, b in zip(protocol["gbt"], base)) + " |",
            f"| {split_seed} | QWYC | " + " | ".join(
                f"{q:.1f} ({q / b:.2f}; {q / g:.2f})"
                for q, g, b in zip(protocol["qwyc"], protocol["gbt"], base)) + " |"]
    lines += ["", "The paper's protocol on the same gbms: order and thresholds set on the "
              "training rows, mean trees on the test rows at matched test disagreement "
              "(alpha's column: that test disagreement); in brackets ÷ the training order "
              "with thresholds set on the test rows (the table above), and for QWYC ÷ the "
              "training order of this protocol.", "",
              "| split | method | " + " | ".join(f"{a:.1%}" for a in ALPHAS) + " |",
              "|---|---|" + "---|" * len(ALPHAS)] + paper
    (RESULTS / "qwyc_order_transfer.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
