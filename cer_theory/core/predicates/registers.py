"""Conditions over registers: the SRT paper (Alevizos, Artikis, Paliouras, *Complex Event Recognition with Symbolic
Register Transducers*), §3.1–3.2, Defs. 10 and 13.

A condition is a predicate of the one predicate language whose slots are the head ``~`` (the slot ``None``, the
current event) and register names: ``r1.id`` is ``Attr("id", "r1")``, a register read. No new node class is
needed; what is new is the satisfaction relation ``(u, v) ⊨ φ`` of Def. 13, where ``v`` is a *partial*
valuation:

* ``(u, v) ⊨ ⊤`` always; ¬, ∧ and ∨ are classical;
* an atom ``P(x₁..xₙ)`` holds iff every register it reads is defined in ``v`` *and* the atom holds on the
  head ``u`` and the register contents. So an atom reading an empty register (``#``) is **false**, and its
  negation true: ``¬(id = r1.id)`` holds while ``r1 = #``.

For the solver, :func:`with_def_flags` adds the ``def`` flag of each register read by an atom (a free Boolean
per register, encoded as an :class:`Opaque` atom named ``def`` in that register's slot, which Z3 sees as a free
atom per slot), so that satisfiability and minterms reproduce the rule "atom false on an empty register".
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import OPS, And, Attr, Cmp, Const, Not, Opaque, Or, Predicate, compare, conj, disj, neg

Check = Callable[[Event, Mapping[str, Event]], bool]

HEAD = None
"""The slot of the head ``~`` (the current event), the SRT paper §3.1."""

DEF = "def"
"""The name of the opaque atom that stands for "this register is defined" in the Z3 encoding."""


def registers_read(p: Predicate) -> frozenset[str]:
    """The registers a condition reads (its slots other than the head)."""
    return frozenset(s for s in p.slots() if s is not None)


def is_unary_condition(p: Predicate) -> bool:
    """The SRT paper Def. 10: a condition is *unary* iff it mentions only ``~``."""
    return not registers_read(p)


def satisfies(p: Predicate, head: Event, valuation: Mapping[str, Event]) -> bool:
    """``(u, v) ⊨ φ`` (the SRT paper, Def. 13): an atom is false when a register it reads is empty in ``v``."""
    if isinstance(p, Not):
        return not satisfies(p.arg, head, valuation)
    if isinstance(p, And):
        return all(satisfies(a, head, valuation) for a in p.args)
    if isinstance(p, Or):
        return any(satisfies(a, head, valuation) for a in p.args)
    env: dict[str | None, Event] = {HEAD: head}
    for r in p.slots():
        if r is None:
            continue
        event = valuation.get(r)
        if event is None:  # Def. 13: P(x₁..xₙ) needs every v(xᵢ) defined
            return False
        env[r] = event
    return p.holds(env)


@functools.lru_cache(maxsize=4096)
def compiled(p: Predicate) -> Check:
    """``satisfies`` as a closure ``(head, valuation) → bool``, built once per condition: the walk over the
    condition and the registers each atom reads are worked out here rather than at every event. Checked
    against :func:`satisfies` on generated conditions."""
    if isinstance(p, Not):
        inner = compiled(p.arg)
        return lambda u, v: not inner(u, v)
    if isinstance(p, And):
        parts = tuple(compiled(a) for a in p.args)
        return lambda u, v: all(f(u, v) for f in parts)
    if isinstance(p, Or):
        parts = tuple(compiled(a) for a in p.args)
        return lambda u, v: any(f(u, v) for f in parts)
    if isinstance(p, Cmp) and isinstance(p.left, (Attr, Const)) and isinstance(p.right, (Attr, Const)):
        return _compiled_comparison(p)
    regs = tuple(sorted(registers_read(p)))
    holds = p.holds
    if not regs:
        return lambda u, v: holds({HEAD: u})

    def atom(u: Event, v: Mapping[str, Event]) -> bool:
        env: dict[str | None, Event] = {HEAD: u}
        for r in regs:
            event = v.get(r)
            if event is None:  # Def. 13: an atom reading an empty register is false
                return False
            env[r] = event
        return holds(env)

    return atom


def _compiled_comparison(p: Cmp) -> Check:
    """A comparison of attributes and constants without the environment dict of :meth:`Cmp.holds`: each side
    reads the head or a register directly (an empty register or a missing attribute makes the atom false), and
    two values of one Python type compare directly; anything else goes through :func:`compare`'s type guard."""
    op, name = OPS[p.op], p.op

    def side(t: Attr | Const) -> Callable[[Event, Mapping[str, Event]], object]:
        if isinstance(t, Const):
            value = t.value
            return lambda u, v: value
        attr, slot = t.name, t.slot
        if slot is HEAD:
            return lambda u, v: u.get(attr)

        def read(u: Event, v: Mapping[str, Event]) -> object:
            event = v.get(slot)
            return None if event is None else event.get(attr)
        return read

    left, right = side(p.left), side(p.right)  # type: ignore[arg-type]

    def check(u: Event, v: Mapping[str, Event]) -> bool:
        a = left(u, v)
        if a is None:
            return False
        b = right(u, v)
        if b is None:
            return False
        if type(a) is type(b):
            return op(a, b)
        return compare(a, name, b)  # type: ignore[arg-type]

    return check


def _defined_flag(register: str) -> Opaque:
    # Concrete evaluation never meets this atom (satisfies() decides definedness itself); it only exists for Z3.
    return Opaque(DEF, _always, register)


def _always(_event: Event) -> bool:
    return True


def with_def_flags(p: Predicate) -> Predicate:
    """``p`` with each register-reading atom ``A`` replaced by ``def(r₁) ∧ … ∧ A`` (the Z3 encoding of the rule
    "an atom reading an empty register is false", the SRT paper §3.2 Def. 13)."""
    if isinstance(p, Not):
        return neg(with_def_flags(p.arg))
    if isinstance(p, And):
        return conj(*(with_def_flags(a) for a in p.args))
    if isinstance(p, Or):
        return disj(*(with_def_flags(a) for a in p.args))
    regs = sorted(registers_read(p))
    return conj(*(_defined_flag(r) for r in regs), p) if regs else p


def condition_satisfiable(p: Predicate) -> bool:
    """Is there a head ``u`` and a partial valuation ``v`` with ``(u, v) ⊨ p``? (Z3, with the ``def`` flags.)"""
    # Z3 is loaded on first use only (the heavy back end of the predicate language, docs/architecture.md).
    from cer_theory.core.predicates.solver import is_satisfiable

    return is_satisfiable(with_def_flags(p))
