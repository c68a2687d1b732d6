"""The abstract syntax of ACEL (the ACEL paper, *A formal query language and automata model for aggregation in complex
event recognition*, Fig. 1, §3–§5 and App. D).

``φ ::= R | φ AS X | φ FILTER X[P] | π_L(φ) | π_{X(a1..ak)}(φ) | φ OR φ | φ AND φ | φ : φ | φ ; φ | φ⊕ | φ+
| Agg_{Y[b1 ← ⊗1 X1(a1), …]}(φ)``. Nodes are frozen dataclasses (equal formulas compare and hash equal);
``str(φ)`` is parseable text (docs/acel-syntax.md).

A FILTER condition is a :class:`~cer_theory.core.predicates.Predicate` whose literals each read **one**
variable (the ACEL paper §3: predicates are sets of events, tested on every event of the bag, so vacuous on the empty
bag), in CEL's condition language (docs/cel-syntax.md), or one of App. D's multiset predicates
(:class:`Multiset`), which are tested on the whole bag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from cer_theory.core.aggregates import aggregator
from cer_theory.core.errors import PredicateError
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.tree import FormulaTree
from cer_theory.formalisms.acel.printer import format
from cer_theory.formalisms.cel.ast import filter_literals, literal_variables

MULTISET_KINDS = ("equal", "increasing", "decreasing")


@dataclass(frozen=True, slots=True)
class Multiset:
    """A multiset predicate of the ACEL paper App. D, on the bag bound to ``var``: ``X[a]`` (``kind="equal"``: all its
    events have equal ``a``), ``increasing(X.a)`` / ``decreasing(X.a)`` (``Succ_E(e1, e2) → e1(a) < e2(a)``,
    resp. ``>``, where ``Succ_E`` relates events of consecutive times; events of equal time are not compared)."""

    kind: str
    var: str
    attribute: str

    def __post_init__(self) -> None:
        if self.kind not in MULTISET_KINDS:
            raise PredicateError(f"unknown multiset predicate {self.kind!r}; expected {', '.join(MULTISET_KINDS)}")

    def text(self) -> str:
        return f"{self.var}[{self.attribute}]" if self.kind == "equal" else f"{self.kind}({self.var}.{self.attribute})"

    def __str__(self) -> str:
        return self.text()


Condition = Union[Predicate, Multiset]


class Formula(FormulaTree):
    """Base class of ACEL formulas."""

    __slots__ = ()
    operator: ClassVar[str] = ""

    def __str__(self) -> str:
        return format(self)

    def __repr__(self) -> str:
        return f"acel({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Atom(Formula):
    """``R``: an R-event, bound to the type variable R (Fig. 1, rule R)."""

    name: str
    operator: ClassVar[str] = "R"


@dataclass(frozen=True, slots=True, repr=False)
class As(Formula):
    """``φ AS X``."""

    body: Formula
    var: str
    operator: ClassVar[str] = "AS"


@dataclass(frozen=True, slots=True, repr=False)
class Filter(Formula):
    """``φ FILTER cond``: universal unary predicates, or one multiset predicate."""

    body: Formula
    condition: Condition
    operator: ClassVar[str] = "FILTER"

    def __post_init__(self) -> None:
        if isinstance(self.condition, Predicate):
            for clause in filter_literals(self.condition):
                for lit in clause:
                    if len(literal_variables(lit)) != 1:
                        raise PredicateError(f"ACEL filters are unary (the ACEL paper §3: a predicate is a set of events "
                                             f"tested on one variable's bag); {lit.text()} reads "
                                             f"{len(literal_variables(lit))} variables")


@dataclass(frozen=True, slots=True, repr=False)
class Proj(Formula):
    """``π_L(φ)``, written ``PI[X, Y](φ)``."""

    body: Formula
    variables: tuple[str, ...]
    operator: ClassVar[str] = "π"


@dataclass(frozen=True, slots=True, repr=False)
class AttrProj(Formula):
    """``π_{X(a1..ak)}(φ)``, written ``PI[X(a, b)](φ)`` (the ACEL paper §3): each event of X keeps only those
    attributes (``type`` too, unless listed) and its time."""

    body: Formula
    var: str
    attributes: tuple[str, ...]
    operator: ClassVar[str] = "πX"


@dataclass(frozen=True, slots=True, repr=False)
class Disj(Formula):
    left: Formula
    right: Formula
    operator: ClassVar[str] = "OR"


@dataclass(frozen=True, slots=True, repr=False)
class Conj(Formula):
    left: Formula
    right: Formula
    operator: ClassVar[str] = "AND"


@dataclass(frozen=True, slots=True, repr=False)
class Seq(Formula):
    """``φ ; ψ``: ``end(C1) < start(C2)``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ";"


