"""``MATCH_RECOGNIZE`` compiled: an ordered NFA of the pattern and its backtracking run.

The pattern becomes a Thompson-style automaton whose states list their edges *in order of preference*
(TR 19075-5 §4.12): an alternation's branches left to right; at a greedy quantifier's optional iteration the edge
into the body before the edge out, at a reluctant one the other way round. Bounded quantifiers ``{n,m}`` are
unrolled (n mandatory copies, then m−n nested optional ones), unbounded ones loop. An optional iteration is
bracketed by ``enter``/``check`` edges: the iteration must consume a row (D222), which also makes every cycle of
the automaton consume a row, so the run terminates.

The unrolling is counted before it is built (:func:`unrolled_states`): ``A{1000000000}`` or nested ``{10}``s are
refused by the work budget (``core.budget.reserve``) before a state exists, and the backtracking run charges one
unit per path step it tries, so a pattern whose paths explode (``(A|A)*`` nested) stops at the budget too.

The run from row r is a depth-first search of the automaton's paths in edge order, classifying one row per
variable edge when the row satisfies the variable's ``DEFINE`` condition under running semantics (TR 19075-5
§4.8, §4.14) and stays within Flink's ``WITHIN``: the first accepting path found is the most preferred match —
how the technical report explains preferment, as the order a backtracking matcher tries the alternatives. The
brute-force semantics (:mod:`.semantics`) instead enumerates every derivation with its choice sequence and takes
the least; the property tests check that the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cer_theory.core.budget import active, reserve
from cer_theory.core.drawing import Diagram, Drawable
from cer_theory.core.drawing.dot import Edge as DotEdge, Node
from cer_theory.core.events import Event
from cer_theory.formalisms.rpr.ast import Alt, Concat, Pattern, Quant, Query, Var
from cer_theory.formalisms.rpr.printer import format_pattern
from cer_theory.formalisms.rpr.semantics import Labels, run_with, running_term, truth, within


@dataclass(frozen=True, slots=True)
class Edge:
    """``kind`` is ``eps``, ``var`` (classify one row as ``label``), ``enter`` (an optional iteration of loop
    ``label`` begins: remember the row) or ``check`` (it ends: it must have consumed a row)."""

    kind: str
    target: int
    label: str = ""


@dataclass
class OrderedNFA(Drawable):
    """The ordered NFA of ``query``'s pattern: ``edges[s]`` in order of preference, from ``initial`` to
    ``final``."""

    query: Query
    edges: list[list[Edge]] = field(default_factory=list)
    initial: int = 0
    final: int = 0
    loops: int = 0

    def state(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def first_match(self, q: Query, rows: Sequence[Event], start: int, *, certain: bool = False,
                    prev_within_match: bool = False) -> Labels | None:
        """The first accepting path from row ``start`` in depth-first edge order, as the labels of its rows.

        With ``certain``, a streaming matcher's view: a path that still wants a row when the rows run out might
        become a more preferred match if the input went on, so when such a path comes before the first
        accepting one there is no match yet (None). ``prev_within_match``: as in
        :func:`~cer_theory.formalisms.rpr.semantics.running_term`."""
        # a stack of (state, labels, marks); alternatives are pushed in reverse so the preferred one pops first
        stack: list[tuple[int, Labels, tuple[tuple[str, int], ...]]] = [(self.initial, (), ())]
        budget = active()
        while stack:
            if budget is not None:
                budget.charge(RUN)  # one unit per path step tried: backtracking can be exponential
            s, labels, marks = stack.pop()
            if s == self.final:
                return labels
            here = start + len(labels)
            for e in reversed(self.edges[s]):
                if e.kind == "eps":
                    stack.append((e.target, labels, marks))
                elif e.kind == "enter":
                    stack.append((e.target, labels, marks + ((e.label, here),)))
                elif e.kind == "check":
                    entered = dict(marks)[e.label]
                    if here > entered:
                        stack.append((e.target, labels, marks))
                elif here == len(rows):
                    if certain:
                        return None
                elif here < len(rows):
                    longer = labels + (e.label,)
                    if (truth(q.define(e.label), lambda t: running_term(t, rows, start, longer,
                                                                        prev_within_match=prev_within_match)) is True
                            and within(q, rows, start, here)):
                        stack.append((e.target, longer, marks))
        return None

    def run(self, stream: Sequence[Event]) -> list[frozenset]:
        return run_with(self.query, stream, self.first_match)

    def diagram(self, *, title: str | None = None) -> Diagram:
        """The NFA drawn with each state's edges numbered in order of preference (1 is tried first)."""
        nodes = [Node("start", "", {"shape": "point"})]
        nodes += [Node(str(s), str(s), {"shape": "doublecircle"} if s == self.final else {})
                  for s in range(len(self.edges))]
        edges = [DotEdge("start", str(self.initial))]
        for s, out in enumerate(self.edges):
            for rank, e in enumerate(out, 1):
                text = e.label if e.kind == "var" else ("ε" if e.kind == "eps" else f"{e.kind} {e.label}")
                edges.append(DotEdge(str(s), str(e.target), f"{rank}: {text}"))
        return Diagram("rpr", tuple(nodes), tuple(edges), title=title or format_pattern(self.query.pattern))

    def describe(self) -> str:
        return self.to_dot()


