"""The options of ``gbm(..., categorical=...)``, checked once into a
:class:`TargetStatisticsSpec` (as :mod:`pygbm.ordered.spec` checks
``boosting_type``'s and :mod:`pygbm.costs` the costs)."""
from __future__ import annotations

from dataclasses import dataclass

from .._checks import int_arg
from ..messages import warn
from .modes import MAX_COMBINATION, NATIVE, check_number, resolve_modes

#: CatBoost's default number of permutations (``ts_permutations``, and ordered
#: boosting's ``n_permutations``) when neither is given
DEFAULT_PERMUTATIONS = 4


@dataclass(frozen=True)
class TargetStatisticsSpec:
    """The target statistics asked for: ``modes`` (one per predictor, "native"
    for those left as they are), ``n_permutations`` (``ts_permutations``; how
    many the training rows allow is checked when they are known), ``prior``
    (``ts_prior``; None: the weighted mean target of the training rows),
    ``prior_weight`` (``ts_prior_weight``) and ``max_combination``
    (``ts_max_combination``: CatBoost's feature combinations up to this size)."""

    modes: tuple[str, ...]
    n_permutations: int = DEFAULT_PERMUTATIONS
    prior: float | None = None
    prior_weight: float = 1.0
    max_combination: int = 1

    @property
    def coded(self) -> bool:
        """Whether some predictor is replaced by a statistic."""
        return any(m != NATIVE for m in self.modes)


def ts_spec(categorical, var_names, var_type, *, n_permutations=DEFAULT_PERMUTATIONS,
            prior=None, prior_weight=1.0, max_combination=1) -> TargetStatisticsSpec | None:
    """The checked :class:`TargetStatisticsSpec` of ``categorical`` for the
    predictors ``var_names`` of ``var_type``; None for "native" (R's
    categorical splits). A mode that codes no predictor (there is no unordered
    categorical) is warned of: the fit is then the native one."""
    if isinstance(categorical, str) and categorical == NATIVE:
        return None
    modes = tuple(resolve_modes(categorical, var_names, var_type))
    spec = TargetStatisticsSpec(
        modes, int_arg("ts_permutations", n_permutations, 1),
        None if prior is None else check_number("ts_prior", prior),
        check_number("ts_prior_weight", prior_weight, positive=True),
        int_arg("ts_max_combination", max_combination, 1, MAX_COMBINATION))
    if not spec.coded and not isinstance(categorical, dict):
        warn(f"categorical={categorical!r} has no effect: there is no unordered "
             "categorical predictor")
    return spec
