"""What the CORE engine holds between two events (the CORE paper, *CORE: a Complex Event Recognition Engine*, §4): the
query plan, the partition table, the event buffer, the stream position and last window key, and the counters.
Both forms of the per-event step read and write it: the readable one (``Engine._step``) and the fast loop
(:mod:`cer_theory.engines.core.loop`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import CoreComplexEvent
from cer_theory.engines.core import compiled
from cer_theory.engines.core.buffer import EventBuffer
from cer_theory.engines.core.evaluator import Evaluator, Outputs
from cer_theory.engines.core.inert import Inertness
from cer_theory.engines.core.matches import Match, make_match
from cer_theory.engines.core.partitions import PartitionTable
from cer_theory.engines.core.plan import QueryPlan

Report = Callable[["list[CoreComplexEvent] | Outputs", "tuple | None"], Sequence]
"""What becomes of the CEs reported at one position (with the partition values): Matches, or what a sink returns
(a sink given a ``chunk`` may be handed the position's :class:`Outputs`, read in pieces: D282)."""


class EngineState:
    """The state of one engine over one stream; positions continue across calls."""

    def __init__(self, plan: QueryPlan) -> None:
        self.plan = plan
        self.partitions_table = PartitionTable()
        self.buffer = EventBuffer()
        self.position = 0  # the global position of the next event
        self.last_key: float = float("-inf")  # the window key of the last event in a partition
        self.unpartitioned = 0  # events with a NULL partition attribute: in no partition (the CORE paper §2.2; D22)
        self.skipped_rows = 0  # rows of columnar batches skipped in bulk (inert or NULL-partitioned; D120)
        self.inert: Inertness | None = plan.inert
        """Inert bit vectors, for skipping rows in bulk on the columnar path (None: never skip; D120)."""
        self.report: Report = self.matches
        self._batch_matches: Callable[..., list] | None | bool = False
        """The batch branch of :meth:`matches` compiled (D450), or None: the readable one; False until the first
        batch asks (the compiled module loads the columnar modules, numpy among them)."""

    def _new_evaluator(self) -> Evaluator:
        return self.plan.new_evaluator()

    def matches(self, ces: list[CoreComplexEvent], partition: tuple | None) -> list[Match]:
        """The Matches of ``ces`` (their events are still in the event buffer). A CE whose positions all lie in
        the newest span (the current batch, or the Events read one at a time) takes them from there directly:
        :meth:`EventBuffer.events_of` inlined, once per CE instead of once per position."""
        buffer = self.buffer
        newest = buffer.spans[-1]
        start, rows, items = newest.start, newest.rows, newest.items
        if rows is not None:
            if self._batch_matches is False:
                self._batch_matches = compiled.batch_matches()
            if self._batch_matches is not None:
                return self._batch_matches(ces, partition, rows, buffer)  # type: ignore[operator]
        out = []
        for c in ces:
            positions = c.positions
            if not positions or positions[0] < start:
                events = buffer.events_of(positions)
            elif rows is None:
                events = tuple([items[p - start] for p in positions])  # type: ignore[index]
            else:  # Rows.event inlined: the Events built so far, by row (an Event is always true)
                built, first, event = rows._events, rows.first, rows.event
                events = tuple([built[p - first] or event(p - first) for p in positions])
            out.append(make_match(c, events, partition))
        return out


def decreasing(key: float, previous: float, position: int, attribute: str) -> StreamFormatError:
    """The error for a window key below the previous one (docs/decisions.md D30)."""
    return StreamFormatError(f"window key {key!r} decreases (previous {previous!r}); WITHIN needs non-decreasing "
                             f"timestamps in stream order (docs/decisions.md D30)", line=position, field=attribute)


__all__ = ["EngineState", "Report", "decreasing"]
