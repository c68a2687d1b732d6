"""Unary CEL → CEA: the CEL paper, Theorem 6.2, case by case, with the errata in docs/errata.md (D7, D8).

For every unary formula φ the compiled automaton satisfies ``⟦φ⟧ᵛ(S,i,j) = ⟦A_φ⟧ᵛ(S,i,j)``. Sub-automata
always get disjoint fresh states (integers from one counter). Fixes applied:

* ``⊕``: the self-loop set ``{(c,P,L,c) | (i,P,L,f) ∈ Δ, i ∈ I, f ∈ F, L ≠ ∅}`` missing in the paper;
* ``UNLESS``: E is built from ``WRAP(A_{π_∅(ψ2)})`` so that it detects a ψ2-match in *every* sub-interval.

Selection strategies are compiled through Theorem 7.2 (``constructions.selection``), not here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from cer_theory.automata.building import all_product, normalise, reachable_product, unless_product
from cer_theory.automata.cea import CEA
from cer_theory.core.errors import NotUnaryError, UnsupportedError
from cer_theory.core.predicates.ast import TRUE, conj, is_type, unary_body
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq,
                              Start, Unless, filter_literals, literal_variables)
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
        return reachable_product(a1, a2, fresh,
                                 lambda t1, t2: [(t1, t2, t1.labels)] if t1.labels == t2.labels else [],
                                 initial=itertools.product(a1.initial, a2.initial),
                                 final=lambda p: p[0] in a1.final and p[1] in a2.final)

    if isinstance(phi, All):
        return all_product(normalise(rec(phi.left), fresh), normalise(rec(phi.right), fresh), fresh)

    if isinstance(phi, Unless):
        return unless_product(rec(phi.left), rec(phi.right), fresh, det_kwargs)

    if isinstance(phi, Select):
        raise UnsupportedError(f"{phi.strategy.value}(…) is a selection strategy: Theorem 6.2 covers CEL without "
                               f"them; compile it through the Theorem 7.2 automata instead")
    raise TypeError(f"not a CEL formula: {phi!r}")


def _filter(phi: Filter, a: CEA, fresh: Fresh) -> CEA:
    """ψ FILTER P^SO(A): predicates of A-marking transitions are intersected with P (the CEL paper §4 sugar: ∧ nests,
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
                                    f"{', '.join(sorted(vars_))}, so the formula is not unary CEL (the CEL paper, Def. 4.1) "
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
