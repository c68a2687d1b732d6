"""SO-CEL(+) → UCEA: the SO-CEL paper, Prop 5.2 (and the ⇐ direction of Thm 6.2), with its *-semantics variant for
Thm 5.3. Linear size, no preprocessing (the SO-CEL paper §5.1).

:func:`compile_automaton` builds ``A_φ`` with ``⟦φ⟧_n(S) = ⟦A_φ⟧_n(S)`` for every ``φ ∈ SO-CEL+(U^SO)`` (unary
filters), plus ``AND``, ``ALL`` and ``UNLESS`` (the automata of Cor 5.6; the products are the CEL paper's, shared
with the CEL compiler in ``automata.building``) and ``STRICT`` (rewritten by Prop 6.4). :func:`compile_star_automaton` drops the TRUE self-loop of the atoms
and gives ``⟦φ⟧_n(S) = ⟦A*_φ⟧*_n(S)`` for core SO-CEL (Thm 5.3): under the *-semantics skipping is free.

Erratum (docs/errata.md, E-SO1): the paper's ``⊕`` construction redirects only the transitions of Δ into the
gluing state, so an iteration that starts *from* the gluing state can never end in it again and a one-step body
iterates at most twice. Here the redirection is applied to the transitions leaving the gluing state too.
"""

from __future__ import annotations

from dataclasses import fields

from cer_theory.automata.building import Fresh, all_product, disjoint_union, normalise, tr, unless_product
from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.errors import NotUnaryError, UnsupportedError
from cer_theory.core.predicates.ast import TRUE, IsType, Predicate, conj, unary_body
from cer_theory.formalisms.socel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Order, Plus,
                                             Proj, Rename, Seq, Start, Strict, Unless, condition_labels, conjuncts)
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.ucea import UCEA


def compile_automaton(phi: Formula) -> UCEA:
    """Prop 5.2: a UCEA with ``⟦φ⟧_n(S) = ⟦A⟧_n(S)`` for all S, n (unary SO-CEL+ with STRICT, AND, ALL,
    UNLESS). Raises :class:`NotUnaryError` for a filter a UCEA cannot check and :class:`UnsupportedError` for
    STRICT over π or ALL."""
    return UCEA.of(_Compiler(star=False).build(phi), name=format(phi))


def compile_star_automaton(phi: Formula) -> UCEA:
    """Thm 5.3 (⇒): the construction without the atoms' TRUE loop, read under the *-semantics:
    ``⟦φ⟧_n(S) = ⟦A⟧*_n(S)`` for core SO-CEL with unary filters."""
    bad = [n for n in phi.walk() if not isinstance(n, (Atom, In, Rename, Filter, Disj, Seq, Plus))]
    if bad:
        raise UnsupportedError(f"the *-semantics construction (Thm 5.3) is for core SO-CEL; "
                               f"{bad[0].operator} is not a core operator")
    return UCEA.of(_Compiler(star=True).build(phi), name=format(phi))


