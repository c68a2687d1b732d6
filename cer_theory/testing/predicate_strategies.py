"""Hypothesis strategies for predicates and events over a small schema, shared by the test suites.

Schema: types ``R``, ``T``, ``U``; numeric attributes ``x``, ``y`` (small ints and a couple of halves),
a string attribute ``s`` and a boolean ``b``. Events sometimes lack an attribute or carry one of the wrong
kind, and predicates sometimes compare across kinds, so that the type guard of the atom semantics
(spec cel-cea.md §2.3) is exercised both in evaluation and in the Z3 encoding.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..events import Event, Value
from ..predicates.ast import (FALSE, OPS, TRUE, Attr, Cmp, Const, IsType, On, Predicate, Slot, conj, disj,
                              neg)

TYPES = ("R", "T", "U")
NUM_ATTRS = ("x", "y")
ATTRS = ("x", "y", "s", "b")
STRINGS = ("", "a", "b", "ab")
OPERATORS = tuple(OPS)

_NUMS: st.SearchStrategy[Value] = st.one_of(st.integers(-1, 3), st.sampled_from([0.5, 1.5]))
_STRS: st.SearchStrategy[Value] = st.sampled_from(STRINGS)
_BOOLS: st.SearchStrategy[Value] = st.booleans()
_ANY: st.SearchStrategy[Value] = st.one_of(_NUMS, _STRS, _BOOLS)


def _own_kind(name: str) -> st.SearchStrategy[Value]:
    return {"x": _NUMS, "y": _NUMS, "s": _STRS, "b": _BOOLS}[name]


def values(name: str) -> st.SearchStrategy[Value | None]:
    """A value for attribute ``name``: mostly of its own kind, sometimes missing (None), sometimes another kind."""
    own = _own_kind(name)
    return st.one_of(own, own, own, st.none(), _ANY)


def events(types: tuple[str, ...] = TYPES) -> st.SearchStrategy[Event]:
    """Random events of the schema (attributes possibly missing or of an unexpected kind)."""

    def build(etype: str, vals: list[Value | None]) -> Event:
        return Event(etype, {a: v for a, v in zip(ATTRS, vals) if v is not None})

    return st.builds(build, st.sampled_from(types), st.tuples(*(values(a) for a in ATTRS)).map(list))


def constants(name: str) -> st.SearchStrategy[Const]:
    """A constant to compare attribute ``name`` with: mostly of its kind, sometimes of another."""
    own = _own_kind(name)
    return st.one_of(own, own, own, _ANY).map(Const)


def atoms(slot: Slot = None) -> st.SearchStrategy[Predicate]:
    """Atoms over one slot: type tests, attribute-vs-constant, attribute-vs-attribute, ``type`` comparisons."""
    attr_name = st.sampled_from(ATTRS)
    op = st.sampled_from(OPERATORS)
    vs_const = attr_name.flatmap(lambda a: st.builds(Cmp, st.just(Attr(a, slot)), op, constants(a)))
    const_vs = attr_name.flatmap(lambda a: st.builds(Cmp, constants(a), op, st.just(Attr(a, slot))))
    vs_attr = st.builds(lambda a, o, b: Cmp(Attr(a, slot), o, Attr(b, slot)), attr_name, op, attr_name)
    type_cmp = st.builds(lambda o, t: Cmp(Attr("type", slot), o, Const(t)), op,
                         st.sampled_from(TYPES + ("S", "")))
    is_type = st.sampled_from(TYPES).map(lambda t: IsType(t, slot))
    return st.one_of(is_type, is_type, vs_const, vs_const, vs_const, const_vs, vs_attr, type_cmp,
                     st.sampled_from([TRUE, FALSE]))


def _combine(children: st.SearchStrategy[Predicate]) -> st.SearchStrategy[Predicate]:
    parts = st.lists(children, min_size=2, max_size=3)
    return st.one_of(children.map(neg), parts.map(lambda ps: conj(*ps)), parts.map(lambda ps: disj(*ps)))


def unary_predicates(max_leaves: int = 6) -> st.SearchStrategy[Predicate]:
    """Random unary predicates (Boolean combinations of :func:`atoms` on the current event)."""
    return st.recursive(atoms(None), _combine, max_leaves=max_leaves)


def nary_predicates(slots: tuple[str, ...] = ("A", "B"), max_leaves: int = 5) -> st.SearchStrategy[Predicate]:
    """Random n-ary predicates: ``A[p]`` for unary ``p`` and cross-slot comparisons such as ``A.x < B.y``."""
    slot = st.sampled_from(slots)
    on = st.builds(On, slot, unary_predicates(max_leaves=2))
    cross = st.builds(lambda s1, a, o, s2, b: Cmp(Attr(a, s1), o, Attr(b, s2)),
                      slot, st.sampled_from(ATTRS), st.sampled_from(OPERATORS), slot, st.sampled_from(ATTRS))
    return st.recursive(st.one_of(on, cross, cross), _combine, max_leaves=max_leaves)


def envs(slots: tuple[str, ...] = ("A", "B")) -> st.SearchStrategy[dict[Slot, Event]]:
    """Random environments: one event per slot."""
    return st.tuples(*(events() for _ in slots)).map(lambda evs: dict(zip(slots, evs)))
