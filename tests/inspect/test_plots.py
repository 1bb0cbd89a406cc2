"""Content of the inspect plots (summary bars, partial dependence, ICE)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection, QuadMesh  # noqa: E402

from pygbm.inspect import plot_gbm, summary  # noqa: E402
from pygbm.plotting import plot_ice, plot_partial_dependence, plot_relative_influence  # noqa: E402
from rfit import load_fit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def boston():
    return load_fit("boston_gaussian")


@pytest.fixture(scope="module")
def lending():
    return load_fit("lending_bernoulli")


def test_summary_bar_chart(boston):
    fig, ax = plt.subplots()
    table = summary(boston, ax=ax).to_frame()
    assert len(ax.patches) == len(boston.var_names) == 13
    assert ax.get_xlabel() == "Relative influence"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(table["var"])[::-1]             # largest on top, as R
    widths = [p.get_width() for p in ax.patches]
    np.testing.assert_allclose(widths, table["rel_inf"].to_numpy()[::-1])
    top, bottom = ax.patches[-1].get_facecolor(), ax.patches[0].get_facecolor()
    assert top[:3] == pytest.approx((0, 0, 1))            # rainbow(start=3/6, end=4/6)
    assert bottom[:3] == pytest.approx((0, 1, 1))


def test_summary_c_bars_and_new_figure(boston):
    summary(boston, c_bars=5)
    ax = plt.gca()
    assert len(ax.patches) == 5
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "lstat"
    summary(boston, c_bars=0)
    assert len(plt.gca().patches) == 10                    # R's cBars = 0 -> 10


def test_one_continuous(boston):
    ax = plot_gbm(boston, "lstat", continuous_resolution=50)
    lines = ax.get_lines()
    assert len(lines) == 1 and len(lines[0].get_xdata()) == 50
    assert ax.get_xlabel() == "lstat" and ax.get_ylabel() == "f(x)"
    grid = plot_gbm(boston, "lstat", continuous_resolution=50, return_grid=True)
    np.testing.assert_allclose(lines[0].get_ydata(), grid["y"])


def test_one_categorical_response(lending):
    ax = plot_gbm(lending, "sub_grade", type="response")
    assert [t.get_text() for t in ax.get_xticklabels()] == list(lending.var_levels[3])
    assert len(ax.get_lines()[0].get_xdata()) == 35
    assert ax.get_ylabel() == "probability"
    assert ax.get_xlabel() == "sub_grade"


def test_response_axis_of_a_ranking_fit_is_its_logistic_not_a_probability():
    # pairwise's type="response" is R's 1/(1 + exp(-f)) of a ranking score (predict.gbm,
    # plot.gbm): it was labelled "probability", as bernoulli's is
    import warnings

    import pandas as pd
    from types import SimpleNamespace

    from pygbm import gbm
    from pygbm.distributions import get_distribution
    from pygbm.inspect.partial_dependence import response_label
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"g": np.repeat(np.arange(24), 10), "x": rng.normal(size=240)})
    d["y"] = (d.x + 0.5 * rng.normal(size=240) > 0).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = gbm("y ~ x", d, distribution=dict(name="pairwise", group="g", metric="ndcg"),
                  n_trees=5, random_state=1)
    ax = plot_gbm(fit, "x", type="response", continuous_resolution=5)
    assert ax.get_ylabel() == "1/(1+exp(-f(x)))"
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 1 / (1 + np.exp(
        -plot_gbm(fit, "x", return_grid=True, continuous_resolution=5)["y"])))
    labels = {name: response_label(SimpleNamespace(distribution=get_distribution(name)),
                                   "response")
              for name in ("bernoulli", "adaboost", "multinomial", "poisson", "gaussian")}
    assert labels == {"bernoulli": "probability", "adaboost": "probability",
                      "multinomial": "probability", "poisson": "exp(f(x))", "gaussian": "f(x)"}


def test_two_continuous_image(boston):
    ax = plot_gbm(boston, ["lstat", "rm"], continuous_resolution=20)
    meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
    assert len(meshes) == 1 and meshes[0].get_array().size == 400
    assert ax.get_xlabel() == "lstat" and ax.get_ylabel() == "rm"
    assert len(ax.figure.axes) == 2                        # the colour bar
    assert ax.figure.axes[1].get_ylabel() == "f(x)"


def test_continuous_by_categorical_lines(lending, boston):
    ax = plot_gbm(lending, ["term", "int_rate"], continuous_resolution=30)
    assert len(ax.get_lines()) == 2
    assert ax.get_xlabel() == "int_rate"
    assert ax.get_legend().get_title().get_text() == "term"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["term_36", "term_60"]
    ax = plot_gbm(lending, ["sub_grade", "term"])          # two categoricals
    assert len(ax.get_lines()) == 2 and ax.get_xlabel() == "sub_grade"


def test_three_variables_panels(boston, lending):
    panels = plot_gbm(boston, ["lstat", "rm", "chas"], continuous_resolution=10)
    assert [a.get_title() for a in panels] == ["chas = 0", "chas = 1"]
    fig = panels[0].figure
    assert [a for a in fig.axes if a.get_visible() and a.get_title()] == panels
    assert all(any(isinstance(c, QuadMesh) for c in a.collections) for a in panels)
    panels = plot_gbm(boston, ["lstat", "rm", "dis"], continuous_resolution=10)
    assert len(panels) == 4 and all(a.get_title().startswith("dis = ") for a in panels)
    panels = plot_gbm(lending, ["int_rate", "term", "verification_status"],
                      continuous_resolution=10)
    assert [a.get_title()[:7] for a in panels] == ["term = ", "term = "]
    assert all(len(a.get_lines()) == 3 for a in panels)


def test_ice_plot(boston):
    ax = plot_gbm(boston, "rm", continuous_resolution=15, ice=True, ice_rows=25,
                  random_state=2)
    assert len(ax.get_lines()) == 26                       # 25 curves + their mean
    assert ax.get_xlabel() == "rm"
    ax = plot_gbm(boston, "chas", ice=True, ice_rows=10)
    assert len(ax.get_lines()) == 11


def test_given_axes_are_used(boston):
    fig, (a, b) = plt.subplots(1, 2)
    assert plot_gbm(boston, "lstat", ax=a) is a
    assert plot_gbm(boston, ["lstat", "rm"], ax=b, continuous_resolution=10) is b
    fig2 = plt.figure()
    panels = plot_gbm(boston, ["lstat", "rm", "dis"], ax=fig2, continuous_resolution=5)
    assert all(a.figure is fig2 for a in panels) and len(panels) == 4
    with pytest.raises(TypeError, match="Figure"):
        plot_gbm(boston, ["lstat", "rm", "dis"], ax=a, continuous_resolution=5)


def test_plotting_functions_check_input(boston):
    with pytest.raises(ValueError, match="rel_inf"):
        plot_relative_influence(np.zeros(3))
    grid = plot_gbm(boston, "lstat", return_grid=True)
    with pytest.raises(ValueError, match="ICE"):
        plot_ice(grid)
    four = plot_gbm(boston, ["lstat", "rm", "dis", "nox"], continuous_resolution=2,
                    return_grid=True)
    with pytest.raises(ValueError, match="1 to 3"):
        plot_partial_dependence(four)


def test_ax_that_is_not_axes_is_refused(boston):
    """Every plot names ``ax`` when it is given something other than Axes."""
    import pandas as pd
    from pygbm import gbm
    from pygbm.inspect import gbm_perf
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    bagged = gbm("y ~ x", pd.DataFrame({"y": x + rng.normal(size=200), "x": x}), n_trees=5)
    from pygbm.plotting import plot_qwyc_tradeoff
    grid = plot_gbm(boston, "lstat", return_grid=True, continuous_resolution=5)
    calls = [lambda: summary(boston, ax="left"),
             lambda: plot_partial_dependence(grid, ax="left"),
             lambda: plot_relative_influence(summary(boston, plot_it=False).to_frame(),
                                             ax="left"),
             lambda: gbm_perf(bagged, method="OOB", ax="left"),
             lambda: plot_qwyc_tradeoff(None, ax="left"),
             # nothing drawn: ax was ignored without a word (qwyc_tradeoff checked it)
             lambda: summary(boston, plot_it=False, ax="left"),
             lambda: bagged.summary(plot_it=False, ax="left"),
             lambda: gbm_perf(bagged, method="OOB", plot_it=False, ax="left"),
             lambda: gbm_perf(bagged, method="OOB", plot_it=False, oobag_curve=True,
                              ax=[plt.gca(), "right"])]
    for call in calls:
        with pytest.raises(TypeError, match="ax must be a matplotlib Axes.* or None, got"):
            call()
    # plot_gbm draws on an Axes or, for panels, a Figure; the grid alone (return_grid,
    # or more than 3 variables) ignored any ax
    for call in (lambda: plot_gbm(boston, "lstat", ax="left"),
                 lambda: plot_gbm(boston, "lstat", return_grid=True, ax="left"),
                 lambda: plot_gbm(boston, ["lstat", "rm", "dis", "nox"], ax="left",
                                  continuous_resolution=2)):
        with pytest.raises(TypeError, match=r"^ax must be a matplotlib Axes, a Figure \(a plot "
                                            r"of panels\) or None, got str$"):
            call()
    with pytest.raises(ValueError, match="ax holds 2 Axes but the plot has 1 panel"):
        gbm_perf(bagged, method="OOB", plot_it=False, ax=[plt.gca(), plt.gca()])
    # what a drawing takes is taken without one
    fig, ax = plt.subplots()
    with pytest.warns(UserWarning, match="OOB generally underestimates"):
        assert gbm_perf(bagged, method="OOB", plot_it=False, ax=ax).axes is None
    assert summary(boston, plot_it=False, ax=ax).c_bars == 13
    plot_gbm(boston, "lstat", return_grid=True, ax=ax)
    plot_gbm(boston, "lstat", return_grid=True, ax=fig)
    assert not ax.has_data()


def test_matplotlib_imported_lazily():
    code = ("import sys; import pygbm.inspect.partial_dependence, pygbm.inspect.influence, "
            "pygbm.inspect.interaction, pygbm.inspect.pretty, pygbm.plotting; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_rug_marks_the_deciles_of_the_data(boston):
    """rug=True (issue 21 item 7): ticks at the training data's deciles (R's stored
    quantiles 0.1..0.9) on each continuous axis; off by default; none for a categorical."""
    j = boston.var_names.index("lstat")
    deciles = np.asarray(boston.var_levels[j], dtype=float)[1:-1]
    assert not plot_gbm(boston, "lstat").collections
    ax = plot_gbm(boston, "lstat", rug=True)
    (ticks,) = ax.collections
    xs = [seg[0][0] for seg in ticks.get_segments()]
    np.testing.assert_allclose(xs, deciles)
    ax = plot_gbm(boston, ["lstat", "rm"], rug=True)
    assert len(ax.collections) == 3                   # the image, x ticks, y ticks
    ice = plot_gbm(boston, "lstat", ice=True, rug=True)
    assert len(ice.collections) == 1


def _rug(ax):
    """The rug's ticks on ``ax``: the x positions of its vertical ticks (on the x
    axis) and the y positions of its horizontal ones (on the y axis)."""
    xs, ys = [], []
    for lines in ax.collections:
        if isinstance(lines, LineCollection):
            for (x0, y0), (x1, _) in lines.get_segments():
                (xs.append(x0) if x0 == x1 else ys.append(y0))
    return xs, ys


def _stored_deciles(fit, name):
    return np.asarray(fit.var_levels[fit.var_names.index(name)], dtype=float)[1:-1]


def test_rug_marks_the_variable_on_each_axis(lending, boston):
    """A categorical first variable and a continuous second: the continuous one is
    drawn on the x axis, but its deciles were drawn as ticks on the f(x) axis."""
    deciles = _stored_deciles(lending, "int_rate")
    for i_var in (["term", "int_rate"], ["int_rate", "term"]):
        ax = plot_gbm(lending, i_var, continuous_resolution=10, rug=True)
        assert ax.get_xlabel() == "int_rate"
        xs, ys = _rug(ax)
        np.testing.assert_allclose(xs, deciles)
        assert ys == []
    ax = plot_gbm(boston, ["lstat", "rm"], continuous_resolution=10, rug=True)
    xs, ys = _rug(ax)
    np.testing.assert_allclose(xs, _stored_deciles(boston, "lstat"))
    np.testing.assert_allclose(ys, _stored_deciles(boston, "rm"))


def test_rug_is_checked_and_drawn_on_three_variable_panels(lending, boston):
    """rug was not checked with return_grid=True, and ignored for 3 variables."""
    with pytest.raises(TypeError, match="rug must be True or False, got 'yes'"):
        plot_gbm(boston, "lstat", rug="yes", return_grid=True)
    panels = plot_gbm(boston, ["lstat", "rm", "chas"], continuous_resolution=5, rug=True)
    for ax in panels:                       # panels over chas: lstat on x, rm on y
        xs, ys = _rug(ax)
        np.testing.assert_allclose(xs, _stored_deciles(boston, "lstat"))
        np.testing.assert_allclose(ys, _stored_deciles(boston, "rm"))
    panels = plot_gbm(lending, ["term", "verification_status", "int_rate"],
                      continuous_resolution=5, rug=True)
    for ax in panels:                       # panels over term: int_rate on x, lines
        assert ax.get_title().startswith("term = ")
        xs, ys = _rug(ax)
        np.testing.assert_allclose(xs, _stored_deciles(lending, "int_rate"))
        assert ys == []


def test_rug_leaves_out_infinite_deciles():
    """A fifth of a predictor's values +Inf: its stored 0.9 decile is Inf, off the axis."""
    import pandas as pd

    import pygbm

    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    x[:40] = np.inf
    d = pd.DataFrame({"x": x, "y": np.nan_to_num(x, posinf=3) + rng.normal(size=200)})
    fit = pygbm.gbm("y ~ x", d, distribution="gaussian", n_trees=5, random_state=1)
    deciles = _stored_deciles(fit, "x")
    assert np.isinf(deciles).any()
    with pytest.warns(UserWarning, match="infinite values"):
        ax = plot_gbm(fit, "x", continuous_resolution=5, rug=True)
    np.testing.assert_allclose(_rug(ax)[0], deciles[np.isfinite(deciles)])


