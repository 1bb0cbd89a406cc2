"""GBMFit's rich display (issue 21 item 2): R's print as a small HTML table."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.fit_report import (SHOWN_CLASSES, TOP_INFLUENCE, FitReport, best_iterations,
                              fit_report)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 7))
    return pd.DataFrame({"y": 3 * x[:, 0] + x[:, 1] + rng.normal(size=400),
                         **{f"x{j}": x[:, j] for j in range(7)}})


def test_html_shows_call_distribution_trees_best_iterations_and_top_influence(data):
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=60, cv_folds=2,
                    train_fraction=0.8, random_state=1)
    html = fit._repr_html_()
    best = best_iterations(fit)
    assert set(best) == {"cv", "test", "OOB"}
    assert "gbm(formula = &quot;y ~ .&quot;" in html and "<td>gaussian</td>" in html
    assert "<th>Trees</th><td>60</td>" in html
    for label, method in (("cross-validation", "cv"), ("test set", "test"),
                          ("out-of-bag", "OOB")):
        assert f"Best iteration ({label})</th><td>{best[method]}</td>" in html
    n_used, _ = fit.best_iteration(quiet=True)
    top = fit.summary(n_trees=n_used, plot_it=False).to_frame()
    assert f"top {TOP_INFLUENCE}, at {n_used} trees" in html
    assert html.index(">x0<") < html.index(">x1<")          # sorted by influence
    assert html.count("<tr><td>") == TOP_INFLUENCE
    assert top["var"].iloc[TOP_INFLUENCE] not in html.split("Relative influence")[1]


def test_html_notes_a_best_iteration_at_the_last_tree(data):
    """A first fit that stops too early (cv error still falling at the last
    tree) gets a note; one whose cv error has turned does not."""
    short = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=30, shrinkage=0.01,
                      cv_folds=2, random_state=1)
    assert best_iterations(short)["cv"] == 30
    assert "cross-validation error was still falling at the last tree" in short._repr_html_()
    turned = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=300, shrinkage=0.3,
                       cv_folds=2, random_state=1)
    assert best_iterations(turned)["cv"] < 300
    assert "still falling" not in turned._repr_html_()
    # gbm_more keeps the cv of the first 30 trees: the note says to refit, not to add trees
    more = pygbm.gbm_more(short, 30)
    assert "gbm_more does not extend the cv" in more._repr_html_()
    assert "pygbm.gbm_more" not in more._repr_html_()


def test_html_without_a_rule_lists_no_best_iteration(data):
    fit = pygbm.gbm_fit(data.drop(columns="y"), data["y"], distribution="gaussian",
                        n_trees=20, bag_fraction=1.0)
    html = fit._repr_html_()
    assert "Best iteration" not in html and "at 20 trees" in html


def test_html_of_a_multinomial_fit_counts_classes(data):
    y = pd.Categorical(np.digitize(data["y"], [-1, 1]).astype(str))
    fit = pygbm.gbm_fit(data.drop(columns="y"), y, distribution="multinomial", n_trees=10,
                        random_state=2)
    assert "10 iterations x 3 classes" in fit._repr_html_()


def test_html_and_call_say_how_the_trees_were_grown(data):
    data = data.assign(g=np.array(list("abcde"))[np.arange(len(data)) % 5])
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=10, interaction_depth=2,
                    boosting_type="ordered", categorical="ordered_ts", max_bins=32,
                    random_state=1)
    html = fit._repr_html_()
    assert "ordered (CatBoost), 4 permutations" in html
    assert "target statistics (ordered_ts)" in html
    assert "binned, at most 32 bins per predictor" in html
    assert fit.call.endswith(', max_bins = 32, categorical = "ordered_ts", '
                             'boosting_type = "ordered")')
    plain = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=10, random_state=1)
    assert "Boosting" not in plain._repr_html_() and "Split search" not in plain._repr_html_()
    assert plain.call.endswith("cv_folds = 0)")  # R's arguments only, at their defaults


def test_html_and_call_of_a_fit_with_costs(data):
    weights = np.ones(len(data))
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=10, interaction_depth=2,
                    feature_costs={"x1": 5.0}, cegb_tradeoff=0.01, weights=weights,
                    random_state=1)
    html = fit._repr_html_()
    for line in pygbm.costs.cost_lines(fit):  # print(fit)'s cost lines, as table rows
        key, value = line.split(": ", 1)
        assert f"<th>{key}</th><td>{value}</td>" in html
    assert f"weights = <{len(data)} values>, feature_costs = {{'x1': 5.0}}, " \
           "cegb_tradeoff = 0.01)" in fit.call


def test_call_shows_series_and_numpy_scalars_on_one_line(data):
    # a Series of costs or weights was its multi-line repr (print(fit)'s first line broke
    # over several), a NumPy scalar 'np.float64(0.5)'
    half = data.iloc[200:]
    fit = pygbm.gbm("y ~ .", half, distribution="gaussian", n_trees=2,
                    weights=pd.Series(np.ones(len(half)), index=half.index),
                    feature_costs=pd.Series({"x1": 5.0, "x2": np.float32(1.5)}),
                    feature_costs_model={"x3": np.float64(2.0)}, cegb_tradeoff=np.float64(0.01),
                    random_state=1)
    assert "\n" not in fit.call
    assert fit.call.endswith(f"weights = <{len(half)} values>, feature_costs = {{'x1': 5.0, "
                             f"'x2': 1.5}}, feature_costs_model = {{'x3': 2.0}}, "
                             f"cegb_tradeoff = 0.01)")
    assert repr(fit).splitlines()[0] == fit.call


def test_a_fit_without_splits_and_one_without_finite_validation_errors_display(data):
    """A model of no split shows a note, not a table of zero influences in column
    order; a validation error of NaN everywhere (coxph, one censored validation row)
    prints as R does, the best test-set iteration undefined (print raised)."""
    flat = pygbm.gbm("y ~ .", data.assign(**{c: 1.0 for c in data.columns if c != "y"}),
                     distribution="gaussian", n_trees=5)
    html = flat._repr_html_()
    assert "none of the first 5 trees splits" in html and "Relative influence" not in html
    # a tree without a split still moves the prediction (its single leaf): not "the
    # constant initial value", and not "none of the first 1 trees"
    assert "one value for every row" in html and "initial value)" in html
    assert "the first tree does not split" in pygbm.gbm(
        "y ~ .", data.assign(**{c: 1.0 for c in data.columns if c != "y"}),
        distribution="gaussian", n_trees=1)._repr_html_()
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x": rng.normal(size=200), "time": rng.exponential(size=200),
                      "status": (rng.uniform(size=200) < 0.7).astype(int)})
    d.loc[199, "status"] = 0
    fit = pygbm.gbm("Surv(time, status) ~ x", d, distribution="coxph", n_trees=10,
                    bag_fraction=1.0, train_fraction=199 / 200)
    assert "The best test-set iteration was undefined (its errors are all NaN)." in repr(fit)
    assert "GBMFit" in fit._repr_html_()


def test_the_call_cuts_a_long_dict_at_whole_entries():
    """feature_costs of 8 predictors were cut mid-name ("'tri...")."""
    from pygbm.call import CALL_VALUE_CHARS, call_value
    costs = {"pregnant": 1.0, "glucose": 17.61, "pressure": 1.0, "triceps": 1.0,
             "insulin": 22.78, "mass": 1.0, "pedigree": 1.0, "age": 1.0}
    text = call_value(costs)
    assert text == "{'pregnant': 1.0, 'glucose': 17.61, ... (8 entries)}"
    assert len(text) <= CALL_VALUE_CHARS
    assert call_value({"x" * 80: 1.0}) == "{... (1 entry)}"
    assert call_value({"a": 1.0}) == "{'a': 1.0}"


def test_the_report_holds_the_facts_both_renderings_show(data):
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=40, cv_folds=2,
                    train_fraction=0.8, random_state=1)
    report = fit_report(fit)
    assert report.as_text() == repr(fit) and report.as_html() == fit._repr_html_()
    assert report.best == best_iterations(fit) and report.n_trees == 40
    # R's print counts influence at the best test iteration; predict's default is the same
    assert report.r_trees == report.best["test"] == report.default_trees
    assert [name for name, _ in report.influence][:2] == ["x0", "x1"]
    assert report.influential == report.r_influential == 2      # stumps: x0 and x1
    assert f"The best test-set iteration was {report.best['test']}." in report.as_text()


def test_an_undefined_best_iteration_is_said_in_the_text_and_the_html(data):
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=10, cv_folds=2,
                    random_state=1)
    nan_cv = dataclasses.replace(fit, cv_error=np.full(10, np.nan))
    report = fit_report(nan_cv)
    assert report.best["cv"] is None and report.r_trees == 10
    assert "The best cross-validation iteration was undefined" in report.as_text()
    # the HTML left the row out without a word
    assert ("<th>Best iteration (cross-validation)</th><td>undefined (its errors are all "
            "NaN)</td>") in report.as_html()


@pytest.mark.parametrize("n_trees", [1, 2])
def test_an_oob_best_iteration_of_too_few_trees_says_why(data, n_trees):
    """A fit of 1 or 2 bagged trees has finite out-of-bag improvements, too few for
    the smoother: the display said "its errors are all NaN"."""
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=n_trees, random_state=1)
    report = fit_report(fit)
    assert report.best["OOB"] is None
    assert ("<th>Best iteration (out-of-bag)</th><td>undefined (the out-of-bag smoother "
            f"needs 3 trees with a finite improvement; the fit has {n_trees})</td>"
            ) in report.as_html()
    assert "NaN" not in report.as_html()
    nan_oob = dataclasses.replace(fit, oobag_improve=np.full(n_trees, np.nan))
    assert "undefined (no finite out-of-bag improvement)" in fit_report(nan_oob).as_html()


def test_a_multiclass_text_names_its_first_classes(data):
    y = pd.Categorical(np.digitize(data["y"], np.linspace(-4, 4, SHOWN_CLASSES + 2)))
    frame = data.drop(columns="y").assign(k=y)
    fit = pygbm.gbm("k ~ x0 + x1", frame, distribution="multinomial", n_trees=3,
                    random_state=1)
    report = fit_report(fit)
    assert report.num_classes > SHOWN_CLASSES
    assert report.as_text().splitlines()[3].endswith(", ...")
    assert f"iterations x {report.num_classes} classes" in report.as_html()


def test_the_text_counts_influence_at_r_trees_the_html_at_predicts_default(data):
    """The deliberate difference between the renderings: R's print.gbm falls back to
    the best cv iteration when the test one is undefined; predict (and the HTML) to
    all trees. A bagged fit's OOB estimate is shown in the HTML, counted by neither."""
    fit = pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=100, shrinkage=0.5,
                    cv_folds=2, train_fraction=0.8, random_state=1)
    nan_test = dataclasses.replace(fit, valid_error=np.full(100, np.nan))
    report = fit_report(nan_test)
    assert report.best["test"] is None and report.best["cv"] < 100
    assert report.r_trees == report.best["cv"] and report.default_trees == 100
    influence_at = {n: int((nan_test.relative_influence(n_trees=n).to_numpy() > 0).sum())
                    for n in (report.r_trees, report.default_trees)}
    assert report.r_influential == influence_at[report.r_trees]
    assert report.influential == influence_at[100]
    assert report.r_influential < report.influential    # later trees split on the noise
    assert f"of which {report.r_influential} had non-zero influence." in report.as_text()
    assert f"of which {report.influential} had non-zero influence" in report.as_html()
    assert "at 100 trees" in report.as_html()

    oob_only = fit_report(pygbm.gbm("y ~ .", data, distribution="gaussian", n_trees=20,
                                    random_state=1))
    assert set(oob_only.best) == {"OOB"}
    assert oob_only.r_trees == oob_only.default_trees == 20
    assert "out-of-bag" not in oob_only.as_text()
    assert f"Best iteration (out-of-bag)</th><td>{oob_only.best['OOB']}</td>" in \
        oob_only.as_html()


