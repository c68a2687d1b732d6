"""The engine's event buffer: the events a reported match may still contain, by global stream position (the CORE paper,
*CORE: a Complex Event Recognition Engine*, §4: a CE names positions; the engine hands back their events).

One representation (docs/decisions.md D172): a deque of :class:`Span` — runs of consecutive positions, each
either a columnar batch standing for its rows (an Event is built only for a row a match reports) or a list of
Events read one at a time — with the window key of every position (non-decreasing). The window expires
positions by binary search on a span's keys (D136), so a batch costs one entry whatever its length, and the
Events of the row path are trimmed from the front in amortized O(1). Without a window everything is kept, as in
the paper's Algorithm 1.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cer_theory.core.events import Event
from cer_theory.core.windows import Window

if TYPE_CHECKING:  # (batches come through cer_theory.engines.core.batches, imported with the first one)
    from cer_theory.streams.batch import Rows

TRIM_MIN = 128
"""Expired Events at the front of a span of Events before they are cut off (at least as many as remain): few,
so that expired Events die young (see :data:`cer_theory.engines.core.loop.EXPIRE_EVERY_EVENTS`, D315)."""


class Span:
    """Positions ``start``… of the buffer: the rows of a batch (``rows``; position p is its row ``p - rows.first``)
    or the Events ``items`` (position p is ``items[p - start]``), with the window key of each (``keys``, indexed by
    ``p - start``). A span ends where the next begins (the last: at the engine's position)."""

    __slots__ = ("start", "rows", "items", "keys")

    def __init__(self, start: int, rows: Rows | None, items: list[Event] | None, keys: Sequence) -> None:
        self.start, self.rows, self.items, self.keys = start, rows, items, keys

    def event(self, position: int) -> Event:
        rows = self.rows
        if rows is not None:
            return rows.event(position - rows.first)
        return self.items[position - self.start]  # type: ignore[index]

    def text(self, position: int) -> str:
        """The event's JSON text, from a batch's columns without building the Event (docs/decisions.md D155)."""
        rows = self.rows
        if rows is not None:
            return rows.text(position - rows.first)
        return self.items[position - self.start].to_json_text()  # type: ignore[index]


def first_admitted(keys: Sequence, lo: int, hi: int, now: float, size: float, strict: bool) -> int:
    """The first index in ``keys[lo:hi]`` (non-decreasing) whose key the window still admits at ``now``, by
    binary search with the row loop's own comparison (so ints and floats compare exactly as there), or ``hi``.
    The first few keys are tried one by one: between two expiries only a handful of positions expire."""
    stop = min(hi, lo + 8)
    if strict:
        while lo < stop and not now - keys[lo] < size:
            lo += 1
        return lo if lo < stop or lo == hi else bisect_left(keys, True, lo, hi, key=lambda k: now - k < size)
    while lo < stop and not now - keys[lo] <= size:
        lo += 1
    return lo if lo < stop or lo == hi else bisect_left(keys, True, lo, hi, key=lambda k: now - k <= size)


class EventBuffer:
    """The kept positions ``base``… ``end - 1`` (``end`` is the engine's next position, passed in)."""

    __slots__ = ("spans", "base")

    def __init__(self) -> None:
        self.spans: deque[Span] = deque()
        self.base = 0

    def event_span(self, position: int) -> Span:
        """The span of Events the row path appends to, the one ending at ``position`` (a new one after a batch)."""
        spans = self.spans
        if spans:
            last = spans[-1]
            if last.rows is None:
                return last
        span = Span(position, None, [], [])
        spans.append(span)
        return span

    def append(self, event: Event, key: float, position: int) -> None:
        """Keep ``event`` at ``position`` (the next one) with its window key."""
        span = self.event_span(position)
        span.items.append(event)  # type: ignore[union-attr]
        span.keys.append(key)  # type: ignore[attr-defined]

    def add_batch(self, rows: Rows, keys: Sequence, end: int) -> None:
        """Keep the rows of a batch starting at ``rows.first`` (= ``end``, the next position), with their keys.
        Spans already wholly expired are dropped first, so that the first span holds the first kept position."""
        spans, base = self.spans, self.base
        if base == end:  # everything expired: nothing to keep
            spans.clear()
        while len(spans) > 1 and spans[1].start <= base:
            spans.popleft()
        spans.append(Span(rows.first, rows, None, keys))

    def expire(self, now: float, window: Window, end: int) -> None:
        """Forget the positions whose key ``window`` no longer admits at ``now`` (a span wholly expired is dropped,
        except the last, which may still grow); the expired front of a span of Events is cut off once it is
        large."""
        size, strict = window.size, window.strict
        spans, base = self.spans, self.base
        while spans:
            span = spans[0]
            stop = spans[1].start if len(spans) > 1 else end
            lo, hi = base - span.start, stop - span.start
            found = first_admitted(span.keys, lo, hi, now, size, strict)
            base = span.start + found
            if found < hi or len(spans) == 1:
                if span.items is not None and found >= TRIM_MIN and 2 * found >= len(span.items):
                    del span.items[:found]
                    del span.keys[:found]  # type: ignore[attr-defined]
                    span.start += found
                break
            spans.popleft()
        self.base = base

    def locate(self, position: int) -> Span:
        for span in reversed(self.spans):
            if position >= span.start:
                return span
        raise IndexError(f"position {position} is no longer in the event buffer")

    def event_at(self, position: int) -> Event:
        return self.locate(position).event(position)

    def text_at(self, position: int) -> str:
        return self.locate(position).text(position)

    def events_of(self, positions: Sequence[int]) -> tuple[Event, ...]:
        """The events at ``positions`` (increasing; most are in the newest span, the current batch or Events)."""
        newest = self.spans[-1]
        start, rows = newest.start, newest.rows
        if rows is None:
            items = newest.items
            return tuple([items[p - start] if p >= start else self.event_at(p)  # type: ignore[index]
                          for p in positions])
        built, first, event = rows._events, rows.first, rows.event  # Rows.event inlined: the batch's Events built
        return tuple([(built[p - first] or event(p - first)) if p >= start else self.event_at(p)  # so far, by row
                      for p in positions])


__all__ = ["EventBuffer", "Span", "TRIM_MIN", "first_admitted"]
