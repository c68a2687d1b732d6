"""A run pool that shares runs with equal state and registers: the SRT paper (Alevizos, Artikis, Paliouras), Alg. 1
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
(docs/decisions.md D48, D58); property tests check that both report the same matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import TRUE, And, Predicate, conj
from cer_theory.core.predicates.registers import Check, compiled, registers_read
from cer_theory.formalisms.sremo.outputs import Match, StreamOutput, StreamingRecognizer
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


Move = tuple  # (index of the event-only check or -1, register check | None, target, writes, marked)


def _split(guard: Predicate) -> tuple[Predicate, Predicate]:
    """``guard`` as ``event-only ∧ register-reading`` (Def. 13 evaluates a conjunction atom by atom, so the
    split is exact): the first part is checked once per event, the second once per group."""
    parts = guard.args if isinstance(guard, And) else (guard,)
    free = [p for p in parts if not registers_read(p)]
    return conj(*free), conj(*(p for p in parts if registers_read(p)))


@dataclass(frozen=True)
class MoveTable:
    """What a recognizer over groups of runs needs of an SRT, per state ``q`` (ε-closures taken once):

    * ``final[q]``: the closure of ``q`` meets ``Q_f``;
    * ``stays[q]``: the closure has an unconditional, unmarked, non-writing transition back to ``q`` (a ``⊤*``
      gap of skip-till-any), so a group in ``q`` is its own successor on every event;
    * ``moves[q]``: the other consuming transitions out of the closure, each as (index into ``free`` of its
      event-only conjunct or -1 for none, its compiled register-reading conjunct or None, target, sorted
      writes, marked);
    * ``free``: the event-only conditions (each distinct one once, so that it is checked once per event) and
      ``free_predicates`` the same as predicates.
    """

    final: dict[int, bool]
    stays: dict[int, bool]
    moves: dict[int, tuple[Move, ...]]
    free: tuple[Check, ...]
    free_predicates: tuple[Predicate, ...]


def move_table(srt: SRT) -> MoveTable:
    """The :class:`MoveTable` of ``srt`` (the guards split by :func:`_split`)."""
    closure = {q: srt.closure([q]) for q in range(srt.states)}
    final = {q: bool(closure[q] & srt.finals) for q in range(srt.states)}
    stays: dict[int, bool] = {}
    moves: dict[int, tuple[Move, ...]] = {}
    free_index: dict[Predicate, int] = {}
    for q in range(srt.states):
        out: list[Move] = []
        stay = False
        for p in sorted(closure[q]):
            for t in srt.out(p):
                if t.is_epsilon:
                    continue
                if t.guard == TRUE and not t.marked and not t.writes and t.target == q:
                    stay = True
                    continue
                free, regs = _split(t.guard)  # type: ignore[arg-type]
                fi = -1 if free == TRUE else free_index.setdefault(free, len(free_index))
                out.append((fi, None if regs == TRUE else compiled(regs), t.target, tuple(sorted(t.writes)),
                            t.marked))
        stays[q] = stay
        moves[q] = tuple(out)
    return MoveTable(final, stays, moves, tuple(compiled(p) for p in free_index), tuple(free_index))


class SharedRecognizer(StreamingRecognizer):
    """Alg. 1 with the P7 fix over groups of runs keyed by ``(state, registers)`` (module docstring).

    Two shortcuts, both exact: a condition's event-only conjuncts are checked once per event and state, before
    its groups are visited; and a group whose state has an unconditional, unmarked, non-writing self-loop (the
    ``⊤*`` gaps of skip-till-any) stays in the pool without being visited — it is its own successor on every
    event. Under the last-• reading with a window, such groups are dropped by a sweep once no member may mark.

    :meth:`feed` returns the matches reported at ``k`` (a set, as :class:`~.srt.Recognizer`);
    :meth:`feed_lazy` returns the reporting DAG nodes without enumerating them (for detection without
    enumeration). Counters: :attr:`groups` (live groups), :attr:`peak_groups`.
    """

    def __init__(self, srt: SRT, *, pure: bool = False) -> None:
        self.srt = srt
        self.pure = pure
        self.window = srt.window
        self.k = 0
        # state -> registers -> [has the empty marking, the DAG node of its non-empty markings or None]
        self.pool: dict[int, dict[Valuation, list]] = {}
        self.peak_groups = 0
        table = move_table(srt)
        self._final, self._stays, self._moves, self._free = table.final, table.stays, table.moves, table.free
        self._sweep_every = max(1, (self.window or 0) // 4)

    @property
    def groups(self) -> int:
        return sum(len(g) for g in self.pool.values())

    def feed_lazy(self, event: Event, *, detect: bool = False) -> tuple[list[Marks], bool]:
        """Consume ``t_k``; the reporting nodes, and whether the empty marking reports (``pure`` without window).

        ``detect=True`` answers only *whether* a match ends at ``k``: a transition whose target keeps no run
        is then visited only until its first report, and not at all once something has reported (the pool
        after the event is the same, the list of reporting nodes may be partial)."""
        k, w, pure = self.k, self.window, self.pure
        if not isinstance(event, Event):
            raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
        if self.srt.positions:
            event = with_position(event, k)
        pool, finals, moves, stays = self.pool, self._final, self._moves, self._stays
        start = pool.setdefault(self.srt.start, {})
        g0 = start.get(EMPTY)
        if g0 is None:
            start[EMPTY] = [True, None]  # e_s = ⊤*·e: a run may start at every position
        else:
            g0[0] = True
        reported: list[Marks] = []
        empty_reported = False
        lo_mark = k - w + 1 if w is not None else _NO_BOUND
        dead = k - w + 2 if (w is not None and not pure) else _NO_BOUND  # last-•: no member may mark again
        leaf: Marks | None = None
        arrivals: list[tuple[int, Valuation, bool, Marks | None]] = []
        checks, seen = self._free, [None] * len(self._free)
        for q, groups in pool.items():
            if not groups:
                continue
            if stays[q] and finals[q] and pure:  # the self-loop reports (pure reading)
                for empty, node in groups.values():
                    if node is not None:
                        reported.append(node)
                    if empty and w is None:
                        empty_reported = True
            for fi, regs, target, writes, marked in moves[q]:
                if fi >= 0:
                    ok = seen[fi]
                    if ok is None:
                        ok = seen[fi] = checks[fi](event, EMPTY)
                    if not ok:
                        continue
                report = finals[target] and (marked or pure)
                keep = bool(moves[target]) or stays[target]
                first_only = detect and report and not keep  # no arrivals: only its first report matters
                if first_only and (reported or empty_reported):
                    continue
                for v, (empty, node) in groups.items():
                    if regs is not None and not regs(event, v):
                        continue
                    if marked:
                        if empty:
                            if leaf is None:
                                leaf = Marks(k, None, (), k)
                            if node is not None and node.latest >= lo_mark:
                                n2 = Marks(-1, None, (leaf, Marks(k, node, (), node.latest)), k)
                            else:
                                n2 = leaf
                        elif node is not None and node.latest >= lo_mark:
                            n2 = Marks(k, node, (), node.latest)
                        else:
                            continue  # Def. 39: every marking would exceed the window
                        e2 = False
                    else:
                        e2, n2 = empty, node
                    if report:
                        if n2 is not None:
                            reported.append(n2)
                        if e2 and w is None:
                            empty_reported = True
                        if first_only and (reported or empty_reported):
                            break
                    if keep and (e2 or (n2 is not None and n2.latest >= dead)):
                        arrivals.append((target, v.write(writes, event) if writes else v, e2, n2))
        for q, groups in pool.items():
            if groups and not stays[q]:
                pool[q] = {}
        for target, v, e2, n2 in arrivals:
            groups = pool.get(target)
            if groups is None:
                groups = pool[target] = {}
            g = groups.get(v)
            if g is None:
                groups[v] = [e2, n2]
            else:
                g[0] = g[0] or e2
                if n2 is not None:
                    g[1] = n2 if g[1] is None else _union([g[1], n2])
        if dead != _NO_BOUND and k % self._sweep_every == 0:
            self._sweep(dead)
        live = sum(map(len, pool.values()))
        if live > self.peak_groups:
            self.peak_groups = live
        self.k += 1
        return reported, empty_reported

    def _sweep(self, dead: int) -> None:
        """Drop the groups none of whose members may mark from the next position on (last-• reading)."""
        for q, groups in self.pool.items():
            gone = [v for v, (e, n) in groups.items() if not e and (n is None or n.latest < dead)]
            for v in gone:
                del groups[v]

    def feed(self, event: Event) -> frozenset[Match]:
        """Consume ``t_k``; return the matches reported at ``k`` (a set)."""
        reported, empty = self.feed_lazy(event)
        out: set[Match] = {frozenset(m) for node in reported for m in node.sets(self.window)}
        if empty:
            out.add(frozenset())
        return frozenset(out)


def recognize_shared(srt: SRT, stream: Iterable[Event], *, pure: bool = False) -> list[StreamOutput]:
    """The streaming matches of Def. 32, by :class:`SharedRecognizer`."""
    return list(SharedRecognizer(srt, pure=pure).run(stream))
