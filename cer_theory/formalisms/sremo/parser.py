"""Parser for the ASCII syntax of SREMO (the SRT paper, Alevizos, Artikis, Paliouras, Def. 15 and derived forms).

The grammar is ``sremo.lark`` (LALR(1), contextual lexer). Precedence, tightest first: postfix ``*`` ``+``,
prefix ``!``, ``.`` (concatenation), ``&`` (intersection), ``|`` (union); binary operators associate to the
left. Conditions are the toolkit's one condition language (:mod:`cer_theory.core.conditions`, arithmetic
included) over the head (unqualified attributes: ``type = "B"``, ``price * 2 > r1.price + 1``) and registers
(``r1.id``); ``type = "X"`` on the head or a register becomes an :class:`~cer_theory.core.predicates.ast.IsType`
atom. Every error is a
:class:`~cer_theory.core.errors.SyntaxErrorCER` naming line, column, what was found and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any as TAny

from lark import Token
from lark.exceptions import UnexpectedInput

from cer_theory.core.conditions import IMPORT_PATH, ConditionBuilder, to_predicate
from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.parsing import LalrParser, contextual_syntax_error, number
from cer_theory.core.predicates.ast import MIRRORED_OP, Attr, Cmp, Const, Predicate, conj, disj, neg
from cer_theory.formalisms.sremo.ast import (EMPTY, EPS, Any, Complement, Concat, Cond, Expr, Inter, Next, Plus,
                                             Star, Union, Window, check)

GRAMMAR_PATH = Path(__file__).with_name("sremo.lark")
KEYWORDS = ("EPS", "EMPTY", "ANY", "NEXT", "WITHIN", "TRUE", "FALSE", "NOT", "AND", "OR")


class _Builder(ConditionBuilder):
    """Parse tree → SREMO AST; conditions are built by the shared
    :class:`~cer_theory.core.conditions.ConditionBuilder`, so they mean what they mean in every logic."""

    def eps(self, _: list[TAny]) -> Expr:
        return EPS

    def empty(self, _: list[TAny]) -> Expr:
        return EMPTY

    def unmarked(self, c: list[TAny]) -> Expr:
        return Cond(to_predicate(c[0]), marked=False, writes=_writes(c[1:]))

    def marked(self, c: list[TAny]) -> Expr:
        return Cond(to_predicate(c[0]), marked=True, writes=_writes(c[1:]))

    def concat(self, c: list[TAny]) -> Expr:
        return Concat(c[0], c[1])

    def union(self, c: list[TAny]) -> Expr:
        return Union(c[0], c[1])

    def inter(self, c: list[TAny]) -> Expr:
        return Inter(c[0], c[1])

    def star(self, c: list[TAny]) -> Expr:
        return Star(c[0])

    def plus(self, c: list[TAny]) -> Expr:
        return Plus(c[0])

    def complement(self, c: list[TAny]) -> Expr:
        return Complement(c[0])

    def window(self, c: list[TAny]) -> Expr:
        return Window(c[0], int(number(c[1], "window")))

    def strategy(self, c: list[TAny]) -> Expr:
        kind, *args = c
        return Any(tuple(args)) if kind == "ANY" else Next(tuple(args))

    # conditions: the shared builder's, normalized as SREMO has always read them
    type_tests = ("=",)
    """``r1.type != "B"`` stays a comparison: under Def. 13 it is false while ``r1`` is empty, whereas the negated
    type test ``NOT r1.type = "B"`` is true then."""

    def or_(self, c: list[TAny]) -> Predicate:
        return disj(*map(to_predicate, c))

    def and_(self, c: list[TAny]) -> Predicate:
        return conj(*map(to_predicate, c))

    def not_(self, c: list[TAny]) -> Predicate:
        return neg(to_predicate(c[-1]))

    def cmp(self, c: list[TAny]) -> Predicate:
        """A comparison (the shared builder's); a constant compared with an attribute, ``1 < x``, is written
        attribute first, ``x > 1``, as the SRT paper writes its atoms."""
        p = super().cmp(c)
        if isinstance(p, Cmp) and isinstance(p.left, Const) and isinstance(p.right, Attr):
            return Cmp(p.right, MIRRORED_OP[p.op], p.left)
        return p

    def lattr(self, c: list[Token]) -> Attr:
        return Attr(str(c[0])) if len(c) == 1 else Attr(str(c[1]), str(c[0]))

    rattr = lattr


def _writes(tokens: list[Token]) -> tuple[str, ...]:
    if not tokens:
        return ()
    return tuple(r.strip() for r in str(tokens[0])[2:].split(","))


def parse(text: str) -> Expr:
    """Parse SREMO text into an expression (checked with :func:`~cer_theory.formalisms.sremo.ast.check`)."""
    if not isinstance(text, str):
        raise SyntaxErrorCER(f"expected SREMO text, got {type(text).__name__}", line=1, column=1)
    expr = PARSER.parse(text)
    try:
        return check(expr)
    except CerError as e:
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    except RecursionError:
        raise SyntaxErrorCER("the expression is nested too deeply", line=1, column=1, text=text) from None


_TERMINAL_TEXT = {
    "_BAR": "'|'", "_AMP": "'&'", "_DOT": "'.'", "_BANG": "'!'", "_STAR": "'*'", "_PLUS": "'+'", "_LSQB": "'['",
    "_RSQB": "']'", "_LANGLE": "'<'", "_RANGLE": "'>'", "_LPAR": "'('", "_RPAR": "')'", "_COMMA": "','",
    "_MINUS": "'-'", "_SLASH": "'/'", "_VEE": "'∨'", "_WEDGE": "'∧'", "_NEG": "'¬'",
    "CMP_OP": "a comparison (= != < <= > >=)", "INT": "a window length", "NUMBER": "a number",
    "STRING": "a string", "BOOL": "true or false", "NAME": "a name", "WRITES": "'-> r1, ...'",
    "_WITHIN": "WITHIN", "_NOT": "NOT", "_AND": "AND", "_OR": "OR", "$END": "end of input",
}


def _describe(terminal: str) -> str:
    return _TERMINAL_TEXT.get(terminal, terminal)


def _syntax_error(text: str, start: str, e: UnexpectedInput) -> SyntaxErrorCER:
    """Line, column, what was found and what the grammar accepts there."""
    return contextual_syntax_error(text, e, describe=_describe, quotes="\"'")


PARSER = LalrParser(GRAMMAR_PATH, name="sremo", builder=_Builder, lexer="contextual", import_paths=(IMPORT_PATH,),
                    what="expression", syntax_error=_syntax_error)
"""SREMO's parser (the conditions' grammar imported from core/conditions.lark)."""


__all__ = ["parse", "GRAMMAR_PATH", "KEYWORDS"]
