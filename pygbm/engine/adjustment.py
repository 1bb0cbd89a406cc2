"""The split-gain adjustment seam: penalties on a node's candidate splits.

A split-gain adjustment is given to a tree's searcher (both the exact and
the histogram search take one); before the best split of a node is chosen,
the searcher subtracts the adjustment's penalty for each predictor from that
predictor's gains, and compares candidates (and the grower compares nodes)
by the gain less the penalty (:attr:`.split.Split.score`). The split keeps
R's gain as its ``improvement`` and the penalty in ``penalty``. When a split
is made, the grower tells the adjustment (``on_split``), which is where an
adjustment with per-row state (the predictors already used for each row,
say) updates it; its answer tells the grower whether the other terminal
nodes' penalties changed (they are then searched again). Without an adjustment (None) the searches run exactly as
R's, at no cost.

This is the seam of cost-efficient gradient boosting (CEGB, Peter et al.
2017): a penalty per split and per first use of a predictor, for the model
or for each row.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from .split import Side, Split


class GainAdjustment(Protocol):
    """What a split-gain adjustment provides.

    ``node`` is the node's in-bag statistics (sum of w*z, weight, rows) and
    ``rows`` its in-bag training rows: in no particular order for
    ``penalties`` (the exact search hands them in a predictor's sorted order:
    sorting them would cost as much as the node's search), increasing for
    ``on_split``.
    """

    def penalties(self, node: Side, rows: np.ndarray) -> np.ndarray:
        """(n_predictors,) penalties (>= 0; ``inf`` forbids a predictor),
        subtracted from each predictor's gains at this node."""

    def combination_penalty(self, node: Side, rows: np.ndarray, members) -> float:
        """The penalty of a split on a column computed from the predictors
        ``members`` (a target-statistics feature combination; needed only
        with ``ts_max_combination`` > 1)."""

    def on_split(self, node: Side, split: Split, rows: np.ndarray) -> bool | None:
        """Called when the grower splits the node with ``split``; a true
        answer says the penalties of other nodes changed (the grower then
        searches the tree's other terminal nodes again)."""
