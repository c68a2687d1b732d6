"""The constructions of the ACEL paper §6 (*A formal query language and automata model for aggregation in complex event
recognition*): CEA → ACEA (Thm 6.1) and ACEL → ACEA (Thm 6.2), with the errata fixed (docs/errata.md).

Both need the stream's **schema** ``Σ: T → attributes`` (the ACEL paper §3: every event of type R has exactly the
attributes ``Σ(R)`` and ``type``): the base case copies the event's attributes into fresh registers. The
evaluator derives it from the stream (:func:`schema_of`); a drawing uses :func:`formula_schema`, every attribute the
formula names, for every type.

Every sub-automaton gets fresh register names (a fresh copy of ``type`` too), so no register is shadowed by the
incoming event and the AND product's ``σ1 ∪ σ2`` is defined. Each construction keeps the invariants (I1) ``q0`` has
no incoming transition and (I2) final states have no outgoing one, which ``Agg`` relies on; they are asserted.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cer_theory.automata.cea import CEA
from cer_theory.core.aggregates import NULL, aggregator
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import Attr
from cer_theory.formalisms.acel.acea import (ACEA, BagsEqual, Combine, Const, Emits, Expr, Finish, Lift, Ref, Template,
                                             Transition, TypeIs)
from cer_theory.formalisms.acel.events import ComplexEvent, TimedEvent
from cer_theory.formalisms.acel.ast import (Agg, Conj, As, Atom, AttrProj, Contig, CPlus, Filter, Formula, Multiset, Disj,
                                            Plus, Proj, Seq)
from cer_theory.formalisms.cel.ast import filter_literals

Schema = Mapping[str, frozenset[str]]


def schema_of(stream: Sequence[Event]) -> dict[str, frozenset[str]]:
    """``Σ`` read off a stream: each type's attributes; :class:`UnsupportedError` when two events of one type
    differ (the ACEL paper §3: a stream is over a schema, and the ACEA constructions copy ``Σ(R)`` into registers)."""
    schema: dict[str, frozenset[str]] = {}
    for k, e in enumerate(stream):
        attrs = frozenset(e.attributes)
        if schema.setdefault(e.type, attrs) != attrs:
            raise UnsupportedError(f"the ACEA constructions need a stream over a schema (the ACEL paper §3), but events of "
                                   f"type {e.type} have attributes {sorted(schema[e.type])} and, at position {k}, "
                                   f"{sorted(attrs)}; use --via semantics")
    return schema


def formula_schema(phi: Formula) -> dict[str, frozenset[str]]:
    """A schema for drawing ``phi`` without a stream: every attribute the formula names, for each of its types."""
    names: set[str] = set()
    for node in phi.walk():
        if isinstance(node, Filter) and not isinstance(node.condition, Multiset):
            names |= {a.name for p in node.condition.walk() for a in _attrs(p)}
        elif isinstance(node, Agg):
            names |= {s.attribute for s in node.specs}
        elif isinstance(node, AttrProj):
            names |= set(node.attributes)
    names.discard(TYPE_KEY)
    return {n.name: frozenset(names) for n in phi.walk() if isinstance(n, Atom)}


def _attrs(p) -> list[Attr]:
    out = []
    for side in (getattr(p, "left", None), getattr(p, "right", None)):
        if isinstance(side, Attr):
            out.append(side)
    body = getattr(p, "body", None)
    if body is not None:
        out += [a for q in body.walk() for a in _attrs(q)]
    return out


# ---------------------------------------------------------------------------------------------- building blocks


@dataclass
class _Parts:
    """A mutable automaton under construction."""

    states: set[int]
    transitions: list[Transition]
    initial: int
    final: set[int]


class _Fresh:
    def __init__(self) -> None:
        self.states = itertools.count()
        self.registers = itertools.count(1)

    def state(self) -> int:
        return next(self.states)

    def prefix(self, kind: str) -> str:
        return f"{kind}{next(self.registers)}"


def _replace(t: Transition, **changes) -> Transition:
    return Transition.make(changes.get("source", t.source), changes.get("assign", t.sigma),
                           changes.get("checks", t.checks), changes.get("marks", t.lam), changes.get("target", t.target))


def _check_invariants(a: _Parts, what: str) -> None:
    assert not any(t.target == a.initial for t in a.transitions), f"(I1) fails after {what}"
    assert not any(t.source in a.final for t in a.transitions), f"(I2) fails after {what}"


# ---------------------------------------------------------------------------------------------- Thm 6.2


class _Compiler:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.fresh = _Fresh()

    def __call__(self, phi: Formula) -> _Parts:
        a = self._build(phi)
        _check_invariants(a, type(phi).__name__)
        return a

    def _build(self, phi: Formula) -> _Parts:
        if isinstance(phi, Atom):
            return self._atom(phi.name)
        if isinstance(phi, As):
            # λ'(X) = ⊎_Z λ(Z), λ(X) included: the literal (bag) AS of Fig. 1.
            a = self(phi.body)
            a.transitions = [_replace(t, marks={**t.lam, phi.var: [tau for _, ts in t.marks for tau in ts]})
                             if t.marks else t for t in a.transitions]
            return a
        if isinstance(phi, Filter):
            return self._filter(phi)
        if isinstance(phi, Proj):
            a = self(phi.body)
            keep = set(phi.variables)
            a.transitions = [_replace(t, marks={x: ts for x, ts in t.marks if x in keep}) for t in a.transitions]
            return a
        if isinstance(phi, AttrProj):
            a = self(phi.body)
            a.transitions = [_replace(t, marks={**t.lam, phi.var: [tau.restrict(phi.attributes)
                                                                   for tau in t.lam[phi.var]]})
                             if phi.var in t.lam else t for t in a.transitions]
            return a
        if isinstance(phi, Disj):
            return self._or(self(phi.left), self(phi.right))
        if isinstance(phi, Conj):
            return self._and(self(phi.left), self(phi.right))
        if isinstance(phi, (Seq, Contig)):
            return self._sequence(self(phi.left), self(phi.right), gap=isinstance(phi, Seq))
        if isinstance(phi, (Plus, CPlus)):
            return self._iterate(self(phi.body), gap=isinstance(phi, Plus))
        if isinstance(phi, Agg):
            return self._agg(phi, self(phi.body))
        raise TypeError(f"not an ACEL formula: {phi!r}")

    def _atom(self, name: str) -> _Parts:
        """R: fresh registers copy ``type`` and ``Σ(R)``; the predicate checks the copied type; ``λ(R)`` emits the
        copy (Thm 6.2, base case)."""
        p = self.fresh.prefix("r")
        attrs = sorted(self.schema.get(name, frozenset()) | {TYPE_KEY})
        sigma = {f"{p}.{a}": Ref(a) for a in attrs}
        tau = Template.of({a: f"{p}.{a}" for a in attrs})
        q0, qf = self.fresh.state(), self.fresh.state()
        return _Parts({q0, qf}, [Transition.make(q0, sigma, [TypeIs(f"{p}.{TYPE_KEY}", name)], {name: [tau]}, qf)],
                      q0, {qf})

    def _filter(self, phi: Filter) -> _Parts:
        """φ FILTER X[P]: on every transition marking X, ``P`` must hold of each emitted X-event. A condition with
        ∧/∨ is the §3 sugar (∧ nests, ∨ unions); multiset predicates (App. D) are outside Thm 6.2."""
        if isinstance(phi.condition, Multiset):
            raise UnsupportedError(f"the multiset predicate {phi.condition.text()} (the ACEL paper App. D) is not covered "
                                   f"by Thm 6.2's construction; evaluate with --via semantics")
        clauses = filter_literals(phi.condition)
        parts = []
        for clause in clauses:
            a = self(phi.body)
            for lit in clause:
                (var,) = {s for s in lit.slots() if s is not None}
                a.transitions = [_replace(t, checks=t.checks + tuple(Emits(lit, tau, var) for tau in t.lam[var]))
                                 if var in t.lam else t for t in a.transitions]
            parts.append(a)
        result = parts[0]
        for a in parts[1:]:
            result = self._or(result, a)
        return result

    def _or(self, a1: _Parts, a2: _Parts) -> _Parts:
        """A new initial state with copies of both initial states' transitions; ``F = F1 ∪ F2``."""
        q0 = self.fresh.state()
        copies = [_replace(t, source=q0) for a in (a1, a2) for t in a.transitions if t.source == a.initial]
        return _Parts(a1.states | a2.states | {q0}, a1.transitions + a2.transitions + copies, q0, a1.final | a2.final)

    def _and(self, a1: _Parts, a2: _Parts) -> _Parts:
        """The product: transitions with the same multiset of template domains per variable, ``σ1 ∪ σ2``,
        ``P1 ∧ P2 ∧ EQ`` with EQ the equality of the emitted bags, ``λ1``; ``F = F1 × F2``."""
        ids: dict[tuple[int, int], int] = {}

        def state(pair: tuple[int, int]) -> int:
            if pair not in ids:
                ids[pair] = self.fresh.state()
            return ids[pair]

        out1: dict[int, list[Transition]] = {}
        out2: dict[int, list[Transition]] = {}
        for t in a1.transitions:
            out1.setdefault(t.source, []).append(t)
        for t in a2.transitions:
            out2.setdefault(t.source, []).append(t)
        start = (a1.initial, a2.initial)
        todo, seen, transitions = [start], {start}, []
        while todo:
            p1, p2 = todo.pop()
            for t1 in out1.get(p1, []):
                for t2 in out2.get(p2, []):
                    lam1, lam2 = t1.lam, t2.lam
                    if set(lam1) != set(lam2) or any(
                            sorted(sorted(t.attributes) for t in lam1[x]) != sorted(sorted(t.attributes)
                                                                                    for t in lam2[x])
                            for x in lam1):
                        continue
                    eq = [BagsEqual(lam1[x], lam2[x]) for x in sorted(lam1)]
                    target = (t1.target, t2.target)
                    transitions.append(Transition.make(state((p1, p2)), {**t1.sigma, **t2.sigma},
                                                       t1.checks + t2.checks + tuple(eq), lam1, state(target)))
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
        finals = {state(p) for p in seen if p[0] in a1.final and p[1] in a2.final}
        return _Parts({state(p) for p in seen}, transitions, state(start), finals)

    def _sequence(self, a1: _Parts, a2: _Parts, *, gap: bool) -> _Parts:
        """ψ1 ; ψ2 and ψ1 : ψ2: transitions entering ``F1`` are redirected to ``q02``; ``;`` adds an idle loop on
        ``q02`` (empty assignment, TRUE, no output)."""
        redirected = [_replace(t, target=a2.initial) for t in a1.transitions if t.target in a1.final]
        idle = [Transition.make(a2.initial, {}, (), {}, a2.initial)] if gap else []
        return _Parts(a1.states | a2.states, a1.transitions + a2.transitions + redirected + idle, a1.initial,
                      set(a2.final))

    def _iterate(self, a: _Parts, *, gap: bool) -> _Parts:
        """ψ+ and ψ⊕: a fresh ``qn`` gets copies of ``q0``'s transitions; every transition entering ``F`` — the
        ``qn`` copies included (the paper's erratum: redirecting only ``Δ`` allows at most two iterations of a
        one-step body) — is also redirected to ``qn``; ``+`` adds an idle loop on ``qn``."""
        qn = self.fresh.state()
        delta_a = a.transitions + [_replace(t, source=qn) for t in a.transitions if t.source == a.initial]
        redirected = [_replace(t, target=qn) for t in delta_a if t.target in a.final]
        idle = [Transition.make(qn, {}, (), {}, qn)] if gap else []
        return _Parts(a.states | {qn}, delta_a + redirected + idle, a.initial, set(a.final))

    def _agg(self, phi: Agg, a: _Parts) -> _Parts:
        """Agg_{Y[b_i ← ⊗_i X_i(a_i)]}(ψ): a fresh register ``c_i`` per aggregate accumulates, on every transition,
        ``base ⊗ f'(v)`` for each value ``v`` emitted into ``X_i`` on that step, where ``v`` is the *expression* the
        step assigns to the register feeding ``a_i`` (``NULL`` when the template lacks ``a_i``) and ``base`` is the
        identity on transitions leaving ``q0`` (the paper's init erratum: not ``c ← c``) and ``c_i`` elsewhere;
        transitions entering ``F`` append one template ``[b_i ↦ g_i(c_i)]`` to ``λ(Y)`` (a bag append; the one-step
        run ``q0 → F`` is covered, which ``Agg(R)`` needs)."""
        prefix = self.fresh.prefix("c")
        regs = [f"{prefix}.{s.output}" for s in phi.specs]
        out = []
        for t in a.transitions:
            sigma = t.sigma
            assign = dict(sigma)
            for spec, reg in zip(phi.specs, regs):
                f = aggregator(spec.function)
                acc: Expr = Const(f.identity) if t.source == a.initial else Ref(reg)
                for tau in t.lam.get(spec.var, ()):
                    field = tau.register(spec.attribute)
                    value: Expr = Const(NULL) if field is None else sigma[field[0]]
                    if field is not None and field[1] is not None:
                        value = Finish(field[1], value)
                    acc = Combine(spec.function, acc, Lift(spec.function, value))
                assign[reg] = acc
            marks = t.lam
            if t.target in a.final:
                created = Template(tuple(sorted((s.output, r, s.function) for s, r in zip(phi.specs, regs))))
                marks = {**marks, phi.target: list(marks.get(phi.target, ())) + [created]}
            out.append(_replace(t, assign=assign, marks=marks))
        a.transitions = out
        return a