@dataclass(frozen=True, slots=True, repr=False)
class Contig(Formula):
    """``φ : ψ``: ``end(C1) + 1 = start(C2)``."""

    left: Formula
    right: Formula
    operator: ClassVar[str] = ":"


@dataclass(frozen=True, slots=True, repr=False)
class Plus(Formula):
    body: Formula
    operator: ClassVar[str] = "+"


@dataclass(frozen=True, slots=True, repr=False)
class CPlus(Formula):
    """``φ⊕`` (ASCII ``φ:+``)."""

    body: Formula
    operator: ClassVar[str] = "⊕"


@dataclass(frozen=True, slots=True)
class AggSpec:
    """``b ← ⊗ X(a)``, written ``b <- sum(X.a)``; ``function`` names an aggregate of
    :mod:`cer_theory.core.aggregates` (built-in or registered by the user)."""

    output: str
    function: str
    var: str
    attribute: str

    def text(self) -> str:
        return f"{self.output} <- {self.function}({self.var}.{self.attribute})"


@dataclass(frozen=True, slots=True, repr=False)
class Agg(Formula):
    """``Agg_{Y[b1 ← ⊗1 X1(a1), …, bℓ ← ⊗ℓ Xℓ(aℓ)]}(φ)``, written ``AGG Y[b1 <- sum(X.a), …](φ)`` (the ACEL paper §5)."""

    body: Formula
    target: str
    specs: tuple[AggSpec, ...]
    operator: ClassVar[str] = "AGG"

    def __post_init__(self) -> None:
        if not self.specs:
            raise PredicateError(f"AGG {self.target}[…] needs at least one aggregate")
        outs = [s.output for s in self.specs]
        if len(set(outs)) != len(outs):
            raise PredicateError(f"AGG {self.target}[…] names an output attribute twice: {', '.join(outs)}")
        for s in self.specs:
            aggregator(s.function)  # an unknown aggregate is refused when the formula is built


BINARY = (Disj, Conj, Seq, Contig)


def variables(phi: Formula) -> frozenset[str]:
    """Every variable a formula can bind: type names of its atoms, AS targets, Agg targets."""
    out: set[str] = set()
    for node in phi.walk():
        if isinstance(node, Atom):
            out.add(node.name)
        elif isinstance(node, As):
            out.add(node.var)
        elif isinstance(node, Agg):
            out.add(node.target)
    return frozenset(out)


def relations(phi: Formula) -> frozenset[str]:
    return frozenset(n.name for n in phi.walk() if isinstance(n, Atom))


def has_multiset(phi: Formula) -> bool:
    return any(isinstance(n, Filter) and isinstance(n.condition, Multiset) for n in phi.walk())


__all__ = ["Agg", "AggSpec", "As", "Atom", "AttrProj", "BINARY", "CPlus", "Condition", "Contig", "Filter",
           "Conj", "Disj", "Formula", "MULTISET_KINDS", "Multiset", "Plus", "Proj", "Seq", "has_multiset", "relations",
           "variables"]
