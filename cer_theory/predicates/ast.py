"""The predicate AST shared by every model.

A predicate is a boolean combination of atoms over *slots*. A slot is ``None`` for "the current event" (the
unary CEA predicates of seed 000 Def. 5.1, the ``~`` of seed 002) or a variable name (a CEL variable in an
n-ary filter such as ``H.id = T.id``, seed 000 §2.3; a register of seed 002). A predicate with only the
``None`` slot is **unary**: a decidable set of tuples, an element of the universe 𝒰 of seed 000 §5.

Atom semantics (spec cel-cea.md §2.3 [ours]): a comparison holds only when both operands are defined and of
the same kind (number, string, boolean). A missing attribute or a kind mismatch makes the atom *false*, so
its negation is true. This is the type-guard reading the spec prescribes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Union

from ..errors import PredicateError
from ..events import TYPE_KEY, Event, Value

Slot = Union[str, None]
Env = Mapping[Slot, Event]

OPS: dict[str, Callable[[object, object], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
NEGATED_OP = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
MIRRORED_OP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def kind(value: Value) -> str:
    """The comparison kind of a value: ``"bool"``, ``"num"`` or ``"str"``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "num"
    if isinstance(value, str):
        return "str"
    raise PredicateError(f"not an attribute value: {value!r}")


def compare(left: Value | None, op: str, right: Value | None) -> bool:
    """``left op right`` with the type guard: false when either side is missing or the kinds differ."""
    if left is None or right is None or kind(left) != kind(right):
        return False
    return OPS[op](left, right)


# ---------------------------------------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
class Attr:
    """The attribute ``name`` of the event in ``slot`` (``type`` gives the event type)."""

    name: str
    slot: Slot = None

    def value(self, env: Env) -> Value | None:
        return env[self.slot].get(self.name)

    def __str__(self) -> str:
        return self.name if self.slot is None else f"{self.slot}.{self.name}"


@dataclass(frozen=True, slots=True)
class Const:
    """A constant value."""

    value: Value

    def __post_init__(self) -> None:
        kind(self.value)

    def __eq__(self, other: object) -> bool:  # 1 and True are different constants
        return isinstance(other, Const) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self.value).__name__, self.value))

    def __str__(self) -> str:
        return format_value(self.value)


Term = Union[Attr, Const]


def format_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


# ---------------------------------------------------------------------------------------------- predicates


class Predicate:
    """Base class: immutable, hashable, evaluable on an environment of events, printable.

    ``p(event)`` evaluates a unary predicate; ``p.holds(env)`` evaluates on an environment slot → event.
    ``&``, ``|`` and ``~`` build conjunctions, disjunctions and negations (flattened, with TRUE/FALSE absorbed).
    """

    __slots__ = ()
    precedence: ClassVar[int] = 3  # for printing: 0 OR, 1 AND, 2 NOT, 3 atoms

    def holds(self, env: Env) -> bool:
        raise NotImplementedError

    def __call__(self, event: Event) -> bool:
        return self.holds({None: event})

    def children(self) -> tuple[Predicate, ...]:
        return ()

    def slots(self) -> frozenset[Slot]:
        """The slots this predicate reads; a predicate is unary iff this is a subset of ``{None}``."""
        out: set[Slot] = set()
        for node in self.walk():
            out |= node._own_slots()
        return frozenset(out)

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset()

    def is_unary(self) -> bool:
        return self.slots() <= {None}

    def walk(self) -> Iterator[Predicate]:
        """This node and all nodes below it, pre-order (``On`` bodies excluded: they read another slot)."""
        yield self
        for c in self.children():
            yield from c.walk()

    def atoms(self) -> frozenset[Predicate]:
        return frozenset(n for n in self.walk() if not n.children() and n not in (TRUE, FALSE))

    def __and__(self, other: Predicate) -> Predicate:
        return conj(self, other)

    def __or__(self, other: Predicate) -> Predicate:
        return disj(self, other)

    def __invert__(self) -> Predicate:
        return neg(self)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Predicate({self.text()!r})"

    def text(self) -> str:
        """Parseable text: ``tmp > 40 AND type = "H"``."""
        raise NotImplementedError

    def label(self) -> str:
        """A compact label for drawings: ``H ∧ tmp>40``."""
        raise NotImplementedError


