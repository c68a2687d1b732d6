"""Determinization of unrolled SRA and complement: the SRT paper (Alevizos, Artikis, Paliouras), Thm. 41 (Alg. 7)
and Cor. 43 (Alg. 8).

:func:`determinize_sra` is the lazy subset construction of Alg. 7 over an unrolled (loop-free, Lemma 46) SRA:
from a subset ``P``, the conditions of the transitions out of ``P`` are split into their satisfiable minterms
(Z3 with the ``def`` flags of docs/decisions.md prunes the others), and each minterm goes to the set of the
targets whose condition it implies, writing the union of their ``W``. This is sound **only** on unrolled input:
every register copy is written by one transition, so the union never clobbers a value another run still needs;
on the SRT of Thm. 38 it would overwrite ``r1``. An SRA that writes no register has nothing to clobber: it is a
symbolic automaton, and the subset construction is sound on it with its loops (the complement of a register-free
``!e``, :mod:`.compile`). Outputs are dropped: the result is output-agnostic (Def. 37).
It drives the toolkit's one subset step (:func:`~cer_theory.automata.determinize.step.subset_moves`, docs/decisions.md
D33, D57) with each minterm as the key.

:func:`complement` is Alg. 8: determinize, complete with a dead state, flip the finals. Strings longer than
the window are all accepted by the complement.
"""

from __future__ import annotations

from collections.abc import Iterator

from cer_theory.automata.determinize.step import MoveTable, subset_moves
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.predicates.ast import TRUE, Predicate, conj, neg
from cer_theory.core.predicates.registers import condition_satisfiable, with_def_flags
from cer_theory.core.predicates.solver import minterms
from cer_theory.formalisms.sremo.srt import SRT, Transition


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


def move_table(sra: SRT) -> MoveTable:
    """Δ of an ε-free SRA for the one subset step (:mod:`cer_theory.automata.determinize.step`, docs/decisions.md
    D57): one key bit per distinct condition, and a transition's label is ``(W, o)``, marking iff ``o = •``."""
    guards: list[Predicate] = list(dict.fromkeys(t.guard for t in sra.transitions))  # type: ignore[misc]
    bit = {g: 1 << k for k, g in enumerate(guards)}
    out = {q: [(bit[t.guard], (t.writes, t.marked), t.target) for t in sra.out(q)] for q in range(sra.states)}
    labels = list(dict.fromkeys((t.writes, t.marked) for t in sra.transitions))
    return MoveTable(out, guards, labels, {L: L[1] for L in labels})


Expansion = tuple[dict[frozenset[int], int], list[Transition]]
"""The construction so far: subset → dSRA state, and the dSRA transitions built."""


def subset_construction(sra: SRT, *, budget: int = DEFAULT_BUDGET, minterm_budget: int = 4096
                        ) -> Iterator[Expansion]:
    """Alg. 7 (Thm. 41) step by step: yields the construction after each subset is expanded (breadth-first).

    From a subset ``P``, the conditions out of ``P`` are split into their satisfiable minterms (Z3 with the
    ``def`` flags prunes the rest); a minterm is the key (its positive conditions' bits) of the shared subset
    step, whose ``Δall`` is the target subset and whose labels' ``W`` are the registers written."""
    if not sra.is_epsilon_free() or (not _loop_free(sra) and any(t.writes for t in sra.transitions)):
        raise UnsupportedError("determinization needs the unrolled, loop-free SRA of a windowed expression "
                               "(the SRT paper Lemma 46; Thm. 38: not every SRT is determinizable); use unroll(srt, w)")
    table = move_table(sra)
    bit = {g: 1 << k for k, g in enumerate(table.predicates)}
    start = frozenset([sra.start])
    index = {start: 0}
    todo = [start]
    transitions: list[Transition] = []
    while todo:
        subset = todo.pop(0)
        conds: list[Predicate] = list(dict.fromkeys(d.guard for q in sorted(subset)  # type: ignore[misc]
                                                    for d in sra.out(q)))
        for mt in (minterms([with_def_flags(c) for c in conds], budget=minterm_budget) if conds else ()):
            key = sum(bit[c] for c, sign in zip(conds, mt.signs) if sign)
            moves = subset_moves(table, subset, key)
            if not moves.all:
                continue  # no run survives: no transition (Alg. 8 completes it)
            target = moves.all
            if target not in index:
                if len(index) >= budget:
                    raise SizeBudgetExceeded("determinization (the SRT paper Alg. 7)", budget, len(index))
                index[target] = len(index)
                todo.append(target)
            guard = conj(*(c if sign else neg(c) for c, sign in zip(conds, mt.signs)))
            writes = frozenset(r for (w, _), _qs in moves.by_label.items() for r in w)
            transitions.append(Transition(index[subset], guard, index[target], writes))
        yield index, transitions


def _dsra(sra: SRT, index: dict[frozenset[int], int], transitions: list[Transition]) -> SRT:
    finals = frozenset(i for s, i in index.items() if s & sra.finals)
    names = tuple("{" + ",".join(map(str, sorted(s))) + "}" for s in index)
    return SRT(len(index), 0, finals, tuple(transitions), sra.registers, positions=sra.positions, names=names)


def determinize_sra(sra: SRT, *, budget: int = DEFAULT_BUDGET, minterm_budget: int = 4096) -> SRT:
    """The output-agnostic deterministic SRA of Thm. 41 (Alg. 7), built lazily from ``{q_s}``; each state is
    named by its subset of ``sra``'s states."""
    index: dict[frozenset[int], int] = {frozenset([sra.start]): 0}
    transitions: list[Transition] = []
    for index, transitions in subset_construction(sra, budget=budget, minterm_budget=minterm_budget):
        pass
    return _dsra(sra, index, transitions)


def determinize_steps(sra: SRT, *, budget: int = DEFAULT_BUDGET, minterm_budget: int = 4096) -> Iterator[SRT]:
    """The partial dSRA after each subset Alg. 7 expands (subsets found but not yet expanded have no
    transitions), for drawing the construction step by step; the last one is :func:`determinize_sra`'s result."""
    for index, transitions in subset_construction(sra, budget=budget, minterm_budget=minterm_budget):
        yield _dsra(sra, dict(index), list(transitions))


def complement(dsra: SRT) -> SRT:
    """Alg. 8 (Cor. 43): complete the deterministic SRA with a dead state and flip its finals (language level)."""
    if not dsra.is_epsilon_free():
        raise UnsupportedError("complement needs a deterministic SRA (determinize_sra(unroll(srt, w)))")
    dead = dsra.states
    transitions = list(dsra.transitions)
    for q in range(dsra.states):
        rest = conj(*(neg(d.guard) for d in dsra.out(q)))  # type: ignore[arg-type]
        if rest == TRUE or condition_satisfiable(rest):
            transitions.append(Transition(q, rest, dead))
    transitions.append(Transition(dead, TRUE, dead))
    finals = frozenset(q for q in range(dsra.states + 1) if q not in dsra.finals)
    names = dsra.names + ("∅",) if dsra.names is not None else None  # the dead state is the empty subset
    return SRT(dsra.states + 1, dsra.start, finals, tuple(transitions), dsra.registers, positions=dsra.positions,
               names=names)


def counts(t: SRT) -> dict[str, int]:
    """Sizes for a report: states, transitions (minterm transitions after Alg. 7), registers."""
    return {"states": t.states, "transitions": len(t.transitions), "registers": len(t.registers)}
