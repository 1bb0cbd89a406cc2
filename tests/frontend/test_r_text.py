"""R's text functions and regular expressions in terms (``pygbm.frontend.r_text``,
``r_regex``): each expected value is R 4.2.2's output for the same call."""

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend.r_text import ends_with, grepl, gsub, starts_with, sub

X = pd.Series(["abc", None, "aXbbc", "", "b.b", "BBB"])


def test_grepl_as_r():
    # R: grepl("b+", x); grepl("B", x, ignore.case = TRUE); grepl(".", x, fixed = TRUE)
    assert grepl("b+", X).tolist() == [True, False, True, False, True, False]
    assert grepl("B", X, ignore_case=True).tolist() == [True, False, True, False, True, True]
    assert grepl(".", X, fixed=True).tolist() == [False, False, False, False, True, False]
    # a backslash inside brackets is a character in R's default (POSIX) expressions
    assert grepl(r"[\d]", pd.Series(["d", "\\", "5"])).tolist() == [True, True, False]
    assert grepl(r"\d", pd.Series(["d", "5"])).tolist() == [False, True]
    words = pd.Series(["concat", "cat food", "cats", "a cat"])
    assert grepl(r"\bcat\b", words).tolist() == [False, True, False, True]
    assert grepl(r"\<cat\>", words).tolist() == [False, True, False, True]
    assert grepl("[[:alpha:]]+[[:digit:]]", pd.Series(["ab1", "12", "é1"])).tolist() \
        == [True, False, True]
    assert grepl("[^[:space:]]", pd.Series([" ", " a"])).tolist() == [False, True]
    assert grepl("^a.c$", pd.Series(["abc", "a\nc"])).tolist() == [True, True]
    # a factor's labels, numbers as R writes them
    f = pd.Series(pd.Categorical(["b", "a", None, "c"]))
    assert grepl("a", f).tolist() == [False, True, False, False]
    assert grepl("1", pd.Series([10, 2.5, 1e5, np.nan])).tolist() == [True, False, True, False]


def test_sub_and_gsub_as_r():
    one = pd.Series(["abc"])
    # R's empty matches: none where the previous match ended
    for pattern, text, expected in [("b*", "abc", "-a-c-"), ("b*", "abb", "-a-"),
                                    ("c*", "abc", "-a-b-"), ("", "abc", "-a-b-c-"),
                                    ("x*", "", "-"), ("$", "ab", "ab-")]:
        assert gsub(pattern, "-", pd.Series([text]))[0] == expected, pattern
    assert sub("b*", "-", one)[0] == "-abc"
    assert gsub("a|", "-", pd.Series(["bab"]), perl=True)[0] == "-b-b-"
    # replacements: groups \1-\9, a backslash before anything else is that character
    assert gsub("(a)", r"\0\0", one)[0] == "00bc"
    assert gsub("a", "\\\\", one)[0] == "\\bc"
    assert sub(r"(\w+) (\w+)", r"\2 \1", pd.Series(["hello world"]))[0] == "world hello"
    # fixed: pattern and replacement are text
    assert gsub("a", r"\0x", one, fixed=True)[0] == r"\0xbc"
    assert gsub(".", "-", pd.Series(["a.b"]), fixed=True)[0] == "a-b"
    assert gsub("[[:digit:]]+", "#", pd.Series(["a12b3", "x"])).tolist() == ["a#b#", "x"]
    assert sub("a+?", "X", pd.Series(["aaa"]), perl=True)[0] == "Xaa"
    f = pd.Series(pd.Categorical(["b", "a", None, "c"]))
    assert sub("a", "z", f).tolist()[:2] == ["b", "z"] and pd.isna(sub("a", "z", f)[2])


def test_negated_brackets_repeat_and_gsub_searches_as_r():
    # a negated bracket repeated: R's sub("[^a]+.?", "", "-a.c.11") is "a.c.11"... as R:
    assert sub("[^a]+.?", "", pd.Series(["-a.c.11", "bbaB"])).tolist() == [".c.11", "B"]
    assert gsub("[^[:lower:]]*", "-", pd.Series(["a-b"]))[0] == "-a-b-"
    assert grepl("^[^[:lower:]]{0,2}[[:alpha:]]{1,}", pd.Series(["ab\n"]))[0]
    # R searches the rest of the text as a text of its own: \< sees a word start after
    # a match (gsub("\\<\\w", "z", "cA") is "zz"), ^ does not match again
    assert gsub(r"\<\w", "z", pd.Series(["cA\n"]))[0] == "zz\n"
    assert gsub("^[[:alpha:]]", "z", pd.Series(["ab"]))[0] == "zb"
    # PCRE: after an empty match the next character is copied (R: "a", Python's re "")
    assert gsub("^a*?", "", pd.Series(["a"]), perl=True)[0] == "a"


def test_longest_match_patterns_refused_unless_perl():
    # R: sub("a|ab", "X", "abc") is "Xc" (POSIX: the longest), perl = TRUE "Xbc"
    with pytest.raises(ValueError, match=r"an alternative \(\|\), a repeated group"):
        sub("a|ab", "X", pd.Series(["abc"]))
    with pytest.raises(ValueError, match="repeated group"):
        gsub("(ab)+", "X", pd.Series(["abab"]))
    # TRE's minimal repetition is not Perl's: R's sub("X+?[^a]{0,2}", "", "XA") is "A"
    with pytest.raises(ValueError, match=r"lazy quantifier"):
        sub("X+?[^a]{0,2}", "", pd.Series(["XA"]))
    assert sub("X+?[^a]{0,2}", "", pd.Series(["XA"]), perl=True)[0] == ""
    assert sub("a|ab", "X", pd.Series(["abc"]), perl=True)[0] == "Xbc"
    assert sub("[a|b]", "X", pd.Series(["|"]))[0] == "X"       # | in brackets: a character
    assert grepl("^l|^h", pd.Series(["lo", "mid", "hi"])).tolist() == [True, False, True]


def test_bad_patterns_and_text_arguments_named():
    with pytest.raises(ValueError, match=r"grepl\(\): invalid regular expression '\('"):
        grepl("(", X)
    with pytest.raises(ValueError, match="unknown class"):
        grepl("[[:letter:]]", X)
    with pytest.raises(TypeError, match=r"grepl\(\): pattern must be one string"):
        grepl(["a", "b"], X)
    with pytest.raises(ValueError, match=r"\\U, \\L and \\E"):
        gsub("(b)", r"\U\1", X, perl=True)


def test_starts_with_and_ends_with_as_r():
    # R: startsWith(c("abc", NA, "b"), "a") TRUE NA FALSE; a factor is refused
    got = starts_with(pd.Series(["abc", None, "b"]), "a")
    assert got[0] and pd.isna(got[1]) and not got[2]
    assert ends_with(pd.Series(["abc", None]), "c")[0]
    with pytest.raises(TypeError, match="non-character object"):
        starts_with(pd.Series(pd.Categorical(["a"])), "a")
    with pytest.raises(TypeError, match="non-character object"):
        ends_with(pd.Series([1.0, 2.0]), "1")
