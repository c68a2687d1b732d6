"""The *-semantics of CEA and a decision procedure for the *-property: the CEL paper, Def. 8.4, Def. 8.7, Prop. 8.8.

*-semantics (Def. 8.7; the paper is 1-based there, we use 0-based positions throughout): a *-run uses
marking transitions only, at strictly increasing positions ``i1 < … < ik = n`` with arbitrary gaps;
``μ(A) = {i_j | A ∈ L_j}``. Such a run never inspects an event it does not mark.

*-property (Def. 8.4): ``C ∈ f(S,n) ⇒ n ∈ C``, and membership transfers along ``(S,C) =_* (S',C')``.
The ⟦A⟧* semantics always has it, and Prop. 8.8 gives the converse direction, so a CEA's stream function has
the *-property iff ``⟦A⟧_n(S) = ⟦A⟧*_n(S)`` for all S and n (Prop. 8.8 and Def. 8.7). That equality is decided
here at the complex-event level by our procedure (docs/decisions.md D14; not in the CEL or SO-CEL papers): a pair
``(S[0..n], C)`` is the word ``(t0,b0)…(tn,bn)`` with ``b_k = [k ∈ C]``, letters are Z3-pruned minterms of the
CEA's predicates × {marked, unmarked}, and the two automata are determinized on the fly and searched in product.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cer_theory.automata.cea import CEA, State
from cer_theory.core import budget as work
from cer_theory.core.errors import AutomatonError, SizeBudgetExceeded
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.core.predicates.solver import minterms, witness

DEFAULT_BUDGET = 100_000
"""Default bound on the number of product states explored by :func:`has_star_property`."""


# ---------------------------------------------------------------------------------------------- Def. 8.7


def _valuation(mu: frozenset[tuple[str, int]]) -> Valuation:
    grouped: dict[str, set[int]] = {}
    for var, pos in mu:
        grouped.setdefault(var, set()).add(pos)
    return Valuation(grouped)


def star_run(cea: CEA, stream: Sequence[Event]) -> list[frozenset[Valuation]]:
    """``[⟦A⟧*_0(S), ⟦A⟧*_1(S), …]`` (the CEL paper, Def. 8.7, 0-based: the first *-position may be 0).

    ``alive`` holds ``(q, μ)`` for the initial states and for every *-run ending before n; at n each of them may
    take one marking transition that reads ``S[n]``, which is exactly a *-run ending at n.
    """
    alive: set[tuple[State, frozenset]] = {(q, frozenset()) for q in cea.initial}
    out: list[frozenset[Valuation]] = []
    for n, event in enumerate(stream):
        fires: dict = {}  # each predicate evaluated once per event
        step: set[tuple[State, frozenset]] = set()
        for q, mu in alive:
            for t in cea.out(q):
                if t.labels and fires.setdefault(t.predicate, t.predicate(event)):
                    step.add((t.target, mu | {(v, n) for v in t.labels}))
        work.charge("the *-semantics run (Def. 8.7)", len(step))  # core.budget: each *-run kept, exponentially many
        out.append(frozenset(_valuation(mu) for q, mu in step if q in cea.final))
        alive |= step
    return out


def star_run_complex_events(cea: CEA, stream: Sequence[Event]) -> list[frozenset[ComplexEvent]]:
    """``[⟦A⟧*_0(S), ⟦A⟧*_1(S), …]`` at the complex-event level: ``{sup μ}`` per position."""
    return [frozenset(m.support() for m in vals) for vals in star_run(cea, stream)]


def star_valuations(cea: CEA, stream: Sequence[Event], n: int) -> frozenset[Valuation]:
    """``⟦A⟧*ᵛ_n(S)``."""
    return star_run(cea, stream[: n + 1])[n]


def star_complex_events(cea: CEA, stream: Sequence[Event], n: int) -> frozenset[ComplexEvent]:
    """``⟦A⟧*_n(S)``."""
    return star_run_complex_events(cea, stream[: n + 1])[n]


# ---------------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class StarPropertyResult:
    """Whether ``⟦A⟧_n(S) = ⟦A⟧*_n(S)`` for all S, n; otherwise a pair (S, n) and a complex event C in exactly
    one of the two sets (``in_normal`` / ``in_star`` say which)."""

    holds: bool
    stream: Stream | None = None
    n: int | None = None
    complex_event: ComplexEvent | None = None
    in_normal: bool = False
    in_star: bool = False
    explored: int = 0  # product states visited by the decision procedure (0 for brute force)

    @property
    def violated_condition(self) -> str | None:
        """Which clause of Def. 8.4 the counterexample breaks (clauses (a)/(b); docs/decisions.md D14):
        "(a)" when C is output without containing n, "(b)" otherwise (compress S to S[C], where membership changes)."""
        if self.holds:
            return None
        assert self.complex_event is not None
        return "(a)" if self.in_normal and self.n not in self.complex_event else "(b)"

    def __str__(self) -> str:
        if self.holds:
            return "has the *-property: ⟦A⟧_n(S) = ⟦A⟧*_n(S) for every S and n (the CEL paper, Def. 8.4, Prop. 8.8)"
        assert self.stream is not None
        where, other = ("⟦A⟧_n(S)", "⟦A⟧*_n(S)") if self.in_normal else ("⟦A⟧*_n(S)", "⟦A⟧_n(S)")
        events = " ".join(f"{k}:{e!r}" for k, e in enumerate(self.stream))
        return (f"lacks the *-property (Def. 8.4 {self.violated_condition} fails)\n"
                f"  stream: {events}\n"
                f"  at n = {self.n}, C = {self.complex_event!r} is in {where} but not in {other}")


def _result(cea: CEA, stream: Stream, n: int, c: ComplexEvent, explored: int = 0) -> StarPropertyResult:
    normal = c in cea.complex_events(stream, n)
    star = c in star_complex_events(cea, stream, n)
    if normal == star:
        raise AutomatonError(f"internal error: {c!r} at n={n} on {stream!r} is not a counterexample")
    return StarPropertyResult(False, stream, n, c, normal, star, explored)


# ---------------------------------------------------------------------------------------------- decision


def has_star_property(cea: CEA, *, budget: int | None = DEFAULT_BUDGET) -> StarPropertyResult:
    """Decide whether the stream function of ``cea`` has the *-property (the CEL paper, Def. 8.4), i.e. whether
    ``⟦A⟧_n(S) = ⟦A⟧*_n(S)`` at the complex-event level for all S and n (Prop. 8.8).

    Algorithm (ours, docs/decisions.md D14, at the CE level). Alphabet: the Z3-pruned minterms m of the
    CEA's predicates × {marked, unmarked}. Two automata read the word ``(m0,b0)…(mn,bn)``:

    * normal semantics: state sets X ⊆ Q; ``(m, b)`` follows the transitions ``(p,P,L,q)`` with ``m ⊆ P`` and
      ``(L ≠ ∅) = b``; accept iff ``X ∩ F ≠ ∅``;
    * *-semantics: the automaton ``A*`` on ``Q × {0,1}`` (skip with flag 0, take a marking transition with
      flag 1; final ``F × {1}``). After a letter every flag equals b, so its determinized state is a set Y ⊆ Q
      (all *-run ends so far): a marked letter maps Y to its marking successors, an unmarked one keeps Y;
      accept iff b and ``Y ∩ F ≠ ∅``.

    A breadth-first search over the reachable pairs (X, Y) stops at the first letter after which exactly one
    side accepts: a shortest distinguishing word. It becomes a concrete counterexample with one witness event
    per minterm (``witness``), which is re-checked against both semantics. Raises :class:`SizeBudgetExceeded`
    past ``budget`` pairs, or past the active work budget (:mod:`cer_theory.core.budget`). Worst case exponential in |Q| (NFA equivalence is PSPACE-complete).
    """
    preds = cea.predicates()
    types = minterms(preds)
    index = {p: k for k, p in enumerate(preds)}
    # succ[m][b][p]: the states reached from p by transitions that read minterm m with marking flag b.
    succ: list[tuple[dict[State, frozenset], dict[State, frozenset]]] = []
    for m in types:
        work.charge("*-property decision", 1 + len(cea.transitions))  # core.budget: the table of one letter
        positive = set(m.positives)
        by_flag: tuple[dict[State, set], dict[State, set]] = ({}, {})
        for t in cea.transitions:
            if index[t.predicate] in positive:
                by_flag[bool(t.labels)].setdefault(t.source, set()).add(t.target)
        succ.append(tuple({p: frozenset(qs) for p, qs in d.items()} for d in by_flag))  # type: ignore[misc]

    def post(states: frozenset, m: int, b: bool) -> frozenset:
        table = succ[m][b]
        return frozenset().union(*(table.get(p, ()) for p in states))

    start = (frozenset(cea.initial), frozenset(cea.initial))
    parent: dict[tuple[frozenset, frozenset], tuple[tuple[frozenset, frozenset], tuple[int, bool]] | None] = {
        start: None}
    queue = deque([start])
    while queue:
        pair = queue.popleft()
        x, y = pair
        work.charge("*-property decision", 1 + 2 * len(types))  # a pair and its letters
        for m in range(len(types)):
            for b in (True, False):
                x2 = post(x, m, b)
                y2 = post(y, m, True) if b else y
                if bool(x2 & cea.final) != (b and bool(y2 & cea.final)):
                    return _counterexample(cea, types, parent, pair, (m, b), len(parent))
                nxt = (x2, y2)
                if nxt not in parent:
                    parent[nxt] = (pair, (m, b))
                    if budget is not None and len(parent) > budget:
                        raise SizeBudgetExceeded("*-property decision", budget, len(parent))
                    queue.append(nxt)
    return StarPropertyResult(True, explored=len(parent))


def _counterexample(cea: CEA, types, parent, pair, letter: tuple[int, bool], explored: int) -> StarPropertyResult:
    word = [letter]
    node = parent[pair]
    while node is not None:
        pair, step = node
        word.append(step)
        node = parent[pair]
    word.reverse()
    stream = Stream(witness(types[m].predicate) for m, _ in word)
    c = ComplexEvent(k for k, (_, b) in enumerate(word) if b)
    return _result(cea, stream, len(word) - 1, c, explored)


# ---------------------------------------------------------------------------------------------- brute force


def star_property_brute_force(cea: CEA, streams: Iterable[Sequence[Event]]) -> StarPropertyResult:
    """Compare ``⟦A⟧_n(S)`` with ``⟦A⟧*_n(S)`` on every given stream and position (a test oracle).

    ``holds`` means only "no difference on these streams"; otherwise the first difference found (smallest n,
    then the complex event first in sorted order).
    """
    for s in streams:
        stream = s if isinstance(s, Stream) else Stream(s)
        normal, star = cea.run_complex_events(stream), star_run_complex_events(cea, stream)
        for n, (a, b) in enumerate(zip(normal, star)):
            if a != b:
                c = min(a ^ b, key=lambda ce: (len(ce), ce.positions))
                return _result(cea, stream[: n + 1], n, c)
    return StarPropertyResult(True)


__all__ = ["star_run", "star_run_complex_events", "star_valuations", "star_complex_events", "StarPropertyResult",
           "has_star_property", "star_property_brute_force", "DEFAULT_BUDGET"]
