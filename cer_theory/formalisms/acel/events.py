"""ACEL's data model (the ACEL paper, §3 "Data model"): events with a time and a partial attribute map, complex events
``(start, end, μ)`` whose variables hold **bags** of events, and their JSON form.

An event is ``e = (M, i)``: ``M`` a finite partial map attribute → value and ``i`` its time; ``type`` is an
attribute like any other, absent on the events ``Agg`` creates (the ACEL paper §5) and dropped by an attribute
projection that does not list it. Two events are equal when their times and maps are equal. A complex event is
``C = (i, j, μ)`` with ``μ`` mapping each variable to a finite bag; the output of a formula is a **set** of complex
events (the ACEL paper §5, design rationale 1), compared by interval and by the multiset of each variable.

Times are stream positions, **0-based** like every other formalism of the toolkit (the ACEL paper numbers a stream from
1 in §3 and from 0 in Example 3.1's table; docs/decisions.md D66).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cer_theory.core.aggregates import NULL, json_value
from cer_theory.core.events import TYPE_KEY, Event


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """An event ``(M, i)`` of the ACEL paper §3: ``time`` and the attribute map as sorted ``(name, value)`` pairs."""

    time: int
    items: tuple[tuple[str, Any], ...]

    @classmethod
    def make(cls, time: int, attributes: Mapping[str, Any]) -> TimedEvent:
        return cls(time, tuple(sorted(attributes.items())))

    @classmethod
    def of(cls, event: Event, time: int) -> TimedEvent:
        """A stream event at position ``time``, its type as the attribute ``type``."""
        return cls.make(time, event.to_dict())

    @property
    def attributes(self) -> dict[str, Any]:
        return dict(self.items)

    @property
    def type(self) -> Any:
        """``e(type)``, ``None`` for an untyped event (CEL's predicates read it as a missing type)."""
        return self.attributes.get(TYPE_KEY)

    def value(self, name: str) -> Any:
        """``e(a)``: ``NULL`` when the event lacks ``a`` (the ACEL paper §3)."""
        return self.attributes.get(name, NULL)

    def get(self, name: str) -> Any:
        """The value as a *predicate* reads it: ``None`` (missing, so a comparison is false) for an absent attribute
        or a ``NULL`` value (docs/decisions.md D3: comparisons need both operands defined)."""
        value = self.attributes.get(name)
        return None if value is NULL else value

    def project(self, names: Iterable[str]) -> TimedEvent:
        """``π_{a1..ak}(e)``: the attributes among ``names`` and the time (the ACEL paper §3)."""
        keep = set(names)
        return TimedEvent(self.time, tuple(p for p in self.items if p[0] in keep))

    def to_json(self) -> dict[str, Any]:
        """``{"time": i, "attributes": {attr: value, …}}``, attributes sorted, ``NULL`` as ``null``: the event's
        attributes are exactly its map ``M`` (an input attribute called ``time`` stays one), its time apart."""
        return {"time": self.time, "attributes": {k: json_value(v) for k, v in self.items}}

    def sort_key(self) -> tuple[int, str]:
        return (self.time, json.dumps(self.to_json(), sort_keys=True, default=str))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.items)
        return f"@{self.time}[{inner}]"


Bag = tuple[TimedEvent, ...]
"""A finite bag of events, kept sorted by (time, JSON text) so that equal multisets are equal tuples."""


def bag(events: Iterable[TimedEvent]) -> Bag:
    return tuple(sorted(events, key=TimedEvent.sort_key))


@dataclass(frozen=True, slots=True)
class ComplexEvent:
    """``C = (i, j, μ)`` of the ACEL paper §3; ``bags`` lists the variables with a non-empty bag, sorted by name."""

    start: int
    end: int
    bags: tuple[tuple[str, Bag], ...]

    @classmethod
    def make(cls, start: int, end: int, mu: Mapping[str, Iterable[TimedEvent]]) -> ComplexEvent:
        pairs = ((x, bag(es)) for x, es in mu.items())
        return cls(start, end, tuple(sorted((x, b) for x, b in pairs if b)))

    def __getitem__(self, var: str) -> Bag:
        """``C(X)``; the empty bag for a variable not bound."""
        for x, b in self.bags:
            if x == var:
                return b
        return ()

    @property
    def mu(self) -> dict[str, Bag]:
        return dict(self.bags)

    def union(self, other: ComplexEvent) -> ComplexEvent:
        """``C1 ⊎ C2 = (min start, max end, X ↦ C1(X) ⊎ C2(X))`` (the ACEL paper §3)."""
        mu: dict[str, list[TimedEvent]] = {x: list(b) for x, b in self.bags}
        for x, b in other.bags:
            mu.setdefault(x, []).extend(b)
        return ComplexEvent.make(min(self.start, other.start), max(self.end, other.end), mu)

    def project(self, variables: Iterable[str]) -> ComplexEvent:
        """``π_L(C)``: the interval kept, the other variables emptied (the ACEL paper §3)."""
        keep = set(variables)
        return ComplexEvent(self.start, self.end, tuple(p for p in self.bags if p[0] in keep))

    def to_json(self) -> dict[str, Any]:
        """``{"start": i, "end": j, "bags": {X: [event, …]}}``: variables sorted, empty bags omitted."""
        return {"start": self.start, "end": self.end, "bags": {x: [e.to_json() for e in b] for x, b in self.bags}}

    def sort_key(self) -> tuple[int, int, str]:
        return (self.start, self.end, json.dumps(self.to_json(), sort_keys=True, default=str))

    def __repr__(self) -> str:
        inner = ", ".join(f"{x}: {{{{{', '.join(map(repr, b))}}}}}" for x, b in self.bags)
        return f"({self.start}, {self.end}, {{{inner}}})"


def timed_stream(stream: Sequence[Event]) -> list[TimedEvent]:
    """The stream as the ACEL paper's events: ``e_i`` with time ``i`` (0-based, D66)."""
    return [TimedEvent.of(e, i) for i, e in enumerate(stream)]


def _attributes(event: dict[str, Any]) -> dict[str, Any]:
    """An event's attribute map: ``attributes`` (the output contract, D380), or, in answers written before it, the
    object's other keys beside ``time``."""
    if "attributes" in event:
        return dict(event["attributes"])
    return {k: v for k, v in event.items() if k != "time"}


def complex_event_from_json(data: Any) -> ComplexEvent:
    """One complex event read back from its JSON form (``null`` is ``NULL``)."""
    mu = {x: [TimedEvent.make(int(e["time"]), {k: (NULL if v is None else v) for k, v in _attributes(e).items()})
              for e in es] for x, es in data["bags"].items()}
    return ComplexEvent.make(int(data["start"]), int(data["end"]), mu)


def by_end(outputs: Iterable[ComplexEvent], length: int) -> list[frozenset[ComplexEvent]]:
    """Per-position outputs ``[out_0, …]``: ``out_n`` holds the complex events that end at ``n``."""
    out: list[set[ComplexEvent]] = [set() for _ in range(length)]
    for c in outputs:
        out[c.end].add(c)
    return [frozenset(s) for s in out]


__all__ = ["Bag", "ComplexEvent", "TimedEvent", "bag", "by_end", "complex_event_from_json", "timed_stream"]
