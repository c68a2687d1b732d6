"""Windowed SREMO → unrolled SRA: the SRT paper (Alevizos, Artikis, Paliouras), Lemma 46 and Algs. 3–6.

:func:`unroll` expands every walk of length ≤ ``w`` of an ε-free SRT into a tree (CopyOfQ maps a tree node to
the state it copies). Each write of register ``r`` on a tree edge goes to a fresh copy ``r@n`` (so every copy is
written by exactly one transition, which is what makes determinization sound, Thm. 41). A condition reads the
copy of ``r`` written last on the unique path to its source (FindLastAppearance). Our three fixes of Alg. 6
(docs/decisions.md):

* a multi-register ``W`` gets one fresh copy per register (no ConvertToSingleRegister needed);
* when no copy of ``r`` lies on the path, ``r`` is ``#`` in the original run, so **that atom** becomes ⊥ (any
  negation around it is kept: ``¬(x = r.x)`` becomes ``¬⊥ = ⊤``, as Def. 13 wants);
* nodes that cannot reach a final node are pruned.

The unrolled SRA accepts exactly the strings of ``Lang(A)`` (pure reading) of length ≤ ``w``: it bounds the
*string*, not Def. 39's marked span (P3, docs/errata.md). :func:`determinize_windowed` is the whole of Thm. 41 for
an expression: compile, unroll, determinize.
"""

from __future__ import annotations

from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.predicates.ast import FALSE, And, Not, Or, Predicate, conj, disj, neg, reslot
from cer_theory.core.predicates.registers import registers_read
from cer_theory.formalisms.sremo.ast import Expr, Window
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import determinize_sra
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.srt import SRT, Transition


def _rename_atoms(p: Predicate, latest: dict[str, str]) -> Predicate:
    """Read each register through its latest copy; an atom reading a register with no copy is ⊥ (Def. 13)."""
    if isinstance(p, Not):
        return neg(_rename_atoms(p.arg, latest))
    if isinstance(p, And):
        return conj(*(_rename_atoms(a, latest) for a in p.args))
    if isinstance(p, Or):
        return disj(*(_rename_atoms(a, latest) for a in p.args))
    regs = registers_read(p)
    if any(r not in latest for r in regs):
        return FALSE
    return reslot(p, {r: latest[r] for r in regs}) if regs else p


def unroll(srt: SRT, w: int, *, budget: int = DEFAULT_BUDGET) -> SRT:
    """The unrolled, loop-free SRA of Lemma 46 for walks of length ≤ ``w`` (ε-transitions are eliminated
    first, Lemma 29). Node names are 0..n-1 in breadth-first order; ``registers`` are the copies ``r@node``."""
    if isinstance(w, bool) or not isinstance(w, int) or w < 0:
        raise ValueError(f"a window is a non-negative integer, got {w!r}")
    a = eliminate_epsilon(srt)
    copy_of_q = [a.start]
    latest: list[dict[str, str]] = [{}]
    depth = [0]
    edges: list[Transition] = []
    frontier = [0]
    for d in range(w):
        if not frontier:  # every walk has ended: a larger w adds nothing (and w may be huge)
            break
        nxt: list[int] = []
        for n in frontier:
            for t in a.out(copy_of_q[n]):
                node = len(copy_of_q)
                if node >= budget:
                    raise SizeBudgetExceeded(f"unrolling (the SRT paper Lemma 46) with w = {w}", budget, node)
                copy_of_q.append(t.target)
                depth.append(d + 1)
                fresh = {r: f"{r}@{node}" for r in sorted(t.writes)}
                latest.append({**latest[n], **fresh})
                edges.append(Transition(n, _rename_atoms(t.guard, latest[n]), node,  # type: ignore[arg-type]
                                        frozenset(fresh.values()), t.marked))
                nxt.append(node)
        frontier = nxt
    finals = {n for n, q in enumerate(copy_of_q) if q in a.finals}
    edges = [t for t in edges if t.guard != FALSE]  # a ⊥ edge never fires, nor anything below it
    reachable = {0}
    for t in sorted(edges, key=lambda t: depth[t.source]):
        if t.source in reachable:
            reachable.add(t.target)
    finals &= reachable
    # Prune: keep nodes from which a final node is reachable (the tree's edges all point downwards).
    alive = set(finals)
    for t in sorted(edges, key=lambda t: -depth[t.target]):
        if t.target in alive:
            alive.add(t.source)
    alive.add(0)
    index = {n: i for i, n in enumerate(sorted(alive))}
    kept = tuple(Transition(index[t.source], t.guard, index[t.target], t.writes, t.marked)
                 for t in edges if t.source in alive and t.target in alive)
    return SRT(len(index), 0, frozenset(index[n] for n in finals), kept, positions=a.positions)


def determinize_windowed(e: Expr, w: int | None = None, *, budget: int = DEFAULT_BUDGET) -> SRT:
    """The output-agnostic dSRA of Thm. 41 for ``e`` on strings of length ≤ ``w``: compile (Thm. 27), unroll
    (Lemma 46), determinize (Alg. 7). ``w`` defaults to the window of ``(e) WITHIN w``; without any, the
    construction is refused (Thm. 38: not every SRT is determinizable). Either way ``e`` is compiled as the body
    of a window, so a complement ``!e`` in it is allowed (the SRT paper §5.1.2)."""
    if w is None:
        if not isinstance(e, Window):
            raise UnsupportedError("determinization needs a window: write (e) WITHIN w or pass w (the SRT paper Thm. 38: "
                                   "without one, an SRT need not have a deterministic equivalent)")
        w, e = e.w, e.body
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise UnsupportedError(f"a window is a positive integer, got {w!r}")
    srt = compile_automaton(e, native_window=False, windowed=True)
    return determinize_sra(unroll(srt, w, budget=budget), budget=budget)
