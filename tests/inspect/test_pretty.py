"""pretty_gbm_tree against R's pretty.gbm.tree."""
import numpy as np
import pandas as pd
import pytest

from pygbm.inspect.pretty import COLUMNS, pretty_gbm_tree
from rfit import build_fit, load_fixture

NAMES = ["boston_gaussian", "pima2_bernoulli", "lending_bernoulli", "lung_coxph",
         "boston_quantile", "boston_tdist"]


@pytest.mark.parametrize("name", NAMES)
def test_pretty_matches_r(name):
    fx = load_fixture(name)
    fit = build_fit(fx)
    for ref in fx["ref"]["pretty"]:
        table = pretty_gbm_tree(fit, ref["i_tree"][0])
        assert list(table.columns) == list(COLUMNS)
        assert [str(i) for i in table.index] == ref["row_names"]
        for col in COLUMNS:
            np.testing.assert_allclose(table[col].to_numpy(dtype=float),
                                       np.array(ref["table"][col], dtype=float),
                                       rtol=1e-12, atol=0)
        for col in ("SplitVar", "LeftNode", "RightNode", "MissingNode"):
            assert table[col].dtype.kind == "i"


def test_pretty_categorical_split_points_into_c_splits():
    fit = build_fit(load_fixture("lending_bernoulli"))
    table = pretty_gbm_tree(fit, 1)
    cat = table[(table.SplitVar >= 0) & (fit.var_type[table.SplitVar.clip(0)] > 0)]
    assert len(cat) > 0
    for _, row in cat.iterrows():
        codes = fit.c_splits[int(row.SplitCodePred)]
        assert len(codes) == fit.var_type[int(row.SplitVar)]


def test_pretty_errors():
    fit = build_fit(load_fixture("boston_gaussian"))
    with pytest.raises(ValueError, match="1 and 100"):
        pretty_gbm_tree(fit, 0)
    with pytest.raises(ValueError, match="out of range"):
        pretty_gbm_tree(fit, 101)
    with pytest.raises(TypeError, match="i_tree"):
        pretty_gbm_tree(fit, "1")
    assert len(pretty_gbm_tree(fit, 100)) == fit.trees[99].n_nodes
    # R's i.tree = 2 is a double: 2.0 was refused ("must be an integer"), unlike n_trees
    pd.testing.assert_frame_equal(pretty_gbm_tree(fit, 2.0), pretty_gbm_tree(fit, 2))
    for bad in (2.5, True, float("nan")):
        with pytest.raises(TypeError, match="i_tree must be a whole number"):
            pretty_gbm_tree(fit, bad)
