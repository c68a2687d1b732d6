"""The schema of a stream: event type → attribute → kind (number, string, boolean), declared (CORE's ``CREATE
STREAM``, seed 001 *CORE: a Complex Event Recognition Engine*, §2, converted by
:func:`cer_theory.formalisms.ceql.declarations.schema_of`) or inferred from the data, and checked event by event
(:class:`Schema`) or batch by batch, column-wise (:class:`SchemaCheck`), with the same messages.

An event matches a schema when its type is declared and every attribute it carries is declared for that type with
the same kind. A missing attribute is NULL and allowed. A mismatch is a
:class:`~cer_theory.core.errors.StreamFormatError` naming the line and the field: nothing is dropped silently.
Inferred, each (type, attribute) takes the kind it first has; a later different kind is an error naming the line
where the first was seen (docs/decisions.md D88).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import kind
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR
from cer_theory.streams.batch import Fallback, Rows

KIND_NAMES = {"num": "a number", "str": "a string", "bool": "a boolean"}
"""How a message names a predicate kind."""

_KIND_OF_CODE = {NUM: "num", STR: "str", BOOL: "bool"}


class Schema:
    """Event type → attribute → kind (None: declared, of any kind), with the line where an inferred kind was
    first seen."""

    def __init__(self, kinds: dict[str, dict[str, str | None]] | None = None) -> None:
        self.kinds: dict[str, dict[str, str | None]] = kinds or {}
        self._first_seen: dict[tuple[str, str], int] = {}

    @classmethod
    def infer(cls, events: Iterable[tuple[int, Event]], *, source: str | None = None,
              conflicts: str = "fail") -> Schema:
        """The schema the data itself declares. An attribute whose kind changes between events is an error
        (``conflicts="fail"``), or keeps the kind it had first (``"first"``: the later events then fail
        :meth:`check`, which a caller that reports bad rows wants)."""
        schema = cls()
        for line, event in events:
            schema.learn(line, event, source=source, conflicts=conflicts)
        return schema

    def learn(self, line: int, event: Event, *, source: str | None = None, conflicts: str = "fail") -> None:
        """Add what ``event`` declares: its type, and each attribute with the kind of its first value."""
        attrs = self.kinds.setdefault(event.type, {})
        for name, value in event.attributes.items():
            k = kind(value)
            seen = attrs.setdefault(name, k)
            if seen != k and conflicts == "fail":
                raise self.kind_change(event.type, name, k, source=source, line=line)
            self._first_seen.setdefault((event.type, name), line)

    def record(self, type: str, name: str, k: str, line: int) -> None:
        """Learn that attribute ``name`` of ``type`` has kind ``k``, first seen at ``line`` (a batch's inference,
        :meth:`SchemaCheck.batch`)."""
        self.kinds.setdefault(type, {})[name] = k
        self._first_seen.setdefault((type, name), line)

    def kind_change(self, type: str, name: str, k: str, *, source: str | None, line: int) -> StreamFormatError:
        """The error for ``type.name`` of kind ``k`` at ``line``, after the schema learnt another kind."""
        seen = self.kinds[type][name]
        first = self._first_seen[(type, name)]
        return StreamFormatError(f"{type}.{name} is {KIND_NAMES[k]} here but {KIND_NAMES[seen]} at line {first}",
                                 source=source, line=line, field=name)

    @classmethod
    def inferring(cls, events: Iterable[tuple[int, Event]], *, source: str | None = None
                  ) -> Iterator[tuple[int, Event]]:
        """One pass for a stream that cannot be read twice (standard input, a pipe): the schema is learnt as the
        events arrive, so an event whose attribute changes kind fails with the same error as :meth:`infer`
        followed by :meth:`check`, only later (after the complex events before it)."""
        schema = cls()
        for line, event in events:
            schema.learn(line, event, source=source)
            yield line, event

    def check(self, events: Iterable[tuple[int, Event]], *, source: str | None = None) -> Iterator[Event]:
        """Yield the events, raising on the first one that does not match the schema."""
        return (event for _, event in self.check_lines(events, source=source))

    def check_lines(self, events: Iterable[tuple[int, Event]], *, source: str | None = None
                    ) -> Iterator[tuple[int, Event]]:
        """:meth:`check`, keeping each event's line."""
        for line, event in events:
            attrs = self.kinds.get(event.type)
            if attrs is None:
                raise StreamFormatError(f"event type {event.type!r} is not declared (declared: "
                                        f"{', '.join(sorted(self.kinds)) or 'none'})", source=source, line=line,
                                        field="type")
            for name, value in event.attributes.items():
                if name not in attrs:
                    raise StreamFormatError(f"{event.type} declares no attribute {name!r}", source=source,
                                            line=line, field=name)
                expected = attrs[name]
                if expected is not None and kind(value) != expected:
                    raise StreamFormatError(f"{event.type}.{name} is declared {KIND_NAMES[expected]}, got "
                                            f"{value!r}", source=source, line=line, field=name)
            yield line, event


class SchemaCheck:
    """A schema (declared, or inferred in the same pass) checked batch by batch, column-wise, or event by event
    on the row path — with the messages of :class:`Schema`."""

    def __init__(self, schema: Schema | None, source: str) -> None:
        self.declared = schema is not None
        self.schema = schema if schema is not None else Schema()
        self.source = source

    def batch(self, rows: Rows) -> None:
        """Raise :class:`~cer_theory.streams.batch.Fallback` if some row of ``rows`` breaks the schema (the row
        path then names it); else record the kinds it infers, with the line each was first seen on."""
        kinds = self.schema.kinds
        pending: list[tuple[str, str, str, int]] = []
        for t in set(rows.types.tolist()):
            sel = rows.types == t
            declared = kinds.get(t)
            if declared is None and self.declared:
                raise Fallback("undeclared type")
            for name, codes_all in rows.kinds.items():
                codes = codes_all[sel]
                present = sorted(set(np.unique(codes).tolist()) - {MISSING})
                if not present:
                    continue
                if len(present) > 1:
                    raise Fallback("two kinds")
                k = _KIND_OF_CODE[present[0]]
                seen = None if declared is None else declared.get(name, "absent")
                if self.declared:
                    if seen == "absent" or (seen is not None and seen != k):
                        raise Fallback("declaration")
                elif seen is None or seen == "absent":
                    first = int(np.flatnonzero(sel & (codes_all == present[0]))[0])
                    pending.append((t, name, k, rows.line(first)))
                elif seen != k:
                    raise Fallback("kind change")
        for t, name, k, line in pending:
            self.schema.record(t, name, k, line)

    def event(self, line: int, event: Event) -> Event:
        """The row path's check of one event: :meth:`Schema.check` against a declaration, else
        :meth:`Schema.learn` (the inference continued)."""
        if self.declared:
            for checked in self.schema.check(((line, event),), source=self.source):
                return checked
        self.schema.learn(line, event, source=self.source)
        return event


__all__ = ["KIND_NAMES", "Schema", "SchemaCheck"]
