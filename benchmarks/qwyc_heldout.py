"""QWYC on Adult optimised on held-out rows (issue 24's independent check, "honest=True on
held-out optimisation rows"), beside the paper's protocol of ``qwyc_adult.py``.

    python benchmarks/qwyc_heldout.py

The gbm of ``qwyc_adult.py`` (500 trees, interaction_depth=31, shrinkage 0.05) is fitted
on a random 70% of Adult's training rows; order and thresholds are optimised on the other
30% (9,769 rows the trees never saw), plainly and with ``honest=True`` (order on one half,
thresholds on the other); everything is measured on the 16,281 test rows and matched at
test disagreement as in ``qwyc_adult.py`` (same alphas, margins and matching rules).
Writes ``benchmarks/results/qwyc_heldout.md`` and the points to ``qwyc_heldout.csv``.
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qwyc_adult as qa  # noqa: E402  (puts the repository on sys.path)
from pygbm import gbm, qwyc_tradeoff  # noqa: E402

FIT_SHARE, SPLIT_SEED, HONEST_SEED = 0.7, 0, 1
METHODS = ("qwyc", "gbt", "margin", "qwyc_honest", "gbt_honest")
RULES = ((qa.trees_at, "Pareto fronts, interpolated"),
         (qa.trees_at_or_below, "fewest mean trees at or below the disagreement"),
         (qa.trees_all_points, "every point, log trees interpolated"))


def points(fit, opt_rows, test) -> pd.DataFrame:
    """Every method's (test disagreement, mean trees) points."""
    parts = []
    for honest in (False, True):
        tab = qwyc_tradeoff(fit, opt_rows, test, alphas=qa.ALPHAS, methods=("qwyc", "gbt"),
                            n_trees=500, honest=honest, random_state=HONEST_SEED)
        tab = tab[tab["method"] != "full"].copy()
        if honest:
            tab["method"] = tab["method"] + "_honest"
        parts.append(tab)
    return pd.concat(parts + qa.margin_points(fit, opt_rows, test), ignore_index=True)


def matched(table, rule) -> list:
    lines = ["| test disagreement | QWYC | GBT order | QWYC ÷ GBT | margin rule | QWYC ÷ margin "
             "| QWYC honest | GBT honest | honest ÷ GBT honest | honest ÷ GBT | honest ÷ margin |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in qa.MATCH_AT:
        q, g, m, h, gh = (rule(table, k, d) for k in METHODS)
        lines.append(f"| {100 * d:.2f}% | {q:.1f} | {g:.1f} | {q / g:.2f} | {m:.1f} | "
                     f"{q / m:.2f} | {h:.1f} | {gh:.1f} | {h / gh:.2f} | {h / g:.2f} | "
                     f"{h / m:.2f} |")
    return lines


def main() -> None:
    warnings.simplefilter("ignore")
    fit_rows, opt_rows, test = qa.held_out_split(SPLIT_SEED, FIT_SHARE)
    out = [f"Start: {qa.load_text()} (2 cores, shared)."]
    t0 = time.time()
    fit = gbm("over_50k ~ .", fit_rows, **qa.SETTINGS)
    y = test["over_50k"].to_numpy()
    out.append(f"gbm on {len(fit_rows):,} rows: {time.time() - t0:.0f} s; test accuracy "
               f"{qa.accuracy(fit.predict(test, n_trees=500) >= 0, y):.4f}; optimisation "
               f"rows: {len(opt_rows):,}")
    t0 = time.time()
    table = points(fit, opt_rows, test)
    out.append(f"qwyc_tradeoff: {time.time() - t0:.0f} s wall")
    table.to_csv(qa.ROOT / "benchmarks/results/qwyc_heldout.csv", index=False)
    for rule, what in RULES:
        out += ["", f"## Mean trees at matched test disagreement ({what})", ""]
        out += matched(table, rule)
    least = {k: table.loc[table["method"] == k, "disagreement"].min()
             for k in ("qwyc", "qwyc_honest", "gbt", "margin")}
    out += ["", "Least test disagreement reached: " + ", ".join(
        f"{k} {100 * v:.2f}%" for k, v in least.items()) + " (nan: not reached).",
        f"\nEnd: {qa.load_text()}."]
    text = "\n".join(["# QWYC on Adult, optimised on held-out rows (benchmarks/qwyc_heldout.py)",
                      "", f"gbm(over_50k ~ ., {qa.SETTINGS}) on a random "
                      f"{FIT_SHARE:.0%} of the training rows; order and thresholds optimised "
                      "on the other rows; measured on the test rows.", ""] + out)
    (qa.ROOT / "benchmarks/results/qwyc_heldout.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
