"""Closure of SRT under union, concatenation, Kleene star (the SRT paper, Thm. 31, Def. 30) and intersection
(Thm. 34, App. A.4), as constructions on SRT values.

The theorems assume disjoint register sets, so by default the second operand's registers are renamed apart
(P5, docs/errata.md): ``r1`` becomes ``r1_2`` (or ``r1_3``, … until fresh). The constructions are those of the
SREMO compiler (Fig. 11), on whole automata: a new start and final state joined by ε-transitions. Kleene star
threads the registers across iterations, as rule 6 of Def. 17 and the construction do; Def. 30's wording (each
iteration from the empty valuation) differs (P5). The product pairs only transitions with equal outputs (P8).
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import conj, reslot
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.srt import SRT, Transition


def _shift(t: SRT, offset: int, rename: dict[str, str]) -> list[Transition]:
    out = []
    for d in t.transitions:
        guard = None if d.guard is None else reslot(d.guard, rename) if rename else d.guard
        out.append(Transition(d.source + offset, guard, d.target + offset,
                              frozenset(rename.get(r, r) for r in d.writes), d.marked))
    return out


def apart(t1: SRT, t2: SRT) -> dict[str, str]:
    """A renaming of ``t2``'s registers away from ``t1``'s (identity on the others)."""
    taken = set(t1.registers) | set(t2.registers)
    out: dict[str, str] = {}
    for r in sorted(t2.registers & t1.registers):
        k = 2
        while f"{r}_{k}" in taken:
            k += 1
        new = f"{r}_{k}"
        taken.add(new)
        out[r] = new
    return out


def _no_window(*ts: SRT) -> None:
    if any(t.window is not None for t in ts):
        raise UnsupportedError("an operand has a top-level window, which a combined automaton would lose; "
                               "compile it with compile_automaton(e, native_window=False)")


def _pair(t1: SRT, t2: SRT, rename_apart: bool) -> tuple[list[Transition], list[Transition], int]:
    _no_window(t1, t2)
    rename = apart(t1, t2) if rename_apart else {}
    return _shift(t1, 2, {}), _shift(t2, 2 + t1.states, rename), 2 + t1.states + t2.states


def union(t1: SRT, t2: SRT, *, rename_apart: bool = True) -> SRT:
    """``T₁ + T₂`` (Thm. 31): Match = Match(T₁, S) ∪ Match(T₂, S)."""
    a, b, n = _pair(t1, t2, rename_apart)
    eps = [Transition(0, None, t1.start + 2), Transition(0, None, t2.start + 2 + t1.states)]
    eps += [Transition(f + 2, None, 1) for f in t1.finals]
    eps += [Transition(f + 2 + t1.states, None, 1) for f in t2.finals]
    return SRT(n, 0, frozenset([1]), tuple(a + b + eps), positions=t1.positions or t2.positions)


def concatenation(t1: SRT, t2: SRT, *, rename_apart: bool = True) -> SRT:
    """``T₁ · T₂`` (Thm. 31): M₁ ∪ M₂ for S = S₁S₂ with M₁ ∈ Match(T₁, S₁), M₂ ∈ Match(T₂, S₂)."""
    a, b, n = _pair(t1, t2, rename_apart)
    eps = [Transition(0, None, t1.start + 2)]
    eps += [Transition(f + 2, None, t2.start + 2 + t1.states) for f in t1.finals]
    eps += [Transition(f + 2 + t1.states, None, 1) for f in t2.finals]
    return SRT(n, 0, frozenset([1]), tuple(a + b + eps), positions=t1.positions or t2.positions)


def star(t: SRT) -> SRT:
    """``T*`` (Thm. 31), registers threaded across iterations (rule 6 of Def. 17; P5)."""
    _no_window(t)
    body = _shift(t, 2, {})
    eps = [Transition(0, None, t.start + 2), Transition(0, None, 1)]
    eps += [Transition(f + 2, None, 1) for f in t.finals] + [Transition(f + 2, None, t.start + 2) for f in t.finals]
    return SRT(t.states + 2, 0, frozenset([1]), tuple(body + eps), positions=t.positions)


def intersection(t1: SRT, t2: SRT, *, rename_apart: bool = True) -> SRT:
    """``T₁ ∩ T₂`` (Thm. 34): the product of the ε-free automata, conditions conjoined, ``W₁ ∪ W₂`` written,
    transitions paired only when their outputs agree (P8). Match = Match(T₁, S) ∩ Match(T₂, S)."""
    _no_window(t1, t2)
    rename = apart(t1, t2) if rename_apart else {}
    a, b = eliminate_epsilon(t1), eliminate_epsilon(t2)
    index = {(a.start, b.start): 0}
    todo = [(a.start, b.start)]
    transitions: list[Transition] = []
    while todo:
        p = todo.pop(0)
        for d1 in a.out(p[0]):
            for d2 in b.out(p[1]):
                if d1.marked != d2.marked:
                    continue
                q = (d1.target, d2.target)
                if q not in index:
                    index[q] = len(index)
                    todo.append(q)
                guard = conj(d1.guard, reslot(d2.guard, rename))  # type: ignore[arg-type]
                writes = d1.writes | frozenset(rename.get(r, r) for r in d2.writes)
                transitions.append(Transition(index[p], guard, index[q], writes, d1.marked))
    finals = frozenset(i for (q1, q2), i in index.items() if q1 in a.finals and q2 in b.finals)
    return SRT(len(index), 0, finals, tuple(transitions), positions=t1.positions or t2.positions)


__all__ = ["apart", "union", "concatenation", "star", "intersection"]
