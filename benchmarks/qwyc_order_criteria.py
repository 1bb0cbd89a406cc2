"""Can an order chosen by another criterion carry to new rows better than QWYC's?
(issue 24's held-out gate; not a test: it takes about half an hour)

    python benchmarks/qwyc_order_criteria.py [--data adult spam lending_club ticdata]
                                             [--splits 0 1 2]

Algorithm 1 places the tree that lets the most rows stop per unit of cost, a count
of rows at the extremes of the optimisation rows, and its lead over the training
order is mostly fitted to those rows (``qwyc_order_transfer.py``). The orders here
are chosen by criteria that every optimisation row enters smoothly:

* ``l2``: greedy forward selection of the tree that brings the partial link nearest
  the full link in squared distance, summed over the optimisation rows;
* ``l2_near``: the same with each row weighted 1 / (1 + (d / median d)^2), d the
  distance of its full link from the decision threshold (rows near it decide when
  rows can stop);
* ``magnitude``: the trees by the sum of their squared scores, largest first;
* ``l2_half``: ``l2`` chosen on half the optimisation rows (as ``honest=True``
  chooses its order);
* ``crossfit``: Algorithm 1 cross-fitted, per alpha: each candidate tree gets
  Algorithm 2's thresholds on half A of the optimisation rows (A's budget), and its
  cost per row stopped is counted on the other half B, so that a tree is not chosen
  for the extremes of the rows that set its thresholds (``crossfit_b``: its
  thresholds then set on B only, as ``honest=True`` does);
* ``crossfit_rate`` and ``honest_rate``: ``crossfit`` and QWYC with ``honest=True``
  with the budget spent by rate (``thresholds="rate"``), the best threshold rule on
  held-out rows so far (``qwyc_rate.py``).

Each order but ``crossfit_b`` gets Algorithm 2's thresholds on all the optimisation
rows. Compared, at
matched disagreement on the measuring rows (``qwyc_datasets.py``'s splits, gbm and
Pareto matching), with the training order (``gbt``, the gate's baseline: 0.6) and
QWYC with ``honest=True``. Writes ``benchmarks/results/qwyc_order_criteria.md`` and
the points to ``.csv``.
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
import qwyc_datasets as qd  # noqa: E402
from pygbm import gbm  # noqa: E402
from pygbm.early_exit.api import _scored  # noqa: E402
from pygbm.early_exit.build import Rows, Settings, optimise  # noqa: E402
from pygbm.early_exit.model_scores import ModelScores, decision_threshold  # noqa: E402
from pygbm.early_exit.thresholds import (disagreement_budget, exits,  # noqa: E402
                                         position_thresholds)

SMOOTH = ("l2", "l2_near", "magnitude", "l2_half")
CROSSFIT = ("crossfit", "crossfit_b")
RATE = ("honest_rate", "crossfit_rate")
COMPARED = ("honest",) + SMOOTH + CROSSFIT + RATE
#: elements of a candidate block (rows x candidates) searched at once
BLOCK_ELEMENTS = 1 << 21


def l2_order(rows: Rows, weight: np.ndarray) -> np.ndarray:
    """Greedy forward selection: at each position the tree whose score brings the
    partial link nearest the full link, in squared distance weighted by ``weight``."""
    scores = rows.scores
    residual = scores.sum(axis=0)              # full link less the partial (start: g0)
    weighted = scores * weight
    norms = (weighted * scores).sum(axis=1)
    free = np.ones(scores.shape[0], dtype=bool)
    order = []
    for _ in range(scores.shape[0]):
        gain = 2 * (weighted @ residual) - norms
        gain[~free] = -np.inf
        t = int(np.argmax(gain))
        order.append(t)
        free[t] = False
        residual = residual - scores[t]
    return np.asarray(order, dtype=np.intp)


def smooth_orders(rows: Rows, seed: int) -> dict:
    distance = np.abs(rows.g0 + rows.scores.sum(axis=0) - rows.beta)
    scale = np.median(distance)
    half = np.random.default_rng(seed).permutation(rows.n)[: rows.n // 2]
    return {"l2": l2_order(rows, np.ones(rows.n)),
            "l2_near": l2_order(rows, 1 / (1 + (distance / scale) ** 2)),
            "magnitude": np.argsort(-(rows.scores ** 2).sum(axis=1), kind="stable"),
            "l2_half": l2_order(rows.subset(half), np.ones(half.size))}


class _Active:
    """Rows of one half still uncertain, with their partial scores."""

    def __init__(self, rows: Rows, index: np.ndarray):
        self.scores, self.index, self.g = rows.scores, index, rows.g0[index].copy()

    def candidates(self, trees: np.ndarray) -> np.ndarray:
        """Partial scores after each candidate tree (rows x candidates)."""
        return self.g[:, None] + self.scores[np.ix_(trees, self.index)].T

    def add(self, tree: int, lower: float, upper: float, positive: np.ndarray) -> int:
        """Add ``tree``, drop the rows it lets exit; the disagreements among them."""
        self.g = self.g + self.scores[tree, self.index]
        negative, pos_exit = exits(self.g, lower, upper)
        full = positive[self.index]
        bad = int((negative & full).sum() + (pos_exit & ~full).sum())
        keep = ~(negative | pos_exit)
        self.index, self.g = self.index[keep], self.g[keep]
        return bad


def crossfit_order(rows: Rows, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """Algorithm 1 with each candidate's thresholds set on rows ``a`` (their budget
    floor(alpha |a|)) and its rows stopped counted on rows ``b`` (unit costs)."""
    positive = rows.full_decision
    half_a, half_b = _Active(rows, a), _Active(rows, b)
    budget = disagreement_budget(alpha, a.size)
    remaining, placed = np.arange(rows.scores.shape[0]), []
    while remaining.size > 1 and half_a.index.size and half_b.index.size:
        best, best_stops = (remaining[0], -np.inf, np.inf), 0
        block = max(1, BLOCK_ELEMENTS // half_a.index.size)
        for start in range(0, remaining.size, block):
            trees = remaining[start:start + block]
            lower, upper = position_thresholds(half_a.candidates(trees),
                                               positive[half_a.index], budget, "both")
            G = half_b.candidates(trees)
            stops = ((G < lower) | (G > upper)).sum(axis=0)
            k = int(np.argmax(stops))                   # the first of the most: J = 1/stops
            if stops[k] > best_stops:
                best, best_stops = (trees[k], lower[k], upper[k]), stops[k]
        tree, lower, upper = best
        placed.append(int(tree))
        remaining = remaining[remaining != tree]
        budget -= half_a.add(tree, lower, upper, positive)
        half_b.add(tree, lower, upper, positive)
    return np.concatenate([np.asarray(placed, dtype=np.intp), remaining])


def one_split(name: str, split_seed: int) -> pd.DataFrame:
    response = "over_50k" if name == "adult" else qd.load(name)[1]
    fit_rows, opt_rows, test = qd.split(name, split_seed)
    fit = gbm(f"{response} ~ .", fit_rows, **qa.SETTINGS)
    beta = decision_threshold(fit.distribution, None)[1]
    scores = ModelScores(fit, qd.N_TREES)
    opt = _scored(scores, fit, opt_rows, beta)
    new = _scored(scores, fit, test, beta, "newdata")
    cost = np.ones(qd.N_TREES)
    orders = smooth_orders(opt, qd.HONEST_SEED)
    methods = [("gbt", "gbt", False), ("honest", "qwyc", True)] + \
        [(m, orders[m], False) for m in SMOOTH]
    shuffled = np.random.default_rng(qd.HONEST_SEED).permutation(opt.n)
    a, b = shuffled[: opt.n // 2], shuffled[opt.n // 2:]
    points = []

    def point(method, alpha, schedule):
        out = new.run(schedule)
        points.append(dict(data=name, split_seed=split_seed, method=method, alpha=alpha,
                           mean_trees=float(out.n_trees.mean()),
                           disagreement=out.disagreement(new.full_decision)))

    for alpha in qa.ALPHAS_COARSE:
        for method, order, honest in methods:
            point(method, alpha, optimise(opt, alpha, Settings("both", order, cost, honest,
                                                               qd.HONEST_SEED))[0])
        order = crossfit_order(opt, a, b, alpha)
        point("crossfit", alpha, optimise(opt, alpha, Settings("both", order, cost, False,
                                                               qd.HONEST_SEED))[0])
        point("crossfit_b", alpha, optimise(opt.subset(b), alpha,
                                            Settings("both", order, cost, False,
                                                     qd.HONEST_SEED))[0])
        point("crossfit_rate", alpha, optimise(opt, alpha, Settings(
            "both", order, cost, False, qd.HONEST_SEED, "rate"))[0])
        point("honest_rate", alpha, optimise(opt, alpha, Settings(
            "both", "qwyc", cost, True, qd.HONEST_SEED, "rate"))[0])
    print(f"{name} split {split_seed} done", flush=True)
    return pd.DataFrame(points)


def ratios(table: pd.DataFrame) -> dict:
    """Per compared method: mean trees ÷ the training order's at every data set, split
    and matched disagreement both reach."""
    out = {m: [] for m in COMPARED}
    for _, part in table.groupby(["data", "split_seed"], sort=False):
        for d in qa.MATCH_AT:
            base = qa.trees_at(part, "gbt", d)
            for m in COMPARED:
                r = qa.trees_at(part, m, d) / base
                if np.isfinite(r):
                    out[m].append(r)
    return {m: np.array(v) for m, v in out.items()}


def per_split_lines(table: pd.DataFrame) -> list[str]:
    lines = ["| data | split | method | " + " | ".join(f"{100 * d:.2f}%" for d in qa.MATCH_AT)
             + " |", "|---|---|---|" + "---|" * len(qa.MATCH_AT)]
    for (name, split), part in table.groupby(["data", "split_seed"], sort=False):
        base = [qa.trees_at(part, "gbt", d) for d in qa.MATCH_AT]
        lines.append(f"| {name} | {split} | gbt (trees) | "
                     + " | ".join(f"{b:.1f}" for b in base) + " |")
        for m in COMPARED:
            lines.append(f"| {name} | {split} | {m} | " + " | ".join(
                f"{qa.trees_at(part, m, d) / b:.2f}" for d, b in zip(qa.MATCH_AT, base)) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", default=["adult", "spam", "lending_club", "ticdata"])
    ap.add_argument("--splits", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    start = time.strftime("%Y-%m-%d %H:%M")
    table = pd.concat([one_split(name, s) for name in args.data for s in args.splits],
                      ignore_index=True)
    table.to_csv(qd.RESULTS / "qwyc_order_criteria.csv", index=False)
    summary = ["| method | ÷ gbt: median (range) | at most 0.6 |", "|---|---|---|"]
    for m, r in ratios(table).items():
        summary.append(f"| {m} | {np.median(r):.2f} ({r.min():.2f}–{r.max():.2f}) | "
                       f"{(r <= 0.6).sum()} of {r.size} |" if r.size else
                       f"| {m} | no matched point | |")
    lines = (["# Orders by other criteria on held-out rows "
              "(benchmarks/qwyc_order_criteria.py)", "",
              f"{start}, {qa.load_text()} (2 cores). Data: {', '.join(args.data)}, split seeds "
              f"{', '.join(map(str, args.splits))}, as qwyc_datasets.py. Mean trees on the "
              "measuring rows at matched disagreement with the full model, ÷ the training "
              "order's with Algorithm 2's thresholds on all the optimisation rows (nan: not "
              "reached).", "", "## Over every data set, split and matched disagreement", ""]
             + summary + ["", "## Per data set and split", ""] + per_split_lines(table))
    (qd.RESULTS / "qwyc_order_criteria.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
