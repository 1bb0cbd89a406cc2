"""summary(): the InfluenceSummary object (text, HTML, frame, bar chart)."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pygbm.inspect.influence import relative_influence
from pygbm.inspect.summary import InfluenceSummary, summary
from rfit import build_fit, load_fixture


@pytest.fixture(scope="module")
def boston():
    return build_fit(load_fixture("boston_gaussian"))


def test_to_frame_is_r_data_frame_indexed_by_variable(boston):
    result = summary(boston, plot_it=False)
    assert isinstance(result, InfluenceSummary)
    frame = result.to_frame()
    assert list(frame.columns) == ["var", "rel_inf"]
    assert list(frame.index) == list(frame["var"])
    ri = relative_influence(boston, n_trees=boston.n_trees)
    np.testing.assert_allclose(frame["rel_inf"], 100 * ri.loc[frame.index] / ri.sum())
    assert np.all(np.diff(frame["rel_inf"].to_numpy()) <= 0)
    frame.loc[frame.index[0], "rel_inf"] = -1.0        # a copy: the summary keeps its numbers
    assert result.to_frame()["rel_inf"].iloc[0] > 0


def test_text_and_html_show_every_variable(boston):
    result = summary(boston, n_trees=50, plot_it=False)
    text, html = str(result), result._repr_html_()
    assert "Relative influence" in text and "gaussian" in text and "50" in text
    frame = result.to_frame()
    for name, value in zip(frame["var"], frame["rel_inf"]):
        assert name in text and name in html
    lines = [line.split() for line in text.splitlines()]
    shown = {parts[0]: float(parts[1]) for parts in lines if len(parts) == 2 and
             parts[0] in set(frame["var"])}
    np.testing.assert_allclose([shown[v] for v in frame["var"]], frame["rel_inf"], rtol=1e-3,
                               atol=1e-4)
    assert html.startswith("<table") and "rel_inf" in html


def test_html_escapes_the_variable_names():
    """statsmodels writes HTML cells as given: a predictor named ``x<b>`` would
    turn the rest of the table bold and ``a&b`` would be read as an entity."""
    result = InfluenceSummary(var=("x<b>", "a&b"), rel_inf=np.array([60.0, 40.0]),
                              distribution="gaussian", n_trees=5,
                              method="relative_influence", normalized=True, c_bars=2)
    html = result._repr_html_()
    assert "x&lt;b&gt;" in html and "a&amp;b" in html and "<b>" not in html
    assert "x<b>" in str(result) and "a&b" in str(result)       # text: the names as given


def test_repr_is_the_text_table_not_the_fields(boston):
    """At a Python prompt (and as a notebook's text/plain) the summary shows
    its table, as print does, not the dataclass's arrays."""
    result = summary(boston, n_trees=50, plot_it=False)
    assert repr(result) == str(result)
    assert "InfluenceSummary(" not in repr(result) and "array(" not in repr(result)


def test_plot_draws_the_bars_and_returns_the_axes(boston):
    plt = pytest.importorskip("matplotlib.pyplot")
    result = summary(boston, c_bars=4, plot_it=False)
    fig, ax = plt.subplots()
    assert result.plot(ax=ax) is ax
    assert len(ax.patches) == 4
    assert [t.get_text() for t in ax.get_yticklabels()] == list(result.to_frame()["var"][:4])[::-1]
    plt.close("all")
    drawn = summary(boston)                                     # R: summary draws by default
    assert isinstance(drawn, InfluenceSummary) and len(plt.gca().patches) == 13
    plt.close("all")


def test_statsmodels_is_imported_on_first_use():
    # the toolbox (summary, calibrate_plot) reaches for statsmodels only when used
    code = ("import sys, pygbm.inspect; "
            "assert 'statsmodels' not in sys.modules, 'imported early'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_normalize_false_shows_raw_influence(boston):
    result = summary(boston, plot_it=False, normalize=False, order=False)
    assert "sum of split improvements" in str(result)
    pd.testing.assert_series_equal(result.to_frame()["rel_inf"],
                                   relative_influence(boston, 100).rename("rel_inf"),
                                   check_names=False, check_index_type=False)


def test_no_split_gives_zero_influence_with_a_warning_not_nan():
    import pygbm

    df = pd.DataFrame({"y": np.random.default_rng(0).normal(size=60), "a": 1.0, "b": 2.0})
    with pytest.warns(UserWarning, match="no variation"):
        fit = pygbm.gbm("y ~ a + b", df, distribution="gaussian", n_trees=5)
    with pytest.warns(UserWarning, match="relative influences are 0, where R's"):
        table = fit.summary(plot_it=False).to_frame()
    assert table["rel_inf"].tolist() == [0.0, 0.0]