def _paren(p: Predicate, parent: int, render: Callable[[Predicate], str]) -> str:
    s = render(p)
    return f"({s})" if p.precedence < parent else s


@dataclass(frozen=True, slots=True, repr=False)
class BoolConst(Predicate):
    """TRUE (all tuples, ``tuples(ℛ)``) or FALSE (the empty predicate ∅)."""

    value: bool

    def holds(self, env: Env) -> bool:
        return self.value

    def text(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def label(self) -> str:
        return "⊤" if self.value else "⊥"


TRUE = BoolConst(True)
FALSE = BoolConst(False)


@dataclass(frozen=True, slots=True, repr=False)
class IsType(Predicate):
    """``tuples(R)``: the event in ``slot`` has type ``name`` (seed 000 §5, the universe 𝒰)."""

    name: str
    slot: Slot = None

    def holds(self, env: Env) -> bool:
        return env[self.slot].type == self.name

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.slot])

    def text(self) -> str:
        return f"{Attr(TYPE_KEY, self.slot)} = {format_value(self.name)}"

    def label(self) -> str:
        return self.name if self.slot is None else f"{self.slot}∈{self.name}"


@dataclass(frozen=True, slots=True, repr=False)
class Cmp(Predicate):
    """``left op right`` with ``op`` in ``= != < <= > >=``, each side an attribute or a constant."""

    left: Term
    op: str
    right: Term

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise PredicateError(f"unknown comparison {self.op!r}; expected one of {' '.join(OPS)}")
        if isinstance(self.left, Const) and isinstance(self.right, Const):
            raise PredicateError(f"comparison {self.text()} has no attribute")

    def holds(self, env: Env) -> bool:
        lv = self.left.value(env) if isinstance(self.left, Attr) else self.left.value
        rv = self.right.value(env) if isinstance(self.right, Attr) else self.right.value
        return compare(lv, self.op, rv)

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset(t.slot for t in (self.left, self.right) if isinstance(t, Attr))

    def text(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def label(self) -> str:
        op = {"<=": "≤", ">=": "≥", "!=": "≠"}.get(self.op, self.op)
        return f"{self.left}{op}{self.right}"


@dataclass(frozen=True, slots=True, repr=False)
class Opaque(Predicate):
    """A named Python test on one event, for semantics that need one; Z3 sees it as a free atom per slot."""

    name: str
    fn: Callable[[Event], bool] = field(compare=False, hash=False)
    slot: Slot = None

    def holds(self, env: Env) -> bool:
        return bool(self.fn(env[self.slot]))

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.slot])

    def text(self) -> str:
        return f"@{self.name}" if self.slot is None else f"{self.slot}[@{self.name}]"

    def label(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True, repr=False)
class On(Predicate):
    """``var[p]``: the unary predicate ``p`` applied to the event in slot ``var`` (CEL ``P^SO(A)`` atoms)."""

    var: str
    body: Predicate

    def __post_init__(self) -> None:
        if not self.body.is_unary():
            raise PredicateError(f"{self.var}[...] takes a unary predicate, got {self.body.text()}")

    def holds(self, env: Env) -> bool:
        return self.body.holds({None: env[self.var]})

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.var])

    def text(self) -> str:
        return f"{self.var}[{self.body.text()}]"

    def label(self) -> str:
        return f"{self.var}[{self.body.label()}]"


@dataclass(frozen=True, slots=True, repr=False)
class Not(Predicate):
    arg: Predicate
    precedence: ClassVar[int] = 2

    def holds(self, env: Env) -> bool:
        return not self.arg.holds(env)

    def children(self) -> tuple[Predicate, ...]:
        return (self.arg,)

    def text(self) -> str:
        return "NOT " + _paren(self.arg, 3, lambda q: q.text())

    def label(self) -> str:
        return "¬" + _paren(self.arg, 3, lambda q: q.label())


@dataclass(frozen=True, slots=True, repr=False)
class And(Predicate):
    args: tuple[Predicate, ...]
    precedence: ClassVar[int] = 1

    def __post_init__(self) -> None:
        if len(self.args) < 2:
            raise PredicateError("And needs at least two arguments; use conj()")

    def holds(self, env: Env) -> bool:
        return all(a.holds(env) for a in self.args)

    def children(self) -> tuple[Predicate, ...]:
        return self.args

    def text(self) -> str:
        return " AND ".join(_paren(a, 2, lambda q: q.text()) for a in self.args)

    def label(self) -> str:
        return " ∧ ".join(_paren(a, 2, lambda q: q.label()) for a in self.args)


