"""Random formulas against R, live: gbm()'s model frame for formulas drawn from a grammar
of R's functions, operators and constants (with random spacing and number styles),
on random data with missing values, against pygbm's: names, types, levels and the
coded predictors bit for bit, and the response (in three formulas in ten a left-hand
side that R evaluates as one expression). Runs when Rscript is present; a failing draw
is replayed with ``PYGBM_FORMULA_SEED``."""

import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import model_frame

R_SCRIPT = Path(__file__).parent / "r" / "model_frames_live.R"
N_ROWS, N_FORMULAS, N_TERMS, MAX_DEPTH = 80, 30, 4, 2
#: constants the grammar compares and bounds with
CONSTANTS = ("0", "1", "2", "5", "-1", "0.5", ".5", "3.00")
#: factor()'s exclude= of the number column x2 and of the text column g
NUMBER_EXCLUDES = ("3", "c(2, NA)", "NA", "NULL")
TEXT_EXCLUDES = ('"a"', 'c("b", "e")', "NA", "NULL")
#: regular expressions (R's default, POSIX) and their replacements for grepl, sub, gsub
PATTERNS = ('"a"', '"^[ab]"', '"[[:lower:]]+$"', '"i"', '"[aeiou]"', '"(.)"', '"^(.)(.)"',
            '"b*"', '""', '"[^l]"', '"[[:digit:]]"', r'"[\\d]"', r'"\\."', '"^l|^h"')
REPLACEMENTS = ('""', '"-"', r'"\\1\\1"', r'"\\2\\1"', r'"\\0"', '"."')
#: patterns R reads as PCRE (perl = TRUE), where alternatives are taken first to last
PERL_PATTERNS = ('"o|i"', '"(?<=l)o"', '"x*"', '"(i|m)+"')
#: the share of formulas whose first two terms are a group, and the share of those
#: whose terms are one group less its last term
GROUPED = 0.15
#: the share of formulas whose left-hand side is an expression rather than y
RANDOM_RESPONSE = 0.3