def _fragment(nfa: OrderedNFA, p: Pattern) -> tuple[int, int]:
    """Entry and exit states of ``p``'s sub-automaton."""
    if isinstance(p, Var):
        s, t = nfa.state(), nfa.state()
        nfa.edges[s].append(Edge("var", t, p.name))
        return s, t
    if isinstance(p, Concat):
        entry, exit_ = _fragment(nfa, p.parts[0])
        for q in p.parts[1:]:
            a, b = _fragment(nfa, q)
            nfa.edges[exit_].append(Edge("eps", a))
            exit_ = b
        return entry, exit_
    if isinstance(p, Alt):
        s, t = nfa.state(), nfa.state()
        for b in p.branches:
            a, z = _fragment(nfa, b)
            nfa.edges[s].append(Edge("eps", a))
            nfa.edges[z].append(Edge("eps", t))
        return s, t
    return _quantified(nfa, p)


def _quantified(nfa: OrderedNFA, p: Quant) -> tuple[int, int]:
    entry = exit_ = nfa.state()
    for _ in range(p.low):  # the mandatory iterations, unrolled
        a, b = _fragment(nfa, p.body)
        nfa.edges[exit_].append(Edge("eps", a))
        exit_ = b
    out = nfa.state()
    optional = None if p.high is None else p.high - p.low
    at = exit_
    while optional is None or optional > 0:
        loop = f"L{nfa.loops}"
        nfa.loops += 1
        a, b = _fragment(nfa, p.body)
        into, leave = Edge("enter", a, loop), Edge("eps", out)
        nfa.edges[at].extend([into, leave] if p.greedy else [leave, into])
        after = nfa.state()
        nfa.edges[b].append(Edge("check", after, loop))
        if optional is None:  # unbounded: back to the choice
            nfa.edges[after].append(Edge("eps", at))
            break
        optional -= 1
        at = after
    else:
        nfa.edges[at].append(Edge("eps", out))
    return entry, out


BUILD = "the ordered NFA of the row pattern (its bounded quantifiers unrolled)"
RUN = "the ordered NFA's backtracking run"
"""What the work budget's messages call the construction and the run."""


def unrolled_states(p: Pattern) -> int:
    """The number of states :func:`_fragment` builds for ``p``, computed without building them: a bounded
    quantifier ``{n,m}`` makes m copies of its body (n mandatory, m−n optional), so the count multiplies along
    nested quantifiers."""
    if isinstance(p, Var):
        return 2
    if isinstance(p, Concat):
        return sum(unrolled_states(q) for q in p.parts)
    if isinstance(p, Alt):
        return 2 + sum(unrolled_states(b) for b in p.branches)
    body = unrolled_states(p.body)
    optional = 1 if p.high is None else p.high - p.low  # an unbounded one loops on one copy
    return 2 + p.low * body + optional * (body + 1)


def compile_automaton(q: Query) -> OrderedNFA:
    """The ordered NFA of ``q`` (its pattern; conditions are read from ``q`` during the run). Its size is charged
    to the work budget before anything is built (``core.budget.reserve``): without an active budget, more than
    ``core.errors.DEFAULT_BUDGET`` states are refused."""
    reserve(BUILD, unrolled_states(q.pattern))
    nfa = OrderedNFA(q)
    entry, exit_ = _fragment(nfa, q.pattern)
    nfa.initial, nfa.final = entry, exit_
    return nfa


__all__ = ["BUILD", "Edge", "OrderedNFA", "RUN", "compile_automaton", "unrolled_states"]