@dataclass(frozen=True, slots=True, repr=False)
class Or(Predicate):
    args: tuple[Predicate, ...]
    precedence: ClassVar[int] = 0

    def __post_init__(self) -> None:
        if len(self.args) < 2:
            raise PredicateError("Or needs at least two arguments; use disj()")

    def holds(self, env: Env) -> bool:
        return any(a.holds(env) for a in self.args)

    def children(self) -> tuple[Predicate, ...]:
        return self.args

    def text(self) -> str:
        return " OR ".join(_paren(a, 1, lambda q: q.text()) for a in self.args)

    def label(self) -> str:
        return " ∨ ".join(_paren(a, 1, lambda q: q.label()) for a in self.args)


# ---------------------------------------------------------------------------------------------- builders


def conj(*preds: Predicate) -> Predicate:
    """Conjunction, flattened; TRUE is dropped, FALSE absorbs, duplicates are removed (order kept)."""
    out: list[Predicate] = []
    for p in preds:
        for q in (p.args if isinstance(p, And) else (p,)):
            if q == FALSE:
                return FALSE
            if q != TRUE and q not in out:
                out.append(q)
    return TRUE if not out else out[0] if len(out) == 1 else And(tuple(out))


def disj(*preds: Predicate) -> Predicate:
    """Disjunction, flattened; FALSE is dropped, TRUE absorbs, duplicates are removed (order kept)."""
    out: list[Predicate] = []
    for p in preds:
        for q in (p.args if isinstance(p, Or) else (p,)):
            if q == TRUE:
                return TRUE
            if q != FALSE and q not in out:
                out.append(q)
    return FALSE if not out else out[0] if len(out) == 1 else Or(tuple(out))


def neg(p: Predicate) -> Predicate:
    """Negation; double negations and constants are folded."""
    if isinstance(p, BoolConst):
        return FALSE if p.value else TRUE
    if isinstance(p, Not):
        return p.arg
    return Not(p)


def attr(name: str, slot: Slot = None) -> Attr:
    return Attr(name, slot)


def cmp(left: Term | str, op: str, right: Term | Value, slot: Slot = None) -> Cmp:
    """Shorthand: ``cmp("tmp", ">", 40)`` is ``tmp > 40``; strings on the left name attributes."""
    lt = Attr(left, slot) if isinstance(left, str) else left
    rt = right if isinstance(right, (Attr, Const)) else Const(right)
    return Cmp(lt, op, rt)


def is_type(name: str, slot: Slot = None) -> IsType:
    return IsType(name, slot)


def unary_body(p: Predicate, slot: str) -> Predicate:
    """Re-read a predicate over the single slot ``slot`` as a unary predicate (slot → ``None``).

    Used to turn a CEL filter atom ``A.x > 3`` into the CEA predicate ``x > 3`` guarding A-marking transitions.
    """
    if p.slots() - {slot}:
        raise PredicateError(f"{p.text()} reads slots {sorted(map(str, p.slots() - {slot}))} besides {slot}")
    return _reslot(p, {slot: None})


def _reslot(p: Predicate, mapping: Mapping[Slot, Slot]) -> Predicate:
    def t(term: Term) -> Term:
        return Attr(term.name, mapping.get(term.slot, term.slot)) if isinstance(term, Attr) else term

    if isinstance(p, On):
        target = mapping.get(p.var, p.var)
        return p.body if target is None else On(target, p.body)
    if isinstance(p, Cmp):
        return Cmp(t(p.left), p.op, t(p.right))
    if isinstance(p, IsType):
        return IsType(p.name, mapping.get(p.slot, p.slot))
    if isinstance(p, Opaque):
        return Opaque(p.name, p.fn, mapping.get(p.slot, p.slot))
    if isinstance(p, Not):
        return neg(_reslot(p.arg, mapping))
    if isinstance(p, And):
        return conj(*(_reslot(a, mapping) for a in p.args))
    if isinstance(p, Or):
        return disj(*(_reslot(a, mapping) for a in p.args))
    return p


def reslot(p: Predicate, mapping: Mapping[Slot, Slot]) -> Predicate:
    """Rename slots (e.g. ``{None: "r1"}`` to read a unary predicate on register r1)."""
    return _reslot(p, mapping)
