"""Term labels as R deparses the terms typed (pygbm.frontend.r_deparse).

The expected labels are R 4.2.2's ``attr(terms(formula), "term.labels")``; with
Rscript present the same formulas are also run through R live."""

import json
import shutil
import subprocess

import pytest

from pygbm.frontend import model_frame
from pygbm.frontend.r_deparse import deparse, expression_key, term_labels

from ._data import boston

#: formula -> R's term labels
R_LABELS = {
    "y ~ ifelse((a | b), 1, 0) + factor(a | b & c)":
        ["ifelse((a | b), 1, 0)", "factor(a | b & c)"],
    "y ~ pmin( x ,2.0 ) + I(x**2) + I(-x) + exp(- x) + I(a* -b)":
        ["pmin(x, 2)", "I(x^2)", "I(-x)", "exp(-x)", "I(a * -b)"],
    "y ~ factor(g %in% c('a', \"b\")) + I(x%%2) + I(x %/% 2) + factor(!(x > 1))":
        ['factor(g %in% c("a", "b"))', "I(x%%2)", "I(x%/%2)", "factor(!(x > 1))"],
    "y ~ log(`ph.karno`) + I(`x.y` + 1) + cut(x, c(0, .5, 1e5, Inf), right=FALSE)":
        ["log(ph.karno)", "I(x.y + 1)", "cut(x, c(0, 0.5, 1e+05, Inf), right = FALSE)"],
    "y ~ factor((x > 0)) + I((x)) + ifelse(x > 0 & !is.na(z), x, 0x10)":
        ["factor((x > 0))", "I((x))", "ifelse(x > 0 & !is.na(z), x, 16)"],
}


def _right_side(formula):
    """The labels of the right side's terms, in order (the first label is the response's)."""
    return list(term_labels(formula).values())[1:]


@pytest.mark.parametrize("formula", sorted(R_LABELS))
def test_terms_deparsed_as_r(formula):
    assert _right_side(formula) == R_LABELS[formula]


def test_labels_are_keyed_by_the_expression_evaluated():
    labels = term_labels("y ~ pmin( x ,2.0 ) + factor(a|b)")
    assert labels[expression_key("pmin(x, 2.0)")] == "pmin(x, 2)"
    assert labels[expression_key("factor(a or b)")] == "factor(a | b)"


def test_labels_of_a_model_frame_keep_the_typed_brackets():
    mf = model_frame("medv ~ factor((rad > 4)) + ifelse((rm > 6 | age < 50), 1, 0) "
                     "+ factor(rad > 4 | tax > 300 & rm > 6) + pmin( lstat ,2.0 )", boston())
    assert mf.var_names == ["factor((rad > 4))", "ifelse((rm > 6 | age < 50), 1, 0)",
                            "factor(rad > 4 | tax > 300 & rm > 6)", "pmin(lstat, 2)"]


def test_text_that_is_not_r_gives_no_label():
    assert deparse("f(x) ?? 2") is None
    assert term_labels("y ~ f(x) ?? 2") == {}


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_labels_match_r_live(tmp_path):
    path = tmp_path / "formulas.json"
    path.write_text(json.dumps(sorted(R_LABELS)))
    script = ('library(jsonlite); fs <- fromJSON(commandArgs(TRUE)[1]); '
              'cat(toJSON(lapply(fs, function(f) attr(terms(as.formula(f)), "term.labels"))))')
    run = subprocess.run(["Rscript", "-e", script, str(path)], capture_output=True, text=True,
                         timeout=120, check=True)
    for formula, r_labels in zip(sorted(R_LABELS), json.loads(run.stdout)):
        assert _right_side(formula) == r_labels, formula
