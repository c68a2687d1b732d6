"""Parser for the ASCII syntax of SREMO (the SRT paper, Alevizos, Artikis, Paliouras, Def. 15 and derived forms).

The grammar is ``sremo.lark`` (LALR(1), contextual lexer). Precedence, tightest first: postfix ``*`` ``+``,
prefix ``!``, ``.`` (concatenation), ``&`` (intersection), ``|`` (union); binary operators associate to the
left. Conditions are the toolkit's predicate language over the head (unqualified attributes: ``type = "B"``,
``price > 10``) and registers (``r1.id``); ``type = "X"`` on the head or a register becomes an
:class:`~cer_theory.core.predicates.ast.IsType` atom. Every error is a
:class:`~cer_theory.core.errors.SyntaxErrorCER` naming line, column, what was found and what was expected.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any as TAny

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.parsing import check_nesting, contextual_syntax_error
from cer_theory.core.predicates.ast import (FALSE, MIRRORED_OP, TRUE, Attr, Cmp, Const, IsType, Predicate, conj,
                                            disj, neg)
from cer_theory.formalisms.sremo.ast import (EMPTY, EPS, Any, Complement, Concat, Cond, Expr, Inter, Next, Plus,
                                             Star, Union, Window, check)

GRAMMAR_PATH = Path(__file__).with_name("sremo.lark")
KEYWORDS = ("EPS", "EMPTY", "ANY", "NEXT", "WITHIN", "TRUE", "FALSE", "NOT", "AND", "OR")


class _Builder(Transformer):  # type: ignore[type-arg]
    """Parse tree → SREMO AST."""

    def eps(self, _: list[TAny]) -> Expr:
        return EPS

    def empty(self, _: list[TAny]) -> Expr:
        return EMPTY

    def unmarked(self, c: list[TAny]) -> Expr:
        return Cond(c[0], marked=False, writes=_writes(c[1:]))

    def marked(self, c: list[TAny]) -> Expr:
        return Cond(c[0], marked=True, writes=_writes(c[1:]))

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
        return Window(c[0], int(c[1]))

    def strategy(self, c: list[TAny]) -> Expr:
        kind, *args = c
        return Any(tuple(args)) if kind == "ANY" else Next(tuple(args))

    # conditions
    def or_(self, c: list[Predicate]) -> Predicate:
        return disj(*c)

    def and_(self, c: list[Predicate]) -> Predicate:
        return conj(*c)

    def not_(self, c: list[Predicate]) -> Predicate:
        return neg(c[0])

    def true_(self, _: list[TAny]) -> Predicate:
        return TRUE

    def false_(self, _: list[TAny]) -> Predicate:
        return FALSE

    def lattr(self, c: list[Token]) -> Attr:
        return _attr(c)

    rattr = lattr

    def lconst(self, c: list[Token]) -> Const:
        return _const(c[0])

    rconst = lconst

    def cmp(self, c: list[TAny]) -> Predicate:
        return _cmp(c[0], str(c[1]), c[2])

    def cmp_mirrored(self, c: list[TAny]) -> Predicate:
        return _cmp(c[2], MIRRORED_OP[str(c[1])], c[0])


def _writes(tokens: list[Token]) -> tuple[str, ...]:
    if not tokens:
        return ()
    return tuple(r.strip() for r in str(tokens[0])[2:].split(","))


def _attr(c: list[Token]) -> Attr:
    return Attr(str(c[0])) if len(c) == 1 else Attr(str(c[1]), str(c[0]))


def _const(tok: Token) -> Const:
    text = str(tok)
    if tok.type == "BOOL":
        return Const(text == "true")
    if tok.type == "STRING":
        body = text[1:-1]
        return Const(re.sub(r"\\(.)", r"\1", body, flags=re.S))
    if re.fullmatch(r"-?[0-9]+", text):
        return Const(int(text))
    return Const(float(text))


def _cmp(left: Attr, op: str, right: Attr | Const) -> Predicate:
    # `type = "B"` is the type test tuples(B), as in the rest of the toolkit.
    if left.name == TYPE_KEY and op == "=" and isinstance(right, Const) and isinstance(right.value, str):
        return IsType(right.value, left.slot)
    return Cmp(left, op, right)


@functools.cache
def _lark() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                maybe_placeholders=False)


def parse(text: str) -> Expr:
    """Parse SREMO text into an expression (checked with :func:`~cer_theory.formalisms.sremo.ast.check`)."""
    if not isinstance(text, str):
        raise SyntaxErrorCER(f"expected SREMO text, got {type(text).__name__}", line=1, column=1)
    try:
        tree = _lark().parse(text)
        check_nesting(tree, "expression", parse_tree=True)  # before the (recursive) transformer
        expr = _Builder().transform(tree)
        check_nesting(expr, "expression")
    except UnexpectedInput as e:
        raise _syntax_error(text, e) from None
    except VisitError as e:
        raise SyntaxErrorCER(str(e.orig_exc), line=1, column=1, text=text) from None
    except RecursionError:
        raise SyntaxErrorCER("the expression is nested too deeply", line=1, column=1, text=text) from None
    try:
        return check(expr)
    except CerError as e:
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    except RecursionError:
        raise SyntaxErrorCER("the expression is nested too deeply", line=1, column=1, text=text) from None


_TERMINAL_TEXT = {
    "_BAR": "'|'", "_AMP": "'&'", "_DOT": "'.'", "_BANG": "'!'", "_STAR": "'*'", "_PLUS": "'+'", "_LSQB": "'['",
    "_RSQB": "']'", "_LANGLE": "'<'", "_RANGLE": "'>'", "_LPAR": "'('", "_RPAR": "')'", "_COMMA": "','",
    "CMP_OP": "a comparison (= != < <= > >=)", "INT": "a window length", "NUMBER": "a number",
    "STRING": "a string", "BOOL": "true or false", "NAME": "a name", "WRITES": "'-> r1, ...'",
    "_WITHIN": "WITHIN", "_NOT": "NOT", "_AND": "AND", "_OR": "OR", "$END": "end of input",
}


def _describe(terminal: str) -> str:
    return _TERMINAL_TEXT.get(terminal, terminal)


def _syntax_error(text: str, e: UnexpectedInput) -> SyntaxErrorCER:
    """Line, column, what was found and what the grammar accepts there."""
    return contextual_syntax_error(text, e, describe=_describe, quotes="\"'")


__all__ = ["parse", "GRAMMAR_PATH", "KEYWORDS"]