class Grammar:
    """Random R terms over the columns x1, x2 (numbers), g, h (text), ds, dm (dates as
    text); responses over y and z."""

    def __init__(self, rng):
        self.rng = rng

    def pick(self, choices):
        return choices[int(self.rng.integers(len(choices)))]()

    def substituted(self):
        """``sub`` or ``gsub`` of a text or number column, R's matching or PCRE's (a
        TRE pattern with alternatives is not drawn for them: pygbm refuses it)."""
        function = self.rng.choice(["sub", "gsub"])
        column = self.rng.choice(["g", "h", "x2"])
        replacement = self.rng.choice(REPLACEMENTS)
        if self.rng.random() < 0.3:
            return f"{function}({self.rng.choice(PERL_PATTERNS)}, {replacement}, {column}, perl = TRUE)"
        pattern = self.rng.choice([p for p in PATTERNS if "|" not in p])
        return f"{function}({pattern}, {replacement}, {column})"

    def constant(self):
        return str(self.rng.choice(CONSTANTS))

    def number(self, depth=0):
        if depth > MAX_DEPTH:
            return str(self.rng.choice(["x1", "x2"]))
        deeper = depth + 1
        return self.pick([
            lambda: "x1", lambda: "x2", lambda: "log(x2 + 1)", lambda: "I(x1^2)",
            lambda: f"pmin(x1, {self.constant()})", lambda: f"pmax(x2,{self.constant()})",
            lambda: "round(x1, 1)", lambda: "trunc(x1 * 3)", lambda: "abs(x1)",
            lambda: f"I({self.number(deeper)} %% 3)", lambda: f"I({self.number(deeper)}%/%2)",
            lambda: f"ifelse({self.logical(deeper)}, {self.number(deeper)}, {self.number(deeper)})",
            lambda: f"as.numeric({self.factor(deeper)})", lambda: "nchar(tolower(h))",
            lambda: f"nchar(as.character({self.number(deeper)}))",
            lambda: f"ifelse({self.logical(deeper)}, {self.factor(deeper)}, {self.number(deeper)})",
            lambda: f"I({self.number(deeper)} + {self.number(deeper)})",
            # R's precedence, which Python's differs from: ^ above + and *, %% above *
            lambda: f"I({self.number(deeper)}^2 + {self.number(deeper)})",
            lambda: f"I({self.number(deeper)} * {self.number(deeper)} %% 3)",
            lambda: f"I(-{self.number(deeper)}^2*{self.constant()})",
            lambda: f"I({self.number(deeper)} %/% 2 / 3 - 1)",
            lambda: f"signif({self.number(deeper)}, {int(self.rng.integers(0, 5))})",
            lambda: f"pmax({self.number(deeper)}, x2, na.rm = TRUE)",
            # the C library's log10, exp, pow (NumPy's SIMD ones differ from R's in the
            # last bit for some values)
            lambda: "log10(abs(x1) + 1)", lambda: "exp(x1/3)", lambda: "I(abs(x1)^1.5)",
            lambda: "log(x2 + 1, base = 3)", lambda: "expm1(x1)", lambda: "log2(x2 + 2)",
            lambda: "tan(x1/2)", lambda: "sin(x1) + cos(x2)",
            lambda: "I(atan(x1) + tanh(x1/2))", lambda: "I(asinh(x2) + sinh(x1) * cosh(x1))",
            lambda: "atan2(x1, x2 + 1)", lambda: "I(atan2(y = x1, x = 2))",
            lambda: "I(asin(x1/10) + acos(x1/10) + atanh(x1/10) + acosh(x2 + 1))",
            # summaries of the training data
            lambda: f"I({self.number(deeper)} - mean(x1, na.rm = TRUE))",
            lambda: "ifelse(x2 > median(x2, na.rm = TRUE), 1, 0)",
            lambda: "I(x1/sd(x1, na.rm = TRUE) + max(x2, na.rm = TRUE))",
            lambda: "I((x1 > quantile(x1, 0.3, na.rm = TRUE))*1)",
            # R's second arguments: mean's trim, max's and min's further values;
            # quantile's nine types (a trimmed mean in a comparison: R sums the values
            # left in the order of its partial sort, pygbm in sorted order, which can
            # differ in the last bit)
            lambda: f"I((x1 > mean(x1, {self.rng.choice(['0.1', '0.25', '0.5'])}, TRUE))*1)",
            lambda: "I((x2 <= mean(x2, trim = 0.2, na.rm = TRUE))*1)",
            lambda: "I(x1/max(x1, x2, na.rm = TRUE) - min(x1, x2, 0, na.rm = TRUE))",
            lambda: f"I((x1 > quantile(x1, {self.rng.choice(['0.37', '0.5', '0.9'])}, "
                    f"na.rm = TRUE, type = {int(self.rng.integers(1, 10))}))*1)",
            # arithmetic on conditions (R counts TRUE as 1)
            lambda: f"I(({self.logical(deeper)}) + ({self.logical(deeper)}))",
            lambda: f"I(-({self.logical(deeper)}) * {self.number(deeper)})",
            # findInterval, and counts of the training data's levels
            lambda: f"findInterval({self.number(deeper)}, c(-1, 0, 1))",
            lambda: "findInterval(x2, c(0, 3, 6, 9), " + self.rng.choice(
                ["rightmost.closed = TRUE", "all.inside = TRUE", "left.open = TRUE",
                 "left.open = TRUE, rightmost.closed = TRUE"]) + ")",
            lambda: "I(x2 / nlevels(factor(g)))", lambda: "rev(x1)",
            lambda: f"rowSums(cbind(x1, {self.number(deeper)}, z), na.rm = TRUE)",
            lambda: f"rowMeans(cbind({self.number(deeper)}, x2))",
            # R's dates: days since 1970, parts of them
            lambda: "as.numeric(as.Date(ds))", lambda: "julian(as.Date(ds))",
            lambda: 'as.numeric(format(as.Date(ds), "%j"))',
            lambda: 'I(as.numeric(as.Date(ds) - as.Date("2020-01-01")))',
            lambda: 'as.numeric(as.Date(dm, format = "%d/%m/%Y"))'])

    def logical(self, depth=0):
        if depth > MAX_DEPTH:
            return f"x1 > {self.constant()}"
        deeper = depth + 1
        return self.pick([
            lambda: f"{self.number(deeper)} > {self.constant()}",
            lambda: f"{self.number(deeper)}=={self.constant()}",
            lambda: f"{self.number(deeper)} != {self.constant()}",
            lambda: f"is.na({self.number(deeper)})",
            lambda: f"{self.logical(deeper)} & {self.logical(deeper)}",
            lambda: f"({self.logical(deeper)} | {self.logical(deeper)})",
            lambda: f"!{self.logical(deeper)}", lambda: f"!({self.logical(deeper)})",
            lambda: "g %in% c('a', \"b\")", lambda: "x2 %in% c(1, 2, NA)",
            lambda: "x2 %in% 2:4", lambda: "is.element(g, c('b', NA))",
            lambda: "is.element(x2, c(3, 1))",
            lambda: f"xor({self.logical(deeper)}, {self.logical(deeper)})",
            lambda: f"is.finite(log({self.number(deeper)}))",
            lambda: "as.logical(x2 - 3)", lambda: "is.infinite(1/x1)",
            lambda: 'x2 == "3"', lambda: 'g > "b"', lambda: 'h <= "lo"',
            lambda: f"grepl({self.rng.choice(PATTERNS)}, {self.rng.choice(['g', 'h', 'x2'])})",
            lambda: 'grepl("I", h, ignore.case = TRUE)', lambda: 'grepl(".", x1, fixed = TRUE)',
            lambda: 'startsWith(h, "m")', lambda: 'endsWith(g, "e")',
            lambda: 'as.Date(ds) > "2020-06-01"', lambda: 'as.Date(ds)<=as.Date("2019-3-1")',
            lambda: f"!{self.number(deeper)} > {self.constant()}",    # R: !(a > b)
            lambda: f"!({self.logical(deeper)}) * 1 > 0"])            # R: !((l) * 1 > 0)

    def factor(self, depth=0):
        deeper = depth + 1
        return self.pick([
            lambda: "factor(x2)", lambda: "factor(g)", lambda: f"factor({self.logical(deeper)})",
            lambda: f'factor(ifelse({self.logical(deeper)}, "p", "q"))',
            lambda: f"cut(x1, {int(self.rng.integers(2, 6))})",
            lambda: "cut(x1, c(-Inf, 0, 1, Inf))", lambda: 'relevel(factor(h), ref = "mid")',
            lambda: "ordered(x2)", lambda: "as.factor(g)", lambda: "droplevels(factor(g))",
            lambda: f"cut({self.number(deeper)}, c(-1, 0, 0.5, 2), right=FALSE)",
            lambda: "factor(x2, levels = c(1, 3, 5))",
            lambda: 'ordered(h, levels = c("lo", "mid", "hi"))',
            lambda: "factor(as.character(x2))",
            lambda: 'factor(ifelse(is.na(g), "none", as.character(g)))',
            lambda: "cut(x2, c(0, 3, 6, 9), include.lowest = TRUE, dig.lab = 2)",
            lambda: 'factor(h, labels = "L")', lambda: "factor(g, labels = c(1, 1, 2, 2, 3))",
            # a factor of a factor: R keeps only its used levels, and its order (ordered
            # stays ordered); as.factor keeps it as it is; exclude leaves levels out
            lambda: f"factor({self.factor(deeper)})", lambda: f"as.factor({self.factor(deeper)})",
            lambda: f"as.ordered({self.factor(deeper)})",
            lambda: "factor(x2, exclude = c(2, NA))", lambda: 'factor(g, exclude = c("b", NA))',
            lambda: f"factor(x2, ordered = {self.rng.choice(['TRUE', 'FALSE'])})",
            lambda: "factor(cut(x1, 6))", lambda: "factor(x2 * 100000)",
            lambda: "factor(x2/10000 + x1)", lambda: 'factor(paste(x2 * 1e5, "t"))',
            lambda: "interaction(g, h)", lambda: f"interaction({self.factor(deeper)}, h)",
            lambda: 'interaction(g, x2, sep = "_", lex.order = TRUE)',
            lambda: "interaction(x2, h, drop = TRUE)", lambda: "factor(paste(g, h))",
            lambda: f'factor(paste0(g, "-", {self.number(deeper)}))',
            lambda: "factor(toupper(g))", lambda: "factor(substr(paste0(h, g), 2, 3))",
            lambda: f"factor({self.substituted()})",
            lambda: "factor(months(as.Date(ds)))", lambda: "factor(quarters(as.Date(ds)))",
            lambda: "factor(weekdays(as.Date(ds), abbreviate = TRUE))",
            lambda: 'factor(format(as.Date(dm, "%d/%m/%Y"), "%Y %b"))',
            # levels from seq, unique, sort, rev and levels of the training data
            lambda: "cut(x1, seq(-3, 3, by = 0.5))",
            lambda: f"cut(x2, seq(0, 10, length.out = {int(self.rng.integers(2, 6))}), "
                    "include.lowest = TRUE)",
            lambda: "factor(x2, levels = seq(9))", lambda: "factor(g, levels = unique(g))",
            lambda: "factor(g, levels = rev(levels(factor(g))))",
            lambda: "factor(h, levels = sort(unique(h), decreasing = TRUE))",
            lambda: "ordered(x2, levels = rev(sort(unique(x2))))",
            lambda: f"cut(x1, quantile(x1, c(0, {self.rng.choice(['0.3', '0.5'])}, 1), "
                    "na.rm = TRUE), include.lowest = TRUE)",
            lambda: f"cut(x1, quantile(x1, c(0, 0.37, 0.81, 1), na.rm = TRUE, "
                    f"type = {int(self.rng.integers(1, 10))}), include.lowest = TRUE)", lambda: f"factor(addNA({self.factor(deeper)}))",
            # R's ifelse: a side of text makes text of the numbers (4, not 4.0); a factor
            # side gives its level codes
            lambda: f'factor(ifelse({self.logical(deeper)}, {self.number(deeper)}, "none"))',
            lambda: f'factor(ifelse({self.logical(deeper)}, {self.factor(deeper)}, "z"))'])

    def predictor_factor(self):
        """A term that is a factor with an NA level (which R gbm codes as missing;
        pygbm takes it as a predictor only), or any other factor."""
        return self.pick([
            lambda: f"addNA({self.factor()})", lambda: "addNA(g)",
            lambda: f"factor({self.factor()}, exclude = NULL)",
            lambda: f'relevel(factor(g, exclude = NULL), ref = "{self.rng.choice(list("abc"))}")',
            lambda: f"as.factor(addNA({self.factor()}))",
            lambda: f"factor(x2, exclude = {self.rng.choice(NUMBER_EXCLUDES)})",
            lambda: f"factor(g, exclude = {self.rng.choice(TEXT_EXCLUDES)})", lambda: self.factor()])

    def response(self, depth=0):
        """A left-hand side over y and z (no missing values), which R evaluates as one
        expression: arithmetic, comparisons and R's logical operators."""
        if depth > MAX_DEPTH:
            return str(self.rng.choice(["y", "z"]))
        deeper = depth + 1
        return self.pick([
            lambda: "y", lambda: "y", lambda: f"y - {self.constant()}", lambda: "-y",
            lambda: f"{self.response(deeper)}^2", lambda: f"{self.response(deeper)}/2 + z",
            lambda: f"({self.response(deeper)} + {self.response(deeper)})",
            lambda: f"{self.response(deeper)}*z-1", lambda: "log(abs(y) + 1)",
            lambda: f"{self.response(deeper)} %% 1", lambda: f"y > {self.constant()}",
            lambda: "y > 0 & z < 1", lambda: "!(y > z)", lambda: "y<=z | z > 1"])

    def formula(self):
        # each term once: R's terms() drops a repeated term unless it holds NA (R never
        # matches NA to NA there, so factor(x, exclude = NA) twice is two columns; pygbm
        # takes one, docs/coming_from_r.md)
        terms = list(dict.fromkeys(
            self.number() if self.rng.random() < 0.5 else self.predictor_factor()
            for _ in range(N_TERMS)))
        lhs = self.response() if self.rng.random() < RANDOM_RESPONSE else "y"
        rhs = " + ".join(terms)
        # the formula's own groups: (a + b) + c, and (a + b) - b, which R reads as a
        # (a term holding NA is not removed by R, as above: not drawn for removal)
        shape = self.rng.random()
        if shape < GROUPED and len(terms) > 2:
            rhs = f"({terms[0]} + {terms[1]}) + " + " + ".join(terms[2:])
        elif shape < 2 * GROUPED and len(terms) > 1 and "NA" not in terms[-1]:
            rhs = f"({rhs}) - {terms[-1]}"
        return f"{lhs} ~ {rhs}"


