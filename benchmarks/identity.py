"""Bit-identity check of pygbm's fits across a code change (no timing).

``python benchmarks/identity.py write FILE`` fits a fixed set of cases that
cover every engine path of the benchmark workloads (exact, binned, few-value
histogram, missing values, categoricals, ordered target statistics, ordered boosting,
multinomial, pairwise, coxph, bernoulli, poisson, weights and offsets, cv,
gbm_more) and stores every number a fit produces: ``init_f``, the fitted
values, train/valid errors, OOB improvements, cv error and fitted values, the
trees' eight vectors, the categorical splits and predictions on new rows.
``python benchmarks/identity.py check FILE`` refits and compares every array
bit for bit (``np.array_equal`` with NaN equal to NaN), naming what differs.
``--engine numba|numpy`` fits with that engine (default: pygbm's default),
so that both engines are checked against the same file.

Used for refactorings that must not change behaviour: write the file on the
commit before, check it on the commit after.
"""
from __future__ import annotations

import os
import pickle
import sys
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pygbm  # noqa: E402
from workloads import synthetic  # noqa: E402

DATA = os.path.join(os.path.dirname(HERE), "data")


def _friedman(name, n):
    _, df, pred = synthetic(name, n)
    return df, pred.iloc[:500].reset_index(drop=True)


def _csv(name):
    return pd.read_csv(os.path.join(DATA, name))


