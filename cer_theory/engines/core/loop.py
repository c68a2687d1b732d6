"""The one fast loop of the CORE engine: CORE's Algorithm 1 around the clauses of CEQL (the CORE paper, *CORE: a Complex
Event Recognition Engine*, §2.2 and §4), with every per-event call of the readable step (``Engine._step``)
inlined. It reads one of two sources (docs/decisions.md D51):

* Events and dicts, one at a time (a live source yields each match as soon as its last event is read): the loop
  reads each one's bit vector, window value and partition values itself and keeps the Event in the event buffer.
  (Through a generator of ``(position, event, …)`` tuples, as the rows below, each event cost about 5% more on
  the CORE paper's P3, D311.)
* a **cursor** of ``(position, None, bit vector, window value, partition values)`` per row of a columnar batch
  (:func:`~cer_theory.engines.core.batches.column_cursor`), computed column-wise; the batch is already in the
  event buffer as one span. Rows skipped in bulk (:func:`~cer_theory.engines.core.batches.skip_plan`, D120) are
  absent from the cursor: the loop catches them up (:class:`Skipped`) when the next visited row comes.

The loop applies where :attr:`QueryPlan.fast` says so (no strategy history, window and partition keys read from
attributes). It makes the same checks and effects in the same order as ``Engine._step``;
``test_engine_fast_paths_equal_the_one_step`` checks it against the step on generated queries and streams, for
every input path (matches, errors and bookkeeping). The engine's position and last window key live in locals,
written back before every yield and on exit and read again after a yield (the caller may use the engine
meanwhile). The event buffer's positions expire every :data:`EXPIRE_EVERY` positions (:data:`EXPIRE_EVERY_EVENTS`
on Events and dicts) and when the loop ends, each time at the key of then: expiry is monotone in the key, so that
is where a per-row expiry would get to, and memory stays bounded by the window and those positions. (Not also at
every position that reports matches: on the CORE paper's P3, where one position in twenty does, that cost about
6% of the rate.)
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import kind
from cer_theory.core.windows import window_value
from cer_theory.engines.core.inert import Inertness
from cer_theory.engines.core.matches import Match
from cer_theory.engines.core.partitions import KINDS
from cer_theory.engines.core.state import EngineState, decreasing

if TYPE_CHECKING:  # (a batch reaches the loop only through cer_theory.engines.core.batches)
    from cer_theory.streams.batch import Rows

Cursor = Iterable[tuple[int, None, int, Any, "Sequence | None"]]
"""``(position, None, bit vector, window value or None, partition values or None)`` per row of a batch."""

EXPIRE_EVERY = 1024
"""Positions read between two expiries of the event buffer, on a batch's rows (which hold no object per row)."""

EXPIRE_EVERY_EVENTS = 128
"""The same on Events and dicts. Small enough that the Events built from dicts between two expiries (with
:data:`buffer.TRIM_MIN` expired ones not yet cut off) stay under CPython's 700 net allocations that start a young
collection: otherwise the buffer's Events outlive two young collections, reach the oldest generation and trigger
full collections, each of which walks every object the caller holds (3M input dicts: 52 full collections, 12% of
the validating dicts path; docs/decisions.md D315)."""

_INF = float("inf")


class Skipped:
    """The rows of a batch the cursor leaves out (inert or NULL-partitioned: docs/decisions.md D120): their
    count of NULL rows (``nulls[k]``: before row k), their buffer keys, and the inertness that allowed it."""

    __slots__ = ("first", "end", "nulls", "keys", "inert")

    def __init__(self, rows: Rows, n: int, nulls: list[int] | None, keys: Any, inert: Inertness) -> None:
        self.first, self.end, self.nulls, self.keys, self.inert = rows.first, rows.first + n, nulls, keys, inert

    def over(self, state: EngineState, lo: int, hi: int) -> float:
        """Count the skipped positions ``lo``…``hi - 1``; the buffer key of the last of them."""
        first = self.first
        if self.nulls is not None:
            state.unpartitioned += self.nulls[hi - first] - self.nulls[lo - first]
        state.skipped_rows += hi - lo
        return self.keys[hi - 1 - first]


