"""I/O-determinization of CEA, eagerly: *A Formal Framework for Complex Event Recognition* (the CEL paper), Prop. 5.5.

``A' = (2^Q, {(R, P, L, Δ(R,P,L))}, {I}, {R | R ∩ F ≠ ∅})`` where P ranges over the *types* (minterms, Def. 5.6)
of the predicates of Δ and L over the label sets of Δ. This driver feeds the one subset step
(:func:`~cer_theory.automata.determinize.step.subset_moves`) each Z3-pruned minterm as its key, so unsatisfiable
types never become transitions, and builds only the subsets reachable from I. The target ∅ is a dead, non-final
state that keeps A' complete (one transition per type and label set from every state). This module depends only
on automata and predicates: the UNLESS case of the Theorem 6.2 compiler needs it (docs/decisions.md).
"""

from __future__ import annotations

from collections import deque

from cer_theory.automata.cea import CEA, State, Transition
from cer_theory.automata.determinize.step import MoveTable, minterm_key, subset_moves
from cer_theory.core import budget as work
from cer_theory.core.drawing import Subset
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded

_NONE: frozenset = frozenset()


def io_determinize(cea: CEA, *, budget: int | None = DEFAULT_BUDGET, prune: bool = True,
                   complete: bool = True) -> CEA:
    """The I/O-deterministic, valuation-equivalent CEA of Prop. 5.5, built eagerly over reachable subsets.

    ``prune=False`` uses all 2^k sign vectors (the naive oracle) instead of Z3-pruned minterms.
    ``complete=False`` omits transitions into the empty subset. States of the result are frozensets of
    states of ``cea`` (:class:`~cer_theory.core.drawing.Subset`: printed ``{0, 1}``, ``∅``); raise :class:`SizeBudgetExceeded` past ``budget`` subsets, or past the active work budget
    (:mod:`cer_theory.core.budget`: each subset, transition, minterm and solver call is a unit).
    """
    from cer_theory.core.predicates.solver import minterms, naive_minterms  # (Z3 on first use: D281)

    table = MoveTable.of(cea)
    types = [(m, minterm_key(m)) for m in (minterms if prune else naive_minterms)(table.predicates)]
    start = Subset(cea.initial)  # states print as the paper writes subsets, {0, 1} (Subset)
    seen: dict[frozenset[State], None] = {start: None}
    queue = deque([start])
    transitions: list[Transition] = []
    while queue:
        subset = queue.popleft()
        for m, key in types:
            by_label = subset_moves(table, subset, key).by_label
            work.charge("I/O-determinization", 1 + len(table.labels))  # the step and its transitions
            for L in table.labels:  # ℒ: the label sets of Δ (none when Δ is empty)
                target = Subset(by_label.get(L, _NONE))
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


__all__ = ["io_determinize"]
