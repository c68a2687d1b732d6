"""Hypothesis strategies for SREMO (the SRT paper): conditions over the head and registers, valuations, streams and
expressions, over a tiny schema so that generated patterns match something and registers collide.

Schema: types ``a`` and ``b``; an integer attribute ``x`` in 0..2; registers ``r1`` and ``r2``.
"""

from __future__ import annotations

from hypothesis import strategies as st

from cer_theory.automata.registers import Valuation
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import (ARITH_OPS, TRUE, Arith, Attr, Cmp, Const, IsType, Predicate, conj, disj, neg,
                                            term_attrs)
from cer_theory.formalisms.sremo.ast import (EMPTY, EPS, Any, Complement, Concat, Cond, Expr, Inter, Next, Plus, Star, Union,
                                             Window, written, registers)

TYPES = ("a", "b")
REGISTERS = ("r1", "r2")
XS = (0, 1, 2)


def events() -> st.SearchStrategy[Event]:
    """An event of the schema: a type and (almost always) an ``x``."""
    return st.builds(lambda t, x: Event(t, {} if x is None else {"x": x}),
                     st.sampled_from(TYPES), st.one_of(st.sampled_from(XS), st.sampled_from(XS), st.none()))


def streams(max_length: int = 5) -> st.SearchStrategy[list[Event]]:
    return st.lists(events(), max_size=max_length)


def valuations() -> st.SearchStrategy[Valuation]:
    """A partial valuation of ``r1``, ``r2`` (each register empty or holding an event)."""
    return st.builds(lambda a, b: Valuation({k: v for k, v in (("r1", a), ("r2", b)) if v is not None}),
                     st.one_of(st.none(), events()), st.one_of(st.none(), events()))


def atoms(registers_allowed: tuple[str, ...] = REGISTERS, *, arithmetic: bool = False) -> st.SearchStrategy[Predicate]:
    """Unary atoms (type tests, ``x op c``) and, if registers are allowed, register atoms (``x op r.x``,
    ``r.x op c``, ``r.type = "a"``); with ``arithmetic``, also comparisons of arithmetic terms
    (:func:`arithmetic_atoms`)."""
    ops = st.sampled_from(["=", "!=", "<", ">="])
    unary = st.one_of(st.sampled_from([IsType(t) for t in TYPES]),
                      st.builds(lambda op, c: Cmp(Attr("x"), op, Const(c)), ops, st.sampled_from(XS)))
    if arithmetic:  # weighted so that most generated conditions hold some arithmetic
        unary = st.one_of(unary, arithmetic_atoms(()), arithmetic_atoms(()))
    if not registers_allowed:
        return unary
    regs = st.sampled_from(registers_allowed)
    nary = st.one_of(
        st.builds(lambda op, r: Cmp(Attr("x"), op, Attr("x", r)), ops, regs),
        st.builds(lambda op, r, c: Cmp(Attr("x", r), op, Const(c)), ops, regs, st.sampled_from(XS)),
        st.builds(lambda r, t: IsType(t, r), regs, st.sampled_from(TYPES)),
    )
    if arithmetic:
        nary = st.one_of(nary, arithmetic_atoms(registers_allowed), arithmetic_atoms(registers_allowed))
    return st.one_of(unary, nary)


def arithmetic_atoms(registers_allowed: tuple[str, ...] = REGISTERS) -> st.SearchStrategy[Predicate]:
    """Comparisons whose left side is an arithmetic term ``+ - * /`` over the head's ``x``, the registers' ``x``
    and small integers (negative ones included), and whose right side is an attribute or a constant."""
    attrs = [Attr("x")] + [Attr("x", r) for r in registers_allowed]
    leaf = st.one_of(st.sampled_from(attrs), st.sampled_from([Const(c) for c in (-1, *XS)]))
    term = st.recursive(leaf, lambda kids: st.builds(Arith, st.sampled_from(ARITH_OPS), kids, kids), max_leaves=3)
    left = st.builds(Arith, st.sampled_from(ARITH_OPS), term, term).filter(lambda t: bool(term_attrs(t)))
    right = st.one_of(st.sampled_from(attrs), st.sampled_from([Const(c) for c in XS]))
    return st.builds(Cmp, left, st.sampled_from(["=", "!=", "<", ">="]), right)


