"""Evaluating a UCEA on a stream: the SO-CEL paper, Prop 5.1 and App. B.1, and the I/O-determinization of §4.

For an I/O-deterministic UCEA the evaluator keeps, per state q, a linked list of nodes standing for the runs
currently in q. Reading tuple ``t`` at position n, each transition ``(p, P, L, q)`` with ``t ⊨ P`` and a
non-empty list at p either appends one node ``(n, L, top, bot)`` to q's new list (a *marking* move; the node
branches over the segment ``top..bot``, the whole old list of p) or splices p's old list onto q's new one (a
non-marking move, O(1)). Lists are only ever concatenated, never reordered or cut, so a segment stays valid;
I/O-determinism gives each old list at most one non-marking successor, so destructive splicing is safe and
every output has exactly one path (no duplicates). So (1) the update per tuple costs at most |Δ| steps,
independent of the stream, and (2) ``⟦A⟧_n(S)`` is enumerated from the lists of the final states with a delay
linear in the size of the next output. Both are counted (:attr:`StreamingEvaluator.update_steps`,
:attr:`StreamingEvaluator.enumeration_steps`) so tests can assert them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.budget import active
from cer_theory.core.errors import DEFAULT_BUDGET, AutomatonError
from cer_theory.core.events import Event, Valuation
from cer_theory.formalisms.socel.ucea import UCEA


def io_determinize_ucea(a: UCEA, *, budget: int | None = DEFAULT_BUDGET) -> UCEA:
    """The SO-CEL paper §4: the subset construction over the Z3 minterms of Δ's predicates (the CEL paper Prop 5.5's, reused):
    ``δ(R, m, L) = {q | p ∈ R, (p,P,L,q) ∈ Δ, m ⊨ P}``, final states ``{R | R ∩ F ≠ ∅}``. It preserves ``⟦A⟧_n``
    and is exponential; it needs negation of predicates, which the minterms provide."""
    return UCEA.of(io_determinize(a, budget=budget), name=a.name)


class _Node:
    """A run prefix: ``time``/``labels`` of its last marking move, and the segment ``top..bot`` of the list of
    runs it extends (``time = -1`` for the bottom node, the empty run)."""

    __slots__ = ("time", "labels", "top", "bot", "next")

    def __init__(self, time: int, labels: frozenset[str], top: _Node | None, bot: _Node | None) -> None:
        self.time, self.labels, self.top, self.bot = time, labels, top, bot
        self.next: _Node | None = None


class StreamingEvaluator:
    """Prop 5.1's streaming evaluation of an I/O-deterministic UCEA: :meth:`push` a tuple, then :meth:`outputs`
    enumerates ``⟦A⟧_n(S)`` for the current n. Raises :class:`AutomatonError` if the UCEA is not I/O-deterministic
    (determinize it first with :func:`io_determinize_ucea`)."""

    def __init__(self, a: UCEA) -> None:
        if not a.is_io_deterministic():
            raise AutomatonError(f"{a!r} is not I/O-deterministic (the SO-CEL paper §4): one initial state and, per state "
                                 f"and label set, pairwise disjoint predicates are required; use io_determinize_ucea")
        self.automaton = a
        # Δ in its order, each predicate replaced by its index among the distinct predicates of Δ: a push tests
        # each distinct predicate at most once, however many transitions share it (a constant factor only).
        preds = list(dict.fromkeys(t.predicate for t in a.transitions))
        index = {p: k for k, p in enumerate(preds)}
        self._predicates = preds
        # Runs in a state that cannot reach F never yield an output (the subset construction's empty state is
        # one): they are not kept, so memory holds only runs that may still be output.
        alive = a.coreachable()
        self._delta = [(t.source, index[t.predicate], t.labels, t.target) for t in a.transitions
                       if t.target in alive]
        (q0,) = a.initial
        bottom = _Node(-1, frozenset(), None, None)
        self._lists: dict = {q0: [bottom, bottom]}  # state -> [head, tail]
        self.n = -1
        self.update_steps = 0  # moves made by the last push (≤ |Δ|)
        self.enumeration_steps = 0  # nodes visited by the last enumeration

    def push(self, event: Event) -> None:
        """Read the next tuple (App. B.1: MoveLabelling / MoveNotLabelling)."""
        self.n += 1
        new: dict = {}
        steps = 0
        lists = self._lists
        holds: list[bool | None] = [None] * len(self._predicates)
        for source, k, labels, q in self._delta:
            old = lists.get(source)
            if old is None:
                continue
            ok = holds[k]
            if ok is None:
                ok = holds[k] = self._predicates[k](event)
            if not ok:
                continue
            steps += 1
            target = new.get(q)
            if labels:
                node = _Node(self.n, labels, old[0], old[1])
                if target is None:
                    new[q] = [node, node]
                else:
                    target[1].next = node
                    target[1] = node
            elif target is None:
                new[q] = [old[0], old[1]]
            else:
                target[1].next = old[0]
                target[1] = old[1]
        self._lists = new
        self.update_steps = steps

    def outputs(self) -> Iterator[Valuation]:
        """``⟦A⟧_n(S)`` for the current n, each complex event once."""
        self.enumeration_steps = 0
        for q in sorted(self.automaton.final, key=repr):
            lst = self._lists.get(q)
            if lst is not None:
                yield from self._segment(lst[0], lst[1], [])

    def _segment(self, top: _Node, bot: _Node, path: list[_Node]) -> Iterator[Valuation]:
        node: _Node | None = top
        while node is not None:
            self.enumeration_steps += 1
            if node.time < 0:
                yield _complex_event(path)
            else:
                path.append(node)
                yield from self._segment(node.top, node.bot, path)  # type: ignore[arg-type]
                path.pop()
            if node is bot:
                break
            node = node.next


def _complex_event(path: list[_Node]) -> Valuation:
    grouped: dict[str, list[int]] = {}
    for node in path:
        for label in node.labels:
            grouped.setdefault(label, []).append(node.time)
    return Valuation(grouped)


def evaluate_streaming(a: UCEA, stream: Sequence[Event]) -> list[list[Valuation]]:
    """``[⟦A⟧_0(S), ⟦A⟧_1(S), …]`` by Prop 5.1's evaluator (each output listed once, in enumeration order)."""
    ev = StreamingEvaluator(a)
    out = []
    budget = active()
    for event in stream:
        ev.push(event)
        outputs = []
        for c in ev.outputs():
            if budget is not None:
                budget.charge("Prop 5.1's streaming evaluator (outputs)")  # core.budget: one unit per output
            outputs.append(c)
        out.append(outputs)
    return out


__all__ = ["io_determinize_ucea", "StreamingEvaluator", "evaluate_streaming"]
