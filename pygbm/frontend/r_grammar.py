"""R's grammar for the expressions inside a term: its tokens, and its operators'
precedence written out as Python code.

A term such as ``I(x^2 + 1)`` is evaluated through Python, whose operators rank
otherwise: Python's ``^`` is below ``+`` (so ``x^2 + 1`` would be ``x^(2 + 1)``), its
``%`` is level with ``*`` where R's ``%%`` is above it, and R's ``!`` is below the
arithmetic (``!(a) * b`` is ``!((a) * b)``). :func:`python_code` parses R's tokens
with R's precedence (R's ``?Syntax``, highest first: ``^``; unary ``-`` ``+``;
``:``; ``%any%``; ``*`` ``/``; binary ``+`` ``-``; comparisons; ``!``; ``&``; ``|``) and
writes each operation in parentheses with Python's spelling of its operator:
``^`` a call of the C library's ``pow`` (R's, to the last bit), ``%%`` ``%``, ``%/%`` ``//``, ``%in%`` ``@``, ``&`` ``and``, ``|``
``or``, ``!`` ``not``, ``a:b`` a call of R's sequence (the evaluator calls R's versions of the last four, with R's
missing values: :mod:`.r_operators`). Python's spellings are read back as the same
operators, so code written by :func:`python_code` reads as itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["POWER_NAME", "RSyntaxError", "SEQUENCE_NAME", "STRING_LITERAL", "python_code",
           "token_matches"]

#: a string literal in single or double quotes (R's and Python's)
STRING_LITERAL = r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"'
_NAME = r"[A-Za-z._][A-Za-z0-9._]*"
#: R's tokens (and Python's spellings of R's operators, ``**``, ``%``, ``//``)
TOKEN = re.compile(
    r"""(?P<space>\s+)"""
    rf"|(?P<string>{STRING_LITERAL})"
    r"""|(?P<backticked>`(?:[^`\\]|\\.)*`)"""
    r"""|(?P<number>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))(?![\w.])"""
    rf"""|(?P<name>{_NAME})"""
    r"""|(?P<operator>%[^%\s()]*%|<=|>=|==|!=|&&|\|\||\*\*|//|<-|[-+*/^<>&|!~:=$@,%()\[\]{}])""")


class RSyntaxError(ValueError):
    """Text that R's grammar for terms does not read."""


def token_matches(text: str) -> list[re.Match] | None:
    """The match of each token of ``text``, spaces left out; None if a character
    starts no token."""
    out, i = [], 0
    while i < len(text):
        m = TOKEN.match(text, i)
        if m is None:
            return None
        if m.lastgroup != "space":
            out.append(m)
        i = m.end()
    return out


@dataclass(frozen=True)
class _Binary:
    python: str         # how Python writes it (an operator, or a function's name)
    left: int           # binding power towards the left operand
    right: int          # the least binding power of the right operand's operators
    call: bool = False  # written as a call, python(a, b)

    def code(self, left: str, right: str) -> str:
        return f"{self.python}({left}, {right})" if self.call \
            else f"({left} {self.python} {right})"


#: the functions R's ``from:to`` and ``x^y`` are evaluated as
#: (:func:`~.r_operators.r_sequence`, the C library's ``pow``: :func:`pygbm._rmath.pow_r`)
SEQUENCE_NAME, POWER_NAME = "_r_sequence", "_r_power"


#: R's binary operators by precedence (left-associative but ``^``), each with its
#: Python spelling; Python's spellings read as the same operators
_POWER, _UNARY, _SEQUENCE, _SPECIAL, _PRODUCT, _SUM, _COMPARISON, _NOT, _AND, _OR = \
    15, 14, 13, 12, 10, 8, 6, 5, 4, 2
_BINARY = {
    ":": _Binary(SEQUENCE_NAME, _SEQUENCE, _SEQUENCE + 1, call=True),
    "^": _Binary(POWER_NAME, _POWER, _POWER, call=True),
    "**": _Binary(POWER_NAME, _POWER, _POWER, call=True),
    "%%": _Binary("%", _SPECIAL, _SPECIAL + 1), "%": _Binary("%", _SPECIAL, _SPECIAL + 1),
    "%/%": _Binary("//", _SPECIAL, _SPECIAL + 1), "//": _Binary("//", _SPECIAL, _SPECIAL + 1),
    "%in%": _Binary("@", _SPECIAL, _SPECIAL + 1), "@": _Binary("@", _SPECIAL, _SPECIAL + 1),
    "*": _Binary("*", _PRODUCT, _PRODUCT + 1), "/": _Binary("/", _PRODUCT, _PRODUCT + 1),
    "+": _Binary("+", _SUM, _SUM + 1), "-": _Binary("-", _SUM, _SUM + 1),
    **{op: _Binary(op, _COMPARISON, _COMPARISON + 1)
       for op in ("<", ">", "<=", ">=", "==", "!=")},
    "&": _Binary("and", _AND, _AND + 1), "and": _Binary("and", _AND, _AND + 1),
    "|": _Binary("or", _OR, _OR + 1), "or": _Binary("or", _OR, _OR + 1),
}
#: R's operators on one value only (R >= 4.3 refuses them on a column; 4.2 warns and
#: takes its first value)
_SCALAR = ("&&", "||")
_CLOSING = {"(": ")", "[": "]"}


class _Parser:
    """Precedence climbing over the tokens of one parenthesised region."""

    def __init__(self, tokens: list[tuple[str, str]], whole: str):
        self.tokens, self.at, self.whole = tokens, 0, whole

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise RSyntaxError("the expression ends early")
        self.at += 1
        return token

    def expect(self, text: str) -> None:
        kind, token = self.take()
        if token != text or kind != "operator":
            raise RSyntaxError(f"expected {text!r}, found {token!r}")

    def binary(self) -> _Binary | None:
        token = self.peek()
        if token is None or token[0] not in ("operator", "name"):
            return None
        if token[1] in _SCALAR:
            raise ValueError(f"formula {self.whole!r}: {token[1]!r} compares one value only "
                             f"(R 4.2 takes a column's first value, R 4.3 refuses); write "
                             f"{token[1][0]!r} for the rows' values")
        if token[0] == "operator" and token[1].startswith("%") and token[1] not in _BINARY:
            raise ValueError(f"formula {self.whole!r}: R's operator {token[1]} is not "
                             "available in formulas (R's %in%, %% and %/% are); compute "
                             "the column in the data frame first")
        if token[0] == "name" and token[1] not in ("and", "or"):
            return None
        return _BINARY.get(token[1])

    def expression(self, least: int = 0) -> str:
        return self.wrapped(least)[0]

    def wrapped(self, least: int = 0) -> tuple[str, bool]:
        """The code of the expression at this point, and whether it is in parentheses
        of its own (an operation's, a group's): a group around it adds none."""
        left, in_parentheses = self.operand()
        compared = False
        while (op := self.binary()) is not None and op.left >= least:
            self.take()
            if op.left == _COMPARISON:
                if compared:
                    raise ValueError(f"formula {self.whole!r}: comparisons do not chain in "
                                     "R ('a < b < c' is a syntax error there); write "
                                     "'a < b & b < c'")
                compared = True
            left, in_parentheses = op.code(left, self.expression(op.right)), not op.call
        return left, in_parentheses

    def operand(self) -> tuple[str, bool]:
        kind, token = self.take()
        if kind in ("number", "string", "backticked"):
            return token, False
        if kind == "name" and token != "not":
            return self.postfix(token), False
        if token in ("-", "+"):
            return f"({token}{self.expression(_UNARY)})", True
        if token in ("!", "not"):
            return f"(not {self.expression(_COMPARISON)})", True
        if token == "(":
            inner, in_parentheses = self.wrapped()
            self.expect(")")
            group = inner if in_parentheses else f"({inner})"
            return (group, True) if self.peek() is None or self.peek()[1] not in _CLOSING \
                else (self.postfix(group), False)
        if token == "[":                                  # a Python list
            return self.postfix(f"[{self.arguments(']')}]"), False
        raise RSyntaxError(f"unexpected {token!r}")

    def postfix(self, operand: str) -> str:
        while (token := self.peek()) is not None and token[1] in _CLOSING \
                and token[0] == "operator":
            self.take()
            closing = _CLOSING[token[1]]
            operand = f"{operand}{token[1]}{self.arguments(closing)}{closing}"
        return operand

    def arguments(self, closing: str) -> str:
        """A call's (or subscript's) arguments through ``closing``: expressions,
        ``name = value``, separated by commas."""
        out = []
        while (token := self.peek()) is not None and token[1] != closing:
            if out:
                self.expect(",")
                token = self.peek() or token
            after = self.tokens[self.at + 1] if self.at + 1 < len(self.tokens) else None
            if token[0] in ("name", "backticked", "string") and after == ("operator", "="):
                self.at += 2
                out.append(f"{token[1]}={self.expression()}")
            else:
                out.append(self.expression())
        self.expect(closing)
        return ", ".join(out)


def python_code(tokens: list[tuple[str, str]], closing: str, whole: str) -> str:
    """The Python code of a parenthesised region's tokens (after its opening bracket,
    through ``closing``): a call's arguments or a group, with R's precedence made
    explicit. ``whole``: the formula, for errors. Raises :class:`RSyntaxError` where
    the tokens are not R's grammar."""
    parser = _Parser(tokens, whole)
    code = parser.arguments(closing)
    if parser.peek() is not None:
        raise RSyntaxError(f"unexpected {parser.peek()[1]!r}")
    return code
