"""CORE's stream declarations (``CREATE STREAM``, the CORE paper *CORE: a Complex Event Recognition Engine*, §2) as
the stream's :class:`~cer_theory.streams.schema.Schema` (which checks events and infers kinds), and back.

CORE's option declaration ``CREATE QUARANTINE { FIXED_TIME 2 seconds {S} }`` says how late the events of a stream
may arrive; :func:`declared_lateness` reads it as the allowed lateness of :mod:`cer_theory.streams.reorder`
(docs/decisions.md D104).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cer_theory.formalisms.ceql.ast import QuarantinePolicy, StreamDeclaration
from cer_theory.formalisms.ceql.printer import format_declaration
from cer_theory.streams.schema import Schema

KIND_DATATYPES = {"num": "double", "str": "string", "bool": "boolean", None: "string"}
"""The CORE datatype that declares a kind (an attribute of unknown kind is declared a string)."""


def schema_of(declarations: Iterable[StreamDeclaration | QuarantinePolicy]) -> Schema:
    """The :class:`~cer_theory.streams.schema.Schema` that ``CREATE STREAM`` declarations declare (the types of
    every stream named, merged)."""
    kinds: dict[str, dict[str, str | None]] = {}
    for d in declarations:
        if not isinstance(d, StreamDeclaration):
            continue
        for etype, attrs in d.kinds().items():
            kinds.setdefault(etype, {}).update(attrs)
    return Schema(kinds)


def declaration_of(schema: Schema, name: str = "S") -> StreamDeclaration:
    """The schema as a stream declaration, types and attributes in sorted order."""
    return StreamDeclaration(name, {t: {a: KIND_DATATYPES[k] for a, k in sorted(attrs.items())}
                                    for t, attrs in sorted(schema.kinds.items())})


def declaration_text(schema: Schema, name: str = "S") -> str:
    """The schema as CORE's ``CREATE STREAM`` text."""
    return format_declaration(declaration_of(schema, name))


def declared_lateness(declarations: Sequence[StreamDeclaration | QuarantinePolicy]) -> float | None:
    """The allowed lateness, in seconds, that CORE's ``CREATE QUARANTINE`` declares (None: no QUARANTINE).

    CORE holds the events of a FIXED_TIME or BOUNDED_TIME stream back for the given time so that late ones can
    take their place; here both allow that lateness, and DIRECT allows none. One engine reads one stream, so the
    policies of all the streams named combine into the largest lateness (docs/decisions.md D104)."""
    policies = [d for d in declarations if isinstance(d, QuarantinePolicy)]
    return max(p.lateness for p in policies) if policies else None


__all__ = ["KIND_DATATYPES", "declaration_of", "declaration_text", "declared_lateness", "schema_of"]