def conditions(registers_allowed: tuple[str, ...] = REGISTERS, max_leaves: int = 3, *,
               arithmetic: bool = False) -> st.SearchStrategy[Predicate]:
    """Conditions (the SRT paper, Def. 10): ``⊤``, atoms, ¬, ∧, ∨ (arithmetic in the atoms with ``arithmetic``)."""
    atom = atoms(registers_allowed, arithmetic=arithmetic)
    leaves = st.one_of(st.just(TRUE), atom, atom, atom)
    return st.recursive(leaves, lambda c: st.one_of(
        st.builds(neg, c), st.builds(lambda p, q: conj(p, q), c, c), st.builds(lambda p, q: disj(p, q), c, c)),
        max_leaves=max_leaves)


def conds(registers_allowed: tuple[str, ...] = REGISTERS, *, arithmetic: bool = False) -> st.SearchStrategy[Cond]:
    """``φ↑o↓W`` with ``W`` of at most one register (sometimes two)."""
    writes = st.one_of(st.just(()), st.sampled_from([(r,) for r in registers_allowed] or [()]),
                       st.just(tuple(registers_allowed)))
    return st.builds(lambda g, m, w: Cond(g, m, w), conditions(registers_allowed, arithmetic=arithmetic),
                     st.booleans(), writes)


def _inter(left: Expr, right: Expr) -> Expr:
    # Keep intersections well formed (docs/decisions.md): a register written by one side is not used by the other.
    if (written(left) & registers(right)) or (written(right) & registers(left)):
        return Concat(left, right)
    return Inter(left, right)


def expressions(max_leaves: int = 5, *, registers_allowed: tuple[str, ...] = REGISTERS,
                strategies: bool = True, intersection: bool = True, windows: bool = True,
                arithmetic: bool = False) -> st.SearchStrategy[Expr]:
    """SREMO expressions over every operator of the core syntax and ``e⁺``, optionally ∩, ANY, NEXT, windows
    ``(e) WITHIN w`` (w in 1..3) and arithmetic in the conditions. No complement (it is allowed only inside a
    window; see :func:`with_complements`)."""
    cond = conds(registers_allowed, arithmetic=arithmetic)
    leaves = st.one_of(cond, cond, cond, st.just(EPS), st.just(EMPTY))

    def extend(e: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        options = [st.builds(Concat, e, e), st.builds(Concat, e, e), st.builds(Union, e, e), st.builds(Star, e),
                   st.builds(Plus, e)]
        if intersection:
            options.append(st.builds(_inter, e, e))
        if windows:
            options.append(st.builds(Window, e, st.integers(1, 3)))
        if strategies:
            options.append(st.builds(lambda a, b: Any((a, b)), e, e))
            options.append(st.builds(lambda a, b: Next((a, b)), e, cond))
        return st.one_of(*options)

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def windowed(max_leaves: int = 4, **kw: object) -> st.SearchStrategy[Expr]:
    """``(e) WITHIN w`` at the top, ``w`` in 1..4 (the windows the SRT compiler handles, docs/decisions.md)."""
    return st.builds(Window, expressions(max_leaves, **kw), st.integers(1, 4))  # type: ignore[arg-type]


def with_complements(max_leaves: int = 3) -> st.SearchStrategy[Expr]:
    """``(a · !n · b) WITHIN w`` and ``((!n)* · b) WITHIN w``: windowed expressions with a complement ``!n`` of a
    register-free ``n`` (the complements the SRT compiler builds, the SRT paper §5.1.2); ``a`` and ``b`` may use
    registers."""
    negated = expressions(max_leaves, registers_allowed=(), windows=False)
    around = expressions(max_leaves)
    return st.one_of(
        st.builds(lambda a, n, b, w: Window(Concat(Concat(a, Complement(n)), b), w), around, negated, around,
                  st.integers(1, 4)),
        st.builds(lambda n, b, w: Window(Concat(Star(Complement(n)), b), w), negated, around, st.integers(1, 4)))


__all__ = ["TYPES", "REGISTERS", "events", "streams", "valuations", "atoms", "conditions", "conds",
           "expressions", "windowed", "with_complements"]
