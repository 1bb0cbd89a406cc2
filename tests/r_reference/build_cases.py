"""Write ``cases.json`` (and ``bagged_cases.json``) from the compact table below.

Run ``python3 tests/r_reference/build_cases.py`` after editing this file, then
regenerate the fixtures with the R scripts (see README.md). Every case in the
JSON files is fully explicit: the defaults below are filled in.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: fields every conformance case gets unless it says otherwise
DEFAULTS = {
    "weights": None,
    "var_monotone": None,
    "n_trees": 100,
    "interaction_depth": 3,
    "n_minobsinnode": 10,
    "shrinkage": 0.1,
    "bag_fraction": 1,
    "train_fraction": 1,
}

# -- reusable preprocessing pieces ---------------------------------------------
DIAMOND_LEVELS = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": ["D", "E", "F", "G", "H", "I", "J"],
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}
INSURANCE_ORDERED = {
    "Group": ["<1l", "1-1.5l", "1.5-2l", ">2l"],
    "Age": ["<25", "25-29", "30-35", ">35"],
}
BREAST_PREDICTORS = ["Cl.thickness", "Cell.size", "Cell.shape", "Marg.adhesion",
                     "Epith.c.size", "Bare.nuclei", "Bl.cromatin",
                     "Normal.nucleoli", "Mitoses"]
W3 = {"col": "w", "mod": 3}
W5 = {"col": "w", "mod": 5}
#: weights that are not whole numbers: R normalises them with sum(), which adds
#: in long double, so the normalised weights' last bits are R's only when
#: pygbm's sum is too (on both data sets below NumPy's pairwise sum differs from it)
W3_FRACTIONAL = {"col": "w", "mod": 3, "scale": 0.3}
OZONE = {"subset": [{"col": "ozone", "op": "notna"}],
         "factor": {"month": None, "day_of_week": None}}
LUNG = {"recode": [{"col": "status", "subtract": 1}]}
PBC = {"drop": ["id"], "recode": [{"col": "status", "indicator": 2}]}
BOSTON = {"factor": {"chas": None}}
#: the first 300 letters, one letter against the rest as a 0/1 response
LETTER_W = {"head": 300, "recode": [{"col": "lettr", "indicator": "W"}]}
LETTER_Z = {"head": 300, "recode": [{"col": "lettr", "indicator": "Z"}]}
INSURANCE_F = "Claims ~ District + Group + Age + offset(log(Holders))"
SHIP_F = "incidents ~ type + construction + operation + offset(log(service))"
SURV = "Surv(time, status) ~ ."


def case(name, description, data, formula, distribution, prep=None, **kw):
    """One conformance case with the defaults filled in."""
    out = {"name": name, "description": description, "data": f"data/{data}.csv",
           "prep": prep or {}, "formula": formula,
           "distribution": distribution if isinstance(distribution, dict)
           else {"name": distribution}}
    out.update(DEFAULTS)
    out.update(kw)
    n = out["n_trees"]
    out.setdefault("pred_n_trees", sorted({1, max(1, n // 2), n}))
    return out


CASES = [
    # ---- gaussian ---------------------------------------------------------------------
    case("gaussian_boston", "gaussian, numeric + 0/1 factor, depth 3",
         "boston", "medv ~ .", "gaussian", BOSTON),
    case("gaussian_boston_depth1_shrink1", "gaussian, stumps, shrinkage 1, minobs 5",
         "boston", "medv ~ .", "gaussian", BOSTON, n_trees=30, interaction_depth=1,
         shrinkage=1, n_minobsinnode=5, pred_n_trees=[30, 1, 7]),
    case("gaussian_boston_valid_depth5", "gaussian, depth 5, minobs 5, train_fraction 0.8",
         "boston", "medv ~ .", "gaussian", BOSTON, interaction_depth=5,
         n_minobsinnode=5, train_fraction=0.8),
    case("gaussian_boston_weights", "gaussian, case weights 1 + (row mod 3), formula drops w",
         "boston", "medv ~ . - w", "gaussian", {**BOSTON, "add_weights": W3},
         weights="w", train_fraction=0.8),
    case("gaussian_ozone_fractional_weights", "gaussian, NAs, weights (1 + row mod 3) * 0.3",
         "ozone", "ozone ~ . - w", "gaussian", {**OZONE, "add_weights": W3_FRACTIONAL},
         weights="w", interaction_depth=4, n_minobsinnode=5, n_trees=60),
    case("gaussian_boston_monotone", "gaussian, explicit predictors, var_monotone +1/-1",
         "boston", "medv ~ lstat + rm + crim + nox + dis + age", "gaussian",
         interaction_depth=2, var_monotone=[-1, 1, -1, -1, 0, 0]),
    case("gaussian_boston_na_inject", "gaussian, injected NAs in numeric and factor columns",
         "boston", "medv ~ .", "gaussian",
         {**BOSTON, "na_inject": {"cols": ["crim", "rm", "lstat", "age", "chas"],
                                  "frac": 0.15, "seed": 1}},
         interaction_depth=4, n_minobsinnode=20, train_fraction=0.75),
    case("gaussian_boston_minobs20_depth4", "gaussian, depth 4, minobs 20, shrinkage 0.3",
         "boston", "medv ~ .", "gaussian", BOSTON, interaction_depth=4,
         n_minobsinnode=20, shrinkage=0.3, n_trees=60),
    case("gaussian_ozone_na", "gaussian, natural NAs, unordered month/day_of_week",
         "ozone", "ozone ~ .", "gaussian", OZONE, interaction_depth=4, train_fraction=0.75),
    case("gaussian_ozone_shrink0001", "gaussian, shrinkage 0.001, stumps, NAs",
         "ozone", "ozone ~ .", "gaussian", OZONE, n_trees=200, interaction_depth=1,
         shrinkage=0.001),
    case("gaussian_diamonds_ordered", "gaussian log(price), ordered cut/color/clarity",
         "diamonds", "log(price) ~ .", "gaussian",
         {"stride": 27, "ordered": DIAMOND_LEVELS}, train_fraction=0.8,
         interaction_depth=4),
    case("gaussian_diamonds_unordered_weights", "gaussian, unordered cut/color/clarity, weights",
         "diamonds", "log(price) ~ . - w", "gaussian",
         {"stride": 23, "add_weights": W5}, weights="w", n_trees=80),
    case("gaussian_diamonds_unused_level", "ordered level never observed (cut Fair dropped)",
         "diamonds", "log(price) ~ carat + cut + color + clarity", "gaussian",
         {"subset": [{"col": "cut", "op": "!=", "value": "Fair"}], "stride": 29,
          "ordered": DIAMOND_LEVELS}, interaction_depth=2, n_trees=50),
    case("gaussian_cps1988_large", "gaussian log(wage), 5000 rows, string factors, depth 4",
         "cps1988", "log(wage) ~ .", "gaussian", {"stride": 5, "head": 5000},
         n_trees=150, interaction_depth=4, train_fraction=0.8),
    case("gaussian_lending_club_depth5", "gaussian int_rate, many categoricals, depth 5, minobs 20",
         "lending_club", "int_rate ~ . - sub_grade", "gaussian", {"stride": 4},
         interaction_depth=5, n_minobsinnode=20, n_trees=60, train_fraction=0.8),
    case("gaussian_ship_tiny", "gaussian on 34 rows, depth 5, minobs 5",
         "ship_accidents", "incidents ~ .", "gaussian",
         {"subset": [{"col": "service", "op": "!=", "value": 0}]},
         interaction_depth=5, n_minobsinnode=5, n_trees=40),
    case("gaussian_letter_binary_pure", "gaussian on a 0/1 response (letter W), 16 integer "
         "predictors, depth 5: pure nodes, whose split R's rounding noise (gains ~1e-29) "
         "decides", "letter", "lettr ~ .", "gaussian", LETTER_W, interaction_depth=5,
         n_trees=40),
    # ---- laplace ----------------------------------------------------------------------
    case("laplace_boston", "laplace, depth 3, shrinkage 0.05",
         "boston", "medv ~ .", "laplace", BOSTON, shrinkage=0.05),
    case("laplace_ozone_na_weights_valid", "laplace, NAs, weights, train_fraction 0.8",
         "ozone", "ozone ~ . - w", "laplace", {**OZONE, "add_weights": W3},
         weights="w", interaction_depth=2, train_fraction=0.8),
    case("laplace_diamonds_ordered", "laplace, ordered factors, minobs 20",
         "diamonds", "log(price) ~ .", "laplace", {"stride": 31, "ordered": DIAMOND_LEVELS},
         interaction_depth=3, n_minobsinnode=20, n_trees=80),
    # ---- tdist ------------------------------------------------------------------------
    case("tdist_df4_boston", "tdist df 4", "boston", "medv ~ .",
         {"name": "tdist", "df": 4}, BOSTON, interaction_depth=2),
    case("tdist_df10_ozone_na_valid", "tdist df 10, NAs, train_fraction 0.8",
         "ozone", "ozone ~ .", {"name": "tdist", "df": 10}, OZONE, train_fraction=0.8),
    case("tdist_default_df_weights", "tdist without df (R's default 4), weights",
         "boston", "medv ~ . - w", {"name": "tdist"}, {**BOSTON, "add_weights": W3},
         weights="w", interaction_depth=1, shrinkage=0.2, n_trees=50),
    case("tdist_df2_monotone", "tdist df 2 with var_monotone",
         "boston", "medv ~ lstat + rm + ptratio + tax", {"name": "tdist", "df": 2},
         interaction_depth=3, var_monotone={"lstat": -1, "rm": 1}, n_trees=60),
    # ---- huberized --------------------------------------------------------------------
    case("huberized_pima2_na", "huberized, NAs, depth 2", "pima2", "diabetes ~ .",
         "huberized", interaction_depth=2),
    case("huberized_breast_cancer_ordered_valid", "huberized, ordered predictors, valid",
         "breast_cancer", "Class ~ .", "huberized", {"ordered": BREAST_PREDICTORS},
         train_fraction=0.7, n_trees=60, shrinkage=0.05),
    # R's leaf denominator (w (1 - m)) (1 - m) rounds otherwise than w (1 - m)^2: deep
    # trees of small leaves meet it in the first trees (pygbm's was an ulp off there)
    case("huberized_pima2_deep_small_leaves", "huberized, depth 8, minobs 1, weights",
         "pima2", "diabetes ~ . - w", "huberized", {"add_weights": W3_FRACTIONAL},
         weights="w", interaction_depth=8, n_minobsinnode=1, shrinkage=0.5, n_trees=40),
    case("huberized_spam_stride", "huberized on spam (every 2nd row), depth 2",
         "spam", "type ~ .", "huberized", {"stride": 2}, interaction_depth=2, n_trees=60),
    # ---- bernoulli --------------------------------------------------------------------
    case("bernoulli_pima2_na_valid", "bernoulli, natural NAs, train_fraction 0.8",
         "pima2", "diabetes ~ .", "bernoulli", train_fraction=0.8),
    case("bernoulli_pima2_weights_monotone", "bernoulli, weights and var_monotone",
         "pima2", "diabetes ~ . - w", "bernoulli", {"add_weights": W3}, weights="w",
         var_monotone={"glucose": 1, "mass": 1, "age": 1}, interaction_depth=2),
    case("bernoulli_pima2_fractional_weights", "bernoulli, NAs, weights (1 + row mod 3) * 0.3",
         "pima2", "diabetes ~ . - w", "bernoulli", {"add_weights": W3_FRACTIONAL},
         weights="w", interaction_depth=3, n_trees=60),
    case("bernoulli_pima2_depth1_shrink1", "bernoulli, stumps, shrinkage 1",
         "pima2", "diabetes ~ .", "bernoulli", interaction_depth=1, shrinkage=1,
         n_trees=25),
    case("bernoulli_breast_cancer_ordered", "bernoulli, ordered predictors with NA",
         "breast_cancer", "Class ~ .", "bernoulli", {"ordered": BREAST_PREDICTORS},
         interaction_depth=2),
    case("bernoulli_breast_cancer_unordered", "bernoulli, unordered 10-level predictors",
         "breast_cancer", "Class ~ .", "bernoulli", {"factor": BREAST_PREDICTORS},
         n_minobsinnode=5, train_fraction=0.8, n_trees=60),
    case("bernoulli_lending_club_categorical", "bernoulli, addr_state 50 / sub_grade 35 levels",
         "lending_club", "Class ~ .",
         "bernoulli", {"stride": 3, "recode": [{"col": "Class", "indicator": "bad"}]},
         interaction_depth=4, n_minobsinnode=20, train_fraction=0.8),
    case("bernoulli_spam_large", "bernoulli, 4601 x 57 shuffled, depth 3", "spam", "type ~ .",
         "bernoulli", {"shuffle": 7}, n_trees=100, train_fraction=0.8),
    case("bernoulli_spam_depth5", "bernoulli, depth 5, minobs 20, shrinkage 0.05",
         "spam", "type ~ .", "bernoulli", {"stride": 3}, interaction_depth=5,
         n_minobsinnode=20, shrinkage=0.05, n_trees=60),
    case("bernoulli_boston_na_factor", "bernoulli on injected-NA data (chas factor)",
         "boston", "chas ~ .", "bernoulli",
         {"na_inject": {"cols": ["crim", "nox", "rm", "tax"], "frac": 0.1, "seed": 3}},
         interaction_depth=2, n_minobsinnode=5, shrinkage=0.05),
    case("bernoulli_letter_binary_pure", "bernoulli on letter Z vs the rest, depth 5: the "
         "first trees' working response has two values, pure nodes split by R's rounding "
         "noise", "letter", "lettr ~ .", "bernoulli", LETTER_Z, interaction_depth=5,
         n_trees=40),
    # ---- adaboost ---------------------------------------------------------------------
    case("adaboost_pima2_na", "adaboost, NAs, depth 2", "pima2", "diabetes ~ .",
         "adaboost", interaction_depth=2),
    case("adaboost_spam_valid", "adaboost, spam every 3rd row, train_fraction 0.8",
         "spam", "type ~ .", "adaboost", {"stride": 3}, train_fraction=0.8, n_trees=80),
    case("adaboost_breast_cancer_weights", "adaboost, ordered predictors, weights",
         "breast_cancer", "Class ~ . - w", "adaboost",
         {"ordered": BREAST_PREDICTORS, "add_weights": W3}, weights="w",
         interaction_depth=1, shrinkage=0.5, n_trees=40),
    # ---- poisson ----------------------------------------------------------------------
    case("poisson_insurance_offset", "poisson, offset(log(Holders)), ordered Group/Age",
         "insurance", INSURANCE_F, "poisson",
         {"factor": {"District": None}, "ordered": INSURANCE_ORDERED},
         interaction_depth=2, n_minobsinnode=5, shrinkage=0.05),
    case("poisson_insurance_offset_unordered", "poisson, offset, all predictors unordered",
         "insurance", INSURANCE_F, "poisson", {"factor": ["District"]},
         interaction_depth=1, n_minobsinnode=5, n_trees=60),
    case("poisson_insurance_weights", "poisson, no offset, Holders as predictor, weights",
         "insurance", "Claims ~ District + Group + Age + Holders", "poisson",
         {"factor": ["District"], "ordered": INSURANCE_ORDERED, "add_weights": W3},
         weights="w", interaction_depth=2, n_minobsinnode=5, n_trees=50),
    case("poisson_ship_offset", "poisson, offset(log(service)), service == 0 dropped",
         "ship_accidents", SHIP_F, "poisson",
         {"subset": [{"col": "service", "op": "!=", "value": 0}]},
         interaction_depth=2, n_minobsinnode=5, n_trees=50, shrinkage=0.05),
    case("poisson_ship_zero_count_nodes", "poisson, no offset, small nodes with zero counts "
         "(R's -19 estimate, clipped)", "ship_accidents", "incidents ~ type + construction + "
         "operation + service", "poisson", {"factor": ["type"]},
         interaction_depth=4, n_minobsinnode=3, n_trees=60, shrinkage=0.3),
    case("poisson_ozone_na_valid", "poisson on integer ozone, NAs, train_fraction 0.8",
         "ozone", "ozone ~ .", "poisson", OZONE, interaction_depth=3, train_fraction=0.8,
         shrinkage=0.05),
    # ---- quantile ---------------------------------------------------------------------
    case("quantile_025_boston", "quantile alpha 0.25", "boston", "medv ~ .",
         {"name": "quantile", "alpha": 0.25}, BOSTON),
    case("quantile_050_ozone_na_valid", "quantile alpha 0.5, NAs, train_fraction 0.8",
         "ozone", "ozone ~ .", {"name": "quantile", "alpha": 0.5}, OZONE,
         interaction_depth=2, train_fraction=0.8),
    case("quantile_090_diamonds_ordered", "quantile alpha 0.9, ordered factors, depth 4",
         "diamonds", "log(price) ~ .", {"name": "quantile", "alpha": 0.9},
         {"stride": 37, "ordered": DIAMOND_LEVELS}, interaction_depth=4,
         n_minobsinnode=20, n_trees=80),
    case("quantile_weights_refused", "R refuses non-constant weights for quantile",
         "boston", "medv ~ . - w", {"name": "quantile", "alpha": 0.5},
         {**BOSTON, "add_weights": W3}, weights="w", n_trees=10,
         expect_r_error={"kind": "pygbm_extends",
                         "why": "gbm.fit stops: its quantile regression lacks a weighted "
                                "quantile; pygbm has one"}),
    # ---- coxph ------------------------------------------------------------------------
    case("coxph_lung", "coxph Surv(time, status), status recoded to 0/1, NAs",
         "lung", SURV, "coxph", LUNG, interaction_depth=2, shrinkage=0.05),
    case("coxph_lung_weights_valid", "coxph, weights, train_fraction 0.75 (valid sorted apart)",
         "lung", "Surv(time, status) ~ . - w", "coxph", {**LUNG, "add_weights": W3},
         weights="w", train_fraction=0.75, n_minobsinnode=5, n_trees=60),
    case("coxph_pbc_na", "coxph pbc, many NAs, sex factor, depth 3",
         "pbc", SURV, "coxph", PBC, train_fraction=0.8, shrinkage=0.05),
    case("coxph_pbc_monotone", "coxph with var_monotone, stumps",
         "pbc", SURV, "coxph", PBC, interaction_depth=1,
         var_monotone={"bili": 1, "albumin": -1}, n_trees=80),
    case("coxph_lung_offset_refused", "coxph + offset: R 4.2 errors inside gbm.fit",
         "lung", "Surv(time, status) ~ age + sex + ph.ecog + offset(log(meal.cal))",
         "coxph", {**LUNG, "subset": [{"col": "meal.cal", "op": "notna"}]}, n_trees=10,
         expect_r_error={"kind": "r_bug",
                         "why": "gbm.fit's `if (!is.na(offset))` on a vector offset: "
                                "'the condition has length > 1' is an error since R 4.2"}),
]

#: bagged cases: bag_fraction 0.5, train_fraction 0.7, R seeds 1..5
BAGGED = [
    case("bagged_gaussian_cps1988", "gaussian, string factors, bagging", "cps1988",
         "log(wage) ~ .", "gaussian", {"shuffle": 1, "head": 5000}, interaction_depth=3,
         n_trees=100),
    case("bagged_bernoulli_spam", "bernoulli, bagging", "spam", "type ~ .", "bernoulli",
         {"shuffle": 2}, interaction_depth=3, shrinkage=0.05, n_trees=150),
    case("bagged_laplace_cps1988", "laplace, bagging", "cps1988", "log(wage) ~ .",
         "laplace", {"shuffle": 3, "head": 5000}, interaction_depth=3, n_trees=100),
    case("bagged_poisson_ozone", "poisson, NAs, bagging", "ozone", "ozone ~ .", "poisson",
         {**OZONE, "shuffle": 4}, interaction_depth=2, shrinkage=0.05, n_trees=100),
    case("bagged_coxph_pbc", "coxph, bagging", "pbc", SURV, "coxph", {**PBC, "shuffle": 5},
         interaction_depth=2, shrinkage=0.02, n_trees=100),
    case("bagged_quantile_diamonds", "quantile 0.75, ordered factors, bagging", "diamonds",
         "log(price) ~ .", {"name": "quantile", "alpha": 0.75},
         {"shuffle": 6, "head": 6000, "ordered": DIAMOND_LEVELS}, interaction_depth=3,
         n_trees=100),
]
for _b in BAGGED:
    _b.update(bag_fraction=0.5, train_fraction=0.7, seeds=[1, 2, 3, 4, 5])
    del _b["pred_n_trees"]


def main():
    names = [c["name"] for c in CASES + BAGGED]
    assert len(names) == len(set(names)), "case names must be unique"
    (HERE / "cases.json").write_text(json.dumps(CASES, indent=1) + "\n")
    (HERE / "bagged_cases.json").write_text(json.dumps(BAGGED, indent=1) + "\n")
    print(f"{len(CASES)} cases, {len(BAGGED)} bagged cases")


if __name__ == "__main__":
    main()