def test_a_report_built_by_hand_renders_both_ways():
    """The renderings read only the report's fields."""
    report = FitReport(
        call=None, distribution="bernoulli", n_trees=50, num_classes=1, classes=(),
        best={"cv": None, "test": 20, "OOB": 12}, undefined={"cv": "its errors are all NaN"},
        cv_still_falling=False,
        test_still_falling=False, n_features=3, r_trees=20, r_influential=1,
        default_trees=20, influence=(("b", 75.0), ("a", 25.0), ("c", 0.0)),
        grown_by=(("Split search", "binned, at most 8 bins per predictor"),),
        zero_sample=None, cost_lines=("Mean prediction cost per row: 1.5",))
    assert report.as_text() == (
        "A gradient boosted model with bernoulli loss function.\n"
        "50 iterations were performed.\n"
        "The best cross-validation iteration was undefined (its errors are all NaN).\n"
        "The best test-set iteration was 20.\n"
        "There were 3 predictors of which 1 had non-zero influence.\n"
        "Mean prediction cost per row: 1.5")
    html = report.as_html()
    assert "Call" not in html
    for row in ("<th>Trees</th><td>50</td>",
                "<th>Best iteration (cross-validation)</th><td>undefined (its errors are all "
                "NaN)</td>",
                "<th>Split search</th><td>binned, at most 8 bins per predictor</td>",
                "<th>Mean prediction cost per row</th><td>1.5</td>",
                "<th>Best iteration (test set)</th><td>20</td>",
                "<th>Best iteration (out-of-bag)</th><td>12</td>",
                "<th>Predictors</th><td>3, of which 2 had non-zero influence</td>",
                "top 5, at 20 trees",
                '<tr><td>b</td><td class="num">75.00</td></tr>'):
        assert row in html
    assert report.influential == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.n_trees = 60
