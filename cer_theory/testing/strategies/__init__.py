"""Public hypothesis strategies: schemas, events, streams, predicates and CEL formulas.

Use them to test your own engine against the reference semantics::

    from hypothesis import given
    from cer_theory.testing.strategies import formulas, streams

    @given(formulas(), streams(max_length=8))
    def test_my_engine(phi, stream): ...

Streams draw from a small schema (types R, T, U and an unrelated V; an integer attribute ``x`` in 0..3 that
is sometimes absent) so that generated formulas and filters actually match something.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.testing.strategies.cel import formulas
from cer_theory.testing.strategies.predicates import events as predicate_events
from cer_theory.testing.strategies.predicates import unary_predicates


@dataclass(frozen=True)
class Schema:
    """A finite schema: relation names and, per attribute, the values it takes (small, to force collisions)."""

    types: tuple[str, ...] = ("R", "T", "U", "V")
    attributes: tuple[tuple[str, tuple[int, ...]], ...] = (("x", (0, 1, 2, 3)),)
    missing: bool = True  # attributes may be absent (the type-guard case of the predicate semantics)


DEFAULT_SCHEMA = Schema()


def schemas() -> st.SearchStrategy[Schema]:
    """Small schemas: 1–4 types, 0–2 integer attributes."""
    names = st.lists(st.sampled_from("RTUVW"), min_size=1, max_size=4, unique=True)
    attrs = st.lists(st.sampled_from(["x", "y"]), max_size=2, unique=True)
    return st.builds(lambda ts, as_, miss: Schema(tuple(ts), tuple((a, (0, 1, 2, 3)) for a in as_), miss),
                     names, attrs, st.booleans())


def events(schema: Schema = DEFAULT_SCHEMA) -> st.SearchStrategy[Event]:
    """Events of the schema; each attribute is present or (if the schema allows) absent."""
    def build(etype: str, values: list) -> Event:
        return Event(etype, {name: v for (name, _), v in zip(schema.attributes, values) if v is not None})

    value_strats = [st.sampled_from(vals) if not schema.missing else st.one_of(st.none(), st.sampled_from(vals))
                    for _, vals in schema.attributes]
    return st.builds(build, st.sampled_from(schema.types), st.tuples(*value_strats).map(list))


def streams(schema: Schema = DEFAULT_SCHEMA, *, min_length: int = 1, max_length: int = 8) -> st.SearchStrategy[Stream]:
    """Streams of 1..max_length events of the schema."""
    return st.lists(events(schema), min_size=min_length, max_size=max_length).map(Stream)


__all__ = ["Schema", "DEFAULT_SCHEMA", "schemas", "events", "streams", "formulas", "unary_predicates",
           "predicate_events"]
