"""Algorithm 2 of the CEL paper, §9 (Theorem 9.1, Corollary 9.3): evaluating a CEA over a stream with a CCES.

:class:`CcesEvaluator` runs Algorithm 2 for a CEA in normal form. Any CEA is first made single-variable
(Prop. 9.2, :func:`~cer_theory.formalisms.cel.normal_form.single_variable`) and then I/O-determinized *lazily*
(Prop. 5.5 via :class:`~cer_theory.automata.determinize.lazy.LazyDeterminizer`), which is Corollary 9.3. The
order matters (``docs/decisions.md``, D17): relabelling after determinizing can leave two
•-transitions on one type and duplicate outputs. The CCES itself and Algorithm 1 are
:mod:`cer_theory.engines.cces.structure`.

Everything is instrumented by counting, never timing: :class:`EventStats` (nodes created, table operations,
predicate evaluations per event) and :class:`CcesStats` (totals, with the enumeration's
:class:`~cer_theory.engines.enumeration.EnumerationStats`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cer_theory.automata.cea import CEA, State
from cer_theory.automata.determinize.lazy import LazyDeterminizer
from cer_theory.core.budget import active
from cer_theory.core.drawing import Diagram, Drawable, shown
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError
from cer_theory.core.events import ComplexEvent, Event
from cer_theory.core.wording import plural
from cer_theory.engines.cces.structure import BOTTOM, Cces, Node
from cer_theory.engines.enumeration import EnumerationStats
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.formalisms.cel.normal_form import VARIABLE, single_variable
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.selection import compile_with_selection

OUTPUTS = "Algorithm 1's enumeration of complex events (the CEL paper §9)"
"""What the work budget's messages call the outputs enumerated."""



@dataclass(slots=True)
class EventStats:
    """Work of one update of Algorithm 2, by counting. ``table_ops`` counts one per successor lookup
    (δ(p,t) for • and ∘ together), extend, ADD, append, and final-state check; ``cache_misses`` is the one-time
    work of building the lazily determinized automaton, not part of the per-event bound."""

    position: int
    active: int = 0
    nodes_created: int = 0
    table_ops: int = 0
    predicate_evals: int = 0
    cache_misses: int = 0

    @property
    def work(self) -> int:
        return self.table_ops + self.predicate_evals


@dataclass(slots=True)
class CcesStats:
    """Totals of a :class:`CcesEvaluator`; ``per_event`` holds an :class:`EventStats` per event if kept."""

    events: int = 0
    nodes_created: int = 0
    table_ops: int = 0
    predicate_evals: int = 0
    max_nodes_per_event: int = 0
    max_work_per_event: int = 0
    enumeration: EnumerationStats = field(default_factory=EnumerationStats)
    per_event: list[EventStats] | None = None


class _LazyStepper:
    """δ for Algorithm 2 from the lazily determinized single-variable CEA (Cor. 9.3)."""

    def __init__(self, cea: CEA, budget: int | None) -> None:
        # Prop 9.2 first, then Prop 5.5 (docs/decisions.md, D17). Trimming is linear and only drops states from
        # which no run reaches F: such runs never output, so dom(T) stays smaller and the outputs are unchanged.
        self.det = LazyDeterminizer(single_variable(cea, VARIABLE).trim(), budget=budget)
        self.initial = self.det.initial
        self._mark = frozenset({VARIABLE})
        self._empty: frozenset[str] = frozenset()
        self._succ: dict[tuple[State, Any], tuple[State | None, State | None]] = {}

    def prepare(self, event: Event) -> Any:
        return self.det.signature(event)

    def successors(self, state: State, key: Any) -> tuple[State | None, State | None]:
        found = self._succ.get((state, key))
        if found is None:
            step = self.det.step_signature(state, key)
            found = self._succ[(state, key)] = (step.get(self._mark), step.get(self._empty))
        return found

    def is_final(self, state: State) -> bool:
        return self.det.is_final(state)

    @property
    def predicate_evaluations(self) -> int:
        return self.det.predicate_evaluations

    @property
    def cache_misses(self) -> int:
        return self.det.cache_misses

    @property
    def size(self) -> int:
        return len(self.det.materialized())


