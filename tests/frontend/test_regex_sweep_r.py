"""Random regular expressions against R, live: grepl, sub and gsub of random patterns
(characters, POSIX classes in brackets, negated brackets, escapes, anchors, word starts,
groups, greedy and lazy quantifiers; R's default matching or PCRE, ignore.case) on random
texts with newlines, with random replacements (groups, \\0, backslashes), against R's.
pygbm may refuse only what it says it refuses (sub/gsub of an alternative, a repeated
group or a lazy quantifier in R's default matching). Runs when Rscript is present; a
failing draw is replayed with ``PYGBM_REGEX_SEED``."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend.r_text import grepl, gsub, sub

R_SCRIPT = Path(__file__).parent / "r" / "regex_live.R"
N_CASES, N_TEXTS, MAX_TEXT = 150, 6, 7
ATOMS = ("a", "b", "c", ".", "[ab]", "[^a]", "[[:alpha:]]", "[[:digit:]]", "[[:space:]]",
         "[[:punct:]]", "[[:upper:]]", "[^[:lower:]]", r"\d", r"\w", r"\s", r"\.", "[a-c]",
         "[]a]", "[-b]", "[.]", r"[\d]", "X", "1", " ")
QUANTIFIERS = ("", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?")
CHARACTERS = "abcAB1 .-X\n"
REPLACEMENTS = ("-", "", r"\1", r"<\0>", "\\\\", r"z\1z")
#: what pygbm says when it refuses a pattern of R's default matching
REFUSAL = "where R's default (POSIX) matching takes another match"


def _pattern(rng) -> str:
    parts = []
    for _ in range(int(rng.integers(1, 5))):
        atom = str(rng.choice(ATOMS)) + str(rng.choice(QUANTIFIERS))
        if rng.random() < 0.15:
            atom = f"({atom}{rng.choice(ATOMS)})"
        parts.append(atom)
    pattern = "".join(parts)
    pattern = ("^" if rng.random() < 0.2 else "") + pattern + ("$" if rng.random() < 0.2 else "")
    return (r"\<" if rng.random() < 0.1 else "") + pattern


def _case(rng) -> dict:
    texts = ["".join(rng.choice(list(CHARACTERS), int(rng.integers(0, MAX_TEXT + 1))))
             for _ in range(N_TEXTS)]
    return {"pattern": _pattern(rng), "texts": texts,
            "replacement": str(rng.choice(REPLACEMENTS)),
            "ignore_case": bool(rng.random() < 0.2), "perl": bool(rng.random() < 0.25)}


def _ours(function, case):
    x = pd.Series(case["texts"], dtype=object)
    options = {"ignore_case": case["ignore_case"], "perl": case["perl"]}
    if function == "grepl":
        return grepl(case["pattern"], x, **options).tolist()
    f = sub if function == "sub" else gsub
    return f(case["pattern"], case["replacement"], x, **options).tolist()


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_random_patterns_match_as_r(tmp_path):
    seed = int(os.environ.get("PYGBM_REGEX_SEED", np.random.SeedSequence().entropy % 2**32))
    rng = np.random.default_rng(seed)
    cases = [_case(rng) for _ in range(N_CASES)]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    subprocess.run(["Rscript", str(R_SCRIPT), str(tmp_path / "cases.json"),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=300)
    problems = []
    for case, r in zip(cases, json.loads((tmp_path / "out.json").read_text())):
        for function in ("grepl", "sub", "gsub"):
            want = r[function]
            try:
                got = _ours(function, case)
            except ValueError as exc:
                if REFUSAL not in str(exc) and not isinstance(want, dict):
                    problems.append(f"{function}({case['pattern']!r}): pygbm refuses ({exc})")
                continue
            want = want if isinstance(want, (list, dict)) else [want]
            if isinstance(want, dict):
                problems.append(f"{function}({case['pattern']!r}): R refuses "
                                f"({want['error']}), pygbm gives {got}")
            elif got != want:
                problems.append(f"{function}({case['pattern']!r}, {case['replacement']!r}, "
                                f"perl={case['perl']}, ignore.case={case['ignore_case']}) of "
                                f"{case['texts']}: {got} vs R's {want}")
    assert not problems, f"PYGBM_REGEX_SEED={seed}:\n" + "\n".join(problems[:20])
