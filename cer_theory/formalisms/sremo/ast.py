"""The abstract syntax of SREMO, symbolic regular expressions with memory and output: the SRT paper (Alevizos,
Artikis, Paliouras, *Complex Event Recognition with Symbolic Register Transducers*), §3.3, Def. 15, with the
derived forms of §3.3 and §5 (``e⁺``, intersection, complement inside windows, windows Def. 39, the selection
operators ⊙ and @ of Defs. 44–45).

``e ::= ε | ∅ | φ↑o | φ↑o↓W | e·e | e+e | e*`` where ``o`` is • (marked) or ⊗ (not marked) and ``W`` a set
of registers the consumed event is written into. Nodes are frozen dataclasses; the union of the paper (``+``) is
:class:`Union`, written ``|`` in the ASCII syntax.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union as TUnion

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import Predicate, reslot
from cer_theory.core.predicates.registers import registers_read

_REGISTER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True, slots=True)
class Eps:
    """ε: the empty string, no match positions (the SRT paper, Def. 17 rule 1)."""


@dataclass(frozen=True, slots=True)
class Empty:
    """∅: no string at all (no derivation; implicit in the SRT paper Def. 17)."""


@dataclass(frozen=True, slots=True)
class Cond:
    """``φ↑o↓W``: one event satisfying the condition ``guard``; marked (•) iff ``marked``; written into every
    register of ``writes`` (the SRT paper, Def. 15; Def. 17 rules 2–3)."""

    guard: Predicate
    marked: bool = True
    writes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.guard, Predicate):
            raise UnsupportedError(f"a condition is a predicate, got {self.guard!r}")
        for r in self.writes:
            if not isinstance(r, str) or not _REGISTER.match(r):
                raise UnsupportedError(f"a register name is an identifier, got {r!r}")
        if len(set(self.writes)) != len(self.writes):
            raise UnsupportedError(f"register written twice in -> {', '.join(self.writes)}")


@dataclass(frozen=True, slots=True)
class Concat:
    """``e₁·e₂`` (the SRT paper, Def. 17 rule 4)."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Union:
    """``e₁ + e₂`` (the SRT paper, Def. 17 rule 5); ``|`` in the ASCII syntax."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Inter:
    """``e₁ ∩ e₂`` (allowed by the SRT paper Thm. 34); ``&`` in the ASCII syntax. See docs/decisions.md for its
    register discipline (the sides' registers are kept apart, as in the product of Thm. 34)."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Star:
    """``e*`` (the SRT paper, Def. 17 rule 6; registers threaded across iterations)."""

    body: Expr


@dataclass(frozen=True, slots=True)
class Plus:
    """``e⁺ := e·e*`` (the SRT paper §7.3)."""

    body: Expr


@dataclass(frozen=True, slots=True)
class Complement:
    """``!e``: the strings ``e`` does not accept, unmarked; allowed only inside a window (the SRT paper §5.1.2)."""

    body: Expr


@dataclass(frozen=True, slots=True)
class Window:
    """``e^[1..w]`` (the SRT paper, Def. 39): the marked positions span at most ``w`` events."""

    body: Expr
    w: int

    def __post_init__(self) -> None:
        if isinstance(self.w, bool) or not isinstance(self.w, int) or self.w < 1:
            raise UnsupportedError(f"a window length is a positive integer, got {self.w!r}")


@dataclass(frozen=True, slots=True)
class Any:
    """``⊙(e₁..eₙ)``: skip-till-any-match (the SRT paper, Def. 44)."""

    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        if not self.args:
            raise UnsupportedError("ANY(...) needs at least one argument")


@dataclass(frozen=True, slots=True)
class Next:
    """``@(e₁..eₙ)``: skip-till-next-match (the SRT paper, Def. 45), with the condition-level negation of the gaps."""

    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        if not self.args:
            raise UnsupportedError("NEXT(...) needs at least one argument")


Expr = TUnion[Eps, Empty, Cond, Concat, Union, Inter, Star, Plus, Complement, Window, Any, Next]
EXPR_TYPES = (Eps, Empty, Cond, Concat, Union, Inter, Star, Plus, Complement, Window, Any, Next)
EPS = Eps()
EMPTY = Empty()


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Concat, Union, Inter)):
        return (e.left, e.right)
    if isinstance(e, (Star, Plus, Complement, Window)):
        return (e.body,)
    if isinstance(e, (Any, Next)):
        return e.args
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """``e`` and all its sub-expressions, pre-order."""
    yield e
    for c in children(e):
        yield from walk(c)


