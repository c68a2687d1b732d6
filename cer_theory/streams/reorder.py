"""Bounded out-of-order input: events re-ordered by a time key within an allowed lateness, before an engine sees
them (docs/decisions.md D104).

The engines of the CORE paper (CORE, §2 and §4) read a stream in order: a time window needs non-decreasing timestamps
(docs/decisions.md D30). Real feeds deliver events a little late. With an allowed lateness ``L``, an event is
*on time* when its timestamp is at least the largest timestamp seen before it minus ``L``; the buffer holds the
events back until no on-time event can come before them any more (the watermark, largest timestamp − ``L``,
has passed them) and releases them sorted by timestamp, ties in arrival order. So the released stream is the
stable sort of the on-time events by timestamp, whatever their arrival order within the lateness: the output of
an engine on a stream shuffled within ``L`` equals its output on the sorted stream.

A *late* event (below the watermark) cannot take its place any more: it is handed to ``on_late`` with its line
and the watermark, never dropped silently. Memory is the events within ``L`` of the newest one.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event

LateHandler = Callable[[int, Event, float], None]
"""``on_late(line, event, watermark)``: what to do with an event too late to be re-ordered."""


def time_key(event: Event, attribute: str, line: int, source: str | None = None) -> float:
    """The event's timestamp: a number (a missing or non-numeric one is an error naming the line and field)."""
    value = event.get(attribute)
    if value is None or isinstance(value, (bool, str)):
        raise StreamFormatError(f"re-ordering by {attribute!r} needs a numeric {attribute!r} on every event",
                                source=source, line=line, field=attribute)
    return value


def reorder(events: Iterable[tuple[int, Event]], *, attribute: str, lateness: float, on_late: LateHandler,
            source: str | None = None) -> Iterator[tuple[int, Event]]:
    """``(line, event)`` pairs released in timestamp order (``attribute``), holding each event back until the
    watermark passes it; late events go to ``on_late`` instead."""
    if lateness < 0:
        raise ValueError(f"the allowed lateness must be >= 0, got {lateness}")
    heap: list[tuple[float, int, int, Event]] = []
    arrival = itertools.count()
    newest: float | None = None
    for line, event in events:
        t = time_key(event, attribute, line, source)
        if newest is not None and t < newest - lateness:
            on_late(line, event, newest - lateness)
            continue
        heapq.heappush(heap, (t, next(arrival), line, event))
        newest = t if newest is None else max(newest, t)
        # Any event still to come is on time only if t' >= newest - lateness: those below can go.
        watermark = newest - lateness
        while heap and heap[0][0] <= watermark:
            _, _, held_line, held = heapq.heappop(heap)
            yield held_line, held
    while heap:
        _, _, held_line, held = heapq.heappop(heap)
        yield held_line, held


__all__ = ["LateHandler", "reorder", "time_key"]
