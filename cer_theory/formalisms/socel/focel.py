"""FO-CEL, the first-order language CEPL that the SO-CEL paper (*A Second-Order Approach to Complex Event Recognition*)
compares SO-CEL with (§3; the language is [16]'s): ``φ ::= R AS x | φ FILTER P(x1..xk) | φ OR φ | φ ; φ | φ+``.

A match M is a non-empty set of positions; a valuation ν maps variables to positions and is **global**: an
iteration of ``ρ+`` re-binds only ``vdef+(ρ)``, the variables bound in ρ outside every ``+``, and outer variables
keep their value, so a filter inside ``+`` can compare each iteration with an outer event. ``⟦φ⟧_n(S)`` collects
the matches of ``⟦φ⟧(S,0,n,ν)`` over all ν.

Safety (docs/decisions.md, D40). With a global valuation, a filter that reads a variable no atom of the match binds
sees an arbitrary tuple of the stream (the paper works with *safe* formulas). This module accepts a formula only
if every filter variable is *surely bound* where the filter stands: by the filtered subformula outside every ``+``
(``vdef+``, and for OR by both branches), by an enclosing filter's context, or by an earlier operand of an enclosing
``;``. Otherwise :class:`UnsafeFormulaError` names the variable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cer_theory.core.budget import charge
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Predicate
from cer_theory.formalisms.socel import ast as so


class UnsafeFormulaError(UnsupportedError):
    """An FO-CEL formula with a filter variable that is not surely bound there (names the variable)."""


class FoFormula:
    """Base class of FO-CEL formulas."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Bind(FoFormula):
    """``R AS x``: an R-tuple at the current position, bound to x (rule 1: ``M = {j}``, ``ν(x) = j``)."""

    relation: str
    var: str


@dataclass(frozen=True, slots=True)
class FoFilter(FoFormula):
    """``φ FILTER P(x1..xk)``: P is a predicate whose slots are FO variables (``x.a + y.a = z.a``)."""

    body: FoFormula
    predicate: Predicate


@dataclass(frozen=True, slots=True)
class FoOr(FoFormula):
    left: FoFormula
    right: FoFormula


@dataclass(frozen=True, slots=True)
class FoSeq(FoFormula):
    left: FoFormula
    right: FoFormula


@dataclass(frozen=True, slots=True)
class FoPlus(FoFormula):
    body: FoFormula


def _vars(p: Predicate) -> frozenset[str]:
    return frozenset(s for s in p.slots() if s is not None)


def vdef(phi: FoFormula) -> frozenset[str]:
    """The variables bound by some ``R AS x`` in φ."""
    if isinstance(phi, Bind):
        return frozenset([phi.var])
    if isinstance(phi, (FoFilter, FoPlus)):
        return vdef(phi.body)
    return vdef(phi.left) | vdef(phi.right)  # type: ignore[attr-defined]


def vdef_plus(phi: FoFormula) -> frozenset[str]:
    """``vdef+(φ)``: the variables bound outside every ``+`` (§3: ``vdef+(R AS x ; (T AS y)+) = {x}``)."""
    if isinstance(phi, Bind):
        return frozenset([phi.var])
    if isinstance(phi, FoFilter):
        return vdef_plus(phi.body)
    if isinstance(phi, FoPlus):
        return frozenset()
    return vdef_plus(phi.left) | vdef_plus(phi.right)  # type: ignore[attr-defined]


def _surely_bound(phi: FoFormula) -> frozenset[str]:
    """Variables every match of φ binds, outside every ``+`` (OR: both branches)."""
    if isinstance(phi, Bind):
        return frozenset([phi.var])
    if isinstance(phi, FoFilter):
        return _surely_bound(phi.body)
    if isinstance(phi, FoPlus):
        return frozenset()
    if isinstance(phi, FoOr):
        return _surely_bound(phi.left) & _surely_bound(phi.right)
    return _surely_bound(phi.left) | _surely_bound(phi.right)  # type: ignore[attr-defined]


def check_safe(phi: FoFormula, context: frozenset[str] = frozenset()) -> None:
    """Raise :class:`UnsafeFormulaError` naming the first filter variable not surely bound (module docstring)."""
    if isinstance(phi, Bind):
        return
    if isinstance(phi, FoFilter):
        available = _surely_bound(phi.body) | context
        missing = sorted(_vars(phi.predicate) - available)
        if missing:
            raise UnsafeFormulaError(
                f"unsafe FO-CEL formula: variable {missing[0]!r} in FILTER {phi.predicate.text()} is not surely "
                f"bound there (bind it with 'AS {missing[0]}' outside every '+' and in both branches of OR, "
                f"or earlier in an enclosing sequence)")
        check_safe(phi.body, context)
        return
    if isinstance(phi, FoPlus):
        check_safe(phi.body, context)
        return
    if isinstance(phi, FoSeq):
        check_safe(phi.left, context)
        check_safe(phi.right, context | _surely_bound(phi.left))
        return
    if isinstance(phi, FoOr):
        check_safe(phi.left, context)
        check_safe(phi.right, context)
        return
    raise TypeError(f"not an FO-CEL formula: {phi!r}")


def from_socel(phi: so.Formula) -> FoFormula:
    """Read a parsed formula in FO-CEL's syntax (``R AS x``, FILTER, OR, ``;``, ``+``) as FO-CEL."""
    if isinstance(phi, so.In) and isinstance(phi.body, so.Atom):
        return Bind(phi.body.name, phi.label)
    if isinstance(phi, so.Filter):
        if not isinstance(phi.condition, Predicate):
            raise UnsupportedError(f"{phi.condition.text()} is an SO predicate; FO-CEL filters compare variables")
        return FoFilter(from_socel(phi.body), phi.condition)
    if isinstance(phi, so.Disj):
        return FoOr(from_socel(phi.left), from_socel(phi.right))
    if isinstance(phi, so.Seq):
        return FoSeq(from_socel(phi.left), from_socel(phi.right))
    if isinstance(phi, so.Plus):
        return FoPlus(from_socel(phi.body))
    if isinstance(phi, so.Atom):
        raise UnsupportedError(f"FO-CEL atoms bind a variable: write '{phi.name} AS x'")
    raise UnsupportedError(f"{phi.operator} is not an FO-CEL operator (FO-CEL has R AS x, FILTER, OR, ';', '+')")


