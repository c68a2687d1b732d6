"""Complex Event Automata: the CEL paper, Definitions 5.1, 5.2 and 5.4 (§5).

A CEA ``A = (Q, Δ, I, F)`` has transitions ``(p, P, L, q)``: a unary predicate P (an element of 𝒰) and a set of
variables L; a transition with ``L ≠ ∅`` is *marking*. A run over ``t0 … tn`` reads every tuple, starts in I,
and annotates position k with ``L_k``; ``μ_ρ(A) = {k ≤ n : A ∈ L_k}``. ``⟦A⟧ᵛ_n(S)`` collects μ_ρ over the
accepting runs that end at n. This module is the reference for every automaton-side construction.

CEA values are immutable, validated on construction, printable, drawable (:class:`~cer_theory.core.drawing.Drawable`:
SVG in Jupyter, text when nothing can render) and convertible to networkx.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cer_theory.automata.files import header
from cer_theory.core import drawing
from cer_theory.core.budget import active
from cer_theory.core.drawing import Drawable, Subset, shown
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import ComplexEvent, Event, Valuation
from cer_theory.core.graphs import reach
from cer_theory.core.predicates.ast import Predicate, disj
from cer_theory.core.wording import plural

if TYPE_CHECKING:
    from cer_theory.core.drawing.dot import Diagram

RUN = "the run of a complex event automaton (Def. 5.2: its configurations)"
"""What the work budget's messages call the run: one unit per configuration (state, valuation) kept."""

State = Hashable


@dataclass(frozen=True, slots=True)
class Transition:
    """``(source, predicate, labels, target)``; marking iff ``labels`` is non-empty."""

    source: State
    predicate: Predicate
    labels: frozenset[str]
    target: State

    @property
    def marking(self) -> bool:
        return bool(self.labels)

    def label(self) -> str:
        """``P / {A,B}``, or ``P / ∅`` for a non-marking transition, as in the paper's figures."""
        return f"{self.predicate.label()} / {marks(self.labels)}"

    def sort_key(self) -> tuple:
        return (repr(self.source), repr(self.target), sorted(self.labels), self.predicate.text())

    def __repr__(self) -> str:
        return f"Transition({shown(self.source)} --{self.label()}--> {shown(self.target)})"


def marks(labels: frozenset[str]) -> str:
    """A transition's variable set as the paper's figures write it: ``{A,B}``, ``∅`` when non-marking."""
    return "{" + ",".join(sorted(labels)) + "}" if labels else "∅"


def _frozen_labels(labels: Iterable[str]) -> frozenset[str]:
    return labels if isinstance(labels, frozenset) else frozenset(labels)


