"""I/O-determinization of CEA: seed 000, Proposition 5.5 (spec cel-cea.md §3).

``A' = (2^Q, {(R, P, L, Δ(R,P,L))}, {I}, {R | R ∩ F ≠ ∅})`` where P ranges over the *types* (minterms) of the
predicates of Δ and L over the label sets of Δ, with ``Δ(R,P,L) = {q | p ∈ R, (p,P',L,q) ∈ Δ, P ⊆ P'}``.
Because P is a minterm over 𝒫, ``P ⊆ P'`` holds exactly when P' is one of P's positive predicates.

Only subsets reachable from I are built; minterms are pruned by Z3, so unsatisfiable types never become
transitions. The target ∅ is a dead, non-final state that keeps A' complete (one transition per type and
label set from every state). This module depends only on automata and predicates: the UNLESS case of the
Theorem 6.2 compiler needs it (docs/decisions.md).
"""

from __future__ import annotations

from collections import deque

from cer_theory.automata.cea import CEA, State, Transition
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.core.predicates.solver import minterms, naive_minterms



def io_determinize(cea: CEA, *, budget: int | None = DEFAULT_BUDGET, prune: bool = True,
                   complete: bool = True) -> CEA:
    """The I/O-deterministic, valuation-equivalent CEA of Prop. 5.5, built eagerly over reachable subsets.

    ``prune=False`` uses all 2^k sign vectors (the naive oracle) instead of Z3-pruned minterms.
    ``complete=False`` omits transitions into the empty subset. States of the result are frozensets of
    states of ``cea``; raise :class:`SizeBudgetExceeded` past ``budget`` subsets.
    """
    preds = cea.predicates()
    index = {p: k for k, p in enumerate(preds)}
    types = minterms(preds) if prune else naive_minterms(preds)
    labels = cea.label_sets()  # ℒ: the label sets of Δ (none when Δ is empty)
    start = frozenset(cea.initial)
    seen: dict[frozenset[State], None] = {start: None}
    queue = deque([start])
    transitions: list[Transition] = []
    while queue:
        subset = queue.popleft()
        for m in types:
            positive = set(m.positives)
            for L in labels:
                target = frozenset(t.target for p in subset for t in cea.out(p)
                                   if t.labels == L and index[t.predicate] in positive)
                if not target and not complete:
                    continue
                transitions.append(Transition(subset, m.predicate, L, target))
                if target not in seen:
                    seen[target] = None
                    if budget is not None and len(seen) > budget:
                        raise SizeBudgetExceeded("I/O-determinization", budget, len(seen))
                    queue.append(target)
    final = [s for s in seen if s & cea.final]
    return CEA(seen, transitions, [start], final, name=f"IOdet({cea.name})" if cea.name else "IOdet")
