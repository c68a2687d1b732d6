"""CORE's bit vectors, one event at a time: *CORE: a Complex Event Recognition Engine* (the CORE paper), §4.4.

The engine evaluates the distinct predicates ``P_1..P_k`` of its automaton once per event into an ``int`` whose
bit k is set iff the event satisfies ``P_{k+1}``; nothing else reads the event. :func:`compile_mask` generates
that function; :func:`cer_theory.core.predicates.vectorized.bitmasks` is its column-wise counterpart for
DataFrame/Table batches. Property tests check both against the predicate semantics ``p(e)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import MIRRORED_OP, And, Attr, BoolConst, Cmp, Const, IsType, Not, Or, Predicate

MASK_MEMO_LIMIT = 1 << 16
"""Atom vectors whose bit vector :func:`compile_mask` remembers (past that it computes them every time)."""


def compile_mask(predicates: Sequence[Predicate], *, dicts: bool = False) -> Callable[[Any], int]:
    """One Python function computing an event's bit vector over ``predicates`` (bit k ⇔ ``predicates[k](e)``).
    With ``dicts`` the function reads a dict with a ``"type"`` key whose values are already checked (absent
    attributes: missing or None), as :meth:`Event.from_dict` would read it, without building the Event (the
    columnar path's batches of dicts; an atom evaluated through ``holds`` gets the Event).

    Generated source in two stages (CORE's bit vectors, §4.4):

    1. the *atom vector*: each distinct atom gets one bit. Equality atoms are grouped by attribute and by the kind
       of their constant into one dict ``constant → atom bits``, so ``name = 'A'``, ``name = 'B'``, … cost one
       lookup together (the type tests likewise, on the event type). The kind guard of
       :func:`cer_theory.core.predicates.ast.compare` comes first (a missing attribute or a kind mismatch is false),
       so the dict only ever compares values of one kind, as ``==`` does. Other comparisons are one test each;
       any other node (``On``, ``Opaque``, the CEQL extensions) is evaluated through its own ``holds``.
    2. the bit vector, a Boolean function of the atom vector, memoized by atom vector (few distinct ones occur).

    Each attribute is read once per event. A property test checks the function against ``p(e)``.
    """
    ns: dict[str, Any] = {"_memo": {}}
    bits: dict[Any, int] = {}  # atom → its bit in the atom vector
    tables: dict[tuple[str, str], dict[Any, int]] = {}  # (attribute, kind guard) → {constant: atom bits}
    tests: dict[tuple[str, str], list[str]] = {}  # (attribute, kind guard) → its one-by-one atom tests
    type_tests: list[str] = []
    generic: list[str] = []

    def const(value: Any) -> str:
        name = f"_c{len(ns)}"
        ns[name] = value
        return name

    def atom(key: Any) -> tuple[str, bool]:
        """The atom's bit as source text, and whether it is new."""
        known = bits.get(key)
        if known is not None:
            return f"(a & {known})", False
        bits[key] = 1 << len(bits)
        return f"(a & {bits[key]})", True

    def equality(name: str, value: Any) -> str:
        guard = _guard(value)
        if name == TYPE_KEY and guard != "str":
            return "False"  # the type is a string: a constant of another kind never equals it
        code, fresh = atom(("=", name, guard, value))
        if fresh:
            table = tables.setdefault((name, guard), {})
            table[value] = table.get(value, 0) | bits[("=", name, guard, value)]
        return code

    def comparison(name: str, op: str, value: Any) -> str:
        if op == "=" and not (isinstance(value, float) and value != value):  # NaN equals nothing: tested below
            return equality(name, value)
        code, fresh = atom((name, op, type(value), value))
        if fresh:
            key = (name, op, type(value), value)
            py = "==" if op == "=" else op
            if name == TYPE_KEY:  # the type is a string: a constant of another kind never compares
                test = f"t {py} {const(value)}" if isinstance(value, str) else "False"
                type_tests.append(f"    if {test}: a |= {bits[key]}")
            else:
                tests.setdefault((name, _guard(value)), []).append(f"if v {py} {const(value)}: a |= {bits[key]}")
        return code

    def expr(p: Predicate) -> str:
        if isinstance(p, BoolConst):
            return "True" if p.value else "False"
        if isinstance(p, IsType) and p.slot is None:
            return equality(TYPE_KEY, p.name)
        if isinstance(p, Cmp) and _plain(p.left) and isinstance(p.right, Const):
            return comparison(p.left.name, p.op, p.right.value)  # type: ignore[union-attr]
        if isinstance(p, Cmp) and isinstance(p.left, Const) and _plain(p.right):
            return comparison(p.right.name, MIRRORED_OP[p.op], p.left.value)  # type: ignore[union-attr]
        if isinstance(p, Not):
            return f"(not {expr(p.arg)})"
        if isinstance(p, And):
            return "(" + " and ".join(expr(a) for a in p.args) + ")"
        if isinstance(p, Or):
            return "(" + " or ".join(expr(a) for a in p.args) + ")"
        code, fresh = atom(p)
        if fresh:
            generic.append(f"    if {const(p.holds)}(env): a |= {bits[p]}")
        return code

    body = [f"    if {expr(p)}: m |= {1 << k}" for k, p in enumerate(predicates)]
    lines = ["def _mask(e):", "    t = e.get('type')" if dicts else "    t = e.type"]
    types = tables.pop((TYPE_KEY, "str"), None)
    lines.append(f"    a = {const(types)}.get(t, 0)" if types else "    a = 0")
    lines += type_tests
    names = sorted({n for n, _ in tables} | {n for n, _ in tests})
    if names:
        lines.append("    g = e.get" if dicts else "    g = e._values.get")
    for name in names:
        lines.append(f"    v = g({name!r})")
        branch = "if"
        for guard in ("str", "num", "bool"):  # exclusive kinds: one branch runs
            table, own = tables.get((name, guard)), tests.get((name, guard), [])
            if table is None and not own:
                continue
            lines.append(f"    {branch} {_GUARDS[guard]}:")
            if table is not None:
                lines.append(f"        a |= {const(table)}.get(v, 0)")
            lines += [f"        {test}" for test in own]
            branch = "elif"
    if generic:
        ns["_event"] = Event.from_dict
        lines += ["    env = {None: _event(e)}" if dicts else "    env = {None: e}"] + generic
    lines += ["    m = _memo.get(a)", "    return _bits(a) if m is None else m"]
    fill = ["def _bits(a):", "    m = 0", *body, f"    if len(_memo) < {MASK_MEMO_LIMIT}:", "        _memo[a] = m",
            "    return m"]
    source = "\n".join(lines + [""] + fill)
    exec(compile(source, "<cer_theory.core.predicates.masks>", "exec"), ns)
    fn = ns["_mask"]
    fn.source = source  # type: ignore[attr-defined]
    return fn


_GUARDS = {"bool": "v.__class__ is bool", "str": "v.__class__ is str",
           "num": "(v.__class__ is int or v.__class__ is float)"}
"""The kind guards of the generated mask: a value of another kind never compares (``compare``)."""


def _guard(value: Any) -> str:
    return "bool" if isinstance(value, bool) else "str" if isinstance(value, str) else "num"


def _plain(term: Any) -> bool:
    return isinstance(term, Attr) and term.slot is None


__all__ = ["compile_mask", "MASK_MEMO_LIMIT"]
