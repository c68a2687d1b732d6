"""The CORE engine: a CEQL query evaluated over a stream, incrementally (seed 001 §2.2 and §4;
docs/decisions.md D20–D22).

:class:`Engine` compiles the query (``compile_automaton``, Theorem 1) and runs Algorithm 1
(:class:`~cer_theory.engines.core.evaluator.Evaluator`) over the stream, applying the clauses the automaton leaves
out, with the readings of :mod:`cer_theory.formalisms.ceql.semantics` (the reference the tests compare against):

* **PARTITION BY** — one evaluator per key, the tuple of the listed attributes' values (``[a],[b]`` ≡
  ``[a,b]``; numbers compare as numbers, never equal to a string or a boolean), all sharing one lazily built
  determinizer (§4.4). An event with a missing (NULL) value in any listed attribute belongs to **no**
  partition: it is counted in :attr:`Engine.unpartitioned`, not silently lost. Positions and ``EVENTS``
  windows are global. An evaluator is created only for an event on which a run starts, and discarded once it
  holds no partial match (nothing can come of it) or,
  with a window, once its last event has left the window (every partial match in it has expired), so idle
  keys do not accumulate on unbounded key domains ([ours], docs/decisions.md D22, D27).
* **WITHIN** — pruning inside the tECS (max-start ≥ τ); time keys must not decrease along the stream.
* **Selection strategies** — ``ALL``/``ANY``: none; ``STRICT``: compiled into the automaton. ``NEXT``,
  ``LAST`` and ``MAX`` compare each CE with every CE ending at the same position, from every start, *before*
  the window (the reference's reading, D20). They run through the determinization too: Algorithm 1 over seed
  000's ``A_SEL`` of the pattern's CEA with one common start (:mod:`cer_theory.engines.core.selection`), so they keep
  output-linear enumeration and window-bounded memory. An evaluator also carries the strategy's history (its
  idle state), so it is discarded only when that history is empty.
* **CONSUME BY** ``ANY`` — once a CE is reported, every partial match of every partition is forgotten
  ([code] reset after any enumeration); ``PARTITION`` — only the reporting partition's; ``NONE``/absent —
  nothing.
* **LIMIT n** — at most n CEs per position: the first n of Algorithm 2's order (the enumeration stops there).
* **FROM** — the input is the already merged stream; stream names are not matched against events.
* **Aggregates and HAVING** (seed 003's ``Agg``; docs/decisions.md D75–D78) — the evaluators run over letters
  (:mod:`cer_theory.engines.core.labelled`) so that each enumerated path also tells which positions each
  aggregated variable binds; the values are folded while the path is decoded (linear in the path: the delay
  stays output-linear). Each enumerated match is then checked against HAVING and against the records already
  reported at that position (outputs are a set of (CE, values)); LIMIT counts what survives, and only reported
  matches consume. HAVING is applied after enumeration, so the engine may enumerate matches it then drops:
  :attr:`Engine.having_dropped` and :attr:`Engine.duplicates_dropped` count them. Strategies other than ALL and
  ANY are not supported with aggregates (UnsupportedError).

Every event goes through one per-event step, :meth:`Engine._step` (CORE's Algorithm 1 around the clauses
above). For Events and dicts without NEXT/LAST/MAX :meth:`Engine.process` runs an inlined copy of it
(``_process_inlined``), kept because it pays and checked against ``_step`` by a property test.

Input: :class:`~cer_theory.core.events.Event` objects, dicts with a ``"type"`` key, a pandas DataFrame or a pyarrow
Table (a ``type`` column; None/NaN cells are absent attributes); batches get their predicate bit vectors from
:func:`cer_theory.core.predicates.vectorized.bitmasks`. Each reported :class:`Match` carries the CE in global
stream positions, the events at its positions and the partition key. Memory: the events and the tECS are kept for
the window only; without a window both grow with the stream (as in the paper's Algorithm 1).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict, deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np

from cer_theory.automata.cea import CEA
from cer_theory.core.aggregates import json_value
from cer_theory.core.errors import DEFAULT_BUDGET, StreamFormatError, UnsupportedError
from cer_theory.core.events import TYPE_KEY, CoreComplexEvent, Event
from cer_theory.core.predicates.ast import kind
from cer_theory.core.predicates.masks import compile_mask
from cer_theory.engines.core.columnar import column_keys
from cer_theory.streams.batch import DictRows, Rows
from cer_theory.streams.convert import frame_batches
from cer_theory.engines.core.evaluator import Determinizer, Evaluator
from cer_theory.engines.core.folding import compile_decoder
from cer_theory.engines.core.inert import Inertness
from cer_theory.engines.core.labelled import LabelledDeterminizer, LabelledEvaluator
from cer_theory.engines.core.tecs import _set_positions  # decoding rewrites an enumerated CE's positions
from cer_theory.engines.core.selection import BUILT_KEYWORDS, SelectEvaluator, SelectionDeterminizer
from cer_theory.core.windows import Window
from cer_theory.formalisms.ceql.aggregation import having_holds
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.compile import compile_automaton, compile_pattern
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.semantics import partition_attributes

SELECT_STRATEGIES = BUILT_KEYWORDS
"""Strategies built into the determinization by :mod:`cer_theory.engines.core.selection` (see the module docstring)."""

_INF = float("inf")

_KINDS = {int: "num", float: "num", str: "str", bool: "bool"}
"""``kind`` of the exact built-in classes, looked up without the isinstance chain (subclasses go to ``kind``)."""

@dataclass(frozen=True, slots=True)
class Match:
    """One reported complex event: CORE's ``([start, end], D)`` in global stream positions, the events at the
    positions of D (in order), and the PARTITION BY key (the values of the listed attributes) or None."""

    complex_event: CoreComplexEvent
    events: tuple[Event, ...]
    partition: tuple | None = None

    @property
    def start(self) -> int:
        return self.complex_event.start

    @property
    def end(self) -> int:
        return self.complex_event.end

    @property
    def positions(self) -> tuple[int, ...]:
        return self.complex_event.positions

    def to_json(self) -> dict:
        out: dict = {"start": self.start, "end": self.end, "positions": list(self.positions),
                     "events": [e.to_dict() for e in self.events]}
        if self.partition is not None:
            out["partition"] = list(self.partition)
        return out

    def __repr__(self) -> str:
        part = "" if self.partition is None else f" @{self.partition}"
        return f"Match({self.complex_event!r}{part})"


@dataclass(frozen=True, slots=True, repr=False)
class AggregatedMatch(Match):
    """A :class:`Match` of a query with aggregates: also the ``(alias, value)`` pairs of its aggregates, in
    SELECT's order (seed 003's created event; NULL is :data:`cer_theory.core.aggregates.NULL`)."""

    aggregates: tuple[tuple[str, Any], ...] = ()

    @property
    def values(self) -> tuple:
        return tuple(v for _, v in self.aggregates)

    def to_json(self) -> dict:
        out = Match.to_json(self)
        out["aggregates"] = {alias: json_value(v) for alias, v in self.aggregates}
        return out

    def __repr__(self) -> str:
        return f"{Match.__repr__(self)[:-1]} {dict(self.aggregates)!r})"


_new, _set_ce, _set_events, _set_partition = (object.__new__, Match.complex_event.__set__,  # type: ignore
                                              Match.events.__set__, Match.partition.__set__)  # type: ignore


_set_aggregates = AggregatedMatch.aggregates.__set__  # type: ignore[attr-defined]


def make_match(complex_event: CoreComplexEvent, events: tuple[Event, ...], partition: tuple | None) -> Match:
    """``Match(complex_event, events, partition)`` without the frozen dataclass's checked ``__init__`` (one per
    output); the fields are exactly those ``__init__`` would set."""
    m = _new(Match)
    _set_ce(m, complex_event)
    _set_events(m, events)
    _set_partition(m, partition)
    return m


class _Span:
    """A run of consecutive positions in the engine's event buffer, from ``start`` on: the rows of a columnar batch
    (``rows``; position p is its row ``p - rows.first``) or a list of buffer entries (``items``: Events, or
    batches standing for one of their rows), with the window key the buffer keeps for each position (``keys``,
    indexed by ``p - start``; non-decreasing). One span per batch, whatever its length: the skipped rows of a
    batch (docs/decisions.md D120) cost nothing per row, and the window expires a span's positions by binary
    search on its keys (D136)."""

    __slots__ = ("start", "rows", "items", "keys")

    def __init__(self, start: int, rows: Rows | None, items: list | None, keys: Sequence) -> None:
        self.start, self.rows, self.items, self.keys = start, rows, items, keys

    def locate(self, position: int) -> tuple[Rows | None, Any]:
        """Where the event at ``position`` is: (a batch, its row) or (None, the Event)."""
        rows = self.rows
        if rows is not None:
            return rows, position - rows.first
        item = self.items[position - self.start]  # type: ignore[index]
        return (None, item) if item.__class__ is Event else (item, position - item.first)

    def entries(self, lo: int, hi: int) -> Iterable[Event | Rows]:
        """The one-entry-per-position form of positions ``lo``…``hi - 1`` (the row loops' buffer)."""
        if self.rows is not None:
            return repeat(self.rows, hi - lo)
        return self.items[lo - self.start:hi - self.start]  # type: ignore[index]


def _first_admitted(keys: Sequence, lo: int, hi: int, now: float, size: float, strict: bool) -> int:
    """The first index in ``keys[lo:hi]`` (non-decreasing) whose key the window still admits at ``now``, by
    binary search with the row loop's own comparison (so ints and floats compare exactly as there), or ``hi``.
    The first few keys are tried one by one: between two visited rows only a handful of positions expire."""
    stop = min(hi, lo + 8)
    if strict:
        while lo < stop and not now - keys[lo] < size:
            lo += 1
        return lo if lo < stop or lo == hi else bisect_left(keys, True, lo, hi, key=lambda k: now - k < size)
    while lo < stop and not now - keys[lo] <= size:
        lo += 1
    return lo if lo < stop or lo == hi else bisect_left(keys, True, lo, hi, key=lambda k: now - k <= size)


class Engine:
    """A CEQL query over a stream: ``Engine(query).process(events)`` yields :class:`Match` objects as soon as
    their last event is read. ``process`` may be called repeatedly: positions continue across calls.

    ``query`` is a :class:`~cer_theory.formalisms.ceql.ast.Query` or its text. Options: ``budget`` (det-states of the
    lazy determinization), ``debug`` (tECS invariants checked after every event), ``instrument`` (node visits per
    output and union-list lengths in each evaluator's stats).
    """

    def __init__(self, query: Query | str, *, budget: int | None = DEFAULT_BUDGET, debug: bool = False,
                 instrument: bool = False) -> None:
        if isinstance(query, str):
            query = parse(query)
        self.query = query
        self.strategy = (query.strategy or "ALL").upper()
        self._select = self.strategy in SELECT_STRATEGIES
        self.det: Determinizer
        self.aggregates = query.aggregates
        self.having = query.having
        self._aggregated = query.aggregated
        if self._aggregated:
            if self.strategy not in ("ALL", "ANY"):
                raise UnsupportedError(f"SELECT {self.strategy} with aggregates: the engine evaluates aggregates "
                                       f"under ALL and ANY only (docs/decisions.md D77)")
            self.cea = compile_pattern(query.pattern)  # the labels are kept: the letters project them
            self.det = LabelledDeterminizer(self.cea, select=query.select,
                                            aggregated=[a.variable for a in query.aggregates], budget=budget)
            self._select = False
            slot = {v: k for k, v in enumerate(self.det.aggregated)}  # type: ignore[attr-defined]
            self._decode = compile_decoder(self.det.codes, self.det.width,  # type: ignore[attr-defined]
                                           query.aggregates, [slot[a.variable] for a in query.aggregates])
            self._aliases = [a.alias for a in query.aggregates]
        elif self._select:
            self.cea: CEA = compile_pattern(query.pattern, select=query.select)
            self.det = SelectionDeterminizer(self.cea, self.strategy, budget=budget)
        else:
            self.cea = compile_automaton(query, budget=budget)
            self.det = Determinizer(self.cea, budget=budget)
        self.window: Window | None = query.within
        self.partition_attributes: tuple[str, ...] = partition_attributes(query.partition_by)
        self.consume = (query.consume or "NONE").upper()
        self.limit: int | None = query.limit
        self._time_attribute: str | None = (None if self.window is None or self.window.kind == "events"
                                            else self.window.attribute or "time")
        self._options = {"debug": debug, "instrument": instrument}
        self._evaluators: OrderedDict[tuple, tuple[Evaluator, tuple]] = OrderedDict()
        self.position = 0  # the global position of the next event
        self.unpartitioned = 0  # events with a NULL partition attribute: in no partition (seed 001 §2.2; D22)
        self.partitions_created = self.partitions_discarded = 0
        self.enumerated = 0  # matches enumerated by the tECS (with aggregates: before HAVING and deduplication)
        self.having_dropped = 0  # enumerated matches HAVING dropped
        self.duplicates_dropped = 0  # enumerated matches equal to one already reported at the same position
        self._last_key: float = float("-inf")
        # Events by global position, for Match.events, from position ``_events_base`` on, cut by the window: one
        # entry per position in ``_events`` (with its key in ``_event_keys``) for the row loops, or ``_spans``
        # (one per batch) for the columnar loop; the other is empty (``_row_buffer``/``_span_buffer`` switch).
        self._events: deque[Event | Rows] = deque()
        self._event_keys: deque[float] = deque()
        self._spans: deque[_Span] = deque()
        self._events_base = 0
        self._frame_rows = False  # whether _events may hold frame rows (else only Events)
        self._dict_mask: Any = None  # the bit-vector function compiled for dicts, on first need
        self._inlined = (not self._select and self._time_attribute != TYPE_KEY
                         and TYPE_KEY not in self.partition_attributes)
        """:meth:`_process_inlined` applies: evaluators with a fixed initial state, keys read from attributes."""
        self._inert: Inertness | None = None
        """Inert bit vectors, for skipping rows in bulk on the columnar path (None: never skip; D120)."""
        if (self._inlined and not self._aggregated and type(self.det) is Determinizer
                and (self.window is None or (self.window.size > 0 if self.window.strict else self.window.size >= 0))):
            inert = Inertness(self.det)
            self._inert = inert if inert.possible else None
        self.skipped_rows = 0  # rows of columnar batches skipped in bulk (inert or NULL-partitioned; D120)
        self._report: Callable[[list[CoreComplexEvent], tuple | None], Sequence] = self._matches
        """What becomes of the CEs reported at one position (with the partition values): Matches, or what a
        :meth:`report_to` sink returns."""

    # ------------------------------------------------------------------ input

    def process(self, events: Iterable[Event | Mapping[str, Any]] | Any, *, validate: bool = False
                ) -> Iterator[Match]:
        """Read ``events`` (Events, dicts with ``"type"``, a pandas DataFrame or a pyarrow Table) and yield the
        matches each one completes, in stream order.

        A DataFrame, a Table and a list or tuple of dicts go by batches (:mod:`cer_theory.engines.core.columnar`:
        Arrow columns for frames and tables; a batch of dicts checked at once and masked in place, docs/decisions.md
        D89; a batch that cannot be read exactly goes dict by dict, or row by row, with the Event path's errors);
        ``validate=True`` reads dicts one by one with :meth:`Event.from_dict`. Other iterables are read one event at a time, so a live source yields each match
        as soon as its last event is read."""
        module = type(events).__module__
        if module.startswith(("pandas", "pyarrow")) or (
                not validate and events.__class__ in (list, tuple) and events and events[0].__class__ is dict):
            for batch in frame_batches(events, self.position):
                yield from self.process_batch(batch)
            return
        if isinstance(events, (Event, Mapping)):
            raise TypeError("process takes an iterable of events; use process_event for a single one")
        if self._inlined:
            yield from self._process_inlined(events)
            return
        for e in events:
            yield from self.process_event(e)

    def process_batch(self, batch: Rows | Iterable[Event]) -> Iterator[Match]:
        """One batch of :mod:`cer_theory.engines.core.columnar` at the next positions: its Events (the row path),
        or its columns — bit vectors, window keys and partition keys computed per batch, an Event built only for
        the rows a match reports."""
        if not isinstance(batch, Rows):
            if self._inlined:
                yield from self._process_inlined(batch)
            else:
                for e in batch:
                    yield from self.process_event(e)
            return
        batch.first = self.position
        self._frame_rows = True
        if self._dict_mask is None and isinstance(batch, DictRows):
            self._dict_mask = compile_mask(self.det.predicates, dicts=True)
        masks, times, parts = column_keys(batch, self.det.predicates, self._time_attribute, self.partition_attributes,
                                          self._dict_mask)
        if self._inlined and not self._aggregated:  # (aggregates take the one-step path: their matches are decoded)
            yield from self._process_columns(batch, masks, times, parts)
            return
        for k in range(len(batch)):
            yield from self._step(batch, masks[k], None if times is None else times[k],
                                  [c[k] for c in parts] if parts else None)

    def process_event(self, event: Event | Mapping[str, Any], *, mask: int | None = None) -> list[Match]:
        """Read one event at the next global position; return the matches ending there."""
        if not isinstance(event, Event):
            event = Event.from_dict(event, line=self.position)
        attr = self._time_attribute
        return self._step(event, self.det.mask(event) if mask is None else mask,
                          None if attr is None else event.get(attr),
                          [event.get(a) for a in self.partition_attributes] if self.partition_attributes else None)

    def report_to(self, sink: Callable[[list[CoreComplexEvent], tuple | None], Sequence] | None) -> None:
        """Hand the CEs reported at each position to ``sink(ces, partition)`` instead of building a :class:`Match`
        per CE; what it returns is what :meth:`process` yields from then on (None: Matches again). ``ces`` are in
        the order Matches would come, ``partition`` is what :attr:`Match.partition` would be, and the events at
        the CEs' positions are :meth:`event_at` during the call. A writer that needs text, not objects, saves
        the Match and the events tuple per CE (:meth:`~cer_theory.engines.core.output.MatchWriter.attach`;
        docs/decisions.md D155). Not for a query with aggregates, whose matches are decoded first."""
        if self._aggregated and sink is not None:
            raise UnsupportedError("report_to: a query with aggregates reports AggregatedMatch objects")
        self._report = self._matches if sink is None else sink

    def _process_inlined(self, events: Iterable[Event | Mapping[str, Any]]) -> Iterator[Match]:
        """:meth:`process` over Events and dicts, for the queries whose evaluators need no strategy history
        (not NEXT/LAST/MAX) and whose window and partition keys are attributes (not the event type): the loop of
        :meth:`process_event` with :meth:`_step`, :meth:`_partition_key`, :func:`_time_key` and :meth:`_expire`
        inlined. It is a copy of :meth:`_step`, kept because it pays: 1.9x the events/s of calling
        :meth:`_step` per event on P3′ (248k against 132k, benchmarks/README.md). The same checks and effects
        in the same order; ``test_engine_fast_paths_equal_the_one_step`` checks it against :meth:`_step` on
        generated queries and streams (matches, errors and bookkeeping). The engine's position, last window key
        and event-buffer base live in locals, written back before every yield and on exit and read again after
        a yield (the caller may use the engine meanwhile)."""
        mask, initial_moves = self.det.mask, self.det.initial_moves
        attr, window, consume = self._time_attribute, self.window, self.consume
        attrs = self.partition_attributes
        evaluators = self._evaluators
        get_entry, to_end = evaluators.get, evaluators.move_to_end
        keys, events_kept = self._event_keys, self._events
        remember_event, remember_key = events_kept.append, keys.append
        forget_event, forget_key = events_kept.popleft, keys.popleft
        size, strict = (window.size, window.strict) if window is not None else (_INF, False)
        expire_partitions = window is not None and bool(attrs)  # as in _expire (no strategy here)
        by_position = window is not None and window.kind == "events"
        aggregated = self._aggregated
        kinds = _KINDS
        if self._spans:
            self._row_buffer()
        position, last, base = self.position, self._last_key, self._events_base
        try:
            for e in events:
                if e.__class__ is not Event and not isinstance(e, Event):
                    e = Event.from_dict(e, line=position)
                m = mask(e)
                j = position
                position = j + 1
                pkey: tuple | None = ()
                if attrs:
                    values = e._values
                    for a in attrs:  # _partition_key
                        v = values.get(a)
                        if v is None:
                            pkey = None
                            break
                        k = kinds.get(v.__class__)
                        pkey += (((k if k is not None else kind(v)), v),)  # type: ignore[operator]
                    if pkey is None:  # a NULL partition value: in no partition, needs no window key either
                        self.unpartitioned += 1
                        remember_event(e)
                        remember_key(last)
                        continue
                if attr is None:
                    key = j
                else:  # _time_key and the monotonicity check
                    key = e._values.get(attr)
                    if key.__class__ is not int and key.__class__ is not float:
                        key = _time_key(j, key, attr)
                    if key < last:
                        raise _decreasing(key, last, j, attr)
                last = key
                remember_event(e)
                remember_key(key)
                entry = get_entry(pkey)
                ces = None
                if entry is None:
                    if initial_moves(m):
                        entry = (self._new_evaluator(), tuple(v for _, v in pkey))  # type: ignore[union-attr]
                        evaluators[pkey] = entry
                        self.partitions_created += 1
                elif attrs:  # (with one evaluator it is already the last)
                    to_end(pkey)
                if entry is not None:
                    evaluator = entry[0]
                    ces = evaluator.advance(j, m, key)
                    if ces and aggregated:  # as in _step: only the matches HAVING keeps are reported and consume
                        self._events_base = base  # (read by event_at)
                        ces = self._aggregated_matches(ces, entry[1] if attrs else None)  # type: ignore[assignment]
                    if ces:
                        if consume == "ANY":
                            self._discard_all()
                        elif consume == "PARTITION":
                            self._discard(pkey)  # type: ignore[arg-type]
                    if not evaluator.table and pkey in evaluators:  # Evaluator.active, inlined
                        self._discard(pkey)  # type: ignore[arg-type]
                # _expire, with Window.admits inlined (without a window the size is infinite: nothing expires)
                if expire_partitions:
                    while evaluators:
                        oldest = next(iter(evaluators.values()))[0]
                        span = key - (oldest.position if by_position else oldest.last_key)
                        if (span < size) if strict else (span <= size):
                            break
                        del evaluators[next(iter(evaluators))]
                        self.partitions_discarded += 1
                if strict:
                    while keys and key - keys[0] >= size:
                        forget_key()
                        forget_event()
                        base += 1
                else:
                    while keys and key - keys[0] > size:
                        forget_key()
                        forget_event()
                        base += 1
                if ces:
                    self.position, self._last_key, self._events_base = position, last, base
                    yield from (ces if aggregated else  # type: ignore[misc]
                                self._report(ces, entry[1] if attrs else None))  # type: ignore[index]
                    if self._spans:  # (the caller ran a columnar batch meanwhile)
                        self._row_buffer()
                    position, last, base = self.position, self._last_key, self._events_base
        finally:
            self.position, self._last_key, self._events_base = position, last, base

    def _process_columns(self, rows: Rows, masks: list[int], times: list | None, parts: list[list] | None
                         ) -> Iterator[Match]:
        """:meth:`_process_inlined` over one columnar batch: the bit vector, window key and partition values of
        row k are ``masks[k]``, ``times[k]`` and ``[c[k] for c in parts]`` instead of being read from an Event,
        and the batch stands for its events in the event buffer, as one :class:`_Span` with the key each row
        keeps there. Rows whose bit vector is inert (:mod:`cer_theory.engines.core.inert`) or whose partition
        value is NULL are skipped in bulk when :meth:`_skip_plan` finds that exact; see there for why the result
        is the same."""
        n = len(masks)
        if not n:
            return
        null = None
        if parts:
            null = np.zeros(n, dtype=bool)
            for column in parts:
                null |= np.equal(np.array(column, dtype=object), None)
        keys = self._batch_keys(rows.first, n, times, null)
        self._span_buffer()
        self._spans.append(_Span(rows.first, rows, None, keys))
        plan = self._skip_plan(masks, times, null)
        if plan is None:
            yield from self._columns(rows, masks, times, parts, keys, range(n), False)
            return
        visit, stop, nulls = plan
        resume = yield from self._columns(rows, masks, times, parts, keys, chain(visit, range(stop, n)), nulls)
        if resume is not None:  # a det-state mixing sinks and waiting states appeared: visit every row from here
            yield from self._columns(rows, masks, times, parts, keys, range(resume, n), False)

    def _batch_keys(self, first: int, n: int, times: list | None, null: np.ndarray | None) -> Sequence:
        """The key the event buffer keeps for each row of a batch at positions ``first``…: its window key (its
        position without a time window), or for a row in no partition the previous row's, as :meth:`_step`
        keeps (the engine's last key before the batch for the first rows). A row whose key is not a number never
        enters the buffer (its visit raises), so its entry here is never read."""
        own: Sequence = times if self._time_attribute is not None else range(first, first + n)  # type: ignore
        if null is None or not null.any():
            return own
        held = np.empty(n + 1, dtype=object)
        held[0] = self._last_key
        held[1:] = list(own)
        source = np.where(null, 0, np.arange(1, n + 1))
        np.maximum.accumulate(source, out=source)
        return held[source].tolist()

    def _skip_plan(self, masks: list[int], times: list | None, null: np.ndarray | None
                   ) -> tuple[list[int], int, list[int] | None] | None:
        """Which rows of a batch must be visited, or None to visit them all.

        Rows ``k < stop`` are skipped unless their bit vector is not inert and their partition values are not
        NULL (``null``; ``visit``); every row from ``stop`` on is visited, ``stop`` being the first non-NULL row
        whose window key is not a number or decreases (its error is then raised by the visit, after the matches
        of the rows before it, as on every path). ``nulls[k]`` counts the NULL rows before k.

        **Exactness** (docs/decisions.md D120). A skipped row is either NULL-partitioned (it only counts in
        :attr:`unpartitioned` and enters the event buffer) or inert: by :mod:`~cer_theory.engines.core.inert` it
        starts no run, marks nothing, outputs nothing, and changes an evaluator's T only by dropping det-states
        made of sinks, which have no successor on any event, so the next update from T or from the dropped T
        builds the same T′ with the same union-lists in the same order and outputs the same CEs in the same order
        (while no det-state mixes sinks and waiting states: :meth:`Inertness.refresh`, checked after every
        visit). The window's pruning is monotone in τ, so pruning at the next visited row's τ alone cuts the
        union-lists as pruning at every row would. The skipped rows' keys are checked here, column-wise, with
        the comparisons of the row loop (exact: ints compared as int64, floats as float64, a mix only below
        2**53), so no check is lost. CONSUME BY and LIMIT act on outputs only. What differs is bookkeeping of
        PARTITION BY's evaluators: a skipped row touches no partition, so an evaluator may be dropped for its
        window at another row (its last *visited* event leaves the window, after which all its runs have
        expired) and one holding only sinks is dropped at its next visit; without PARTITION BY the one evaluator
        is dropped exactly where the row loop drops it (when a gap is skipped). Windows that admit no span at
        all are not skipped."""
        inert = self._inert
        if inert is None or not inert.refresh():
            self._inert = None
            return None
        n = len(masks)
        codes = np.asarray(masks)
        if codes.dtype == object:  # more than 63 predicates: Python ints
            quiet = np.fromiter(map(inert.inert, masks), dtype=bool, count=n)
        else:
            distinct, where = np.unique(codes, return_inverse=True)
            quiet = np.array([inert.inert(m) for m in distinct.tolist()], dtype=bool)[where.reshape(-1)]
        last = self._last_key
        stop = n
        if self._time_attribute is not None:
            keyed = None if null is None else np.flatnonzero(~null)
            values = times if keyed is None else [times[i] for i in keyed.tolist()]  # type: ignore[index]
            found = total = len(values)
            classes = set(map(type, values))
            if not classes <= {int, float}:  # the first key that is not a number stops the plan
                found = next(i for i, v in enumerate(values) if v.__class__ is not int and v.__class__ is not float)
                values = values[:found]
                classes = set(map(type, values))
            if values:
                if classes == {int}:
                    try:
                        keys = np.array(values, dtype=np.int64)
                    except OverflowError:
                        return None
                elif int in classes and any(abs(v) > 2 ** 53 for v in values if v.__class__ is int):
                    return None  # float64 would round them: not the row loop's exact comparison
                else:
                    keys = np.array(values, dtype=np.float64)
                if values[0] < last:
                    found = 0
                else:
                    down = np.flatnonzero(keys[1:] < keys[:-1])
                    if len(down):
                        found = min(found, int(down[0]) + 1)
            if found < total:
                stop = found if keyed is None else int(keyed[found])
        if null is None:
            return np.flatnonzero(~quiet[:stop]).tolist(), stop, None
        nulls = np.concatenate(([0], np.cumsum(null[:stop]))).tolist()
        return np.flatnonzero(~(quiet[:stop] | null[:stop])).tolist(), stop, nulls

    def _columns(self, rows: Rows, masks: list[int], times: list | None, parts: list[list] | None,
                 row_keys: Sequence, visit: Iterable[int], nulls: list[int] | None | bool
                 ) -> Generator[Match, None, int | None]:
        """The row loop of :meth:`_process_columns` over the rows ``visit`` (increasing); the batch's span is the
        last in the event buffer, with ``row_keys`` (:meth:`_batch_keys`). With ``nulls`` of :meth:`_skip_plan`
        (False: nothing is skipped) the rows between two visited ones are skipped: they are in the buffer's span
        already, count in :attr:`unpartitioned` if NULL, and without PARTITION BY an evaluator left holding only
        sinks is dropped, as their own steps would do. Returns the row to resume from without skipping if a
        det-state mixing sinks and waiting states appears, else None."""
        initial_moves = self.det.initial_moves
        attr, window, consume = self._time_attribute, self.window, self.consume
        attrs = self.partition_attributes
        evaluators = self._evaluators
        get_entry, to_end = evaluators.get, evaluators.move_to_end
        size, strict = (window.size, window.strict) if window is not None else (_INF, False)
        expire_partitions = window is not None and bool(attrs)  # as in _expire (no strategy here)
        by_position = window is not None and window.kind == "events"
        kinds = _KINDS
        first = rows.first
        position, last, base = self.position, self._last_key, self._events_base
        skipping = nulls is not False
        inert = self._inert if skipping else None
        if not skipping:
            nulls = None
        subsets = self.det.subsets
        known = len(subsets)
        done = position - first  # rows of this batch already read
        try:
            for k in visit:
                if k > done:  # catch up the skipped rows done..k-1 (already in the batch's span)
                    if nulls is not None:
                        self.unpartitioned += nulls[k] - nulls[done]  # type: ignore[index]
                    self.skipped_rows += k - done
                    last = row_keys[k - 1]
                    if not attrs and evaluators and not evaluators[()][0].keeps_after_inert(
                            last, inert.spent):  # type: ignore[union-attr]
                        self._discard(())  # where the skipped rows' updates emptied the one evaluator
                m = masks[k]
                j = first + k
                position = j + 1
                done = k + 1
                pkey: tuple | None = ()
                if attrs:
                    values = [c[k] for c in parts]  # type: ignore[union-attr]
                    if None in values:  # a NULL partition value: in no partition, needs no window key either
                        self.unpartitioned += 1
                        continue
                    pkey = tuple([((kinds.get(v.__class__) or kind(v)), v) for v in values])
                if attr is None:
                    key = j
                else:  # _time_key and the monotonicity check
                    key = times[k]  # type: ignore[index]
                    if key.__class__ is not int and key.__class__ is not float:
                        key = _time_key(j, key, attr)
                    if key < last:
                        raise _decreasing(key, last, j, attr)
                last = key
                entry = get_entry(pkey)
                ces = None
                if entry is None:
                    if initial_moves(m):
                        entry = (self._new_evaluator(), tuple(v for _, v in pkey))  # type: ignore[union-attr]
                        evaluators[pkey] = entry
                        self.partitions_created += 1
                elif attrs:  # (with one evaluator it is already the last)
                    to_end(pkey)
                if entry is not None:
                    evaluator = entry[0]
                    ces = evaluator.advance(j, m, key)
                    if ces:
                        if consume == "ANY":
                            self._discard_all()
                        elif consume == "PARTITION":
                            self._discard(pkey)  # type: ignore[arg-type]
                    if not evaluator.table and pkey in evaluators:  # Evaluator.active, inlined
                        self._discard(pkey)  # type: ignore[arg-type]
                if expire_partitions:  # _expire's evaluators, with Window.admits inlined
                    while evaluators:
                        oldest_ev = next(iter(evaluators.values()))[0]
                        span = key - (oldest_ev.position if by_position else oldest_ev.last_key)
                        if (span < size) if strict else (span <= size):
                            break
                        del evaluators[next(iter(evaluators))]
                        self.partitions_discarded += 1
                if ces:
                    # The event buffer's positions expire here, before a yield, and when the loop ends, each time
                    # at the key of then: expiry is monotone in the key, so that is where the row loop's per-row
                    # expiry gets to, and the batch's span is held whole meanwhile anyway.
                    if window is not None and base < position:
                        self.position = position
                        base = self._expire_spans(key, base)
                    self.position, self._last_key, self._events_base = position, last, base
                    yield from self._report(ces, entry[1] if attrs else None)  # type: ignore[index]
                    position, last, base = self.position, self._last_key, self._events_base
                if inert is not None and len(subsets) != known:
                    known = len(subsets)
                    if not inert.refresh():
                        self._inert = None
                        return done
            n = len(masks)
            if done < n and skipping:  # the skipped rows after the last visited one
                self.position = first + done  # (an exception below must leave the engine where it stopped)
                if nulls is not None:
                    self.unpartitioned += nulls[n] - nulls[done]  # type: ignore[index]
                self.skipped_rows += n - done
                last = row_keys[n - 1]
                position = first + n
                if not attrs and evaluators and not evaluators[()][0].keeps_after_inert(
                        last, inert.spent):  # type: ignore[union-attr]
                    self._discard(())
                self.position, self._last_key, self._events_base = position, last, base
                if window is not None and last != -_INF:  # the expiry of the last non-NULL row, at its key
                    self._expire(last)
                    base = self._events_base
        finally:
            if window is not None and base < position and last != -_INF:  # (the deferred expiry, see `if ces`)
                self.position = position
                base = self._expire_spans(last, base)
            self.position, self._last_key, self._events_base = position, last, base
        return None


    # ------------------------------------------------------------------ one event

    def _step(self, item: Event | Rows, mask: int, time: Any, values: list | None
              ) -> list[Match]:
        """The engine's one per-event step: the event ``item`` (an Event or a frame row) with its bit vector
        ``mask``, its window attribute value ``time`` and its partition attribute values ``values`` (None without
        PARTITION BY), at the next global position. In order: the partition key (NULL: no partition,
        docs/decisions.md D22); the window key (numeric, non-decreasing along the stream); the event kept for
        Match.events; the partition's evaluator, created only if a run can start here; Algorithm 1 on it
        (``Evaluator.advance``); CONSUME BY; an evaluator that holds nothing is discarded; the window expires old
        evaluators and events; the CEs become Matches. :meth:`process_event`, the frame path and the selection
        strategies call it; the loop of :meth:`_process_inlined` is its inlined copy."""
        j = self.position
        self.position = j + 1
        pkey: tuple = ()
        if values is not None:
            pkey = self._partition_key(values)  # type: ignore[assignment]
            if pkey is None:  # a NULL partition value: in no partition, needs no window key either
                self.unpartitioned += 1
                self._remember(item, self._last_key)
                return []
        key: float = j
        if self._time_attribute is not None:
            key = _time_key(j, time, self._time_attribute)
            if key < self._last_key:
                raise _decreasing(key, self._last_key, j, self._time_attribute)
        self._last_key = key
        self._remember(item, key)
        entry = self._evaluators.get(pkey)
        if entry is None:
            if not self.det.initial_moves(mask):  # a new evaluator would stay empty and be discarded at once
                self._expire(key)
                return []
            entry = (self._new_evaluator(), tuple(v for _, v in pkey))
            self._evaluators[pkey] = entry
            self.partitions_created += 1
        else:
            self._evaluators.move_to_end(pkey)
        evaluator, part = entry
        ces: list = evaluator.advance(j, mask, key)
        if ces and self._aggregated:  # only the matches HAVING keeps are reported, and only they consume
            ces = self._aggregated_matches(ces, part if values is not None else None)
        if ces:
            if self.consume == "ANY":
                self._discard_all()
            elif self.consume == "PARTITION":
                self._discard(pkey)
        if not evaluator.active and pkey in self._evaluators:
            self._discard(pkey)  # nothing stored: a fresh evaluator would behave the same
        self._expire(key)
        if not ces:
            return []
        if self._aggregated:
            return ces
        return self._report(ces, part if values is not None else None)  # type: ignore[return-value]

    def _aggregated_matches(self, ces: list[CoreComplexEvent], partition: tuple | None) -> list[Match]:
        """The reported matches of a query with aggregates, from the encoded CEs of one position: each path is
        decoded and its aggregates folded over their events in stream order in one generated loop (seed 003's
        Agg, :func:`~cer_theory.engines.core.folding.compile_decoder`), then HAVING, deduplication of
        ``(CE, values)`` and LIMIT, in that order. Linear in the paths' lengths."""
        having, limit, aliases, decode = self.having, self.limit, self._aliases, self._decode
        if self._frame_rows:
            event_at = self.event_at
        else:
            events, base = self._events, self._events_base

            def event_at(j: int) -> Event:
                return events[j - base]  # type: ignore[return-value]
        seen: set[tuple] = set()
        out: list[Match] = []
        self.enumerated += len(ces)
        for c in ces:
            data, data_events, values = decode(c.positions, event_at)
            if having is not None and not having_holds(having, self.aggregates, values):
                self.having_dropped += 1
                continue
            positions = tuple(data)
            key = (c.start, positions, values)
            if key in seen:
                self.duplicates_dropped += 1
                continue
            seen.add(key)
            _set_positions(c, positions)  # c is this enumeration's own object: decoded in place
            m = _new(AggregatedMatch)
            _set_ce(m, c)
            _set_events(m, tuple(data_events))
            _set_partition(m, partition)
            _set_aggregates(m, tuple(zip(aliases, values)))
            out.append(m)
            if len(out) == limit:
                break
        return out

    def _matches(self, ces: list[CoreComplexEvent], partition: tuple | None) -> list[Match]:
        """The reported Matches of ``ces`` (their events are still in the window's event buffer)."""
        if self._spans:  # (the columnar loop: most positions are in the last span, the current batch)
            spans = self._spans
            newest = spans[-1]
            start = newest.start
            rows = newest.rows
            if rows is None:  # (a span of row-loop entries: no batch to read from)
                start = self.position
            else:  # Rows.event inlined: the batch's Events built so far, by row
                built, first = rows._events, rows.first
            out = []
            for c in ces:
                found = []
                for p in c.positions:
                    if p >= start:
                        event = built.get(p - first)
                        found.append(event if event is not None else rows.event(p - first))  # type: ignore
                    else:
                        found.append(self.event_at(p))
                out.append(make_match(c, tuple(found), partition))
            return out
        events, base = self._events, self._events_base
        if self._frame_rows:  # (event_at inlined: an Event, or a batch that builds the row's Event once)
            out = []
            for c in ces:
                found = []
                for p in c.positions:
                    item = events[p - base]
                    found.append(item if item.__class__ is Event else item.event(p - item.first))
                out.append(make_match(c, tuple(found), partition))
            return out
        return [make_match(c, tuple([events[p - base] for p in c.positions]), partition) for c in ces]

    def _new_evaluator(self) -> Evaluator:
        if self._aggregated:  # LIMIT is applied after HAVING, by the engine
            return LabelledEvaluator(determinizer=self.det, window=self.window, **self._options)
        if self._select:
            return SelectEvaluator(determinizer=self.det, window=self.window, limit=self.limit,  # type: ignore
                                   **self._options)
        return Evaluator(determinizer=self.det, window=self.window, limit=self.limit, **self._options)

    @staticmethod
    def _partition_key(values: list) -> tuple | None:
        out = []
        for v in values:
            if v is None:
                return None
            out.append((kind(v), v))  # 1 and 1.0 share a partition; 1 and True do not (hash(1) == hash(True))
        return tuple(out)

    # ------------------------------------------------------------------ memory: partitions and events

    def _discard(self, pkey: tuple) -> None:
        del self._evaluators[pkey]
        self.partitions_discarded += 1

    def _discard_all(self) -> None:
        self.partitions_discarded += len(self._evaluators)
        self._evaluators.clear()

    def _expire(self, now: float) -> None:
        """Drop evaluators whose last event has left the window (least recently used first, O(1) amortized)
        and the events no future match can contain."""
        window = self.window
        if window is None:
            return
        evaluators = self._evaluators
        admits = window.admits
        if self.partition_attributes and not self._select:  # (a strategy's history outlives the window)
            while evaluators:
                pkey, (evaluator, _) = next(iter(evaluators.items()))
                if admits(evaluator.position if window.kind == "events" else evaluator.last_key, now):
                    break
                self._discard(pkey)
        if self._spans:
            self._events_base = self._expire_spans(now, self._events_base)
            return
        keys, events = self._event_keys, self._events
        while keys and not admits(keys[0], now):
            keys.popleft()
            events.popleft()
            self._events_base += 1

    def _expire_spans(self, now: float, base: int) -> int:
        """Expire the span buffer's positions from ``base`` on whose key the window no longer admits at ``now``
        (binary search in each span's keys; a span wholly expired is dropped, except the last, which the current
        batch may still be filling); returns the new base. Positions end at :attr:`position`."""
        window = self.window
        size, strict = window.size, window.strict  # type: ignore[union-attr]
        spans = self._spans
        while True:
            span = spans[0]
            end = spans[1].start if len(spans) > 1 else self.position
            lo = base - span.start
            hi = end - span.start
            found = _first_admitted(span.keys, lo, hi, now, size, strict)
            base = span.start + found
            if found < hi or len(spans) == 1:
                return base
            spans.popleft()

    def _remember(self, item: Event | Rows, key: float) -> None:
        if self._spans:
            self._row_buffer()
        self._events.append(item)
        self._event_keys.append(key)

    def _row_buffer(self) -> None:
        """Switch the event buffer to one entry per position (the row loops'), from spans (the columnar loop's)."""
        spans, events, keys = self._spans, self._events, self._event_keys
        base, end = self._events_base, self.position
        for k, span in enumerate(spans):
            hi = spans[k + 1].start if k + 1 < len(spans) else end
            lo = max(base, span.start)
            if lo < hi:
                events.extend(span.entries(lo, hi))
                keys.extend(span.keys[lo - span.start:hi - span.start])
        spans.clear()

    def _span_buffer(self) -> None:
        """Make the event buffer spans (the columnar loop's) before a batch's span is added: one span holds the
        entries the row loops kept, and spans already wholly expired are dropped, so that the first span holds
        the first kept position."""
        if self._events:
            self._spans.append(_Span(self._events_base, None, list(self._events), list(self._event_keys)))
            self._events.clear()
            self._event_keys.clear()
            return
        spans, base = self._spans, self._events_base
        if base == self.position:  # everything expired: nothing to keep
            spans.clear()
        while len(spans) > 1 and spans[1].start <= base:  # spans wholly expired (a new batch follows the last)
            spans.popleft()

    def event_at(self, position: int) -> Event:
        """The event at global ``position``, which must still be in the event buffer (from
        ``position - retained_events`` on): every position of a CE the engine reports is, at the time it reports it."""
        rows, found = self._locate(position)
        return found if rows is None else rows.event(found)

    def event_text(self, position: int) -> str:
        """``event_at(position).to_json_text()``, written from a batch's columns without building the Event when
        the row is in one (docs/decisions.md D155)."""
        rows, found = self._locate(position)
        return found.to_json_text() if rows is None else rows.text(found)

    def _locate(self, position: int) -> tuple[Rows | None, Any]:
        spans = self._spans
        if spans:
            for span in reversed(spans):
                if position >= span.start:
                    return span.locate(position)
        item = self._events[position - self._events_base]
        return (None, item) if isinstance(item, Event) else (item, position - item.first)

    # ------------------------------------------------------------------ inspection

    @property
    def partitions(self) -> int:
        """Evaluators currently alive (partition keys with partial matches inside the window)."""
        return len(self._evaluators)

    def evaluators(self) -> list[tuple[tuple | None, Evaluator]]:
        """The live evaluators with their partition keys (None without PARTITION BY)."""
        return [(values if self.partition_attributes else None, ev) for ev, values in self._evaluators.values()]

    @property
    def retained_events(self) -> int:
        """Events kept for Match.events (the window's, or all of them without a window)."""
        return self.position - self._events_base

    @property
    def buffer_entries(self) -> int:
        """Entries of the event buffer: one per kept position on the row loops, one per batch (span) on the
        columnar loop (D136)."""
        return len(self._events) + len(self._spans)


def _decreasing(key: float, previous: float, position: int, attribute: str) -> StreamFormatError:
    """The error for a window key below the previous one (docs/decisions.md D30)."""
    return StreamFormatError(f"window key {key!r} decreases (previous {previous!r}); WITHIN needs non-decreasing "
                             f"timestamps in stream order (docs/decisions.md D30)", line=position, field=attribute)


def _time_key(position: int, value: Any, attribute: str) -> float:
    """``Window.key`` for an attribute value: numbers only (a missing value is an error, docs/decisions.md D30)."""
    if value is None or isinstance(value, (bool, str)) or not isinstance(value, (int, float)):
        raise StreamFormatError(f"the window needs a numeric {attribute!r} on every event", line=position,
                                field=attribute)
    return value


def evaluate_query(query: Query | str, stream: Sequence[Event | Mapping[str, Any]], **options: Any
                   ) -> list[frozenset]:
    """The engine's output grouped by end position, ``out[j]`` = the CEs reported at j, or the ``(CE, values)``
    records of a query with aggregates (the shape of :func:`cer_theory.formalisms.ceql.semantics.evaluate`, for
    differential tests and the CLI)."""
    out: list[set[CoreComplexEvent]] = [set() for _ in range(len(stream))]
    for m in Engine(query, **options).process(stream):
        out[m.end].add((m.complex_event, m.aggregates) if isinstance(m, AggregatedMatch) else m.complex_event)
    return [frozenset(s) for s in out]


__all__ = ["AggregatedMatch", "Engine", "Match", "SELECT_STRATEGIES", "evaluate_query"]