class _Compiler:
    def __init__(self, *, star: bool) -> None:
        self.star = star
        self.fresh = Fresh()

    def build(self, phi: Formula) -> CEA:
        if isinstance(phi, Atom):
            return self.atom(phi.name)
        if isinstance(phi, In):
            # ψ IN A: A joins every marking label set.
            return _map_labels(self.build(phi.body), lambda L: L | {phi.label} if L else L)
        if isinstance(phi, Rename):
            # ψ[A → B]: L ↦ (L ∖ {A}) ∪ {B} when A ∈ L.
            a, b = phi.source, phi.target
            return _map_labels(self.build(phi.body), lambda L: (L - {a}) | {b} if a in L else L)
        if isinstance(phi, Filter):
            return self.filter(self.build(phi.body), phi)
        if isinstance(phi, Proj):
            # π_L(ψ): L' = L_t ∩ L.
            keep = frozenset(phi.labels)
            return _map_labels(self.build(phi.body), lambda L: L & keep)
        if isinstance(phi, Disj):
            # OR: disjoint union.
            return disjoint_union(self.build(phi.left), self.build(phi.right))
        if isinstance(phi, Seq):
            return self.seq(self.build(phi.left), self.build(phi.right))
        if isinstance(phi, Contig):
            return self.contig(self.build(phi.left), self.build(phi.right))
        if isinstance(phi, Plus):
            return self.plus(self.build(phi.body))
        if isinstance(phi, CPlus):
            return self.cplus(self.build(phi.body))
        if isinstance(phi, Start):
            return self.start(self.build(phi.body))
        if isinstance(phi, Conj):
            return self.conj(self.build(phi.left), self.build(phi.right))
        if isinstance(phi, Strict):
            # Prop 6.4: STRICT is rewritten into ':' and '⊕' first.
            return self.build(strict_to_contiguity(phi))
        if isinstance(phi, All):
            # Cor 5.6: ALL is UCEA-definable: a product of the normalised operands with a "done" side.
            return all_product(normalise(self.build(phi.left), self.fresh),
                               normalise(self.build(phi.right), self.fresh), self.fresh)
        if isinstance(phi, Unless):
            # Cor 5.6: UNLESS is UCEA-definable: ψ1 beside a deterministic detector of a ψ2-match in [i..j].
            return unless_product(self.build(phi.left), self.build(phi.right), self.fresh)
        raise TypeError(f"not an SO-CEL formula: {phi!r}")

    def atom(self, relation: str) -> CEA:
        """R: ``q0 --TRUE/∅--> q0`` (dropped for the *-variant), ``q0 --type=R/{R}--> q1``; I={q0}, F={q1}."""
        q0, q1 = self.fresh(), self.fresh()
        ts = [tr(q0, IsType(relation), {relation}, q1)]
        if not self.star:
            ts.insert(0, tr(q0, TRUE, (), q0))
        return CEA({q0, q1}, ts, {q0}, {q1})

    @staticmethod
    def filter(a: CEA, phi: Filter) -> CEA:
        """ψ FILTER P(A), P unary and universal: ``P_t ∧ P`` on the transitions with ``A ∈ L`` (the positions
        labelled A are exactly those read by such transitions)."""
        guards: list[tuple[str, Predicate]] = []
        for part in conjuncts(phi.condition):
            labels = condition_labels(part)
            if isinstance(part, Predicate) and not labels:
                # A condition on no label (TRUE, FALSE): its universal extension is the condition itself.
                if part.holds({}):
                    continue
                return CEA(a.states, a.transitions, a.initial, ())
            if isinstance(part, Order) or len(labels) != 1:
                raise NotUnaryError(f"FILTER {part.text()} is not the universal extension of a unary predicate; "
                                    f"a UCEA over unary predicates cannot check it (the SO-CEL paper Prop 5.2)")
            (label,) = labels
            guards.append((label, unary_body(part, label)))
        ts = []
        for t in a.transitions:
            extra = [p for label, p in guards if label in t.labels]
            ts.append(tr(t.source, conj(t.predicate, *extra), t.labels, t.target) if extra else t)
        return CEA(a.states, ts, a.initial, a.final)

    @staticmethod
    def seq(a1: CEA, a2: CEA) -> CEA:
        """ψ1 ; ψ2: ``Δ1 ∪ Δ2 ∪ {(p,P,L,q) | (p,P,L,f) ∈ Δ1, f ∈ F1, q ∈ I2}``; I = I1, F = F2."""
        bridge = [tr(t.source, t.predicate, t.labels, q) for t in a1.transitions if t.target in a1.final
                  for q in sorted(a2.initial, key=repr)]
        return CEA(a1.states | a2.states, [*a1.transitions, *a2.transitions, *bridge], a1.initial, a2.final)

    def contig(self, a1: CEA, a2: CEA) -> CEA:
        """ψ1 : ψ2: a gluing state ``q_d`` entered by the *marking* transitions of Δ1 into F1 and left by the
        marking transitions of Δ2 out of I2, so ψ1's last event and ψ2's first are adjacent and both marked."""
        qd = self.fresh()
        into = [tr(t.source, t.predicate, t.labels, qd) for t in a1.transitions
                if t.target in a1.final and t.labels]
        out = [tr(qd, t.predicate, t.labels, t.target) for t in a2.transitions if t.source in a2.initial and t.labels]
        return CEA(a1.states | a2.states | {qd}, [*a1.transitions, *a2.transitions, *into, *out], a1.initial,
                   a2.final)

    @staticmethod
    def plus(a: CEA) -> CEA:
        """ψ+: ``Δ ∪ {(p,P,L,q) | (p,P,L,f) ∈ Δ, f ∈ F, q ∈ I}``."""
        back = [tr(t.source, t.predicate, t.labels, q) for t in a.transitions if t.target in a.final
                for q in sorted(a.initial, key=repr)]
        return CEA(a.states, [*a.transitions, *back], a.initial, a.final)

    def cplus(self, a: CEA) -> CEA:
        """ψ⊕ with the fix of docs/errata.md E-SO1: ``Δa = Δ ∪ {(q_d,P,L,q) | (i,P,L,q) ∈ Δ, i ∈ I, L ≠ ∅}``, then
        ``Δ' = Δa ∪ {(p,P,L,q_d) | (p,P,L,f) ∈ Δa, f ∈ F, L ≠ ∅}``: iterations leaving q_d can re-enter it."""
        qd = self.fresh()
        delta_a = [*a.transitions,
                   *(tr(qd, t.predicate, t.labels, t.target) for t in a.transitions
                     if t.source in a.initial and t.labels)]
        back = [tr(t.source, t.predicate, t.labels, qd) for t in delta_a if t.target in a.final and t.labels]
        return CEA(a.states | {qd}, [*delta_a, *back], a.initial, a.final)

    def start(self, a: CEA) -> CEA:
        """START(ψ): a new initial ``q_s`` left only by the marking transitions out of I (the first tuple read
        is marked, so ``min(C) = i``)."""
        qs = self.fresh()
        out = [tr(qs, t.predicate, t.labels, t.target) for t in a.transitions if t.source in a.initial and t.labels]
        return CEA(a.states | {qs}, [*a.transitions, *out], {qs}, a.final)

    def conj(self, a1: CEA, a2: CEA) -> CEA:
        """ψ1 AND ψ2 (Cor 5.6): the product, moving together on equal label sets with ``P1 ∧ P2``."""
        ts: list[Transition] = []
        for t1 in a1.transitions:
            for t2 in a2.transitions:
                if t1.labels == t2.labels:
                    ts.append(tr((t1.source, t2.source), conj(t1.predicate, t2.predicate), t1.labels,
                                 (t1.target, t2.target)))
        states = {(p, q) for p in a1.states for q in a2.states}
        initial = {(p, q) for p in a1.initial for q in a2.initial}
        final = {(p, q) for p in a1.final for q in a2.final}
        return self.fresh.copy(CEA(states, ts, initial, final).trim())  # fresh states: disjoint from the rest