class _NormalFormStepper:
    """δ for Algorithm 2 read directly off a CEA already in normal form (single-variable, I/O-deterministic,
    one initial state): the first satisfied •-transition and ∘-transition are the unique ones."""

    def __init__(self, cea: CEA) -> None:
        if len(cea.initial) != 1:
            raise UnsupportedError(f"Algorithm 2 needs exactly one initial state, {cea!r} has {len(cea.initial)}")
        if len(cea.variables()) > 1:
            raise UnsupportedError(f"not single-variable: labels use {sorted(cea.variables())} (Prop. 9.2)")
        bad = cea.io_determinism_violations()
        if bad:
            t1, t2 = bad[0]
            raise UnsupportedError(f"not I/O-deterministic: {t1.source!r} --{t1.label()}--> {t1.target!r} and "
                                   f"--{t2.label()}--> {t2.target!r} overlap (Def. 5.4)")
        self.cea = cea
        (self.initial,) = cea.initial
        self._out = {q: cea.out(q) for q in cea.states}
        self.predicate_evaluations = 0
        self.cache_misses = 0

    def prepare(self, event: Event) -> Any:
        return event

    def successors(self, state: State, event: Event) -> tuple[State | None, State | None]:
        bullet = circ = None
        for t in self._out[state]:
            if (t.labels and bullet is not None) or (not t.labels and circ is not None):
                continue
            self.predicate_evaluations += 1
            if t.predicate(event):
                if t.labels:
                    bullet = t.target
                else:
                    circ = t.target
        return bullet, circ

    def is_final(self, state: State) -> bool:
        return state in self.cea.final

    @property
    def size(self) -> int:
        return len(self.cea.states)


class CcesEvaluator(Drawable):
    """Algorithm 2 of the CEL paper (Theorem 9.1), streaming: :meth:`process` one event, get its outputs.

    By default any CEA is accepted: it is made single-variable (Prop. 9.2) and I/O-determinized lazily
    (Prop. 5.5), so states are frozensets of the CEA's states (Cor. 9.3). ``normal_form=True`` runs the CEA
    as given after checking it is in normal form (§9.2), so states keep their names (used for the Fig. 8 trace).

    Per event: for each p in dom(T), • before ∘ as in the paper; ``extend`` for the •-successor, the list is
    moved (not copied) for the ∘-successor, and ADD concatenates lists reaching the same state with ``append``.
    The work is at most ``6·|dom(T_i)| + |dom(T_{i+1})| + |𝒫| ≤ 7·|Q'| + |𝒫|`` counted operations
    (:class:`EventStats`): 6 per active state (lookup, extend, two ADDs with an append each), one final-state
    check per new active state, and the |𝒫| predicate evaluations that give the event's type (normal-form mode:
    at most |Δ| evaluations instead); Q' is the set of states of the (determinized) automaton.
    """

    def __init__(self, cea: CEA, *, normal_form: bool = False, budget: int | None = DEFAULT_BUDGET,
                 debug: bool = False, keep_stats: bool = True) -> None:
        self.cea = cea
        self._stepper: _LazyStepper | _NormalFormStepper = (
            _NormalFormStepper(cea) if normal_form else _LazyStepper(cea, budget))
        self.cces, bottom = Cces.init(debug=debug)
        self.table: dict[State, tuple[Node, Node]] = {self._stepper.initial: (bottom, bottom)}  # seeded once
        self.position = 0
        self.stats = CcesStats(per_event=[] if keep_stats else None)
        self.last_enumeration = EnumerationStats()

    @property
    def determinizer(self) -> LazyDeterminizer | None:
        return self._stepper.det if isinstance(self._stepper, _LazyStepper) else None

    @property
    def automaton_size(self) -> int:
        """States of the automaton being run: materialized subsets (lazy) or |Q| (normal form given)."""
        return self._stepper.size

    def is_final(self, state: State) -> bool:
        return self._stepper.is_final(state)

    def update(self, event: Event) -> EventStats:
        """Read t_i (i = :attr:`position`) and update D and T (the update phase)."""
        stepper, d, i = self._stepper, self.cces, self.position
        evals0, misses0, nodes0 = stepper.predicate_evaluations, stepper.cache_misses, len(d)
        key = stepper.prepare(event)
        new: dict[State, tuple[Node, Node]] = {}
        ops = 0

        def add(q: State, n1: Node, n2: Node) -> int:
            old = new.get(q)
            if old is None:
                new[q] = (n1, n2)
                return 1
            m1, m2 = old
            d.append(m2, n1)
            new[q] = (m1, n2)
            return 2

        for p, (n1, n2) in self.table.items():
            bullet, circ = stepper.successors(p, key)
            ops += 1
            if bullet is not None:
                n = d.extend(i, n1, n2)
                ops += 1 + add(bullet, n, n)
            if circ is not None:
                ops += add(circ, n1, n2)
        stats = EventStats(i, active=len(self.table), nodes_created=len(d) - nodes0, table_ops=ops + len(new),
                           predicate_evals=stepper.predicate_evaluations - evals0,
                           cache_misses=stepper.cache_misses - misses0)
        self.table = new
        self.position += 1
        total = self.stats
        total.events += 1
        total.nodes_created += stats.nodes_created
        total.table_ops += stats.table_ops
        total.predicate_evals += stats.predicate_evals
        total.max_nodes_per_event = max(total.max_nodes_per_event, stats.nodes_created)
        total.max_work_per_event = max(total.max_work_per_event, stats.work)
        if total.per_event is not None:
            total.per_event.append(stats)
        return stats

    def output_lists(self) -> list[tuple[State, tuple[Node, Node]]]:
        """The pairs ``T[p]`` with p final: their CE sets make up ``⟦A⟧_n(S)`` at the current position."""
        return [(p, pair) for p, pair in self.table.items() if self._stepper.is_final(p)]

    def enumerate_current(self) -> Iterator[ComplexEvent]:
        """Algorithm 1 on every final live list. Lazy: D is partially persistent, so the outputs stay those of
        this position even if consumed after later updates (the CEL paper, footnote 2)."""
        pairs = [pair for _, pair in self.output_lists()]
        stats = self.last_enumeration = EnumerationStats()
        total = self.stats.enumeration
        return self._enumerate(pairs, stats, total)

    def _enumerate(self, pairs: list[tuple[Node, Node]], stats: EnumerationStats,
                   total: EnumerationStats) -> Iterator[ComplexEvent]:
        budget = active()
        for n1, n2 in pairs:
            v0, o0 = stats.visits, stats.outputs
            if budget is None:
                yield from self.cces.enumerate(n1, n2, stats)
            else:  # one unit per output: Algorithm 1's delay is output-linear, so this bounds its time (core.budget)
                for c in self.cces.enumerate(n1, n2, stats):
                    budget.charge(OUTPUTS)
                    yield c
            total.enumerations += 1
            total.visits += stats.visits - v0
            total.outputs += stats.outputs - o0
            total.max_excess = max(total.max_excess, stats.max_excess)
            total.tail = max(total.tail, stats.tail)

    def process(self, event: Event) -> Iterator[ComplexEvent]:
        """Update with ``event`` now; return an iterator over ``⟦A⟧_n(S)`` for its position n."""
        self.update(event)
        return self.enumerate_current()

    def run(self, stream: Iterable[Event]) -> Iterator[frozenset[ComplexEvent]]:
        """``⟦A⟧_n(S)`` for n = 0, 1, … as the stream is read."""
        for event in stream:
            yield frozenset(self.process(event))

    def describe_table(self) -> dict[State, tuple[int | str, int | str]]:
        """T with nodes named by their position (⊥ as "⊥"), as in the Fig. 8 trace."""
        name = self._node_name
        return {p: (name(n1), name(n2)) for p, (n1, n2) in self.table.items()}

    def _node_name(self, n: Node) -> int | str:
        return "⊥" if n == BOTTOM else self.cces.event(n)

    def diagram(self, *, title: str | None = None) -> Diagram:
        """The CCES with Algorithm 2's table T: ``T[q]`` points at its list (first solid, last dashed)."""
        roots = {f"T[{_state_name(q)}]": pair for q, pair in self.table.items()}
        return self.cces.diagram(title=title, roots=roots)

    def describe(self) -> str:
        """The table T (nodes by position, as in the Fig. 8 trace), then the CCES node by node."""
        name = self.cces.node_name
        lines = [repr(self)]
        lines += [f"  T[{_state_name(q)}] = ({name(n1)}, {name(n2)})" for q, (n1, n2) in self.table.items()]
        return "\n".join(lines + [self.cces.describe()])

    def __repr__(self) -> str:
        return (f"CcesEvaluator(after {plural(self.position, 'event')}: {plural(len(self.table), 'active state')}, "
                f"{self.cces!r})")


