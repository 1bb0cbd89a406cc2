"""Progress bars (issue 21 item 3): a tqdm bar per fit and one over cv folds,
off with progress=False, never by default where nobody watches (CI, tests);
verbose=True keeps R's iteration table instead; the numbers do not change."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm import progress


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 3))
    return pd.DataFrame({"y": x[:, 0] + rng.normal(size=200), "a": x[:, 0], "b": x[:, 1],
                         "c": x[:, 2]})


@pytest.fixture
def no_delay(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)


def _fit(data, **kw):
    return pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=20, random_state=1, **kw)


def test_default_shows_nothing_where_nobody_watches(data, capsys, no_delay):
    fit = _fit(data)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(fit.train_error, _fit(data, progress=False).train_error)


def test_progress_true_shows_a_bar_of_the_iterations_and_changes_no_number(data, capsys,
                                                                           no_delay):
    fit = _fit(data, progress=True)
    err = capsys.readouterr().err
    assert "gbm" in err and "20/20" in err
    np.testing.assert_array_equal(fit.fit, _fit(data, progress=False).fit)
    more = pygbm.gbm_more(fit, 5, progress=True)
    assert "gbm_more" in capsys.readouterr().err and more.n_trees == 25


def test_cv_shows_a_bar_over_the_folds(data, capsys, no_delay):
    fit = _fit(data, cv_folds=3, progress=True)
    err = capsys.readouterr().err
    assert "cv folds" in err and "3/3" in err
    np.testing.assert_array_equal(fit.cv_error, _fit(data, cv_folds=3).cv_error)


def test_verbose_keeps_r_table_and_no_bar(data, capsys, no_delay):
    _fit(data, verbose=True, progress=True)
    out = capsys.readouterr()
    assert out.out.startswith("Iter   TrainDeviance") and out.err == ""


def test_qwyc_tradeoff_shows_a_bar_over_its_points(capsys, no_delay):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 2))
    df = pd.DataFrame({"y": (x[:, 0] + rng.normal(size=300) > 0).astype(int),
                       "a": x[:, 0], "b": x[:, 1]})
    fit = pygbm.gbm("y ~ .", df.iloc[:150], distribution="bernoulli", n_trees=20,
                    random_state=1)
    kw = dict(alphas=[0.0, 0.05], methods=("qwyc", "margin"), n_trees=20)
    shown = pygbm.qwyc_tradeoff(fit, df.iloc[150:220], df.iloc[220:], progress=True, **kw)
    err = capsys.readouterr().err      # 2 alphas + the margin rule's default margins
    assert "qwyc_tradeoff" in err and f"{len(shown) - 1}/{len(shown) - 1}" in err
    quiet = pygbm.qwyc_tradeoff(fit, df.iloc[150:220], df.iloc[220:], **kw)
    assert capsys.readouterr().err == "" and shown.equals(quiet)
    with pytest.raises(ValueError, match="progress must be None, True or False"):
        pygbm.qwyc_tradeoff(fit, df.iloc[150:220], df.iloc[220:], progress="yes", **kw)


def test_progress_false_and_bad_values(data, capsys, no_delay):
    _fit(data, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="progress must be None, True or False"):
        _fit(data, progress="yes")


def test_watched_means_a_terminal_or_notebook_and_not_ci(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stderr", Tty())
    monkeypatch.delenv("CI", raising=False)
    assert progress.wanted(None, verbose=False)
    assert not progress.wanted(None, verbose=True)
    assert not progress.wanted(False, verbose=False)
    monkeypatch.setenv("CI", "true")
    assert not progress.wanted(None, verbose=False)
    assert progress.wanted(True, verbose=False)


def test_a_notebooks_text_bars_do_not_stack(data, capsys, no_delay, monkeypatch):
    """In a notebook without ipywidgets, a second text bar (a cv's final fit, run
    alongside its folds) would be drawn a line below with a cursor-up code, which
    notebooks do not honour: every update became a new line. Only the first is
    shown there; a terminal shows both."""
    monkeypatch.setattr(progress, "_in_jupyter", lambda: True)
    monkeypatch.setattr(progress, "_tqdm_class",
                        lambda: __import__("tqdm.std", fromlist=["tqdm"]).tqdm)
    with progress.progress_bar(True, 3, "cv folds", "fold") as outer:
        with progress.progress_bar(True, 20, "gbm", "iteration") as inner:
            assert outer is not None and inner is None
        outer.update(3)
    with progress.progress_bar(True, 20, "gbm", "iteration") as again:
        assert again is not None            # the first bar closed: a bar again
    capsys.readouterr()
    fit = _fit(data, cv_folds=3, n_cores=2, progress=True)
    err = capsys.readouterr().err
    assert "cv folds" in err and "gbm:" not in err
    np.testing.assert_array_equal(fit.cv_error, _fit(data, cv_folds=3).cv_error)


def test_a_notebook_widget_tqdm_cannot_draw_falls_back_to_text(data, capsys, no_delay,
                                                                monkeypatch):
    """tqdm.notebook imported in a kernel before ipywidgets was installed keeps no
    widget: after `%pip install ipywidgets` (what tqdm's own warning asks for) its
    bars raised ImportError ("IProgress not found"), and so did every fit of the
    kernel, progress=None included. Such a kernel gets the text bar."""
    import types

    import tqdm.notebook
    monkeypatch.setattr(progress, "_in_jupyter", lambda: True)
    monkeypatch.setitem(sys.modules, "ipywidgets", types.ModuleType("ipywidgets"))
    monkeypatch.setattr(tqdm.notebook, "IProgress", None)
    assert progress._tqdm_class().__module__ == progress.TEXT_BAR_MODULE
    _fit(data, progress=True)
    assert "gbm" in capsys.readouterr().err


def test_a_fit_never_fails_for_its_bar(data, capsys, no_delay, monkeypatch):
    """A broken install without tqdm (a required dependency): the fit runs, with a
    warning that there is no bar, where it ended in tqdm's ImportError."""
    monkeypatch.setitem(sys.modules, "tqdm.std", None)
    with pytest.warns(UserWarning, match=r"^no progress bar: tqdm cannot be imported"):
        fit = _fit(data, progress=True)
    np.testing.assert_array_equal(fit.fit, _fit(data, progress=False).fit)