def test_every_class_of_a_multinomial_fit_for_one_variable():
    """A multi-class grid draws one curve per class (the legend names the classes,
    also when a class column was renamed beside a predictor of its name); a
    categorical variable draws points per level; 2 variables need one class."""
    import pandas as pd

    import pygbm

    rng = np.random.default_rng(0)
    n = 300
    d = pd.DataFrame({"x": rng.normal(size=n), "f": pd.Categorical(rng.choice(list("abcd"), n)),
                      "z": rng.normal(size=n)})
    eta = d.x + (d.f == "a")
    d["cls"] = pd.Categorical(np.where(eta + rng.normal(size=n) > 1, "x",
                                       np.where(eta > 0, "mid", "lo")))
    fit = pygbm.gbm("cls ~ x + f + z", d, distribution="multinomial", n_trees=20,
                    random_state=1)
    grid = pygbm.partial_dependence(fit, "x", continuous_resolution=5)
    assert grid.attrs["class_columns"] == ["lo", "mid", "x_"]
    ax = plot_partial_dependence(grid)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["lo", "mid", "x"]
    np.testing.assert_array_equal(ax.get_lines()[2].get_ydata(), grid["x_"])
    assert ax.get_xlabel() == "x"
    ax = plot_gbm(fit, "f", type="response")
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcd")
    probs = np.stack([line.get_ydata() for line in ax.get_lines()])
    np.testing.assert_allclose(probs.sum(axis=0), 1.0)
    panels = plot_partial_dependence(pygbm.partial_dependence(fit, ["x", "f"],
                                                              continuous_resolution=3))
    assert [ax.get_title() for ax in panels] == ["class lo", "class mid", "class x"]
    assert [t.get_text() for t in panels[0].get_legend().get_texts()] == list("abcd")
    # the deciles' rug on every panel: x's on the x axis, z's on the y axis
    panels = plot_gbm(fit, ["x", "z"], continuous_resolution=3, rug=True)
    assert [sum(isinstance(c, LineCollection) for c in ax.collections) for ax in panels] == \
        [2, 2, 2]
    # f categorical first: x on the x axis of every panel, and x's rug on it
    panels = plot_gbm(fit, ["f", "x"], continuous_resolution=3, rug=True)
    for ax in panels:
        xs, ys = _rug(ax)
        np.testing.assert_allclose(xs, _stored_deciles(fit, "x"))
        assert ys == []
    with pytest.raises(ValueError, match="drawn for one or two variables, this one has 3"):
        plot_partial_dependence(pygbm.partial_dependence(fit, ["x", "f", "z"],
                                                         continuous_resolution=3))
