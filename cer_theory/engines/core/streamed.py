"""The engine's outputs grouped by end position as the events arrive: the streaming face of
:func:`cer_theory.engines.core.engine.evaluate_query`, which ``cer-theory eval --logic ceql`` prints from in
bounded memory (seed 001 §4: the engine reports each complex event once its last event is read)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from cer_theory.core.events import Event
from cer_theory.engines.core.engine import AggregatedMatch, Engine
from cer_theory.formalisms.ceql.ast import Query


def iterate_query(query: Query | str, events: Iterable[Event | Mapping[str, Any]]) -> Iterator[tuple[int, frozenset]]:
    """``(j, out_j)`` for each position j where the engine reports something, in stream order: the same sets as
    ``evaluate_query(query, stream)[j]``, each yielded once the engine has moved past j."""
    end: int | None = None
    found: set = set()
    for m in Engine(query).process(events):
        if m.end != end:
            if found:
                yield end, frozenset(found)  # type: ignore[misc]
            end, found = m.end, set()
        found.add((m.complex_event, m.aggregates) if isinstance(m, AggregatedMatch) else m.complex_event)
    if found:
        yield end, frozenset(found)  # type: ignore[misc]


__all__ = ["iterate_query"]
