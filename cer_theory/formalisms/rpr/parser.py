"""Parser of one ``MATCH_RECOGNIZE ( … )`` clause (ISO/IEC 9075-2:2016 §7.6, in the fragment of Flink's
documentation, *Pattern Recognition*).

The grammar is ``rpr.lark`` (LALR(1), contextual lexer). Keywords are case-insensitive, names case-sensitive;
quantifiers follow the standard (``* + ? {n} {n,} {,m} {n,m}``, a trailing ``?`` making them reluctant,
TR 19075-5 §4.6); strings are SQL's single-quoted literals with ``''`` for a quote. The parsed query is checked
by :func:`~cer_theory.formalisms.rpr.ast.check`. Every error is a :class:`~cer_theory.core.errors.SyntaxErrorCER`
naming line, column, what was found and what was expected.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from lark import Token, Transformer
from lark.exceptions import UnexpectedInput

from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.parsing import LalrParser, Located, contextual_syntax_error, number
from cer_theory.formalisms.rpr.ast import (Agg, Alt, And, Arith, Cmp, Col, Concat, Condition, Const, IsNull, Measure, Nav,
                                           Not, Or, Pattern, Prev, Quant, Query, SECONDS, Skip, Truth, Var,
                                           check)

GRAMMAR_PATH = Path(__file__).with_name("rpr.lark")

_BOUNDS = re.compile(r"\{\s*([0-9]*)\s*(,\s*([0-9]*)\s*)?\}")


def quantifier(token: str) -> tuple[int, int | None, bool]:
    """``(low, high, greedy)`` of a quantifier token (TR 19075-5 §4.6): ``*`` is {0,}, ``+`` {1,}, ``?`` {0,1};
    ``{n}`` is {n,n}, ``{,m}`` {0,m}; a trailing ``?`` makes it reluctant. A bound too long to read is refused at
    the token (``core.parsing.number``); a large one is left to the work budget (the NFA's unrolling)."""
    text, greedy = str(token), True
    if len(text) > 1 and text.endswith("?"):
        text, greedy = text[:-1], False
    if text in ("*", "+", "?"):
        low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[text]
        return low, high, greedy
    m = _BOUNDS.fullmatch(text)
    if m is None or (not m.group(1) and not m.group(2)):
        raise CerError(f"bad quantifier {text}")
    low = _bound(m.group(1) or "0", token)
    if m.group(2) is None:
        return low, low, greedy
    return low, (_bound(m.group(3), token) if m.group(3) else None), greedy


def _bound(digits: str, token: str) -> int:
    """A quantifier's bound, read by the one number reader, refused at the quantifier's token."""
    try:
        return int(number(digits, "quantifier bound"))
    except Located as e:
        raise Located(e.message, token if isinstance(token, Token) else None) from None


class _Builder(Transformer):  # type: ignore[type-arg]
    """Parse tree → :class:`Query`."""

    def start(self, c: list[Any]) -> Query:
        parts: dict[str, Any] = {"skip": Skip()}
        for item in c:
            if isinstance(item, tuple) and item and item[0] in ("partition_by", "order_by", "measures", "within",
                                                                "defines"):
                parts[item[0]] = item[1]
            elif isinstance(item, Skip):
                parts["skip"] = item
            elif item is not None and not isinstance(item, tuple):
                parts["pattern"] = item
        return Query(**parts)

    def partition(self, c: list[Token]) -> tuple[str, tuple[str, ...]]:
        return ("partition_by", tuple(map(str, c)))

    def order(self, c: list[Token]) -> tuple[str, str]:
        return ("order_by", str(c[0]))

    def measures(self, c: list[Measure]) -> tuple[str, tuple[Measure, ...]]:
        return ("measures", tuple(c))

    def measure(self, c: list[Any]) -> Measure:
        return Measure(c[0], str(c[1]))

    def rows(self, _: list[Any]) -> None:
        return None

    def past_last_row(self, _: list[Any]) -> Skip:
        return Skip("PAST LAST ROW")

    def to_next_row(self, _: list[Any]) -> Skip:
        return Skip("TO NEXT ROW")

    def to_first(self, c: list[Token]) -> Skip:
        return Skip("TO FIRST", str(c[0]))

    def to_last(self, c: list[Token]) -> Skip:
        return Skip("TO LAST", str(c[0]))

    def within(self, c: list[Token]) -> tuple[str, int]:
        body, unit = str(c[0])[1:-1].strip(), str(c[1]).upper()
        if not body.isdigit():
            raise CerError(f"WITHIN INTERVAL '{body}' {unit}: the interval is a whole number")
        return ("within", int(number(Token.new_borrow_pos("NUMBER", body, c[0]), "interval")) * SECONDS[unit])

    def defines(self, c: list[tuple[str, Condition]]) -> tuple[str, tuple[tuple[str, Condition], ...]]:
        return ("defines", tuple(c))

    def define(self, c: list[Any]) -> tuple[str, Condition]:
        return (str(c[0]), c[1])

    # patterns
    def alt(self, c: list[Pattern]) -> Pattern:
        return Alt(tuple(c))

    def seq(self, c: list[Pattern]) -> Pattern:
        return Concat(tuple(c))

    def quantified(self, c: list[Any]) -> Pattern:
        low, high, greedy = quantifier(c[1])
        return Quant(c[0], low, high, greedy)

    def var(self, c: list[Token]) -> Pattern:
        return Var(str(c[0]))

    # conditions
    def or_(self, c: list[Condition]) -> Condition:
        return functools.reduce(Or, c)

    def and_(self, c: list[Condition]) -> Condition:
        return functools.reduce(And, c)

    def not_(self, c: list[Condition]) -> Condition:
        return Not(c[0])

    def true_(self, _: list[Any]) -> Condition:
        return Truth(True)

    def false_(self, _: list[Any]) -> Condition:
        return Truth(False)

    def cmp(self, c: list[Any]) -> Condition:
        return Cmp(c[0], str(c[1]), c[2])

    # terms
    def col(self, c: list[Token]) -> Col:
        return Col(None, str(c[0])) if len(c) == 1 else Col(str(c[0]), str(c[1]))

    def number(self, c: list[Token]) -> Const:
        return Const(number(c[0]))

    def negative(self, c: list[Token]) -> Const:
        return Const(-number(c[0]))

    def arith(self, c: list[Any]) -> Arith:
        return Arith(c[0], str(c[1]), c[2])

    def string(self, c: list[Token]) -> Const:
        return Const(str(c[0])[1:-1].replace("''", "'"))

    def prev(self, c: list[Any]) -> Prev:
        if len(c) == 1:
            return Prev(c[0])
        offset = number(c[1], "offset")
        if not isinstance(offset, int):
            raise CerError("PREV's offset is a whole number")
        return Prev(c[0], offset)

    def first(self, c: list[Any]) -> Nav:
        return Nav(True, c[0], _offset(c))

    def last(self, c: list[Any]) -> Nav:
        return Nav(False, c[0], _offset(c))

    def is_null(self, c: list[Any]) -> Condition:
        return IsNull(c[0])

    def is_not_null(self, c: list[Any]) -> Condition:
        return IsNull(c[0], negated=True)

    def agg(self, c: list[Any]) -> Agg:
        return Agg(str(c[0]).upper(), c[1])

    def count(self, c: list[Col]) -> Agg:
        return Agg("COUNT", c[0])

    def count_star(self, _: list[Any]) -> Agg:
        return Agg("COUNT", None)


def _offset(c: list[Any]) -> int:
    if len(c) == 1:
        return 0
    offset = number(c[1], "offset")
    if not isinstance(offset, int):
        raise CerError("a navigation offset is a whole number")
    return offset


def parse(text: str) -> Query:
    """Parse one ``MATCH_RECOGNIZE ( … )`` clause into a checked :class:`Query`."""
    if not isinstance(text, str):
        raise SyntaxErrorCER(f"expected a MATCH_RECOGNIZE clause, got {type(text).__name__}", line=1, column=1)
    query = PARSER.parse(text)
    try:
        return check(query)
    except SyntaxErrorCER:
        raise
    except CerError as e:
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    except RecursionError:
        raise SyntaxErrorCER("the query is nested too deeply", line=1, column=1, text=text) from None


_TERMINAL_TEXT = {"NAME": "a name", "NUMBER": "a number", "STRING": "a string", "QUANT": "a quantifier",
                  "CMP": "a comparison (= <> < <= > >=)", "AGG": "SUM, MIN or MAX", "LPAR": "'('", "RPAR": "')'",
                  "COMMA": "','", "VBAR": "'|'", "DOT": "'.'", "STAR": "'*'", "$END": "end of input"}


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_TEXT:
        return _TERMINAL_TEXT[terminal]
    return terminal.lstrip("_").replace("_", " ") if terminal.lstrip("_").isupper() else terminal


def _syntax_error(text: str, start: str, e: UnexpectedInput) -> SyntaxErrorCER:
    """Line, column, what was found and what the grammar accepts there."""
    return contextual_syntax_error(text, e, describe=_describe, quotes="'")


PARSER = LalrParser(GRAMMAR_PATH, name="rpr", builder=_Builder, lexer="contextual", what="query",
                    syntax_error=_syntax_error)
"""The parser of one MATCH_RECOGNIZE clause."""


__all__ = ["GRAMMAR_PATH", "parse", "quantifier"]
