"""Term labels as R writes them: R's deparse of the terms of the formula as typed.

A term's label is its predictor's name (``var_names``). R deparses the parsed term:
its own spacing (``a > 1 & b``, ``x^2``, ``a/b``, ``x%%2``, ``f(x, n = 2)``), numbers
as R prints them (``2`` for ``2.0``, ``1e+05``), strings in double quotes, backticks
only around names that need them, and the parentheses as typed. pygbm evaluates terms
through Python, whose layout loses the parentheses and brackets others; so the label
comes from the typed text instead: :func:`term_labels` splits the formula into its
terms and writes each one as R would, keyed by the Python expression it evaluates as,
which is how the parser's terms find theirs.
"""

from __future__ import annotations

import ast
import re

from .encode import r_number
from .r_functions import python_names
from .r_grammar import nesting, token_matches

__all__ = ["expression_key", "python_expression", "r_response", "term_labels"]

_NAME = r"[A-Za-z.][A-Za-z0-9._]*"
#: binary operators R writes without spaces (``x^2``, ``a/b``, ``x%%2``, ``a:b``)
_TIGHT = frozenset({"^", "/", "%%", "%/%", ":", "$", "@"})
_SYNTACTIC = re.compile(rf"{_NAME}\Z")
_BACKTICKED = re.compile(r"`((?:[^`\\]|\\.)*)`")


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """``(kind, text)`` of each token of an R expression; None if one is not R's."""
    matches = token_matches(text)
    return None if matches is None else [(m.lastgroup, m.group()) for m in matches]


def _string(text: str) -> str:
    """A string literal in R's double quotes."""
    body = text[1:-1]
    if text[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    return f'"{body}"'


def _written(kind: str, text: str) -> str:
    if kind == "number":
        return r_number(float(int(text, 16)) if text[:2] in ("0x", "0X") else float(text))
    if kind == "string":
        return _string(text)
    if kind == "backticked" and _SYNTACTIC.match(text[1:-1]):
        return text[1:-1]
    if text == "**":                                  # R reads ** as ^
        return "^"
    return text


def deparse(text: str) -> str | None:
    """One term as R's deparse writes it (None where it is not R's syntax)."""
    tokens = _tokens(text)
    return _deparsed(tokens) if tokens else None


def _deparsed(tokens: list[tuple[str, str]]) -> str:
    out, operand = [], False           # operand: the last token ends an operand
    for kind, token in tokens:
        word = _written(kind, token)
        if kind in ("string", "backticked", "number", "name"):
            out.append(word)
            operand = True
        elif word in ("(", "["):
            out.append(word)
            operand = False
        elif word in (")", "]"):
            out.append(word)
            operand = True
        elif word == ",":
            out.append(", ")
            operand = False
        elif word in ("-", "+", "!") and not operand:
            out.append(word)                           # unary
        elif word == "=":
            out.append(" = ")
            operand = False
        elif word in _TIGHT:
            out.append(word)
            operand = False
        else:
            out.append(f" {word} ")
            operand = False
    return "".join(out)


def _terms(tokens: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The terms of a formula's tokens, both sides: split at ``~`` and at binary ``+``
    and ``-`` outside brackets; the formula's own groups (``(a + b) - b``: a
    parenthesis outside the terms that no name calls) are split too."""
    terms, current, depth, groups, operand = [], [], 0, 0, False
    for kind, token in tokens:
        if kind == "operator":
            step = nesting(kind, token)
            if depth == 0 and (step > 0 and token == "(" and not operand
                               or step < 0 and groups):
                groups += step              # the formula's group: no term's text
                operand = step < 0
                continue
            depth += step
            if depth == 0 and (token == "~" or token in ("+", "-") and operand):
                terms.append(current)
                current, operand = [], False
                continue
        current.append((kind, token))
        operand = kind != "operator" or token in (")", "]")
    terms.append(current)
    return [t for t in terms if t]


def _backticked_name(m: re.Match) -> str:
    """A backticked name as a Python name: itself when syntactic, else one made of
    its characters' code (the same for the same name)."""
    name = m.group(1)
    return name if _SYNTACTIC.match(name) else f"_backticked_{name.encode().hex()}"


def python_expression(expr: str) -> ast.expr | None:
    """The Python expression a term (R's or Python's text) evaluates as, its
    backticked names as Python names; None where Python cannot read it."""
    try:
        code = _BACKTICKED.sub(_backticked_name, python_names(expr))
        return ast.parse(code, mode="eval").body
    except SyntaxError:
        return None


def expression_key(expr: str) -> str | None:
    """What identifies a term however it is written: the dump of the Python
    expression it evaluates as (None where Python cannot read it)."""
    node = python_expression(expr)
    return None if node is None else ast.dump(node)


def term_labels(formula: str) -> dict[str, str]:
    """R's label of each term of ``formula`` (both sides), by :func:`expression_key`."""
    labels = {}
    for term in _terms(_tokens(formula) or []):
        key = expression_key(" ".join(token for _, token in term))
        if key is not None:
            labels.setdefault(key, _deparsed(term))
    return labels


def _one_operand(tokens: list[tuple[str, str]]) -> bool:
    """Whether ``tokens`` are one name, or one call spanning them all (``log(y)``,
    ``Surv(t, d)``): what a formula parser reads as one response as R does."""
    if len(tokens) == 1:
        return tokens[0][0] in ("name", "backticked")
    if len(tokens) < 3 or tokens[0][0] != "name" or tokens[1][1] != "(":
        return False
    depth = 0
    for position, (kind, token) in enumerate(tokens[1:], start=1):
        depth += nesting(kind, token)
        if depth == 0:
            return position == len(tokens) - 1
    return False


def r_response(formula: str) -> tuple[str, str | None]:
    """R evaluates a formula's left-hand side as one expression: ``medv > 25 ~ .``
    has the logical response ``medv > 25``, ``y - 1 ~ x`` the response ``y - 1`` and
    ``a + b ~ x`` their sum, where a formula parser reads ``-``, ``+``, ``^`` as
    formula operators (``y - 1`` would be ``y`` without an intercept) and refuses a
    comparison. Returns the formula with such a left-hand side written as
    ``I(...)``, and R's label of that response (its deparse, ``medv > 25``); the
    formula unchanged and None where the left-hand side is one name or one call."""
    matches = token_matches(formula) or []
    depth = 0
    for position, m in enumerate(matches):
        depth += nesting(m.lastgroup, m.group())
        if depth == 0 and m.lastgroup == "operator" and m.group() == "~":
            break
    else:
        return formula, None
    lhs = [(m.lastgroup, m.group()) for m in matches[:position]]
    if not lhs or _one_operand(lhs):
        return formula, None
    start, tilde = matches[0].start(), matches[position].start()
    rewritten = f"{formula[:start]}I({formula[start:tilde].strip()}) {formula[tilde:]}"
    return rewritten, _deparsed(lhs)
