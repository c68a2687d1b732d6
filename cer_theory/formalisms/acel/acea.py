"""Aggregation automata (ACEA) of the ACEL paper (*A formal query language and automata model for aggregation in complex
event recognition*, §6): automata whose configurations carry registers.

A transition is ``(p, σ, P, λ, q)``: an **assignment** ``σ`` (register ← expression over the value structure), a
**predicate** ``P`` checked on the registers *after* the assignment, and an **output** ``λ`` giving each variable a
bag of **templates** (output attribute → register, with an optional O(1) post-map) — the direction the paper's
Fig. 2 and most constructions use (docs/decisions.md D68). A configuration is ``(q, ν)``, ``ν`` an event holding the
register values. On event ``e_k`` the expressions read ``e_k ≫ ν`` (the incoming event overrides registers);
a transition whose expressions read an attribute absent from ``e_k ≫ ν`` is **blocked** — which is not the same as
producing ``NULL``; ``ν_{k+1} = ⟦σ⟧(e_k ≫ ν_k)``, so a register not re-assigned is erased. A run starts in ``q0``
with empty registers at **any** position ``i`` and is accepting when it ends in ``F``; its output is
``(i, j, X ↦ {{τ(ν_{k+1}) at time k | k ∈ [i..j], τ ∈ λ_k(X)}})``, and ``⟦A⟧(S)`` is the set of them.

Registers here are names with a dot (``r1.price``) and stream attributes are identifiers, so they never shadow
each other. The registers hold data values and monoid elements, unlike the event registers of the SRT paper
(:mod:`cer_theory.automata.registers`), whose valuations store whole events (D68).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from cer_theory.automata.files import header
from cer_theory.core.aggregates import NULL, aggregator, json_value
from cer_theory.core.budget import charge
from cer_theory.core.drawing import Diagram, Drawable, shown, state_diagram
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Predicate, format_value
from cer_theory.core.wording import plural
from cer_theory.formalisms.acel.events import ComplexEvent, TimedEvent, by_end, timed_stream

RUN = "the run of an aggregation automaton (the ACEL paper §6) from every start"
"""What the work budget's messages call :meth:`ACEA.complex_events`: one unit per configuration kept."""

# ---------------------------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Const:
    """A data value ``d`` (``NULL`` and the monoid identities included)."""

    value: Any

    def text(self) -> str:
        v = self.value
        if v is NULL:
            return "NULL"
        if isinstance(v, float) and math.isinf(v):
            return shown(v)  # −∞ and ∞, the identities of max and min (never Python's -1e999)
        if isinstance(v, (bool, int, float, str)):
            return format_value(v)
        return repr(v)


