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

from .r_functions import python_names, r_number
from .r_operators import STRING_LITERAL

__all__ = ["expression_key", "python_expression", "term_labels"]

_NAME = r"[A-Za-z.][A-Za-z0-9._]*"
_TOKEN = re.compile(
    r"""(?P<space>\s+)"""
    rf"|(?P<string>{STRING_LITERAL})"
    r"""|(?P<backticked>`(?:[^`\\]|\\.)*`)"""
    r"""|(?P<number>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))(?![\w.])"""
    rf"""|(?P<name>{_NAME})"""
    r"""|(?P<operator>%[^%]*%|<=|>=|==|!=|&&|\|\||\*\*|<-|[-+*/^<>&|!~:=$@,()\[\]])""")
#: binary operators R writes without spaces (``x^2``, ``a/b``, ``x%%2``, ``a:b``)
_TIGHT = frozenset({"^", "/", "%%", "%/%", ":", "$", "@"})
_SYNTACTIC = re.compile(rf"{_NAME}\Z")
_SYNTACTIC_BACKTICKED = re.compile(rf"`({_NAME})`")


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """``(kind, text)`` of each token of an R expression; None if one is not R's."""
    out, i = [], 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            return None
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group()))
        i = m.end()
    return out


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
    and ``-`` outside brackets."""
    terms, current, depth, operand = [], [], 0, False
    for kind, token in tokens:
        if kind == "operator":
            depth += (token in ("(", "[")) - (token in (")", "]"))
            if depth == 0 and (token == "~" or token in ("+", "-") and operand):
                terms.append(current)
                current, operand = [], False
                continue
        current.append((kind, token))
        operand = kind != "operator" or token in (")", "]")
    terms.append(current)
    return [t for t in terms if t]


def python_expression(expr: str) -> ast.expr | None:
    """The Python expression a term (R's or Python's text) evaluates as, with its
    syntactic names out of backticks; None where Python cannot read it."""
    try:
        code = _SYNTACTIC_BACKTICKED.sub(r"\1", python_names(expr))
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