def _data(rng) -> pd.DataFrame:
    def missing(values):
        return np.where(rng.random(N_ROWS) < 0.1, np.nan, values)

    def missing_text(values):
        return np.where(rng.random(N_ROWS) < 0.1, None, np.asarray(values, dtype=object))
    g = rng.choice(list("abcde"), N_ROWS).astype(object)
    g[rng.random(N_ROWS) < 0.1] = None
    # numbers of a few digits, as in data: R's read.csv can miss the last bit of a
    # 16-17 digit number (1.140996878140352 is read as 1.1409968781403519, an ulp
    # below; Python and pandas read it correctly), which the response's
    # bit-for-bit comparison would blame on pygbm
    # dates as text (R 4 reads them as text): ISO, some with a time after them and
    # without leading zeros, and day/month/year
    dates = pd.to_datetime(rng.integers(17000, 19500, N_ROWS), unit="D")
    ds = [f"{t.year}-{t.month}-{t.day:02d}" + (" 10:30" if rng.random() < 0.2 else "")
          for t in dates]
    return pd.DataFrame({"y": np.round(rng.normal(size=N_ROWS), 4),
                         "z": np.round(rng.random(N_ROWS), 3),
                         "x1": missing(np.round(rng.normal(size=N_ROWS), 2)),
                         "x2": missing(rng.integers(0, 10, N_ROWS).astype(float)),
                         "g": g, "h": rng.choice(["lo", "mid", "hi"], N_ROWS),
                         "ds": missing_text(ds), "dm": [t.strftime("%d/%m/%Y") for t in dates]})