# ---------------------------------------------------------------------------------------------- semantics

Match = frozenset[int]
Binding = tuple[tuple[str, int], ...]


SEMANTICS = "the reference semantics of FO-CEL (the SO-CEL paper §3)"
"""What the work budget's messages call the brute force (core.budget)."""


class FoCelSemantics:
    """``⟦φ⟧(S,i,j,ν)`` by the five rules of §3, for a safe formula. Each subformula returns pairs ``(M, ν_φ)``
    with ``ν_φ`` the values of ``vdef+(φ)`` that the match fixes; the outer valuation ``ν`` (the variables
    already bound around φ) is an argument. Variables re-bound by an iteration are dropped from ν (rule 5)."""

    def __init__(self, stream: Sequence[Event]) -> None:
        self.stream = stream
        self._memo: dict = {}

    def interval(self, phi: FoFormula, i: int, j: int, nu: Mapping[str, int]) -> frozenset[tuple[Match, Binding]]:
        key = (phi, i, j, tuple(sorted((v, p) for v, p in nu.items() if v in vdef(phi) or _reads(phi, v))))
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = frozenset(self._rule(phi, i, j, dict(key[3])))
            charge(SEMANTICS, 1 + len(hit))  # core.budget: each output of a rule, as the other semantics count
        return hit

    def _rule(self, phi: FoFormula, i: int, j: int, nu: dict[str, int]):
        S = self.stream
        if isinstance(phi, Bind):
            # Rule 1: M = {j}, type(S[j]) = R and ν(x) = j.
            if S[j].type == phi.relation and nu.get(phi.var, j) == j:
                yield frozenset([j]), ((phi.var, j),)
            return
        if isinstance(phi, FoFilter):
            # Rule 2: M ∈ ⟦ρ⟧(S,i,j,ν) and (S[ν(x1)], …) ∈ P.
            for m, binding in self.interval(phi.body, i, j, nu):
                env = {**nu, **dict(binding)}
                if phi.predicate.holds({x: S[env[x]] for x in _vars(phi.predicate)}):
                    yield m, binding
            return
        if isinstance(phi, FoOr):
            # Rule 3.
            yield from self.interval(phi.left, i, j, nu)
            yield from self.interval(phi.right, i, j, nu)
            return
        if isinstance(phi, FoSeq):
            # Rule 4: M1·M2 (max M1 < min M2) with M1 ∈ ⟦ρ1⟧(S,i,k,ν), M2 ∈ ⟦ρ2⟧(S,k+1,j,ν), one ν for both.
            for k in range(i, j):
                for m1, b1 in self.interval(phi.left, i, k, nu):
                    for m2, b2 in self.interval(phi.right, k + 1, j, {**nu, **dict(b1)}):
                        if max(m1) < min(m2):
                            yield m1 | m2, tuple(sorted(set(b1) | set(b2)))
            return
        if isinstance(phi, FoPlus):
            # Rule 5: each iteration overrides U = vdef+(ρ) with a fresh ν'; nothing escapes the +.
            yield from ((m, ()) for m in self._plus(phi, i, j, nu))
            return
        raise TypeError(f"not an FO-CEL formula: {phi!r}")

    def _plus(self, phi: FoPlus, i: int, j: int, nu: dict[str, int]) -> set[Match]:
        outer = {v: p for v, p in nu.items() if v not in vdef_plus(phi.body)}
        out = {m for m, _ in self.interval(phi.body, i, j, outer)}
        for k in range(i, j):
            firsts = self.interval(phi.body, i, k, outer)
            if firsts:
                rest = {m for m, _ in self.interval(phi, k + 1, j, outer)}
                out |= {m1 | m2 for m1, _ in firsts for m2 in rest if max(m1) < min(m2)}
        return out


def _reads(phi: FoFormula, var: str) -> bool:
    if isinstance(phi, Bind):
        return False
    if isinstance(phi, FoFilter):
        return var in _vars(phi.predicate) or _reads(phi.body, var)
    if isinstance(phi, FoPlus):
        return _reads(phi.body, var)
    return _reads(phi.left, var) or _reads(phi.right, var)  # type: ignore[attr-defined]


def matches(phi: FoFormula, stream: Sequence[Event], n: int) -> frozenset[Match]:
    """``⟦φ⟧_n(S) = {M | ∃ν: M ∈ ⟦φ⟧(S,0,n,ν)}`` for a safe φ (raises :class:`UnsafeFormulaError` otherwise)."""
    check_safe(phi)
    return frozenset(m for m, _ in FoCelSemantics(stream).interval(phi, 0, n, {}))


def run(phi: FoFormula, stream: Sequence[Event]) -> list[frozenset[Match]]:
    """``[⟦φ⟧_0(S), ⟦φ⟧_1(S), …]``."""
    check_safe(phi)
    sem = FoCelSemantics(stream)
    return [frozenset(m for m, _ in sem.interval(phi, 0, n, {})) for n in range(len(stream))]


__all__ = ["FoFormula", "Bind", "FoFilter", "FoOr", "FoSeq", "FoPlus", "UnsafeFormulaError", "vdef", "vdef_plus",
           "check_safe", "from_socel", "matches", "run"]
