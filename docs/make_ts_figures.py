"""Vignette: categorical predictors with many levels — the target leak and
CatBoost's ordered target statistics in pygbm.

Run from the repository root:

    PYTHONPATH=. python docs/make_ts_figures.py

It prints its numbers and writes its figures to docs/img/ts/ (the write-up is
docs/ordered_target_statistics.md). About a minute on one core.

1. The leak, on simulated data: a categorical predictor with 2000 levels that
   has nothing to do with the response. Its greedy target statistic looks
   predictive on the training rows (it contains each row's own target); the
   leave-one-out statistic separates the classes of a constant feature; the
   ordered statistic does neither.
2. What the leak does to a boosted model: gbm with the noise categorical and
   one real predictor — greedy statistics overfit, ordered ones do not.
3. Real data (Lending Club loans, `addr_state` with 50 levels and
   `sub_grade` with 35): native R-style splits, greedy and ordered statistics,
   test deviance over the boosting iterations; influence and partial
   dependence reported on the original variables and levels.
4. Simulated high-cardinality data (1000 levels with random effects): the
   level effects the model recovers.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pygbm import gbm  # noqa: E402
from pygbm.target_stats import (  # noqa: E402
    greedy_statistic, loo_statistic, ordered_statistic)

ROOT = Path(__file__).resolve().parents[1]
FIG = ROOT / "docs" / "img" / "ts"
FIG.mkdir(parents=True, exist_ok=True)
COLORS = {"native": "#7f7f7f", "greedy_ts": "#d62728", "loo_ts": "#ff7f0e",
          "ordered_ts": "#1f77b4", "holdout_ts": "#2ca02c"}
warnings.simplefilter("ignore", UserWarning)


def auc(y, score):
    """Area under the ROC curve (Mann-Whitney, ties counted half)."""
    ranks = pd.Series(score).rank().to_numpy()
    n1 = int(y.sum())
    n0 = y.size - n1
    return (ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)


def deviance(y, f):
    """Bernoulli deviance (R gbm's: twice the log loss) of link values ``f``."""
    return float(-2 * np.mean(y * f - np.logaddexp(0, f)))


# ------------------------------------------------------------------ 1. the leak
def part1_leak():
    rng = np.random.default_rng(2018)
    n, k = 10_000, 2000
    level = rng.integers(0, k, n)
    y = rng.integers(0, 2, n).astype(float)
    w = np.ones(n)
    prior = y.mean()
    stats = {
        "greedy_ts": greedy_statistic(level, y, w, prior, 1.0),
        "loo_ts": loo_statistic(level, y, w, prior, 1.0),
        "ordered_ts": ordered_statistic(level, y, w, rng.permutation(n), prior, 1.0),
    }
    print("1. noise categorical (10k rows, 2000 levels, y independent of it)")
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.4))
    for ax, (mode, s) in zip(axes, stats.items()):
        a = auc(y, s)
        print(f"   training AUC of the {mode:10s} statistic: {a:.3f}")
        bins = np.linspace(0, 1, 41)
        ax.hist(s[y == 0], bins=bins, alpha=0.6, label="y = 0", color="#4c72b0")
        ax.hist(s[y == 1], bins=bins, alpha=0.6, label="y = 1", color="#dd8452")
        ax.set_title(f"{mode}: training AUC {a:.3f}")
        ax.set_xlabel("statistic of the noise categorical")
    axes[0].legend()
    # the constant feature: leave-one-out separates the classes perfectly
    const = np.zeros(n, dtype=int)
    loo = loo_statistic(const, y, w, prior, 1.0)
    ordered = ordered_statistic(const, y, w, rng.permutation(n), prior, 1.0)
    print(f"   constant feature: leave-one-out AUC {auc(y, loo):.3f} (perfect separation: "
          f"max for y=1 {loo[y == 1].max():.5f} < min for y=0 {loo[y == 0].min():.5f}); "
          f"ordered AUC {auc(y, ordered):.3f}")
    ax = axes[3]
    ax.scatter(np.arange(n), loo, c=np.where(y == 1, "#dd8452", "#4c72b0"), s=2)
    ax.set_title(f"constant feature, loo_ts: AUC {auc(y, loo):.3f}\n"
                 "(one threshold separates the classes)", fontsize=10)
    ax.set_xlabel("row")
    ax.set_ylim(loo.min() - 2e-5, loo.max() + 2e-5)
    fig.tight_layout()
    fig.savefig(FIG / "leak_statistics.png", dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ 2. leak in a model
def part2_model_with_noise():
    rng = np.random.default_rng(7)
    n, k = 12_000, 1000
    d = pd.DataFrame({"noise_id": [f"id{v}" for v in rng.integers(0, k, n)],
                      "x": rng.normal(size=n)})
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-(d["x"] - 1)))).astype(int)
    train, test = d.iloc[:8000], d.iloc[8000:]
    print("2. gbm on y ~ noise_id (1000 levels, no effect) + x (the real effect)")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for mode in ("greedy_ts", "loo_ts", "ordered_ts", "native"):
        fit = gbm("y ~ noise_id + x", train, distribution="bernoulli", n_trees=300,
                  shrinkage=0.05, interaction_depth=3, random_state=1, categorical=mode)
        f = fit.predict(test, n_trees=list(range(1, 301)))
        test_dev = [deviance(test["y"].to_numpy(), f[:, i]) for i in range(300)]
        inf = fit.relative_influence(n_trees=300, scale=False)
        share = inf["noise_id"] / inf.sum()
        print(f"   {mode:10s} train deviance {fit.train_error[-1]:.4f}  test deviance "
              f"{test_dev[-1]:.4f} (best {min(test_dev):.4f})  influence share of "
              f"noise_id {share:.0%}")
        axes[0].plot(fit.train_error, color=COLORS[mode], label=mode)
        axes[1].plot(test_dev, color=COLORS[mode], label=mode)
    axes[0].set_title("training deviance")
    axes[1].set_title("test deviance")
    for ax in axes:
        ax.set_xlabel("iterations")
    axes[1].legend()
    fig.tight_layout()
    fig.savefig(FIG / "leak_in_model.png", dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ 3. lending club
def part3_lending_club():
    d = pd.read_csv(ROOT / "data" / "lending_club.csv")
    d["bad"] = (d.pop("Class") == "bad").astype(int)
    rng = np.random.default_rng(0)
    d = d.iloc[rng.permutation(len(d))].reset_index(drop=True)
    train, test = d.iloc[:7400], d.iloc[7400:]
    y = test["bad"].to_numpy()
    print("3. Lending Club: bad ~ . (addr_state 50 levels, sub_grade 35, ...)")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    fits = {}
    for mode in ("native", "greedy_ts", "ordered_ts"):
        fit = gbm("bad ~ .", train, distribution="bernoulli", n_trees=500, shrinkage=0.02,
                  interaction_depth=4, random_state=1, categorical=mode)
        f = fit.predict(test, n_trees=list(range(1, 501)))
        dev = np.array([deviance(y, f[:, i]) for i in range(500)])
        print(f"   {mode:10s} best test deviance {dev.min():.4f} at {dev.argmin() + 1} trees, "
              f"{dev[-1]:.4f} at 500")
        ax.plot(np.arange(1, 501), dev, color=COLORS[mode], label=mode)
        fits[mode] = fit
    ax.set_xlabel("iterations")
    ax.set_ylabel("test deviance")
    ax.set_title("Lending Club: test deviance")
    ax.legend()
    fig.tight_layout()
    fig.savefig(FIG / "lending_club_deviance.png", dpi=110)
    plt.close(fig)

    fit = fits["ordered_ts"]
    inf = fit.relative_influence(n_trees=500, scale=False, sort=True)
    print("   relative influence (ordered_ts), on the original variables:")
    print("   " + ", ".join(f"{v} {100 * x / inf.sum():.1f}%" for v, x in inf.head(6).items()))
    # the statistic per level of addr_state, with the training counts
    j = fit.var_names.index("addr_state")
    table = fit.ts_encoder.level_table(j).iloc[:-1]          # drop the missing level
    table["level"] = fit.var_levels[j]
    table = table.sort_values("statistic")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4))
    axes[0].barh(inf.index[:10][::-1], (100 * inf / inf.sum()).to_numpy()[:10][::-1])
    axes[0].set_title("relative influence (%), ordered_ts")
    ax = axes[1]
    ax.scatter(np.arange(len(table)), table["statistic"], s=12 + table["weight"] / 10,
               color=COLORS["ordered_ts"])
    ax.axhline(fit.ts_encoder.prior, color="k", lw=0.8, ls="--", label="prior (bad rate)")
    ax.set_xticks(np.arange(len(table)), table["level"], rotation=90, fontsize=7)
    ax.set_title("addr_state: target statistic per level (size = rows)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(FIG / "lending_club_levels.png", dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ 4. simulated 1000 levels
def part4_simulated():
    rng = np.random.default_rng(3)
    n, k = 20_000, 1000
    freq = rng.lognormal(sigma=1.0, size=k)
    level = rng.choice(k, size=n, p=freq / freq.sum())
    effect = rng.normal(size=k)
    x = rng.normal(size=n)
    logit = -1.5 + effect[level] + 0.8 * x
    d = pd.DataFrame({"id": [f"L{v:04d}" for v in level], "x": x,
                      "y": (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)})
    train, test = d.iloc[:15000], d.iloc[15000:]
    print("4. simulated: 1000 levels with random effects on the logit")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for mode in ("native", "greedy_ts", "ordered_ts"):
        fit = gbm("y ~ id + x", train, distribution="bernoulli", n_trees=400, shrinkage=0.05,
                  interaction_depth=3, random_state=1, categorical=mode)
        f = fit.predict(test, n_trees=list(range(1, 401)))
        dev = np.array([deviance(test["y"].to_numpy(), f[:, i]) for i in range(400)])
        print(f"   {mode:10s} best test deviance {dev.min():.4f} at {dev.argmin() + 1} trees")
        axes[0].plot(np.arange(1, 401), dev, color=COLORS[mode], label=mode)
        if mode == "ordered_ts":
            # level effect recovered: prediction at x = 0 for each level
            labels = [f"L{v:04d}" for v in range(k)]
            grid = pd.DataFrame({"id": labels, "x": 0.0})
            seen = np.isin(labels, train["id"].unique())
            pred = fit.predict(grid[seen], n_trees=int(dev.argmin()) + 1)
            counts = train["id"].value_counts().reindex(np.array(labels)[seen]).to_numpy()
            sc = axes[1].scatter(effect[seen], pred, c=np.log10(counts), s=8, cmap="viridis")
            fig.colorbar(sc, ax=axes[1], label="log10 training rows of the level")
            r = np.corrcoef(effect[seen], pred)[0, 1]
            axes[1].set_title(f"ordered_ts: fitted vs true level effect (r = {r:.2f})")
            axes[1].set_xlabel("true effect (logit)")
            axes[1].set_ylabel("prediction at x = 0 (logit)")
    axes[0].set_title("simulated, 1000 levels: test deviance")
    axes[0].set_xlabel("iterations")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(FIG / "simulated_levels.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    part1_leak()
    part2_model_with_noise()
    part3_lending_club()
    part4_simulated()
    print(f"figures in {FIG}")
