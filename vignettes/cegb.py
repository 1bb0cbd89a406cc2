"""Vignette: cost-efficient boosting — when every predictor has a price.

Run from the repository root:

    PYTHONPATH=. python vignettes/cegb.py

It prints its numbers and writes its figures to docs/img/cegb/ (the write-up
is docs/cegb.md). About 20 seconds on one core.

1. Why costs matter: an ordinary boosted model reads every predictor for
   every row after a few dozen trees, the expensive ones included.
2. The gatekeeper problem (simulated): five cheap predictors settle most
   rows, an expensive one decides the rest. With costs, the model reads the
   expensive predictors only for the rows inside the band, at nearly the
   same deviance: the cost-accuracy trade-off over lambda and trees.
3. Real data with realistic per-test costs: Pima Indians diabetes, where
   the glucose tolerance test and the insulin assay cost far more than
   asking the age or measuring the blood pressure.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pygbm import cost_tradeoff, gbm, plot_cost_tradeoff  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIG = ROOT / "docs" / "img" / "cegb"
FIG.mkdir(parents=True, exist_ok=True)
warnings.simplefilter("ignore", UserWarning)

# --------------------------------------------------------------------------
# 1-2. The gatekeeper simulation
CHEAP = [f"c{i}" for i in range(1, 6)]
EXPENSIVE = [f"e{i}" for i in range(1, 6)]
COSTS = {**{v: 1.0 for v in CHEAP}, **{v: 100.0 for v in EXPENSIVE}}


def gatekeeper(n, seed):
    """y = 1[c1 + 0.3 c2 > 0] outside the band |c1| <= 0.5, 1[e1 + 0.5 e2 > 0]
    inside it (about 38% of rows); 5% of labels flipped."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 10))
    band = np.abs(x[:, 0]) <= 0.5
    y = np.where(band, x[:, 5] + 0.5 * x[:, 6] > 0, x[:, 0] + 0.3 * x[:, 1] > 0)
    y = np.where(rng.random(n) < 0.05, ~y, y).astype(float)
    df = pd.DataFrame(x, columns=CHEAP + EXPENSIVE)
    df["y"] = y
    return df


train, test = gatekeeper(4000, 1), gatekeeper(4000, 2)
common = dict(distribution="bernoulli", n_trees=150, interaction_depth=15, shrinkage=0.05,
              bag_fraction=1.0, random_state=1, feature_costs=COSTS)
fits = {lam: gbm("y ~ .", train, cegb_tradeoff=lam, **common)
        for lam in (0.0, 1e-4, 1e-3, 1e-2)}

print("1. Without costs (lambda = 0) the model reads everything:")
plain = fits[0.0]
for n_trees in (5, 25, 150):
    cost = plain.predict_cost(test, n_trees=n_trees)["total"].mean()
    print(f"   {n_trees:3d} trees: mean cost per test row {cost:6.1f} of {sum(COSTS.values()):.0f}")
print(plain)

print("\n2. The trade-off: test deviance and mean cost per row at 150 trees")
table = cost_tradeoff({f"lambda={lam:g}": fit for lam, fit in fits.items()}, test,
                      n_trees=[10, 25, 50, 100, 150])
last = table[table["n_trees"] == 150][["model", "deviance", "mean_cost"]]
print(last.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
inside = np.abs(test["c1"].to_numpy()) <= 0.5
costly = fits[1e-3].predict_cost(test)["total"].to_numpy()
print(f"   lambda=1e-3: mean cost inside the band {costly[inside].mean():.1f}, "
      f"outside {costly[~inside].mean():.1f} (the optimum: about 200 inside, a few outside)")
print(fits[1e-3].summary(plot_it=False))
ax = plot_cost_tradeoff(table)
ax.set_title("Gatekeeper simulation: deviance against prediction cost")
ax.figure.savefig(FIG / "gatekeeper_tradeoff.png", dpi=110, bbox_inches="tight")
plt.close(ax.figure)

# --------------------------------------------------------------------------
# 3. Pima Indians diabetes with per-test costs
# Turney (1995) gives each test of this data set a cost in Canadian dollars;
# the glucose tolerance test and the insulin assay are the expensive ones.
# The values below are recalled from Turney's UCI cost file, not verified
# against it: check them before relying on the numbers.
PIMA_COSTS = {"pregnant": 1.0, "glucose": 17.61, "pressure": 1.0, "triceps": 1.0,
              "insulin": 22.78, "mass": 1.0, "pedigree": 1.0, "age": 1.0}
pima = pd.read_csv(ROOT / "data" / "pima2.csv")
rng = np.random.default_rng(7)
is_test = rng.random(len(pima)) < 0.3
p_train, p_test = pima[~is_test], pima[is_test]
p_common = dict(distribution="bernoulli", n_trees=300, interaction_depth=4, shrinkage=0.02,
                random_state=1, feature_costs=PIMA_COSTS)
p_fits = {f"lambda={lam:g}": gbm("diabetes ~ .", p_train, cegb_tradeoff=lam, **p_common)
          for lam in (0.0, 1e-3, 3e-3, 1e-2)}
p_table = cost_tradeoff(p_fits, p_test, n_trees=[25, 50, 100, 200, 300])
print("\n3. Pima: test deviance and mean cost per row at 300 trees")
print(p_table[p_table["n_trees"] == 300][["model", "deviance", "mean_cost"]]
      .to_string(index=False, float_format=lambda v: f"{v:.4g}"))
ax = plot_cost_tradeoff(p_table)
ax.set_title("Pima diabetes with per-test costs")
ax.figure.savefig(FIG / "pima_tradeoff.png", dpi=110, bbox_inches="tight")
plt.close(ax.figure)
