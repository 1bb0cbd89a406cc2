"""R's regular expressions (``grepl``, ``sub``, ``gsub``) run by Python's :mod:`re`.

R matches a pattern in one of three ways, and each is mapped here:

* ``fixed = TRUE``: the pattern is text (escaped);
* ``perl = TRUE``: PCRE, whose syntax and leftmost-first matching Python's ``re`` shares;
  POSIX classes inside brackets (``[[:alpha:]]``) are translated;
* the default, TRE's POSIX extended expressions: a backslash inside brackets is a
  character (``[\\d]`` is a backslash or d), ``.`` matches a newline and ``$`` only the
  end (not before a last newline), ``\\<`` and ``\\>`` are word boundaries, POSIX
  classes are translated. TRE takes the *longest* match at the
  leftmost position, Python the first that its backtracking finds: the two agree on
  concatenations of characters, classes and repeated characters (checked by brute force)
  but not always with alternation (``sub("a|ab", "X", "abc")`` is ``"Xc"`` in R) or a
  repeated group, and TRE's lazy quantifiers (``*?``) are not Perl's, so
  :func:`substitute` refuses those (``grepl``, which only asks whether there is a match,
  takes them).

Replacements as R reads them: ``\\1`` to ``\\9`` are groups, a backslash before any other
character is that character (R's ``"\\\\0"`` is ``0``); with ``fixed = TRUE`` the
replacement is text. ``gsub`` searches on as R does (:func:`_replaced`, :func:`_finder`):
an empty match where the previous match ended is skipped (``gsub("b*", "-", "abc")`` is
``"-a-c-"``; Python's ``re.sub`` gives ``"-a--c-"``), and TRE searches the rest of the
text as a text of its own. Checked against R on random patterns and texts
(``tests/frontend/test_regex_sweep_r.py``).
Exact for ASCII text; beyond it the POSIX classes ``upper``, ``lower`` and ``punct`` are
ASCII here.
"""

from __future__ import annotations

import re

__all__ = ["compile_pattern", "substitute"]

#: POSIX classes as Python alternatives (each matches one character)
_CLASSES = {
    "alpha": r"[^\W\d_]", "alnum": r"[^\W_]", "digit": r"[0-9]", "upper": r"[A-Z]",
    "lower": r"[a-z]", "space": r"\s", "blank": r"[ \t]", "xdigit": r"[0-9A-Fa-f]",
    "punct": "[" + re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + "]",
    "cntrl": r"[\x00-\x1f\x7f]", "print": r"[\x20-\x7e]", "graph": r"[\x21-\x7e]",
}
_CLASS = re.compile(r"\[:([a-z]+):\]")