@dataclass(frozen=True, slots=True)
class Ref:
    """An attribute of ``e ≫ ν``: a stream attribute (``price``, ``type``) or a register (``r1.price``)."""

    name: str

    def text(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Combine:
    """``α ⊕ α'`` with the monoid of aggregate ``function`` (``NULL`` absorbing, value structure (†) of §4)."""

    function: str
    left: Expr
    right: Expr

    def text(self) -> str:
        return f"{self.left.text()} ⊕{self.function} {self.right.text()}"


@dataclass(frozen=True, slots=True)
class Lift:
    """``f'(α)``: the pre-map of aggregate ``function`` (Lemma 4.1; e.g. ``count``'s ``f' ≡ 1``). The ACEL paper §6 notes
    decomposable aggregates need such unary maps in expressions."""

    function: str
    arg: Expr

    def text(self) -> str:
        return f"{self.function}'({self.arg.text()})"


@dataclass(frozen=True, slots=True)
class Finish:
    """``g(α)``: the post-map of aggregate ``function`` (``avg``'s ``(s, c) ↦ s / c``)."""

    function: str
    arg: Expr

    def text(self) -> str:
        return f"g_{self.function}({self.arg.text()})"


Expr = Union[Const, Ref, Combine, Lift, Finish]


class Blocked(Exception):
    """An expression read an attribute absent from ``e ≫ ν``: the transition cannot be taken."""


def evaluate_expr(expr: Expr, env: Mapping[str, Any]) -> Any:
    """``⟦α⟧(e ≫ ν)`` (the ACEL paper §6, Ex. 6.1); :class:`Blocked` when it reads an absent attribute."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Ref):
        try:
            return env[expr.name]
        except KeyError:
            raise Blocked(expr.name) from None
    if isinstance(expr, Combine):
        return aggregator(expr.function).combine(evaluate_expr(expr.left, env), evaluate_expr(expr.right, env))
    if isinstance(expr, Lift):
        return aggregator(expr.function).lift(evaluate_expr(expr.arg, env))
    if isinstance(expr, Finish):
        return aggregator(expr.function).finish(evaluate_expr(expr.arg, env))
    raise TypeError(f"not an ACEA expression: {expr!r}")


def expr_refs(expr: Expr) -> frozenset[str]:
    """``Att(α)``: the attributes and registers an expression reads."""
    if isinstance(expr, Ref):
        return frozenset([expr.name])
    if isinstance(expr, Combine):
        return expr_refs(expr.left) | expr_refs(expr.right)
    if isinstance(expr, (Lift, Finish)):
        return expr_refs(expr.arg)
    return frozenset()


# ---------------------------------------------------------------------------------------------- templates


@dataclass(frozen=True, slots=True)
class Template:
    """``τ``: output attribute → register, each with an optional post-map ``g`` (an aggregate's name); emits
    ``{b ↦ g(ν(τ(b)))}`` with the time of the step (D68). A register that ``ν`` lacks leaves ``b`` out."""

    fields: tuple[tuple[str, str, str | None], ...]  # (output attribute, register, post-map or None), sorted

    @classmethod
    def of(cls, mapping: Mapping[str, str], post: Mapping[str, str] | None = None) -> Template:
        post = post or {}
        return cls(tuple(sorted((b, r, post.get(b)) for b, r in mapping.items())))

    @property
    def attributes(self) -> frozenset[str]:
        return frozenset(b for b, _, _ in self.fields)

    def register(self, attribute: str) -> tuple[str, str | None] | None:
        for b, r, g in self.fields:
            if b == attribute:
                return r, g
        return None

    def restrict(self, attributes: Iterable[str]) -> Template:
        keep = set(attributes)
        return Template(tuple(f for f in self.fields if f[0] in keep))

    def emit(self, nu: Mapping[str, Any], time: int) -> TimedEvent:
        values = {}
        for b, r, g in self.fields:
            if r in nu:
                values[b] = aggregator(g).finish(nu[r]) if g else nu[r]
        return TimedEvent.make(time, values)

    def text(self) -> str:
        return "[" + ", ".join(f"{b}↦{g + '(' + r + ')' if g else r}" for b, r, g in self.fields) + "]"


# ---------------------------------------------------------------------------------------------- predicates


@dataclass(frozen=True, slots=True)
class TypeIs:
    """``ν(register) = R``: the copied type of the event (the base case of Thm 6.2)."""

    register: str
    name: str

    def holds(self, nu: Mapping[str, Any]) -> bool:
        return nu.get(self.register) == self.name

    def text(self) -> str:
        return f"{self.register} = {format_value(self.name)}"


@dataclass(frozen=True, slots=True)
class Emits:
    """``P(τ(ν))``: the predicate ``P`` (a unary CEL literal on variable ``slot``) holds of the event the template
    emits — a predicate renamed onto the registers (Thm 6.1's fix; FILTER in Thm 6.2)."""

    predicate: Predicate
    template: Template
    slot: str | None = None

    def holds(self, nu: Mapping[str, Any]) -> bool:
        return self.predicate.holds({self.slot: self.template.emit(nu, 0)})  # type: ignore[dict-item]

    def text(self) -> str:
        return f"{self.predicate.text()} on {self.template.text()}"


@dataclass(frozen=True, slots=True)
class BagsEqual:
    """``{{τ(ν) | τ ∈ λ1}} = {{τ(ν) | τ ∈ λ2}}``: the AND product's equality of outputs (Thm 6.2, the paper's
    ``⋁_{f ∈ ISO} ⋀ P_{r(a) = f(r)(a)}``)."""

    left: tuple[Template, ...]
    right: tuple[Template, ...]

    def holds(self, nu: Mapping[str, Any]) -> bool:
        def key(ts: tuple[Template, ...]) -> list:
            return sorted(t.emit(nu, 0).sort_key() for t in ts)
        return key(self.left) == key(self.right)

    def text(self) -> str:
        return f"{{{{{', '.join(t.text() for t in self.left)}}}}} = {{{{{', '.join(t.text() for t in self.right)}}}}}"


Check = Union[TypeIs, Emits, BagsEqual]


# ---------------------------------------------------------------------------------------------- automata

State = int


@dataclass(frozen=True, slots=True)
class Transition:
    """``(source, σ, P, λ, target)``: ``assign`` sorted by register, ``checks`` a conjunction (empty: TRUE),
    ``marks`` the variables with a non-empty bag of templates, sorted by variable."""

    source: State
    assign: tuple[tuple[str, Expr], ...]
    checks: tuple[Check, ...]
    marks: tuple[tuple[str, tuple[Template, ...]], ...]
    target: State

    @classmethod
    def make(cls, source: State, assign: Mapping[str, Expr], checks: Iterable[Check],
             marks: Mapping[str, Sequence[Template]], target: State) -> Transition:
        return cls(source, tuple(sorted(assign.items())), tuple(checks),
                   tuple(sorted((x, tuple(ts)) for x, ts in marks.items() if ts)), target)

    @property
    def sigma(self) -> dict[str, Expr]:
        return dict(self.assign)

    @property
    def lam(self) -> dict[str, tuple[Template, ...]]:
        return dict(self.marks)

    def label(self) -> str:
        """``σ | P / λ`` on one line (the text listing)."""
        sigma = ", ".join(f"{r} ← {e.text()}" for r, e in self.assign) or "∅"
        pred = " ∧ ".join(c.text() for c in self.checks) or "TRUE"
        lam = "; ".join(f"{x}: " + " ".join(t.text() for t in ts) for x, ts in self.marks) or "∅"
        return f"{sigma} | {pred} / {lam}"

    def lines(self) -> list[str]:
        """The edge label of a drawing, one part per line as the ACEL paper §6 reads a transition: the guard ``P``
        in brackets (``⊤`` when empty), then the register updates of ``σ`` one per line (the registers merely
        copied, ``r ← r``, on one ``keep`` line), then ``/`` and each variable's templates of ``λ`` (``∅``)."""
        out = ["[" + (" ∧ ".join(c.text() for c in self.checks) or "⊤") + "]"]
        kept = [r for r, e in self.assign if e == Ref(r)]
        out += [f"{r} ← {e.text()}" for r, e in self.assign if e != Ref(r)]
        if kept:
            out.append("keep " + ", ".join(kept))
        out += [f"/ {x}: " + " ".join(t.text() for t in ts) for x, ts in self.marks] or ["/ ∅"]
        return out


@dataclass(frozen=True)
class ACEA(Drawable):
    """``A = (Q, Δ, q0, F)`` of the ACEL paper §6 with :class:`Transition` s."""

    states: frozenset[State]
    transitions: tuple[Transition, ...]
    initial: State
    final: frozenset[State]
    name: str = ""
    _out: dict[State, list[Transition]] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The automaton as a file's JSON object (docs/automaton-files.md, kind ``acea``)."""
        return _acea_to_json(self)

    def __post_init__(self) -> None:
        if self.initial not in self.states:
            raise AutomatonError(f"the initial state {self.initial} is not a state")
        if not self.final <= self.states:
            raise AutomatonError(f"final states {sorted(self.final - self.states)} are not states")
        for t in self.transitions:
            if t.source not in self.states or t.target not in self.states:
                raise AutomatonError(f"transition {t.source} → {t.target} leaves the states")
            assigned = {r for r, _ in t.assign}
            for _, ts in t.marks:
                for tau in ts:
                    for b, r, g in tau.fields:
                        if r not in assigned:
                            raise AutomatonError(f"transition {t.source} → {t.target} emits {b} from register {r}, "
                                                 f"which it does not assign (the ACEL paper §6: renamings read the "
                                                 f"registers assigned on the same transition)")
                        if g is not None:
                            aggregator(g)
        for t in self.transitions:
            self._out.setdefault(t.source, []).append(t)

    def out(self, state: State) -> list[Transition]:
        return self._out.get(state, [])

    def size(self) -> int:
        return len(self.transitions)

    # ------------------------------------------------------------------ run semantics (§6)

    def moves(self, configs: Iterable[tuple], event: TimedEvent) -> Iterator[tuple[Transition, tuple]]:
        """Each transition a configuration ``(q, ν, μ)`` takes on ``event``, with the configuration it leads to
        (``ν`` and the emitted ``μ`` as sorted tuples); :meth:`step` collects the latter."""
        attrs = event.attributes
        for q, nu, mu in configs:
            env = {**dict(nu), **attrs}  # e ≫ ν: the incoming event overrides registers
            for t in self.out(q):
                try:
                    new = {r: evaluate_expr(e, env) for r, e in t.assign}
                except Blocked:
                    continue
                if not all(c.holds(new) for c in t.checks):
                    continue
                emitted = tuple((x, tau.emit(new, event.time)) for x, ts in t.marks for tau in ts)
                yield t, (t.target, tuple(sorted(new.items(), key=lambda p: p[0])), mu + emitted)

    def step(self, configs: set, event: TimedEvent) -> set:
        """One step for every configuration ``(q, ν, μ)`` (``ν`` and the emitted ``μ`` as sorted tuples)."""
        return {c for _, c in self.moves(configs, event)}

    def complex_events(self, stream: Sequence[Event]) -> frozenset[ComplexEvent]:
        """``⟦A⟧(S)``: the complex events of the accepting runs from every start position (the ACEL paper §6)."""
        events = timed_stream(stream)
        out: set[ComplexEvent] = set()
        for i in range(len(events)):
            configs = {(self.initial, (), ())}
            for k in range(i, len(events)):
                configs = self.step(configs, events[k])
                charge(RUN, len(configs))  # core.budget: each configuration is a run kept, exponentially many
                if not configs:
                    break
                for q, _nu, mu in configs:
                    if q in self.final:
                        bags: dict[str, list[TimedEvent]] = {}
                        for x, e in mu:
                            bags.setdefault(x, []).append(e)
                        out.add(ComplexEvent.make(i, k, bags))
        return frozenset(out)

    def run(self, stream: Sequence[Event]) -> list[frozenset[ComplexEvent]]:
        """Per-position outputs: the complex events ending at each position."""
        return by_end(self.complex_events(stream), len(stream))

    # ------------------------------------------------------------------ invariants of §6 (Thm 6.2)

    def invariant_violations(self) -> list[str]:
        """(I1) ``q0`` has no incoming transition; (I2) final states have no outgoing transition."""
        bad = [f"(I1) transition {t.source} → {t.target} enters q0" for t in self.transitions
               if t.target == self.initial]
        bad += [f"(I2) final state {t.source} has an outgoing transition" for t in self.transitions
                if t.source in self.final]
        return bad

    # ------------------------------------------------------------------ drawing

    def bfs_order(self) -> list[State]:
        order, seen = [self.initial], {self.initial}
        for q in order:
            for t in self.out(q):
                if t.target not in seen:
                    seen.add(t.target)
                    order.append(t.target)
        return order + sorted(self.states - seen)

    def diagram(self, *, title: str | None = None) -> Diagram:
        """The drawing: each transition's guard, register updates and templates on lines of their own
        (:meth:`Transition.lines`); parallel transitions share an edge, separated by a blank line."""
        edges: dict[tuple[State, State], list[str]] = {}
        for t in self.transitions:
            edges.setdefault((t.source, t.target), []).append("\n".join(t.lines()))
        heading = title or self.name or None
        post = any(g is not None for t in self.transitions for _, ts in t.marks for tau in ts for _, _, g in tau.fields)
        key = legend("\n".join(label for labels in edges.values() for label in labels), post)
        return state_diagram(name=self.name or "ACEA", title=f"{heading}\n{key}" if heading else key,
                             states={q: f"q{q}" for q in self.bfs_order()}, initial=[self.initial],
                             final=self.final, edges=[(s, d, "\n\n".join(ls)) for (s, d), ls in edges.items()])

    def describe(self) -> str:
        lines = [f"{self!r} {self.name}: q0 = {self.initial}, F = {shown(self.final)}"]
        lines += [f"  {t.source} → {t.target}: {t.label()}" for t in self.transitions]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ACEA({plural(len(self.states), 'state')}, {plural(len(self.transitions), 'transition')})"


LEGEND = (("[", "[P]: the guard"), ("←", "r ← α: register r updated"), ("⊕", "⊕f: aggregate f's combine"),
          ("'(", "f'(a): f's pre-map of attribute a"), ("g_", "g_f: f's post-map"), ("keep ", "keep: registers copied"),
          ("/ ", "/ X: [b↦r]: an event into X, attribute b from register r"))
"""The notation of an edge label (the ACEL paper §6, with Lemma 4.1's maps), each with the text that shows it is
used."""

LEGEND_WIDTH = 70
"""Characters per legend line: a caption line wider than the automaton would widen the drawing."""


POST_MAP = "b↦f(r): b is f's post-map of r"


def legend(labels: str, post_maps: bool = False) -> str:
    """The caption explaining the notation the edge ``labels`` use (an ACEA drawing's legend), a few entries per
    line; ``post_maps`` when a template applies a post-map (``b↦avg(r)``)."""
    lines: list[str] = []
    used = [meaning for mark, meaning in LEGEND if mark in labels] + ([POST_MAP] if post_maps else [])
    for meaning in used:
        if lines and len(lines[-1]) + 3 + len(meaning) <= LEGEND_WIDTH:
            lines[-1] += " · " + meaning
        else:
            lines.append(meaning)
    return "\n".join(lines)


def json_register(value: Any) -> Any:
    """A register's value as JSON (tuples of monoid elements as lists)."""
    if isinstance(value, tuple):
        return [json_register(v) for v in value]
    return json_value(value)


# -------------------------------------------------------------------------- as a file (docs/automaton-files.md)


def _file_value(v: Any) -> Any:
    if v is NULL:
        return None
    if isinstance(v, float) and math.isinf(v):
        return {"inf": "+" if v > 0 else "-"}
    if isinstance(v, tuple):
        return {"tuple": [_file_value(x) for x in v]}
    return v


def _file_expr(e: Expr) -> dict[str, Any]:
    if isinstance(e, Const):
        return {"const": _file_value(e.value)}
    if isinstance(e, Ref):
        return {"ref": e.name}
    if isinstance(e, Combine):
        return {"combine": e.function, "args": [_file_expr(e.left), _file_expr(e.right)]}
    if isinstance(e, Lift):
        return {"lift": e.function, "arg": _file_expr(e.arg)}
    return {"finish": e.function, "arg": _file_expr(e.arg)}


def _file_template(t: Template) -> dict[str, Any]:
    return {b: (r if g is None else {"register": r, "post": g}) for b, r, g in t.fields}


def _file_check(c: Check) -> dict[str, Any]:
    if isinstance(c, TypeIs):
        return {"type_is": [c.register, c.name]}
    if isinstance(c, Emits):
        return {"emits": c.predicate.text(), "template": _file_template(c.template), "slot": c.slot}
    return {"bags_equal": [[_file_template(t) for t in c.left], [_file_template(t) for t in c.right]]}


def _acea_to_json(a: ACEA) -> dict[str, Any]:
    """The JSON object of an ACEA (states and final sorted; transitions in Δ's order)."""
    return {**header("acea", a.name), "states": sorted(a.states), "initial": a.initial, "final": sorted(a.final),
            "transitions": [{"from": t.source, "assign": {r: _file_expr(e) for r, e in t.assign},
                             "checks": [_file_check(c) for c in t.checks],
                             "emit": {x: [_file_template(tau) for tau in ts] for x, ts in t.marks}, "to": t.target}
                            for t in a.transitions]}


__all__ = ["ACEA", "BagsEqual", "Blocked", "Check", "Combine", "Const", "Emits", "Expr", "Finish", "Lift", "Ref",
           "State", "Template", "Transition", "TypeIs", "evaluate_expr", "expr_refs", "json_register"]
