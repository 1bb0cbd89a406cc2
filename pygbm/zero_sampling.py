"""Zero-response subsampling (Langford's "subsampling zero-reward examples").

``gbm(..., zero_subsample=l, zero_weight=...)``: when zeros are common and
non-zeros rare, every non-zero training row is kept and each zero training
row independently with probability ``l``; the fit runs on the kept rows.

Where it sits: **once per fit, in the front end**, between the rows a fit is
given (:class:`pygbm.fitting.CodedData`) and R's weight normalisation, not
in the engine's per-tree row sampler (``engine/sampling.py`` draws a bag per
tree; this selection is drawn once and the dropped rows never reach the
engine, which is where the time is saved). Only training rows are
subsampled: validation rows (``train_fraction < 1``) and each cv fold's
held-out rows (the fold's validation rows) are kept whole, so
``valid_error`` and ``cv_error`` are full-distribution deviances. The draw
comes from the fit's generator (``random_state``), so the same seed and the
same call keep the same rows (with ``cv_folds`` the folds' seeds are drawn
before it); each cv fold draws its own from its seed.

``zero_weight``:

* ``"importance"``: kept zeros' case weights times ``1/l`` (before R's
  normalisation): the weighted fit estimates the full-data one;
* ``"none"``: weights as given (the fit is biased by a monotone map of the
  mean, to be followed by :func:`pygbm.calibrate`);
* ``"offset"`` (bernoulli): the unweighted fit, then ``log(l)`` added to the
  initial value -- logit P = logit P~ + log(l) exactly for constant-rate
  case-control sampling (King and Zeng's prior correction). The trees are the
  ``"none"`` fit's bit for bit; the validation rows' link values start
  shifted so that ``valid_error`` is the corrected model's deviance.

``zero_subsample=None`` or ``1`` is no subsampling (today's fit, bit for bit).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ._checks import choice_arg, finite_number
from .engine.boost import BoostState
from .messages import warn

#: the modes of ``zero_weight``
ZERO_WEIGHTS = ("importance", "none", "offset")


def zero_subsample_arg(rate) -> float | None:
    """The keep rate in (0, 1]; None (or 1) is off."""
    if rate is None:
        return None
    if not finite_number(rate):
        raise TypeError(f"zero_subsample must be None or a keep rate in (0, 1], got {rate!r}")
    if not 0 < rate <= 1:
        raise ValueError(f"zero_subsample must be a keep rate in (0, 1], got {rate}")
    return None if rate == 1 else float(rate)


def zero_weight_arg(mode, dist, rate) -> str:
    """``zero_weight`` checked against the distribution (refusals name it)."""
    choice_arg("zero_weight", mode, ZERO_WEIGHTS)
    if rate is None:
        return mode
    if not dist.row_response:
        raise ValueError(f"zero_subsample: distribution {dist.name!r} has no zero response "
                         "to subsample (coxph, pairwise and multinomial refuse it)")
    if mode == "offset" and not (dist.response_link == "logistic" and dist.name == "bernoulli"):
        raise ValueError(f"zero_weight='offset' (the exact log(l) correction of the logit) is "
                         f"for distribution 'bernoulli', not {dist.name!r}: use 'importance', "
                         "or 'none' followed by calibrate()")
    return mode


@dataclass(frozen=True, eq=False)
class ZeroSample:
    """What a fit's zero subsampling kept (recorded on the fit as ``zero_sample``)."""

    rate: float
    weight: str                 # the zero_weight mode
    n_train_full: int           # training rows before subsampling
    kept: np.ndarray            # indices of the kept training rows, increasing
    kept_zero: np.ndarray       # per kept row: a zero response

    @property
    def n_kept(self) -> int:
        return int(self.kept.shape[0])

    def n_original(self, n_fit: int) -> int:
        """The rows of the original data for the fit's ``n_fit`` rows (kept
        training rows and every validation row): the training rows before
        subsampling, then the validation rows."""
        return n_fit - self.n_kept + self.n_train_full

    @property
    def shift(self) -> float:
        """What ``"offset"`` adds to the link (log l), else 0."""
        return math.log(self.rate) if self.weight == "offset" else 0.0

    def factors(self) -> np.ndarray:
        """The kept rows' case-weight factors (1/l for zeros under "importance")."""
        out = np.ones(self.n_kept)
        if self.weight == "importance":
            out[self.kept_zero] = 1.0 / self.rate
        return out

    def index(self, n: int) -> np.ndarray:
        """Rows of the original ``n`` rows the fit runs on: kept training rows,
        then every validation row."""
        return np.concatenate([self.kept, np.arange(self.n_train_full, n)])

    def select(self, a):
        """Per-row values of the original rows restricted to the fit's rows."""
        if a is None:
            return None
        a = np.asarray(a)
        return a[self.index(a.shape[0])]

    def check_responses(self, y_selected: np.ndarray) -> None:
        """gbm_more(data=...): the kept rows of ``data`` (``y_selected``, the
        responses :meth:`select` picks) must be zeros where the fit kept zeros and
        non-zeros elsewhere; other rows, or the same rows in another order, would
        take the kept rows' places and weights without a word. A ValueError says
        how many differ (rows swapped among the non-zeros, or among the zeros, pass
        here: gbm_more's check of the rows themselves, response.same_rows, refuses
        them)."""
        zero = np.asarray(y_selected[:self.n_kept], dtype=float) == 0.0
        differ = int(np.sum(zero != self.kept_zero))
        if differ:
            raise ValueError(f"data are not the rows the fit was trained on: {differ:,} of the "
                             f"{self.n_kept:,} training rows it kept (zero_subsample) have a zero "
                             "response where it had a non-zero one or the other way round; "
                             "gbm_more continues on the same rows, in the same order")

    def population_weights(self, w_kept: np.ndarray) -> np.ndarray:
        """The fit's case weights of its kept training rows (``w_kept``) as the
        original training rows count: each kept zero stands for 1/l zeros. Under
        "importance" the fit's weights say so already; under "none" and "offset" the
        zeros' weights are multiplied by 1/l here (averages over the original
        rows, such as brute-force partial dependence)."""
        w = np.array(w_kept, dtype=float)
        if self.weight != "importance":
            w[self.kept_zero] /= self.rate
        return w

    def raw_weights(self, w_selected: np.ndarray) -> np.ndarray:
        """The selected rows' raw case weights times the importance factors."""
        w = np.array(w_selected, dtype=float)
        w[:self.n_kept] *= self.factors()
        return w

    def apply(self, data):
        """``data`` (a :class:`pygbm.fitting.CodedData`) restricted to the fit's
        rows, the kept zeros' weights multiplied by 1/l under "importance"."""
        n = data.x.shape[0]
        rows = data.rows(self.index(n), self.n_kept)
        weights = rows.weights
        if self.weight == "importance":
            weights = self.raw_weights(np.ones(rows.x.shape[0]) if weights is None else weights)
        train_fraction = data.n_train / n if data.train_fraction is None else \
            data.train_fraction
        return dataclasses.replace(rows, weights=weights, train_fraction=train_fraction)

    # ---- "offset": the link shift, exact on the trees of the unweighted fit
    def start(self, state: BoostState, n_train: int) -> BoostState:
        """The initial state with the validation rows' link values shifted."""
        if not self.shift:
            return state
        f = state.f.copy()
        f[n_train:] += self.shift
        return dataclasses.replace(state, f=f)

    def finish(self, state: BoostState, n_train: int) -> BoostState:
        """The finished state corrected: initial value and training rows shifted."""
        if not self.shift:
            return state
        f = state.f.copy()
        f[:n_train] += self.shift
        return dataclasses.replace(state, init_f=state.init_f + self.shift, f=f)

    def resume(self, state: BoostState, n_train: int) -> BoostState:
        """gbm_more: :meth:`finish` undone, so that the new trees grow from the
        unweighted fit's link values, as the first fit's did, and the
        supporting models and target statistics see the rows as they did
        (then :meth:`finish` again)."""
        if not self.shift:
            return state
        f = state.f.copy()
        f[:n_train] -= self.shift
        return dataclasses.replace(state, init_f=state.init_f - self.shift, f=f)

    def describe(self) -> str:
        how = {"importance": f"zeros weighted 1/{self.rate:g}", "none": "unweighted",
               "offset": f"unweighted, link corrected by log({self.rate:g})"}[self.weight]
        return (f"Zeros kept at rate {self.rate:g} ({how}): {self.n_kept:,} of "
                f"{self.n_train_full:,} training rows.")


