"""The engine's outputs grouped by end position as the events arrive: the streaming face of
:func:`cer_theory.engines.core.engine.evaluate_query`, which ``cer-theory eval --logic ceql`` prints from in
bounded memory (the CORE paper §4: the engine reports each complex event once its last event is read)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from cer_theory.core.events import Event
from cer_theory.engines.core.engine import AggregatedMatch, Engine, charged
from cer_theory.formalisms.ceql.ast import Query


def iterate_query(query: Query | str, events: Iterable[Event | Mapping[str, Any]]) -> Iterator[tuple[int, frozenset]]:
    """``(j, out_j)`` for each position j where the engine reports something, in stream order: the same sets as
    ``evaluate_query(query, stream)[j]``, each yielded as soon as the event at j is read."""
    engine = Engine(query)
    for j, event in enumerate(events):
        # one event at a time (the engine's one step, D51): position j's outputs are complete once its event is
        # read, and are yielded before the next event is asked for, so a live source sees them at once
        found = {(m.complex_event, m.aggregates) if isinstance(m, AggregatedMatch) else m.complex_event
                 for m in charged(engine.process_event(event))}
        if found:
            yield j, frozenset(found)


__all__ = ["iterate_query"]