def _state_name(q: State) -> str:
    """A state of the lazily determinized automaton is a set of CEA states: drawn as ``{p, q}``."""
    return shown(q)


# ================================================================================================ conveniences


def evaluate_cea(cea: CEA, stream: Iterable[Event], **options: Any) -> Iterator[frozenset[ComplexEvent]]:
    """``⟦A⟧_0(S), ⟦A⟧_1(S), …`` by Algorithm 2 (any CEA, via Cor. 9.3); options go to :class:`CcesEvaluator`."""
    yield from CcesEvaluator(cea, **options).run(stream)


def compile_formula(phi: Formula | str) -> CEA:
    """φ (text or AST) → CEA by Theorem 6.2, with Theorem 7.2 for selection strategies at any depth."""
    return compile_with_selection(phi if isinstance(phi, Formula) else parse(phi))


def evaluate_formula(phi: Formula | str, stream: Sequence[Event], **options: Any) -> list[frozenset[ComplexEvent]]:
    """``[⟦φ⟧_0(S), ⟦φ⟧_1(S), …]``: compile φ, then Algorithm 2 on its lazily built normal form."""
    return list(evaluate_cea(compile_formula(phi), stream, **options))




__all__ = ["CcesEvaluator", "CcesStats", "EventStats", "compile_formula", "evaluate_cea", "evaluate_formula"]