def compile_automaton(phi: Formula, schema: Schema | None = None) -> ACEA:
    """``A_φ`` of Thm 6.2 with ``⟦φ⟧(S) = ⟦A_φ⟧(S)`` for every stream over ``schema`` (default: the formula's own
    attributes, :func:`formula_schema`; the evaluator passes the stream's). Multiset predicates are refused."""
    parts = _Compiler(formula_schema(phi) if schema is None else schema)(phi)
    return _finish(parts, str(phi))


def _finish(parts: _Parts, name: str) -> ACEA:
    """Only the states reachable from ``q0`` and co-reachable to ``F`` (the others carry no accepting run; ``q0`` is
    kept), renumbered in breadth-first order."""
    alive = set(parts.final)
    changed = True
    while changed:
        changed = False
        for t in parts.transitions:
            if t.target in alive and t.source not in alive:
                alive.add(t.source)
                changed = True
    alive.add(parts.initial)
    out: dict[int, list[Transition]] = {}
    for t in parts.transitions:
        if t.source in alive and t.target in alive:
            out.setdefault(t.source, []).append(t)
    order, seen = [parts.initial], {parts.initial}
    for q in order:
        for t in out.get(q, []):
            if t.target not in seen:
                seen.add(t.target)
                order.append(t.target)
    number = {q: k for k, q in enumerate(order)}
    transitions = tuple(dict.fromkeys(_replace(t, source=number[t.source], target=number[t.target])
                                      for t in parts.transitions if t.source in seen and t.target in seen))
    return ACEA(frozenset(number.values()), transitions, 0, frozenset(number[q] for q in parts.final if q in seen),
                name=name)


