"""Determinization of unrolled SRA and complement: seed 002 (Alevizos, Artikis, Paliouras), Thm. 41 (Alg. 7)
and Cor. 43 (Alg. 8).

:func:`determinize` is the lazy subset construction of Alg. 7 over an unrolled (loop-free, Lemma 46) SRA:
from a subset ``P``, the conditions of the transitions out of ``P`` are split into their satisfiable minterms
(Z3 with the ``def`` flags of docs/decisions.md prunes the others), and each minterm goes to the set of the
targets whose condition it implies, writing the union of their ``W``. This is sound **only** on unrolled input:
every register copy is written by one transition, so the union never clobbers a value another run still needs;
on the SRT of Thm. 38 it would overwrite ``r1``. Outputs are dropped: the result is output-agnostic (Def. 37).

:func:`complement` is Alg. 8: determinize, complete with a dead state, flip the finals. Strings longer than
the window are all accepted by the complement.
"""

from __future__ import annotations

from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.predicates.ast import TRUE, Predicate, conj, neg
from cer_theory.core.predicates.registers import condition_satisfiable, with_def_flags
from cer_theory.core.predicates.solver import minterms
from cer_theory.formalisms.sremo.ast import Expr, Window
from cer_theory.formalisms.sremo.compile import compile_srt
from cer_theory.formalisms.sremo.srt import SRT, Transition
from cer_theory.formalisms.sremo.windowed import unroll


def _loop_free(t: SRT) -> bool:
    indegree_seen: set[int] = set()
    order = [t.start]
    for q in order:
        for d in t.out(q):
            if d.target in indegree_seen or d.target == t.start:
                return False
            indegree_seen.add(d.target)
            order.append(d.target)
    return True


def determinize(sra: SRT, *, budget: int = DEFAULT_BUDGET, minterm_budget: int = 4096) -> SRT:
    """The output-agnostic deterministic SRA of Thm. 41 (Alg. 7), built lazily from ``{q_s}``."""
    if not sra.is_epsilon_free() or not _loop_free(sra):
        raise UnsupportedError("determinization needs the unrolled, loop-free SRA of a windowed expression "
                               "(seed 002 Lemma 46; Thm. 38: not every SRT is determinizable); use unroll(srt, w)")
    start = frozenset([sra.start])
    index = {start: 0}
    todo = [start]
    transitions: list[Transition] = []
    while todo:
        subset = todo.pop(0)
        outs = [d for q in sorted(subset) for d in sra.out(q)]
        conds: list[Predicate] = list(dict.fromkeys(d.guard for d in outs))  # type: ignore[misc]
        if not conds:
            continue
        for mt in minterms([with_def_flags(c) for c in conds], budget=minterm_budget):
            chosen = {c for c, sign in zip(conds, mt.signs) if sign}
            taken = [d for d in outs if d.guard in chosen]
            if not taken:
                continue  # no run survives: no transition (Alg. 8 completes it)
            target = frozenset(d.target for d in taken)
            if target not in index:
                if len(index) >= budget:
                    raise SizeBudgetExceeded("determinization (seed 002 Alg. 7)", budget, len(index))
                index[target] = len(index)
                todo.append(target)
            guard = conj(*(c if sign else neg(c) for c, sign in zip(conds, mt.signs)))
            writes = frozenset(r for d in taken for r in d.writes)
            transitions.append(Transition(index[subset], guard, index[target], writes))
    finals = frozenset(i for s, i in index.items() if s & sra.finals)
    return SRT(len(index), 0, finals, tuple(transitions), sra.registers, positions=sra.positions)


def complement(dsra: SRT) -> SRT:
    """Alg. 8 (Cor. 43): complete the deterministic SRA with a dead state and flip its finals (language level)."""
    if not dsra.is_epsilon_free():
        raise UnsupportedError("complement needs a deterministic SRA (determinize(unroll(srt, w)))")
    dead = dsra.states
    transitions = list(dsra.transitions)
    for q in range(dsra.states):
        rest = conj(*(neg(d.guard) for d in dsra.out(q)))  # type: ignore[arg-type]
        if rest == TRUE or condition_satisfiable(rest):
            transitions.append(Transition(q, rest, dead))
    transitions.append(Transition(dead, TRUE, dead))
    finals = frozenset(q for q in range(dsra.states + 1) if q not in dsra.finals)
    return SRT(dsra.states + 1, dsra.start, finals, tuple(transitions), dsra.registers, positions=dsra.positions)


def determinize_windowed(e: Expr, w: int | None = None, *, budget: int = DEFAULT_BUDGET) -> SRT:
    """The output-agnostic dSRA of Thm. 41 for ``e`` on strings of length ≤ ``w``: compile (Thm. 27), unroll
    (Lemma 46), determinize (Alg. 7). ``w`` defaults to the window of ``(e) WITHIN w``; without any, the
    construction is refused (Thm. 38: not every SRT is determinizable)."""
    if w is None:
        if not isinstance(e, Window):
            raise UnsupportedError("determinization needs a window: write (e) WITHIN w or pass w (seed 002 Thm. 38: "
                                   "without one, an SRT need not have a deterministic equivalent)")
        w, e = e.w, e.body
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise UnsupportedError(f"a window is a positive integer, got {w!r}")
    return determinize(unroll(compile_srt(e, native_window=False), w, budget=budget), budget=budget)


def counts(t: SRT) -> dict[str, int]:
    """Sizes for a report: states, transitions (minterm transitions after Alg. 7), registers."""
    return {"states": t.states, "transitions": len(t.transitions), "registers": len(t.registers)}