def _numbers(values):
    return np.array([np.nan if v is None else float(v) for v in values])


def _differences(mf, r) -> list[str]:
    if not np.array_equal(mf.y, _numbers(r["y"]), equal_nan=True):
        return [f"response {mf.y[:5]} vs R's {r['y'][:5]}"]
    if list(mf.var_names) != r["var_names"]:
        return [f"names {mf.var_names} vs R's {r['var_names']}"]
    if list(mf.var_type) != r["var_type"]:
        return [f"types {list(mf.var_type)} vs R's {r['var_type']}"]
    out = []
    for j, name in enumerate(mf.var_names):
        ours, theirs = mf.var_levels[j], r["var_levels"][j]
        same = np.array_equal(ours, _numbers(theirs), equal_nan=True) \
            if isinstance(ours, np.ndarray) else list(ours) == theirs
        if not same:
            out.append(f"levels of {name}")
        if not np.array_equal(mf.x[:, j], _numbers(r["x"][j]), equal_nan=True):
            out.append(f"codes of {name}")
    return out


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_random_formulas_code_as_r(tmp_path):
    seed = int(os.environ.get("PYGBM_FORMULA_SEED", np.random.SeedSequence().entropy % 2**32))
    rng = np.random.default_rng(seed)
    grammar = Grammar(rng)
    _data(rng).to_csv(tmp_path / "d.csv", index=False, na_rep="NA")
    data = pd.read_csv(tmp_path / "d.csv")
    formulas = [grammar.formula() for _ in range(N_FORMULAS)]
    (tmp_path / "f.json").write_text(json.dumps(formulas))
    subprocess.run(["Rscript", str(R_SCRIPT), str(tmp_path / "f.json"), str(tmp_path / "d.csv"),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=300)
    problems = []
    for formula, r in zip(formulas, json.loads((tmp_path / "out.json").read_text())):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mf = model_frame(formula, data)
        except (ValueError, TypeError) as exc:
            # R's bug: a factor of only an NA level (addNA of all NA) gets var.type -Inf,
            # NA here, and a fit on nothing; pygbm says the predictor is all missing
            if "error" not in r and None not in r["var_type"]:
                problems.append(f"{formula}: pygbm refuses ({exc}), R fits")
            continue
        if "error" in r:
            problems.append(f"{formula}: R refuses ({r['error']}), pygbm fits")
            continue
        problems += [f"{formula}: {d}" for d in _differences(mf, r)]
    assert not problems, f"PYGBM_FORMULA_SEED={seed}:\n" + "\n".join(problems)