def cases():
    """(name, callable returning (fit, newdata)) for every case."""
    out = []

    def add(name, formula, data, newdata=None, **kw):
        out.append((name, formula, data, newdata, kw))

    fr, fr_new = _friedman("friedman", 3000)
    na, na_new = _friedman("friedman_na", 3000)
    cat, cat_new = _friedman("friedman_cat", 3000)
    common = dict(n_trees=60, interaction_depth=3, shrinkage=0.05, random_state=11)
    add("friedman_exact", "y ~ .", fr, fr_new, distribution="gaussian",
        train_fraction=0.8, **common)
    add("friedman_exact_bag1", "y ~ .", fr, fr_new, distribution="gaussian",
        bag_fraction=1.0, train_fraction=0.8, **common)
    add("friedman_binned", "y ~ .", fr, fr_new, distribution="gaussian", max_bins=255,
        train_fraction=0.8, **common)
    add("friedman_na_exact", "y ~ .", na, na_new, distribution="gaussian",
        train_fraction=0.8, **common)
    add("friedman_na_binned", "y ~ .", na, na_new, distribution="gaussian", max_bins=64,
        train_fraction=0.8, **common)
    add("friedman_cat_exact", "y ~ .", cat, cat_new, distribution="gaussian",
        train_fraction=0.8, **common)
    add("friedman_cat_binned", "y ~ .", cat, cat_new, distribution="gaussian",
        max_bins=255, **common)
    add("friedman_cat_ordered_ts", "y ~ .", cat, cat_new, distribution="gaussian",
        categorical="ordered_ts", train_fraction=0.8, **common)
    add("friedman_cat_ordered_ts_comb", "y ~ .", cat, cat_new, distribution="gaussian",
        categorical="ordered_ts", ts_max_combination=2, max_bins=255, **common)
    add("friedman_cv", "y ~ .", fr.iloc[:1200], fr_new, distribution="gaussian",
        cv_folds=3, n_cores=1, **common)
    add("friedman_laplace_w", "y ~ . - w", fr.assign(w=np.linspace(0.5, 2, 3000)), fr_new.assign(w=1.0),
        distribution="laplace", weights="w", **common)
    add("friedman_quantile", "y ~ .", fr, fr_new,
        distribution={"name": "quantile", "alpha": 0.3}, **common)
    add("friedman_tdist", "y ~ .", fr, fr_new, distribution="tdist", **common)

    boston = _csv("boston.csv")
    add("boston_gaussian", "medv ~ .", boston, boston.iloc[:50],
        distribution="gaussian", n_trees=100, interaction_depth=3, shrinkage=0.05,
        random_state=3, cv_folds=3, n_cores=1)
    add("boston_fewvalues", "medv ~ chas + rad + zn + ptratio", boston, boston.iloc[:50],
        distribution="gaussian", n_trees=60, interaction_depth=2, random_state=3)

    letter = _csv("letter.csv").iloc[:3000]
    letter["lettr"] = pd.Categorical(letter["lettr"].where(letter["lettr"] < "E", "Z"))
    add("letter_multinomial", "lettr ~ .", letter, letter.iloc[:200],
        distribution="multinomial", n_trees=30, interaction_depth=3, shrinkage=0.1,
        random_state=5, train_fraction=0.8)
    add("letter_multinomial_newton", "lettr ~ .", letter, letter.iloc[:200],
        distribution={"name": "multinomial", "splits": "newton"}, n_trees=20,
        interaction_depth=2, shrinkage=0.1, random_state=5)
    bern = _csv("letter.csv").iloc[:3000].copy()
    bern.insert(0, "y", bern.pop("lettr").le("M").astype(int))
    add("letter_bernoulli", "y ~ .", bern, bern.iloc[:200], distribution="bernoulli",
        n_trees=60, interaction_depth=3, shrinkage=0.1, random_state=5,
        train_fraction=0.8)
    add("letter_bernoulli_cv", "y ~ .", bern.iloc[:1000], bern.iloc[:200],
        distribution="bernoulli", n_trees=30, interaction_depth=2, shrinkage=0.1,
        random_state=5, cv_folds=3, n_cores=1)
    add("letter_adaboost", "y ~ .", bern, bern.iloc[:200], distribution="adaboost",
        n_trees=40, interaction_depth=2, random_state=5)
    add("letter_huberized", "y ~ .", bern, bern.iloc[:200], distribution="huberized",
        n_trees=40, interaction_depth=2, random_state=5)
    # binned fits of the distributions that call exp or log (the C library's in both engines)
    add("letter_bernoulli_binned", "y ~ .", bern, bern.iloc[:200], distribution="bernoulli",
        n_trees=60, interaction_depth=3, shrinkage=0.1, random_state=5, max_bins=32,
        train_fraction=0.8)
    add("letter_bernoulli_newton_binned", "y ~ .", bern, bern.iloc[:200],
        distribution={"name": "bernoulli", "splits": "newton"}, n_trees=40,
        interaction_depth=3, shrinkage=0.1, random_state=5, max_bins=32)
    add("letter_adaboost_binned", "y ~ .", bern, bern.iloc[:200], distribution="adaboost",
        n_trees=40, interaction_depth=2, random_state=5, max_bins=32)
    add("friedman_tdist_binned", "y ~ .", fr, fr_new, distribution="tdist", max_bins=64,
        train_fraction=0.8, **common)
    # ordered boosting (its supporting models, their kept exponentials, its grower)
    add("friedman_cat_ordered_boosting", "y ~ .", cat, cat_new, distribution="gaussian",
        categorical="ordered_ts", boosting_type="ordered", max_bins=255, train_fraction=0.8,
        **common)
    add("letter_bernoulli_ordered", "y ~ .", bern, bern.iloc[:200], distribution="bernoulli",
        n_trees=40, interaction_depth=3, shrinkage=0.1, random_state=5, max_bins=32,
        boosting_type="ordered", train_fraction=0.8)
    add("letter_bernoulli_newton_ordered_history", "y ~ .", bern, bern.iloc[:200],
        distribution={"name": "bernoulli", "splits": "newton"}, n_trees=30,
        interaction_depth=3, shrinkage=0.1, random_state=5, max_bins=32,
        boosting_type="ordered", full_history=True)
    add("letter_adaboost_ordered", "y ~ .", bern, bern.iloc[:200], distribution="adaboost",
        n_trees=30, interaction_depth=2, random_state=5, max_bins=32, boosting_type="ordered")

    lung = _csv("lung.csv")
    add("lung_coxph", "Surv(time, status) ~ .", lung, lung.iloc[:40],
        distribution="coxph", n_trees=60, interaction_depth=2, shrinkage=0.05,
        random_state=9, train_fraction=0.8)
    add("lung_coxph_cv", "Surv(time, status) ~ .", lung, lung.iloc[:40],
        distribution="coxph", n_trees=30, interaction_depth=2, shrinkage=0.05,
        random_state=9, cv_folds=3, n_cores=1)
    add("lung_coxph_binned", "Surv(time, status) ~ .", lung, lung.iloc[:40],
        distribution="coxph", n_trees=40, interaction_depth=2, shrinkage=0.05,
        random_state=9, max_bins=16)

    ships = _csv("ship_accidents.csv")
    if "service" in ships.columns:
        ships = ships[ships["service"] > 0].reset_index(drop=True)
        add("ships_poisson_offset", "incidents ~ . - service + offset(log(service))",
            ships, ships, distribution="poisson", n_trees=40, interaction_depth=2,
            n_minobsinnode=3, random_state=2, bag_fraction=0.8)
        add("ships_poisson_offset_binned", "incidents ~ . - service + offset(log(service))",
            ships, ships, distribution="poisson", n_trees=40, interaction_depth=2,
            n_minobsinnode=3, random_state=2, bag_fraction=0.8, max_bins=8)

    pw = pd.read_csv(os.path.join(os.path.dirname(HERE), "tests", "r_reference_pairwise",
                                  "sim_groups.csv"))
    for metric in ("ndcg", "conc", "map", "mrr"):
        resp = "grade" if metric in ("ndcg", "conc") else "click"
        add(f"pairwise_{metric}", f"{resp} ~ x1 + x2 + x3 + x4", pw, pw.iloc[:60],
            distribution={"name": "pairwise", "group": "g", "metric": metric},
            n_trees=30, interaction_depth=2, random_state=4, train_fraction=0.8)
    add("pairwise_cv", "grade ~ x1 + x2 + x3 + x4", pw, pw.iloc[:60],
        distribution={"name": "pairwise", "group": "g", "metric": "ndcg"},
        n_trees=20, interaction_depth=2, random_state=4, cv_folds=3, n_cores=1)
    return out


