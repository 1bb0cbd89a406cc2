"""The fit's features in random combinations: both engines give the same fit bit
for bit, and ``gbm_more`` continues a pickled fit to the fit of all its trees.

Each feature has tests of its own; these draw combinations of them (exact and
binned search, ``ordered_ts``, Newton splits, feature costs, zero subsampling,
ordered boosting, weights, offsets, a validation share, bags) on small random
frames with missing values, a factor and an ordered factor, for every
distribution these features meet. The draws are fixed (one seed per case), so a
failure names a reproducible case.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm

#: the distributions drawn from (multinomial and pairwise have tests of their own)
DISTRIBUTIONS = ("gaussian", "laplace", "tdist", "quantile", "huberized", "bernoulli",
                 "adaboost", "poisson", "coxph")
#: the cases of each check (a case: one seed of the draws below; case k fits
#: distribution k modulo their number, so that each check meets every one twice)
N_CASES = 2 * len(DISTRIBUTIONS)
#: each feature drawn with this probability where the distribution allows it
P_FEATURE = 0.5
LEVELS = list("abcdef")
ORDERED = ["lo", "mid", "hi"]
NA_SHARE = 0.1


def _frame(rng, name: str) -> pd.DataFrame:
    n = int(rng.integers(150, 300))
    df = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                       "k": rng.integers(0, 6, size=n).astype(float)})
    df["g"] = rng.choice(LEVELS[:int(rng.integers(2, len(LEVELS) + 1))], size=n)
    df["o"] = pd.Categorical(rng.choice(ORDERED, size=n), categories=ORDERED, ordered=True)
    effect = dict(zip(LEVELS, rng.normal(size=len(LEVELS))))
    eta = (df["x0"] - 0.5 * df["x1"] + 0.2 * df["k"] + df["g"].map(effect)
           + 0.5 * df["o"].cat.codes.sub(1)).to_numpy()
    for col in ("x0", "k", "g"):
        df[col] = df[col].mask(rng.random(n) < NA_SHARE)
    if name in ("bernoulli", "adaboost", "huberized"):
        df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    elif name == "poisson":
        df["y"] = rng.poisson(np.exp(0.5 * eta - 0.5))
        df["expo"] = rng.uniform(0.5, 2.0, n)
    elif name == "coxph":
        df["time"] = rng.exponential(np.exp(-0.5 * eta)) + 0.001
        df["status"] = (rng.random(n) < 0.7).astype(int)
    else:
        df["y"] = eta + rng.standard_t(4, size=n)
    df["w"] = rng.integers(1, 4, size=n).astype(float)
    return df


def _case(seed: int):
    """(formula, data, keyword arguments, label) of case ``seed``."""
    rng = np.random.default_rng(seed)
    name = DISTRIBUTIONS[seed % len(DISTRIBUTIONS)]
    df = _frame(rng, name)
    lhs = "Surv(time, status)" if name == "coxph" else "y"
    formula = f"{lhs} ~ x0 + x1 + k + g + o"
    kw = dict(distribution={"name": name}, n_trees=int(rng.integers(8, 20)),
              interaction_depth=int(rng.integers(1, 5)), n_minobsinnode=int(rng.choice([3, 5])),
              shrinkage=0.1, bag_fraction=float(rng.choice([0.5, 1.0])),
              train_fraction=float(rng.choice([0.8, 1.0])),
              random_state=int(rng.integers(1, 10**6)))
    if name == "tdist":
        kw["distribution"]["df"] = 4
    if name == "quantile":
        kw["distribution"]["alpha"] = 0.25
    drawn = lambda: rng.random() < P_FEATURE   # noqa: E731
    if drawn():
        kw["weights"] = "w"
    if drawn():
        kw["max_bins"] = int(rng.choice([8, 255]))
    if name == "poisson" and drawn():
        formula += " + offset(np.log(expo))"
    if name in ("bernoulli", "poisson") and drawn():
        kw["distribution"]["splits"] = "newton"
    if name in ("gaussian", "bernoulli", "poisson") and drawn():
        kw["categorical"] = "ordered_ts"
    if name in ("gaussian", "bernoulli", "poisson") and drawn():
        kw["boosting_type"] = "ordered"
    elif name != "coxph" and "categorical" not in kw and drawn():
        kw["feature_costs"] = {"x0": 1.0, "x1": 2.0, "k": 1.0, "g": 3.0, "o": 1.0}
        kw["cegb_tradeoff"] = float(rng.choice([1e-3, 1e-2]))
    if name in ("gaussian", "bernoulli", "poisson") and "feature_costs" not in kw \
            and drawn():
        kw["zero_subsample"] = float(rng.choice([0.3, 0.7]))
    return formula, df, kw, f"seed {seed}: {name}, {sorted(set(kw) - {'distribution'})}"


def _fit(formula, df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pygbm.gbm(formula, df, **kw)


def _assert_same(a, b, label):
    for key in ("fit", "train_error", "valid_error", "oobag_improve"):
        np.testing.assert_array_equal(np.asarray(getattr(a, key), float),
                                      np.asarray(getattr(b, key), float),
                                      err_msg=f"{key}, {label}")


@pytest.mark.parametrize("seed", range(N_CASES))
def test_both_engines_give_the_same_fit(seed):
    formula, df, kw, label = _case(seed)
    compiled = _fit(formula, df, **kw)
    reference = _fit(formula, df, engine="numpy", **kw)
    _assert_same(compiled, reference, label)
    rows = df.sample(frac=0.3, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # R's warning of an offset predict leaves out
        predictions = [fit.predict(rows, n_trees=kw["n_trees"]) for fit in (compiled, reference)]
    np.testing.assert_array_equal(*predictions, err_msg=label)


@pytest.mark.parametrize("seed", range(N_CASES, 2 * N_CASES))
def test_gbm_more_continues_to_the_fit_of_all_trees(seed):
    formula, df, kw, label = _case(seed)
    first = int(np.random.default_rng(seed).integers(1, kw["n_trees"]))
    whole = _fit(formula, df, **kw)
    part = pickle.loads(pickle.dumps(_fit(formula, df, **{**kw, "n_trees": first})))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        more = pygbm.gbm_more(part, kw["n_trees"] - first)
    _assert_same(whole, more, f"{label}, {first} trees then more")
