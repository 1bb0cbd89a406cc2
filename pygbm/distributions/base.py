"""The contract every distribution implements.

A distribution is what the gbm vignette's table lists for one loss: the
deviance, the initial value f0, the negative gradient (R gbm's "working
response" z) and the terminal-node estimate, plus the out-of-bag
improvement used by ``gbm_perf(method="OOB")``.

Every method takes the rows' targets as one :class:`~.inputs.Targets`
bundle ``t`` (``y``, ``offset``, ``w``, ``misc``), the bag and the fit's
:class:`~.inputs.FitContext` ``ctx``; an instance holds only its
parameters, so one instance serves any number of fits. Conventions (R gbm's):

* ``f`` is the current prediction on the link scale *without* the offset;
  ``t.offset`` is ``None`` (R's ``NA``: no offset) or an array added to ``f``.
* ``t.w`` are the case weights, already normalised by the front end as R's
  ``gbm.fit`` does (``w * n / sum(w)``).
* ``t.misc`` carries per-row side information: the event indicator for coxph
  (rows then come sorted by decreasing time, as R sorts them), the group
  codes for ranking; ``None`` otherwise.
* ``bag`` is a boolean mask over the training rows of the current bag.
* A multi-output distribution (``multi_output``) takes ``k=`` (the link
  column of the tree) in negative_gradient, growth_response, fit_leaves and
  bag_improvement.
* Every method is vectorised over rows (no Python loop over rows).

The engine never asks "which distribution is this"; it reads the class
attributes (capability flags) below.
"""
from __future__ import annotations

from typing import ClassVar

from abc import ABC, abstractmethod

import numpy as np

from .inputs import FitContext, Leaves, Targets


#: response links whose expected response is a probability (adaboost's is
#: 1/(1+exp(-2f)), R's predict type="response")
PROBABILITY_LINKS = ("logistic", "logistic2")


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
    #: the response is 0/1 (bernoulli, adaboost, huberized): what a class-0 row
    #: means; an offset on the link has no per-row counterpart on that scale
    zero_one_response: ClassVar[bool] = False
    #: several link columns (multinomial: one per class of the fit's
    #: ``ctx.classes``): ``f`` is then an (n, K) array, the engine grows one
    #: tree per column per iteration and passes ``k=`` (the column), after
    #: calling ``start_iteration``.
    multi_output: ClassVar[bool] = False
    #: bag whole groups (``misc`` holds the group of each row), as R does for ranking
    bag_by_group: ClassVar[bool] = False
    #: the sign of the working response ``z`` relative to the negative gradient:
    #: -1 where R 2.1.8 computes the loss's derivative itself (adaboost, huberized).
    #: The trees are the same either way except under monotone constraints, which
    #: the fit turns by this sign (:func:`pygbm.fitting.tree_monotone`)
    z_sign: ClassVar[float] = 1.0

    @property
    def row_response(self) -> bool:
        """Whether each row has one response of its own, with no other rows' to read
        it by: not a risk set (coxph), a group (pairwise) or several classes'
        links (multinomial). Zero-response subsampling, calibration, target
        statistics and ordered boosting need one."""
        return not (self.survival_response or self.bag_by_group or self.multi_output)

    @property
    def class_response(self) -> bool:
        """Whether the response is classes (a two-class distribution's 0/1, or the
        multinomial's), so that a text or categorical response is coded by its levels."""
        return self.zero_one_response or self.multi_output

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

    @property
    def display_name(self) -> str:
        """The name R's print.gbm shows (with the parameters where R shows them)."""
        return self.name

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

    def response_classes(self, y, labels=None) -> np.ndarray | None:
        """A multi-output distribution's class labels of the response codes
        0..K-1 that ``check_response(y)`` gives (``labels``: the levels of a
        coded factor response); None for the others."""
        return None

    def check_weights(self, w: np.ndarray) -> None:
        """Extra restrictions on weights (none by default)."""

    def noise_generator(self, rng):
        """The generator of a fit's tie-breaking noise, drawn from the fit's
        ``rng`` (a NumPy Generator or R's stream, :class:`pygbm.RRandom`), kept
        in ``ctx.noise_rng``; None for distributions that break no ties at
        random (all but pairwise)."""
        return None

    def check_initial_value(self, y, w) -> None:
        """A ``ValueError`` when the training rows' response ``y`` and case weights
        ``w`` cannot give a finite initial value (nothing to check by default)."""

    # -- the vignette's table ----------------------------------------------------
    @abstractmethod
    def init_f(self, t: Targets, ctx: FitContext):
        """The initial value f0 of the training rows ``t`` (an array of K for
        a multi-output distribution)."""

    @abstractmethod
    def deviance(self, t: Targets, f, ctx: FitContext) -> float:
        """The loss of link values ``f`` (R's train/valid error)."""

    @abstractmethod
    def negative_gradient(self, t: Targets, f, bag, ctx: FitContext) -> np.ndarray:
        """R gbm's working response z (in-bag rows matter; every row gets a value)."""

    @abstractmethod
    def fit_leaves(self, t: Targets, f, z, leaves: Leaves, bag, ctx: FitContext) -> np.ndarray:
        """Terminal-node estimates for all ``leaves.n_nodes`` terminal nodes at
        once (an array of that length); ``z`` is the working response the
        tree was grown from."""

    @abstractmethod
    def bag_improvement(self, t: Targets, f, fadj, bag, shrinkage: float,
                        ctx: FitContext) -> float:
        """Out-of-bag improvement in deviance of the step ``shrinkage * fadj``."""

    @property
    def gradient_splits(self) -> bool:
        """Whether the trees are grown on the working response with the case
        weights, R's algorithm (the compiled loops' assumption); False where a
        distribution's ``splits="newton"`` grows them on the Newton response
        (:mod:`._newton`)."""
        return True

    def growth_response(self, t: Targets, f, z, ctx: FitContext):
        """What the tree is grown on: (response, weights). Default: the working
        response with the case weights ``t.w`` (R's algorithm; the engine's
        integer fast path needs that very array); a distribution may grow on
        the Newton response z/h with weights w*h instead (second-order splits)."""
        return z, t.w

    def start_iteration(self, t: Targets, f, ctx: FitContext) -> None:
        """Called once per iteration before the per-column trees of a
        multi-output distribution (R's UpdateParams); it keeps what it needs
        in ``ctx.cache``."""

    # -- prediction scale --------------------------------------------------------------
    def inverse_link(self, f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, dtype=float)
        with np.errstate(over="ignore"):     # exp of a large link: inf, so 0 or inf, as R
            if self.response_link == "logistic":
                return 1.0 / (1.0 + np.exp(-f))
            if self.response_link == "logistic2":
                return 1.0 / (1.0 + np.exp(-2.0 * f))
            if self.response_link == "exp":
                return np.exp(f)
        return f

    def link(self, mu) -> np.ndarray:
        """The link of expected responses ``mu``: :meth:`inverse_link`'s inverse
        (a probability of 0 or 1 gives an infinite link)."""
        mu = np.asarray(mu, dtype=float)
        with np.errstate(divide="ignore"):
            if self.response_link == "logistic":
                return np.log(mu) - np.log1p(-mu)
            if self.response_link == "logistic2":
                return (np.log(mu) - np.log1p(-mu)) / 2.0
            if self.response_link == "exp":
                return np.log(mu)
        if self.response_link != "identity":
            raise ValueError(f"distribution {self.name!r} has no link for one expected "
                             f"response (its response is {self.response_link!r})")
        return mu
