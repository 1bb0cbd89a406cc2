"""What an early-exit evaluation gives per row, and the codes of how a row left.

A leaf module (NumPy only): the NumPy evaluation (:mod:`.evaluate`), the
compiled kernels (:mod:`.compiled`) and the predictor share these names.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: how a row left: below the lower threshold, above the upper one, or after every tree
EXIT_NEGATIVE, EXIT_POSITIVE, EXIT_FULL = 0, 1, 2
EXIT_NAMES = np.array(["neg", "pos", "full"])
#: a sum of T terms in another order differs by at most about T eps sum|terms|
ROUNDING_SLACK = 4


@dataclass(frozen=True)
class Outcome:
    """Per row: decision (bool), trees evaluated, score at exit (link), exit kind."""

    decision: np.ndarray
    n_trees: np.ndarray
    score: np.ndarray
    exit: np.ndarray

    def disagreement(self, full_decision: np.ndarray) -> float:
        return float(np.mean(self.decision != full_decision)) if self.decision.size else 0.0
