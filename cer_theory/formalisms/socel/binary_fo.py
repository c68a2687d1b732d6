"""Seed 004, Thm 4.5: FO-CEL with binary predicates → SO-CEL, for formulas whose variables are bound once.

The proof (seed 004 §4) makes every binding unique (``R AS x_id``), lifts each filter ``P(x, y)`` above the
closest subformula that binds its variables, and reads ``R AS x`` as ``R IN x`` with the filter as its universal
SO-extension ``P^SO(x, y)`` ("every position labelled x and every position labelled y satisfy P"). This module
does that for the formulas in which **every variable is bound at most once** (step 4 of the proof is then the
identity, and the DNF step 3, which duplicates a subformula per binding a filter may see, is not needed):

* each top-level conjunct of a filter is lifted on its own (a conjunction of filters is a sequence of filters);
* a binding is ``x`` bound outside every ``+`` of the filter's scope or inside the same ``+`` iteration, so at the
  place the filter is attached label ``x`` holds exactly x's one position, or (inside a ``+`` that the filter was
  lifted above) the positions of every iteration's binding — and the universal SO filter asks P of every pair,
  which is what the FO filter asked of each iteration against the one outer binding (Example 4.1's shape);
* a filter is never lifted above an OR: there it would constrain the other branch's outputs through the variables
  they share, which the proof's step 2 avoids by a case split (with complement closure). Such formulas are
  refused; so, at the place a filter is attached, every variable it reads labels at least one position of every
  output, and the SO condition's conjuncts (each checked on its own, docs/decisions.md D35) mean what the FO
  conjunction meant.

Only binary (and unary) filters are translated: Thm 4.6 shows that the ternary ``y.a + z.a = x.a`` inside a ``+``
has no SO-CEL equivalent, and it is refused by name. Equivalence is at the support level of seed 004 §3:
``⟦ψ_FO⟧_n(S) = {supp(C) | C ∈ ⟦φ_SO⟧_n(S)}``.
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import And, Predicate, conj
from cer_theory.formalisms.socel import ast as so
from cer_theory.formalisms.socel.focel import Bind, FoFilter, FoFormula, FoOr, FoPlus, FoSeq, check_safe


def _variables(p: Predicate) -> frozenset[str]:
    return frozenset(s for s in p.slots() if s is not None)


def binary_fo_to_socel(phi: FoFormula) -> so.Formula:
    """Thm 4.5 for safe FO-CEL with unary and binary filters whose variables are each bound once.

    Raises :class:`UnsafeFormulaError` for an unsafe formula, :class:`UnsupportedError` naming a variable bound
    twice or a filter over three or more variables (Thm 4.6)."""
    check_safe(phi)
    seen: set[str] = set()
    for node in _walk(phi):
        if isinstance(node, Bind):
            if node.var in seen:
                raise UnsupportedError(f"variable {node.var!r} is bound twice; this translation of Thm 4.5 needs "
                                       f"each variable bound once (rename one of the bindings)")
            seen.add(node.var)
        for part in _conjuncts(node.predicate) if isinstance(node, FoFilter) else ():
            if len(_variables(part)) > 2:
                raise UnsupportedError(f"FILTER {part.text()} relates {len(_variables(part))} variables; Thm 4.5 "
                                       f"is for binary predicates (Thm 4.6: the ternary case is not "
                                       f"SO-CEL-definable in general)")
    out, pending = _translate(phi)
    assert not pending, pending  # check_safe: every filter variable is bound somewhere in the formula
    return out


def _conjuncts(p: Predicate) -> tuple[Predicate, ...]:
    return p.args if isinstance(p, And) else (p,)


def _walk(phi: FoFormula):
    yield phi
    if isinstance(phi, (FoFilter, FoPlus)):
        yield from _walk(phi.body)
    elif isinstance(phi, (FoSeq, FoOr)):
        yield from _walk(phi.left)
        yield from _walk(phi.right)


def _bound(phi: FoFormula) -> frozenset[str]:
    return frozenset(n.var for n in _walk(phi) if isinstance(n, Bind))


def _translate(phi: FoFormula) -> tuple[so.Formula, list[Predicate]]:
    """The SO formula of φ and the filters of φ still waiting for a variable bound outside φ."""
    if isinstance(phi, Bind):
        return so.In(so.Atom(phi.relation), phi.var), []
    if isinstance(phi, FoFilter):
        # A conjunction of filters is a sequence of filters (FO-CEL, seed 004 §3); each conjunct is lifted alone.
        body, pending = _translate(phi.body)
        return _attach(body, [*pending, *_conjuncts(phi.predicate)], _bound(phi))
    if isinstance(phi, FoPlus):
        body, pending = _translate(phi.body)
        return so.Plus(body), pending
    left, lp = _translate(phi.left)  # type: ignore[attr-defined]
    right, rp = _translate(phi.right)  # type: ignore[attr-defined]
    if isinstance(phi, FoOr) and (lp or rp):
        # Above the OR the filter would also constrain the other branch's outputs through the variables both
        # share; the proof's step 2 splits into cases (with complement closure) for this. Not done here.
        p = (lp or rp)[0]
        raise UnsupportedError(f"FILTER {p.text()} reads a variable bound outside the OR it sits in; this "
                               f"translation of Thm 4.5 does not lift filters above an OR (bind the variable "
                               f"inside the branch, or distribute the sequence over the OR)")
    node = so.Disj(left, right) if isinstance(phi, FoOr) else so.Seq(left, right)
    return _attach(node, [*lp, *rp], _bound(phi))


def _attach(node: so.Formula, filters: list[Predicate], bound: frozenset[str]) -> tuple[so.Formula, list[Predicate]]:
    """Attach, as one universal SO filter, the filters whose variables are all bound in ``node``; the others are
    lifted further."""
    here = [p for p in filters if _variables(p) <= bound]
    later = [p for p in filters if not _variables(p) <= bound]
    if here:
        node = so.Filter(node, conj(*here) if len(here) > 1 else here[0])
    return node, later


__all__ = ["binary_fo_to_socel"]
