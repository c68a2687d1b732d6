"""The one condition language of the toolkit: its grammar (``conditions.lark`` beside this module) and the builder
that turns what the grammar matches into the shared predicate AST (:mod:`cer_theory.core.predicates`).

CEL (the CEL paper, Grez, Riveros, Ugarte, Vansummeren, §4: FILTER takes a predicate of 𝒫), SO-CEL, FO-CEL and
ACEL write FILTER conditions, SREMO (the SRT paper, Alevizos, Artikis, Paliouras, Def. 15) the guards of its
transitions and CEQL (the CORE paper, Bucchi, Grez, Quintana, Riveros, Vansummeren, §2) its ``Var[…]`` blocks, in
this one language: comparisons ``= != < <= > >=`` between arithmetic terms (``+ - * /`` over attributes and
constants, with the precedence of CEQL's expressions), combined with ``NOT``, ``AND``, ``OR``. Each logic's grammar
imports the templates of ``conditions.lark`` and instantiates them with its own attributes (CEL's ``T.x``, SREMO's
``r1.id``) and its own atoms (CEL's ``Var[...]``, CEQL's ``LIKE`` and ``IN``); its transformer subclasses
:class:`ConditionBuilder`, so ``y.value + z.value = x.value`` is the same
:class:`~cer_theory.core.predicates.ast.Cmp` in every logic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Token, Transformer

from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.parsing import number, unescape
from cer_theory.core.predicates.ast import (FALSE, TRUE, And, Arith, Attr, Cmp, Const, IsType, Not, Or, Predicate,
                                            term_attrs)

GRAMMAR_PATH = Path(__file__).with_name("conditions.lark")
IMPORT_PATH = GRAMMAR_PATH.parent
"""The folder a logic's grammar names in its import paths to ``%import conditions (...)``."""

OP_SPELLINGS = {"≠": "!=", "≤": "<=", "≥": ">=", "==": "=", "<>": "!="}
"""Other spellings of the comparisons: Unicode (CEL's display) and SQL's (CEQL, after CORE)."""


def base_name(name: str) -> str:
    """A rule or terminal name without the prefixes Lark gives what a grammar imports (``conditions__cmp`` and,
    through a second import, ``cel__cel__conditions__cmp`` are ``cmp``)."""
    return name.rsplit("__", 1)[-1] if "__" in name.strip("_") else name


def unprefixed(x: Any) -> Any:
    """A token under its terminal's own name (``cel__cel__NUMBER`` → ``NUMBER``); anything else unchanged."""
    if isinstance(x, Token) and base_name(x.type) != x.type:
        return Token.new_borrow_pos(base_name(x.type), x.value, x)
    return x


def constant(tok: Token) -> Const:
    """A constant token's value: NUMBER (an int, or a float when written with a point or an exponent), BOOL
    (``true``/``false``) or STRING (double or single quotes, backslash escapes)."""
    kind = base_name(tok.type)
    if kind == "NUMBER":
        return Const(number(tok))
    if kind == "BOOL":
        return Const(tok == "true")
    return Const(unescape(tok[1:-1]))


def to_predicate(x: Any) -> Predicate:
    """A condition node, or a bare ``TRUE``/``FALSE`` keyword token, as a :class:`Predicate`."""
    if isinstance(x, Token):
        return TRUE if base_name(x.type) == "TRUE" else FALSE
    return x


def _at(message: str, tok: Token) -> SyntaxErrorCER:
    return SyntaxErrorCER(message, line=tok.line or 1, column=tok.column or 1)


class ConditionBuilder(Transformer):  # type: ignore[type-arg]
    """Builds the shared predicate AST from ``conditions.lark``'s rules, whatever prefix an import gave them.

    A logic's builder subclasses it, adds the callbacks of its own rules (attributes, atoms) and may reword the one
    error it raises (:attr:`needs_attribute`). A callback is found under its own name or under any import prefix
    (``conditions__cmp``, or ``cel__cel__on`` for a rule of CEL's grammar seen through SO-CEL's), so one builder
    serves a grammar and every grammar that imports it.
    """

    needs_attribute: str | None = "an attribute (a comparison needs one)"
    """What the error says is expected when a comparison has no attribute on either side (``1 < 2``), reported at
    the right operand; None leaves the refusal to the AST, reported at the operator."""
    type_tests: tuple[str, ...] = ("=", "!=")
    """The comparisons of ``type`` with a string that build the type test (``=``) or its negation (``!=``)."""

    def __getattr__(self, name: str) -> Any:
        base = base_name(name)
        if base != name and not name.startswith("__"):
            return getattr(self, base)
        raise AttributeError(name)

    def term(self, x: Any) -> Attr | Const | Arith:
        """A term node, or a constant token, as a term."""
        return constant(unprefixed(x)) if isinstance(x, Token) else x

    def describe(self, tok: Token) -> str:
        """How an error names the token ``tok`` (a logic with its own wording overrides this)."""
        return f"'{tok.value}'"

    def cmp(self, c: list[Any]) -> Predicate:
        """``left op right``; ``type = "R"`` (and ``!=``) is the type test tuples(R) of the CEL paper §4."""
        left, right = self.term(c[0]), self.term(c[2])
        if self.needs_attribute and not term_attrs(left) and not term_attrs(right):  # the terms allow it
            tok = c[2] if isinstance(c[2], Token) else c[1]
            raise SyntaxErrorCER(f"unexpected {self.describe(unprefixed(tok))}; expected {self.needs_attribute}",
                                 line=tok.line or 1, column=tok.column or 1, expected=(self.needs_attribute,))
        op = OP_SPELLINGS.get(str(c[1]), str(c[1]))
        if (isinstance(left, Attr) and left.name == TYPE_KEY and op in self.type_tests
                and isinstance(right, Const) and isinstance(right.value, str)):
            t = IsType(right.value, left.slot)
            return t if op == "=" else Not(t)
        try:
            return Cmp(left, op, right)
        except CerError as e:
            raise _at(str(e), c[1]) from None

    def arith(self, c: list[Any]) -> Arith:
        """``left op right`` (the operator's token kept, to place an error there)."""
        left, op, right = c
        try:
            return Arith(str(op), self.term(left), self.term(right))
        except CerError as e:
            raise _at(str(e), op) from None

    def arith_neg(self, c: list[Any]) -> Attr | Const | Arith:
        operand = self.term(c[1])
        if isinstance(operand, Const) and not isinstance(operand.value, (bool, str)):
            return Const(-operand.value)  # a negative literal, as -1 always read
        try:
            return Arith("-", Const(0), operand)
        except CerError as e:
            raise _at(str(e), c[0]) from None

    def arith_pos(self, c: list[Any]) -> Attr | Const | Arith:
        operand = self.term(c[1])
        if isinstance(operand, Const) and isinstance(operand.value, (bool, str)):
            raise _at(f"arithmetic needs numbers, got the constant {operand}", c[0])
        return operand

    def not_(self, c: list[Any]) -> Predicate:
        return Not(to_predicate(c[-1]))

    def and_(self, c: list[Any]) -> Predicate:
        return And(tuple(to_predicate(x) for x in c))

    def or_(self, c: list[Any]) -> Predicate:
        return Or(tuple(to_predicate(x) for x in c))


__all__ = ["GRAMMAR_PATH", "IMPORT_PATH", "OP_SPELLINGS", "ConditionBuilder", "base_name", "constant", "to_predicate",
           "unprefixed"]