def _bracket(pattern: str, start: int, perl: bool) -> tuple[str, int]:
    """The bracket expression at ``pattern[start]`` (``[``) as Python code, and the
    position after it."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] == "^"
    i += negated
    chars, classes = [], []
    first = True
    while i < len(pattern) and (first or pattern[i] != "]"):
        first = False
        if m := _CLASS.match(pattern, i):
            if m.group(1) not in _CLASSES:
                raise ValueError(f"invalid regular expression {pattern!r}: unknown class "
                                 f"[:{m.group(1)}:]")
            classes.append(_CLASSES[m.group(1)])
            i = m.end()
        elif pattern[i] == "\\" and perl and i + 1 < len(pattern):
            chars.append(pattern[i:i + 2])        # PCRE: an escape, as in Python
            i += 2
        elif pattern[i] == "-" and chars and i + 1 < len(pattern) and pattern[i + 1] != "]":
            chars.append("-")
            i += 1
        else:
            chars.append("\\" + pattern[i] if pattern[i] in "\\[]^-" else pattern[i])
            i += 1
    if i >= len(pattern):
        raise ValueError(f"invalid regular expression {pattern!r}: a bracket is not closed")
    alternatives = classes + ([f"[{''.join(chars)}]"] if chars else [])
    either = alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"
    return (rf"(?:(?!{either})[\s\S])" if negated else either), i + 1


def _translated(pattern: str, perl: bool, not_at_start: bool) -> str:
    """``pattern`` (TRE's or PCRE's) as Python's ``re`` writes it; with
    ``not_at_start``, TRE's ``^`` matches nowhere (R searches the rest of a text after
    a match as a text of its own, flagged "not at the beginning")."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "[":
            code, i = _bracket(pattern, i, perl)
            out.append(code)
            continue
        if ch == "\\" and i + 1 < len(pattern):
            pair = pattern[i:i + 2]
            out.append({r"\<": r"\b(?=\w)", r"\>": r"\b(?<=\w)"}.get(pair, pair)
                       if not perl else pair)
            i += 2
            continue
        if not perl and ch in "^$":      # TRE: $ before no newline; ^ as said
            ch = r"\Z" if ch == "$" else "(?!)" if not_at_start else "^"
        out.append(ch)
        i += 1
    return "".join(out)


def compile_pattern(pattern, function: str, ignore_case=False, perl=False, fixed=False,
                    not_at_start=False) -> re.Pattern:
    """R's ``pattern`` for ``function`` as a compiled Python expression (see
    :func:`_translated` for ``not_at_start``)."""
    if not isinstance(pattern, str):
        raise TypeError(f"{function}(): pattern must be one string, got {pattern!r}")
    if fixed:
        return re.compile(re.escape(pattern))
    flags = (re.IGNORECASE if ignore_case else 0) | (0 if perl else re.DOTALL)
    try:
        return re.compile(_translated(pattern, bool(perl), not_at_start), flags)
    except re.error as e:
        raise ValueError(f"{function}(): invalid regular expression {pattern!r} "
                         f"({e})") from None


#: what may follow a group to repeat it
_QUANTIFIERS = "*+?{"
#: R's replacement: a group reference or an escaped character
_REPLACEMENT = re.compile(r"\\(.)", re.DOTALL)


def _check_longest(pattern: str, function: str) -> None:
    """Refuse a TRE pattern whose match may not be Python's: one with an alternative
    (``|``) or a repeated group (TRE takes the longest match), or a lazy quantifier
    (``*?``: TRE's minimal matching is not Perl's)."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "[":
            i = _bracket(pattern, i, perl=False)[1]
            continue
        after = pattern[i + 1:i + 2]
        if ch == "|" or (ch == ")" and after and after in _QUANTIFIERS) \
                or (ch in _QUANTIFIERS.replace("{", "}") and after == "?"):
            raise ValueError(
                f"{function}(): pattern {pattern!r} has an alternative (|), a repeated group "
                "or a lazy quantifier (*?), where R's default (POSIX) matching takes another "
                "match than Python's; write perl = TRUE (R then matches as pygbm does), or "
                "compute the column in the data frame first")
        i += 2 if ch == "\\" else 1


def _expander(replacement: str, fixed: bool, perl: bool, function: str):
    """A function of a match giving R's replacement text."""
    if fixed:
        return lambda m: replacement
    if perl and re.search(r"\\[ULE]", replacement):
        raise ValueError(f"{function}(): \\U, \\L and \\E in the replacement (case "
                         "conversion) are not available; compute the column in the data "
                         "frame first")
    parts = []
    position = 0
    for m in _REPLACEMENT.finditer(replacement):
        parts.append(replacement[position:m.start()])
        parts.append(int(m.group(1)) if m.group(1) in "123456789" else m.group(1))
        position = m.end()
    parts.append(replacement[position:])

    def expand(m: re.Match) -> str:
        return "".join(p if isinstance(p, str)
                       else (m.group(p) or "") if p <= (m.re.groups or 0) else ""
                       for p in parts)
    return expand


def _finder(pattern, function: str, ignore_case, perl, fixed):
    """A function ``(text, offset)`` giving the next match at or after ``offset`` and
    its start and end in ``text``, as R searches: PCRE and fixed text in the whole text
    from ``offset``; TRE in the rest of the text as a text of its own (so ``\\<`` and
    ``\\b`` see a word start at ``offset``, and ``^`` matches only at 0, as in R)."""
    first = compile_pattern(pattern, function, ignore_case, perl, fixed)
    if perl or fixed:
        def find(text, offset):
            m = first.search(text, offset)
            return None if m is None else (m, m.start(), m.end())
        return find
    rest = compile_pattern(pattern, function, ignore_case, perl, fixed, not_at_start=True)

    def find_tre(text, offset):
        m = (first if offset == 0 else rest).search(text[offset:])
        return None if m is None else (m, offset + m.start(), offset + m.end())
    return find_tre


def _replaced(text: str, find, expand, every: bool) -> str:
    """R's loop of ``sub``/``gsub``: after a match, the search goes on where it ended;
    an empty match where one ended is not replaced; after an empty match the next
    character is copied and the search goes on after it."""
    pieces, offset, last_end = [], 0, -1
    while (found := find(text, offset)) is not None:
        m, start, end = found
        pieces.append(text[offset:start])
        if end > last_end:
            pieces.append(expand(m))
            last_end = end
        offset = end
        if offset >= len(text) or not every:
            break
        if start == end:
            pieces.append(text[offset])
            offset += 1
    pieces.append(text[offset:])
    return "".join(pieces)


def substitute(pattern, replacement, texts, function: str, every: bool, ignore_case=False,
               perl=False, fixed=False) -> list:
    """R's ``sub`` (the first match) or ``gsub`` (``every``) of each text (None stays
    None)."""
    if not isinstance(replacement, str):
        raise TypeError(f"{function}(): replacement must be one string, got {replacement!r}")
    find = _finder(pattern, function, ignore_case, perl, fixed)
    if not (fixed or perl):
        _check_longest(pattern, function)
    expand = _expander(replacement, fixed, bool(perl), function)
    return [None if text is None else _replaced(text, find, expand, every) for text in texts]