def strict_to_contiguity(phi: Formula) -> Formula:
    """Prop 6.4 (SO-CEL ∪ {STRICT} ⊆ SO-CEL ∪ {:, ⊕}), bottom-up: ``STRICT(R) = R``; STRICT commutes with IN,
    renaming, FILTER, OR, AND, START, UNLESS (left) and STRICT; ``STRICT(ψ1;ψ2) = STRICT(ψ1):STRICT(ψ2)`` and
    ``STRICT(ψ+) = STRICT(ψ)⊕`` (likewise for ':' and '⊕'). π and ALL under STRICT can output complex events
    whose parts are not adjacent in the way ':' requires, and are refused."""
    if not isinstance(phi, Strict):
        if not phi.children():
            return phi
        return _rebuild(phi, [strict_to_contiguity(c) for c in phi.children()])
    return _strict(strict_to_contiguity(phi.body))


def _strict(phi: Formula) -> Formula:
    if isinstance(phi, Atom):
        return phi
    if isinstance(phi, (In, Rename, Filter, Start, Strict)):
        return _rebuild(phi, [_strict(phi.body)]) if not isinstance(phi, Strict) else _strict(phi.body)
    if isinstance(phi, (Disj, Conj)):
        return _rebuild(phi, [_strict(phi.left), _strict(phi.right)])
    if isinstance(phi, Unless):
        return Unless(_strict(phi.left), phi.right)
    if isinstance(phi, (Seq, Contig)):
        return Contig(_strict(phi.left), _strict(phi.right))
    if isinstance(phi, (Plus, CPlus)):
        return CPlus(_strict(phi.body))
    raise UnsupportedError(f"STRICT over {phi.operator} is not rewritten by Prop 6.4 (π and ALL may output "
                           f"complex events whose gaps ':' cannot express); not compiled")


def _rebuild(phi: Formula, children: list[Formula]) -> Formula:
    """``phi`` with its formula children replaced, in field order."""
    kids = iter(children)
    values = [next(kids) if isinstance(getattr(phi, f.name), Formula) else getattr(phi, f.name) for f in fields(phi)]
    return type(phi)(*values)


def _map_labels(a: CEA, f) -> CEA:
    return CEA(a.states, [tr(t.source, t.predicate, f(t.labels), t.target) for t in a.transitions], a.initial,
               a.final)


__all__ = ["compile_automaton", "compile_star_automaton", "strict_to_contiguity"]
