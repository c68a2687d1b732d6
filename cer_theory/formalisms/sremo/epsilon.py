"""ε-elimination: the SRT paper (Alevizos, Artikis, Paliouras), Lemma 29 and Alg. 2.

:func:`eliminate_epsilon` is the sound, state-preserving construction (docs/decisions.md): for each state ``q``
and each non-ε transition ``(p, φ, W, o, p')`` with ``p`` in the ε-closure of ``q``, add ``(q, φ, W, o, p')``; ``q``
is final iff its closure meets ``Q_f``. It preserves ``Match`` under both acceptance readings (tested).

:func:`alg2` is the paper's subset construction. Grouping by ``(φ, o)`` as written merges a transition that
writes ``r1`` with one that does not, and loses matches (P4, docs/errata.md); ``group_writes=True`` adds ``W`` to
the group key, which repairs it.
"""

from __future__ import annotations

from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.formalisms.sremo.srt import SRT, Transition


def eliminate_epsilon(t: SRT) -> SRT:
    """An ε-free SRT with the same matches (Lemma 29), on the same states, trimmed to the reachable ones."""
    if t.is_epsilon_free():
        return t
    transitions: set[Transition] = set()
    finals = set()
    for q in range(t.states):
        cl = t.closure([q])
        if cl & t.finals:
            finals.add(q)
        for p in cl:
            for d in t.out(p):
                if not d.is_epsilon:
                    transitions.add(Transition(q, d.guard, d.target, d.writes, d.marked))
    return _trim(t.states, t.start, finals, transitions, t)


def _trim(n: int, start: int, finals: set[int], transitions: set[Transition], like: SRT) -> SRT:
    """Keep the states reachable from ``start``, renumbered in discovery order."""
    by_source: dict[int, list[Transition]] = {}
    for d in transitions:
        by_source.setdefault(d.source, []).append(d)
    order = {start: 0}
    todo = [start]
    while todo:
        q = todo.pop(0)
        for d in sorted(by_source.get(q, []), key=_key):
            if d.target not in order:
                order[d.target] = len(order)
                todo.append(d.target)
    kept = sorted((Transition(order[d.source], d.guard, order[d.target], d.writes, d.marked)
                   for d in transitions if d.source in order), key=_key)
    return SRT(len(order), 0, frozenset(order[q] for q in finals if q in order), tuple(kept), like.registers,
               like.window, like.positions)


def _key(d: Transition) -> tuple:
    return (d.source, d.target, d.guard.text() if d.guard is not None else "", sorted(d.writes), d.marked)


def alg2(t: SRT, *, group_writes: bool = True, budget: int = DEFAULT_BUDGET) -> SRT:
    """Alg. 2 of the SRT paper (EliminateEpsilon): a forward subset construction over ε-closures, grouping the
    non-ε out-transitions of a subset by ``(φ, o)`` — and by ``W`` too when ``group_writes`` (the P4 fix) —
    and taking the union of their ``W`` and of their closed targets."""
    start = t.closure([t.start])
    index = {start: 0}
    todo = [start]
    transitions: set[Transition] = set()
    while todo:
        subset = todo.pop(0)
        groups: dict[tuple, tuple[set[int], set[str]]] = {}
        for p in sorted(subset):
            for d in t.out(p):
                if d.is_epsilon:
                    continue
                key = (d.guard, d.marked, d.writes if group_writes else None)
                targets, writes = groups.setdefault(key, (set(), set()))
                targets.add(d.target)
                writes |= d.writes
        for (guard, marked, _), (targets, writes) in groups.items():
            target = t.closure(targets)
            if target not in index:
                if len(index) >= budget:
                    raise SizeBudgetExceeded("ε-elimination (the SRT paper Alg. 2)", budget, len(index))
                index[target] = len(index)
                todo.append(target)
            transitions.add(Transition(index[subset], guard, index[target], frozenset(writes), marked))
    finals = {i for s, i in index.items() if s & t.finals}
    return SRT(len(index), 0, frozenset(finals), tuple(sorted(transitions, key=_key)), t.registers, t.window, t.positions)
