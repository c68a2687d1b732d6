"""Algorithm 1 of CORE (the CORE paper §4.3, Theorem 3; §4.4; App. B.1; docs/decisions.md D26): evaluate a CEA over a
stream with time windows, building the tECS (:mod:`cer_theory.engines.core.tecs`) with constant work per event and
enumerating the CEs that end at each position with output-linear delay (Algorithm 2).

Contract on the CEA (the CORE paper §3, CEA and runs): runs may start at *any* position, so a fresh bottom node enters the
initial state at every position; the paper asks for one initial state without incoming transitions (that is what
``compile_automaton`` produces), but nothing here depends on it: the initial det-state is the set of initial states
and, by I/O-determinism, one start and one mark sequence still give one run. A transition marks iff its labels
are non-empty.

Implementation aspects of §4.4:

* **bit vectors** – the CEA's distinct predicates P_1..P_k are evaluated once per event into an ``int`` bitmask
  by a generated function (:func:`compile_mask`; DataFrame/Table batches use the column-wise
  ``cer_theory.core.predicates.vectorized.bitmasks``); nothing else reads the event;
* **lazy I/O-determinization** – :class:`Determinizer` is the subset construction built on demand and cached by
  (det-state id, bitmask); det-states are interned as ints. It can be shared by many evaluators (one per
  partition);
* **windows** – τ is the id of the oldest bottom node inside the window, so pruning is an integer comparison
  for position and time windows alike (the keys must be non-decreasing, docs/decisions.md D30); states whose head is
  expired are skipped and union-lists are cut at their first expired entry ([ours], docs/decisions.md D26);
* **quiet events** [ours] – an event on which no run starts, every state of T only loops on itself by ∘ and no
  state is final leaves T as it is (no node, no output); unless the window expires a bottom node,
  :meth:`Evaluator.advance` answers it from a cache per (T, bit vector) without the update. Debug mode checks
  each such claim against the full update instead;
* **memory** – expired nodes are dropped by :meth:`Tecs.compact`; with a window the live tECS holds the nodes
  created inside the window (plus at most as many again plus 1024, the compaction slack). Without a window
  nothing ever expires and memory grows with the stream, as in the paper's Algorithm 1.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.bitmask import NO_MOVE, Determinizer
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.engines.core.tecs import Tecs, TecsError
from cer_theory.engines.enumeration import EnumerationStats
from cer_theory.core.events import CoreComplexEvent
from cer_theory.core.windows import Window

_NOTHING = 1 << 62
"""τ of a window that admits no interval at all (strict with size 0, or a negative size)."""

_INF = float("inf")
_EXACT = 2**53  # integers up to this size are exact floats

QUIET_LIMIT = 4096
"""Bit vectors remembered per table T in the quiet-event cache (past that, the test runs every time)."""

COMPACT_MIN = 1024
"""Compaction runs once the expired prefix holds at least this many nodes and at least as many as the live part,
so each node is moved O(1) times on average."""


def last_admitted(window: Window, start: float) -> float:
    """A window key up to which a match starting at key ``start`` stays admitted: ``key <= last_admitted(window,
    start)`` implies ``window.admits(start, key)`` for int and float keys alike (``key - start`` is monotone in
    ``key``, in floating point too, and integers below 2**53 are exact floats). The largest such integer when
    ``start`` and the size are integers, else the largest such float (found by stepping from ``start + size``).
    -inf (nothing known) for other values or if the search does not settle."""
    size, strict = window.size, window.strict
    if start.__class__ is int and size.__class__ is int and -_EXACT <= start <= _EXACT and -_EXACT <= size <= _EXACT:
        return start + size - 1 if strict else start + size
    kinds = (type(start), type(size))
    if not {int, float}.issuperset(kinds) or any(type(v) is int and abs(v) > _EXACT for v in (start, size)):
        return -_INF
    admits = window.admits
    t = start + size
    for _ in range(64):
        if t != t or abs(t) == _INF:
            break
        if not admits(start, t):
            t = math.nextafter(t, -_INF)
        elif admits(start, math.nextafter(t, _INF)):
            t = math.nextafter(t, _INF)
        else:
            return t
    return -_INF


@dataclass(slots=True)
class EvaluatorStats:
    """Counts for the complexity claims of the CORE paper (§4.3, Theorems 2–3; counting, never timing). Always kept: events,
    nodes created (total and worst per event), det-cache lookups and misses, live-node peak. With ``instrument=True``
    also: union-list lengths, active states, node visits per output (:class:`EnumerationStats`), per-event rows."""

    events: int = 0
    nodes_created: int = 0
    max_nodes_per_event: int = 0
    lookups: int = 0
    misses: int = 0
    outputs: int = 0
    max_live_nodes: int = 0
    max_ulist: int = 0
    max_active: int = 0
    enumeration: EnumerationStats = field(default_factory=EnumerationStats)
    per_event: list[tuple[int, int, int]] | None = None  # (nodes created, live nodes, active states)

    @property
    def hits(self) -> int:
        return self.lookups - self.misses


class Evaluator:
    """Algorithm 1 (the CORE paper, Theorem 3) over a CEA, streaming: :meth:`process` one event, get the CEs
    ``([i, j], D)`` that end at its position j, with ``j − i`` inside the window.

    ``window`` is a :class:`Window` (``events`` on positions, or ``time``/``attribute`` on a numeric attribute
    whose values must not decrease along the stream). Positions are the caller's (global positions under
    PARTITION BY) and must increase. ``determinizer`` may be shared between evaluators of the same CEA.
    ``compact_min`` is the smallest expired prefix worth compacting (tests lower it to exercise dangling right
    children). ``limit`` caps the CEs reported per position (CEQL ``LIMIT n``: the first n in Algorithm 2's order; the
    enumeration stops there). ``chunk``: see :attr:`chunk`. ``debug=True`` checks every tECS invariant after every event (the CORE paper §4.1–4.2,
    App. B.3); ``instrument=True`` counts node visits per output and union-list lengths (the CORE paper Theorem 2, App. B.1).
    """

    quiet_events = True
    """Whether quiet events may skip the update (:meth:`advance`); off where the start state moves per event."""

    tecs_class: type = Tecs
    """The tECS representation (the compiled evaluator's is ``CTecs``: :mod:`cer_theory.engines.core.compiled`)."""

    def __init__(self, cea: CEA | None = None, window: Window | None = None, *,
                 determinizer: Determinizer | None = None, budget: int | None = DEFAULT_BUDGET,
                 limit: int | None = None, debug: bool = False, instrument: bool = False,
                 keep_per_event: bool = False, compact_min: int = COMPACT_MIN, chunk: int | None = None) -> None:
        if determinizer is None:
            if cea is None:
                raise TypeError("Evaluator needs a CEA or a Determinizer")
            determinizer = Determinizer(cea, budget=budget)
        self.det = determinizer
        self.cea = determinizer.cea
        self.window = window
        self.limit = limit
        self.compact_min = compact_min
        self.chunk = chunk
        """None: :meth:`advance` returns a position's CEs as a list; else as :class:`Outputs`, enumerated
        ``chunk`` at a time while they are read (a writer's bounded memory, docs/decisions.md D282)."""
        self.debug = debug
        self.instrument = instrument or debug
        self.tecs = self.tecs_class(debug=debug)
        self.table: dict[int, list[int]] = {}  # T: det-state id → union-list, in first-insertion order
        self.initial = determinizer.initial
        """The det-state a run starting at the next position starts from (fresh bottom node there)."""
        self.position = -1  # the last position read
        self.last_key: float = float("-inf")
        self._positional = window is not None and window.kind == "events"
        self.tau = 0
        self._bottoms: deque[tuple[float, int]] = deque()  # (window key, bottom id), oldest first
        self._stats = EvaluatorStats(per_event=[] if keep_per_event else None)
        # Quiet events (:meth:`advance`): the cache for the current T (None: off, in debug mode and with per-event
        # rows, or until the first update), the largest key at which no bottom node expires, events skipped.
        self._quiet: dict[int, bool] | None = None
        self._safe_key: float = _INF
        self._safe_bottom = -1  # the oldest bottom node when _safe_key was computed
        self._idle = 0
        self._settled = False  # an update ran since the start or the last reset (τ is current)

    # ------------------------------------------------------------------ the public stream interface

    def process(self, event: Event | None, position: int | None = None, *, mask: int | None = None,
                key: float | None = None) -> list[CoreComplexEvent]:
        """Read ``event`` at ``position`` (default: the next one) and return ⟦A⟧^ε_j(S) for that position j, in
        Algorithm 2's order (a left-first DFS per final state, final states in T's order). ``mask`` (the bit
        vector) and ``key`` (the window key) may be given precomputed; the event is then not read at all."""
        j = self.position + 1 if position is None else position
        if j <= self.position:
            raise ValueError(f"positions must increase: got {j} after {self.position}")
        window = self.window
        if window is None:
            key = 0
        else:
            if self._positional:
                key = j
            elif key is None:
                key = window.key(j, event)  # type: ignore[arg-type]
            if key < self.last_key:
                raise StreamFormatError(
                    f"window key {key!r} decreases (previous {self.last_key!r}); time windows need "
                    f"non-decreasing timestamps in stream order (docs/decisions.md D30)", line=j,
                    field=window.attribute or ("time" if window.kind != "events" else None))
        if mask is None:
            mask = self.det.mask(event)  # type: ignore[arg-type]
        return self.advance(j, mask, key)  # type: ignore[arg-type]

    def advance(self, j: int, mask: int, key: float) -> list[CoreComplexEvent]:
        """:meth:`process` for a caller that has checked its input (the engine): position ``j`` > the last one,
        bit vector ``mask``, window key ``key`` (j for an ``EVENTS`` window; not below the last key; ignored
        without a window).

        A *quiet* event (:meth:`Determinizer.is_quiet`: no run starts, every state of T stays put by ∘, none is
        final) on which no bottom node leaves the window changes nothing: same T, no node, no output, same τ.
        It is answered from a per-(T, bit vector) cache without running the update; counts are kept."""
        quiet = self._quiet
        if quiet is not None and key <= self._safe_key:
            q = quiet.get(mask)
            if q is None:
                q = self._learn_quiet(quiet, mask)
            if q:
                self._idle += 1
                self.position = j
                if self.window is not None:
                    self.last_key = key
                return []
        return self._advance(j, mask, key)

    def _learn_quiet(self, quiet: dict[int, bool], mask: int) -> bool:
        q = self.det.is_quiet(self.table, mask)
        if len(quiet) < QUIET_LIMIT:
            quiet[mask] = q
        return q

    def _advance(self, j: int, mask: int, key: float) -> list[CoreComplexEvent]:
        """One event through Algorithm 1 (update, then output), with the window and compaction around it."""
        if self._idle:
            self._flush()
        claim = self._snapshot() if self.debug and self._claims_quiet(mask, key) else None
        window = self.window
        if window is None:
            tau = key = 0
        else:
            self.last_key = key
            tau = self._advance_window(key)
        self.position = j
        updated = False
        if tau == _NOTHING:  # the window admits nothing, not even [j, j]: nothing is ever stored
            self.table = {}
            self._stats.events += 1
        elif self.table or self.det.successors(self.initial, mask) is not NO_MOVE:
            self._update(j, mask, tau, key)
            updated = True
        else:  # nothing active and no run starts here: T stays empty (the common case of selective queries)
            self._stats.events += 1
        if window is not None:  # (before the output, which reads the tECS and may be read after this call)
            dead = tau - self.tecs.base
            if dead >= self.compact_min and dead >= len(self.tecs) - dead:
                self.tecs.compact(tau)
        out = self._output(j, tau) if updated and self.table else []
        if self.debug:
            if claim is not None and (out or self._snapshot() != claim):
                raise TecsError(f"event {j} was quiet for T = {list(self.table)} but the update changed something")
            self.check_invariants()
        else:
            self._quiet = (self.det.quiet_table(tuple(self.table))
                           if self.quiet_events and self._stats.per_event is None else None)
        dq = self._bottoms
        if not dq:
            self._safe_key = _INF  # no bottom node to expire: τ stays until a node is created
        elif dq[0][1] != self._safe_bottom:
            self._safe_bottom = dq[0][1]
            self._safe_key = last_admitted(window, dq[0][0])  # type: ignore[arg-type]
        self._settled = True
        return out

    # ------------------------------------------------------------------ quiet events: bookkeeping and checks

    def _flush(self) -> None:
        """Add the quiet events since the last update to the counts (as the update would have counted them)."""
        idle, self._idle = self._idle, 0
        st = self._stats
        st.events += idle
        if self.table:
            st.lookups += idle * (len(self.table) + 1)
            st.misses = self.det.misses

    @property
    def stats(self) -> EvaluatorStats:
        if self._idle:
            self._flush()
        return self._stats

    def _claims_quiet(self, mask: int, key: float) -> bool:
        """Whether :meth:`advance` would skip this event if the quiet path were on (debug mode checks the claim
        against the full update instead of taking it)."""
        return (self.quiet_events and self._settled and key <= self._safe_key
                and self.det.is_quiet(self.table, mask))

    def _snapshot(self) -> tuple:
        tecs = self.tecs
        return tuple((p, tuple(ul)) for p, ul in self.table.items()), tecs.base, tecs.next_id, self.tau

    def process_batch(self, events: Sequence[Event], positions: Sequence[int] | None = None
                      ) -> Iterator[CoreComplexEvent]:
        """:meth:`process` each event (bit vectors computed for the whole batch first); yields the CEs in
        stream order of their end position."""
        events = list(events)
        masks = self.det.masks(events)
        for k, (event, mask) in enumerate(zip(events, masks)):
            yield from self.process(event, None if positions is None else positions[k], mask=mask)

    def run(self, stream: Iterable[Event]) -> list[frozenset[CoreComplexEvent]]:
        """``[⟦A⟧^ε_0(S), ⟦A⟧^ε_1(S), …]``: the CEs ending at each position, as sets (test convenience)."""
        return [frozenset(self.process(e)) for e in stream]

    def reset(self) -> None:
        """Forget every partial match (CONSUME BY): T and the tECS are emptied; positions and keys go on."""
        if self._idle:
            self._flush()
        self._quiet = None  # the next event goes through the update (which sets τ again)
        self._settled = False
        self.table = {}
        self.tecs.clear()
        self._bottoms.clear()

    # ------------------------------------------------------------------ Algorithm 1

    def _advance_window(self, key: float) -> int:
        """τ for the event with window key ``key``: the id of the oldest bottom node whose key is admitted."""
        size = self.window.size  # type: ignore[union-attr]
        dq = self._bottoms
        # Window.admits inlined: inclusive ``key − start ≤ size``, strict ``<``.
        if self.window.strict:  # type: ignore[union-attr]
            while dq and not key - dq[0][0] < size:
                dq.popleft()
            empty = not size > 0
        else:
            while dq and not key - dq[0][0] <= size:
                dq.popleft()
            empty = size < 0
        if empty:  # a window that admits nothing, not even [j, j]
            tau = _NOTHING
        else:
            tau = dq[0][1] if dq else self.tecs.next_id
        self.tau = tau
        return tau

    def _update(self, j: int, mask: int, tau: int, key: float) -> None:
        """The update phase of Algorithm 1 for t_j (the CORE paper §4.3), with expired-state pruning (docs/decisions.md D26).

        The initial det-state goes first with a fresh bottom node (created only if it has a transition), then
        every state of T in first-insertion order, so ``insert`` always meets ``max(n) ≤ max(head)`` (B.3). For
        each state: the •-successor gets ``extend(merge(ul), j)``; the ∘-successor gets the *list* ul when it is
        new in T′ (a union-list must start with a non-union node) and ``merge(ul)`` inserted otherwise. Every
        node is made by the tECS operations of the CORE paper §4.2 (``new_bottom``, ``extend``, ``new_ulist``,
        ``insert``, ``merge``), the ones ``test_engine_tecs`` checks against Fig. 5 and Theorem 2.
        """
        det, tecs = self.det, self.tecs
        row = det.rows.get(mask)
        if row is None:
            row = det.row(mask)
        step = det.step
        pos, mx, b = tecs.pos, tecs.mx, tecs.base
        new_bottom, extend, new_ulist, insert, merge = (tecs.new_bottom, tecs.extend, tecs.new_ulist, tecs.insert,
                                                        tecs.merge)
        created0 = len(pos)
        table = self.table
        new: dict[int, list[int]] = {}
        get = new.get

        init = self.initial
        pair = row.get(init)
        if pair is None:
            pair = step(row, mask, init)
        qm, qs = pair
        if pair is not NO_MOVE:
            bot = new_bottom(j)
            if self.window is not None and tau <= bot:
                self._bottoms.append((key, bot))
            if qm >= 0:
                new[qm] = new_ulist(extend(bot, j))
            if qs >= 0:
                ul2 = get(qs)
                if ul2 is None:
                    new[qs] = new_ulist(bot)
                else:
                    insert(ul2, bot)

        for p, ul in table.items():
            if tau:
                if mx[ul[0] - b] < tau:
                    continue  # expired for good: skip (and so delete) the state
                while mx[ul[-1] - b] < tau:
                    ul.pop()
            pair = row.get(p)
            if pair is None:
                pair = step(row, mask, p)
            qm, qs = pair
            if qm >= 0:
                n = ul[0] if len(ul) == 1 else merge(ul)
                o = extend(n, j)
                ul2 = get(qm)
                if ul2 is None:
                    new[qm] = new_ulist(o)
                else:
                    insert(ul2, o)
                if qs >= 0:
                    ul2 = get(qs)
                    if ul2 is None:
                        new[qs] = ul
                    else:
                        insert(ul2, n)
            elif qs >= 0:
                ul2 = get(qs)
                if ul2 is None:
                    new[qs] = ul
                else:
                    insert(ul2, ul[0] if len(ul) == 1 else merge(ul))

        self.table = new
        self._count_update(created0, len(table), new)

    def _count_update(self, created0: int, visited: int, new: dict[int, list[int]]) -> None:
        """The statistics of one update: nodes created since there were ``created0``, the ``visited`` states of T
        (plus the initial one) looked up, and T′ = ``new``."""
        st, live = self._stats, len(self.tecs.pos)
        created = live - created0
        st.events += 1
        st.nodes_created += created
        if created > st.max_nodes_per_event:
            st.max_nodes_per_event = created
        st.lookups += visited + 1
        st.misses = self.det.misses  # shared determinizer: the count is global to it
        if live > st.max_live_nodes:
            st.max_live_nodes = live
        if self.instrument:
            st.max_active = max(st.max_active, len(new))
            if new:
                st.max_ulist = max(st.max_ulist, max(map(len, new.values())))
        if st.per_event is not None:
            st.per_event.append((created, live, len(new)))

    def _output(self, j: int, tau: int) -> list[CoreComplexEvent] | Outputs:
        """OUTPUT(j, ε): Algorithm 2 on every final state's union-list. Enumerating the entries in order is
        enumerating ``merge(ul)`` (a right spine of unions over the entries) without creating its nodes. With
        :attr:`chunk`, a position with more than :attr:`chunk` CEs returns the first :attr:`chunk` of them as an
        :class:`Outputs` that enumerates the rest as it is read."""
        final = self.det.final
        tecs = self.tecs
        mx, b = tecs.mx, tecs.base
        out: list[CoreComplexEvent] = []
        left = -1 if self.limit is None else self.limit
        counted = self._stats.enumeration if self.instrument else None
        size = self.chunk if counted is None else None
        for p, ul in self.table.items():
            if final[p]:
                for n in ul:
                    if mx[n - b] < tau or left == 0:
                        break
                    if counted is not None:
                        got = list(islice(tecs.enumerate_counted(n, j, tau, counted), left if left >= 0 else None))
                        out.extend(got)
                        if left > 0:
                            left -= len(got)
                    elif size is None:
                        got = tecs.enumerate_into(n, j, tau, out, left)
                        if left > 0:
                            left -= got
                    else:  # (the same, stopping when a chunk is full: the rest is enumerated as it is read)
                        dfs: tuple[list[int], list[int]] = ([n, 0], [])
                        room = size - len(out)
                        got = tecs.enumerate_into(n, j, tau, out, room if left < 0 or room < left else left, dfs)
                        if left > 0:
                            left -= got
                        if len(out) == size and left != 0:
                            rest = self._heads(tau, after=(p, n))
                            if dfs[0] or rest:
                                self._stats.outputs += size
                                return Outputs(self, j, tau, out, [n, *rest], dfs, left)
        self._stats.outputs += len(out)
        return out

    def _heads(self, tau: int, after: tuple[int, int]) -> list[int]:
        """The union-list entries OUTPUT(j, ε) enumerates after entry ``n`` of final state ``p`` (``after``), in
        order, each final state's list up to its first expired entry."""
        final, mx, b = self.det.final, self.tecs.mx, self.tecs.base
        heads: list[int] = []
        seen = False
        for p, ul in self.table.items():
            if not seen:
                if p != after[0]:
                    continue
                seen = True
                ul = ul[ul.index(after[1]) + 1:]
            if final[p]:
                for n in ul:
                    if mx[n - b] < tau:
                        break
                    heads.append(n)
        return heads

    def keeps_after_inert(self, key: float, spent: Sequence[bool]) -> bool:
        """Whether T would still hold a det-state after inert events (:mod:`cer_theory.engines.core.inert`) up
        to window key ``key``: each such update drops the det-states made of sinks (``spent[p]``) and, with a
        window, the states whose head has expired at that event's τ (:meth:`_update`); pruning is monotone in τ,
        so the last event's τ decides. Reads the evaluator without changing it (the engine skips those events)."""
        window = self.window
        if window is None:
            return any(not spent[p] for p in self.table)
        size, strict = window.size, window.strict
        tau = self.tecs.next_id
        for start, bottom in self._bottoms:
            if (key - start < size) if strict else (key - start <= size):
                tau = bottom
                break
        mx, b = self.tecs.mx, self.tecs.base
        for p, ul in self.table.items():  # (no list of heads: it runs at every skipped gap, a comprehension is a call)
            if not spent[p] and mx[ul[0] - b] >= tau:
                return True
        return False

    # ------------------------------------------------------------------ inspection

    @property
    def live_nodes(self) -> int:
        """Nodes currently stored in the tECS."""
        return len(self.tecs)

    @property
    def active(self) -> bool:
        """Whether any partial match is stored (an evaluator with an empty T can be discarded)."""
        return bool(self.table)

    def describe_table(self) -> list[tuple[frozenset[Hashable], list[str]]]:
        """T as ``[(CEA states of the det-state, [entry, …]), …]`` in T's order, entries as ``O2(1)`` (kind,
        position, max-start), the notation of the trace of the CORE paper Fig. 6
        (rebuilt in proofs_tests/engines/test_engine.py)."""
        return [(self.det.states_of(p), [self.tecs.describe(n) for n in ul]) for p, ul in self.table.items()]

    def check_invariants(self) -> None:
        """The invariants of the CORE paper §4.1–4.2 and App. B.3 at the current step: every node time-ordered and
        3-bounded; every union-list well formed; heads non-increasing in max along T's order; |ul| ≤ number of
        det-states (B.3). Outside the paper's contract (a transition enters the initial state) the bound is checked as
        |Q_det| + 2: the initial det-state then also holds older runs, and the fresh bottom node can add both a head
        and a tying n1 (a one-state CEA with a •- and a ∘-loop reaches 3 entries)."""
        tecs = self.tecs
        tecs.check_nodes(3)
        previous = None
        bound = len(self.det) + (0 if self.det.initial_is_source else 2)
        for p, ul in self.table.items():
            for n in ul:  # D26: lists are cut at their first expired entry, so no entry is expired or dropped
                if not tecs.alive(n) or tecs.max_id(n) < self.tau:
                    raise TecsError(f"union-list of det-state {p} keeps the expired entry {n} (τ = {self.tau})")
            tecs.check_ulist(ul)
            if len(ul) > bound:
                raise TecsError(f"union-list of det-state {p} has {len(ul)} > {bound} entries")
            head = tecs.max_id(ul[0])
            if previous is not None and head > previous:
                raise TecsError("ordered keys: union-list heads must have non-increasing max-starts (B.3)")
            previous = head


class Outputs:
    """The CEs of one position with more than ``evaluator.chunk`` of them (OUTPUT(j, ε) of Algorithm 1, the CORE
    paper §4.3), the rest enumerated by Algorithm 2 as they are read rather than gathered first: :meth:`chunks`
    yields ``first`` (a full chunk), then lists of at most ``evaluator.chunk`` CEs, in Algorithm 2's order, each
    from where the last stopped (:meth:`Tecs.enumerate_into` resumed on ``dfs``, then the union-list entries
    ``heads`` after the first), so a position with exponentially many CEs is written in memory bounded by the
    chunk (docs/decisions.md D282). It must be read before the evaluator's next event (the tECS it reads changes
    then); LIMIT (``left``: what is still allowed, -1 for no LIMIT) stops it as on the list path."""

    __slots__ = ("evaluator", "end", "tau", "first", "heads", "dfs", "left")

    def __init__(self, evaluator: Evaluator, end: int, tau: int, first: list[CoreComplexEvent], heads: list[int],
                 dfs: tuple[list[int], list[int]], left: int) -> None:
        self.evaluator, self.end, self.tau, self.first = evaluator, end, tau, first
        self.heads, self.dfs, self.left = heads, dfs, left

    def chunks(self) -> Iterator[list[CoreComplexEvent]]:
        yield self.first
        evaluator = self.evaluator
        size, tecs, end, tau, left = evaluator.chunk, evaluator.tecs, self.end, self.tau, self.left
        out: list[CoreComplexEvent] = []
        for k, n in enumerate(self.heads):
            dfs = self.dfs if k == 0 else ([n, 0], [])  # (the first entry's traversal resumes where it stopped)
            while dfs[0] and left != 0:
                room = size - len(out)  # type: ignore[operator]
                got = tecs.enumerate_into(n, end, tau, out, room if left < 0 or room < left else left, dfs)
                evaluator._stats.outputs += got
                if left > 0:
                    left -= got
                if len(out) == size:
                    yield out
                    out = []
        if out:
            yield out

    def __iter__(self) -> Iterator[CoreComplexEvent]:
        for chunk in self.chunks():
            yield from chunk


__all__ = ["Determinizer", "Evaluator", "EvaluatorStats", "NO_MOVE", "Outputs"]