def compile_for_stream(phi: Formula, stream: Sequence[Event]) -> ACEA:
    """``A_φ`` of Thm 6.2 for the schema of ``stream`` (the registers copy every attribute its events carry), the
    automaton ``draw --stream`` exports and the ``acea`` evaluator runs."""
    return compile_automaton(phi, schema_of(stream))


def run_acea(phi: Formula, stream: Sequence[Event], bind: str = "bag") -> list:
    """The ``acea`` evaluator: compile with the stream's schema (Thm 6.2), run from every position."""
    if bind != "bag":
        raise UnsupportedError("the ACEA of Thm 6.2 implements the literal (bag) AS of Fig. 1; --bind set needs "
                               "--via semantics (docs/decisions.md D67)")
    return compile_for_stream(phi, stream).run(stream)


# ---------------------------------------------------------------------------------------------- Thm 6.1


def cea_to_acea(cea: CEA, schema: Schema) -> ACEA:
    """Thm 6.1: for each CEA transition ``(p, P, L, q)`` and type ``A``, the ACEA transition copies the event into
    registers (``e.type ← type``, ``e.a ← a`` for ``a ∈ Σ(A)``), checks ``e.type = A`` and ``P`` **renamed onto the
    registers** (the paper checks ``P`` on the registers as they are, which reads the wrong names: erratum), and
    emits the copy into every variable of ``L``. The ACEL paper's CEA have one initial state and start at any position
    (P11 of the errata); a CEA with several initial states gets a fresh one with copies of their transitions."""
    states = {q: k for k, q in enumerate(sorted(cea.states, key=repr))}
    q0 = len(states)
    transitions = []
    for t in cea.transitions:
        for typ in sorted(schema):
            attrs = sorted(schema[typ] | {TYPE_KEY})
            sigma: dict[str, Expr] = {f"e.{a}": Ref(a) for a in attrs}
            tau = Template.of({a: f"e.{a}" for a in attrs})
            checks = [TypeIs(f"e.{TYPE_KEY}", typ), Emits(t.predicate, tau)]
            marks = {x: [tau] for x in t.labels}
            sources = [states[t.source]] + ([q0] if t.source in cea.initial else [])
            for s in sources:
                transitions.append(Transition.make(s, sigma, checks, marks, states[t.target]))
    return ACEA(frozenset(states.values()) | {q0}, tuple(transitions), q0,
                frozenset(states[q] for q in cea.final), name=cea.name or "Thm 6.1")


def cea_complex_events(cea: CEA, stream: Sequence[Event]) -> frozenset:
    """The CEA's own runs read as the ACEL paper reads them: started at every position ``i`` (the toolkit's CEA run from
    position 0, so it runs on each suffix), each run's valuation giving the events at its marked positions."""
    from_positions = []
    events = list(stream)
    for i in range(len(events)):
        for n, valuations in enumerate(cea.run(events[i:])):
            for m in valuations:
                from_positions.append((i, i + n, {x: [i + p for p in m[x]] for x in m}))
    return frozenset(ComplexEvent.make(i, j, {x: [TimedEvent.of(events[p], p) for p in ps] for x, ps in mu.items()})
                     for i, j, mu in from_positions)


__all__ = ["Schema", "cea_complex_events", "cea_to_acea", "compile_automaton", "formula_schema", "run_acea", "schema_of"]
