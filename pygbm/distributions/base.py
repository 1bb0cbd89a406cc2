"""The contract every distribution implements.

A distribution is what the gbm vignette's table lists for one loss: the
deviance, the initial value f0, the negative gradient (R gbm's "working
response" z) and the terminal-node estimate, plus the out-of-bag
improvement used by ``gbm_perf(method="OOB")``.

Conventions shared by every method (they are R gbm's):

* ``f`` is the current prediction on the link scale *without* the offset;
  ``offset`` is ``None`` (R's ``NA``: no offset) or an array added to ``f``.
* ``w`` are the case weights, already normalised by the front end as R's
  ``gbm.fit`` does (``w * n / sum(w)``).
* ``misc`` carries per-row side information: the event indicator for coxph
  (rows then come sorted by decreasing time, as R sorts them), the group
  codes for ranking; ``None`` otherwise.
* ``inbag`` is a boolean mask over the training rows of the current bag.
* Every method is vectorised over rows (no Python loop over rows).

The engine never asks "which distribution is this"; it reads the class
attributes (capability flags) below.
"""
from __future__ import annotations

from typing import ClassVar

from abc import ABC, abstractmethod

import numpy as np

from .._rmath import exp_r


class Distribution(ABC):
    """Base class; subclasses register themselves in :mod:`pygbm.distributions`."""

    #: registry name, R's spelling ("gaussian", "bernoulli", ...)
    name: ClassVar[str] = ""
    #: rows must be sorted by decreasing response (coxph): the engine sorts
    #: the training and the validation part separately, as R's gbm.fit does.
    needs_time_order: ClassVar[bool] = False
    #: the response is a survival object (time, status); ``misc`` = status.
    survival_response: ClassVar[bool] = False
    #: name of the inverse link applied by ``predict(type="response")``:
    #: "identity", "logistic", "logistic2" (adaboost: 1/(1+exp(-2f))), "exp".
    response_link: ClassVar[str] = "identity"
    #: number of link columns (multinomial: one per class). With more than one,
    #: ``f`` is an (n, n_outputs) array, the engine grows one tree per column
    #: per iteration and passes ``k=`` (the column) to negative_gradient,
    #: fit_leaves and bag_improvement, after calling ``start_iteration``.
    n_outputs: int = 1
    #: bag whole groups (``misc`` holds the group of each row), as R does for ranking
    bag_by_group: ClassVar[bool] = False

    def __init__(self, **params):
        if params:
            raise ValueError(
                f"distribution {self.name!r} takes no parameters; got {sorted(params)}"
            )

    # -- description ---------------------------------------------------------
    def params(self) -> dict:
        """Parameters in R's list form, e.g. ``{"alpha": 0.25}``."""
        return {}

    def spec(self) -> dict:
        """R's ``distribution`` list: ``{"name": ..., **params}``."""
        return {"name": self.name, **self.params()}

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({p})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    # -- checks ----------------------------------------------------------------
    def check_response(self, y: np.ndarray) -> np.ndarray:
        """Validate and convert the response (float array, or (n, 2) for Surv).

        Raises ``ValueError`` naming the response and what was expected.
        """
        return np.asarray(y, dtype=float)

    def check_weights(self, w: np.ndarray) -> None:
        """Extra restrictions on weights (none by default)."""

    # -- the vignette's table ----------------------------------------------------
    @abstractmethod
    def init_f(self, y, offset, w, misc) -> float:
        """See the module docstring."""

    @abstractmethod
    def deviance(self, y, f, offset, w, misc) -> float:
        """See the module docstring."""

    @abstractmethod
    def negative_gradient(self, y, f, offset, w, misc, inbag) -> np.ndarray:
        """See the module docstring."""

    @abstractmethod
    def fit_leaves(self, y, f, offset, w, misc, z, node, n_nodes, inbag,
                   node_n, grow_pred, min_obs) -> np.ndarray:
        """Terminal-node estimates for all ``n_nodes`` terminal nodes at once.

        ``node[i]`` is the terminal node of training row ``i`` (every training
        row, in or out of bag); ``node_n`` the in-bag row count per node and
        ``grow_pred`` the mean working response per node at growing time (what
        R keeps when it does not re-estimate a node). Returns an array of
        length ``n_nodes``.
        """

    @abstractmethod
    def bag_improvement(self, y, f, offset, w, misc, fadj, inbag, shrinkage) -> float:
        """Out-of-bag improvement in deviance of the step ``shrinkage * fadj``."""

    #: exp on the model path (working response, leaf values) with the C
    #: library's rounding, as R computes it, so that R's tie-breaks between
    #: equally good splits are reproduced; the binned mode, which is not
    #: bit-identical to R anyway, switches to numpy's faster exp
    r_exact_math: bool = True

    def model_exp(self, x):
        """exp for values that feed the trees (see ``r_exact_math``)."""
        if self.r_exact_math:
            return exp_r(x)
        return np.exp(np.asarray(x, dtype=float))

    def growth_response(self, z, w, y, f, offset, misc, k=None):
        """What the tree is grown on: (response, weights). Default: the working
        response with the case weights (R's algorithm); a distribution may grow on
        the Newton response z/h with weights w*h instead (second-order splits)."""
        return z, w

    def start_iteration(self, y, f, offset, w, misc) -> None:
        """Called once per iteration before the per-column trees (R's
        UpdateParams); multi-output distributions cache what they need."""

    # -- prediction scale --------------------------------------------------------------
    def inverse_link(self, f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, dtype=float)
        if self.response_link == "logistic":
            return 1.0 / (1.0 + np.exp(-f))
        if self.response_link == "logistic2":
            return 1.0 / (1.0 + np.exp(-2.0 * f))
        if self.response_link == "exp":
            return np.exp(f)
        return f
