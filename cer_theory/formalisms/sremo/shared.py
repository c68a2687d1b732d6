"""A run pool that shares runs with equal state and registers: seed 002 (Alevizos, Artikis, Paliouras), Alg. 1
(§4.3) computed over groups of runs, for the streaming matches of Def. 32.

Alg. 1 keeps one run per ``(state, registers, marked positions)``; on a sequence under skip-till-any the runs
multiply with every combination of the positions marked so far (seq₃ with w = 500 keeps ≈1.8k live runs on the
stock stream). But what a run can still do depends only on its state and its register contents (Def. 23: the
next configuration reads ``q`` and ``v``), and on the first marked position, which the window of Def. 39 bounds.
So :class:`SharedRecognizer` keeps one **group** per ``(q, v)``: the set of marked-position sets of its runs,
held as a shared DAG (:class:`Marks`: a set is a single position, a set extended by a position, or a union),
built in O(1) per transition and group, and enumerated only when a match is reported. This is the match sharing
the paper leaves as future work (§8), for the part of the run that registers do not see.

Windows: a set extended at ``k`` keeps only the members whose first mark is ≥ ``k − w + 1`` (Def. 39); each
node knows the latest first mark of its members, so a group none of whose members may still mark is skipped.
Readings, the P7 fix and ``pure`` are those of :class:`~cer_theory.formalisms.sremo.srt.Recognizer`
(docs/decisions.md D48, D52); property tests check that both report the same matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.registers import compiled
from cer_theory.formalisms.sremo.outputs import Match, StreamOutput
from cer_theory.formalisms.sremo.srt import SRT, with_position

_NO_BOUND = -(1 << 62)


class Marks:
    """A non-empty set of marked-position sets, as a DAG node: ``{{k}}`` (``prev is None``, no ``parts``),
    ``{m ∪ {k} | m ∈ prev, min m ≥ k − w + 1}`` (``prev``), or the union of ``parts``. ``latest`` is the
    largest first mark of a member (the window test), ``k`` the position this node marks (-1 for a union)."""

    __slots__ = ("k", "prev", "parts", "latest")

    def __init__(self, k: int, prev: Marks | None, parts: tuple[Marks, ...], latest: int) -> None:
        self.k, self.prev, self.parts, self.latest = k, prev, parts, latest

    def sets(self, window: int | None, lo: int = _NO_BOUND) -> Iterator[tuple[int, ...]]:
        """The members whose first mark is ≥ ``lo``, as position tuples in increasing order (with repetitions
        when runs reached one set along different paths; the caller collects them in a set)."""
        stack: list[tuple[Marks, int, tuple[int, ...]]] = [(self, lo, ())]
        while stack:
            node, bound, suffix = stack.pop()
            if node.latest < bound:
                continue
            if node.parts:
                stack.extend((p, bound, suffix) for p in node.parts)
            elif node.prev is None:
                yield (node.k,) + suffix  # latest == k ≥ bound
            else:
                b = bound if window is None else max(bound, node.k - window + 1)
                stack.append((node.prev, b, (node.k,) + suffix))

    def __repr__(self) -> str:
        return f"Marks(k={self.k}, latest={self.latest}, parts={len(self.parts)})"


def _union(nodes: list[Marks]) -> Marks:
    if len(nodes) == 1:
        return nodes[0]
    return Marks(-1, None, tuple(nodes), max(n.latest for n in nodes))


Group = tuple[bool, list[Marks]]
"""The runs of one ``(q, v)``: whether one of them has marked nothing yet, and the DAG nodes of the others."""


class SharedRecognizer:
    """Alg. 1 with the P7 fix over groups of runs keyed by ``(state, registers)`` (module docstring).

    :meth:`feed` returns the matches reported at ``k`` (a set, as :class:`~.srt.Recognizer`);
    :meth:`feed_lazy` returns the reporting DAG nodes without enumerating them (``bool`` of the result says
    whether a match ends here, for detection without enumeration). Counters: :attr:`groups` (live groups after
    the last event), :attr:`peak_groups`.
    """

    def __init__(self, srt: SRT, *, pure: bool = False) -> None:
        self.srt = srt
        self.pure = pure
        self.window = srt.window
        self.k = 0
        # (q, v) -> (has the empty marking, the nodes of its non-empty markings)
        self.pool: dict[tuple[int, Valuation], tuple[bool, Marks | None]] = {}
        self.peak_groups = 0
        closure = {q: srt.closure([q]) for q in range(srt.states)}
        self._moves = {q: tuple((compiled(t.guard), t.target, tuple(sorted(t.writes)), t.marked)  # type: ignore[arg-type]
                                for p in sorted(closure[q]) for t in srt.out(p) if not t.is_epsilon)
                       for q in range(srt.states)}
        self._final = {q: bool(closure[q] & srt.finals) for q in range(srt.states)}

    @property
    def groups(self) -> int:
        return len(self.pool)

    def feed_lazy(self, event: Event) -> tuple[list[Marks], bool]:
        """Consume ``t_k``; the reporting nodes, and whether the empty marking reports (``pure`` without window)."""
        k, w, pure = self.k, self.window, self.pure
        if not isinstance(event, Event):
            raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
        if self.srt.positions:
            event = with_position(event, k)
        start = (self.srt.start, EMPTY)
        empty0, node0 = self.pool.get(start, (False, None))
        self.pool[start] = (True, node0)  # e_s = ⊤*·e: a run may start at every position
        new: dict[tuple[int, Valuation], Group] = {}
        reported: list[Marks] = []
        empty_reported = False
        lo_mark = k - w + 1 if w is not None else _NO_BOUND
        leaf: Marks | None = None
        finals, moves = self._final, self._moves
        for (q, v), (empty, node) in self.pool.items():
            for holds, target, writes, marked in moves[q]:
                if not holds(event, v):
                    continue
                if marked:
                    parts = []
                    if empty:
                        if leaf is None:
                            leaf = Marks(k, None, (), k)
                        parts.append(leaf)
                    if node is not None and node.latest >= lo_mark:
                        parts.append(Marks(k, node, (), node.latest))
                    if not parts:
                        continue  # Def. 39: every marking would exceed the window
                    e2, n2 = False, _union(parts)
                else:
                    e2, n2 = empty, node
                if finals[target] and (marked or pure):
                    if n2 is not None:
                        reported.append(n2)
                    if e2 and w is None:
                        empty_reported = True
                if not moves[target]:
                    continue
                if not pure and w is not None and not e2 and n2 is not None and n2.latest < k - w + 2:
                    continue  # last-• reading: no member may mark again inside the window (D48)
                key = (target, v.write(writes, event) if writes else v)
                group = new.get(key)
                if group is None:
                    new[key] = (e2, [n2] if n2 is not None else [])
                else:
                    if n2 is not None:
                        group[1].append(n2)
                    if e2 and not group[0]:
                        new[key] = (True, group[1])
        self.pool = {key: (e, _union(ns) if ns else None) for key, (e, ns) in new.items()}
        self.peak_groups = max(self.peak_groups, len(self.pool))
        self.k += 1
        return reported, empty_reported

    def feed(self, event: Event) -> frozenset[Match]:
        """Consume ``t_k``; return the matches reported at ``k`` (a set)."""
        reported, empty = self.feed_lazy(event)
        out: set[Match] = {frozenset(m) for node in reported for m in node.sets(self.window)}
        if empty:
            out.add(frozenset())
        return frozenset(out)

    def run(self, stream: Iterable[Event]) -> Iterator[StreamOutput]:
        """The non-empty outputs, by increasing ``k``."""
        for event in stream:
            k = self.k
            found = self.feed(event)
            if found:
                yield StreamOutput(k, found)


def recognize_shared(srt: SRT, stream: Iterable[Event], *, pure: bool = False) -> list[StreamOutput]:
    """The streaming matches of Def. 32, by :class:`SharedRecognizer`."""
    return list(SharedRecognizer(srt, pure=pure).run(stream))