def fast_loop(state: EngineState, source: Iterable[Event | Mapping[str, Any]] | Cursor, *, events: bool,
              skipped: Skipped | None = None) -> Generator[Match, None, int | None]:
    """Run ``source``: Events and dicts if ``events`` (a dict becomes an Event, checked, with its position as
    the line; each Event is kept in the buffer), else the cursor of the rows of the batch that is the buffer's
    last span, with ``skipped`` the rows left out. Returns the position to resume from without skipping if a
    det-state mixing sinks and waiting states appears (:meth:`Inertness.refresh`), else None."""
    plan = state.plan
    mask, initial_moves = plan.det.mask, plan.det.initial_moves
    attr, window, consume, attrs = plan.time_attribute, plan.window, plan.consume, plan.partition_attributes
    aggregation = plan.aggregation
    table = state.partitions_table
    evaluators = table.evaluators
    get_entry, to_end = evaluators.get, evaluators.move_to_end
    buffer = state.buffer
    size, strict = (window.size, window.strict) if window is not None else (_INF, False)
    expire_partitions = window is not None and bool(attrs)  # (no strategy history in this loop)
    by_position = window is not None and window.kind == "events"
    kinds = KINDS
    inert = skipped.inert if skipped is not None else None
    subsets = plan.det.subsets
    known = len(subsets)
    position, last = state.position, state.last_key
    add_event = add_key = span = None
    spans = buffer.spans
    if events:
        span = buffer.event_span(position)
        add_event, add_key = span.items.append, span.keys.append  # type: ignore[union-attr]
    every = EXPIRE_EVERY_EVENTS if events else EXPIRE_EVERY
    next_expiry = position + every
    try:
        for item in source:
            if events:
                e = item
                if e.__class__ is not Event and not isinstance(e, Event):
                    e = Event.from_dict(e, line=position)  # type: ignore[arg-type]
                j = position  # (the next position, whatever the caller did meanwhile)
                m = mask(e)  # type: ignore[arg-type]
                found = e._values  # type: ignore[union-attr]
                time = None if attr is None else found.get(attr)
                values = [found.get(a) for a in attrs] if attrs else None
            else:
                j, e, m, time, values = item  # type: ignore[misc]
                if j != position:  # rows position..j-1 were skipped in bulk: already in the batch's span
                    last = skipped.over(state, position, j)  # type: ignore[union-attr]
                    if not attrs and evaluators and not evaluators[()][0].keeps_after_inert(
                            last, inert.spent):  # type: ignore[union-attr]
                        table.discard(())  # where the skipped rows' updates emptied the one evaluator
            position = j + 1
            pkey: tuple | None = ()
            if attrs:  # partition_key, inlined
                for v in values:  # type: ignore[union-attr]
                    if v is None:
                        pkey = None
                        break
                    k = kinds.get(v.__class__)
                    pkey += (((k if k is not None else kind(v)), v),)  # type: ignore[operator]
                if pkey is None:  # a NULL partition value: in no partition, needs no window key either
                    state.unpartitioned += 1
                    if add_event is not None:
                        add_event(e)
                        add_key(last)  # type: ignore[misc]
                    continue
            if attr is None:
                key = j
            else:  # window_value and the monotonicity check
                key = time
                if key.__class__ is not int and key.__class__ is not float:
                    key = window_value(j, key, attr)
                if key < last:
                    raise decreasing(key, last, j, attr)
            last = key
            if add_event is not None:
                add_event(e)
                add_key(key)  # type: ignore[misc]
            entry = get_entry(pkey)
            ces = None
            if entry is None:
                if initial_moves(m):
                    entry = table.add(pkey, state._new_evaluator())  # type: ignore[arg-type]
            elif attrs:  # (with one evaluator it is already the last)
                to_end(pkey)
            if entry is not None:
                evaluator = entry[0]
                ces = evaluator.advance(j, m, key)
                if ces and aggregation is not None:  # only the matches HAVING keeps are reported and consume
                    state.position, state.last_key = position, last
                    ces = aggregation.matches(ces, entry[1] if attrs else None, buffer.event_at)
                if ces:
                    if consume == "ANY":
                        table.discard_all()
                    elif consume == "PARTITION":
                        table.discard(pkey)  # type: ignore[arg-type]
                if not evaluator.table and pkey in evaluators:  # Evaluator.active, inlined
                    table.discard(pkey)  # type: ignore[arg-type]
            if expire_partitions:  # PartitionTable.expire, with Window.admits inlined
                while evaluators:
                    oldest = next(iter(evaluators.values()))[0]
                    span_ = key - (oldest.position if by_position else oldest.last_key)
                    if (span_ < size) if strict else (span_ <= size):
                        break
                    del evaluators[next(iter(evaluators))]
                    table.discarded += 1
            if ces:
                state.position, state.last_key = position, last
                yield from (ces if aggregation is not None else  # type: ignore[misc]
                            state.report(ces, entry[1] if attrs else None))  # type: ignore[index]
                position, last = state.position, state.last_key
                if events and spans[-1] is not span:  # (the caller ran a batch meanwhile: append to the newest span)
                    span = buffer.event_span(position)
                    add_event, add_key = span.items.append, span.keys.append  # type: ignore[union-attr]
            if position >= next_expiry and window is not None:
                buffer.expire(key, window, position)
                next_expiry = position + every
            if inert is not None and len(subsets) != known:
                known = len(subsets)
                if not inert.refresh():
                    state.inert = None
                    return position
        if skipped is not None and position < skipped.end:  # the skipped rows after the last visited one
            state.position = position  # (an exception below must leave the engine where it stopped)
            last = skipped.over(state, position, skipped.end)
            position = skipped.end
            if not attrs and evaluators and not evaluators[()][0].keeps_after_inert(
                    last, inert.spent):  # type: ignore[union-attr]
                table.discard(())
            if expire_partitions and last != -_INF:  # the partitions' expiry of the last non-NULL row
                table.expire(window, last)  # type: ignore[arg-type]
    finally:
        if window is not None and last != -_INF:
            buffer.expire(last, window, position)
        state.position, state.last_key = position, last
    return None


__all__ = ["Cursor", "EXPIRE_EVERY", "EXPIRE_EVERY_EVENTS", "Skipped", "fast_loop"]
