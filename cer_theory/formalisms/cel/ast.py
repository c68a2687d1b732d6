"""The abstract syntax of CEL (the CEL paper, Fig. 2) with the selection strategies of §7.1.

Nodes are frozen dataclasses: equal formulas compare equal and hash equal, which the reference semantics uses
for memoisation and the printer/parser round trip uses for testing. ``str(φ)`` is parseable CEL text and
``repr(φ)`` is ``cel('…')``.

A FILTER condition is a :class:`~cer_theory.core.predicates.Predicate` whose slots are CEL variables: atoms such as
``T.tmp > 40``, ``H.id = T.id`` or ``Z[type = "R" AND x < 3]`` combined with AND/OR/NOT. Its meaning as a CEL
predicate (universal SO-extension, the CEL paper §4 sugar) is given by :func:`filter_literals`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cer_theory.core.tree import FormulaTree
from cer_theory.core.predicates.ast import And, Not, On, Or, Predicate, neg
from cer_theory.core.strategies import Strategy  # re-exported: SELECT's strategies (the CEL paper §7.1)
from cer_theory.formalisms.cel.printer import format


class Formula(FormulaTree):
    """Base class of CEL formulas."""

    __slots__ = ()
    operator: ClassVar[str] = ""

    def __str__(self) -> str:
        return format(self)

    def __repr__(self) -> str:
        return f"cel({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Atom(Formula):
    """``R``: a relation name; binds the variable R to the position of an R-tuple."""

    name: str
    operator: ClassVar[str] = "R"


@dataclass(frozen=True, slots=True, repr=False)
class In(Formula):
    """``φ IN A`` (alias ``AS``)."""

    body: Formula
    var: str
    operator: ClassVar[str] = "IN"


@dataclass(frozen=True, slots=True, repr=False)
class Filter(Formula):
    """``φ FILTER f``."""

    body: Formula
    condition: Predicate
    operator: ClassVar[str] = "FILTER"


@dataclass(frozen=True, slots=True, repr=False)
class Seq(Formula):
    """``φ1 ; φ2``: non-contiguous sequencing."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ";"


@dataclass(frozen=True, slots=True, repr=False)
class Contig(Formula):
    """``φ1 : φ2``: contiguous sequencing."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ":"


@dataclass(frozen=True, slots=True, repr=False)
class Plus(Formula):
    """``φ+``: non-contiguous iteration."""

    body: Formula
    operator: ClassVar[str] = "+"


@dataclass(frozen=True, slots=True, repr=False)
class CPlus(Formula):
    """``φ⊕`` (ASCII ``:+``): contiguous iteration."""

    body: Formula
    operator: ClassVar[str] = "⊕"


@dataclass(frozen=True, slots=True, repr=False)
class Proj(Formula):
    """``π_L(φ)`` (ASCII ``PI[A,B](φ)``); ``variables`` is kept sorted and duplicate-free."""

    body: Formula
    variables: tuple[str, ...]
    operator: ClassVar[str] = "π"

    def __post_init__(self) -> None:
        object.__setattr__(self, "variables", tuple(sorted(set(self.variables))))


@dataclass(frozen=True, slots=True, repr=False)
class Start(Formula):
    """``START(φ)``."""

    body: Formula
    operator: ClassVar[str] = "START"


@dataclass(frozen=True, slots=True, repr=False)
class Disj(Formula):
    """``φ1 OR φ2``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "OR"


@dataclass(frozen=True, slots=True, repr=False)
class Conj(Formula):
    """``φ1 AND φ2``: both sides produce the identical valuation."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "AND"


@dataclass(frozen=True, slots=True, repr=False)
class All(Formula):
    """``φ1 ALL φ2``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "ALL"


@dataclass(frozen=True, slots=True, repr=False)
class Unless(Formula):
    """``φ1 UNLESS φ2``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "UNLESS"


@dataclass(frozen=True, slots=True, repr=False)
class Select(Formula):
    """``STRICT(φ)``, ``NXT(φ)``, ``LAST(φ)``, ``MAX(φ)``."""

    strategy: Strategy
    body: Formula
    operator: ClassVar[str] = "SEL"


BINARY = (Seq, Contig, Disj, Conj, All, Unless)
UNARY_POSTFIX = (Plus, CPlus)

# ---------------------------------------------------------------------------------------------- queries


def variables(phi: Formula) -> frozenset[str]:
    """All variables a formula can bind: relation names of its atoms and the targets of IN."""
    out: set[str] = set()
    for node in phi.walk():
        if isinstance(node, Atom):
            out.add(node.name)
        elif isinstance(node, In):
            out.add(node.var)
    return frozenset(out)


def relations(phi: Formula) -> frozenset[str]:
    return frozenset(n.name for n in phi.walk() if isinstance(n, Atom))


def filter_literals(condition: Predicate) -> list[list[Predicate]]:
    """The CEL paper §4 reading of a FILTER condition as a disjunction of conjunctions of CEL atoms.

    ``φ FILTER (P ∧ Q) = (φ FILTER P) FILTER Q`` and ``φ FILTER (P ∨ Q) = (φ FILTER P) OR (φ FILTER Q)``
    (the CEL paper §4). NOT is pushed down to the atoms and negates the first-order predicate inside
    the universal SO-extension: ``NOT (A.x > 3)`` is ``(¬ x>3)^SO(A)`` (docs/decisions.md, D3).
    Each returned literal is an atom or a negated atom; its slots are the CEL variables it reads.
    """
    def dnf(p: Predicate, positive: bool) -> list[list[Predicate]]:
        if isinstance(p, Not):
            return dnf(p.arg, not positive)
        if isinstance(p, (And, Or)):
            parts = [dnf(a, positive) for a in p.args]
            if isinstance(p, And) == positive:  # conjunction
                acc: list[list[Predicate]] = [[]]
                for part in parts:
                    acc = [c + d for c in acc for d in part]
                return acc
            return [c for part in parts for c in part]
        return [[p if positive else neg(p)]]

    return dnf(condition, True)


def literal_variables(literal: Predicate) -> frozenset[str]:
    """The CEL variables a filter literal reads (its slots)."""
    return frozenset(s for s in literal.slots() if s is not None)


def is_unary(phi: Formula) -> bool:
    """The CEL paper Def. 4.1: every FILTER atom is ``P^SO(A)`` for one variable A."""
    return all(len(literal_variables(lit)) == 1
               for node in phi.walk() if isinstance(node, Filter)
               for clause in filter_literals(node.condition) for lit in clause)


__all__ = [
    "Strategy", "Formula", "Atom", "In", "Filter", "Seq", "Contig", "Plus", "CPlus", "Proj", "Start", "Disj",
    "Conj", "All", "Unless", "Select", "variables", "relations", "filter_literals", "literal_variables",
    "is_unary", "On",
]
