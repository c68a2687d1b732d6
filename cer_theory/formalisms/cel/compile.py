"""Unary CEL → CEA: seed 000, Theorem 6.2, case by case, with the errata in docs/errata.md (D7, D8).

For every unary formula φ the compiled automaton satisfies ``⟦φ⟧ᵛ(S,i,j) = ⟦A_φ⟧ᵛ(S,i,j)``. Sub-automata
always get disjoint fresh states (integers from one counter). Fixes applied:

* ``⊕``: the self-loop set ``{(c,P,L,c) | (i,P,L,f) ∈ Δ, i ∈ I, f ∈ F, L ≠ ∅}`` missing in the paper;
* ``UNLESS``: E is built from ``WRAP(A_{π_∅(ψ2)})`` so that it detects a ψ2-match in *every* sub-interval.

Selection strategies are compiled through Theorem 7.2 (``constructions.selection``), not here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from cer_theory.automata.cea import CEA
from cer_theory.core.errors import NotUnaryError, UnsupportedError
from cer_theory.core.predicates.ast import TRUE, conj, is_type, unary_body
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq,
                              Start, Unless, filter_literals, literal_variables)
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.building import Fresh, add_variable, disjoint_union, into, out_of, tr


def compile_automaton(phi: Formula, *, budget: int | None = None, trim: bool = False) -> CEA:
    """The CEA of Theorem 6.2 for a unary CEL formula, states renumbered 0..|Q|-1 breadth-first.

    The construction is kept as the paper gives it; ``trim=True`` drops states that no accepting run visits
    (same runs to final states, hence the same semantics), which makes drawings smaller. ``budget`` bounds the
    determinization inside UNLESS. Raises :class:`NotUnaryError` naming the filter when φ has an n-ary filter, and
    :class:`UnsupportedError` for selection strategies (compile those with ``compile_with_selection``).
    """
    fresh = Fresh()
    kwargs = {} if budget is None else {"budget": budget}
    a = _compile(phi, fresh, kwargs)
    return (a.trim() if trim else a).relabel_states()


Hook = Callable[[Formula, Callable[[Formula], CEA]], "CEA | None"]


def _compile(phi: Formula, fresh: Fresh, det_kwargs: dict, hook: Hook | None = None) -> CEA:
    """The recursion of Theorem 6.2. ``hook(ψ, rec)``, when given, is asked first at every subformula ψ; a CEA
    it returns (copied onto fresh states) is used as ``A_ψ`` and must satisfy ``⟦A_ψ⟧ᵛ(S,i,j) = ⟦ψ⟧ᵛ(S,i,j)``
    on every interval; ``rec`` compiles a child inside the same recursion. Selection strategies use it:
    ``constructions.selection.compile_with_selection`` (Theorem 7.2 automata at any depth)."""
    rec: Callable[[Formula], CEA] = lambda f: _compile(f, fresh, det_kwargs, hook)

    if hook is not None:
        built = hook(phi, rec)
        if built is not None:
            return fresh.copy(built)

    if isinstance(phi, Atom):
        # Fig. 5: ({q1,q2}, {(q1,tuples(R),{R},q2), (q1,TRUE,∅,q1)}, {q1}, {q2}).
        q1, q2 = fresh(), fresh()
        return CEA([q1, q2], [tr(q1, is_type(phi.name), {phi.name}, q2), tr(q1, TRUE, (), q1)], [q1], [q2])

    if isinstance(phi, In):
        # ψ IN A: add A to every marking label.
        return add_variable(rec(phi.body), phi.var)

    if isinstance(phi, Filter):
        return _filter(phi, rec(phi.body), fresh)

    if isinstance(phi, Seq):
        # ψ1 ; ψ2: every transition into F1 is copied into I2.
        a1, a2 = rec(phi.left), rec(phi.right)
        link = [tr(t.source, t.predicate, t.labels, q) for t in into(a1, a1.final) for q in a2.initial]
        return CEA(a1.states | a2.states, [*a1.transitions, *a2.transitions, *link], a1.initial, a2.final)

    if isinstance(phi, Plus):
        # ψ+: every transition into F is copied into I.
        a = rec(phi.body)
        loop = [tr(t.source, t.predicate, t.labels, q) for t in into(a, a.final) for q in a.initial]
        return CEA(a.states, [*a.transitions, *loop], a.initial, a.final)

    if isinstance(phi, Contig):
        # ψ1 : ψ2: a fresh c joins a marking step into F1 with a marking step out of I2.
        a1, a2 = rec(phi.left), rec(phi.right)
        c = fresh()
        into_c = [tr(t.source, t.predicate, t.labels, c) for t in into(a1, a1.final) if t.labels]
        out_c = [tr(c, t.predicate, t.labels, t.target) for t in out_of(a2, a2.initial) if t.labels]
        return CEA(a1.states | a2.states | {c}, [*a1.transitions, *a2.transitions, *into_c, *out_c],
                   a1.initial, a2.final)

    if isinstance(phi, CPlus):
        # ψ⊕ with the erratum fix: the self-loop on c for single-transition iterations.
        a = rec(phi.body)
        c = fresh()
        into_c = [tr(t.source, t.predicate, t.labels, c) for t in into(a, a.final) if t.labels]
        out_c = [tr(c, t.predicate, t.labels, t.target) for t in out_of(a, a.initial) if t.labels]
        loop_c = [tr(c, t.predicate, t.labels, c) for t in out_of(a, a.initial) if t.target in a.final and t.labels]
        return CEA(a.states | {c}, [*a.transitions, *into_c, *out_c, *loop_c], a.initial, a.final)

    if isinstance(phi, Proj):
        # π_L(ψ): labels intersected with L.
        a = rec(phi.body)
        keep = frozenset(phi.variables)
        return CEA(a.states, [tr(t.source, t.predicate, t.labels & keep, t.target) for t in a.transitions],
                   a.initial, a.final)

    if isinstance(phi, Start):
        # START(ψ): a fresh initial s that must take a marking transition out of I first.
        a = rec(phi.body)
        s = fresh()
        out_s = [tr(s, t.predicate, t.labels, t.target) for t in out_of(a, a.initial) if t.labels]
        return CEA(a.states | {s}, [*a.transitions, *out_s], [s], a.final)

    if isinstance(phi, Disj):
        return disjoint_union(rec(phi.left), rec(phi.right))

    if isinstance(phi, Conj):
        # ψ1 AND ψ2: synchronous product on transitions with the *same* label set.
        a1, a2 = rec(phi.left), rec(phi.right)
        return _product(a1, a2, fresh, lambda t1, t2: [(t1, t2, t1.labels)] if t1.labels == t2.labels else [],
                        initial=itertools.product(a1.initial, a2.initial),
                        final=lambda p: p[0] in a1.final and p[1] in a2.final)

    if isinstance(phi, All):
        return _all(_normalise(rec(phi.left), fresh), _normalise(rec(phi.right), fresh), fresh)

    if isinstance(phi, Unless):
        return _unless(rec(phi.left), rec(phi.right), fresh, det_kwargs)

    if isinstance(phi, Select):
        raise UnsupportedError(f"{phi.strategy.value}(…) is a selection strategy: Theorem 6.2 covers CEL without "
                               f"them; compile it through the Theorem 7.2 automata instead")
    raise TypeError(f"not a CEL formula: {phi!r}")


def _filter(phi: Filter, a: CEA, fresh: Fresh) -> CEA:
    """ψ FILTER P^SO(A): predicates of A-marking transitions are intersected with P (seed 000 §4 sugar: ∧ nests,
    ∨ is OR of copies, NOT negates the first-order predicate)."""
    clauses = filter_literals(phi.condition)
    branches = []
    for k, clause in enumerate(clauses):
        b = a if k == 0 else fresh.copy(a)
        for literal in clause:
            vars_ = literal_variables(literal)
            if len(vars_) == 0:  # a closed literal (TRUE/FALSE): keeps all or nothing
                if not literal.holds({}):
                    b = CEA(b.states, [], b.initial, b.final)
                continue
            if len(vars_) > 1:
                raise NotUnaryError(f"FILTER {phi.condition.text()}: the atom {literal.text()} relates variables "
                                    f"{', '.join(sorted(vars_))}, so the formula is not unary CEL (seed 000, Def. 4.1) "
                                    f"and has no CEA by Theorem 6.2")
            (var,) = vars_
            body = unary_body(literal, var)
            b = CEA(b.states, [tr(t.source, conj(t.predicate, body) if var in t.labels else t.predicate, t.labels,
                                   t.target) for t in b.transitions], b.initial, b.final)
        branches.append(b)
    out = branches[0]
    for b in branches[1:]:
        out = disjoint_union(out, b)
    return out


def _normalise(a: CEA, fresh: Fresh) -> CEA:
    """One initial state with no incoming and one final state with no outgoing transitions (proof of Theorem
    6.2, case ALL; our variant, docs/decisions.md D7): a fresh i* copies the transitions out of I, a fresh f*
    copies those into F, and I→F transitions give i*→f*."""
    i, f = fresh(), fresh()
    extra = [tr(i, t.predicate, t.labels, t.target) for t in out_of(a, a.initial)]
    extra += [tr(t.source, t.predicate, t.labels, f) for t in into(a, a.final)]
    extra += [tr(i, t.predicate, t.labels, f) for t in out_of(a, a.initial) if t.target in a.final]
    return CEA(a.states | {i, f}, [*a.transitions, *extra], [i], [f])


def _product(a1: CEA, a2: CEA, fresh: Fresh, combine, *, initial, final, solo=None) -> CEA:
    """Reachable part of a product of CEAs, states renamed to fresh integers.

    ``combine(t1, t2)`` yields ``(t1, t2, labels)`` for lock-step moves; ``solo(p1, p2)`` yields
    ``(predicate, labels, (q1, q2))`` for moves of one side alone.
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


