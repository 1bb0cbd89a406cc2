"""Fits shared by the binned-mode tests (test_binned.py, test_factory.py)."""
from __future__ import annotations

import warnings

import numpy as np

import pygbm

#: binned vs exact training errors when the splits are the same
ERROR_TOL = 1e-10


def fit(formula, data, max_bins=None, **kw):
    args = dict(n_trees=60, interaction_depth=3, shrinkage=0.1, bag_fraction=0.5,
                random_state=1)
    args.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pygbm.gbm(formula, data, max_bins=max_bins, **args)


def assert_same_fit(exact, fast):
    """Same trees (structure, split variables and points, weights) and errors."""
    assert len(exact.trees) == len(fast.trees)
    for i, (a, b) in enumerate(zip(exact.trees, fast.trees)):
        np.testing.assert_array_equal(a.split_var, b.split_var, err_msg=f"tree {i}")
        for field in ("left", "right", "missing"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field),
                                          err_msg=f"tree {i} {field}")
        for field in ("split_code_pred", "weight", "error_reduction", "prediction"):
            np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=1e-9,
                                       atol=1e-12, err_msg=f"tree {i} {field}")
    assert len(exact.c_splits) == len(fast.c_splits)
    for a, b in zip(exact.c_splits, fast.c_splits):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(fast.train_error, exact.train_error, rtol=0, atol=ERROR_TOL)
    np.testing.assert_allclose(fast.fit, exact.fit, rtol=0, atol=ERROR_TOL)
