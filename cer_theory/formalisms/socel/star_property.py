"""Deciding the *-property of a UCEA (the SO-CEL paper §5; the decision procedure is the toolkit's, docs/decisions.md).

A processing function f has the *-property (the SO-CEL paper §5.1, in the form of the CEL paper Def. 8.4) iff for all S, n, C:
(a) ``C ∈ f(S,n) ⇒ n ∈ supp(C)``; (b) ``C ∈ f(S,n)`` and ``(S,C) =* (S',C')`` imply ``C' ∈ f(S', max C')``,
where ``=*`` is the order isomorphism of the supports that carries tuples *and labels* along.

By the SO-CEL paper Prop 5.4 with the CEL paper Prop 8.8, a UCEA A has the *-property iff ``⟦A⟧_n(S) = ⟦A⟧*_n(S)`` for
all S, n. A pair ``(S[0..n], C)`` is the word ``(t0,L0)…(tn,Ln)`` with ``Lk = {A | k ∈ C(A)}``; letters are the
Z3 minterms of A's predicates × the label sets of Δ (and ∅). The normal semantics follows the transitions with
exactly the letter's label set; the *-semantics (the automaton A* of skips and marking steps) keeps its set of
*-run ends on a ∅ letter and moves it by the marking transitions on a labelled one. A breadth-first search of
the two subset constructions in product finds a **shortest** distinguishing word, which becomes a concrete
counterexample (one witness tuple per minterm) and is re-checked by replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cer_theory.automata.cea import State
from cer_theory.core.budget import charge
from cer_theory.core.drawing import Subset
from cer_theory.core.errors import AutomatonError, DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.core.predicates.solver import minterms, witness
from cer_theory.formalisms.socel.ucea import UCEA


@dataclass(frozen=True)
class StarPropertyAnswer:
    """``holds``, or a counterexample: a stream, a position n and a complex event C that is in exactly one of
    ``⟦A⟧_n(S)`` (``in_normal``) and ``⟦A⟧*_n(S)`` (``in_star``)."""

    holds: bool
    stream: Stream | None = None
    n: int | None = None
    complex_event: Valuation | None = None
    in_normal: bool = False
    in_star: bool = False
    explored: int = 0

    @property
    def violated_condition(self) -> str | None:
        """"(a)" when C is output at n without containing n; otherwise "(b)": compressing S to S[C] changes
        membership (the SO-CEL paper §5.1)."""
        if self.holds:
            return None
        assert self.complex_event is not None
        return "(a)" if self.in_normal and self.n not in self.complex_event.support() else "(b)"

    def word(self) -> list[tuple[str, frozenset[str]]]:
        """The counterexample as ``[(type, labels), …]``, printed ``[('R', {R}), ('T', ∅)]`` (labels are
        :class:`~cer_theory.core.drawing.Subset`: frozensets written as the paper writes sets)."""
        assert self.stream is not None and self.complex_event is not None
        c = self.complex_event
        return [(e.type, Subset(a for a, ps in c.items() if k in ps)) for k, e in enumerate(self.stream)]

    def replays(self, automaton: UCEA) -> bool:
        """The counterexample is one: C is in exactly the set it claims, on this very stream."""
        if self.holds:
            return True
        assert self.stream is not None and self.n is not None and self.complex_event is not None
        return (automaton.accepts(self.stream, self.n, self.complex_event) == self.in_normal
                and automaton.star_accepts(self.stream, self.n, self.complex_event) == self.in_star
                and self.in_normal != self.in_star)

    def __str__(self) -> str:
        if self.holds:
            return "has the *-property: ⟦A⟧_n(S) = ⟦A⟧*_n(S) for every S and n (the SO-CEL paper §5)"
        where, other = ("⟦A⟧_n(S)", "⟦A⟧*_n(S)") if self.in_normal else ("⟦A⟧*_n(S)", "⟦A⟧_n(S)")
        word = " ".join(f"({t},{{{','.join(sorted(ls))}}})" if ls else f"({t},∅)" for t, ls in self.word())
        return (f"lacks the *-property (condition {self.violated_condition} fails)\n  word: {word}\n"
                f"  at n = {self.n}, C = {self.complex_event!r} is in {where} but not in {other}")


def has_star_property(a: UCEA, *, budget: int | None = DEFAULT_BUDGET) -> StarPropertyAnswer:
    """Decide the *-property of a UCEA (the SO-CEL paper §5) and return the shortest counterexample if it fails.

    Raises :class:`SizeBudgetExceeded` past ``budget`` explored pairs (PSPACE in general: NFA equivalence)."""
    preds = a.predicates()
    types = minterms(preds)
    index = {p: k for k, p in enumerate(preds)}
    label_sets = tuple(sorted({t.labels for t in a.transitions} | {frozenset()}, key=lambda s: (len(s), sorted(s))))
    # succ[(m, L)][p]: targets of the transitions (p, P, L, q) with minterm m ⊆ P.
    succ: dict[tuple[int, frozenset[str]], dict[State, set[State]]] = {}
    for m, mt in enumerate(types):
        positive = set(mt.positives)
        for t in a.transitions:
            if index[t.predicate] in positive:
                succ.setdefault((m, t.labels), {}).setdefault(t.source, set()).add(t.target)

    def post(states: frozenset, letter: tuple[int, frozenset[str]]) -> frozenset:
        table = succ.get(letter, {})
        return frozenset().union(*(table.get(p, ()) for p in states))

    start = (frozenset(a.initial), frozenset(a.initial))
    parent: dict[tuple[frozenset, frozenset], tuple | None] = {start: None}
    queue = deque([start])
    while queue:
        pair = queue.popleft()
        x, y = pair
        charge("*-property decision", 1 + len(types) * len(label_sets))  # core.budget: a pair and its letters
        for m in range(len(types)):
            for labels in label_sets:
                letter = (m, labels)
                x2 = post(x, letter)
                y2 = post(y, letter) if labels else y  # A*: a ∅ letter is a skip, a labelled one a marking step
                if bool(x2 & a.final) != (bool(labels) and bool(y2 & a.final)):
                    return _counterexample(a, types, parent, pair, letter, len(parent))
                nxt = (x2, y2)
                if nxt not in parent:
                    parent[nxt] = (pair, letter)
                    if budget is not None and len(parent) > budget:
                        raise SizeBudgetExceeded("*-property decision", budget, len(parent))
                    queue.append(nxt)
    return StarPropertyAnswer(True, explored=len(parent))


def _counterexample(a: UCEA, types, parent, pair, letter, explored: int) -> StarPropertyAnswer:
    word = [letter]
    node = parent[pair]
    while node is not None:
        pair, step = node
        word.append(step)
        node = parent[pair]
    word.reverse()
    stream = Stream(witness(types[m].predicate) for m, _ in word)
    c = Valuation({label: [k for k, (_, ls) in enumerate(word) if label in ls]
                   for label in set().union(*(ls for _, ls in word))})
    return _answer(a, stream, len(word) - 1, c, explored)


def _answer(a: UCEA, stream: Stream, n: int, c: Valuation, explored: int = 0) -> StarPropertyAnswer:
    normal, star = a.accepts(stream, n, c), a.star_accepts(stream, n, c)
    if normal == star:
        raise AutomatonError(f"internal error: {c!r} at n={n} on {stream!r} is not a counterexample")
    return StarPropertyAnswer(False, stream, n, c, normal, star, explored)


def star_property_brute_force(a: UCEA, streams: Iterable[Sequence[Event]]) -> StarPropertyAnswer:
    """Test oracle: compare ``⟦A⟧_n(S)`` with ``⟦A⟧*_n(S)`` on every given stream and position; ``holds`` means
    only "no difference on these streams"."""
    for s in streams:
        stream = s if isinstance(s, Stream) else Stream(s)
        for n, (normal, star) in enumerate(zip(a.run(stream), a.star_run(stream))):
            if normal != star:
                return _answer(a, stream[: n + 1], n, min(normal ^ star, key=Valuation.sort_key))
    return StarPropertyAnswer(True)


__all__ = ["StarPropertyAnswer", "has_star_property", "star_property_brute_force"]
