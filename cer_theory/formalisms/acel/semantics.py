"""Reference semantics of ACEL: the event-based bag semantics of the ACEL paper (*A formal query language and automata
model for aggregation in complex event recognition*), Fig. 1 (§3) and the aggregation operator of §5.

Brute force by design, one rule per operator, computed bottom-up over the whole stream: ``⟦φ⟧(S)`` is a **set** of
complex events ``(start, end, μ)`` whose variables hold **bags** of events (§5, design rationale 1 and 2). Two
readings of ``AS`` (docs/decisions.md D67): ``bind="bag"`` is Fig. 1 literally, ``C(X) = ⊎_Y C'(Y)``, which counts an
event once per variable it is already bound to (``(R AS X) AS X`` gives ``X = {{e, e}}``); ``bind="set"`` keeps each
event once (the bag's support), and so does ``Agg`` when it adds its event to ``Y``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cer_theory.core.aggregates import aggregator
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.budget import charge
from cer_theory.core.events import Event
from cer_theory.core.intervals import SEMANTICS
from cer_theory.core.predicates.ast import Predicate
from cer_theory.formalisms.acel.ast import (Agg, Conj, As, Atom, AttrProj, Contig, CPlus, Filter, Formula, Multiset,
                                            Disj, Plus, Proj, Seq)
from cer_theory.formalisms.acel.events import Bag, ComplexEvent, TimedEvent, by_end, timed_stream
from cer_theory.formalisms.cel.ast import filter_literals, literal_variables

BIND_MODES = ("bag", "set")
ComplexEvents = frozenset[ComplexEvent]


def check_bind(bind: str) -> str:
    if bind not in BIND_MODES:
        raise UnsupportedError(f"unknown bind mode {bind!r}; choose bag (Fig. 1 literally) or set")
    return bind


def literal_holds(literal: Predicate, c: ComplexEvent) -> bool:
    """``C(X) ⊨ P`` for a unary literal on X: every event of the bag satisfies it, vacuously on the empty bag
    (the ACEL paper §3, "predicates")."""
    (var,) = literal_variables(literal)
    return all(literal.holds({var: e}) for e in c[var])  # type: ignore[dict-item]


def multiset_holds(pred: Multiset, events: Bag) -> bool:
    """App. D's multiset predicates on a whole bag: ``[a]`` all values of ``a`` equal; ``increasing(a)``
    (``decreasing(a)``): ``Succ_E(e1, e2) → e1(a) < e2(a)`` (``>``), where ``Succ_E`` relates events of consecutive
    distinct times of the bag, so events of equal time are not compared with each other. A missing or ``NULL``
    value, or values of different kinds, make the comparison false."""
    values = [(e.time, e.get(pred.attribute)) for e in events]
    if pred.kind == "equal":
        return all(v is not None for _, v in values) and len({repr(v) for _, v in values}) <= 1
    times = sorted({t for t, _ in values})
    by_time = {t: [v for u, v in values if u == t] for t in times}
    for t1, t2 in zip(times, times[1:]):
        for v1 in by_time[t1]:
            for v2 in by_time[t2]:
                if not _ordered(v1, v2, pred.kind == "increasing"):
                    return False
    return True


def _ordered(v1: Any, v2: Any, increasing: bool) -> bool:
    if v1 is None or v2 is None or isinstance(v1, bool) != isinstance(v2, bool):
        return False
    try:
        return v1 < v2 if increasing else v1 > v2
    except TypeError:
        return False


class AcelSemantics:
    """``⟦φ⟧(S)`` for one stream, memoised per subformula; ``bind`` is ``"bag"`` or ``"set"`` (D67)."""

    def __init__(self, stream: Sequence[Event], bind: str = "bag") -> None:
        self.events = timed_stream(stream)
        self.bind = check_bind(bind)
        self._memo: dict[Formula, ComplexEvents] = {}

    def __call__(self, phi: Formula) -> ComplexEvents:
        out = self._memo.get(phi)
        if out is None:
            out = self._memo[phi] = self._rule(phi)
            charge(SEMANTICS, 1 + len(out))  # a work budget binds the brute force too (core.budget)
        return out

    def _merge(self, *bags: Bag) -> list[TimedEvent]:
        """Bag union ``⊎``, or in set mode the union of supports."""
        merged = [e for b in bags for e in b]
        return list(dict.fromkeys(merged)) if self.bind == "set" else merged

    def _rule(self, phi: Formula) -> ComplexEvents:
        if isinstance(phi, Atom):
            # R (Fig. 1, with the typo fixed: the paper writes ∀Y≠X): (i, i, R ↦ {{e_i}}) for e_i(type) = R.
            return frozenset(ComplexEvent(e.time, e.time, ((phi.name, (e,)),))
                             for e in self.events if e.type == phi.name)
        if isinstance(phi, As):
            # φ AS X (Fig. 1): C(X) = ⊎_{Y ∈ 𝒳} C'(Y), C'(X) and the type variables included; the rest unchanged.
            return frozenset(ComplexEvent.make(c.start, c.end, {**c.mu, phi.var: self._merge(*c.mu.values())})
                             for c in self(phi.body))
        if isinstance(phi, Filter):
            return self._filter(phi)
        if isinstance(phi, Proj):
            # π_L(φ) (Fig. 1): variables outside L emptied, the interval kept.
            return frozenset(c.project(phi.variables) for c in self(phi.body))
        if isinstance(phi, AttrProj):
            # π_{X(a1..ak)}(φ) (§3): every event of C(X) keeps only a1..ak (and its time); multiplicities kept.
            return frozenset(ComplexEvent.make(c.start, c.end, {**c.mu, phi.var: [e.project(phi.attributes)
                                                                                  for e in c[phi.var]]})
                             for c in self(phi.body))
        if isinstance(phi, Disj):
            return self(phi.left) | self(phi.right)
        if isinstance(phi, Conj):
            # AND (Fig. 1): intersection; equal interval and equal bags for every variable.
            return self(phi.left) & self(phi.right)
        if isinstance(phi, Seq):
            # φ1 ; φ2 (Fig. 1): C1 ⊎ C2 with end(C1) < start(C2).
            return self._sequence(self(phi.left), self(phi.right), contiguous=False)
        if isinstance(phi, Contig):
            # φ1 : φ2 (Fig. 1): C1 ⊎ C2 with end(C1) + 1 = start(C2).
            return self._sequence(self(phi.left), self(phi.right), contiguous=True)
        if isinstance(phi, (Plus, CPlus)):
            return self._iterate(self(phi.body), contiguous=isinstance(phi, CPlus))
        if isinstance(phi, Agg):
            return self._aggregate(phi)
        raise TypeError(f"not an ACEL formula: {phi!r}")

    def _filter(self, phi: Filter) -> ComplexEvents:
        """φ FILTER X[P] (Fig. 1): ``C(X) ⊨ P``, universal. A condition with ∧/∨ is the §3 sugar: ∧ nests
        filters, ∨ unions them; a multiset predicate (App. D) is tested on the whole bag."""
        body = self(phi.body)
        if isinstance(phi.condition, Multiset):
            return frozenset(c for c in body if multiset_holds(phi.condition, c[phi.condition.var]))
        clauses = filter_literals(phi.condition)
        return frozenset(c for c in body if any(all(literal_holds(lit, c) for lit in clause) for clause in clauses))

    @staticmethod
    def _sequence(lefts: ComplexEvents, rights: ComplexEvents, *, contiguous: bool) -> ComplexEvents:
        by_start: dict[int, list[ComplexEvent]] = {}
        for c in rights:
            by_start.setdefault(c.start, []).append(c)
        out: set[ComplexEvent] = set()
        for c1 in lefts:
            starts = [c1.end + 1] if contiguous else [s for s in by_start if s > c1.end]
            for s in starts:
                joined = by_start.get(s, ())
                charge(SEMANTICS, len(joined))  # each pair the sequence joins (core.budget), before it is built
                out.update(c1.union(c2) for c2 in joined)
        return frozenset(out)

    @staticmethod
    def _iterate(body: ComplexEvents, *, contiguous: bool) -> ComplexEvents:
        """φ+ = ⟦φ⟧ ∪ ⟦φ ; φ+⟧ and φ⊕ = ⟦φ⟧ ∪ ⟦φ : φ⊕⟧ (Fig. 1), least fixpoints: computed by start position, latest
        first, since an iteration starting at s continues with one starting after the first part's end."""
        by_start: dict[int, list[ComplexEvent]] = {}
        for c in body:
            by_start.setdefault(c.start, []).append(c)
        result: dict[int, set[ComplexEvent]] = {}
        for s in sorted(by_start, reverse=True):
            acc = set(by_start[s])
            for c1 in by_start[s]:
                nexts = [c1.end + 1] if contiguous else [t for t in result if t > c1.end]
                for t in nexts:
                    joined = result.get(t, ())
                    charge(SEMANTICS, len(joined))  # each iteration the fixpoint joins (core.budget)
                    acc.update(c1.union(c2) for c2 in joined)
            result[s] = acc
        return frozenset(c for cs in result.values() for c in cs)

    def _aggregate(self, phi: Agg) -> ComplexEvents:
        """Agg_{Y[b1 ← ⊗1 X1(a1), …]}(φ) (§5): one new event ``[b1 ↦ v1, …]`` with **no type** and time ``end(C')``,
        ``vi = ⊗i_{e ∈ C'(Xi)} e(ai)`` folded by the aggregate's monoid (Lemma 4.1, :mod:`cer_theory.core.aggregates`):
        the identity's image on an empty bag, ``NULL`` when a contributing value is ``NULL`` or missing; the event is
        added to ``C'(Y)``, everything else unchanged."""
        functions = [aggregator(s.function) for s in phi.specs]
        out = set()
        for c in self(phi.body):
            values = {s.output: f.fold(e.value(s.attribute) for e in c[s.var]) for s, f in zip(phi.specs, functions)}
            created = TimedEvent.make(c.end, values)
            out.add(ComplexEvent.make(c.start, c.end, {**c.mu, phi.target: self._merge(c[phi.target], (created,))}))
        return frozenset(out)


def complex_events(phi: Formula, stream: Sequence[Event], bind: str = "bag") -> ComplexEvents:
    """``⟦φ⟧(S)``: every complex event of the stream (the ACEL paper, Fig. 1)."""
    return AcelSemantics(stream, bind)(phi)


def evaluate(phi: Formula, stream: Sequence[Event], bind: str = "bag") -> list[ComplexEvents]:
    """Per-position outputs: the complex events of ``⟦φ⟧(S)`` that end at each position."""
    return by_end(complex_events(phi, stream, bind), len(stream))


__all__ = ["AcelSemantics", "BIND_MODES", "check_bind", "complex_events", "evaluate", "literal_holds",
           "multiset_holds"]
