"""Target statistics for categorical predictors (CatBoost's ordered TS).

``gbm(..., categorical="ordered_ts")`` replaces every unordered categorical
predictor, inside the engine, by a *target statistic* (TS): for a row of
level ``l``,

    TS = (sum of w*y over the rows of D_k with level l + a * p)
         / (sum of w  over the rows of D_k with level l + a)

with prior ``p`` (``ts_prior``; default the weighted mean target of the
training rows) and prior weight ``a`` (``ts_prior_weight``, default 1).
With unit case weights the sums of ``w`` are counts, as in the CatBoost
paper (Prokhorenkova et al. 2018, eq. 5). The modes differ by the rows
``D_k`` a training row's statistic is computed from:

* ``"ordered_ts"`` (CatBoost): the rows that precede row k in a random
  permutation ("history"). ``ts_permutations`` permutations are drawn once;
  each boosting iteration grows its tree on the encoding under one of them,
  chosen at random per iteration, from the gradient of that permutation's
  own supporting model, and its leaf values are fitted on one more
  permutation (sigma_0), as in the paper's Plain mode (see
  :class:`pygbm.target_stats.scheme.SupportingModels`). No target leak.
* ``"greedy_ts"``: all training rows, row k included. **Leaks the target**
  (a noise categorical with many rare levels looks predictive).
* ``"loo_ts"``: all training rows but row k. **Leaks the target** too (on a
  constant feature it separates the classes perfectly).
* ``"holdout_ts"``: the training rows are split at random into two halves;
  a row's statistic comes from the other half (the paper's holdout TS, used
  both ways so that no training row is left out of the fit). No leak, but
  each statistic uses only half of the data.

At prediction time (validation rows, ``predict``) every mode uses all
training rows (``D_k`` = the training set); a level never seen in training
gets the prior ``p``; a missing value is a level of its own (``p`` when no
training value was missing). There is no cap on the number of levels.

The target ``y`` is the response itself for every distribution it is
defined for: gaussian, laplace, tdist, quantile (the statistic is a
smoothed level mean of the response, also for the median/quantile losses),
bernoulli, huberized, adaboost (a smoothed level rate of the 0/1 response)
and poisson (a smoothed level mean count). With an offset the statistic is
net of it (:func:`pygbm.target_stats.modes.statistic_inputs`): poisson
averages the level's rate per unit of exposure exp(offset), the identity-link
losses the level mean of ``y - offset``; logistic losses ignore it. coxph
(no per-row target without a model), pairwise ranking (grouped responses)
and multi-output distributions are refused with a ``ValueError``.

``ts_max_combination`` > 1 adds CatBoost's feature combinations (see
:mod:`pygbm.target_stats.combinations`).

The package, by stage: ``statistics`` (the statistics as functions of level
codes), ``modes`` (the modes and the distributions refused), ``spec`` (the
options of ``categorical=``, checked once by ``fit_options``), ``encoder``
(the fitted encoder, pickled with the model), ``combinations`` (the feature
combinations' registry) and ``combination_search`` (their engine searcher),
``schedule`` (the training rows under each permutation), ``scheme`` (the
boosting loop's Plain scheme with supporting models) and ``fit`` (the entry
point used by ``gbm``).
"""
from .encoder import TargetStatisticsEncoder
from .fit import fit_target_statistics
from .modes import MODES, resolve_modes, statistic_inputs, target_of, training_inputs
from .spec import TargetStatisticsSpec, ts_spec
from .statistics import (column_level_codes, greedy_statistic, holdout_statistic, level_sums,
                         loo_statistic, ordered_statistic)

__all__ = ["MODES", "TargetStatisticsEncoder", "fit_target_statistics",
           "column_level_codes", "greedy_statistic", "ordered_statistic", "loo_statistic",
           "holdout_statistic", "level_sums", "resolve_modes", "statistic_inputs", "target_of",
           "training_inputs",
           "TargetStatisticsSpec", "ts_spec"]
