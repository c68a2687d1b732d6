"""Parser for SO-CEL and SO-CEL+ (the SO-CEL paper §2, §2.1).

The grammar ``socel.lark`` extends CEL's (docs/cel-syntax.md): it *imports* CEL's FILTER conditions, names and
terminals from ``cel.lark`` and adds the renaming ``φ[A -> B]`` (also ``φ[A → B]``), a postfix operator as
tight as ``+``, and the order predicates ``incr(A.x)`` / ``decr(A.x)`` as FILTER conditions. ``STRICT(φ)`` is
strict selection; CEL's NXT, LAST and MAX are not SO-CEL operators (they stay reserved words).

Lark prefixes the rules and terminals it imports (``cel__cel__on``); the builder below inherits CEL's, which finds
its callbacks under any such prefix, so conditions mean exactly what they mean in CEL. Every error is a
:class:`~cer_theory.core.errors.SyntaxErrorCER` naming line, column, what was found and what was expected.
"""

from __future__ import annotations

from pathlib import Path

from lark.exceptions import UnexpectedInput

from cer_theory.core.conditions import to_predicate
from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.formalisms.cel import parser as cel_parser
from cer_theory.formalisms.socel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Order, Plus,
                                             Proj, Rename, Seq, Start, Strict, Unless)

GRAMMAR_PATH = Path(__file__).with_name("socel.lark")
ORDER_PREDICATES = ("incr", "decr")





class _Builder(cel_parser.ConditionBuilder):
    """Tree → SO-CEL AST; conditions are built by CEL's builder (inherited, reached through the prefix)."""

    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def in_(self, c: list) -> Formula:
        return In(c[0], str(c[1]))

    def rename(self, c: list) -> Formula:
        return Rename(c[0], str(c[1]), str(c[2]))

    def filter(self, c: list) -> Formula:
        return Filter(c[0], c[1] if isinstance(c[1], Order) else to_predicate(c[1]))

    def order(self, c: list) -> Order:
        name, attr = c[0], c[1]
        if str(name) not in ORDER_PREDICATES:
            raise SyntaxErrorCER(f"unknown SO predicate {str(name)!r}; expected incr or decr",
                                 line=name.line, column=name.column)
        if attr.slot is None:  # pragma: no cover - the grammar requires A.x
            raise SyntaxErrorCER("incr/decr take a qualified attribute such as A.x", line=name.line,
                                 column=name.column)
        return Order(str(name), attr.slot, attr.name)

    def seq(self, c: list) -> Formula:
        return Seq(c[0], c[1])

    def contig(self, c: list) -> Formula:
        return Contig(c[0], c[1])

    def plus(self, c: list) -> Formula:
        return Plus(c[0])

    def cplus(self, c: list) -> Formula:
        return CPlus(c[0])

    def proj(self, c: list) -> Formula:
        return Proj(c[1], c[0])

    def start(self, c: list) -> Formula:
        return Start(c[0])

    def strict(self, c: list) -> Formula:
        return Strict(c[1])

    def disj(self, c: list) -> Formula:
        return Disj(c[0], c[1])

    def conj(self, c: list) -> Formula:
        return Conj(c[0], c[1])

    def all_(self, c: list) -> Formula:
        return All(c[0], c[1])

    def unless(self, c: list) -> Formula:
        return Unless(c[0], c[1])




def parse(text: str) -> Formula:
    """Parse SO-CEL(+) text into a formula; raises :class:`SyntaxErrorCER` on bad input."""
    if not isinstance(text, str):
        raise TypeError(f"expected SO-CEL text (str), got {type(text).__name__}")
    result = PARSER.parse(text)
    assert isinstance(result, Formula)
    return result


# ---------------------------------------------------------------------------------------------- error messages

_FORMULA_START = {"NAME", "_LPAR", "_LSQB", "_START", "_PI", "_PI_SYM", "STRICT"}
_FORMULA_START_TEXT = "a formula (a relation name, '(', '[', START, PI, STRICT)"


def _syntax_error(text: str, e: UnexpectedInput) -> SyntaxErrorCER:
    return cel_parser.extension_syntax_error(text, e, plain=PARSER.plain, formula_start=_FORMULA_START,
                                             formula_start_text=_FORMULA_START_TEXT, own={"_ARROW": "'->' (a renaming [A -> B])"})


__all__ = ["parse", "GRAMMAR_PATH", "ORDER_PREDICATES"]


PARSER = cel_parser.extension_parser(GRAMMAR_PATH, "socel", _Builder, _syntax_error)
"""The SO-CEL parser (CEL's conditions, imported)."""
