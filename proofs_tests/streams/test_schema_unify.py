"""Unifying schemas (docs/decisions.md D301): :func:`cer_theory.streams.schema.unify` is commutative, associative
and idempotent, accepts every event each schema accepts, and names exactly the attributes of different kinds;
:func:`~cer_theory.streams.schema.one_kind_per_column` gives Spark's table one kind per column."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cer_theory.core.events import Event
from cer_theory.streams.schema import Conflict, Schema, one_kind_per_column, unify

KINDS = st.sampled_from(["num", "str", "bool", None])
SCHEMAS = st.dictionaries(st.sampled_from("ABC"), st.dictionaries(st.sampled_from("xyz"), KINDS, max_size=3),
                          max_size=3).map(Schema)
VALUES = {"num": 1, "str": "s", "bool": True, None: 2.5}


def _explain(*schemas: Schema) -> str:
    return " | ".join(repr(s.kinds) for s in schemas)


@given(SCHEMAS, SCHEMAS)
def test_unify_is_commutative(a: Schema, b: Schema) -> None:
    (ab, ab_conflicts), (ba, ba_conflicts) = unify(a, b), unify(b, a)
    assert (ab.kinds, ab_conflicts) == (ba.kinds, ba_conflicts), _explain(a, b)


@given(SCHEMAS, SCHEMAS, SCHEMAS)
def test_unify_is_associative(a: Schema, b: Schema, c: Schema) -> None:
    left, right = unify(unify(a, b)[0], c)[0], unify(a, unify(b, c)[0])[0]
    assert left.kinds == right.kinds == unify(a, b, c)[0].kinds, _explain(a, b, c)


@given(SCHEMAS)
def test_unify_is_idempotent_and_a_schema_unified_with_itself_has_no_conflict(a: Schema) -> None:
    unified, conflicts = unify(a, a)
    assert unified.kinds == a.kinds and conflicts == [], _explain(a)
    assert unify(unified)[0].kinds == unified.kinds


@given(SCHEMAS, SCHEMAS)
def test_unify_accepts_every_event_either_schema_accepts(a: Schema, b: Schema) -> None:
    unified, _ = unify(a, b)
    for schema in (a, b):
        for type, attrs in schema.kinds.items():
            event = Event(type, {name: VALUES[k] for name, k in attrs.items()})
            assert list(unified.check([(1, event)])) == [event], _explain(a, b)


@given(SCHEMAS, SCHEMAS)
def test_the_conflicts_are_exactly_the_attributes_of_different_kinds(a: Schema, b: Schema) -> None:
    unified, conflicts = unify(a, b)
    expected = sorted(Conflict(t, n, tuple(sorted({a.kinds[t][n], b.kinds[t][n]})))
                      for t in set(a.kinds) & set(b.kinds) for n in set(a.kinds[t]) & set(b.kinds[t])
                      if None not in (a.kinds[t][n], b.kinds[t][n]) and a.kinds[t][n] != b.kinds[t][n])
    assert conflicts == expected, _explain(a, b)
    assert all(unified.kinds[c.type][c.attribute] is None for c in conflicts)


def test_a_conflict_names_the_attribute_and_its_kinds() -> None:
    _, conflicts = unify(Schema({"T": {"x": "num"}}), Schema({"T": {"x": "str"}}))
    assert [str(c) for c in conflicts] == ["T.x is a number and a string: left of any kind"]
    _, conflicts = one_kind_per_column(Schema({"H": {"id": "num"}, "T": {"id": "str", "tmp": "num"}}))
    assert [str(c) for c in conflicts] == ["column 'id' is a number and a string: left of any kind"]


@given(SCHEMAS)
def test_one_kind_per_column_gives_each_attribute_one_kind_across_types(a: Schema) -> None:
    """A column keeps the one kind every type gives it; met with different kinds, or of any kind in one type, it
    is of any kind in every type; only different kinds are a conflict."""
    columns, conflicts = one_kind_per_column(a)
    expected_conflicts = []
    for name in sorted({n for attrs in a.kinds.values() for n in attrs}):
        seen = {attrs[name] for attrs in a.kinds.values() if name in attrs}
        kind = next(iter(seen)) if len(seen) == 1 else None
        assert all(attrs[name] == kind for attrs in columns.kinds.values() if name in attrs), _explain(a)
        concrete = sorted(k for k in seen if k is not None)
        if len(concrete) > 1:
            expected_conflicts.append(Conflict(None, name, tuple(concrete)))
    assert {t: set(attrs) for t, attrs in columns.kinds.items()} == {t: set(attrs) for t, attrs in a.kinds.items()}
    assert conflicts == expected_conflicts, _explain(a)
