"""The one batch type of the stream package: events as columns (:class:`Rows`), the view that the vectorized
predicate evaluator reads (it implements :class:`cer_theory.core.predicates.vectorized.Batch`) and the engine
runs on, with an :class:`~cer_theory.core.events.Event` built only for the rows an output reports.

CORE (the CORE paper, *CORE: a Complex Event Recognition Engine*, §4.4) evaluates each event's predicates once into a
bit vector; nothing else of the event is read except the window's time key and the PARTITION BY values. A batch
holds what that needs column-wise, and its events on demand (docs/decisions.md D87, D89, D155).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat

import numpy as np

from cer_theory.core.events import TYPE_KEY, Event, row_json_text
from cer_theory.core.predicates.vectorized import STR, Column, column_from_values


class Fallback(Exception):
    """This batch cannot go through the columns exactly; the row path takes over from its first row."""


class Rows:
    """One batch of events as columns: ``types`` (object array), ``kinds`` (attribute → the kind code of each
    row: MISSING, NUM, STR or BOOL, enough for the declaration checks), ``column(name)`` (the vectorized
    :class:`~cer_theory.core.predicates.vectorized.Column`, built on first use: only the attributes predicates
    read), ``values(name)`` (exact Python values, None where absent) and ``event(k)`` (the k-th row as an Event,
    built on demand: only for reported matches). ``first`` is the global position of row 0 (set when the engine
    reads the batch); ``lines`` the source line of each row (None: line = position, as for in-memory inputs)."""

    __slots__ = ("types", "kinds", "_column", "_columns", "_values", "_event", "first", "lines", "_events", "_text")

    def __init__(self, types: np.ndarray, kinds: dict[str, np.ndarray], column: Callable[[str], Column],
                 values: Callable[[str], list], event: Callable[[int], Event], lines: np.ndarray | None = None
                 ) -> None:
        self.types, self.kinds, self._column, self._values, self._event = types, kinds, column, values, event
        self._text: Callable[[int], str] | None = getattr(event, "text", None)  # (ColumnEvents.text)
        self._columns: dict[str, Column] = {}
        self.first = 0
        self.lines = lines
        self._events: list[Event | None] = [None] * len(types)  # row → its Event once built (a list: read by index)

    def __len__(self) -> int:
        return len(self.types)

    def column(self, name: str) -> Column:
        """The vectorized column of attribute ``name`` (``type``: the types; an attribute no row has: all absent)."""
        found = self._columns.get(name)
        if found is None:
            if name in self.kinds:
                found = self._column(name)
            elif name == TYPE_KEY:
                n = len(self.types)
                found = Column(np.full(n, STR, dtype=np.int8), np.zeros(n), np.zeros(n), self.types,
                               np.zeros(n, dtype=bool))
            else:
                found = _absent(len(self.types))
            self._columns[name] = found
        return found

    def values(self, name: str) -> list:
        return self._values(name) if name in self.kinds else [None] * len(self.types)

    def event(self, k: int) -> Event:
        found = self._events[k]
        if found is None:
            found = self._events[k] = self._event(k)
        return found

    def text(self, k: int) -> str:
        """``self.event(k).to_json_text()``, without building the Event when the batch can write the row's JSON
        from its columns (:meth:`ColumnEvents.text`; the output writers, docs/decisions.md D155)."""
        text = self._text
        return text(k) if text is not None else self.event(k).to_json_text()

    def line(self, k: int) -> int:
        return self.first + k if self.lines is None else int(self.lines[k])

    @classmethod
    def from_events(cls, events: Sequence[Event]) -> Rows:
        """A batch of Events already built (the vectorized evaluator's input when given Events): each column is
        read from the events' values."""
        evs = list(events)
        types = np.empty(len(evs), dtype=object)
        types[:] = [e.type for e in evs]
        names = sorted({name for e in evs for name in e.attributes})
        columns = {name: column_from_values([e.get(name) for e in evs]) for name in names}
        return cls(types, {name: c.kinds for name, c in columns.items()}, columns.__getitem__,
                   lambda name: [e.get(name) for e in evs], evs.__getitem__)


def _absent(n: int) -> Column:
    return Column(np.zeros(n, dtype=np.int8), np.zeros(n), np.zeros(n), np.full(n, "", dtype=object),
                  np.zeros(n, dtype=bool))


class ColumnEvents:
    """Row k of a columnar batch as an Event, built from the batch's columns: each column is converted to Python
    values once, at the batch's first reported row (a batch that reports one match usually reports many), and the
    row's Event gathers its non-null cells — the values the row readers give (docs/decisions.md D87: the batch's
    columns passed the exactness checks), without parsing the row's source again. ``source``: rows (a bool
    array, computed with the columns) whose Event comes from ``source_event`` instead."""

    __slots__ = ("types", "names", "values", "source", "source_event", "_columns", "_from_source", "_text")

    def __init__(self, types: np.ndarray, names: list[str], values: Callable[[str], list],
                 source: Callable[[], np.ndarray] | None = None,
                 source_event: Callable[[int], Event] | None = None) -> None:
        self.types, self.names, self.values = types, sorted(names), values  # (in an Event's own order)
        self.source, self.source_event = source, source_event
        self._columns: list[tuple[str, list]] | None = None
        self._from_source: list[bool] | None = None
        self._text: Callable[[int], str] | None = None

    def __call__(self, k: int) -> Event:
        columns = self._columns
        if columns is None:
            columns = self._converted()
        if self._from_source is not None and self._from_source[k]:
            return self.source_event(k)  # type: ignore[misc]
        return Event.trusted(self.types[k], {name: v for name, cells in columns if (v := cells[k]) is not None},
                             ordered=True)

    def text(self, k: int) -> str:
        """Row k's ``Event.to_json_text()``, written from the same cells without building the Event."""
        text = self._text
        if text is None:
            text = self._text = self._row_text()
        return text(k)

    def _row_text(self) -> Callable[[int], str]:
        columns = self._columns if self._columns is not None else self._converted()
        types = self.types.tolist() if isinstance(self.types, np.ndarray) else self.types  # (list: faster [k])
        cells = row_json_text(tuple(self.names))(types, *(c for _, c in columns))
        source, from_source = self.source_event, self._from_source
        if from_source is None or not any(from_source):
            return cells

        def text(k: int) -> str:
            return source(k).to_json_text() if from_source[k] else cells(k)  # type: ignore[misc]
        return text

    def _converted(self) -> list[tuple[str, list]]:
        columns = self._columns = [(name, self.values(name)) for name in self.names]
        if self.source is not None:
            self._from_source = self.source().tolist()
        return columns


class DictRows(Rows):
    """A batch of checked dicts: bit vectors from the mask compiled for dicts (the CORE paper §4.4, read in place),
    keys and output events from the dicts themselves (exact values)."""

    __slots__ = ("dicts", "columns")

    def __init__(self, dicts: list[dict], columns: dict[str, list]) -> None:
        self.dicts, self.columns = dicts, columns  # (columns: name → values, from the batch's check)
        self.first = 0
        self.lines = None
        self._events = [None] * len(dicts)

    def __len__(self) -> int:
        return len(self.dicts)

    def values(self, name: str) -> list:
        found = self.columns.get(name)  # (the check of a sparse batch, and the compiled check, gather only types)
        return list(map(dict.get, self.dicts, repeat(name))) if found is None else list(found)

    def event(self, k: int) -> Event:
        found = self._events[k]
        if found is None:
            d = self.dicts[k]  # checked by clean_columns: only None values to leave out
            found = self._events[k] = Event.trusted(d[TYPE_KEY], {a: v for a, v in sorted(d.items())
                                                                  if v is not None and a != TYPE_KEY}, ordered=True)
        return found

    def text(self, k: int) -> str:
        return self.event(k).to_json_text()

__all__ = ["ColumnEvents", "DictRows", "Fallback", "Rows"]
