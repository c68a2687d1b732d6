"""Building blocks shared by the compilers of the CEL paper (Theorem 6.2), the CORE paper (App. A) and the SO-CEL paper (Prop 5.2,
Cor 5.6): fresh states, transitions into and out of state sets, the constructions the papers give alike (IN/AS,
OR), and the CEA products of the CEL paper's Theorem 6.2 for AND, ALL and UNLESS, which the SO-CEL paper's Cor 5.6 reuses
for UCEA (docs/decisions.md, D54)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable

from cer_theory.automata.cea import CEA, Transition
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.predicates.ast import TRUE, Predicate, conj


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
    """``ψ IN A`` (the CEL paper) / ``ψ AS X`` (the CORE paper): the variable joins every marking label."""
    return CEA(a.states, [tr(t.source, t.predicate, t.labels | {var} if t.labels else t.labels, t.target)
                          for t in a.transitions], a.initial, a.final)


def disjoint_union(a1: CEA, a2: CEA) -> CEA:
    """``ψ1 OR ψ2``: the union of two automata on disjoint states."""
    return CEA(a1.states | a2.states, [*a1.transitions, *a2.transitions], a1.initial | a2.initial,
               a1.final | a2.final)


def normalise(a: CEA, fresh: Fresh) -> CEA:
    """One initial state with no incoming and one final state with no outgoing transitions (the CEL paper, proof of
    Theorem 6.2, case ALL; our variant, docs/decisions.md D7): a fresh i* copies the transitions out of I, a fresh
    f* copies those into F, and I→F transitions give i*→f*; the runs from I to F are unchanged."""
    i, f = fresh(), fresh()
    extra = [tr(i, t.predicate, t.labels, t.target) for t in out_of(a, a.initial)]
    extra += [tr(t.source, t.predicate, t.labels, f) for t in into(a, a.final)]
    extra += [tr(i, t.predicate, t.labels, f) for t in out_of(a, a.initial) if t.target in a.final]
    return CEA(a.states | {i, f}, [*a.transitions, *extra], [i], [f])


Combine = Callable[[Transition, Transition], Iterable[tuple[Transition, Transition, frozenset[str]]]]
Solo = Callable[[tuple], Iterable[tuple[Predicate, frozenset[str], tuple]]]


def reachable_product(a1: CEA, a2: CEA, fresh: Fresh, combine: Combine, *, initial: Iterable[Iterable[Hashable]],
                      final: Callable[[tuple], bool], solo: Solo | None = None) -> CEA:
    """Reachable part of a product of CEAs (the CEL paper, Theorem 6.2: AND, ALL, UNLESS), states renamed to fresh
    integers.

    ``combine(t1, t2)`` yields ``(t1, t2, labels)`` for lock-step moves (predicate ``t1.P ∧ t2.P``);
    ``solo(p)`` yields ``(predicate, labels, (q1, q2))`` for moves of one side alone from the pair ``p``.
    """
    names: dict[tuple, int] = {}

    def name(pair: tuple) -> int:
        if pair not in names:
            names[pair] = fresh()
        return names[pair]

    start = [tuple(p) for p in initial]
    stack, seen = list(start), set(start)
    transitions = []
    while stack:
        p = stack.pop()
        moves = [(conj(t1.predicate, t2.predicate), labels, (t1.target, t2.target))
                 for t1 in a1.out(p[0]) for t2 in a2.out(p[1]) for (t1, t2, labels) in combine(t1, t2)]
        if solo is not None:
            moves += solo(p)
        for pred, labels, q in moves:
            transitions.append(tr(name(p), pred, labels, name(q)))
            if q not in seen:
                seen.add(q)
                stack.append(q)
    for p in start:
        name(p)
    return CEA(names.values(), transitions, [names[p] for p in start], [names[p] for p in seen if final(p)])


def all_product(a1: CEA, a2: CEA, fresh: Fresh) -> CEA:
    """``ψ1 ALL ψ2`` (the CEL paper, Theorem 6.2; the SO-CEL paper, Cor 5.6) on :func:`normalise`-d operands: lock-step with
    L1 ∪ L2, plus either side moving alone while the other has not started (at its initial state) or has
    finished (at its final state).

    [erratum, ours] The paper's product cannot skip a position that *neither* operand reads, yet the CEL paper's
    Fig. 3 lets the two intervals leave a gap (only ``min(i1,i2) = i`` and ``max(j1,j2) = j`` are required).
    This matters when the later operand depends on where its interval starts: ``R ALL START(T)`` on ``R X T``
    outputs ``{0,2}`` at n=2 by the semantics and nothing by the printed construction. The fix: an idle
    ``TRUE/∅`` loop in the two gap states (f1, i2) and (i1, f2) (docs/decisions.md, D7).
    """
    (i1,), (i2,) = a1.initial, a2.initial
    (f1,), (f2,) = a1.final, a2.final

    def solo(p: tuple) -> list:
        moves = [(TRUE, frozenset(), p)] if p in ((f1, i2), (i1, f2)) else []
        if p[0] in (i1, f1):
            moves += [(t.predicate, t.labels, (p[0], t.target)) for t in a2.out(p[1])]
        if p[1] in (i2, f2):
            moves += [(t.predicate, t.labels, (t.target, p[1])) for t in a1.out(p[0])]
        return moves

    return reachable_product(a1, a2, fresh, lambda t1, t2: [(t1, t2, t1.labels | t2.labels)],
                             initial=[(i1, i2)], final=lambda p: p == (f1, f2), solo=solo)


def wrap_detector(e0: CEA, fresh: Fresh) -> CEA:
    """WRAP (docs/errata.md, the CEL paper Theorem 6.2 case UNLESS; docs/decisions.md D8): s skips any prefix, f
    remembers that a match of ``e0`` was completed, so the automaton detects a match in *every* sub-interval,
    not only in a prefix."""
    s, f = fresh(), fresh()
    extra = [tr(s, TRUE, (), s), tr(f, TRUE, (), f)]
    extra += [tr(s, t.predicate, (), t.target) for t in out_of(e0, e0.initial)]
    extra += [tr(t.source, t.predicate, (), f) for t in into(e0, e0.final)]
    extra += [tr(s, t.predicate, (), f) for t in out_of(e0, e0.initial) if t.target in e0.final]
    return CEA(e0.states | {s, f}, [*e0.transitions, *extra], [s], e0.final | {f})


def unless_product(a1: CEA, a2: CEA, fresh: Fresh, det_kwargs: dict | None = None) -> CEA:
    """``ψ1 UNLESS ψ2`` (the CEL paper, Theorem 6.2; the SO-CEL paper, Cor 5.6): run ``a1`` alongside the complete DFA
    ``E = IOdet(WRAP(a2 with all labels erased))`` and accept where E has *not* seen a ψ2-match in any
    sub-interval. ``det_kwargs`` go to :func:`io_determinize` (e.g. a state ``budget``)."""
    e0 = CEA(a2.states, [tr(t.source, t.predicate, (), t.target) for t in a2.transitions], a2.initial, a2.final)
    e = fresh.copy(io_determinize(wrap_detector(e0, fresh), **(det_kwargs or {})))
    return reachable_product(a1, e, fresh, lambda t1, t2: [(t1, t2, t1.labels)],
                             initial=itertools.product(a1.initial, e.initial),
                             final=lambda p: p[0] in a1.final and p[1] not in e.final)
