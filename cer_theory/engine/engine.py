"""The CORE engine: a CEQL query evaluated over a stream, incrementally (seed 001 §4; spec core-tecs-ceql.md §1.2,
§1.4, §4).

:class:`Engine` compiles the query (``compile_query``, Theorem 1) and runs Algorithm 1
(:class:`~cer_theory.engine.evaluator.Evaluator`) over the stream, applying the clauses the automaton leaves
out, with the readings of :mod:`cer_theory.semantics.ceql` (the reference the tests compare against):

* **PARTITION BY** — one evaluator per key, the tuple of the listed attributes' values (``[a],[b]`` ≡
  ``[a,b]``; numbers compare as numbers, never equal to a string or a boolean), all sharing one lazily built
  determinizer (§4.4). An event with a missing (NULL) value in any listed attribute belongs to **no**
  partition: it is counted in :attr:`Engine.unpartitioned`, not silently lost. Positions and ``EVENTS``
  windows are global. An evaluator is discarded once it holds no partial match (nothing can come of it) or,
  with a window, once its last event has left the window (every partial match in it has expired), so idle
  keys do not accumulate on unbounded key domains ([ours], spec §7.5).
* **WITHIN** — pruning inside the tECS (max-start ≥ τ); time keys must not decrease along the stream.
* **Selection strategies** — ``ALL``/``ANY``: none; ``STRICT``: compiled into the automaton. ``NEXT``,
  ``LAST`` and ``MAX`` compare each CE with every CE ending at the same position *before* the window (the
  reference's reading), which no any-start automaton is known to do: the engine enumerates all CEs ending at
  j, applies :func:`~cer_theory.semantics.ceql.select_strategy`, then the window. Correct, but neither
  output-linear nor bounded in memory (no window pruning can happen before the strategy).
* **CONSUME BY** ``ANY`` — once a CE is reported, every partial match of every partition is forgotten
  ([code] reset after any enumeration); ``PARTITION`` — only the reporting partition's; ``NONE``/absent —
  nothing.
* **LIMIT n** — at most n CEs per position: the first n of Algorithm 2's order (the enumeration stops there).

Input: :class:`~cer_theory.events.Event` objects, dicts with a ``"type"`` key, a pandas DataFrame or a pyarrow
Table (a ``type`` column; None/NaN cells are absent attributes); batches get their predicate bit vectors from
:func:`cer_theory.predicates.vectorized.bitmasks`. Each reported :class:`Match` carries the CE in global stream
positions, the events at its positions and the partition key. Memory: the events and the tECS are kept for
the window only; without a window both grow with the stream (as in the paper's Algorithm 1).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..determinize import DEFAULT_BUDGET
from ..errors import StreamFormatError
from ..events import Event
from ..predicates.ast import kind
from .evaluator import Determinizer, Evaluator
from .types import CoreComplexEvent, Window

if TYPE_CHECKING:
    from ..automata.cea import CEA
    from ..syntax.ceql import Query

POST_STRATEGIES = ("NEXT", "LAST", "MAX")
"""Strategies applied on the materialized CEs of each position (see the module docstring)."""

BATCH = 4096
"""Events per vectorized bit-vector batch when the input is a DataFrame or a Table."""


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


class Engine:
    """A CEQL query over a stream: ``Engine(query).process(events)`` yields :class:`Match` objects as soon as
    their last event is read. ``process`` may be called repeatedly: positions continue across calls.

    ``query`` is a :class:`~cer_theory.syntax.ceql.Query` or its text. Options: ``budget`` (det-states of the
    lazy determinization), ``debug`` (tECS invariants checked after every event), ``instrument`` (node visits per
    output and union-list lengths in each evaluator's stats).
    """

    def __init__(self, query: Query | str, *, budget: int | None = DEFAULT_BUDGET, debug: bool = False,
                 instrument: bool = False) -> None:
        if isinstance(query, str):
            from ..syntax.ceql import parse_query

            query = parse_query(query)
        from ..constructions.ceql_to_cea import compile_pattern, compile_query
        from ..semantics.ceql import partition_attributes

        self.query = query
        self.strategy = (query.strategy or "ALL").upper()
        if self.strategy in POST_STRATEGIES:
            self.cea: CEA = compile_pattern(query.pattern, select=query.select)
        else:
            self.cea = compile_query(query, budget=budget)
        self.det = Determinizer(self.cea, budget=budget)
        self.window: Window | None = query.within
        self.partition_attributes: tuple[str, ...] = partition_attributes(query.partition_by)
        self.consume = (query.consume or "NONE").upper()
        self.limit: int | None = query.limit
        self._post = self.strategy in POST_STRATEGIES
        self._options = {"debug": debug, "instrument": instrument}
        self._evaluators: OrderedDict[tuple, tuple[Evaluator, tuple]] = OrderedDict()
        self.position = 0  # the global position of the next event
        self.unpartitioned = 0  # events with a NULL partition attribute: in no partition (spec §1.4)
        self.partitions_created = self.partitions_discarded = 0
        self._last_key: float = float("-inf")
        # Events by global position, for Match.events: a deque from position ``_events_base`` on, cut by window.
        self._events: deque[Event] = deque()
        self._event_keys: deque[float] = deque()
        self._events_base = 0

    # ------------------------------------------------------------------ input

    def process(self, events: Iterable[Event | Mapping[str, Any]] | Any) -> Iterator[Match]:
        """Read ``events`` (Events, dicts with ``"type"``, a pandas DataFrame or a pyarrow Table) and yield the
        matches each one completes, in stream order."""
        module = type(events).__module__
        if module.startswith(("pandas", "pyarrow")):
            yield from self._process_frame(events)
            return
        if isinstance(events, (Event, Mapping)):
            raise TypeError("process takes an iterable of events; use process_event for a single one")
        for e in events:
            yield from self.process_event(e)

    def process_event(self, event: Event | Mapping[str, Any], *, mask: int | None = None) -> list[Match]:
        """Read one event at the next global position; return the matches ending there."""
        if not isinstance(event, Event):
            event = Event.from_dict(event, line=self.position)
        return self._step(event, self.det.mask(event) if mask is None else mask)

    def _process_frame(self, frame: Any) -> Iterator[Match]:
        from ..predicates.vectorized import bitmasks

        rows = _frame_rows(frame)
        preds = list(self.det.predicates)
        for start in range(0, len(rows), BATCH):
            chunk = rows[start:start + BATCH]
            events = [Event.from_dict(r, line=self.position + k) for k, r in enumerate(chunk)]
            masks = bitmasks(preds, events) if preds else [0] * len(events)
            for e, m in zip(events, masks):
                yield from self._step(e, m)

    # ------------------------------------------------------------------ one event

    def _step(self, event: Event, mask: int) -> list[Match]:
        j = self.position
        self.position = j + 1
        pkey: tuple = ()
        if self.partition_attributes:
            pkey = self._partition_key(event)  # type: ignore[assignment]
            if pkey is None:  # a NULL partition value: in no partition, needs no window key either
                self.unpartitioned += 1
                self._remember(event, self._last_key)
                return []
        window = self.window
        key: float = j
        if window is not None and window.kind != "events":
            key = window.key(j, event)
            if key < self._last_key:
                raise StreamFormatError(f"window key {key!r} decreases (previous {self._last_key!r}); WITHIN needs "
                                        f"non-decreasing timestamps in stream order (spec §7.3)", line=j,
                                        field=window.attribute or "time")
        self._last_key = key
        self._remember(event, key)
        entry = self._evaluators.get(pkey)
        if entry is None:
            entry = (self._new_evaluator(), tuple(v for _, v in pkey))
            self._evaluators[pkey] = entry
            self.partitions_created += 1
        else:
            self._evaluators.move_to_end(pkey)
        evaluator, values = entry
        ces = evaluator.process(event, j, mask=mask)
        if self._post:
            ces = self._strategy_then_window(ces, j)
            if self.limit is not None:
                ces = sorted(ces)[: self.limit]
        if ces:
            if self.consume == "ANY":
                self._discard_all()
            elif self.consume == "PARTITION":
                self._discard(pkey)
        if pkey in self._evaluators and not evaluator.active:
            self._discard(pkey)  # nothing stored: a fresh evaluator would behave the same
        self._expire(key)
        if not ces:
            return []
        part = values if self.partition_attributes else None
        return [Match(c, tuple(self._event_at(p) for p in c.positions), part) for c in ces]

    def _new_evaluator(self) -> Evaluator:
        window = None if self._post else self.window
        limit = None if self._post else self.limit
        return Evaluator(determinizer=self.det, window=window, limit=limit, **self._options)

    def _partition_key(self, event: Event) -> tuple | None:
        out = []
        for a in self.partition_attributes:
            v = event.get(a)
            if v is None:
                return None
            out.append((kind(v), v))  # 1 and 1.0 share a partition; 1 and True do not (hash(1) == hash(True))
        return tuple(out)

    def _strategy_then_window(self, ces: list[CoreComplexEvent], j: int) -> list[CoreComplexEvent]:
        from ..semantics.ceql import select_strategy

        kept = select_strategy(self.strategy, ces)
        window = self.window
        if window is None:
            return sorted(kept)
        end_key = window.key(j, self._event_at(j))
        out = []
        for c in kept:
            if c.start < self._events_base:
                continue  # its start event left the window and was dropped
            if window.admits(window.key(c.start, self._event_at(c.start)), end_key):
                out.append(c)
        return sorted(out)

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
        if window is None or self._post:
            return
        evaluators = self._evaluators
        while evaluators:
            pkey, (evaluator, _) = next(iter(evaluators.items()))
            last = evaluator.position if window.kind == "events" else evaluator.last_key
            if window.admits(last, now):
                break
            self._discard(pkey)
        keys, events = self._event_keys, self._events
        while keys and not window.admits(keys[0], now):
            keys.popleft()
            events.popleft()
            self._events_base += 1

    def _remember(self, event: Event, key: float) -> None:
        self._events.append(event)
        self._event_keys.append(key)

    def _event_at(self, position: int) -> Event:
        return self._events[position - self._events_base]

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
        return len(self._events)


def _frame_rows(frame: Any) -> list[dict[str, Any]]:
    """The rows of a pandas DataFrame or a pyarrow Table as dicts of Python values; None, NaN and NA cells are
    absent attributes (as in :mod:`cer_theory.predicates.vectorized`)."""
    if hasattr(frame, "to_pylist"):
        rows = frame.to_pylist()
    else:
        rows = frame.to_dict("records")
    out = []
    for r in rows:
        out.append({k: (v.item() if hasattr(v, "item") else v) for k, v in r.items() if not _missing(v)})
    return out


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def evaluate_query(query: Query | str, stream: Sequence[Event | Mapping[str, Any]], **options: Any
                   ) -> list[frozenset[CoreComplexEvent]]:
    """The engine's output grouped by end position, ``out[j]`` = the CEs reported at j (the shape of
    :func:`cer_theory.semantics.ceql.evaluate`, for differential tests and the CLI)."""
    out: list[set[CoreComplexEvent]] = [set() for _ in range(len(stream))]
    for m in Engine(query, **options).process(stream):
        out[m.end].add(m.complex_event)
    return [frozenset(s) for s in out]


__all__ = ["BATCH", "Engine", "Match", "POST_STRATEGIES", "evaluate_query"]
