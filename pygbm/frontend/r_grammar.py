"""R's grammar for the expressions inside a term: its tokens, and its operators'
precedence written out as Python code.

A term such as ``I(x^2 + 1)`` is evaluated through Python, whose operators rank
otherwise: Python's ``^`` is below ``+`` (so ``x^2 + 1`` would be ``x^(2 + 1)``), its
``%`` is level with ``*`` where R's ``%%`` is above it, and R's ``!`` is below the
arithmetic (``!(a) * b`` is ``!((a) * b)``). :func:`python_code` parses R's tokens
with R's precedence (R's ``?Syntax``, highest first: ``^``; unary ``-`` ``+``;
``:``; ``%any%``; ``*`` ``/``; binary ``+`` ``-``; comparisons; ``!``; ``&``; ``|``) and
writes each operation in parentheses with Python's spelling of its operator:
``%%`` ``%``, ``%/%`` ``//``, ``%in%`` ``@``, ``&`` ``and``, ``|`` ``or``, ``!``
``not`` (the evaluator calls R's versions of the last four, with R's missing values:
:mod:`.r_operators`); ``^`` is a call of the C library's ``pow`` (R's, to the last
bit) and ``a:b`` one of R's sequence. Operands of arithmetic are read through
R's numbers (``r_numeric``: TRUE/FALSE as 1/0, where pandas' ``+`` of booleans is
``or`` and its ``-`` is ``not``). Python's spellings are read back as the same
operators, so code written by :func:`python_code` reads as itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NUMERIC_NAME", "POWER_NAME", "RSyntaxError", "SEQUENCE_NAME", "STRING_LITERAL",
           "nesting", "python_code", "token_matches"]

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


#: how a bracket changes the depth of nesting
_NESTING = {"(": 1, "[": 1, ")": -1, "]": -1}


def nesting(kind: str, token: str) -> int:
    """How a token (``kind``, ``text``) changes the depth of brackets: 1 where it
    opens one, -1 where it closes one, else 0."""
    return _NESTING.get(token, 0) if kind == "operator" else 0


@dataclass(frozen=True)
class _Binary:
    python: str         # how Python writes it (an operator, or a function's name)
    left: int           # binding power towards the left operand
    right: int          # the least binding power of the right operand's operators
    call: bool = False  # written as a call, python(a, b)
    arithmetic: bool = False    # its operands are numbers (TRUE/FALSE read as 1/0)

    def code(self, left: _Code, right: _Code) -> _Code:
        a, b = (left.as_number(), right.as_number()) if self.arithmetic \
            else (left.code, right.code)
        if self.call:
            return _Code(f"{self.python}({a}, {b})", numeric=self.arithmetic)
        return _Code(f"({a} {self.python} {b})", in_parentheses=True, numeric=self.arithmetic)


#: the functions R's ``from:to`` and ``x^y`` are evaluated as
#: (:func:`~.r_operators.r_sequence`, the C library's ``pow``: :func:`pygbm._rmath.pow_r`)
SEQUENCE_NAME, POWER_NAME = "_r_sequence", "_r_power"
#: the function an arithmetic operand is read through: R's arithmetic on TRUE/FALSE is
#: on 1/0 (``(a > 1) + (b > 2)`` counts), where pandas' ``+`` of booleans is ``or`` and
#: its ``-`` is ``not`` (:func:`~.r_operators.r_numeric`)
NUMERIC_NAME = "_r_numeric"
#: a call whose value is already R's numbers (read back from code written here)
_NUMERIC_CALL = re.compile(rf"(?:{NUMERIC_NAME}|{POWER_NAME})\(.*\)")


@dataclass(frozen=True)
class _Code:
    """Python code of an expression, and what its surroundings need to know of it."""
    code: str
    in_parentheses: bool = False    # an operation's or a group's own
    numeric: bool = False           # a number or arithmetic's result

    def as_number(self) -> str:
        """The code read as R's numbers by arithmetic (TRUE/FALSE as 1/0)."""
        return self.code if self.numeric or _NUMERIC_CALL.fullmatch(self.code) \
            else f"{NUMERIC_NAME}({self.code})"


#: R's binary operators by precedence (left-associative but ``^``), each with its
#: Python spelling; Python's spellings read as the same operators
#: (R's ``!`` ranks between comparisons and ``&``: its operand is read down to
#: comparisons, ``_COMPARISON``)
_POWER, _UNARY, _SEQUENCE, _SPECIAL, _PRODUCT, _SUM, _COMPARISON, _AND, _OR = \
    15, 14, 13, 12, 10, 8, 6, 4, 2
_BINARY = {
    ":": _Binary(SEQUENCE_NAME, _SEQUENCE, _SEQUENCE + 1, call=True),
    "^": _Binary(POWER_NAME, _POWER, _POWER, call=True, arithmetic=True),
    "**": _Binary(POWER_NAME, _POWER, _POWER, call=True, arithmetic=True),
    **{op: _Binary(python, _SPECIAL, _SPECIAL + 1, arithmetic=True)
       for op, python in (("%%", "%"), ("%", "%"), ("%/%", "//"), ("//", "//"))},
    "%in%": _Binary("@", _SPECIAL, _SPECIAL + 1), "@": _Binary("@", _SPECIAL, _SPECIAL + 1),
    **{op: _Binary(op, level, level + 1, arithmetic=True)
       for op, level in (("*", _PRODUCT), ("/", _PRODUCT), ("+", _SUM), ("-", _SUM))},
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
        return self.wrapped(least).code

    def wrapped(self, least: int = 0) -> _Code:
        """The code of the expression at this point (whether it is in parentheses of
        its own, an operation's or a group's, so that a group around it adds none;
        whether it is a number, which arithmetic takes as it is)."""
        left = self.operand()
        compared = False
        while (op := self.binary()) is not None and op.left >= least:
            self.take()
            if op.left == _COMPARISON:
                if compared:
                    raise ValueError(f"formula {self.whole!r}: comparisons do not chain in "
                                     "R ('a < b < c' is a syntax error there); write "
                                     "'a < b & b < c'")
                compared = True
            left = op.code(left, self.wrapped(op.right))
        return left

    def operand(self) -> _Code:
        kind, token = self.take()
        if kind == "number":
            return _Code(token, numeric=True)
        if kind in ("string", "backticked"):
            return _Code(token)
        if kind == "name" and token != "not":
            return _Code(self.postfix(token))
        if token in ("-", "+"):
            operand = self.wrapped(_UNARY)
            return _Code(f"({token}{operand.as_number()})", in_parentheses=True, numeric=True)
        if token in ("!", "not"):
            return _Code(f"(not {self.expression(_COMPARISON)})", in_parentheses=True)
        if token == "(":
            inner = self.wrapped()
            self.expect(")")
            group = inner.code if inner.in_parentheses else f"({inner.code})"
            if self.peek() is not None and self.peek()[1] in _CLOSING:
                return _Code(self.postfix(group))
            return _Code(group, in_parentheses=True, numeric=inner.numeric)
        if token == "[":                                  # a Python list
            return _Code(self.postfix(f"[{self.arguments(']')}]"))
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
