"""Reference denotational semantics of CEL: the CEL paper, Fig. 3 (operators) and §7.1 (selection strategies).

Brute force by design: ``⟦φ⟧ᵛ(S,i,j)`` is computed rule by rule, memoised per (subformula, i, j). It is the
ground truth that every automaton and engine in cer_theory is tested against, so each rule is one branch
that reads like the paper. Positions are 0-based; ``⟦φ⟧ᵛ_n(S) = ⟦φ⟧ᵛ(S,0,n)`` (the CEL paper §4).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from cer_theory.core.budget import charge
from cer_theory.core.intervals import SEMANTICS, IntervalSemantics
from cer_theory.core.events import ComplexEvent, Event, Valuation
from cer_theory.core.predicates.ast import Predicate
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq,
                              Start, Strategy, Unless, filter_literals, literal_variables)

Valuations = frozenset[Valuation]
EMPTY: Valuations = frozenset()


# ---------------------------------------------------------------------------------------------- orders (§7.1)


def le_next(c1: frozenset[int], c2: frozenset[int]) -> bool:
    """``C1 ≤_next C2`` iff ``C1 = C2`` or ``min(C1 Δ C2) ∈ C2`` (the CEL paper, §7.1; total order by Lemma 7.1)."""
    diff = c1 ^ c2
    return not diff or min(diff) in c2


def le_last(c1: frozenset[int], c2: frozenset[int]) -> bool:
    """``C1 ≤_last C2`` iff ``C1 = C2`` or ``max(C1 Δ C2) ∈ C2`` (the CEL paper, §7.1)."""
    diff = c1 ^ c2
    return not diff or max(diff) in c2


def is_interval(c: frozenset[int]) -> bool:
    """STRICT's test: ``sup`` has no gaps; ∅ counts as an interval, vacuously (§7.1)."""
    return not c or max(c) - min(c) + 1 == len(c)


def _greatest(supports: Iterable[frozenset[int]], le: Callable[[frozenset[int], frozenset[int]], bool]):
    best = None
    for c in supports:
        if best is None or le(best, c):
            best = c
    return best


def select(strategy: Strategy, valuations: Valuations) -> Valuations:
    """Apply a selection strategy to ``M = ⟦φ⟧ᵛ(S,i,j)`` (the CEL paper, §7.1). NXT/LAST/MAX select by support only."""
    if strategy is Strategy.STRICT:
        return frozenset(m for m in valuations if is_interval(m.support()))
    if not valuations:
        return EMPTY
    if strategy is Strategy.MAX:
        sups = {m.support() for m in valuations}
        return frozenset(m for m in valuations if not any(m.support() < c for c in sups))
    le = le_next if strategy is Strategy.NXT else le_last
    best = _greatest((m.support() for m in valuations), le)
    return frozenset(m for m in valuations if m.support() == best)


# --------------------------------------------------------------------------------------- filters (the CEL paper §4)


def so_holds(literal: Predicate, mu: Valuation, stream: Sequence[Event]) -> bool:
    """Universal SO-extension of a filter literal (the CEL paper §4): the first-order predicate holds on
    every choice of one tuple per variable, ``t_A ∈ S[μ(A)]``. Vacuously true when some variable is unbound."""
    variables = sorted(literal_variables(literal))
    choices = [sorted(mu[v]) for v in variables]
    for combo in itertools.product(*choices):
        env: dict[str | None, Event] = {v: stream[k] for v, k in zip(variables, combo)}
        if not literal.holds(env):
            return False
    return True


class FilterRule:
    """The FILTER rule shared by the CEL paper (Fig. 3) and the CORE paper (Fig. 2): keep the valuations whose tuples satisfy
    the condition, read as the CEL paper §4's sugar (∧ nests filters, ∨ unions them) with universal SO-extensions. The
    condition's clauses are computed once per FILTER node."""

    def __init__(self, stream: Sequence[Event]) -> None:
        self.stream = stream
        self._clauses: dict[int, list[list[Predicate]]] = {}

    def __call__(self, phi: Filter, valuations: Valuations) -> Valuations:
        clauses = self._clauses.get(id(phi))
        if clauses is None:
            clauses = self._clauses[id(phi)] = filter_literals(phi.condition)
        S = self.stream
        return frozenset(m for m in valuations
                         if any(all(so_holds(lit, m, S) for lit in clause) for clause in clauses))


# ---------------------------------------------------------------------------------------------- Fig. 3


