"""Warnings and R's messages (issue 21 item 4): each points at the caller's
line (this file), is given once per call, and R's messages ("Using N trees...",
the OOB rule's caveat, "Distribution not specified, assuming ...") have their
own category, pygbm.GBMMessage."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
import pygbm.inspect  # noqa: F401  (pygbm.<toolbox> is resolved lazily)
from pygbm.messages import LISTED_VALUES, listed, quiet, warn


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 3))
    return pd.DataFrame({"y": x[:, 0] + rng.normal(size=300), "a": x[:, 0], "b": x[:, 1],
                         "c": x[:, 2]})


@pytest.fixture(scope="module")
def bagged(data):
    return pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=40, random_state=1)


def test_warn_points_at_the_first_frame_outside_pygbm():
    _, caught = _caught(lambda: warn("hello"))
    assert len(caught) == 1 and caught[0].filename == __file__


def test_quiet_drops_warnings_inside_only_in_its_thread():
    import threading
    heard = []
    with quiet():
        _, caught = _caught(lambda: warn("dropped"))
        thread = threading.Thread(target=lambda: heard.extend(_caught(lambda: warn("other"))[1]))
        thread.start()
        thread.join()
    assert caught == [] and [str(w.message) for w in heard] == ["other"]
    _, caught = _caught(lambda: warn("heard"))
    assert [str(w.message) for w in caught] == ["heard"]


def test_a_worker_warning_of_a_caller_without_source_is_given():
    """A cv worker's warnings point at the caller's line through
    warnings.warn_explicit with its module's globals; Python's C warn_explicit
    asks the module's loader for the source and lets its ImportError through.
    The code of ``python -c`` and of a script read from stdin is ``__main__``
    loaded by BuiltinImporter, which raises one: a warning in a cv fold
    (n_cores > 1) failed the fit with "'__main__' is not a built-in module"."""
    import importlib.machinery
    from concurrent.futures import ThreadPoolExecutor
    from pygbm.messages import in_worker
    caller = {"__name__": "__main__", "__loader__": importlib.machinery.BuiltinImporter,
              "in_worker": in_worker, "warn": warn}
    exec("def start():\n    return in_worker(lambda: warn('from a worker'))", caller)
    with ThreadPoolExecutor(max_workers=1) as pool:
        _, caught = _caught(lambda: pool.submit(caller["start"]()).result())
    assert [str(w.message) for w in caught] == ["from a worker"]
    assert caught[0].filename == "<string>"


def test_predict_without_n_trees_says_so_once_as_r_does(bagged, data):
    """R's predict.gbm: no validation set or cv, so all trees (never OOB)."""
    _, caught = _caught(lambda: bagged.predict(data))
    assert len(caught) == 1
    w = caught[0]
    assert w.category is pygbm.GBMMessage and issubclass(w.category, UserWarning)
    assert str(w.message).startswith(f"Using {bagged.n_trees} trees... (all trees")
    assert w.filename == __file__


@pytest.mark.parametrize("call, category, text", [
    (lambda d: pygbm.gbm("y ~ .", d, n_trees=5), pygbm.GBMMessage,
     "Distribution not specified, assuming gaussian ..."),
    (lambda d: pygbm.gbm("y ~ .", d, distribution="gaussian", n_trees=5, shrinkage=2),
     UserWarning, "shrinkage=2 is above 1"),
    (lambda d: pygbm.gbm("y ~ .", d, distribution="gaussian", n_trees=5, cv_folds=2,
                         class_stratify_cv=True, random_state=1),
     UserWarning, "class_stratify_cv applies only"),
])
def test_fit_warnings_point_at_the_caller_once(data, call, category, text):
    _, caught = _caught(lambda: call(data))
    mine = [w for w in caught if text in str(w.message)]
    assert len(mine) == 1
    assert mine[0].category is category and mine[0].filename == __file__


def test_toolbox_warnings_point_at_the_caller(bagged):
    _, caught = _caught(lambda: pygbm.gbm_perf(bagged, method="OOB", plot_it=False))
    assert [w.category for w in caught] == [pygbm.GBMMessage]
    assert caught[0].filename == __file__
    _, caught = _caught(lambda: bagged.summary(n_trees=1000, plot_it=False))
    assert len(caught) == 1 and caught[0].filename == __file__
    assert "exceeds the number of trees" in str(caught[0].message)


def test_relative_influence_without_n_trees_says_which_as_r_does(bagged, data):
    """R's relative.influence prints "n.trees not given. Using N trees."."""
    _, caught = _caught(lambda: pygbm.relative_influence(bagged))
    assert [str(w.message) for w in caught] == \
        [f"n_trees not given. Using {bagged.n_trees} trees."]
    assert caught[0].category is pygbm.GBMMessage and caught[0].filename == __file__
    _, caught = _caught(lambda: bagged.relative_influence())
    assert len(caught) == 1 and caught[0].filename == __file__
    _, caught = _caught(lambda: pygbm.relative_influence(bagged, n_trees=10))
    assert caught == []                               # R says nothing when given


def test_listed_shows_the_first_values_as_python_values():
    assert listed(["a", "b"]) == "['a', 'b']"
    assert listed(np.arange(7.0)) == "[0.0, 1.0, 2.0, 3.0, 4.0, ...]"
    assert listed(pd.Index(list("abcdef"))) == "['a', 'b', 'c', 'd', 'e', ...]"
    assert listed(np.array([True, False])) == "[True, False]"
    assert listed(range(LISTED_VALUES)).endswith("4]")


def test_an_error_lists_at_most_five_levels():
    d = pd.DataFrame({"y": list("abcdefg") * 3, "x": np.arange(21.0)})
    with pytest.raises(ValueError, match=r"\(levels \['a', 'b', 'c', 'd', 'e', \.\.\.\]\)"):
        pygbm.gbm("y ~ x", d, distribution="bernoulli", n_trees=2)