def _all(a1: CEA, a2: CEA, fresh: Fresh) -> CEA:
    """ψ1 ALL ψ2 on normalised operands: lock-step with L1 ∪ L2, plus either side moving alone while the other
    has not started (at its initial state) or has finished (at its final state).

    [erratum, ours] The paper's product cannot skip a position that *neither* operand reads, yet Fig. 3 lets
    the two intervals leave a gap (only ``min(i1,i2) = i`` and ``max(j1,j2) = j`` are required). This matters
    when the later operand depends on where its interval starts: ``R ALL START(T)`` on ``R X T`` outputs
    ``{0,2}`` at n=2 by the semantics and nothing by the printed construction. The fix: an idle ``TRUE/∅``
    loop in the two gap states (f1, i2) and (i1, f2) (docs/decisions.md, D7).
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

    return _product(a1, a2, fresh, lambda t1, t2: [(t1, t2, t1.labels | t2.labels)],
                    initial=[(i1, i2)], final=lambda p: p == (f1, f2), solo=solo)


def _wrap(e0: CEA, fresh: Fresh) -> CEA:
    """WRAP (docs/errata.md, Theorem 6.2 case UNLESS; docs/decisions.md D8): s skips any prefix, f remembers
    that a ψ2-match was completed."""
    s, f = fresh(), fresh()
    extra = [tr(s, TRUE, (), s), tr(f, TRUE, (), f)]
    extra += [tr(s, t.predicate, (), t.target) for t in out_of(e0, e0.initial)]
    extra += [tr(t.source, t.predicate, (), f) for t in into(e0, e0.final)]
    extra += [tr(s, t.predicate, (), f) for t in out_of(e0, e0.initial) if t.target in e0.final]
    return CEA(e0.states | {s, f}, [*e0.transitions, *extra], [s], e0.final | {f})


def _unless(a1: CEA, a2: CEA, fresh: Fresh, det_kwargs: dict) -> CEA:
    """ψ1 UNLESS ψ2: run A_ψ1 alongside the complete DFA E = IOdet(WRAP(A_{π_∅(ψ2)})) and accept where E
    has *not* seen a ψ2-match in any sub-interval."""
    e0 = CEA(a2.states, [tr(t.source, t.predicate, (), t.target) for t in a2.transitions], a2.initial, a2.final)
    e = io_determinize(_wrap(e0, fresh), **det_kwargs)
    e = fresh.copy(e)
    return _product(a1, e, fresh, lambda t1, t2: [(t1, t2, t1.labels)],
                    initial=itertools.product(a1.initial, e.initial),
                    final=lambda p: p[0] in a1.final and p[1] not in e.final)
