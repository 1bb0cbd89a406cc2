"""The statisticians' workloads (issue 19): the small data sets of ``data/``, each
with the call a statistician would make, in R gbm 2.1.8 and in pygbm.

A workload is a case of the R reference vocabulary (``data``, ``prep``, ``formula``,
``distribution``: see tests/r_reference/README.md), so that R (``prep.R``) and Python
(``prep.py``) set the data up identically: same rows, same factors and levels, same
response coding. Every workload is fitted with the usual call of the gbm vignette,
``shrinkage=0.01, bag_fraction=0.5`` (R's defaults otherwise: ``n_minobsinnode=10``,
``train_fraction=1``), either once or with ``cv_folds=5`` followed by
``gbm_perf(method="cv")``.
"""
from __future__ import annotations

#: the arguments every workload shares (R's names in snake_case)
SHRINKAGE, BAG_FRACTION, CV_FOLDS = 0.01, 0.5, 5
#: seed of every fit (R's set.seed, pygbm's random_state)
SEED = 1
#: the measured settings (regime, cores): "cv" = cv_folds=5 + gbm_perf, "fit" = one
#: gbm() call; "1" = n_cores=1 and single-threaded libraries, "default" = neither
SETTINGS = (("cv", "1"), ("cv", "default"), ("fit", "1"), ("fit", "default"))
#: "first": the timed fit is the first of a fresh process; "warm": after the warm-up
STARTS = ("first", "warm")
#: trees of every workload in the --quick smoke run
QUICK_TREES = 20
#: the warm start's untimed warm-up: the timed call with this many trees on one core
#: (with cv and gbm_perf when the timed call has them), then a prediction of the first
#: rows of the data (both systems)
WARMUP_TREES, WARMUP_PREDICT_ROWS = 2, 5


def _case(name, data, formula, distribution, n_trees, depth, prep=None, in_issue=False,
          n_minobsinnode=10, note=""):
    return dict(name=name, data=f"data/{data}.csv", prep=prep or {}, formula=formula,
                distribution=distribution, n_trees=n_trees, interaction_depth=depth,
                n_minobsinnode=n_minobsinnode, in_issue=in_issue, note=note)


_ORDERED_BC = ["Cl.thickness", "Cell.size", "Cell.shape", "Marg.adhesion", "Epith.c.size",
               "Bare.nuclei", "Bl.cromatin", "Normal.nucleoli", "Mitoses"]

