"""Reference semantics of SO-CEL and SO-CEL+: the SO-CEL paper (*A Second-Order Approach to Complex Event
Recognition*), Table 1 (core operators) and §2.1 (extensions).

A complex event ``C`` maps labels to finite sets of positions; it is a
:class:`~cer_theory.core.events.Valuation` (labels with ∅ are omitted, so ``C∅`` is the empty valuation).
``⟦φ⟧(S,i,j)`` is computed rule by rule, memoised per (subformula, i, j): brute force by design, the ground truth
for the compiled automata. Positions are 0-based and ``⟦φ⟧_n(S) = ⟦φ⟧(S,0,n)`` (the SO-CEL paper §2).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from cer_theory.core.budget import charge
from cer_theory.core.intervals import SEMANTICS, IntervalSemantics
from cer_theory.formalisms.cel.semantics import is_interval  # STRICT's gap test, as in the CEL paper §7.1
from cer_theory.core.events import Event, Valuation
from cer_theory.core.predicates.ast import Predicate, compare
from cer_theory.formalisms.socel.ast import (All, Atom, Condition, Conj, Contig, CPlus, Disj, Filter, Formula, In,
                                             Order, Plus, Proj, Rename, Seq, Start, Strict, Unless, conjuncts)

ComplexEvents = frozenset[Valuation]
EMPTY: ComplexEvents = frozenset()


# ---------------------------------------------------------------------------------------------- operations on C


def extend(c: Valuation, label: str) -> Valuation:
    """Extension by label A (the SO-CEL paper §2): ``C'(A) = supp(C)``, other labels unchanged."""
    return c.assign(label, c.support()) if c else c


def rename(c: Valuation, source: str, target: str) -> Valuation:
    """Renaming ``C[A → B]`` (the SO-CEL paper §2): ``C'(A) = ∅``, ``C'(B) = C(A) ∪ C(B)``; ``A = B`` is the identity
    (docs/decisions.md)."""
    if source == target or source not in c:
        return c
    moved = c[source] | c[target]
    return c.restrict(set(c) - {source}).assign(target, moved)


# ---------------------------------------------------------------------------------------------- SO predicates


def universal_holds(pred: Predicate, c: Valuation, stream: Sequence[Event]) -> bool:
    """The universal SO-extension ``P^SO(A1..Ak)`` (the SO-CEL paper §2): the FO predicate holds for every choice of one
    tuple ``e_i ∈ S_C(A_i)`` per label; vacuously true when some ``S_C(A_i)`` is empty."""
    slots = sorted(s for s in pred.slots() if s is not None)
    choices = [sorted(c[a]) for a in slots]
    for combo in itertools.product(*choices):
        if not pred.holds({a: stream[k] for a, k in zip(slots, combo)}):
            return False
    return True


def order_holds(pred: Order, c: Valuation, stream: Sequence[Event]) -> bool:
    """``incr(A.x)`` / ``decr(A.x)``: the values of ``x`` on ``S_C(A)``, read in position order, are strictly
    increasing / decreasing (the order-aware predicate of the SO-CEL paper's sensor example, Fig. 1). Vacuous on at most
    one tuple; a missing or incomparable value makes it false (the type guard of the predicate language)."""
    op = "<" if pred.direction == "incr" else ">"
    values = [stream[k].get(pred.attribute) for k in sorted(c[pred.label])]
    return all(compare(a, op, b) for a, b in zip(values, values[1:]))


def so_holds(cond: Condition, c: Valuation, stream: Sequence[Event]) -> bool:
    """``(S_C(A1), …, S_C(Ak)) ∈ P`` for a FILTER condition: each top-level conjunct is one SO predicate."""
    for part in conjuncts(cond):
        ok = order_holds(part, c, stream) if isinstance(part, Order) else universal_holds(part, c, stream)
        if not ok:
            return False
    return True


# ---------------------------------------------------------------------------------------------- Table 1, §2.1


