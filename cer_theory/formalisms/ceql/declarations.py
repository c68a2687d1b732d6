"""Checking events against a stream declaration (CORE's ``CREATE STREAM``, seed 001 *CORE: a Complex Event
Recognition Engine*, §2), declared or inferred from the data.

An event matches a declaration when its type is declared and every attribute it carries is declared for that
type with the same kind (number, string, boolean). A missing attribute is NULL and allowed. A mismatch is a
:class:`~cer_theory.core.errors.StreamFormatError` naming the line and the field: nothing is dropped silently.

CORE's option declaration ``CREATE QUARANTINE { FIXED_TIME 2 seconds {S} }`` says how late the events of a stream
may arrive; :func:`declared_lateness` reads it as the allowed lateness of :mod:`cer_theory.core.reorder`
(docs/decisions.md D104).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import kind
from cer_theory.formalisms.ceql.ast import QuarantinePolicy, StreamDeclaration
from cer_theory.formalisms.ceql.printer import format_declaration

KIND_NAMES = {"num": "a number", "str": "a string", "bool": "a boolean"}
"""How a message names a predicate kind."""

KIND_DATATYPES = {"num": "double", "str": "string", "bool": "boolean", None: "string"}
"""The CORE datatype that declares a kind (an attribute of unknown kind is declared a string)."""


class Schema:
    """Event type → attribute → kind, built from declarations or inferred from a first pass over the data."""

    def __init__(self, kinds: dict[str, dict[str, str | None]] | None = None) -> None:
        self.kinds: dict[str, dict[str, str | None]] = kinds or {}
        self._first_seen: dict[tuple[str, str], int] = {}

    @classmethod
    def from_declarations(cls, declarations: Iterable[StreamDeclaration | QuarantinePolicy]) -> Schema:
        kinds: dict[str, dict[str, str | None]] = {}
        for d in declarations:
            if not isinstance(d, StreamDeclaration):
                continue
            for etype, attrs in d.kinds().items():
                kinds.setdefault(etype, {}).update(attrs)
        return cls(kinds)

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
                first = self._first_seen[(event.type, name)]
                raise StreamFormatError(f"{event.type}.{name} is {KIND_NAMES[k]} here but {KIND_NAMES[seen]} "
                                        f"at line {first}", source=source, line=line, field=name)
            self._first_seen.setdefault((event.type, name), line)

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

    def to_declaration(self, name: str = "S") -> StreamDeclaration:
        """The schema as a stream declaration, types and attributes in sorted order."""
        return StreamDeclaration(name, {t: {a: KIND_DATATYPES[k] for a, k in sorted(attrs.items())}
                                        for t, attrs in sorted(self.kinds.items())})

    def declaration(self, name: str = "S") -> str:
        """The schema as CORE's ``CREATE STREAM`` text."""
        return format_declaration(self.to_declaration(name))


def declared_lateness(declarations: Sequence[StreamDeclaration | QuarantinePolicy]) -> float | None:
    """The allowed lateness, in seconds, that CORE's ``CREATE QUARANTINE`` declares (None: no QUARANTINE).

    CORE holds the events of a FIXED_TIME or BOUNDED_TIME stream back for the given time so that late ones can
    take their place; here both allow that lateness, and DIRECT allows none. One engine reads one stream, so the
    policies of all the streams named combine into the largest lateness (docs/decisions.md D104)."""
    policies = [d for d in declarations if isinstance(d, QuarantinePolicy)]
    return max(p.lateness for p in policies) if policies else None


__all__ = ["Schema", "KIND_NAMES", "KIND_DATATYPES", "declared_lateness"]