def _balancing_rate(n_zero: int, n_other: int) -> str:
    """The remedy the warning on too few kept zeros suggests: the keep rate that
    keeps as many zeros as other rows when there is one (a rate is at most 1), else
    no subsampling (the zeros are the fewer rows already); or the unweighted modes."""
    unweighted = "zero_weight='none' with calibrate() (or 'offset' for bernoulli)"
    if n_zero >= n_other:
        return f"use a keep rate of at least {n_other / n_zero:.2g} here, or {unweighted}"
    return (f"the {n_zero} zeros are fewer than the other rows even all kept: leave "
            f"zero_subsample=None (subsampling suits data that are mostly zeros), or use "
            f"{unweighted}")


def draw_zero_sample(y_train: np.ndarray, options, rng: np.random.Generator) -> ZeroSample:
    """Draw the kept training rows (every non-zero, each zero with probability
    ``options.zero_subsample``) from ``rng``; ``y_train`` is the checked
    response of the training rows (a class-0 bernoulli row is a zero)."""
    zero = np.asarray(y_train, dtype=float) == 0.0
    keep = ~zero
    n_zero = int(zero.sum())
    keep[zero] = rng.random(n_zero) < options.zero_subsample
    if not n_zero:
        warn(f"zero_subsample={options.zero_subsample:g} has no effect: no training row has a "
             f"zero response (of {zero.shape[0]}), so every row is kept")
    if n_zero and not np.any(keep[zero]):
        raise ValueError(f"zero_subsample={options.zero_subsample:g} kept none of the {n_zero} "
                         f"training rows with a zero response (about "
                         f"{n_zero * options.zero_subsample:.2g} expected): the fit would "
                         f"never see a zero; use a larger keep rate")
    n_zero_kept, n_other = int(np.sum(keep[zero])), int(zero.shape[0] - n_zero)
    if options.zero_weight == "importance" and n_zero and n_zero_kept < n_other:
        warn(f"zero_subsample={options.zero_subsample:g} kept {n_zero_kept} of the {n_zero} "
             f"training rows with a zero response, fewer than the {n_other} other rows: "
             f"each kept zero stands for {1 / options.zero_subsample:.3g} rows, and leaves "
             f"with few of them are estimated badly (predictions biased upwards); "
             f"{_balancing_rate(n_zero, n_other)}")
    kept = np.flatnonzero(keep)
    return ZeroSample(rate=options.zero_subsample, weight=options.zero_weight,
                      n_train_full=int(zero.shape[0]), kept=kept, kept_zero=zero[kept])