class SoCelSemantics(IntervalSemantics[ComplexEvents]):
    """``⟦φ⟧(S,i,j)`` for one stream prefix S, memoised across formulas and intervals (Table 1's rules)."""

    def _rule(self, phi: Formula, i: int, j: int) -> ComplexEvents:
        S, sem = self.stream, self.interval
        if isinstance(phi, Atom):
            # Table 1, R: C = {(R, j)} if type(S[j]) = R, for any i ≤ j (prefix skipping is built in).
            return frozenset([Valuation.single(phi.name, [j])]) if S[j].type == phi.name else EMPTY
        if isinstance(phi, In):
            # Table 1, ψ IN A: C' extended by A.
            return frozenset(extend(c, phi.label) for c in sem(phi.body, i, j))
        if isinstance(phi, Rename):
            # Table 1, ψ[A → B]: C'[A → B].
            return frozenset(rename(c, phi.source, phi.target) for c in sem(phi.body, i, j))
        if isinstance(phi, Filter):
            # Table 1, ψ FILTER P(Ā): (S_C(A1), …, S_C(Ak)) ∈ P.
            return frozenset(c for c in sem(phi.body, i, j) if so_holds(phi.condition, c, S))
        if isinstance(phi, Disj):
            # Table 1, OR: union.
            return sem(phi.left, i, j) | sem(phi.right, i, j)
        if isinstance(phi, Seq):
            # Table 1, ψ1 ; ψ2: C1·C2 with C1 ∈ ⟦ψ1⟧(S,i,k), C2 ∈ ⟦ψ2⟧(S,k+1,j), i ≤ k < j.
            return self._sequence(phi.left, phi.right, i, j, contiguous=False)
        if isinstance(phi, Plus):
            # Table 1, ψ+ = ⟦ψ⟧ ∪ ⟦ψ ; ψ+⟧ (least fixpoint; the right part uses strictly shorter intervals).
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=False)
        if isinstance(phi, Contig):
            # §2.1, ψ1 : ψ2: as ; with C1, C2 non-empty and max(C1) + 1 = min(C2).
            return self._sequence(phi.left, phi.right, i, j, contiguous=True)
        if isinstance(phi, CPlus):
            # §2.1, ψ⊕ = ⟦ψ⟧ ∪ ⟦ψ : ψ⊕⟧.
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=True)
        if isinstance(phi, Proj):
            # §2.1, π_L(ψ): C(A) = C'(A) for A ∈ L, else ∅ (may yield C∅ or max(C) < j).
            return frozenset(c.restrict(phi.labels) for c in sem(phi.body, i, j))
        if isinstance(phi, Start):
            # §2.1, START(ψ): min(C) = i.
            return frozenset(c for c in sem(phi.body, i, j) if c.support().start == i)
        if isinstance(phi, Strict):
            # §2.1, STRICT(ψ) (strict selection of SASE): supp(C) is an interval.
            return frozenset(c for c in sem(phi.body, i, j) if is_interval(c.support()))
        if isinstance(phi, Conj):
            # §2.1, ψ1 AND ψ2: C ∈ ⟦ψ1⟧ ∩ ⟦ψ2⟧.
            return sem(phi.left, i, j) & sem(phi.right, i, j)
        if isinstance(phi, All):
            return self._all(phi, i, j)
        if isinstance(phi, Unless):
            # §2.1, ψ1 UNLESS ψ2: C ∈ ⟦ψ1⟧(S,i,j) and ⟦ψ2⟧(S,i',j') = ∅ for all i ≤ i' ≤ j' ≤ j
            # (range as in the CEL paper §7.3; docs/decisions.md).
            if any(sem(phi.right, a, b) for a in range(i, j + 1) for b in range(a, j + 1)):
                return EMPTY
            return sem(phi.left, i, j)
        raise TypeError(f"not an SO-CEL formula: {phi!r}")

    def _sequence(self, left: Formula, right: Formula, i: int, j: int, *, contiguous: bool) -> ComplexEvents:
        """``C1·C2`` is defined iff ``max(C1) < min(C2)`` (the SO-CEL paper §2; ``max(C∅) = -∞``, ``min(C∅) = +∞``)."""
        out: set[Valuation] = set()
        for k in range(i, j):
            lefts = self.interval(left, i, k)
            if not lefts:
                continue
            rights = self.interval(right, k + 1, j)
            charge(SEMANTICS, len(lefts) * len(rights))  # each pair is a union to build (core.budget)
            for c1 in lefts:
                s1 = c1.support()
                for c2 in rights:
                    s2 = c2.support()
                    if contiguous:
                        if not s1 or not s2 or s1.end + 1 != s2.start:
                            continue
                    elif s1 and s2 and s1.end >= s2.start:
                        continue
                    out.add(c1.union(c2))
        return frozenset(out)

    def _all(self, phi: All, i: int, j: int) -> ComplexEvents:
        """§2.1, ψ1 ALL ψ2: C1 ∪ C2 with C1 ∈ ⟦ψ1⟧(S,i1,j1), C2 ∈ ⟦ψ2⟧(S,i2,j2), min(i1,i2) = i and
        max(j1,j2) = j: the SO-CEL paper takes ALL from the CEL paper (Fig. 3), whose definition this is (docs/decisions.md)."""
        return self.covering_unions(phi.left, phi.right, i, j)


# ---------------------------------------------------------------------------------------------- public API


def complex_events(phi: Formula, stream: Sequence[Event], n: int) -> ComplexEvents:
    """``⟦φ⟧_n(S)``."""
    return SoCelSemantics(stream).at(phi, n)


def evaluate(phi: Formula, stream: Sequence[Event]) -> list[ComplexEvents]:
    """``[⟦φ⟧_0(S), ⟦φ⟧_1(S), …]`` for every position of the stream."""
    sem = SoCelSemantics(stream)
    return [sem.at(phi, n) for n in range(len(stream))]


__all__ = ["ComplexEvents", "SoCelSemantics", "complex_events", "evaluate", "extend", "rename", "is_interval",
           "universal_holds", "order_holds", "so_holds"]
