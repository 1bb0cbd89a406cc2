"""A fitted-object stand-in built from an R gbm fit exported as JSON.

tests/inspect/r/make_fixtures.R writes tests/inspect/fixtures/<name>.json; this
module turns its "fit" part into an object with the attributes of the fitted
object contract (docs/ARCHITECTURE.md), so the inspect functions can be
checked against R without the pygbm engine.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from pygbm._checks import engine_arg
from pygbm.distributions.base import Distribution
from pygbm.distributions.inputs import FitContext
from pygbm.engine.tree import Tree
from pygbm.response import KeptData, Response

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).resolve().parents[2] / "data"

_RESPONSE_LINK = {"bernoulli": "logistic", "poisson": "exp", "adaboost": "logistic2",
                  "pairwise": "logistic"}


class RDistribution:
    """Minimal distribution: name, parameters, inverse link, deviance."""

    def __init__(self, spec: dict):
        self.name = spec["name"][0]
        self.parameters = {k: v[0] for k, v in spec.items() if k != "name"}
        self.response_link = _RESPONSE_LINK.get(self.name, "identity")
        self.needs_time_order = self.name == "coxph"
        self.bag_by_group = self.name == "pairwise"
        self.zero_one_response = self.name in ("bernoulli", "adaboost", "huberized")
        self.display_name = self.name

    def inverse_link(self, f):
        return Distribution.inverse_link(self, f)

    def deviance(self, t, f, ctx):
        y, f, w = (np.asarray(a, dtype=float) for a in (t.y, f, t.w))
        if t.offset is not None:
            f = f + np.asarray(t.offset, dtype=float)
        if self.name == "gaussian":
            loss = (y - f) ** 2
        elif self.name == "bernoulli":
            loss = -2.0 * (y * f - np.logaddexp(0.0, f))
        elif self.name == "laplace":
            loss = np.abs(y - f)
        elif self.name == "quantile":
            a = self.parameters["alpha"]
            loss = np.where(y > f, a * (y - f), (1 - a) * (f - y))
        else:
            raise NotImplementedError(self.name)
        return np.sum(w * loss) / np.sum(w)


def _vec(v):
    return np.array(v, dtype=float)


def _levels(v):
    if v and isinstance(v[0], str):
        return list(v)
    return _vec(v)


def load_fixture(name: str) -> dict:
    with open(FIXTURES / f"{name}.json") as fh:
        return json.load(fh)


def build_fit(fixture: dict) -> SimpleNamespace:
    """The fitted-object stand-in of a fixture."""
    f = fixture["fit"]
    trees = [Tree(split_var=np.array(t["split_var"], dtype=np.intp),
                  split_code_pred=_vec(t["split_code_pred"]),
                  left=np.array(t["left"], dtype=np.intp),
                  right=np.array(t["right"], dtype=np.intp),
                  missing=np.array(t["missing"], dtype=np.intp),
                  error_reduction=_vec(t["error_reduction"]),
                  weight=_vec(t["weight"]),
                  prediction=_vec(t["prediction"])) for t in f["trees"]]
    x = np.column_stack([_vec(c) for c in f["x_columns"]])
    w = _vec(f["w"])        # R keeps the normalised weights only: they stand for both
    data = KeptData(x, Response(y=_vec(f["y"]), misc=None if f["misc"] is None else
                                _vec(f["misc"]),
                                offset=None if f["offset"] is None else _vec(f["offset"]),
                                w=w, w_raw=w))
    return SimpleNamespace(
        trees=trees,
        c_splits=[np.array(c, dtype=np.int64) for c in f["c_splits"]],
        var_names=list(f["var_names"]),
        var_type=np.array(f["var_type"], dtype=np.int64),
        var_levels=[_levels(v) for v in f["var_levels"]],
        init_f=float(f["init_f"][0]),
        n_trees=int(f["n_trees"][0]),
        distribution=RDistribution(f["distribution"]),
        context=FitContext(),
        data=data,
        shrinkage=float(f["shrinkage"][0]),
        bag_fraction=float(f["bag_fraction"][0]),
        n_train=int(f["n_train"][0]),
        train_fraction=float(f["train_fraction"][0]),
        interaction_depth=int(f["interaction_depth"][0]),
        n_minobsinnode=int(f["n_minobsinnode"][0]),
        train_error=_vec(f["train_error"]),
        cv_error=None,
        num_classes=1,
        classes=None,
        ts_encoder=None,
        row_order=None,
        training_index=np.arange(int(f["n_train"][0])),   # GBMFit's: R's rows in order
        costs=None,                     # R's fits have no costs (cost-efficient boosting)
        zero_sample=None,               # nor zero-response subsampling
        options=SimpleNamespace(engine=engine_arg(None)),   # the default engine predicts
    )


def load_fit(name: str) -> SimpleNamespace:
    return build_fit(load_fixture(name))


def load_data(fixture: dict) -> pd.DataFrame:
    """The data frame R fitted on (the CSV, first ``rows`` rows, factors as
    pandas categoricals with R's alphabetical levels)."""
    spec = fixture["data_spec"]
    frame = pd.read_csv(DATA / spec["file"][0])
    if "rows" in spec:
        frame = frame.iloc[: int(spec["rows"][0])].reset_index(drop=True)
    for col in spec.get("factors", []):
        frame[col] = pd.Categorical(frame[col].astype(str))
    if fixture["fit"]["distribution"]["name"][0] == "coxph":
        frame["status"] = frame["status"] - 1
    return frame
