"""The training rows encoded under every permutation, for the boosting loop."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..engine.binned import BinnedTrainingData, SharedBins
from ..engine.data import TrainingData
from .combination_search import CombinationData
from .modes import ORDERED


class TargetStatisticsSchedule:
    """The training rows encoded under every permutation, for the boosting
    loop's supporting models (:class:`pygbm.target_stats.scheme.SupportingModels`):
    ``n_views`` structure permutations (``view_of(iteration)`` picks one per
    iteration), plus the leaf permutation the leaf values are fitted on
    (the paper's sigma_0, permutation index ``n_views``). Each permutation's
    data is built once."""

    def __init__(self, encoder, x_coded, y, w, var_monotone,
                 max_bins, x_engine):
        n = encoder.n_train
        self.encoder = encoder
        self.x_coded = x_coded                 # all rows (training first), coded
        self.x_train = x_coded[:n]
        self.y_train = np.asarray(y, dtype=float)[:n]
        self.w_train = np.asarray(w, dtype=float)[:n]
        self.var_monotone = np.asarray(var_monotone)
        self.max_bins = max_bins
        self.x_engine = x_engine               # the engine's matrix (validation rows used)
        self._cache: dict = {}
        self._matrices: dict = {}
        #: training columns of feature combinations, (permutation, members) -> data
        self.combination_cache: OrderedDict = OrderedDict()
        #: the binned mode's buckets of the columns every permutation encodes alike
        #: (all but the ordered statistics), made once
        self.shared_bins = SharedBins(
            j for j in range(encoder.n_features)
            if not (j in encoder.ts_columns and encoder.modes[j] == ORDERED))

    @property
    def is_static(self) -> bool:
        """No permutation involved: one encoding serves every iteration."""
        return not self.encoder.has_ordered and self.encoder.combinations is None

    def matrix(self, r: int) -> np.ndarray:
        """Training rows encoded under permutation ``r`` (kept until its data is built)."""
        if r not in self._matrices:
            self._matrices[r] = self.encoder.training_matrix(self.x_train, self.y_train,
                                                             self.w_train, r)
        return self._matrices[r]

    def static_matrix(self) -> np.ndarray:
        return self.matrix(0)

    def _base_data(self, x):
        var_type = self.encoder.engine_var_type()[: self.encoder.n_features]
        if self.max_bins is None:
            return TrainingData(x, var_type, self.var_monotone)
        return BinnedTrainingData(x, var_type, self.var_monotone, self.max_bins,
                                  self.shared_bins)

    def data(self, r: int):
        """The engine's training data under permutation ``r`` (cached)."""
        if r not in self._cache:
            base = self._base_data(self.matrix(r))
            self._matrices.pop(r, None)
            if self.encoder.combinations is not None:
                base = CombinationData(base, self, r)
            self._cache[r] = base
        return self._cache[r]

    @property
    def n_views(self) -> int:
        """Structure permutations (``ts_permutations``)."""
        return self.encoder.n_permutations

    def view_of(self, iteration: int) -> int:
        """Structure permutation of boosting iteration ``iteration``."""
        return self.encoder.permutation_of_iteration(iteration)

    def leaf_data(self):
        """The training rows under the leaf permutation (sigma_0)."""
        return self.data(self.n_views)
