"""One tree as a table (R's ``pretty.gbm.tree``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import fit_arg, whole_number

#: R's column names, in R's order
COLUMNS = ("SplitVar", "SplitCodePred", "LeftNode", "RightNode", "MissingNode",
           "ErrorReduction", "Weight", "Prediction")


def pretty_gbm_tree(fit, i_tree=1) -> pd.DataFrame:
    """The ``i_tree``-th tree (1-based, as R) as R's ``pretty.gbm.tree`` table.

    Parameters
    ----------
    fit : GBMFit
        The fitted model (R: ``object``).
    i_tree : int, default 1
        Which tree, numbered from 1 as in R (R: ``i.tree``), up to
        ``len(fit.trees)``; a whole float (2.0) is taken, as R's numbers.

    Returns
    -------
    pandas.DataFrame
        R's columns in R's order: ``SplitVar``, ``SplitCodePred``,
        ``LeftNode``, ``RightNode``, ``MissingNode``, ``ErrorReduction``,
        ``Weight``, ``Prediction``. Rows are the nodes in R's numbering
        (index 0, 1, ...: a node, then its left, right and missing
        subtrees). ``SplitCodePred`` is the split point, the index into
        ``fit.c_splits`` for a categorical split, or the (shrunken)
        prediction of a terminal node; the child columns are -1 for
        terminal nodes.

    Notes
    -----
    ``SplitVar`` is the 0-based predictor index (R's is 0-based too), -1
    for a terminal node. An ``i_tree`` outside 1..``len(fit.trees)`` raises
    an error, as in R.

    Examples
    --------
    >>> tree = pygbm.pretty_gbm_tree(fit, i_tree=1)
    >>> list(tree.columns[:3])
    ['SplitVar', 'SplitCodePred', 'LeftNode']
    """
    fit_arg(fit)
    n_total = len(fit.trees)
    number = whole_number(i_tree)            # 2.0 is 2, as R's i.tree = 2 (a double)
    if number is None:
        raise TypeError(f"i_tree must be a whole number between 1 and {n_total}, "
                        f"got {i_tree!r}")
    if not 1 <= number <= n_total:
        raise ValueError(f"i_tree is out of range: must be between 1 and {n_total} "
                         f"(trees are numbered from 1, as in R), got {i_tree}")
    t = fit.trees[number - 1]
    table = pd.DataFrame({
        "SplitVar": np.asarray(t.split_var, dtype=np.int64),
        "SplitCodePred": np.asarray(t.split_code_pred, dtype=float),
        "LeftNode": np.asarray(t.left, dtype=np.int64),
        "RightNode": np.asarray(t.right, dtype=np.int64),
        "MissingNode": np.asarray(t.missing, dtype=np.int64),
        "ErrorReduction": np.asarray(t.error_reduction, dtype=float),
        "Weight": np.asarray(t.weight, dtype=float),
        "Prediction": np.asarray(t.prediction, dtype=float),
    }, columns=list(COLUMNS))
    table.index = pd.RangeIndex(len(table))
    return table