def _arrays(fit, newdata):
    """Every array of a fit, by name."""
    out = {}
    for name in ("init_f", "fit", "train_error", "valid_error", "oobag_improve",
                 "cv_error", "cv_fitted"):
        value = getattr(fit, name)
        if value is not None:
            out[name] = np.asarray(value, dtype=float)
    for i, tree in enumerate(fit.trees):
        for field in ("split_var", "split_code_pred", "left", "right", "missing",
                      "error_reduction", "weight", "prediction"):
            out[f"tree{i}.{field}"] = np.asarray(getattr(tree, field))
    for i, split in enumerate(fit.c_splits):
        out[f"c_split{i}"] = np.asarray(split)
    n = fit.n_trees
    pred = fit.predict(newdata, n_trees=[1, n // 2, n])
    out["predict"] = np.asarray(pred, dtype=float)
    return out


def run(selected=None, engine=None):
    results = {}
    for name, formula, data, newdata, kw in cases():
        if selected and name not in selected:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = pygbm.gbm(formula, data=data, engine=engine, **kw)
            arrays = _arrays(fit, newdata)
            if name in ("friedman_exact", "friedman_cat_ordered_ts", "lung_coxph",
                        "letter_multinomial"):
                more = pygbm.gbm_more(fit, 15)
                arrays.update({f"more.{k}": v for k, v in _arrays(more, newdata).items()})
        results[name] = arrays
        print(f"{name}: {len(arrays)} arrays", flush=True)
    return results


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def main(argv):
    if len(argv) < 2 or argv[0] not in ("write", "check"):
        print(__doc__)
        return 2
    engine = None
    if "--engine" in argv:
        at = argv.index("--engine")
        engine = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    mode, path, selected = argv[0], argv[1], argv[2:]
    results = run(selected, engine)
    if mode == "write":
        with open(path, "wb") as fh:
            pickle.dump(results, fh)
        print(f"wrote {len(results)} cases to {path}")
        return 0
    with open(path, "rb") as fh:
        before = pickle.load(fh)
    bad = 0
    for name, arrays in results.items():
        old = before.get(name)
        if old is None:
            print(f"{name}: not in {path}")
            bad += 1
            continue
        diff = sorted(set(old) ^ set(arrays))
        diff += [k for k in sorted(set(old) & set(arrays)) if not _same(old[k], arrays[k])]
        if diff:
            bad += 1
            print(f"{name}: DIFFERS in {len(diff)} arrays, e.g. {diff[:5]}")
    print(f"{len(results) - bad} of {len(results)} cases bit-identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
