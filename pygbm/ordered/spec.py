"""The options of ``gbm(..., boosting_type=...)``: CatBoost's Plain (R's
boosting, the default) or Ordered boosting, checked once."""
from __future__ import annotations

from dataclasses import dataclass

from .._checks import bool_arg, choice_arg, finite_number, int_arg
from .leaf_terms import code_of

#: the histogram search's default number of buckets in ordered mode
DEFAULT_MAX_BINS = 255


@dataclass(frozen=True)
class OrderedSpec:
    """Ordered boosting's parameters (CatBoost's names in parentheses):
    ``n_permutations`` (permutation_count), ``fold_len_multiplier``,
    ``min_fold_size`` (None: CatBoost's first batch size) and
    ``full_history`` (approx_on_full_history)."""

    n_permutations: int = 4
    fold_len_multiplier: float = 2.0
    min_fold_size: int | None = None
    full_history: bool = False


def ordered_spec(boosting_type, dist, *, n_permutations=4, fold_len_multiplier=2.0,
                 min_fold_size=None, full_history=False, max_combination=1):
    """The checked :class:`OrderedSpec` of ``boosting_type="ordered"``; None
    for "plain"."""
    choice_arg("boosting_type", boosting_type, ("plain", "ordered"))
    if boosting_type == "plain":
        return None
    if not dist.row_response:        # several outputs, groups, risk sets
        raise ValueError(f"boosting_type='ordered' does not support distribution "
                         f"{dist.name!r} yet (use boosting_type='plain')")
    if max_combination != 1:
        raise ValueError("boosting_type='ordered' does not support ts_max_combination > 1 yet")
    n_permutations = int_arg("n_permutations", n_permutations, 1)
    if not (finite_number(fold_len_multiplier) and fold_len_multiplier > 1.0):
        raise ValueError(f"fold_len_multiplier must be a finite number > 1, got "
                         f"{fold_len_multiplier!r}")
    multiplier = float(fold_len_multiplier)
    if min_fold_size is not None:
        min_fold_size = int_arg("min_fold_size", min_fold_size, 1)
    full_history = bool_arg(full_history, "full_history")
    if full_history and code_of(dist) is None:      # leaves not from running sums
        raise ValueError(f"full_history=True is not available for distribution "
                         f"{dist.name!r}: its leaf values are medians or M-estimates of "
                         f"the rows, and every row would need its own estimate over the "
                         f"rows before it (running sums serve gaussian, bernoulli, "
                         f"poisson, adaboost and huberized); use full_history=False")
    return OrderedSpec(n_permutations, multiplier, min_fold_size, full_history)
