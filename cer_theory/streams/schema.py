"""The schema of a stream: event type → attribute → kind (number, string, boolean), declared (CORE's ``CREATE
STREAM``, the CORE paper *CORE: a Complex Event Recognition Engine*, §2, converted by
:func:`cer_theory.formalisms.ceql.declarations.schema_of`) or inferred from the data, and checked event by event
(:class:`Schema`) or batch by batch, column-wise (:class:`~cer_theory.streams.schema_check.SchemaCheck`), with
the same messages.

An event matches a schema when its type is declared and every attribute it carries is declared for that type with
the same kind. A missing attribute is NULL and allowed. A mismatch is a
:class:`~cer_theory.core.errors.StreamFormatError` naming the line and the field: nothing is dropped silently.
Inferred, each (type, attribute) takes the kind it first has; a later different kind is an error naming the line
where the first was seen (docs/decisions.md D88).

Schemas are unified (:func:`unify`: the schemas of several files, or of several event types read as one table's
columns, :func:`one_kind_per_column`) into the least schema every one of them accepts; an attribute of different
kinds is left of any kind and named as a :class:`Conflict` (docs/decisions.md D301).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import kind

KIND_NAMES = {"num": "a number", "str": "a string", "bool": "a boolean"}
"""How a message names a predicate kind."""



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
        :meth:`cer_theory.streams.schema_check.SchemaCheck.batch`)."""
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


@dataclass(frozen=True, order=True)
class Conflict:
    """An attribute with different kinds in the schemas unified: of event type ``type``, or (``type`` None) a
    column shared by several event types."""

    type: str | None
    attribute: str
    kinds: tuple[str, ...]
    """The kinds met, sorted."""

    def __str__(self) -> str:
        where = f"{self.type}.{self.attribute}" if self.type is not None else f"column {self.attribute!r}"
        return f"{where} is {' and '.join(KIND_NAMES[k] for k in self.kinds)}: left of any kind"


def unify(*schemas: Schema) -> tuple[Schema, list[Conflict]]:
    """The least schema every given schema's events match: each event type of any of them, with each attribute
    any of them declares for it; an attribute of one kind everywhere keeps it, one of any kind (None) anywhere
    stays of any kind, and one of different kinds becomes of any kind and is a :class:`Conflict`. Commutative,
    associative and idempotent up to the order of the conflicts, which are sorted."""
    met: dict[str, dict[str, set[str | None]]] = {}
    for schema in schemas:
        for type, attrs in schema.kinds.items():
            for_type = met.setdefault(type, {})
            for name, k in attrs.items():
                for_type.setdefault(name, set()).add(k)
    kinds: dict[str, dict[str, str | None]] = {}
    conflicts = []
    for type in sorted(met):
        kinds[type] = {}
        for name in sorted(met[type]):
            seen = met[type][name]
            kinds[type][name] = next(iter(seen)) if len(seen) == 1 else None
            concrete = sorted(k for k in seen if k is not None)
            if len(concrete) > 1:
                conflicts.append(Conflict(type, name, tuple(concrete)))
    return Schema(kinds), conflicts


def one_kind_per_column(schema: Schema) -> tuple[Schema, list[Conflict]]:
    """``schema`` read as one table whose columns are the attributes of every event type (Spark's DataFrame: one
    column, one type): an attribute of different kinds in different event types is left of any kind in every
    type, and named as a :class:`Conflict` of that column."""
    columns, conflicts = unify(*(Schema({"": attrs}) for attrs in schema.kinds.values()))
    column_kinds = columns.kinds.get("", {})
    kinds = {type: {name: column_kinds[name] for name in attrs} for type, attrs in schema.kinds.items()}
    return Schema(kinds), [Conflict(None, c.attribute, c.kinds) for c in conflicts]


__all__ = ["KIND_NAMES", "Conflict", "Schema", "one_kind_per_column", "unify"]