class CEA(Drawable):
    """A complex event automaton ``(Q, Δ, I, F)`` (the CEL paper, Def. 5.1)."""

    __slots__ = ("states", "transitions", "initial", "final", "_out", "_tset", "_hash", "name")

    def __init__(self, states: Iterable[State], transitions: Iterable[Transition | tuple],
                 initial: Iterable[State], final: Iterable[State], *, name: str = "") -> None:
        states_f = Subset(states)  # Q, I and F print as the paper writes sets: {0, 1}
        trans: dict[Transition, None] = {}
        for t in transitions:
            if not isinstance(t, Transition):
                if not (isinstance(t, tuple) and len(t) == 4):
                    raise AutomatonError(f"a transition is (source, predicate, labels, target), got {t!r}")
                t = Transition(t[0], t[1], _frozen_labels(t[2]), t[3])
            self._check(t, states_f)
            trans[t] = None
        initial_f, final_f = Subset(initial), Subset(final)
        for role, group in (("initial", initial_f), ("final", final_f)):
            if not group <= states_f:
                raise AutomatonError(f"{role} states {sorted(map(repr, group - states_f))} are not states")
        self.states = states_f
        # Insertion order (deterministic for every construction); equality ignores it.
        self.transitions = tuple(trans)
        self.initial, self.final, self.name = initial_f, final_f, name
        out: dict[State, list[Transition]] = {q: [] for q in states_f}
        for t in self.transitions:
            out[t.source].append(t)
        self._out = {q: tuple(ts) for q, ts in out.items()}
        self._hash = None
        self._tset = frozenset(self.transitions)  # set last: from here on the value is frozen

    @staticmethod
    def _check(t: Transition, states: frozenset[State]) -> None:
        if t.source not in states or t.target not in states:
            raise AutomatonError(f"transition {t.label()} from {t.source!r} to {t.target!r} uses an unknown state")
        if not isinstance(t.predicate, Predicate):
            raise AutomatonError(f"transition from {t.source!r}: {t.predicate!r} is not a Predicate")
        if not _is_unary(t.predicate):
            raise AutomatonError(f"transition from {t.source!r}: CEA predicates are unary, "
                                 f"{t.predicate.text()} reads {sorted(map(str, t.predicate.slots() - {None}))}")
        if not isinstance(t.labels, frozenset) or not all(isinstance(v, str) and v for v in t.labels):
            raise AutomatonError(f"transition from {t.source!r}: labels must be a set of variable names")

    # ------------------------------------------------------------------ value semantics

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CEA) and self.states == other.states and self._tset == other._tset
                and self.initial == other.initial and self.final == other.final)

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash((self.states, self._tset, self.initial, self.final)))
        return self._hash  # type: ignore[return-value]

    def __setattr__(self, key: str, value: Any) -> None:
        if hasattr(self, "_tset"):
            raise AttributeError("CEA is immutable; constructions return new automata")
        object.__setattr__(self, key, value)

    def out(self, state: State) -> tuple[Transition, ...]:
        """The transitions leaving ``state``."""
        return self._out[state]

    @property
    def size(self) -> int:
        """``|A| = |Q| + |Δ|``."""
        return len(self.states) + len(self.transitions)

    def variables(self) -> frozenset[str]:
        return frozenset().union(*(t.labels for t in self.transitions))

    def predicates(self) -> tuple[Predicate, ...]:
        """The distinct predicates of Δ, in a deterministic order (the 𝒫 of Prop. 5.5)."""
        return tuple(dict.fromkeys(t.predicate for t in self.transitions))

    def label_sets(self) -> tuple[frozenset[str], ...]:
        """The distinct label sets of Δ (the ℒ of Prop. 5.5), ∅ first when present."""
        return tuple(sorted(dict.fromkeys(t.labels for t in self.transitions), key=lambda s: (len(s), sorted(s))))

    def __repr__(self) -> str:
        return (f"CEA({self.name + ': ' if self.name else ''}{plural(len(self.states), 'state')}, "
                f"{plural(len(self.transitions), 'transition')})")

    def describe(self) -> str:
        """A readable listing: initial and final states, one transition per line, states and sets written as in
        the drawings (:func:`~cer_theory.core.drawing.shown`)."""
        def states(group: Iterable[State]) -> str:
            return ", ".join(shown(q) for q in sorted(group, key=repr)) or "none"

        lines = [repr(self), f"  initial: {states(self.initial)}", f"  final:   {states(self.final)}"]
        lines += [f"  {shown(t.source)} --{t.label()}--> {shown(t.target)}"
                  for t in sorted(self.transitions, key=Transition.sort_key)]
        return "\n".join(lines)

    # ------------------------------------------------------------------ structure

    FILE_KIND = "cea"
    """The ``kind`` of this model's automaton files (docs/automaton-files.md)."""

    def to_json(self) -> dict[str, Any]:
        """The automaton as a file's JSON object (docs/automaton-files.md): the header, then states, initial and
        final sorted (integers before strings), transitions in Δ's order with guards in the unqualified predicate
        syntax (docs/cel-syntax.md). States must be strings or integers (``relabel_states()`` first)."""
        for q in self.states:
            if not isinstance(q, (str, int)) or isinstance(q, bool):
                raise AutomatonError(f"state {q!r} is not a string or an integer; relabel_states() first")
        key = lambda q: (isinstance(q, str), q)  # noqa: E731 - ints before strings, each in order
        return {**header(self.FILE_KIND, self.name),
                "states": sorted(self.states, key=key), "initial": sorted(self.initial, key=key),
                "final": sorted(self.final, key=key),
                "transitions": [{"from": t.source, "guard": t.predicate.text(), "labels": sorted(t.labels),
                                 "to": t.target} for t in self.transitions]}

    def relabel_states(self, mapping: Mapping[State, State] | None = None) -> CEA:
        """Rename states; by default to 0..|Q|-1 in breadth-first order from the initial states."""
        if mapping is None:
            mapping = {q: k for k, q in enumerate(self.bfs_order())}
        return CEA((mapping[q] for q in self.states),
                   (Transition(mapping[t.source], t.predicate, t.labels, mapping[t.target]) for t in self.transitions),
                   (mapping[q] for q in self.initial), (mapping[q] for q in self.final), name=self.name)

    def bfs_order(self) -> list[State]:
        """All states, reachable ones first in breadth-first order, then the rest in a stable order."""
        order: list[State] = []
        seen: set[State] = set()
        frontier = sorted(self.initial, key=repr)
        while frontier:
            nxt = []
            for q in frontier:
                if q in seen:
                    continue
                seen.add(q)
                order.append(q)
                nxt.extend(t.target for t in self._out[q] if t.target not in seen)
            frontier = nxt
        order.extend(sorted((q for q in self.states if q not in seen), key=repr))
        return order

    def reachable(self) -> frozenset[State]:
        """The states some run reaches from I."""
        return reach(self.initial, ((t.source, t.target) for t in self.transitions))

    def coreachable(self) -> frozenset[State]:
        """The states from which some run reaches F."""
        return reach(self.final, ((t.target, t.source) for t in self.transitions))

    def restrict(self, keep: Iterable[State]) -> CEA:
        """The sub-automaton on ``keep`` (transitions with both ends kept)."""
        k = frozenset(keep)
        return CEA(k, (t for t in self.transitions if t.source in k and t.target in k),
                   self.initial & k, self.final & k, name=self.name)

    def trim(self) -> CEA:
        """Drop states that are unreachable or cannot reach a final state: same runs to final states."""
        return self.restrict(self.reachable() & self.coreachable())

    # ------------------------------------------------------------------ run semantics (Def. 5.2)

    def moves(self, config: Iterable[tuple[State, frozenset]], position: int,
              event: Event) -> Iterator[tuple[Transition, tuple[State, frozenset]]]:
        """Each transition a run in ``config`` takes on ``event`` at ``position``, with the configuration
        ``(state, μ)`` it leads to (μ a frozenset of (variable, position)); :meth:`step` collects the latter."""
        for state, mu in config:
            for t in self._out[state]:
                if t.predicate(event):
                    yield t, (t.target, mu | {(v, position) for v in t.labels} if t.labels else mu)

    def step(self, config: Iterable[tuple[State, frozenset]], position: int, event: Event) -> set:
        """One step of the run semantics on configurations ``(state, μ)`` with μ a frozenset of (var, pos)."""
        return {c for _, c in self.moves(config, position, event)}

    def configurations(self, stream: Sequence[Event]) -> Iterator[set[tuple[State, frozenset]]]:
        """After each t_n: the set of ``(q, μ_ρ)`` over all runs ρ on ``t0..tn`` (runs merged by state and
        valuation, which keeps exactly the information Def. 5.2 reads off a run)."""
        config: set[tuple[State, frozenset]] = {(q, frozenset()) for q in self.initial}
        budget = active()
        for n, event in enumerate(stream):
            config = self.step(config, n, event)
            if budget is not None:  # each configuration is a run kept: exponentially many on R+ (core.budget)
                budget.charge(RUN, len(config))
            yield config

    def run(self, stream: Sequence[Event]) -> list[frozenset[Valuation]]:
        """``[⟦A⟧ᵛ_0(S), ⟦A⟧ᵛ_1(S), …]`` (Def. 5.2)."""
        return list(self.iter_run(stream))

    def iter_run(self, stream: Iterable[Event]) -> Iterator[frozenset[Valuation]]:
        """``⟦A⟧ᵛ_0(S), ⟦A⟧ᵛ_1(S), …`` one position at a time, as the events arrive (Def. 5.2)."""
        for config in self.configurations(stream):
            yield frozenset(_valuation(mu) for q, mu in config if q in self.final)

    def run_complex_events(self, stream: Sequence[Event]) -> list[frozenset[ComplexEvent]]:
        """``[⟦A⟧_0(S), ⟦A⟧_1(S), …]``."""
        return [frozenset(m.support() for m in vals) for vals in self.run(stream)]

    def valuations(self, stream: Sequence[Event], n: int) -> frozenset[Valuation]:
        """``⟦A⟧ᵛ_n(S)``."""
        return self.run(stream[: n + 1])[n]

    def complex_events(self, stream: Sequence[Event], n: int) -> frozenset[ComplexEvent]:
        """``⟦A⟧_n(S) = {sup μ | μ ∈ ⟦A⟧ᵛ_n(S)}``."""
        return frozenset(m.support() for m in self.valuations(stream, n))

    def accepting_runs(self, stream: Sequence[Event], n: int, *, limit: int = 1000) -> Iterator[list[Transition]]:
        """The explicit accepting runs ending at n (at most ``limit``), each as its list of transitions."""
        found = 0

        def extend(state: State, k: int, path: list[Transition]) -> Iterator[list[Transition]]:
            nonlocal found
            if found >= limit:
                return
            if k > n:
                if state in self.final:
                    found += 1
                    yield list(path)
                return
            for t in self._out[state]:
                if t.predicate(stream[k]):
                    path.append(t)
                    yield from extend(t.target, k + 1, path)
                    path.pop()

        for q0 in sorted(self.initial, key=repr):
            yield from extend(q0, 0, [])

    # ------------------------------------------------------------------ determinism (Def. 5.4)

    def io_determinism_violations(self) -> list[tuple[Transition, Transition]]:
        """Pairs of distinct transitions from one state with equal labels and overlapping predicates (Z3)."""
        from cer_theory.core.predicates.solver import is_satisfiable

        bad = []
        for q in self.states:
            ts = self._out[q]
            for a in range(len(ts)):
                for b in range(a + 1, len(ts)):
                    t1, t2 = ts[a], ts[b]
                    if t1.labels == t2.labels and is_satisfiable(t1.predicate & t2.predicate):
                        bad.append((t1, t2))
        return bad

    def is_io_deterministic(self) -> bool:
        """Def. 5.4: ``|I| = 1`` and distinct transitions from one state with overlapping predicates have
        different labels; satisfiability of ``P1 ∩ P2`` is decided with Z3."""
        return len(self.initial) == 1 and not self.io_determinism_violations()

    # ------------------------------------------------------------------ views

    def to_networkx(self):
        """A ``networkx.MultiDiGraph``: nodes carry ``initial``/``final``, edges ``predicate``/``labels``."""
        import networkx as nx

        g = nx.MultiDiGraph(name=self.name)
        for q in self.bfs_order():
            g.add_node(q, initial=q in self.initial, final=q in self.final)
        for t in self.transitions:
            g.add_edge(t.source, t.target, predicate=t.predicate, labels=t.labels, label=t.label())
        return g

    def diagram(self, *, title: str | None = None, state_names: Mapping[State, str] | None = None,
                rankdir: str = "LR", merge: bool = True, trim: bool = True) -> Diagram:
        """The drawing as in the paper's figures (the CEL paper, Figs. 4, 5, 8): transitions between two states on
        one edge, one line per transition, ``predicate / {variables}`` (``∅`` when non-marking).

        ``state_names`` overrides how states are printed (default: sets as ``{0, 1}``, see
        :func:`~cer_theory.core.drawing.shown`). ``merge`` (the default) draws the transitions of one edge with
        equal variable sets as one predicate, simplified modulo the meaning of its atoms — an event has exactly
        one type, so ``¬R ∨ ¬T`` is drawn ``⊤`` (:func:`~cer_theory.core.predicates.printing.readable`); the
        drawing is of an equivalent automaton. ``merge=False`` shows Δ exactly, labels unsimplified. Every state
        is drawn with its own name, so the drawing, the stepper, a file and the grader's feedback number states
        alike; ``trim`` (the default) greys the states no accepting run visits (unreachable, or unable to reach a
        final state: the dead state of a determinization) and says so in the caption (D384); ``trim=False``
        draws them like the others. ``CEA.trim().relabel_states()`` drops them and renumbers."""
        useless = self.states - (self.reachable() & self.coreachable() | self.initial) if trim else frozenset()
        order = self.bfs_order()
        name = (state_names or {}).get
        edges = [(src, dst, "\n".join(lines)) for (src, dst), lines in self._edge_labels(merge).items()]
        return drawing.state_diagram(name=self.name or "CEA", title=title or self.name or None,
                                     states={q: name(q) or shown(q) for q in order},
                                     initial=sorted(self.initial, key=order.index), final=self.final, edges=edges,
                                     rankdir=rankdir, useless=useless)

    def _edge_labels(self, merge: bool) -> dict[tuple[State, State], list[str]]:
        """One line per transition of each edge; with ``merge``, one readable line per (source, labels, target)."""
        if not merge:
            grouped: dict[tuple[State, State], list[str]] = {}
            for t in self.transitions:
                grouped.setdefault((t.source, t.target), []).append(t.label())
            return grouped
        # Z3 and sympy are heavy and only drawings simplify, so they are imported when a drawing is made.
        from cer_theory.core.predicates.printing import readable

        groups: dict[tuple[State, State, frozenset[str]], list[Predicate]] = {}
        for t in self.transitions:
            groups.setdefault((t.source, t.target, t.labels), []).append(t.predicate)
        out: dict[tuple[State, State], list[str]] = {}
        for (src, dst, labels), preds in groups.items():
            out.setdefault((src, dst), []).append(f"{readable(disj(*preds)).label()} / {marks(labels)}")
        return out


_UNARY: dict[int, Predicate] = {}


def _is_unary(p: Predicate) -> bool:
    """``p.is_unary()``, remembered per predicate object: constructions reuse predicates across many automata."""
    if _UNARY.get(id(p)) is p:
        return True
    if not p.is_unary():
        return False
    if len(_UNARY) > 100_000:
        _UNARY.clear()
    _UNARY[id(p)] = p  # the reference keeps the id from being reused while cached
    return True


def _valuation(mu: frozenset) -> Valuation:
    grouped: dict[str, set[int]] = {}
    for var, pos in mu:
        grouped.setdefault(var, set()).add(pos)
    return Valuation(grouped)
