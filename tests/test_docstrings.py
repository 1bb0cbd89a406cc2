"""Every public name has a numpydoc docstring (issue 21 item 1), and its
examples run.

Public names: ``pygbm.__all__``, the toolbox (``pygbm.inspect.__all__``) and
the public methods, class methods and properties of the public classes.

* a function, method or class: a summary line and a Parameters section that
  matches its signature (a class: its constructor's); a function or method
  that returns something has a Returns (or Yields) section; every public
  function and class (not each method) has an Examples section;
* a property: a summary line;
* every Examples section runs (doctest) in the namespace the API reference
  states: ``np``, ``pd``, ``pygbm``, ``boston`` (data/boston.csv) and ``fit``
  (:data:`FIT_CALL` on boston), from the repository's root;
* the API reference (docs/api.rst) lists every public name.
"""
from __future__ import annotations

import ast
import doctest
import inspect
import re
import textwrap
import warnings
from pathlib import Path

import pytest
from numpydoc.docscrape import FunctionDoc

import pygbm
import pygbm.inspect

ROOT = Path(__file__).resolve().parents[1]
#: the fit the examples call ``fit`` (docs/api.rst says the same)
FIT_CALL = ('pygbm.gbm("medv ~ .", data=boston, distribution="gaussian", n_trees=200, '
            'interaction_depth=3, shrinkage=0.05, cv_folds=3, random_state=1)')


def _public_names():
    names = [n for n in pygbm.__all__ if n != "__version__"]
    names += [n for n in pygbm.inspect.__all__ if n not in names]
    out = []
    for name in names:
        obj = getattr(pygbm, name)
        out.append((name, obj))
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    out.append((f"{name}.{attr}", member))
    return out


PUBLIC = _public_names()


def _returns_something(func) -> bool:
    """Whether ``func``'s source has a ``return <value>`` or a ``yield``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError):
        return False
    body = tree.body[0]
    nested = {id(n) for node in ast.walk(body) if node is not body
              and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for n in ast.walk(node)}
    return any(id(n) not in nested and (isinstance(n, (ast.Yield, ast.YieldFrom))
                                        or isinstance(n, ast.Return) and n.value is not None
                                        and not (isinstance(n.value, ast.Constant)
                                                 and n.value.value is None))
               for n in ast.walk(body))


def _parsed(obj):
    target = obj.__init__ if inspect.isclass(obj) else obj
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # numpydoc's notes on odd sections
        return FunctionDoc(target, doc=inspect.getdoc(obj))


def _problem(name: str, obj) -> str | None:
    """What is wrong with ``obj``'s docstring (None: nothing)."""
    doc = inspect.getdoc(obj)
    if not doc:
        return "no docstring"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return None                                 # a warning category: no parameters
    parsed = _parsed(obj)
    if not parsed["Summary"]:
        return "no summary line"
    if isinstance(obj, property):
        return None
    target = obj.__init__ if inspect.isclass(obj) else obj
    documented = [p.name.lstrip("*") for p in parsed["Parameters"]]
    signature = [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]
    if documented != signature:
        return f"Parameters {documented} != signature {signature}"
    if inspect.isfunction(obj) and _returns_something(obj) \
            and not (parsed["Returns"] or parsed["Yields"]):
        return "no Returns section (it returns a value)"
    if "." not in name and not parsed["Examples"]:
        return "no Examples section"
    return None


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_public_name_has_a_numpydoc_docstring_matching_its_signature(name, obj):
    problem = _problem(name, obj)
    assert problem is None, f"{name}: {problem}"


def test_every_public_class_method_is_checked():
    """The list above covers methods, class methods and properties (not only
    plain functions): e.g. RRandom.from_random_seed and RRandom.random_seed."""
    checked = {n for n, _ in PUBLIC}
    assert {"RRandom.from_random_seed", "RRandom.random_seed", "GBMFit.predict",
            "InfluenceSummary.to_frame", "EarlyExitPredictor.order_"} <= checked


# ------------------------------------------------------------------ examples
@pytest.fixture(scope="module")
def namespace():
    """What the examples of the API reference assume."""
    import matplotlib
    import numpy as np
    import pandas as pd

    matplotlib.use("Agg")
    boston = pd.read_csv(ROOT / "data" / "boston.csv")
    base = {"np": np, "pd": pd, "pygbm": pygbm, "boston": boston}
    base["fit"] = eval(FIT_CALL, dict(base))          # noqa: S307 (the stated call)
    return base


WITH_EXAMPLES = [(n, o) for n, o in PUBLIC if not isinstance(o, property)
                 and inspect.getdoc(o) and ">>>" in inspect.getdoc(o)]


@pytest.mark.parametrize("name, obj", WITH_EXAMPLES, ids=[n for n, _ in WITH_EXAMPLES])
def test_docstring_examples_run(name, obj, namespace, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(ROOT)                     # examples read data/*.csv
    test = doctest.DocTestParser().get_doctest(inspect.getdoc(obj), dict(namespace), name,
                                               None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE, verbose=False)
    report = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # messages are not part of the output
        runner.run(test, out=report.append)
    plt.close("all")
    assert runner.failures == 0, "".join(report)


def test_api_reference_lists_every_public_name():
    text = (ROOT / "docs" / "api.rst").read_text()
    listed = set(re.findall(r"^\s{3}(\w+)\s*$", text, flags=re.M))
    public = {n for n, _ in PUBLIC if "." not in n}
    assert public - listed == set(), f"missing from docs/api.rst: {sorted(public - listed)}"
