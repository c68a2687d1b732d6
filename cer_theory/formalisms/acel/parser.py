"""Parser for ACEL (the ACEL paper, Fig. 1, §5 and App. D); the syntax is docs/acel-syntax.md.

The grammar ``acel.lark`` extends CEL's (docs/cel-syntax.md): it imports CEL's FILTER conditions, names and
terminals from ``cel.lark`` and adds ``PI[X(a, b)](φ)`` (attribute projection), ``AGG Y[b <- f(X.a), …](φ)``
(aggregation; ``←`` too) and the multiset predicates ``X[a]``, ``increasing(X.a)``, ``decreasing(X.a)`` of App. D
as FILTER conditions. ``AS`` and ``IN`` are one operator. Every error is a
:class:`~cer_theory.core.errors.SyntaxErrorCER` naming line, column, what was found and what was expected; an
unknown aggregate or a filter literal reading two variables is reported at its place the same way.
"""

from __future__ import annotations

from pathlib import Path

from lark.exceptions import UnexpectedInput

from cer_theory.core.aggregates import aggregator
from cer_theory.core.conditions import to_predicate
from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.formalisms.acel.ast import (Agg, AggSpec, Conj, As, Atom, AttrProj, Contig, CPlus, Filter, Formula,
                                            Multiset, Disj, Plus, Proj, Seq)
from cer_theory.formalisms.cel import parser as cel_parser

GRAMMAR_PATH = Path(__file__).with_name("acel.lark")
ORDER_KINDS = ("increasing", "decreasing")



class _Builder(cel_parser.ConditionBuilder):
    """Tree → ACEL AST; conditions are built by CEL's builder (inherited, reached through the prefix)."""

    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def as_(self, c: list) -> Formula:
        return As(c[0], str(c[1]))

    def filter(self, c: list) -> Formula:
        cond = c[1] if isinstance(c[1], Multiset) else to_predicate(c[1])
        try:
            return Filter(c[0], cond)
        except CerError as e:
            raise SyntaxErrorCER(str(e), line=1, column=1) from None

    def mequal(self, c: list) -> Multiset:
        return Multiset("equal", str(c[0]), str(c[1]))

    def morder(self, c: list) -> Multiset:
        name, attr = c[0], c[1]
        if str(name) not in ORDER_KINDS:
            raise SyntaxErrorCER(f"unknown multiset predicate {str(name)!r}; expected increasing or decreasing",
                                 line=name.line, column=name.column)
        return Multiset(str(name), attr.slot, attr.name)

    def seq(self, c: list) -> Formula:
        return Seq(c[0], c[1])

    def contig(self, c: list) -> Formula:
        return Contig(c[0], c[1])

    def plus(self, c: list) -> Formula:
        return Plus(c[0])

    def cplus(self, c: list) -> Formula:
        return CPlus(c[0])

    def varlist(self, c: list) -> tuple[str, ...]:
        return tuple(str(x) for x in c)

    def attrlist(self, c: list) -> tuple[str, ...]:
        return tuple(c)

    def attrname(self, c: list) -> str:
        return str(c[0])

    def proj(self, c: list) -> Formula:
        return Proj(c[1], c[0])

    def attrproj(self, c: list) -> Formula:
        return AttrProj(c[2], str(c[0]), c[1])

    def spec(self, c: list) -> AggSpec:
        out, fn, attr = c[0], c[1], c[2]
        try:
            aggregator(str(fn))
        except CerError as e:
            raise SyntaxErrorCER(str(e), line=fn.line, column=fn.column) from None
        return AggSpec(out, str(fn), attr.slot, attr.name)

    def agg(self, c: list) -> Formula:
        target, specs, body = c[0], tuple(c[1:-1]), c[-1]
        try:
            return Agg(body, str(target), specs)
        except CerError as e:
            raise SyntaxErrorCER(str(e), line=target.line, column=target.column) from None

    def disj(self, c: list) -> Formula:
        return Disj(c[0], c[1])

    def conj(self, c: list) -> Formula:
        return Conj(c[0], c[1])




def parse(text: str) -> Formula:
    """Parse ACEL text into a formula; raises :class:`SyntaxErrorCER` on bad input."""
    if not isinstance(text, str):
        raise TypeError(f"expected ACEL text (str), got {type(text).__name__}")
    result = PARSER.parse(text)
    assert isinstance(result, Formula)
    return result


# ---------------------------------------------------------------------------------------------- error messages

_FORMULA_START = {"NAME", "_LPAR", "_LSQB", "_PI", "_PI_SYM", "_AGG"}
_FORMULA_START_TEXT = "a formula (a relation name, '(', '[', PI, AGG)"
_OWN = {"_LARROW": "'<-' (as in b <- sum(X.a))", "_AGG": "AGG"}


def _syntax_error(text: str, e: UnexpectedInput) -> SyntaxErrorCER:
    return cel_parser.extension_syntax_error(text, e, plain=PARSER.plain, formula_start=_FORMULA_START,
                                             formula_start_text=_FORMULA_START_TEXT, own=_OWN)


__all__ = ["GRAMMAR_PATH", "ORDER_KINDS", "parse"]


PARSER = cel_parser.extension_parser(GRAMMAR_PATH, "acel", _Builder, _syntax_error)
"""The ACEL parser (CEL's conditions, imported)."""