#: in plan order: the six of the issue's table first, then the other small data sets
WORKLOADS = [
    # --- the issue's table
    _case("boston", "boston", "medv ~ .", "gaussian", 2000, 3, in_issue=True,
          prep={"factor": {"chas": None}}),
    _case("ozone", "ozone", "ozone ~ .", "gaussian", 1000, 2, in_issue=True,
          prep={"subset": [{"col": "ozone", "op": "notna"}],
                "factor": {"month": None, "day_of_week": None}},
          note="rows with a missing response dropped"),
    _case("pima2", "pima2", "diabetes ~ .", "bernoulli", 1500, 3, in_issue=True),
    _case("spam", "spam", "type ~ .", "bernoulli", 1000, 3, in_issue=True),
    _case("lung", "lung", "Surv(time, status) ~ .", "coxph", 1000, 2, in_issue=True,
          prep={"recode": [{"col": "status", "subtract": 1}]},
          note="status recoded 1 = dead"),
    _case("lending_club", "lending_club", "Class ~ .", "bernoulli", 1000, 3, in_issue=True,
          prep={"recode": [{"col": "Class", "indicator": "bad"}]},
          note="Class recoded 1 = bad"),
    # --- the other small data sets of data/
    _case("breast_cancer", "breast_cancer", "Class ~ .", "bernoulli", 1000, 3,
          prep={"ordered": _ORDERED_BC}, note="predictors ordered factors, as in R"),
    _case("pbc", "pbc", "Surv(time, status) ~ .", "coxph", 1000, 2,
          prep={"drop": ["id"], "recode": [{"col": "status", "indicator": 2}]},
          note="status recoded 1 = dead (transplant censored)"),
    _case("insurance", "insurance",
          "Claims ~ District + Group + Age + offset(log(Holders))", "poisson", 1000, 2,
          prep={"factor": {"District": None},
                "ordered": {"Group": ["<1l", "1-1.5l", "1.5-2l", ">2l"],
                            "Age": ["<25", "25-29", "30-35", ">35"]}},
          note="Group and Age ordered, as in R"),
    _case("ship_accidents", "ship_accidents",
          "incidents ~ type + construction + operation + offset(log(service))", "poisson",
          1000, 2, n_minobsinnode=5,
          prep={"subset": [{"col": "service", "op": "!=", "value": 0}]},
          note="rows with service = 0 dropped; n_minobsinnode = 5 (34 rows: a cv fold's "
               "bag of 13 rows cannot hold two leaves of 10)"),
    _case("travel_mode", "travel_mode",
          "choice ~ mode + wait + vcost + travel + gcost + income + size",
          {"name": "pairwise", "group": "individual", "metric": "ndcg"}, 1000, 3,
          prep={"recode": [{"col": "choice", "indicator": "yes"}]},
          note="ranking the 4 modes of each traveller; choice recoded 1 = yes"),
    _case("ticdata", "ticdata", "CARAVAN ~ .", "bernoulli", 1000, 3,
          prep={"recode": [{"col": "CARAVAN", "indicator": "insurance"}]},
          note="CARAVAN recoded 1 = insurance (6%)"),
    _case("cps1988_5k", "cps1988", "log(wage) ~ .", "gaussian", 1000, 3,
          prep={"stride": 5, "head": 5000}, note="every 5th row, the first 5000 of them"),
    # --- multi-class (R's multinomial is another algorithm, which its maintainers call
    # broken: its time, not its numbers, is compared)
    _case("diamonds_cut", "diamonds", "cut ~ carat + color + clarity + depth + table + price",
          "multinomial", 1000, 3,
          prep={"stride": 50, "head": 1000,
                "factor": {"cut": None, "color": None, "clarity": None}},
          note="5 classes; every 50th row, the first 1000 of them"),
    _case("letter_1k", "letter", "lettr ~ .", "multinomial", 500, 3,
          prep={"stride": 20, "head": 1000, "factor": {"lettr": None}},
          note="26 classes; every 20th row, the first 1000 of them"),
]
BY_NAME = {w["name"]: w for w in WORKLOADS}
#: the --quick smoke run fits every workload once; these also run cv and both core settings
QUICK_FULL = ("lung",)


def call_text(wl: dict, cv: bool, n_trees: int) -> str:
    """The workload's pygbm call as the report shows it."""
    dist = wl["distribution"]
    dist = dist if isinstance(dist, str) else dist["name"]
    text = (f'gbm("{wl["formula"]}", distribution="{dist}", n_trees={n_trees}, '
            f'interaction_depth={wl["interaction_depth"]}')
    if wl["n_minobsinnode"] != 10:
        text += f", n_minobsinnode={wl['n_minobsinnode']}"
    return text + (f", cv_folds={CV_FOLDS})" if cv else ")")


def spec_args(wl: dict, regime: str, n_cores, n_trees: int) -> dict:
    """The fit's settings in a worker spec, read by both workers (R's names in snake_case)."""
    return dict(n_trees=n_trees,
                interaction_depth=wl["interaction_depth"], n_minobsinnode=wl["n_minobsinnode"],
                shrinkage=SHRINKAGE, bag_fraction=BAG_FRACTION,
                cv_folds=CV_FOLDS if regime == "cv" else 0, n_cores=n_cores, seed=SEED)


def warmup_args(args: dict) -> dict:
    """The warm-up's settings: the same call with WARMUP_TREES trees and ``n_cores=1``.
    One core because R's parallel cv leaves its PSOCK worker processes to end after the
    call, so the suite could not tell their CPU time from the timed call's; a cluster is
    started anew by every call, there is nothing to warm up."""
    return dict(args, n_trees=WARMUP_TREES, n_cores=1)


def fit_kwargs(wl: dict, a: dict) -> dict:
    """pygbm.gbm's keyword arguments of a workload with the settings ``a`` of a worker
    spec (the R worker passes the same)."""
    kw = dict(distribution=wl["distribution"], n_trees=a["n_trees"],
              interaction_depth=a["interaction_depth"], n_minobsinnode=a["n_minobsinnode"],
              shrinkage=a["shrinkage"], bag_fraction=a["bag_fraction"],
              random_state=a["seed"])
    if a["cv_folds"]:
        kw["cv_folds"] = a["cv_folds"]
    if a["n_cores"] is not None:            # None: the system's default
        kw["n_cores"] = a["n_cores"]
    return kw
