"""What the LALR parsers of CEL and CEQL share: reading constants and readable syntax errors.

Both languages write numbers and double-quoted strings alike (:func:`number`, :func:`unescape`). Each parser
supplies its own wording for errors (its terminals' names, how to summarise the set of acceptable terminals,
extra hints; :func:`describe_token` does the common part); this module does the shared work: locating the error,
asking the parser which terminals it would have accepted at that point, and building the
:class:`~cer_theory.core.errors.SyntaxErrorCER` with line, column, what was found and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from cer_theory.core.errors import FormulaTooDeep, SyntaxErrorCER
from cer_theory.core.tree import MAX_NESTING, nesting_depth

DescribeToken = Callable[[Token], str]
DescribeExpected = Callable[[set[str], "Token | None", str], list[str]]
Hint = Callable[[UnexpectedInput, set[str]], str]


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}
"""Backslash escapes of a double-quoted string (CEL, CEQL's ``"…"``); any other escaped character stands for
itself (``\\"`` is a quote, ``\\\\`` a backslash)."""


def unescape(body: str) -> str:
    """The value of a double-quoted string's body (the text between the quotes)."""
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body, flags=re.S)


def number(text: str) -> int | float:
    """A NUMBER token's value: a float when written with a point or an exponent, an int otherwise."""
    return float(text) if re.search(r"[.eE]", text) else int(text)


def describe_token(tok: Token, *, keywords: Collection[str], nouns: Mapping[str, str],
                   quoted: Collection[str] = ()) -> str:
    """What an error message calls ``tok``: ``end of input``, ``keyword FILTER``, ``<noun> value`` for the
    terminal types in ``nouns`` (the value in Python quotes for the types in ``quoted``), else ``'text'``."""
    if tok.type == "$END":
        return "end of input"
    if tok.type in keywords:
        return f"keyword {tok.value}"
    noun = nouns.get(tok.type)
    if noun is not None:
        return f"{noun} {tok.value!r}" if tok.type in quoted else f"{noun} {tok.value}"
    return f"'{tok.value}'"


PARSE_TREE_SLACK = 10
"""How much deeper than its AST a lark parse tree may be (the start rule, clause wrappers, a condition's rules)."""


def check_nesting(root: object, what: str = "formula", *, parse_tree: bool = False) -> None:
    """Reject an AST ``root`` nested deeper than :data:`~cer_theory.core.tree.MAX_NESTING` with a
    :class:`FormulaTooDeep`; every parser calls this before anything recursive touches its result. A parser that
    builds its AST with a (recursive) lark ``Transformer`` checks the ``parse_tree`` first, with a little slack
    for the grammar's own wrapper rules, and the AST afterwards."""
    limit = MAX_NESTING + (PARSE_TREE_SLACK if parse_tree else 0)
    if nesting_depth(root, stop_after=limit) > limit:
        raise FormulaTooDeep(what, MAX_NESTING)


def join(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based (line, column) of character offset ``pos``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def acceptable(plain: Lark, text: str, pos: int, start: str) -> tuple[set[str], Token | None]:
    """The terminals acceptable at offset ``pos`` (all tokens before it parsed) and the previous token.

    ``plain`` is the grammar's parser *without* an inline transformer (callbacks must not run on a prefix).
    """
    ip = plain.parse_interactive("", start=start)
    prev: Token | None = None
    try:
        for tok in plain.lex(text[:pos]):
            ip.feed_token(tok)
            prev = tok
        return set(ip.accepts()), prev
    except LarkError:  # pragma: no cover - the prefix parsed before, so this should not happen
        return set(), prev


def syntax_error(text: str, start: str, e: UnexpectedInput, *, plain: Lark, describe_token: DescribeToken,
                 describe_expected: DescribeExpected, hint: Hint | None = None,
                 quotes: str | Mapping[str, str] = "\"'",
                 unterminated: str = "unterminated string") -> SyntaxErrorCER:
    """The :class:`SyntaxErrorCER` for a lark error ``e`` raised while parsing ``text`` from ``start``.

    ``quotes`` are the characters that open a quoted token: a lexer error on one of them is reported as
    ``unterminated`` (a dict from quote character to message overrides the wording per character).
    """
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        tok = e.token
        pos = len(text)
        line, column = (tok.end_line, tok.end_column) if tok.end_line is not None else (1, 1)
        found = "end of input"
        if not text.strip() or not list(plain.lex(text)):
            found = "empty input"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        pos, line, column = tok.start_pos, tok.line, tok.column
        found = "unexpected " + describe_token(tok)
    elif isinstance(e, UnexpectedCharacters):
        pos, line, column = e.pos_in_stream, e.line, e.column
        ch = text[pos] if pos < len(text) else ""
        if ch and ch in quotes:
            found = quotes[ch] if isinstance(quotes, Mapping) else unterminated
        else:
            found = f"unexpected character {ch!r}"
    else:  # pragma: no cover - UnexpectedEOF is Earley-only
        pos = len(text)
        line, column = position(text, pos)
        found = "unexpected end of input"
    if found == "end of input":
        found = "unexpected end of input"
    acc, prev = acceptable(plain, text, pos, start)
    expected = describe_expected(acc, prev, start)
    message = f"{found}; expected {join(expected)}" if expected else found
    if hint is not None:
        message += hint(e, acc)
    return SyntaxErrorCER(message, line=line, column=column, text=text, expected=tuple(expected))