class CelSemantics(IntervalSemantics[Valuations]):
    """``⟦φ⟧ᵛ(S,i,j)`` for one stream prefix S, memoised across formulas and intervals."""

    def __init__(self, stream: Sequence[Event]) -> None:
        super().__init__(stream)
        self._filter = FilterRule(stream)

    def _rule(self, phi: Formula, i: int, j: int) -> Valuations:
        S, sem = self.stream, self.interval
        if isinstance(phi, Atom):
            # R: {R ↦ {j}} if S[j] ∈ tuples(R); independent of i, which is where non-contiguity comes from.
            return frozenset([Valuation.single(phi.name, [j])]) if S[j].type == phi.name else EMPTY
        if isinstance(phi, In):
            # φ IN A: {μ[A ↦ sup(μ)]}.
            return frozenset(m.assign(phi.var, m.support()) for m in sem(phi.body, i, j))
        if isinstance(phi, Filter):
            # φ FILTER f: keep μ whose tuples satisfy f; ∧ nests filters, ∨ unions them (the CEL paper §4 sugar).
            return self._filter(phi, sem(phi.body, i, j))
        if isinstance(phi, Seq):
            # φ1 ; φ2: μ1 ∪ μ2 with μ1 ∈ ⟦φ1⟧(i,k), μ2 ∈ ⟦φ2⟧(k+1,j), i ≤ k < j.
            return self._sequence(phi.left, phi.right, i, j, contiguous=False)
        if isinstance(phi, Contig):
            # φ1 : φ2: as ; plus max(sup μ1) = k and min(sup μ2) = k+1 (empty supports never qualify).
            return self._sequence(phi.left, phi.right, i, j, contiguous=True)
        if isinstance(phi, Plus):
            # φ+ = ⟦φ⟧ ∪ ⟦φ ; φ+⟧: well-founded, the right part uses strictly shorter intervals.
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=False)
        if isinstance(phi, CPlus):
            # φ⊕ = ⟦φ⟧ ∪ ⟦φ : φ⊕⟧.
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=True)
        if isinstance(phi, Proj):
            # π_L(φ): μ restricted to L; the support may become empty.
            return frozenset(m.restrict(phi.variables) for m in sem(phi.body, i, j))
        if isinstance(phi, Start):
            # START(φ): min(sup μ) = i; an empty support fails.
            return frozenset(m for m in sem(phi.body, i, j) if m.support().start == i)
        if isinstance(phi, Disj):
            return sem(phi.left, i, j) | sem(phi.right, i, j)
        if isinstance(phi, Conj):
            # AND: intersection of valuation sets, both sides produce the identical valuation.
            return sem(phi.left, i, j) & sem(phi.right, i, j)
        if isinstance(phi, All):
            return self._all(phi, i, j)
        if isinstance(phi, Unless):
            # φ1 UNLESS φ2: ⟦φ2⟧ᵛ(S,i',j') = ∅ for every i ≤ i' ≤ j' ≤ j.
            if any(sem(phi.right, a, b) for a in range(i, j + 1) for b in range(a, j + 1)):
                return EMPTY
            return sem(phi.left, i, j)
        if isinstance(phi, Select):
            # §7.1: selection per interval (S,i,j) over M = ⟦φ⟧ᵛ(S,i,j).
            return select(phi.strategy, sem(phi.body, i, j))
        raise TypeError(f"not a CEL formula: {phi!r}")

    def _sequence(self, left: Formula, right: Formula, i: int, j: int, *, contiguous: bool) -> Valuations:
        out: set[Valuation] = set()
        for k in range(i, j):
            lefts = self.interval(left, i, k)
            if not lefts:
                continue
            rights = self.interval(right, k + 1, j)
            charge(SEMANTICS, len(lefts) * len(rights))  # each pair is a union to build (core.budget)
            if contiguous:
                lefts = [m for m in lefts if m.support().end == k]
                rights = [m for m in rights if m.support().start == k + 1]
            out.update(m1.union(m2) for m1 in lefts for m2 in rights)
        return frozenset(out)

    def _all(self, phi: All, i: int, j: int) -> Valuations:
        """φ1 ALL φ2: μ1 ∪ μ2 over intervals [i1,j1], [i2,j2] ⊆ [i,j] with min(i1,i2)=i and max(j1,j2)=j."""
        return self.covering_unions(phi.left, phi.right, i, j)


# ---------------------------------------------------------------------------------------------- public API


def valuations(phi: Formula, stream: Sequence[Event], n: int) -> Valuations:
    """``⟦φ⟧ᵛ_n(S)``."""
    return CelSemantics(stream).at(phi, n)


def complex_events(phi: Formula, stream: Sequence[Event], n: int) -> frozenset[ComplexEvent]:
    """``⟦φ⟧_n(S) = {sup(μ) | μ ∈ ⟦φ⟧ᵛ_n(S)}``."""
    return frozenset(m.support() for m in valuations(phi, stream, n))


def evaluate(phi: Formula, stream: Sequence[Event]) -> list[Valuations]:
    """``[⟦φ⟧ᵛ_0(S), ⟦φ⟧ᵛ_1(S), …]`` for every position of the stream."""
    sem = CelSemantics(stream)
    return [sem.at(phi, n) for n in range(len(stream))]


def evaluate_complex_events(phi: Formula, stream: Sequence[Event]) -> list[frozenset[ComplexEvent]]:
    """``[⟦φ⟧_0(S), ⟦φ⟧_1(S), …]``."""
    return [frozenset(m.support() for m in out) for out in evaluate(phi, stream)]
