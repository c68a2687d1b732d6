"""The CORE engine: a CEQL query evaluated over a stream, incrementally (the CORE paper §2.2 and §4;
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
* **Aggregates and HAVING** (the ACEL paper's ``Agg``; docs/decisions.md D75–D78) — the evaluators run over letters
  (:mod:`cer_theory.engines.core.labelled`) so that each enumerated path also tells which positions each
  aggregated variable binds; the values are folded while the path is decoded (linear in the path: the delay
  stays output-linear). Each enumerated match is then checked against HAVING and against the records already
  reported at that position (outputs are a set of (CE, values)); LIMIT counts what survives, and only reported
  matches consume. HAVING is applied after enumeration, so the engine may enumerate matches it then drops:
  :attr:`Engine.having_dropped` and :attr:`Engine.duplicates_dropped` count them. Strategies other than ALL and
  ANY are not supported with aggregates (UnsupportedError).

The engine is a small facade over one-idea modules: the query plan (:mod:`~cer_theory.engines.core.plan`), the
partition table (:mod:`~cer_theory.engines.core.partitions`), the event buffer
(:mod:`~cer_theory.engines.core.buffer`), skipping (:mod:`~cer_theory.engines.core.inert`), the matches
(:mod:`~cer_theory.engines.core.matches`), and the one fast loop (:mod:`~cer_theory.engines.core.loop`) fed by a
cursor over Events or over a columnar batch. :meth:`Engine._step` is the readable form of the per-event step,
which the fast loop inlines; the property tests compare the two on every input path (docs/decisions.md D51).

Input: :class:`~cer_theory.core.events.Event` objects, dicts with a ``"type"`` key, a pandas DataFrame or a pyarrow
Table (a ``type`` column; None/NaN cells are absent attributes); batches get their predicate bit vectors from
:func:`cer_theory.core.predicates.vectorized.bitmasks`. Each reported :class:`Match` carries the CE in global
stream positions, the events at its positions and the partition key. Memory: the events and the tECS are kept for
the window only; without a window both grow with the stream (as in the paper's Algorithm 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cer_theory.core.budget import active
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError, wrong_kind
from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.core.predicates.masks import compile_mask
from cer_theory.core.windows import window_value
from cer_theory.engines.core import compiled
from cer_theory.engines.core.evaluator import Evaluator
from cer_theory.engines.core.loop import fast_loop
from cer_theory.engines.core.matches import AggregatedMatch, Match
from cer_theory.engines.core.partitions import partition_key
from cer_theory.engines.core.plan import SELECT_STRATEGIES, QueryPlan
from cer_theory.engines.core.state import EngineState, Report, decreasing
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse

if TYPE_CHECKING:
    from cer_theory.engines.core.batches import Rows


class Engine(EngineState):
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
        elif not isinstance(query, Query):
            raise wrong_kind("Engine", "a CEQL query (its text, or a parsed Query)", query)
        plan = QueryPlan(query, budget=budget, debug=debug, instrument=instrument)
        super().__init__(plan)
        self.query = query
        self.strategy, self.cea, self.det, self.window = plan.strategy, plan.cea, plan.det, plan.window
        self.partition_attributes, self.consume, self.limit = plan.partition_attributes, plan.consume, plan.limit
        self.aggregates, self.having = query.aggregates, query.having
        self._dict_mask: Any = None  # the bit-vector function compiled for dicts, on first need

    # ------------------------------------------------------------------ input

    def process(self, events: Iterable[Event | Mapping[str, Any]] | Any, *, validate: bool = False
                ) -> Iterator[Match]:
        """Read ``events`` (Events, dicts with ``"type"``, a pandas DataFrame or a pyarrow Table) and yield the
        matches each one completes, in stream order.

        A DataFrame, a Table and a list or tuple of dicts go by batches (:mod:`cer_theory.streams.convert`:
        Arrow columns for frames and tables; a batch of dicts checked at once and masked in place, docs/decisions.md
        D89; a batch that cannot be read exactly goes dict by dict, or row by row, with the Event path's errors);
        ``validate=True`` reads dicts one by one with :meth:`Event.from_dict`. Other iterables are read one event
        at a time, so a live source yields each match as soon as its last event is read."""
        module = type(events).__module__
        if module.startswith(("pandas", "pyarrow")) or (
                not validate and events.__class__ in (list, tuple) and events and events[0].__class__ is dict):
            from cer_theory.streams.convert import frame_batches  # (numpy and Arrow once a batch comes, D174)

            for batch in frame_batches(events, self.position, check=compiled.clean_columns()):
                yield from self._batch(batch)  # (not process_batch: one generator less for every match to pass)
            return
        if isinstance(events, (Event, Mapping)):
            raise TypeError("process takes an iterable of events; use process_event for a single one")
        yield from self._process_events(events)

    def process_batch(self, batch: Rows | Iterable[Event]) -> Iterator[Match]:
        """One batch (:mod:`cer_theory.streams.batch`) at the next positions: its Events (the row path),
        or its columns — bit vectors, window keys and partition keys computed per batch, an Event built only for
        the rows a match reports (:mod:`cer_theory.engines.core.batches`)."""
        yield from self._batch(batch)

    def _batch(self, batch: Rows | Iterable[Event]) -> Iterator[Match]:
        """:meth:`process_batch`'s work up to its loop, done when called; the loop, as an iterator."""
        # (numpy and Arrow are loaded once a batch comes: docs/decisions.md D174)
        from cer_theory.engines.core.batches import Columns, Rows, column_loop, dict_rows

        if not isinstance(batch, Rows):
            return self._process_events(batch)
        batch.first = self.position
        if self._dict_mask is None and dict_rows(batch):
            self._dict_mask = compile_mask(self.det.predicates, dicts=True)
        columns = Columns(self, batch, self._dict_mask)
        if not len(columns):
            return iter(())
        self.buffer.add_batch(batch, columns.keys, batch.first)
        if self.plan.fast:
            return column_loop(self, columns)
        return self._steps(columns)

    def _steps(self, columns: Any) -> Iterator[Match]:
        """A batch's rows through the readable step (a plan the fast loop does not take)."""
        times, parts = columns.times, columns.parts
        for k, mask in enumerate(columns.masks):
            yield from self._step(None, mask, None if times is None else times[k],
                                  [c[k] for c in parts] if parts else None)

    def process_event(self, event: Event | Mapping[str, Any], *, mask: int | None = None) -> list[Match]:
        """Read one event at the next global position; return the matches ending there."""
        if not isinstance(event, Event):
            event = Event.from_dict(event, line=self.position)
        attr = self.plan.time_attribute
        return self._step(event, self.det.mask(event) if mask is None else mask,
                          None if attr is None else event.get(attr),
                          [event.get(a) for a in self.partition_attributes] if self.partition_attributes else None)

    def _process_events(self, events: Iterable[Event | Mapping[str, Any]]) -> Iterator[Match]:
        """Events and dicts one at a time: the fast loop where the plan allows it, else the one step."""
        if self.plan.fast:
            yield from fast_loop(self, events, events=True)
            return
        for e in events:
            yield from self.process_event(e)

    def report_to(self, sink: Report | None, *, chunk: int | None = None) -> None:
        """Hand the CEs reported at each position to ``sink(ces, partition)`` instead of building a :class:`Match`
        per CE; what it returns is what :meth:`process` yields from then on (None: Matches again). ``ces`` are in
        the order Matches would come, ``partition`` is what :attr:`Match.partition` would be, and the events at
        the CEs' positions are :meth:`event_at` during the call. A writer that needs text, not objects, saves
        the Match and the events tuple per CE (:meth:`~cer_theory.engines.core.output.MatchWriter.attach`;
        docs/decisions.md D155). Not for a query with aggregates, whose matches are decoded first.

        With ``chunk``, ``ces`` is a list or an :class:`~cer_theory.engines.core.evaluator.Outputs`, whose
        ``chunks()`` enumerate the position's CEs at most ``chunk`` at a time while the sink reads them (the sink
        must read them during the call): a position with exponentially many CEs never holds them all (D282)."""
        if self.plan.aggregation is not None and sink is not None:
            raise UnsupportedError("report_to: a query with aggregates reports AggregatedMatch objects")
        self.report = self.matches if sink is None else sink
        self.plan.chunk = chunk if sink is not None else None
        for evaluator, _ in self.partitions_table.evaluators.values():
            evaluator.chunk = self.plan.chunk

    # ------------------------------------------------------------------ one event

    def _step(self, item: Event | None, mask: int, time: Any, values: Sequence | None) -> list[Match]:
        """The engine's per-event step, in its readable form: the event ``item`` (None: a row of the batch the
        event buffer already holds) with its bit vector ``mask``, its window attribute value ``time`` and its
        partition attribute values ``values`` (None without PARTITION BY), at the next global position. In
        order: the partition key (NULL: no partition, docs/decisions.md D22); the window key (numeric,
        non-decreasing along the stream, D30); the event kept in the buffer; the partition's evaluator, created
        only if a run can start here; Algorithm 1 on it (``Evaluator.advance``); HAVING (with aggregates: only
        the matches it keeps are reported and consume); CONSUME BY; an evaluator that holds nothing is
        discarded; the window expires old evaluators and events; the CEs become Matches. The fast loop
        (:mod:`cer_theory.engines.core.loop`) is this step inlined."""
        plan, table = self.plan, self.partitions_table
        j = self.position
        self.position = j + 1
        pkey: tuple | None = ()
        if values is not None:
            pkey = partition_key(values)
            if pkey is None:  # a NULL partition value: in no partition, needs no window key either
                self.unpartitioned += 1
                if item is not None:
                    self.buffer.append(item, self.last_key, j)
                return []
        key: float = j
        attr = plan.time_attribute
        if attr is not None:
            key = window_value(j, time, attr)
            if key < self.last_key:
                raise decreasing(key, self.last_key, j, attr)
        self.last_key = key
        if item is not None:
            self.buffer.append(item, key, j)
        entry = table.evaluators.get(pkey)
        if entry is None:
            if not self.det.initial_moves(mask):  # a new evaluator would stay empty and be discarded at once
                self._expire(key)
                return []
            entry = table.add(pkey, self._new_evaluator())
        else:
            table.evaluators.move_to_end(pkey)
        evaluator, part = entry
        partition = part if values is not None else None
        ces: list = evaluator.advance(j, mask, key)
        if ces and plan.aggregation is not None:
            ces = plan.aggregation.matches(ces, partition, self.buffer.event_at)
        if ces:
            if self.consume == "ANY":
                table.discard_all()
            elif self.consume == "PARTITION":
                table.discard(pkey)
        if not evaluator.active and pkey in table.evaluators:
            table.discard(pkey)  # nothing stored: a fresh evaluator would behave the same
        self._expire(key)
        if not ces or plan.aggregation is not None:
            return ces
        return self.report(ces, partition)  # type: ignore[return-value]

    def _expire(self, now: float) -> None:
        """Drop the evaluators whose last event has left the window (least recently used first, O(1) amortized;
        not under NEXT/LAST/MAX, whose history outlives the window) and the events no future match can contain."""
        window = self.window
        if window is None:
            return
        if self.partition_attributes and not self.plan.select:
            self.partitions_table.expire(window, now)
        self.buffer.expire(now, window, self.position)

    # ------------------------------------------------------------------ inspection

    def event_at(self, position: int) -> Event:
        """The event at global ``position``, which must still be in the event buffer (from
        ``position - retained_events`` on): every position of a CE the engine reports is, at the time it reports it."""
        return self.buffer.event_at(position)

    def event_text(self, position: int) -> str:
        """``event_at(position).to_json_text()``, written from a batch's columns without building the Event when
        the row is in one (docs/decisions.md D155)."""
        return self.buffer.text_at(position)

    @property
    def partitions(self) -> int:
        """Evaluators currently alive (partition keys with partial matches inside the window)."""
        return len(self.partitions_table)

    @property
    def partitions_created(self) -> int:
        return self.partitions_table.created

    @property
    def partitions_discarded(self) -> int:
        return self.partitions_table.discarded

    def evaluators(self) -> list[tuple[tuple | None, Evaluator]]:
        """The live evaluators with their partition keys (None without PARTITION BY)."""
        return [(values if self.partition_attributes else None, ev)
                for ev, values in self.partitions_table.evaluators.values()]

    @property
    def enumerated(self) -> int:
        """Matches enumerated by the tECS (with aggregates: before HAVING and de-duplication; else not counted)."""
        return 0 if self.plan.aggregation is None else self.plan.aggregation.enumerated

    @property
    def having_dropped(self) -> int:
        """Enumerated matches HAVING dropped."""
        return 0 if self.plan.aggregation is None else self.plan.aggregation.having_dropped

    @property
    def duplicates_dropped(self) -> int:
        """Enumerated matches equal to one already reported at the same position."""
        return 0 if self.plan.aggregation is None else self.plan.aggregation.duplicates_dropped

    @property
    def retained_events(self) -> int:
        """Events kept for Match.events (the window's, or all of them without a window)."""
        return self.position - self.buffer.base

    @property
    def buffer_entries(self) -> int:
        """Spans of the event buffer: one per columnar batch, one per run of Events read one at a time (D136)."""
        return len(self.buffer.spans)


OUTPUTS = "the engine's enumeration of complex events"
"""What the work budget's messages call the outputs the evaluators below collect (``core.budget``)."""


def charged(matches: Iterator[Any]) -> Iterator[Any]:
    """``matches`` as the engine enumerates them, one unit of the active work budget each: the engine's time is
    linear in its outputs (the CORE paper, Theorem 1's output-linear delay), so counting them bounds it. The
    evaluators that collect outputs (``eval``, the differential tests) go through here; ``run`` streams them to a
    writer under its own ``--max-output`` and does not pay for the count."""
    budget = active()
    if budget is None:
        yield from matches
        return
    for m in matches:
        budget.charge(OUTPUTS)
        yield m


def evaluate_query(query: Query | str, stream: Sequence[Event | Mapping[str, Any]], **options: Any
                   ) -> list[frozenset]:
    """The engine's output grouped by end position, ``out[j]`` = the CEs reported at j, or the ``(CE, values)``
    records of a query with aggregates (the shape of :func:`cer_theory.formalisms.ceql.semantics.evaluate`, for
    differential tests and the CLI)."""
    out: list[set[CoreComplexEvent]] = [set() for _ in range(len(stream))]
    for m in charged(Engine(query, **options).process(stream)):
        out[m.end].add((m.complex_event, m.aggregates) if isinstance(m, AggregatedMatch) else m.complex_event)
    return [frozenset(s) for s in out]


__all__ = ["AggregatedMatch", "Engine", "Match", "SELECT_STRATEGIES", "evaluate_query"]
