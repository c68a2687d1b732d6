"""Hypothesis strategies for predicates and events over a small schema, shared by the test suites.

Schema: types ``R``, ``T``, ``U``; numeric attributes ``x``, ``y`` (small ints and a couple of halves),
a string attribute ``s`` and a boolean ``b``. Events sometimes lack an attribute or carry one of the wrong
kind, and predicates sometimes compare across kinds, so that the type guard of the atom semantics
(docs/decisions.md D3) is exercised both in evaluation and in the Z3 encoding.
"""

from __future__ import annotations

from hypothesis import strategies as st

from cer_theory.core.events import Event, Value
from cer_theory.core.predicates.ast import (ARITH_OPS, FALSE, OPS, TRUE, Arith, Attr, Cmp, Const, InRange, InSet, IsType, Like,
                              On, Predicate, Slot, conj, disj, neg, term_attrs)

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


# ---------------------------------------------------------------------------------------------- CEQL extensions
# Arithmetic comparisons, LIKE, IN sets and ranges (the CORE paper §2; predicates/ast.py "CEQL extensions").
# New functions only: the strategies above keep drawing exactly what they drew before.

REGEXES = ("a.*", "a|b", "", ".", "[ab]+", "b?", "R|T", "(ab)*")
"""LIKE patterns: matched against the schema's strings (``""``, ``a``, ``b``, ``ab``) and types."""

_ARITH_CONSTS: st.SearchStrategy[Const] = st.one_of(st.integers(-2, 3), st.sampled_from([0.5, 1.5, 0.1])).map(Const)

TRICKY_NUMBERS: tuple[int | float, ...] = (0.1, 0.2, 0.3, 1 / 3, 2**53 + 1, 10**20, 10**400, 1e300, -1e300, 5e-324)
"""Values on which float arithmetic is inexact (or overflows): exact evaluation and its vectorized version
must agree on them."""


def arith_terms(slot: Slot = None, max_leaves: int = 4) -> st.SearchStrategy[Arith]:
    """Random arithmetic terms ``+ - * /`` over the numeric attributes (sometimes ``s``, a string: never a
    number, so the term is undefined) and small numeric constants, with at least one operator."""
    leaf = st.one_of(st.sampled_from(NUM_ATTRS + NUM_ATTRS + ("s",)).map(lambda a: Attr(a, slot)), _ARITH_CONSTS)
    op = st.sampled_from(ARITH_OPS)
    tree = st.recursive(leaf, lambda kids: st.builds(Arith, op, kids, kids), max_leaves=max_leaves)
    return st.builds(Arith, op, tree, tree)


def _has_attr(t: object) -> bool:
    return bool(term_attrs(t))


def extended_atoms(slot: Slot = None) -> st.SearchStrategy[Predicate]:
    """Atoms of CEQL's expression language: arithmetic comparisons, LIKE, IN / NOT IN sets and ranges."""
    op = st.sampled_from(OPERATORS)
    side = st.one_of(arith_terms(slot), st.sampled_from(NUM_ATTRS).map(lambda a: Attr(a, slot)),
                     _ARITH_CONSTS, st.sampled_from([Const("a"), Const(True)]))
    arith_cmp = (st.tuples(arith_terms(slot), op, side)
                 .filter(lambda t: _has_attr(t[0]) or _has_attr(t[2]))
                 .map(lambda t: Cmp(*t)))
    like_atom = st.builds(Like, st.sampled_from(("s", "s", "x", "type")).map(lambda a: Attr(a, slot)),
                          st.sampled_from(REGEXES))
    attr_name = st.sampled_from(ATTRS)
    in_set = attr_name.flatmap(lambda a: st.builds(InSet, st.just(Attr(a, slot)),
                                                   st.lists(constants(a), min_size=1, max_size=3).map(frozenset),
                                                   st.booleans()))
    bound = st.one_of(st.none(), st.integers(-1, 3), st.sampled_from([0.5, 1.5]))
    in_range = (st.tuples(st.sampled_from(ATTRS), bound, bound, st.booleans())
                .filter(lambda t: t[1] is not None or t[2] is not None)
                .map(lambda t: InRange(Attr(t[0], slot), t[1], t[2], t[3])))
    return st.one_of(arith_cmp, arith_cmp, like_atom, in_set, in_range)


def extended_unary_predicates(max_leaves: int = 6) -> st.SearchStrategy[Predicate]:
    """Random unary predicates over :func:`atoms` and :func:`extended_atoms`."""
    return st.recursive(st.one_of(atoms(None), extended_atoms(None)), _combine, max_leaves=max_leaves)


def extended_events(types: tuple[str, ...] = TYPES) -> st.SearchStrategy[Event]:
    """Events of the schema whose numbers are sometimes :data:`TRICKY_NUMBERS` (inexact in floats)."""
    tricky = st.sampled_from(TRICKY_NUMBERS)

    def value(name: str) -> st.SearchStrategy[Value | None]:
        return st.one_of(values(name), tricky) if name in NUM_ATTRS else values(name)

    def build(etype: str, vals: list[Value | None]) -> Event:
        return Event(etype, {a: v for a, v in zip(ATTRS, vals) if v is not None})

    return st.builds(build, st.sampled_from(types), st.tuples(*(value(a) for a in ATTRS)).map(list))
