"""The abstract syntax of SO-CEL and SO-CEL+ (the SO-CEL paper, *A Second-Order Approach to Complex Event Recognition*,
§2 "SO-CEL" and §2.1 "Extensions"; the extensions AND, ALL, UNLESS and STRICT as in §5 and §6.3).

Core SO-CEL: ``R | φ IN A | φ[A → B] | φ FILTER P(A1..Ak) | φ OR φ | φ ; φ | φ+``. SO-CEL+ adds ``:``, ``⊕``,
``π_L`` and ``START``; the paper's ``SO-CEL ∪ O`` adds further operators: ``STRICT``, ``AND``, ``ALL``, ``UNLESS``.

Nodes are frozen dataclasses (equal formulas compare and hash equal) with the structural dataclass ``repr``;
parseable text comes from :func:`cer_theory.formalisms.socel.printer.format` (the printer imports this
module, so this module does not print).

A FILTER condition is an *SO predicate* (the SO-CEL paper §2). Two kinds exist here (docs/decisions.md, "SO-CEL
filters"):

* a :class:`~cer_theory.core.predicates.Predicate` over label slots (``T.value < 0``, ``A.a != B.a``,
  ``T[value < 0]``), read as the **universal SO-extension** ``P^SO`` of the first-order predicate it denotes;
  a top-level ``AND`` is a conjunction of SO predicates (the SO-CEL paper §2: "conjunction of filters is nesting");
* an :class:`Order` predicate ``incr(A.x)`` / ``decr(A.x)``: the values of attribute ``x`` on the tuples
  labelled ``A`` are strictly increasing (decreasing) in position order; vacuous on at most one tuple.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from cer_theory.core.errors import PredicateError
from cer_theory.core.tree import FormulaTree
from cer_theory.core.predicates.ast import And, Predicate


@dataclass(frozen=True, slots=True)
class Order:
    """``incr(A.x)`` or ``decr(A.x)``: an order-aware SO predicate on the label ``A`` (the SO-CEL paper §2's sensor
    example, the freezing pattern of Fig. 1, uses ``incr``).

    It depends only on the labelled tuples and their relative order, so formulas using it keep the
    *-property of the SO-CEL paper §5 (docs/decisions.md)."""

    direction: str  # "incr" | "decr"
    label: str
    attribute: str

    def __post_init__(self) -> None:
        if self.direction not in ("incr", "decr"):
            raise PredicateError(f"unknown order predicate {self.direction!r}; expected incr or decr")
        for what in (self.label, self.attribute):
            if not isinstance(what, str) or not what:
                raise PredicateError(f"{self.direction}(…) needs a label and an attribute, got {what!r}")

    def labels(self) -> frozenset[str]:
        return frozenset([self.label])

    def text(self) -> str:
        return f"{self.direction}({self.label}.{self.attribute})"

    def __str__(self) -> str:
        return self.text()


Condition = Union[Predicate, Order]


def condition_labels(cond: Condition) -> frozenset[str]:
    """The labels an SO predicate reads (``P(A1..Ak)``'s ``A1..Ak``)."""
    if isinstance(cond, Order):
        return cond.labels()
    return frozenset(s for s in cond.slots() if s is not None)


def conjuncts(cond: Condition) -> tuple[Condition, ...]:
    """The SO predicates a condition conjoins: its top-level ``AND`` arguments (or itself)."""
    if isinstance(cond, And):
        return cond.args
    return (cond,)


class Formula(FormulaTree):
    """Base class of SO-CEL(+) formulas."""

    __slots__ = ()
    operator: ClassVar[str] = ""



def _check_name(node: str, what: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise PredicateError(f"{node}: {what} must be a non-empty name, got {value!r}")


@dataclass(frozen=True, slots=True)
class Atom(Formula):
    """``R``: an R-tuple, labelled R (the SO-CEL paper Table 1)."""

    name: str
    operator: ClassVar[str] = "R"

    def __post_init__(self) -> None:
        _check_name("atom", "the relation", self.name)


@dataclass(frozen=True, slots=True)
class In(Formula):
    """``φ IN A``: extend the complex event by label A (every position of the support gets A)."""

    body: Formula
    label: str
    operator: ClassVar[str] = "IN"

    def __post_init__(self) -> None:
        _check_name("IN", "the label", self.label)


@dataclass(frozen=True, slots=True)
class Rename(Formula):
    """``φ[A → B]`` (ASCII ``φ[A -> B]``): the positions labelled A are relabelled B."""

    body: Formula
    source: str
    target: str
    operator: ClassVar[str] = "→"

    def __post_init__(self) -> None:
        _check_name("renaming", "the source label", self.source)
        _check_name("renaming", "the target label", self.target)


@dataclass(frozen=True, slots=True)
class Filter(Formula):
    """``φ FILTER P(A1..Ak)`` with P an SO predicate (see the module docstring)."""

    body: Formula
    condition: Condition
    operator: ClassVar[str] = "FILTER"

    def __post_init__(self) -> None:
        if not isinstance(self.condition, (Predicate, Order)):
            raise PredicateError(f"FILTER takes a predicate or incr/decr, got {self.condition!r}")
        if isinstance(self.condition, Predicate) and None in self.condition.slots():
            raise PredicateError(f"FILTER condition {self.condition.text()} reads an unqualified attribute; "
                                 f"name the label, as in A.x or A[x > 1]")


@dataclass(frozen=True, slots=True)
class Disj(Formula):
    """``φ1 OR φ2``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "OR"


@dataclass(frozen=True, slots=True)
class Seq(Formula):
    """``φ1 ; φ2``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ";"


@dataclass(frozen=True, slots=True)
class Plus(Formula):
    """``φ+``."""

    body: Formula
    operator: ClassVar[str] = "+"


@dataclass(frozen=True, slots=True)
class Contig(Formula):
    """``φ1 : φ2`` (SO-CEL+): sequencing with no gap between the two complex events."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ":"


@dataclass(frozen=True, slots=True)
class CPlus(Formula):
    """``φ⊕`` (ASCII ``φ:+``, SO-CEL+): iteration with no gap between iterations."""

    body: Formula
    operator: ClassVar[str] = "⊕"


@dataclass(frozen=True, slots=True)
class Proj(Formula):
    """``π_L(φ)`` (ASCII ``PI[A,B](φ)``, SO-CEL+); ``labels`` is kept sorted and duplicate-free."""

    body: Formula
    labels: tuple[str, ...]
    operator: ClassVar[str] = "π"

    def __post_init__(self) -> None:
        for a in self.labels:
            _check_name("PI", "a label", a)
        object.__setattr__(self, "labels", tuple(sorted(set(self.labels))))


@dataclass(frozen=True, slots=True)
class Start(Formula):
    """``START(φ)`` (SO-CEL+): the complex event begins where the interval does."""

    body: Formula
    operator: ClassVar[str] = "START"


@dataclass(frozen=True, slots=True)
class Strict(Formula):
    """``STRICT(φ)``: strict (contiguous) selection, the support is an interval."""

    body: Formula
    operator: ClassVar[str] = "STRICT"


@dataclass(frozen=True, slots=True)
class Conj(Formula):
    """``φ1 AND φ2``: both produce the same complex event."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "AND"


@dataclass(frozen=True, slots=True)
class All(Formula):
    """``φ1 ALL φ2``: the union of a complex event of each."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "ALL"


@dataclass(frozen=True, slots=True)
class Unless(Formula):
    """``φ1 UNLESS φ2``: φ1, provided φ2 matches nowhere in the interval."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = "UNLESS"


CORE = (Atom, In, Rename, Filter, Disj, Seq, Plus)
"""Core SO-CEL (the SO-CEL paper §2)."""
PLUS_EXTENSIONS = (Contig, CPlus, Proj, Start)
"""SO-CEL+ = SO-CEL ∪ {:, ⊕, π, START} (the SO-CEL paper §2.1)."""


def labels(phi: Formula) -> frozenset[str]:
    """Every label a formula mentions: relation names, IN targets, renaming sources and targets."""
    out: set[str] = set()
    for node in phi.walk():
        if isinstance(node, Atom):
            out.add(node.name)
        elif isinstance(node, In):
            out.add(node.label)
        elif isinstance(node, Rename):
            out |= {node.source, node.target}
    return frozenset(out)


def relations(phi: Formula) -> frozenset[str]:
    return frozenset(n.name for n in phi.walk() if isinstance(n, Atom))


def is_core(phi: Formula) -> bool:
    """Only the operators of core SO-CEL."""
    return all(isinstance(n, CORE) for n in phi.walk())


def is_plus(phi: Formula) -> bool:
    """Only the operators of SO-CEL+."""
    return all(isinstance(n, CORE + PLUS_EXTENSIONS) for n in phi.walk())


def is_unary(phi: Formula) -> bool:
    """``SO-CEL(U^SO)``: every SO predicate is the universal extension of a unary one (one label each; a constant
    TRUE/FALSE reads none)."""
    return all(isinstance(c, Predicate) and len(condition_labels(c)) <= 1
               for n in phi.walk() if isinstance(n, Filter) for c in conjuncts(n.condition))


__all__ = ["Order", "Condition", "condition_labels", "conjuncts", "Formula", "Atom", "In", "Rename", "Filter",
           "Disj", "Seq", "Plus", "Contig", "CPlus", "Proj", "Start", "Strict", "Conj", "All", "Unless", "CORE",
           "PLUS_EXTENSIONS", "labels", "relations", "is_core", "is_plus", "is_unary"]
