"""What the CORE engine reports (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2.2): a :class:`Match` per
complex event ``([start, end], D)``, and for a query with aggregates an :class:`AggregatedMatch` that also carries
the aggregates' values (the ACEL paper's ``Agg``; docs/decisions.md D75–D78), after HAVING and de-duplication
(:class:`Aggregation`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cer_theory.core.aggregates import json_value
from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.engines.core.folding import compile_decoder
from cer_theory.engines.core.labelled import LabelledDeterminizer
from cer_theory.engines.core.tecs import _set_positions  # decoding rewrites an enumerated CE's positions
from cer_theory.formalisms.ceql.aggregation import having_holds
from cer_theory.formalisms.ceql.ast import Query


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
    SELECT's order (the ACEL paper's created event; NULL is :data:`cer_theory.core.aggregates.NULL`)."""

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


class Aggregation:
    """The matches of a query with aggregates, from the encoded CEs of one position (docs/decisions.md D77): each
    path is decoded and its aggregates folded over their events in stream order in one generated loop
    (:func:`~cer_theory.engines.core.folding.compile_decoder`), then HAVING, de-duplication of ``(CE, values)``
    (outputs are a set) and LIMIT, in that order. Linear in the paths' lengths. HAVING is applied after
    enumeration, so matches may be enumerated and then dropped: :attr:`having_dropped` and
    :attr:`duplicates_dropped` count them, :attr:`enumerated` counts all."""

    def __init__(self, query: Query, det: LabelledDeterminizer) -> None:
        self.query, self.having, self.limit = query, query.having, query.limit
        slot = {v: k for k, v in enumerate(det.aggregated)}
        self._decode = compile_decoder(det.codes, det.width, query.aggregates,
                                       [slot[a.variable] for a in query.aggregates])
        self._aliases = [a.alias for a in query.aggregates]
        self.enumerated = self.having_dropped = self.duplicates_dropped = 0

    def matches(self, ces: Sequence[CoreComplexEvent], partition: tuple | None,
                event_at: Callable[[int], Event]) -> list[Match]:
        """The reported matches among ``ces`` (encoded, all ending at one position); ``event_at`` finds the event at
        a position."""
        having, limit, aliases, decode = self.having, self.limit, self._aliases, self._decode
        aggregates = self.query.aggregates
        seen: set[tuple] = set()
        out: list[Match] = []
        self.enumerated += len(ces)
        for c in ces:
            data, data_events, values = decode(c.positions, event_at)
            if having is not None and not having_holds(having, aggregates, values):
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


__all__ = ["AggregatedMatch", "Aggregation", "Match", "make_match"]
