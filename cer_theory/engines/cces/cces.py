"""The evaluation algorithm of seed 000 §9: Compact Complex Event Sets (CCES), Algorithm 1 and Algorithm 2.

* :class:`Cces` is ``D = (N, ⊥, event, first, last, next)`` (spec cel-cea.md §6.2) with the O(1) operations
  ``init``/``extend``/``append`` and :meth:`Cces.enumerate` — Algorithm 1, iterative, output-linear delay.
* :class:`CcesEvaluator` is Algorithm 2 (Theorem 9.1) for a CEA in normal form. Any CEA is first made
  single-variable (Prop. 9.2, :func:`~cer_theory.formalisms.cel.normal_form.single_variable`) and then
  I/O-determinized *lazily* (Prop. 5.5 via
  :class:`~cer_theory.automata.determinize.lazy.LazyDeterminizer`), which is Corollary 9.3. The order matters (§4.4):
  relabelling after determinizing can leave two •-transitions on one type and duplicate outputs.

Everything is instrumented by counting, never timing: :class:`EventStats` (nodes created, table operations,
predicate evaluations per event) and :class:`EnumerationStats` (nodes visited per enumeration and per output).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cer_theory.automata.cea import CEA, State
from cer_theory.formalisms.cel.normal_form import VARIABLE, single_variable
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.core.errors import CerError, UnsupportedError
from cer_theory.core.events import ComplexEvent, Event
from cer_theory.automata.determinize.lazy import LazyDeterminizer
from cer_theory.engines.enumeration import EnumerationStats

Value = TypeVar("Value")

Node = int
BOTTOM: Node = 0
"""⊥: the only sink of G_D; ``CE(⊥) = {∅}``."""
_UNDEFINED = -1


class CcesError(CerError, ValueError):
    """A CCES operation whose precondition fails (seed 000 §9.2: extend, append) or an invalid CCES."""


class Cces:
    """A Compact Complex Event Set ``D = (N, ⊥, event, first, last, next)`` (seed 000 §9.2).

    Nodes are integers, ⊥ is 0; the maps are arrays, so every operation is O(1). ``debug=True`` checks the
    O(|list|) preconditions of :meth:`extend` and :meth:`append` (reachability, positions decrease, next stays
    acyclic); the O(1) precondition of :meth:`append` (``next(n1)`` undefined) is always checked.
    """

    __slots__ = ("_event", "_first", "_last", "_next", "debug", "visits")

    def __init__(self, *, debug: bool = False) -> None:
        self._event: list[int] = [-1]
        self._first: list[Node] = [_UNDEFINED]
        self._last: list[Node] = [_UNDEFINED]
        self._next: list[Node] = [_UNDEFINED]
        self.debug = debug
        self.visits = 0  # nodes visited by every enumeration so far

    # ------------------------------------------------------------------ operations (all O(1))

    @classmethod
    def init(cls, *, debug: bool = False) -> tuple[Cces, Node]:
        """``init() → (D, ⊥)``."""
        return cls(debug=debug), BOTTOM

    @property
    def bottom(self) -> Node:
        return BOTTOM

    def __len__(self) -> int:
        """|N|, ⊥ included."""
        return len(self._event)

    def extend(self, i: int, n1: Node, n2: Node) -> Node:
        """A fresh node n with ``event(n) = i``, ``first(n) = n1``, ``last(n) = n2``, next undefined.
        Requires n1 to reach n2 via next (and, for property 4, i above every child's position)."""
        self._check_node(n1)
        self._check_node(n2)
        if self.debug:
            children = self._list(n1, n2)
            low = [c for c in children if c != BOTTOM and self._event[c] >= i]
            if low:
                raise CcesError(f"extend({i}, {n1}, {n2}): child {low[0]} has position {self._event[low[0]]} ≥ {i}")
        self._event.append(i)
        self._first.append(n1)
        self._last.append(n2)
        self._next.append(_UNDEFINED)
        return len(self._event) - 1

    def append(self, n1: Node, n2: Node) -> None:
        """``next(n1) := n2``; requires ``next(n1)`` undefined (and, in debug mode, that n2 not reach n1)."""
        self._check_node(n1)
        self._check_node(n2)
        if self._next[n1] != _UNDEFINED:
            raise CcesError(f"append({n1}, {n2}): next({n1}) is already {self._next[n1]}")
        if self.debug and self.reaches(n2, n1):
            raise CcesError(f"append({n1}, {n2}): {n2} reaches {n1}, next would become cyclic")
        self._next[n1] = n2

    def _check_node(self, n: Node) -> None:
        if not 0 <= n < len(self._event):
            raise CcesError(f"{n} is not a node of this CCES")

    # ------------------------------------------------------------------ reading

    def event(self, n: Node) -> int:
        return self._event[n]

    def first(self, n: Node) -> Node:
        return self._first[n]

    def last(self, n: Node) -> Node:
        return self._last[n]

    def next(self, n: Node) -> Node | None:
        nxt = self._next[n]
        return None if nxt == _UNDEFINED else nxt

    def reaches(self, n1: Node, n2: Node) -> bool:
        """Whether n1 reaches n2 in Next_D (n1 = n2 included). O(length of the chain)."""
        seen: set[Node] = set()
        n = n1
        while n != n2:
            if n == _UNDEFINED or n in seen:
                return False
            seen.add(n)
            n = self._next[n]
        return True

    def _list(self, n1: Node, n2: Node) -> list[Node]:
        """``list(n1, n2)``: follow next from n1 to n2 (both included)."""
        out = [n1]
        n = n1
        while n != n2:
            n = self._next[n]
            if n == _UNDEFINED or len(out) > len(self._event):
                raise CcesError(f"{n1} does not reach {n2} via next")
            out.append(n)
        return out

    def chain(self, n1: Node, n2: Node) -> list[Node]:
        """``list(n1, n2)`` of the paper."""
        return self._list(n1, n2)

    def children(self, n: Node) -> list[Node]:
        """``list(first(n), last(n))``; ⊥ has none."""
        return [] if n == BOTTOM else self._list(self._first[n], self._last[n])

    def nodes(self) -> range:
        return range(len(self._event))

    # ------------------------------------------------------------------ CE sets by definition (test oracle)

    def _fold(self, roots: Iterable[Node], bottom: Value,
              combine: Callable[[Node, list[Value]], Value]) -> dict[Node, Value]:
        """Values bottom-up over G_D from ⊥ (``bottom``) to ``roots``, in post-order without recursion: G_D paths
        can be as long as the stream."""
        memo: dict[Node, Value] = {BOTTOM: bottom}
        stack = list(roots)
        while stack:
            m = stack[-1]
            if m in memo:
                stack.pop()
                continue
            pending = [c for c in self.children(m) if c not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[m] = combine(m, [memo[c] for c in self.children(m)])
        return memo

    def ce(self, n: Node) -> frozenset[ComplexEvent]:
        """``CE(n)``: the CEs of all paths from n to ⊥ in G_D, computed from the definition (not Algorithm 1)."""
        def extend(m: Node, below: list[frozenset[ComplexEvent]]) -> frozenset[ComplexEvent]:
            return frozenset(ComplexEvent(c | {self._event[m]}) for ces in below for c in ces)

        return self._fold([n], frozenset({ComplexEvent()}), extend)[n]

    def ce_range(self, n1: Node, n2: Node) -> frozenset[ComplexEvent]:
        """``CE(n1, n2) = ⋃_{n ∈ list(n1,n2)} CE(n)``."""
        return frozenset().union(*(self.ce(n) for n in self._list(n1, n2)))

    def path_count(self, n1: Node, n2: Node) -> int:
        """The number of paths to ⊥ starting in ``list(n1, n2)``; property 5 says it equals ``|CE(n1,n2)|``."""
        heads = list(self._list(n1, n2))
        counts = self._fold(heads, 1, lambda _m, below: sum(below))
        return sum(counts[n] for n in heads)

    def check_valid(self) -> None:
        """Validity conditions 1–4 of seed 000 §9.2 (5 is per pair: compare :meth:`path_count` with
        :meth:`ce_range`). Raises :class:`CcesError` naming the violated condition."""
        # 1. Next_D is acyclic: every node has out-degree ≤ 1, so walk each chain with colours.
        done: set[Node] = set()
        for start in self.nodes():
            path: list[Node] = []
            on_path: set[Node] = set()
            n = start
            while n != _UNDEFINED and n not in done:
                if n in on_path:
                    raise CcesError(f"condition 1: next is cyclic through {n}")
                on_path.add(n)
                path.append(n)
                n = self._next[n]
            done.update(path)
        for n in self.nodes():
            if n == BOTTOM:
                continue
            # 2. first(n) reaches last(n).
            if not self.reaches(self._first[n], self._last[n]):
                raise CcesError(f"condition 2: first({n}) does not reach last({n})")
            # 4. positions strictly decrease towards children (this also makes G_D acyclic: condition 3).
            for c in self.children(n):
                if c != BOTTOM and self._event[c] >= self._event[n]:
                    raise CcesError(f"condition 4: child {c} of {n} has position {self._event[c]} ≥ "
                                    f"{self._event[n]}")
        # 3. ⊥ is the only sink: every other node has a non-empty children list by condition 2.

    # ------------------------------------------------------------------ Algorithm 1

    def enumerate(self, n1: Node, n2: Node, stats: EnumerationStats | None = None) -> Iterator[ComplexEvent]:
        """Algorithm 1 (seed 000 §9.2): yield every C' ∈ CE(n1, n2), each once if the CCES is valid.

        The recursion ``ENUMERATE(first(n1), last(n1), C ∪ {event(n1)})`` then ``ENUMERATE(next(n1), n2, C)``
        runs on an explicit stack (the next chains grow with the stream, spec §6.2). C is a shared cons list, so
        a frame costs O(1) and no backtracking work is ever done. Output-linear delay, by counting: every pop of
        a node ≠ ⊥ pushes its first child on top, so the pops after an output form one descent that adds one
        position per pop to the next output C and ends at ⊥; hence at most ``|C| + 1`` visits per output, and
        none after the last one (every pushed frame yields at least one output, as ⊥ is the only sink).
        """
        ev, first, last, nxt = self._event, self._first, self._last, self._next
        if stats is not None:
            stats.enumerations += 1
        stack: list[tuple[Node, Node, Any]] = [(n1, n2, None)]
        since = 0
        while stack:
            n, end, c = stack.pop()
            since += 1
            self.visits += 1
            if n != end:
                sibling = nxt[n]
                if sibling == _UNDEFINED:
                    raise CcesError(f"enumerate: the list ends at {n} before reaching {end}")
                stack.append((sibling, end, c))
            if n == BOTTOM:
                positions = []
                while c is not None:
                    positions.append(c[0])
                    c = c[1]
                if stats is not None:
                    stats.visits += since
                    stats.outputs += 1
                    stats.max_excess = max(stats.max_excess, since - len(positions))
                    if stats.delays is not None:
                        stats.delays.append((since, len(positions)))
                since = 0
                yield ComplexEvent(positions)
            else:
                stack.append((first[n], last[n], (ev[n], c)))
        if stats is not None:
            stats.visits += since
            stats.tail = max(stats.tail, since)

    # ------------------------------------------------------------------ drawing

    def to_dot(self, *, title: str | None = None, roots: Mapping[str, tuple[Node, Node]] | None = None,
               rankdir: str = "RL") -> str:
        """Graphviz DOT: one box per node labelled by its position (⊥ for ⊥), ``first`` edges solid, ``last``
        edges dashed, ``next`` edges dotted blue; ``roots`` (e.g. Algorithm 2's table) point at their lists."""
        from cer_theory.core.drawing import _quote

        counts: dict[int, int] = {}
        for n in self.nodes():
            counts[self._event[n]] = counts.get(self._event[n], 0) + 1
        lines = [f"digraph {_quote(title or 'CCES')} {{", f"  rankdir={rankdir};",
                 '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=12];',
                 '  edge [fontname="Helvetica", fontsize=9];']
        if title:
            lines.append(f"  labelloc=t; label={_quote(title)};")
        for n in self.nodes():
            if n == BOTTOM:
                lines.append(f"  n0 [label={_quote('⊥')}, shape=plaintext];")
                continue
            label = str(self._event[n]) if counts[self._event[n]] == 1 else f"{self._event[n]} (#{n})"
            lines.append(f"  n{n} [label={_quote(label)}];")
        for n in self.nodes():
            if n != BOTTOM:
                if self._first[n] == self._last[n]:
                    lines.append(f"  n{n} -> n{self._first[n]} [label=\"first/last\"];")
                else:
                    lines.append(f"  n{n} -> n{self._first[n]} [label=\"first\"];")
                    lines.append(f"  n{n} -> n{self._last[n]} [label=\"last\", style=dashed];")
            if self._next[n] != _UNDEFINED:
                lines.append(f"  n{n} -> n{self._next[n]} [label=\"next\", style=dotted, color=blue, "
                             "constraint=false];")
        for k, (name, (m1, m2)) in enumerate((roots or {}).items()):
            lines.append(f"  r{k} [label={_quote(name)}, shape=plaintext];")
            lines.append(f"  r{k} -> n{m1} [color=gray];")
            if m2 != m1:
                lines.append(f"  r{k} -> n{m2} [color=gray, style=dashed];")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"Cces({len(self) - 1} nodes + ⊥)"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return _drawing_bundle(self.to_dot(), repr(self))


def _drawing_bundle(dot: str, text: str) -> dict[str, str]:
    """Jupyter's view: the Graphviz drawing, with the text form as fallback."""
    from cer_theory.core.drawing import render_svg

    return {"image/svg+xml": render_svg(dot), "text/plain": text}


# ================================================================================================ Algorithm 2


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
        # Prop 9.2 first, then Prop 5.5 (spec §4.4). Trimming is linear and only drops states from which no
        # run reaches F: such runs never output, so dom(T) stays smaller and the outputs are unchanged.
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


class CcesEvaluator:
    """Algorithm 2 of seed 000 (Theorem 9.1), streaming: :meth:`process` one event, get its outputs.

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
        this position even if consumed after later updates (seed 000, footnote 2)."""
        pairs = [pair for _, pair in self.output_lists()]
        stats = self.last_enumeration = EnumerationStats()
        total = self.stats.enumeration
        return self._enumerate(pairs, stats, total)

    def _enumerate(self, pairs: list[tuple[Node, Node]], stats: EnumerationStats,
                   total: EnumerationStats) -> Iterator[ComplexEvent]:
        for n1, n2 in pairs:
            v0, o0 = stats.visits, stats.outputs
            yield from self.cces.enumerate(n1, n2, stats)
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

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return _drawing_bundle(self.to_dot(), f"table T after {self.position} events: {self.describe_table()}")

    def to_dot(self, *, title: str | None = None) -> str:
        """The CCES with Algorithm 2's table T: ``T[q]`` points at its list (first solid, last dashed)."""
        def state_name(q: State) -> str:
            if isinstance(q, frozenset):
                return "{" + ",".join(sorted(map(str, q))) + "}"
            return str(q)

        return self.cces.to_dot(title=title, roots={f"T[{state_name(q)}]": pair for q, pair in self.table.items()})


# ================================================================================================ conveniences


def evaluate_cea(cea: CEA, stream: Iterable[Event], **options: Any) -> Iterator[frozenset[ComplexEvent]]:
    """``⟦A⟧_0(S), ⟦A⟧_1(S), …`` by Algorithm 2 (any CEA, via Cor. 9.3); options go to :class:`CcesEvaluator`."""
    yield from CcesEvaluator(cea, **options).run(stream)


def compile_formula(phi: Any) -> CEA:
    """φ (text or AST) → CEA by Theorem 6.2, with Theorem 7.2 for selection strategies at any depth."""
    from cer_theory.formalisms.cel.ast import Formula

    if not isinstance(phi, Formula):
        from cer_theory.formalisms.cel.parser import parse

        phi = parse(phi)
    from cer_theory.formalisms.cel.selection import compile_with_selection

    return compile_with_selection(phi)


def evaluate_formula(phi: Any, stream: Sequence[Event], **options: Any) -> list[frozenset[ComplexEvent]]:
    """``[⟦φ⟧_0(S), ⟦φ⟧_1(S), …]``: compile φ, then Algorithm 2 on its lazily built normal form."""
    return list(evaluate_cea(compile_formula(phi), stream, **options))


__all__ = ["BOTTOM", "Cces", "CcesError", "CcesEvaluator", "CcesStats", "EnumerationStats", "EventStats",
           "compile_formula", "evaluate_cea", "evaluate_formula"]
