"""Inert bit vectors: the events the engine may skip in bulk (docs/decisions.md D120).

CORE (the CORE paper, *CORE: a Complex Event Recognition Engine*, §4.3–4.4) reads an event only through its bit vector
over the CEA's predicates; Algorithm 1's update then moves every state of T by the determinized automaton. Under
skip-till-any (the CEL paper, *A Formal Framework for Complex Event Recognition*, §7: the strategy ALL, whose CEA
waits in a state by a TRUE self-loop that does not mark), most events of a selective query move nothing: no run
starts, no marked transition is enabled, and every waiting state stays where it is.

A bit vector v is **inert** for a CEA A = (Q, Δ, I, F) when, reading it from the transitions of A (never from the
query text):

1. no initial state has a transition enabled by v (no run starts: no bottom node, nothing enters T);
2. every transition enabled by v, from any state, is an unmarked self-loop ``p --P/∅--> p``;
3. every state that is the target of a transition and has an outgoing transition (a *waiting* state) has its
   unmarked self-loop enabled by v, and is not final.

A state without outgoing transitions is a *sink* (a final state reached by the last marked event, typically).
Under 1–3 Algorithm 1's update on v maps T to T with every sink removed from every det-state: the others keep
their union-lists by ∘ (``new[qs] = ul``, no node created), no det-state of the result is final (3: a final
state that survives is a waiting state, excluded), so nothing is output and no run starts. Such an event
therefore changes an evaluator only by dropping the det-states made of sinks only (they have no successor on any
event: they only ever mattered for the output at the position that reached them) — unless a det-state mixes sinks
and waiting states, where the drop would merge union-lists; :meth:`Inertness.refresh` watches the det-states as
the lazy determinization interns them and reports such a mix, after which the engine stops skipping.

Condition 3 makes STRICT (no waiting self-loops) and any query with a final waiting state (Kleene ``+``) have no
inert bit vector at all: the engine then visits every event, as before.
"""

from __future__ import annotations

from collections.abc import Hashable

from cer_theory.automata.determinize.bitmask import Determinizer

INERT_LIMIT = 1 << 16
"""Bit vectors whose inertness is remembered (past that, it is computed again each time it is asked)."""


class Inertness:
    """Which bit vectors are inert for the CEA of ``det`` (the module docstring's conditions 1–3), decided once
    per bit vector from the transitions; and which det-states of ``det`` consist of sinks only."""

    __slots__ = ("det", "possible", "_initial", "_moves", "_waiting", "_cache", "_sink_ids", "spent", "mixed")

    def __init__(self, det: Determinizer) -> None:
        self.det = det
        cea = det.cea
        bit = {p: 1 << k for k, p in enumerate(det.predicates)}
        moves: dict[Hashable, list[tuple[int, bool, Hashable]]] = {
            q: [(bit[t.predicate], bool(t.labels), t.target) for t in cea.out(q)] for q in cea.states}
        targets = {t.target for t in cea.transitions}
        sinks = {q for q, ms in moves.items() if not ms}
        self._moves = moves
        self._initial = tuple(cea.initial)
        self._waiting = tuple(q for q in cea.states if q in targets and q not in sinks)
        # Condition 3 fails for every bit vector if a waiting state is final or initial (then an initial state
        # with an incoming transition must both stay silent (1) and loop (3)).
        self.possible = not any(q in cea.final or q in cea.initial for q in self._waiting)
        self._cache: dict[int, bool] = {}
        index = {q: i for i, q in enumerate(det.states)}
        self._sink_ids = frozenset(index[q] for q in sinks)
        self.spent: list[bool] = []
        """Per det-state id: whether it consists of sinks only (filled by :meth:`refresh`)."""
        self.mixed = False
        """Whether some det-state mixes sinks and waiting states (then skipping is not exact: stop)."""

    def inert(self, mask: int) -> bool:
        found = self._cache.get(mask)
        if found is None:
            found = self._decide(mask)
            if len(self._cache) < INERT_LIMIT:
                self._cache[mask] = found
        return found

    def _decide(self, mask: int) -> bool:
        if not self.possible:
            return False
        moves = self._moves
        for q in self._initial:
            if any(not b or mask & b for b, _, _ in moves[q]):
                return False  # 1: a run would start
        for q, ms in moves.items():
            for b, marks, target in ms:
                if (not b or mask & b) and (marks or target != q):
                    return False  # 2: something moves
        for q in self._waiting:
            if not any((not b or mask & b) and not marks and target == q for b, marks, target in moves[q]):
                return False  # 3: the waiting run would die
        return True

    def refresh(self) -> bool:
        """Classify the det-states interned since the last call; False once one mixes sinks and other states."""
        subsets, spent, sinks = self.det.subsets, self.spent, self._sink_ids
        while len(spent) < len(subsets):
            states = subsets[len(spent)]
            inside = len(states & sinks)
            if inside and inside != len(states):
                self.mixed = True
            spent.append(inside == len(states))
        return not self.mixed


__all__ = ["INERT_LIMIT", "Inertness"]
