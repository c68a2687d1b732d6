"""The SO-CEL paper, Thm 4.5: FO-CEL with binary predicates → SO-CEL, for formulas whose variables are bound once.

The proof (the SO-CEL paper §4) makes every binding unique (``R AS x_id``), lifts each filter ``P(x, y)`` above the
closest subformula that binds its variables, and reads ``R AS x`` as ``R IN x`` with the filter as its universal
SO-extension ``P^SO(x, y)`` ("every position labelled x and every position labelled y satisfy P"). This module
does that for the formulas in which **every variable is bound at most once** (step 4 of the proof is then the
identity, and the DNF step 3, which duplicates a subformula per binding a filter may see, is not needed):

* each top-level conjunct of a filter is lifted on its own (a conjunction of filters is a sequence of filters);
* a binding is ``x`` bound outside every ``+`` of the filter's scope or inside the same ``+`` iteration, so at the
  place the filter is attached label ``x`` holds exactly x's one position, or (inside a ``+`` that the filter was
  lifted above) the positions of every iteration's binding — and the universal SO filter asks P of every pair,
  which is what the FO filter asked of each iteration against the one outer binding (Example 4.1's shape);
* a filter lifted above an OR would constrain the other branch's outputs too, so the proof's step 2 splits into
  the case where the filter is needed (the branch may be taken; the filter stands above the OR) and the case
  where it is not (the OR replaced by the other branch), see :func:`_cases`. So, at the place a filter is
  attached, every variable it reads labels at least one position of every output it constrains, and the SO
  condition's conjuncts (each checked on its own, docs/decisions.md D35) mean what the FO conjunction meant.

Only binary (and unary) filters are translated: Thm 4.6 shows that the ternary ``y.a + z.a = x.a`` inside a ``+``
has no SO-CEL equivalent, and it is refused by name. Equivalence is at the support level of the SO-CEL paper §3:
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
    return _translate(phi)


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


Pending = tuple[tuple[int, Predicate], ...]
"""Filters still waiting for a variable bound further up, each with the number of its occurrence (two equal
conditions at two places are two filters)."""
Case = tuple[so.Formula, Pending]


def _translate(phi: FoFormula) -> so.Formula:
    cases = _cases(phi, iter(range(1 << 30)))
    (formula, pending), = cases  # check_safe: every filter variable is bound somewhere, so all are attached
    assert not pending, pending
    return formula


def _cases(phi: FoFormula, ids) -> list[Case]:
    """The SO formula of φ as cases: ``(ψ_S, S)`` for a family of sets S of filters still pending, such that ψ_S
    accepts exactly the matches of φ whose FO filters *needed* (those on the branches the match takes) lie in S.

    This is step 2 of the proof of Thm 4.5, the case split "the filter is needed / it is not", for a filter
    lifted above an OR: with ``α ; ((β FILTER P) OR γ)`` and P reading α's variable, the cases are
    ``(α ; (β OR γ)) FILTER P`` and ``α ; γ``. A filter on a branch's own variable would need no split (the
    universal SO filter is vacuous where that label is empty), but a filter on outer variables only would
    wrongly constrain γ's matches. The family is closed under union, so under a ``+`` the case
    ``(ψ_S)+ FILTER S`` holds the iterations of every needed set ⊆ S; once no filter is pending the cases
    merge back into one formula (docs/decisions.md D62)."""
    if isinstance(phi, Bind):
        return [(so.In(so.Atom(phi.relation), phi.var), ())]
    if isinstance(phi, FoFilter):
        # A conjunction of filters is a sequence of filters (FO-CEL, the SO-CEL paper §3); each conjunct is lifted alone.
        own = tuple((next(ids), p) for p in _conjuncts(phi.predicate))
        cases = [(f, pending + own) for f, pending in _cases(phi.body, ids)]
    elif isinstance(phi, FoPlus):
        cases = [(so.Plus(f), pending) for f, pending in _cases(phi.body, ids)]
    else:
        left, right = _cases(phi.left, ids), _cases(phi.right, ids)  # type: ignore[attr-defined]
        if isinstance(phi, FoSeq):
            cases = [(so.Seq(lf, rf), lp + rp) for lf, lp in left for rf, rp in right]
        else:
            cases = [(so.Disj(lf, rf), lp + rp) for lf, lp in left for rf, rp in right]
            # A branch alone: the matches that never take the other branch need none of its pending filters.
            # Not needed when the other branch has a case with nothing pending (the pair already gives it).
            if not any(not rp for _, rp in right):
                cases += left
            if not any(not lp for _, lp in left):
                cases += right
    bound = _bound(phi)
    return _merge([_attach(f, pending, bound) for f, pending in cases])


def _merge(cases: list[Case]) -> list[Case]:
    """One formula per set of pending filters: the OR of the cases that leave the same filters pending."""
    by_set: dict[frozenset[int], tuple[so.Formula, Pending]] = {}
    for f, pending in cases:
        key = frozenset(n for n, _ in pending)
        if key in by_set:
            g, _ = by_set[key]
            by_set[key] = (so.Disj(g, f), pending)
        else:
            by_set[key] = (f, pending)
    return list(by_set.values())


def _attach(node: so.Formula, filters: Pending, bound: frozenset[str]) -> Case:
    """Attach, as one universal SO filter, the filters whose variables are all bound in ``node``; the others are
    lifted further."""
    here = [p for _, p in filters if _variables(p) <= bound]
    later = tuple((n, p) for n, p in filters if not _variables(p) <= bound)
    if here:
        node = so.Filter(node, conj(*here) if len(here) > 1 else here[0])
    return node, later


__all__ = ["binary_fo_to_socel"]