def conditions(e: Expr) -> list[Cond]:
    return [n for n in walk(e) if isinstance(n, Cond)]


def registers(e: Expr) -> frozenset[str]:
    """``reg(e)`` (the SRT paper, eq. 12): every register read by a condition or written."""
    out: set[str] = set()
    for c in conditions(e):
        out |= registers_read(c.guard) | set(c.writes)
    return frozenset(out)


def written(e: Expr) -> frozenset[str]:
    """The registers some condition of ``e`` writes."""
    return frozenset(r for c in conditions(e) for r in c.writes)


def seq(*parts: Expr) -> Expr:
    """``e₁·e₂·…·eₙ`` (left-nested); ε for no part."""
    if not parts:
        return EPS
    out = parts[0]
    for p in parts[1:]:
        out = Concat(out, p)
    return out


def alt(*parts: Expr) -> Expr:
    """``e₁ + … + eₙ`` (left-nested); ∅ for no part."""
    if not parts:
        return EMPTY
    out = parts[0]
    for p in parts[1:]:
        out = Union(out, p)
    return out


def any_order(*parts: Expr) -> Expr:
    """Any-order conjunction ``*(e₁..eₙ)`` (the SRT paper §5.2): the union of the concatenations of every order,
    e.g. ``*(φ₁, φ₂) := φ₁·φ₂ + φ₂·φ₁``."""
    if not parts:
        raise UnsupportedError("any-order conjunction needs at least one argument")
    return alt(*(seq(*order) for order in itertools.permutations(parts)))


def check(e: Expr, *, windowed: bool = False) -> Expr:
    """Validate the context rules the grammar cannot state; returns ``e``. ``windowed``: ``e`` is the body of a
    window (a construction that handles ``(e) WITHIN w`` itself compiles ``e`` alone).

    * ``!e`` only inside a window (the SRT paper §5.1.2: complement is closed only for windowed expressions, Cor. 43);
    * ``e₁ & e₂``: a register written by one side is not read or written by the other (the product of Thm. 34
      assumes disjoint registers; docs/decisions.md, SREMO intersection);
    * ``NEXT(e₁..eₙ)``: every argument after the first is a single condition (the condition-level negation of
      Def. 45; the literal complement is broken, docs/errata.md).
    """
    _check(e, windowed=windowed)
    return e


def _check(e: Expr, windowed: bool) -> None:
    if not isinstance(e, EXPR_TYPES):
        raise UnsupportedError(f"not a SREMO expression: {e!r}")
    if isinstance(e, Complement) and not windowed:
        raise UnsupportedError("!e (complement) is allowed only inside a window: write (... !e ...) WITHIN w")
    if isinstance(e, Inter):
        wl, wr = written(e.left), written(e.right)
        clash = (wl & registers(e.right)) | (wr & registers(e.left))
        if clash:
            raise UnsupportedError(f"the sides of & share the registers {', '.join(sorted(clash))} that one of "
                                   f"them writes; rename them apart (the SRT paper Thm. 34 assumes disjoint registers)")
    if isinstance(e, Next):
        for a in e.args[1:]:
            if not isinstance(a, Cond):
                raise UnsupportedError("NEXT(e1, ..., en): every argument after the first must be one condition "
                                       "<φ> or [φ] (the skipped events are those failing it, the SRT paper Def. 45)")
    for c in children(e):
        _check(c, windowed or isinstance(e, Window))


def rename_registers(e: Expr, mapping: dict[str, str]) -> Expr:
    """``e`` with registers renamed (reads and writes): the renaming apart of the closure theorems (the SRT paper
    Thms. 31 and 34 assume disjoint register sets)."""
    if isinstance(e, Cond):
        return Cond(reslot(e.guard, mapping), e.marked, tuple(mapping.get(r, r) for r in e.writes))
    if isinstance(e, (Concat, Union, Inter)):
        return type(e)(rename_registers(e.left, mapping), rename_registers(e.right, mapping))
    if isinstance(e, (Star, Plus, Complement)):
        return type(e)(rename_registers(e.body, mapping))
    if isinstance(e, Window):
        return Window(rename_registers(e.body, mapping), e.w)
    if isinstance(e, (Any, Next)):
        return type(e)(tuple(rename_registers(a, mapping) for a in e.args))
    return e
