"""Building blocks shared by the compilers of seed 000 (Theorem 6.2) and seed 001 (App. A): fresh states,
transitions into and out of state sets, and the constructions the two papers give alike (IN/AS, OR)."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable

from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.predicates.ast import Predicate


class Fresh:
    """A supply of fresh integer states, so that sub-automata always have disjoint state sets."""

    def __init__(self) -> None:
        self._counter = itertools.count()

    def __call__(self) -> int:
        return next(self._counter)

    def copy(self, a: CEA) -> CEA:
        """A copy of ``a`` on fresh states (OR needs disjoint operands)."""
        mapping = {q: self() for q in sorted(a.states, key=repr)}
        return a.relabel_states(mapping)


def tr(p: Hashable, pred: Predicate, labels: Iterable[str], q: Hashable) -> Transition:
    return Transition(p, pred, frozenset(labels), q)


def into(a: CEA, states: Iterable[Hashable]) -> list[Transition]:
    """The transitions of ``a`` that enter ``states``."""
    s = frozenset(states)
    return [t for t in a.transitions if t.target in s]


def out_of(a: CEA, states: Iterable[Hashable]) -> list[Transition]:
    """The transitions of ``a`` that leave ``states``."""
    s = frozenset(states)
    return [t for t in a.transitions if t.source in s]


def add_variable(a: CEA, var: str) -> CEA:
    """``ψ IN A`` (seed 000) / ``ψ AS X`` (seed 001): the variable joins every marking label."""
    return CEA(a.states, [tr(t.source, t.predicate, t.labels | {var} if t.labels else t.labels, t.target)
                          for t in a.transitions], a.initial, a.final)


def disjoint_union(a1: CEA, a2: CEA) -> CEA:
    """``ψ1 OR ψ2``: the union of two automata on disjoint states."""
    return CEA(a1.states | a2.states, [*a1.transitions, *a2.transitions], a1.initial | a2.initial,
               a1.final | a2.final)
